#!/bin/bash
# Every seed model end to end (issue 6): torch2trace (random weights) →
# `symonnx export` at opsets 9 and 13 → onnx.checker (full_check) →
# `symonnx run` vs PyTorch → ONNX Runtime 1.20 vs PyTorch (numpy allclose,
# rtol 1e-3, atol 1e-5).  One line per model and opset.
#
#   bench/e2e-all.sh [MODEL...]         (default: all nine seed models)
# Environment: SYMONNX (default build-e2e/tools/symonnx), ORT_MODULES
# (default build-e2e/ort/node_modules; tests/e2e/install-ort.sh installs it),
# WORK (scratch folder, default a temporary one, removed).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
symonnx=${SYMONNX:-$here/build-e2e/tools/symonnx}
ort_modules=${ORT_MODULES:-$here/build-e2e/ort/node_modules}
py=/usr/bin/python3
work=${WORK:-$(mktemp -d)}
[ -z "${WORK:-}" ] && trap 'rm -rf "$work"' EXIT
models=${*:-alexnet dcgan densenet121 inception_v3 resnet18 resnet50 superres vgg16 word_language_model}

declare -A shape=([alexnet]=1,3,224,224 [densenet121]=1,3,224,224 [inception_v3]=1,3,299,299
                  [resnet18]=1,3,224,224 [resnet50]=1,3,224,224 [vgg16]=1,3,224,224
                  [superres]=1,1,224,224 [dcgan]=1,100,1,1)
printf "%-20s %5s %8s %9s %9s %12s %12s\n" model opset export_s checker run_s "max|err| run" "max|err| ORT"
for m in $models; do
  d=$work/$m
  args=(--model "$m")
  [ -n "${shape[$m]:-}" ] && args+=(--input "${shape[$m]}")
  if ! $py "$here/tools/torch2trace.py" "${args[@]}" -o "$d" > "$d.t2t.log" 2>&1; then
    echo "$m: torch2trace failed: $(tail -1 "$d.t2t.log")"; continue
  fi
  for opset in 9 13; do
    onnx=$d/model-$opset.onnx
    t0=$(date +%s.%N)
    if ! "$symonnx" export "$d/model.trace" -w "$d/weights.safetensors" --opset $opset -o "$onnx" 2> "$d/err"; then
      printf "%-20s %5s export failed: %s\n" "$m" $opset "$(cut -c1-200 "$d/err")"; continue
    fi
    t1=$(date +%s.%N)
    chk=ok
    $py "$here/tests/e2e/e2e_check.py" check "$onnx" > "$d/chk" 2>&1 || chk=FAIL
    name=$($py -c "import onnx,sys; g=onnx.load(sys.argv[1], load_external_data=False).graph; i={x.name for x in g.initializer}; print([x.name for x in g.input if x.name not in i][0])" "$onnx")
    t2=$(date +%s.%N)
    run_err=-; ort_err=-
    if "$symonnx" run "$onnx" --input "$name=$d/input_0.npy" -o "$d/out-$opset" 2> "$d/err"; then
      run_err=$($py "$here/tests/e2e/e2e_check.py" compare 1e-3 1e-5 "$d/expected_0.npy" "$d/out-$opset/output.npy" | sed 's/.*max abs err //')
    else
      run_err="run failed: $(cut -c1-120 "$d/err")"
    fi
    t3=$(date +%s.%N)
    if [ -d "$ort_modules/onnxruntime-node" ]; then
      mkdir -p "$d/ort-$opset"
      if NODE_PATH=$ort_modules node "$here/tests/e2e/ort-run.js" "$onnx" "$d/ort-$opset" "$name=$d/input_0.npy" 2> "$d/err"; then
        ort_err=$($py "$here/tests/e2e/e2e_check.py" compare 1e-3 1e-5 "$d/expected_0.npy" "$d/ort-$opset/ort_0.npy" | sed 's/.*max abs err //')
      else
        ort_err="ORT failed: $(grep -v nodedir "$d/err" | cut -c1-120)"
      fi
    fi
    printf "%-20s %5s %8.2f %9s %9.2f %12s %12s\n" "$m" $opset "$(echo "$t1 - $t0" | bc)" "$chk" \
      "$(echo "$t3 - $t2" | bc)" "$run_err" "$ort_err"
  done
  rm -rf "$d"
done
