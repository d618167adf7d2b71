"""symonnx from Python: torch.onnx.export's one call, done by symonnx's C
library, and a check of the result against PyTorch.

    import symonnx
    symonnx.export(model, (x,), "m.onnx", opset_version=14,
                   input_names=["x"], output_names=["y"],
                   dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    symonnx.verify(model, (x,), "m.onnx")      # prints the comparison table

The model is traced in this process (torch.jit.trace, as torch.onnx.export
does) and the trace goes to libsymonnx in memory, weights included: no
temporary files.  An autograd Function without a symbolic is inlined from
its recorded body; one with a symbolic in C comes from `plugins=[...]`
(shared objects, as `symonnx export --plugin`).  `python3 -m symonnx ...`
runs the command-line tool.  Needs only torch and numpy.
"""
import ctypes
import sys

from ._lib import SymonnxError

__all__ = ["export", "verify", "SymonnxError"]
__version__ = "0.1.0"

# torch's dtypes as ONNX TensorProto.DataType values (GraphDType)
_DTYPES = None


def _dtype_table():
    global _DTYPES
    if _DTYPES is None:
        import torch
        _DTYPES = {
            torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 5, torch.int32: 6,
            torch.int64: 7, torch.bool: 9, torch.float16: 10, torch.float64: 11,
            torch.bfloat16: 16,
        }
    return _DTYPES


def _tensor(api, t):
    """A libsymonnx Tensor* holding a copy of torch tensor t."""
    dtype = _dtype_table().get(t.dtype)
    if dtype is None:
        raise SymonnxError(f"tensors of type {t.dtype} are not supported")
    t = t.detach().contiguous().cpu()
    dims = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
    nbytes = t.numel() * t.element_size()
    from ._lib import new_error, take_error
    err = new_error()
    ptr = api["tensor_new_from_data"](dtype, t.dim(), dims, ctypes.c_void_p(t.data_ptr()),
                                      nbytes, ctypes.byref(err))
    if not ptr:
        raise take_error(err)
    return ptr


def _weights_table(api, tensors):
    """A GHashTable name → Tensor* (the C library's weights)."""
    table = api["g_hash_table_new_full"](api["g_str_hash"], api["g_str_equal"], api["g_free_ptr"],
                                         api["tensor_unref_ptr"])
    for name, t in tensors.items():
        api["g_hash_table_insert"](table, api["g_strdup"](name.encode()), _tensor(api, t))
    return table


def _mode_name(operator_export_type):
    if operator_export_type is None:
        return "onnx"
    name = getattr(operator_export_type, "name", operator_export_type)   # torch's enum
    return str(name)


def _dynamic_axes_spec(dynamic_axes):
    """torch's {name: {axis: symbol} | [axes]} as "name:axis=symbol,..."."""
    items = []
    for name, axes in (dynamic_axes or {}).items():
        if isinstance(axes, dict):
            items += [f"{name}:{int(a)}={s}" for a, s in axes.items()]
        else:
            items += [f"{name}:{int(a)}" for a in axes]
    return ",".join(items)


def _c_strings(names):
    if not names:
        return None, None
    keep = [n.encode() for n in names]
    arr = (ctypes.c_char_p * (len(keep) + 1))(*keep, None)
    return arr, keep


