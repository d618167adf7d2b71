#!/bin/bash
# The main job on the bundled example: install what is missing, build, and
# run symonnx on the seed's MyModule graph (relu, then x*x + y through ATen).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh build
[ -f build/build.ninja ] || meson setup build
ninja -C build
./build/tools/symonnx print examples/mymodule.graph
