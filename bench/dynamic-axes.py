#!/usr/bin/python3
"""Dynamic axes: models whose sizes are computed at run time, exported with
dynamic axes by torch.onnx.export and by symonnx, each file run in symonnx's
executor at the traced size and at a second size, against PyTorch.

A size the trace recorded may be folded into the export only when it does
not depend on a dim the user declared dynamic: the second size shows every
fold that should not have happened (a wrong shape, a wrong number, or a run
that fails).  The models are the patterns real code uses (a GPT block's
B, T, C = x.size(), BERT's position ids, a class token expanded to the batch,
padding to a multiple of 8, interpolation, RNN classifiers, Conv1d audio,
Swin's shifted-window mask...) and a few torchvision classifiers.

  bench/dynamic-axes.py [--opsets 11,13,17] [--models gpt,bert,...] [--symonnx-only]

Environment: SYMONNX_LIBRARY (default build/libsymonnx.so), SYMONNX_CLI
(default build/tools/symonnx).  Run from the source tree; a few minutes on
2 cores.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
warnings.simplefilter("ignore")

class GPT(nn.Module):
    def __init__(s, C=16, H=4):
        super().__init__(); s.qkv = nn.Linear(C, 3*C); s.H = H; s.proj = nn.Linear(C, C)
    def forward(s, x):
        B, T, C = x.size()
        q, k, v = s.qkv(x).split(C, dim=2)
        q = q.view(B, T, s.H, C // s.H).transpose(1, 2)
        k = k.view(B, T, s.H, C // s.H).transpose(1, 2)
        v = v.view(B, T, s.H, C // s.H).transpose(1, 2)
        att = q @ k.transpose(-2, -1) / (k.size(-1) ** 0.5)
        mask = torch.tril(torch.ones(T, T))
        att = att.masked_fill(mask == 0, float('-inf')).softmax(-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return s.proj(y)

class Bert(nn.Module):
    def __init__(s):
        super().__init__(); s.tok = nn.Embedding(50, 8); s.pos = nn.Embedding(32, 8)
    def forward(s, ids):
        pos = torch.arange(ids.size(1)).unsqueeze(0).expand_as(ids)
        return s.tok(ids) + s.pos(pos)

class Flat(nn.Module):
    def forward(s, x):
        return x.reshape(x.shape[0], -1).sum(1) + x.flatten(1).mean(1) + x.view(-1, x.size(2) * x.size(3)).sum()

class Cls(nn.Module):
    def __init__(s):
        super().__init__(); s.tok = nn.Parameter(torch.randn(1, 1, 8))
    def forward(s, x):
        n = x.shape[0]
        t = s.tok.expand(n, -1, -1)
        return torch.cat([t, x], 1)

class Pad(nn.Module):
    def forward(s, x):
        h = x.shape[2]
        return F.pad(x, (0, 0, 0, 8 - h % 8)) * 2 + x.new_zeros(x.shape[0], 1, 1, 1) + torch.zeros_like(x).sum()

class Interp(nn.Module):
    def forward(s, x):
        return F.interpolate(x, scale_factor=2, mode='nearest') .sum() + F.adaptive_avg_pool2d(x, 1).sum() + x.mean(dim=[2,3]).sum()

class Rep(nn.Module):
    def forward(s, x):
        return x.repeat(1, 2) + 0 * torch.ones(x.size(0), 2 * x.size(1)) + x.new_ones(x.shape).repeat(1,2)

class Idx(nn.Module):
    def forward(s, x):
        return x[:, -1] + x[:, x.size(1) // 2] + x[torch.arange(x.size(0)), 0]

CASES = {
  'gpt': (GPT(), (torch.randn(2, 5, 16),), (torch.randn(3, 7, 16),), {'x': {0: 'b', 1: 't'}}),
  'bert': (Bert(), (torch.randint(0, 50, (2, 6)),), (torch.randint(0, 50, (3, 9)),), {'x': {0: 'b', 1: 't'}}),
  'flat': (Flat(), (torch.randn(2, 3, 4, 5),), (torch.randn(3, 3, 6, 7),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'cls': (Cls(), (torch.randn(2, 5, 8),), (torch.randn(3, 4, 8),), {'x': {0: 'b', 1: 't'}}),
  'pad': (Pad(), (torch.randn(2, 3, 5, 4),), (torch.randn(3, 3, 7, 4),), {'x': {0: 'b', 2: 'h'}}),
  'interp': (Interp(), (torch.randn(2, 3, 5, 4),), (torch.randn(3, 3, 7, 6),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'rep': (Rep(), (torch.randn(2, 3),), (torch.randn(4, 5),), {'x': {0: 'b', 1: 'c'}}),
  'idx': (Idx(), (torch.randn(2, 5),), (torch.randn(4, 7),), {'x': {0: 'b', 1: 'c'}}),
}

class TE(nn.Module):
    def __init__(s):
        super().__init__(); s.e = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2)
    def forward(s, x): return s.e(x)
class MHA(nn.Module):
    def __init__(s):
        super().__init__(); s.m = nn.MultiheadAttention(16, 4)
    def forward(s, x): return s.m(x, x, x)[0]
class LSTMC(nn.Module):
    def __init__(s):
        super().__init__(); s.l = nn.LSTM(8, 16, batch_first=True, num_layers=2); s.fc = nn.Linear(16, 3)
    def forward(s, x):
        o, _ = s.l(x); return s.fc(o[:, -1])
class GRUC(nn.Module):
    def __init__(s):
        super().__init__(); s.l = nn.GRU(8, 16, bidirectional=True); s.fc = nn.Linear(32, 3)
    def forward(s, x):
        o, h = s.l(x); return s.fc(o.mean(0))
class Audio(nn.Module):
    def __init__(s):
        super().__init__(); s.c = nn.Sequential(nn.Conv1d(1, 8, 9, stride=2), nn.ReLU(), nn.Conv1d(8, 8, 3), nn.AdaptiveAvgPool1d(1))
    def forward(s, x): return s.c(x).flatten(1)
class EB(nn.Module):
    def __init__(s):
        super().__init__(); s.e = nn.EmbeddingBag(20, 4, mode='mean')
    def forward(s, x):
        offsets = torch.arange(0, x.size(0), 2)
        return s.e(x, offsets)
class Unf(nn.Module):
    def forward(s, x):
        b, c, h, w = x.shape
        p = x.unfold(2, 2, 2).unfold(3, 2, 2)
        return p.reshape(b, c, -1, 4).permute(0, 2, 1, 3).flatten(2) + 0 * torch.arange(h // 2 * (w // 2)).view(1, -1, 1)
class Chunk(nn.Module):
    def forward(s, x):
        a, b = x.chunk(2, dim=-1)
        return a * b.sigmoid() + x[:, :1, :3] + x[..., :x.shape[-1] // 2].cumsum(1)
class Roll(nn.Module):
    def forward(s, x):
        return torch.roll(x, shifts=1, dims=1) + x.flip(1) + x.repeat_interleave(1, dim=0) + torch.zeros(x.shape[0], x.shape[1], x.shape[2]).normal_(0, 0) 
class Up(nn.Module):
    def forward(s, x):
        return F.interpolate(x, size=(8, 6), mode='bilinear', align_corners=False).sum((2, 3)) + F.interpolate(x, scale_factor=2, mode='nearest').mean((2, 3))
class INorm(nn.Module):
    def __init__(s):
        super().__init__(); s.n = nn.InstanceNorm2d(3); s.ps = nn.PixelShuffle(2); s.c = nn.Conv2d(3, 12, 1)
    def forward(s, x): return s.ps(s.c(s.n(x)))
CASES.update({
  'swin_t_b': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 64, 64),), {'x': {0: 'b'}}),
  'up': (Up(), (torch.randn(2, 3, 5, 4),), (torch.randn(3, 3, 7, 6),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'upb': (Up(), (torch.randn(2, 3, 5, 4),), (torch.randn(3, 3, 5, 4),), {'x': {0: 'b'}}),
  'inorm': (INorm(), (torch.randn(2, 3, 5, 4),), (torch.randn(3, 3, 7, 6),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'te': (TE(), (torch.randn(2, 5, 16),), (torch.randn(3, 7, 16),), {'x': {0: 'b', 1: 't'}}),
  'mha': (MHA(), (torch.randn(5, 2, 16),), (torch.randn(7, 3, 16),), {'x': {0: 't', 1: 'b'}}),
  'lstm': (LSTMC(), (torch.randn(2, 5, 8),), (torch.randn(3, 7, 8),), {'x': {0: 'b', 1: 't'}}),
  'gru': (GRUC(), (torch.randn(5, 2, 8),), (torch.randn(7, 3, 8),), {'x': {0: 't', 1: 'b'}}),
  'audio': (Audio(), (torch.randn(2, 1, 50),), (torch.randn(3, 1, 77),), {'x': {0: 'b', 2: 'n'}}),
  'ebag': (EB(), (torch.randint(0, 20, (6,)),), (torch.randint(0, 20, (10,)),), {'x': {0: 'n'}}),
  'unf': (Unf(), (torch.randn(2, 3, 4, 6),), (torch.randn(3, 3, 6, 8),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'chunk': (Chunk(), (torch.randn(2, 3, 6),), (torch.randn(3, 4, 6),), {'x': {0: 'b', 1: 't'}}),
  'resnet18': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 96, 80),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'mobilenet_v3_small': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 96, 80),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'swin_t': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 96, 96),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'squeezenet1_1': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 96, 80),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'densenet121': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 96, 96),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'efficientnet_b0': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 96, 80),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
  'convnext_tiny': (None, (torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 96, 96),), {'x': {0: 'b', 2: 'h', 3: 'w'}}),
})
TV = {'resnet18', 'mobilenet_v3_small', 'squeezenet1_1', 'efficientnet_b0', 'swin_t', 'convnext_tiny', 'densenet121'}


def tv(name):
    torch.manual_seed(0)
    return getattr(torchvision.models, name)(weights=None).eval()


def first_line(e):
    s = str(e).strip().splitlines()
    return (s[0] if s else type(e).__name__)[:150]


def run_file(cli, path, x, work, tag):
    """symonnx's executor on one input: the output as numpy, or the error."""
    np.save(os.path.join(work, "in.npy"), x.numpy())
    od = os.path.join(work, "out" + tag)
    os.makedirs(od, exist_ok=True)
    r = subprocess.run([cli, "run", path, "-i", "x=" + os.path.join(work, "in.npy"), "-o", od],
                       capture_output=True, text=True)
    if r.returncode:
        return None, first_line(r.stderr)
    outs = sorted(f for f in os.listdir(od) if f.endswith(".npy"))
    return np.load(os.path.join(od, outs[0])), None


