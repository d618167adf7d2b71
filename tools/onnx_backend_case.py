"""Writes one test case in ONNX's backend-test layout (the layout
`symonnx test-suite` and tests/runtime's run_fixtures read):
DIR/NAME/model.onnx and DIR/NAME/test_data_set_0/{input,output}_N.pb."""
import os
import shutil

import numpy as np
import onnx
from onnx import numpy_helper


def save_case(out_dir, name, model, inputs, outputs):
    """model: a ModelProto or its serialized bytes; inputs, outputs: lists of
    (name, array) in graph order (name None: the TensorProto is unnamed).
    A case already there is replaced."""
    d = os.path.join(out_dir, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, 'test_data_set_0'))
    if isinstance(model, bytes):
        with open(os.path.join(d, 'model.onnx'), 'wb') as f:
            f.write(model)
    else:
        onnx.save(model, os.path.join(d, 'model.onnx'))
    for kind, arrs in (('input', inputs), ('output', outputs)):
        for i, (n, a) in enumerate(arrs):
            t = numpy_helper.from_array(np.asarray(a)) if n is None else numpy_helper.from_array(np.asarray(a), name=n)
            with open(os.path.join(d, 'test_data_set_0', f'{kind}_{i}.pb'), 'wb') as f:
                f.write(t.SerializeToString())
