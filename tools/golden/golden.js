#!/usr/bin/env node
// graphrt golden generator: runs a TF.js graph model (model.json + weight
// shards) with TensorFlow.js 4.22.0 and writes the inputs it fed and the
// outputs it got, for graphrt's tests to compare against.
//
//   node golden.js MODEL_JSON OUT.json [--inputs FILE] [--seed N]
//        [--shape NAME=1,2,3]... [--value NAME=0.5]... [--backend cpu|wasm]
//        [--check GOLDEN.json]
//
// Modules come from the cache dir tools/golden/setup.sh installs into
// ($GRAPHRT_CACHE or $HOME/.cache/graphrt)/golden-node/node_modules, or
// from $GRAPHRT_GOLDEN_NODE_MODULES, NODE_PATH or a node_modules beside this
// file.
//
// Inputs: every non-resource model input gets seeded pseudo-random values
// (float32 uniform [0,1), int32 integers in [0,256), bool coin flips,
// string short lower-case words); an unknown leading dim becomes 1, other
// unknown dims 64, unless --shape NAME=d0,d1,... says otherwise (--shape
// NAME= for a scalar). --value NAME=V fills a generated input with the
// constant V instead of random values (e.g. recurrent states = 0, a ratio
// = 0.5); such inputs draw nothing from the generator. --inputs FILE takes tensors from FILE's "inputs"
// (a golden file or a hand-written {"inputs":[...]}) by name; inputs not in
// the file are still generated. Resource inputs (hash-table handles) are
// bound by the model's initializer and never fed.
//
// Output file:
//   {"model", "reference": "tfjs 4.22.0", "backend", "seed",
//    "inputs":  [{"name", "dtype", "model_dtype", "shape", "data_b64"|"strings"}],
//    "outputs": [{"name", "tensor", "dtype", "shape", "data_b64"|"strings"}]}
// inputs[].name is the input node's name (what TF.js's model.inputs says);
// outputs[].name is TF.js's output name (the signature key where the model
// has a signature, else the tensor name) and "tensor" the "node:index" the
// signature maps it to. data_b64 = base64 of the little-endian values
// (float32, int32; bool one byte per value; complex64 interleaved re/im).
// strings = JSON array of UTF-8 strings.
//
// --check GOLDEN.json: after running, compares the outputs with GOLDEN's
// (same names, dtypes, shapes; float32 within 1e-6 relative, others exact)
// and exits 1 on a mismatch.
'use strict';

const fs = require('fs');
const path = require('path');
const os = require('os');

// ---------------------------------------------------------------------------
// Module resolution: the pinned packages live outside the source tree.

function moduleDirs() {
  const dirs = [];
  if (process.env.GRAPHRT_GOLDEN_NODE_MODULES) {
    dirs.push(process.env.GRAPHRT_GOLDEN_NODE_MODULES);
  }
  const cache = process.env.GRAPHRT_CACHE ||
      path.join(process.env.HOME || os.homedir(), '.cache', 'graphrt');
  dirs.push(path.join(cache, 'golden-node', 'node_modules'));
  for (const p of (process.env.NODE_PATH || '').split(path.delimiter)) {
    if (p) dirs.push(p);
  }
  dirs.push(path.join(__dirname, 'node_modules'));
  return dirs;
}

function load(name) {
  for (const dir of moduleDirs()) {
    let resolved;
    try {
      resolved = require.resolve(name, {paths: [dir]});
    } catch (e) {
      continue;
    }
    return require(resolved);
  }
  throw new Error(`cannot find module ${name}; run tools/golden/setup.sh ` +
                  `first (searched ${moduleDirs().join(', ')})`);
}

// TF.js prints a banner about tfjs-node and hints about execute() vs
// executeAsync(); keep stdout/stderr for our own messages.
const kNoise = ['tfjs-node', 'executeAsync', 'model.execute()', '============'];
for (const level of ['log', 'warn', 'info']) {
  const orig = console[level].bind(console);
  console[level] = (...args) => {
    const s = args.map(String).join(' ');
    if (kNoise.some(n => s.includes(n)) || s.trim() === '') return;
    orig(...args);
  };
}

