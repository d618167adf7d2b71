#!/usr/bin/python3
"""Independent checks of symonnx's ONNX writer/reader with python3-onnx.

  onnx_fields_check.py check MODEL [--external THRESHOLD]
      MODEL was written by tests/export/test-onnxio-fields.c; assert every
      field (values computed here with numpy) and run onnx.checker.
  onnx_fields_check.py make-typed OUT
      write a model whose initializers use the typed repeated fields
      (float_data, int32_data, ...) next to raw_data twins, for the reader.
Exits 1 on a failed check, 77 when onnx is missing."""
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, AttributeProto, helper, numpy_helper
except ImportError:
    print("python3-onnx / numpy missing")
    sys.exit(77)

V = np.arange(6)
SIGNED = V - 2
HALVES = (V - 2) * 0.5
# dtype name (IR lower-case name) → (TensorProto enum, expected numpy array)
EXPECTED = {
    "float": (TensorProto.FLOAT, HALVES.astype(np.float32)),
    "uint8": (TensorProto.UINT8, V.astype(np.uint8)),
    "int8": (TensorProto.INT8, SIGNED.astype(np.int8)),
    "uint16": (TensorProto.UINT16, V.astype(np.uint16)),
    "int16": (TensorProto.INT16, SIGNED.astype(np.int16)),
    "int32": (TensorProto.INT32, SIGNED.astype(np.int32)),
    "int64": (TensorProto.INT64, SIGNED.astype(np.int64)),
    "bool": (TensorProto.BOOL, (V % 2).astype(bool)),
    "float16": (TensorProto.FLOAT16, HALVES.astype(np.float16)),
    "double": (TensorProto.DOUBLE, HALVES.astype(np.float64)),
    "uint32": (TensorProto.UINT32, V.astype(np.uint32)),
    "uint64": (TensorProto.UINT64, V.astype(np.uint64)),
    "complex64": (TensorProto.COMPLEX64, (HALVES + 1j * V).astype(np.complex64)),
    "complex128": (TensorProto.COMPLEX128, (HALVES + 1j * V).astype(np.complex128)),
    # bfloat16: the upper half of the float32 bits (exact for these values)
    "bfloat16": (TensorProto.BFLOAT16, (HALVES.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)),
}

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attr(node, name):
    for a in node.attribute:
        if a.name == name:
            return a
    raise AssertionError("attribute %s missing" % name)


def check_type(vi, elem, dims):
    t = vi.type.tensor_type
    expect(vi.type.WhichOneof("value") == "tensor_type", vi.name + " tensor type")
    expect(t.HasField("elem_type") and t.elem_type == elem, vi.name + " elem_type")
    got = [d.dim_param if d.HasField("dim_param") else (d.dim_value if d.HasField("dim_value") else None)
           for d in t.shape.dim]
    expect(got == dims, "%s dims %r != %r" % (vi.name, got, dims))


