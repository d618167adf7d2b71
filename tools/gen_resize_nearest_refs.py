#!/usr/bin/python3
"""Reference cases for nearest Upsample/Resize whose source index is an
integer in exact arithmetic: 8 / (16 / 6) is 3, but the float scale
2.6666667 gives 2.99999991 in double (the executor took index 2; PyTorch
and ONNX Runtime, which compute the coordinate in float, take 3: PyTorch's
suite, test_interpolate_upsample at opset 9, max abs error 2.75).

Run with Debian's python (numpy, torch 1.13, onnx 1.12):
  /usr/bin/python3 tools/gen_resize_nearest_refs.py
Writes tests/fixtures/runtime/resize-nearest/<case>/ in ONNX's backend-test
layout: torch.onnx.export's own file of F.interpolate(mode='nearest') and
PyTorch's output.  The runtime test /runtime/resize-nearest/fixtures runs
them."""
import io
import os
import shutil

import onnx
import torch
import torch.nn.functional as F

from onnx_backend_case import save_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'resize-nearest')


class Interp(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def forward(self, x):
        return F.interpolate(x, mode='nearest', size=self.size)


def write_case(name, x, size, opset):
    m = Interp(size)
    want = m(x).numpy()
    buf = io.BytesIO()
    torch.onnx.export(m, (x,), buf, opset_version=opset, input_names=['x'], output_names=['y'])
    model = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(model, full_check=True)
    save_case(OUT, name, model, [('x', x.numpy())], [('y', want)])
    print(name, [n.op_type for n in model.graph.node], want.shape)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    torch.manual_seed(0)
    write_case('upsample9_1d_6_to_16', torch.randn(1, 2, 6), [16], 9)
    write_case('upsample9_2d_4x6_to_16x32', torch.randn(1, 2, 4, 6), [16, 32], 9)
    write_case('upsample9_3d_to_16x32x64', torch.randn(1, 1, 4, 4, 6), [16, 32, 64], 9)
    write_case('resize11_2d_4x6_to_16x32', torch.randn(1, 2, 4, 6), [16, 32], 11)
    write_case('resize13_1d_6_to_16', torch.randn(1, 2, 6), [16], 13)


if __name__ == '__main__':
    main()