const tf = load('@tensorflow/tfjs-core');
load('@tensorflow/tfjs-backend-cpu');
const tfconv = load('@tensorflow/tfjs-converter');

// ---------------------------------------------------------------------------
// Arguments

function usage(msg) {
  if (msg) console.error(`golden.js: ${msg}`);
  console.error('usage: node golden.js MODEL_JSON OUT.json [--inputs FILE] ' +
                '[--seed N] [--shape NAME=1,2,3]... [--value NAME=V]... ' +
                '[--backend cpu|wasm] ' +
                '[--check GOLDEN.json]');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {seed: 1, backend: 'cpu', shapes: {}, values: {}, positional: []};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--inputs') {
      args.inputs = next();
    } else if (a === '--seed') {
      args.seed = Number(next());
      if (!Number.isInteger(args.seed)) usage('--seed takes an integer');
    } else if (a === '--shape') {
      const spec = next();
      const eq = spec.lastIndexOf('=');
      if (eq <= 0) usage(`--shape ${spec}: expected NAME=d0,d1,...`);
      const dims = spec.slice(eq + 1);
      args.shapes[spec.slice(0, eq)] =
          dims === '' ? [] : dims.split(',').map(d => {
            const n = Number(d);
            if (!Number.isInteger(n) || n < 0) usage(`--shape ${spec}: bad dim ${d}`);
            return n;
          });
    } else if (a === '--value') {
      const spec = next();
      const eq = spec.lastIndexOf('=');
      const v = Number(spec.slice(eq + 1));
      if (eq <= 0 || spec.slice(eq + 1).trim() === '' || Number.isNaN(v)) {
        usage(`--value ${spec}: expected NAME=number`);
      }
      args.values[spec.slice(0, eq)] = v;
    } else if (a === '--backend') {
      args.backend = next();
      if (args.backend !== 'cpu' && args.backend !== 'wasm') {
        usage('--backend is cpu or wasm');
      }
    } else if (a === '--check') {
      args.check = next();
    } else if (a === '-h' || a === '--help') {
      usage();
    } else if (a.startsWith('--')) {
      usage(`unknown option ${a}`);
    } else {
      args.positional.push(a);
    }
  }
  if (args.positional.length !== 2) usage();
  [args.model, args.out] = args.positional;
  return args;
}

// ---------------------------------------------------------------------------
// Loading: a tf.io.IOHandler reading model.json and its shards from disk.

function diskHandler(modelJsonPath) {
  return {
    async load() {
      const json = JSON.parse(fs.readFileSync(modelJsonPath, 'utf8'));
      const dir = path.dirname(modelJsonPath);
      const weightSpecs = [];
      const shards = [];
      // Groups are concatenated in manifest order; each group's byte stream
      // is its shards in order (TF.js's HTTP loader does the same).
      for (const group of json.weightsManifest || []) {
        weightSpecs.push(...group.weights);
        for (const p of group.paths) shards.push(fs.readFileSync(path.join(dir, p)));
      }
      const bytes = Buffer.concat(shards);
      const weightData = bytes.buffer.slice(bytes.byteOffset,
                                            bytes.byteOffset + bytes.byteLength);
      const artifacts = {
        modelTopology: json.modelTopology,
        weightSpecs,
        weightData,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
      };
      for (const key of ['signature', 'userDefinedMetadata', 'modelInitializer',
                         'initializerSignature', 'trainingConfig']) {
        if (json[key] !== undefined) artifacts[key] = json[key];
      }
      return artifacts;
    },
  };
}

async function setBackend(name) {
  if (name === 'wasm') {
    const wasm = load('@tensorflow/tfjs-backend-wasm');
    // In node the .wasm files are read from the package's dist directory.
    const dist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm',
        {paths: moduleDirs()}));
    if (wasm.setWasmPaths) wasm.setWasmPaths(dist + path.sep);
  }
  if (!(await tf.setBackend(name))) throw new Error(`backend ${name} unavailable`);
  await tf.ready();
}

