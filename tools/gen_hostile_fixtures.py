#!/usr/bin/python3
"""Writes the hostile-input fixtures made with onnx's own helpers (the others
in tests/fixtures/hostile/ come from the fuzzing campaign, shared/fuzz-findings):
a TensorProto carrying its values twice (raw_data and int64_data)."""
import os
import numpy as np
from onnx import TensorProto, numpy_helper

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "hostile")

t = numpy_helper.from_array(np.array([1, 2, 3], dtype=np.int64), "x")
t.int64_data.extend([7, 8, 9])          # a second source of values besides raw_data
assert t.HasField("raw_data") and len(t.int64_data) == 3 and t.data_type == TensorProto.INT64
with open(os.path.join(OUT, "tensor_raw_and_int64_data.pb"), "wb") as f:
    f.write(t.SerializeToString())

# Inputs that share an ONNX type parameter but differ in element type (the
# kernels check input 0's type only; the others were read in its type).
from onnx import helper  # noqa: E402


def mismatched(name, op, inits, opset, **attrs):
    nodes = [helper.make_node(op, [i.name for i in inits], ["y"], **attrs)]
    graph = helper.make_graph(nodes, name, [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    with open(os.path.join(OUT, "onnx_run_mismatch_%s.onnx" % name), "wb") as f:
        f.write(model.SerializeToString())   # not onnx.checker'd: it is malformed on purpose


f32 = lambda n, a: numpy_helper.from_array(np.asarray(a, dtype=np.float32), n)  # noqa: E731
f64 = lambda n, a: numpy_helper.from_array(np.asarray(a, dtype=np.float64), n)  # noqa: E731
i8 = lambda n, a: numpy_helper.from_array(np.asarray(a, dtype=np.int8), n)      # noqa: E731
u8 = lambda n, a: numpy_helper.from_array(np.asarray(a, dtype=np.uint8), n)     # noqa: E731
i64 = lambda n, a: numpy_helper.from_array(np.asarray(a, dtype=np.int64), n)    # noqa: E731
# Each was run on the code before the check (exit 0, the int8 bytes read as floats).
mismatched("pad_value_int8", "Pad", [f32("x", np.ones((2, 3))), i64("pads", [0, 1, 0, 1]), i8("v", 7)], 13)
mismatched("clip_min_double", "Clip", [f32("x", np.ones((2, 3))), f64("lo", 2.0)], 13)
mismatched("batchnorm_scale_int8", "BatchNormalization",
           [f32("x", np.ones((1, 64, 2, 2))), i8("s", np.ones(64)), f32("b", np.ones(64)),
            f32("m", np.ones(64)), f32("v", np.ones(64))], 9)
mismatched("layernorm_bias_double", "LayerNormalization",
           [f32("x", np.ones((2, 64))), f32("s", np.ones(64)), f64("b", np.ones(64))], 17)
mismatched("range_limit_int8", "Range", [f32("s", 0), i8("l", 5), f32("d", 1)], 11)
mismatched("roialign_rois_int8", "RoiAlign",
           [f32("x", np.ones((1, 2, 8, 8))), i8("r", np.ones((64, 4))), i64("b", np.zeros(64))], 10)
mismatched("dequantize_zero_point_uint8", "DequantizeLinear", [i8("x", np.ones(64)), f32("s", 1), u8("z", 0)], 13)
mismatched("qlinearmatmul_zero_point_int8", "QLinearMatMul",
           [u8("a", np.ones((2, 64))), f32("as", 1), i8("az", 0), u8("b", np.ones((64, 2))), f32("bs", 1),
            u8("bz", 0), f32("ys", 1), u8("yz", 0)], 10)
# Refused before too (by Concat's own check), kept for the variadic "T*" path of the shared check.
mismatched("concat_third_int8", "Concat",
           [f32("a", np.ones((2, 3))), f32("b", np.ones((2, 3))), i8("c", np.ones((2, 3)))], 13, axis=0)
