"""Tracing a PyTorch model the way symonnx reads it: the text of
torch.jit.trace(model, args).inlined_graph, plus what PyTorch records but
does not print (each autograd Function's body and calling convention), and
the tensors the text cannot hold.  Shared by the symonnx package and
tools/torch2trace.py."""
import inspect

import torch

CONSTANT_PREFIX = "__constant__."


def _body_block(node, indent):
    """The Subgraph of a prim::PythonOp as a block "Subgraph(%in...):" ...
    "-> (%out)", its values renamed <Function>_<call output>_<name> so they
    do not clash with the enclosing graph's (one namespace, as in PyTorch's
    blocks)."""
    body = node.g("Subgraph")
    prefix = "%s_%s_" % (node.pyname(), node.output().debugName().replace(".", "_"))
    for v in body.inputs():
        v.setDebugName(prefix + v.debugName().replace(".", "_"))
    for n in body.nodes():
        for o in n.outputs():
            o.setDebugName(prefix + o.debugName().replace(".", "_"))
    text = graph_text(body)
    head, _, rest = text.partition("):\n")
    head = " ".join(line.strip() for line in head.splitlines())
    lines = [indent + "Subgraph" + head[len("graph"):] + "):"]
    for line in rest.splitlines():
        if line.strip().startswith("return ("):
            line = line.replace("return (", "-> (", 1)
        lines.append(indent + line)
    return lines


def graph_text(graph):
    """str(graph), with each autograd Function call's body as a block after
    its line and its calling convention as a cconv attribute."""
    calls = {}
    for node in graph.nodes():
        if node.kind() == "prim::PythonOp":
            calls["%" + node.output().debugName() + " :"] = node
    out = []
    for line in str(graph).splitlines():
        out.append(line)
        stripped = line.lstrip()
        node = next((n for k, n in calls.items() if stripped.startswith(k)), None)
        if node is None:
            continue
        indent = line[:len(line) - len(stripped)]
        mark = "^" + node.pyname() + "["
        out[-1] = line.replace(mark, mark + 'cconv="%s", ' % node.cconv(), 1)
        if node.hasAttribute("Subgraph"):
            out.extend(_body_block(node, indent + "  "))
    return "\n".join(out) + "\n"


def all_nodes(graph):
    """Every node, those of Function bodies included."""
    for node in graph.nodes():
        yield node
        if node.kind() == "prim::PythonOp" and node.hasAttribute("Subgraph"):
            yield from all_nodes(node.g("Subgraph"))



class _Flattened(torch.nn.Module):
    """A model whose inputs are plain tensors (a list-of-tensors argument,
    a detection model's images, becomes one input per element, a dict one
    per value; a None argument, or a None inside a tuple, is no input and
    is passed as None,
    as torch.onnx.export's flattening of the arguments does) and whose
    outputs are flattened into one tuple, as torch.onnx.export does."""

    def __init__(self, model, templates):
        super().__init__()
        self.model = model
        self.templates = templates   # per argument: _TENSOR, None, or a list/tuple of those

    def forward(self, *flat):
        it = iter(flat)

        def build(t):
            if t is _TENSOR:
                return next(it)
            if isinstance(t, dict):
                return type(t)((k, build(v)) for k, v in t.items())
            if isinstance(t, (list, tuple)):
                return type(t)(build(e) for e in t)
            return t   # None
        return tuple(flatten(self.model(*[build(t) for t in self.templates])))


_TENSOR = object()   # where a tensor goes in an argument's template


def _template(a, flat):
    """a's template (tensors replaced by _TENSOR, appended to flat), or
    _TENSOR itself for anything else (passed as it is)."""
    if a is None:
        return None
    nested = (torch.Tensor, list, tuple, dict)
    if isinstance(a, (list, tuple)) and all(e is None or isinstance(e, nested) for e in a):
        return type(a)(_template(e, flat) for e in a)
    # a dict of tensors: its values in order (torch.jit._flatten's order)
    if isinstance(a, dict) and all(v is None or isinstance(v, nested) for v in a.values()):
        return type(a)((k, _template(v, flat)) for k, v in a.items())
    flat.append(a)
    return _TENSOR


def _flat_args(args):
    """(flat tensors, per-argument templates: _TENSOR for a plain argument,
    else its nesting of tuples/lists with None kept and _TENSOR where each
    tensor went)."""
    flat, templates = [], []
    for a in args:
        templates.append(_template(a, flat))
    return tuple(flat), templates