// ---------------------------------------------------------------------------
// Inputs

// splitmix32-style generator: deterministic across platforms and runs.
function makeRandom(seed) {
  let state = (seed >>> 0) ^ 0x9E3779B9;
  return () => {
    state = (state + 0x9E3779B9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85EBCA6B) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xC2B2AE35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  };
}

// A DT_RESOURCE input: bound to the initializer's table handle by resourceId.
function resourceInputNames(model, signature) {
  const names = new Set();
  for (const [key, info] of Object.entries((signature && signature.inputs) || {})) {
    if (info.resourceId != null || info.dtype === 'DT_RESOURCE') {
      names.add(key);
      if (info.name) {
        names.add(info.name);
        names.add(info.name.replace(/:0$/, ''));
      }
    }
  }
  for (const info of model.inputs) {
    if (info.dtype === 'resource') names.add(info.name);
  }
  return names;
}

function feedDType(dtype) {
  // TF.js collapses int64/uint8/int8/... to int32 and float64/half to float32.
  if (['float32', 'int32', 'bool', 'string', 'complex64'].includes(dtype)) return dtype;
  if (dtype === 'float64' || dtype === 'float16') return 'float32';
  return 'int32';
}

function randomData(dtype, n, rand) {
  switch (dtype) {
    case 'float32':
      return Float32Array.from({length: n}, () => rand());
    case 'int32':
      return Int32Array.from({length: n}, () => Math.floor(rand() * 256));
    case 'bool':
      return Uint8Array.from({length: n}, () => (rand() < 0.5 ? 1 : 0));
    case 'complex64':
      return Float32Array.from({length: 2 * n}, () => rand());
    case 'string': {
      const letters = 'abcdefghijklmnopqrstuvwxyz';
      return Array.from({length: n}, () => {
        const len = 1 + Math.floor(rand() * 8);
        let s = '';
        for (let i = 0; i < len; i++) s += letters[Math.floor(rand() * 26)];
        return s;
      });
    }
    default:
      throw new Error(`cannot make random values of dtype ${dtype}`);
  }
}

function constantData(dtype, n, value, name) {
  switch (dtype) {
    case 'float32': return new Float32Array(n).fill(value);
    case 'int32':
      if (!Number.isInteger(value)) throw new Error(`--value ${name}: int32 needs an integer`);
      return new Int32Array(n).fill(value);
    case 'bool': return new Uint8Array(n).fill(value ? 1 : 0);
    default: throw new Error(`--value ${name}: not supported for dtype ${dtype}`);
  }
}

function makeTensor(dtype, shape, data) {
  if (dtype === 'string') return tf.tensor(data, shape, 'string');
  if (dtype === 'complex64') {
    const n = data.length / 2;
    const re = new Float32Array(n);
    const im = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      re[i] = data[2 * i];
      im[i] = data[2 * i + 1];
    }
    return tf.complex(tf.tensor(re, shape), tf.tensor(im, shape));
  }
  return tf.tensor(data, shape, dtype);
}

function decodeRecord(rec) {
  if (!Array.isArray(rec.shape)) throw new Error(`input ${rec.name}: no shape`);
  if (rec.strings) return {dtype: 'string', data: rec.strings.map(String)};
  if (typeof rec.data_b64 !== 'string') {
    throw new Error(`input ${rec.name}: needs data_b64 or strings`);
  }
  const b = Buffer.from(rec.data_b64, 'base64');
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  switch (rec.dtype) {
    case 'float32': return {dtype: 'float32', data: new Float32Array(ab)};
    case 'float64': return {dtype: 'float32', data: Float32Array.from(new Float64Array(ab))};
    case 'int32': return {dtype: 'int32', data: new Int32Array(ab)};
    case 'int64':
      return {dtype: 'int32', data: Int32Array.from(new BigInt64Array(ab), v => Number(v))};
    case 'uint8': return {dtype: 'int32', data: Int32Array.from(new Uint8Array(ab))};
    case 'bool': return {dtype: 'bool', data: new Uint8Array(ab)};
    case 'complex64': return {dtype: 'complex64', data: new Float32Array(ab)};
    default: throw new Error(`input ${rec.name}: unsupported dtype ${rec.dtype}`);
  }
}

