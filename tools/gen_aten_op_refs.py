#!/usr/bin/python3
"""torch 1.13's outputs for the ATen kernels of runtime/k-aten-{math,act,
reduce,tensor,pool2}.c, and the bad calls torch refuses.

Run with Debian's python (torch 1.13):  /usr/bin/python3 tools/gen_aten_op_refs.py
Writes tests/fixtures/aten-ops/: <case>_in<N>.npy, <case>_out<K>.npy and
cases.tsv, one line per case:
    name  op  args  n_outputs  rtol  atol  error
`args` is the argument list in schema order in the spec language of
tests/runtime/aten-testutil.h (npy, npys:N, none, f:X, i:N, b:0|1, s:STR,
is:a,b, fs:a,b).  `error` is "-" for a case torch computes, or "error" for
one torch refuses (bad shapes, wrong dtypes): the executor must refuse it
too, with an error and no crash.  tests/runtime/test-aten-ops.c reads
cases.tsv and runs each case as an ATen node and as a trace node.
"""
import math
import os
import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'aten-ops')
rng = np.random.default_rng(20261124)
A = torch.ops.aten
lines = []
half_lines = []


class IL(list):
    """int[]"""


class FL(list):
    """float[]"""


class S(str):
    """str"""


class TL(list):
    """Tensor[]"""


def f32(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def f64(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float64)


def i64(*shape, lo=-5, hi=6):
    return rng.integers(lo, hi, size=shape).astype(np.int64)


def b8(*shape):
    return rng.integers(0, 2, size=shape).astype(np.bool_)


def spec(args):
    """The spec string, the npy inputs in order and the torch arguments."""
    parts, npys, targs = [], [], []
    for a in args:
        if isinstance(a, np.ndarray):
            parts.append('npy')
            npys.append(a)
            targs.append(torch.from_numpy(a.copy()))
        elif isinstance(a, TL):
            parts.append(f'npys:{len(a)}')
            npys += list(a)
            targs.append([torch.from_numpy(x.copy()) for x in a])
        elif a is None:
            parts.append('none')
            targs.append(None)
        elif isinstance(a, bool):
            parts.append(f'b:{int(a)}')
            targs.append(a)
        elif isinstance(a, int):
            parts.append(f'i:{a}')
            targs.append(a)
        elif isinstance(a, float):
            parts.append(f'f:{a!r}')
            targs.append(a)
        elif isinstance(a, S):
            parts.append(f's:{a}')
            targs.append(str(a))
        elif isinstance(a, IL):
            parts.append('is:' + ','.join(str(v) for v in a))
            targs.append(list(a))
        elif isinstance(a, FL):
            parts.append('fs:' + ','.join(repr(float(v)) for v in a))
            targs.append([float(v) for v in a])
        else:
            raise TypeError(a)
    return ';'.join(parts), npys, targs


def save_inputs(name, npys):
    for i, a in enumerate(npys):
        np.save(os.path.join(OUT, f'{name}_in{i}.npy'), a)


def call(op, targs, fn, kw):
    """torch's call; the last len(kw) arguments are keyword-only ones.
    "ns::op" is another namespace's op (torchvision::nms)."""
    if fn:
        return fn(*targs)
    n = len(targs) - len(kw)
    ns, _, name = op.rpartition('::')
    f = getattr(getattr(torch.ops, ns), name) if ns else getattr(A, op)
    return f(*targs[:n], **dict(zip(kw, targs[n:])))


def case(name, op, *args, rtol=1e-5, atol=1e-6, fn=None, kw=()):
    """One call torch computes: outputs saved as <name>_out<K>.npy; and
    the same call in float16 when it has float32 inputs (half_case)."""
    s, npys, targs = spec(args)
    out = call(op, targs, fn, kw)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    save_inputs(name, npys)
    for k, o in enumerate(outs):
        o = o.numpy() if isinstance(o, torch.Tensor) else np.array(o)
        np.save(os.path.join(OUT, f'{name}_out{k}.npy'), np.array(o, order='C'))
    lines.append(f'{name}\t{op}\t{s}\t{len(outs)}\t{rtol!r}\t{atol!r}\t-')
    half_case(name, op, args, fn, kw)


def to_half(a):
    if isinstance(a, np.ndarray) and a.dtype == np.float32:
        return a.astype(np.float16)
    if isinstance(a, TL):
        return TL([to_half(x) for x in a])
    return a


def half_case(name, op, args, fn, kw):
    """The case with its float32 inputs in float16, where torch 1.13's CPU
    kernels compute it (many refuse half: those are left out), in
    cases-half.tsv as <name>_h.  The executor must give torch's float16
    results (within half's precision) or refuse with an error."""
    hargs = [to_half(a) for a in args]
    if all(h is a for h, a in zip(hargs, args)):
        return
    s, npys, targs = spec(hargs)
    try:
        out = call(op, targs, fn, kw)
    except (RuntimeError, TypeError, ValueError, IndexError):
        return
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    hname = name + '_h'
    save_inputs(hname, npys)
    for k, o in enumerate(outs):
        o = o.numpy() if isinstance(o, torch.Tensor) else np.array(o)
        np.save(os.path.join(OUT, f'{hname}_out{k}.npy'), np.array(o, order='C'))
    half_lines.append(f'{hname}\t{op}\t{s}\t{len(outs)}\t0.01\t0.01\t-')


def bad(name, op, *args, n_outputs=1, fn=None, kw=()):
    """A call torch refuses; the executor must refuse it too."""
    s, npys, targs = spec(args)
    try:
        call(op, targs, fn, kw)
    except (RuntimeError, IndexError, TypeError, ValueError):
        pass
    else:
        raise AssertionError(f'torch accepts {name}')
    save_inputs(name, npys)
    lines.append(f'{name}\t{op}\t{s}\t{n_outputs}\t0.0\t0.0\terror')


def issue_ops():
    """The ops of issue 13's small model."""
    x = f32(2, 3, 7, 10)
    case('adaptive_avg_pool2d_nondiv', 'adaptive_avg_pool2d', x, IL([3, 4]))
    case('adaptive_avg_pool2d_up', 'adaptive_avg_pool2d', f32(1, 2, 3, 3), IL([5, 4]))
    case('adaptive_max_pool2d', 'adaptive_max_pool2d', x, IL([3, 4]), rtol=0, atol=0)
    case('adaptive_max_pool2d_up', 'adaptive_max_pool2d', f32(1, 2, 3, 5), IL([4, 7]), rtol=0, atol=0)
    case('adaptive_max_pool1d', 'adaptive_max_pool1d', f32(2, 3, 11), IL([4]), rtol=0, atol=0)
    case('adaptive_max_pool3d', 'adaptive_max_pool3d', f32(1, 2, 5, 6, 7), IL([2, 3, 4]), rtol=0, atol=0)
    case('adaptive_max_pool2d_f64', 'adaptive_max_pool2d', f64(1, 2, 5, 5), IL([2, 3]), rtol=0, atol=0)
    bad('adaptive_max_pool2d_rank', 'adaptive_max_pool2d', f32(5, 5), IL([2, 2]), n_outputs=2)
    bad('adaptive_max_pool2d_int', 'adaptive_max_pool2d', i64(1, 1, 4, 4), IL([2, 2]), n_outputs=2)
    theta = f32(2, 2, 3)
    case('affine_grid', 'affine_grid_generator', theta, IL([2, 3, 4, 5]), False)
    case('affine_grid_align', 'affine_grid_generator', theta, IL([2, 1, 3, 6]), True)
    case('affine_grid_3d', 'affine_grid_generator', f32(1, 3, 4), IL([1, 1, 2, 3, 4]), False)
    bad('affine_grid_bad_theta', 'affine_grid_generator', f32(2, 3, 3), IL([2, 3, 4, 5]), False)
    inp, grid = f32(2, 3, 5, 6), f32(2, 4, 7, 2, lo=-1.2, hi=1.2)
    for m, mn in ((0, 'bilinear'), (1, 'nearest'), (2, 'bicubic')):
        for p, pn in ((0, 'zeros'), (1, 'border'), (2, 'reflection')):
            for al in (False, True):
                case(f'grid_sampler_{mn}_{pn}_{int(al)}', 'grid_sampler', inp, grid, m, p, al,
                     rtol=1e-4, atol=1e-5)
    bad('grid_sampler_bad_grid', 'grid_sampler', inp, f32(2, 4, 7, 3), 0, 0, False)
    a, b = f32(3, 4), f32(4)
    case('atan2', 'atan2', a, b)
    case('atan2_f64', 'atan2', f64(5), f64(5))
    case('atan2_int', 'atan2', i64(6), i64(6))
    bad('atan2_shapes', 'atan2', f32(3, 4), f32(5))
    x = f32(3, 5, lo=-4, hi=4)
    case('frac', 'frac', x)
    case('trunc', 'trunc', x)
    case('trunc_f64', 'trunc', f64(7, lo=-9, hi=9))
    case('cumprod_dim0', 'cumprod', f32(4, 3, lo=0.5, hi=1.5), 0)
    case('cumprod_int', 'cumprod', i64(2, 5, lo=-3, hi=4), 1)
    case('cumprod_dtype', 'cumprod', i64(6, lo=1, hi=4), 0, 6, fn=lambda t, d, dt: A.cumprod(t, d, dtype=torch.float32))


def math_ops():
    """Element-wise math: the ONNX element-wise loops (runtime/k-aten-math.c)."""
    x = f32(3, 4)
    pos = f32(3, 4, lo=0.1, hi=3.0)
    unit = f32(3, 4, lo=-0.95, hi=0.95)
    for op, a in (('abs', x), ('ceil', x), ('floor', x), ('cos', x), ('sin', x), ('tan', unit),
                  ('cosh', x), ('sinh', x), ('atan', x), ('asin', unit), ('acos', unit),
                  ('erf', x), ('exp', x), ('log', pos), ('sqrt', pos), ('reciprocal', pos),
                  ('sign', x), ('neg', x), ('sigmoid', x), ('tanh', x), ('round', f32(9, lo=-5, hi=5)),
                  ('log2', pos), ('log10', pos), ('log1p', pos), ('rsqrt', pos), ('square', x),
                  ('expm1', x), ('asinh', x), ('atanh', unit)):
        case(op, op, a)
    case('abs_int', 'abs', i64(7))
    case('neg_int', 'neg', i64(7))
    case('sign_int', 'sign', i64(7))
    case('sqrt_int', 'sqrt', i64(5, lo=0, hi=20))
    case('exp_f64', 'exp', f64(4))
    bad('bitwise_and_float', 'bitwise_and', f32(3), f32(3))
    bad('lerp_int', 'lerp', i64(3), i64(3), 0.5)


def binary_ops():
    """Binary, comparison and logical ops (runtime/k-aten-math.c)."""
    a, b = f32(2, 3, 4), f32(3, 1)
    for op in ('maximum', 'minimum', 'fmod', 'remainder', 'floor_divide', 'true_divide'):
        bb = b if op not in ('fmod', 'remainder', 'floor_divide', 'true_divide') else f32(3, 1, lo=0.5, hi=2)
        case(op, op, a, bb)
    ia, ib = i64(4, 5, lo=-20, hi=20), i64(5, lo=1, hi=7)
    for op in ('maximum', 'minimum', 'fmod', 'remainder', 'floor_divide'):
        case(f'{op}_int', op, ia, ib)
    case('rsub', 'rsub', a, b, 2.0, fn=lambda x, y, al: A.rsub.Tensor(x, y, alpha=al))
    case('rsub_scalar', 'rsub', a, np.array(1.5, dtype=np.float64), 1.0, fn=lambda x, y, al: A.rsub.Scalar(x, float(y), alpha=al))
    for op in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
        case(op, op, a, b)
        case(f'{op}_int', op, ia, ib)
    ba, bb2 = b8(3, 4), b8(4)
    for op in ('logical_and', 'logical_or', 'logical_xor'):
        case(op, op, ba, bb2)
    case('logical_not', 'logical_not', ba)
    case('logical_and_float', 'logical_and', a, b)
    for op in ('bitwise_and', 'bitwise_or', 'bitwise_xor'):
        case(op, op, ia, ib)
        case(f'{op}_bool', op, ba, bb2)
    case('bitwise_not', 'bitwise_not', ia)
    case('bitwise_not_bool', 'bitwise_not', ba)
    case('__and__', '__and__', ba, bb2)
    case('__or__', '__or__', ba, bb2)
    case('__xor__', '__xor__', ia, ib)
    c = b8(2, 3, 4)
    case('where', 'where', c, a, f32(4))
    case('masked_fill', 'masked_fill', a, b8(3, 4), 0.25, fn=lambda x, m, v: A.masked_fill(x, m, v))
    case('clamp', 'clamp', a, -0.5, 0.75)
    case('clamp_min_only', 'clamp', a, -0.5, None)
    case('clamp_int', 'clamp', ia, -3, 4)
    case('clamp_min', 'clamp_min', a, 0.1)
    case('clamp_max', 'clamp_max', a, 0.1)
    case('clip', 'clip', a, -1.0, 1.0)
    case('lerp', 'lerp', a, f32(2, 3, 4), 0.3)
    case('addcmul', 'addcmul', a, f32(3, 4), f32(2, 1, 4), 0.5, kw=('value',))
    case('isnan', 'isnan', np.array([1.0, np.nan, np.inf, -np.inf, 0.0], dtype=np.float32))
    case('isinf', 'isinf', np.array([1.0, np.nan, np.inf, -np.inf, 0.0], dtype=np.float32))
    case('isfinite', 'isfinite', np.array([1.0, np.nan, np.inf, -np.inf, 0.0], dtype=np.float32))
    case('nan_to_num', 'nan_to_num', np.array([1.0, np.nan, np.inf, -np.inf, 0.0], dtype=np.float32), 0.5, 7.0, -7.0)
    case('nan_to_num_default', 'nan_to_num', np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32), None, None, None)
    bad('maximum_shapes', 'maximum', f32(3, 4), f32(5))
    bad('where_shapes', 'where', b8(3), f32(4), f32(4))


