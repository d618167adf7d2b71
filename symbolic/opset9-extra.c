/* Opset 9: operators torch 1.13 registers that the first tables lacked
 * (issue 12) — shape and creation queries, shifts, min/max, nonzero,
 * distances, conv_tbc, kl_div, bucketize, linspace — and aliases of
 * existing symbolics (unsafe_chunk, unsafe_split).  Each does what torch's
 * symbolic_opset9.py does, node for node, unless its comment says otherwise. */
#include "symbolic/opset-tables.h"

#define G sym_graph (ctx)

/* aten::_shape_as_tensor(self): Shape. */
static gboolean
sym_shape_as_tensor (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Shape", self, NULL);
  return TRUE;
}

/* aten::scalar_tensor(s, dtype, layout, device, pin_memory): a Cast of the
 * scalar to dtype (float when None). */
static gboolean
sym_scalar_tensor (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *s;
  if (!sym_parse_args (ctx, n, "v", &s, error))
    return FALSE;
  GraphDType dt = sym_scalar_type (graph_node_n_inputs (n) > 1 ? graph_node_input (n, 1) : NULL,
                                   GRAPH_DTYPE_FLOAT);
  out[0] = graph_op (G, "Cast", s, "to_i", (gint64) dt, NULL);
  return TRUE;
}

/* aten::__lshift__/__rshift__(self, other): self * 2^other, self / 2^other
 * (Pow on float, cast back to self's type); from 11 an unsigned 8-bit self
 * uses BitShift. */
static gboolean
shift (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean left)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  GraphDType st = sym_dtype (self);
  if (st == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: also refuses (its shift symbolic reads self's scalar type for the Cast) */
    return sym_unimplemented (ctx, n, error, "a shift of an input of unknown type");
  if (sym_dtype (other) != st)
    other = sym_cast (ctx, other, st);
  if (st == GRAPH_DTYPE_UINT8 && sym_opset (ctx) >= 11)
    {
      out[0] = graph_op (G, "BitShift", self, other, "direction_s", left ? "LEFT" : "RIGHT", NULL);
      return TRUE;
    }
  GraphValue *two = sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, 2.0);
  if (!graph_dtype_is_floating (st))
    other = sym_cast (ctx, other, GRAPH_DTYPE_FLOAT);
  GraphValue *p = sym_cast (ctx, graph_op (G, "Pow", two, other, NULL), st);
  if ((st == GRAPH_DTYPE_UINT8 || st == GRAPH_DTYPE_INT8 || st == GRAPH_DTYPE_INT16)
      && sym_opset (ctx) < 14)
    {
      /* Mul/Div take no 8- or 16-bit integers before 14: in int64, as torch */
      GraphValue *a = sym_cast (ctx, self, GRAPH_DTYPE_INT64);
      GraphValue *b = sym_cast (ctx, p, GRAPH_DTYPE_INT64);
      /* (no sym_cast: the result takes the trace output's type and shape) */
      out[0] = graph_op (G, "Cast", graph_op (G, left ? "Mul" : "Div", a, b, NULL), "to_i", (gint64) st,
                         NULL);
      return TRUE;
    }
  out[0] = graph_op (G, left ? "Mul" : "Div", self, p, NULL);
  return TRUE;
}

static gboolean
sym_lshift (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return shift (ctx, n, out, error, TRUE);
}

static gboolean
sym_rshift (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return shift (ctx, n, out, error, FALSE);
}

/* aten::_dim_arange(like, dim): arange(like.size(dim)) as int64.  torch
 * reads the size with Shape/Gather and builds the range at run time; when
 * the size is static we write the range as a constant (what torch's
 * constant folding leaves of it), else Range from 11. */
