#!/usr/bin/python3
"""PyTorch 1.13's own ONNX test suite (test/onnx/test_pytorch_onnx_onnxruntime.py)
driven through symonnx instead of ONNX Runtime.

  PYTHONPATH=python SYMONNX_LIBRARY=build/libsymonnx.so.0 \\
      nice /usr/bin/python3 bench/pytorch-onnx-suite.py SUITE_DIR \\
      [--opsets 13] [--filter REGEX] [--json OUT.json] [--timeout 300] [--jobs 1]

SUITE_DIR holds test_pytorch_onnx_onnxruntime.py and model_defs/ as in
PyTorch's test/onnx/ (v1.13.0 tag; see bench/README.md): they are not part
of this repository.  The suite imports helper modules of PyTorch's test
tree (onnx_test_common, pytorch_test_common) and the `parameterized` and
`expecttest` packages; this script provides its own small stand-ins for all
four, so that each test method runs as written, except that `run_test`, for
every model the test hands it:

  (a) exports it with torch.onnx.export (the "torch" column);
  (b) exports it with symonnx (python/symonnx, the traced model through
      libsymonnx) and runs the file in symonnx's executor on every input set
      of the call (the inputs and additional_test_inputs), comparing each
      output with eager PyTorch's at the test's rtol/atol, shape and dtype
      checks as torch's verification does (`match`, max abs error).

One row per test method of the traced variant (is_script=False) at each
opset: torch ok / error, symonnx exported / refused (first line of the
message), match yes / no, or a harness error.  A test whose run_test
calls pass a torch.jit.ScriptModule is counted among the scripted-model
rows.  The suite's is_script variants are counted, not run.  Each test runs
in a worker process (restarted after a crash, killed after --timeout).
"""
import argparse
import collections
import copy
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import types
import unittest
import warnings

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SUITE_FILE = "test_pytorch_onnx_onnxruntime.py"

# ---------------------------------------------------------------------------
# Stand-ins for the suite's helper modules (ours, not PyTorch's)
# ---------------------------------------------------------------------------


def _opset_skip(predicate, reason):
    def decorator(func):
        def wrapper(self, *args, **kwargs):
            if predicate(self):
                raise unittest.SkipTest(reason(self))
            return func(self, *args, **kwargs)
        wrapper.__name__ = func.__name__
        wrapper.__doc__ = func.__doc__
        wrapper.__dict__.update(func.__dict__)
        # kept so that the scripted variant can be counted without running it
        wrapper._skip_preds = getattr(func, "_skip_preds", []) + [predicate]
        return wrapper
    return decorator


def _make_pytorch_test_common():
    m = types.ModuleType("pytorch_test_common")
    m.BATCH_SIZE = 2
    m.RNN_BATCH_SIZE = 7
    m.RNN_SEQUENCE_LENGTH = 11
    m.RNN_INPUT_SIZE = 5
    m.RNN_HIDDEN_SIZE = 3

    def skipIfUnsupportedMinOpsetVersion(v):
        return _opset_skip(lambda s: s.opset_version < v, lambda s: f"opset {s.opset_version} < {v}")

    def skipIfUnsupportedMaxOpsetVersion(v):
        return _opset_skip(lambda s: s.opset_version > v, lambda s: f"opset {s.opset_version} > {v}")

    def skipIfUnsupportedOpsetVersion(versions):
        return _opset_skip(lambda s: s.opset_version in versions,
                           lambda s: f"opset {s.opset_version} unsupported")

    # v1.13.1 spells the opset min_opset_version (default: every opset);
    # the late-2022 main branch skip_before_opset_version.
    def skipScriptTest(skip_before_opset_version=None, reason="", min_opset_version=None):
        v = skip_before_opset_version if min_opset_version is None else min_opset_version
        return _opset_skip(lambda s: s.is_script and (v is None or s.opset_version < v),
                           lambda s: "script test skipped: " + reason)

    def skipTraceTest(skip_before_opset_version=None, reason="", min_opset_version=None):
        v = skip_before_opset_version if min_opset_version is None else min_opset_version
        return _opset_skip(lambda s: not s.is_script and (v is None or s.opset_version < v),
                           lambda s: "trace test skipped: " + reason)

    def _checking_off(attr):
        def decorator(func):
            def wrapper(self, *args, **kwargs):
                setattr(self, attr, False)
                try:
                    return func(self, *args, **kwargs)
                finally:
                    setattr(self, attr, True)
            wrapper.__name__ = func.__name__
            wrapper.__dict__.update(func.__dict__)
            return wrapper
        return decorator

    m.skipIfUnsupportedMinOpsetVersion = skipIfUnsupportedMinOpsetVersion
    m.skipIfUnsupportedMaxOpsetVersion = skipIfUnsupportedMaxOpsetVersion
    m.skipIfUnsupportedOpsetVersion = skipIfUnsupportedOpsetVersion
    m.skipScriptTest = skipScriptTest
    m.skipTraceTest = skipTraceTest
    m.skipDtypeChecking = _checking_off("check_dtype")
    m.skipShapeChecking = _checking_off("check_shape")
    return m