def export(model, args, f, export_params=True, verbose=False, training=None,
           input_names=None, output_names=None, operator_export_type=None,
           opset_version=None, do_constant_folding=True, dynamic_axes=None,
           keep_initializers_as_inputs=None, custom_opsets=None,
           export_modules_as_functions=False, plugins=(), check=True):
    """Exports `model` called on `args` to the ONNX file `f`, as
    torch.onnx.export does (same arguments: a dict last in `args` holds
    named arguments; `plugins` are symonnx symbolic plugins, `check=False`
    skips the model checker).  Raises SymonnxError
    with symonnx's message when the export fails (nothing is written)."""
    import torch
    from . import _trace
    from ._lib import ExportOptions, api as get_api, new_error, take_error, take_string

    # as torch.onnx.export: EVAL (the default) traces in eval mode,
    # TRAINING in training mode, PRESERVE in the model's own
    modes = torch.onnx.TrainingMode
    if training in (None, False, modes.EVAL):
        train = False
    elif training in (True, modes.TRAINING):
        train = True
    elif training == modes.PRESERVE:
        train = model.training
    else:
        raise SymonnxError(f"unknown training mode {training!r}")
    if export_modules_as_functions:
        raise SymonnxError("export_modules_as_functions is not supported")
    if custom_opsets:
        raise SymonnxError("custom_opsets: set domain versions from a plugin "
                           "(sym_registry_set_domain_version)")
    try:
        # a dict last among the arguments: the named ones (torch's rule)
        args = _trace.decide_input_format(model, args if isinstance(args, tuple) else (args,))
        # a per-channel quantized input: refused, as torch's export does
        _trace.unpack_quantized(_trace.flatten_inputs(args))
    except ValueError as e:
        raise SymonnxError(f"symonnx: {e}") from None
    was_training = model.training
    model.train(train)
    try:
        text, tensors, _ = _trace.trace(model, args)
    finally:
        model.train(was_training)
    api = get_api()
    err = new_error()
    raw = text.encode()
    trace = api["graph_parse"](raw, len(raw), b"<traced model>", ctypes.byref(err))
    if not trace:
        raise take_error(err)
    reg = api["sym_registry_new"]()
    weights = _weights_table(api, tensors) if export_params else None
    opts = ExportOptions()
    api["export_options_init"](ctypes.byref(opts))
    in_arr, _in_keep = _c_strings(input_names)
    out_arr, _out_keep = _c_strings(output_names)
    graph = None
    try:
        for p in plugins or ():
            if not api["sym_registry_load_plugin"](reg, str(p).encode(), ctypes.byref(err)):
                raise take_error(err)
        mode = ctypes.c_int()
        if not api["sym_mode_from_name"](_mode_name(operator_export_type).encode(), ctypes.byref(mode)):
            raise SymonnxError(f"unknown operator_export_type {operator_export_type!r}")
        opts.opset = 14 if opset_version is None else int(opset_version)
        opts.mode = mode.value
        opts.input_names = in_arr
        opts.output_names = out_arr
        opts.do_constant_folding = bool(do_constant_folding)
        opts.keep_initializers_as_inputs = bool(keep_initializers_as_inputs)
        opts.export_params = bool(export_params)
        opts.registry = reg
        opts.weights = weights
        opts.check = bool(check)
        opts.training = int(train)
        # PyTorch's default dtype now, as torch.onnx.export reads it: what scripted code leaves
        # to it (integer true division, factories without a dtype)
        opts.default_dtype = _dtype_table().get(torch.get_default_dtype(), 1)
        # quantized::add as the engine that runs it computes: qnnpack's integer arithmetic,
        # or (fbgemm, x86) the float form torch.onnx writes
        opts.float_quantized_add = int(torch.backends.quantized.engine != "qnnpack")
        spec = _dynamic_axes_spec(dynamic_axes)
        if spec and not api["export_options_parse_dynamic_axes"](ctypes.byref(opts), spec.encode(),
                                                                 ctypes.byref(err)):
            raise take_error(err)
        warnings = ctypes.c_void_p()
        graph = api["export_graph_report"](trace, ctypes.byref(opts), ctypes.byref(warnings),
                                           ctypes.byref(err))
        if not graph:
            raise take_error(err)
        if warnings.value:
            _print_warnings(warnings.value, api)
        if not api["onnxio_save"](graph, str(f).encode(), None, ctypes.byref(err)):
            raise take_error(err)
        if verbose:
            print(take_string(api["graph_to_string"](graph)), end="")
    finally:
        if graph:
            api["graph_free"](graph)
        api["export_options_clear"](ctypes.byref(opts))
        if weights:
            api["g_hash_table_unref"](weights)
        api["sym_registry_unref"](reg)
        api["graph_free"](trace)


def _print_warnings(array, api):
    class GPtrArray(ctypes.Structure):
        _fields_ = [("pdata", ctypes.POINTER(ctypes.c_char_p)), ("len", ctypes.c_uint)]
    a = GPtrArray.from_address(array)
    for i in range(a.len):
        print("symonnx: warning:", a.pdata[i].decode("utf-8", "replace"), file=sys.stderr)
    api["g_ptr_array_unref"](array)


def verify(model, args, f, rtol=1e-3, atol=1e-5, file=None):
    """Runs the ONNX file `f` with symonnx's executor on `args` and compares
    each output with PyTorch's run of `model`, printing one line per output
    (shape, max abs and rel error, mismatching elements, first mismatch) as
    `symonnx verify` does.  Returns True when every output is within
    |a - e| <= atol + rtol * |e| (numpy's allclose)."""
    from ._verify import verify as _verify
    return _verify(model, args, f, rtol=rtol, atol=atol, file=file)
