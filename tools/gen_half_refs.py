#!/usr/bin/python3
"""Reference cases for float16 in the runtime: kernels written for float run
on float copies of float16 inputs and round their results to float16 once
(runtime/half.c), as ONNX Runtime's CPU kernels do for most float16 ops.

Run with Debian's python (numpy, onnx 1.12):  /usr/bin/python3 tools/gen_half_refs.py
Writes tests/fixtures/runtime/half/<case>/ in ONNX's backend-test layout
(model.onnx + test_data_set_0/{input,output}_N.pb).  Each expected output is
numpy's float32 computation of the node from the float16 inputs, rounded to
float16 after each node.  The runtime test /runtime/half/fixtures runs them.
"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper

from onnx_backend_case import save_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'half')
rng = np.random.default_rng(16)


def h(*shape):
    return rng.uniform(-2, 2, size=shape).astype(np.float16)


def r16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16)


def write_case(name, nodes, inputs, outputs, opset=13):
    """inputs/outputs: lists of (name, array)."""
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, T.FLOAT16, a.shape) for n, a in inputs],
        [helper.make_tensor_value_info(n, T.FLOAT16, a.shape) for n, a in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])
    onnx.checker.check_model(m, full_check=True)
    save_case(OUT, name, m, inputs, outputs)


def f(a):
    return a.astype(np.float32)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    # Add, Mul (broadcast), Relu: each node rounds once
    a, b = h(2, 3, 4), h(4)
    s = r16(f(a) + f(b))
    p = r16(f(s) * f(b))
    write_case('half_add_mul_relu', [helper.make_node('Add', ['a', 'b'], ['s']),
                                     helper.make_node('Mul', ['s', 'b'], ['p']),
                                     helper.make_node('Relu', ['p'], ['y'])],
               [('a', a), ('b', b)], [('y', r16(np.maximum(f(p), 0)))])
    # Sub, Div, Sigmoid, Tanh, Exp
    a, b = h(3, 5), h(3, 5) + np.float16(3)
    q = r16(f(a) / f(b))
    sg = r16(1 / (1 + np.exp(-f(q))))
    write_case('half_div_sigmoid_tanh', [helper.make_node('Div', ['a', 'b'], ['q']),
                                         helper.make_node('Sigmoid', ['q'], ['g']),
                                         helper.make_node('Tanh', ['g'], ['y'])],
               [('a', a), ('b', b)], [('y', r16(np.tanh(f(sg))))])
    # Softmax over the last axis
    x = h(2, 7)
    e = np.exp(f(x) - f(x).max(-1, keepdims=True))
    write_case('half_softmax', [helper.make_node('Softmax', ['x'], ['y'], axis=-1)],
               [('x', x)], [('y', r16(e / e.sum(-1, keepdims=True)))])
    # MatMul (float accumulation, one rounding)
    a, b = h(3, 8), h(8, 5)
    write_case('half_matmul', [helper.make_node('MatMul', ['a', 'b'], ['y'])],
               [('a', a), ('b', b)], [('y', r16(f(a) @ f(b)))])
    # ReduceMean keeping dims
    x = h(2, 3, 6)
    write_case('half_reduce_mean', [helper.make_node('ReduceMean', ['x'], ['y'], axes=[2], keepdims=1)],
               [('x', x)], [('y', r16(f(x).mean(2, keepdims=True)))])
    print(f"5 cases written to {os.path.normpath(OUT)}")


if __name__ == '__main__':
    main()
