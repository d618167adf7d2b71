"""The symonnx Python package as a user calls it, run by tests/e2e/test-e2e.c.

  python_api.py seeds DIR        export + verify the seed models and MyModule
  python_api.py function DIR     the newcomer's CNN with an autograd Function
  python_api.py signature        export() takes torch.onnx.export's arguments;
                                 python3 -m symonnx runs the CLI
  python_api.py errors DIR       failures raise SymonnxError, write nothing
  python_api.py stateful DIR     a forward that changes the model is run once;
                                 None outputs, Python-number arguments;
                                 quantized tensors in and out
  python_api.py scripted DIR     a torch.jit.script model, with dynamic axes
  python_api.py dynamic DIR      sizes computed at run time (chunk of a
                                 dynamic dim, a chunk count from x.size(0)),
                                 at opsets 11 and 13, run at other sizes
  python_api.py ort_files DIR    scripted Ifs on input sizes with slice writes,
                                 static and dynamic, also run in ONNX Runtime
  python_api.py qnnpack_add DIR  quantized add / add_relu on the integers where
                                 QNNPACK's rounding and the float form's differ,
                                 in symonnx's executor and ONNX Runtime

Each check compares with something that is not symonnx: PyTorch's outputs
(symonnx.verify runs the model), onnx.checker, torch's own signature.
Exit status 0 when every check passes."""
import inspect
import io
import os
import sys
from typing import Dict, List, Optional, Tuple

import onnx
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import symonnx  # noqa: E402  (PYTHONPATH: the source tree's python/)
import torch_models  # noqa: E402


def check_file(path):
    onnx.checker.check_model(onnx.load(path), full_check=True)


def verified(model, args, path):
    out = io.StringIO()
    ok = symonnx.verify(model, args, path, file=out)
    text = out.getvalue()
    if not ok or "PASS" not in text:
        raise SystemExit(f"verify failed for {path}:\n{text}")
    return text


