#!/bin/sh
# Latency of `symonnx run` against ONNX Runtime 1.20 (onnxruntime-node, CPU) on the models
# bench/runtime-export-models.py writes (issue 5, Performance; the transformer rows bert, bert17,
# gpt and lstm, issue 16, take token ids as their input).
#
#   /usr/bin/python3 bench/runtime-export-models.py /tmp/rtbench
#   bash tests/e2e/install-ort.sh /tmp/ort    (npm: onnxruntime-node 1.20.1)
#   bench/runtime-vs-ort.sh /tmp/rtbench [MODEL...]
#
# For each model and each thread count in $THREADS (default "1 2") it runs symonnx and ORT
# alternately $ROUNDS times (default 3), each time `--repeat $REPEAT` (default 10) after one
# warm-up run, same input file; the first round also writes both runtimes' outputs and checks
# they agree (numpy allclose, rtol 1e-3, atol 1e-4 x min(1, max |ORT's output|): random-weight
# MobileNetV2's outputs are ~1e-9, where a fixed atol would pass anything).  The table gives,
# per runtime, the median over rounds of the per-round median and the spread (lowest-highest
# per-round median), and the ratio symonnx/ORT of the medians; and the peak resident memory
# (GNU time's %M, in MB) of each runtime's first round: symonnx's process against the node
# process running ORT (node itself included, about 45 MB), "-" without /usr/bin/time.
# Both runtimes run with T threads pinned to the same first T CPUs (taskset -c 0-(T-1)), so that
# neither is measured on a faster core than the other: on the 2-vCPU VMs here CPU 1 ran 25-35%
# slower than CPU 0, which unpinned made every 1-thread figure bimodal.  PIN=0 leaves the
# placement to the scheduler.
# Environment: SYMONNX (default build-bench/tools/symonnx), ORT_MODULES (default
# /tmp/ort/node_modules), PYTHON (default /usr/bin/python3), PIN (default 1).
set -eu

dir=${1:?usage: runtime-vs-ort.sh MODEL_DIR [MODEL...]}
shift
models=${*:-resnet18 resnet50 mobilenet_v2 squeezenet1_1 alexnet squeezenet1_0 superres bert bert17 gpt lstm}
here=$(cd "$(dirname "$0")" && pwd)
symonnx=${SYMONNX:-$here/../build-bench/tools/symonnx}
ort_modules=${ORT_MODULES:-/tmp/ort/node_modules}
python=${PYTHON:-/usr/bin/python3}
threads_list=${THREADS:-1 2}
rounds=${ROUNDS:-3}
repeat=${REPEAT:-10}
pin=${PIN:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$symonnx" ] || { echo "runtime-vs-ort.sh: $symonnx not built" >&2; exit 1; }
[ -d "$ort_modules/onnxruntime-node" ] || { echo "runtime-vs-ort.sh: no onnxruntime-node in $ort_modules" >&2; exit 1; }

ms () { sed -n 's/^median \([0-9.]*\) ms.*/\1/p'; }

# median and range of the numbers on stdin: "MEDIAN LOW-HIGH"
stats () { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
  printf "%.1f %.1f-%.1f\n", m, v[1], v[NR] }'; }

echo "# $(uname -n), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg); rounds $rounds x repeat $repeat; pinned: $pin"
printf '%-14s %7s %10s %13s %10s %13s %7s %11s  %s\n' model threads symonnx_ms "(range)" ort_ms "(range)" ratio "rss_MB" outputs
for m in $models; do
  model=$dir/$m.onnx
  input=$dir/$m.input.npy
  for t in $threads_list; do
    : > "$tmp/sym" ; : > "$tmp/ort"
    on=""
    if [ "$pin" = 1 ] && command -v taskset > /dev/null && [ "$t" -le "$(nproc)" ]; then
      on="taskset -c 0-$((t - 1))"
    fi
    check=""
    rss="-"
    r=1
    while [ "$r" -le "$rounds" ]; do
      so=""; oo=""; st=""; ot=""
      if [ "$r" = 1 ]; then
        so="--output-dir $tmp/sym-out"; oo="--output-dir $tmp/ort-out"
        if [ -x /usr/bin/time ]; then
          st="/usr/bin/time -f %M -o $tmp/sym-rss"; ot="/usr/bin/time -f %M -o $tmp/ort-rss"
        fi
      fi
      # shellcheck disable=SC2086
      $on $st "$symonnx" run "$model" --input "input=$input" --repeat "$repeat" --threads "$t" $so | ms >> "$tmp/sym"
      # shellcheck disable=SC2086
      NODE_PATH=$ort_modules $on $ot node "$here/runtime-ort.js" "$model" "input=$input" --repeat "$repeat" \
        --threads "$t" $oo | ms >> "$tmp/ort"
      if [ "$r" = 1 ]; then
        check=$("$python" - "$tmp/sym-out" "$tmp/ort-out" <<'EOF'
import os, sys
import numpy as np
a_dir, b_dir = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(b_dir))
bad = []
for n in names:
    b = np.load(os.path.join(b_dir, n))
    p = os.path.join(a_dir, n)
    if not os.path.exists(p):
        bad.append(n + " missing")
        continue
    a = np.load(p)
    if a.shape != b.shape:
        bad.append("%s shape %s vs %s" % (n, a.shape, b.shape))
    elif not np.allclose(a, b, rtol=1e-3, atol=1e-4 * min(1.0, float(np.max(np.abs(b))))):
        bad.append("%s max abs err %.3g" % (n, float(np.max(np.abs(a - b)))))
err = max([float(np.max(np.abs(np.load(os.path.join(a_dir, n)) - np.load(os.path.join(b_dir, n)))))
           for n in names] or [0])
scale = max([float(np.max(np.abs(np.load(os.path.join(b_dir, n))))) for n in names] or [0])
print("MISMATCH " + "; ".join(bad) if bad or not names else
      "agree (max abs err %.2g of max |ORT| %.2g)" % (err, scale))
EOF
)
        rm -rf "$tmp/sym-out" "$tmp/ort-out"
        if [ -s "$tmp/sym-rss" ] && [ -s "$tmp/ort-rss" ]; then
          rss="$(($(tail -n 1 "$tmp/sym-rss") / 1024))/$(($(tail -n 1 "$tmp/ort-rss") / 1024))"
        fi
      fi
      r=$((r + 1))
    done
    if [ "$(wc -l < "$tmp/sym")" -ne "$rounds" ] || [ "$(wc -l < "$tmp/ort")" -ne "$rounds" ]; then
      echo "runtime-vs-ort.sh: $m: a run failed" >&2
      exit 1
    fi
    # shellcheck disable=SC2046 # split "MEDIAN LOW-HIGH" into $1 $2 (symonnx) $3 $4 (ORT)
    set -- $(stats < "$tmp/sym") $(stats < "$tmp/ort")
    ratio=$(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
    printf '%-14s %7s %10s %13s %10s %13s %7s %11s  %s\n' "$m" "$t" "$1" "($2)" "$3" "($4)" "$ratio" "$rss" "$check"
  done
done
