#!/bin/sh
# `symonnx run --device cuda` against the CPU executor (issue 17) on the models
# bench/cuda-export-models.py writes; ONNX Runtime's CPU figure comes from
# bench/runtime-vs-ort.sh on the same files.
#
#   /usr/bin/python3 bench/cuda-export-models.py /tmp/cudabench
#   bench/runtime-cuda-vs-cpu.sh /tmp/cudabench [MODEL...]     # MODEL: resnet50_b1 ...
#
# For each model it runs the devices in $DEVICES (default "cpu cuda") alternately $ROUNDS
# times (default 3), each `--repeat $REPEAT` (default 10) after one warm-up run, same input
# file; the first round also writes every device's output and checks it against PyTorch's
# (<model>.torch.npy; numpy allclose rtol 1e-3, atol 1e-4) and counts, from --verbose, the
# nodes that ran on the CPU instead of the device.  The table gives per device the median of
# the per-round medians and their range, and the ratio first device / second device.
# Environment: SYMONNX (default build-release/tools/symonnx), THREADS (CPU threads, default
# $(nproc)), PYTHON (default /usr/bin/python3).  DEVICES="cpu cpu" checks the script itself
# on a machine without a GPU.
set -eu

dir=${1:?usage: runtime-cuda-vs-cpu.sh MODEL_DIR [MODEL...]}
shift
models=${*:-resnet50_b1 resnet50_b32 vgg16_b1 vgg16_b32 bert_like_b1 bert_like_b32}
here=$(cd "$(dirname "$0")" && pwd)
symonnx=${SYMONNX:-$here/../build-release/tools/symonnx}
python=${PYTHON:-/usr/bin/python3}
devices=${DEVICES:-cpu cuda}
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-3}
repeat=${REPEAT:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$symonnx" ] || { echo "runtime-cuda-vs-cpu.sh: $symonnx not built" >&2; exit 1; }
set -- $devices
[ $# = 2 ] || { echo "runtime-cuda-vs-cpu.sh: DEVICES names two devices" >&2; exit 1; }
dev_a=$1 dev_b=$2

ms () { sed -n 's/^median \([0-9.]*\) ms.*/\1/p'; }
stats () { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
  printf "%.1f %.1f-%.1f\n", m, v[1], v[NR] }'; }

check () {   # check OUTPUT_DIR REFERENCE.npy -> "ok (max abs err X)" or "MISMATCH ..."
  "$python" - "$1/output.npy" "$2" <<'PY'
import sys
import numpy as np
a, e = np.load(sys.argv[1]), np.load(sys.argv[2])
err = float(np.max(np.abs(a - e))) if a.size else 0.0
ok = a.shape == e.shape and np.allclose(a, e, rtol=1e-3, atol=1e-4)
print(("ok" if ok else "MISMATCH") + " (max abs err %.2g)" % err)
PY
}

echo "# $(uname -n), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg); rounds $rounds x repeat $repeat, $threads CPU threads"
printf '%-15s %6s %11s %13s %6s %11s %13s %7s  %s\n' model dev_a "a_ms" "(range)" dev_b "b_ms" "(range)" "a/b" "PyTorch check; nodes on the CPU"
for m in $models; do
  model=$dir/$m.onnx
  input=$dir/$m.input.npy
  : > "$tmp/a"; : > "$tmp/b"
  notes=""
  r=1
  while [ "$r" -le "$rounds" ]; do
    for side in a b; do
      dev=$dev_a
      [ "$side" = b ] && dev=$dev_b
      if [ "$r" = 1 ]; then
        rm -rf "$tmp/out"
        if ! "$symonnx" run "$model" --input "input=$input" --threads "$threads" --device "$dev" \
            --verbose --output-dir "$tmp/out" 2> "$tmp/verbose"; then
          cat "$tmp/verbose" >&2
          exit 1
        fi
        fb=$(grep -c '^fallback:' "$tmp/verbose" || true)
        notes="$notes $dev: $(check "$tmp/out" "$dir/$m.torch.npy"), $fb fallback nodes;"
      fi
      "$symonnx" run "$model" --input "input=$input" --repeat "$repeat" --threads "$threads" \
        --device "$dev" | ms >> "$tmp/$side"
    done
    r=$((r + 1))
  done
  if [ "$(wc -l < "$tmp/a")" -ne "$rounds" ] || [ "$(wc -l < "$tmp/b")" -ne "$rounds" ]; then
    echo "runtime-cuda-vs-cpu.sh: $m: a run failed" >&2
    exit 1
  fi
  # shellcheck disable=SC2046 # "MEDIAN LOW-HIGH" for each side
  set -- $(stats < "$tmp/a") $(stats < "$tmp/b")
  ratio=$(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
  printf '%-15s %6s %11s %13s %6s %11s %13s %7s %s\n' "$m" "$dev_a" "$1" "($2)" "$dev_b" "$3" "($4)" "$ratio" "$notes"
done
