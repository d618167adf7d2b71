#!/usr/bin/python3
"""Export time of the seed models: `symonnx export` vs torch.onnx.export vs
the floor (writing the weight bytes to a file), and symonnx's peak RSS.

  /usr/bin/python3 bench/export-vs-torch.py [--symonnx build/tools/symonnx]
      [--opset 13] [--repeat 3] [MODEL...]

Models and inputs are tools/gen_seed_refs.py's (random weights, small
inputs).  Tracing is excluded on both sides: torch.onnx.export gets the
already traced ScriptModule; symonnx gets the trace text and the
safetensors file written beforehand.  symonnx's time is the whole process
(start, parse, weight load, export, write), from spawn to exit; its peak
RSS from GNU time (/usr/bin/time -f %M).  Times are the best of --repeat runs.
"""
import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
import warnings

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from gen_seed_refs import SEEDS, build  # noqa: E402
from torch2trace import write_safetensors  # noqa: E402


def best(fn, n):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run_symonnx(argv, tmp):
    """Wall time and peak RSS (GNU time's %M: a child forked from this
    torch-sized process would report the parent's pages in ru_maxrss)."""
    rss_file = os.path.join(tmp, "rss.txt")
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"symonnx failed: {' '.join(argv)}\n{p.stderr.decode()}")
    with open(rss_file) as f:
        return dt, int(f.read().split()[-1]) * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--symonnx", default=os.path.join(ROOT, "build", "tools", "symonnx"))
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("models", nargs="*", default=list(SEEDS))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(1)

    print(f"opset {args.opset}, best of {args.repeat}; ratios are symonnx / other")
    print(f"{'model':<20} {'weights':>9} {'floor':>8} {'torch':>8} {'symonnx':>8} "
          f"{'sym/torch':>9} {'sym/floor':>9} {'peak RSS':>9} {'RSS/weights':>11}")
    with tempfile.TemporaryDirectory(prefix="export-vs-torch-") as tmp:
        for name in args.models:
            model, inputs = build(*SEEDS[name])
            with torch.no_grad():
                traced = torch.jit.trace(model, inputs, check_trace=False)
            trace_path = os.path.join(tmp, name + ".trace")
            with open(trace_path, "w") as f:
                f.write(str(traced.inlined_graph))
            weights = {k: v for k, v in model.state_dict().items()}
            wpath = os.path.join(tmp, name + ".safetensors")
            write_safetensors(wpath, weights)
            nbytes = sum(v.numel() * v.element_size() for v in weights.values())
            blob = b"".join(v.detach().contiguous().numpy().tobytes() for v in weights.values())

            def floor():
                with open(os.path.join(tmp, "floor.bin"), "wb") as f:
                    f.write(blob)

            def torch_export():
                torch.onnx.export(traced, inputs, os.path.join(tmp, "torch.onnx"),
                                  opset_version=args.opset)

            t_floor = best(floor, args.repeat)
            t_torch = best(torch_export, args.repeat)
            out = os.path.join(tmp, "symonnx.onnx")
            argv = [args.symonnx, "export", trace_path, "-w", wpath, "-o", out,
                    "--opset", str(args.opset)]
            runs = [run_symonnx(argv, tmp) for _ in range(args.repeat)]
            t_sym = min(r[0] for r in runs)
            rss = max(r[1] for r in runs)
            print(f"{name:<20} {nbytes / 2**20:>7.1f}MB {t_floor * 1e3:>6.1f}ms "
                  f"{t_torch * 1e3:>6.0f}ms {t_sym * 1e3:>6.0f}ms {t_sym / t_torch:>9.3f} "
                  f"{t_sym / t_floor:>9.1f} {rss / 2**20:>7.0f}MB {rss / nbytes:>11.2f}",
                  flush=True)
            del blob, model, traced
            for p in (wpath, out, os.path.join(tmp, "torch.onnx")):
                if os.path.exists(p):
                    os.unlink(p)


if __name__ == "__main__":
    main()
