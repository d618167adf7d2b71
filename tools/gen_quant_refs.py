#!/usr/bin/python3
"""Reference outputs of PyTorch 1.13's quantized kernels for the trace
run's quantized kernels (runtime/k-aten-qconv.c, k-aten-qops.c).

Run with Debian's python (torch 1.13; its quantized engine is QNNPACK, the
one Debian builds, as bench/torchvision-corpus.py uses):

    /usr/bin/python3 tools/gen_quant_refs.py

Each case is a small module using one quantized op, traced by symonnx's
tracer (python/symonnx/_trace.py: packed weights stored unpacked), written
as tests/fixtures/quant/CASE.trace, CASE.safetensors, CASE_in<N>.npy and
CASE_out.npy: the module's output, the op's integers (int_repr) so that the
test compares them exactly.  `model` is a small quantized network end to
end (its output dequantized); cases.txt lists the cases.
tests/runtime/test-aten-quant.c runs each trace in the executor.

    /usr/bin/python3 tools/gen_quant_refs.py qdq_add

writes only tests/fixtures/quant/qdq_add/: quantized::add / add_relu on
given uint8 integers (CASE_a.npy, CASE_b.npy), PyTorch's result
(CASE_torch.npy) and the ONNX float form of DequantizeLinear, Add, [Relu],
QuantizeLinear computed here in numpy float32 (CASE_float.npy); cases.txt
holds each case's op and constants (scales as exact hex floats) and how many
elements differ between the two forms.  For runtime/fuse-qadd.c's fusion
(tests/runtime/test-fusion-qadd.c).
"""
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.ao.nn.quantized as nnq
import torch.nn.intrinsic.quantized as nniq

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "quant")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

torch.backends.quantized.engine = "qnnpack"
Q = torch.ops.quantized


def q(x, scale, zp):
    return torch.quantize_per_tensor(x, scale, zp, torch.quint8)


def qweight(shape, per_channel, seed):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(*shape, generator=g) * 0.3
    if per_channel:
        s = torch.rand(shape[0], generator=g, dtype=torch.float64) * 0.01 + 0.003
        return torch.quantize_per_channel(w, s, torch.zeros(shape[0], dtype=torch.long), 0, torch.qint8)
    return torch.quantize_per_tensor(w, 0.005, 0, torch.qint8)


