/* symonnx — declared shapes that contradict each other (symbolic/
 * aten-schemas.h).  The trace text is the user's or a fuzzer's, not
 * torch's: an export built on shapes no run can have would be a wrong
 * model, so a node whose inputs' declared shapes cannot go together is
 * refused before its symbolic runs, naming both values.  Only static dims
 * are compared; a dim that is symbolic or unknown never contradicts. */
#include "symbolic/aten-schemas.h"
#include "symbolic/translate.h"
#include <string.h>

/* The declared tensor type of a source value with a known rank, else NULL. */
static GraphType *
ranked (GraphValue *v)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  return t && graph_type_is_tensor (t) && graph_type_rank (t) >= 0 ? t : NULL;
}

/* Dim i (negative: from the end) of a source value's declared tensor type
 * when it is static, else -1. */
static gint64
declared_dim (GraphValue *v, int i)
{
  GraphType *t = ranked (v);
  if (t == NULL)
    return -1;
  int r = graph_type_rank (t);
  if (i >= r || i < -r)
    return -1;
  const GraphDim *d = graph_type_dim (t, (guint) (i < 0 ? i + r : i));
  return d && d->kind == GRAPH_DIM_STATIC ? d->value : -1;
}

static const char *
label (GraphValue *v)
{
  const char *name = graph_value_get_name (v);
  return name ? name : "?";
}

/* The error: "aten::op (node ...): the declared shapes do not fit: <what>",
 * where `what` names both values (%a : Float(3, 4)). */
static gboolean G_GNUC_PRINTF (3, 4)
contradiction (GraphNode *n, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autofree char *where = sym_node_location (n);
  g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s (%s): the declared shapes do not fit: %s",
               graph_node_kind (n), where, what);
  return FALSE;
}

/* "%a : Float(3, 4)" (transfer full) */
static char *
value_text (GraphValue *v)
{
  g_autofree char *t = graph_type_to_string (graph_value_type (v));
  return g_strdup_printf ("%%%s : %s", label (v), t);
}

/* matmul/mm/bmm/linear: the contracted dims agree. */
static gboolean
check_matmul (GraphNode *n, gboolean linear, GError **error)
{
  GraphValue *a = graph_node_input (n, 0), *b = graph_node_input (n, 1);
  GraphType *tb = ranked (b);
  int rb = tb ? graph_type_rank (tb) : -1;
  gint64 ka = declared_dim (a, -1);
  gint64 kb = linear ? declared_dim (b, -1) : rb == 1 ? declared_dim (b, 0) : declared_dim (b, -2);
  if (ka < 0 || kb < 0 || ka == kb)
    return TRUE;
  g_autofree char *sa = value_text (a), *sb = value_text (b);
  return contradiction (n, error,
                        "%s has %" G_GINT64_FORMAT " columns but %s has %" G_GINT64_FORMAT " %s",
                        sa, ka, sb, kb, linear ? "columns" : "rows");
}

/* Element-wise ops: every pair of tensor inputs broadcasts (numpy's rule:
 * right-aligned, equal or 1).  Scalars and undeclared shapes are skipped. */
static gboolean
check_broadcast (GraphNode *n, guint n_tensors, GError **error)
{
  guint k = MIN (graph_node_n_inputs (n), n_tensors);
  for (guint i = 0; i < k; i++)
    for (guint j = i + 1; j < k; j++)
      {
        GraphValue *a = graph_node_input (n, i), *b = graph_node_input (n, j);
        GraphType *ta = ranked (a), *tb = ranked (b);
        if (ta == NULL || tb == NULL)
          continue;
        int r = MIN (graph_type_rank (ta), graph_type_rank (tb));
        for (int d = 1; d <= r; d++)
          {
            gint64 x = declared_dim (a, -d), y = declared_dim (b, -d);
            if (x < 0 || y < 0 || x == y || x == 1 || y == 1)
              continue;
            g_autofree char *sa = value_text (a), *sb = value_text (b);
            return contradiction (n, error,
                                  "%s and %s do not broadcast: dim -%d is %" G_GINT64_FORMAT
                                  " in one and %" G_GINT64_FORMAT " in the other",
                                  sa, sb, d, x, y);
          }
      }
  return TRUE;
}

