/* Opset 9: torch 1.13's no-ops on real tensors, aliases and multi-output
 * forms of existing symbolics (issue 12): _conj, conj_physical,
 * resolve_conj/neg, lift, numpy_T, _reshape_from_tensor, _log_softmax,
 * tensor/as_tensor, _cast_Bool, native_layer_norm, _weight_norm, is_pinned.  Each
 * does what torch's symbolic_opset9.py does, node for node. */
#include "symbolic/opset-tables.h"

#define G sym_graph (ctx)

static gboolean
is_complex (GraphValue *v)
{
  GraphDType dt = sym_dtype (v);
  return dt == GRAPH_DTYPE_COMPLEX64 || dt == GRAPH_DTYPE_COMPLEX128;
}

/* aten::resolve_conj/resolve_neg/lift(self): self (torch returns its
 * input: no node). */
static gboolean
sym_passthrough (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return sym_parse_args (ctx, n, "v", &out[0], error);
}

/* aten::_conj/conj_physical(self): self on real tensors; ONNX has no
 * complex arithmetic, so a complex input is refused (as torch). */
static gboolean
sym_conj_real (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  if (graph_node_n_inputs (n) > 0 && is_complex (graph_node_input (n, 0)))
    /* torch 1.13: also refuses (_onnx_unsupported for complex inputs of conj) */
    return sym_unimplemented (ctx, n, error, "the conjugate of a complex tensor (ONNX has no complex "
                              "arithmetic)");
  return sym_passthrough (ctx, n, out, error);
}

/* aten::numpy_T(self): Transpose with the dims reversed. */
static gboolean
sym_numpy_t (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  int r = sym_rank (self);
  if (r < 0)
    /* torch 1.13: also refuses (numpy_T asserts the rank is known) */
    return sym_unimplemented (ctx, n, error, "numpy_T of an input of unknown rank");
  gint64 perm[TENSOR_MAX_RANK];
  for (int i = 0; i < r; i++)
    perm[i] = r - 1 - i;
  out[0] = graph_op (G, "Transpose", self, "perm_is", r, perm, NULL);
  return TRUE;
}

/* aten::_reshape_from_tensor(self, shape): Reshape to a 1-D shape tensor
 * (a list of them is concatenated, as torch). */
static gboolean
sym_reshape_from_tensor (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *shape;
  if (!sym_parse_args (ctx, n, "vv", &self, &shape, error))
    return FALSE;
  if (shape == NULL)
    /* torch 1.13: also refuses (its schema takes a shape tensor; None has no ONNX value) */
    return sym_unimplemented (ctx, n, error, "a None shape");
  out[0] = sym_reshape (ctx, self, shape);
  return TRUE;
}

/* aten::_log_softmax(self, dim, half_to_float): log_softmax in its opset-9
 * form at every opset (torch registers it at 9 only), a float16 input cast
 * to float first when half_to_float. */
static gboolean
sym_underscore_log_softmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  gboolean half_to_float;
  if (!sym_parse_args (ctx, n, "vdb", &self, &dim, &half_to_float, error))
    return FALSE;
  if (sym_rank (self) < 0)
    /* torch 1.13: also refuses (log_softmax: "Input rank must be known at export time") */
    return sym_unimplemented (ctx, n, error, "_log_softmax on an input of unknown rank");
  if (half_to_float && sym_dtype (self) == GRAPH_DTYPE_FLOAT16)
    self = sym_cast (ctx, self, GRAPH_DTYPE_FLOAT);
  out[0] = sym_softmax_values (ctx, self, dim, "LogSoftmax", TRUE);
  return TRUE;
}

/* aten::tensor/as_tensor(data, dtype, device, requires_grad): a Cast of a
 * tensor to dtype (its own when None); a list of 0-d tensors is reshaped
 * to [1] each, cast and concatenated, as torch; a list of lists stacked. */
/* torch.tensor's element type without a dtype: the one the trace declares
 * for the result, else PyTorch's rule for its data: a Python float is the
 * default dtype (the value itself is lowered as a double), an int
 * int64, a bool bool, a tensor its own type.  (torch's symbolic takes the
 * lowered element's type: float64 where PyTorch gives float32.) */