def activations():
    """Activations (runtime/k-aten-act.c)."""
    x = f32(3, 5, lo=-4, hi=4)
    case('leaky_relu', 'leaky_relu', x, 0.2)
    case('hardtanh', 'hardtanh', x, -1.5, 2.0)
    case('relu6', 'relu6', x)
    case('gelu', 'gelu', x, S('none'), kw=('approximate',))
    case('gelu_tanh', 'gelu', x, S('tanh'), kw=('approximate',))
    case('silu', 'silu', x)
    case('mish', 'mish', x)
    case('selu', 'selu', x)
    case('celu', 'celu', x, 0.7)
    case('hardsigmoid', 'hardsigmoid', x)
    case('hardswish', 'hardswish', x)
    case('softplus', 'softplus', x, 2.0, 3.0)
    case('log_sigmoid', 'log_sigmoid', x)
    case('softsign', 'softsign', x, fn=lambda t: torch.nn.functional.softsign(t))
    case('hardshrink', 'hardshrink', x, 0.7)
    case('softshrink', 'softshrink', x, 0.7)
    case('tanhshrink', 'tanhshrink', x, fn=lambda t: torch.nn.functional.tanhshrink(t))
    case('threshold', 'threshold', x, 0.5, -3.0)
    case('elu_f64', 'elu', f64(6), 1.0, 1.0, 1.0)
    case('prelu', 'prelu', f32(2, 3, 4), f32(3))
    case('glu', 'glu', f32(2, 6), -1)
    bad('gelu_mode', 'gelu', x, S('cubic'), kw=('approximate',))
    bad('glu_odd', 'glu', f32(2, 5), -1)
    bad('prelu_channels', 'prelu', f32(2, 3, 4), f32(2))


def reductions():
    """Reductions (runtime/k-aten-reduce.c)."""
    x = f32(3, 4, 5)
    case('sum_dim', 'sum', x, IL([1]), False, None, fn=lambda t, d, k, dt: A.sum(t, d, k, dtype=dt))
    case('sum_keep', 'sum', x, IL([0, 2]), True, None, fn=lambda t, d, k, dt: A.sum(t, d, k, dtype=dt))
    case('sum_all', 'sum', x, None, fn=lambda t, dt: A.sum(t, dtype=dt))
    case('sum_int', 'sum', i64(4, 3), IL([0]), False, None, fn=lambda t, d, k, dt: A.sum(t, d, k, dtype=dt))
    case('mean_dim', 'mean', x, IL([-1]), True, None, fn=lambda t, d, k, dt: A.mean(t, d, k, dtype=dt))
    case('mean_all', 'mean', x, None, fn=lambda t, dt: A.mean(t, dtype=dt))
    case('prod_dim', 'prod', f32(3, 4, lo=0.5, hi=1.5), 1, False, None, fn=lambda t, d, k, dt: A.prod(t, d, k, dtype=dt))
    case('amax', 'amax', x, IL([1, 2]), False)
    case('amin', 'amin', x, IL([0]), True)
    case('argmax', 'argmax', x, 1, False)
    case('argmax_all', 'argmax', x, None, False)
    case('argmin', 'argmin', x, -1, True)
    case('max_dim', 'max', x, 1, False, fn=lambda t, d, k: A.max(t, d, k))
    case('min_dim', 'min', x, 2, True, fn=lambda t, d, k: A.min(t, d, k))
    case('max_all', 'max', x)
    case('min_all', 'min', x)
    case('max_other', 'max', x, f32(4, 5), fn=lambda a, b: A.max(a, b))
    case('logsumexp', 'logsumexp', x, IL([1]), False)
    case('std', 'std', x, IL([1]), True, False, fn=lambda t, d, u, k: A.std(t, d, u, k))
    case('var', 'var', x, IL([0, 2]), False, True, fn=lambda t, d, u, k: A.var(t, d, u, k))
    case('std_all', 'std', x, True, fn=lambda t, u: A.std(t, u))
    case('var_mean', 'var_mean', x, IL([1]), True, False, fn=lambda t, d, u, k: A.var_mean(t, d, u, k))
    case('std_mean', 'std_mean', x, IL([2]), True, True, fn=lambda t, d, u, k: A.std_mean(t, d, u, k))
    case('cumsum', 'cumsum', x, 1, None, fn=lambda t, d, dt: A.cumsum(t, d))
    case('cumsum_int', 'cumsum', i64(3, 4), 0, None, fn=lambda t, d, dt: A.cumsum(t, d))
    case('norm', 'norm', x, 2.0, IL([1]), False, fn=lambda t, p, d, k: A.norm(t, p, d, k))
    case('norm_p1', 'norm', x, 1.0, IL([0, 2]), True, fn=lambda t, p, d, k: A.norm(t, p, d, k))
    case('frobenius_norm', 'frobenius_norm', x, IL([1, 2]), False)
    case('linalg_vector_norm', 'linalg_vector_norm', x, 3.0, IL([2]), False, None, kw=('dtype',))
    bad('sum_bad_dim', 'sum', x, IL([3]), False, None, fn=lambda t, d, k, dt: A.sum(t, d, k, dtype=dt))
    bad('argmax_bad_dim', 'argmax', x, 5, False)


