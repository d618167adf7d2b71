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