def tensorize(args):
    """Python numbers among the arguments (nested in tuples and lists too)
    as 0-d tensors, as torch.onnx.export passes them (torch.jit._flatten):
    graph inputs, not constants of the trace."""
    if isinstance(args, bool):
        return torch.tensor(args)
    if isinstance(args, int):
        return torch.tensor(args)
    if isinstance(args, float):   # double, as torch.jit._flatten makes it
        return torch.tensor(args, dtype=torch.float64)
    if isinstance(args, tuple):
        return tuple(tensorize(a) for a in args)
    if isinstance(args, list):
        return [tensorize(a) for a in args]
    return args


def decide_input_format(model, args):
    """torch.onnx.export's rule for its `args` (_decide_input_format): a
    dict last among them holds the named arguments, which join the
    positional ones in the order of the forward's signature, a missing one
    taking its default (None: no graph input).  To pass a dict as the last
    positional argument itself, end `args` with an empty dict, as for
    torch.onnx.export."""
    if not isinstance(args, tuple) or not args or not isinstance(args[-1], dict):
        return args
    named, positional = args[-1], list(args[:-1])
    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return tuple(positional) + tuple(named.values())
    keys = [k for k in params if k != "self"]
    unknown = [k for k in named if k not in keys[len(positional):]]
    if unknown:
        raise ValueError(f"named argument {unknown[0]!r} is not a parameter of the forward after "
                         f"the {len(positional)} positional ones")
    for k in keys[len(positional):]:
        p = params[k]
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            break
        if k in named:
            positional.append(named[k])
        elif p.default is not inspect.Parameter.empty:
            positional.append(p.default)
        else:
            raise ValueError(f"the forward's argument {k!r} is neither given nor has a default")
    return tuple(positional)


def _input_types(args):
    """The types of the tensor arguments as they are before the model runs
    (None for the others)."""
    return [torch._C.TensorType.create_from_tensor(a) if isinstance(a, torch.Tensor) and not a.is_quantized
            else None for a in args]


def _set_input_types(graph, types):
    """Each tensor input takes the element type and shape of its example
    argument as it was before the forward ran, as torch.onnx.export's
    _propagate_and_assign_input_shapes does: a scripted model (which
    torch.jit.trace returns as it is) declares plain `Tensor`, of no rank
    (its dims are the traced ones, dynamic_axes make them symbols as for a
    trace), and a trace the argument as the forward left it, which differs
    where the forward changed it in place (`x.set_(y)`: PyTorch's suite,
    test_set_)."""
    inputs = list(graph.inputs())[1:]   # after the module
    if len(inputs) != len(types):
        return
    for v, t in zip(inputs, types):
        # a scripted forward's `flag: bool` / `i: int` takes its argument's
        # 0-d tensor type too (tensorize made it one), as torch's pass types
        # every input from the flattened arguments.  Not `s: float`: a 0-d
        # double, where PyTorch computes x.sum() * s in x's float32 and the
        # graph cannot tell that double from a tensor's (refused: not a
        # tensor input)
        if t is not None and v.type().kind() in ("TensorType", "BoolType", "IntType"):
            v.setType(t)


def _reads_plain_attributes(module):
    """Whether the module's graph reads an attribute that is neither a
    submodule nor in its state_dict (an int, a bool such as `training`, a
    plain tensor).  Only such a graph is frozen: freezing a traced module
    (a deep copy of one is no longer a TracedModule) would drop the types
    its trace declares."""
    try:
        graph = module.inlined_graph
    except RuntimeError:
        return False
    state = set(module.state_dict().keys())

    def walk(block):
        for node in block.nodes():
            yield node
            for b in node.blocks():
                yield from walk(b)

    for node in walk(graph):
        if node.kind() != "prim::GetAttr":
            continue
        kind = node.output().type().kind()
        if kind == "ClassType":
            continue
        path = _getattr_path(node.output())
        if kind != "TensorType" or (path is not None and path not in state):
            return True
    return False


def _frozen(module):
    """The scripted module frozen with its parameters kept; the module
    itself where freezing refuses it."""
    try:
        return torch.jit._recursive.wrap_cpp_module(
            torch._C._freeze_module(module._c, preserveParameters=True))
    except (RuntimeError, AttributeError):
        return module


