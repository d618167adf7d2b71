"""Issue 13's small model: the ops torch.onnx 1.13 cannot export in ONNX
mode but exports with ATEN_FALLBACK (adaptive pooling to sizes that do not
divide the input, adaptive max pooling, affine_grid + grid_sample, atan2,
cumprod, frac, trunc).  symonnx must run its aten and aten-fallback
exports in its own executor and match PyTorch."""
import torch
import torch.nn.functional as F


class Issue13(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.loc = torch.nn.Linear(4 * 3 * 5, 6)

    def forward(self, x):
        y = torch.relu(self.conv(x))                       # (N, 4, 10, 14)
        a = F.adaptive_avg_pool2d(y, (3, 5))               # 10/3, 14/5: windows overlap
        m, _ = F.adaptive_max_pool2d(y, (4, 3), return_indices=True)
        theta = torch.tanh(self.loc(a.flatten(1))).view(-1, 2, 3)
        grid = F.affine_grid(theta, [x.size(0), 4, 6, 7], align_corners=False)
        s = F.grid_sample(y, grid, align_corners=False)    # (N, 4, 6, 7)
        t = torch.atan2(a, a.flip(-1) + 0.5)
        c = torch.cumprod(torch.sigmoid(m), dim=-1)
        f = torch.frac(s * 3.0) + torch.trunc(s * 2.0)
        return f, t, c
