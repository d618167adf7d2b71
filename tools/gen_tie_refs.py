#!/usr/bin/python3
"""Reference cases for the order of equal values in TopK and
NonMaxSuppression (issue 12: detection models with tied scores).

ONNX's TopK spec breaks ties by the lower index; NonMaxSuppression's spec
says nothing, so the reference is ONNX Runtime 1.20's order, the one users
compare with.  Expected outputs come from ONNX Runtime (onnxruntime-node,
installed by `bash tests/e2e/install-ort.sh build/ort`), not from symonnx.

Run with Debian's python (numpy, onnx 1.12) from the source tree:
  /usr/bin/python3 tools/gen_tie_refs.py
Writes tests/fixtures/runtime/ties/<case>/ in ONNX's backend-test layout
(model.onnx + test_data_set_0/{input,output}_N.pb); the runtime test
/runtime/ties/fixtures runs them.
"""
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from onnx_backend_case import save_case

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
OUT = os.path.join(ROOT, 'tests', 'fixtures', 'runtime', 'ties')
ORT_MODULES = os.path.join(ROOT, 'build', 'ort', 'node_modules')


def ort_outputs(model, inputs):
    """Runs model (ModelProto) on inputs {name: array} in ONNX Runtime."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'model.onnx')
        onnx.save(model, path)
        specs = []
        for name, a in inputs.items():
            f = os.path.join(d, name + '.npy')
            np.save(f, a)
            specs.append(f'{name}={f}')
        env = dict(os.environ, NODE_PATH=ORT_MODULES)
        subprocess.run(['node', os.path.join(ROOT, 'tests', 'e2e', 'ort-run.js'), path, d] + specs,
                       check=True, env=env)
        return [np.load(os.path.join(d, f'ort_{i}.npy')) for i in range(len(model.graph.output))]


def write_case(name, nodes, inputs, outputs, opset):
    """inputs: [(name, array)]; outputs: [(name, elem_type, shape)]."""
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype)
                                       if hasattr(helper, 'np_dtype_to_tensor_dtype')
                                       else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], a.shape)
         for n, a in inputs],
        [helper.make_tensor_value_info(n, t, shape) for n, t, shape in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    want = ort_outputs(model, dict(inputs))
    save_case(OUT, name, model, [(None, a) for _, a in inputs], [(None, a) for a in want])


def topk(name, x, k, axis, largest):
    shape = list(x.shape)
    shape[axis] = k
    write_case(name, [helper.make_node('TopK', ['x', 'k'], ['values', 'indices'], axis=axis,
                                       largest=largest, sorted=1)],
               [('x', x), ('k', np.array([k], np.int64))],
               [('values', TensorProto.FLOAT, shape), ('indices', TensorProto.INT64, shape)], 13)


def nms(name, boxes, scores, max_out, iou, center=0):
    write_case(name, [helper.make_node('NonMaxSuppression', ['boxes', 'scores', 'max_out', 'iou'],
                                       ['selected'], center_point_box=center)],
               [('boxes', boxes), ('scores', scores), ('max_out', np.array([max_out], np.int64)),
                ('iou', np.array([iou], np.float32))],
               [('selected', TensorProto.INT64, ['n', 3])], 11)


def main():
    os.makedirs(OUT, exist_ok=True)
    row = np.array([[3, 1, 3, 2, 3, 1, 2, 3]], np.float32)
    topk('topk_ties_largest', row, 5, 1, 1)
    topk('topk_ties_smallest', row, 5, 1, 0)
    topk('topk_ties_axis0', np.array([[1, 2], [1, 2], [0, 2], [1, 1]], np.float32), 3, 0, 1)
    # six disjoint boxes, one score: every box kept, in ORT's order
    disjoint = np.array([[[10 * i, 0, 10 * i + 5, 5] for i in range(6)]], np.float32)
    nms('nms_ties_disjoint', disjoint, np.full((1, 1, 6), 0.5, np.float32), 6, 0.5)
    # pairs of overlapping boxes with equal scores: which of each pair survives
    pairs = np.array([[[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [21, 21, 31, 31],
                       [40, 40, 50, 50], [40, 41, 50, 51]]], np.float32)
    nms('nms_ties_overlap', pairs, np.array([[[0.7, 0.7, 0.9, 0.9, 0.7, 0.7]]], np.float32), 10, 0.5)
    # two classes, ties within each, max_output_boxes_per_class cutting a tie
    two = np.concatenate([disjoint, disjoint[:, :0]], 1)
    nms('nms_ties_two_classes_cut', two,
        np.array([[[0.5] * 6, [0.2, 0.3, 0.3, 0.3, 0.2, 0.3]]], np.float32), 3, 0.5)
    print('wrote', len(os.listdir(OUT)), 'cases to', os.path.relpath(OUT, ROOT))


if __name__ == '__main__':
    main()