def trace(model, args):
    """(text, tensors, outputs): the trace text, the state_dict plus every
    tensor constant of the trace under "__constant__.<value name>" (PyTorch
    prints those lossily), and the traced model's outputs for `args`,
    flattened.  The model's forward runs once, as in torch.onnx.export: a
    forward that changes the model's state (self.w = self.w * 3) is traced
    from the state it was given in."""
    if isinstance(args, torch.Tensor):
        args = (args,)
    args = tensorize(tuple(args))
    flat, templates = _flat_args(args)
    # Traced with autograd on, as torch.onnx.export does: under no_grad,
    # nn.TransformerEncoderLayer and nn.MultiheadAttention take their fused
    # fast path (aten::_transformer_encoder_layer_fwd,
    # _native_multi_head_attention) instead of their ordinary ops.
    traced = traced_model = None
    types = {id(args): _input_types(args), id(flat): _input_types(flat)}
    if all(t is _TENSOR for t in templates):
        try:
            traced_model, traced_args = model, args
            traced = torch.jit.trace(model, args, check_trace=False, strict=False)
        except (RuntimeError, TypeError, AssertionError, ValueError):
            # outputs torch.jit.trace does not take (a list of dicts, a dict
            # of mixed values): traced flattened below, and an error of the
            # model itself comes again from there
            traced = None
    if traced is None:
        # a list of dicts out, a list of tensors in (detection models) or
        # None arguments: trace a module with plain inputs and a flat tuple
        # out, as torch.onnx.export does; its weights are named "model.<name>"
        traced_model, traced_args = _Flattened(model, templates), flat
        traced = torch.jit.trace(traced_model, traced_args, check_trace=False, strict=False)
    if isinstance(traced, torch.jit.ScriptModule) and _reads_plain_attributes(traced):
        # a scripted model, frozen as torch.onnx.export freezes it
        # (_freeze_module, parameters kept): its int, bool and tensor
        # attributes that are not parameters (self.dim, self.training of
        # every submodule) become constants, so `if self.training:` folds
        traced_model = traced = _frozen(traced)
    graph = traced.inlined_graph
    _set_input_types(graph, types[id(traced_args)])
    text = graph_text(graph)   # renames the bodies' values: before reading their names
    tensors = state_tensors(traced_model, graph)
    for node in all_nodes(graph):
        if node.kind() == "prim::Constant" and node.hasAttribute("value") and node.kindOf("value") == "t":
            tensors[CONSTANT_PREFIX + node.output().debugName()] = node.t("value")
    # run last: a scripted forward that assigns attributes (self.conv.bias =
    # anchors + b, prim::SetAttr) changes the module, and the export takes
    # the state it was given in, as torch.onnx.export (PyTorch's suite,
    # test_set_attr_2: the exported bias was the one after this run)
    with torch.no_grad():
        outputs = flatten(traced(*traced_args))
    return text, tensors, outputs


# Note [Quantized tensors in safetensors]: a quantized tensor NAME is stored
# as NAME (its integer values: U8 for quint8, I8 for qint8, I32 for qint32),
# NAME:scale (F64, 0-d per tensor or 1-D per channel), NAME:zero_point (I64,
# the same shape) and, per channel only, NAME:axis (I64, 0-d).  A packed
# parameter object P of a quantized op (a prim::GetAttr of a
# __torch__.torch.classes.quantized.*PackedParamsBase: conv or linear weights
# as prepacked for the backend) is stored unpacked as P.weight (quantized, as
# above), P.bias (F32; absent when there is none) and, for convolutions,
# P.stride, P.padding, P.dilation, P.output_padding (I64 1-D), P.groups and
# P.transpose (I64 0-d): what torch.onnx's unpack pass reads from the object.
QUANTIZED_INT = {torch.quint8: torch.uint8, torch.qint8: torch.int8, torch.qint32: torch.int32}


def flatten_inputs(args):
    """The tensors among a model's arguments (nested in tuples, lists and
    dicts), in order."""
    if isinstance(args, torch.Tensor):
        return [args]
    if isinstance(args, (tuple, list)):
        return [t for a in args for t in flatten_inputs(a)]
    if isinstance(args, dict):
        return [t for a in args.values() for t in flatten_inputs(a)]
    return []


def unpack_quantized(values, for_inputs=True):
    """Tensors as the exported model takes or gives them (Note [Quantized
    graph inputs and outputs], export/pipeline/pipeline.c; torch 1.13's
    torch.onnx.utils.unpack_quantized_tensor): a per-tensor quantized tensor
    is three, its integers, its scale and its zero point.  The scale is a
    double and the zero point an int64 for inputs, a float and the integers'
    type for outputs.  A per-channel quantized tensor raises ValueError
    (torch's export fails on it too: it has no q_scale())."""
    out = []
    for t in values:
        if not (isinstance(t, torch.Tensor) and t.is_quantized):
            out.append(t)
            continue
        if t.qscheme() not in (torch.per_tensor_affine, torch.per_tensor_symmetric):
            raise ValueError(f"a quantized tensor of scheme {t.qscheme()} cannot be passed "
                             "to or from an exported model (only per-tensor quantization)")
        ints = t.int_repr()
        if for_inputs:
            out += [ints, torch.tensor(t.q_scale(), dtype=torch.float64),
                    torch.tensor(t.q_zero_point(), dtype=torch.int64)]
        else:
            out += [ints, torch.tensor(t.q_scale(), dtype=torch.float32),
                    torch.tensor(t.q_zero_point(), dtype=ints.dtype)]
    return out


