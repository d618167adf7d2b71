#!/usr/bin/python3
"""Generate the seed-model references for tests/symbolic (never edit them by hand).

For each model of the seed's list (AlexNet, DCGAN generator, DenseNet-121,
Inception-v3, ResNet-18, ResNet-50, SuperResolution, VGG-16 and
word_language_model), with random weights (seed 0), in eval mode and at a
small input size, this writes into tests/fixtures/seed-models/:

  NAME.trace  str(torch.jit.trace(model, inputs).inlined_graph), as
              tools/torch2trace.py writes model.trace
  NAME.json   {"model", "inputs": [[shape, dtype]...],
               "weights": {state_dict key: [dtype, shape]}  (what the trace's
                           GetAttr chains read, so a test can write random
                           weights of the right layout without torch),
               "opsets": {"9": {op_type: count}, "13": {...}}}
              where the histograms count the nodes of torch.onnx.export's
              graph (torch 1.13, eval mode, constant folding on).

Weights are not committed (ResNet-50 alone is 100 MB): the test writes
random weights of the listed layouts; bench/export-vs-torch.py builds the
models again with build().

Run with Debian's python:  /usr/bin/python3 tools/gen_seed_refs.py [NAME...]
"""
import collections
import io
import json
import os
import sys
import warnings

import onnx
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models  # noqa: E402
from torch2trace import SAFETENSORS_DTYPES  # noqa: E402

OPSETS = [9, 13]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                   "seed-models")

# name → (torch2trace --model name, input specs as torch2trace's --input).
# AlexNet and VGG-16 keep 224×224: their adaptive_avg_pool2d to 6×6 / 7×7
# only exports (in torch) when the feature map is a multiple of that.
SEEDS = {
    "alexnet": ("alexnet", ["1,3,224,224"]),
    "dcgan": ("dcgan", ["1,100,1,1"]),
    "densenet121": ("densenet121", ["1,3,32,32"]),
    "inception_v3": ("inception_v3", ["1,3,75,75"]),
    "resnet18": ("resnet18", ["1,3,32,32"]),
    "resnet50": ("resnet50", ["1,3,32,32"]),
    "superres": ("superres", ["1,1,32,32"]),
    "vgg16": ("vgg16", ["1,3,224,224"]),
    "word_language_model": ("word_language_model", ["8,2:int64"]),
}


def randomize(model):
    """Random values for every parameter and buffer that its initialiser
    filled with one value (BatchNorm's ones and zeros, zero biases), running
    variances in [0.5, 1.5).  torch.onnx.export deduplicates equal
    initializers (reading the copies through Identity nodes), so with
    default-initialised BatchNorms its histogram would count those Identity
    nodes; with random values no two initializers are equal, as in a trained
    model."""
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if not t.is_floating_point() or t.numel() == 0:
                continue
            if name.endswith("running_var"):
                t.copy_(torch.rand(t.shape, generator=g) + 0.5)
            elif bool((t == t.flatten()[0]).all()):
                t.copy_(torch.randn(t.shape, generator=g) * 0.1)


def build(model_name, specs):
    """The model and inputs exactly as tools/torch2trace.py builds them."""
    torch.manual_seed(0)
    if model_name in torch_models.MODELS:
        model = torch_models.MODELS[model_name][0]()
    else:
        import torchvision
        kwargs = {"weights": None}
        if model_name == "inception_v3":
            kwargs.update(aux_logits=False, init_weights=False)
        model = getattr(torchvision.models, model_name)(**kwargs)
    randomize(model)
    model.eval()
    inputs = []
    for spec in specs:
        shape, _, dtype = spec.partition(":")
        dims = [int(d) for d in shape.split(",")]
        dt = getattr(torch, dtype or "float32")
        inputs.append(torch.randn(*dims, dtype=dt) if dt.is_floating_point
                      else torch.randint(0, 8, dims, dtype=dt))
    return model, tuple(inputs)


def histogram(model, inputs, opset):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, buf, opset_version=opset, do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)
    m = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(m, full_check=True)
    return dict(sorted(collections.Counter(n.op_type for n in m.graph.node).items()))


def main():
    names = sys.argv[1:] or list(SEEDS)
    os.makedirs(OUT, exist_ok=True)
    for name in names:
        model_name, specs = SEEDS[name]
        model, inputs = build(model_name, specs)
        with torch.no_grad():
            traced = torch.jit.trace(model, inputs, check_trace=False)
        graph = traced.inlined_graph
        for node in graph.nodes():
            if (node.kind() == "prim::Constant" and node.hasAttribute("value")
                    and node.kindOf("value") == "t"):
                raise SystemExit(f"{name}: tensor constant in the trace; the test cannot "
                                 "write it without torch")
        weights = {k: [SAFETENSORS_DTYPES[v.dtype], list(v.shape)]
                   for k, v in model.state_dict().items()}
        ref = {"model": model_name, "inputs": specs, "weights": weights,
               "opsets": {str(o): histogram(model, inputs, o) for o in OPSETS}}
        with open(os.path.join(OUT, name + ".trace"), "w") as f:
            f.write(str(graph))
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(ref, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{name}: {len(list(graph.nodes()))} trace nodes, "
              f"opset 9 {sum(ref['opsets']['9'].values())} nodes, "
              f"opset 13 {sum(ref['opsets']['13'].values())} nodes")


if __name__ == "__main__":
    main()