def _make_parameterized():
    """parameterized.parameterized_class: here it only records the parameter
    sets on the class; the driver makes the variant it runs."""
    m = types.ModuleType("parameterized")

    def parameterized_class(attrs, input_values=None, class_name_func=None, **_):
        def decorator(cls):
            cls._param_sets = [dict(zip(attrs, v)) for v in input_values]
            return cls
        return decorator

    m.parameterized_class = parameterized_class
    return m


def _make_expecttest():
    """torch.testing._internal.common_utils imports expecttest (not in Debian)."""
    m = types.ModuleType("expecttest")
    m.ACCEPT = False

    class TestCase(unittest.TestCase):
        pass

    m.TestCase = TestCase
    return m


class SubCall:
    """What one run_test call found."""

    def __init__(self, scripted):
        self.scripted = scripted
        self.torch = None        # None: ok, else the error's first line
        self.symonnx = None      # None: exported, else the refusal's first line
        self.run_error = None    # the executor refused the file
        self.mismatch = None     # the first mismatch, as text
        self.max_abs = 0.0
        self.compared = 0        # input sets compared
        self.ort = None          # --ort: None (not run), "match", or what differed / failed

    def as_dict(self):
        return dict(self.__dict__)


def _first_line(e):
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0][:300]


def _flat_tensors(value):
    import torch
    flat, _ = torch.jit._flatten(value)
    return list(flat)


def _prepare_args(args, kwargs):
    """As torch.onnx.verification: a tensor or dict becomes a 1-tuple, deep copied."""
    import torch
    if isinstance(args, (torch.Tensor, dict)):
        args = (args,)
    return copy.deepcopy(tuple(args)), copy.deepcopy(kwargs or {})


def _compare(got, want, rtol, atol, check_shape, check_dtype):
    """(ok, max_abs, message) for one output, as torch's verification compares
    ONNX Runtime's outputs (assert_close, equal_nan)."""
    import numpy as np
    if not check_shape:
        try:
            got, want = np.broadcast_arrays(got, want)
        except ValueError:
            return False, float("inf"), f"shape {got.shape} vs PyTorch's {want.shape}"
    if got.shape != want.shape:
        return False, float("inf"), f"shape {got.shape} vs PyTorch's {want.shape}"
    if check_dtype and got.dtype != want.dtype:
        return False, float("inf"), f"dtype {got.dtype} vs PyTorch's {want.dtype}"
    if want.size == 0:
        return True, 0.0, None
    e = want.astype(np.float64)
    a = got.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(e)
    same_inf = np.isinf(a) & np.isinf(e) & (np.sign(a) == np.sign(e))
    diff = np.where(both_nan | same_inf, 0.0, np.abs(a - e))
    diff = np.where(np.isnan(diff), np.inf, diff)
    bad = diff > atol + rtol * np.abs(np.where(np.isfinite(e), e, 0.0))
    max_abs = float(diff.max())
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        return False, max_abs, f"element {i}: {a.flat[i]!r} vs PyTorch's {e.flat[i]!r} (max abs err {max_abs:.3g})"
    return True, max_abs, None


