#!/usr/bin/python3
"""The real-model corpus in ATen modes: every torchvision 0.14 builder of
bench/torchvision-corpus.py (same models, weights and inputs), exported by
symonnx with --mode aten and --mode aten-fallback, run in symonnx's executor
(the ATen nodes by its own ATen kernels) and compared with PyTorch; and
`symonnx verify` without --expected, the trace run in the executor as the
reference, with --localize (the first node that diverges is named).

Each model is traced once (symonnx's Python tracer, in its own process) and
written as model.trace + weights.safetensors + .npy files; each check is one
`symonnx verify` run of the CLI (a crash or a hang is one failed cell).

  bench/torchvision-corpus-aten.py [--opset 13] [--family classification,...]
                                   [--models a,b] [--skip-large] [--timeout S]
                                   [--modes aten,aten-fallback] [--ref-mode aten-fallback]
                                   [--json FILE] [--require-match]

Columns: `aten`/`aten-fallback`: the export in that mode run in the executor
gives PyTorch's outputs (rtol 1e-3, atol 1e-4 + 1e-5 of the largest output,
as the ONNX-mode corpus); `verify-ref`: `symonnx verify --mode REF_MODE
--localize` with no --expected passes (the trace run and the exported graph
agree on every output and every compared node).

Environment: SYMONNX_CLI (default build/tools/symonnx) and SYMONNX_LIBRARY
(default build/libsymonnx.so, for the tracer).  Copy both aside to keep
rebuilding while it runs.  Run from the source tree.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))


def _corpus():
    """bench/torchvision-corpus.py: the builders, their inputs, the large ones."""
    spec = importlib.util.spec_from_file_location("tv_corpus", os.path.join(HERE, "torchvision-corpus.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CORPUS = _corpus()


def dump(name, family, work):
    """Traces the model; writes trace, weights, inputs and PyTorch's outputs.
    Returns (input files, expected files, atol, rtol): a quantized model is
    judged within CORPUS.QUANT_STEPS steps of its output scale, as in the
    ONNX-mode corpus."""
    warnings.simplefilter("ignore")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import numpy as np
    import torch
    from torch2trace import write_safetensors
    from symonnx import _trace
    model, args = CORPUS.make(name, family)
    with torch.no_grad():
        text, tensors, expected = _trace.trace(model, args)
    flat = _trace._flat_args(args)[0]
    with open(os.path.join(work, "model.trace"), "w") as f:
        f.write(text)
    write_safetensors(os.path.join(work, "weights.safetensors"), tensors)
    ins, exps = [], []
    for i, t in enumerate(flat):
        ins.append(os.path.join(work, f"input_{i}.npy"))
        np.save(ins[-1], t.detach().numpy())
    scale = 0.0
    for i, t in enumerate(expected):
        exps.append(os.path.join(work, f"expected_{i}.npy"))
        np.save(exps[-1], t.detach().numpy())
        if t.numel() and t.is_floating_point():
            scale = max(scale, float(t.abs().max()))
    step = CORPUS.quant_step(model, args) if family == "quantization" else 0.0
    if step:
        return ins, exps, CORPUS.QUANT_STEPS * step * 1.0001, 0.0
    return ins, exps, 1e-4 + 1e-5 * scale, 1e-3


def verdict(p):
    """'yes', or why not: the FAIL line, the first divergent node, or the error."""
    if p.returncode == 0:
        return "yes"
    lines = [l.strip() for l in (p.stdout + "\n" + p.stderr).splitlines() if l.strip()]
    for key in ("first divergent", "diverges", "error", "FAIL"):
        for l in lines:
            if key in l:
                return "NO: " + l[:200]
    return "NO: " + (lines[-1][:200] if lines else f"exit {p.returncode}")


def up_to_ties(key, a, base, work, ins, exps, atol, rtol):
    """A detection model's failed check judged again as a multiset of
    detections (bench/torchvision-corpus.py's rows_match_up_to_ties, as the
    ONNX-mode corpus does): scores a few ulps apart come out sorted in the
    other order when the kernels sum in another order.  For a mode: the
    export's run against PyTorch's outputs; for verify-ref: against the
    trace's own run (verify --save-reference).  base: the verify command
    line one() built (CLI, "verify", the trace, its options and inputs)."""
    import numpy as np
    import onnx
    want = [np.load(e) for e in exps]
    mode = a.ref_mode if key == "verify-ref" else key
    if key == "verify-ref":
        ref = os.path.join(work, "reference")
        os.makedirs(ref, exist_ok=True)
        subprocess.run(base + ["--mode", mode, "--save-reference", ref], capture_output=True, text=True,
                       timeout=a.timeout)
        want = [np.load(os.path.join(ref, f"reference_{i}.npy")) for i in range(len(exps))]
    onnx_path = os.path.join(work, "ties.onnx")
    p = subprocess.run([base[0], "export", os.path.join(work, "model.trace"), "-w",
                        os.path.join(work, "weights.safetensors"), "--opset", str(a.opset), "--mode", mode,
                        "-o", onnx_path], capture_output=True, text=True, timeout=a.timeout)
    if p.returncode:
        return "NO: export: " + p.stderr.strip()[:160]
    model = onnx.load(onnx_path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    got = CORPUS.run_outputs(onnx_path, [f"{n}={f}" for n, f in zip(names, ins)], work, a.timeout)
    if isinstance(got, str):
        return "NO: run: " + got
    return CORPUS.rows_match_up_to_ties(got, want, rtol, atol)


def one(name, family, a):
    """One model: prints one JSON row."""
    cli = os.environ.get("SYMONNX_CLI", os.path.join(ROOT, "build", "tools", "symonnx"))
    row = {"model": name, "family": family, "opset": a.opset}
    with tempfile.TemporaryDirectory(dir=a.work) as work:
        t0 = time.perf_counter()
        try:
            ins, exps, atol, rtol = dump(name, family, work)
        except Exception as e:  # noqa: BLE001  the trace failed: one row says why
            row["trace"] = "fail: " + CORPUS.first_line(e)
            print(json.dumps(row), flush=True)
            return
        row["trace"] = "ok"
        row["trace_s"] = round(time.perf_counter() - t0, 2)
        base = [cli, "verify", os.path.join(work, "model.trace"), "-w",
                os.path.join(work, "weights.safetensors"), "--opset", str(a.opset),
                "--rtol", repr(rtol), "--atol", repr(atol)]
        for i in ins:
            base += ["-i", i]
        checks = [(m, ["--mode", m] + [x for e in exps for x in ("-e", e)]) for m in a.modes]
        if a.ref_mode:
            checks.append(("verify-ref", ["--mode", a.ref_mode, "--localize"]))
        for key, extra in checks:
            t0 = time.perf_counter()
            try:
                p = subprocess.run(base + extra, capture_output=True, text=True, timeout=a.timeout)
                row[key] = verdict(p)
            except subprocess.TimeoutExpired:
                row[key] = f"NO: timeout after {a.timeout} s"
            if family == "detection" and "elements differ" in row[key]:
                try:
                    row[key + "_up_to_ties"] = up_to_ties(key, a, base, work, ins, exps, atol, rtol)
                except Exception as e:  # noqa: BLE001
                    row[key + "_up_to_ties"] = "error: " + CORPUS.first_line(e)
            row[key + "_s"] = round(time.perf_counter() - t0, 2)
    print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--family", default="classification,segmentation,video")
    ap.add_argument("--models", default="")
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per symonnx run")
    ap.add_argument("--modes", default="aten,aten-fallback")
    ap.add_argument("--ref-mode", default="aten-fallback",
                    help="mode of the run without --expected ('' to skip it)")
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("--require-match", action="store_true",
                    help="exit 1 unless every model passes every check")
    ap.add_argument("--one", nargs=2, metavar=("NAME", "FAMILY"), help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.modes = [m for m in a.modes.split(",") if m]
    os.environ.setdefault("SYMONNX_LIBRARY", os.path.join(ROOT, "build", "libsymonnx.so"))
    if a.one:
        one(a.one[0], a.one[1], a)
        return 0
    keys = a.modes + (["verify-ref"] if a.ref_mode else [])
    wanted = set(filter(None, a.models.split(",")))
    todo = [(n, f) for f in a.family.split(",") for n in CORPUS.builders(f)
            if (not wanted or n in wanted) and not (a.skip_large and n in CORPUS.LARGE)]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, family in todo:
            cmd = [sys.executable, os.path.abspath(__file__), "--one", name, family, "--work", work,
                   "--opset", str(a.opset), "--modes", ",".join(a.modes), "--ref-mode", a.ref_mode,
                   "--timeout", str(a.timeout)]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=a.timeout * (len(keys) + 1))
                got = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
                r = got[0] if got else {
                    "model": name, "family": family, "opset": a.opset,
                    "trace": "crash: " + ((p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1])[:160]}
            except subprocess.TimeoutExpired:
                r = {"model": name, "family": family, "opset": a.opset, "trace": "timeout"}
            rows.append(r)
            print(f"{name:<32} trace {r['trace'][:30]:<6} "
                  + " ".join(f"{k} {r.get(k, '-')[:90]}"
                             + (f" (up to near-tied scores: {r[k + '_up_to_ties']})" if k + "_up_to_ties" in r else "")
                             for k in keys), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    print()
    print("| family | models | traced | " + " | ".join(f"{k} ok" for k in keys) + " |")
    print("|---|---|---|" + "---|" * len(keys))
    for fam in CORPUS.FAMILIES + ["all"]:
        rs = [r for r in rows if fam == "all" or r["family"] == fam]
        if not rs:
            continue
        t = sum(r["trace"] == "ok" for r in rs)
        def count(k):
            ties = sum(r.get(k) != "yes" and r.get(k + "_up_to_ties") == "yes" for r in rs)
            return str(sum(r.get(k) == "yes" for r in rs)) + (f" (+{ties} up to ties)" if ties else "")
        print(f"| {fam} | {len(rs)} | {t} | " + " | ".join(count(k) for k in keys) + " |")
    if a.require_match and any(r.get(k) != "yes" for r in rows for k in keys):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
