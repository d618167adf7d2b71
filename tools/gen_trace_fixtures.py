#!/usr/bin/python3
"""Regenerates tests/fixtures/traces/: PyTorch 1.13 trace text and, next to
each, a JSON file of facts that torch computes from the traced graph object
(node count, kind histogram, names and types of every value, scopes), which
tests/ir/test-text-fixtures.c checks the parser against.

Run with Debian's python (torch 1.13, torchvision 0.14); random weights, no
downloads:

    /usr/bin/python3 tools/gen_trace_fixtures.py [OUTDIR]
"""
import collections
import json
import os
import sys
import warnings

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models  # noqa: E402  (the seed's MyModule with its autograd Function)


class MyModule(nn.Module):
    """The seed's example: ReLU, then x * x + y."""

    def forward(self, x, y):
        x = nn.ReLU()(x)
        return x * x + y


class RNNModel(nn.Module):
    """word_language_model's RNNModel: Embedding -> 2-layer LSTM -> Linear."""

    def __init__(self, ntoken=50, ninp=16, nhid=32, nlayers=2, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.ntoken = ntoken

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return torch.log_softmax(decoded, dim=1), hidden


class OddConstants(nn.Module):
    """Constants of every kind the printer can meet in a trace."""

    def forward(self, x):
        a = x + torch.tensor([1.5, 2.0, -3.25, 4.0])              # small float tensor repr
        b = a * torch.tensor(2.0)                                 # {2}
        c = b * torch.tensor(0.1)                                 # {0.1}
        d = c + torch.tensor(3, dtype=torch.int64)                # Long {3}
        e = d + torch.tensor([[1, 2], [3, 4]]).view(-1).to(torch.float32)   # 2-D long repr
        f = e + torch.arange(8.0).reshape(2, 2, 2).sum(0).view(-1)          # 3-D repr
        g = f.masked_fill(torch.tensor([True, False, True, False]), -1e-20)  # bool repr, tiny float
        h = g + torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.half).float()  # half repr
        i = h + torch.tensor([1e-5, 3e6, 0.0, 1.0])               # scientific repr
        j = torch.nn.functional.pad(i, [1, 1], mode="constant", value=float("inf"))
        k = j.clamp(min=-float("inf"), max=1e30)
        m = k + torch.zeros(30)[:6]                               # <Tensor> (30 elements)
        n = m.to(torch.device("cpu")) * torch.tensor(1e20)        # Device "cpu", {1e+20}
        o = n + torch.tensor(2.5, dtype=torch.float64)            # Double {2.5}
        p = o + torch.tensor(-(2 ** 62), dtype=torch.int64).float()   # large negative int
        q = p.sum(dim=0, keepdim=True, dtype=torch.float32)       # ScalarType int, bool
        r = torch.where(q > 0, q, torch.tensor(float("nan")))     # {nan}
        s = r + torch.tensor([1 + 2j]).real.float()               # complex {(1,2)}
        t = s + torch.tensor([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]).sum()   # 3-D repr
        u = t + torch.tensor([1000.5, 0.001, 2.0, 3.0]).sum()      # repr with a scale factor
        v = u + torch.tensor([float(k) for k in range(12)]).sum()  # <Tensor> (12 elements)
        w = v + torch.tensor([]).sum()                            # empty: [ CPUFloatType{0} ]
        return w, x.size(0), torch.empty(0).numel()


def type_facts(ty):
    """A type as torch's accessors describe it (not as text)."""
    fact = {"annotation": ty.annotation_str}
    if isinstance(ty, torch.TensorType):
        device = ty.device()
        fact.update({
            "dtype": ty.scalarType(),
            "sizes": ty.varyingSizes(),
            "strides": ty.strides(),
            "device": str(device) if device is not None else None,
        })
    return fact


def facts(graph):
    """Everything the parser must reproduce, computed by torch itself."""
    nodes = list(graph.nodes())
    kinds = collections.Counter(n.kind() for n in nodes)
    inputs = list(graph.inputs())
    values = len(inputs) + sum(len(list(n.outputs())) for n in nodes)
    return {
        "node_count": len(nodes),
        "kinds": dict(sorted(kinds.items())),
        "input_names": [v.debugName() for v in inputs],
        "input_types": [type_facts(v.type()) for v in inputs],
        "output_names": [v.debugName() for v in graph.outputs()],
        "value_count": values,
        "nodes_with_scope": sum(1 for n in nodes if n.scopeName() != ""),
        "nodes_with_source": sum(1 for n in nodes if n.sourceRange() != ""),
        "nodes": [
            {
                "kind": n.kind(),
                "outputs": [o.debugName() for o in n.outputs()],
                "types": [type_facts(o.type()) for o in n.outputs()],
                "inputs": [i.debugName() for i in n.inputs()],
                "attributes": sorted(n.attributeNames()),
                "scope": n.scopeName(),
                **({"python_name": n.pyname()} if n.kind() == "prim::PythonOp" else {}),
            }
            for n in nodes
        ],
    }


def write(outdir, name, traced):
    graph = traced.inlined_graph
    with open(os.path.join(outdir, name + ".trace"), "w") as f:
        f.write(str(graph))
    data = facts(graph)
    nodes = data.pop("nodes")
    head = json.dumps(data, indent=1)
    with open(os.path.join(outdir, name + ".json"), "w") as f:
        # one node per line keeps the file short and diffs readable
        f.write(head[:-2] + ',\n "nodes": [\n')
        f.write(",\n".join("  " + json.dumps(n) for n in nodes))
        f.write("\n ]\n}\n")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "traces")
    os.makedirs(outdir, exist_ok=True)
    warnings.simplefilter("ignore")
    torch.manual_seed(0)

    resnet = torchvision.models.resnet18(weights=None).eval()
    write(outdir, "resnet18", torch.jit.trace(resnet, torch.randn(1, 3, 224, 224)))

    lstm = RNNModel().eval()
    tokens = torch.randint(0, 50, (5, 2))
    hidden = (torch.zeros(2, 2, 32), torch.zeros(2, 2, 32))
    write(outdir, "lstm", torch.jit.trace(lstm, (tokens, hidden)))

    write(outdir, "mymodule", torch.jit.trace(MyModule(), (torch.ones(3, 4), torch.ones(3, 4))))

    write(outdir, "constants", torch.jit.trace(OddConstants(), torch.ones(4)))

    # MyFunction.apply appears as a PythonOp: ^MyFunction[...]()(%x, %y)
    write(outdir, "pythonop", torch.jit.trace(torch_models.MyModule(), (torch.ones(3, 4), torch.ones(3, 4))))


if __name__ == "__main__":
    main()
