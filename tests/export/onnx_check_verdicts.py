#!/usr/bin/python3
"""onnx.checker.check_model's verdict on every model.onnx under the given
folders, one line each: "PATH<TAB>ok" or "PATH<TAB>bad<TAB>first line of the
error".  Exit 77 when python3-onnx is missing."""
import glob
import sys

try:
    import onnx
    import onnx.checker
except ImportError:
    print("python3-onnx is not installed")
    sys.exit(77)

for folder in sys.argv[1:]:
    for path in sorted(glob.glob(folder + '/*/model.onnx')):
        try:
            onnx.checker.check_model(onnx.load(path))
            print('%s\tok' % path)
        except Exception as e:  # checker and parse errors alike
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print('%s\tbad\t%s' % (path, msg))
