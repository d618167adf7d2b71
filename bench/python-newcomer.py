#!/usr/bin/python3
"""The newcomer path, timed against torch.onnx.export in the same run:
export a model with an autograd Function (no symbolic) and a run-time size
(view(x.size(0), -1)) with dynamic batch, then verify against PyTorch.

  PYTHONPATH=python SYMONNX_LIBRARY=build/libsymonnx.so /usr/bin/python3 bench/python-newcomer.py [REPEAT]

Prints the median of REPEAT (default 20) runs of each exporter and the
ratio; timings are noisy on a shared machine: compare within one run."""
import io
import os
import statistics
import sys
import tempfile
import time
import warnings

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "e2e"))
sys.path.insert(0, os.path.join(here, "..", "python"))
import function_model  # noqa: E402
import symonnx  # noqa: E402


def timed(fn, repeat):
    fn()   # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    torch.manual_seed(0)
    models = [("function_model.Net (2x3x8x8)", function_model.Net().eval(), torch.randn(2, 3, 8, 8))]
    import torchvision
    models.append(("resnet18 (1x3x224x224)", torchvision.models.resnet18(weights=None).eval(),
                   torch.randn(1, 3, 224, 224)))
    kw = dict(input_names=["x"], output_names=["y"], opset_version=14,
              dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    with tempfile.TemporaryDirectory() as d:
        ours, theirs = os.path.join(d, "symonnx.onnx"), os.path.join(d, "torch.onnx")
        print(f"{'model':<30} {'symonnx.export':>15} {'torch.onnx.export':>18} {'ratio':>8}")
        for name, model, x in models:
            t_ours = timed(lambda: symonnx.export(model, (x,), ours, **kw), repeat)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_torch = timed(lambda: torch.onnx.export(model, (x,), theirs, **kw), repeat)
            print(f"{name:<30} {t_ours * 1e3:12.1f} ms {t_torch * 1e3:15.1f} ms {t_torch / t_ours:7.2f}x")
            out = io.StringIO()
            ok = symonnx.verify(model, (x,), ours, file=out)
            print("  verify:", out.getvalue().strip().splitlines()[-1])
            if not ok:
                sys.exit(1)


if __name__ == "__main__":
    main()
