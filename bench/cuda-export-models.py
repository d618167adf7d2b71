#!/usr/bin/python3
"""Exports the CUDA benchmark's models (issue 17) with torch.onnx.export.

    /usr/bin/python3 bench/cuda-export-models.py OUTDIR [--batches 1,32] [--models resnet50,...]

writes OUTDIR/<name>_b<N>.onnx, OUTDIR/<name>_b<N>.input.npy and OUTDIR/<name>_b<N>.torch.npy
(PyTorch's own output on that input, the reference) for resnet50 and vgg16 (Nx3x224x224) and
bert_like (a 4-layer BERT-style encoder written out in plain ops: d_model 256, 4 heads,
feed-forward 1024, GELU, post-LayerNorm; input Nx128x256), at each batch size N: opset 13,
static shapes, random weights (seeded, nothing downloaded), eval mode.  The graph input is
'input' and the output 'output'.  bench/runtime-cuda-vs-cpu.sh times them.
"""
import argparse
import inspect
import math
import os

import numpy as np
import torch
import torchvision


class EncoderLayer(torch.nn.Module):
    """One BERT encoder layer in plain ops (no fused attention kernels to export)."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln1 = torch.nn.LayerNorm(d)
        self.ff1 = torch.nn.Linear(d, ff)
        self.ff2 = torch.nn.Linear(ff, d)
        self.ln2 = torch.nn.LayerNorm(d)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).reshape(b, s, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // h), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = self.ln1(x + self.proj(y))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class BertLike(torch.nn.Module):
    def __init__(self, d=256, heads=4, ff=1024, layers=4):
        super().__init__()
        self.layers = torch.nn.ModuleList(EncoderLayer(d, heads, ff) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


MODELS = {
    "resnet50": (torchvision.models.resnet50, (3, 224, 224)),
    "vgg16": (torchvision.models.vgg16, (3, 224, 224)),
    "bert_like": (BertLike, (128, 256)),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    for name in args.models.split(","):
        make, shape = MODELS[name]
        torch.manual_seed(0)
        m = make().eval()
        for n in (int(b) for b in args.batches.split(",")):
            x = torch.randn(n, *shape)
            base = os.path.join(args.outdir, "%s_b%d" % (name, n))
            # torch 2.5+ (the GPU machines' PyTorch) defaults to its dynamo exporter
            # from 2.9: ask for the TorchScript one, torch 1.13's, where it exists.
            extra = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
            with torch.no_grad():
                torch.onnx.export(m, x, base + ".onnx", opset_version=13, input_names=["input"],
                                  output_names=["output"], do_constant_folding=True, **extra)
                np.save(base + ".torch.npy", m(x).numpy())
            np.save(base + ".input.npy", x.numpy())
            print(base + ".onnx")


if __name__ == "__main__":
    main()
