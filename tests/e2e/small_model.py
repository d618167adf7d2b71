"""A model made only of aten ops the executor runs itself (relu, mul, add,
tanh, sigmoid), so `symonnx verify` can check an export against the trace
with no expected files."""
import torch


class Small(torch.nn.Module):
    def forward(self, x, y):
        return torch.tanh(torch.relu(x) * x + y) - torch.sigmoid(y) * 2.0
