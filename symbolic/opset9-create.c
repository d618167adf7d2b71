/* Opset 9 base set: tensor creation.  zeros/ones/full(_like), empty(_like),
 * new_zeros/ones/full/empty, fill, eye, one_hot and arange, with torch's
 * ScalarType codes mapped to ONNX types.  Where torch's constant folding
 * would turn ConstantOfShape of a constant shape into a constant, these
 * write the constant themselves; sym_constant_of_shape and sym_const_filled
 * are shared with opset9-index.c. */
#include "symbolic/opset-tables.h"
#include <math.h>

#define G sym_graph (ctx)

/* A ScalarType argument (a constant code, or prim::dtype) as an element
 * type; dflt when there is none. */
GraphDType
sym_scalar_type (GraphValue *src, GraphDType dflt)
{
  gint64 st;
  GraphDType dt;
  if (src == NULL || !sym_get_const_int (src, &st) || !sym_scalar_type_dtype (st, &dt))
    return dflt;
  return dt;
}

GraphValue *
sym_constant_of_shape (SymContext *ctx, GraphValue *shape, GraphDType dt, double value)
{
  g_autoptr (Tensor) v = NULL;
  gint64 one = 1;
  /* No fill value in these types (complex, undefined): NULL, which the
   * translation reports as the symbolic's failure. */
  if (graph_dtype_size (dt) == 0 || dt == GRAPH_DTYPE_COMPLEX64 || dt == GRAPH_DTYPE_COMPLEX128
      || dt == GRAPH_DTYPE_STRING)
    return NULL;
  /* tensor_new_scalar_double converts totally into every type (a hostile
   * fill value past int64 was cast with C's undefined conversion:
   * trace-export campaign, 2.2M runs on 5ad7eea); fill() refuses what
   * PyTorch rejects before it gets here */
  g_autoptr (Tensor) s = tensor_new_scalar_double (dt, value);
  v = tensor_new_from_data (dt, 1, &one, tensor_data (s), tensor_nbytes (s), NULL);
  return graph_op (sym_graph (ctx), "ConstantOfShape", shape, "value_t", v, NULL);
}

GraphValue *
sym_iota (SymContext *ctx, GraphValue *len)
{
  Graph *g = sym_graph (ctx);
  GraphValue *r;
  if (sym_opset (ctx) >= 11)
    r = graph_op (g, "Range", sym_const_i64 (ctx, 0), len, sym_const_i64 (ctx, 1), NULL);
  else
    {
      /* NonZero of n ones: their positions (1, n), 0 to n - 1 */
      static const gint64 zero = 0;
      GraphValue *shape = sym_unsqueeze (ctx, len, 1, &zero);
      GraphValue *ones = shape ? sym_constant_of_shape (ctx, shape, GRAPH_DTYPE_INT64, 1) : NULL;
      GraphValue *nz = ones ? graph_op (g, "NonZero", ones, NULL) : NULL;
      r = nz ? sym_squeeze (ctx, nz, 1, &zero) : NULL;
    }
  if (r)
    sym_set_type (r, GRAPH_DTYPE_INT64, 1, NULL);
  return r;
}

/* Whether PyTorch fills a tensor of integer type dt with v (it rejects NaN,
 * infinities and values past the type's range: "value cannot be converted
 * to type int64_t without overflow"); TRUE for the other types. */
static gboolean
fill_value_fits (GraphDType dt, double v)
{
  double lo, hi;   /* hi excluded */
  switch (dt)
    {
    case GRAPH_DTYPE_INT8: lo = -128.0; hi = 128.0; break;
    case GRAPH_DTYPE_UINT8: lo = 0.0; hi = 256.0; break;
    case GRAPH_DTYPE_INT16: lo = -32768.0; hi = 32768.0; break;
    case GRAPH_DTYPE_UINT16: lo = 0.0; hi = 65536.0; break;
    case GRAPH_DTYPE_INT32: lo = -2147483648.0; hi = 2147483648.0; break;
    case GRAPH_DTYPE_UINT32: lo = 0.0; hi = 4294967296.0; break;
    case GRAPH_DTYPE_INT64: lo = -9223372036854775808.0; hi = 9223372036854775808.0; break;
    case GRAPH_DTYPE_UINT64: lo = 0.0; hi = 18446744073709551616.0; break;
    default: return TRUE;
    }
  return isfinite (v) && trunc (v) >= lo && trunc (v) < hi;
}

