"""Tracing a PyTorch model the way symonnx reads it: the text of
torch.jit.trace(model, args).inlined_graph, plus what PyTorch records but
does not print (each autograd Function's body and calling convention), and
the tensors the text cannot hold.  Shared by the symonnx package and
tools/torch2trace.py."""
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



def _traceable(out):
    """Whether torch.jit.trace takes this output as it is: a tensor, or
    tuples/lists of them, or a dict of tensors."""
    if isinstance(out, torch.Tensor):
        return True
    if isinstance(out, (tuple, list)):
        return all(isinstance(o, torch.Tensor) or (isinstance(o, (tuple, list)) and _traceable(o))
                   for o in out)
    if isinstance(out, dict):
        return all(isinstance(o, torch.Tensor) for o in out.values())
    return False


class _Flattened(torch.nn.Module):
    """A model whose inputs are plain tensors (a list-of-tensors argument,
    a detection model's images, becomes one input per element) and whose
    outputs are flattened into one tuple, as torch.onnx.export does."""

    def __init__(self, model, lengths):
        super().__init__()
        self.model = model
        self.lengths = lengths   # per argument: None (a tensor) or its list's length

    def forward(self, *flat):
        args, k = [], 0
        for n in self.lengths:
            if n is None:
                args.append(flat[k])
                k += 1
            else:
                args.append(list(flat[k:k + n]))
                k += n
        return tuple(flatten(self.model(*args)))


def _flat_args(args):
    """(flat tensors, per-argument list lengths or None)."""
    flat, lengths = [], []
    for a in args:
        if isinstance(a, (list, tuple)) and all(isinstance(t, torch.Tensor) for t in a):
            flat.extend(a)
            lengths.append(len(a))
        else:
            flat.append(a)
            lengths.append(None)
    return tuple(flat), lengths


def trace(model, args):
    """(text, tensors, outputs): the trace text, the state_dict plus every
    tensor constant of the trace under "__constant__.<value name>" (PyTorch
    prints those lossily), and PyTorch's outputs for `args`, flattened."""
    if isinstance(args, torch.Tensor):
        args = (args,)
    args = tuple(args)
    with torch.no_grad():
        outputs = model(*args)
    traced_model, traced_args = model, args
    flat, lengths = _flat_args(args)
    if not _traceable(outputs) or any(n is not None for n in lengths):
        # a list of dicts out or a list of tensors in (detection models):
        # trace a module with plain inputs and a flat tuple out, as
        # torch.onnx.export does; its weights are named "model.<name>"
        traced_model, traced_args = _Flattened(model, lengths), flat
    # Traced with autograd on, as torch.onnx.export does: under no_grad,
    # nn.TransformerEncoderLayer and nn.MultiheadAttention take their fused
    # fast path (aten::_transformer_encoder_layer_fwd,
    # _native_multi_head_attention) instead of their ordinary ops.
    traced = torch.jit.trace(traced_model, traced_args, check_trace=False, strict=False)
    outputs = flatten(outputs)
    graph = traced.inlined_graph
    text = graph_text(graph)   # renames the bodies' values: before reading their names
    tensors = dict(traced_model.state_dict())
    for node in all_nodes(graph):
        if node.kind() == "prim::Constant" and node.hasAttribute("value") and node.kindOf("value") == "t":
            tensors[CONSTANT_PREFIX + node.output().debugName()] = node.t("value")
    return text, tensors, outputs


def flatten(out):
    """A model's outputs as a list of tensors (tuples and lists flattened,
    dicts by their values in insertion order, as torch.onnx.export does)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in flatten(o)]
    raise TypeError(f"symonnx: cannot handle an output of type {type(out).__name__}")