def check(cli, path, model, xs, work):
    """'yes' when the file gives PyTorch's output at both sizes."""
    for k, x in enumerate(xs):
        got, err = run_file(cli, path, x, work, str(k))
        if err:
            return f"size {k + 1}: {err}"
        with torch.no_grad():
            want = model(x).numpy()
        if got.shape != want.shape:
            return f"size {k + 1}: shape {got.shape}, PyTorch {want.shape}"
        tol = 1e-4 + 1e-3 * float(np.abs(want).max())
        err = float(np.abs(got - want).max())
        if err > tol:
            return f"size {k + 1}: max abs error {err:.2e}"
    return "yes"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opsets", default="11,13,17")
    ap.add_argument("--models", default="")
    ap.add_argument("--symonnx-only", action="store_true", help="skip torch.onnx.export")
    a = ap.parse_args()
    import symonnx
    os.environ.setdefault("SYMONNX_LIBRARY", os.path.join(ROOT, "build", "libsymonnx.so"))
    cli = os.environ.get("SYMONNX_CLI", os.path.join(ROOT, "build", "tools", "symonnx"))
    if not os.access(cli, os.X_OK):
        sys.exit(f"dynamic-axes: no symonnx CLI at {cli} (build first, or set SYMONNX_CLI)")
    names = [n for n in a.models.split(",") if n] or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"dynamic-axes: unknown models {', '.join(unknown)}; known: {', '.join(CASES)}")
    totals = {}
    print(f"| model | opset | torch exports | torch's file at both sizes | symonnx exports | symonnx's file at both sizes |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            m, a1, a2, axes = CASES[name]
            m = (tv(name[:-2] if name.endswith("_b") and name[:-2] in TV else name) if m is None else m).eval()
            for opset in (int(o) for o in a.opsets.split(",")):
                row = []
                for who in ("torch", "symonnx"):
                    path = os.path.join(work, f"{who}.onnx")
                    if os.path.exists(path):
                        os.unlink(path)
                    if who == "torch" and a.symonnx_only:
                        row += ["-", "-"]
                        continue
                    try:
                        exp = torch.onnx.export if who == "torch" else symonnx.export
                        # autograd on, as torch.onnx.export traces (under no_grad an
                        # eval TransformerEncoder records its fused fast path)
                        exp(m, a1, path, opset_version=opset, input_names=["x"], output_names=["y"],
                            dynamic_axes=axes)
                        row += ["ok", check(cli, path, m, (a1[0], a2[0]), work)]
                    except Exception as e:  # noqa: BLE001  an export refused: the reason
                        row += ["fail: " + first_line(e), "-"]
                key = (opset,)
                t = totals.setdefault(key, [0, 0, 0, 0, 0])
                t[0] += 1
                t[1] += row[0] == "ok"
                t[2] += row[1] == "yes"
                t[3] += row[2] == "ok"
                t[4] += row[3] == "yes"
                print(f"| {name} | {opset} | " + " | ".join(r[:90] for r in row) + " |", flush=True)
    print()
    print("| opset | models | torch exports | torch's file right at both sizes | symonnx exports | symonnx's file right at both sizes |")
    print("|---|---|---|---|---|---|")
    for (o,), t in sorted(totals.items()):
        print(f"| {o} | {t[0]} | {t[1]} | {t[2]} | {t[3]} | {t[4]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
