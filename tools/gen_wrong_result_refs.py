#!/usr/bin/python3
"""Writes tests/fixtures/wrong-results/: small models whose exports once ran
and gave numbers, shapes or types other than PyTorch's (issue 11), each as
  CASE.trace           str(torch.jit.trace(m, inputs).inlined_graph)
  CASE.input_N.npy     the inputs
  CASE.expected.npy    PyTorch's (eager) output
The test (tests/symbolic/test-wrong-results.c) exports each at several
opsets, runs it in the executor and compares element type, shape and values.
Run with Debian's python: /usr/bin/python3 tools/gen_wrong_result_refs.py [CASE...]
(only the named cases when some are given)."""
import os
import sys
import warnings
from typing import List, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torchvision.models.detection import roi_heads

from torch_models import Fn  # noqa: E402  (tools/, beside this script)

warnings.filterwarnings("ignore")
torch.manual_seed(0)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "wrong-results")


def seeded(*shape):
    """Normal values from a generator of their own: cases added later do not
    shift the global generator, so the earlier cases' inputs stay as they were."""
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape) * 7919))


def slice_assign(x):
    m = x.new_zeros((4, 5))
    m[0:2, 1:3] = 5
    m[2:, :] = 1
    m[:, -1] = x[:, 0]
    m[3, 1:4:2] = 7
    return x + m


def select_zero_copy(x):
    y = x * 2
    y[1].zero_()
    y[:, 0].copy_(x[:, 1])
    return y


def slice_write_computed_start(x):
    b = x.clone() * 2
    n = b.numel() // 3
    b[n:2 * n].zero_()   # Swin V2's qkv_bias[length:2 * length].zero_()
    return b


def pad_slice_computed(x):
    _, h, w, _ = x.shape
    pr = (7 - w % 7) % 7
    pb = (7 - h % 7) % 7
    y = F.pad(x, (0, 0, 0, pr, 0, pb)) * 2
    return y[:, :h, :w, :].contiguous() + y.sum()


