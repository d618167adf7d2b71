#!/usr/bin/python3
"""Independent checks for the e2e tests, with python3-onnx and numpy:

  e2e_check.py check MODEL.onnx...              onnx.checker.check_model(full_check=True)
  e2e_check.py compare RTOL ATOL EXPECTED ACTUAL [EXPECTED ACTUAL...]
                                                numpy.allclose per pair

Prints one line per item; exits 1 on the first failure."""
import sys

import numpy as np


def main(argv):
    if len(argv) >= 2 and argv[0] == "check":
        import onnx
        for path in argv[1:]:
            onnx.checker.check_model(onnx.load(path), full_check=True)
            print(f"{path}: checker ok")
        return 0
    if len(argv) >= 5 and argv[0] == "compare" and len(argv) % 2 == 1:
        rtol, atol = float(argv[1]), float(argv[2])
        for exp_path, act_path in zip(argv[3::2], argv[4::2]):
            e, a = np.load(exp_path), np.load(act_path)
            if e.shape != a.shape or e.dtype != a.dtype:
                print(f"{act_path}: {a.dtype}{a.shape}, expected {e.dtype}{e.shape}")
                return 1
            err = float(np.max(np.abs(a.astype(np.float64) - e))) if e.size else 0.0
            if not np.allclose(a, e, rtol=rtol, atol=atol):
                print(f"{act_path}: max abs err {err:.3g} past rtol {rtol}, atol {atol}")
                return 1
            print(f"{act_path}: max abs err {err:.3g}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
