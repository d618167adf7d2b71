#!/bin/bash
# The main job on the bundled example: install what is missing, build, then
# export the seed tutorial's MyModule trace (relu, then the autograd Function
# MyFunction = x*x + y, whose symbolic comes from a plugin as two ATen nodes),
# print the exported graph, run it with the bundled executor and compare with
# PyTorch's output (examples/mymodule-expected.npy).  Exit status 0 = match.
# The exported model and its picture stay in build/ (build/mymodule.onnx,
# build/mymodule.png when Graphviz is installed, else build/mymodule.dot).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh build
[ -f build/build.ninja ] || meson setup build
ninja -C build
./build/tools/symonnx export examples/mymodule.trace --plugin build/examples/libmymodule-plugin.so \
  -o build/mymodule.onnx --verbose
./build/tools/symonnx print --dot build/mymodule.onnx > build/mymodule.dot
picture=build/mymodule.dot
if command -v dot >/dev/null; then
  dot -Tpng build/mymodule.dot -o build/mymodule.png
  picture=build/mymodule.png
fi
./build/tools/symonnx verify build/mymodule.onnx \
  --input x.1=examples/mymodule-x.npy --input y=examples/mymodule-y.npy \
  --expected examples/mymodule-expected.npy
echo "run-example: the exported model is build/mymodule.onnx, its picture $picture"
