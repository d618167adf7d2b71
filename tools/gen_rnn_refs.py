#!/usr/bin/python3
"""Reference cases for the runtime's LSTM, GRU and RNN kernels.

Run with Debian's python (torch 1.13, onnx 1.12):  /usr/bin/python3 tools/gen_rnn_refs.py
Writes tests/fixtures/runtime/rnn/<case>/ in ONNX's backend-test layout
(model.onnx + test_data_set_0/{input,output}_N.pb), which the runtime test
(/runtime/rnn/*) runs with the backend-suite runner.

Two kinds of case:
- torch_*: nn.LSTM / nn.GRU / nn.RNN modules (and the word_language_model of
  tools/torch_models.py) exported by torch.onnx.export; expected outputs are
  PyTorch's own.
- spec_*: single LSTM / GRU / RNN nodes with the attributes torch never
  emits (reverse, sequence_lens, layout 1, peepholes, clip, input_forget,
  linear_before_reset 0, other activations with alpha/beta, float64);
  expected outputs from the plain-numpy transcription of the ONNX operator
  spec below (per batch entry, per step, no shared code with the C kernel).
"""
import io
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper

from onnx_backend_case import save_case

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_models import WordLanguageModel  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures',
                   'runtime', 'rnn')
rng = np.random.default_rng(4321)


def rnd(*shape, dtype=np.float32, scale=0.5):
    return (rng.uniform(-1, 1, size=shape) * scale).astype(dtype)


def write_case(name, model_bytes, inputs, outputs):
    save_case(OUT, name, model_bytes, [(None, a) for a in inputs], [(None, a) for a in outputs])


# ---- torch-exported modules ---------------------------------------------------

def torch_case(name, module, args, input_names, output_names, opset=14):
    module.eval()
    with torch.no_grad():
        expected = module(*args)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    flat = []
    for e in expected:
        flat.extend(e if isinstance(e, tuple) else (e,))
    buf = io.BytesIO()
    torch.onnx.export(module, args, buf, opset_version=opset, input_names=input_names,
                      output_names=output_names)
    onnx.checker.check_model(onnx.load_from_string(buf.getvalue()))
    flat_args = []
    for a in args:
        flat_args.extend(a if isinstance(a, tuple) else (a,))
    write_case(name, buf.getvalue(), [a.numpy() for a in flat_args], [e.numpy() for e in flat])


def torch_cases():
    torch.manual_seed(7)
    seq, batch = 6, 3
    torch_case('torch_lstm_2layer_bidir', torch.nn.LSTM(5, 7, num_layers=2, bidirectional=True),
               (torch.randn(seq, batch, 5), (torch.randn(4, batch, 7), torch.randn(4, batch, 7))),
               ['x', 'h0', 'c0'], ['y', 'hn', 'cn'])
    torch_case('torch_gru_bidir_batch_first',
               torch.nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True),
               (torch.randn(batch, seq, 4),), ['x'], ['y', 'hn'])
    torch_case('torch_rnn_relu_bidir',
               torch.nn.RNN(4, 5, nonlinearity='relu', bidirectional=True),
               (torch.randn(seq, batch, 4),), ['x'], ['y', 'hn'])
    torch_case('torch_rnn_tanh_batch1', torch.nn.RNN(3, 8, num_layers=2),
               (torch.randn(seq, 1, 3),), ['x'], ['y', 'hn'])
    torch_case('torch_gru_batch1', torch.nn.GRU(5, 9),
               (torch.randn(seq, 1, 5), torch.randn(1, 1, 9)), ['x', 'h0'], ['y', 'hn'])
    # pytorch/examples word_language_model (2-layer LSTM), vocabulary cut to 100
    # words to keep the fixture small.
    torch.manual_seed(11)
    wlm = WordLanguageModel(ntoken=100)
    tokens = torch.randint(0, 100, (8, 2), dtype=torch.int64)
    torch_case('torch_word_language_model', wlm, (tokens,), ['input'], ['output'])


# ---- the ONNX spec in numpy ---------------------------------------------------

ACT_DEFAULTS = {  # name: (alpha, beta) defaults; None where the function takes none
    'relu': (None, None), 'tanh': (None, None), 'sigmoid': (None, None),
    'affine': (1.0, 0.0), 'leakyrelu': (0.01, None), 'thresholdedrelu': (1.0, None),
    'scaledtanh': (1.0, 1.0), 'hardsigmoid': (0.2, 0.5), 'elu': (1.0, None),
    'softsign': (None, None), 'softplus': (None, None),
}


