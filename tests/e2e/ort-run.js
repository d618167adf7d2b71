// Runs an .onnx model with ONNX Runtime (onnxruntime-node, CPU) for the e2e
// tests: node ort-run.js MODEL.onnx OUT_DIR NAME=INPUT.npy...  writes output
// i as OUT_DIR/ort_<i>.npy, in the model's output order (float32/64 and
// int32/64 .npy only).  NODE_PATH must name the node_modules holding
// onnxruntime-node (tests/e2e/install-ort.sh).
'use strict';
const path = require('path');
const ort = require('onnxruntime-node');

const { readNpy, writeNpy } = require(path.join(__dirname, '..', '..', 'tools', 'npy-ort.js'));

async function main() {
  const [model, outDir, ...specs] = process.argv.slice(2);
  const feeds = {};
  for (const s of specs) {
    const eq = s.indexOf('=');
    feeds[s.slice(0, eq)] = readNpy(ort, s.slice(eq + 1));
  }
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
  const out = await session.run(feeds);
  session.outputNames.forEach((name, i) => writeNpy(path.join(outDir, `ort_${i}.npy`), out[name]));
}

main().catch((e) => { console.error(`ort-run.js: ${e.message}`); process.exit(1); });
