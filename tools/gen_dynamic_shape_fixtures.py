#!/usr/bin/python3
"""Regenerates tests/fixtures/dynamic-shapes/ for tests/export/test-dynamic-shapes.c:
models exported by torch.onnx.export (torch 1.13, opset 14) with dynamic
axes, and the shapes torch and ONNX shape inference give their values.

For each case CASE it writes

  CASE.trace        str(torch.jit.trace(model, inputs).inlined_graph)
  CASE.safetensors  the state_dict (tools/torch2trace.py's writer), except for
                    ResNet-18 (45 MB): its JSON lists the weights' layout
                    instead and the test writes random weights of that layout
  CASE.json         {"dynamic_axes": the spec as `symonnx export --dynamic-axes`
                     takes it, "input_names", "output_names", "opset",
                     "outputs": {name: dims} as torch.onnx.export declared the
                     graph outputs,
                     "value_info": {name: dims} for every other value,
                     "nodes": [[op_type, [outputs]]] in torch's order (the
                     test pairs values by name, else the k-th node of an op
                     type with ours where both have as many),
                     "runs": [{"inputs": [npy], "expected": [npy]}] at two
                     other sizes of the dynamic axes}
                    where dims are [int | "symbol" | null (unknown)].
  CASE_rN_*.npy     the runs' inputs and PyTorch's outputs

torch 1.13 writes no value_info for ONNX-domain nodes (only for custom-domain
ones), so "value_info" is onnx.shape_inference.infer_shapes(data_prop=True)
run over the model torch exported: the ONNX shape inference torch runs
during export, with the Shape/Gather/Concat data propagation it also does.

It also writes ops.onnx and ops.json: one ONNX graph (onnx.helper, opset
14) using every op export/pipeline/shape-propagation.c has a rule for, with the static
shapes ONNX shape inference gives it as value_info (the "traced" shapes), and
in ops.json the dynamic dims to set on its inputs and the shapes
onnx.shape_inference.infer_shapes(data_prop=True) gives every value once
they are set.

Run with Debian's python (torch 1.13, torchvision, onnx):

    /usr/bin/python3 tools/gen_dynamic_shape_fixtures.py [OUTDIR]
"""
import io
import json
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import shape_inference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch2trace  # noqa: E402  (the safetensors writer)
import torch_models  # noqa: E402
from gen_seed_refs import randomize  # noqa: E402

OPSET = 14


class ViewNet(nn.Module):
    """Conv, then x.view(x.size(0), -1): a Reshape whose shape is computed
    from the batch at run time (Shape, Gather, Unsqueeze, Concat)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 2 * 2, 6)

    def forward(self, x):
        y = self.pool(torch.relu(self.conv(x)))
        y = y.view(y.size(0), -1)
        return torch.softmax(self.fc(y), dim=1)


class SpatialNet(nn.Module):
    """Dynamic batch, height and width: Conv/ConvTranspose/pool spatial dims
    computed from a symbol are unknown; channels stay static."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.down = nn.Conv2d(4, 4, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(4, 3, 4, stride=2, padding=1)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = self.up(torch.sigmoid(self.down(y)))
        return torch.cat([y, y * 2.0], dim=1).transpose(2, 3)


def resnet18():
    import torchvision
    return torchvision.models.resnet18(weights=None)