def act_fn(name, alpha, beta):
    n = name.lower()
    return {
        'relu': lambda x: np.maximum(x, 0),
        'tanh': np.tanh,
        'sigmoid': lambda x: 1 / (1 + np.exp(-x)),
        'affine': lambda x: alpha * x + beta,
        'leakyrelu': lambda x: np.where(x >= 0, x, alpha * x),
        'thresholdedrelu': lambda x: np.where(x > alpha, x, 0),
        'scaledtanh': lambda x: alpha * np.tanh(beta * x),
        'hardsigmoid': lambda x: np.clip(alpha * x + beta, 0, 1),
        'elu': lambda x: np.where(x >= 0, x, alpha * (np.exp(x) - 1)),
        'softsign': lambda x: x / (1 + np.abs(x)),
        'softplus': lambda x: np.log1p(np.exp(x)),
    }[n]


def make_acts(names, alphas, betas):
    """alpha/beta lists consumed in order by the functions that take them."""
    alphas, betas = list(alphas), list(betas)
    out = []
    for n in names:
        da, db = ACT_DEFAULTS[n.lower()]
        a = alphas.pop(0) if da is not None and alphas else da
        b = betas.pop(0) if db is not None and betas else db
        out.append(act_fn(n, a, b))
    return out


def ref_rnn(kind, X, W, R, B=None, lens=None, h0=None, c0=None, P=None, direction='forward',
            activations=None, alphas=(), betas=(), clip=None, input_forget=0, lbr=0, layout=0):
    """Y, Y_h, Y_c of the ONNX RNN/GRU/LSTM operator, by the spec's equations."""
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    T_, Bn, _ = X.shape
    D = W.shape[0]
    H = R.shape[2]
    nact = {'rnn': 1, 'gru': 2, 'lstm': 3}[kind]
    default = {'rnn': ['Tanh'], 'gru': ['Sigmoid', 'Tanh'], 'lstm': ['Sigmoid', 'Tanh', 'Tanh']}
    names = activations or default[kind] * D
    if len(names) == nact and D == 2:
        names = names * 2
    acts = make_acts(names, alphas, betas)
    dt = X.dtype
    Y = np.zeros((T_, D, Bn, H), dt)
    Yh = np.zeros((D, Bn, H), dt)
    Yc = np.zeros((D, Bn, H), dt)
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    for d in range(D):
        f, g, h = (acts[d * nact:(d + 1) * nact] + [None, None])[:3]
        back = direction == 'reverse' or d == 1
        Wb = B[d, :W.shape[1]] if B is not None else np.zeros(W.shape[1], dt)
        Rb = B[d, W.shape[1]:] if B is not None else np.zeros(W.shape[1], dt)
        for b in range(Bn):
            L = T_ if lens is None else int(lens[b])
            Ht = h0[d, b].astype(np.float64) if h0 is not None else np.zeros(H)
            Ct = c0[d, b].astype(np.float64) if c0 is not None else np.zeros(H)
            for s in range(L):
                t = L - 1 - s if back else s
                x = X[t, b].astype(np.float64)
                if kind == 'rnn':
                    Ht = f(cl(x @ W[d].T + Ht @ R[d].T + Wb + Rb))
                elif kind == 'gru':
                    Wz, Wr, Wh = np.split(W[d], 3)
                    Rz, Rr, Rh = np.split(R[d], 3)
                    bz, br, bh = np.split(Wb, 3)
                    rz, rr, rh = np.split(Rb, 3)
                    z = f(cl(x @ Wz.T + Ht @ Rz.T + bz + rz))
                    r = f(cl(x @ Wr.T + Ht @ Rr.T + br + rr))
                    if lbr:
                        hh = g(cl(x @ Wh.T + r * (Ht @ Rh.T + rh) + bh))
                    else:
                        hh = g(cl(x @ Wh.T + (r * Ht) @ Rh.T + rh + bh))
                    Ht = (1 - z) * hh + z * Ht
                else:
                    Wi, Wo, Wf, Wc = np.split(W[d], 4)
                    Ri, Ro, Rf, Rc = np.split(R[d], 4)
                    bi, bo, bf, bc = np.split(Wb + Rb, 4)
                    pi, po, pf = np.split(P[d], 3) if P is not None else (0, 0, 0)
                    i = f(cl(x @ Wi.T + Ht @ Ri.T + pi * Ct + bi))
                    fg = 1 - i if input_forget else f(cl(x @ Wf.T + Ht @ Rf.T + pf * Ct + bf))
                    c = g(cl(x @ Wc.T + Ht @ Rc.T + bc))
                    Ct = fg * Ct + i * c
                    o = f(cl(x @ Wo.T + Ht @ Ro.T + po * Ct + bo))
                    Ht = o * h(Ct)
                Y[t, d, b] = Ht
            Yh[d, b] = Ht
            Yc[d, b] = Ct
    if layout:
        return Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    return Y, Yh, Yc


