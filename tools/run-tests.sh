#!/bin/bash
# The whole test suite: install what is missing, build a normal and an
# ASan+UBSan configuration, run every test in both, print one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh test
[ -f build/build.ninja ] || meson setup build
[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
ninja -C build
ninja -C build-asan
# A release build too (GCC warns about more at -O3, and warnings are errors).
[ -f build-release/build.ninja ] || meson setup build-release --buildtype=release
ninja -C build-release
# ONNX Runtime 1.20 (npm) for the e2e cross-checks; without it those legs skip.
if bash tests/e2e/install-ort.sh build/ort; then
  [ -e build-asan/ort ] || ln -s ../build/ort build-asan/ort
else
  echo "run-tests: onnxruntime-node could not be installed; the /e2e/ort/ tests will skip"
fi
status=0
meson test -C build --print-errorlogs || status=1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs || status=1
bash tools/check-install.sh build || status=1
/usr/bin/python3 tools/test-summary.py build/meson-logs/testlog.json build-asan/meson-logs/testlog.json
exit $status
