/* Opset 9 base set: reductions over chosen dims and norms.  amax/amin/
 * logsumexp map onto ONNX reductions; var/std(_mean) follow torch's
 * _var_mean, cosine_similarity and pairwise_distance torch's
 * decompositions, and norm/frobenius_norm/linalg_vector_norm the
 * ReduceL1/ReduceL2/power-sum forms torch writes.  sum, mean, prod, max
 * and min stay with the element-wise math in opset9-math.c. */
#include "symbolic/opset-tables.h"
#include <math.h>
#include <string.h>

#define G sym_graph (ctx)

/* aten::amax / amin / logsumexp(self, dim[], keepdim) */
static gboolean
reduce_dims (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, const char *op)
{
  GraphValue *self;
  gsize nd;
  const gint64 *dims;
  gboolean keep;
  if (!sym_parse_args (ctx, n, "v,ds,b", &self, &nd, &dims, &keep, error))
    return FALSE;
  out[0] = sym_reduce (ctx, op, self, nd, dims, keep);
  return TRUE;
}

static gboolean
sym_amax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return reduce_dims (ctx, n, out, error, "ReduceMax");
}

static gboolean
sym_amin (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return reduce_dims (ctx, n, out, error, "ReduceMin");
}

static gboolean
sym_logsumexp (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return reduce_dims (ctx, n, out, error, "ReduceLogSumExp");
}

/* torch's _var_mean: var(self, unbiased) / var(self, dim[], unbiased or
 * correction, keepdim), and std/var_mean/std_mean on top.  torch counts
 * the reduced elements at run time (Shape, Gather, ReduceProd); we write
 * the count as a constant where the reduced dims are static, and count at
 * run time as torch where they are not (x[mask].var(0)). */
static gboolean
var_mean (SymContext *ctx, GraphNode *n, GraphValue **var, GraphValue **mean, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  guint nin = graph_node_n_inputs (n);
  gsize nd = 0;
  const gint64 *dims = NULL;
  gint64 correction = 1;
  gboolean keep = FALSE, all = TRUE;
  if (nin != 1 && nin != 2 && nin != 4)
    /* torch 1.13: also refuses (no var/std schema has another argument count) */
    return sym_unimplemented (ctx, n, error, "%u arguments", nin);
  /* var(self) unbiased; var(self, unbiased); var(self, dim, unbiased or correction, keepdim) */
  GraphValue *c_src = nin == 1 ? NULL : graph_node_input (n, nin == 2 ? 1 : 2);
  if (c_src && !sym_is_none (c_src) && !sym_get_const_int (c_src, &correction))
    /* torch 1.13: also refuses (parse_args 'i': the correction must be a constant) */
    return sym_unimplemented (ctx, n, error, "a non-constant correction");
  if (nin == 4)
    {
      if (!sym_parse_args (ctx, n, "none,none,none,b", &keep, error))
        return FALSE;
      if (!sym_is_none (graph_node_input (n, 1)))
        {
          if (!sym_parse_args (ctx, n, "none,ds", &nd, &dims, error))
            return FALSE;
          all = FALSE;
        }
    }
  int rank = sym_rank (self);
  gint64 shape[TENSOR_MAX_RANK];
  if (rank < 0 || rank > TENSOR_MAX_RANK || sym_static_dims (self, shape) != rank)
    /* torch 1.13: exports dynamic shapes, counting the elements with Shape, Gather, ReduceProd at
     * run time; not yet here for an input of unknown rank */
    return sym_unimplemented (ctx, n, error, "variance of an input of unknown rank");
  /* the reduced dims; their element count: a constant where they are
   * static, else Shape, Gather, ReduceProd at run time as torch's */
  gint64 rd[TENSOR_MAX_RANK];
  gsize nr = 0;
  gboolean count_static = TRUE;
  double count = 1;
  for (gsize i = 0; i < (all ? (gsize) rank : nd); i++)
    {
      gint64 d = all ? (gint64) i : dims[i] < 0 ? dims[i] + rank : dims[i];
      if (d < 0 || d >= rank)
        /* torch 1.13: also refuses (PyTorch rejects a dim out of range) */
        return sym_unimplemented (ctx, n, error, "dim out of range");
      rd[nr++] = d;
      count_static = count_static && shape[d] >= 0;
      count *= shape[d] >= 0 ? shape[d] : 1;
    }
  GraphValue *c_val = NULL;   /* the run-time count, in the variance's float type */
  if (!count_static && correction != 0)
    {
      GraphDType fdt = sym_dtype (self);
      if (fdt != GRAPH_DTYPE_FLOAT && fdt != GRAPH_DTYPE_DOUBLE && fdt != GRAPH_DTYPE_FLOAT16)
        /* torch 1.13: casts the count to self's type (an integer variance PyTorch rejects);
         * refused here because the variance's type is unknown */
        return sym_unimplemented (ctx, n, error, "variance of dynamic shape of a %s input",
                                  graph_dtype_name (fdt));
      GraphValue *sizes = graph_op (G, "Gather", graph_op (G, "Shape", self, NULL),
                                    sym_const_ints (ctx, nr, rd), "axis_i", (gint64) 0, NULL);
      c_val = sym_cast (ctx, sym_reduce (ctx, "ReduceProd", sizes, 0, NULL, FALSE), fdt);
    }
  GraphValue *t_mean;
  if (all)
    *mean = t_mean = sym_reduce (ctx, "ReduceMean", self, 0, NULL, FALSE);
  else
    {
      *mean = sym_reduce (ctx, "ReduceMean", self, nd, dims, keep);
      t_mean = sym_reduce (ctx, "ReduceMean", self, nd, dims, TRUE);
    }
  GraphValue *d = graph_op (G, "Sub", self, t_mean, NULL);
  GraphValue *sq = graph_op (G, "Mul", d, d, NULL);
  GraphValue *v = sym_reduce (ctx, "ReduceMean", sq, all ? 0 : nd, dims, all ? FALSE : keep);
  if (c_val != NULL)
    {
      /* v * n / (n - correction) */
      GraphValue *m = graph_op (G, "Mul", v, c_val, NULL);
      GraphValue *c = sym_const_scalar (ctx, sym_dtype (self), (double) correction);
      v = graph_op (G, "Div", m, graph_op (G, "Sub", c_val, c, NULL), NULL);
    }
  else if (correction != 0)
    {
      GraphValue *m = graph_op (G, "Mul", v, sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, count), NULL);
      v = graph_op (G, "Div", m, sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, count - (double) correction),
                    NULL);
    }
  *var = v;
  return TRUE;
}

