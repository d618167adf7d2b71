#!/usr/bin/python3
"""The real-model corpus: every torchvision 0.14 builder, exported by
torch.onnx.export and by symonnx, and symonnx's export run in symonnx's
executor against PyTorch.

Each builder gets random seeded weights (nothing is downloaded: weights=None,
weights_backbone=None) and a small input; each model runs in its own process
(a crash or a hang is one failed row, not a failed corpus).  Per model and
opset the table says whether torch.onnx.export wrote a file, whether symonnx
exported one (or the first line of its error), and whether symonnx's file run
in symonnx's executor gives PyTorch's outputs (numpy allclose, rtol 1e-3,
atol 1e-4 + 1e-5 of the largest output; for the quantized models one quantization step
of the output, rtol 0), and the same for torch's file run in symonnx's executor,
and symonnx's file run in ONNX Runtime 1.20 (onnxruntime-node, when
tests/e2e/install-ort.sh has installed it into build/ort; else the column says
"not installed").

  bench/torchvision-corpus.py [--opsets 13,17] [--family classification,...]
                              [--models a,b] [--skip-large] [--timeout S]
                              [--json FILE] [--require-match] [--symonnx-only]

Environment: SYMONNX_LIBRARY (default build/libsymonnx.so).  Run from the
source tree.  The whole corpus takes about an hour on 2 cores; --skip-large
leaves out the builders with more than 150M parameters.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
FAMILIES = ["classification", "segmentation", "detection", "video", "optical_flow", "quantization"]
LARGE = {"vit_h_14", "regnet_y_128gf", "vit_l_16", "vit_l_32", "regnet_y_32gf", "regnet_y_16gf",
         "efficientnet_v2_l", "vit_b_32", "vit_b_16", "quantized_resnext101_64x4d", "mvit_v1_b",
         "mvit_v2_s"}


def builders(family):
    import torchvision.models as m
    mod = {"classification": m, "segmentation": m.segmentation, "detection": m.detection,
           "video": m.video, "optical_flow": m.optical_flow, "quantization": m.quantization}[family]
    return sorted(m.list_models(module=mod))


def make(name, family):
    """The model (eval, random seeded weights) and its input tuple."""
    import torch
    import torchvision.models as m
    torch.manual_seed(0)
    kw = {"weights": None}
    if family in ("segmentation", "detection"):
        kw["weights_backbone"] = None
    if family == "quantization":
        kw["quantize"] = True
        kw["backend"] = "qnnpack"   # Debian's torch has no fbgemm
        torch.backends.quantized.engine = "qnnpack"
    model = m.get_model(name, **kw).eval()
    if family == "detection":
        size = 320 if "ssd" in name else 128
        image = torch.rand(3, size, size)
        if name.startswith("ssd"):
            spread_ssd_scores(model, image)
        return model, ([image],)
    if family == "video":
        if name.startswith("mvit"):
            return model, (torch.rand(1, 3, 16, 224, 224),)
        if name == "s3d":
            return model, (torch.rand(1, 3, 16, 224, 224),)   # its last pooling is 2x7x7
        return model, (torch.rand(1, 3, 4, 64, 64),)
    if family == "optical_flow":
        return model, (torch.rand(1, 3, 128, 128), torch.rand(1, 3, 128, 128))
    size = 64
    if name.startswith(("vit_", "maxvit", "swin")):
        size = 224
    elif "inception" in name or "googlenet" in name:
        size = 128
    elif family == "segmentation":
        size = 96
    image = torch.rand(1, 3, size, size)
    if family == "classification":
        unzero_constant_output(model, image)
    return model, (image,)


def unzero_constant_output(model, image):
    """A builder whose output is the same for every input (the ViTs
    initialise their classification head to zeros: every logit is 0) would
    match any export.  Its all-zero parameters get small random values
    (seeded, standard deviation 0.02), so the comparison compares
    something; other builders are left as they are."""
    import torch
    with torch.no_grad():
        out = model(image)
        if float(out.max() - out.min()) != 0.0:
            return
        g = torch.Generator().manual_seed(2)
        for p in model.parameters():
            if p.is_floating_point() and p.numel() > 0 and not p.any():
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)


def spread_ssd_scores(model, image):
    """SSD's random weights give scores that cannot order boxes: SSDlite's
    backbone activations vanish (1e-14 after its eval-mode BatchNorms), so
    every score is 1/91; SSD300's logits saturate every top score at 1.0.
    The box order then depends on float rounding, in PyTorch as in any
    executor.  So, deterministically: the backbone's BatchNorm statistics
    are re-estimated on two random images (train mode, cumulative average),
    and each classification conv is scaled so that the logits have standard
    deviation 1.5 on this image.  The scores are then distinct (gaps of
    1e-5 and more), as a trained model's are."""
    import torch
    bns = [b for b in model.backbone.modules() if isinstance(b, torch.nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        if bns:
            g = torch.Generator().manual_seed(1)
            for b in bns:
                b.reset_running_stats()
                b.momentum = None
            model.backbone.train()
            model.backbone(model.transform([torch.rand(image.shape, generator=g) for _ in range(2)])[0].tensors)
            model.backbone.eval()
        feats = list(model.backbone(model.transform([image])[0].tensors).values())
        std = model.head.classification_head(feats).std().item()
        for entry in model.head.classification_head.module_list:
            last = [c for c in entry.modules() if isinstance(c, torch.nn.Conv2d)][-1]
            last.weight.mul_(1.5 / std)
            if last.bias is not None:
                last.bias.mul_(1.5 / std)


QUANT_STEPS = 1


def quant_step(model, args):
    """The scale of the quantized tensor a torchvision quantized model's
    DeQuantize reads (its output's quantization step)."""
    import torch
    steps = []
    hook = model.dequant.register_forward_pre_hook(lambda m, inp: steps.append(inp[0].q_scale()))
    with torch.no_grad():
        model(*args)
    hook.remove()
    return steps[-1] if steps else 0.0


def max_abs_error(report):
    """The largest 'max abs err' of symonnx.verify's table."""
    worst = None
    for line in report.splitlines():
        f = line.split()   # name, dtype(shape, ...), max abs, max rel, mismatches, first
        if len(f) >= 4 and f[1].split("(")[0] in ("float32", "float64", "float16", "int64", "uint8", "int8"):
            try:
                v = float(f[-4])
            except ValueError:
                continue
            worst = v if worst is None else max(worst, v)
    return worst


def first_line(e):
    s = str(e).strip().splitlines()
    return (s[0] if s else type(e).__name__)[:160]


ORT_MODULES = os.path.join(ROOT, "build", "ort", "node_modules")


def write_inputs(path, args, work):
    """The model's inputs as NAME=FILE.npy arguments, or an error string."""
    import numpy as np
    import onnx
    from symonnx import _trace
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in inits]
    tensors = [t for t in _trace.flatten(args)]
    if len(names) != len(tensors):
        return f"error: {len(names)} graph inputs for {len(tensors)} tensors"
    specs = []
    for k, (n, t) in enumerate(zip(names, tensors)):
        f = os.path.join(work, f"in_{k}.npy")
        np.save(f, t.detach().numpy())
        specs.append(f"{n}={f}")
    return specs


def detections_match_up_to_ties(path, args, expected, rtol, atol, work):
    """A detection model's outputs (boxes, scores, labels, masks... one row
    per detection, every output of the same leading length) compared as a
    multiset: 'yes' when each of symonnx's rows equals one of PyTorch's
    within the tolerance.  Rows come out sorted by score in both, so equal
    multisets in another order mean near-tied scores ordered the other way
    (float summation order), not another result."""
    from symonnx import _trace
    specs = write_inputs(path, args, work)
    if isinstance(specs, str):
        return specs
    got = run_outputs(path, specs, work)
    if isinstance(got, str):
        return got
    want = [t.detach().numpy() for t in _trace.flatten(expected)]
    return rows_match_up_to_ties(got, want, rtol, atol)


def run_outputs(path, specs, work, timeout=None):
    """`symonnx run` of the file on NAME=FILE.npy inputs: its outputs as
    numpy arrays in the graph's output order, or an error string."""
    import numpy as np
    import onnx
    od = os.path.join(work, "ours_out")
    os.makedirs(od, exist_ok=True)
    for f in os.listdir(od):
        os.unlink(os.path.join(od, f))
    cli = os.environ.get("SYMONNX_CLI", os.path.join(ROOT, "build", "tools", "symonnx"))
    argv = [cli, "run", path, "-o", od]
    for sp in specs:
        argv += ["-i", sp]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        return "error: " + first_line(r.stderr)
    outs = [o.name for o in onnx.load(path, load_external_data=False).graph.output]
    return [np.load(os.path.join(od, re.sub(r"[^A-Za-z0-9._-]", "_", n) + ".npy")) for n in outs]


def rows_match_up_to_ties(got, want, rtol, atol):
    """Outputs of one row per detection (numpy arrays of the same leading
    length) compared as a multiset of rows: 'yes' when each of got's rows
    equals one of want's within the tolerance, else why not."""
    import numpy as np
    if len(got) != len(want) or not want or any(g.shape != w.shape for g, w in zip(got, want)):
        return "NO: other outputs or shapes"
    n = want[0].shape[0] if want[0].ndim else -1
    if n < 0 or any(w.ndim == 0 or w.shape[0] != n for w in want):
        return "NO: outputs are not one row per detection"
    rows_w = np.concatenate([w.reshape(n, -1).astype(np.float64) for w in want], 1)
    rows_g = np.concatenate([g.reshape(n, -1).astype(np.float64) for g in got], 1)
    free = np.ones(n, bool)
    for i in range(n):
        close = np.all(np.abs(rows_g[i] - rows_w) <= atol + rtol * np.abs(rows_w), axis=1) & free
        if not close.any():
            return f"NO: detection {i} has no counterpart"
        free[np.argmax(close)] = False
    return "yes"


def ort_check(path, args, expected, rtol, atol, work):
    """symonnx's file in ONNX Runtime against PyTorch's outputs: 'yes', or why not."""
    import numpy as np
    import onnx
    from symonnx import _trace
    if not os.path.isdir(os.path.join(ORT_MODULES, "onnxruntime-node")):
        return "not installed"
    specs = write_inputs(path, args, work)
    if isinstance(specs, str):
        return specs
    od = os.path.join(work, "ort_out")
    os.makedirs(od, exist_ok=True)
    for f in os.listdir(od):
        os.unlink(os.path.join(od, f))
    env = dict(os.environ, NODE_PATH=ORT_MODULES)
    r = subprocess.run(["node", os.path.join(ROOT, "tests", "e2e", "ort-run.js"), path, od] + specs,
                       capture_output=True, text=True, env=env)
    if r.returncode:
        return "error: " + first_line(r.stderr)
    want = [t.detach().numpy() for t in _trace.flatten(expected)]
    for i, w in enumerate(want):
        f = os.path.join(od, f"ort_{i}.npy")
        if not os.path.exists(f):
            return f"error: no output {i}"
        got = np.load(f)
        if got.shape != w.shape or not np.allclose(got.astype(np.float64), w.astype(np.float64),
                                                   rtol=rtol, atol=atol, equal_nan=True):
            err = float(np.abs(got.astype(np.float64) - w.astype(np.float64)).max()) \
                if got.shape == w.shape else None
            return f"NO: output {i} " + (f"max abs error {err:.3g}" if err is not None
                                         else f"shape {got.shape}, PyTorch {w.shape}")
    return "yes"


def ort_outputs_up_to_ties(expected, rtol, atol, work):
    """ort_check's last outputs (work/ort_out) against PyTorch's as a
    multiset of detections (rows_match_up_to_ties)."""
    import numpy as np
    from symonnx import _trace
    want = [t.detach().numpy() for t in _trace.flatten(expected)]
    got = []
    for i in range(len(want)):
        f = os.path.join(work, "ort_out", f"ort_{i}.npy")
        if not os.path.exists(f):
            return f"error: no output {i}"
        got.append(np.load(f))
    return rows_match_up_to_ties(got, want, rtol, atol)


def one(name, family, opsets, work, symonnx_only=False):
    """Runs one model; prints one JSON line per opset."""
    warnings.simplefilter("ignore")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import io
    import torch
    import symonnx
    model, args = make(name, family)
    n_params = sum(p.numel() for p in model.parameters())
    # Random weights through untrained BatchNorm reach 1e10 in some models
    # (inception_v3): an absolute tolerance of 1e-5 of the largest output
    # keeps float32 cancellation there from counting as a mismatch.
    with torch.no_grad():
        from symonnx import _trace
        expected = model(*args)
        scale = max((float(t.abs().max()) for t in _trace.flatten(expected)
                     if t.numel() and t.is_floating_point()), default=0.0)
    atol = 1e-4 + 1e-5 * scale
    step = quant_step(model, args) if family == "quantization" else 0.0
    if step:
        # A quantized model's output is integers times the scale of the
        # tensor its DeQuantize reads: a value rounded the other way inside
        # the network moves it by a step (or a few, downstream).  The
        # tolerance is QUANT_STEPS steps (rtol 0): one step is the
        # representation's resolution, more a sign of a different computation.
        atol, rtol = QUANT_STEPS * step * 1.0001, 0.0
    else:
        rtol = 1e-3
    for opset in opsets:
        row = {"model": name, "family": family, "opset": opset, "params": n_params}
        if step:
            row["quant_step"] = step
        tf = os.path.join(work, f"{name}.torch{opset}.onnx")
        sf = os.path.join(work, f"{name}.symonnx{opset}.onnx")
        t0 = time.perf_counter()
        try:
            if symonnx_only:
                raise RuntimeError("not run (--symonnx-only)")
            # autograd on, as torch.onnx.export is called: under no_grad, torch
            # 1.13's nn.MultiheadAttention takes its fused fast path
            # (aten::_native_multi_head_attention), which torch cannot export
            # (the ViTs' torch column failed on it), as symonnx's Python
            # export traces with autograd on
            torch.onnx.export(model, args, tf, opset_version=opset)
            row["torch"] = "ok"
        except Exception as e:  # noqa: BLE001  torch refuses: record why
            row["torch"] = "fail: " + first_line(e)
        row["torch_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        try:
            symonnx.export(model, args, sf, opset_version=opset)
            row["symonnx"] = "ok"
        except Exception as e:  # noqa: BLE001
            row["symonnx"] = "fail: " + first_line(e)
        row["symonnx_s"] = round(time.perf_counter() - t0, 2)
        for key, path in (("match", sf), ("torch_file_match", tf)):
            if not os.path.exists(path):
                continue
            buf = io.StringIO()
            try:
                ok = symonnx.verify(model, args, path, rtol=rtol, atol=atol, file=buf)
                row[key] = "yes" if ok else "NO: " + first_line(buf.getvalue().splitlines()[-2:-1])
                row[key + "_max_abs"] = max_abs_error(buf.getvalue())
            except Exception as e:  # noqa: BLE001
                row[key] = "error: " + first_line(e)
        # a detection model whose rows differ only in the order of near-tied
        # scores (strict "match" stays NO; counted apart in the table)
        if family == "detection" and row.get("match", "").startswith("NO") and os.path.exists(sf):
            try:
                row["match_up_to_ties"] = detections_match_up_to_ties(sf, args, expected, rtol, atol, work)
            except Exception as e:  # noqa: BLE001
                row["match_up_to_ties"] = "error: " + first_line(e)
        # each file in ONNX Runtime too: torch's tells ORT's own numerics
        # (near-tied scores ordered differently) apart from our export's
        for key, path in (("ort_match", sf), ("torch_file_ort_match", tf)):
            if not os.path.exists(path):
                continue
            try:
                row[key] = ort_check(path, args, expected, rtol, atol, work)
                # as for our executor: near-tied scores in another order (ORT's sums)
                if family == "detection" and row[key].startswith("NO"):
                    row[key + "_up_to_ties"] = ort_outputs_up_to_ties(expected, rtol, atol, work)
            except Exception as e:  # noqa: BLE001
                row[key] = "error: " + first_line(e)
        for path in (tf, sf):
            if os.path.exists(path):
                os.unlink(path)
        print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opsets", default="13")
    ap.add_argument("--family", default=",".join(FAMILIES))
    ap.add_argument("--models", default="")
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("--require-match", action="store_true",
                    help="exit 1 unless every model's symonnx export matches PyTorch (the test's subset)")
    ap.add_argument("--symonnx-only", action="store_true", help="skip torch.onnx.export (faster)")
    ap.add_argument("--one", nargs=2, metavar=("NAME", "FAMILY"), help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    a = ap.parse_args()
    opsets = [int(x) for x in a.opsets.split(",")]
    os.environ.setdefault("SYMONNX_LIBRARY", os.path.join(ROOT, "build", "libsymonnx.so"))
    if a.one:
        one(a.one[0], a.one[1], opsets, a.work, a.symonnx_only)
        return 0
    wanted = set(filter(None, a.models.split(",")))
    todo = [(n, f) for f in a.family.split(",") for n in builders(f)
            if (not wanted or n in wanted) and not (a.skip_large and n in LARGE)]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, family in todo:
            cmd = [sys.executable, os.path.abspath(__file__), "--one", name, family,
                   "--opsets", a.opsets, "--work", work] + (["--symonnx-only"] if a.symonnx_only else [])
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
                got = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
                if not got:
                    err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
                    got = [{"model": name, "family": family, "opset": o, "torch": "?",
                            "symonnx": "crash: " + err[:160]} for o in opsets]
            except subprocess.TimeoutExpired:
                got = [{"model": name, "family": family, "opset": o, "torch": "?",
                        "symonnx": f"timeout after {a.timeout} s"} for o in opsets]
            for r in got:
                rows.append(r)
                print(f"{r['model']:<36} {r['opset']:>3} torch {r['torch'][:40]:<40} "
                      f"symonnx {r['symonnx'][:70]:<70} match {r.get('match', '-')[:40]:<12} "
                      f"max abs {r.get('match_max_abs')!s:<10} "
                      f"torch-file {r.get('torch_file_match', '-')[:30]:<14} "
                      f"ORT {r.get('ort_match', '-')[:40]:<30} "
                      f"torch-file ORT {r.get('torch_file_ort_match', '-')[:40]}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    print()
    print("| family | opset | models | torch exports | symonnx exports | symonnx matches PyTorch "
          "| torch can, symonnx matches | symonnx only | torch's file matches in symonnx "
          "| symonnx's file matches in ONNX Runtime | torch's file matches in ONNX Runtime |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for fam in FAMILIES + ["all"]:
        for o in opsets:
            rs = [r for r in rows if r["opset"] == o and (fam == "all" or r["family"] == fam)]
            if not rs:
                continue
            t = sum(r["torch"] == "ok" for r in rs)
            s = sum(r["symonnx"] == "ok" for r in rs)
            m = sum(r.get("match") == "yes" for r in rs)
            both = sum(r["torch"] == "ok" and r.get("match") == "yes" for r in rs)
            only = sum(r["torch"] != "ok" and r.get("match") == "yes" for r in rs)
            tf = sum(r.get("torch_file_match") == "yes" for r in rs)
            ort = sum(r.get("ort_match") == "yes" for r in rs)
            tort = sum(r.get("torch_file_ort_match") == "yes" for r in rs)
            print(f"| {fam} | {o} | {len(rs)} | {t} | {s} | {m} | {both}/{t} | {only} | {tf}/{t} "
                  f"| {ort}/{s} | {tort}/{t} |")
    for key, who in (("match_up_to_ties", "symonnx's executor"), ("ort_match_up_to_ties", "ONNX Runtime"),
                     ("torch_file_ort_match_up_to_ties", "ONNX Runtime on torch's file")):
        ties = [f"{r['model']} ({r['opset']})" for r in rows if r.get(key) == "yes"]
        if ties:
            print()
            print(f"Not matching strictly in {who}, but the same detections with near-tied scores in "
                  "another order: " + ", ".join(ties))
    if a.require_match and any(r.get("match") != "yes" for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
