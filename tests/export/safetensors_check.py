#!/usr/bin/python3
"""Checks a .safetensors file written by symonnx with the reference reader
and writer in safetensors_ref.py.

usage: safetensors_check.py FILE DIR

DIR/manifest.txt has tab-separated lines  NAME DTYPE SHAPE INDEX  (also a
line "__metadata__ KEY VALUE" per metadata entry); DIR/INDEX.bin holds the
tensor's bytes as they were in memory.  The file must parse under the strict
reference reader, hold exactly these tensors and metadata, bit-identical,
and be byte-identical to what the reference writer makes of them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_ref  # noqa: E402

path, d = sys.argv[1], sys.argv[2]
expect, metadata = {}, {}
for line in open(os.path.join(d, 'manifest.txt'), encoding='utf-8'):
    line = line.rstrip('\n')
    if not line:
        continue
    f = line.split('\t')
    if f[0] == '__metadata__':
        metadata[f[1]] = f[2]
        continue
    name, dt, shape, idx = f
    shape = () if shape == 'scalar' else tuple(int(x) for x in shape.split(','))
    expect[name] = (dt, shape, open(os.path.join(d, idx + '.bin'), 'rb').read())

buf = open(path, 'rb').read()
got, got_md = safetensors_ref.deserialize(buf)
problems = []
if set(got) != set(expect):
    problems.append(f'names differ: {sorted(set(got) ^ set(expect))}')
for name in set(got) & set(expect):
    if got[name] != expect[name]:
        problems.append(f'{name}: {got[name][:2]} vs {expect[name][:2]}, '
                        f'data equal: {got[name][2] == expect[name][2]}')
    else:
        a = safetensors_ref.to_numpy(*got[name])      # numpy can view it
        assert a.shape == expect[name][1]
if (got_md or {}) != metadata:
    problems.append(f'metadata {got_md} != {metadata}')
ref = safetensors_ref.serialize(expect, metadata if metadata else None)
if ref != buf:
    problems.append(f'file differs from the reference writer ({len(buf)} vs {len(ref)} bytes)')
for p in problems:
    print(p)
print(f'checked {len(got)} tensors, {len(problems)} problems')
sys.exit(1 if problems else 0)