static gboolean
sym_var (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *mean;
  return var_mean (ctx, n, &out[0], &mean, error);
}

static gboolean
sym_std (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *var, *mean;
  if (!var_mean (ctx, n, &var, &mean, error))
    return FALSE;
  out[0] = graph_op (G, "Sqrt", var, NULL);
  return TRUE;
}

static gboolean
sym_var_mean (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return var_mean (ctx, n, &out[0], &out[1], error);
}

static gboolean
sym_std_mean (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *var;
  if (!var_mean (ctx, n, &var, &out[1], error))
    return FALSE;
  out[0] = graph_op (G, "Sqrt", var, NULL);
  return TRUE;
}

/* torch's _reducesum_helper: ReduceSum, with noop_with_empty_axes=0 from 13 */
static GraphValue *
reducesum (SymContext *ctx, GraphValue *v, gsize n, const gint64 *axes, gboolean keep)
{
  GraphValue *r = sym_reduce (ctx, "ReduceSum", v, n, axes, keep);
  if (r && sym_opset (ctx) >= 13)
    graph_node_set_i (graph_value_node (r), "noop_with_empty_axes", 0);
  return r;
}

/* aten::cosine_similarity(x1, x2, dim, eps) */
static gboolean
sym_cosine_similarity (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *a, *b;
  gint64 dim;
  double eps;
  if (!sym_parse_args (ctx, n, "vvdf", &a, &b, &dim, &eps, error))
    return FALSE;
  GraphValue *ab = reducesum (ctx, graph_op (G, "Mul", a, b, NULL), 1, &dim, FALSE);
  GraphValue *aa = reducesum (ctx, graph_op (G, "Mul", a, a, NULL), 1, &dim, FALSE);
  GraphValue *bb = reducesum (ctx, graph_op (G, "Mul", b, b, NULL), 1, &dim, FALSE);
  GraphValue *den = graph_op (G, "Sqrt", graph_op (G, "Mul", aa, bb, NULL), NULL);
  den = graph_op (G, "Max", den, sym_float_1d (ctx, eps), NULL);
  out[0] = graph_op (G, "Div", ab, den, NULL);
  return TRUE;
}