def seeds(d):
    torch.manual_seed(0)
    cases = [("superres", (torch.randn(1, 1, 32, 32),)), ("dcgan", None)]
    for name, args in cases:
        ctor, inputs = torch_models.MODELS[name]
        model = ctor().eval()
        if args is None:
            args = tuple(torch.randn(*map(int, s.split(","))) for s in inputs)
        for opset in (9, 13):
            path = os.path.join(d, f"{name}-{opset}.onnx")
            symonnx.export(model, args, path, opset_version=opset)
            check_file(path)
            verified(model, args, path)
    import torchvision
    model = torchvision.models.resnet18(weights=None).eval()
    x = torch.randn(1, 3, 64, 64)
    path = os.path.join(d, "resnet18.onnx")
    symonnx.export(model, (x,), path, input_names=["image"], output_names=["logits"],
                   dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    check_file(path)
    m = onnx.load(path)
    assert m.graph.input[0].name == "image", m.graph.input[0].name
    assert m.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    verified(model, (torch.randn(3, 3, 64, 64),), path)
    # MyModule: its MyFunction has a symbolic in C (the plugin), which wins;
    # without it, the body the trace recorded is inlined.
    ctor, _ = torch_models.MODELS["mymodule"]
    model = ctor().eval()
    args = (torch.randn(3, 4), torch.randn(3, 4))
    path = os.path.join(d, "mymodule-plugin.onnx")
    symonnx.export(model, args, path, plugins=[os.environ["SYMONNX_MYMODULE_PLUGIN"]],
                   operator_export_type=torch.onnx.OperatorExportTypes.ONNX)
    assert any(n.op_type == "ATen" for n in onnx.load(path).graph.node)
    verified(model, args, path)
    path = os.path.join(d, "mymodule-inlined.onnx")
    symonnx.export(model, args, path)
    ops = [n.op_type for n in onnx.load(path).graph.node]
    assert "ATen" not in ops and "Mul" in ops, ops
    check_file(path)
    verified(model, args, path)
    print("seeds: ok")


def function(d):
    import function_model
    torch.manual_seed(0)
    model = function_model.Net().eval()
    x = torch.randn(2, 3, 8, 8)
    path = os.path.join(d, "net.onnx")
    out = io.StringIO()
    sys_stdout, sys.stdout = sys.stdout, out
    try:
        symonnx.export(model, (x,), path, input_names=["x"], output_names=["y"],
                       dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, verbose=True)
    finally:
        sys.stdout = sys_stdout
    assert "graph(%x : Float(batch, 3, 8, 8)" in out.getvalue(), out.getvalue()
    check_file(path)
    verified(model, (x,), path)
    verified(model, (torch.randn(7, 3, 8, 8),), path)   # another batch size
    print("function: ok")


def transformer(d):
    """nn.TransformerEncoder in eval mode exports its ordinary ops: the Python
    entry point traces with autograd on, as torch.onnx.export does (under
    no_grad PyTorch takes the fused _transformer_encoder_layer_fwd)."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 2).eval()
    x = torch.rand(2, 5, 16)
    path = os.path.join(d, "encoder.onnx")
    symonnx.export(model, (x,), path, opset_version=13)
    check_file(path)
    verified(model, (x,), path)
    kinds = {n.op_type for n in onnx.load(path).graph.node}
    assert "MatMul" in kinds and "Softmax" in kinds and "ATen" not in kinds, kinds
    print("transformer: ok")


def stateful(d):
    """A forward that changes the model's state (self.w = self.w * 3, as
    test_set_attr_modules of PyTorch's ONNX suite) is traced from the state
    it was given, as torch.onnx.export does: the export runs forward once.
    Also: outputs that are None are dropped, and Python numbers among the
    arguments are graph inputs, as torch.onnx.export does."""
    import copy

    class Stateful(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.arange(4.0) + 1

        def forward(self, x):
            self.w = self.w * 3
            return x * self.w

    class NoneOut(torch.nn.Module):
        def forward(self, x):
            return x + 1, (None, x * 2)

    model = Stateful()
    fresh = copy.deepcopy(model)
    x = torch.randn(2, 4)
    path = os.path.join(d, "stateful.onnx")
    symonnx.export(model, (x,), path)
    check_file(path)
    verified(fresh, (x,), path)   # fresh's one forward: w * 3
    path = os.path.join(d, "none-out.onnx")
    symonnx.export(NoneOut(), (x,), path)
    check_file(path)
    assert len(onnx.load(path).graph.output) == 2
    verified(NoneOut(), (x,), path)

    # Python numbers among the arguments are graph inputs (0-d int64 and
    # double tensors), as torch.onnx.export makes them: other values run
    class Numbers(torch.nn.Module):
        def forward(self, x, k: int, s: float):
            return x * k + s

    path = os.path.join(d, "numbers.onnx")
    symonnx.export(Numbers(), (x, 3, 2.5), path)
    check_file(path)
    verified(Numbers(), (x, 3, 2.5), path)
    verified(Numbers(), (x, -5, 0.25), path)

    # an int argument as squeeze's / unsqueeze's dim: Squeeze and Unsqueeze
    # with the axes from that input (from opset 13; PyTorch's suite,
    # test_squeeze_dynamic_dim, test_unsqueeze_dynamic_dim)
    class Squeeze(torch.nn.Module):
        def forward(self, x, dim: int):
            return torch.squeeze(x, dim), torch.unsqueeze(x, dim)

    y = torch.randn(2, 1, 1, 4)
    path = os.path.join(d, "squeeze-dim.onnx")
    symonnx.export(Squeeze(), (y, 1), path, opset_version=13)
    check_file(path)
    for k in (1, 2, -3):
        verified(Squeeze(), (y, k), path)

    # None arguments, also inside a tuple, are no graph input and reach the
    # forward as None (torch.onnx.export's flattening; PyTorch's suite,
    # test_mixed_optional, test_tuple_of_optional)
    class Optionals(torch.nn.Module):
        def forward(self, x, y: Optional[torch.Tensor], t: Tuple[Optional[torch.Tensor], Optional[torch.Tensor]]):
            z = x if y is None else x + y
            if t[0] is not None:
                z = z * t[0]
            return z if t[1] is None else z - t[1]

    # a dict of tensors: one input per value, in order (torchvision's
    # MultiScaleRoIAlign takes its feature maps so; the suite's
    # test_multi_scale_roi_align)
    class DictIn(torch.nn.Module):
        def forward(self, feats: Dict[str, torch.Tensor], scale: torch.Tensor):
            return feats["a"] * scale + feats["b"]

    path = os.path.join(d, "dict-in.onnx")
    dargs = ({"a": x, "b": x * 2}, torch.tensor(3.0))
    symonnx.export(DictIn(), dargs, path)
    check_file(path)
    assert len(onnx.load(path).graph.input) == 3
    verified(DictIn(), dargs, path)
    for k, args in enumerate([(x, None, (None, x)), (x, x, (x, None)), (x, None, (None, None))]):
        path = os.path.join(d, f"optional{k}.onnx")
        symonnx.export(Optionals(), args, path, opset_version=15)
        check_file(path)
        assert len(onnx.load(path).graph.input) == 1 + sum(a is not None for a in (args[1],) + args[2])
        verified(Optionals(), args, path)
    quantized_io(d)
    # a forward that changes an argument in place (x.set_(y), PyTorch's
    # suite test_set_): the graph input keeps the argument's own shape
    class SetSource(torch.nn.Module):
        def forward(self, x, y):
            x.set_(y)
            return x * 2

    path = os.path.join(d, "set_source.onnx")
    x, y = torch.ones(2, 3), torch.randn(4, 6)
    symonnx.export(SetSource(), (x.clone(), y), path, opset_version=13)
    dims = [[dd.dim_value for dd in i.type.tensor_type.shape.dim] for i in onnx.load(path).graph.input]
    assert dims == [[2, 3], [4, 6]], dims
    verified(SetSource(), (x.clone(), y), path)

    # named arguments as torch.onnx.export takes them: a dict last in args
    # (the suite's test_all_optional_default_none), a missing one its default
    class Named(torch.nn.Module):
        def forward(self, x, y: Optional[torch.Tensor] = None, scale: float = 3.0):
            return x * scale if y is None else x - y

    path = os.path.join(d, "named.onnx")
    # (a Python number, the default scale too, is a graph input, as torch.jit._flatten makes it)
    for args, n_inputs in (((x, {"y": torch.full((2, 3), 0.5)}), 3), ((x, {}), 2), (({"x": x},), 2)):
        symonnx.export(Named(), args, path, opset_version=13)
        assert len(onnx.load(path).graph.input) == n_inputs, (args, n_inputs)
        verified(Named(), args, path)
    try:
        symonnx.export(Named(), (x, {"z": x}), path, opset_version=13)
        raise SystemExit("a named argument the forward does not take was accepted")
    except symonnx.SymonnxError as e:
        assert "'z'" in str(e), e
    print("stateful: ok")


def quantized_io(d):
    """A quantized tensor in and out is three values each (integers, scale,
    zero point) with the names and types torch.onnx.export gives them; the
    executor's values match PyTorch's (symonnx.verify unpacks them as
    torch's unpack_quantized_tensor); a per-channel input is refused, as
    torch's export fails on it."""
    class Relu(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x)

    x = torch.quantize_per_tensor(torch.randn(3, 4), 0.1, 120, torch.quint8)
    path = os.path.join(d, "quantized-io.onnx")
    symonnx.export(Relu(), (x,), path, opset_version=13)
    check_file(path)
    verified(Relu(), (x,), path)
    f = io.BytesIO()
    torch.onnx.export(Relu(), (x,), f, opset_version=13)
    theirs = onnx.load_from_string(f.getvalue()).graph
    ours = onnx.load(path).graph
    sig = lambda vs: [(v.type.tensor_type.elem_type, len(v.type.tensor_type.shape.dim)) for v in vs]
    assert [v.name for v in ours.input] == [v.name for v in theirs.input], (ours.input, theirs.input)
    assert sig(ours.input) == sig(theirs.input) and sig(ours.output) == sig(theirs.output), \
        (sig(ours.input), sig(theirs.input), sig(ours.output), sig(theirs.output))
    xc = torch.quantize_per_channel(torch.randn(3, 4), torch.tensor([0.1, 0.2, 0.3]),
                                    torch.tensor([0, 1, 2]), 0, torch.quint8)
    try:
        symonnx.export(torch.nn.Identity(), (xc,), os.path.join(d, "never.onnx"), opset_version=13)
    except symonnx.SymonnxError as e:
        assert "per-tensor" in str(e), str(e)
    else:
        raise SystemExit("a per-channel quantized input was exported")


def scripted(d):
    """A torch.jit.script model (which torch.jit.trace returns as it is):
    its inputs take the example arguments' types and shapes, as
    torch.onnx.export gives them, so dynamic axes apply and shape reads
    (x.shape[0], aten::__getitem__) export; run at the traced size and, with
    dynamic axes, at another."""
    class Arange(torch.nn.Module):
        def forward(self, x):
            return torch.arange(x.shape[0]) * x.shape[-1], x.transpose(0, 1) + 1

    model = torch.jit.script(Arange())
    x = torch.randn(5, 3)
    path = os.path.join(d, "scripted.onnx")
    symonnx.export(model, (x,), path, opset_version=13, input_names=["x"],
                   dynamic_axes={"x": {0: "n", 1: "m"}})
    check_file(path)
    dims = [dd.dim_param or dd.dim_value for dd in onnx.load(path).graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["n", "m"], dims
    verified(model, (x,), path)
    verified(model, (torch.randn(7, 2),), path)

    # len(x.unbind()) of a dynamic dim (PyTorch's suite, test_len): x.size(0),
    # computed at run time; the list is never made
    class Len(torch.nn.Module):
        def forward(self, x):
            return len(x.unbind()) + x

    model = torch.jit.script(Len())
    path = os.path.join(d, "scripted_len.onnx")
    for axes in (None, {"x": {0: "n"}}):
        symonnx.export(model, (torch.randn(4, 5),), path, opset_version=13, input_names=["x"], dynamic_axes=axes)
        check_file(path)
        verified(model, (torch.randn(4, 5),), path)
        if axes:
            verified(model, (torch.randn(6, 5),), path)

    # x.tolist() of a 1-D int tensor (PyTorch's suite, test_tolist): x itself,
    # the list's values as a 1-D tensor (as torch's file; with one element
    # PyTorch's flattened list is one output too)
    class ToList(torch.nn.Module):
        def forward(self, x):
            res: List[int] = x.tolist()
            return res

    model = torch.jit.script(ToList())
    path = os.path.join(d, "scripted_tolist.onnx")
    import subprocess
    import numpy as np
    x = torch.tensor([37, -4, 9])
    symonnx.export(model, (x,), path, opset_version=13, input_names=["x"], output_names=["res"])
    check_file(path)
    out = onnx.load(path).graph.output[0].type.tensor_type
    assert out.elem_type == onnx.TensorProto.INT64 and len(out.shape.dim) == 1, out
    np.save(os.path.join(d, "tolist_x.npy"), x.numpy())
    r = subprocess.run([sys.executable, "-m", "symonnx", "run", path, "-i", f"x={os.path.join(d, 'tolist_x.npy')}",
                        "-o", d], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert np.load(os.path.join(d, "res.npy")).tolist() == model(x), "tolist's values"

    # frozen as torch.onnx.export freezes a scripted module: self.dim and
    # batch norm's `if self.training` become constants; the conv's weights,
    # read only in the run-time If's branch, are initializers of the main
    # graph (kept as inputs here), the If's branches take no inputs; a bool
    # argument is a 0-d bool input
    class Gated(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv1d(3, 3, 3, padding=1)
            self.bn = torch.nn.BatchNorm1d(3)
            self.dim = 1

        def forward(self, x, flag: bool):
            if flag:
                x = self.bn(self.conv(x))
            return x.sum(self.dim)

    torch.manual_seed(0)
    gated = torch.jit.script(Gated().eval())
    x = torch.randn(2, 3, 5)
    path = os.path.join(d, "scripted_gated.onnx")
    symonnx.export(gated, (x, True), path, opset_version=13, keep_initializers_as_inputs=True)
    check_file(path)
    branches = [a.g for n in onnx.load(path).graph.node if n.op_type == "If" for a in n.attribute]
    assert branches and all(len(b.input) == 0 for b in branches), [len(b.input) for b in branches]
    verified(gated, (x, True), path)
    verified(gated, (x, False), path)

    # attributes assigned in forward and read back (Note [Module attributes
    # written in forward]; PyTorch's suite, test_set_attr_2): the bias is
    # the state_dict's as export found it (the Python export ran forward
    # first, and exported the bias that run had written), `is not None`
    # of a weight is fixed at export time
    class SetBias(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv1d(10, 3, 3)
            self.conv.bias = torch.nn.Parameter(torch.full((3, 10, 3), 0.25))

        def forward(self, anchors):
            if self.conv.bias is not None:
                b = self.conv.bias
                assert b is not None
                self.conv.bias = anchors + b
            c = self.conv.bias
            assert c is not None
            return c * 2

    set_bias = torch.jit.script(SetBias())
    anchors = torch.randn(3, 10, 3)
    path = os.path.join(d, "scripted_set_attr.onnx")
    symonnx.export(set_bias, (anchors,), path, opset_version=13)
    check_file(path)
    verified(set_bias, (anchors,), path)   # PyTorch's run here is the first

    # PyTorch's default dtype when export is called, float64 here: true
    # division of integer tensors whose types scripted code does not declare
    # (refused before), factories without a dtype, an int tensor with a
    # float number (float32 before, where PyTorch computes in float64;
    # traced, `2.5 - x` was an ill-typed Sub), random ops' types
    class DefaultDtype(torch.nn.Module):
        def forward(self, x, y):
            x = x.transpose(1, 2)
            return (x / y.transpose(1, 2), x / 2.5, torch.zeros(3) + torch.ones(1), torch.arange(3.0),
                    torch.linspace(0, 1, 5), torch.tensor([1.5, 2.0]), torch.full((2,), 1.5),
                    torch.eye(3), 2.5 - x, x * 1.5, torch.rand(2) * 0)

    a = (torch.arange(-12, 12) * 7).view(2, 3, 4).to(torch.int32)
    b = torch.arange(1, 25).view(2, 3, 4).to(torch.int32)
    prev = torch.get_default_dtype()
    try:
        for dt, elem in ((torch.float64, onnx.TensorProto.DOUBLE), (torch.float32, onnx.TensorProto.FLOAT)):
            torch.set_default_dtype(dt)
            for kind, model in (("scripted", torch.jit.script(DefaultDtype())), ("traced", DefaultDtype())):
                path = os.path.join(d, f"default_dtype_{kind}_{elem}.onnx")
                symonnx.export(model, (a, b), path, opset_version=13)
                check_file(path)
                types = [o.type.tensor_type.elem_type for o in onnx.load(path).graph.output]
                assert types == [elem] * 11, (kind, dt, types)
                verified(model, (a, b), path)
    finally:
        torch.set_default_dtype(prev)
    print("scripted: ok")


def dynamic(d):
    """torch.chunk along a dim declared dynamic, and into x.size(0) pieces
    (PyTorch's own suite, test_chunk and test_dynamic_chunk): the chunk size
    is computed at run time, so other lengths split as PyTorch does."""
    class Chunk(torch.nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dim = dim

        def forward(self, x):
            return torch.chunk(x, 3, dim=self.dim)

    class CountChunk(torch.nn.Module):
        def forward(self, x):
            return torch.chunk(x, x.size(0), dim=1)

    for opset in (11, 13):
        for dim in (1, -1):
            path = os.path.join(d, f"chunk{opset}{dim}.onnx")
            symonnx.export(Chunk(dim), (torch.randn(1, 18),), path, opset_version=opset,
                           input_names=["x"], dynamic_axes={"x": {0: "batch", 1: "dims"}})
            check_file(path)
            for n in (18, 13, 14, 15):   # chunks of 6, 5, 5, 5: the last 3, 4, 5 long
                verified(Chunk(dim), (torch.randn(2, n),), path)
        path = os.path.join(d, f"count{opset}.onnx")
        symonnx.export(CountChunk(), (torch.randn(3, 10),), path, opset_version=opset,
                       input_names=["x"], dynamic_axes={"x": {1: "dims"}})
        check_file(path)
        for n in (10, 8, 9):             # 3 pieces of 4 (4, 4, 2), 3 (3, 3, 2), 3 (3, 3, 3)
            verified(CountChunk(), (torch.randn(3, n),), path)
    # pixel_shuffle / pixel_unshuffle of dynamic C, H, W (the suite's
    # test_pixel_unshuffle): the sizes read at run time
    for opset in (9, 13):
        for name, mod, shapes in (("shuffle", torch.nn.PixelShuffle(2), [(2, 8, 3, 5), (1, 12, 2, 4)]),
                                  ("unshuffle", torch.nn.PixelUnshuffle(2), [(2, 3, 4, 6), (4, 2, 8, 2)])):
            path = os.path.join(d, f"pixel-{name}{opset}.onnx")
            symonnx.export(mod, (torch.randn(*shapes[0]),), path, opset_version=opset, input_names=["x"],
                           dynamic_axes={"x": [0, 1, 2, 3]})
            check_file(path)
            for sh in shapes:
                verified(mod, (torch.randn(*sh),), path)
    print("dynamic: ok")


@torch.jit.script
def _carry_state(x: torch.Tensor, prev: torch.Tensor) -> torch.Tensor:
    state = torch.zeros(2, x.size(0), x.size(1))
    if prev.size(0) < 2:
        state = state * 3
        if prev.size(0) == 0:
            state[:] = torch.ones(x.size(0), x.size(1)) * 3
        elif prev.size(0) == 1:
            state[:] = prev + state     # shapes that only fit where the branch runs
        else:
            state = state + 2
    return state


def ort_files(d):
    """Files ONNX Runtime loads and runs as PyTorch computes (PyTorch's suite,
    test_index_put_if_2/3): scripted Ifs on input sizes with slice writes into a
    tensor made before them.  Without dynamic axes the sizes are static and
    each If keeps one branch (torch folds them too; ORT type-checks every
    branch, and the untaken one adds shapes that do not fit); with dynamic
    axes the Ifs run, and an inner If's output that carries the write and
    that nothing reads still has a name (ORT refuses an If output named "").
    Also forms ORT lacks kernels for or computes otherwise (double Elu,
    a uint8 exponent, a quantized AveragePool with counted padding).
    Compared with PyTorch in symonnx's executor and in ONNX Runtime
    (SYMONNX_ORT_MODULES: onnxruntime-node, tests/e2e/install-ort.sh)."""
    import numpy as np

    class Carry(torch.nn.Module):
        def forward(self, x, prev):
            return _carry_state(x, prev)

    # a quantized AveragePool with counted padding: ORT 1.20's optimizer,
    # fusing an explicit Pad into it, stopped counting the pad cells
    qat = torch.nn.Sequential(torch.quantization.QuantStub(), torch.nn.AvgPool2d(3, 2, padding=1),
                              torch.quantization.DeQuantStub())
    qat.qconfig = torch.quantization.get_default_qconfig("fbgemm")
    qat = torch.quantization.convert(torch.quantization.prepare_qat(qat.train())).eval()
    x, empty = torch.rand(3, 4), torch.zeros(0, 0, 0)
    cases = [("carry-static", Carry(), (x, empty), None, lambda g: not any(n.op_type == "If" for n in g.node)),
             ("carry-dynamic", Carry(), (x, empty), {"x": [0, 1], "prev": [0, 1, 2]},
              lambda g: any(n.op_type == "If" for n in g.node)),
             # ORT has Elu for float only, Pow's exponent for int32/int64/float/double only
             ("celu-double", torch.nn.CELU(0.7), (torch.randn(2, 5, dtype=torch.float64),), None, None),
             ("elu-double", torch.nn.ELU(), (torch.randn(2, 5, dtype=torch.float64),), None, None),
             ("pow-uint8", torch_models.Fn(lambda a, b: a.pow(b)), (torch.tensor([2, 3, 5], dtype=torch.uint8),
                                                       torch.tensor([2], dtype=torch.uint8)), None, None),
             ("qat-avg-pool", qat, (torch.arange(96, dtype=torch.float).view(4, 4, 3, 2),), None, None)]
    for name, model, args, dynamic_axes, shape_ok in cases:
        want = model(*args).numpy()
        path = os.path.join(d, f"{name}.onnx")
        symonnx.export(model, args, path, opset_version=13, dynamic_axes=dynamic_axes,
                       input_names=["x", "prev"][:len(args)] if dynamic_axes else None)
        check_file(path)
        g = onnx.load(path).graph
        assert shape_ok is None or shape_ok(g), f"{name}: the graph's If nodes"
        verified(model, args, path)
        got = ort_outputs(path, args, d, name)[0]
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
            raise SystemExit(f"ONNX Runtime's output of {path} differs from PyTorch's: {got} vs {want}")
    print("ort_files: ok")


def signature():
    ours = inspect.signature(symonnx.export).parameters
    theirs = inspect.signature(torch.onnx.export).parameters
    missing = [p for p in theirs if p not in ours]
    assert not missing, f"symonnx.export lacks {missing}"
    assert list(ours)[:len(theirs)] == list(theirs), (list(ours), list(theirs))
    # python3 -m symonnx is the command-line tool ($SYMONNX_CLI: the build's)
    import subprocess
    r = subprocess.run([sys.executable, "-m", "symonnx", "help", "export"], capture_output=True,
                       text=True, env=os.environ)
    assert r.returncode == 0 and r.stdout.startswith("Usage:\n  symonnx export [OPTION"), r
    r = subprocess.run([sys.executable, "-m", "symonnx", "export", "--opset", "99", "x"],
                       capture_output=True, text=True, env=os.environ)
    assert r.returncode == 2, r
    print("signature: ok")


def errors(d):
    class Elu(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.elu(x)
    path = os.path.join(d, "never.onnx")
    for kwargs, needle in (({"opset_version": 99}, "opset 99"),
                           ({"operator_export_type": "nonsense"}, "operator_export_type"),
                           ({"plugins": ["/nonexistent/lib.so"]}, "/nonexistent/lib.so")):
        try:
            symonnx.export(Elu(), (torch.randn(2),), path, **kwargs)
        except symonnx.SymonnxError as e:
            assert needle in str(e), (needle, str(e))
        else:
            raise SystemExit(f"export with {kwargs} did not fail")
        assert not os.path.exists(path)

    # a scripted forward's float argument is refused, naming it (a 0-d
    # float64 input would make x.sum() * s float64 where PyTorch gives float32)
    class Scaled(torch.nn.Module):
        def forward(self, x, s: float):
            return x.sum() * s
    try:
        symonnx.export(torch.jit.script(Scaled()), (torch.randn(2), 1.5), path)
    except symonnx.SymonnxError as e:
        assert "float argument" in str(e) and "%s.1" in str(e), str(e)
    else:
        raise SystemExit("a scripted float argument was exported")
    assert not os.path.exists(path)
    print("errors: ok")


def ort_outputs(path, args, d, name):
    """ONNX Runtime's outputs of the file on args (SYMONNX_ORT_MODULES)."""
    import subprocess
    import numpy as np
    g = onnx.load(path).graph
    names = [i.name for i in g.input if i.name not in {t.name for t in g.initializer}]
    out = os.path.join(d, f"{name}-ort")
    os.makedirs(out, exist_ok=True)
    specs = []
    for k, t in enumerate(args):
        np.save(os.path.join(out, f"in{k}.npy"), t.numpy())
        specs.append(f"{names[k]}={os.path.join(out, f'in{k}.npy')}")
    js = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort-run.js")
    r = subprocess.run(["node", js, path, out] + specs, capture_output=True, text=True,
                       env=dict(os.environ, NODE_PATH=os.environ["SYMONNX_ORT_MODULES"]))
    if r.returncode != 0:
        raise SystemExit(f"ONNX Runtime refused {path}: {r.stderr.strip()}")
    return [np.load(os.path.join(out, f"ort_{i}.npy")) for i in range(len(g.output))]


def qnnpack_add(d):
    """quantized::add / add_relu as PyTorch's qnnpack engine computes them
    (Note [QNNPACK's add in ONNX]): on the pairs of integers of
    tests/fixtures/quant/qdq_add where QNNPACK's fixed-point sum and the
    float form (DequantizeLinear, Add, QuantizeLinear: torch.onnx's export)
    differ by a step, symonnx's file gives PyTorch's integers exactly in
    symonnx's executor and in ONNX Runtime, at opsets 10, 13 and 17; with
    another engine (onednn: PyTorch adds in float) the export is torch's
    float form, which ONNX Runtime computes a step off on those pairs."""
    import numpy as np
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "quant", "qdq_add")
    cases = {}
    with open(os.path.join(fixtures, "cases.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, op, sa, za, sb, zb, ys, yz, differ = line.split()
            cases[name] = (op, float.fromhex(sa), int(za), float.fromhex(sb), int(zb), float.fromhex(ys),
                           int(yz), int(differ))
    engine = torch.backends.quantized.engine
    checked = 0
    try:
        for name in ("add_ties", "add_relu_ties", "add_relu_wide"):
            op, sa, za, sb, zb, ys, yz, differ = cases[name]
            assert differ > 0, name
            qadd = getattr(torch.ops.quantized, op)

            def fn(a, b, op=qadd, sa=sa, za=za, sb=sb, zb=zb, ys=ys, yz=yz):
                qa = torch.quantize_per_tensor(a, sa, za, torch.quint8)
                qb = torch.quantize_per_tensor(b, sb, zb, torch.quint8)
                return op(qa, qb, ys, yz).dequantize()
            model = torch_models.Fn(fn)
            ints = [np.load(os.path.join(fixtures, f"{name}_{k}.npy")) for k in "ab"]
            args = tuple(torch.from_numpy(((i.astype(np.float32) - z) * np.float32(s)).astype(np.float32))
                         for i, z, s in zip(ints, (za, zb), (sa, sb)))
            torch.backends.quantized.engine = "qnnpack"
            want = model(*args).numpy()
            # the inputs quantize back to the fixture's integers and PyTorch gives its sums
            torch_ints = np.load(os.path.join(fixtures, f"{name}_torch.npy"))
            assert np.array_equal(np.rint(want / np.float32(ys)) + yz, torch_ints), name
            for opset in (10, 13, 17):
                path = os.path.join(d, f"{name}-{opset}.onnx")
                symonnx.export(model, args, path, opset_version=opset)
                check_file(path)
                kinds = [n.op_type for n in onnx.load(path).graph.node]
                # the integer form: only the result is dequantized
                assert "Sign" in kinds and kinds.count("DequantizeLinear") == 1, (name, kinds)
                verified(model, args, path)
                got = ort_outputs(path, args, d, f"{name}-{opset}")[0]
                if not np.array_equal(got, want):
                    raise SystemExit(f"ONNX Runtime's {path} differs from PyTorch's qnnpack add in "
                                     f"{int((got != want).sum())} elements")
                checked += 1
            # another engine: torch's float form, a step off on these pairs in ORT
            torch.backends.quantized.engine = "onednn" if "onednn" in torch.backends.quantized.supported_engines \
                else "none"
            path = os.path.join(d, f"{name}-float.onnx")
            symonnx.export(model, args, path, opset_version=13)
            kinds = [n.op_type for n in onnx.load(path).graph.node]
            assert "Sign" not in kinds and kinds.count("DequantizeLinear") == 3, (name, kinds)
            got = ort_outputs(path, args, d, f"{name}-float")[0]
            assert (got != want).sum() > 0, f"{name}: the float form agrees with qnnpack's add here"
    finally:
        torch.backends.quantized.engine = engine
    assert checked == 9
    print("qnnpack_add: ok")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "signature":
        signature()
    else:
        {"seeds": seeds, "function": function, "errors": errors,
         "transformer": transformer, "stateful": stateful, "scripted": scripted,
         "dynamic": dynamic, "ort_files": ort_files,
         "qnnpack_add": qnnpack_add}[what](sys.argv[2])
