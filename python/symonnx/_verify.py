"""symonnx.verify: the exported file run by symonnx's executor (in this
process, through libsymonnx) against PyTorch's run of the model."""
import copy
import ctypes
import sys

import numpy as np
import torch

from . import _trace
from ._lib import RtOptions, SymonnxError, api as get_api, new_error, take_error

# GraphDType → numpy
_NP = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
       9: np.bool_, 10: np.float16, 11: np.float64}


def _to_numpy(api, t):
    dtype = _NP.get(api["tensor_dtype"](t))
    if dtype is None:
        raise SymonnxError("an output of a type numpy cannot hold")
    rank = api["tensor_rank"](t)
    dims = api["tensor_dims"](t)
    shape = tuple(dims[i] for i in range(rank))
    nbytes = api["tensor_nbytes"](t)
    buf = ctypes.string_at(api["tensor_data"](t), nbytes) if nbytes else b""
    return np.frombuffer(buf, dtype=dtype).reshape(shape).copy()


def _row(name, expected, actual, rtol, atol):
    shape = "%s(%s)" % (expected.dtype, ", ".join(str(d) for d in expected.shape))
    if actual.shape != expected.shape:
        return False, f"{name:<20} {shape:<22} shape differs: got {actual.shape}"
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    diff = np.abs(a - e)
    bad = ~(diff <= atol + rtol * np.abs(e))
    bad |= np.isnan(a) != np.isnan(e)
    rel = diff / np.maximum(np.abs(e), np.finfo(np.float64).tiny)
    max_abs = float(np.nanmax(diff)) if diff.size else 0.0
    max_rel = float(np.nanmax(rel)) if rel.size else 0.0
    first = str(int(np.flatnonzero(bad)[0])) if bad.any() else "-"
    mism = f"{int(bad.sum())}/{bad.size}"
    return (not bad.any(), f"{name:<20} {shape:<22} {max_abs:12.3g} {max_rel:12.3g} "
                           f"{mism:>12} {first:>10}")


def verify(model, args, f, rtol=1e-3, atol=1e-5, file=None):
    out = file or sys.stdout
    if isinstance(args, torch.Tensor):
        args = (args,)
    args = _trace.decide_input_format(model, tuple(args))   # named arguments last, as export
    # the executor takes the arguments as they were before the forward ran
    # (a forward may change one in place: x.set_(y), x.add_(1))
    feed = copy.deepcopy(args)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            expected = [t.detach().numpy()
                        for t in _trace.unpack_quantized(_trace.flatten(model(*args)), False)]
    finally:
        model.train(was_training)
    api = get_api()
    err = new_error()
    graph = api["onnxio_load"](str(f).encode(), ctypes.byref(err))
    if not graph:
        raise take_error(err)
    session = inputs = outputs = None
    try:
        opts = RtOptions()
        api["rt_options_init"](ctypes.byref(opts))
        session = api["rt_session_new"](graph, ctypes.byref(opts), ctypes.byref(err))
        if not session:
            raise take_error(err)
        names = []
        for i in range(api["graph_n_inputs"](graph)):
            v = api["graph_input"](graph, i)
            if not api["graph_value_get_initializer"](v):
                names.append(api["graph_value_get_name"](v))
        # a list of tensors: one input per element, three per quantized tensor
        args = _trace.unpack_quantized(_trace._flat_args(_trace.tensorize(feed))[0])
        if len(names) != len(args):
            raise SymonnxError(f"{f} has {len(names)} inputs, and {len(args)} arguments were given")
        from . import _dtype_table, _tensor   # noqa: F401
        table = api["g_hash_table_new_full"]
        inputs = table(api["g_str_hash"], api["g_str_equal"], api["g_free_ptr"], api["tensor_unref_ptr"])
        outputs = table(api["g_str_hash"], api["g_str_equal"], api["g_free_ptr"], api["tensor_unref_ptr"])
        for name, a in zip(names, args):
            api["g_hash_table_insert"](inputs, api["g_strdup"](name), _tensor(api, a))
        if not api["rt_session_run"](session, inputs, outputs, ctypes.byref(err)):
            raise take_error(err)
        n_out = api["graph_n_outputs"](graph)
        if n_out != len(expected):
            raise SymonnxError(f"{f} has {n_out} outputs, PyTorch's model {len(expected)}")
        print(f"{'output':<20} {'shape':<22} {'max abs err':>12} {'max rel err':>12} "
              f"{'mismatches':>12} {'first':>10}", file=out)
        ok_all = True
        for i in range(n_out):
            name = api["graph_value_get_name"](api["graph_output"](graph, i))
            t = api["g_hash_table_lookup"](outputs, name)
            ok, line = _row(name.decode(), expected[i], _to_numpy(api, t), rtol, atol)
            ok_all &= ok
            print(line, file=out)
        print("%s: %d output%s compared with PyTorch (rtol %g, atol %g)"
              % ("PASS" if ok_all else "FAIL", n_out, "" if n_out == 1 else "s", rtol, atol), file=out)
        return ok_all
    finally:
        if inputs:
            api["g_hash_table_unref"](inputs)
        if outputs:
            api["g_hash_table_unref"](outputs)
        if session:
            api["rt_session_free"](session)
        api["graph_free"](graph)
