#!/usr/bin/python3
"""Checks run by /symbolic/seed-models on the models symonnx exported.

  check_seed_models.py WEIGHTS_DIR MODEL.onnx...

Every file: onnx.checker.check_model(full_check=True).
word_language_model*.onnx / lstm*.onnx: each LSTM node's W, R and B
  initializers equal the state_dict's weight_ih/hh_l{k} and bias_ih/hh_l{k}
  re-sliced with numpy into ONNX's gate order (PyTorch i f g o → ONNX i o f c).
resnet18*.onnx: each Conv's weight and bias equal, bit for bit, the
  Conv+BatchNormalization fusion computed with numpy in float32 from
  conv.weight and the BN's parameters, one operation at a time in the order
  torch 1.13's fuseConvBatchNorm uses (s = gamma / sqrt(var + eps),
  W * s, beta - mean * s): torch.onnx.export's fused initializers.
WEIGHTS_DIR holds MODEL.safetensors (the random weights the test exported
with), MODEL being the file name up to the first '_opset'.
"""
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64}


def load_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        s, e = v["data_offsets"]
        out[k] = np.frombuffer(data[8 + n + s:8 + n + e], dtype=DTYPES[v["dtype"]]).reshape(v["shape"])
    return out


def initializer(model, name):
    for t in model.graph.initializer:
        if t.name == name:
            return numpy_helper.to_array(t)
    raise AssertionError(f"{name} is not an initializer")


def check_lstm(model, w):
    lstms = [n for n in model.graph.node if n.op_type == "LSTM"]
    assert lstms, "no LSTM node"
    for k, node in enumerate(lstms):
        hidden = w[f"rnn.weight_hh_l{k}"].shape[1]

        def onnx_order(t):  # i f g o → i o f g
            i, f, g, o = np.split(t, 4, axis=0)
            return np.concatenate([i, o, f, g], axis=0)

        want_w = onnx_order(w[f"rnn.weight_ih_l{k}"])[None]
        want_r = onnx_order(w[f"rnn.weight_hh_l{k}"])[None]
        want_b = np.concatenate([onnx_order(w[f"rnn.bias_ih_l{k}"]),
                                 onnx_order(w[f"rnn.bias_hh_l{k}"])])[None]
        for got_name, want in zip(node.input[1:4], (want_w, want_r, want_b)):
            got = initializer(model, got_name)
            assert got.shape == want.shape, (node.name, got_name, got.shape, want.shape)
            assert np.array_equal(got, want), (node.name, got_name, "values differ")
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        assert attrs.get("hidden_size") == hidden, (node.name, attrs)
    return len(lstms)


def check_conv_bn(model, w):
    n = 0
    for node in model.graph.node:
        if node.op_type != "Conv":
            continue
        # /layer1/0/conv1/Conv → layer1.0.conv1 (BN layer1.0.bn1);
        # /layer1/0/downsample/downsample.0/Conv → layer1.0.downsample.0 (BN .1)
        parts = [p for p in node.name.split("/")[1:-1]]
        conv = ".".join(p.split(".")[-1] if "." in p else p for p in parts)
        bn = conv[:-1] + "1" if conv.endswith("downsample.0") else conv.replace("conv", "bn")
        gamma, beta = w[bn + ".weight"], w[bn + ".bias"]
        mean, var = w[bn + ".running_mean"], w[bn + ".running_var"]
        s = gamma / np.sqrt(var + np.float32(1e-5))
        want_w = w[conv + ".weight"] * s[:, None, None, None]
        want_b = beta - mean * s
        assert want_w.dtype == want_b.dtype == np.float32
        got_w, got_b = initializer(model, node.input[1]), initializer(model, node.input[2])
        assert np.array_equal(got_w, want_w), (node.name, "fused weight")
        assert np.array_equal(got_b, want_b), (node.name, "fused bias")
        n += 1
    assert n == 20, n
    return n


def main():
    wdir, files = sys.argv[1], sys.argv[2:]
    for path in files:
        base = os.path.basename(path)
        model = onnx.load(path)
        onnx.checker.check_model(model, full_check=True)
        what = "checker ok"
        stem = base.split("_opset")[0]
        if stem in ("word_language_model", "lstm"):
            w = load_safetensors(os.path.join(wdir, stem + ".safetensors"))
            what += f", {check_lstm(model, w)} LSTM layouts ok"
        elif stem == "resnet18":
            w = load_safetensors(os.path.join(wdir, stem + ".safetensors"))
            what += f", {check_conv_bn(model, w)} fused Conv+BN ok"
        print(f"{base}: {what}")


if __name__ == "__main__":
    main()