def check(path, external_threshold):
    raw = onnx.load(path, load_external_data=False)
    m = onnx.load(path)
    # ModelProto scalars (has_ fields) and strings
    expect(m.HasField("ir_version") and m.ir_version == 7, "ir_version 7 for opset 13")
    expect(m.HasField("model_version") and m.model_version == 0, "model_version 0 written")
    expect(m.producer_name == "prod" and m.producer_version == "9.9", "producer")
    expect(m.domain == "dom.example" and m.doc_string == "model doc", "model domain/doc")
    expect({p.key: p.value for p in m.metadata_props} == {"k1": "v1", "k2": "v2"}, "metadata_props")
    ops = {o.domain: o.version for o in m.opset_import}
    expect(all(o.HasField("version") for o in m.opset_import), "opset versions set")
    expect(ops == {"": 13, "org.pytorch.aten": 1, "com.example": 2}, "opset_import %r" % ops)
    g = m.graph
    expect(g.name == "g_main" and g.doc_string == "graph doc", "graph name/doc")
    ins = {i.name: i for i in g.input}
    expect(list(ins) == ["x", "seq", "opt", "map", "init_float"], "graph.input order %r" % list(ins))
    check_type(ins["x"], TensorProto.FLOAT, ["batch", 3, None])
    expect(ins["seq"].type.sequence_type.elem_type.tensor_type.elem_type == TensorProto.FLOAT, "sequence")
    expect(ins["opt"].type.optional_type.elem_type.tensor_type.elem_type == TensorProto.INT64, "optional")
    mp = ins["map"].type.map_type
    expect(mp.HasField("key_type") and mp.key_type == TensorProto.INT64, "map key_type")
    expect(mp.value_type.tensor_type.elem_type == TensorProto.FLOAT, "map value_type")
    # initializers: every dtype, raw_data little-endian
    inits = {t.name: t for t in g.initializer}
    rinits = {t.name: t for t in raw.graph.initializer}
    for name, (enum, arr) in EXPECTED.items():
        t = inits["init_" + name]
        expect(t.HasField("data_type") and t.data_type == enum, name + " data_type")
        expect(list(t.dims) == [2, 3], name + " dims")
        expect(t.HasField("raw_data") and t.raw_data == arr.tobytes(), name + " raw_data bytes")
        if name not in ("bfloat16",):
            got = numpy_helper.to_array(t)
            expect(got.dtype == arr.dtype and np.array_equal(got.reshape(-1), arr), name + " numpy value")
        if external_threshold is not None and arr.nbytes >= external_threshold:
            r = rinits["init_" + name]
            expect(r.HasField("data_location") and r.data_location == TensorProto.EXTERNAL
                   and not r.HasField("raw_data"), name + " stored externally")
            ext = {e.key: e.value for e in r.external_data}
            expect(ext.get("location") == "fields.onnx.data" and "offset" in ext and ext.get("length") == str(arr.nbytes),
                   name + " external_data entries %r" % ext)
    s = inits["init_string"]
    expect(s.data_type == TensorProto.STRING and list(s.string_data) == [b"s%d" % i for i in range(6)], "string tensor")
    e = inits["init_empty"]
    expect(list(e.dims) == [0] and e.HasField("raw_data") and e.raw_data == b"", "empty tensor has raw_data")
    # nodes
    nodes = {n.op_type: n for n in g.node}
    n = nodes["AllAttrs"]
    expect(n.domain == "com.example" and n.name == "all_attrs" and n.doc_string == "node doc", "node fields")
    expect(list(n.input) == ["x", "init_float", ""] and len(n.output) == 2 and n.output[1] == "", "node inputs/outputs %r %r" % (list(n.input), list(n.output)))
    for a in n.attribute:
        expect(a.HasField("type") and a.type != AttributeProto.UNDEFINED, "attribute %s type set" % a.name)
    types = {a.name: a.type for a in n.attribute}
    want = {"f": AttributeProto.FLOAT, "f0": AttributeProto.FLOAT, "i": AttributeProto.INT, "i0": AttributeProto.INT,
            "s": AttributeProto.STRING, "s_empty": AttributeProto.STRING, "t": AttributeProto.TENSOR,
            "g": AttributeProto.GRAPH, "tp": AttributeProto.TYPE_PROTO, "fs": AttributeProto.FLOATS,
            "is": AttributeProto.INTS, "ss": AttributeProto.STRINGS, "ts": AttributeProto.TENSORS,
            "gs": AttributeProto.GRAPHS, "tps": AttributeProto.TYPE_PROTOS}
    expect(types == want, "attribute kinds %r" % types)
    expect(attr(n, "f").HasField("f") and attr(n, "f").f == np.float32(1.5), "f")
    expect(attr(n, "f0").HasField("f") and attr(n, "f0").f == 0.0, "f = 0 written")
    expect(attr(n, "i").HasField("i") and attr(n, "i").i == -7, "i")
    expect(attr(n, "i0").HasField("i") and attr(n, "i0").i == 0, "i = 0 written")
    expect(attr(n, "s").s == b"hello\0world", "s with NUL")
    expect(attr(n, "s_empty").HasField("s") and attr(n, "s_empty").s == b"", "empty s written")
    t = attr(n, "t").t
    expect(t.data_type == TensorProto.INT64 and np.array_equal(numpy_helper.to_array(t), [1, 2, 3]), "t")
    sub = attr(n, "g").g
    expect(sub.name == "then_body" and [x.op_type for x in sub.node] == ["Identity"] and list(sub.node[0].input) == ["x"],
           "g subgraph uses outer x")
    expect(attr(n, "tp").tp.tensor_type.elem_type == TensorProto.FLOAT
           and [d.dim_value for d in attr(n, "tp").tp.tensor_type.shape.dim] == [2], "tp")
    expect(list(attr(n, "fs").floats) == [0.5, -1.0], "fs")
    expect(list(attr(n, "is").ints) == [1, -2, 3], "is")
    expect(list(attr(n, "ss").strings) == [b"a", b"bc"], "ss")
    ts = [numpy_helper.to_array(x) for x in attr(n, "ts").tensors]
    expect(len(ts) == 2 and ts[0].dtype == np.float32 and float(ts[0]) == 2.5 and ts[1].dtype == np.int64 and int(ts[1]) == -4, "ts")
    expect([x.name for x in attr(n, "gs").graphs] == ["b0", "b1"], "gs")
    tps = attr(n, "tps").type_protos
    expect(len(tps) == 2 and tps[0].tensor_type.elem_type == TensorProto.FLOAT and tps[1].tensor_type.elem_type == TensorProto.INT64, "tps")
    aten = nodes["ATen"]
    expect(aten.domain == "org.pytorch.aten" and attr(aten, "operator").s == b"mul", "ATen node")
    # value_info for the intermediate with a known type, outputs with types
    vis = {v.name: v for v in g.value_info}
    expect("relu_out" in vis, "value_info for relu_out")
    if "relu_out" in vis:
        check_type(vis["relu_out"], TensorProto.FLOAT, ["batch", 3, None])
    outs = [o.name for o in g.output]
    expect(outs == ["all_out", "mul_out"], "outputs %r" % outs)
    try:
        onnx.checker.check_model(m, full_check=True)
    except Exception as ex:
        expect(False, "onnx.checker: %s" % ex)


def make_typed(out):
    inits, outputs = [], []
    for name, (enum, arr) in EXPECTED.items():
        if name == "bfloat16":
            vals = HALVES.tolist()          # make_tensor rounds to bfloat16 itself
            raw_bytes = arr.tobytes()
        elif name.startswith("complex"):
            vals = arr.tolist()
            raw_bytes = arr.tobytes()
        else:
            vals = arr.tolist()
            raw_bytes = arr.tobytes()
        inits.append(helper.make_tensor("typed_" + name, enum, [2, 3], vals, raw=False))
        inits.append(helper.make_tensor("raw_" + name, enum, [2, 3], raw_bytes, raw=True))
        for p in ("typed_", "raw_"):
            outputs.append(helper.make_tensor_value_info(p + name, enum, [2, 3]))
    for t in inits:
        assert not t.raw_data if t.name.startswith("typed_") else t.raw_data, t.name
    g = helper.make_graph([], "typed", [], outputs, initializer=inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out)


if __name__ == "__main__":
    if sys.argv[1] == "check":
        thr = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--external" else None
        check(sys.argv[2], thr)
        print("%d failures" % len(failures))
        sys.exit(1 if failures else 0)
    elif sys.argv[1] == "make-typed":
        make_typed(sys.argv[2])
    else:
        sys.exit(2)