/* aten::pairwise_distance(x1, x2, p, eps, keepdim), as torch writes it:
 * (sum (x1 - x2)^p)^(1 / (p + eps)) over the last dim. */
static gboolean
sym_pairwise_distance (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *a, *b;
  double p, eps;
  gboolean keep;
  if (!sym_parse_args (ctx, n, "vvffb", &a, &b, &p, &eps, &keep, error))
    return FALSE;
  out[0] = sym_pairwise_distance_values (ctx, a, b, p, eps, keep);
  return TRUE;
}

GraphValue *
sym_pairwise_distance_values (SymContext *ctx, GraphValue *a, GraphValue *b, double p, double eps,
                              gboolean keep)
{
  gint64 last = -1;
  GraphValue *d = graph_op (G, "Pow", graph_op (G, "Sub", a, b, NULL), sym_scalar_like (ctx, p, a), NULL);
  GraphValue *sum = reducesum (ctx, d, 1, &last, keep);
  return graph_op (G, "Pow", sum, sym_float_1d (ctx, (float) 1.0 / (float) (p + (float) eps)), NULL);
}

/* aten::norm(self, p, dim, keepdim): ReduceL1 / ReduceL2 */
static gboolean
sym_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double p;
  gsize nd;
  const gint64 *dims;
  gboolean keep;
  if (graph_node_n_inputs (n) != 4)
    /* torch 1.13: also refuses (its norm takes 4 arguments: "a mismatch between the number of
     * arguments (5) and their descriptors (4)") */
    return sym_unimplemented (ctx, n, error, "norm with %u arguments", graph_node_n_inputs (n));
  if (!sym_parse_args (ctx, n, "v,f,ds,b", &self, &p, &nd, &dims, &keep, error))
    return FALSE;
  if (p != 1.0 && p != 2.0)
    /* torch 1.13: also refuses ("ONNX export only p-norms with p of 1 or 2") */
    return sym_unimplemented (ctx, n, error, "p-norm with p = %g (only 1 and 2)", p);
  out[0] = sym_reduce (ctx, p == 1.0 ? "ReduceL1" : "ReduceL2", self, nd, dims, keep);
  return TRUE;
}

/* aten::frobenius_norm(self, dim, keepdim): Sqrt(ReduceSum(x * x)); from
 * 13 an empty dim is one ReduceL2. */
gboolean
sym_frobenius_norm_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize nd = 0;
  const gint64 *dims = NULL;
  gboolean keep = FALSE;
  if (!sym_parse_args (ctx, n, "v,ds,b", &self, &nd, &dims, &keep, error))
    return FALSE;
  if (nd == 0 && sym_opset (ctx) >= 13)
    {
      out[0] = sym_reduce (ctx, "ReduceL2", self, 0, NULL, FALSE);
      return TRUE;
    }
  GraphValue *sq = graph_op (G, "Mul", self, self, NULL);
  out[0] = graph_op (G, "Sqrt", reducesum (ctx, sq, nd, dims, keep), NULL);
  return TRUE;
}

/* A norm's dtype argument (input i): self cast to it first, as PyTorch
 * computes (torch 1.13's symbolics ignore it).  FALSE (refused) for a dtype
 * that is not a constant floating type. */
static gboolean
norm_dtype (SymContext *ctx, GraphNode *n, guint i, GraphValue **self, GError **error)
{
  if (graph_node_n_inputs (n) <= i || sym_is_none (graph_node_input (n, i)))
    return TRUE;
  GraphDType dt = sym_scalar_type (graph_node_input (n, i), GRAPH_DTYPE_UNDEFINED);
  if (!graph_dtype_is_floating (dt))
    /* torch 1.13: ignores the dtype (the result keeps self's type); refused here because
     * PyTorch computes in the dtype, and this one is not a constant floating type */
    return sym_unimplemented (ctx, n, error, "%s with a dtype that is not a constant floating type",
                              sym_op_short_name (graph_node_kind (n)));
  *self = sym_cast (ctx, *self, dt);
  return TRUE;
}

