#!/bin/bash
# Every seed model exported with --mode aten and --mode aten-fallback and
# run in symonnx's executor (its ATen kernels), against PyTorch's outputs
# (--expected) and against the executor's run of the trace itself (no
# --expected), rtol 1e-3, atol 1e-5 (issue 13).  One line per model and mode.
#
#   bench/aten-modes.sh [MODEL...]       (default: all nine seed models)
# Environment: SYMONNX (default build/tools/symonnx), OPSET (default 13),
# WORK (scratch folder, default a temporary one, removed).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
symonnx=${SYMONNX:-$here/build/tools/symonnx}
opset=${OPSET:-13}
py=/usr/bin/python3
work=${WORK:-$(mktemp -d)}
[ -z "${WORK:-}" ] && trap 'rm -rf "$work"' EXIT
models=${*:-alexnet dcgan densenet121 inception_v3 resnet18 resnet50 superres vgg16 word_language_model}

declare -A shape=([alexnet]=1,3,224,224 [densenet121]=1,3,224,224 [inception_v3]=1,3,299,299
                  [resnet18]=1,3,224,224 [resnet50]=1,3,224,224 [vgg16]=1,3,224,224
                  [superres]=1,1,224,224 [dcgan]=1,100,1,1)
# The verify line's figures: "PASS 2.1e-06" (max abs err of output 0) or "FAIL ...".
summary () {
  local out=$1 status=$2
  local err=$(sed -n 2p "$out" | sed -E 's/^.*\) +([^ ]+) .*$/\1/')
  if [ "$status" = 0 ]; then echo "PASS $err"; else echo "FAIL($status) $(tail -1 "$out" "$out.err" 2>/dev/null | tr '\n' ' ' | cut -c1-100)"; fi
}
printf "%-20s %-14s %-24s %-24s %8s\n" model mode "vs PyTorch" "vs trace run" "both"
for m in $models; do
  d=$work/$m
  args=(--model "$m")
  [ -n "${shape[$m]:-}" ] && args+=(--input "${shape[$m]}")
  if ! $py "$here/tools/torch2trace.py" "${args[@]}" -o "$d" > "$d.t2t.log" 2>&1; then
    echo "$m: torch2trace failed: $(tail -1 "$d.t2t.log")"; continue
  fi
  expected=()
  for e in "$d"/expected_*.npy; do expected+=(--expected "$e"); done
  for mode in aten aten-fallback; do
    t0=$(date +%s%N)
    "$symonnx" verify "$d/model.trace" -w "$d/weights.safetensors" --opset "$opset" --mode $mode \
      --input "$d/input_0.npy" "${expected[@]}" > "$d/v1" 2> "$d/v1.err"; s1=$?
    "$symonnx" verify "$d/model.trace" -w "$d/weights.safetensors" --opset "$opset" --mode $mode \
      --input "$d/input_0.npy" > "$d/v2" 2> "$d/v2.err"; s2=$?
    t1=$(date +%s%N)
    printf "%-20s %-14s %-24s %-24s %8s\n" "$m" $mode "$(summary "$d/v1" $s1)" "$(summary "$d/v2" $s2)" \
      "$(( (t1 - t0) / 1000000 )) ms"
  done
  rm -rf "$d"
done
