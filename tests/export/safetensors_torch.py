#!/usr/bin/python3
"""Writes a PyTorch state_dict as .safetensors (with the reference writer in
safetensors_ref.py) for tests/export/test-safetensors.c to load.

usage: safetensors_torch.py OUTDIR

OUTDIR/model.safetensors, metadata {"format": "pt"}; OUTDIR/manifest.txt has
tab-separated lines  NAME DTYPE SHAPE INDEX  and OUTDIR/INDEX.bin the
tensor's bytes taken from torch (little-endian, C order).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_ref  # noqa: E402

OUT = sys.argv[1]
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
    torch.nn.Flatten(), torch.nn.Linear(8 * 6 * 6, 10))
model(torch.randn(2, 3, 8, 8))          # moves the BatchNorm running stats
sd = dict(model.state_dict())
sd['extra.half'] = torch.randn(3, 5).half()
sd['extra.bf16'] = torch.randn(4, 3).bfloat16()
sd['extra.f64'] = torch.randn(2, 2, dtype=torch.float64)
sd['extra.i8'] = torch.randint(-128, 128, (7,), dtype=torch.int8)
sd['extra.u8'] = torch.randint(0, 256, (5,), dtype=torch.uint8)
sd['extra.i16'] = torch.randint(-30000, 30000, (3,), dtype=torch.int16)
sd['extra.i32'] = torch.randint(-2**31, 2**31 - 1, (2, 2), dtype=torch.int32)
sd['extra.bool'] = torch.rand(9) > 0.5
sd['extra.empty'] = torch.zeros(0, 4)
sd['extra.scalar'] = torch.tensor(2.5)

DT = {torch.float32: 'F32', torch.float64: 'F64', torch.float16: 'F16',
      torch.bfloat16: 'BF16', torch.int8: 'I8', torch.uint8: 'U8',
      torch.int16: 'I16', torch.int32: 'I32', torch.int64: 'I64', torch.bool: 'BOOL'}


def raw(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)        # numpy has no bfloat16
    return t.numpy().tobytes()


tensors = {k: (DT[v.dtype], tuple(v.shape), raw(v)) for k, v in sd.items()}
with open(os.path.join(OUT, 'model.safetensors'), 'wb') as f:
    f.write(safetensors_ref.serialize(tensors, {'format': 'pt'}))
with open(os.path.join(OUT, 'manifest.txt'), 'w') as m:
    for i, (k, (dt, shape, data)) in enumerate(sorted(tensors.items())):
        with open(os.path.join(OUT, f'{i}.bin'), 'wb') as f:
            f.write(data)
        m.write(f"{k}\t{dt}\t{','.join(map(str, shape)) or 'scalar'}\t{i}\n")
print(f'wrote {len(tensors)} tensors')