/* The vector ord-norm of self over dims (all of them, flattened, when
 * dims is NULL), as torch's linalg_vector_norm writes it. */
static gboolean
vector_norm (SymContext *ctx, GraphNode *n, GraphValue *self, double ord, gsize nd, const gint64 *dims,
             gboolean keep, GraphValue **out, GError **error)
{
  GraphDType in_dt = sym_dtype (self);
  if (dims == NULL)
    {
      static const gint64 flat[] = { -1 };
      self = sym_reshape_static (ctx, self, 1, flat);
      keep = FALSE;   /* torch passes axes=None to a Reduce of the flattened input */
      nd = 0;
    }
  if (ord == 0 && sym_opset (ctx) < 11)
    /* torch 1.13: also refuses before opset 11 (_onnx_opset_unsupported_detailed "ord=0 not
     * supported") */
    return sym_unimplemented (ctx, n, error, "ord=0 (from opset 11)");
  if (ord == 0)
    {
      /* the count of nonzero elements, in self's type (torch 1.13's opset-11 form; its Equal
       * against a LongTensor is ill-typed for a float input: the zero here has self's type) */
      if (in_dt == GRAPH_DTYPE_UNDEFINED)
        /* torch 1.13: exports Equal against an int64 zero whatever the type; refused here because
         * the zero needs self's element type */
        return sym_unimplemented (ctx, n, error, "ord=0 of an input of unknown element type");
      GraphValue *nz = graph_op (G, "Not", graph_op (G, "Equal", self, sym_const_scalar (ctx, in_dt, 0.0), NULL),
                                 NULL);
      out[0] = reducesum (ctx, sym_cast (ctx, nz, in_dt), nd, dims, keep);
      return TRUE;
    }
  if (isinf (ord))
    {
      out[0] = sym_reduce (ctx, ord > 0 ? "ReduceMax" : "ReduceMin", graph_op (G, "Abs", self, NULL),
                           nd, dims, keep);
      return TRUE;
    }
  /* float exponents, as torch writes them; in double for a double input
   * (Pow takes one type for both operands before opset 12) */
  gboolean dbl = in_dt == GRAPH_DTYPE_DOUBLE;
  GraphDType et = dbl ? GRAPH_DTYPE_DOUBLE : GRAPH_DTYPE_FLOAT;
  GraphValue *o = sym_const_scalar (ctx, et, ord);
  GraphValue *pw = graph_op (G, "Pow", graph_op (G, "Abs", self, NULL), o, NULL);
  GraphValue *sum = reducesum (ctx, pw, nd, dims, keep);
  out[0] = graph_op (G, "Pow", sum, sym_const_scalar (ctx, et, dbl ? 1.0 / ord : (float) (1.0f / (float) ord)),
                     NULL);
  return TRUE;
}

/* aten::linalg_vector_norm(self, ord, dim, keepdim, dtype) */
static gboolean
sym_linalg_vector_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double ord;
  gboolean keep;
  gsize nd = 0;
  const gint64 *dims = NULL;
  if (!sym_parse_args (ctx, n, "vf", &self, &ord, error)
      || !sym_parse_args (ctx, n, "none,none,none,b", &keep, error)
      || !norm_dtype (ctx, n, 4, &self, error))
    return FALSE;
  if (!sym_is_none (graph_node_input (n, 2)) && !sym_parse_args (ctx, n, "none,none,ds", &nd, &dims, error))
    return FALSE;
  return vector_norm (ctx, n, self, ord, nd, dims, keep, out, error);
}

/* The matrix norm of self over dims (d0, d1), as torch's
 * linalg_matrix_norm: "fro" Sqrt(ReduceSum(x * x)); ord 1 / -1 the max /
 * min over d1 of the sums of |x| over d0 (columns), inf / -inf the same
 * with d0 and d1 swapped (rows).  2, -2 and "nuc" need singular values:
 * refused, as torch does. */