def tensor_ops():
    """Shape, index and creation ops (runtime/k-aten-tensor.c)."""
    x = f32(2, 3, 4)
    case('transpose', 'transpose', x, 0, 2, rtol=0, atol=0)
    case('permute', 'permute', x, IL([1, 2, 0]), rtol=0, atol=0)
    case('unsqueeze', 'unsqueeze', x, -1, rtol=0, atol=0)
    case('squeeze_dim', 'squeeze', f32(2, 1, 3), 1, rtol=0, atol=0)
    case('squeeze_all', 'squeeze', f32(1, 2, 1, 3), rtol=0, atol=0)
    case('expand', 'expand', f32(3, 1), IL([2, 3, 4]), False, rtol=0, atol=0, kw=('implicit',))
    case('expand_neg', 'expand', f32(3, 1), IL([-1, 5]), False, rtol=0, atol=0, kw=('implicit',))
    case('expand_as', 'expand_as', f32(3, 1), f32(2, 3, 4), rtol=0, atol=0)
    case('select', 'select', x, 1, -1, rtol=0, atol=0)
    case('slice', 'slice', x, 2, 1, 4, 2, rtol=0, atol=0)
    case('slice_big', 'slice', x, 0, 0, 9223372036854775807, 1, rtol=0, atol=0)
    case('slice_neg', 'slice', x, 1, -2, None, 1, rtol=0, atol=0)
    case('narrow', 'narrow', x, 2, 1, 2, rtol=0, atol=0)
    case('flip', 'flip', x, IL([0, 2]), rtol=0, atol=0)
    case('repeat', 'repeat', f32(2, 3), IL([2, 1, 2]), rtol=0, atol=0)
    case('stack', 'stack', TL([f32(2, 3), f32(2, 3), f32(2, 3)]), 1, rtol=0, atol=0)
    case('roll', 'roll', x, IL([1, -2]), IL([0, 2]), rtol=0, atol=0)
    case('roll_flat', 'roll', x, IL([5]), IL([]), rtol=0, atol=0)
    case('detach', 'detach', x, rtol=0, atol=0)
    case('alias', 'alias', x, rtol=0, atol=0)
    case('view_as', 'view_as', x, f32(6, 4), rtol=0, atol=0)
    case('reshape_as', 'reshape_as', x, f32(4, 6), rtol=0, atol=0)
    case('type_as', 'type_as', x, i64(2), rtol=0, atol=0)
    case('to_dtype', 'to', x, 4, False, False, None, fn=lambda t, d, nb, c, mf: A.to(t, torch.int64, nb, c))
    case('to_double', 'to', i64(5), 7, False, False, None, fn=lambda t, d, nb, c, mf: A.to(t, torch.float64, nb, c))
    case('zeros_like', 'zeros_like', x, None, None, None, None, None, rtol=0, atol=0, kw=('dtype', 'layout', 'device', 'pin_memory', 'memory_format'))
    case('ones_like', 'ones_like', i64(3), None, None, None, None, None, rtol=0, atol=0, kw=('dtype', 'layout', 'device', 'pin_memory', 'memory_format'))
    case('full_like', 'full_like', x, 2.5, None, None, None, None, None, rtol=0, atol=0, kw=('dtype', 'layout', 'device', 'pin_memory', 'memory_format'))
    case('full', 'full', IL([2, 3]), 1.5, None, None, None, None, rtol=0, atol=0, kw=('dtype', 'layout', 'device', 'pin_memory'))
    case('full_int', 'full', IL([4]), 7, 4, None, None, None, rtol=0, atol=0,
         fn=lambda sz, v, *r: A.full(sz, v, dtype=torch.int64))
    case('arange', 'arange', 5, None, None, None, None, fn=lambda e, *r: A.arange(e), rtol=0, atol=0)
    case('arange_start', 'arange', 2, 11, 3, None, None, None, None,
         fn=lambda s, e, st, *r: A.arange(s, e, st), rtol=0, atol=0)
    case('arange_float', 'arange', 0.5, 3.0, 0.75, None, None, None, None,
         fn=lambda s, e, st, *r: A.arange(s, e, st), rtol=0, atol=0)
    case('eye', 'eye', 3, None, None, None, None, fn=lambda n, *r: A.eye(n), rtol=0, atol=0)
    case('eye_rect', 'eye', 2, 4, None, None, None, None, fn=lambda n, m, *r: A.eye(n, m), rtol=0, atol=0)
    idx = i64(2, 3, 2, lo=0, hi=4)
    case('gather', 'gather', x, 2, idx, False, rtol=0, atol=0, kw=('sparse_grad',))
    case('index_select', 'index_select', x, 1, i64(4, lo=0, hi=3), rtol=0, atol=0)
    case('constant_pad_nd', 'constant_pad_nd', x, IL([1, 2, 0, 1]), 0.5, rtol=0, atol=0)
    case('constant_pad_nd_crop', 'constant_pad_nd', x, IL([-1, 1]), 0.0, rtol=0, atol=0)
    case('chunk', 'chunk', f32(7, 2), 3, 0, rtol=0, atol=0)
    case('split', 'split', f32(2, 7), 3, 1, rtol=0, atol=0, fn=lambda t, s, d: A.split(t, s, d))
    case('split_with_sizes', 'split_with_sizes', f32(6, 2), IL([1, 2, 3]), 0, rtol=0, atol=0)
    case('unbind', 'unbind', x, 1, rtol=0, atol=0)
    case('movedim', 'movedim', x, 0, 2, rtol=0, atol=0, fn=lambda t, a, b: A.movedim(t, a, b))
    case('numel', 'numel', x, fn=lambda t: torch.tensor(A.numel(t)))
    case('dim', 'dim', x, fn=lambda t: torch.tensor(A.dim(t)))
    case('repeat_interleave', 'repeat_interleave', x, 2, 1, None,
         fn=lambda t, r, d, o: A.repeat_interleave(t, r, d), rtol=0, atol=0)
    case('one_hot', 'one_hot', i64(5, lo=0, hi=4), 4, rtol=0, atol=0)
    case('outer', 'outer', f32(3), f32(4))
    case('dot', 'dot', f32(5), f32(5))
    case('mv', 'mv', f32(3, 4), f32(4))
    case('bmm', 'bmm', f32(2, 3, 4), f32(2, 4, 5))
    case('baddbmm', 'baddbmm', f32(2, 3, 5), f32(2, 3, 4), f32(2, 4, 5), 0.5, 2.0, kw=('beta', 'alpha'))
    case('cross', 'cross', f32(4, 3), f32(4, 3), 1, fn=lambda a, b, d: A.cross(a, b, d))
    case('linalg_cross', 'linalg_cross', f32(2, 3), f32(2, 3), -1, kw=('dim',))
    case('masked_fill_tensor', 'masked_fill', x, b8(3, 4), np.array(-1.0, dtype=np.float32),
         fn=lambda t, m, v: A.masked_fill(t, m, v))
    case('index_fill', 'index_fill', x, 1, i64(2, lo=0, hi=3), -2.0, rtol=0, atol=0,
         fn=lambda t, d, i, v: A.index_fill(t, d, i, v))
    case('scatter', 'scatter', f32(3, 5), 1, i64(3, 2, lo=0, hi=5), f32(3, 2), rtol=0, atol=0,
         fn=lambda t, d, i, s: A.scatter(t, d, i, s))
    case('scatter_add', 'scatter_add', f32(3, 5), 1, i64(3, 4, lo=0, hi=5), f32(3, 4), rtol=1e-6, atol=1e-6)
    case('take', 'take', x, i64(5, lo=-24, hi=24), rtol=0, atol=0)
    case('sort', 'sort', f32(3, 6), -1, False, rtol=0, atol=0,
         fn=lambda t, d, desc: A.sort(t, d, desc))
    case('argsort', 'argsort', f32(3, 6), 1, True, rtol=0, atol=0, fn=lambda t, d, desc: A.argsort(t, d, desc))
    case('topk', 'topk', f32(3, 6), 2, -1, True, True, rtol=0, atol=0)
    case('topk_smallest', 'topk', f32(3, 6), 3, 1, False, True, rtol=0, atol=0)
    bad('transpose_bad_dim', 'transpose', x, 0, 3)
    bad('expand_bad', 'expand', f32(3, 2), IL([3, 4]), False, kw=('implicit',))
    bad('select_oob', 'select', x, 1, 3)
    bad('gather_bad_index', 'gather', x, 2, i64(2, 3, 2, lo=4, hi=6), False, kw=('sparse_grad',))
    bad('index_select_oob', 'index_select', x, 1, i64(2, lo=3, hi=5))
    bad('stack_shapes', 'stack', TL([f32(2, 3), f32(3, 2)]), 0)
    bad('permute_dup', 'permute', x, IL([0, 0, 1]))