/* cat and stack: the tensors of the list have one rank and agree off the
 * cat dim (stack: at every dim; cat skips legacy empty 1-D tensors, shape
 * [0], as torch does). */
static gboolean
check_list_shapes (GraphNode *n, gboolean stack, GError **error)
{
  GraphNode *list = graph_node_n_inputs (n) ? graph_value_node (graph_node_input (n, 0)) : NULL;
  gint64 dim = -1;
  if (list == NULL || !graph_node_is (list, "prim::ListConstruct")
      || (!stack && (graph_node_n_inputs (n) < 2 || !sym_get_const_int (graph_node_input (n, 1), &dim))))
    return TRUE;
  const char *why = stack ? "; stack takes one shape" : "";
  GraphValue *first = NULL;
  for (guint i = 0; i < graph_node_n_inputs (list); i++)
    {
      GraphValue *v = graph_node_input (list, i);
      GraphType *t = ranked (v);
      if (t == NULL || (!stack && graph_type_rank (t) == 1 && declared_dim (v, 0) == 0))
        continue;
      if (first == NULL)
        {
          first = v;
          continue;
        }
      int r = graph_type_rank (ranked (first));
      g_autofree char *sa = value_text (first), *sb = value_text (v);
      if (graph_type_rank (t) != r)
        return contradiction (n, error, "%s and %s have different ranks%s", sa, sb, why);
      gint64 cd = stack ? -1 : dim < 0 ? dim + r : dim;
      if (!stack && (cd < 0 || cd >= r))
        return TRUE;   /* the dim's own check names it */
      for (int d = 0; d < r; d++)
        {
          gint64 x = declared_dim (first, d), y = declared_dim (v, d);
          if (d == cd || x < 0 || y < 0 || x == y)
            continue;
          if (stack)
            return contradiction (n, error, "%s and %s differ at dim %d (%" G_GINT64_FORMAT " vs %"
                                  G_GINT64_FORMAT ")%s", sa, sb, d, x, y, why);
          return contradiction (n, error,
                                "%s and %s differ at dim %d (%" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT
                                "), which is not the cat dim %" G_GINT64_FORMAT, sa, sb, d, x, y, dim);
        }
    }
  return TRUE;
}

/* Convolutions: the input's channels are the weight's in-channels times
 * groups (transposed: the weight's first dim).  `transposed_at`/`groups_at`:
 * the argument positions (-1: a fixed answer, `transposed`). */
static gboolean
check_conv (GraphNode *n, int transposed_at, gboolean transposed, int groups_at, GError **error)
{
  guint k = graph_node_n_inputs (n);
  if (k < 2 || (transposed_at >= 0 && (guint) transposed_at >= k)
      || (groups_at >= 0 && (guint) groups_at >= k))
    return TRUE;
  GraphValue *x = graph_node_input (n, 0), *w = graph_node_input (n, 1);
  GraphType *tx = ranked (x), *tw = ranked (w);
  gint64 groups = 1, tr = transposed;
  if (tx == NULL || tw == NULL
      || (transposed_at >= 0 && !sym_get_const_int (graph_node_input (n, transposed_at), &tr))
      || (groups_at >= 0 && !sym_get_const_int (graph_node_input (n, groups_at), &groups))
      || groups < 1)
    return TRUE;
  int rx = graph_type_rank (tx), rw = graph_type_rank (tw);
  /* batched [N, C, ...] or unbatched [C, ...] */
  int cdim = rx == rw ? 1 : rx == rw - 1 ? 0 : -1;
  gint64 c = cdim < 0 ? -1 : declared_dim (x, cdim);
  gint64 wc = declared_dim (w, tr ? 0 : 1);
  if (c < 0 || wc < 0)
    return TRUE;
  if (tr ? c == wc : (wc <= G_MAXINT64 / groups && c == wc * groups))
    return TRUE;
  g_autofree char *sx = value_text (x), *sw = value_text (w);
  if (tr)
    return contradiction (n, error,
                          "%s has %" G_GINT64_FORMAT " channels but the transposed weight %s takes %"
                          G_GINT64_FORMAT, sx, c, sw, wc);
  return contradiction (n, error,
                        "%s has %" G_GINT64_FORMAT " channels but the weight %s takes %" G_GINT64_FORMAT
                        " (%" G_GINT64_FORMAT " per group, groups = %" G_GINT64_FORMAT ")",
                        sx, c, sw, wc * groups, wc, groups);
}