# name -> (constructor, traced input specs, dynamic axes {input index or output name:
#          {axis: symbol}},
#          run input specs (two other sizes), commit the weights?)
CASES = {
    "resnet18": (resnet18, ["2,3,32,32"], {0: {0: "batch"}, "output": {0: "batch"}},
                 [["1,3,32,32"], ["3,3,32,32"]], False),
    "dcgan": (lambda: torch_models.DCGANGenerator(nz=16, ngf=8, nc=1), ["2,16,1,1"],
              {0: {0: "batch"}, "output": {0: "batch"}},
              [["1,16,1,1"], ["3,16,1,1"]], True),
    "word_language_model": (lambda: torch_models.WordLanguageModel(ntoken=50, ninp=16, nhid=16),
                            ["8,2:int64"],
                            {0: {0: "seq", 1: "batch"}, "output": {0: "seq", 1: "batch"}},
                            [["5,1:int64"], ["11,3:int64"]], True),
    "view_net": (ViewNet, ["2,3,8,8"], {0: {0: "batch"}, "output": {0: "batch"}},
                 [["1,3,8,8"], ["5,3,8,8"]], True),
    "spatial_net": (SpatialNet, ["2,2,8,8"],
                    {0: {0: "batch", 2: "h", 3: "w"},
                     "output": {0: "batch", 2: "out_w", 3: "out_h"}},
                    [["1,2,6,10"], ["3,2,12,4"]], True),
}


def dims_of(value_info):
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else d.dim_param if d.HasField("dim_param")
            else None for d in t.shape.dim]


def generate(name, ctor, specs, axes, run_specs, commit_weights, out_dir):
    torch.manual_seed(0)
    model = ctor()
    randomize(model)
    model.eval()
    inputs = tuple(torch2trace.parse_input_spec(s) for s in specs)
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs, check_trace=False)
    graph = traced.inlined_graph
    input_names = [v.debugName() for v in list(graph.inputs())[1:]]
    output_names = ["output"]
    # Dynamic axes of input i are keyed by i: the trace names the inputs.
    axes = {input_names[k] if isinstance(k, int) else k: m for k, m in axes.items()}
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, f, opset_version=OPSET, input_names=input_names,
                          output_names=output_names, dynamic_axes=axes)
    proto = onnx.load_from_string(f.getvalue())
    inferred = shape_inference.infer_shapes(proto, data_prop=True)

    with open(os.path.join(out_dir, name + ".trace"), "w") as fh:
        fh.write(str(graph))
    facts = {
        "torch": torch.__version__,
        "onnx": onnx.__version__,
        "opset": OPSET,
        "dynamic_axes": ",".join(f"{k}:{a}={s}" for k, m in axes.items() for a, s in m.items()),
        "input_names": input_names,
        "output_names": output_names,
        "outputs": {v.name: dims_of(v) for v in proto.graph.output},
        "value_info": {v.name: dims_of(v) for v in inferred.graph.value_info},
        "nodes": [[n.op_type, list(n.output)] for n in proto.graph.node],
        "runs": [],
    }
    if commit_weights:
        torch2trace.write_safetensors(os.path.join(out_dir, name + ".safetensors"),
                                      dict(model.state_dict()),
                                      {"producer": "symonnx gen_dynamic_shape_fixtures",
                                       "torch": torch.__version__})
    else:
        facts["weights"] = {k: [torch2trace.SAFETENSORS_DTYPES[v.dtype], list(v.shape)]
                            for k, v in model.state_dict().items()}
    for r, rs in enumerate(run_specs):
        run_inputs = tuple(torch2trace.parse_input_spec(s) for s in rs)
        run = {"inputs": [], "expected": []}
        for i, t in enumerate(run_inputs):
            run["inputs"].append(f"{name}_r{r}_in{i}.npy")
            np.save(os.path.join(out_dir, run["inputs"][-1]), t.numpy())
        if commit_weights:
            with torch.no_grad():
                outs = torch2trace.flatten(model(*run_inputs))
            for i, t in enumerate(outs):
                run["expected"].append(f"{name}_r{r}_out{i}.npy")
                np.save(os.path.join(out_dir, run["expected"][-1]), t.numpy())
        facts["runs"].append(run)
    with open(os.path.join(out_dir, name + ".json"), "w") as fh:
        json.dump(facts, fh, indent=1)
        fh.write("\n")
    print(f"gen_dynamic_shape_fixtures: {name}: outputs {facts['outputs']}, "
          f"{len(facts['value_info'])} value_info")