static gboolean
sym_dim_arange (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *like;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vd", &like, &dim, error))
    return FALSE;
  int r = sym_rank (like);
  gint64 d[TENSOR_MAX_RANK];
  if (r > 0 && dim >= -r && dim < r && sym_static_shape (like, d))
    {
      gint64 len = d[dim < 0 ? dim + r : dim];
      if (len < 0 || len > (1 << 24))
        /* torch 1.13: exports any length (Shape, Gather, arange as NonZero or Range); not yet here
         * (more than 2^24 elements as a constant) */
        return sym_unimplemented (ctx, n, error, "_dim_arange of %" G_GINT64_FORMAT " elements", len);
      g_autoptr (Tensor) t = tensor_new_zeroed (GRAPH_DTYPE_INT64, 1, &len, error);
      if (t == NULL)
        return FALSE;
      for (gint64 i = 0; i < len; i++)
        ((gint64 *) tensor_data (t))[i] = i;
      out[0] = sym_constant (ctx, t);
      return TRUE;
    }
  GraphValue *stop = graph_op (G, "Gather", graph_op (G, "Shape", like, NULL), sym_const_i64 (ctx, dim),
                               "axis_i", (gint64) 0, NULL);
  out[0] = stop ? sym_iota (ctx, stop) : NULL;
  return out[0] != NULL;
}

/* aten::aminmax(self, dim, keepdim): ReduceMin and ReduceMax. */
static gboolean
sym_aminmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim = 0, keep;
  gboolean all = sym_is_none (graph_node_input (n, 1));
  if (!sym_parse_args (ctx, n, "v,none,i", &self, &keep, error)
      || (!all && !sym_parse_args (ctx, n, "none,d", &dim, error)))
    return FALSE;
  out[0] = sym_reduce (ctx, "ReduceMin", self, all ? 0 : 1, all ? NULL : &dim, keep != 0);
  out[1] = sym_reduce (ctx, "ReduceMax", self, all ? 0 : 1, all ? NULL : &dim, keep != 0);
  return TRUE;
}

/* aten::nonzero(self): Transpose(NonZero). */
static GraphValue *
nonzero_t (SymContext *ctx, GraphValue *self)
{
  static const gint64 perm[] = { 1, 0 };
  return graph_op (G, "Transpose", graph_op (G, "NonZero", self, NULL), "perm_is", 2, perm, NULL);
}

static gboolean
sym_nonzero (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = nonzero_t (ctx, self);
  return TRUE;
}

/* aten::nonzero_numpy(self) (nonzero(as_tuple=True)): unbind(nonzero, 1),
 * one index tensor per dimension of self. */
gboolean
sym_nonzero_numpy (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  int r = sym_rank (self);
  if (r <= 0)
    /* torch 1.13: exports it as NonZero, Transpose and a Split into the unpacked count (rank 0 or
     * unknown); not yet here */
    return sym_unimplemented (ctx, n, error, "nonzero(as_tuple=True) of an input of unknown rank");
  gint64 ones[TENSOR_MAX_RANK];
  for (int i = 0; i < r; i++)
    ones[i] = 1;
  GraphNode *sp = sym_split (ctx, nonzero_t (ctx, self), 1, (guint) r, ones);
  return sp && sym_finish_split (ctx, n, sp, out, TRUE, 1);
}

/* aten::cdist(x1, x2, p, compute_mode): x1 unsqueezed at rank-1, x2 at
 * rank-2, then torch's pairwise_distance with eps 1e-6 (compute_mode is
 * ignored, as in torch). */
static gboolean
sym_cdist (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *a, *b;
  double p;
  if (!sym_parse_args (ctx, n, "vvf", &a, &b, &p, error))
    return FALSE;
  int r = sym_rank (a);
  if (r < 2)
    /* torch 1.13: also refuses (cdist asserts the rank is known) */
    return sym_unimplemented (ctx, n, error, "cdist of an input of unknown rank");
  gint64 ax = r - 1, bx = r - 2;
  GraphValue *ua = sym_unsqueeze (ctx, a, 1, &ax);   /* in torch's order */
  GraphValue *ub = sym_unsqueeze (ctx, b, 1, &bx);
  out[0] = sym_pairwise_distance_values (ctx, ua, ub, p, 1e-6, FALSE);
  return TRUE;
}

/* aten::conv_tbc(input, weight, bias, pad): input (time, batch, in) and
 * weight (kernel, in, out) transposed into Conv's layout, and back. */