/* The element count of a declared static shape; FALSE when not static (or
 * overflowing: the parser refuses that). */
static gboolean
declared_numel (GraphValue *v, gint64 *numel)
{
  GraphType *t = ranked (v);
  gint64 dims[TENSOR_MAX_RANK];
  return t && graph_type_rank (t) <= TENSOR_MAX_RANK && graph_type_static_shape (t, dims)
         && tensor_shape_numel ((guint) graph_type_rank (t), dims, numel);
}

/* view/reshape(self, size): the size list (constant: at most one -1) and
 * the declared result hold self's element count. */
static gboolean
check_view (GraphNode *n, GError **error)
{
  GraphValue *x = graph_node_input (n, 0), *s = graph_node_input (n, 1);
  GraphType *ts = graph_value_type (s);
  gint64 numel;
  if (ts == NULL || graph_type_kind (ts) != GRAPH_TYPE_LIST || !declared_numel (x, &numel))
    return TRUE;   /* view(dtype) or a shape not declared */
  g_autofree char *sx = value_text (x);
  gint64 out;
  GraphValue *y = graph_node_n_outputs (n) ? graph_node_output (n, 0) : NULL;
  if (y && declared_numel (y, &out) && out != numel)
    {
      g_autofree char *sy = value_text (y);
      return contradiction (n, error,
                            "%s has %" G_GINT64_FORMAT " elements but the result %s has %"
                            G_GINT64_FORMAT, sx, numel, sy, out);
    }
  g_autoptr (GArray) size = sym_get_const_ints (s);
  if (size == NULL)
    return TRUE;
  gint64 known = 1;
  int inferred = 0;
  gboolean overflow = FALSE;
  for (guint i = 0; i < size->len; i++)
    {
      gint64 d = g_array_index (size, gint64, i);
      if (d == -1)
        inferred++;
      else if (d < 0)
        return contradiction (n, error, "the size has a dim of %" G_GINT64_FORMAT " for %s", d, sx);
      else if (d != 0 && known > G_MAXINT64 / d)
        overflow = TRUE;
      else
        known *= d;
    }
  if (inferred > 1)
    return contradiction (n, error, "the size infers %d dims (-1) for %s; at most one can be",
                          inferred, sx);
  if (overflow || (inferred == 0 && known != numel) || (inferred == 1 && known != 0 && numel % known))
    return contradiction (n, error,
                          "%s has %" G_GINT64_FORMAT " elements, which a size of %s%" G_GINT64_FORMAT
                          " elements cannot hold", sx, numel, inferred ? "a multiple of " : "", known);
  return TRUE;
}

/* expand(self, size): the size has at least self's rank, and each of
 * self's dims (right-aligned) is the size's, 1, or kept by -1; a new
 * leading dim cannot be -1, and no size is below -1. */
