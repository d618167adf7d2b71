#!/bin/sh
# CPU time per run of `symonnx run` against ONNX Runtime 1.20 (issue 16), for a machine too
# loaded for wall clock to mean much: other processes' load delays a run (wall clock) far
# more than it adds to the run's own CPU time.
#
#   /usr/bin/python3 bench/runtime-export-models.py /tmp/rtbench
#   bash tests/e2e/install-ort.sh /tmp/ort
#   bench/runtime-cpu-vs-ort.sh /tmp/rtbench [MODEL...]
#
# Per run: (user + system CPU seconds of a process doing --repeat $LONG (default 25) − of one
# doing --repeat $SHORT (default 5)) / (LONG − SHORT): loading, session creation and the
# warm-up cancel out.  For each model and each thread count in $THREADS (default 1), each
# round runs symonnx, then $SYMONNX_BASE if set (another build, for before/after), then ORT;
# the table gives the median over $ROUNDS rounds (default 3) in ms and the ratios to ORT.
# GNU time's resolution is 10 ms: ±0.5 ms per run at the defaults.  At T > 1 CPU time adds
# up the threads' time (spinning included), so it measures work, not latency.
# Environment: SYMONNX (default build-bench/tools/symonnx), SYMONNX_BASE, ORT_MODULES
# (default /tmp/ort/node_modules).
set -eu

dir=${1:?usage: runtime-cpu-vs-ort.sh MODEL_DIR [MODEL...]}
shift
models=${*:-bert bert17 gpt lstm resnet18 mobilenet_v2}
here=$(cd "$(dirname "$0")" && pwd)
symonnx=${SYMONNX:-$here/../build-bench/tools/symonnx}
base=${SYMONNX_BASE:-}
ort_modules=${ORT_MODULES:-/tmp/ort/node_modules}
threads_list=${THREADS:-1}
rounds=${ROUNDS:-3}
short=${SHORT:-5}
long=${LONG:-25}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$symonnx" ] || { echo "runtime-cpu-vs-ort.sh: $symonnx not built" >&2; exit 1; }
[ -z "$base" ] || [ -x "$base" ] || { echo "runtime-cpu-vs-ort.sh: $base not built" >&2; exit 1; }
[ -d "$ort_modules/onnxruntime-node" ] || { echo "runtime-cpu-vs-ort.sh: no onnxruntime-node in $ort_modules" >&2; exit 1; }

# cpu SECONDS of "$@" (user + system)
cpu () { /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null && awk '{ print $1 + $2 }' "$tmp/time"; }

# ms per run of a runner (sym FILE | ort): the difference of a long and a short process
per_run () {
  kind=$1 bin=$2 model=$3 input=$4 t=$5
  for r in $short $long; do
    if [ "$kind" = ort ]; then
      NODE_PATH=$ort_modules cpu node "$here/runtime-ort.js" "$model" "input=$input" --repeat "$r" --threads "$t"
    else
      cpu "$bin" run "$model" --input "input=$input" --repeat "$r" --threads "$t"
    fi
  done | awk -v n=$((long - short)) 'NR == 1 { a = $1 } NR == 2 { printf "%.1f\n", ($1 - a) * 1000 / n }'
}

median () { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# $(uname -n), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg); CPU ms per run, median of $rounds rounds, repeat $long - $short"
printf '%-14s %3s %9s %9s %9s %9s %9s\n' model T symonnx base ort sym/ort base/ort
for m in $models; do
  for t in $threads_list; do
    : > "$tmp/s"; : > "$tmp/b"; : > "$tmp/o"
    r=0
    while [ "$r" -lt "$rounds" ]; do
      per_run sym "$symonnx" "$dir/$m.onnx" "$dir/$m.input.npy" "$t" >> "$tmp/s"
      [ -z "$base" ] || per_run sym "$base" "$dir/$m.onnx" "$dir/$m.input.npy" "$t" >> "$tmp/b"
      per_run ort - "$dir/$m.onnx" "$dir/$m.input.npy" "$t" >> "$tmp/o"
      r=$((r + 1))
    done
    s=$(median < "$tmp/s"); o=$(median < "$tmp/o")
    b=-; br=-
    if [ -n "$base" ]; then
      b=$(median < "$tmp/b"); br=$(awk -v a="$b" -v c="$o" 'BEGIN { printf "%.2f", a / c }')
    fi
    printf '%-14s %3s %9s %9s %9s %9s %9s\n' "$m" "$t" "$s" "$b" "$o" \
      "$(awk -v a="$s" -v c="$o" 'BEGIN { printf "%.2f", a / c }')" "$br"
  done
done
