/* Opset 9: operators torch 1.13 cannot export in ONNX mode (it needs
 * ATEN_FALLBACK) that standard ONNX expresses exactly (issue 12, "beyond
 * torch"): atan2, trunc, frac, cumprod, affine_grid_generator (2-D), and
 * outer, tril/triu and tensor_split below the opsets torch needs.  Each
 * is checked against eager PyTorch (tests/fixtures/symbolic, the cases
 * torch.onnx.export refuses) and listed in doc/symbolic.md. */
#include "symbolic/opset-tables.h"
#include <math.h>

#define G sym_graph (ctx)

/* trunc(x) = Sign(x) · Floor(|x|): exact on every float, ±0 and ±inf
 * included (Floor of an integer-valued float is itself). */
GraphValue *
sym_trunc_values (SymContext *ctx, GraphValue *x)
{
  return graph_op (G, "Mul", graph_op (G, "Sign", x, NULL),
                   graph_op (G, "Floor", graph_op (G, "Abs", x, NULL), NULL), NULL);
}

static gboolean
float_input (SymContext *ctx, GraphNode *n, GraphValue *x, GError **error)
{
  if (!graph_dtype_is_floating (sym_dtype (x)))
    /* torch 1.13: also refuses (no symbolic for atan2, frac or trunc) */
    return sym_unimplemented (ctx, n, error, "an input of type %s (floating point only)",
                              graph_dtype_name (sym_dtype (x)));
  return TRUE;
}

/* aten::trunc(self) */
static gboolean
sym_trunc (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error) || !float_input (ctx, n, x, error))
    return FALSE;
  out[0] = sym_trunc_values (ctx, x);
  return TRUE;
}

/* aten::frac(self) = self − trunc(self) */
static gboolean
sym_frac (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error) || !float_input (ctx, n, x, error))
    return FALSE;
  out[0] = graph_op (G, "Sub", x, sym_trunc_values (ctx, x), NULL);
  return TRUE;
}

/* aten::atan2(self, other): Atan(self / other), moved by ±π where other < 0
 * (by the sign of self, +π for self = 0), and ±π/2 · sign(self) where
 * other = 0 (0 where both are 0, as atan2(±0, +0)).  Within an ulp or two of
 * PyTorch's; atan2(±0, −0) = ±π in C gives 0 here. */
static gboolean
sym_atan2 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *y, *x;
  if (!sym_parse_args (ctx, n, "vv", &y, &x, error) || !float_input (ctx, n, y, error)
      || !float_input (ctx, n, x, error))
    return FALSE;
  if (sym_dtype (x) != sym_dtype (y))
    /* torch 1.13: also refuses (no symbolic for atan2) */
    return sym_unimplemented (ctx, n, error, "atan2 of %s and %s", graph_dtype_name (sym_dtype (y)),
                              graph_dtype_name (sym_dtype (x)));
  GraphValue *zero = sym_scalar_like (ctx, 0.0, y);
  GraphValue *pi = sym_scalar_like (ctx, G_PI, y);
  GraphValue *half_pi = sym_scalar_like (ctx, G_PI / 2, y);
  GraphValue *x_zero;
  if (sym_opset (ctx) >= 11)
    x_zero = graph_op (G, "Equal", x, zero, NULL);
  else   /* Equal-7 takes no floats: neither < 0 nor > 0, and not NaN */
    x_zero = graph_op (G, "Not",
                       graph_op (G, "Or", graph_op (G, "Or", graph_op (G, "Less", x, zero, NULL),
                                                    graph_op (G, "Greater", x, zero, NULL), NULL),
                                 graph_op (G, "IsNaN", x, NULL), NULL), NULL);
  /* a 1 divisor where x = 0 keeps the Div finite; that lane is replaced */
  GraphValue *safe_x = graph_op (G, "Where", x_zero, sym_scalar_like (ctx, 1.0, y), x, NULL);
  GraphValue *base = graph_op (G, "Atan", graph_op (G, "Div", y, safe_x, NULL), NULL);
  /* other < 0: + π for self ≥ 0, − π for self < 0 */
  GraphValue *y_neg = graph_op (G, "Less", y, zero, NULL);
  GraphValue *shift = graph_op (G, "Where", y_neg, graph_op (G, "Neg", pi, NULL), pi, NULL);
  GraphValue *left = graph_op (G, "Add", base, shift, NULL);
  GraphValue *r = graph_op (G, "Where", graph_op (G, "Less", x, zero, NULL), left, base, NULL);
  GraphValue *on_axis = graph_op (G, "Mul", graph_op (G, "Sign", y, NULL), half_pi, NULL);
  out[0] = graph_op (G, "Where", x_zero, on_axis, r, NULL);
  return TRUE;
}

