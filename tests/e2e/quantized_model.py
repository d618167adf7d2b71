"""A small quantized model, built as torchvision's quantized builders are
(eager mode, the qnnpack engine, fused conv + relu, QuantStub/DeQuantStub),
calibrated on seeded data in its constructor so that
`torch2trace.py --module quantized_model.py:QuantizedSmall` traces it.  Its
last op is a quantized hardsigmoid, whose output PyTorch always quantizes
with scale 1/256 and zero point 0: the output's quantization step is known
without running it."""
import torch
import torch.ao.quantization as tq
import torch.nn as nn


class _Float(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.hardswish = nn.Hardswish()
        self.skip = nn.quantized.FloatFunctional()
        self.fc = nn.Linear(8 * 6 * 6, 5)
        self.hardsigmoid = nn.Hardsigmoid()
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        y = self.relu(self.conv(self.quant(x)))
        y = self.skip.add(y, self.hardswish(y))
        y = torch.flatten(nn.functional.max_pool2d(y, 2), 1)
        return self.dequant(self.hardsigmoid(self.fc(y)))


class QuantizedSmall(nn.Module):
    def __init__(self):
        super().__init__()
        torch.backends.quantized.engine = "qnnpack"
        with torch.random.fork_rng():
            torch.manual_seed(0)
            m = _Float().eval()
            tq.fuse_modules(m, [["conv", "relu"]], inplace=True)
            m.qconfig = tq.get_default_qconfig("qnnpack")
            tq.prepare(m, inplace=True)
            m(torch.randn(4, 3, 12, 12))
            tq.convert(m, inplace=True)
        self.body = m

    def forward(self, x):
        return self.body(x)