def _run_file(path, inputs):
    """Runs the ONNX file in symonnx's executor on the list of tensors
    `inputs` (fed to the graph's inputs in order); the outputs as numpy."""
    import ctypes
    import symonnx
    from symonnx import _lib
    from symonnx._verify import _to_numpy
    api = _lib.api()
    err = _lib.new_error()
    graph = api["onnxio_load"](path.encode(), ctypes.byref(err))
    if not graph:
        raise _lib.take_error(err)
    session = ins = outs = None
    try:
        opts = _lib.RtOptions()
        api["rt_options_init"](ctypes.byref(opts))
        session = api["rt_session_new"](graph, ctypes.byref(opts), ctypes.byref(err))
        if not session:
            raise _lib.take_error(err)
        names = []
        for i in range(api["graph_n_inputs"](graph)):
            v = api["graph_input"](graph, i)
            if not api["graph_value_get_initializer"](v):
                names.append(api["graph_value_get_name"](v))
        if len(names) != len(inputs):
            raise RuntimeError(f"the file has {len(names)} inputs, the test gives {len(inputs)}")
        table = api["g_hash_table_new_full"]
        ins = table(api["g_str_hash"], api["g_str_equal"], api["g_free_ptr"], api["tensor_unref_ptr"])
        outs = table(api["g_str_hash"], api["g_str_equal"], api["g_free_ptr"], api["tensor_unref_ptr"])
        for name, t in zip(names, inputs):
            api["g_hash_table_insert"](ins, api["g_strdup"](name), symonnx._tensor(api, t))
        if not api["rt_session_run"](session, ins, outs, ctypes.byref(err)):
            raise _lib.take_error(err)
        result = []
        for i in range(api["graph_n_outputs"](graph)):
            name = api["graph_value_get_name"](api["graph_output"](graph, i))
            result.append(_to_numpy(api, api["g_hash_table_lookup"](outs, name)))
        return result
    finally:
        if ins:
            api["g_hash_table_unref"](ins)
        if outs:
            api["g_hash_table_unref"](outs)
        if session:
            api["rt_session_free"](session)
        api["graph_free"](graph)


_ORT_SERVER = None