static gboolean
sym_conv_tbc (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *weight, *bias;
  gint64 pad;
  if (!sym_parse_args (ctx, n, "vvvi", &input, &weight, &bias, &pad, error))
    return FALSE;
  gint64 w[TENSOR_MAX_RANK];
  if (sym_rank (weight) != 3 || !sym_static_shape (weight, w))
    /* torch 1.13: also refuses ("Unsupported: ONNX export of convolution for kernel of unknown
     * shape") */
    return sym_unimplemented (ctx, n, error, "conv_tbc with a weight of unknown shape");
  static const gint64 in_perm[] = { 1, 2, 0 }, w_perm[] = { 2, 1, 0 }, out_perm[] = { 2, 0, 1 };
  static const gint64 one[] = { 1 };
  gint64 pads[] = { pad, pad };
  GraphValue *x = graph_op (G, "Transpose", input, "perm_is", 3, in_perm, NULL);
  GraphValue *k = graph_op (G, "Transpose", weight, "perm_is", 3, w_perm, NULL);
  GraphValue *conv = graph_op (G, "Conv", x, k, bias, "dilations_is", 1, one, "group_i", (gint64) 1,
                               "kernel_shape_is", 1, &w[0], "pads_is", 2, pads, "strides_is", 1, one,
                               NULL);
  out[0] = graph_op (G, "Transpose", conv, "perm_is", 3, out_perm, NULL);
  return TRUE;
}

/* aten::kl_div(input, target, reduction, log_target): exp(t)·(t − x) for a
 * log target, else where(t > 0, t·(log t − x), 0); then none/mean/sum. */
static gboolean
sym_kl_div (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *t, *y;
  gint64 reduction;
  gboolean log_target;
  if (!sym_parse_args (ctx, n, "vvib", &x, &t, &reduction, &log_target, error))
    return FALSE;
  if (reduction < 0 || reduction > 2)
    /* torch 1.13: also refuses (_onnx_unsupported "kl_div with reduction other than none, mean, or
     * sum") */
    return sym_unimplemented (ctx, n, error, "kl_div with reduction %" G_GINT64_FORMAT, reduction);
  if (log_target)
    {
      GraphValue *diff = graph_op (G, "Sub", t, x, NULL);   /* torch's order */
      y = graph_op (G, "Mul", graph_op (G, "Exp", t, NULL), diff, NULL);
    }
  else
    {
      GraphValue *pos = graph_op (G, "Mul", t, graph_op (G, "Sub", graph_op (G, "Log", t, NULL), x, NULL),
                                  NULL);
      GraphDType dt = sym_dtype (t) ? sym_dtype (t) : GRAPH_DTYPE_FLOAT;
      GraphValue *zeros = sym_constant_of_shape (ctx, graph_op (G, "Shape", pos, NULL), dt, 0.0);
      GraphValue *mask = graph_op (G, "Greater", t, sym_scalar_like (ctx, 0.0, t), NULL);
      y = graph_op (G, "Where", mask, pos, zeros, NULL);
    }
  if (reduction == 1)
    y = graph_op (G, "ReduceMean", y, "keepdims_i", (gint64) 0, NULL);
  else if (reduction == 2 && sym_opset (ctx) >= 13)   /* torch's _reducesum_helper */
    y = graph_op (G, "ReduceSum", y, "keepdims_i", (gint64) 0, "noop_with_empty_axes_i", (gint64) 0,
                  NULL);
  else if (reduction == 2)
    y = sym_reduce (ctx, "ReduceSum", y, 0, NULL, FALSE);
  out[0] = y;
  return TRUE;
}

/* aten::bucketize(self, boundaries, out_int32, right): each element
 * compared with every boundary (boundaries unsqueezed and expanded to
 * [len(boundaries), *self.shape]), the true counts summed over axis 0. */