def spec_case(name, kind, T_, Bn, I, H, *, D=1, with_B=True, lens=None, h0=False, c0=False,
              P=False, outputs=('Y', 'Y_h', 'Y_c'), dtype=np.float32, opset=14, **attrs):
    G = {'rnn': 1, 'gru': 3, 'lstm': 4}[kind]
    layout = attrs.get('layout', 0)
    X = rnd(*((Bn, T_, I) if layout else (T_, Bn, I)), dtype=dtype, scale=1.0)
    W = rnd(D, G * H, I, dtype=dtype)
    R = rnd(D, G * H, H, dtype=dtype)
    feeds = {'X': X, 'W': W, 'R': R}
    if with_B:
        feeds['B'] = rnd(D, 2 * G * H, dtype=dtype)
    if lens is not None:
        feeds['sequence_lens'] = np.array(lens, np.int32)
    hshape = (Bn, D, H) if layout else (D, Bn, H)
    if h0:
        feeds['initial_h'] = rnd(*hshape, dtype=dtype, scale=1.0)
    if c0:
        feeds['initial_c'] = rnd(*hshape, dtype=dtype, scale=1.0)
    if P:
        feeds['P'] = rnd(D, 3 * H, dtype=dtype)
    order = ['X', 'W', 'R', 'B', 'sequence_lens', 'initial_h', 'initial_c', 'P']
    order = order[:6] if kind != 'lstm' else order
    names = [n if n in feeds else '' for n in order]
    while names and names[-1] == '':
        names.pop()
    all_out = ['Y', 'Y_h', 'Y_c'] if kind == 'lstm' else ['Y', 'Y_h']
    out_names = [n if n in outputs else '' for n in all_out]
    while out_names and out_names[-1] == '':
        out_names.pop()
    direction = attrs.pop('direction', 'bidirectional' if D == 2 else 'forward')
    node = helper.make_node(kind.upper(), names, out_names, hidden_size=H, direction=direction,
                            **attrs)
    ttype = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    ins = [helper.make_tensor_value_info(n, TensorProto.INT32 if n == 'sequence_lens' else ttype,
                                         feeds[n].shape) for n in names if n]
    Y, Yh, Yc = ref_rnn(kind, X, W, R, feeds.get('B'), feeds.get('sequence_lens'),
                        feeds.get('initial_h'), feeds.get('initial_c'), feeds.get('P'),
                        direction=direction, activations=attrs.get('activations'),
                        alphas=attrs.get('activation_alpha', ()),
                        betas=attrs.get('activation_beta', ()), clip=attrs.get('clip'),
                        input_forget=attrs.get('input_forget', 0),
                        lbr=attrs.get('linear_before_reset', 0), layout=layout)
    got = {'Y': Y, 'Y_h': Yh, 'Y_c': Yc}
    outs = [helper.make_tensor_value_info(n, ttype, got[n].shape) for n in out_names if n]
    graph = helper.make_graph([node], name, ins, outs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)])
    onnx.checker.check_model(model)
    write_case(name, model.SerializeToString(), [feeds[n] for n in names if n],
               [got[n].astype(dtype) for n in out_names if n])


def spec_cases():
    spec_case('spec_lstm_reverse_seqlens', 'lstm', 5, 4, 3, 4, lens=[5, 2, 0, 3], h0=True,
              c0=True, direction='reverse')
    spec_case('spec_lstm_bidir_layout1_peepholes', 'lstm', 4, 3, 2, 5, D=2, lens=[4, 1, 3],
              h0=True, c0=True, P=True, layout=1)
    spec_case('spec_lstm_clip_input_forget_acts', 'lstm', 6, 2, 3, 4, P=True, clip=0.7,
              input_forget=1, activations=['HardSigmoid', 'Elu', 'Softsign'],
              activation_alpha=[0.3, 0.9], activation_beta=[0.4])
    spec_case('spec_lstm_double_no_bias_yc_only', 'lstm', 3, 2, 4, 3, with_B=False, c0=True,
              outputs=('Y_c',), dtype=np.float64)
    spec_case('spec_gru_lbr0_bidir_seqlens_yh', 'gru', 5, 3, 3, 4, D=2, lens=[3, 5, 1], h0=True,
              outputs=('Y_h',))
    spec_case('spec_gru_lbr1_leaky_scaledtanh_clip', 'gru', 4, 2, 3, 5, linear_before_reset=1,
              clip=1.5, activations=['LeakyRelu', 'ScaledTanh'], activation_alpha=[0.1, 0.8],
              activation_beta=[1.3])
    spec_case('spec_gru_layout1_batch1', 'gru', 6, 1, 2, 3, h0=True, layout=1)
    spec_case('spec_rnn_reverse_affine_layout1', 'rnn', 4, 3, 2, 3, h0=True, layout=1,
              direction='reverse', activations=['Affine'], activation_alpha=[0.6],
              activation_beta=[-0.2])
    spec_case('spec_rnn_bidir_relu_softplus', 'rnn', 3, 2, 3, 4, D=2, lens=[2, 3],
              activations=['Relu', 'Softplus'])
    spec_case('spec_rnn_thresholded_opset7', 'rnn', 3, 2, 2, 3, opset=7,
              activations=['ThresholdedRelu'], activation_alpha=[0.1])


def main():
    os.makedirs(OUT, exist_ok=True)
    torch_cases()
    spec_cases()


if __name__ == '__main__':
    main()