static gboolean
matrix_norm (SymContext *ctx, GraphNode *n, GraphValue *self, const char *ord_s, double ord, gint64 d0,
             gint64 d1, gboolean keep, GraphValue **out, GError **error)
{
  int r = sym_rank (self);
  if (r < 2)
    /* torch 1.13: also refuses (its matrix norm needs the input's rank; PyTorch needs 2 dims) */
    return sym_unimplemented (ctx, n, error, "a matrix norm of an input of rank %d", r);
  if (d0 < 0)
    d0 += r;
  if (d1 < 0)
    d1 += r;
  if (d0 < 0 || d1 < 0 || d0 >= r || d1 >= r || d0 == d1)
    /* torch 1.13: also refuses (PyTorch rejects equal or out-of-range dims) */
    return sym_unimplemented (ctx, n, error, "matrix norm dims (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                              ") of a rank-%d input", d0, d1, r);
  gint64 both[2] = { d0, d1 };
  if (ord_s && strcmp (ord_s, "fro") == 0)
    {
      out[0] = graph_op (G, "Sqrt", reducesum (ctx, graph_op (G, "Mul", self, self, NULL), 2, both, keep), NULL);
      return TRUE;
    }
  if (ord_s || !(fabs (ord) == 1 || isinf (ord)))
    /* torch 1.13: also refuses (_unimplemented "ord==nuc" / "ord==2"; PyTorch rejects other ords) */
    return sym_unimplemented (ctx, n, error, "a matrix norm of ord %s (singular values, or not a matrix "
                              "norm)", ord_s ? ord_s : isnan (ord) ? "nan" : ord == 2 ? "2" : ord == -2 ? "-2" : "other");
  if (isinf (ord))
    {
      gint64 t = d0;
      d0 = d1;
      d1 = t;
    }
  GraphValue *sum = reducesum (ctx, graph_op (G, "Abs", self, NULL), 1, &d0, keep);
  if (d1 > d0 && !keep)
    d1--;
  out[0] = sym_reduce (ctx, ord > 0 ? "ReduceMax" : "ReduceMin", sum, 1, &d1, keep);
  return TRUE;
}

/* ord of a norm (input 1): a number (*ord), a string (*ord_s), or None
 * (*is_none). */
static gboolean
norm_ord (SymContext *ctx, GraphNode *n, double *ord, const char **ord_s, gboolean *is_none, GError **error)
{
  GraphValue *src = graph_node_input (n, 1);
  *ord_s = NULL;
  *is_none = sym_is_none (src);
  if (*is_none || sym_get_const_double (src, ord))
    return TRUE;
  return sym_parse_args (ctx, n, "none,s", ord_s, error);
}

/* aten::linalg_matrix_norm(self, ord, dim, keepdim, dtype) */
static gboolean
sym_linalg_matrix_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize nd;
  const gint64 *dims;
  gboolean keep, none;
  double ord = 0;
  const char *ord_s;
  if (!sym_parse_args (ctx, n, "v,none,ds,b", &self, &nd, &dims, &keep, error)
      || !norm_ord (ctx, n, &ord, &ord_s, &none, error) || !norm_dtype (ctx, n, 4, &self, error))
    return FALSE;
  if (nd != 2 || none)
    /* torch 1.13: also refuses (PyTorch's matrix_norm takes two dims and an ord) */
    return sym_unimplemented (ctx, n, error, "a matrix norm over %zu dims", nd);
  return matrix_norm (ctx, n, self, ord_s, ord, dims[0], dims[1], keep, out, error);
}

/* aten::linalg_norm(self, ord, dim, keepdim, dtype), as torch's: no dim and
 * no ord, the 2-norm of the flattened input; no dim, the vector norm of a
 * 1-D input or the matrix norm of a 2-D one; one dim, a vector norm
 * (ord 2 by default); two dims, a matrix norm ("fro" by default); a string
 * ord, a matrix norm. */