static gboolean
check_expand (GraphNode *n, GError **error)
{
  GraphValue *x = graph_node_input (n, 0);
  GraphType *tx = ranked (x);
  g_autoptr (GArray) size = sym_get_const_ints (graph_node_input (n, 1));
  if (tx == NULL || size == NULL)
    return TRUE;
  int r = graph_type_rank (tx), k = (int) size->len;
  g_autofree char *sx = value_text (x);
  if (k < r)
    return contradiction (n, error, "the size has %d dims, fewer than the %d of %s", k, r, sx);
  for (int i = 0; i < k; i++)
    {
      gint64 want = g_array_index (size, gint64, i);
      int d = i - (k - r);   /* self's dim, or < 0 for a new leading dim */
      if (want < -1 || (want == -1 && d < 0))
        return contradiction (n, error, "the size has %" G_GINT64_FORMAT " at dim %d for %s%s", want, i, sx,
                              want == -1 ? ", a new leading dim that -1 cannot keep" : "");
      gint64 have = d < 0 ? -1 : declared_dim (x, d);
      if (want == -1 || have < 0 || have == want || have == 1)
        continue;
      return contradiction (n, error,
                            "%s cannot expand to the size's %" G_GINT64_FORMAT " at dim %d: its dim %d is %"
                            G_GINT64_FORMAT ", neither 1 nor %" G_GINT64_FORMAT, sx, want, i, d, have, want);
    }
  return TRUE;
}

/* Setting i of a pooling list (one value stands for every spatial dim;
 * `dflt` for an empty list, as an empty stride means the kernel). */
static gint64
pool_setting (GArray *a, int i, gint64 dflt)
{
  if (a == NULL || a->len == 0)
    return dflt;
  if (a->len != 1 && (guint) i >= a->len)
    return -1;   /* a list shorter than the spatial dims: not judged here (the check skips -1) */
  return g_array_index (a, gint64, a->len == 1 ? 0 : i);
}

/* max_pool / avg_pool (self, kernel_size, stride, padding[, dilation],
 * ceil_mode ...): as PyTorch's pool_shape_check, the padding is at most
 * half the (dilated) kernel and every spatial output dim is at least 1. */
static gboolean
check_pool (GraphNode *n, int n_spatial, gboolean dilated, GError **error)
{
  GraphValue *x = graph_node_input (n, 0);
  GraphType *tx = ranked (x);
  guint k = graph_node_n_inputs (n);
  int ceil_at = dilated ? 5 : 4;
  gint64 ceil_mode = 0;
  g_autoptr (GArray) kernel = sym_get_const_ints (graph_node_input (n, 1));
  g_autoptr (GArray) stride = k > 2 ? sym_get_const_ints (graph_node_input (n, 2)) : NULL;
  g_autoptr (GArray) pad = k > 3 ? sym_get_const_ints (graph_node_input (n, 3)) : NULL;
  g_autoptr (GArray) dil = dilated && k > 4 ? sym_get_const_ints (graph_node_input (n, 4)) : NULL;
  if (tx == NULL || kernel == NULL || kernel->len == 0 || graph_type_rank (tx) < n_spatial
      || ((guint) ceil_at < k && !sym_get_const_int (graph_node_input (n, ceil_at), &ceil_mode)))
    return TRUE;
  int r = graph_type_rank (tx);
  g_autofree char *sx = value_text (x);
  for (int i = 0; i < n_spatial; i++)
    {
      gint64 in = declared_dim (x, r - n_spatial + i);
      gint64 kk = pool_setting (kernel, i, 1), s = pool_setting (stride, i, kk);
      gint64 p = pool_setting (pad, i, 0), d = pool_setting (dil, i, 1);
      /* the symbolic's own argument checks name settings out of range */
      if (in < 0 || kk < 1 || s < 1 || p < 0 || d < 1 || kk > G_MAXINT32 || s > G_MAXINT32 || p > G_MAXINT32
          || d > G_MAXINT32 || in > G_MAXINT32)
        continue;
      gint64 span = d * (kk - 1) + 1;
      if (2 * p > span)
        return contradiction (n, error,
                              "the padding %" G_GINT64_FORMAT " is more than half the kernel's %" G_GINT64_FORMAT
                              " at spatial dim %d of %s", p, span, i, sx);
      /* PyTorch's pooling_output_shape: division rounding toward -inf */
      gint64 room = in + 2 * p - span + (ceil_mode ? s - 1 : 0);
      gint64 out = (room >= 0 ? room / s : -((-room + s - 1) / s)) + 1;
      if (ceil_mode && (out - 1) * s >= in + p)
        out--;
      /* max_pool1d alone returns an empty result for an output size of 0 */
      if (out < (strcmp (graph_node_kind (n), "aten::max_pool1d") == 0 ? 0 : 1))
        return contradiction (n, error,
                              "the pooling window of %" G_GINT64_FORMAT " does not fit spatial dim %d of %s (%"
                              G_GINT64_FORMAT ", padding %" G_GINT64_FORMAT "): no output", span, i, sx, in, p);
    }
  return TRUE;
}

