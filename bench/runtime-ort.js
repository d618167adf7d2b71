// Times one model with ONNX Runtime (onnxruntime-node, CPU) for bench/runtime-vs-ort.sh.
//
//   NODE_PATH=/tmp/ort/node_modules node bench/runtime-ort.js MODEL.onnx NAME=INPUT.npy... \
//       [--repeat N] [--threads T] [--output-dir DIR]
//
// (onnxruntime-node installed outside the repo: `npm install --ignore-scripts
// onnxruntime-node@1.20.1` in /tmp/ort.)  All graph optimisations on, intraOpNumThreads = T,
// interOpNumThreads = 1, sequential execution; 1 warm-up run, then N timed runs of
// session.run() alone; prints `median X ms, min Y ms` like `symonnx run --repeat`.  With
// --output-dir, each output of the last run is written there as <name>.npy (float32/64,
// int32/64 only).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const DTYPES = { '<f4': 'float32', '<f8': 'float64', '<i4': 'int32', '<i8': 'int64' };
const ARRAYS = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array };

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape || !(descr[1] in DTYPES) || order[1] !== 'False')
    throw new Error(`${file}: unsupported .npy header ${header}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const type = DTYPES[descr[1]];
  const Arr = ARRAYS[type];
  const n = dims.reduce((a, b) => a * b, 1);
  const off = hstart + hlen;
  if (buf.length - off < n * Arr.BYTES_PER_ELEMENT) throw new Error(`${file}: truncated`);
  const data = new Arr(n);
  Buffer.from(data.buffer).set(buf.subarray(off, off + n * Arr.BYTES_PER_ELEMENT));
  return new ort.Tensor(type, data, dims);
}

function writeNpy(file, t) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k] === t.type);
  if (!descr) throw new Error(`output type ${t.type} not supported`);
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const d = t.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

async function main() {
  const args = process.argv.slice(2);
  let repeat = 10, threads = 1, outDir = null, model = null;
  const feeds = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--repeat') repeat = Number(args[++i]);
    else if (a === '--threads') threads = Number(args[++i]);
    else if (a === '--output-dir') outDir = args[++i];
    else if (a.includes('=') && model) {
      const eq = a.indexOf('=');
      feeds[a.slice(0, eq)] = readNpy(a.slice(eq + 1));
    } else if (!model) model = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!model || !(repeat >= 1) || !(threads >= 1))
    throw new Error('usage: runtime-ort.js MODEL NAME=FILE... [--repeat N] [--threads T] [--output-dir DIR]');
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
  let out = await session.run(feeds); // warm-up
  const times = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  console.log(`median ${median.toFixed(3)} ms, min ${times[0].toFixed(3)} ms`);
  if (outDir) {
    fs.mkdirSync(outDir, { recursive: true });
    for (const [name, t] of Object.entries(out))
      writeNpy(path.join(outDir, name.replace(/[^A-Za-z0-9._-]/g, '_') + '.npy'), t);
  }
}

main().catch((e) => {
  console.error(`runtime-ort.js: ${e.message}`);
  process.exit(1);
});
