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

const { readNpy, writeNpy } = require(path.join(__dirname, '..', 'tools', 'npy-ort.js'));

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
      feeds[a.slice(0, eq)] = readNpy(ort, a.slice(eq + 1));
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