def nn_ops():
    """Norms, upsampling, padding, pooling with indices and the rest of
    runtime/k-aten-nn2.c; conv_transpose (k-aten-conv.c), concat, fill."""
    x = f32(2, 3, 4, 5)
    case('layer_norm', 'layer_norm', x, IL([4, 5]), f32(4, 5), f32(4, 5), 1e-5, False)
    case('layer_norm_plain', 'layer_norm', x, IL([5]), None, None, 1e-3, False)
    case('group_norm', 'group_norm', f32(2, 6, 3, 2), 3, f32(6), f32(6), 1e-5, False)
    case('instance_norm', 'instance_norm', x, f32(3), f32(3), None, None, True, 0.1, 1e-5, False)
    bad('layer_norm_shape', 'layer_norm', x, IL([3]), None, None, 1e-5, False)
    bad('group_norm_groups', 'group_norm', f32(2, 6, 3), 4, None, None, 1e-5, False)
    case('upsample_nearest2d', 'upsample_nearest2d', f32(1, 2, 3, 4), IL([7, 5]), None, None,
         rtol=0, atol=0, fn=lambda t, o, sh, sw: A.upsample_nearest2d(t, o, sh, sw))
    case('upsample_nearest2d_vec', 'upsample_nearest2d', f32(1, 2, 3, 4), None, FL([2.0, 1.5]),
         rtol=0, atol=0, fn=lambda t, o, s: A.upsample_nearest2d(t, o, s))
    case('upsample_nearest1d', 'upsample_nearest1d', f32(2, 3, 5), IL([8]), None,
         rtol=0, atol=0, fn=lambda t, o, s: A.upsample_nearest1d(t, o, s))
    case('upsample_nearest3d', 'upsample_nearest3d', f32(1, 1, 2, 3, 2), IL([3, 5, 4]), None, None, None,
         rtol=0, atol=0, fn=lambda t, o, a, b, c: A.upsample_nearest3d(t, o, a, b, c))
    case('reflection_pad2d', 'reflection_pad2d', f32(1, 2, 4, 5), IL([1, 2, 3, 0]), rtol=0, atol=0)
    case('reflection_pad1d', 'reflection_pad1d', f32(2, 6), IL([2, 3]), rtol=0, atol=0)
    case('replication_pad2d', 'replication_pad2d', f32(1, 2, 3, 3), IL([2, 1, 0, 3]), rtol=0, atol=0)
    case('replication_pad3d', 'replication_pad3d', f32(1, 1, 2, 3, 2), IL([1, 1, 1, 0, 0, 2]), rtol=0, atol=0)
    case('pad_reflect', 'pad', f32(1, 2, 4, 4), IL([1, 1, 2, 2]), S('reflect'), None, rtol=0, atol=0)
    case('pad_constant', 'pad', f32(2, 3), IL([1, 2]), S('constant'), 0.5, rtol=0, atol=0)
    bad('reflection_pad_too_big', 'reflection_pad1d', f32(2, 3), IL([3, 0]))
    case('max_pool2d_with_indices', 'max_pool2d_with_indices', f32(1, 2, 7, 9), IL([3, 3]), IL([2, 2]),
         IL([1, 1]), IL([1, 1]), False, rtol=0, atol=0)
    case('max_pool1d_with_indices', 'max_pool1d_with_indices', f32(2, 3, 11), IL([3]), IL([2]),
         IL([1]), IL([2]), True, rtol=0, atol=0)
    case('pixel_unshuffle', 'pixel_unshuffle', f32(1, 2, 4, 6), 2, rtol=0, atol=0)
    case('diagonal', 'diagonal', f32(3, 4, 5), 1, 1, 2, rtol=0, atol=0)
    case('diagonal_neg', 'diagonal', f32(4, 3), -1, 0, 1, rtol=0, atol=0)
    case('cosine_similarity', 'cosine_similarity', f32(3, 4), f32(1, 4), 1, 1e-8)
    case('pairwise_distance', 'pairwise_distance', f32(3, 4), f32(3, 4), 2.0, 1e-6, False)
    case('feature_alpha_dropout', 'feature_alpha_dropout', f32(2, 3), 0.5, False, rtol=0, atol=0)
    case('conv_transpose2d', 'conv_transpose2d', f32(1, 4, 4, 5), f32(4, 2, 3, 3), f32(4), IL([2, 1]),
         IL([1, 0]), IL([1, 0]), 2, IL([1, 1]))
    case('conv_transpose1d', 'conv_transpose1d', f32(2, 3, 6), f32(3, 4, 3), None, IL([2]), IL([1]), IL([1]),
         1, IL([1]))
    case('concat', 'concat', TL([f32(2, 1), f32(2, 3)]), 1, rtol=0, atol=0)
    case('fill', 'fill', f32(2, 3), 1.25, rtol=0, atol=0)


def misc_ops():
    """runtime/k-aten-misc.c."""
    case('broadcast_tensors', 'broadcast_tensors', TL([f32(3, 1), f32(4), f32(1, 1)]), rtol=0, atol=0,
         fn=lambda ts: A.broadcast_tensors(ts))
    case('meshgrid', 'meshgrid', TL([f32(3), f32(4)]), S('ij'), rtol=0, atol=0,
         fn=lambda ts, ix: A.meshgrid(ts, indexing=ix))
    case('meshgrid_xy', 'meshgrid', TL([f32(3), f32(4), f32(2)]), S('xy'), rtol=0, atol=0,
         fn=lambda ts, ix: A.meshgrid(ts, indexing=ix))
    case('tensor_split', 'tensor_split', f32(7, 2), 3, 0, rtol=0, atol=0,
         fn=lambda t, s, d: A.tensor_split(t, s, d))
    case('tensor_split_indices', 'tensor_split', f32(2, 8), IL([1, 5]), 1, rtol=0, atol=0,
         fn=lambda t, s, d: A.tensor_split(t, s, d))
    case('unfold', 'unfold', f32(2, 7), 1, 3, 2, rtol=0, atol=0)
    case('index_add', 'index_add', f32(5, 3), 0, np.array([0, 2, 2], dtype=np.int64), f32(3, 3), 0.5,
         kw=('alpha',))
    case('index_copy', 'index_copy', f32(5, 3), 0, np.array([4, 0], dtype=np.int64), f32(2, 3), rtol=0, atol=0)
    bad('index_copy_shape', 'index_copy', f32(5, 3), 0, np.array([4, 0], dtype=np.int64), f32(3, 3))
    # torch.empty's values are unspecified: any tensor of the shape and
    # dtype is its answer; zeros are compared.
    case('empty', 'empty', IL([2, 3]), None, None, None, None, None, rtol=0, atol=0,
         fn=lambda sz, *r: torch.zeros(sz))
    case('einsum_matmul', 'einsum', S('ij,jk->ik'), TL([f32(3, 4), f32(4, 5)]), None,
         fn=lambda eq, ts, p: A.einsum(eq, ts))
    case('einsum_batch_trace', 'einsum', S('bii->b'), TL([f32(2, 3, 3)]), None,
         fn=lambda eq, ts, p: A.einsum(eq, ts))
    case('einsum_three', 'einsum', S('i,j,k->ijk'), TL([f32(2), f32(3), f32(4)]), None,
         fn=lambda eq, ts, p: A.einsum(eq, ts))
    bad('einsum_terms', 'einsum', S('ij,jk->ik'), TL([f32(3, 4)]), None, fn=lambda eq, ts, p: A.einsum(eq, ts))
    case('upsample_linear1d', 'upsample_linear1d', f32(2, 3, 5), IL([8]), False, None,
         fn=lambda t, o, a, s: A.upsample_linear1d(t, o, a, s))
    case('upsample_linear1d_align', 'upsample_linear1d', f32(2, 3, 5), IL([9]), True, None,
         fn=lambda t, o, a, s: A.upsample_linear1d(t, o, a, s))
    case('upsample_trilinear3d', 'upsample_trilinear3d', f32(1, 2, 2, 3, 4), IL([3, 5, 6]), False, None, None, None,
         fn=lambda t, o, a, x, y, z: A.upsample_trilinear3d(t, o, a, x, y, z))


def index_ops():
    """aten::index (runtime/k-aten-misc.c): Tensor?[] flattened, None absent."""
    x = f32(3, 4, 5)
    ix = lambda *ts: (lambda t, *idx: A.index(t, [None if i is None else i for i in idx]))
    case('index_one', 'index', x, i64(2, 2, lo=-3, hi=3), rtol=0, atol=0, fn=ix())
    case('index_middle', 'index', x, None, i64(3, lo=0, hi=4), rtol=0, atol=0, fn=ix())
    case('index_adjacent', 'index', x, None, i64(2, 1, lo=0, hi=4), i64(3, lo=0, hi=5), rtol=0, atol=0, fn=ix())
    case('index_apart', 'index', x, i64(2, lo=0, hi=3), None, i64(2, lo=0, hi=5), rtol=0, atol=0, fn=ix())
    case('index_mask', 'index', x, b8(3, 4), rtol=0, atol=0, fn=ix())
    bad('index_oob', 'index', x, i64(2, lo=3, hi=5), fn=ix())
    put = lambda t, *rest: A.index_put(t, [None if i is None else i for i in rest[:-2]], rest[-2], rest[-1])
    case('index_put', 'index_put', x, np.array([2, 0], dtype=np.int64), f32(2, 4, 5), False, rtol=0, atol=0, fn=put)
    case('index_put_acc', 'index_put', x, None, np.array([1, 1, 3], dtype=np.int64), f32(5), True, fn=put)
    case('index_put_mask', 'index_put', x, b8(3, 4), np.array(7.0, dtype=np.float32), False, rtol=0, atol=0, fn=put)


