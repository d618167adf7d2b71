#!/usr/bin/python3
"""Class audit of dim arguments: every aten node of the project's traces
whose torch 1.13 schema names an argument a dim (dim, dim0, axis,
start_dim, dims, source...) is exported again with that argument replaced
by out-of-range values (rank + 30, -(rank + 30), 2^40, -2^62, and each
element of a dim list in turn).  An export must then refuse with an error
naming the node; a crash, a sanitizer report or a hang is a defect, and so
is an export that succeeds (a dim outside the rank cannot mean anything)
when the trace declares the input's rank (a scripted `Tensor` of unknown
rank is judged by the executor at run time, as PyTorch would).

Run with the ASan+UBSan build to see memory errors:
  SYMONNX_CLI=build-asan/tools/symonnx /usr/bin/python3 bench/probe-dim-args.py [--opsets 11,17]
      [--traces DIR...] [--jobs N] [--json OUT]
Prints one line per defect and a summary; exit 1 when any defect is found.
Schemas come from torch._C._jit_get_all_schemas() (needs python3-torch)."""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

import torch

DIM_NAMES = {"dim", "dim0", "dim1", "dim2", "axis", "axis0", "axis1", "start_dim", "end_dim",
             "dims", "source", "destination", "dimension", "dimname"}
NODE_RE = re.compile(r"^(\s*)(%[\w.]+(?:\s*,\s*%[\w.]+)*)\s*:\s*(.*?)\s*=\s*(aten::\w+)\((.*)\)(.*)$")
CONST_RE = re.compile(r"^\s*(%[\w.]+)\s*:\s*int\s*=\s*prim::Constant\[value=(-?\d+)\]\(\)")
LIST_RE = re.compile(r"^\s*(%[\w.]+)\s*:\s*int\[\]\s*=\s*prim::ListConstruct\((.*)\)")
RANK_RE = re.compile(r"^\s*(%[\w.]+)\s*:\s*\w+\(([^)]*)\)")
SANITIZER = ("AddressSanitizer", "runtime error:", "LeakSanitizer", "UndefinedBehaviorSanitizer")


def dim_positions():
    """(aten kind, argument count) -> set of argument positions named like
    a dim in some overload of that many arguments whose type is int, int[]
    or int? (slice of a Tensor, 5 arguments, has a dim; slice of a list, 4,
    has none)."""
    pos = collections.defaultdict(set)
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        for i, a in enumerate(s.arguments):
            t = str(a.type)
            if a.name in DIM_NAMES and t in ("int", "List[int]", "Optional[int]", "Optional[List[int]]"):
                pos[(s.name, len(s.arguments))].add(i)
    return pos


def declared_rank(line):
    """The rank of a value declared Type(d0, d1, ..., strides=...)."""
    m = RANK_RE.match(line)
    if not m:
        return None
    dims = [d for d in m.group(2).split(",") if d.strip() and "=" not in d]
    return len(dims)


def mutations(path, positions):
    """(label, text) for each out-of-range replacement of a dim argument."""
    lines = open(path).read().split("\n")
    consts, lists, ranks = {}, {}, {}
    for line in lines:
        if m := CONST_RE.match(line):
            consts[m.group(1)] = int(m.group(2))
        if m := LIST_RE.match(line):
            lists[m.group(1)] = [a.strip() for a in m.group(2).split(",") if a.strip()]
        if (m := RANK_RE.match(line)) and (r := declared_rank(line)) is not None:
            ranks[m.group(1)] = r
        for name in re.findall(r"(%[\w.]+)\s*:\s*\w+\(", line):
            if name not in ranks and (r := declared_rank(line)) is not None:
                ranks[name] = r
    for k, line in enumerate(lines):
        m = NODE_RE.match(line)
        if not m:
            continue
        kind = m.group(4)
        args = [a.strip() for a in m.group(5).split(",")] if m.group(5).strip() else []
        if (kind, len(args)) not in positions:
            continue
        first = lists[args[0]][0] if args and args[0] in lists and lists[args[0]] else args[0] if args else None
        known = first in ranks
        rank = ranks.get(first, 4)
        for p in sorted(positions[(kind, len(args))]):
            if p >= len(args):
                continue
            a = args[p]
            values = [rank + 30, -(rank + 30), 1 << 40, -(1 << 62)]
            if a in consts:
                for v in values:
                    yield (known, f"{kind}:{k + 1}: arg {p} = {v}",
                           replace(lines, k, m, args, p, [f"  %probe : int = prim::Constant[value={v}]()"], "%probe"))
            elif a in lists and all(e in consts for e in lists[a]):
                for e in range(len(lists[a])):
                    for v in values[:2]:
                        elems = [f"%probe{i}" for i in range(len(lists[a]))]
                        new = [f"  %probe{i} : int = prim::Constant[value={v if i == e else consts[x]}]()"
                               for i, x in enumerate(lists[a])]
                        new.append(f"  %probe : int[] = prim::ListConstruct({', '.join(elems)})")
                        yield (known, f"{kind}:{k + 1}: arg {p}[{e}] = {v}", replace(lines, k, m, args, p, new, "%probe"))


