#!/usr/bin/python3
"""Dump a PyTorch model's trace for symonnx.

Writes into OUT_DIR:
  model.trace         str(torch.jit.trace(model, inputs).inlined_graph), plus what
                      PyTorch records but does not print: each autograd
                      Function call's body (its Subgraph attribute, as a
                      block after the call, so symonnx inlines a Function that
                      has no symbolic, as torch.onnx does) and its calling
                      convention (cconv="dcc": which arguments are tensors)
  weights.safetensors the state_dict, plus every tensor-valued prim::Constant
                      of the trace under the key "__constant__.<value name>"
                      (PyTorch prints such constants lossily: {2.82843}, or
                      not at all past 10 elements)
  input_N.npy         the inputs
  expected_N.npy      PyTorch's outputs (tuples and lists flattened in order)

Uses only torch and numpy; run it with Debian's /usr/bin/python3.

  tools/torch2trace.py --model resnet18 --input 1,3,64,64 -o out/
  tools/torch2trace.py --model word_language_model -o out/      # default inputs
  tools/torch2trace.py --module path/to/file.py:MyNet --input 2,8 -o out/
"""
import argparse
import importlib.util
import json
import os
import struct
import sys

import numpy as np
import torch

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)
sys.path.insert(1, os.path.join(_here, "..", "python"))   # in the source tree
import torch_models  # noqa: E402
from symonnx._trace import CONSTANT_PREFIX, flatten, trace  # noqa: E402,F401  (the generators import these from here)

SAFETENSORS_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int8: "I8", torch.int16: "I16", torch.int32: "I32", torch.int64: "I64",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def tensor_bytes(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: take the raw bits
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


# The reference writer's layout order: by dtype, widest first, then by name,
# so every tensor's data is aligned to its element size (zero-copy loads).
SAFETENSORS_ORDER = ["U64", "I64", "F64", "F32", "U32", "I32", "BF16", "F16", "U16", "I16",
                     "I8", "U8", "BOOL"]


def write_safetensors(path, tensors, metadata=None):
    """The safetensors format: u64 LE header size, JSON header (padded with
    spaces to 8 bytes), then the tensors' bytes back to back."""
    header, chunks, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    def order(name):
        code = SAFETENSORS_DTYPES.get(tensors[name].dtype)
        return (SAFETENSORS_ORDER.index(code) if code else -1, name)
    for name in sorted(tensors, key=order):
        t = tensors[name]
        if t.dtype not in SAFETENSORS_DTYPES:
            raise SystemExit(f"torch2trace: {name}: dtype {t.dtype} has no safetensors code")
        data = tensor_bytes(t)
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)
    os.replace(tmp, path)


def parse_input_spec(spec):
    shape, _, dtype = spec.partition(":")
    dims = [int(d) for d in shape.split(",") if d]
    dtype = getattr(torch, dtype or "float32", None)
    if not isinstance(dtype, torch.dtype):
        raise SystemExit(f"torch2trace: unknown dtype in input spec '{spec}'")
    if dtype.is_floating_point:
        return torch.randn(*dims, dtype=dtype)
    return torch.randint(0, 8, dims, dtype=dtype)


def load_model(args):
    if args.module:
        path, _, cls = args.module.rpartition(":")
        if not path or not cls:
            raise SystemExit("torch2trace: --module wants PATH.py:ClassName")
        spec = importlib.util.spec_from_file_location("user_model", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return getattr(mod, cls)(), []
    if args.model in torch_models.MODELS:
        ctor, inputs = torch_models.MODELS[args.model]
        return ctor(), inputs
    import torchvision
    ctor = getattr(torchvision.models, args.model, None)
    if ctor is None:
        raise SystemExit(f"torch2trace: unknown model '{args.model}' (not in torchvision.models "
                         f"nor {sorted(torch_models.MODELS)})")
    kwargs = {"weights": None}  # random weights: nothing is downloaded
    if args.model == "inception_v3":
        kwargs.update(aux_logits=False, init_weights=False)
    return ctor(**kwargs), ["1,3,224,224"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="torchvision model name, or one of " + ", ".join(sorted(torch_models.MODELS)))
    src.add_argument("--module", help="PATH.py:ClassName constructed with no arguments")
    ap.add_argument("--input", action="append", default=[],
                    help="input shape, e.g. 1,3,224,224 or 8,2:int64 (repeat for several inputs)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--out-dir", required=True)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    model, default_inputs = load_model(args)
    model.eval()
    inputs = tuple(parse_input_spec(s) for s in (args.input or default_inputs))
    if not inputs:
        raise SystemExit("torch2trace: give the model's inputs with --input SHAPE[:DTYPE]")

    # the Python entry point's tracing (autograd on as torch.onnx.export, dict
    # outputs, detection models' list inputs and list-of-dict outputs)
    text, tensors, expected = trace(model, inputs)

    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "model.trace"), "w") as f:
        f.write(text)
    write_safetensors(os.path.join(args.out_dir, "weights.safetensors"), tensors,
                      {"producer": "symonnx torch2trace", "torch": torch.__version__})
    for i, t in enumerate(inputs):
        np.save(os.path.join(args.out_dir, f"input_{i}.npy"), t.numpy())
    for i, t in enumerate(expected):
        np.save(os.path.join(args.out_dir, f"expected_{i}.npy"), t.detach().numpy())
    print(f"torch2trace: wrote {args.out_dir}: {text.count(chr(10))} lines, "
          f"{len(tensors)} tensors, {len(inputs)} inputs, {len(expected)} outputs")


if __name__ == "__main__":
    main()