def embedding_bag_ops():
    """aten::embedding_bag with torch's auxiliary outputs (runtime/k-aten-misc.c)."""
    w = f32(10, 3)
    ind = np.array([1, 2, 4, 5, 4, 3, 2, 9], dtype=np.int64)
    offs = np.array([0, 4, 4], dtype=np.int64)
    for mode in (0, 1, 2):
        case(f'embedding_bag_{mode}', 'embedding_bag', w, ind, offs, False, mode, False, None, False, None)
        case(f'embedding_bag_pad_{mode}', 'embedding_bag', w, ind, offs, False, mode, False, None, False, 2)
    case('embedding_bag_psw', 'embedding_bag', w, ind, offs, False, 0, False, f32(8), False, None)
    case('embedding_bag_last', 'embedding_bag', w, ind, np.array([0, 3, 8], dtype=np.int64), False, 1, False,
         None, True, None)
    bad('embedding_bag_oob', 'embedding_bag', w, np.array([1, 12], dtype=np.int64), np.array([0], dtype=np.int64),
        False, 0, False, None, False, None, n_outputs=4)


def extra_ops():
    """Ops torch 1.13 registers symbolics for beyond symonnx's (runtime/k-aten-extra.c)."""
    x = f32(3, 4)
    for op in ('resolve_conj', 'resolve_neg', 'conj_physical', 'lift'):
        case(op, op, x, rtol=0, atol=0)
    case('feature_dropout_', 'feature_dropout_', x, 0.5, False, rtol=0, atol=0,
         fn=lambda t, p, tr: A.feature_dropout_(t.clone(), p, tr))
    for t in ('Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double'):
        case(f'_cast_{t}', f'_cast_{t}', f32(5, lo=0, hi=5), False, rtol=0, atol=0)
    b = b8(3, 4)
    case('all', 'all', b, rtol=0, atol=0)
    case('any_dim', 'any', b, 1, True, rtol=0, atol=0)
    case('all_float_dim', 'all', f32(3, 4), 0, False, rtol=0, atol=0)
    case('aminmax', 'aminmax', f32(3, 4, 5), 1, False, rtol=0, atol=0, kw=('dim', 'keepdim'))
    case('aminmax_all', 'aminmax', f32(3, 4), None, False, rtol=0, atol=0, kw=('dim', 'keepdim'))
    case('is_floating_point', 'is_floating_point', x, fn=lambda t: torch.tensor(A.is_floating_point(t)))
    case('item', 'item', f32(1, 1), rtol=0, atol=0, fn=lambda t: t.reshape(()).clone())
    case('scalar_tensor', 'scalar_tensor', np.array(2.5, dtype=np.float64), None, None, None, None,
         rtol=0, atol=0, fn=lambda v, *r: A.scalar_tensor(float(v)))
    case('_shape_as_tensor', '_shape_as_tensor', f32(2, 3, 4), rtol=0, atol=0)
    case('_reshape_from_tensor', '_reshape_from_tensor', f32(2, 6), np.array([3, -1], dtype=np.int64),
         rtol=0, atol=0)
    case('numpy_T', 'numpy_T', f32(2, 3), rtol=0, atol=0)
    case('_log_softmax', '_log_softmax', f32(3, 5), 1, False)
    case('_dim_arange', '_dim_arange', f32(3, 5), 1, rtol=0, atol=0)
    case('linspace', 'linspace', 0.5, 3.0, 7, None, None, None, None, rtol=1e-6, atol=1e-6,
         kw=('dtype', 'layout', 'device', 'pin_memory'))
    case('nonzero', 'nonzero', np.array([[0, 1.5, 0], [2, 0, 3]], dtype=np.float32), rtol=0, atol=0)
    case('masked_select', 'masked_select', f32(3, 4), b8(4), rtol=0, atol=0)
    case('unsafe_chunk', 'unsafe_chunk', f32(7, 2), 3, 0, rtol=0, atol=0)
    case('unsafe_split', 'unsafe_split', f32(2, 7), 3, 1, rtol=0, atol=0)
    bad('item_many', 'item', f32(3), fn=lambda t: torch.tensor(A.item(t)))


def loss_ops():
    """runtime/k-aten-loss.c"""
    x, t = f32(4, 5), np.array([1, 0, 4, 2], dtype=np.int64)
    case('nll_loss_mean', 'nll_loss', x, t, None, 1, -100)
    case('nll_loss_weight', 'nll_loss', x, t, f32(5, lo=0.1, hi=2), 1, 0)
    case('nll_loss_none', 'nll_loss', x, t, None, 0, -100)
    case('nll_loss2d', 'nll_loss2d', f32(2, 3, 2, 2), i64(2, 2, 2, lo=0, hi=3), None, 2, -100)
    case('nll_loss_nd', 'nll_loss_nd', f32(2, 3, 4), i64(2, 4, lo=0, hi=3), f32(3, lo=0.1, hi=2), 1, 1)
    case('cross_entropy_loss', 'cross_entropy_loss', x, t, None, 1, -100, 0.0)
    case('cross_entropy_loss_w', 'cross_entropy_loss', f32(2, 3, 4), i64(2, 4, lo=0, hi=3), f32(3, lo=0.1, hi=2),
         0, -100, 0.0)
    bad('nll_loss_target', 'nll_loss', x, np.array([1, 7, 0, 0], dtype=np.int64), None, 1, -100)
    case('bce_with_logits', 'binary_cross_entropy_with_logits', x, f32(4, 5, lo=0, hi=1), None, None, 1)
    case('bce_with_logits_w', 'binary_cross_entropy_with_logits', x, f32(4, 5, lo=0, hi=1), f32(5),
         f32(5, lo=0.5, hi=2), 0)
    case('kl_div', 'kl_div', f32(3, 4), f32(3, 4, lo=0, hi=1), 1, False, kw=('log_target',))
    case('kl_div_log', 'kl_div', f32(3, 4), f32(3, 4), 2, True, kw=('log_target',))


def extra2_ops():
    """runtime/k-aten-extra2.c"""
    x = f32(2, 3, 4)
    case('native_layer_norm', 'native_layer_norm', x, IL([4]), f32(4), f32(4), 1e-5)
    case('hann_window', 'hann_window', 8, None, None, None, None, kw=('dtype', 'layout', 'device', 'pin_memory'))
    case('hann_window_sym', 'hann_window', 7, False, None, None, None, None,
         kw=('dtype', 'layout', 'device', 'pin_memory'))
    bd = np.array([-1.0, 0.0, 0.5, 1.5], dtype=np.float32)
    v = np.array([[-2.0, -1.0, 0.2], [0.5, 1.5, 3.0]], dtype=np.float32)
    case('bucketize', 'bucketize', v, bd, False, False, rtol=0, atol=0, kw=('out_int32', 'right'))
    case('bucketize_right', 'bucketize', v, bd, True, True, rtol=0, atol=0, kw=('out_int32', 'right'))
    case('cdist', 'cdist', f32(2, 3, 4), f32(2, 5, 4), 2.0, None)
    case('cdist_p1', 'cdist', f32(3, 4), f32(2, 4), 1.0, None)
    case('tensordot', 'tensordot', f32(3, 4, 5), f32(5, 4, 2), IL([1, 2]), IL([1, 0]))
    case('_weight_norm', '_weight_norm', f32(4, 3, 2), f32(4, 1, 1), 0)
    case('linalg_det', 'linalg_det', f32(2, 3, 3))
    case('logdet', 'logdet', np.array([[2.0, 0.5], [0.3, 1.0]], dtype=np.float64))
    case('as_strided', 'as_strided', f32(4, 5), IL([3, 2]), IL([5, 2]), 1, rtol=0, atol=0)
    bad('as_strided_oob', 'as_strided', f32(2, 2), IL([3, 2]), IL([2, 1]), 0)