/* index(self, indices): a boolean mask's dims are self's dims where it
 * stands (a mask of rank m covers m dims; None and an integer index one);
 * the integer index tensors broadcast together. */
static gboolean
check_index (GraphNode *n, GError **error)
{
  GraphValue *x = graph_node_input (n, 0);
  GraphNode *list = graph_value_node (graph_node_input (n, 1));
  GraphType *tx = ranked (x);
  if (tx == NULL || list == NULL || !graph_node_is (list, "prim::ListConstruct"))
    return TRUE;
  int r = graph_type_rank (tx), at = 0;
  GraphValue *first_int = NULL;
  g_autofree char *sx = value_text (x);
  for (guint i = 0; i < graph_node_n_inputs (list); i++)
    {
      GraphValue *v = graph_node_input (list, i);
      GraphType *t = sym_is_none (v) ? NULL : ranked (v);
      gboolean mask = t && (graph_type_dtype (t) == GRAPH_DTYPE_BOOL || graph_type_dtype (t) == GRAPH_DTYPE_UINT8);
      int covers = mask ? graph_type_rank (t) : 1;
      if (t == NULL && !sym_is_none (v))
        return TRUE;   /* an index of unknown rank: positions unknown from here */
      if (at + covers > r)
        return contradiction (n, error, "the indices cover %d dims but %s has %d", at + covers, sx, r);
      if (mask)
        {
          for (int d = 0; d < covers; d++)
            {
              gint64 m = declared_dim (v, d), s = declared_dim (x, at + d);
              if (m >= 0 && s >= 0 && m != s)
                {
                  g_autofree char *sv = value_text (v);
                  return contradiction (n, error,
                                        "the mask %s has %" G_GINT64_FORMAT " at its dim %d where %s has %"
                                        G_GINT64_FORMAT " (dim %d)", sv, m, d, sx, s, at + d);
                }
            }
        }
      else if (t != NULL)
        {
          if (first_int == NULL)
            first_int = v;
          else
            {
              GraphType *ta = ranked (first_int);
              int rr = MIN (graph_type_rank (ta), graph_type_rank (t));
              for (int d = 1; d <= rr; d++)
                {
                  gint64 a = declared_dim (first_int, -d), b = declared_dim (v, -d);
                  if (a < 0 || b < 0 || a == b || a == 1 || b == 1)
                    continue;
                  g_autofree char *sa = value_text (first_int), *sb = value_text (v);
                  return contradiction (n, error,
                                        "the indices %s and %s do not broadcast: dim -%d is %" G_GINT64_FORMAT
                                        " in one and %" G_GINT64_FORMAT " in the other", sa, sb, d, a, b);
                }
            }
        }
      at += covers;
    }
  return TRUE;
}

/* The element-wise ops whose tensor arguments broadcast together, and how
 * many leading arguments are tensors that take part; sorted by name. */
typedef struct
{
  const char *name;
  guint       n_tensors;
} Broadcasting;

