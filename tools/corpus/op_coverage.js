#!/usr/bin/env node
// Lists every op the corpus models use (graph nodes and function-library
// nodes) and whether graphrt's built-in registry has a kernel for it.
//
//   node tools/corpus/op_coverage.js MODELS_DIR REGISTRY_OPS.txt [models.txt]
//
// REGISTRY_OPS.txt: one op name a line, as printed by the list_ops binary
// (bazel run //tests/corpus:list_ops > ops.txt; tools/corpus/op_coverage.sh
// does both steps). Prints a table: op, registered yes/NO, node count, the
// models using it; then the missing ops with counts, and per model the
// missing ops (what a model still needs before it can load).
'use strict';
const fs = require('fs');
const path = require('path');

const [modelsDir, opsFile, listFile] = process.argv.slice(2);
if (!modelsDir || !opsFile) {
  console.error('usage: node op_coverage.js MODELS_DIR REGISTRY_OPS.txt [models.txt]');
  process.exit(2);
}
const registered = new Set(fs.readFileSync(opsFile, 'utf8').split('\n')
                             .map(s => s.trim()).filter(Boolean));
const names = fs.readFileSync(listFile || path.join(__dirname, 'models.txt'), 'utf8')
    .split('\n').map(l => l.trim().split(/\s+/)[0]).filter(w => w && !w.startsWith('#'));

const ops = new Map();  // op -> {count, models:Set}
const perModel = new Map();
for (const name of names) {
  const json = JSON.parse(fs.readFileSync(path.join(modelsDir, name + '.json'), 'utf8'));
  const topo = json.modelTopology || {};
  const nodes = [...(topo.node || [])];
  for (const f of (topo.library && topo.library.function) || []) nodes.push(...(f.nodeDef || []));
  const init = json.modelInitializer;
  if (init) nodes.push(...(init.node || []));
  const mine = new Set();
  for (const n of nodes) {
    if (!ops.has(n.op)) ops.set(n.op, {count: 0, models: new Set()});
    const e = ops.get(n.op);
    e.count++;
    e.models.add(name);
    mine.add(n.op);
  }
  perModel.set(name, [...mine].sort());
}

const sorted = [...ops.entries()].sort((a, b) => a[0].localeCompare(b[0]));
console.log(`# ${ops.size} distinct ops in ${names.length} models; registry has ${registered.size} ops`);
console.log('op\tregistered\tnodes\tmodels');
for (const [op, e] of sorted) {
  console.log(`${op}\t${registered.has(op) ? 'yes' : 'NO'}\t${e.count}\t${e.models.size}`);
}
const missing = sorted.filter(([op]) => !registered.has(op))
    .sort((a, b) => b[1].models.size - a[1].models.size || b[1].count - a[1].count);
console.log(`\n# missing ops: ${missing.length} of ${ops.size} (by number of models needing them)`);
console.log('op\tmodels\tnodes\twhich');
for (const [op, e] of missing) {
  const which = [...e.models].sort();
  console.log(`${op}\t${e.models.size}\t${e.count}\t${which.length > 8 ? which.slice(0, 8).join(',') + ',...' : which.join(',')}`);
}
console.log('\n# per model: missing ops');
let ready = 0;
for (const [name, list] of perModel) {
  const miss = list.filter(op => !registered.has(op));
  if (miss.length === 0) ready++;
  console.log(`${name}\t${miss.length ? miss.join(',') : '(all registered)'}`);
}
console.log(`\n# ${ready} of ${perModel.size} models have every op registered`);
