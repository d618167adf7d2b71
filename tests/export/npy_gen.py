#!/usr/bin/python3
"""Writes .npy files with numpy for tests/export/test-npy.c to load.

usage: npy_gen.py OUTDIR

For each case NAME it writes OUTDIR/NAME.npy (by numpy) and, for files that
must load, OUTDIR/NAME.bin: the expected tensor bytes (little-endian, C
order) computed by numpy independently of the file.  OUTDIR/manifest.txt has
one line per case:  NAME EXPECT DTYPE SHAPE
  EXPECT: ok | unsupported
  DTYPE:  symonnx dtype name (graph_dtype_name), or - for unsupported
  SHAPE:  comma-separated dims, "scalar" for 0-d, - for unsupported
"""
import io
import os
import sys

import numpy as np

OUT = sys.argv[1]
rng = np.random.default_rng(1234)
lines = []

GRAPH_NAME = {
    'f2': 'float16', 'f4': 'float', 'f8': 'double', 'i1': 'int8', 'i2': 'int16',
    'i4': 'int32', 'i8': 'int64', 'u1': 'uint8', 'u2': 'uint16', 'u4': 'uint32',
    'u8': 'uint64', 'b1': 'bool', 'c8': 'complex64', 'c16': 'complex128',
}


def random_array(code, shape):
    dt = np.dtype('<' + code if code not in ('i1', 'u1', 'b1') else '|' + code)
    n = int(np.prod(shape, dtype=np.int64))
    if code == 'b1':
        return (rng.integers(0, 2, size=n) == 1).reshape(shape)
    # Random bit patterns: NaN payloads, infinities, subnormals, -0 included.
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).tobytes()
    return np.frombuffer(raw, dtype=dt).reshape(shape).copy()


def case_ok(name, arr, writer=None):
    path = os.path.join(OUT, name + '.npy')
    if writer is None:
        np.save(path, arr)
    else:
        with open(path, 'wb') as f:
            writer(f, arr)
    le = arr.astype(arr.dtype.newbyteorder('<')) if arr.dtype.byteorder == '>' else arr
    with open(os.path.join(OUT, name + '.bin'), 'wb') as f:
        f.write(np.ascontiguousarray(le).tobytes())
    code = arr.dtype.str[1:]
    shape = ','.join(str(d) for d in arr.shape) if arr.ndim else 'scalar'
    lines.append(f'{name} ok {GRAPH_NAME[code]} {shape}')


def case_refused(name, arr, **kw):
    np.save(os.path.join(OUT, name + '.npy'), arr, **kw)
    lines.append(f'{name} unsupported - -')


for code in GRAPH_NAME:
    case_ok('dtype_' + code, random_array(code, (2, 3, 4)))

case_ok('scalar_f4', np.array(3.5, dtype='<f4'))
case_ok('scalar_i8', np.array(-7, dtype='<i8'))
case_ok('empty_1d', np.zeros((0,), dtype='<f4'))
case_ok('empty_3d', np.zeros((2, 0, 3), dtype='<i4'))
case_ok('vector', random_array('f8', (17,)))
case_ok('rank6', random_array('i2', (1, 2, 1, 3, 1, 2)))
case_ok('noncontig', random_array('f4', (4, 6))[:, ::2])   # numpy writes it C-ordered
case_ok('special_f4', np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 1e-45,
                                3.4028235e38], dtype='<f4'))
# Format versions 2.0 and 3.0 (numpy picks 1.0 unless told).
case_ok('v2_f4', random_array('f4', (3, 5)),
        lambda f, a: np.lib.format.write_array(f, a, version=(2, 0)))
case_ok('v3_i8', random_array('i8', (4,)),
        lambda f, a: np.lib.format.write_array(f, a, version=(3, 0)))
# Big-endian data are byte-swapped on load.
for code in ('f4', 'f8', 'i2', 'i8', 'u4', 'c8', 'c16', 'f2'):
    case_ok('big_' + code, random_array(code, (3, 2)).astype('>' + code))
# '|i1' with a '>' mark is just bytes; numpy writes '|i1' anyway.
case_ok('int8_vec', random_array('i1', (9,)))

case_refused('fortran', np.asfortranarray(random_array('f4', (2, 3))))
case_refused('object', np.array([1, 'a', None], dtype=object), allow_pickle=True)
case_refused('unicode', np.array(['ab', 'c']))
case_refused('bytes', np.array([b'ab', b'c']))
case_refused('structured', np.zeros(3, dtype=[('a', '<f4'), ('b', '<i4')]))
case_refused('datetime', np.array(['2020-01-01'], dtype='datetime64[D]'))
case_refused('float128', np.zeros(2, dtype=np.longdouble))

with open(os.path.join(OUT, 'manifest.txt'), 'w') as f:
    f.write('\n'.join(lines) + '\n')
print(f'wrote {len(lines)} cases')