static GraphDType
data_dtype (SymContext *ctx, GraphNode *n, GraphType *elem, GraphValue *lowered)
{
  GraphType *rt = graph_value_type (graph_node_output (n, 0));
  if (rt && graph_type_is_tensor (rt) && graph_type_dtype (rt) != GRAPH_DTYPE_UNDEFINED)
    return graph_type_dtype (rt);
  while (elem && graph_type_kind (elem) == GRAPH_TYPE_LIST)   /* a row's elements */
    elem = graph_type_elem (elem, 0);
  if (elem && graph_type_kind (elem) == GRAPH_TYPE_FLOAT)
    return sym_default_dtype (ctx);
  return sym_dtype (lowered);
}

static gboolean
sym_tensor (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  if (graph_node_n_inputs (n) < 1)
    /* torch 1.13: also refuses (aten::tensor without data is a malformed node) */
    return sym_unimplemented (ctx, n, error, "no data argument");
  GraphValue *data = graph_node_input (n, 0);
  GraphValue *dtv = graph_node_n_inputs (n) > 1 ? graph_node_input (n, 1) : NULL;
  GraphType *t = graph_value_type (data);
  if (t && graph_type_kind (t) == GRAPH_TYPE_LIST)
    {
      g_autoptr (GPtrArray) items = sym_list_values (ctx, data, error);
      if (items == NULL)
        return FALSE;
      if (items->len == 0)
        /* torch 1.13: also refuses (it reads the empty list's first element, or writes a Concat of
         * nothing) */
        return sym_unimplemented (ctx, n, error, "an empty list");
      GraphDType dt = sym_scalar_type (dtv, data_dtype (ctx, n, graph_type_elem (t, 0), items->pdata[0]));
      if (dt == GRAPH_DTYPE_UNDEFINED)
        /* torch 1.13: also refuses (it reads the first element's scalar type, which fails when
         * unknown) */
        return sym_unimplemented (ctx, n, error, "a list of elements of unknown type");
      /* a list of lists (torch.tensor([[0, 1], [1, 0]]) in scripted code):
       * its rows stacked, where torch 1.13 reshapes each row to one element
       * (a Reshape that fails) */
      GraphType *et = graph_type_elem (t, 0);
      gboolean rows = et && graph_type_kind (et) == GRAPH_TYPE_LIST;
      if (rows && graph_type_elem (et, 0) && graph_type_kind (graph_type_elem (et, 0)) == GRAPH_TYPE_LIST)
        /* torch 1.13: also refuses (each element reshaped to one value fails) */
        return sym_unimplemented (ctx, n, error, "a list nested more than two deep");
      static const gint64 one[] = { 1 }, zero = 0;
      g_autofree GraphValue **parts = g_new (GraphValue *, items->len);
      for (guint i = 0; i < items->len; i++)
        parts[i] = graph_op (G, "Cast", rows ? sym_unsqueeze (ctx, items->pdata[i], 1, &zero)
                                             : sym_reshape_static (ctx, items->pdata[i], 1, one),
                             "to_i", (gint64) dt, NULL);
      out[0] = graph_opv (G, "Concat", items->len, parts, "axis_i", (gint64) 0, NULL);
      return out[0] != NULL;
    }
  GraphValue *v;
  if (!sym_parse_args (ctx, n, "v", &v, error))
    return FALSE;
  GraphDType dt = sym_scalar_type (dtv, data_dtype (ctx, n, t, v));
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: also refuses (the data's scalar type is needed for its Cast) */
    return sym_unimplemented (ctx, n, error, "data of unknown type");
  out[0] = graph_op (G, "Cast", v, "to_i", (gint64) dt, NULL);
  return TRUE;
}

/* aten::native_layer_norm(input, normalized_shape, weight, bias, eps):
 * layer_norm's opset-9 form at every opset (torch has no later one), and
 * the mean and 1/sqrt(var + eps) as its second and third outputs. */
static gboolean
sym_native_layer_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *weight, *bias;
  gsize ns;
  double eps;
  if (!sym_parse_layer_norm (ctx, n, &input, &ns, &weight, &bias, &eps, error))
    return FALSE;
  GraphValue *mean, *den;
  out[0] = sym_layer_norm_values (ctx, input, ns, weight, bias, eps, &mean, &den);
  if (graph_node_n_outputs (n) > 1)
    out[1] = mean;
  if (graph_node_n_outputs (n) > 2)
    out[2] = graph_op (G, "Reciprocal", den, NULL);
  return TRUE;
}