static gboolean
sym_linalg_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gboolean keep, none;
  double ord = 2;
  const char *ord_s;
  if (!sym_parse_args (ctx, n, "v,none,none,b", &self, &keep, error)
      || !norm_ord (ctx, n, &ord, &ord_s, &none, error) || !norm_dtype (ctx, n, 4, &self, error))
    return FALSE;
  gsize nd = 0;
  const gint64 *dims = NULL;
  if (!sym_is_none (graph_node_input (n, 2)) && !sym_parse_args (ctx, n, "none,none,ds", &nd, &dims, error))
    return FALSE;
  int r = sym_rank (self);
  if (dims == NULL && none)
    return vector_norm (ctx, n, self, 2, 0, NULL, keep, out, error);
  if (dims == NULL && r == 1 && !ord_s)
    {
      static const gint64 zero = 0;
      return vector_norm (ctx, n, self, ord, 1, &zero, keep, out, error);
    }
  if (dims == NULL && r == 2)
    return matrix_norm (ctx, n, self, ord_s, ord, 0, 1, keep, out, error);
  if (dims && nd == 1 && !ord_s)
    return vector_norm (ctx, n, self, none ? 2 : ord, 1, dims, keep, out, error);
  if (dims && nd == 2)
    return matrix_norm (ctx, n, self, none ? "fro" : ord_s, ord, dims[0], dims[1], keep, out, error);
  /* torch 1.13: also refuses (PyTorch's linalg.norm rejects these ord/dim/rank combinations;
   * torch's symbolic needs the input's rank) */
  return sym_unimplemented (ctx, n, error, "linalg_norm of a rank-%d input over %zu dims", r, nd);
}

/* aten::any / aten::all (self) and (self, dim, keepdim), as torch's _any
 * and _all (ReduceSum of a 0/1 int64 tensor > 0; all = not any(not x)),
 * except that the input is made boolean first: torch casts it to int64,
 * so any(0.5) and any([1, -1]) (sum 0) give False where PyTorch gives
 * True, and its all applies Not to a non-bool input, which ONNX refuses. */
static gboolean
any_values (SymContext *ctx, GraphNode *n, GraphValue *x, gboolean negate, GraphValue **out, GError **error)
{
  gint64 dim = 0;
  gboolean keep = FALSE;
  guint nin = graph_node_n_inputs (n);
  if (nin == 3 && !sym_parse_args (ctx, n, "v,d,b", &x, &dim, &keep, error))
    return FALSE;
  if (nin != 1 && nin != 3)
    /* torch 1.13: also refuses (its _any/_all unpack one or three arguments) */
    return sym_unimplemented (ctx, n, error, "%s with %u arguments", graph_node_kind (n), nin);
  if (sym_dtype (x) != GRAPH_DTYPE_BOOL)
    x = sym_cast (ctx, x, GRAPH_DTYPE_BOOL);
  if (negate)
    x = graph_op (G, "Not", x, NULL);
  GraphValue *sum = sym_reduce (ctx, "ReduceSum", sym_cast (ctx, x, GRAPH_DTYPE_INT64), nin == 3 ? 1 : 0,
                                &dim, keep);
  out[0] = graph_op (G, "Greater", sum, sym_const_scalar (ctx, GRAPH_DTYPE_INT64, 0), NULL);
  if (negate)
    out[0] = graph_op (G, "Not", out[0], NULL);
  return TRUE;
}

static gboolean
sym_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  return sym_parse_args (ctx, n, "v", &self, error) && any_values (ctx, n, self, FALSE, out, error);
}

static gboolean
sym_all (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  return sym_parse_args (ctx, n, "v", &self, error) && any_values (ctx, n, self, TRUE, out, error);
}

static const SymEntry entries[] = {
  SYM_FN ("aten::any", sym_any),
  SYM_FN ("aten::all", sym_all),
  SYM_FN ("aten::amax", sym_amax),
  SYM_FN ("aten::amin", sym_amin),
  SYM_FN ("aten::logsumexp", sym_logsumexp),
  SYM_FN ("aten::var", sym_var),
  SYM_FN ("aten::std", sym_std),
  SYM_FN ("aten::var_mean", sym_var_mean),
  SYM_FN ("aten::std_mean", sym_std_mean),
  SYM_FN ("aten::cosine_similarity", sym_cosine_similarity),
  SYM_FN ("aten::pairwise_distance", sym_pairwise_distance),
  SYM_FN ("aten::norm", sym_norm),
  SYM_FN ("aten::frobenius_norm", sym_frobenius_norm_any),
  SYM_FN ("aten::linalg_vector_norm", sym_linalg_vector_norm),
  SYM_FN ("aten::linalg_matrix_norm", sym_linalg_matrix_norm),
  SYM_FN ("aten::linalg_norm", sym_linalg_norm),
};
const SymTable sym_opset9_reduce = SYM_TABLE (9, entries);
