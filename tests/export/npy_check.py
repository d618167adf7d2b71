#!/usr/bin/python3
"""Checks .npy files written by symonnx (tests/export/test-npy.c) with numpy.

usage: npy_check.py DIR

DIR/manifest.txt has lines  NAME DESCR SHAPE  (SHAPE comma-separated, or
"scalar").  DIR/NAME.npy is our file; DIR/NAME.bin holds the tensor's bytes
as they were in memory.  For each case numpy must load the file with the
expected dtype and shape and bit-identical data, and our file must be
byte-identical to what np.save writes for the same array.
"""
import io
import os
import sys

import numpy as np

d = sys.argv[1]
failures = 0
count = 0
for line in open(os.path.join(d, 'manifest.txt')):
    if not line.strip():
        continue
    name, descr, shape = line.split()
    shape = () if shape == 'scalar' else tuple(int(x) for x in shape.split(','))
    ours = open(os.path.join(d, name + '.npy'), 'rb').read()
    raw = open(os.path.join(d, name + '.bin'), 'rb').read()
    a = np.load(io.BytesIO(ours), allow_pickle=False)
    problems = []
    if a.dtype.str != descr:
        problems.append(f'dtype {a.dtype.str} != {descr}')
    if a.shape != shape:
        problems.append(f'shape {a.shape} != {shape}')
    if a.tobytes() != raw:
        problems.append('data differ')
    expect = np.frombuffer(raw, dtype=np.dtype(descr)).reshape(shape)
    buf = io.BytesIO()
    np.save(buf, expect)
    if buf.getvalue() != ours:
        problems.append(f'file bytes differ from np.save ({len(ours)} vs {len(buf.getvalue())} bytes)')
    count += 1
    if problems:
        failures += 1
        print(f'{name}: ' + '; '.join(problems))
print(f'checked {count} files, {failures} failed')
sys.exit(1 if failures or count == 0 else 0)
