#!/usr/bin/env node
// Times a TF.js graph model with TensorFlow.js 4.22.0 (pinned in
// package.json) on the inputs of a golden / inputs file, for graphrt's
// side-by-side benchmark (bench/compare_tfjs.sh).
//
//   node bench_tfjs.js MODEL_JSON --inputs FILE [--backend wasm|cpu]
//        [--threads N] [--iters N] [--warmup N] [--loads N]
//
// FILE is {"inputs":[{"name","dtype","shape","data_b64"}]} (a golden file
// from golden.js works); every model input must be in it. The wasm
// backend runs with --threads worker threads (default 1: the single-core
// comparison). Each timed inference is executeAsync + reading every output
// back (dataSync), i.e. what a caller waits for. --loads N loads the model
// N times (each disposed before the next) and reports the median load_ms,
// as `graphrt bench --loads N` does. Prints one JSON line:
//   {"model","backend","threads","loads","load_ms","first_ms","median_ms",
//    "min_ms","iters"}
// Modules are found like golden.js does (tools/golden/setup.sh's cache).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

function moduleDirs() {
  const cache = process.env.GRAPHRT_CACHE ||
      path.join(process.env.HOME || os.homedir(), '.cache', 'graphrt');
  const dirs = [];
  if (process.env.GRAPHRT_GOLDEN_NODE_MODULES) dirs.push(process.env.GRAPHRT_GOLDEN_NODE_MODULES);
  dirs.push(path.join(cache, 'golden-node', 'node_modules'));
  dirs.push(path.join(__dirname, 'node_modules'));
  return dirs;
}

function resolveModule(name) {
  for (const dir of moduleDirs()) {
    try {
      return require.resolve(name, {paths: [dir]});
    } catch (e) { /* next */ }
  }
  throw new Error(`cannot find ${name}; run tools/golden/setup.sh first`);
}

// Silence TF.js's banners; our only stdout line is the result.
for (const level of ['log', 'warn', 'info']) console[level] = () => {};
const print = s => process.stdout.write(s + '\n');

const tf = require(resolveModule('@tensorflow/tfjs-core'));
require(resolveModule('@tensorflow/tfjs-backend-cpu'));
const tfconv = require(resolveModule('@tensorflow/tfjs-converter'));

function parseArgs(argv) {
  const a = {backend: 'wasm', threads: 1, iters: 10, warmup: 2, loads: 1, pos: []};
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--inputs') a.inputs = next();
    else if (k === '--backend') a.backend = next();
    else if (k === '--threads') a.threads = Number(next());
    else if (k === '--iters') a.iters = Number(next());
    else if (k === '--warmup') a.warmup = Number(next());
    else if (k === '--loads') a.loads = Number(next());
    else if (k.startsWith('--')) throw new Error(`unknown option ${k}`);
    else a.pos.push(k);
  }
  if (a.pos.length !== 1 || !a.inputs) {
    throw new Error('usage: bench_tfjs.js MODEL_JSON --inputs FILE [--backend wasm|cpu] ' +
                    '[--threads N] [--iters N] [--warmup N] [--loads N]');
  }
  if (!(a.iters >= 1) || !(a.threads >= 1) || !(a.loads >= 1)) {
    throw new Error('--iters, --threads and --loads must be >= 1');
  }
  return a;
}

// model.json + shards from disk, shards concatenated in manifest order.
function fileHandler(modelJson) {
  return {
    async load() {
      const json = JSON.parse(fs.readFileSync(modelJson, 'utf8'));
      const dir = path.dirname(modelJson);
      const weightSpecs = [];
      const parts = [];
      for (const group of json.weightsManifest || []) {
        weightSpecs.push(...group.weights);
        for (const p of group.paths) parts.push(fs.readFileSync(path.join(dir, p)));
      }
      const all = Buffer.concat(parts);
      const out = {
        modelTopology: json.modelTopology, weightSpecs, format: json.format,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      };
      for (const k of ['signature', 'userDefinedMetadata', 'modelInitializer',
                       'initializerSignature']) {
        if (json[k] !== undefined) out[k] = json[k];
      }
      return out;
    },
  };
}

// One input record -> tensor, with TF.js's dtype collapsing.
function toTensor(rec) {
  if (rec.strings) return tf.tensor(rec.strings.map(String), rec.shape, 'string');
  const b = Buffer.from(rec.data_b64, 'base64');
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  const views = {
    float32: () => ['float32', new Float32Array(ab)],
    float64: () => ['float32', Float32Array.from(new Float64Array(ab))],
    int32: () => ['int32', new Int32Array(ab)],
    int64: () => ['int32', Int32Array.from(new BigInt64Array(ab), Number)],
    uint8: () => ['int32', Int32Array.from(new Uint8Array(ab))],
    bool: () => ['bool', new Uint8Array(ab)],
  };
  if (!views[rec.dtype]) throw new Error(`input ${rec.name}: dtype ${rec.dtype} unsupported`);
  const [dtype, data] = views[rec.dtype]();
  return tf.tensor(data, rec.shape, dtype);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.backend === 'wasm') {
    const wasmPath = resolveModule('@tensorflow/tfjs-backend-wasm');
    const wasm = require(wasmPath);
    wasm.setWasmPaths(path.dirname(wasmPath) + path.sep);
    if (wasm.setThreadsCount) wasm.setThreadsCount(a.threads);
  }
  if (!(await tf.setBackend(a.backend))) throw new Error(`backend ${a.backend} unavailable`);
  await tf.ready();

  const loadTimes = [];
  let model = null;
  for (let i = 0; i < a.loads; i++) {
    if (model) model.dispose();
    const t0 = process.hrtime.bigint();
    model = await tfconv.loadGraphModel(fileHandler(a.pos[0]));
    loadTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  loadTimes.sort((x, y) => x - y);
  const loadMs = loadTimes[loadTimes.length >> 1];

  const records = JSON.parse(fs.readFileSync(a.inputs, 'utf8')).inputs || [];
  const feed = {};
  for (const rec of records) feed[rec.name] = toTensor(rec);

  const once = async () => {
    const s = process.hrtime.bigint();
    let outs = await model.executeAsync(feed, model.outputNodes);
    if (!Array.isArray(outs)) outs = [outs];
    for (const o of outs) o.dataSync();
    const ms = Number(process.hrtime.bigint() - s) / 1e6;
    tf.dispose(outs);
    return ms;
  };
  const first = await once();
  for (let i = 0; i < a.warmup; i++) await once();
  const times = [];
  for (let i = 0; i < a.iters; i++) times.push(await once());
  times.sort((x, y) => x - y);
  const r3 = v => Math.round(v * 1000) / 1000;
  print(JSON.stringify({
    model: path.basename(a.pos[0], '.json'), backend: a.backend, threads: a.threads,
    loads: a.loads, load_ms: r3(loadMs), first_ms: r3(first), median_ms: r3(times[times.length >> 1]),
    min_ms: r3(times[0]), iters: a.iters,
  }));
}

main().catch(e => {
  process.stderr.write(`bench_tfjs.js: error: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
