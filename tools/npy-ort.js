// .npy reading and writing for the ONNX Runtime (onnxruntime-node) drivers:
// bench/runtime-ort.js, bench/ort-serve.js and tests/e2e/ort-run.js.  float16/32/64,
// int8/16/32/64, uint8/16, bool; C order, format 1.0/2.0 headers.
'use strict';
const fs = require('fs');

const DTYPES = {
  '<f4': 'float32', '<f8': 'float64', '<i4': 'int32', '<i8': 'int64', '<f2': 'float16', '|i1': 'int8',
  '|u1': 'uint8', '<i2': 'int16', '<u2': 'uint16', '|b1': 'bool',
};
// float16 travels as its bits (onnxruntime-node's Uint16Array form), bool as bytes
const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array, float16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array,
};

function readNpy(ort, file) {
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

module.exports = { readNpy, writeNpy };
