"""Writes a generated source file, or with --check on the command line
compares it with what is committed (the staleness tests run that):
  emit(PATH, TEXT)  exits 1 naming the file when --check finds it stale.
The generators exit 77 (the tests' "skipped") when their source library
(torch, onnx) cannot be imported."""
import os
import sys

SKIP = 77


def emit(path, text, what):
    path = os.path.normpath(path)
    if "--check" in sys.argv[1:]:
        with open(path) as f:
            current = f.read()
        if current != text:
            print("%s is stale: regenerate it with %s" % (path, os.path.basename(sys.argv[0])))
            sys.exit(1)
        print("%s is current (%s)" % (path, what))
        return
    with open(path, "w") as f:
        f.write(text)
    print("%s written to %s" % (what, path), file=sys.stderr)
