"""The argument forms the corpus models (MaxViT, ConvNeXt, Swin) and
issue 13's remainder need in --mode aten and in verify's trace run: str
arguments (gelu's approximate, div's rounding_mode), a Tensor[] result
taken apart by prim::ListUnpack (chunk into q, k, v), a Tensor?[] index of
a buffer (a relative position bias table), swapaxes, std with correction,
clamp with tensor bounds, repeat_interleave with a tensor of repeats and a
batch_first GRU."""
import torch
import torch.nn.functional as F


class Swap(torch.nn.Module):
    """torch.swapaxes as MaxViT calls it: a submodule's result is traced
    as aten::swapaxes (inline, the tracer records aten::transpose)."""
    def forward(self, x):
        return torch.swapaxes(x, -2, -1)


class AtenForms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.table = torch.nn.Parameter(torch.randn(7, 2))
        self.register_buffer("bias_index", torch.tensor([[0, 3, 6], [1, 4, 2], [5, 5, 0], [6, 1, 3]]))
        self.gru = torch.nn.GRU(8, 5, batch_first=True, bidirectional=True)
        self.swap = Swap()

    def forward(self, x):                                   # (2, 4, 8)
        q, k, v = self.qkv(x).chunk(3, dim=-1)              # chunk + ListUnpack
        att = (q @ self.swap(k)).softmax(-1)              # (2, 4, 4)
        bias = self.table[self.bias_index]                  # Tensor?[] index: (4, 3, 2)
        y = F.gelu(att @ v, approximate="tanh")
        z = torch.div(y * 7.0, 0.75, rounding_mode="floor") + torch.div(y * 5.0, 0.6, rounding_mode="trunc")
        s = torch.std(y, 1, correction=2)
        c = torch.clamp(y, y.mean(-1, keepdim=True) - 0.1, y.amax(1, keepdim=True))
        r = torch.repeat_interleave(y, torch.tensor([2, 0, 1, 3]), dim=1)
        g, h = self.gru(x)
        return z, s, c, r, bias, g, h