def quantized_entries(name, t):
    """{key: tensor} for one quantized tensor (Note [Quantized tensors in safetensors])."""
    out = {name: t.int_repr().to(QUANTIZED_INT[t.dtype])}
    if t.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        out[name + ":scale"] = torch.tensor(t.q_scale(), dtype=torch.float64)
        out[name + ":zero_point"] = torch.tensor(t.q_zero_point(), dtype=torch.int64)
    elif t.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric,
                         torch.per_channel_affine_float_qparams):
        out[name + ":scale"] = t.q_per_channel_scales().to(torch.float64)
        out[name + ":zero_point"] = t.q_per_channel_zero_points().to(torch.int64)
        out[name + ":axis"] = torch.tensor(t.q_per_channel_axis(), dtype=torch.int64)
    else:
        raise TypeError(f"symonnx: {name}: quantization scheme {t.qscheme()} has no safetensors layout")
    return out


def _packed_entries(path, obj, kind):
    """The unpacked weights and settings of one packed parameter object of
    the trace type `kind` (__torch__.torch.classes.quantized.Conv2dPackedParamsBase ...)."""
    if "Conv" in kind:
        w, b = torch.ops.quantized.conv2d_unpack(obj) if "Conv2d" in kind else \
            torch.ops.quantized.conv3d_unpack(obj) if "Conv3d" in kind else \
            torch.ops.quantized.conv1d_unpack(obj)
        out = {path + ".stride": torch.tensor(obj.stride()), path + ".padding": torch.tensor(obj.padding()),
               path + ".dilation": torch.tensor(obj.dilation()),
               path + ".output_padding": torch.tensor(obj.output_padding()),
               path + ".groups": torch.tensor(obj.groups()),
               path + ".transpose": torch.tensor(int(obj.transpose()))}
    elif "Linear" in kind:
        w, b = torch.ops.quantized.linear_unpack(obj)
        out = {}
    else:
        raise TypeError(f"symonnx: {path}: packed parameters of type {kind} cannot be unpacked")
    out.update(quantized_entries(path + ".weight", w))
    if b is not None:
        out[path + ".bias"] = b.detach().float()
    return out


def _getattr_path(value):
    """"a.b.c" for a prim::GetAttr chain from the module input; None otherwise."""
    parts = []
    while value.node().kind() == "prim::GetAttr":
        parts.insert(0, value.node().s("name"))
        value = value.node().input()
    return ".".join(parts) if parts and value.node().kind() == "prim::Param" else None


def state_tensors(model, graph):
    """The state_dict as safetensors can hold it: quantized tensors and the
    packed parameters the trace reads (Note [Quantized tensors in
    safetensors]); non-tensor entries (a packed linear's tuple, its dtype)
    left out."""
    tensors = {}
    for name, t in model.state_dict().items():
        if not isinstance(t, torch.Tensor):
            continue
        if t.is_quantized:
            tensors.update(quantized_entries(name, t))
        else:
            tensors[name] = t
    for node in all_nodes(graph):
        if node.kind() != "prim::GetAttr":
            continue
        kind = str(node.output().type())
        if not kind.startswith("__torch__.torch.classes.quantized."):
            continue
        path = _getattr_path(node.output())
        if path is None:
            continue
        obj = model
        for part in path.split("."):
            obj = getattr(obj, part)
        tensors.update(_packed_entries(path, obj, kind))
    return tensors


def flatten(out):
    """A model's outputs as a list of tensors (tuples and lists flattened,
    dicts by their values in insertion order, as torch.onnx.export does)."""
    if out is None:   # torch.onnx.export drops the outputs that are None
        return []
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in flatten(o)]
    if isinstance(out, (bool, int, float)):   # a scripted forward's int: a 0-d tensor, as torch.jit._flatten
        return [tensorize(out)]
    raise TypeError(f"symonnx: cannot handle an output of type {type(out).__name__}")
