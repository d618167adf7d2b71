#!/usr/bin/python3
"""Regenerates tests/fixtures/dedup/: small models whose initializers repeat
each other, for tests/export/test-dedup.c.  For each case CASE it writes

  CASE.trace        str(torch.jit.trace(model, inputs).inlined_graph)
  CASE.safetensors  the state_dict (tools/torch2trace.py's writer)
  CASE.json         the export options; which state_dict entries share
                    storage ("aliases": safetensors cannot say so, the
                    test gives them one Tensor); the inputs and PyTorch's outputs
                    (base64 of the raw little-endian bytes); and what
                    torch.onnx.export (torch 1.13) wrote: initializer names
                    and bytes, graph inputs and outputs, and every node's
                    name, op type, inputs and outputs

Run with Debian's python (torch 1.13, onnx):

    /usr/bin/python3 tools/gen_dedup_fixtures.py [OUTDIR]
"""
import base64
import io
import json
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch2trace  # noqa: E402  (the safetensors writer)


class LinearBN(nn.Module):
    """Two Linear layers with equal weights and zero biases, then a default
    BatchNorm1d (weight and running_var ones, bias and running_mean zeros)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1d(4)
        with torch.no_grad():
            self.b.weight.copy_(self.a.weight)
            self.a.bias.zero_()
            self.b.bias.zero_()

    def forward(self, x):
        return self.bn(self.b(self.a(x)))


class ConvBN(nn.Module):
    """Three Conv+BN branches that torch fuses: the first two with equal
    parameters (equal fused weights and biases), the third with other conv
    weights of the same shape.  Buffers: 0.0 and -0.0 (equal under ==), two
    copies of a tensor holding a NaN (never equal), two equal int64 index
    vectors."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3 = (nn.Conv2d(2, 3, 3, padding=1) for _ in range(3))
        self.bn1, self.bn2, self.bn3 = (nn.BatchNorm2d(3) for _ in range(3))
        with torch.no_grad():
            for bn in (self.bn1, self.bn2, self.bn3):
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.5, 0.5)
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 1.5)
            self.c2.weight.copy_(self.c1.weight)
            self.c2.bias.copy_(self.c1.bias)
            for n in ("weight", "bias", "running_mean", "running_var"):
                getattr(self.bn2, n).copy_(getattr(self.bn1, n))
                getattr(self.bn3, n).copy_(getattr(self.bn1, n))
        self.register_buffer("zero", torch.zeros(3, 1, 1))
        self.register_buffer("negzero", -torch.zeros(3, 1, 1))
        nan = torch.tensor([float("nan"), 1.0, 2.0])
        self.register_buffer("nan1", nan)
        self.register_buffer("nan2", nan.clone())
        self.register_buffer("idx1", torch.tensor([2, 0], dtype=torch.int64))
        self.register_buffer("idx2", torch.tensor([2, 0], dtype=torch.int64))

    def forward(self, x):
        y = self.bn1(self.c1(x)) + self.bn2(self.c2(x)) * self.bn3(self.c3(x))
        y = y + self.zero - self.negzero
        s = y.sum(dim=(2, 3)) + self.nan1 + self.nan2
        g = y.index_select(1, self.idx1) + y.index_select(1, self.idx2)
        return y, s, g


class SharedNaN(nn.Module):
    """Two buffers that are views of one storage (same offset and shape)
    holding a NaN: torch's first walk (by data pointer) merges them though
    NaN != NaN.  Two equal buffers that the second walk (by value) merges."""

    def __init__(self):
        super().__init__()
        base = torch.tensor([float("nan"), 1.0, 2.0, 3.0])
        self.register_buffer("ones1", torch.ones(3))
        self.register_buffer("view1", base[:3])
        self.register_buffer("ones2", torch.ones(3))
        self.register_buffer("view2", base[:3])

    def forward(self, x):
        return ((x + self.ones1) * self.view1 + self.ones2) * self.view2


CASES = {
    "linear_bn": (LinearBN, [(2, 4)], {}),
    "conv_bn": (ConvBN, [(1, 2, 5, 5)], {"keep_initializers_as_inputs": True}),
    "shared_nan": (SharedNaN, [(2, 3)], {}),
}
OPSET = 14


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def array_entry(a):
    return {"dtype": str(a.dtype), "shape": list(a.shape), "data": b64(a)}


def generate(name, ctor, shapes, options, out_dir):
    torch.manual_seed(0)
    model = ctor().eval()
    inputs = tuple(torch.randn(*s) for s in shapes)
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs, check_trace=False)
        expected = torch2trace.flatten(model(*inputs))
    graph = traced.inlined_graph
    input_names = [v.debugName() for v in list(graph.inputs())[1:]]
    output_names = ["out%d" % i for i in range(len(expected))]
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, f, opset_version=OPSET, input_names=input_names,
                          output_names=output_names, **options)
    proto = onnx.load_from_string(f.getvalue())
    g = proto.graph

    with open(os.path.join(out_dir, name + ".trace"), "w") as fh:
        fh.write(str(graph))
    torch2trace.write_safetensors(os.path.join(out_dir, name + ".safetensors"),
                                  dict(model.state_dict()),
                                  {"producer": "symonnx gen_dedup_fixtures", "torch": torch.__version__})
    groups = {}
    for k, t in model.state_dict().items():
        key = (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)
        groups.setdefault(key, []).append(k)
    facts = {
        "torch": torch.__version__,
        "aliases": [names for names in groups.values() if len(names) > 1],
        "opset": OPSET,
        "options": options,
        "input_names": input_names,
        "output_names": output_names,
        "inputs": [array_entry(t.numpy()) for t in inputs],
        "expected": [array_entry(t.numpy()) for t in expected],
        "onnx": {
            "initializers": [dict(name=t.name, **array_entry(numpy_helper.to_array(t)))
                             for t in g.initializer],
            "inputs": [v.name for v in g.input],
            "outputs": [v.name for v in g.output],
            "nodes": [{"name": n.name, "op_type": n.op_type, "inputs": list(n.input),
                       "outputs": list(n.output)} for n in g.node],
        },
    }
    with open(os.path.join(out_dir, name + ".json"), "w") as fh:
        json.dump(facts, fh, indent=1)
        fh.write("\n")
    n_id = sum(n.op_type == "Identity" for n in g.node)
    print(f"gen_dedup_fixtures: {name}: {len(g.initializer)} initializers, {n_id} Identity nodes")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "fixtures", "dedup")
    os.makedirs(out_dir, exist_ok=True)
    for name, (ctor, shapes, options) in CASES.items():
        generate(name, ctor, shapes, options, out_dir)


if __name__ == "__main__":
    main()