static gboolean
sym_bucketize (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *bounds;
  gboolean i32, right;
  if (!sym_parse_args (ctx, n, "vvbb", &self, &bounds, &i32, &right, error))
    return FALSE;
  int r = sym_rank (self);
  gint64 sd[TENSOR_MAX_RANK], bd[TENSOR_MAX_RANK];
  if (r < 0 || r >= TENSOR_MAX_RANK || sym_rank (bounds) != 1 || !sym_static_shape (self, sd)
      || !sym_static_shape (bounds, bd))
    /* torch 1.13: exports run-time shapes when the rank is known (Expand to Concat(Shape(self),
     * [n]), Less, ReduceSum); not yet here */
    return sym_unimplemented (ctx, n, error, "bucketize of inputs of unknown shape");
  gint64 axes[TENSOR_MAX_RANK], shape[TENSOR_MAX_RANK];
  shape[0] = bd[0];
  for (int i = 0; i < r; i++)
    {
      axes[i] = i + 1;
      shape[i + 1] = sd[i];
    }
  GraphValue *b = graph_op (G, "Expand", sym_unsqueeze (ctx, bounds, (gsize) r, axes),
                            sym_const_ints (ctx, (gsize) r + 1, shape), NULL);
  GraphValue *cond = right ? graph_op (G, "Not", graph_op (G, "Less", self, b, NULL), NULL)
                           : graph_op (G, "Greater", self, b, NULL);
  gint64 zero = 0;
  out[0] = sym_reduce (ctx, "ReduceSum", sym_cast (ctx, cond, i32 ? GRAPH_DTYPE_INT32 : GRAPH_DTYPE_INT64),
                       1, &zero, FALSE);
  return TRUE;
}

static gboolean linspace_computed (SymContext *ctx, GraphNode *n, GraphDType dt, GraphValue **out,
                                   GError **error);

/* aten::linspace(start, end, steps, dtype, layout, device, pin_memory)
 * with constant arguments: the values as a constant, computed as PyTorch
 * does (from start for the first half, from end for the second), which is
 * what torch's Range·step + start folds to (start alone for one step).
 * Computed arguments: linspace_computed. */
