#!/usr/bin/python3
"""Reference cases for integer Pow: x ** y on int32 and int64 computed
exactly, wrapping past the type's range, as numpy and torch do (the
executor used pow() on doubles: a result past 2^63 converted back was
undefined, and a GPU's pow gave 3 ** 1 as a value that truncated to 2).

Run with Debian's python (numpy, torch 1.13, onnx 1.12):
  /usr/bin/python3 tools/gen_int_pow_refs.py
Writes tests/fixtures/runtime/int-pow/<case>/ in ONNX's backend-test layout.
Each expected output is numpy.power's, checked equal to torch.pow's (the
generator stops when they differ).  Negative exponents are left out: numpy
raises and torch refuses them.  The runtime test /runtime/int-pow/fixtures
runs them."""
import os
import shutil

import numpy as np
import onnx
import torch
from onnx import helper

from onnx_backend_case import save_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'int-pow')
ONNX_TYPE = {np.int32: onnx.TensorProto.INT32, np.int64: onnx.TensorProto.INT64}


def write_case(name, x, y, dtype):
    want = np.power(x, y)
    assert want.dtype == dtype
    got = torch.pow(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    assert np.array_equal(want, got), (name, want, got)
    g = helper.make_graph(
        [helper.make_node('Pow', ['x', 'y'], ['z'])], name,
        [helper.make_tensor_value_info('x', ONNX_TYPE[dtype], x.shape),
         helper.make_tensor_value_info('y', ONNX_TYPE[dtype], y.shape)],
        [helper.make_tensor_value_info('z', ONNX_TYPE[dtype], want.shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 15)])
    onnx.checker.check_model(m, full_check=True)
    save_case(OUT, name, m, [('x', x), ('y', y)], [('z', want)])


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for dtype, name in ((np.int32, 'int32'), (np.int64, 'int64')):
        # every base -7..7 to every exponent 0..70: small results exact,
        # large ones wrapped (3 ** 40 passes 2^63)
        b, e = np.meshgrid(np.arange(-7, 8), np.arange(0, 71), indexing='ij')
        write_case(f'pow_{name}_table', b.astype(dtype), e.astype(dtype), dtype)
        # a broadcast exponent, and bases near the type's limits
        info = np.iinfo(dtype)
        x = np.array([[info.max, info.min, info.max - 1], [123457, -98765, 46341]], dtype=dtype)
        write_case(f'pow_{name}_limits', x, np.array([2, 3, 5], dtype=dtype), dtype)


if __name__ == '__main__':
    main()
