#!/bin/bash
# Regenerates every generated document from a build: doc/symbolic-ops.md
# (tools/op_coverage.py), doc/aten-kernels.md (symonnx ops --kernels), doc/cli.md
# (symonnx help --markdown), and
# the torch-reference tables and counts in doc/symbolic.md and README.md
# (tools/gen_torch_diffs_doc.py, with the counts of a torch-refs run), and
# doc/refusals.md (tools/gen_refusals_doc.py, from the comments above each
# refusal in symbolic/).
#   tools/regen-docs.sh [BUILD]      (default: build)
# The test suite fails on each of them when it is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
py=/usr/bin/python3
$py tools/op_coverage.py --cli "$build/tools/symonnx" --markdown > doc/symbolic-ops.md
"$build/tools/symonnx" ops --kernels --markdown > doc/aten-kernels.md
"$build/tools/symonnx" help --markdown > doc/cli.md
$py tools/gen_refusals_doc.py --write
# the symbolic tests (the whole torch-refs set and its summary: the counts)
log=$("$build/tests/symbolic/test-symbolic" 2>&1 || true)
counts=$(printf '%s\n' "$log" | sed -n 's/.*run tools\/gen_torch_diffs_doc.py --counts \([0-9,]*\) --write.*/\1/p' | head -1)
if [ -z "$counts" ]; then
  counts=$(printf '%s\n' "$log" | sed -n 's/^# \([0-9]*\) exports compared with torch 1.13: \([0-9]*\) identical, \([0-9]*\) documented differences; \([0-9]*\) run and equal to torch.s outputs; \([0-9]*\) exports where.*/\1,\2,\3,\4,\5/p' | head -1)
fi
[ -n "$counts" ] || { echo "regen-docs: no torch-refs counts in the test's output" >&2; exit 1; }
$py tools/gen_torch_diffs_doc.py --counts "$counts" --write
echo "regen-docs: regenerated (torch-refs counts $counts)"
