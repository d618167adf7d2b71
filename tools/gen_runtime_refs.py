#!/usr/bin/python3
"""Reference outputs of ATen operators for the runtime's ATen kernels.

Run with Debian's python (torch 1.13):  /usr/bin/python3 tools/gen_runtime_refs.py
Writes tests/fixtures/runtime/<case>_in<N>.npy and <case>_out.npy.  The C
test (tests/runtime/test-aten.c) builds one ATen node per case with the
same inputs, in torch 1.13's schema order, and compares with <case>_out.npy.
"""
import os
import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'runtime')
rng = np.random.default_rng(1234)


def f32(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def save(case, inputs, out):
    for i, a in enumerate(inputs):
        np.save(os.path.join(OUT, f'{case}_in{i}.npy'), a)
    np.save(os.path.join(OUT, f'{case}_out.npy'), out.numpy() if isinstance(out, torch.Tensor) else out)


def T(a):
    return torch.from_numpy(a)


def main():
    os.makedirs(OUT, exist_ok=True)
    a, b = f32(2, 3, 4), f32(3, 1)
    save('mul_tensor', [a, b], torch.mul(T(a), T(b)))
    a = f32(3, 4)
    save('mul_scalar', [a], torch.mul(T(a), 2.5))
    a, b = f32(3, 4), f32(4)
    save('add_alpha', [a, b], torch.add(T(a), T(b), alpha=0.5))
    a, b = rng.integers(-50, 50, 5).astype(np.int64), rng.integers(-50, 50, 5).astype(np.int64)
    save('add_int', [a, b], torch.add(T(a), T(b), alpha=3))
    a, b = f32(2, 5), f32(2, 5)
    save('sub_alpha', [a, b], torch.sub(T(a), T(b), alpha=2))
    a = rng.integers(-20, 20, 6).astype(np.int64)
    b = rng.integers(1, 7, 6).astype(np.int64)
    save('div_int', [a, b], torch.div(T(a), T(b)))
    a = f32(4, 3, lo=0.1, hi=3.0)
    save('pow_scalar', [a], torch.pow(T(a), 2.0))
    a, b = f32(4, 3, lo=0.1, hi=3.0), f32(3, lo=-1.5, hi=1.5)
    save('pow_tensor', [a, b], torch.pow(T(a), T(b)))
    save('ones', [], torch.ones(2, 3, dtype=torch.float32))
    save('zeros_long', [], torch.zeros(4, 1, 2, dtype=torch.int64))
    x = f32(1, 2, 3, 4)
    save('upsample_align', [x], torch.ops.aten.upsample_bilinear2d(T(x), [5, 7], True, None))
    x = f32(2, 3, 4, 5)
    save('upsample_scales', [x], torch.ops.aten.upsample_bilinear2d(T(x), None, False, [2.0, 1.5]))
    x = f32(3, 4, 5)
    save('triu', [x], torch.triu(T(x), 1))
    save('tril', [x], torch.tril(T(x), -1))
    x = f32(3, 4, lo=0.5, hi=1.5)
    save('cumprod', [x], torch.cumprod(T(x), 1))
    x = f32(3, 7)
    save('relu', [x], torch.relu(T(x)))
    save('elu', [x], torch.ops.aten.elu(T(x), 0.7, 1.2, 0.8))


if __name__ == '__main__':
    main()