def topk_split_fill_computed(x):
    k = min(5, x.shape[1] // 2)
    v, i = x.topk(k, dim=1)
    a, b = x.split([x.shape[1] // 3, x.shape[1] - x.shape[1] // 3], dim=1)
    s = torch.empty((), dtype=torch.int64).fill_(x.shape[1] // 4)
    return v * s + i.float() + a.sum() - b.mean()


def index_put(x, i, j, m):
    x = x.clone()
    x[i] = 5.0
    x[:, i] = x[:, 0:1] * 2
    x[i, j] = torch.arange(5.0)
    x[:, i, j] = -1.0
    x[m] = x[m] * 3
    x[i] += 1
    return x


def set_source(x, y):
    x = x.clone()
    v = x[0]
    v.set_(y * 3)            # a view given new storage: x itself is unchanged
    x.set_(y)                # x becomes y (PyTorch's suite, test_set_; refused before)
    return x + v.sum()


def detach_write(x):
    x = x.clone()
    x.detach().mul_(2)       # detach shares x's storage: x doubles
    return x + 1


def select_write_computed_index(x, i, j, v):
    x = x.clone()
    x[i] = v                 # a 0-d tensor index: select + copy_ at a run-time position
    x[:, j] = 0.5            # a negative one along dim 1
    return x


def index_put_masks(a, b, y):
    y = y.clone()
    y[a > 0] = torch.arange(4.0)                   # a 1-D mask over a 2-D tensor's rows
    y[a <= 0, b > 0] = -1.0                        # two masks: NonZero counts known at run time
    y[a > 1, :] += 0.5
    return y


def index_put_accumulate(x, i):
    x = x.clone()
    x.index_put_((i,), torch.ones(3, 4), accumulate=True)
    return x


@torch.jit._script_if_tracing
def script_if_helper(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        return x * 2
    return x - 1


# Scripted loops called under tracing (prim::Loop, exported as ONNX Loop),
# in the patterns torchvision's Mask/Keypoint R-CNN heads use.
def clip_to(b: torch.Tensor, size: Tuple[int, int]) -> torch.Tensor:
    h, w = size
    return b.clamp(0, h) * w


class TupleLen(torch.jit.ScriptModule):
    # a call in a scripted method's loop keeps the tuple a constant,
    # `value=(2, 3)`, that the inlined body unpacks (scripted test_dim_1's
    # clip_boxes_to_image(b, (2, 3))); Fn registers it as a submodule
    @torch.jit.script_method
    def forward(self, x):
        out = x
        for i in range(x.size(1)):
            out = clip_to(out, (2, 3)) - i
        return out + len(x)


class DtypeDeviceTests(torch.jit.ScriptModule):
    # tests on what the export knows: dtypes compared with each other and
    # with a constant, the device with torch.device("cpu")
    @torch.jit.script_method
    def forward(self, a, b, c):
        r = a
        if a.dtype == b.dtype:
            r = r + b
        if a.dtype == c.dtype:
            r = r - c
        if a.device != torch.device("cpu"):
            r = r * 0
        if a.dtype != torch.float64:
            r = r * 2
        return r


class ListAtRunTime(torch.jit.ScriptModule):
    # a tensor list's element at an index known only at run time
    @torch.jit.script_method
    def forward(self, x, y, z, ind):
        arr = [x, y * 2, z]
        return arr[ind] + 1


class FloatingPointIf(torch.jit.ScriptModule):
    # an If on a.is_floating_point() of an `a` computed in the enclosing
    # block, branches of different ranks, new_zeros(x.shape[1:])
    @torch.jit.script_method
    def forward(self, x):
        if x.size(0) > 1:
            a = x + 2
            if a.is_floating_point():
                return x.new_zeros(x.shape[1:]) + x[0]
            return x.new_zeros(x.shape)
        return x


class ShapeUnpack(torch.jit.ScriptModule):
    # `a, b = x.shape[1:]` and `n, c, h = x.shape` of scripted code
    @torch.jit.script_method
    def forward(self, x):
        a, b = x.shape[1:]
        n, c, h = x.shape
        return x.new_zeros((a, b)) + x[n - 1] * h + c


@torch.jit.script
def unbind_cat(x: torch.Tensor) -> torch.Tensor:
    return torch.cat(x.unbind(), 1).sum(1) + torch.stack(x.unbind(1), 0).sum(2).sum(1)


class ScalarsIn(torch.nn.Module):
    # a scripted forward's bool and int arguments (graph inputs of 0-d
    # tensors, as torch.onnx.export passes them), x.data, true division of a
    # float tensor by an int and len(x.shape) (PyTorch's suite, scripted
    # test_primitive_input_bool, test_data, test_arithmetic_infer_dtype,
    # test_len_list: each refused before)
    def forward(self, flag: bool, i: int, x, y):
        if flag:
            z = x
        else:
            z = y
        return z[i] * 2 + x.data / 8 + len(x.shape)


class SetAttrForward(torch.nn.Module):
    # PyTorch's suite, test_set_attr: attributes assigned in forward and read
    # back (prim::SetAttr; refused before: "no symbolic function is
    # registered"); `if self.b:` reads the True just assigned
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(3, 10, 2)
        self.b = False

    def forward(self, box_regression, weight):
        self.b = True
        self.conv.weight = weight
        w = torch.softmax(self.conv.weight, dim=0)
        self.conv.weight = w + w
        if self.b:
            return box_regression + self.conv.weight
        else:
            return box_regression - self.conv.weight


class FloatTruncDivision(torch.nn.Module):
    # trunc division of float tensors, and of a float tensor by a number, in
    # scripted code (no result type declared): refused before (PyTorch's
    # suite, scripted test_div_rounding_mode); stacked: one output
    def forward(self, x, y):
        return torch.stack((x.div(y, rounding_mode="trunc"), x.div(-2.5, rounding_mode="trunc")))


class IntTrueDivision(torch.nn.Module):
    # true division of int32 tensors whose types scripted code does not
    # declare (transpose hides them): PyTorch's default dtype (float32
    # here); refused before ("the default dtype is PyTorch's run-time
    # setting"), as torch.onnx.export reads it at export time
    def forward(self, x, y):
        x = x.transpose(1, 2)
        y = y.transpose(1, 2)
        # one output (the test compares a case's first): the four stacked
        return torch.stack((x / y, torch.true_divide(x, y), x / 2.5, (x > 0) / 4))


class IntArgPromotion(torch.nn.Module):
    # an int argument (a 0-d int64 input) with an int32 tensor: int32 in
    # PyTorch (a Python int does not widen a tensor of its category), as
    # torch's scalar type analysis takes a 0-d value beside a dimensioned
    # one (our promotion made it int64: a wrong output type)
    def forward(self, x, i: int):
        return x * i - i


class IntOut(torch.nn.Module):
    # an int result (a 0-d int64 output) from item(), int() and min/max of
    # two ints (prim::min, prim::max; PyTorch's suite, test_item,
    # test_prim_min: refused before)
    def forward(self, x, y, i: int) -> int:
        return min(int(x[y[i]].item()), i) + max(i, 2)


class TopkAttributes(torch.jit.ScriptModule):
    # topk's NamedTuple (its type did not parse), an int attribute of the
    # module and `if self.training:` (constants once the module is frozen,
    # as torch.onnx.export freezes it; PyTorch's suite, test_topk_script,
    # test_index_add_if, test_fuse_conv_in_block: refused before)
    def __init__(self):
        super().__init__()
        self.dim = 0
        self.scale = 3

    @torch.jit.script_method
    def forward(self, x, k):
        r = torch.topk(x, k)
        if self.training:
            return r.values
        return r.values / self.scale + r.indices.sum(self.dim)


class TopkNamed(torch.jit.ScriptModule):
    # topk's result returned as it is: a NamedTuple(values : Tensor,
    # indices : Tensor) in the graph (the type did not parse; PyTorch's
    # suite, test_topk_script); k a graph input
    @torch.jit.script_method
    def forward(self, x, k):
        return torch.topk(x, k)


@torch.jit.script
def loop_carried(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros_like(x[0])
    for i in range(x.size(0)):
        acc = acc * 0.5 + x[i] * i
    return acc


@torch.jit.script
def loop_cat(x: torch.Tensor) -> torch.Tensor:
    res = torch.zeros((0, x.size(1)), dtype=torch.float32)
    for i in range(x.size(0)):
        res = torch.cat((res, (x[i] * (i + 1)).unsqueeze(0)), 0)
    return res


@torch.jit.script
def loop_append_stack(x: torch.Tensor) -> torch.Tensor:
    res: List[torch.Tensor] = []
    for i in range(x.size(0)):
        res.append(x[i].sum(0, keepdim=True) + i)
    return torch.stack(res, 1)


@torch.jit.script
def loop_data_count(x: torch.Tensor) -> torch.Tensor:
    acc = x * 0
    for i in range(int((x > 0).sum())):
        acc = acc + x * (i + 1)
    return acc


@torch.jit.script
def loop_range_step(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros_like(x[0])
    for i in range(1, x.size(0), 2):
        acc = acc + x[i] * i
    return acc


@torch.jit.script
def loop_changes_dtype(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(x.shape, dtype=torch.int64)
    for i in range(x.size(0)):
        acc = acc + x
    return acc


def paste_masks_loop(masks, boxes):
    return roi_heads._onnx_paste_masks_in_image_loop(
        masks, boxes, torch.scalar_tensor(20, dtype=torch.int64), torch.scalar_tensor(24, dtype=torch.int64))


def paste_inputs(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 12
    wh = torch.rand(n, 2, generator=g) * 10 + 2
    return torch.rand(n, 1, 6, 6, generator=g), torch.cat([xy, xy + wh], 1).to(torch.int64)


def keypoints_loop(maps, rois):
    xy, scores = roi_heads.heatmaps_to_keypoints(maps, rois)   # _onnx_heatmaps_to_keypoints_loop
    return torch.cat([xy.flatten(1), scores], 1)


def keypoint_inputs(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 40
    wh = torch.rand(n, 2, generator=g) * 30 + 5
    return torch.randn(n, 3, 8, 8, generator=g), torch.cat([xy, xy + wh], 1)


@torch.jit.script
@torch.jit.script
def shape_items(x: torch.Tensor) -> torch.Tensor:
    s = x.shape
    return torch.tensor([float(s[1]) * 0.5, float(s[-1])]) + x.sum()


@torch.jit.script
def arange_float_start(a: torch.Tensor) -> torch.Tensor:
    return torch.arange(2.7, a.size(0) + 2).view(-1, 1) + a


@torch.jit.script
def inplace_rebind(x: torch.Tensor) -> torch.Tensor:
    y = x * 1
    y.add_(3)        # scripted code reads y afterwards, not the op's result
    z = y * 2
    z.mul_(y)
    return y + z


@torch.jit.script
def list_inplace_element(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    l = [y, x - 1]
    y.add_(1)        # the list holds y itself
    l.append(x + 1)
    l[2].mul_(3)     # an element read out of a changed list
    return torch.cat(l, 0)


@torch.jit.script
def tensor_nested_list(x: torch.Tensor) -> torch.Tensor:
    mask = torch.tensor([[0, 0, 1], [1, 1, 0]], dtype=torch.uint8)
    return x.masked_fill(mask.to(torch.bool), 2.0) + torch.tensor([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]])


@torch.jit.script
def branch_view_write(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(3, 2)
    if bool(x.sum() > 0):
        y[0].add_(5.0)       # a write through a view into a tensor made before the If
        y.mul_(2.0)          # and into the tensor itself
        z = x + 1
    else:
        y[1:].sub_(1.0)
        y[0] = x[0] * 2      # copy_ into a scripted tensor of no declared type
        z = x - 1
    return y + z


@torch.jit.script
def loop_view_write(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(3, 2)
    for i in range(int(x.size(0))):
        y[i].add_(x[i])      # into a tensor of the enclosing block: carried through the loop
    return y


@torch.jit.script
def inplace_in_loop(x: torch.Tensor) -> torch.Tensor:
    a = x * 1
    for _ in range(3):
        a.add_(x)    # the next iteration and the return read a
    return a


@torch.jit.script
def int_true_divide(x: torch.Tensor) -> torch.Tensor:
    return x.transpose(0, 1) / 2


def bicubic_to(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    return F.interpolate(x[:, None], size=(int(s[0].ceil()), int(s[1].ceil())), mode="bicubic",
                         align_corners=False)[:, 0]


def packed_lstm(x, lengths, h0, c0, w_ih, w_hh, b_ih, b_hh):
    # pack_padded_sequence → a bidirectional LSTM's packed form → pad_packed_sequence
    # (weights as inputs: a trace text holds no tensor data)
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True)
    out, h, c = torch._VF.lstm(packed.data, packed.batch_sizes, (h0, c0), [w_ih, w_hh, b_ih, b_hh,
                                                                          w_ih * 0.5, w_hh, b_ih, b_hh],
                               True, 1, 0.0, False, True)
    padded, _ = torch.nn.utils.rnn.pad_packed_sequence(
        torch.nn.utils.rnn.PackedSequence(out, packed.batch_sizes), batch_first=True)
    return padded * 2 + torch.cat([h[0] - c[1], h[1] + c[0]], 1).unsqueeze(1)


def packed_inputs(seed):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s: torch.randn(*s, generator=g)
    return (r(3, 5, 4), torch.tensor([5, 3, 2]), r(2, 3, 6), r(2, 3, 6), r(24, 4), r(24, 6), r(24), r(24))


def packed_data_read(x, lengths):
    return torch.nn.utils.rnn.pack_padded_sequence(x, lengths).data * 2


def view_write(x):
    m = x.new_zeros((4, 5))
    m.view(20)[3:6] = 1
    return x + m


def alias_sibling_write(x):
    y = x * 1
    z = y[1]             # a view made before the write: PyTorch's z sees it
    y[0:2].fill_(7.0)
    return torch.cat([z * 2, y.flatten()])


def alias_direct_write(x):
    y = x * 1
    z = y[0]
    t = y.t()            # views of another kind, made again too
    y.add_(1.0)          # into the tensor itself
    return torch.cat([z + 0, t.flatten()])


def alias_disjoint_write(x):
    y = x * 1
    z = y[1]
    y[0] = 5.0           # does not reach z
    return torch.cat([z * 3, y.flatten()])


def alias_chunk_write(x):
    y = x * 1
    a, b = y.chunk(2)
    nested = y[0:2][1]   # a view of a view
    y[1].mul_(3.0)
    return torch.cat([(a + 1).flatten(), (b - 1).flatten(), nested * 1])


def size_from_data(x, d):
    z = torch.zeros(d[0], 3) + x    # d[0] is data: the trace records aten::Int of it
    return z.sum(1) * z.size(0)     # and z's size is not the traced one


class _ScriptedInterpolate(torch.jit.ScriptModule):
    @torch.jit.script_method
    def forward(self, x):
        return F.interpolate(x, mode="nearest", scale_factor=2.0)


def interpolate_substituted():
    """F.interpolate in a ScriptModule after torch.onnx.export ran on it: the
    export's function substitution leaves aten::__interpolate (one float
    scale_factor) in the module's graph, which a trace then inlines (PyTorch's
    suite, test_interpolate_function_substitution)."""
    import io
    m = _ScriptedInterpolate()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(m, (torch.randn(1, 2, 4, 4, 6),), io.BytesIO(), opset_version=13)
    return m


def setitem_broadcast(x):
    y = x * 1
    y[:, y.size(0):] = torch.arange(3.0) + 1   # (a constant tensor's values are not in the trace text)
    return y


@torch.jit.script
def loop_alias_write(x: torch.Tensor) -> torch.Tensor:
    y = x * 1
    out = torch.zeros(4)
    for _ in range(3):
        z = y[0]          # made before the write in each iteration, read after it
        y.add_(1.0)
        out = out + z
    return out


def chunk_part_write(x):
    g = x * 1
    i, f = g.chunk(2, 1)
    i.sigmoid_()         # LSTM cell code: f is another part of g, not written
    return i + f


def reshape_write(x, update):
    # PyTorch's suite, test_copy_ellipsis_script: a write into a view of a
    # reshape, whose input is not read again (refused before)
    x = x.reshape(4, 3, 5, 6)
    x[2, ..., 1:3] = update
    return x


def reshape_write_base_read(x, update):
    w = x * 1
    v = w.reshape(4, 3, 5, 6)
    v[2, ..., 1:3] = update
    return v.flatten() + w.flatten()   # w shares v's storage: not written back through reshape


@torch.jit.script
def alias_in_list(x: torch.Tensor) -> torch.Tensor:
    y = x * 1
    l = [y[0], y[1]]     # a list made before the write holds the views
    y.add_(1.0)
    return torch.cat(l) + y.sum()


def large_view_write(x, i):
    # slice views of 1.1M and select views of 1000 elements written in place:
    # a view of more than 2^20 elements takes its positions at run time
    # (mvit_v2_s writes 2^24.6 of them: refused before)
    y = torch.zeros(1100, 1000)
    y[1:].add_(x)
    y[:, 3:1000:2].mul_(i)
    y[-1].sub_(x)
    return y.sum(0) + y[:1000, 5]


CASES = {
    "large_view_write": (large_view_write, (torch.randn(1000), torch.tensor(3.0))),
    # views made before an in-place write and read after it see the write
    # (Note [Aliases of a written tensor]; the export read their old values:
    # other numbers)
    "alias_sibling_write": (alias_sibling_write, (torch.randn(3, 4),)),
    "alias_direct_write": (alias_direct_write, (torch.randn(3, 4),)),
    "alias_disjoint_write": (alias_disjoint_write, (torch.randn(3, 4),)),
    "alias_chunk_write": (alias_chunk_write, (torch.randn(4, 3),)),
    "script_alias_in_list": (lambda x: alias_in_list(x), (torch.randn(3, 4),)),
    "chunk_part_write": (chunk_part_write, (torch.randn(3, 4),)),
    "script_loop_alias_write": (lambda x: loop_alias_write(x), (torch.randn(3, 4),)),
    # an integer clamp below opset 12, where Clip, Max and Min take no integers
    # (PyTorch's suite, test_clip_int: refused at 11 before)
    "clamp_int": (lambda x: torch.clamp(x, -2, 3) * 2, (torch.arange(-6, 6).view(3, 4),)),
    # an int32 pad before opset 11, where Pad takes float types only (PyTorch's
    # suite, test_pad_int at 9: refused by the checker before)
    "pad_int32": (lambda x: F.pad(x, (1, 1))[:, 1:5] + F.pad(x, (2, 0), value=3)[:, :4] * 2,
                  (torch.arange(-6, 6, dtype=torch.int32).view(3, 4),)),
    "clamp_min_max_int": (lambda x: torch.clamp_min(x, -1) + torch.clamp_max(x, 2) * 3,
                          (torch.arange(-6, 6).view(3, 4),)),
    # one float scale_factor scales every spatial dim (it scaled the first only)
    "interpolate_substituted_5d": (interpolate_substituted(), (torch.randn(1, 2, 4, 4, 6),)),
    "reshape_write": (reshape_write, (torch.randn(3, 4, 5, 6), torch.ones(1))),
    # scripted code's Tensor[] of unbind read by cat and stack: the pieces
    # had no type, so the output had none and the checker refused the file
    # (PyTorch's suite, test_concat_dynamic, test_unbind_dynamic ... scripted)
    "script_unbind_cat": (lambda x: unbind_cat(x), (torch.randn(3, 4, 5),)),
    # a constant tuple unpacked (`h, w = (2, 3)` through a call; its
    # `value=(2, 3)` did not parse) and len() of a tensor (PyTorch's suite,
    # scripted test_dim_1)
    "script_tuple_len": (TupleLen(), (torch.randn(4, 3) * 3,)),
    # aten::eq/ne of dtypes and devices (PyTorch's suite, scripted
    # test_dtype_eq, test_device_eq: their symbolics read prim::dtype and
    # prim::device as tensors, refused before)
    # [x, y, z][i] at a run-time index: SequenceAt of a SequenceConstruct
    # (PyTorch's suite, scripted test_getitem; refused before)
    "script_list_at_run_time": (ListAtRunTime(), (torch.randn(3, 4, 5), torch.randn(1, 4, 5), torch.randn(2, 4, 5),
                                                  torch.tensor(-2))),
    # the If's condition folds once the block before it is translated; the
    # shape read from static sizes (PyTorch's suite, scripted
    # test_floating_point_infer_dtype without dynamic axes: the output had no
    # type, refused by the checker)
    "script_if_folded_condition": (FloatingPointIf(), (torch.randn(2, 3, 4),)),
    "script_scalars_in": (torch.jit.script(ScalarsIn()), (False, 1, torch.randn(3, 4), torch.randn(3, 4))),
    "script_int_arg_promotion": (torch.jit.script(IntArgPromotion()), (torch.arange(-3, 3, dtype=torch.int32).view(2, 3), 7)),
    "script_trunc_div_float": (torch.jit.script(FloatTruncDivision()),
                               (torch.tensor([[7.5, -7.5, 0.25], [-9.0, 100.0, -0.5]]),
                                torch.tensor([[2.0, 2.0, -0.1], [4.0, 3.0, 0.25]]))),
    "script_set_attr": (torch.jit.script(SetAttrForward()), (torch.randn(3, 2), torch.randn(3, 2))),
    # an int64 tensor by an int: refused before as well
    "script_int_true_divide": (Fn(int_true_divide), (torch.arange(6).view(2, 3),)),
    "script_int_true_division": (torch.jit.script(IntTrueDivision()),
                                 ((torch.arange(-12, 12, dtype=torch.int32) * 7).view(2, 3, 4),
                                  torch.arange(1, 25, dtype=torch.int32).view(2, 3, 4))),
    "script_int_out": (torch.jit.script(IntOut()), (torch.tensor([10.0, -2.7, 7.0, 2.0, 9.0, 4.0]),
                                                     torch.tensor([4, 0, 5, 1, 2]), 3)),
    "script_topk_attributes": (TopkAttributes().eval(), (torch.tensor([1.0, 5.0, -2.0, 3.5, 0.0]), torch.tensor(3))),
    "script_topk_named_tuple": (TopkNamed(), (torch.tensor([1.0, 5.0, -2.0, 3.5, 0.0]), torch.tensor(2))),
    "script_dtype_device_tests": (DtypeDeviceTests(), (torch.randn(2, 3), torch.arange(6).view(2, 3),
                                                       torch.randn(2, 3))),
    # a 2-D input's bags (offsets arange(0, numel, width), of no static
    # length in the trace): at opset 10 the mask form (PyTorch's suite,
    # test_embedding_bag; refused at 10 before)
    "embedding_bag_2d_input": (lambda i, w: F.embedding_bag(i, w, mode="max") + F.embedding_bag(i, w, mode="mean"),
                               (torch.tensor([[0, 2, 9, 4, 4], [7, 7, 1, 0, 3], [5, 6, 6, 6, 2]]), torch.randn(10, 4))),
    # linear upsampling before opset 11 (Note [Linear upsampling before opset
    # 11]): torch's Upsample(linear) takes asymmetric coordinates, not
    # PyTorch's; now one MatMul per spatial dim of PyTorch's weights. Given
    # sizes and a given scale (its ratio is 1 / scale, not in / out)
    "upsample_bilinear_half_pixel": (
        lambda x: F.interpolate(x, size=(12, 10), mode="bilinear") * 2
        + F.interpolate(x, scale_factor=2.5, mode="bilinear"),
        (torch.randn(1, 2, 5, 4),)),
    "upsample_bilinear_align_corners": (
        lambda x: F.interpolate(x, size=(9, 7), mode="bilinear", align_corners=True), (torch.randn(2, 3, 4, 3),)),
    # the size read from static shapes (segmentation models'
    # interpolate(size=x.shape[-2:])): refused before opset 11 before
    "upsample_bilinear_size_of_input": (
        lambda x, y: F.interpolate(x, size=y.shape[-2:], mode="bilinear", align_corners=False),
        (torch.randn(1, 3, 4, 5), torch.randn(1, 1, 11, 7))),
    # an inf reaches only the outputs that read it (and NaN where a zero
    # weight meets it, as in PyTorch's own formula)
    "upsample_bilinear_inf": (lambda x: F.interpolate(x, scale_factor=2.0, mode="bilinear"),
                              (torch.tensor([[[[1.0, 2.0, 3.0, 4.0], [5.0, float("inf"), 7.0, 8.0],
                                               [9.0, 10.0, 11.0, 12.0]]]]),)),
    "upsample_linear_1d": (lambda x: F.interpolate(x, scale_factor=1.7, mode="linear"), (torch.randn(2, 3, 6),)),
    "upsample_trilinear_down": (lambda x: F.interpolate(x, size=(3, 5, 2), mode="trilinear"),
                                (torch.randn(1, 2, 2, 3, 4),)),
    # several index tensors with negative entries, the indexed dims apart (the
    # broadcast dims come first) and adjacent (they stay in place): before
    # GatherND (opset 11) torch's linear index gathers other rows for negative
    # indices (refused at 9 and 10 before)
    "index_several_apart": (lambda x, i, j: x[i, :, j] * 2,
                            (torch.randn(4, 5, 6), torch.tensor([[0, -1], [2, -3]]), torch.tensor([-1, 3]))),
    "index_several_adjacent": (lambda x, i, j: x[:, i, j] + 1,
                               (torch.randn(3, 4, 5), torch.tensor([[-1], [2]]), torch.tensor([0, -2, 4]))),
    # in-place writes in a scripted loop body to tensors made before the loop,
    # directly and through a view: extra loop-carried values (refused before,
    # and the view write dropped: other numbers)
    "script_inplace_in_loop": (lambda x: inplace_in_loop(x), (torch.randn(3),)),
    "script_loop_view_write": (lambda x: loop_view_write(x), (torch.randn(3, 2),)),
    # writes through detach (a view of the whole tensor): embedding's max_norm
    # renormalises the weight in place (PyTorch's suite, test_embedding_renorm;
    # refused before)
    "detach_write": (detach_write, (torch.randn(2, 3),)),
    "set_source": (set_source, (torch.randn(2, 3), torch.randn(4, 2))),
    "embedding_max_norm": (lambda i, w: F.embedding(i, w.clone(), max_norm=1.0) * 2,
                           (torch.tensor([[0, 2], [3, 2]]), torch.randn(4, 3) * 2)),
    # writes through a select at a 0-d tensor index (PyTorch's suite,
    # test_copy_; refused before)
    "select_write_computed_index": (select_write_computed_index,
                                    (torch.randn(3, 4), torch.tensor(2), torch.tensor(-3), torch.randn(4))),
    # masks of lower rank than self, and two masks (PyTorch's suite,
    # test_input_mask_model; refused before)
    "index_put_masks": (index_put_masks, (torch.tensor([0.0, 1.5, -1.0, 2.5]), torch.tensor([-1.0, 1.0, -2.0, 3.0]),
                                          torch.randn(4, 4))),
    # duplicate indices summed: refused before (ScatterND adds from opset 16);
    # a Loop of ScatterNDs below 16 (Note [index_put accumulate before opset 16])
    "index_put_accumulate": (index_put_accumulate, (torch.randn(4, 4), torch.tensor([0, 2, 0]))),
    # integer true division is float division
    "int_true_divide": (lambda x, y: x / y, (torch.tensor([[7, -3, 5]]), torch.tensor([[2, 2, 3]]))),
    # sum/prod of small integers are int64 (uint8 would overflow)
    "sum_uint8": (lambda x: x.sum(1), (torch.full((2, 300), 200, dtype=torch.uint8),)),
    "prod_uint8": (lambda x: x.prod(1), (torch.full((2, 3), 7, dtype=torch.uint8),)),
    "sum_dtype_double": (lambda x: x.sum(1, dtype=torch.float64), (torch.randn(2, 5),)),
    # a 0-d index keeps the dim
    "index_select_0d": (lambda x, i: x.index_select(0, i), (torch.randn(3, 4), torch.tensor(1))),
    # eager softplus is x where beta * x > threshold
    "softplus_threshold": (lambda x: F.softplus(x, beta=2, threshold=5), (torch.randn(4, 5) * 4,)),
    # tensor bounds broadcast (Max/Min, not Clip)
    "clamp_tensor_bounds": (lambda x, a, b: torch.clamp(x, a, b),
                            (torch.randn(3, 4), torch.full((3, 4), -0.5), torch.full((4,), 0.5))),
    # Python modulo and floor division on integers (sign of the divisor)
    "remainder_int_negative": (lambda x, y: torch.remainder(x, y),
                               (torch.tensor([-7, 7, -7, 6]), torch.tensor([3, -3, -3, 3]))),
    "floor_divide_int": (lambda x, y: torch.floor_divide(x, y),
                         (torch.tensor([-7, 7, -7, 6]), torch.tensor([2, -2, -2, 3]))),
    "div_floor_int": (lambda x, y: torch.div(x, y, rounding_mode="floor"),
                      (torch.tensor([-7, 7, -7, 6]), torch.tensor([2, -2, -2, 3]))),
    "div_trunc_int": (lambda x, y: torch.div(x, y, rounding_mode="trunc"),
                      (torch.tensor([-7, 7, -7, 6]), torch.tensor([2, -2, -2, 3]))),
    # expand's -1 with a size computed at run time keeps the dim
    "expand_keep_dims": (lambda t, x: torch.cat([t.expand(x.shape[0], -1, -1), x], 1),
                         (torch.randn(1, 1, 4), torch.randn(2, 3, 4))),
    # in-place writes into slices and selects reach the base (m[a:b] = v)
    "slice_assign": (slice_assign, (torch.randn(4, 5),)),
    "select_zero_copy": (select_zero_copy, (torch.randn(4, 5),)),
    "slice_write_computed_start": (slice_write_computed_start, (torch.randn(12),)),
    # a pad list and slice bounds computed from the input's shape (Swin)
    "pad_slice_computed": (pad_slice_computed, (torch.randn(1, 5, 9, 3),)),
    # an integer base with a float exponent is float
    "pow_int_float": (lambda x: x ** 0.5 + x ** 2, (torch.tensor([[1, 4, 9], [2, 3, 16]]),)),
    # F.dropout(x, p=0.0) in training mode is the identity
    "dropout_p0_training": (lambda x: F.dropout(x, p=0.0) * 2, (torch.randn(3, 4),)),
    # advanced indexing with several index tensors (negative, broadcast, split by a slice)
    "index_multi": (lambda x, a, b, c, d: x[a, b].sum(-1) + x[:, c, d].sum() + x[c, :, d].sum(),
                    (torch.randn(3, 4, 5), torch.tensor([[0], [2]]), torch.tensor([1, -1, 0]),
                     torch.tensor([0, 1]), torch.tensor([2, -3]))),
    # run-time values of detection heads: topk's k, split sizes, fill_ values
    "topk_split_fill_computed": (topk_split_fill_computed, (torch.randn(2, 12),)),
    # x[i] = v, x[:, i] = v, x[i, j] = v, x[mask] = v, x[i] += 1 (index_put_), x[mask]
    "index_put": (index_put, (torch.randn(3, 4, 5), torch.tensor([0, -1]), torch.tensor([1, -1]),
                              torch.randn(3, 4, 5) > 0.3)),
    # found by bench/pytorch-onnx-suite.py (PyTorch's own ONNX tests):
    # argmax(keepdim=True) without dim keeps every dim, each of size 1
    "argmax_keepdim_no_dim": (lambda x: torch.argmax(x, keepdim=True) * 10 + torch.argmin(x, keepdim=True),
                              (seeded(3, 2, 5),)),
    # a ceil-mode window that starts in the right padding is dropped (17 windows of 50, not 18)
    "avg_pool_ceil_counted_pad": (lambda x: F.avg_pool2d(x, 3, 3, padding=1, ceil_mode=True,
                                                         count_include_pad=True), (seeded(1, 2, 5, 8),)),
    # index_add's source broadcasts over self's other dims, as eager
    "index_add_broadcast_source": (lambda x, i, j: x.index_add(1, i, torch.arange(9.0).view(1, 3, 3))
                                   + x.index_add(0, j, torch.arange(5.0).view(5, 1)),
                                   (torch.ones(5, 4, 3), torch.tensor([0, 2, 1]), torch.tensor([4, 0, 2, 1, 3]))),
    # an InstanceNorm tracking running statistics, in eval mode, normalises with them
    "instance_norm_running_stats": (lambda x, m, v, w, b: F.instance_norm(x, m, v, w, b, use_input_stats=False),
                                    (seeded(2, 3, 6), torch.tensor([0.5, -1.0, 2.0]), torch.tensor([1.5, 0.5, 2.5]),
                                     torch.tensor([0.5, 2.0, 0.25]), torch.tensor([-1.0, 0.0, 1.0]))),
    # prelu's per-channel weight applies along dim 1, not the last dim
    "prelu_channels": (lambda x, w: F.prelu(x, w), (seeded(2, 3, 2, 3), torch.tensor([0.1, 0.2, 0.3]))),
    # prelu of a 0-d input stays 0-d
    "prelu_0d": (lambda x: F.prelu(x, torch.tensor([0.25])), (torch.tensor(-2.0),)),
    # more repeats than dims: leading dims of size 1 first
    "repeat_more_dims": (lambda x: x.repeat(4, 1) + 1, (torch.tensor([1, 2, 3]),)),
    # element types an op's ONNX schema does not allow (refused by the checker
    # before): computed in a wider type that holds every value
    "uint8_arith_wraps": (lambda x, y: (x + y) * x - y, (torch.tensor([200, 3, 17], dtype=torch.uint8),
                                                         torch.tensor([100, 250, 9], dtype=torch.uint8))),
    "int8_abs_max": (lambda x, y: torch.max(x.abs(), y), (torch.tensor([-128, -3, 5], dtype=torch.int8),
                                                          torch.tensor([1, 2, 7], dtype=torch.int8))),
    "logical_and_int": (lambda x, y: torch.logical_and(x, y) | torch.logical_xor(x, y),
                        (torch.tensor([0, 3, -2, 0], dtype=torch.int32), torch.tensor([5, 0, 7, 0], dtype=torch.int32))),
    "bool_mul_add": (lambda x, y: x * y + x, (torch.tensor([True, False, True]), torch.tensor([True, True, False]))),
    "reciprocal_int64": (lambda x: torch.reciprocal(x), (torch.tensor([2, -4, 8]),)),
    "relu_int32": (lambda x: torch.relu(x), (torch.tensor([-3, 0, 5], dtype=torch.int32),)),
    # any/all (no symbolic before): non-zero counts, over a dim or every dim
    "any_all": (lambda x: torch.cat([x.any(1), x.all(1), x.any().view(1), x.all().view(1),
                                     x.any(0, keepdim=True).view(-1)]),
                (torch.tensor([[0.0, 1.5, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, -1.0]]),)),
    # packed sequences (refused before): the padded form with the lengths as sequence_lens
    "packed_lstm": (packed_lstm, packed_inputs(5)),
    # scatter_add with an index smaller than src reads src's leading corner
    "scatter_add_small_index": (lambda x, i, s: x.scatter_add(0, i, s),
                                (torch.zeros(3, 5), torch.tensor([[0, 1, 2, 0, 0]]),
                                 torch.arange(10.0).view(2, 5))),
    # a bool tensor against a float scalar compares numbers (True > 0.5)
    "bool_gt_float_scalar": (lambda x: x > 0.5, (torch.tensor([True, False, True]),)),
    # refused before the audit of refusals (doc/refusals.md); inputs without
    # the random stream, so that the cases above keep theirs.
    # trunc rounding of floats: exact beyond 2^63 (torch 1.13 casts through int64)
    "div_trunc_float": (lambda x, y: torch.div(x, y, rounding_mode="trunc"),
                        (torch.tensor([[-7.5, 7.5, 3e19, -0.5, 6.0, 1e-3]]),
                         torch.tensor([[2.0, -2.0, 1.0, 3.0, 3.0, -7.0]]))),
    # cumsum's dtype: the sum of x cast to it
    "cumsum_dtype": (lambda x: torch.cumsum(x, 1, dtype=torch.float64),
                     (torch.tensor([[1, 2, 3], [4, -5, 6]], dtype=torch.int32),)),
    # vector_norm's dtype: computed in it (torch 1.13's symbolic ignores it)
    "vector_norm_dtype": (lambda x: torch.linalg.vector_norm(x, 3, dim=1, dtype=torch.float64)
                          + torch.linalg.vector_norm(x, dtype=torch.float64),
                          (torch.sin(torch.arange(10.0)).view(2, 5),)),
    # layer_norm without weight and bias (at 17 too, where torch's file fails the checker)
    "layer_norm_no_weight": (lambda x: F.layer_norm(x, [4]), (torch.cos(torch.arange(24.0)).view(2, 3, 4),)),
    # circular padding (torch 1.13's export swaps each dim's pads and slices one element early)
    "pad_circular_2d": (lambda x: F.pad(x, (1, 2, 2, 0), mode="circular"), (torch.arange(40.0).view(1, 2, 4, 5),)),
    "pad_circular_3d": (lambda x: F.pad(x, (1, 0, 0, 2, 3, 1), mode="circular"),
                        (torch.arange(48.0).view(1, 2, 3, 4, 2),)),
    # index 0 twice and 3 three times: PyTorch sums every row; a NaN reaches only its own target
    "index_add_duplicates": (lambda x, s, i: x.index_add(1, i, s),
                             (torch.randn(2, 5, 3), torch.cat([torch.randn(2, 5, 3),
                                                               torch.full((2, 1, 3), float("nan"))], 1),
                              torch.tensor([0, 3, 0, 3, 1, 3]))),
    # ceil mode whose last window would start in the right padding: PyTorch drops it
    # (5 + 2 pads, kernel 2, stride 2: 3 windows, not 4); refused by the declared-shape
    # check while the shape rules counted it
    "avg_pool_ceil_window_in_pad": (lambda x: F.avg_pool2d(x, 2, 2, 1, ceil_mode=True, count_include_pad=False),
                                    (torch.cos(torch.arange(50.0)).view(1, 2, 5, 5),)),
    # full and full_like of a fill value known only at run time (refused
    # before), and full of an int without a dtype, which fills int64 (was float)
    "full_computed_value": (lambda x, y: torch.full((3, 4), x, dtype=torch.long) + torch.full_like(x, y + 2)
                            + torch.full((4,), 3) + torch.full((3, 1), y * 0.5).long(),
                            (torch.tensor(12), torch.tensor(-3))),
    # softmax/log_softmax with a dtype compute in it (the output had no
    # shape: the checker refused the file)
    "softmax_dtype": (lambda x: torch.log_softmax(x, 1, dtype=torch.float64) + torch.softmax(x, 0, dtype=torch.float64),
                      (torch.sin(torch.arange(12.0)).view(3, 4) * 20,)),
    # linspace of one step is its start (the constant was its end)
    "linspace_one_step": (lambda x: x + torch.linspace(3, 10, 1) + torch.linspace(-1, 1, 6)[:1],
                          (torch.zeros(1),)),
    # in-place ops in scripted code: later reads see the new value (they
    # read the operand, where a trace reads the op's result)
    "script_inplace_rebind": (lambda x: inplace_rebind(x), (torch.arange(6.0).view(2, 3),)),
    # an in-place op on a tensor a list holds: later reads of the list see it
    "script_list_inplace_element": (lambda x: list_inplace_element(x), (torch.arange(6.0).view(2, 3),)),
    # torch.tensor of nested lists in scripted code: rows stacked (torch 1.13
    # reshapes each row to one value; PyTorch's suite, test_masked_fill_inplace)
    "script_tensor_nested_list": (lambda x: tensor_nested_list(x), (torch.arange(24.0).view(4, 2, 3),)),
    # quantized graph inputs and outputs (refused before): three ONNX values
    # each, integers, scale and zero point (torch's unpack_quantized_tensor);
    # output 0 is the integers of the quantized result
    "quantized_io_relu_flatten": (lambda x: torch.flatten(torch.relu(x).transpose(0, 1)),
                                  (torch.quantize_per_tensor(torch.sin(torch.arange(12.0)).view(3, 4),
                                                             0.05, 100, torch.quint8),)),
    # as_strided of a quantized tensor moves its integers (PyTorch's suite,
    # test_quantized_unary_ops_as_strided; refused before)
    "quantized_io_as_strided": (lambda x: torch.as_strided(x, (2, 2), (1, 2), 1),
                                (torch.quantize_per_tensor(torch.sin(torch.arange(12.0)).view(3, 4),
                                                           0.05, 100, torch.quint8),)),
    "quantized_io_cat_dequantize": (lambda x, y: torch.dequantize(
        torch.ops.quantized.cat([x, y], dim=1, scale=0.25, zero_point=-3)) * 2,
        (torch.quantize_per_tensor(torch.cos(torch.arange(6.0)).view(2, 3), 0.125, 2, torch.qint8),
         torch.quantize_per_tensor(torch.arange(4.0).view(2, 2) - 1.5, 0.5, -1, torch.qint8))),
    # scatter_add with repeated indices below opset 16 (torch's export keeps one
    # update per index); an index smaller than self, a src larger than the index,
    # a NaN that reaches only its own target
    "scatter_add_duplicates": (lambda x, i, s: x.scatter_add(1, i, s),
                               (torch.cos(torch.arange(15.0)).view(3, 5),
                                torch.tensor([[0, 0, 4, 0], [1, 1, 1, 2]]),
                                torch.sin(torch.arange(18.0)).view(3, 6).index_put_(
                                    (torch.tensor(1), torch.tensor(3)), torch.tensor(float("nan"))))),
}


def model_arrays(values):
    """Numpy arrays of a case's inputs or output: a quantized tensor as the
    three values the exported model takes and gives (its integers, its scale
    as a double and its zero point as an int64 for inputs; only the integers
    of an output, which the test compares)."""
    out = []
    for t in values:
        if isinstance(t, tuple):   # a tuple result (topk's NamedTuple): its elements
            out += model_arrays(t)
            continue
        if isinstance(t, (bool, int, float)):   # a scripted forward's number: a 0-d tensor
            t = torch.tensor(t, dtype=torch.float64) if isinstance(t, float) else torch.tensor(t)
        if t.is_quantized:
            out += [t.int_repr().numpy(), np.array(t.q_scale(), dtype=np.float64),
                    np.array(t.q_zero_point(), dtype=np.int64)]
        else:
            out.append(t.numpy())
    return out


def gpt_attention(x):
    # a GPT-style causal self-attention without weights: B, T, C from
    # x.size(), a split into q, k, v, heads by view, a causal mask by tril
    b, t, c = x.size()
    h = 2
    q, k, v = torch.cat([x, x * 0.5, -x], 2).split(c, dim=2)
    q = q.view(b, t, h, c // h).transpose(1, 2)
    k = k.view(b, t, h, c // h).transpose(1, 2)
    v = v.view(b, t, h, c // h).transpose(1, 2)
    att = q @ k.transpose(-2, -1) / (k.size(-1) ** 0.5)
    mask = torch.tril(torch.ones(t, t))
    att = att.masked_fill(mask == 0, float("-inf")).softmax(-1)
    return (att @ v).transpose(1, 2).contiguous().view(b, t, c)


def class_token(x):
    # ViT's class token: expand(n, -1, -1) with n = x.shape[0] at run time
    tok = torch.arange(x.shape[2], dtype=x.dtype).view(1, 1, -1)
    return torch.cat([tok.expand(x.shape[0], -1, -1), x], 1)


def window_mask(x):
    # Swin's shifted-window attention mask (torchvision 0.14) on an input
    # with a dynamic batch: sizes from x.shape through integer remainders,
    # nine slice writes into one buffer, and F.dropout's p = 0 in training
    # mode
    _, h, w, _ = x.shape
    x = F.pad(x, (0, 0, 0, (7 - w % 7) % 7, 0, (7 - h % 7) % 7))
    _, ph, pw, _ = x.shape
    m = x.new_zeros((ph, pw))
    count = 0
    for hs in ((0, -7), (-7, -3), (-3, None)):
        for ws in ((0, -7), (-7, -3), (-3, None)):
            m[hs[0]:hs[1], ws[0]:ws[1]] = count
            count += 1
    return F.dropout(x, p=0.0) + m.view(1, ph, pw, 1)


def view_writes(x):
    # writes through select and slice views of a tensor whose sizes are
    # dynamic: negative index, a slice from a computed start, in-place mul
    y = x * 1
    y[:, -1] = 0
    y[..., 1:] *= 2
    y[y.shape[0] // 2:, 0] = 7
    return y


def embedding_bags(x):
    # offsets computed from a dynamic length (torch 1.13 builds a Loop):
    # the number of bags is known only at run time
    weight = torch.sin(torch.arange(60.0)).view(20, 3)
    offsets = torch.arange(0, x.size(0), 3)
    psw = torch.cos(x.float())
    return torch.cat([F.embedding_bag(x, weight, offsets, mode="sum", per_sample_weights=psw),
                      F.embedding_bag(x, weight, offsets, mode="mean"),
                      F.embedding_bag(x, weight, offsets, mode="max")], 1)


# Exported with dynamic axes (input name: {axis: symbol}) and run at the
# traced size and at a second one (CASE.size2.input_N.npy, CASE.size2.expected.npy):
# a size the trace declares must not be folded when it depends on a dynamic dim.
def with_inf(shape):
    x = torch.randn(*shape)
    x[0, 0, 0] = float("inf")   # off the offset -1 diagonal: a mask times it would be NaN
    return x


DYNAMIC = {
    # `y[:, n:] = v` broadcasts v to the slice: the trace expands v to the
    # slice's traced sizes, which do not fit another size (PyTorch's suite,
    # test_dynamic_expand_as: the executor refused the export at the other size)
    "setitem_broadcast_dynamic": (lambda x: setitem_broadcast(x), (torch.randn(2, 5, 3),), (torch.randn(3, 4, 3),),
                                  "x:0=a,x:1=b"),
    # a split into sizes read from other inputs' shapes, at opset 11 a Slice
    # per piece (PyTorch's suite, test_split_size_with_slice: the pieces had
    # no type, and a graph output needs one)
    "split_sizes_of_inputs_dynamic": (
        lambda x, y, t: torch.cat([p * (i + 2) for i, p in enumerate(torch.split(t, (x.size(1), y.size(1)), 1))], 1),
        (torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 7)),
        (torch.randn(3, 2), torch.randn(3, 5), torch.randn(3, 7)), "x:0=a,x:1=b,y:0=a,y:1=c,3:0=a,3:1=d"),  # (the trace names t %3)
    # index_add into run-time sizes (PyTorch's suite, test_index_add_dynamic_axes;
    # refused before): a duplicate index, a source broadcast along dim 0
    # (the index made by ops: the trace text does not carry a tensor constant's values)
    "index_add_dynamic": (lambda x: x.index_add(1, torch.arange(4) * 2 % 3, torch.arange(12.0).view(1, 4, 3)),
                          (torch.randn(5, 4, 3),), (torch.randn(7, 8, 3),), "x:0=a,x:1=b"),
    # diagonal of run-time sizes (PyTorch's suite, test_diagonal; refused
    # before): positions from a Range; the second size's diagonal is empty
    "diagonal_dynamic": (lambda x: torch.diagonal(x, offset=-1, dim1=1, dim2=2), (with_inf((3, 4, 5)),),
                         (with_inf((2, 1, 3)),), "x:0=a,x:1=b,x:2=c"),
    "interpolate_size_of_other": (
        lambda x, y: F.interpolate(x, size=y.shape[-2:], mode="nearest"),
        (torch.randn(1, 2, 4, 4), torch.randn(1, 2, 8, 8)),
        (torch.randn(1, 2, 3, 3), torch.randn(1, 2, 6, 5)),
        "input:2=a,input:3=b,y:2=h,y:3=w"),
    # the dims a symbolic reads must come from the dynamic axes, not the
    # trace: split's dim, tril's size (a run-time mask below opset 14)
    "gpt_attention_dynamic": (gpt_attention, (torch.randn(2, 5, 8),), (torch.randn(3, 7, 8),),
                              "x:0=b,x:1=t"),
    "class_token_dynamic": (class_token, (torch.randn(2, 3, 4),), (torch.randn(5, 2, 4),),
                            "x:0=b,x:1=t"),
    # a constant output size of an input with dynamic dims: Resize's sizes
    # take the run-time batch and channels (the traced ones before)
    "interpolate_fixed_size_dynamic": (
        lambda x: F.interpolate(x, size=(8, 6), mode="bilinear", align_corners=False),
        (torch.randn(2, 3, 5, 4),), (torch.randn(3, 3, 7, 6),), "input:0=b,input:2=h,input:3=w"),
    "window_mask_dynamic_batch": (window_mask, (torch.randn(1, 16, 16, 2),),
                                  (torch.randn(3, 16, 16, 2),), "x.1:0=b"),
    "window_mask_dynamic_hw": (window_mask, (torch.randn(1, 16, 16, 2),),
                               (torch.randn(2, 20, 12, 2),), "x.1:0=b,x.1:1=h,x.1:2=w"),
    "view_writes_dynamic": (view_writes, (torch.randn(3, 4, 5),), (torch.randn(4, 6, 3),),
                            "x:0=a,x:1=b,x:2=c"),
    "embedding_bag_dynamic": (embedding_bags, (torch.randint(0, 20, (7,)),),
                              (torch.randint(0, 20, (11,)),), "x:0=n"),
    # the exact scatter_add below 16 with run-time sizes (Range for the rows)
    # scatter_add into a self of run-time shape, an index smaller than self
    # outside dim, repeated targets and an inf in src: before opset 11 (no
    # Range, no run-time Pad) the pairwise totals scattered into zeros
    # (PyTorch's suite, test_scatter_add's scripted zeros(src.size()); refused before)
    "scatter_add_pairwise_dynamic": (
        lambda x, i, s: x.scatter_add(1, i, s) * 2,
        (torch.randn(3, 5), torch.tensor([[1, 0, 1], [4, 4, 4]]),
         torch.tensor([[1.5, float("inf"), 2.0, 9.0], [0.25, -1.0, 3.0, 9.0]])),
        (torch.randn(4, 6), torch.tensor([[5, 0, 5], [2, 2, 1]]),
         torch.tensor([[1.0, 2.0, float("-inf"), 9.0], [4.0, -3.0, 0.5, 9.0]])),
        "x:0=n,x:1=m"),
    "scatter_add_duplicates_dynamic": (
        lambda x, i, s: x.scatter_add(0, i, s),
        (torch.cos(torch.arange(12.0)).view(4, 3), (torch.arange(15) * 7 % 4).view(5, 3),
         torch.sin(torch.arange(15.0)).view(5, 3)),
        (torch.cos(torch.arange(18.0)).view(6, 3), (torch.arange(21) * 5 % 6).view(7, 3),
         torch.sin(torch.arange(21.0)).view(7, 3)),
        "x:0=n,i:0=k,s:0=k"),
    # instance_norm without weights and pixel_shuffle read only the static
    # channels; the batch and spatial dims are dynamic
    "instance_norm_pixel_shuffle_dynamic": (
        lambda x: F.pixel_shuffle(F.instance_norm(x), 2),
        (torch.randn(2, 8, 5, 4),), (torch.randn(3, 8, 7, 6),), "input:0=b,input:2=h,input:3=w"),
    # scripted code reading x.shape[1] and x.shape[-1] (aten::__getitem__ of
    # an int list: Gather) into torch.tensor of Python floats (float32)
    "script_shape_items_dynamic": (lambda x: shape_items(x) * 2, (torch.randn(2, 3),),
                                   (torch.randn(4, 5),), "x:0=a,x:1=b"),
    # scripted arange with a float start and a computed end: float32, as
    # PyTorch (scripted code declares no result type; int64 truncated 2.7)
    "script_arange_float_start_dynamic": (lambda x: arange_float_start(x) * 2, (torch.randn(3, 4),),
                                          (torch.randn(5, 4),), "x:0=n"),
    # arange(..., out=t) (a schema the exporter did not know): t's element
    # type, float here for int bounds (torch's symbolic writes int64)
    # an integer arange of float bounds: PyTorch converts them to int64 before
    # counting (arange(8.5, dtype=long) has 8; PyTorch's suite,
    # test_arange_with_floats_override, 9 at opset 9 before it matched)
    "arange_int_dtype_float_bounds": (lambda x, e: torch.arange(x.size(0), e, 1.5, dtype=torch.int64) * 2
                                      + torch.arange(e, dtype=torch.int64).sum(),
                                      (torch.randn(2, 3), torch.tensor(8.5)), (torch.randn(5, 3), torch.tensor(9.7)),
                                      "x:0=n"),
    # several index tensors on dynamic dims, with a dynamic index count
    "index_several_dynamic": (lambda x, i, j: x[:, i, j] * 3,
                              (torch.randn(2, 4, 5), torch.tensor([-1, 2]), torch.tensor([[0], [-5]])),
                              (torch.randn(3, 6, 5), torch.tensor([-6, 1, 5]), torch.tensor([[4], [-1]])),
                              "x:0=n,x:1=h,i:0=k"),
    # sizes unpacked from x.shape and a slice of it in scripted code, at run
    # time with dynamic axes (PyTorch's suite, scripted
    # test_list_unpack_scripted, _slice_scripted; refused before)
    "script_shape_unpack_dynamic": (ShapeUnpack(), (torch.randn(2, 3, 4),), (torch.randn(3, 2, 5),),
                                    "x.1:0=n,x.1:1=c,x.1:2=h"),
    "arange_out_dynamic": (lambda x: x[:, 0] + torch.arange(x.size(0), out=torch.zeros(1))
                           + torch.arange(1, x.size(0) + 1, 1, out=torch.zeros(1, dtype=torch.float64)),
                           (torch.randn(3, 4),), (torch.randn(6, 4),), "x:0=n"),
    # split into sizes read from other inputs' dynamic dims (the outputs
    # had no type: the file was not written)
    "split_computed_sizes_dynamic": (lambda x, y, t: torch.split(t, (x.size(1), y.size(1)), dim=1)[1] * 2,
                                     (torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 7)),
                                     (torch.randn(3, 2), torch.randn(3, 5), torch.randn(3, 7)),
                                     "x:0=a,x:1=b,y:0=a,y:1=c,3:0=a,3:1=d"),   # the trace names t %3
    # repeat_interleave by a count known only at run time (per element, or
    # one for all) and by a constant count on dynamic dims (refused before)
    "repeat_interleave_dynamic": (
        lambda x, r: torch.repeat_interleave(x, r, dim=1) * 2,
        (torch.arange(6.0).view(2, 3), torch.tensor([2, 0, 3])),
        (torch.arange(8.0).view(2, 4), torch.tensor([1, 3, 0, 2])), "x:1=w,r:0=w"),
    "repeat_interleave_scalar_dynamic": (lambda x: x.repeat_interleave(3, dim=0) + x.repeat_interleave(1).sum(),
                                         (torch.randn(2, 3),), (torch.randn(4, 1),), "x:0=n,x:1=m"),
    # hann_window of a length known only at run time (refused before), at
    # length 7 and at length 1 (ones)
    "hann_window_computed_length": (
        lambda x: x + torch.hann_window(x.size(0), periodic=False) + 2 * torch.hann_window(x.size(0)),
        (torch.randn(7),), (torch.randn(1),), "x:0=n"),
    # scripted loops: the second input runs another number of iterations
    "script_loop_carried": (lambda x: loop_carried(x * 2) + 1, (torch.randn(3, 4),),
                            (torch.randn(5, 4),), "x:0=n"),
    "script_loop_cat": (lambda x: loop_cat(x * 2) + 1, (torch.randn(3, 4),), (torch.randn(6, 4),),
                        "x:0=n"),
    "script_loop_append_stack": (lambda x: loop_append_stack(x * 2) + 1, (torch.randn(3, 4),),
                                 (torch.randn(5, 4),), "x:0=n"),
    # range(start, end, step): __range_length and __derive_index
    "script_loop_range_step": (lambda x: loop_range_step(x) + 1, (torch.randn(4, 3),),
                               (torch.randn(7, 3),), "x:0=n"),
    # torchvision's own scripted loop (Mask R-CNN's paste_masks_in_image)
    # and Keypoint R-CNN's heatmaps_to_keypoints (bicubic to computed sizes, argmax)
    "keypoints_loop": (keypoints_loop, keypoint_inputs(3, 1), keypoint_inputs(5, 2), "maps:0=n,rois:0=n"),
    "paste_masks_loop": (paste_masks_loop, paste_inputs(3, 1), paste_inputs(5, 2),
                         "1:0=n,2:0=n"),   # the trace names the inputs %1, %2
}


# Run at the traced input and at a second one of the same shape whose data
# gives other data-dependent shapes (CASE.size2.input_N.npy): the traced
# size of x[x > 0] must not be folded.
DATA_DEPENDENT = {
    # sizes read from a tensor's data (zeros(d[0], 3)): the trace holds one run's
    # values; the export sizes from the data at run time (it baked the traced
    # size, and a squeeze of it failed at another: PyTorch's suite,
    # test_squeeze_runtime_dim)
    "size_from_data": (lambda x, d: size_from_data(x, d),
                       (torch.randn(3), torch.tensor([2])), (torch.randn(3), torch.tensor([5]))),
    # in-place writes in the branches of a run-time If into a tensor made
    # before it: carried out as If outputs (Note [Writes in If branches]);
    # dropped before (other numbers), run on data taking each branch
    "script_if_branch_write": (lambda x: branch_view_write(x), (torch.rand(3, 2) + 0.1,), (-torch.rand(3, 2) - 0.1,)),
    # scripted code in a trace (prim::If, exported as ONNX If): each input takes another branch
    "script_if": (lambda x: script_if_helper(x) + 1, (torch.ones(3),), (-torch.ones(3),)),
    # a squeeze of a dim sized by data, as the model's output: the rank too
    # depends on the data (If(size == 1, Squeeze, Identity); PyTorch's suite,
    # test_squeeze_runtime_dim; refused before)
    "squeeze_size_from_data": (lambda a, b: torch.zeros(a[0], b[0]).squeeze(0),
                               (torch.tensor([1]), torch.tensor([4])), (torch.tensor([3]), torch.tensor([4]))),
    "data_dependent_size": (
        lambda x: (x[x > 0] * x[x > 0].size(0)).sum() + torch.zeros(torch.nonzero(x).shape[0]).sum() + 1,
        (torch.tensor([1.0, -1.0, 2.0, 3.0, 0.0]),),
        (torch.tensor([1.0, -1.0, -2.0, -3.0, 4.0]),)),
    # bicubic upsampling to a size computed at run time (was exported as linear)
    "bicubic_computed_size": (lambda x, s: bicubic_to(x, s) * 2,
                              (torch.randn(3, 8, 8), torch.tensor([13.2, 17.5])),
                              (torch.randn(3, 8, 8), torch.tensor([5.5, 9.0]))),
    # linspace of start, end and steps given at run time (refused before;
    # the second run takes one step: start)
    "linspace_computed": (lambda a, b, k: torch.linspace(a, b, k) * 2,
                          (torch.tensor(-1.0), torch.tensor(10.0), torch.tensor(6, dtype=torch.int)),
                          (torch.tensor(3.0), torch.tensor(10.0), torch.tensor(1, dtype=torch.int))),
    # a loop whose trip count is computed from the data
    "script_loop_data_count": (lambda x: loop_data_count(x) - 1, (torch.tensor([1.0, -2.0, 3.0]),),
                               (torch.tensor([-1.0, -2.0, 3.0]),)),
}


def bn_train_twice(x, m, v, w, b):
    y = F.batch_norm(x, m, v, w, b, training=True)
    return F.batch_norm(y * 2, m, v, None, None, training=True, eps=1e-3)


def bn_train_then_eval(x, m, v):
    y = F.batch_norm(x, m, v, training=True)
    return F.batch_norm(y, m, v, training=False)   # reads the updated running statistics


# Exported with ExportOptions' training (CASE.training): traces recorded in
# training mode on purpose, PyTorch's training forward the reference.
TRAINING = {
    # batch statistics with running statistics, the same statistics updated
    # twice (PyTorch's suite, test_batchnorm_training, test_multiple_conv_bn;
    # refused before)
    "batch_norm_training_stats": (bn_train_twice, (torch.randn(4, 3, 5), torch.zeros(3), torch.ones(3),
                                                   torch.rand(3) + 0.5, torch.randn(3))),
}

# Refused with ExportOptions' training too (CASE.training).
TRAINING_REFUSALS = {
    # the running statistics read again after the training-mode update
    "batch_norm_training_stats_read": (Fn(bn_train_then_eval), (torch.randn(4, 3, 5), torch.zeros(3), torch.ones(3))),
}

# Traces an export must refuse (CASE.trace only): exporting them in the
# inference form would compute other numbers.
REFUSALS = {
    # a squeeze of a dim sized by data read by another node: that node's
    # symbolic would take the traced rank (Note [Squeeze of a run-time size])
    "squeeze_size_from_data_read": (Fn(lambda a, b: torch.zeros(a[0], b[0]).squeeze(0).sum(-1) + 1),
                                    (torch.tensor([1]), torch.tensor([4]))),
    # batch statistics (a module traced in training mode)
    "batch_norm_training": (torch.nn.BatchNorm2d(3).train(), (torch.randn(2, 3, 4, 4),)),
    # an in-place write through a view() whose base is read afterwards
    "view_write": (Fn(view_write), (torch.randn(4, 5),)),
    # ... and one through a reshape whose input is read afterwards
    "reshape_write_base_read": (Fn(reshape_write_base_read), (torch.randn(3, 4, 5, 6), torch.ones(1))),
    # a loop-carried int64 tensor that the body makes float (ONNX Loop keeps its type)
    "loop_changes_dtype": (Fn(loop_changes_dtype), (torch.randn(3),)),
    # the packed data read directly (ONNX has no packed sequences)
    "packed_data_read": (Fn(packed_data_read), (torch.randn(4, 2, 3), torch.tensor([4, 2]))),
    # unique with sorted=False: PyTorch's order is its hash table's, ONNX's first occurrence
    "unique_unsorted": (Fn(lambda x: torch.unique(x, sorted=False)), (torch.tensor([3, 1, 2, 1]),)),
}


def script_module_text(m, inputs):
    """A ScriptModule's graph as torch.onnx.export and symonnx's Python
    export take it (tracing one is a no-op): its own graph, inlined, the
    inputs typed (python/symonnx/_trace.py)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from symonnx import _trace
    return _trace.trace(m, inputs)[0]


def main():
    """Writes every case, or only those named on the command line."""
    only = set(sys.argv[1:])
    for table in (REFUSALS, CASES, DYNAMIC, DATA_DEPENDENT, TRAINING, TRAINING_REFUSALS):
        for name in list(table):
            if only and name not in only:
                del table[name]
    os.makedirs(OUT, exist_ok=True)
    for name, (m, inputs) in list(REFUSALS.items()) + list(TRAINING_REFUSALS.items()):
        with open(os.path.join(OUT, name + ".trace"), "w") as f:
            f.write(str(torch.jit.trace(m, inputs).inlined_graph))
    for name in list(TRAINING) + list(TRAINING_REFUSALS):
        with open(os.path.join(OUT, name + ".training"), "w") as f:
            f.write("exported with ExportOptions' training\n")
    for name, (fn, inputs) in list(CASES.items()) + list(TRAINING.items()):
        with open(os.path.join(OUT, name + ".trace"), "w") as f:
            f.write(script_module_text(fn, inputs) if isinstance(fn, torch.jit.ScriptModule)
                    else str(torch.jit.trace(Fn(fn).eval(), inputs).inlined_graph))
        # C order: a transposed result would be saved in Fortran order, which our reader refuses
        # (np.ascontiguousarray would make a 0-d array 1-D)
        for i, x in enumerate(model_arrays(inputs)):
            np.save(os.path.join(OUT, "%s.input_%d.npy" % (name, i)), np.array(x, order="C"))
        np.save(os.path.join(OUT, name + ".expected.npy"), np.array(model_arrays([fn(*inputs)])[0], order="C"))
    for name, (fn, inputs, inputs2, axes) in DYNAMIC.items():
        with open(os.path.join(OUT, name + ".trace"), "w") as f:
            f.write(script_module_text(fn, inputs) if isinstance(fn, torch.jit.ScriptModule)
                    else str(torch.jit.trace(Fn(fn).eval(), inputs).inlined_graph))
        with open(os.path.join(OUT, name + ".axes"), "w") as f:
            f.write(axes + "\n")
        for tag, xs in (("", inputs), (".size2", inputs2)):
            for i, x in enumerate(xs):
                np.save(os.path.join(OUT, "%s%s.input_%d.npy" % (name, tag, i)), x.numpy())
            np.save(os.path.join(OUT, "%s%s.expected.npy" % (name, tag)), fn(*xs).numpy())
    for name, (fn, inputs, inputs2) in DATA_DEPENDENT.items():
        traced = torch.jit.trace(Fn(fn).eval(), inputs)
        with open(os.path.join(OUT, name + ".trace"), "w") as f:
            f.write(str(traced.inlined_graph))
        for tag, xs in (("", inputs), (".size2", inputs2)):
            for i, x in enumerate(xs):
                np.save(os.path.join(OUT, "%s%s.input_%d.npy" % (name, tag, i)), x.numpy())
            np.save(os.path.join(OUT, "%s%s.expected.npy" % (name, tag)), fn(*xs).numpy())
    print("%d cases written to %s" % (len(CASES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
