#!/usr/bin/python3
"""GFLOP/s of symonnx's Conv on ResNet-18/50's conv shapes vs OpenBLAS sgemm (issue 5).

    /usr/bin/python3 bench/runtime-export-models.py /tmp/rtbench --conv-shapes
    ninja -C build-bench tools/symonnx bench/runtime-sgemm
    /usr/bin/python3 bench/runtime-conv-gflops.py /tmp/rtbench [--threads 1 2] [--repeat 10]

For each one-node Conv model in DIR/conv/shapes.tsv and each thread count: the median (or
with --best the fastest) `symonnx run --repeat` time -> GFLOP/s (2*M*N*K / time), next to cblas_sgemm's median (best) GFLOP/s
at the same M x N x K (bench/runtime-sgemm, run just before); the fraction is conv / sgemm.  Per model the
totals weight each shape by how often it occurs: all conv FLOPs / all conv time.
Environment: SYMONNX, SGEMM (default build-bench/tools/symonnx, build-bench/bench/runtime-sgemm).
"""
import argparse
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BEST = False


def symonnx_ms(symonnx, model, inp, repeat, threads):
    out = subprocess.run([symonnx, "run", model, "--input", "input=" + inp, "--repeat", str(repeat),
                          "--threads", str(threads)], check=True, capture_output=True, text=True).stdout
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", out)
    if not m:
        sys.exit("no timing from symonnx for %s: %r" % (model, out))
    return float(m.group(2 if BEST else 1))


def sgemm_gflops(sgemm, shapes, threads):
    args = [sgemm, "--threads", str(threads)]
    for s in shapes:
        args += [str(v) for v in s]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines()[1:]:
        M, N, K, _t, best, median = line.split("\t")
        res[(int(M), int(N), int(K))] = float(best if BEST else median)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--best", action="store_true",
                    help="fastest run instead of the median, for both (less affected by other load)")
    args = ap.parse_args()
    global BEST
    BEST = args.best
    symonnx = os.environ.get("SYMONNX", os.path.join(HERE, "..", "build-bench", "tools", "symonnx"))
    sgemm = os.environ.get("SGEMM", os.path.join(HERE, "..", "build-bench", "bench", "runtime-sgemm"))
    cdir = os.path.join(args.dir, "conv")
    with open(os.path.join(cdir, "shapes.tsv")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    print("# %s; load: %s" % ("best runs" if BEST else "medians", open("/proc/loadavg").read().strip()))
    print("%-36s %3s %5s %7s %9s %9s %9s %6s" % ("shape", "T", "count", "MFLOP", "conv_ms", "conv_GF/s",
                                                  "sgemm_GF/s", "frac"))
    for t in args.threads:
        totals = {}
        for r in rows:
            label, flops, count = r["label"], int(r["flops"]), int(r["count"])
            key = (int(r["M"]), int(r["N"]), int(r["K"]))
            # sgemm right before the conv, so both see the same machine load
            ref = sgemm_gflops(sgemm, [key], t)
            ms = symonnx_ms(symonnx, os.path.join(cdir, label + ".onnx"),
                            os.path.join(cdir, label + ".input.npy"), args.repeat, t)
            gf = flops / ms * 1e-6
            print("%-36s %3d %5d %7.1f %9.3f %9.1f %9.1f %6.2f" % (label, t, count, flops / 1e6, ms, gf, ref[key],
                                                                   gf / ref[key]))
            tot = totals.setdefault(r["model"], [0.0, 0.0, 0.0])
            tot[0] += count * flops
            tot[1] += count * ms
            tot[2] += count * flops / (ref[key] * 1e6)  # ms sgemm alone would take
            sys.stdout.flush()
        for model, (flops, ms, sg_ms) in totals.items():
            print("TOTAL %-30s %3d %5s %7.1f %9.3f %9.1f %9.1f %6.2f" % (model, t, "", flops / 1e6, ms,
                                                                        flops / ms * 1e-6, flops / sg_ms * 1e-6,
                                                                        sg_ms / ms))


if __name__ == "__main__":
    main()
