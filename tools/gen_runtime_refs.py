#!/usr/bin/python3
"""Reference outputs of ATen operators for the runtime's ATen kernels.

Run with Debian's python (torch 1.13):  /usr/bin/python3 tools/gen_runtime_refs.py
Writes tests/fixtures/runtime/<case>_in<N>.npy and <case>_out.npy (more
outputs: <case>_out1.npy ...).  The C tests (tests/runtime/test-aten.c,
test-aten-nn.c) build one ATen node per case with the same inputs, in torch
1.13's schema order, and compare with <case>_out.npy.
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
    out = out.numpy() if isinstance(out, torch.Tensor) else out
    np.save(os.path.join(OUT, f'{case}_out.npy'), np.array(out, order='C'))  # C order, 0-d kept


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



def nn_cases():
    """The ATen kernels of the seed models' traces (runtime/k-aten-*.c), as
    torch.ops.aten calls; tests/runtime/test-aten-nn.c lists the same
    arguments.  A separate generator, so the cases above keep their data."""
    global rng
    rng = np.random.default_rng(4321)
    A = torch.ops.aten
    x, w, b = f32(1, 3, 7, 8), f32(4, 3, 3, 3), f32(4)
    save('conv', [x, w, b], A._convolution(T(x), T(w), T(b), [2, 1], [1, 0], [1, 2], False, [0, 0], 1,
                                           False, False, True, True))
    x, w = f32(2, 4, 6, 6), f32(6, 2, 3, 3)
    save('conv_groups', [x, w], A._convolution(T(x), T(w), None, [1, 1], [1, 1], [1, 1], False, [0, 0], 2,
                                                False, False, True, True))
    x, w, b = f32(1, 4, 5, 5), f32(4, 3, 3, 3), f32(6)
    save('conv_transposed', [x, w, b], A._convolution(T(x), T(w), T(b), [2, 2], [1, 1], [1, 1], True, [1, 1], 2,
                                                        False, False, True, True))
    x, w, b = f32(2, 3, 10), f32(5, 3, 3), f32(5)
    save('conv1d', [x, w, b], A._convolution(T(x), T(w), T(b), [1], [2], [2], False, [0], 1,
                                             False, False, True, True))
    x, sc, bb, m, v = f32(2, 3, 4, 5), f32(3), f32(3), f32(3), f32(3, lo=0.5, hi=1.5)
    save('batch_norm', [x, sc, bb, m, v], A.batch_norm(T(x), T(sc), T(bb), T(m), T(v), False, 0.1, 1e-3, True))
    x, m, v = f32(2, 3, 4), f32(3), f32(3, lo=0.5, hi=1.5)
    save('batch_norm_plain', [x, m, v], A.batch_norm(T(x), None, None, T(m), T(v), False, 0.1, 1e-5, True))
    x = f32(1, 2, 7, 9)
    save('max_pool2d', [x], A.max_pool2d(T(x), [3, 3], [2, 2], [1, 1], [1, 1], False))
    save('max_pool2d_ceil', [x], A.max_pool2d(T(x), [3, 2], [2, 2], [0, 1], [2, 1], True))
    save('avg_pool2d', [x], A.avg_pool2d(T(x), [3, 3], [2, 2], [1, 1], True, False, None))
    save('avg_pool2d_pad', [x], A.avg_pool2d(T(x), [2, 2], [], [1, 1], False, True, None))
    x = f32(1, 3, 7, 10)
    save('adaptive_avg_pool2d', [x], A.adaptive_avg_pool2d(T(x), [3, 4]))
    x, w, b = f32(2, 3, 5), f32(4, 5), f32(4)
    save('linear', [x, w, b], A.linear(T(x), T(w), T(b)))
    x, w = f32(5), f32(3, 5)
    save('linear_nobias', [x, w], A.linear(T(x), T(w)))
    c, a, bm = f32(4), f32(2, 3), f32(3, 4)
    save('addmm', [c, a, bm], A.addmm(T(c), T(a), T(bm), beta=0.5, alpha=2.0))
    a, bm = f32(2, 3, 4), f32(4, 5)
    save('matmul', [a, bm], A.matmul(T(a), T(bm)))
    a, bm = f32(3, 4), f32(4, 2)
    save('mm', [a, bm], A.mm(T(a), T(bm)))
    a = f32(3, 5)
    save('t', [a], A.t(T(a)))
    x = f32(2, 3, 4)
    save('dropout', [x], A.dropout(T(x), 0.5, False))
    save('view', [x], A.view(T(x), [4, -1]))
    save('reshape', [x], A.reshape(T(x), [-1, 2, 2]))
    save('size', [x], np.array(A.size(T(x), -1), dtype=np.int64))
    x = f32(2, 3, 4, 5)
    save('flatten', [x], A.flatten(T(x), 1, -1))
    save('flatten_mid', [x], A.flatten(T(x), 1, 2))
    p, q, r = f32(2, 1, 3), f32(2, 4, 3), f32(2, 2, 3)
    save('cat', [p, q, r], A.cat([T(p), T(q), T(r)], 1))
    x = f32(1, 8, 3, 4)
    save('pixel_shuffle', [x], A.pixel_shuffle(T(x), 2))
    wt, ind = f32(10, 4), rng.integers(0, 10, (2, 3)).astype(np.int64)
    save('embedding', [wt, ind], A.embedding(T(wt), T(ind), -1, False, False))
    x = f32(2, 5, 3)
    save('log_softmax', [x], A.log_softmax(T(x), 1))
    save('softmax', [x], A.softmax(T(x), -1))
    x = f32(3, 4)
    save('relu_', [x], A.relu_(T(x).clone()))
    a, bm = f32(3, 4), f32(4)
    save('add_', [a, bm], A.add_(T(a).clone(), T(bm), alpha=2))
    # lstm: 2 layers, bidirectional, with biases; params per layer and direction.
    T_, B_, I_, H_ = 5, 2, 3, 4
    x, h0, c0 = f32(T_, B_, I_), f32(4, B_, H_), f32(4, B_, H_)
    params = []
    for layer in range(2):
        inp = I_ if layer == 0 else 2 * H_
        for _ in range(2):
            params += [f32(4 * H_, inp, lo=-0.5, hi=0.5), f32(4 * H_, H_, lo=-0.5, hi=0.5),
                       f32(4 * H_, lo=-0.5, hi=0.5), f32(4 * H_, lo=-0.5, hi=0.5)]
    out, hy, cy = A.lstm(T(x), [T(h0), T(c0)], [T(p) for p in params], True, 2, 0.0, False, True, False)
    save('lstm', [x, h0, c0] + params, out)
    np.save(os.path.join(OUT, 'lstm_out1.npy'), hy.numpy())
    np.save(os.path.join(OUT, 'lstm_out2.npy'), cy.numpy())


if __name__ == '__main__':
    main()
    nn_cases()
