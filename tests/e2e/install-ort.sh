#!/bin/sh
# Installs ONNX Runtime 1.20 for node (the npm package carries the CPU
# library; --ignore-scripts skips its CUDA download) into DIR/node_modules,
# where the e2e tests look for it (DIR: the build dir's ort/ folder).
#   tests/e2e/install-ort.sh build/ort
set -eu
dir=${1:?usage: install-ort.sh DIR}
[ -d "$dir/node_modules/onnxruntime-node" ] && exit 0
command -v npm >/dev/null || { echo "install-ort.sh: npm is not installed (apt-get install nodejs npm)" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.20.1
