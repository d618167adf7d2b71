#!/usr/bin/python3
"""onnx.checker over re-saved models.

Usage: onnx_checker.py LIST
LIST has one "ORIGINAL<TAB>RESAVED" pair per line.  For every pair whose
original passes onnx.checker.check_model(full_check=True), the re-saved file
must pass too.  Exits 1 on any such regression, 77 when onnx is missing."""
import sys

try:
    import onnx
except ImportError:
    print("python3-onnx is not installed")
    sys.exit(77)


def check(path):
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return None
    except Exception as e:  # checker, shape inference and parse errors alike
        return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def main():
    pairs = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
    accepted = regressions = 0
    for orig, resaved in pairs:
        if check(orig) is not None:
            continue
        accepted += 1
        err = check(resaved)
        if err is not None:
            regressions += 1
            print("REGRESSION %s: %s" % (orig, err))
    print("%d models, %d accepted originally, %d regressions" % (len(pairs), accepted, regressions))
    if not pairs or accepted == 0:
        print("nothing was checked")
        sys.exit(1)
    sys.exit(1 if regressions else 0)


if __name__ == "__main__":
    main()