/* aten::_weight_norm(v, g, dim): g * v / ||v||, the L2 norm over every dim
 * but dim (over all of them for dim -1, as torch's weight_norm module
 * passes for dim=None), kept. */
static gboolean
sym_weight_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *v, *g;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vvi", &v, &g, &dim, error))
    return FALSE;
  int r = sym_rank (v);
  if (r < 0)
    /* torch 1.13: also refuses ("Unsupported: ONNX export of _weight_norm for tensor of unknown
     * rank") */
    return sym_unimplemented (ctx, n, error, "_weight_norm of a weight of unknown rank");
  if (dim < -1)
    dim += r;
  if (dim < -1 || dim >= r)
    /* torch 1.13: also refuses (PyTorch rejects a dim outside the weight's rank) */
    return sym_unimplemented (ctx, n, error, "dim %" G_GINT64_FORMAT " of a rank-%d weight", dim, r);
  gint64 axes[TENSOR_MAX_RANK];
  gsize na = 0;
  for (int i = 0; i < r; i++)
    if (i != dim)
      axes[na++] = i;
  GraphValue *norm = sym_reduce (ctx, "ReduceL2", v, na, axes, TRUE);
  out[0] = graph_op (G, "Mul", graph_op (G, "Div", v, norm, NULL), g, NULL);
  return TRUE;
}

/* `x[idx] = v` traces as v.view(...).expand(<the slice's traced sizes>)
 * then copy_ (PyTorch's setitem broadcasts v itself): where the slice's
 * size is known only at run time (dynamic axes), the expand to the traced
 * sizes would not fit another size, and copy_ broadcasts v anyway.  The
 * expand's input, translated, when src_src is such an expand of self_src's
 * traced sizes and self's size is not static here; else NULL (and no
 * error).  PyTorch's suite, test_dynamic_expand_as. */
static GraphValue *
traced_broadcast (SymContext *ctx, GraphValue *self_src, GraphValue *src_src, GError **error)
{
  GraphNode *e = src_src ? graph_value_node (src_src) : NULL;
  if (e == NULL || !graph_node_is (e, "aten::expand") || graph_node_n_inputs (e) < 2)
    return NULL;
  GraphType *t = graph_value_type (self_src);
  int r = t && graph_type_is_tensor (t) ? graph_type_rank (t) : -1;
  g_autoptr (GArray) sizes = sym_get_const_ints (graph_node_input (e, 1));
  if (r < 0 || sizes == NULL || sizes->len != (guint) r)
    return NULL;
  gint64 now[TENSOR_MAX_RANK];
  gboolean dynamic = sym_static_dims (self_src, now) != r;
  for (int i = 0; i < r; i++)
    {
      const GraphDim *d = graph_type_dim (t, (guint) i);
      if (d->kind != GRAPH_DIM_STATIC || d->value != g_array_index (sizes, gint64, i))
        return NULL;
      dynamic = dynamic || now[i] < 0;
    }
  return dynamic ? sym_value (ctx, graph_node_input (e, 0), error) : NULL;
}

/* aten::copy(self, src, non_blocking) (the functional form of copy_, which
 * resolves to it): src cast to self's type and expanded to self's shape.
 * Used in place on a slice (m[a:b] = t), view-mutation.c scatters it back
 * into the base. */
