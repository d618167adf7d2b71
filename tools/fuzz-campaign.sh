#!/bin/bash
# Long fuzzing campaigns with libFuzzer (clang, ASan+UBSan), one harness
# after another.  Usage: tools/fuzz-campaign.sh [RUNS] [HARNESS...]
#   RUNS: executions per harness (default 10000000); HARNESS: onnx-load
#   onnx-run trace-export safetensors npy tensor-pb (default: all).
# Findings go to build-fuzz/findings/HARNESS/ (crash-*, leak-*, timeout-*,
# oom-*); copy a fixed one into tests/fixtures/hostile/ so the test
# command replays it.  The per-harness summary (execs, exec/s, coverage)
# is printed at the end and kept in build-fuzz/findings/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000000}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(onnx-load onnx-run trace-export safetensors npy tensor-pb)
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fsanitize=fuzzer-no-link \
    -Dwerror=false >/dev/null
fi
ninja -C build-fuzz >/dev/null
# -timeout (FUZZ_TIMEOUT, default 300 s): on a shared machine a nice-19
# campaign is starved for seconds at a time (a 0.6 s input took 14 s of wall
# clock; an int8 MaxPool of 180 M window reads, 20 s of CPU under ASan,
# passed 60 s); a real hang still ends it.
# Leaks are checked by the replay in the ASan test suite (detect_leaks=1);
# libFuzzer's per-input leak check flags one-time lazy GLib allocations.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=0
mkdir -p build-fuzz/findings
summary=build-fuzz/findings/summary.txt
: > "$summary"
for h in "${harnesses[@]}"; do
  case $h in
    onnx-load|onnx-run) seeds="tests/fixtures/hostile /usr/share/libonnx-testdata/data/node"; dict=tests/fuzz/dict/onnx.dict; ext=.onnx ;;
    trace-export) seeds="tests/fixtures/hostile tests/fixtures/symbolic tests/fixtures/traces"; dict=tests/fuzz/dict/trace.dict; ext=.trace ;;
    safetensors) seeds="tests/fixtures"; dict=; ext=.safetensors ;;
    npy) seeds="tests/fixtures"; dict=; ext=.npy ;;
    tensor-pb) seeds="tests/fixtures/hostile /usr/share/libonnx-testdata/data/simple"; dict=; ext=.pb ;;
    *) echo "unknown harness $h" >&2; exit 2 ;;
  esac
  corpus=build-fuzz/corpus/$h
  mkdir -p "$corpus" "build-fuzz/findings/$h"
  # libFuzzer takes folders of inputs: gather the seeds' files of this kind.
  for s in $seeds; do
    [ -e "$s" ] || continue
    find "$s" -name "*$ext" -size -1024k | while read -r f; do
      cp -n "$f" "$corpus/$(echo "$f" | md5sum | cut -c1-16)$ext"
    done
  done
  # FUZZ_JOBS=N (default 1) runs N libFuzzer processes on the shared corpus,
  # RUNS/N executions each, so one harness can use every core; their logs
  # (fuzz-JOB.log) are summed.
  jobs=${FUZZ_JOBS:-1}
  logdir=$PWD/build-fuzz/findings/$h-logs
  rm -rf "$logdir" && mkdir -p "$logdir"
  args=("$PWD/$corpus" ${dict:+-dict=$PWD/$dict} -runs=$((runs / jobs)) -timeout="${FUZZ_TIMEOUT:-300}"
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536 -detect_leaks=0
    -artifact_prefix="$PWD/build-fuzz/findings/$h/" -print_final_stats=1)
  if [ "$jobs" -gt 1 ]; then
    (cd "$logdir" && "$OLDPWD/build-fuzz/tests/fuzz/fuzz-$h" "${args[@]}" -jobs="$jobs" -workers="$jobs" \
      >"$logdir/main.log" 2>&1) || true
  else
    "./build-fuzz/tests/fuzz/fuzz-$h" "${args[@]}" >"$logdir/fuzz-0.log" 2>&1 || true
  fi
  execs=$(cat "$logdir"/fuzz-*.log | grep -a 'stat::number_of_executed_units' | awk '{s += $2} END {print s}')
  speed=$(cat "$logdir"/fuzz-*.log | grep -a 'stat::average_exec_per_sec' | awk '{s += $2} END {print s}')
  cov=$(cat "$logdir"/fuzz-*.log | grep -a -o 'cov: [0-9]*' | awk '$2 > m {m = $2} END {print m}')
  ft=$(cat "$logdir"/fuzz-*.log | grep -a -o 'ft: [0-9]*' | awk '$2 > m {m = $2} END {print m}')
  # findings are crash-, leak-, timeout- and oom- files; slow-unit- ones
  # (inputs past libFuzzer's 10 s report threshold, under the timeout) are
  # counted apart
  found=$(find "build-fuzz/findings/$h" -type f ! -name 'slow-unit-*' | wc -l)
  slow=$(find "build-fuzz/findings/$h" -type f -name 'slow-unit-*' | wc -l)
  printf '%-13s execs %-10s exec/s %-7s cov %-6s ft %-6s findings %s (slow units %s)\n' \
    "$h" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$found" "$slow" | tee -a "$summary"
done
