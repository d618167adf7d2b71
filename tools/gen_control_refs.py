#!/usr/bin/python3
"""Reference cases for the runtime's If, Loop and Scan kernels (subgraphs).

Run with Debian's python (numpy, onnx 1.12):  /usr/bin/python3 tools/gen_control_refs.py
Writes tests/fixtures/runtime/control/<case>/ in ONNX's backend-test layout;
expected outputs are computed here with plain numpy loops.  The bodies read
values of enclosing graphs (including one produced by a node, which the
executor must keep alive up to the control-flow node), swap loop-carried
values, and nest a Loop inside an If.
"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'control')
F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL
rng = np.random.default_rng(5)


def vi(name, t, shape=None):
    return helper.make_tensor_value_info(name, t, shape)


def write_case(name, model, sets):
    onnx.checker.check_model(model)
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    onnx.save(model, os.path.join(d, 'model.onnx'))
    for k, (inputs, outputs) in enumerate(sets):
        sd = os.path.join(d, f'test_data_set_{k}')
        os.makedirs(sd)
        for kind, arrays in (('input', inputs), ('output', outputs)):
            for i, a in enumerate(arrays):
                with open(os.path.join(sd, f'{kind}_{i}.pb'), 'wb') as f:
                    f.write(numpy_helper.from_array(np.asarray(a)).SerializeToString())


def model(nodes, inputs, outputs, name, opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs)
    return helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])


def if_outer_capture():
    # r = Relu(x); y = If(c) then r + r else r * x: both branches read r,
    # which nothing else reads, and x.
    then_g = helper.make_graph([helper.make_node('Add', ['r', 'r'], ['t'])], 'then', [],
                               [vi('t', F, [2, 3])])
    else_g = helper.make_graph([helper.make_node('Mul', ['r', 'x'], ['e'])], 'else', [],
                               [vi('e', F, [2, 3])])
    nodes = [helper.make_node('Relu', ['x'], ['r']),
             helper.make_node('If', ['c'], ['y'], then_branch=then_g, else_branch=else_g)]
    m = model(nodes, [vi('x', F, [2, 3]), vi('c', B, [])], [vi('y', F, [2, 3])], 'if_capture')
    x = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    r = np.maximum(x, 0)
    write_case('if_outer_capture', m, [([x, np.array(True)], [r + r]),
                                       ([x, np.array(False)], [r * x])])


def loop_fib_swap():
    # Carried (a, b) -> (b, a + b * s) with s read from the outer graph; scan
    # output a; stops at M or when the body's cond (b < limit) is false.
    body = helper.make_graph(
        [helper.make_node('Mul', ['b_in', 's'], ['bs']),
         helper.make_node('Add', ['a_in', 'bs'], ['sum']),
         helper.make_node('Identity', ['b_in'], ['a_out']),
         helper.make_node('Identity', ['sum'], ['b_out']),
         helper.make_node('ReduceMax', ['sum'], ['mx'], keepdims=0),
         helper.make_node('Less', ['mx', 'limit'], ['cond_out']),
         helper.make_node('Identity', ['a_in'], ['scan_a'])],
        'body', [vi('it', I64, []), vi('cond_in', B, []), vi('a_in', F, [2]), vi('b_in', F, [2])],
        [vi('cond_out', B, []), vi('a_out', F, [2]), vi('b_out', F, [2]), vi('scan_a', F, [2])])
    nodes = [helper.make_node('Loop', ['M', '', 'a0', 'b0'], ['a', 'b', 'seq'], body=body)]
    m = model(nodes, [vi('M', I64, []), vi('a0', F, [2]), vi('b0', F, [2]), vi('s', F, [2]),
                      vi('limit', F, [])],
              [vi('a', F, [2]), vi('b', F, [2]), vi('seq', F, ['n', 2])], 'loop_fib')
    sets = []
    for M, limit in ((6, 1e9), (20, 30.0)):
        a0 = np.array([0.0, 1.0], np.float32)
        b0 = np.array([1.0, 1.0], np.float32)
        s = np.array([1.0, 1.5], np.float32)
        a, b, seq = a0.copy(), b0.copy(), []
        for _ in range(M):
            seq.append(a.copy())
            a, b = b, (a + b * s).astype(np.float32)
            if not b.max() < limit:
                break
        sets.append(([np.array(M, np.int64), a0, b0, s, np.array(limit, np.float32)],
                     [a, b, np.stack(seq)]))
    write_case('loop_fib_swap', m, sets)


def scan_reverse_axes():
    # State: running sum of rows; scan input x (3, T) sliced on axis 1 in
    # reverse; scan output stacked on axis 1 of a (2, T) output... each step
    # emits the state (3,) and its double; outputs stacked on axis 1 and 0.
    body = helper.make_graph(
        [helper.make_node('Add', ['st_in', 'xs'], ['st_out']),
         helper.make_node('Identity', ['st_out'], ['y1']),
         helper.make_node('Add', ['st_out', 'st_out'], ['y2'])],
        'body', [vi('st_in', F, [3]), vi('xs', F, [3])],
        [vi('st_out', F, [3]), vi('y1', F, [3]), vi('y2', F, [3])])
    nodes = [helper.make_node('Scan', ['s0', 'x'], ['s', 'Y1', 'Y2'], body=body, num_scan_inputs=1,
                              scan_input_axes=[1], scan_input_directions=[1],
                              scan_output_axes=[1, 0], scan_output_directions=[0, 1])]
    T = 4
    m = model(nodes, [vi('s0', F, [3]), vi('x', F, [3, T])],
              [vi('s', F, [3]), vi('Y1', F, [3, T]), vi('Y2', F, [T, 3])], 'scan_rev')
    s0 = rng.uniform(-1, 1, 3).astype(np.float32)
    x = rng.uniform(-1, 1, (3, T)).astype(np.float32)
    st, y1, y2 = s0.copy(), np.zeros((3, T), np.float32), np.zeros((T, 3), np.float32)
    for t in range(T):
        st = st + x[:, T - 1 - t]
        y1[:, t] = st
        y2[T - 1 - t] = st + st
    write_case('scan_reverse_axes', m, [([s0, x], [st, y1, y2])])


def if_nested_loop():
    # If(c): then a Loop that adds x (two graphs out) k times; else Neg(x).
    body = helper.make_graph(
        [helper.make_node('Add', ['acc_in', 'x'], ['acc_out']),
         helper.make_node('Identity', ['cond_in'], ['cond_out'])],
        'body', [vi('it', I64, []), vi('cond_in', B, []), vi('acc_in', F, [3])],
        [vi('cond_out', B, []), vi('acc_out', F, [3])])
    then_g = helper.make_graph(
        [helper.make_node('Loop', ['k', 'c', 'z'], ['t'], body=body)], 'then', [],
        [vi('t', F, [3])])
    else_g = helper.make_graph([helper.make_node('Neg', ['x'], ['e'])], 'else', [],
                               [vi('e', F, [3])])
    nodes = [helper.make_node('If', ['c'], ['y'], then_branch=then_g, else_branch=else_g)]
    m = model(nodes, [vi('x', F, [3]), vi('z', F, [3]), vi('k', I64, []), vi('c', B, [])],
              [vi('y', F, [3])], 'if_loop')
    x = rng.uniform(-1, 1, 3).astype(np.float32)
    z = rng.uniform(-1, 1, 3).astype(np.float32)
    acc = z.copy()
    for _ in range(3):
        acc = acc + x
    write_case('if_nested_loop', m, [([x, z, np.array(3, np.int64), np.array(True)], [acc]),
                                     ([x, z, np.array(3, np.int64), np.array(False)], [-x])])


def main():
    os.makedirs(OUT, exist_ok=True)
    if_outer_capture()
    loop_fib_swap()
    scan_reverse_axes()
    if_nested_loop()


if __name__ == '__main__':
    main()
