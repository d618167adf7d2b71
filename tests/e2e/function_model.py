"""What a newcomer exports: a small CNN calling an autograd Function with
scalar arguments and no `symbolic`, `view(x.size(0), -1)` and
`arange(x.size(1))` (sizes computed at run time; arange of a computed size
needs opset 11).  torch 1.13's exporter inlines the Function's body;
symonnx does the same from the body tools/torch2trace.py records, and a
symbolic registered for it (doc/examples/plugin/scaled-square-plugin.c)
wins over the body."""
import torch


class ScaledSquare(torch.autograd.Function):
    """alpha * x * x + x.sum(dims[0], keepdim=True)"""

    @staticmethod
    def forward(ctx, x, alpha, dims):
        return x * x * alpha + x.sum(dims[0], keepdim=True)

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        h = ScaledSquare.apply(torch.relu(self.conv(x)), 0.5, (1, 2))
        h = h.view(h.size(0), -1)
        h = h + torch.arange(h.size(1), dtype=h.dtype) / 100.0
        return self.fc(h)