function buildInputs(model, signature, args) {
  const given = new Map();
  if (args.inputs) {
    const file = JSON.parse(fs.readFileSync(args.inputs, 'utf8'));
    for (const rec of file.inputs || []) given.set(rec.name, rec);
  }
  const resources = resourceInputNames(model, signature);
  const rand = makeRandom(args.seed);
  const feed = {};
  const records = [];
  const used = new Set();
  model.inputs.forEach((info, i) => {
    const key = model.inputNodes[i];  // signature key or node name
    if (resources.has(info.name) || resources.has(key)) return;
    const declared = info.dtype ? feedDType(info.dtype) : 'float32';
    let dtype = declared;
    let shape;
    let data;
    const rec = given.get(info.name) || given.get(key);
    if (rec) {
      used.add(rec.name);
      ({dtype, data} = decodeRecord(rec));
      shape = rec.shape;
    } else {
      shape = args.shapes[info.name] || args.shapes[key] ||
          (info.shape || []).map((d, axis) =>
              (d == null || d < 0 ? (axis === 0 ? 1 : 64) : d));
      const n = shape.reduce((a, b) => a * b, 1);
      const value = info.name in args.values ? args.values[info.name]
                                             : args.values[key];
      data = value === undefined ? randomData(dtype, n, rand)
                                 : constantData(dtype, n, value, info.name);
    }
    feed[info.name] = makeTensor(dtype, shape, data);
    records.push({name: info.name, dtype, model_dtype: info.dtype || dtype,
                  shape, ...encode(dtype, data)});
  });
  for (const name of given.keys()) {
    if (!used.has(name)) console.error(`golden.js: warning: --inputs has '${name}', not a model input`);
  }
  return {feed, records};
}

// ---------------------------------------------------------------------------
// Encoding

function encode(dtype, data) {
  if (dtype === 'string') {
    return {strings: Array.from(data, s => (typeof s === 'string'
        ? s : Buffer.from(s).toString('utf8')))};
  }
  let typed;
  if (dtype === 'float32' || dtype === 'complex64') typed = Float32Array.from(data);
  else if (dtype === 'int32') typed = Int32Array.from(data);
  else if (dtype === 'bool') typed = Uint8Array.from(data, v => (v ? 1 : 0));
  else throw new Error(`cannot encode dtype ${dtype}`);
  // Typed arrays use the platform's byte order; make it little-endian.
  const out = Buffer.alloc(typed.byteLength);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  typed.forEach((v, i) => {
    if (typed instanceof Float32Array) view.setFloat32(4 * i, v, true);
    else if (typed instanceof Int32Array) view.setInt32(4 * i, v, true);
    else view.setUint8(i, v);
  });
  return {data_b64: out.toString('base64')};
}

async function tensorRecord(t) {
  if (t.dtype === 'complex64') {
    const re = await tf.real(t).data();
    const im = await tf.imag(t).data();
    const data = new Float32Array(2 * re.length);
    for (let i = 0; i < re.length; i++) {
      data[2 * i] = re[i];
      data[2 * i + 1] = im[i];
    }
    return encode('complex64', data);
  }
  return encode(t.dtype, await t.data());
}

// ---------------------------------------------------------------------------
// --check

function decodeValues(rec) {
  if (rec.strings) return rec.strings;
  const b = Buffer.from(rec.data_b64, 'base64');
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = [];
  if (rec.dtype === 'bool') {
    for (let i = 0; i < b.length; i++) out.push(view.getUint8(i));
  } else {
    for (let i = 0; i < b.length; i += 4) {
      out.push(rec.dtype === 'int32' ? view.getInt32(i, true) : view.getFloat32(i, true));
    }
  }
  return out;
}