def more_ops():
    """The rest of torch 1.13's registered ops that are deterministic."""
    case('_pad_circular', '_pad_circular', f32(1, 2, 3, 4), IL([1, 2, 1, 0]), rtol=0, atol=0)
    case('pad_circular', 'pad', f32(1, 2, 5), IL([2, 1]), S('circular'), None, rtol=0, atol=0)
    case('native_dropout', 'native_dropout', f32(2, 3), 0.5, False, rtol=0, atol=0)
    case('rrelu', 'rrelu', f32(3, 4), 0.125, 1 / 3.0, False, None)
    case('im2col', 'im2col', f32(1, 2, 4, 5), IL([2, 3]), IL([1, 1]), IL([0, 1]), IL([1, 2]), rtol=0, atol=0)
    case('upsample_bicubic2d', 'upsample_bicubic2d', f32(1, 2, 4, 5), IL([7, 6]), False, None, None,
         rtol=1e-4, atol=1e-5, fn=lambda t, o, a, h, w: A.upsample_bicubic2d(t, o, a, h, w))
    case('upsample_bicubic2d_align', 'upsample_bicubic2d', f32(1, 1, 3, 3), IL([5, 4]), True, None, None,
         rtol=1e-4, atol=1e-5, fn=lambda t, o, a, h, w: A.upsample_bicubic2d(t, o, a, h, w))
    H_ = 4
    case('lstm_cell', 'lstm_cell', f32(2, 3), TL([f32(2, H_), f32(2, H_)]), f32(4 * H_, 3), f32(4 * H_, H_),
         f32(4 * H_), f32(4 * H_), rtol=1e-4, atol=1e-5)
    case('nonzero_numpy', 'nonzero_numpy', np.array([[0, 1.5, 0], [2, 0, 3]], dtype=np.float32), rtol=0, atol=0)
    case('masked_scatter', 'masked_scatter', f32(3, 4), b8(4), f32(12), rtol=0, atol=0)


def last_ops():
    """_unique2/_unique, floordiv, conv_tbc, embedding_renorm."""
    x = np.array([3.0, 1.0, 2.0, 3.0, 1.0, -0.5], dtype=np.float32)
    case('_unique2', '_unique2', x, True, True, True, rtol=0, atol=0)
    case('_unique2_plain', '_unique2', x, True, False, False, rtol=0, atol=0)
    case('_unique', '_unique', i64(3, 4, lo=0, hi=4), True, True, rtol=0, atol=0)
    case('floordiv', 'floordiv', np.array(7, dtype=np.int64), np.array(-2, dtype=np.int64), rtol=0, atol=0,
         fn=lambda a, b: torch.tensor(A.floordiv(int(a), int(b))))
    case('conv_tbc', 'conv_tbc', f32(5, 2, 3), f32(3, 3, 4), f32(4), 1)
    case('embedding_renorm', 'embedding_renorm', f32(4, 3, lo=-3, hi=3), np.array([0, 2, 2], dtype=np.int64),
         1.0, 2.0, fn=lambda w, i, m, p: A.embedding_renorm(w.clone(), i, m, p))


def norm_ops():
    """linalg_norm / linalg_matrix_norm (runtime/k-aten-reduce.c)."""
    x = f32(2, 3, 4)
    K = ('dtype',)
    case('linalg_matrix_norm_fro', 'linalg_matrix_norm', x, S('fro'), IL([-2, -1]), False, None, kw=K)
    case('linalg_matrix_norm_1', 'linalg_matrix_norm', x, 1.0, IL([1, 2]), True, None, kw=K)
    case('linalg_matrix_norm_ninf', 'linalg_matrix_norm', x, float('-inf'), IL([0, 2]), False, None, kw=K)
    case('linalg_norm_none', 'linalg_norm', x, None, None, False, None, kw=K)
    case('linalg_norm_vec', 'linalg_norm', x, 3.0, IL([1]), True, None, kw=K)
    case('linalg_norm_mat', 'linalg_norm', f32(3, 5), float('inf'), None, False, None, kw=K)
    bad('linalg_matrix_norm_rank', 'linalg_matrix_norm', f32(4), S('fro'), IL([-2, -1]), False, None, kw=K)


def rnn_ops():
    """gru, rnn_tanh, rnn_relu (runtime/k-aten-rnn2.c)."""
    def params(layers, dirs, gates, i, h, biases=True):
        ps = []
        for layer in range(layers):
            inp = i if layer == 0 else dirs * h
            for _ in range(dirs):
                ps += [f32(gates * h, inp, lo=-0.5, hi=0.5), f32(gates * h, h, lo=-0.5, hi=0.5)]
                if biases:
                    ps += [f32(gates * h, lo=-0.5, hi=0.5), f32(gates * h, lo=-0.5, hi=0.5)]
        return ps
    T_, B_, I_, H_ = 5, 2, 3, 4
    case('gru', 'gru', f32(T_, B_, I_), f32(4, B_, H_), TL(params(2, 2, 3, I_, H_)), True, 2, 0.0, False, True,
         False, rtol=1e-4, atol=1e-5)
    case('gru_nobias', 'gru', f32(T_, B_, I_), f32(1, B_, H_), TL(params(1, 1, 3, I_, H_, False)), False, 1, 0.0,
         False, False, False, rtol=1e-4, atol=1e-5)
    case('rnn_tanh', 'rnn_tanh', f32(T_, B_, I_), f32(2, B_, H_), TL(params(1, 2, 1, I_, H_)), True, 1, 0.0,
         False, True, False, rtol=1e-4, atol=1e-5)
    case('rnn_relu', 'rnn_relu', f32(T_, B_, I_), f32(2, B_, H_), TL(params(2, 1, 1, I_, H_)), True, 2, 0.0,
         False, False, False, rtol=1e-4, atol=1e-5)
    bad('gru_bad_weights', 'gru', f32(T_, B_, I_), f32(1, B_, H_), TL(params(1, 1, 3, I_ + 1, H_)), True, 1, 0.0,
        False, False, False, n_outputs=2)


