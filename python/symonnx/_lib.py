"""libsymonnx through ctypes: the few C entry points the package calls.

The library is found through $SYMONNX_LIBRARY, else where `meson install`
put it (_config.py, written at install time), else by the dynamic loader's
own search ("libsymonnx.so.0")."""
import ctypes
import os

try:
    from . import _config
except ImportError:  # the source tree, not installed
    _config = None


class GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


class ExportOptions(ctypes.Structure):
    """Mirrors ExportOptions of export/export.h, field for field."""
    _fields_ = [
        ("opset", ctypes.c_int),
        ("mode", ctypes.c_int),
        ("input_names", ctypes.POINTER(ctypes.c_char_p)),
        ("output_names", ctypes.POINTER(ctypes.c_char_p)),
        ("dynamic_axes", ctypes.c_void_p),
        ("do_constant_folding", ctypes.c_int),
        ("keep_initializers_as_inputs", ctypes.c_int),
        ("export_params", ctypes.c_int),
        ("training", ctypes.c_int),
        ("registry", ctypes.c_void_p),
        ("weights", ctypes.c_void_p),
        ("check", ctypes.c_int),
        ("default_dtype", ctypes.c_int),
        ("float_quantized_add", ctypes.c_int),
    ]


class RtOptions(ctypes.Structure):
    _fields_ = [("_opaque", ctypes.c_char * 256)]   # rt_options_init fills what it has


def _library_path():
    env = os.environ.get("SYMONNX_LIBRARY")
    if env:
        return env
    if _config is not None and os.path.exists(_config.LIBRARY):
        return _config.LIBRARY
    return "libsymonnx.so.0"


def _load():
    lib = ctypes.CDLL(_library_path())
    glib = ctypes.CDLL("libglib-2.0.so.0")
    P, S, I, U, Z = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t
    E = ctypes.POINTER(ctypes.POINTER(GError))

    def fn(library, name, restype, *argtypes):
        f = getattr(library, name)
        f.restype = restype
        f.argtypes = list(argtypes)
        return f

    api = {
        "graph_parse": fn(lib, "graph_parse", P, S, Z, S, E),
        "graph_free": fn(lib, "graph_free", None, P),
        "graph_to_string": fn(lib, "graph_to_string", P, P),
        "graph_n_inputs": fn(lib, "graph_n_inputs", U, P),
        "graph_n_outputs": fn(lib, "graph_n_outputs", U, P),
        "graph_input": fn(lib, "graph_input", P, P, U),
        "graph_output": fn(lib, "graph_output", P, P, U),
        "graph_value_get_name": fn(lib, "graph_value_get_name", S, P),
        "graph_value_get_initializer": fn(lib, "graph_value_get_initializer", P, P),
        "tensor_new_from_data": fn(lib, "tensor_new_from_data", P, I, U,
                                   ctypes.POINTER(ctypes.c_int64), P, Z, E),
        "tensor_unref": fn(lib, "tensor_unref", None, P),
        "tensor_ref": fn(lib, "tensor_ref", P, P),
        "tensor_dtype": fn(lib, "tensor_dtype", I, P),
        "tensor_rank": fn(lib, "tensor_rank", U, P),
        "tensor_dims": fn(lib, "tensor_dims", ctypes.POINTER(ctypes.c_int64), P),
        "tensor_data": fn(lib, "tensor_data", P, P),
        "tensor_nbytes": fn(lib, "tensor_nbytes", Z, P),
        "export_options_init": fn(lib, "export_options_init", None, ctypes.POINTER(ExportOptions)),
        "export_options_clear": fn(lib, "export_options_clear", None, ctypes.POINTER(ExportOptions)),
        "export_options_parse_dynamic_axes": fn(lib, "export_options_parse_dynamic_axes", I,
                                                ctypes.POINTER(ExportOptions), S, E),
        "export_graph_report": fn(lib, "export_graph_report", P, P, ctypes.POINTER(ExportOptions),
                                  ctypes.POINTER(P), E),
        "sym_registry_new": fn(lib, "sym_registry_new", P),
        "sym_registry_unref": fn(lib, "sym_registry_unref", None, P),
        "sym_registry_load_plugin": fn(lib, "sym_registry_load_plugin", I, P, S, E),
        "sym_mode_from_name": fn(lib, "sym_mode_from_name", I, S, ctypes.POINTER(ctypes.c_int)),
        "sym_mode_name": fn(lib, "sym_mode_name", S, I),
        "onnxio_save": fn(lib, "onnxio_save", I, P, S, P, E),
        "onnxio_load": fn(lib, "onnxio_load", P, S, E),
        "rt_options_init": fn(lib, "rt_options_init", None, ctypes.POINTER(RtOptions)),
        "rt_session_new": fn(lib, "rt_session_new", P, P, ctypes.POINTER(RtOptions), E),
        "rt_session_free": fn(lib, "rt_session_free", None, P),
        "rt_session_run": fn(lib, "rt_session_run", I, P, P, P, E),
        "g_hash_table_new_full": fn(glib, "g_hash_table_new_full", P, P, P, P, P),
        "g_hash_table_insert": fn(glib, "g_hash_table_insert", I, P, P, P),
        "g_hash_table_lookup": fn(glib, "g_hash_table_lookup", P, P, P),
        "g_hash_table_unref": fn(glib, "g_hash_table_unref", None, P),
        "g_strdup": fn(glib, "g_strdup", P, S),
        "g_free": fn(glib, "g_free", None, P),
        "g_error_free": fn(glib, "g_error_free", None, ctypes.POINTER(GError)),
        "g_ptr_array_unref": fn(glib, "g_ptr_array_unref", None, P),
    }
    # GHashTable's key/value functions, as C function pointers
    api["g_str_hash"] = ctypes.cast(glib.g_str_hash, P)
    api["g_str_equal"] = ctypes.cast(glib.g_str_equal, P)
    api["g_free_ptr"] = ctypes.cast(glib.g_free, P)
    api["tensor_unref_ptr"] = ctypes.cast(lib.tensor_unref, P)
    return api


_api = None


def api():
    global _api
    if _api is None:
        _api = _load()
    return _api


class SymonnxError(Exception):
    """An error reported by libsymonnx (its GError message)."""


def take_error(err):
    """The GError's message as a SymonnxError (and the GError freed)."""
    msg = err.contents.message.decode("utf-8", "replace") if err else "unknown error"
    if err:
        api()["g_error_free"](err)
    return SymonnxError(msg)


def new_error():
    return ctypes.POINTER(GError)()


def take_string(ptr):
    """A g_malloc'ed C string as str (and freed)."""
    s = ctypes.string_at(ptr).decode("utf-8", "replace")
    api()["g_free"](ptr)
    return s
