#!/usr/bin/python3
"""Reference cases for pooling windows that lie mostly in padding (the
executor's generic pooling loop visits only a window's taps inside the
input since session 11; a fuzzed int8 MaxPool with pads of 63 read 115M
taps for 556K outputs).

Run with Debian's python (numpy, torch 1.13, onnx 1.12):
  /usr/bin/python3 tools/gen_pool_padding_refs.py
Writes tests/fixtures/runtime/pool-padding/<case>/ in ONNX's backend-test
layout.  Each expected output is a direct numpy evaluation of ONNX's
definition (every tap of every window, padding included); where torch's
own pooling accepts the window (pads at most half the kernel) its output
is checked equal too.  The runtime test /runtime/pool-padding/fixtures
runs them."""
import itertools
import os
import shutil

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper

from onnx_backend_case import save_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'pool-padding')
ONNX_TYPE = {np.dtype(np.float32): onnx.TensorProto.FLOAT, np.dtype(np.float64): onnx.TensorProto.DOUBLE,
             np.dtype(np.int8): onnx.TensorProto.INT8, np.dtype(np.uint8): onnx.TensorProto.UINT8}


def reference(x, op, k, pads, strides, dils, count_include_pad):
    """ONNX's pooling, one window tap at a time: (y, argmax indices)."""
    nd = len(k)
    sp = x.shape[2:]
    out = [(sp[i] + pads[i] + pads[nd + i] - ((k[i] - 1) * dils[i] + 1)) // strides[i] + 1 for i in range(nd)]
    y = np.zeros(x.shape[:2] + tuple(out), dtype=np.float64)
    ind = np.zeros(y.shape, dtype=np.int64)
    plane = int(np.prod(sp))
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*[range(v) for v in out]):
            vals, idxs, padded = [], [], 0
            for t in itertools.product(*[range(v) for v in k]):
                pos = [o[i] * strides[i] - pads[i] + t[i] * dils[i] for i in range(nd)]
                if all(p < sp[i] + pads[nd + i] for i, p in enumerate(pos)):
                    padded += 1
                if all(0 <= p < sp[i] for i, p in enumerate(pos)):
                    vals.append(float(x[(n, c) + tuple(pos)]))
                    idxs.append(int(np.ravel_multi_index(pos, sp)))
            if op == 'MaxPool':
                b = int(np.argmax(vals))      # the first of equal maxima
                y[(n, c) + o] = vals[b]
                ind[(n, c) + o] = (n * x.shape[1] + c) * plane + idxs[b]
            else:
                y[(n, c) + o] = sum(vals) / (padded if count_include_pad else len(vals))
    return y.astype(x.dtype), ind


def torch_check(x, op, k, pads, strides, dils, count_include_pad, y, ind):
    nd = len(k)
    if nd != 2 or x.dtype != np.float32 or any(pads[i] != pads[nd + i] or pads[i] > k[i] // 2 for i in range(nd)):
        return False
    t = torch.from_numpy(x)
    if op == 'MaxPool':
        ty, ti = F.max_pool2d(t, k, strides, pads[:nd], dils, return_indices=True)
        plane = x.shape[2] * x.shape[3]
        ti = ti + torch.arange(x.shape[0] * x.shape[1]).view(x.shape[0], x.shape[1], 1, 1) * plane
        assert np.array_equal(ty.numpy(), y) and np.array_equal(ti.numpy(), ind)
    else:
        ty = F.avg_pool2d(t, k, strides, pads[:nd], count_include_pad=bool(count_include_pad))
        assert np.allclose(ty.numpy(), y, rtol=1e-6, atol=1e-6)
    return True


def write_case(name, x, op, k, pads, strides=None, dils=None, count_include_pad=0):
    nd = len(k)
    strides = strides or [1] * nd
    dils = dils or [1] * nd
    y, ind = reference(x, op, k, pads, strides, dils, count_include_pad)
    checked = torch_check(x, op, k, pads, strides, dils, count_include_pad, y, ind)
    attrs = dict(kernel_shape=k, pads=pads, strides=strides)
    outs = [('y', y)]
    if op == 'MaxPool':
        attrs['dilations'] = dils
        outs.append(('z', ind))
    else:
        attrs['count_include_pad'] = count_include_pad
    g = helper.make_graph(
        [helper.make_node(op, ['x'], [n for n, _ in outs], **attrs)], name,
        [helper.make_tensor_value_info('x', ONNX_TYPE[x.dtype], x.shape)],
        [helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype] if a.dtype != np.int64 else onnx.TensorProto.INT64,
                                       a.shape) for n, a in outs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])
    onnx.checker.check_model(m, full_check=True)
    save_case(OUT, name, m, [('x', x)], outs)
    print(name, 'y', y.shape, '(torch agrees)' if checked else '(numpy only)')


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    rng = np.random.default_rng(11)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    # windows wider than the input, mostly padding, with their argmax
    write_case('max_2d_pad_wider_than_input', f32(1, 2, 3, 2), 'MaxPool', [5, 5], [4, 4, 4, 4])
    write_case('max_2d_int8_uneven_pads', rng.integers(-128, 128, (1, 3, 4, 5)).astype(np.int8), 'MaxPool',
               [4, 3], [3, 0, 1, 2], strides=[2, 1])
    write_case('max_3d_uint8_dilated', rng.integers(0, 256, (1, 2, 3, 4, 3)).astype(np.uint8), 'MaxPool',
               [2, 3, 2], [1, 2, 1, 1, 2, 1], dils=[2, 2, 1])
    write_case('max_1d_double_strided', rng.standard_normal((2, 2, 5)), 'MaxPool', [4], [3, 3], strides=[3])
    # count_include_pad counts the padded cells of each window, not beyond the pads
    write_case('avg_2d_count_pad', f32(1, 2, 3, 4), 'AveragePool', [4, 3], [3, 2, 3, 2], strides=[2, 2],
               count_include_pad=1)
    write_case('avg_2d_no_count_pad', f32(1, 2, 3, 4), 'AveragePool', [4, 3], [3, 2, 3, 2], strides=[2, 2])
    write_case('avg_3d_double_count_pad', rng.standard_normal((1, 1, 2, 3, 2)), 'AveragePool', [3, 3, 3],
               [2, 2, 2, 1, 1, 1], count_include_pad=1)
    # within torch's own limits (pads at most half the kernel): torch agrees too
    write_case('max_2d_torch_dilated', f32(1, 2, 6, 7), 'MaxPool', [5, 3], [2, 1, 2, 1], dils=[2, 3])
    write_case('avg_2d_torch_count_pad', f32(2, 2, 5, 5), 'AveragePool', [4, 4], [2, 2, 2, 2], strides=[3, 3],
               count_include_pad=1)


if __name__ == '__main__':
    main()