def ops_model():
    """A graph touching every op with a shape rule; x is [N, C, H, W] and s
    [T, B, F], with N, H, W, T and B dynamic."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(op, ins, n_out=1, **attrs):
        outs = [f"{op.lower()}_{len(nodes)}_{i}" for i in range(n_out)]
        nodes.append(helper.make_node(op, ins, outs, **attrs))
        return outs if n_out > 1 else outs[0]

    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    i64 = lambda *v: np.array(v, dtype=np.int64)
    x, s = "x", "s"
    node("Relu", [x]); node("Sigmoid", [x]); node("Softmax", [x], axis=1)
    node("LogSoftmax", [s], axis=-1); node("Identity", [x]); node("Cast", [x], to=TensorProto.INT64)
    node("Dropout", [x], 2)
    bias = const("bias", f32(3, 1, 1))
    node("Add", [x, bias]); node("Pow", [x, const("two", np.float32(2))])
    node("Where", [node("Greater", [x, const("zero", np.float32(0))]), x, bias])
    node("Equal", [s, node("Neg", [s])])
    w = const("w", f32(4, 3, 3, 3))
    c1 = node("Conv", [x, w, const("b4", f32(4))], pads=[1, 1, 1, 1])
    node("Conv", [x, w], pads=[1, 1, 1, 1], strides=[2, 2])
    node("Conv", [x, w], auto_pad="SAME_UPPER", strides=[2, 2])
    node("ConvTranspose", [c1, const("wt", f32(4, 2, 4, 4))], pads=[1, 1, 1, 1], strides=[2, 2])
    node("ConvTranspose", [c1, const("wt1", f32(4, 2, 3, 3))], pads=[1, 1, 1, 1])
    node("MaxPool", [x], 2, kernel_shape=[2, 2], strides=[2, 2])
    node("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    gap = node("GlobalAveragePool", [c1])
    node("BatchNormalization", [c1] + [const(n, np.abs(f32(4)) + 0.5) for n in ("g", "be", "m", "v")])
    fl = node("Flatten", [gap], axis=1)
    node("Gemm", [fl, const("wg", f32(5, 4))], transB=1)
    node("MatMul", [s, const("wm", f32(4, 6))])
    sb = node("Transpose", [s], perm=[1, 0, 2])
    node("MatMul", [sb, node("Transpose", [s], perm=[1, 2, 0])])
    node("MatMul", [const("vec", f32(4)), node("Transpose", [s], perm=[1, 2, 0])])
    batch = node("Gather", [node("Shape", [x]), const("zero_i", np.int64(0))], axis=0)
    shape = node("Concat", [node("Unsqueeze", [batch, const("ax0", i64(0))]), const("m1", i64(-1))],
                 axis=0)
    node("Reshape", [c1, shape])
    node("Reshape", [s, const("keep", i64(0, 0, 2, 2))])
    node("Reshape", [s, const("flat", i64(-1, 4))])
    node("Reshape", [sb, node("Concat", [node("Shape", [sb]), const("one", i64(1))], axis=0)])
    node("Transpose", [x], perm=[0, 2, 3, 1])
    node("Concat", [x, x], axis=1); node("Concat", [x, x], axis=2)
    node("Split", [x, const("sp", i64(1, 2))], 2, axis=1)
    node("Split", [s], 2, axis=2)
    node("Slice", [x, const("st", i64(1)), const("en", i64(3)), const("ax1", i64(1))])
    node("Slice", [s, const("st2", i64(-3)), const("en2", i64(-1)), const("ax2", i64(2))])
    node("Slice", [x, const("st3", i64(0)), const("en3", i64(2**62)), const("ax3", i64(2))])
    u = node("Unsqueeze", [x, const("ax4", i64(0, 3))])
    node("Squeeze", [u, const("ax5", i64(0))])
    node("Gather", [x, const("idx", i64(2, 0))], axis=1)
    node("Gather", [const("emb", f32(10, 3)), node("Cast", [s], to=TensorProto.INT64)])
    node("Shape", [s]); node("Size", [x])
    node("Pad", [x, const("pads", i64(0, 1, 1, 0, 0, 1, 1, 0))])
    node("Pad", [x, const("pads0", i64(0, 1, 0, 0, 0, 1, 0, 0))])
    node("Resize", [x, "", const("scales", np.array([1, 1, 2, 2], dtype=np.float32))], mode="nearest")
    sizes = node("Concat", [node("Shape", [x]), ], axis=0)
    node("Resize", [x, "", "", sizes], mode="nearest")
    wl = lambda g, d, h: (const(f"W{len(inits)}", f32(d, g * h, 4)), const(f"R{len(inits)}", f32(d, g * h, h)))
    node("LSTM", list(wl(4, 1, 7)), 3, hidden_size=7)
    nodes[-1].input.insert(0, s)
    node("GRU", list(wl(3, 2, 5)), 2, hidden_size=5, direction="bidirectional")
    nodes[-1].input.insert(0, s)
    node("RNN", list(wl(1, 1, 3)), 2, hidden_size=3, layout=1)
    nodes[-1].input.insert(0, s)
    b3 = node("Concat", [node("Slice", [node("Shape", [s]), const("st4", i64(1)), const("en4", i64(2))]),
                         const("three", i64(3))], axis=0)
    node("ConstantOfShape", [b3])
    node("Expand", [bias, node("Shape", [x])])
    node("Tile", [s, const("rep", i64(1, 2, 3))])
    node("ReduceMean", [x], axes=[2, 3]); node("ReduceSum", [s, const("ax6", i64(1))], keepdims=0)
    node("ArgMax", [s], axis=2, keepdims=0)
    node("Mul", [node("Cast", [node("Shape", [s])], to=TensorProto.INT64), const("two_i", i64(2))])

    outs = [helper.make_tensor_value_info(n.output[0], TensorProto.UNDEFINED, None) for n in nodes]
    graph = helper.make_graph(nodes, "ops", [
        helper.make_tensor_value_info(x, TensorProto.FLOAT, [2, 3, 8, 8]),
        helper.make_tensor_value_info(s, TensorProto.FLOAT, [5, 2, 4])], outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    static = shape_inference.infer_shapes(model, strict_mode=True)
    for o in static.graph.output:   # graph outputs get their inferred types too
        for v in static.graph.value_info:
            if v.name == o.name:
                o.CopyFrom(v)
    dynamic = onnx.ModelProto()
    dynamic.CopyFrom(model)
    axes = {"x": {0: "N", 2: "H", 3: "W"}, "s": {0: "T", 1: "B"}}
    for i in dynamic.graph.input:
        for a, sym in axes.get(i.name, {}).items():
            i.type.tensor_type.shape.dim[a].dim_param = sym
    dynamic = shape_inference.infer_shapes(dynamic, strict_mode=True, data_prop=True)
    values = list(dynamic.graph.value_info) + list(dynamic.graph.output)
    return static, axes, {v.name: dims_of(v) for v in values}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "fixtures",
                                                                   "dynamic-shapes")
    os.makedirs(out_dir, exist_ok=True)
    for name, case in CASES.items():
        generate(name, *case, out_dir)
    static, axes, shapes = ops_model()
    onnx.save(static, os.path.join(out_dir, "ops.onnx"))
    with open(os.path.join(out_dir, "ops.json"), "w") as fh:
        json.dump({"onnx": onnx.__version__, "dynamic": axes, "value_info": shapes}, fh, indent=1)
        fh.write("\n")
    print(f"gen_dynamic_shape_fixtures: ops: {len(static.graph.node)} nodes, {len(shapes)} values")


if __name__ == "__main__":
    main()
