"""Transformer models for the executor benchmark (bench/runtime-export-models.py, issue 16):
a BERT-base-like encoder and a small GPT-style decoder, written out the way Hugging Face's
BERT and nanoGPT write them (Linear projections, explicit attention with MatMul/Softmax,
LayerNorm, exact GELU), so torch.onnx.export emits the patterns the executor fuses."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, d, heads, causal=False, max_len=512):
        super().__init__()
        self.h = heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.causal = causal
        if causal:
            self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)).bool())

    def split(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.h, d // self.h).transpose(1, 2)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.h)
        if self.causal:
            s = s.masked_fill(~self.mask[:t, :t], float("-inf"))
        a = torch.matmul(F.softmax(s, dim=-1), v)
        return self.o(a.transpose(1, 2).reshape(b, t, d))


class BertLayer(nn.Module):
    """Post-LN block: LN(x + Attn(x)), LN(h + FFN(h)), FFN = Linear-GELU-Linear."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.attn = SelfAttention(d, heads)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ff1 = nn.Linear(d, ff)
        self.ff2 = nn.Linear(ff, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x):
        h = self.ln1(x + self.attn(x))
        return self.ln2(h + self.ff2(F.gelu(self.ff1(h))))


class BertEncoder(nn.Module):
    """BERT-base widths (768, 12 heads, 3072) with `layers` layers; input token ids (1, T)."""

    def __init__(self, vocab=30522, d=768, heads=12, ff=3072, layers=4, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(d, heads, ff) for _ in range(layers)])

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.pos(pos))
        for layer in self.layers:
            x = layer(x)
        return x


class GptBlock(nn.Module):
    """Pre-LN block (GPT-2): x + Attn(LN(x)), x + MLP(LN(x))."""

    def __init__(self, d, heads, max_len):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = SelfAttention(d, heads, causal=True, max_len=max_len)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.proj(F.gelu(self.fc(self.ln2(x))))


class GptDecoder(nn.Module):
    """A small GPT-2-style decoder (6 layers, 512 wide, 8 heads, vocabulary 8192); input
    token ids (1, T), output the logits of every position."""

    def __init__(self, vocab=8192, d=512, heads=8, layers=6, max_len=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList([GptBlock(d, heads, max_len) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))