function compareOutputs(actual, expected) {
  const problems = [];
  const byName = new Map(expected.outputs.map(o => [o.name, o]));
  for (const a of actual.outputs) {
    const e = byName.get(a.name);
    if (!e) {
      problems.push(`${a.name}: not in the expected file`);
      continue;
    }
    byName.delete(a.name);
    if (e.dtype !== a.dtype || JSON.stringify(e.shape) !== JSON.stringify(a.shape)) {
      problems.push(`${a.name}: got ${a.dtype}${JSON.stringify(a.shape)}, expected ` +
                    `${e.dtype}${JSON.stringify(e.shape)}`);
      continue;
    }
    const av = decodeValues(a);
    const ev = decodeValues(e);
    let worst = 0;
    let bad = -1;
    for (let i = 0; i < ev.length; i++) {
      if (a.dtype === 'float32' || a.dtype === 'complex64') {
        if (Number.isNaN(av[i]) && Number.isNaN(ev[i])) continue;
        const err = Math.abs(av[i] - ev[i]) / Math.max(1, Math.abs(ev[i]));
        if (err > worst) worst = err;
        if (err > 1e-6 && bad < 0) bad = i;
      } else if (av[i] !== ev[i] && bad < 0) {
        bad = i;
      }
    }
    if (av.length !== ev.length) bad = Math.min(av.length, ev.length);
    if (bad >= 0) {
      problems.push(`${a.name}: element ${bad} is ${av[bad]}, expected ${ev[bad]}`);
    } else {
      console.log(`check ${a.name}: ${a.dtype}${JSON.stringify(a.shape)} matches` +
                  (worst > 0 ? ` (max rel err ${worst.toExponential(2)})` : ' exactly'));
    }
  }
  for (const name of byName.keys()) problems.push(`${name}: missing from this run`);
  return problems;
}

// ---------------------------------------------------------------------------

async function main() {
  const args = parseArgs(process.argv.slice(2));
  await setBackend(args.backend);
  const model = await tfconv.loadGraphModel(diskHandler(args.model));
  const artifacts = model.artifacts || {};
  // TF.js: a signature under userDefinedMetadata replaces the top-level one.
  const signature = (artifacts.userDefinedMetadata &&
                     artifacts.userDefinedMetadata.signature) ||
                    artifacts.signature || null;

  const {feed, records} = buildInputs(model, signature, args);
  const outputNames = model.outputNodes;
  // executeAsync: hash tables and control flow need it; it runs everything.
  let results = await model.executeAsync(feed, outputNames);
  if (!Array.isArray(results)) results = [results];

  const sigOutputs = (signature && signature.outputs) || {};
  const outputs = [];
  for (let i = 0; i < results.length; i++) {
    const t = results[i];
    const name = outputNames[i];
    const tensor = sigOutputs[name] && sigOutputs[name].name ? sigOutputs[name].name : name;
    outputs.push({name, tensor, dtype: t.dtype, shape: t.shape, ...(await tensorRecord(t))});
  }
  const golden = {
    model: path.basename(args.model),
    reference: 'tfjs 4.22.0',
    backend: args.backend,
    seed: args.seed,
    inputs: records,
    outputs,
  };
  fs.writeFileSync(args.out, JSON.stringify(golden) + '\n');
  console.log(`${args.out}: ${records.length} input(s), ${outputs.length} output(s) ` +
              outputs.map(o => `${o.name} ${o.dtype}${JSON.stringify(o.shape)}`).join(', '));

  if (args.check) {
    const problems = compareOutputs(golden, JSON.parse(fs.readFileSync(args.check, 'utf8')));
    if (problems.length) {
      for (const p of problems) console.error(`check: ${p}`);
      process.exit(1);
    }
    console.log(`check: outputs match ${args.check}`);
  }
}

main().catch(e => {
  console.error(`golden.js: error: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