def forms_ops():
    """Argument forms beyond the first cases (issue 13's remainder): std /
    var with correction, clamp with tensor bounds, repeat_interleave with a
    tensor of repeats, cross_entropy_loss with label smoothing and class
    probabilities, RNNs with batch_first, div with rounding_mode."""
    x = f32(3, 4, 5)
    KC = ('correction', 'keepdim')
    case('std_correction', 'std', x, IL([1]), 2, False, kw=KC)
    case('var_correction0_all', 'var', x, None, 0, True, kw=KC)
    case('var_correction_none', 'var', x, IL([0, 2]), None, False, kw=KC)
    case('std_mean_correction', 'std_mean', x, IL([2]), 3, True, kw=KC)
    case('var_mean_correction', 'var_mean', f64(4, 6), IL([1]), 0, False, kw=KC)
    a = f32(2, 3, 4)
    nan = np.float32(np.nan)
    lo, hi = f32(3, 4, lo=-1, hi=0.5), f32(4, lo=-0.5, hi=1)
    case('clamp_tensor', 'clamp', a, lo, hi, kw=('min', 'max'))
    case('clamp_tensor_min', 'clamp', a, lo, None, kw=('min', 'max'))
    case('clamp_tensor_max', 'clamp', a, None, hi, kw=('min', 'max'))
    xn = np.array([1.0, 2.0, nan, -3.0, 0.5], dtype=np.float32)
    case('clamp_tensor_nan', 'clamp', xn, np.array([nan, 0, 0, 0, 1], dtype=np.float32),
         np.array([5, nan, 1, 1, 0], dtype=np.float32), kw=('min', 'max'))
    case('clamp_tensor_int', 'clamp', i64(3, 4, lo=-9, hi=9), i64(4, lo=-4, hi=0),
         np.array([3], dtype=np.int32), rtol=0, atol=0, kw=('min', 'max'))
    case('clamp_tensor_int_float', 'clamp', i64(5, lo=-9, hi=9), f64(5), None, kw=('min', 'max'))
    case('clamp_min_tensor', 'clamp_min', a, lo)
    case('clamp_max_tensor', 'clamp_max', a, f32(2, 1, 1))
    bad('clamp_tensor_shape', 'clamp', a, f32(5), None, kw=('min', 'max'))
    bad('clamp_none', 'clamp', a, None, None)
    r = np.array([2, 0, 3], dtype=np.int64)
    x = f32(3, 4)
    case('repeat_interleave_tensor', 'repeat_interleave', x, r, 0, None, rtol=0, atol=0, kw=('output_size',))
    case('repeat_interleave_tensor_dim1', 'repeat_interleave', x, np.array([1, 2, 0, 1], dtype=np.int64), -1, 4,
         rtol=0, atol=0, kw=('output_size',))
    case('repeat_interleave_tensor_flat', 'repeat_interleave', f32(2, 2), np.array([1, 0, 2, 1], dtype=np.int64),
         None, None, rtol=0, atol=0, kw=('output_size',))
    case('repeat_interleave_one_tensor', 'repeat_interleave', x, np.array([2], dtype=np.int64), 1, None,
         rtol=0, atol=0, kw=('output_size',))
    case('repeat_interleave_int_flat', 'repeat_interleave', x, 2, None, None, rtol=0, atol=0,
         kw=('output_size',))
    case('repeat_interleave_counts', 'repeat_interleave', r, None, rtol=0, atol=0, kw=('output_size',))
    case('repeat_interleave_counts_int32', 'repeat_interleave', np.array([1, 0, 2], dtype=np.int32), 3,
         rtol=0, atol=0, kw=('output_size',))
    bad('repeat_interleave_tensor_len', 'repeat_interleave', x, np.array([1, 2], dtype=np.int64), 0, None,
        kw=('output_size',))
    bad('repeat_interleave_negative', 'repeat_interleave', x, np.array([1, -1, 2], dtype=np.int64), 0, None,
        kw=('output_size',))
    bad('repeat_interleave_size', 'repeat_interleave', x, r, 0, 4, kw=('output_size',))
    bad('repeat_interleave_2d', 'repeat_interleave', x, np.array([[1, 2, 1]], dtype=np.int64), 0, None,
        kw=('output_size',))
    bad('repeat_interleave_counts_neg', 'repeat_interleave', np.array([1, -2], dtype=np.int64), None,
        kw=('output_size',))
    x, t = f32(5, 4), np.array([0, 3, -100, 1, 2], dtype=np.int64)
    case('cross_entropy_ls', 'cross_entropy_loss', x, t, None, 1, -100, 0.2)
    case('cross_entropy_ls_w', 'cross_entropy_loss', x, t, f32(4, lo=0.5, hi=1.5), 1, -100, 0.2)
    case('cross_entropy_ls_nd_none', 'cross_entropy_loss', f32(2, 3, 4), i64(2, 4, lo=0, hi=3),
         f32(3, lo=0.1, hi=2), 0, 1, 0.1)
    case('cross_entropy_ls_sum', 'cross_entropy_loss', f32(4), np.array(2, dtype=np.int64), None, 2, -100, 0.5)
    p = torch.from_numpy(f32(2, 4, 3)).softmax(1).numpy()
    case('cross_entropy_probs', 'cross_entropy_loss', f32(2, 4, 3), p, f32(4, lo=0.5, hi=1.5), 1, -100, 0.3)
    case('cross_entropy_probs_none', 'cross_entropy_loss', f32(3, 5),
         torch.from_numpy(f32(3, 5)).softmax(1).numpy(), None, 0, -100, 0.0)
    bad('cross_entropy_ls_range', 'cross_entropy_loss', x, t, None, 1, -100, 1.5)
    bad('cross_entropy_probs_shape', 'cross_entropy_loss', f32(3, 5), f32(3, 4), None, 1, -100, 0.0)

    def params(layers, dirs, gates, i, h):
        ps = []
        for layer in range(layers):
            inp = i if layer == 0 else dirs * h
            for _ in range(dirs):
                ps += [f32(gates * h, inp, lo=-0.5, hi=0.5), f32(gates * h, h, lo=-0.5, hi=0.5),
                       f32(gates * h, lo=-0.5, hi=0.5), f32(gates * h, lo=-0.5, hi=0.5)]
        return ps
    T_, B_, I_, H_ = 4, 3, 2, 3
    tol = dict(rtol=1e-4, atol=1e-5)
    case('gru_batch_first', 'gru', f32(B_, T_, I_), f32(4, B_, H_), TL(params(2, 2, 3, I_, H_)), True, 2, 0.0,
         False, True, True, **tol)
    case('rnn_tanh_batch_first', 'rnn_tanh', f32(B_, T_, I_), f32(1, B_, H_), TL(params(1, 1, 1, I_, H_)), True,
         1, 0.0, False, False, True, **tol)
    case('lstm', 'lstm', f32(T_, B_, I_), TL([f32(2, B_, H_), f32(2, B_, H_)]), TL(params(1, 2, 4, I_, H_)), True,
         1, 0.0, False, True, False, **tol)
    case('lstm_batch_first', 'lstm', f32(B_, T_, I_), TL([f32(4, B_, H_), f32(4, B_, H_)]),
         TL(params(2, 2, 4, I_, H_)), True, 2, 0.0, False, True, True, **tol)
    bad('gru_batch_first_h0', 'gru', f32(B_, T_, I_), f32(1, T_, H_), TL(params(1, 1, 3, I_, H_)), True, 1, 0.0,
        False, False, True, n_outputs=2)
    bad('lstm_batch_first_h0', 'lstm', f32(B_, T_, I_), TL([f32(1, T_, H_), f32(1, T_, H_)]),
        TL(params(1, 1, 4, I_, H_)), True, 1, 0.0, False, False, True, n_outputs=3)
    KR = ('rounding_mode',)
    a, b = f32(3, 4, lo=-6, hi=6), f32(4, lo=0.3, hi=2)
    case('div_floor', 'div', a, -b, S('floor'), kw=KR)
    case('div_trunc', 'div', a, b, S('trunc'), kw=KR)
    ia, ib = i64(3, 4, lo=-20, hi=20), np.array([3, -4, 5, -7], dtype=np.int64)
    case('div_floor_int', 'div', ia, ib, S('floor'), rtol=0, atol=0, kw=KR)
    case('div_trunc_int', 'div', ia, ib, S('trunc'), rtol=0, atol=0, kw=KR)
    case('div_trunc_int_scalar', 'div', ia, np.array(3, dtype=np.int64), S('trunc'), rtol=0, atol=0, kw=KR)
    bad('div_floor_int_zero', 'div', ia, np.array([3, 0, 5, -7], dtype=np.int64), S('floor'), kw=KR)
    bad('div_bad_mode', 'div', a, b, S('round'), kw=KR)
    x = f32(2, 3, 4, 5)
    case('movedim_list', 'movedim', x, IL([0, 3]), IL([2, 0]), rtol=0, atol=0,
         fn=lambda t, a, b: A.movedim(t, a, b))
    case('moveaxis_list', 'moveaxis', x, IL([-1, 1, 0]), IL([0, 3, 1]), rtol=0, atol=0,
         fn=lambda t, a, b: A.moveaxis(t, a, b))
    case('moveaxis', 'moveaxis', x, 1, -1, rtol=0, atol=0, fn=lambda t, a, b: A.moveaxis(t, a, b))
    case('swapaxes', 'swapaxes', x, 1, 3, rtol=0, atol=0)
    case('swapdims', 'swapdims', x, -1, 0, rtol=0, atol=0)
    bad('movedim_repeat', 'movedim', x, IL([0, 0]), IL([1, 2]), fn=lambda t, a, b: A.movedim(t, a, b))
    bad('movedim_lengths', 'movedim', x, IL([0, 1]), IL([1]), fn=lambda t, a, b: A.movedim(t, a, b))
    bad('swapaxes_dim', 'swapaxes', x, 1, 4)


def torchvision_ops():
    """torchvision::nms and torchvision::roi_align as detection models'
    traces record them (runtime/k-torchvision.c)."""
    import torchvision  # noqa: F401  (registers torch.ops.torchvision)
    xy = f32(12, 2, lo=0, hi=20)
    wh = f32(12, 2, lo=2, hi=12)
    boxes = np.concatenate([xy, xy + wh], 1).astype(np.float32)
    scores = rng.permutation(12).astype(np.float32) / 12 + 0.01   # distinct: no ties
    case('tv_nms', 'torchvision::nms', boxes, scores, 0.3, rtol=0, atol=0)
    case('tv_nms_loose', 'torchvision::nms', boxes, scores, 0.7, rtol=0, atol=0)
    case('tv_nms_empty', 'torchvision::nms', f32(0, 4), f32(0), 0.5, rtol=0, atol=0)
    bad('tv_nms_shape', 'torchvision::nms', f32(5, 3), f32(5), 0.5)
    feat = f32(2, 3, 10, 12)
    rois = np.array([[0, 1.0, 1.5, 7.0, 8.0], [1, 0.0, 0.0, 11.5, 9.5], [0, 3.2, 2.1, 4.0, 2.9],
                     [1, -2.0, 5.0, 6.0, 14.0]], dtype=np.float32)
    for al in (False, True):
        for sr in (-1, 2):
            case(f'tv_roi_align_{int(al)}_{sr}', 'torchvision::roi_align', feat, rois, 0.5, 3, 4, sr, al,
                 rtol=1e-4, atol=1e-5)
    case('tv_roi_align_scale', 'torchvision::roi_align', feat, rois, 1.0, 2, 2, 0, False, rtol=1e-4, atol=1e-5)
    bad('tv_roi_align_rois', 'torchvision::roi_align', feat, f32(3, 4), 0.5, 3, 4, -1, False)


