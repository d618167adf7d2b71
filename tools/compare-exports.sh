#!/bin/sh
# Exports every torch-reference trace (tests/fixtures/symbolic) at opsets
# 9..17 in onnx and aten-fallback mode with two symonnx binaries and
# reports files that differ: the check that a restructuring left every
# export byte-identical.
#   tools/compare-exports.sh OLD/symonnx NEW/symonnx
set -eu
old=$1 new=$2
src=$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/symbolic
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0 failed_both=0
for trace in "$src"/*.trace; do
  case=$(basename "$trace" .trace)
  for opset in 9 10 11 12 13 14 15 16 17; do
    for mode in onnx aten-fallback; do
      a=$tmp/a.onnx b=$tmp/b.onnx
      rm -f "$a" "$b"
      "$old" export -w "$src/$case.safetensors" --opset=$opset --mode=$mode -o "$a" "$trace" \
        >"$tmp/a.err" 2>&1 || true
      "$new" export -w "$src/$case.safetensors" --opset=$opset --mode=$mode -o "$b" "$trace" \
        >"$tmp/b.err" 2>&1 || true
      if [ ! -f "$a" ] && [ ! -f "$b" ]; then
        if cmp -s "$tmp/a.err" "$tmp/b.err"; then failed_both=$((failed_both + 1))
        else differ=$((differ + 1)); echo "error text differs: $case opset $opset $mode"; fi
      elif [ -f "$a" ] && [ -f "$b" ] && cmp -s "$a" "$b"; then
        same=$((same + 1))
      else
        differ=$((differ + 1)); echo "differs: $case opset $opset $mode"
      fi
    done
  done
done
echo "identical: $same, same error: $failed_both, different: $differ"
[ "$differ" -eq 0 ]