def _ort_run(path, feed, work):
    """ONNX Runtime's outputs for the file on the tensors `feed` (the
    graph's non-initializer inputs in order), by bench/ort-serve.js; raises
    with ORT's message."""
    global _ORT_SERVER
    import numpy as np
    import onnx
    if _ORT_SERVER is None:
        env = dict(os.environ, NODE_PATH=os.environ["PTSUITE_ORT"])
        _ORT_SERVER = subprocess.Popen(["node", os.path.join(ROOT, "bench", "ort-serve.js")], env=env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    g = onnx.load(path, load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    names = [i.name for i in g.input if i.name not in inits]
    if len(names) != len(feed):
        raise RuntimeError(f"the file has {len(names)} inputs, the test gives {len(feed)}")
    out = os.path.join(work, "ort-out")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.unlink(os.path.join(out, f))
    feeds = {}
    for k, (name, t) in enumerate(zip(names, feed)):
        feeds[name] = os.path.join(out, f"in_{k}.npy")
        # (np.ascontiguousarray would make a 0-d tensor 1-D)
        np.save(feeds[name], np.array(t.numpy() if hasattr(t, "numpy") else t, order="C"))
    _ORT_SERVER.stdin.write(json.dumps({"model": path, "feeds": feeds, "out": out}) + "\n")
    _ORT_SERVER.stdin.flush()
    answer = json.loads(_ORT_SERVER.stdout.readline() or '{"error": "the ORT server ended"}')
    if "error" in answer:
        raise RuntimeError("ONNX Runtime: " + answer["error"])
    return [np.load(os.path.join(out, f"ort_{i}.npy")) for i in range(answer["outputs"])]


def _make_onnx_test_common(tmpdir):
    import torch
    m = types.ModuleType("onnx_test_common")

    def parameterize_class_name(cls, idx, input_dicts):
        return cls.__name__ + "_" + "_".join(f"{k}_{v}" for k, v in input_dicts.items())

    class _TestONNXRuntime(unittest.TestCase):
        opset_version = 13
        keep_initializers_as_inputs = True
        is_script = False
        is_script_test_enabled = True
        check_shape = True
        check_dtype = True

        def setUp(self):
            import numpy as np
            torch.manual_seed(0)
            np.random.seed(0)
            os.environ["ALLOW_RELEASED_ONNX_OPSET_ONLY"] = "0"
            self.calls = []

        def run_test(self, model, input_args, input_kwargs=None, rtol=1e-3, atol=1e-7,
                     do_constant_folding=True, dynamic_axes=None, additional_test_inputs=None,
                     input_names=None, output_names=None, fixed_batch_size=False,
                     training=None, remained_onnx_input_idx=None, verbose=False, **_):
            import symonnx
            from symonnx._trace import decide_input_format, unpack_quantized
            TM = torch.onnx.TrainingMode
            mode = TM.EVAL if training is None else training
            if mode == TM.TRAINING:
                model.train()
            elif mode == TM.EVAL:
                model.eval()
            sub = SubCall(isinstance(model, torch.jit.ScriptModule))
            self.calls.append(sub)
            torch_error = None
            with torch.no_grad():
                snapshot = _try_clone(model)
                args, kwargs = _prepare_args(input_args, input_kwargs)
                export_args = args + (kwargs,) if kwargs else args
                # (a) torch.onnx.export
                try:
                    torch.onnx.utils._export(
                        _try_clone(model), copy.deepcopy(export_args), io.BytesIO(),
                        opset_version=self.opset_version, do_constant_folding=do_constant_folding,
                        keep_initializers_as_inputs=self.keep_initializers_as_inputs,
                        dynamic_axes=dynamic_axes, input_names=input_names,
                        output_names=output_names, fixed_batch_size=fixed_batch_size,
                        training=mode, verbose=False)
                except Exception as e:   # noqa: BLE001 - any export failure is a result
                    sub.torch = _first_line(e)
                    torch_error = e
                # (b) symonnx: export, run on each input set, compare
                path = os.path.join(tmpdir, "model.onnx")
                if os.path.exists(path):
                    os.unlink(path)
                sym_training = mode == TM.TRAINING or (mode == TM.PRESERVE and model.training)
                try:
                    symonnx.export(_try_clone(model), copy.deepcopy(export_args), path,
                                   opset_version=self.opset_version, input_names=input_names,
                                   output_names=output_names, dynamic_axes=dynamic_axes,
                                   do_constant_folding=do_constant_folding,
                                   training=TM.TRAINING if sym_training else TM.EVAL)
                except Exception as e:   # noqa: BLE001
                    sub.symonnx = _first_line(e)
                if sub.symonnx is None:
                    sets = [(input_args, input_kwargs)] + [(a, {}) for a in (additional_test_inputs or [])]
                    for a, kw in sets:
                        pt_args, pt_kwargs = _prepare_args(a, kw)
                        # a quantized tensor is three values in and out, as torch's
                        # verification unpacks it (unpack_quantized_tensor)
                        flat_want = _flat_tensors(_try_clone(snapshot)(*pt_args, **pt_kwargs))
                        want = unpack_quantized(flat_want, False)
                        # a quantized output's integers are compared within one step, as
                        # the torchvision corpus compares quantized models: ONNX's QDQ
                        # forms compute in float where PyTorch's kernels round in integers
                        # (torch's own file gives the same steps in our executor)
                        steps = [s for t in flat_want for s in
                                 ([1.0, 0.0, 0.0] if isinstance(t, torch.Tensor) and t.is_quantized else [0.0])]
                        fa, fk = _prepare_args(a, kw)
                        # named arguments join the positional ones as export joins them
                        feed = unpack_quantized(_flat_tensors(decide_input_format(model, fa + (fk,) if fk else fa)))
                        try:
                            try:
                                got = _run_file(path, feed)
                            except RuntimeError as e:
                                if remained_onnx_input_idx is None or "inputs, the test gives" not in str(e):
                                    raise
                                got = _run_file(path, [feed[i] for i in remained_onnx_input_idx])
                        except Exception as e:   # noqa: BLE001
                            sub.run_error = _first_line(e)
                            break
                        if len(got) != len(want):
                            sub.mismatch = f"{len(got)} outputs vs PyTorch's {len(want)}"
                            break
                        for k, (g, w) in enumerate(zip(got, want)):
                            ok, err_abs, msg = _compare(g, w.detach().numpy(), rtol,
                                                        max(atol, steps[k] if k < len(steps) else 0.0),
                                                        self.check_shape, self.check_dtype)
                            sub.max_abs = max(sub.max_abs, err_abs)
                            if not ok and sub.mismatch is None:
                                sub.mismatch = f"output {k}: {msg}"
                        sub.compared += 1
                        if os.environ.get("PTSUITE_ORT") and sub.ort in (None, "match"):
                            # the same file in ONNX Runtime, the same comparison
                            try:
                                try:
                                    theirs = _ort_run(path, feed, tmpdir)
                                except RuntimeError as e:
                                    if remained_onnx_input_idx is None or "inputs, the test gives" not in str(e):
                                        raise
                                    theirs = _ort_run(path, [feed[i] for i in remained_onnx_input_idx], tmpdir)
                                sub.ort = "match" if len(theirs) == len(want) else \
                                    f"differs: {len(theirs)} outputs vs PyTorch's {len(want)}"
                                for k, (g, w) in enumerate(zip(theirs, want)):
                                    ok, _, msg = _compare(g, w.detach().numpy(), rtol,
                                                          max(atol, steps[k] if k < len(steps) else 0.0),
                                                          self.check_shape, self.check_dtype)
                                    if not ok and sub.ort == "match":
                                        sub.ort = f"differs: output {k}: {msg}"
                            except Exception as e:   # noqa: BLE001
                                sub.ort = "error: " + _first_line(e)
            if torch_error is not None:
                raise torch_error   # as the suite expects (assertRaises)

    def _try_clone(model):
        try:
            return copy.deepcopy(model)
        except Exception:   # noqa: BLE001 - as torch's verification
            return model

    m._TestONNXRuntime = _TestONNXRuntime
    m.parameterize_class_name = parameterize_class_name
    return m


def _load_suite(suite_dir, tmpdir):
    for name, module in (("pytorch_test_common", _make_pytorch_test_common()),
                         ("parameterized", _make_parameterized()),
                         ("expecttest", _make_expecttest())):
        sys.modules[name] = module
    sys.modules["onnx_test_common"] = _make_onnx_test_common(tmpdir)
    sys.path.insert(0, suite_dir)
    import importlib.util
    spec = importlib.util.spec_from_file_location("pt_onnx_suite", os.path.join(suite_dir, SUITE_FILE))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.TestONNXRuntime


def _variant(base, opset, is_script):
    return type(f"TestONNXRuntime_opset{opset}_{'script' if is_script else 'trace'}", (base,),
                {"opset_version": opset, "is_script": is_script,
                 "keep_initializers_as_inputs": True})


def _test_names(base):
    return sorted(n for n in dir(base) if n.startswith("test_") and callable(getattr(base, n)))


def _run_one(cls, name):
    """Runs one test method; the row."""
    test = cls(name)
    result = unittest.TestResult()
    t0 = time.time()
    test.run(result)
    row = {"test": name, "opset": cls.opset_version, "seconds": round(time.time() - t0, 2)}
    calls = getattr(test, "calls", [])
    row["calls"] = [c.as_dict() for c in calls]
    if result.skipped:
        row["status"] = "skipped"
        row["reason"] = result.skipped[0][1]
        return row
    problem = (result.errors or result.failures or [(None, None)])[0][1]
    row["status"] = "passed" if problem is None else "raised"
    if problem is not None:
        row["exception"] = problem.strip().splitlines()[-1][:300]
    return row


def worker_main(suite_dir, opset, names, out_path):
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory(prefix="ptsuite-") as tmp:
        base = _load_suite(suite_dir, tmp)
        cls = _variant(base, opset, False)
        with open(out_path, "a") as out:
            for name in names:
                out.write(json.dumps({"start": name}) + "\n")
                out.flush()
                try:
                    row = _run_one(cls, name)
                except Exception as e:   # noqa: BLE001
                    row = {"test": name, "opset": opset, "status": "harness", "exception": _first_line(e),
                           "calls": []}
                out.write(json.dumps(row) + "\n")
                out.flush()
                if any(c["torch"] for c in row["calls"]):
                    # torch 1.13 keeps state after a failed export (later
                    # exports fail with pybind11's "Unable to cast from
                    # non-held to held instance"): a fresh worker goes on
                    return


# ---------------------------------------------------------------------------
# Classification and the report
# ---------------------------------------------------------------------------


def classify(row):
    """Adds the row's columns: torch (ok/error/expected-error), symonnx
    (exported/refused), match (yes/no/-), scripted, kind of failure."""
    calls = row.get("calls", [])
    row["scripted"] = any(c["scripted"] for c in calls)
    if row["status"] == "skipped":
        row["outcome"] = "skipped"
        return row
    if row["status"] == "passed" and not calls:
        row["outcome"] = "no-export"   # the test checks tracing only
        return row
    if row["status"] in ("harness", "crash", "timeout") or not calls:
        row["outcome"] = "harness"
        row["message"] = row.get("exception") or row["status"]
        return row
    torch_err = [c["torch"] for c in calls if c["torch"]]
    # a test that passes although torch raised expected that error (assertRaises)
    row["torch"] = "ok" if not torch_err else ("expected-error" if row["status"] == "passed" else "error")
    # a call both exporters refuse (the test expects torch's error) counts
    # against neither
    own = [c for c in calls if not (c["torch"] and c["symonnx"])]
    refused = [c["symonnx"] for c in own if c["symonnx"]]
    run_err = [c["run_error"] for c in own if c["run_error"]]
    mism = [c["mismatch"] for c in own if c["mismatch"]]
    row["symonnx"] = "exported" if not refused else "refused"
    if not own:
        row["outcome"], row["message"] = "both-refuse", calls[0]["symonnx"]
        return row
    row["max_abs"] = max((c["max_abs"] for c in calls), default=0.0)
    # a wrong result in any call is the row's outcome, whatever the other
    # calls did (a refusal must not hide it)
    if mism:
        row["outcome"], row["message"] = "wrong", mism[0]
    elif refused:
        row["outcome"], row["message"] = "refused", refused[0]
    elif run_err:
        row["outcome"], row["message"] = "run-error", run_err[0]
    else:
        row["outcome"], row["message"] = "match", None
    ort = [c.get("ort") for c in own if c.get("ort")]
    if ort:
        # ONNX Runtime on symonnx's file: "match" when every input set matched
        row["ort"] = next((o for o in ort if o != "match"), "match")
    return row


def _group_key(msg):
    """The first message line with numbers and quoted names generalised."""
    msg = re.sub(r"'[^']*'", "'…'", msg or "")
    msg = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", msg)
    return msg[:160]


def report(rows, out):
    by_opset = collections.defaultdict(list)
    for r in rows:
        by_opset[r["opset"]].append(r)
    for opset, rs in sorted(by_opset.items()):
        run = [r for r in rs if r["outcome"] != "skipped"]
        print(f"\n== opset {opset}: {len(rs)} traced test methods, {len(rs) - len(run)} skipped at this opset, "
              f"{len(run)} run", file=out)
        print(f"{'':<34} {'traced':>8} {'scripted':>9} {'all':>6}", file=out)
        for label, pred in (
                ("tests run", lambda r: True),
                ("torch exports (all calls)", lambda r: r.get("torch") in ("ok", "expected-error")),
                ("symonnx exports (all its calls)", lambda r: r.get("symonnx") == "exported"),
                ("symonnx matches PyTorch", lambda r: r["outcome"] == "match"),
                ("  of those torch exports", lambda r: r["outcome"] == "match" and r.get("torch") == "ok"),
                ("WRONG RESULTS (ran, differs)", lambda r: r["outcome"] == "wrong"),
                ("exported, executor refused", lambda r: r["outcome"] == "run-error"),
                ("symonnx refused", lambda r: r["outcome"] == "refused"),
                ("harness error/crash/timeout", lambda r: r["outcome"] == "harness"),
                ("test exports nothing", lambda r: r["outcome"] == "no-export"),
                ("both refuse (torch's error expected)", lambda r: r["outcome"] == "both-refuse")):
            t = sum(1 for r in run if not r["scripted"] and pred(r))
            s = sum(1 for r in run if r["scripted"] and pred(r))
            print(f"{label:<34} {t:>8} {s:>9} {t + s:>6}", file=out)
        if any("ort" in r for r in run):
            for label, pred in (
                    ("ORT on symonnx's file matches too", lambda r: r["outcome"] == "match" and r.get("ort") == "match"),
                    ("  of those torch exports", lambda r: r["outcome"] == "match" and r.get("ort") == "match"
                     and r.get("torch") == "ok"),
                    ("ORT differs from PyTorch", lambda r: r.get("ort", "").startswith("differs")),
                    ("ORT refuses symonnx's file", lambda r: r.get("ort", "").startswith("error"))):
                t = sum(1 for r in run if not r["scripted"] and pred(r))
                s = sum(1 for r in run if r["scripted"] and pred(r))
                print(f"{label:<34} {t:>8} {s:>9} {t + s:>6}", file=out)
            sel = [r for r in run if r.get("ort", "match") != "match"]
            groups = collections.defaultdict(list)
            for r in sel:
                groups[_group_key(r["ort"])].append(r)
            if sel:
                print(f"\n-- ONNX Runtime on symonnx's file at opset {opset}, where it does not match ({len(sel)} tests)",
                      file=out)
            for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                names = ", ".join(m["test"] + (" (scripted)" if m["scripted"] else "") for m in members[:6]) + \
                    (" ..." if len(members) > 6 else "")
                print(f"{len(members):>4}  {key}\n        {names}", file=out)
        for outcome, title in (("wrong", "wrong results"), ("run-error", "exported but not run"),
                               ("refused", "refusals"), ("harness", "harness errors")):
            sel = [r for r in run if r["outcome"] == outcome]
            if not sel:
                continue
            groups = collections.defaultdict(list)
            for r in sel:
                groups[_group_key(r["message"])].append(r)
            print(f"\n-- {title} at opset {opset}, by first message line ({len(sel)} tests)", file=out)
            for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                names = ", ".join(m["test"] for m in members[:4]) + (" ..." if len(members) > 4 else "")
                print(f"{len(members):>4}  {key}\n        {names}", file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite_dir", help="folder with test_pytorch_onnx_onnxruntime.py and model_defs/")
    ap.add_argument("--opsets", default="13", help="comma-separated opsets (default 13)")
    ap.add_argument("--filter", help="only test methods whose name matches this regular expression")
    ap.add_argument("--json", help="write every row here")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a test may take (default 300)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--ort", metavar="NODE_MODULES",
                    help="also run each symonnx file in ONNX Runtime (onnxruntime-node installed there, "
                         "tests/e2e/install-ort.sh) and compare with PyTorch")
    ap.add_argument("--worker", nargs=3, metavar=("OPSET", "NAMES", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    suite_dir = os.path.abspath(a.suite_dir)
    if not os.path.isfile(os.path.join(suite_dir, SUITE_FILE)):
        ap.error(f"{suite_dir}: no {SUITE_FILE} there (see bench/README.md for how to get it)")
    if a.worker:
        with open(a.worker[1]) as f:
            names = f.read().split()
        worker_main(suite_dir, int(a.worker[0]), names, a.worker[2])
        return
    os.environ.setdefault("SYMONNX_LIBRARY", os.path.join(ROOT, "build", "libsymonnx.so.0"))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(ROOT, "python")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    if not os.path.exists(os.environ["SYMONNX_LIBRARY"]):
        ap.error(f"{os.environ['SYMONNX_LIBRARY']}: not found (build first, or set SYMONNX_LIBRARY)")
    if a.ort:
        if not os.path.isdir(os.path.join(a.ort, "onnxruntime-node")):
            ap.error(f"{a.ort}: no onnxruntime-node there (tests/e2e/install-ort.sh DIR installs it)")
        os.environ["PTSUITE_ORT"] = os.path.abspath(a.ort)
    opsets = [int(o) for o in a.opsets.split(",")]
    # the test names (and the scripted variant's count) from a listing run
    listing = subprocess.run([sys.executable, "-c", _LISTING, suite_dir, __file__, a.opsets],
                             capture_output=True, text=True)
    if listing.returncode != 0:
        sys.exit("loading the suite failed:\n" + listing.stderr[-3000:])
    lines = listing.stdout.splitlines()
    names = [n for n in lines if n.startswith("test_")]
    scripted = {int(line.split()[1]): int(line.split()[2]) for line in lines if line.startswith("#script")}
    if a.filter:
        names = [n for n in names if re.search(a.filter, n)]
    rows = []
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="ptsuite-run-") as tmp:
        for opset in opsets:
            rows += _drive(suite_dir, opset, names, tmp, a.timeout, a.jobs)
    for r in rows:
        classify(r)
    print(f"PyTorch ONNX suite through symonnx: {len(names)} test methods, opsets {a.opsets}, "
          f"{time.time() - t0:.0f} s")
    report(rows, sys.stdout)
    for opset, n in sorted(scripted.items()):
        print(f"\nscripted variant (is_script=True) at opset {opset}: {n} test methods not skipped by "
              "their decorators; not run (torch.jit.script models of the traced variant are the "
              "'scripted' column above)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


# Lists the traced test methods (one per line); run in a fresh interpreter.
_LISTING = r"""
import sys, tempfile, importlib.util, warnings
warnings.simplefilter("ignore")
spec = importlib.util.spec_from_file_location("harness", sys.argv[2])
h = importlib.util.module_from_spec(spec); spec.loader.exec_module(h)
with tempfile.TemporaryDirectory() as tmp:
    base = h._load_suite(sys.argv[1], tmp)
    print("\n".join(h._test_names(base)))
    for opset in [int(o) for o in sys.argv[3].split(",")]:
        v = h._variant(base, opset, True)
        n = sum(1 for t in h._test_names(base)
                if not any(p(v) for p in getattr(getattr(base, t), "_skip_preds", [])))
        print("#script", opset, n)
"""


def _drive(suite_dir, opset, names, tmp, timeout, jobs):
    """Runs `names` in worker processes; restarts a worker after a crash or
    a timeout (the test in flight gets a crash/timeout row)."""
    chunks = [names[i::jobs] for i in range(jobs)]
    workers = []
    for j, chunk in enumerate(chunks):
        workers.append({"todo": list(chunk), "out": os.path.join(tmp, f"rows-{opset}-{j}.jsonl"),
                        "proc": None, "rows": [], "started": None, "current": None, "read": 0})
    while any(w["todo"] or w["proc"] for w in workers):
        for j, w in enumerate(workers):
            if w["proc"] is None and w["todo"]:
                lst = os.path.join(tmp, f"names-{opset}-{j}.txt")
                with open(lst, "w") as f:
                    f.write("\n".join(w["todo"]))
                w["proc"] = subprocess.Popen([sys.executable, os.path.abspath(__file__), suite_dir,
                                              "--worker", str(opset), lst, w["out"]],
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if w["proc"] is None:
                continue
            _collect(w, opset)
            if w["current"] and time.time() - w["started"] > timeout:
                w["proc"].kill()
                w["proc"].wait()
                _finish_inflight(w, opset, "timeout")
                w["proc"] = None
            elif w["proc"].poll() is not None:
                _collect(w, opset)
                if w["current"]:
                    _finish_inflight(w, opset, f"crash (exit {w['proc'].returncode})")
                w["proc"] = None
        time.sleep(0.2)
    return [r for w in workers for r in w["rows"]]


def _collect(w, opset):
    if not os.path.exists(w["out"]):
        return
    with open(w["out"]) as f:
        f.seek(w["read"])
        while True:
            pos = f.tell()
            line = f.readline()
            if not line.endswith("\n"):
                f.seek(pos)
                break
            rec = json.loads(line)
            if "start" in rec:
                w["current"], w["started"] = rec["start"], time.time()
            else:
                w["rows"].append(rec)
                if rec["test"] in w["todo"]:
                    w["todo"].remove(rec["test"])
                w["current"] = None
                print(f"  {rec['test']}: {rec['status']} ({rec.get('seconds', 0)} s)", file=sys.stderr, flush=True)
        w["read"] = f.tell()


def _finish_inflight(w, opset, status):
    name = w["current"]
    w["rows"].append({"test": name, "opset": opset, "status": status.split()[0], "exception": status,
                      "calls": []})
    if name in w["todo"]:
        w["todo"].remove(name)
    w["current"] = None
    print(f"  {name}: {status}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
