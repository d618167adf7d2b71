// ONNX Runtime (onnxruntime-node, CPU) as a server for the PyTorch-suite
// harness (bench/pytorch-onnx-suite.py --ort): one request per line on
// stdin, {"model": FILE, "feeds": {NAME: INPUT.npy}, "out": DIR}; runs the
// model with all optimisations and one thread, writes output i as
// DIR/ort_<i>.npy (the model's output order) and answers one line,
// {"outputs": N} or {"error": MESSAGE}.  NODE_PATH names the node_modules
// holding onnxruntime-node (tests/e2e/install-ort.sh).
'use strict';
const path = require('path');
const readline = require('readline');
const ort = require('onnxruntime-node');

const { readNpy, writeNpy } = require(path.join(__dirname, '..', 'tools', 'npy-ort.js'));

async function serve(req) {
  const feeds = {};
  for (const [name, file] of Object.entries(req.feeds)) feeds[name] = readNpy(ort, file);
  const session = await ort.InferenceSession.create(req.model, { intraOpNumThreads: 1 });
  try {
    const out = await session.run(feeds);
    session.outputNames.forEach((name, i) => writeNpy(path.join(req.out, `ort_${i}.npy`), out[name]));
    return { outputs: session.outputNames.length };
  } finally {
    if (session.release) await session.release();
  }
}

async function main() {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    let answer;
    try {
      answer = await serve(JSON.parse(line));
    } catch (e) {
      answer = { error: String((e && e.message) || e).split('\n')[0].slice(0, 300) };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
}

main();
