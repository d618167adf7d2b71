#!/usr/bin/python3
"""Reference cases for integer Range spanning most of its type: the
element count and each start + i * delta are exact (the executor counted
in double and computed start + i * delta in int64, which overflowed for
INT64_MIN + 3 * 2^62 although the result fits).

Run with Debian's python (numpy, onnx 1.12):
  /usr/bin/python3 tools/gen_range_refs.py
Writes tests/fixtures/runtime/range-limits/<case>/ in ONNX's backend-test
layout, each expected output numpy.arange's.  The runtime test
/runtime/range-limits/fixtures runs them."""
import os
import shutil

import numpy as np
import onnx
from onnx import helper

from onnx_backend_case import save_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'range-limits')
ONNX_TYPE = {np.int32: onnx.TensorProto.INT32, np.int64: onnx.TensorProto.INT64}


def write_case(name, start, limit, delta, dtype):
    want = np.arange(start, limit, delta, dtype=dtype)
    ins = [('start', np.array(start, dtype=dtype)), ('limit', np.array(limit, dtype=dtype)),
           ('delta', np.array(delta, dtype=dtype))]
    g = helper.make_graph(
        [helper.make_node('Range', ['start', 'limit', 'delta'], ['y'])], name,
        [helper.make_tensor_value_info(n, ONNX_TYPE[dtype], []) for n, _ in ins],
        [helper.make_tensor_value_info('y', ONNX_TYPE[dtype], want.shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 11)])
    onnx.checker.check_model(m, full_check=True)
    save_case(OUT, name, m, ins, [('y', want)])
    print(name, want)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    i64, i32 = np.iinfo(np.int64), np.iinfo(np.int32)
    write_case('int64_full_span_up', i64.min, i64.max, 2 ** 62, np.int64)
    write_case('int64_full_span_down', i64.max, i64.min, -2 ** 62, np.int64)
    write_case('int64_near_max', i64.max - 10, i64.max, 3, np.int64)
    write_case('int32_full_span', i32.min, i32.max, 2 ** 30 + 1, np.int32)


if __name__ == '__main__':
    main()