def conv(cin, cout, k, per_channel, relu=False, seed=0, **kw):
    m = (nniq.ConvReLU2d if relu else nnq.Conv2d)(cin, cout, k, **kw)
    b = torch.randn(cout, generator=torch.Generator().manual_seed(seed + 1))
    m.set_weight_bias(qweight((cout, cin // kw.get("groups", 1), k, k), per_channel, seed), b)
    m.scale, m.zero_point = 0.07, 100
    return m


class Unary(nn.Module):
    """quantize (scale, zp) → fn → int_repr."""

    def __init__(self, fn, scale=0.05, zp=120, mods=None):
        super().__init__()
        self.fn, self.scale, self.zp = fn, scale, zp
        self.mods = nn.ModuleList(mods or [])

    def forward(self, x):
        return self.fn(self, q(x, self.scale, self.zp)).int_repr()


class Binary(nn.Module):
    def __init__(self, fn, sa, za, sb, zb):
        super().__init__()
        self.fn, self.p = fn, (sa, za, sb, zb)

    def forward(self, a, b):
        sa, za, sb, zb = self.p
        return self.fn(q(a, sa, za), q(b, sb, zb)).int_repr()


class Model(nn.Module):
    """A small quantized network: conv+relu, a residual add_relu, max pool,
    hardswish, cat, adaptive average pool, linear; dequantized."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = nnq.Quantize(0.04, 110, torch.quint8), nnq.DeQuantize()
        self.c1 = conv(3, 8, 3, True, relu=True, seed=10, padding=1)
        self.c2 = conv(8, 8, 3, False, seed=12, padding=1, groups=8)
        self.fc = nnq.Linear(16, 5)
        self.fc.set_weight_bias(qweight((5, 16), False, 14), torch.randn(5))
        self.fc.scale, self.fc.zero_point = 0.03, 128

    def forward(self, x):
        x = self.quant(x)
        y = self.c1(x)
        z = Q.add_relu(self.c2(y), y, 0.08, 90)
        z = torch.nn.functional.max_pool2d(z, 2)
        h = Q.hardswish(z, 0.06, 20)
        z = Q.cat([z, h], 1, 0.09, 30)
        z = torch.nn.functional.adaptive_avg_pool2d(z, 1).flatten(1)
        return self.dequant(self.fc(z))


def cases():
    r = np.random.default_rng(7)

    def x(*shape, s=3.0):
        return (r.standard_normal(shape) * s).astype(np.float32)

    def ties(*shape):   # multiples of the input scale 0.25: exact halves in averages
        return (r.integers(-40, 40, shape) * 0.25).astype(np.float32)

    yield "quantize", Unary(lambda m, v: v), [x(2, 3, 5)]
    yield "quantize_qint8", nn.Module(), None   # placeholder replaced below
    yield "dequantize", type("D", (nn.Module,), {"forward": lambda s, v: q(v, 0.05, 120).dequantize()})(), [x(3, 7)]
    yield "conv2d", Unary(lambda m, v: m.mods[0](v), mods=[conv(4, 6, 3, False, padding=1)]), [x(1, 4, 6, 6)]
    yield "conv2d_relu_perchannel", Unary(lambda m, v: m.mods[0](v), mods=[
        conv(4, 6, 3, True, relu=True, seed=3, stride=2, padding=1, groups=2)]), [x(2, 4, 7, 7)]
    yield "conv2d_depthwise_dilated", Unary(lambda m, v: m.mods[0](v), mods=[
        conv(5, 5, 3, True, seed=5, padding=2, dilation=2, groups=5)]), [x(1, 5, 6, 6)]
    lin = nnq.Linear(12, 7)
    lin.set_weight_bias(qweight((7, 12), True, 8), torch.randn(7))
    lin.scale, lin.zero_point = 0.05, 60
    yield "linear_perchannel", Unary(lambda m, v: m.mods[0](v), mods=[lin]), [x(3, 12)]
    yield "add", Binary(lambda a, b: Q.add(a, b, 0.09, 100), 0.05, 120, 0.07, 30), [x(2, 3, 9), x(2, 3, 9)]
    yield "add_ties", Binary(lambda a, b: Q.add(a, b, 1.0, 100), 0.25, 120, 0.125, 30), [x(2, 3, 9), x(2, 3, 9)]
    yield "add_relu", Binary(lambda a, b: Q.add_relu(a, b, 0.09, 100), 0.05, 120, 0.07, 30), [x(4, 11), x(4, 11)]
    yield "mul_broadcast", Binary(lambda a, b: Q.mul(a, b, 0.2, 90), 0.05, 120, 0.04, 10), [x(1, 4, 3, 3), x(1, 4, 1, 1)]
    yield "cat", Binary(lambda a, b: Q.cat([a, b, a], 1, 0.06, 70), 0.05, 120, 0.07, 30), [x(2, 2, 3), x(2, 3, 3)]
    yield "hardswish", Unary(lambda m, v: Q.hardswish(v, 0.03, 40)), [x(3, 40)]
    yield "hardsigmoid", Unary(lambda m, v: torch.nn.functional.hardsigmoid(v)), [x(3, 40)]
    yield "relu", Unary(lambda m, v: torch.relu(v)), [x(3, 40)]
    yield "adaptive_avg_pool2d_ties", Unary(lambda m, v: torch.nn.functional.adaptive_avg_pool2d(v, 3), 0.25, 100),\
        [ties(1, 3, 6, 6)]
    yield "adaptive_avg_pool2d_uneven", Unary(lambda m, v: torch.nn.functional.adaptive_avg_pool2d(v, (3, 2))),\
        [x(2, 3, 7, 5)]
    yield "avg_pool2d_pad", Unary(lambda m, v: torch.nn.functional.avg_pool2d(v, 3, 1, 1)), [x(1, 3, 6, 6)]
    yield "avg_pool2d_ties_ceil", Unary(lambda m, v: torch.nn.functional.avg_pool2d(
        v, 2, 2, ceil_mode=True, count_include_pad=False), 0.25, 100), [ties(1, 2, 5, 5)]
    yield "max_pool2d", Unary(lambda m, v: torch.nn.functional.max_pool2d(v, 3, 2, 1, ceil_mode=True)), [x(1, 3, 8, 8)]
    yield "mean_ties", Unary(lambda m, v: v.mean([2, 3]), 0.25, 100), [ties(1, 4, 2, 2)]
    yield "shape_ops", Unary(lambda m, v: v.view(2, 3, 4).transpose(1, 2).contiguous().flatten(1).chunk(2, 1)[1]),\
        [x(2, 12)]
    yield "model", Model().eval(), [x(1, 3, 8, 8, s=1.0)]


def qdq_add_cases():
    """(name, relu, sa, za, sb, zb, ys, yz): scales representable in float32.  With
    scales of no simple ratio the two forms agree on every pair of inputs
    (add, add_relu: the fusion must still give PyTorch's integers); they differ
    on exact half steps (the ties cases: QNNPACK rounds half away from zero,
    the float form half to even, and 0.07 / 0.08 is not 0.875 in float) and
    where QNNPACK's 22-bit multipliers round the ratios (add_relu_wide)."""
    yield "add", False, 0.05, 120, 0.07, 30, 0.09, 100
    yield "add_relu", True, 0.0371, 131, 0.0523, 77, 0.0611, 64
    yield "add_ties", False, 0.25, 120, 0.125, 30, 1.0, 100
    yield "add_relu_ties", True, 0.07, 100, 0.07, 100, 0.08, 90    # the small model's residual add_relu
    yield "add_relu_wide", True, 0.31, 3, 0.0042, 250, 0.02, 17     # ratios 15.5 and 0.21, saturating


def qdq_add_forms(relu, sa, za, sb, zb, ys, yz, a, b):
    """PyTorch's quantized add of the integers a, b, and ONNX's float form."""
    qa = torch._make_per_tensor_quantized_tensor(torch.from_numpy(a), sa, za)
    qb = torch._make_per_tensor_quantized_tensor(torch.from_numpy(b), sb, zb)
    want = (Q.add_relu if relu else Q.add)(qa, qb, ys, yz).int_repr().numpy()
    # ONNX's definition in float32: (x - zp) * scale, Add, Relu, y / scale rounded half to even
    f32 = np.float32
    v = ((a.astype(np.float64) - za) * sa).astype(f32) + ((b.astype(np.float64) - zb) * sb).astype(f32)
    if relu:
        v = np.maximum(v, f32(0))
    return want, np.clip(np.rint(v / f32(ys)) + yz, 0, 255).astype(np.uint8)


def qdq_add_main():
    out = os.path.join(OUT, "qdq_add")
    os.makedirs(out, exist_ok=True)
    r = np.random.default_rng(13)
    grid = np.meshgrid(np.arange(256, dtype=np.uint8), np.arange(256, dtype=np.uint8), indexing="ij")
    lines = []
    for name, relu, sa, za, sb, zb, ys, yz in qdq_add_cases():
        sa, sb, ys = (float(np.float32(v)) for v in (sa, sb, ys))   # what the ONNX graph holds
        # 2040 random pairs, then up to 8 pairs of all 65536 where the two forms differ
        a = r.integers(0, 256, 2040, dtype=np.uint8)
        b = r.integers(0, 256, 2040, dtype=np.uint8)
        ga, gb = grid[0].ravel(), grid[1].ravel()
        want, flt = qdq_add_forms(relu, sa, za, sb, zb, ys, yz, ga, gb)
        pick = np.nonzero(want != flt)[0][:8]
        a = np.concatenate([a, ga[pick], np.full(8 - len(pick), za, np.uint8)]).reshape(8, 256)
        b = np.concatenate([b, gb[pick], np.full(8 - len(pick), zb, np.uint8)]).reshape(8, 256)
        want, flt = qdq_add_forms(relu, sa, za, sb, zb, ys, yz, a, b)
        differ = int((flt != want).sum())
        assert differ == 0 or int(np.abs(flt.astype(int) - want).max()) == 1, name
        assert differ > 0 or name in ("add", "add_relu"), name
        for suffix, arr in (("a", a), ("b", b), ("torch", want), ("float", flt)):
            np.save(os.path.join(out, f"{name}_{suffix}.npy"), arr)
        lines.append(" ".join([name, "add_relu" if relu else "add", sa.hex(), str(za), sb.hex(), str(zb),
                               ys.hex(), str(yz), str(differ)]))
        print(f"{name}: {differ} of {a.size} differ between PyTorch and the float form")
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("# name op a_scale a_zero_point b_scale b_zero_point y_scale y_zero_point "
                "elements_where_the_forms_differ\n")
        f.write("\n".join(lines) + "\n")


def main():
    warnings.simplefilter("ignore")
    if sys.argv[1:] == ["qdq_add"]:
        qdq_add_main()
        return
    from torch2trace import write_safetensors
    from symonnx import _trace
    os.makedirs(OUT, exist_ok=True)
    names = []
    for name, mod, ins in cases():
        if ins is None:
            if name == "quantize_qint8":
                mod = type("Q8", (nn.Module,), {"forward": lambda s, v: torch.quantize_per_tensor(
                    v, 0.04, -3, torch.qint8).int_repr()})()
                ins = [(np.random.default_rng(9).standard_normal((4, 6)) * 3).astype(np.float32)]
        args = tuple(torch.from_numpy(a) for a in ins)
        with torch.no_grad():
            text, tensors, outputs = _trace.trace(mod.eval(), args)
        with open(os.path.join(OUT, name + ".trace"), "w") as f:
            f.write(text.replace(ROOT + os.sep, ""))   # source lines relative to the tree
        write_safetensors(os.path.join(OUT, name + ".safetensors"), tensors)
        for i, a in enumerate(ins):
            np.save(os.path.join(OUT, f"{name}_in{i}.npy"), a)
        assert len(outputs) == 1
        np.save(os.path.join(OUT, f"{name}_out.npy"), outputs[0].numpy())
        names.append(name)
    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