def registry_ops():
    """Names of torch 1.13's symbolic registry that had no kernel: shifts,
    Bool, zero, copy, fake quantization (runtime/k-aten-{math,tensor,
    create,quant}.c)."""
    ia = i64(3, 4, lo=-50, hi=50)
    case('__lshift__', '__lshift__', ia, np.array([0, 1, 5, 62], dtype=np.int64), rtol=0, atol=0)
    case('__rshift__', '__rshift__', ia, np.array(3, dtype=np.int64), rtol=0, atol=0)
    case('lshift_uint8', '__lshift__', np.array([1, 2, 200, 7], dtype=np.uint8),
         np.array([7, 7, 1, 0], dtype=np.uint8), rtol=0, atol=0)
    case('rshift_int8', '__rshift__', np.array([-128, 64, -3, 5], dtype=np.int8),
         np.array([3, 1, 1, 7], dtype=np.int8), rtol=0, atol=0)
    case('lshift_int32', '__lshift__', np.array([1, -2, 3], dtype=np.int32), np.array(31, dtype=np.int32),
         rtol=0, atol=0)
    bad('lshift_float', '__lshift__', f32(3), np.array(1.0, dtype=np.float32))
    case('bitwise_left_shift', 'bitwise_left_shift', ia, np.array(2, dtype=np.int64), rtol=0, atol=0)
    case('Bool', 'Bool', np.array(2.5, dtype=np.float32), rtol=0, atol=0, fn=lambda t: torch.tensor(A.Bool(t)))
    case('Bool_zero', 'Bool', np.array([0], dtype=np.int64), rtol=0, atol=0, fn=lambda t: torch.tensor(A.Bool(t)))
    bad('Bool_many', 'Bool', f32(2), fn=lambda t: torch.tensor(A.Bool(t)))
    case('zero', 'zero', i64(2, 3), rtol=0, atol=0)
    case('copy', 'copy', f32(2, 3), i64(3), False, rtol=0, atol=0)
    case('copy_f64', 'copy', f64(2, 1, 3), f32(2, 1, 1), False)
    bad('copy_shape', 'copy', f32(2, 3), f32(4), False)
    x = f32(2, 3, 4, lo=-3, hi=3)
    case('fake_quantize_per_tensor', 'fake_quantize_per_tensor_affine', x, 0.05, 3, 0, 15, rtol=0, atol=1e-7)
    case('fake_quantize_per_tensor_t', 'fake_quantize_per_tensor_affine', x, np.array([0.1], dtype=np.float32),
         np.array([-2], dtype=np.int32), -128, 127, rtol=0, atol=1e-7)
    case('fake_quantize_per_channel', 'fake_quantize_per_channel_affine', x, f32(3, lo=0.02, hi=0.2),
         np.array([0, 4, 255], dtype=np.int32), 1, 0, 255, rtol=0, atol=1e-7)
    case('fake_quantize_per_channel_last', 'fake_quantize_per_channel_affine', x, f32(4, lo=0.02, hi=0.2),
         np.array([0, -3, 5, 1], dtype=np.int32), 2, -8, 7, rtol=0, atol=1e-7)
    bad('fake_quantize_channel_axis', 'fake_quantize_per_channel_affine', x, f32(4, lo=0.02, hi=0.2),
        np.array([0, -3, 5, 1], dtype=np.int32), -1, -8, 7)
    bad('fake_quantize_channel_zp_long', 'fake_quantize_per_channel_affine', x, f32(3, lo=0.02, hi=0.2),
        np.array([0, 4, 255], dtype=np.int64), 1, 0, 255)
    bad('fake_quantize_range', 'fake_quantize_per_tensor_affine', x, 0.05, 3, 10, 5)
    bad('fake_quantize_zero_point', 'fake_quantize_per_tensor_affine', x, 0.05, 30, 0, 15)
    bad('fake_quantize_channels', 'fake_quantize_per_channel_affine', x, f32(4, lo=0.02, hi=0.2),
        np.array([0, 4, 255, 0], dtype=np.int32), 1, 0, 255)
    x = np.array([[1, 2, 1, 2], [3, 0, 3, 0], [1, 2, 1, 3]], dtype=np.int64)
    case('unique_dim_cols', 'unique_dim', x, 1, True, False, False, rtol=0, atol=0)
    case('unique_dim_rows', 'unique_dim', x, 0, False, True, True, rtol=0, atol=0)
    case('unique_dim_3d', 'unique_dim', np.round(f32(2, 5, 3, lo=0, hi=1)).astype(np.float32), -2, True, True, True,
         rtol=0, atol=0)
    case('unique_dim_empty', 'unique_dim', f32(0, 3), 0, True, True, True, rtol=0, atol=0)
    KT = ('dtype', 'device', 'requires_grad')
    # torch.ops.aten.tensor(3) picks the float overload; a trace records
    # tensor.int for torch.tensor(3): torch.tensor is the reference
    case('tensor_int', 'tensor', 3, None, None, False, rtol=0, atol=0, fn=lambda t, d, dv, rg: torch.tensor(t))
    case('tensor_float', 'tensor', 0.25, None, None, False, rtol=0, atol=0,
         fn=lambda t, d, dv, rg: torch.tensor(t))
    case('tensor_float_dtype', 'tensor', 2.5, 7, None, False, rtol=0, atol=0,
         fn=lambda t, d, dv, rg: torch.tensor(t, dtype=torch.float64))
    case('tensor_list', 'tensor', FL([1.5, -2.0, 3.25]), None, None, False, rtol=0, atol=0,
         fn=lambda t, d, dv, rg: torch.tensor(t))
    case('tensor_int_list', 'tensor', IL([4, -1]), 5, None, False, rtol=0, atol=0,
         fn=lambda t, d, dv, rg: torch.tensor(t, dtype=torch.float16))
    case('as_tensor', 'as_tensor', i64(3), 6, None, rtol=0, atol=0, kw=('dtype', 'device'))
    case('as_tensor_keep', 'as_tensor', np.array([1, 2], dtype=np.int32), None, None, rtol=0, atol=0,
         kw=('dtype', 'device'))
    case('where_cond', 'where', b8(3, 4), rtol=0, atol=0, fn=lambda c: A.where(c))
    case('fill_', 'fill_', f32(2, 3), 1.5, rtol=0, atol=0, fn=lambda t, v: t.clone().fill_(v))
    KL = ('dtype', 'layout', 'device', 'pin_memory', 'non_blocking', 'copy', 'memory_format')
    case('to_dtype_layout', 'to', f32(2, 3), 7, None, None, None, False, False, None, rtol=0, atol=0, kw=KL)
    case('to_dtype_layout_none', 'to', i64(4), None, None, None, None, False, True, None, rtol=0, atol=0, kw=KL)
    torchvision_ops()
    case('zero_', 'zero_', f32(2, 3), rtol=0, atol=0, fn=lambda t: t.clone().zero_())
    case('copy_', 'copy_', f32(2, 3), f64(3), False, rtol=0, atol=1e-7, fn=lambda t, s, nb: t.clone().copy_(s, nb))
    case('slice_scatter', 'slice_scatter', f32(4, 6), f32(4, 2), 1, 1, 5, 2, rtol=0, atol=0)
    case('slice_scatter_neg', 'slice_scatter', f32(5, 3), f32(2, 3), 0, -3, -1, 1, rtol=0, atol=0)
    case('select_scatter', 'select_scatter', f32(3, 4, 2), f32(3, 2), 1, -1, rtol=0, atol=0)
    bad('slice_scatter_shape', 'slice_scatter', f32(4, 6), f32(4, 3), 1, 1, 5, 2)
    bad('select_scatter_index', 'select_scatter', f32(3, 4), f32(3), 1, 4)
    bad('unique_dim_scalar', 'unique_dim', np.array(1.0, dtype=np.float32), 0, True, True, True, n_outputs=3)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith('.npy') or f in ('cases.tsv', 'cases-half.tsv'):
            os.remove(os.path.join(OUT, f))
    issue_ops()
    math_ops()
    binary_ops()
    activations()
    reductions()
    tensor_ops()
    nn_ops()
    misc_ops()
    rnn_ops()
    index_ops()
    embedding_bag_ops()
    extra_ops()
    loss_ops()
    extra2_ops()
    more_ops()
    last_ops()
    norm_ops()
    forms_ops()
    registry_ops()
    script_ops()
    with open(os.path.join(OUT, 'cases.tsv'), 'w') as f:
        f.write('# Generated by tools/gen_aten_op_refs.py (torch %s); do not edit.\n' % torch.__version__)
        f.write('\n'.join(lines) + '\n')
    with open(os.path.join(OUT, 'cases-half.tsv'), 'w') as f:
        f.write('# Generated by tools/gen_aten_op_refs.py (torch %s); do not edit.\n' % torch.__version__)
        f.write('# The float32 cases of cases.tsv with float16 inputs where torch computes them.\n')
        f.write('\n'.join(half_lines) + '\n')


def script_ops():
    """TorchScript's ops that scripted code inside a trace records (Mask
    R-CNN's and Keypoint R-CNN's loops): the trace's run executes them."""
    case('IntImplicit', 'IntImplicit', np.array(-7, dtype=np.int64), rtol=0, atol=0)
    case('IntImplicit_int32', 'IntImplicit', np.array(5, dtype=np.int32), rtol=0, atol=0)
    bad('IntImplicit_float', 'IntImplicit', np.array(3.5, dtype=np.float32))
    bad('IntImplicit_rank1', 'IntImplicit', np.array([3], dtype=np.int64))
    case('FloatImplicit', 'FloatImplicit', np.array(2.5, dtype=np.float32), rtol=0, atol=0)
    case('FloatImplicit_int', 'FloatImplicit', np.array(4, dtype=np.int64), rtol=0, atol=0)
    bad('FloatImplicit_rank1', 'FloatImplicit', np.array([2.5, 1.0], dtype=np.float32))
    for lo, hi, step in ((1, 10, 3), (10, 1, -4), (5, 5, 1), (0, 7, 1), (3, -9, -5), (2, 1, 1)):
        case(f'range_length_{lo}_{hi}_{step}'.replace('-', 'm'), '__range_length', lo, hi, step,
             rtol=0, atol=0)
    bad('range_length_step0', '__range_length', 1, 10, 0)
    case('derive_index', '__derive_index', 2, 1, 3, rtol=0, atol=0)
    case('derive_index_neg', '__derive_index', 4, 10, -3, rtol=0, atol=0)
    case('contains_int', '__contains__', IL([1, 2, 5]), 5, rtol=0, atol=0)
    case('contains_int_not', '__contains__', IL([1, 2, 5]), 3, rtol=0, atol=0)


if __name__ == '__main__':
    main()
