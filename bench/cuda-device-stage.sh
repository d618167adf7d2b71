#!/bin/bash
# Stages what bench/cuda-device-run.sh needs on a GPU machine that has the
# CUDA 13 toolkit but none of our Debian libraries (the device tool's
# machines: Ubuntu 24.04, PyTorch, no GLib/protobuf-c/OpenBLAS): the debug
# build's test-cuda, the release build's CLI, both builds' library and CUDA
# plugin, the shared libraries they load besides glibc and CUDA's, and
# ONNX's test_relu for doc/cuda.md's example, as one .devcarry/devstage.tar.xz
# (about 10 MB; the device tool carries at most 64 MiB with the tree).
#   ninja -C build && ninja -C build-release && bash bench/cuda-device-stage.sh
#   then, with the device tool: run "bash bench/cuda-device-run.sh" carrying .devcarry
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.devcarry/' .git/info/exclude 2>/dev/null || echo '/.devcarry/' >> .git/info/exclude
s=$(mktemp -d)
trap 'rm -rf "$s"' EXIT
for b in build build-release; do
  mkdir -p "$s/$b/cuda" "$s/$b/tools"
  cp -a $b/libsymonnx.so $b/libsymonnx.so.0 $b/libsymonnx.so.0.*[0-9] "$s/$b/"
  cp $b/cuda/*.o $b/cuda/libsymonnx-cuda.so "$s/$b/cuda/"
  cp $b/tools/symonnx "$s/$b/tools/"
done
mkdir -p "$s/build/tests/cuda" "$s/build/doc/examples" "$s/lib" "$s/testdata"
cp build/tests/cuda/test-cuda "$s/build/tests/cuda/"
cp build/doc/examples/device-run "$s/build/doc/examples/"
libs=$(ldd build/tests/cuda/test-cuda build/cuda/libsymonnx-cuda.so build/tools/symonnx \
         "$(readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0)" |
       awk '$3 ~ /^\// { print $3 }' | grep -v -e /libc.so -e /libm.so -e /libdl.so -e /libpthread.so \
         -e /librt.so -e /libgcc_s.so -e /libstdc++.so -e /cuda/ -e /libsymonnx | sort -u)
cp -L $libs /usr/lib/x86_64-linux-gnu/libopenblas.so.0 "$s/lib/"
cp -r /usr/share/libonnx-testdata/data/node/test_relu "$s/testdata/"
mkdir -p .devcarry
tar cJf .devcarry/devstage.tar.xz -C "$s" .
ls -la .devcarry/devstage.tar.xz