/* aten::zeros/ones(size, dtype, layout, device, pin_memory) and
 * full(size, fill_value, dtype, ...) */
typedef struct
{
  double   value;     /* zeros/ones: the fill value */
  gboolean is_full;   /* full: the value is an argument */
  gboolean like;      /* *_like: shape and dtype from the first argument */
} FillSpec;

static const FillSpec fill_zeros = { 0.0, FALSE, FALSE }, fill_ones = { 1.0, FALSE, FALSE },
                      fill_full = { 0.0, TRUE, FALSE }, fill_zeros_like = { 0.0, FALSE, TRUE },
                      fill_ones_like = { 1.0, FALSE, TRUE }, fill_full_like = { 0.0, TRUE, TRUE },
                      new_zeros = { 0.0, FALSE, FALSE }, new_ones = { 1.0, FALSE, FALSE },
                      new_full = { 0.0, TRUE, FALSE };

/* The body of aten::zeros/ones/full(_like): sym_user_data is a FillSpec. */
static gboolean
fill (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const FillSpec *spec = sym_user_data (ctx);
  double value = spec->value;
  gboolean is_full = spec->is_full, like = spec->like;
  GraphValue *first;
  double v = value;
  if (!sym_parse_args (ctx, n, "v", &first, error))
    return FALSE;
  GraphValue *fill_src = is_full && graph_node_n_inputs (n) > 1 ? graph_node_input (n, 1) : NULL;
  gboolean computed = is_full && !sym_get_const_double (fill_src, &v);
  guint dt_index = is_full ? 2 : 1;
  /* The element type: the trace's; else the dtype argument; else self's
   * (*_like); else PyTorch's rule for the fill value: an int fills int64, a
   * bool bool, a float the default dtype. */
  GraphDType dflt = like ? sym_dtype (first) : sym_default_dtype (ctx);
  GraphType *ft = fill_src ? graph_value_type (fill_src) : NULL;
  if (!like && ft && graph_type_kind (ft) == GRAPH_TYPE_INT)
    dflt = GRAPH_DTYPE_INT64;
  else if (!like && ft && graph_type_kind (ft) == GRAPH_TYPE_BOOL)
    dflt = GRAPH_DTYPE_BOOL;
  else if (!like && computed)
    dflt = GRAPH_DTYPE_UNDEFINED;   /* a Scalar of a tensor: its type is not the trace's to say */
  GraphDType dt = sym_dtype (graph_node_output (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED)
    dt = sym_scalar_type (dt_index < graph_node_n_inputs (n) ? graph_node_input (n, dt_index) : NULL,
                          dflt);
  GraphValue *shape = like ? sym_size (ctx, first, G_MININT64) : first;
  if (!computed && !fill_value_fits (dt, v))
    /* torch 1.13: also refuses (torch.tensor of the value in that type raises, as PyTorch's full does) */
    return sym_unimplemented (ctx, n, error, "a fill value %g that %s cannot hold", v, graph_dtype_name (dt));
  if (!computed)
    {
      out[0] = sym_constant_of_shape (ctx, shape, dt, v);
      return TRUE;
    }
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: fills float32 when it has no dtype; refused here because PyTorch takes the fill
     * value's type, which is not known */
    return sym_unimplemented (ctx, n, error, "full with a computed fill value of unknown type and "
                              "no dtype");
  /* A fill value known only at run time: torch writes zeros + value; the
   * value cast and expanded to the shape is the same, and exact for -0.0. */
  GraphValue *fv = sym_value (ctx, fill_src, error);
  if (fv == NULL)
    return FALSE;
  if (sym_rank (fv) != 0)
    /* torch 1.13: also refuses (a fill value is a Scalar; PyTorch takes only a 0-d tensor) */
    return sym_unimplemented (ctx, n, error, "a fill value that is not a scalar");
  if (sym_dtype (fv) != dt)
    fv = sym_cast (ctx, fv, dt);
  out[0] = graph_op (G, "Expand", fv, shape, NULL);
  return TRUE;
}

/* One bound of a computed arange as a 0-d value of `dt`: input i (a
 * constant, or a computed scalar such as x.size(1)), or `dflt` when i is
 * G_MAXUINT. */
static GraphValue *
arange_bound (SymContext *ctx, GraphNode *n, guint i, double dflt, GraphDType dt, GError **error)
{
  double c = dflt;
  if (i == G_MAXUINT || sym_get_const_double (graph_node_input (n, i), &c))
    return sym_const_scalar (ctx, dt, c);
  GError *local = NULL;
  GraphValue *v = sym_value (ctx, graph_node_input (n, i), &local);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (v == NULL || sym_rank (v) != 0)
    {
      /* torch 1.13: also refuses (PyTorch's arange takes scalar bounds only) */
      sym_unimplemented (ctx, n, error, "arange with a bound that is not a scalar");
      return NULL;
    }
  return sym_dtype (v) == dt ? v : sym_cast (ctx, v, dt);
}

/* Where aten::arange's bounds are (G_MAXUINT: absent, the default), by its
 * input count: (end, dtype, layout, device, pin) 5, (start, end, dtype, ...)
 * 6, (start, end, step, dtype, ...) 7, and the out= forms torch's symbolic
 * also takes, (end, out) 2 and (start, end, step, out) 4.  FALSE for other
 * counts. */
static gboolean
arange_layout (GraphNode *n, guint *start, guint *end, guint *step)
{
  guint nin = graph_node_n_inputs (n);
  *start = nin == 5 || nin == 2 ? G_MAXUINT : 0;
  *end = nin == 5 || nin == 2 ? 0 : 1;
  *step = nin == 7 || nin == 4 ? 2 : G_MAXUINT;
  return nin == 2 || (nin >= 4 && nin <= 7);
}

/* Whether a bound is a floating-point number (TRUE), an integer (FALSE),
 * or of a type the trace does not say (-1). */
static int
arange_float_bound (SymContext *ctx, GraphNode *n, guint i)
{
  if (i == G_MAXUINT)
    return FALSE;
  GraphValue *v = graph_node_input (n, i);
  GraphType *t = graph_value_type (v);
  GraphTypeKind k = t ? graph_type_kind (t) : GRAPH_TYPE_NUMBER;
  if (k == GRAPH_TYPE_FLOAT)
    return TRUE;
  if (k == GRAPH_TYPE_INT || k == GRAPH_TYPE_BOOL)
    return FALSE;
  if (k != GRAPH_TYPE_TENSOR && k != GRAPH_TYPE_NUMBER)
    return -1;
  GraphDType dt = k == GRAPH_TYPE_TENSOR ? graph_type_dtype (t) : GRAPH_DTYPE_UNDEFINED;
  if (dt == GRAPH_DTYPE_UNDEFINED)
    {
      /* a Scalar (ScalarImplicit of a 0-d tensor) or a tensor scripted code
       * does not type: the type of its translation */
      GError *local = NULL;
      GraphValue *d = sym_value (ctx, v, &local);
      g_clear_error (&local);
      dt = d ? sym_dtype (d) : GRAPH_DTYPE_UNDEFINED;
    }
  return dt == GRAPH_DTYPE_UNDEFINED ? -1 : graph_dtype_is_floating (dt);
}

/* The result's element type: the trace's; else the out= tensor's (PyTorch
 * writes into its type; torch's symbolic takes int64 or the default float
 * type from the bounds instead); else the dtype argument; else PyTorch's
 * rule, the default dtype when a bound is a floating-point number
 * and int64 otherwise (scripted code declares no result type).  UNDEFINED
 * when a bound's type is unknown. */
static GraphDType
arange_dtype (SymContext *ctx, GraphNode *n)
{
  guint nin = graph_node_n_inputs (n);
  GraphDType dt = sym_dtype (graph_node_output (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED && (nin == 2 || nin == 4))
    dt = sym_dtype (graph_node_input (n, nin - 1));
  if (dt != GRAPH_DTYPE_UNDEFINED)
    return dt;
  if (nin >= 5 && !sym_is_none (graph_node_input (n, nin - 4)))   /* a computed dtype: UNDEFINED */
    return sym_scalar_type (graph_node_input (n, nin - 4), GRAPH_DTYPE_UNDEFINED);
  guint b[3];
  arange_layout (n, &b[0], &b[1], &b[2]);
  gboolean any_float = FALSE;
  for (guint i = 0; i < 3; i++)
    {
      int f = arange_float_bound (ctx, n, b[i]);
      if (f < 0)
        return GRAPH_DTYPE_UNDEFINED;
      any_float |= f;
    }
  return any_float ? sym_default_dtype (ctx) : GRAPH_DTYPE_INT64;
}

/* Before opset 11 (no Range), as torch 1.13's opset-9 arange: the count
 * ceil((end - start) / step) (in double, PyTorch's accumulate type), the
 * positions 0..count-1 (sym_iota's NonZero), then start + i * step, in
 * int64 for an integer result and in double for a floating one, cast to
 * the result's type (torch multiplies the int64 positions by the bounds'
 * type directly, a Mul ONNX does not define for mixed types). */
static gboolean
arange_nonzero (SymContext *ctx, GraphNode *n, GraphDType dt, GraphValue **out, GError **error)
{
  Graph *g = sym_graph (ctx);
  guint is, ie, ist;
  arange_layout (n, &is, &ie, &ist);
  GraphDType calc = graph_dtype_is_floating (dt) ? GRAPH_DTYPE_DOUBLE : GRAPH_DTYPE_INT64;
  /* the bounds in the computing type first: for an integer result PyTorch
   * converts them before counting (arange(8.5, dtype=long) has 8 elements,
   * as the Range of opset 11 counts) */
  GraphValue *b[3], *d[3];
  guint at[3] = { is, ie, ist };
  double dflt[3] = { 0.0, 0.0, 1.0 };
  for (int k = 0; k < 3; k++)
    {
      b[k] = arange_bound (ctx, n, at[k], dflt[k], calc, error);
      if (b[k] == NULL)
        return FALSE;
      d[k] = calc == GRAPH_DTYPE_DOUBLE ? b[k] : sym_cast (ctx, b[k], GRAPH_DTYPE_DOUBLE);
    }
  GraphValue *q = graph_op (g, "Ceil", graph_op (g, "Div", graph_op (g, "Sub", d[1], d[0], NULL), d[2], NULL),
                            NULL);
  sym_set_type (q, GRAPH_DTYPE_DOUBLE, 0, NULL);
  GraphValue *i = sym_iota (ctx, sym_cast (ctx, q, GRAPH_DTYPE_INT64));
  if (i == NULL)
    return FALSE;
  GraphValue *v = graph_op (g, "Add", graph_op (g, "Mul", calc == GRAPH_DTYPE_INT64 ? i : sym_cast (ctx, i, calc),
                                                b[2], NULL),
                            b[0], NULL);
  sym_set_type (v, calc, 1, NULL);
  out[0] = dt == calc ? v : sym_cast (ctx, v, dt);
  return TRUE;
}

/* aten::arange with computed bounds (arange(x.size(1))): Range, from
 * opset 11, as torch's symbolic_opset11 writes it; before, arange_nonzero. */
static gboolean
arange_range (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  guint is, ie, ist;
  arange_layout (n, &is, &ie, &ist);
  GraphDType dt = arange_dtype (ctx, n);
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: takes int64 unless it knows a bound is a float; refused here because the
     * result's element type cannot be told */
    return sym_unimplemented (ctx, n, error, "arange of bounds of unknown type without a dtype");
  if (sym_opset (ctx) < 11)
    return arange_nonzero (ctx, n, dt, out, error);
  GraphValue *start = arange_bound (ctx, n, is, 0.0, dt, error);
  GraphValue *end = start ? arange_bound (ctx, n, ie, 0.0, dt, error) : NULL;
  GraphValue *step = end ? arange_bound (ctx, n, ist, 1.0, dt, error) : NULL;
  if (step == NULL)
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Range", start, end, step, NULL);
  return TRUE;
}

/* aten::arange with constant bounds: the values as a constant (what
 * torch's export folds it to); computed bounds: Range from opset 11. */
static gboolean
sym_arange (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  double start = 0, end = 0, step = 1;
  guint is, ie, ist;
  gboolean known = arange_layout (n, &is, &ie, &ist);
  gboolean ok = known && (is == G_MAXUINT || sym_get_const_double (graph_node_input (n, is), &start))
                && sym_get_const_double (graph_node_input (n, ie), &end)
                && (ist == G_MAXUINT || sym_get_const_double (graph_node_input (n, ist), &step));
  if (!ok && known)
    return arange_range (ctx, n, out, error);
  if (!ok || step == 0)
    /* torch 1.13: also refuses (an argument count aten::arange does not have; PyTorch rejects a step of 0) */
    return sym_unimplemented (ctx, n, error, "arange with a step of 0 or an argument list it does not take");
  GraphDType dt = arange_dtype (ctx, n);
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: takes int64 unless it knows a bound is a float; refused here because the
     * result's element type cannot be told */
    return sym_unimplemented (ctx, n, error, "arange of bounds of unknown type without a dtype");
  /* ceil((end - start) / step), judged as a double first: a huge, infinite
   * or NaN quotient has no int64 value (the cast would be undefined) */
  double q = ceil ((end - start) / step);
  if (!isfinite (q))
    /* torch 1.13: also refuses (PyTorch rejects non-finite bounds: "unsupported range") */
    return sym_unimplemented (ctx, n, error, "arange with bounds or a step that are not finite");
  if (q < 0 || q > (double) (1 << 24))
    /* torch 1.13: exports any length (Range from opset 11, NonZero of ConstantOfShape before); not
     * yet here (more than 2^24 elements as a constant) */
    return sym_unimplemented (ctx, n, error, "arange of %.0f elements", q);
  gint64 count = (gint64) q;
  g_autoptr (Tensor) t = tensor_new_zeroed (dt, 1, &count, error);
  if (t == NULL)
    return FALSE;
  g_autoptr (Tensor) d = tensor_new_zeroed (GRAPH_DTYPE_DOUBLE, 1, &count, error);
  for (gint64 i = 0; i < count; i++)
    ((double *) tensor_data (d))[i] = start + (double) i * step;
  g_autoptr (Tensor) c = tensor_cast (d, dt, error);
  if (c == NULL)
    return FALSE;
  out[0] = sym_constant (ctx, c);
  return TRUE;
}

/* A constant of `dims` filled with v, or NULL when too large (torch's
 * constant folding turns ConstantOfShape of a constant shape into this;
 * ours keeps ConstantOfShape, so the new creation ops fold it here). */
GraphValue *
sym_const_filled (SymContext *ctx, gsize rank, const gint64 *dims, GraphDType dt, double v)
{
  gint64 numel = 1;
  for (gsize i = 0; i < rank; i++)
    {
      if (dims[i] < 0 || (dims[i] > 0 && numel > (1 << 20) / dims[i]))
        return NULL;
      numel *= dims[i];
    }
  if (rank > TENSOR_MAX_RANK)
    return NULL;
  g_autofree double *d = g_new (double, MAX (numel, 1));
  for (gint64 i = 0; i < numel; i++)
    d[i] = v;
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_DOUBLE, (guint) rank, dims, d,
                                               (gsize) numel * sizeof (double), NULL);
  g_autoptr (Tensor) c = t ? tensor_cast (t, dt, NULL) : NULL;
  return c ? sym_constant (ctx, c) : NULL;
}

/* ConstantOfShape of `shape`, folded when the trace value is a constant
 * list or one of the trace's static sizes (sym_traced_ints: x.shape[1:]
 * without dynamic axes). */
static GraphValue *
filled (SymContext *ctx, GraphValue *shape_src, GraphValue *shape, GraphDType dt, double v)
{
  g_autoptr (GArray) dims = sym_traced_ints (ctx, shape_src);
  GraphValue *c = dims ? sym_const_filled (ctx, dims->len, (const gint64 *) dims->data, dt, v) : NULL;
  return c ? c : sym_constant_of_shape (ctx, shape, dt, v);
}

/* aten::empty(size, dtype, ...) / empty_like(self, dtype, ...): zeros */
static gboolean
sym_empty (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *shape;
  if (!sym_parse_args (ctx, n, "v", &shape, error))
    return FALSE;
  /* the trace's type; else the dtype argument, the default dtype for None */
  GraphDType dt = sym_dtype (graph_node_output (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED)
    dt = sym_scalar_type (graph_node_n_inputs (n) > 1 ? graph_node_input (n, 1) : NULL,
                          sym_default_dtype (ctx));
  out[0] = filled (ctx, graph_node_input (n, 0), shape, dt, 0.0);
  return TRUE;
}

static gboolean
sym_empty_like (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphDType dflt = sym_dtype (self) ? sym_dtype (self) : GRAPH_DTYPE_FLOAT;
  GraphDType dt = sym_scalar_type (graph_node_n_inputs (n) > 1 ? graph_node_input (n, 1) : NULL, dflt);
  gint64 dims[TENSOR_MAX_RANK];
  int rank = sym_rank (self);
  GraphValue *c = rank >= 0 && rank <= TENSOR_MAX_RANK && sym_static_shape (self, dims)
                    ? sym_const_filled (ctx, (gsize) rank, dims, dt, 0.0) : NULL;
  out[0] = c ? c : sym_constant_of_shape (ctx, sym_size (ctx, self, G_MININT64), dt, 0.0);
  return TRUE;
}

/* aten::new_zeros/new_ones/new_empty(self, size, dtype, ...) and
 * new_full(self, size, fill_value, dtype, ...): dtype defaults to self's. */
static gboolean
new_fill (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const FillSpec *spec = sym_user_data (ctx);   /* .like is unused here */
  gboolean is_full = spec->is_full;
  GraphValue *self, *shape;
  double v = spec->value;
  if (!sym_parse_args (ctx, n, "vv", &self, &shape, error))
    return FALSE;
  if (is_full && !sym_parse_args (ctx, n, "none,none,f", &v, error))
    return FALSE;
  guint dt_index = is_full ? 3 : 2;
  GraphDType dflt = sym_dtype (self);
  if (dflt == GRAPH_DTYPE_UNDEFINED)
    dflt = sym_dtype (graph_node_output (n, 0));
  GraphDType dt = sym_scalar_type (dt_index < graph_node_n_inputs (n) ? graph_node_input (n, dt_index)
                                                                  : NULL, dflt);
  out[0] = filled (ctx, graph_node_input (n, 1), shape, dt, v);
  return TRUE;
}

/* aten::fill(self, value): full_like(self, value) in self's type */
static gboolean
sym_fill (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double v;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphDType dt = sym_dtype (self) ? sym_dtype (self) : GRAPH_DTYPE_FLOAT;
  if (!sym_get_const_double (graph_node_input (n, 1), &v))
    {
      /* a computed value (torch.empty(()).fill_(h // g), detection anchors):
       * the value cast to self's type, expanded to self's shape */
      GraphValue *val;
      if (!sym_parse_args (ctx, n, "none,v", &val, error))
        return FALSE;
      if (val == NULL || sym_rank (graph_node_input (n, 1)) > 0)
        /* torch 1.13: also refuses (PyTorch's fill_ takes a 0-dim value only) */
        return sym_unimplemented (ctx, n, error, "fill_ with a value that is not a scalar");
      if (sym_dtype (graph_node_input (n, 1)) != dt)
        val = sym_cast (ctx, val, dt);
      out[0] = graph_op (G, "Expand", val, sym_size (ctx, self, G_MININT64), NULL);
      return TRUE;
    }
  out[0] = sym_filled_like (ctx, graph_node_input (n, 0), self, dt, v);
  return TRUE;
}

GraphValue *
sym_filled_like (SymContext *ctx, GraphValue *src, GraphValue *self, GraphDType dt, double v)
{
  gint64 dims[TENSOR_MAX_RANK];
  int rank = sym_rank (src);
  GraphValue *c = rank >= 0 && rank <= TENSOR_MAX_RANK && sym_static_shape (src, dims)
                    ? sym_const_filled (ctx, (gsize) rank, dims, dt, v) : NULL;
  return c ? c : sym_constant_of_shape (ctx, sym_size (ctx, self, G_MININT64), dt, v);
}

/* aten::eye(n, [m,] dtype, layout, device, pin_memory): EyeLike of zeros */
static gboolean
sym_eye (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  guint nin = graph_node_n_inputs (n);
  if (nin != 5 && nin != 6)
    /* torch 1.13: also refuses (_unimplemented "aten::eye with N arguments") */
    return sym_unimplemented (ctx, n, error, "eye with %u arguments", nin);
  GraphValue *rows, *cols;
  if (!sym_parse_args (ctx, n, "v", &rows, error))
    return FALSE;
  cols = rows;
  if (nin == 6 && !sym_parse_args (ctx, n, "none,v", &cols, error))
    return FALSE;
  GraphDType dt = sym_dtype (graph_node_output (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED)
    dt = sym_scalar_type (graph_node_input (n, nin - 4), sym_default_dtype (ctx));
  gint64 dims[2];
  /* Constant sizes: the matrix itself (torch's constant folding gives the
   * same; ours does not fold EyeLike). */
  if (sym_get_const_int (graph_node_input (n, 0), &dims[0])
      && sym_get_const_int (graph_node_input (n, nin == 6 ? 1 : 0), &dims[1])
      && dims[0] >= 0 && dims[1] >= 0 && dims[0] * dims[1] <= 1 << 20)
    {
      g_autofree double *id = g_new0 (double, MAX (dims[0] * dims[1], 1));
      for (gint64 i = 0; i < MIN (dims[0], dims[1]); i++)
        id[i * dims[1] + i] = 1.0;
      g_autoptr (Tensor) d = tensor_new_from_data (GRAPH_DTYPE_DOUBLE, 2, dims, id,
                                                   (gsize) (dims[0] * dims[1]) * sizeof (double),
                                                   error);
      g_autoptr (Tensor) t = d ? tensor_cast (d, dt, error) : NULL;
      if (t == NULL)
        return FALSE;
      out[0] = sym_constant (ctx, t);
      return TRUE;
    }
  gint64 zero = 0;
  GraphValue *parts[2] = { sym_unsqueeze (ctx, rows, 1, &zero), sym_unsqueeze (ctx, cols, 1, &zero) };
  GraphValue *shape = graph_opv (G, "Concat", 2, parts, "axis_i", (gint64) 0, NULL);
  out[0] = graph_op (G, "EyeLike", sym_constant_of_shape (ctx, shape, dt, 0.0), NULL);
  return TRUE;
}

/* aten::one_hot(self, num_classes): OneHot with values [0, 1] */
static gboolean
sym_one_hot (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *depth;
  if (!sym_parse_args (ctx, n, "vv", &self, &depth, error))
    return FALSE;
  GraphDType dt = sym_dtype (graph_node_input (n, 1));
  if (dt == GRAPH_DTYPE_UINT8 || dt == GRAPH_DTYPE_INT8 || dt == GRAPH_DTYPE_INT32
      || dt == GRAPH_DTYPE_INT16)
    depth = sym_cast (ctx, depth, GRAPH_DTYPE_INT64);
  static const gint64 values[] = { 0, 1 };
  out[0] = graph_op (G, "OneHot", self, depth, sym_const_ints (ctx, 2, values), "axis_i",
                     (gint64) -1, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_DATA ("aten::zeros", fill, &fill_zeros),
  SYM_DATA ("aten::ones", fill, &fill_ones),
  SYM_DATA ("aten::full", fill, &fill_full),
  SYM_DATA ("aten::zeros_like", fill, &fill_zeros_like),
  SYM_DATA ("aten::ones_like", fill, &fill_ones_like),
  SYM_DATA ("aten::full_like", fill, &fill_full_like),
  SYM_FN ("aten::empty", sym_empty),
  SYM_FN ("aten::empty_like", sym_empty_like),
  SYM_DATA ("aten::new_zeros", new_fill, &new_zeros),
  SYM_DATA ("aten::new_empty", new_fill, &new_zeros),
  SYM_DATA ("aten::new_ones", new_fill, &new_ones),
  SYM_DATA ("aten::new_full", new_fill, &new_full),
  SYM_FN ("aten::fill", sym_fill),
  SYM_FN ("aten::eye", sym_eye),
  SYM_FN ("aten::one_hot", sym_one_hot),
  SYM_FN ("aten::arange", sym_arange),
};
const SymTable sym_opset9_create = SYM_TABLE (9, entries);