static gboolean
sym_copy (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *src;
  if (!sym_parse_args (ctx, n, "vv", &self, &src, error))
    return FALSE;
  /* the trace's type, else the translated value's (scripted code declares none) */
  GraphDType dt = sym_dtype (graph_node_input (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED)
    dt = sym_dtype (self);
  if (dt == GRAPH_DTYPE_UNDEFINED || src == NULL)
    /* torch 1.13: also refuses (no symbolic for aten::copy) */
    return sym_unimplemented (ctx, n, error, "copy_ into a tensor of unknown type");
  GraphValue *src_src = graph_node_input (n, 1);
  GraphValue *pre = traced_broadcast (ctx, graph_node_input (n, 0), src_src, error);
  if (pre == NULL && error && *error)
    return FALSE;
  if (pre)
    {
      src = pre;
      src_src = graph_node_input (graph_value_node (src_src), 0);
    }
  GraphDType sdt = sym_dtype (src_src);
  if ((sdt != GRAPH_DTYPE_UNDEFINED ? sdt : sym_dtype (src)) != dt)
    src = sym_cast (ctx, src, dt);
  out[0] = graph_op (G, "Expand", src, sym_size (ctx, self, G_MININT64), NULL);
  return TRUE;
}

/* aten::zero(self) (zero_): zeros of self's shape and type, a constant when
 * the shape is static. */
static gboolean
sym_zero (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphDType dt = sym_dtype (graph_node_input (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED)
    dt = sym_dtype (self);   /* scripted code: the translated value's */
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: also refuses (no symbolic for aten::zero) */
    return sym_unimplemented (ctx, n, error, "zero_ of a tensor of unknown type");
  out[0] = sym_filled_like (ctx, graph_node_input (n, 0), self, dt, 0.0);
  return TRUE;
}

/* aten::is_pinned(self, device=None) → bool (scripted code: a trace
 * never records a bool result): whether self sits in page-locked host
 * memory.  torch 1.13's symbolic returns None — nothing — which is right
 * while nothing reads the result. */
static gboolean
sym_is_pinned (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *res = graph_node_n_outputs (n) > 0 ? graph_node_output (n, 0) : NULL;
  if (res == NULL || (graph_value_n_uses (res) == 0 && !graph_value_is_graph_output (res)))
    {
      if (res)
        out[0] = NULL;
      return TRUE;
    }
  /* torch 1.13: returns None, and a node reading it fails; refused here because where a tensor's
   * memory lives is not a value an ONNX model computes */
  return sym_unimplemented (ctx, n, error, "a use of is_pinned's result (where a tensor's memory "
                            "lives is not part of an ONNX model)");
}

static const SymEntry entries[] = {
  SYM_FN ("aten::is_pinned", sym_is_pinned),
  SYM_FN ("prim::If", sym_lower_if),   /* scripted code in traces: control-flow.c */
  SYM_FN ("prim::Loop", sym_lower_loop),
  SYM_FN ("prim::RaiseException", sym_lower_raise),
  SYM_FN ("aten::copy", sym_copy),
  SYM_FN ("aten::zero", sym_zero),
  SYM_FN ("aten::resolve_conj", sym_passthrough),
  SYM_FN ("aten::resolve_neg", sym_passthrough),
  SYM_FN ("aten::lift", sym_passthrough),
  SYM_FN ("aten::_conj", sym_conj_real),
  SYM_FN ("aten::conj_physical", sym_conj_real),
  SYM_FN ("aten::numpy_T", sym_numpy_t),
  SYM_FN ("aten::_reshape_from_tensor", sym_reshape_from_tensor),
  SYM_FN ("aten::_log_softmax", sym_underscore_log_softmax),
  SYM_FN ("aten::tensor", sym_tensor),
  SYM_FN ("aten::as_tensor", sym_tensor),
  SYM_CAST ("aten::_cast_Bool", BOOL),
  SYM_CAST ("aten::Bool", BOOL),   /* bool(tensor) in scripted code: a 0-d bool */
  SYM_FN ("aten::native_layer_norm", sym_native_layer_norm),
  SYM_FN ("aten::_weight_norm", sym_weight_norm),
  /* not in torch 1.13's registry: traces of x.swapaxes/swapdims record them */
  SYM_FN ("aten::swapaxes", sym_transpose),
  SYM_FN ("aten::swapdims", sym_transpose),
};
const SymTable sym_opset9_aliases = SYM_TABLE (9, entries);
