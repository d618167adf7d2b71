#!/usr/bin/python3
"""Reference cases for the runtime's Einsum kernel.

Run with Debian's python (numpy, onnx 1.12, torch 1.13):  /usr/bin/python3 tools/gen_einsum_refs.py
Writes tests/fixtures/runtime/einsum/<case>/ in ONNX's backend-test layout
(model.onnx + test_data_set_0/{input,output}_N.pb); expected outputs come
from numpy.einsum (and, for the torch_ case, from torch.einsum through
torch.onnx.export).  The runtime test /runtime/einsum/fixtures runs them.
"""
import io
import os

import numpy as np
import onnx
import torch
from onnx import helper

from onnx_backend_case import save_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'einsum')
rng = np.random.default_rng(99)


def arr(shape, dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def write_case(name, model_bytes, inputs, outputs):
    save_case(OUT, name, model_bytes, [(None, a) for a in inputs], [(None, a) for a in outputs])


def case(name, equation, shapes, dtype=np.float32):
    xs = [arr(s, dtype) for s in shapes]
    want = np.asarray(np.einsum(equation.replace(' ', ''), *xs)).astype(dtype)
    names = [f'x{i}' for i in range(len(xs))]
    et = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]
    node = helper.make_node('Einsum', names, ['y'], equation=equation)
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info(n, et, x.shape) for n, x in zip(names, xs)],
        [helper.make_tensor_value_info('y', et, want.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 12)])
    onnx.checker.check_model(model)
    write_case(name, model.SerializeToString(), xs, [want])


class Bilinear(torch.nn.Module):
    def forward(self, x1, w, x2):
        return torch.einsum('bn,anm,bm->ba', x1, w, x2)


def main():
    os.makedirs(OUT, exist_ok=True)
    case('matmul', 'ij,jk->ik', [(3, 4), (4, 5)])
    case('batch_matmul', 'bij,bjk->bik', [(2, 3, 4), (2, 4, 5)])
    case('attention_double', 'bhqd,bhkd->bhqk', [(2, 3, 4, 5), (2, 3, 6, 5)], np.float64)
    case('outer', 'i,j->ij', [(3,), (4,)])
    case('ellipsis_broadcast', '...ij,...jk->...ik', [(2, 1, 3, 4), (5, 4, 2)])
    case('ellipsis_middle', 'ab...,b->...a', [(2, 3, 4, 5), (3,)])
    case('diagonal', 'ii->i', [(4, 4)])
    case('trace_implicit', 'ii', [(5, 5)])
    case('batch_diagonal', 'bii->bi', [(3, 4, 4)])
    case('diagonal_3', 'iji->j', [(3, 2, 3)])
    case('sum_all', 'ij->', [(3, 4)])
    case('implicit_transpose', 'ji', [(3, 4)])
    case('inner_implicit', 'i,i', [(6,), (6,)])
    case('three_inputs', 'abc,cd,de->abe', [(2, 3, 4), (4, 5), (5, 2)])
    case('uppercase_spaces', 'Ab, bC -> CA', [(3, 4), (4, 2)])
    case('sum_one_side', 'ij,jk->i', [(3, 4), (4, 5)])
    case('int64_matmul', 'ij,jk->ik', [(3, 4), (4, 2)], np.int64)
    case('int32_reduce', 'ijk->ki', [(2, 3, 4)], np.int32)
    case('broadcast_label_one', 'ij,ij->ij', [(1, 3), (4, 3)])
    # torch.einsum exported by torch.onnx.export; PyTorch's output.
    torch.manual_seed(3)
    args = (torch.randn(2, 3), torch.randn(4, 3, 5), torch.randn(2, 5))
    with torch.no_grad():
        want = Bilinear()(*args)
    buf = io.BytesIO()
    torch.onnx.export(Bilinear(), args, buf, opset_version=12)
    write_case('torch_bilinear', buf.getvalue(), [a.numpy() for a in args], [want.numpy()])


if __name__ == '__main__':
    main()
