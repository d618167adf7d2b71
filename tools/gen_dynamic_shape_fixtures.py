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


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "fixtures",
                                                                   "dynamic-shapes")
    os.makedirs(out_dir, exist_ok=True)
    for name, case in CASES.items():
        generate(name, *case, out_dir)


if __name__ == "__main__":
    main()
