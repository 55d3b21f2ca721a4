// Trains small Yggdrasil Decision Forests models with the ydf-training npm
// package (YDF compiled to WebAssembly) and writes, per model, the YDF model
// folder and YDF's own predictions on a test CSV: the reference the
// //tests/ops/tfdf:ydf_golden_test compares graphrt's
// SimpleMLInferenceOpWithHandle with. Run through make_ydf_goldens.sh.
//
//   node make_ydf_goldens.js OUT_DIR
//
// OUT_DIR/<model>/model/   the unzipped YDF model
// OUT_DIR/<model>/test.csv the examples (header row, "" = missing)
// OUT_DIR/<model>/predictions.json {"task", "predictions": [...]} as
//   ydf-training's predict() returns them (binary classification: the
//   positive class probability per row; otherwise row-major values).
"use strict";
global.JSZip = require("jszip");
const fs = require("node:fs");
const path = require("node:path");

// Deterministic data (mulberry32), so reruns give the same models.
function rng(seed) {
  return function () {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeCsv(seed, rows) {
  const r = rng(seed);
  const colors = ["red", "green", "blue", "black"];
  const lines = ["x1,x2,color,label,label3,target"];
  for (let i = 0; i < rows; ++i) {
    const x1 = r() * 4 - 2;
    const x2 = r() * 10;
    const color = colors[Math.floor(r() * 4)];
    const noise = r() - 0.5;
    const label = x1 + (color === "red" ? 1 : 0) + noise > 0.3 ? "yes" : "no";
    const bucket = Math.floor(((x2 + noise * 3) / 10) * 3) + (color === "blue" ? 1 : 0);
    const label3 = ["a", "b", "c"][((bucket % 3) + 3) % 3];
    const target = (x1 * 3 + x2 + (color === "blue" ? 2 : 0) + noise).toFixed(4);
    // Some missing values: the NA branches of the trees.
    const sx1 = r() < 0.05 ? "" : x1.toFixed(4);
    const sx2 = r() < 0.05 ? "" : x2.toFixed(4);
    const scolor = r() < 0.05 ? "" : color;
    lines.push([sx1, sx2, scolor, label, label3, target].join(","));
  }
  return lines.join("\n") + "\n";
}

async function saveModel(model, dir) {
  const blob = await model.save();
  const zip = await JSZip.loadAsync(Buffer.from(await blob.arrayBuffer()));
  fs.mkdirSync(dir, { recursive: true });
  for (const name of Object.keys(zip.files)) {
    if (zip.files[name].dir) continue;
    const data = await zip.files[name].async("nodebuffer");
    fs.writeFileSync(path.join(dir, path.basename(name)), data);
  }
}

(async function main() {
  const out = process.argv[2];
  if (!out) throw new Error("usage: node make_ydf_goldens.js OUT_DIR");
  const ydf = await require("ydf-training")();
  const train = makeCsv(1, 400);
  const test = makeCsv(2, 100);
  // Unused label columns are dropped so they are not input features.
  const only = (csv, keep) => {
    const rows = csv.trim().split("\n").map((l) => l.split(","));
    const idx = keep.map((k) => rows[0].indexOf(k));
    return rows.map((r) => idx.map((i) => r[i]).join(",")).join("\n") + "\n";
  };
  const features = ["x1", "x2", "color"];
  const specs = [
    ["gbt_binary", "GradientBoostedTreesLearner", "label", "CLASSIFICATION"],
    ["rf_binary", "RandomForestLearner", "label", "CLASSIFICATION"],
    ["gbt_multiclass", "GradientBoostedTreesLearner", "label3", "CLASSIFICATION"],
    ["rf_multiclass", "RandomForestLearner", "label3", "CLASSIFICATION"],
    ["gbt_regression", "GradientBoostedTreesLearner", "target", "REGRESSION"],
    ["rf_regression", "RandomForestLearner", "target", "REGRESSION"],
  ];
  for (const [name, learner, label, task] of specs) {
    const cols = features.concat([label]);
    const model = new ydf[learner](label, task).train(only(train, cols));
    const testCsv = only(test, cols);
    const predictions = Array.from(model.predict(testCsv));
    const dir = path.join(out, name);
    await saveModel(model, path.join(dir, "model"));
    fs.writeFileSync(path.join(dir, "test.csv"), testCsv);
    fs.writeFileSync(path.join(dir, "predictions.json"),
                     JSON.stringify({ task, label, predictions }));
    model.unload();
    console.error(`${name}: ${predictions.length} predictions`);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