/* aten::cumprod / cumsum (before opset 11's CumSum) (self, dim, dtype):
 * along a dim of static length L, the running products or sums
 * y_i = y_{i−1} ∘ x_i as L Slices, L − 1 Muls or Adds and one Concat —
 * PyTorch's own order of operations, so the same numbers.  The op is the
 * table line's data. */
#define RUNNING_MAX_LEN 1024

static gboolean
sym_running (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);
  GraphValue *x;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vd", &x, &dim, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_is_none (graph_node_input (n, 2)))
    {
      GraphDType dt = sym_scalar_type (graph_node_input (n, 2), GRAPH_DTYPE_UNDEFINED);
      if (dt == GRAPH_DTYPE_UNDEFINED)
        /* torch 1.13: also refuses (no cumprod symbolic; cumsum only from opset 11) */
        return sym_unimplemented (ctx, n, error, "a dtype argument that is not a constant");
      x = sym_cast (ctx, x, dt);
    }
  int r = sym_rank (graph_node_input (n, 0));
  gint64 dims[TENSOR_MAX_RANK];
  if (r < 0 || !sym_static_shape (graph_node_input (n, 0), dims))
    /* torch 1.13: also refuses (no cumprod symbolic; cumsum only from opset 11) */
    return sym_unimplemented (ctx, n, error, "a running %s of an input of unknown shape", op);
  if (r == 0)
    {
      out[0] = x;
      return TRUE;
    }
  gint64 ax = dim < 0 ? dim + r : dim;
  gint64 len = dims[ax];
  if (len == 0 || len > RUNNING_MAX_LEN)
    /* torch 1.13: also refuses (no cumprod symbolic; cumsum only from opset 11) */
    return sym_unimplemented (ctx, n, error, "a running %s along a dim of %" G_GINT64_FORMAT
                              " elements (1 to %d)", op, len, RUNNING_MAX_LEN);
  g_autofree GraphValue **parts = g_new (GraphValue *, len);
  for (gint64 i = 0; i < len; i++)
    {
      const gint64 start = i, end = i + 1;
      GraphValue *xi = sym_slice (ctx, x, 1, &ax, &start, &end, NULL);
      parts[i] = i == 0 ? xi : graph_op (G, op, parts[i - 1], xi, NULL);
    }
  out[0] = len == 1 ? parts[0] : graph_opv (G, "Concat", (guint) len, parts, "axis_i", ax, NULL);
  return out[0] != NULL;
}

/* PyTorch's linspace_from_neg_one: the n sample positions across [−1, 1]
 * (pixel centres unless align_corners; 0 for n = 1). */
static double
grid_pos (gint64 i, gint64 n, gboolean align_corners)
{
  if (n <= 1)
    return 0.0;
  double v = -1.0 + 2.0 * (double) i / (double) (n - 1);
  return align_corners ? v : v * (double) (n - 1) / (double) n;
}

/* Element i of an int list of n elements whose element i is a constant:
 * an int[] constant or a prim::ListConstruct with other elements computed. */
static gboolean
list_const_at (GraphValue *list, guint n, guint i, gint64 *v)
{
  g_autoptr (GArray) all = sym_get_const_ints (list);
  if (all)
    {
      if (all->len != n)
        return FALSE;
      *v = g_array_index (all, gint64, i);
      return TRUE;
    }
  GraphNode *p = graph_value_node (list);
  return p && g_strcmp0 (graph_node_kind (p), "prim::ListConstruct") == 0
         && graph_node_n_inputs (p) == n && sym_get_const_int (graph_node_input (p, i), v);
}

/* aten::affine_grid_generator(theta, size, align_corners), 2-D (size
 * [N, C, H, W], theta [N, 2, 3]): the constant base grid [1, H·W, 3] of
 * (x, y, 1) times theta transposed, reshaped to [N, H, W, 2]. */
