"""Writes one test case in ONNX's backend-test layout (the layout
`symonnx test-suite` and tests/runtime's run_fixtures read):
DIR/NAME/model.onnx and DIR/NAME/test_data_set_0/{input,output}_N.pb."""
import os

import onnx
from onnx import numpy_helper


def save_case(out_dir, name, model, inputs, outputs):
    """inputs, outputs: lists of (name, numpy array) in graph order."""
    d = os.path.join(out_dir, name)
    os.makedirs(os.path.join(d, 'test_data_set_0'))
    onnx.save(model, os.path.join(d, 'model.onnx'))
    for kind, arrs in (('input', inputs), ('output', outputs)):
        for i, (n, a) in enumerate(arrs):
            with open(os.path.join(d, 'test_data_set_0', f'{kind}_{i}.pb'), 'wb') as f:
                f.write(numpy_helper.from_array(a, name=n).SerializeToString())
