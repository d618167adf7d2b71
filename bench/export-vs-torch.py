#!/usr/bin/python3
"""Export time of the seed models: `symonnx export` vs torch.onnx.export vs
the floor (writing the weight bytes to a file), and symonnx's peak RSS.

  /usr/bin/python3 bench/export-vs-torch.py [--symonnx build/tools/symonnx]
      [--opset 13] [--repeat 3] [MODEL...]

Models and inputs are tools/gen_seed_refs.py's (random weights, small
inputs).  Tracing is excluded on both sides: torch.onnx.export gets the
already traced ScriptModule; symonnx gets the trace text and the
safetensors file written beforehand.  Two symonnx times:

  process     the whole `symonnx export` process (start, read weights,
              parse, export, write), from spawn to exit;
  in-process  bench/export-inprocess (built next to the CLI): the same work
              in a running process, as torch.onnx.export is timed.

Every timed run writes a fresh file (the old one is removed first, outside
the timing): replacing a file costs the kernel the old file's pages, which
is not export work.  Rounds alternate floor, torch and symonnx; times are
the best of --repeat.  torch/floor is the most any exporter can gain over
torch: a 20x speed-up needs it to be at least 20.  Peak RSS is GNU time's
%M of the process.
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


def run_symonnx(argv, tmp, out):
    """Wall time and peak RSS (GNU time's %M: a child forked from this
    torch-sized process would report the parent's pages in ru_maxrss)."""
    rss_file = os.path.join(tmp, "rss.txt")
    if os.path.exists(out):
        os.unlink(out)
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"symonnx failed: {' '.join(argv)}\n{p.stderr.decode()}")
    with open(rss_file) as f:
        return dt, int(f.read().split()[-1]) * 1024


def run_inprocess(exe, trace, weights, out, opset, repeat):
    p = subprocess.run([exe, trace, weights, out, str(opset), str(repeat)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{exe} failed:\n{p.stderr}")
    return {k: float(v) / 1e3 for k, v in (f.split("=") for f in p.stdout.split())}


def timed(fn, path):
    if os.path.exists(path):
        os.unlink(path)
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--symonnx", default=os.path.join(ROOT, "build", "tools", "symonnx"))
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--inprocess", help="bench/export-inprocess (default: next to --symonnx)")
    ap.add_argument("models", nargs="*", default=list(SEEDS))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(1)

    inprocess = args.inprocess or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(args.symonnx))), "bench", "export-inprocess")
    print(f"opset {args.opset}, best of {args.repeat}, times in ms; ratios are symonnx / other")
    print(f"{'model':<20} {'weights':>8} {'floor':>7} {'torch':>7} {'torch/':>7} "
          f"{'in-proc':>7} {'/torch':>7} {'/floor':>6} {'process':>7} {'/torch':>7} {'/floor':>6} "
          f"{'peak RSS':>9} {'/weights':>8}")
    print(f"{'':<20} {'MiB':>8} {'':>7} {'':>7} {'floor':>7}")
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
            floor_path = os.path.join(tmp, "floor.bin")
            torch_path = os.path.join(tmp, "torch.onnx")
            out = os.path.join(tmp, "symonnx.onnx")

            def floor():
                with open(floor_path, "wb") as f:
                    f.write(blob)

            def torch_export():
                torch.onnx.export(traced, inputs, torch_path, opset_version=args.opset)

            argv = [args.symonnx, "export", trace_path, "-w", wpath, "-o", out,
                    "--opset", str(args.opset)]
            t_floor, t_torch, runs = [], [], []
            for _ in range(args.repeat):
                t_floor.append(timed(floor, floor_path))
                t_torch.append(timed(torch_export, torch_path))
                runs.append(run_symonnx(argv, tmp, out))
            t_floor, t_torch = min(t_floor), min(t_torch)
            t_sym = min(r[0] for r in runs)
            rss = max(r[1] for r in runs)
            t_in = run_inprocess(inprocess, trace_path, wpath, out, args.opset,
                                 max(args.repeat, 5))["total_ms"]
            ms = 1e3
            print(f"{name:<20} {nbytes / 2**20:>8.1f} {t_floor * ms:>7.1f} {t_torch * ms:>7.1f} "
                  f"{t_torch / t_floor:>7.1f} {t_in * ms:>7.1f} {t_in / t_torch:>7.3f} "
                  f"{t_in / t_floor:>6.2f} {t_sym * ms:>7.1f} {t_sym / t_torch:>7.3f} "
                  f"{t_sym / t_floor:>6.2f} {rss / 2**20:>7.0f}MB {rss / nbytes:>8.2f}",
                  flush=True)
            del blob, model, traced
            for p in (wpath, out, torch_path, floor_path):
                if os.path.exists(p):
                    os.unlink(p)

if __name__ == "__main__":
    main()
