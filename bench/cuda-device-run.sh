#!/bin/bash
# On the GPU machine (the device tool), from the repository root, after
# bench/cuda-device-stage.sh here: the CUDA test suite (tests/cuda) against
# the CPU kernels on a real GPU, then bench/runtime-cuda-vs-cpu.sh on
# models that machine's PyTorch exports (bench/cuda-export-models.py).
# A failing case aborts test-cuda (g_error); it is then skipped by name
# (-s) and the suite run again, up to ten times, so one run lists every
# failure.  Outputs go to $OUT (tapN.txt, bench.txt, export.txt).
D=/tmp/dev
OUT=${OUT:-/tmp/out}
mkdir -p $D "$OUT" && tar xJf .devcarry/devstage.tar.xz -C $D || exit 9
nvidia-smi -L; nproc
export LD_LIBRARY_PATH=$D/lib:/usr/local/cuda/lib64
mkdir -p /usr/share/libonnx-testdata/data/node && cp -r $D/testdata/test_relu /usr/share/libonnx-testdata/data/node/
T=$D/build/tests/cuda/test-cuda
export SYMONNX_SOURCE_ROOT=$PWD SYMONNX_BUILD_ROOT=$D/build SYMONNX_CUDA_BUILT=1 \
       SYMONNX_DEVICE_EXAMPLE=$D/build/doc/examples/device-run G_DEBUG=fatal-warnings
$T -l | grep "^/" > "$OUT/paths.txt"
skips=()
for i in 1 2 3 4 5 6 7 8 9 10; do
  timeout 60 $T --tap "${skips[@]}" > "$OUT/tap$i.txt" 2>&1; rc=$?
  echo "pass $i rc=$rc ok=$(grep -c '^ok' "$OUT/tap$i.txt") skipped=$(grep -c '# SKIP' "$OUT/tap$i.txt")"
  [ $rc = 0 ] && break
  last=$(grep -E '^ok ' "$OUT/tap$i.txt" | tail -1 | awk '{print $3}')
  if [ -z "$last" ]; then next=$(head -1 "$OUT/paths.txt"); else next=$(grep -A1 -x -- "$last" "$OUT/paths.txt" | tail -1); fi
  echo "FAILED: $next"; tail -3 "$OUT/tap$i.txt"
  skips+=(-s "$next")
done
export SYMONNX=$D/build-release/tools/symonnx PYTHON=python3 ROUNDS=3 REPEAT=10 THREADS=$(nproc)
timeout 80 python3 bench/cuda-export-models.py /tmp/cb --models bert_like,resnet50 --batches 1,32 > "$OUT/export.txt" 2>&1
timeout 150 sh bench/runtime-cuda-vs-cpu.sh /tmp/cb bert_like_b1 bert_like_b32 resnet50_b1 resnet50_b32 2>&1 | tee "$OUT/bench.txt"