static const Broadcasting broadcasting[] = {
  { "__and__", 2 }, { "__or__", 2 }, { "__xor__", 2 }, { "add", 2 }, { "addcdiv", 3 },
  { "addcmul", 3 }, { "atan2", 2 }, { "bitwise_and", 2 }, { "bitwise_or", 2 },
  { "bitwise_xor", 2 }, { "copysign", 2 }, { "div", 2 }, { "eq", 2 }, { "floor_divide", 2 },
  { "fmax", 2 }, { "fmin", 2 }, { "fmod", 2 }, { "ge", 2 }, { "gt", 2 }, { "hypot", 2 },
  { "le", 2 }, { "lerp", 3 }, { "logical_and", 2 }, { "logical_or", 2 }, { "logical_xor", 2 },
  { "lt", 2 }, { "masked_fill", 2 }, { "maximum", 2 }, { "minimum", 2 }, { "mul", 2 },
  { "ne", 2 }, { "pow", 2 }, { "remainder", 2 }, { "rsub", 2 }, { "sub", 2 },
  { "true_divide", 2 }, { "where", 3 }, { "xlogy", 2 },
};

static int
compare_broadcasting (const void *key, const void *entry)
{
  return strcmp (key, ((const Broadcasting *) entry)->name);
}

gboolean
sym_check_declared_shapes (GraphNode *n, GError **error)
{
  const char *kind = graph_node_kind (n);
  if (!g_str_has_prefix (kind, "aten::") || graph_node_n_inputs (n) < 2)
    return TRUE;
  g_autofree char *base = g_strdup (kind + 6);
  if (sym_kind_is_inplace (kind))
    base[strlen (base) - 1] = '\0';   /* add_ broadcasts as add */
  if (strcmp (base, "matmul") == 0 || strcmp (base, "mm") == 0 || strcmp (base, "bmm") == 0)
    return check_matmul (n, FALSE, error);
  if (strcmp (base, "linear") == 0)
    return check_matmul (n, TRUE, error);
  if (strcmp (base, "cat") == 0 || strcmp (base, "concat") == 0)
    return check_list_shapes (n, FALSE, error);
  if (strcmp (base, "view") == 0 || strcmp (base, "reshape") == 0)
    return check_view (n, error);
  if (strcmp (base, "_convolution") == 0 || strcmp (base, "convolution") == 0)
    return check_conv (n, 6, FALSE, 8, error);
  if (strcmp (base, "conv1d") == 0 || strcmp (base, "conv2d") == 0 || strcmp (base, "conv3d") == 0)
    return check_conv (n, -1, FALSE, 6, error);
  if (g_str_has_prefix (base, "conv_transpose") && strlen (base) == strlen ("conv_transpose1d"))
    return check_conv (n, -1, TRUE, 6, error);
  if (strcmp (base, "expand") == 0)
    return check_expand (n, error);
  if (strcmp (base, "stack") == 0)
    return check_list_shapes (n, TRUE, error);
  if (strcmp (base, "index") == 0)
    return check_index (n, error);
  static const struct { const char *name; int n_spatial; gboolean max; } pools[] = {
    { "max_pool1d", 1, TRUE }, { "max_pool2d", 2, TRUE }, { "max_pool3d", 3, TRUE },
    { "max_pool1d_with_indices", 1, TRUE }, { "max_pool2d_with_indices", 2, TRUE },
    { "max_pool3d_with_indices", 3, TRUE },
    { "avg_pool1d", 1, FALSE }, { "avg_pool2d", 2, FALSE }, { "avg_pool3d", 3, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (pools); i++)
    if (strcmp (base, pools[i].name) == 0)
      return check_pool (n, pools[i].n_spatial, pools[i].max, error);
  const Broadcasting *b = bsearch (base, broadcasting, G_N_ELEMENTS (broadcasting),
                                   sizeof (Broadcasting), compare_broadcasting);
  return b == NULL || check_broadcast (n, b->n_tensors, error);
}