static gboolean
sym_affine_grid_generator (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *theta;
  gboolean align;
  if (!sym_parse_args (ctx, n, "v,none,b", &theta, &align, error))
    return FALSE;
  GraphDType dt = sym_dtype (theta);
  /* H and W must be constants; N and C may be computed (x.size(0)): the
   * batch comes from theta through MatMul. */
  gint64 h, w;
  if (!list_const_at (graph_node_input (n, 1), 4, 2, &h) || !list_const_at (graph_node_input (n, 1), 4, 3, &w))
    /* torch 1.13: also refuses (no symbolic for affine_grid_generator) */
    return sym_unimplemented (ctx, n, error, "affine_grid whose size is not a 4-element list with "
                              "constant H and W (2-D only)");
  if (dt != GRAPH_DTYPE_FLOAT && dt != GRAPH_DTYPE_DOUBLE)
    /* torch 1.13: also refuses (no symbolic for affine_grid_generator) */
    return sym_unimplemented (ctx, n, error, "theta of type %s", graph_dtype_name (dt));
  if (h <= 0 || w <= 0 || h * w > (1 << 22))
    /* torch 1.13: also refuses (no symbolic for affine_grid_generator) */
    return sym_unimplemented (ctx, n, error, "a grid of %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, h, w);
  const gint64 bdims[] = { 1, h * w, 3 };
  g_autoptr (Tensor) base = tensor_new_zeroed (dt, 3, bdims, error);
  if (base == NULL)
    return FALSE;
  for (gint64 i = 0; i < h; i++)
    for (gint64 j = 0; j < w; j++)
      {
        double v[3] = { grid_pos (j, w, align), grid_pos (i, h, align), 1.0 };
        for (int k = 0; k < 3; k++)
          if (dt == GRAPH_DTYPE_FLOAT)
            ((float *) tensor_data (base))[(i * w + j) * 3 + k] = (float) v[k];
          else
            ((double *) tensor_data (base))[(i * w + j) * 3 + k] = v[k];
      }
  static const gint64 perm[] = { 0, 2, 1 };
  GraphValue *tt = graph_op (G, "Transpose", theta, "perm_is", 3, perm, NULL);
  GraphValue *grid = graph_op (G, "MatMul", sym_constant (ctx, base), tt, NULL);
  const gint64 shape[] = { -1, h, w, 2 };
  out[0] = sym_reshape_static (ctx, grid, 4, shape);
  return TRUE;
}

/* aten::outer(self, vec2) before opset 12 (Einsum): self[:, None] * vec2,
 * the same single multiplication per element. */
static gboolean
sym_outer9 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *a, *b;
  if (!sym_parse_args (ctx, n, "vv", &a, &b, error))
    return FALSE;
  GraphDType dt = sym_dtype (graph_node_output (n, 0));
  if (dt != GRAPH_DTYPE_UNDEFINED && sym_dtype (graph_node_input (n, 0)) != dt)
    a = sym_cast (ctx, a, dt);
  if (dt != GRAPH_DTYPE_UNDEFINED && sym_dtype (graph_node_input (n, 1)) != dt)
    b = sym_cast (ctx, b, dt);
  static const gint64 one = 1;
  out[0] = graph_op (G, "Mul", sym_unsqueeze (ctx, a, 1, &one), b, NULL);
  return TRUE;
}

/* The run-time mask of tril/triu for a computed size (from opset 11,
 * Range): col - row <= k (tril) or >= k (triu), of shape (h, w). */
static GraphValue *
trilu_runtime_mask (SymContext *ctx, GraphValue *self, int r, gint64 k, gboolean upper)
{
  const gint64 zero = 0, one = 1;
  GraphValue *iota[2];
  for (int i = 0; i < 2; i++)
    iota[i] = graph_op (G, "Range", sym_const_i64 (ctx, 0), sym_size (ctx, self, r - 2 + i),
                        sym_const_i64 (ctx, 1), NULL);
  GraphValue *diff = graph_op (G, "Sub", sym_unsqueeze (ctx, iota[1], 1, &zero),
                               sym_unsqueeze (ctx, iota[0], 1, &one), NULL);
  /* tril keeps diff <= k: Not (diff > k); triu keeps diff >= k: Not (diff < k) */
  GraphValue *out = graph_op (G, upper ? "Less" : "Greater", diff, sym_const_i64 (ctx, k), NULL);
  return graph_op (G, "Not", out, NULL);
}

/* aten::tril/triu(self, diagonal) before opset 14 (Trilu): the kept
 * triangle of the last two dims as a constant mask (a run-time one when a
 * size is computed, from opset 11), Where(mask, self, 0) — NaNs outside
 * the triangle become 0, as PyTorch. */
static gboolean
trilu9 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean upper)
{
  GraphValue *self;
  gint64 k = 0;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 1 && !sym_parse_args (ctx, n, "none,i", &k, error))
    return FALSE;
  gint64 dims[TENSOR_MAX_RANK];
  int r = sym_static_dims (graph_node_input (n, 0), dims);
  if (r < 2)
    /* torch 1.13: also refuses (tril/triu only from opset 14, as Trilu) */
    return sym_unimplemented (ctx, n, error, "tril/triu of an input of unknown rank before opset 14");
  gint64 h = dims[r - 2], w = dims[r - 1];
  GraphValue *mask_v;
  if (h < 0 || w < 0)
    {
      if (sym_opset (ctx) < 11)
        /* torch 1.13: also refuses (tril/triu only from opset 14, as Trilu) */
        return sym_unimplemented (ctx, n, error, "tril/triu of a computed size before opset 11");
      mask_v = trilu_runtime_mask (ctx, self, r, k, upper);
    }
  else
    {
      if (h * w > (1 << 24))
        /* torch 1.13: also refuses (tril/triu only from opset 14, as Trilu) */
        return sym_unimplemented (ctx, n, error, "a %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " mask", h, w);
      const gint64 md[] = { h, w };
      g_autoptr (Tensor) mask = tensor_new_zeroed (GRAPH_DTYPE_BOOL, 2, md, error);
      if (mask == NULL)
        return FALSE;
      guint8 *m = (guint8 *) tensor_data (mask);   /* new, owned: writable */
      for (gint64 i = 0; i < h; i++)
        for (gint64 j = 0; j < w; j++)
          m[i * w + j] = upper ? j - i >= k : j - i <= k;
      mask_v = sym_constant (ctx, mask);
    }
  out[0] = graph_op (G, "Where", mask_v, self, sym_scalar_like (ctx, 0.0, self), NULL);
  return TRUE;
}

