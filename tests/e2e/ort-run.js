// Runs an .onnx model with ONNX Runtime (onnxruntime-node, CPU) for the e2e
// tests: node ort-run.js MODEL.onnx OUT_DIR NAME=INPUT.npy...  writes output
// i as OUT_DIR/ort_<i>.npy, in the model's output order (float32/64 and
// int32/64 .npy only).  NODE_PATH must name the node_modules holding
// onnxruntime-node (tests/e2e/install-ort.sh).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const DTYPES = { '<f4': 'float32', '<f8': 'float64', '<i4': 'int32', '<i8': 'int64' };
const ARRAYS = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array };

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const hlen = buf[6] === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = buf[6] === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || !(descr[1] in DTYPES) || /'fortran_order':\s*True/.test(header))
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
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre.writeUInt16LE(header.length, 8);
  const d = t.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

async function main() {
  const [model, outDir, ...specs] = process.argv.slice(2);
  const feeds = {};
  for (const s of specs) {
    const eq = s.indexOf('=');
    feeds[s.slice(0, eq)] = readNpy(s.slice(eq + 1));
  }
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
  const out = await session.run(feeds);
  session.outputNames.forEach((name, i) => writeNpy(path.join(outDir, `ort_${i}.npy`), out[name]));
}

main().catch((e) => { console.error(`ort-run.js: ${e.message}`); process.exit(1); });