static gboolean
sym_linspace (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  double start, end;
  gint64 steps;
  if (graph_node_n_inputs (n) < 4)
    /* torch 1.13: also refuses (a linspace without start, end, steps and dtype is malformed) */
    return sym_unimplemented (ctx, n, error, "linspace with fewer than 4 arguments");
  GraphDType dt = sym_dtype (graph_node_output (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED)
    dt = sym_scalar_type (graph_node_input (n, 3), sym_default_dtype (ctx));
  if (!sym_get_const_double (graph_node_input (n, 0), &start)
      || !sym_get_const_double (graph_node_input (n, 1), &end)
      || !sym_get_const_int (graph_node_input (n, 2), &steps))
    return linspace_computed (ctx, n, dt, out, error);
  if (steps < 0 || steps > (1 << 24))
    /* torch 1.13: exports any count (PyTorch rejects a negative one); not yet here (more than 2^24
     * steps as a constant) */
    return sym_unimplemented (ctx, n, error, "linspace of %" G_GINT64_FORMAT " steps", steps);
  g_autofree double *v = g_new (double, MAX (steps, 1));
  double step = steps > 1 ? (end - start) / (double) (steps - 1) : 0.0;
  gint64 half = steps / 2;
  for (gint64 i = 0; i < steps; i++)
    v[i] = i < half ? start + step * (double) i : end - step * (double) (steps - 1 - i);
  if (steps == 1)
    v[0] = start;   /* PyTorch's one step is start (the loop above gave end) */
  return (out[0] = sym_const_doubles (ctx, dt, 1, &steps, v, error)) != NULL;
}

/* linspace of start, end or steps known only at run time (sym_iota):
 * PyTorch's CPU kernel in double, i = 0..steps-1, start + step·i for the
 * first half and end − step·(steps−1−i) for the rest, step = (end −
 * start)/(steps − 1); start alone for one step; cast to the result type. */
static gboolean
linspace_computed (SymContext *ctx, GraphNode *n, GraphDType dt, GraphValue **out, GError **error)
{
  Graph *g = sym_graph (ctx);
  GraphValue *v[3];
  for (guint k = 0; k < 3; k++)
    {
      v[k] = sym_value (ctx, graph_node_input (n, k), error);
      if (v[k] == NULL)
        return FALSE;
      if (sym_rank (v[k]) != 0)
        /* torch 1.13: also refuses (start, end and steps are scalars) */
        return sym_unimplemented (ctx, n, error, "linspace with an argument that is not a scalar");
      GraphDType want = k == 2 ? GRAPH_DTYPE_INT64 : GRAPH_DTYPE_DOUBLE;
      if (sym_dtype (v[k]) != want)
        v[k] = sym_cast (ctx, v[k], want);
    }
  GraphValue *one = sym_const_i64 (ctx, 1);
  GraphValue *i = sym_iota (ctx, v[2]);
  if (i == NULL)
    return FALSE;
  GraphValue *last = graph_op (g, "Sub", v[2], one, NULL);                 /* steps - 1 */
  sym_set_type (last, GRAPH_DTYPE_INT64, 0, NULL);
  GraphValue *span = graph_op (g, "Sub", v[1], v[0], NULL);
  sym_set_type (span, GRAPH_DTYPE_DOUBLE, 0, NULL);
  GraphValue *step = graph_op (g, "Div", span, sym_cast (ctx, last, GRAPH_DTYPE_DOUBLE), NULL);
  sym_set_type (step, GRAPH_DTYPE_DOUBLE, 0, NULL);
  GraphValue *id = sym_cast (ctx, i, GRAPH_DTYPE_DOUBLE);
  GraphValue *lo = graph_op (g, "Add", v[0], graph_op (g, "Mul", step, id, NULL), NULL);
  GraphValue *back = sym_cast (ctx, graph_op (g, "Sub", last, i, NULL), GRAPH_DTYPE_DOUBLE);
  GraphValue *hi = graph_op (g, "Sub", v[1], graph_op (g, "Mul", step, back, NULL), NULL);
  GraphValue *half = graph_op (g, "Div", v[2], sym_const_i64 (ctx, 2), NULL);
  GraphValue *r = graph_op (g, "Where", graph_op (g, "Less", i, half, NULL), lo, hi, NULL);
  sym_set_type (r, GRAPH_DTYPE_DOUBLE, 1, NULL);
  r = graph_op (g, "Where", graph_op (g, "Equal", v[2], one, NULL), v[0], r, NULL);
  sym_set_type (r, GRAPH_DTYPE_DOUBLE, 1, NULL);
  out[0] = dt == GRAPH_DTYPE_DOUBLE ? r : sym_cast (ctx, r, dt);
  return TRUE;
}

GraphValue *
sym_const_doubles (SymContext *ctx, GraphDType dt, guint rank, const gint64 *dims, const double *v,
                   GError **error)
{
  gint64 n;
  if (!tensor_shape_numel (rank, dims, &n))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "a constant of too many elements");
      return NULL;
    }
  g_autoptr (Tensor) d = tensor_new_from_data (GRAPH_DTYPE_DOUBLE, rank, dims, v, (gsize) n * sizeof (double),
                                               error);
  g_autoptr (Tensor) t = d ? tensor_cast (d, dt, error) : NULL;
  return t ? sym_constant (ctx, t) : NULL;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::linspace", sym_linspace),
  SYM_FN ("aten::_shape_as_tensor", sym_shape_as_tensor),
  SYM_FN ("aten::scalar_tensor", sym_scalar_tensor),
  SYM_FN ("aten::__lshift__", sym_lshift),
  SYM_FN ("aten::__rshift__", sym_rshift),
  SYM_FN ("aten::_dim_arange", sym_dim_arange),
  SYM_FN ("aten::aminmax", sym_aminmax),
  SYM_FN ("aten::nonzero", sym_nonzero),
  SYM_FN ("aten::nonzero_numpy", sym_nonzero_numpy),
  SYM_FN ("aten::cdist", sym_cdist),
  SYM_FN ("aten::conv_tbc", sym_conv_tbc),
  SYM_FN ("aten::kl_div", sym_kl_div),
  SYM_FN ("aten::bucketize", sym_bucketize),
  SYM_FN ("aten::unsafe_chunk", sym_chunk),
  SYM_FN ("aten::unsafe_split", sym_split_op),
  SYM_FN ("aten::unsafe_split_with_sizes", sym_split_op),
};
const SymTable sym_opset9_extra = SYM_TABLE (9, entries);