static gboolean
sym_tril9 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return trilu9 (ctx, n, out, error, FALSE);
}

static gboolean
sym_triu9 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return trilu9 (ctx, n, out, error, TRUE);
}

/* aten::gather(self, dim, index, sparse_grad) before opset 11
 * (GatherElements): self flattened, and each index element's flat position
 * index · stride(dim) + Σ_{d ≠ dim} i_d · stride(d) (the second term a
 * constant of index's static shape), then one Gather — exact, where torch's
 * opset-9 form multiplies by a OneHot mask and sums (NaN wherever self holds
 * ±inf beside the gathered element). */
static gboolean
sym_gather9 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdv", &self, &dim, &index, error))
    return FALSE;
  int r = sym_rank (graph_node_input (n, 0));
  gint64 sd[TENSOR_MAX_RANK], id[TENSOR_MAX_RANK];
  if (r <= 0 || sym_rank (graph_node_input (n, 2)) != r || !sym_static_shape (graph_node_input (n, 0), sd)
      || !sym_static_shape (graph_node_input (n, 2), id))
    /* torch 1.13: exports it before opset 11 as OneHot, Mul and ReduceSum over run-time sizes
     * (right only when index matches self off dim); not yet here */
    return sym_unimplemented (ctx, n, error, "gather of inputs of unknown shape before opset 11");
  gint64 ax = dim < 0 ? dim + r : dim;
  gint64 stride[TENSOR_MAX_RANK], numel = 1;
  for (int d = r - 1; d >= 0; d--)
    {
      stride[d] = numel;
      numel *= sd[d];
      if (d != ax && id[d] > sd[d])
        /* torch 1.13: also refuses (PyTorch rejects an index larger than self off dim) */
        return sym_unimplemented (ctx, n, error, "an index larger than self along dim %d", d);
    }
  g_autoptr (Tensor) base = tensor_new_zeroed (GRAPH_DTYPE_INT64, (guint) r, id, error);
  if (base == NULL)
    return FALSE;
  gint64 *b = (gint64 *) tensor_data (base);   /* new, owned: writable */
  gint64 total = tensor_numel (base);
  for (gint64 i = 0; i < total; i++)
    {
      gint64 rest = i, flat = 0;
      for (int d = r - 1; d >= 0; d--)
        {
          gint64 c = rest % id[d];
          rest /= id[d];
          if (d != ax)
            flat += c * stride[d];
        }
      b[i] = flat;
    }
  if (sym_dtype (graph_node_input (n, 2)) != GRAPH_DTYPE_INT64)
    index = sym_cast (ctx, index, GRAPH_DTYPE_INT64);
  GraphValue *pos = graph_op (G, "Add", graph_op (G, "Mul", index, sym_const_i64 (ctx, stride[ax]), NULL),
                              sym_constant (ctx, base), NULL);
  static const gint64 flat_shape[] = { -1 };
  out[0] = graph_op (G, "Gather", sym_reshape_static (ctx, self, 1, flat_shape), pos, "axis_i", (gint64) 0, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::gather", sym_gather9),   /* opset 11: GatherElements */
  SYM_FN ("aten::outer", sym_outer9),
  SYM_FN ("aten::tril", sym_tril9),
  SYM_FN ("aten::triu", sym_triu9),
  SYM_FN ("aten::tensor_split", sym_tensor_split13),
  SYM_FN ("aten::trunc", sym_trunc),
  SYM_FN ("aten::frac", sym_frac),
  SYM_FN ("aten::atan2", sym_atan2),
  SYM_DATA ("aten::cumprod", sym_running, "Mul"),
  SYM_DATA ("aten::cumsum", sym_running, "Add"),   /* opset 11: CumSum */
  SYM_FN ("aten::affine_grid_generator", sym_affine_grid_generator),
};
const SymTable sym_opset9_beyond = SYM_TABLE (9, entries);