def replace(lines, k, m, args, p, new_lines, name):
    args = list(args)
    args[p] = name
    node = f"{m.group(1)}{m.group(2)} : {m.group(3)} = {m.group(4)}({', '.join(args)}){m.group(6)}"
    return "\n".join(lines[:k] + new_lines + [node] + lines[k + 1:])


def run_one(cli, text, opset, weights, tmp):
    fd, trace = tempfile.mkstemp(suffix=".trace", dir=tmp)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    out = trace[:-6] + ".onnx"
    cmd = [cli, "export", "--opset", str(opset), "-o", out, trace]
    cmd += ["-w", weights] if weights else ["--no-export-params"]
    env = dict(os.environ, UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
               ASAN_OPTIONS="detect_leaks=1:abort_on_error=1")
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    for p in (trace, out):
        if os.path.exists(p):
            os.unlink(p)
    return rc, err


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opsets", default="11,17")
    ap.add_argument("--traces", nargs="*", default=["tests/fixtures/symbolic", "tests/fixtures/traces"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json")
    opt = ap.parse_args()
    cli = os.environ.get("SYMONNX_CLI", "build-asan/tools/symonnx")
    positions = dim_positions()
    work = []
    for d in opt.traces:
        for f in sorted(os.listdir(d)):
            if not f.endswith(".trace"):
                continue
            path = os.path.join(d, f)
            w = path[:-6] + ".safetensors"
            for known, label, text in mutations(path, positions):
                for o in opt.opsets.split(","):
                    work.append((f"{path}: {label} @{o}", text, int(o), w if os.path.exists(w) else None, known))
    counts = collections.Counter()
    defects = []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(opt.jobs) as ex:
        futs = {ex.submit(run_one, cli, t, o, w, tmp): (lab, known) for lab, t, o, w, known in work}
        for fu in concurrent.futures.as_completed(futs):
            lab, known = futs[fu]
            rc, err = fu.result()
            if rc == "timeout" or (isinstance(rc, int) and rc < 0) or any(s in err for s in SANITIZER):
                what = "timeout" if rc == "timeout" else "crash/sanitizer"
            elif rc == 0 and not known:
                what = "exported, rank not declared (judged at run time)"
            elif rc == 0:
                what = "exported"
            elif err.strip():
                what = "refused"
            else:
                what = "failed without a message"
            counts[what] += 1
            if what not in ("refused", "exported, rank not declared (judged at run time)"):
                first = next((l for l in err.splitlines() if any(s in l for s in SANITIZER)), "")
                defects.append({"case": lab, "result": what, "rc": str(rc), "detail": first[:300]})
                print(f"{what}: {lab} {first[:200]}", flush=True)
    print(f"{len(work)} exports: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if opt.json:
        with open(opt.json, "w") as f:
            json.dump({"counts": counts, "defects": defects}, f, indent=1)
    sys.exit(1 if defects else 0)


if __name__ == "__main__":
    main()
