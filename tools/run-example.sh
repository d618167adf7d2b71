#!/bin/bash
# The main job on the bundled example: install what is missing, build, then
# export the seed tutorial's MyModule trace (relu, then the autograd Function
# MyFunction = x*x + y, whose symbolic comes from a plugin as two ATen nodes),
# print the exported graph, run it with the bundled executor and compare with
# PyTorch's output (examples/mymodule-expected.npy).  Exit status 0 = match.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh build
[ -f build/build.ninja ] || meson setup build
ninja -C build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
./build/tools/symonnx export examples/mymodule.trace --plugin build/examples/libmymodule-plugin.so \
  -o "$out/mymodule.onnx" --verbose
./build/tools/symonnx verify examples/mymodule.trace --plugin build/examples/libmymodule-plugin.so \
  --input x.1=examples/mymodule-x.npy --input y=examples/mymodule-y.npy \
  --expected examples/mymodule-expected.npy
