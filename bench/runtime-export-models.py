#!/usr/bin/python3
"""Exports the executor benchmark's models (issue 5, Performance) with torch.onnx.export.

    /usr/bin/python3 bench/runtime-export-models.py OUTDIR

writes OUTDIR/<name>.onnx and OUTDIR/<name>.input.npy for resnet18, resnet50, alexnet,
squeezenet1_0, squeezenet1_1, mobilenet_v2 (1x3x224x224) and superres (the ONNX tutorial's SuperResolution net,
1x1x224x224): opset 13, batch 1, random weights (seeded, nothing downloaded), eval mode.
Token models take int64 ids: bert (BERT-base widths, 4 layers, 1x128 ids; bench/transformer_models.py),
bert17 (the same at opset 17, where LayerNorm is one LayerNormalization node), gpt (a small GPT-style
decoder, 6 layers, 512 wide, 1x128 ids) and lstm (pytorch/examples' word_language_model, 2-layer LSTM,
200 wide, vocabulary 33278 as wikitext-2, 35x1 ids).
The graph input is named 'input' and the output 'output'.

With --conv-shapes it also writes OUTDIR/conv/<label>.onnx, one-node Conv models of
every distinct Conv shape in ResNet-18 and ResNet-50 (weights random, no bias, as
torchvision's convs), their inputs, and OUTDIR/conv/shapes.tsv (label, model, count of
that shape in the model, FLOPs of one run = 2*M*N*K) for bench/runtime-conv-gflops.sh.
"""
import argparse
import os
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models  # noqa: E402
import transformer_models  # noqa: E402


def models():
    return [
        ("resnet18", torchvision.models.resnet18(), (1, 3, 224, 224)),
        ("resnet50", torchvision.models.resnet50(), (1, 3, 224, 224)),
        ("alexnet", torchvision.models.alexnet(), (1, 3, 224, 224)),
        ("squeezenet1_0", torchvision.models.squeezenet1_0(), (1, 3, 224, 224)),
        ("squeezenet1_1", torchvision.models.squeezenet1_1(), (1, 3, 224, 224)),
        ("mobilenet_v2", torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
        ("superres", torch_models.SuperResolutionNet(upscale_factor=3), (1, 1, 224, 224)),
    ]


def token_models():
    """(name, model, ids shape, vocabulary, opset)."""
    return [
        ("bert", transformer_models.BertEncoder(layers=4), (1, 128), 30522, 13),
        ("bert17", transformer_models.BertEncoder(layers=4), (1, 128), 30522, 17),
        ("gpt", transformer_models.GptDecoder(), (1, 128), 8192, 13),
        ("lstm", torch_models.WordLanguageModel(ntoken=33278, ninp=200, nhid=200), (35, 1), 33278, 13),
    ]


def export_models(out):
    for name, m, shape in models():
        m.eval()
        x = torch.randn(*shape)
        path = os.path.join(out, name + ".onnx")
        with torch.no_grad():
            torch.onnx.export(m, x, path, opset_version=13, input_names=["input"],
                              output_names=["output"], do_constant_folding=True)
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        print(path)
    for name, m, shape, vocab, opset in token_models():
        m.eval()
        with torch.no_grad():   # LayerNorms as after training, each its own (not ones and zeros)
            for mod in m.modules():
                if isinstance(mod, torch.nn.LayerNorm):
                    mod.weight.normal_(1.0, 0.1)
                    mod.bias.normal_(0.0, 0.1)
        x = torch.randint(0, vocab, shape)
        path = os.path.join(out, name + ".onnx")
        with torch.no_grad():
            torch.onnx.export(m, x, path, opset_version=opset, input_names=["input"],
                              output_names=["output"], do_constant_folding=True)
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        print(path)


def conv_shapes(out):
    """Distinct Conv2d shapes of ResNet-18/50 at 224x224, from forward hooks."""
    import onnx
    from onnx import helper, TensorProto, numpy_helper

    cdir = os.path.join(out, "conv")
    os.makedirs(cdir, exist_ok=True)
    rows = []
    for name, m, shape in models()[:2]:
        seen = {}
        hooks = []

        def hook(mod, inp, outp, name=name):
            key = (tuple(inp[0].shape), mod.out_channels, mod.kernel_size, mod.stride,
                   mod.padding, mod.groups)
            seen[key] = seen.get(key, 0) + 1

        for mod in m.modules():
            if isinstance(mod, torch.nn.Conv2d):
                hooks.append(mod.register_forward_hook(hook))
        m.eval()
        with torch.no_grad():
            m(torch.randn(*shape))
        for h in hooks:
            h.remove()
        for (ishape, M, k, s, p, g), count in seen.items():
            n, c, h, w = ishape
            oh = (h + 2 * p[0] - k[0]) // s[0] + 1
            ow = (w + 2 * p[1] - k[1]) // s[1] + 1
            K = c // g * k[0] * k[1]
            N = oh * ow
            flops = 2 * M * N * K * n
            label = "%s_c%d_m%d_k%d_s%d_%dx%d" % (name, c, M, k[0], s[0], h, w)
            rng = np.random.default_rng(0)
            wt = (rng.standard_normal((M, c // g, k[0], k[1])) * 0.05).astype(np.float32)
            node = helper.make_node("Conv", ["input", "W"], ["output"], kernel_shape=list(k),
                                    strides=list(s), pads=[p[0], p[1], p[0], p[1]], group=g)
            graph = helper.make_graph(
                [node], label,
                [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(ishape))],
                [helper.make_tensor_value_info("output", TensorProto.FLOAT, [n, M, oh, ow])],
                [numpy_helper.from_array(wt, "W")])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
            onnx.checker.check_model(model)
            onnx.save(model, os.path.join(cdir, label + ".onnx"))
            np.save(os.path.join(cdir, label + ".input.npy"),
                    rng.standard_normal(ishape).astype(np.float32))
            rows.append((label, name, count, flops, M, N, K))
    with open(os.path.join(cdir, "shapes.tsv"), "w") as f:
        f.write("label\tmodel\tcount\tflops\tM\tN\tK\n")
        for r in rows:
            f.write("\t".join(str(v) for v in r) + "\n")
    print(os.path.join(cdir, "shapes.tsv"), len(rows), "shapes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--conv-shapes", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    torch.manual_seed(0)
    export_models(args.outdir)
    if args.conv_shapes:
        conv_shapes(args.outdir)


if __name__ == "__main__":
    main()
