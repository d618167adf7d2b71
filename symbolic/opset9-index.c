/* Opset 9 base set: indexing and scatter.  index_select/index pick with
 * Gather, take gathers from the flattened input, and scatter, scatter_add,
 * index_fill, index_copy and index_add write Scatter (ScatterElements from
 * opset 11).  torch computes several of these shapes at run time; the ones
 * here need them static and write them as constants.  The zero-filled
 * tensors they add into come from opset9-create.c (sym_const_filled). */
#include "symbolic/opset-tables.h"
#include <string.h>

#define G sym_graph (ctx)

/* aten::index_select(self, dim, index) */
static gboolean
sym_index_select (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdv", &self, &dim, &index, error))
    return FALSE;
  /* A 0-d index selects one entry but keeps the dim (size 1), unlike
   * Gather with a 0-d index, which drops it. */
  if (sym_rank (index) == 0)
    {
      static const gint64 one[] = { 1 };
      index = sym_reshape_static (ctx, index, 1, one);
    }
  out[0] = graph_op (G, "Gather", self, index, "axis_i", dim, NULL);
  return TRUE;
}

/* aten::index(self, indices), indices a list of tensors or None (x[:, i],
 * x[i, j]).  One integer index at dim p: Gather along p.  Several (from
 * opset 11): the indexed dims moved to the front, the indices broadcast to
 * their common static shape B, stacked on a last axis and reduced modulo
 * their dims (negative indices), one GatherND; the B dims go back where the
 * first index was when the indexed dims are adjacent, as PyTorch does.
 * Boolean masks are refused. */
static gboolean
sym_index (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphNode *lc = graph_value_node (graph_node_input (n, 1));
  if (lc == NULL || !graph_node_is (lc, "prim::ListConstruct"))
    return sym_unimplemented (ctx, n, error, "indices that are not a list");
  guint ni = graph_node_n_inputs (lc);
  int r = sym_rank (graph_node_input (n, 0));
  gint64 dims[TENSOR_MAX_RANK];
  guint pos[TENSOR_MAX_RANK], k = 0;
  if (r < 0 || ni > (guint) r)
    return sym_unimplemented (ctx, n, error, "indexing an input of unknown rank");
  for (guint i = 0; i < ni; i++)
    {
      GraphValue *s = graph_node_input (lc, i);
      if (sym_is_none (s))
        continue;
      GraphDType dt = sym_dtype (s);
      if (dt == GRAPH_DTYPE_BOOL || dt == GRAPH_DTYPE_UINT8)
        return sym_unimplemented (ctx, n, error, "boolean mask indexing");
      pos[k++] = i;
    }
  if (k == 0)
    {
      out[0] = self;
      return TRUE;
    }
  if (k == 1)
    {
      GraphValue *idx = sym_value (ctx, graph_node_input (lc, pos[0]), error);
      if (idx == NULL)
        return FALSE;
      out[0] = graph_op (G, "Gather", self, idx, "axis_i", (gint64) pos[0], NULL);
      return TRUE;
    }
  if (sym_opset (ctx) < 11)
    return sym_unimplemented (ctx, n, error, "indexing with several index tensors (from opset 11)");
  if (!sym_static_shape (graph_node_input (n, 0), dims))
    return sym_unimplemented (ctx, n, error, "indexing several dims of an input of unknown shape");
  /* the broadcast shape of the indices */
  gint64 b[TENSOR_MAX_RANK];
  int br = 0;
  for (guint j = 0; j < k; j++)
    {
      GraphValue *s = graph_node_input (lc, pos[j]);
      gint64 d[TENSOR_MAX_RANK];
      int rr = sym_rank (s);
      if (rr < 0 || !sym_static_shape (s, d))
        return sym_unimplemented (ctx, n, error, "index tensors of unknown shape");
      for (int a = 0; a < rr; a++)
        {
          int o = a + (br > rr ? br - rr : 0);
          if (rr > br)
            {
              memmove (b + (rr - br), b, (gsize) br * sizeof *b);
              for (int c = 0; c < rr - br; c++)
                b[c] = 1;
              br = rr;
              o = a;
            }
          if (b[o] == 1)
            b[o] = d[a];
          else if (d[a] != 1 && d[a] != b[o])
            return sym_unimplemented (ctx, n, error, "index tensors that do not broadcast");
        }
    }
  if (br + r - (int) k + 1 > TENSOR_MAX_RANK)
    return sym_unimplemented (ctx, n, error, "an index result of too high a rank");
  /* indexed dims first */
  gint64 perm[TENSOR_MAX_RANK];
  gboolean adjacent = TRUE;
  int np = 0;
  for (guint j = 0; j < k; j++)
    {
      perm[np++] = pos[j];
      adjacent = adjacent && (j == 0 || pos[j] == pos[j - 1] + 1);
    }
  for (int d = 0; d < r; d++)
    {
      gboolean indexed = FALSE;
      for (guint j = 0; j < k; j++)
        indexed = indexed || pos[j] == (guint) d;
      if (!indexed)
        perm[np++] = d;
    }
  gboolean identity = TRUE;
  for (int d = 0; d < r; d++)
    identity = identity && perm[d] == d;
  GraphValue *t = identity ? self : graph_op (G, "Transpose", self, "perm_is", r, perm, NULL);
  g_autoptr (Tensor) bshape = tensor_new_int64_vector ((guint) br, b);
  GraphValue *bs = sym_constant (ctx, bshape);
  g_autofree GraphValue **parts = g_new (GraphValue *, k);
  const gint64 last = br;
  for (guint j = 0; j < k; j++)
    {
      GraphValue *iv = sym_value (ctx, graph_node_input (lc, pos[j]), error);
      if (iv == NULL)
        return FALSE;
      if (sym_dtype (graph_node_input (lc, pos[j])) != GRAPH_DTYPE_INT64)
        iv = sym_cast (ctx, iv, GRAPH_DTYPE_INT64);
      iv = graph_op (G, "Mod", iv, sym_const_i64 (ctx, dims[pos[j]]), NULL);   /* negative indices */
      parts[j] = sym_unsqueeze (ctx, graph_op (G, "Expand", iv, bs, NULL), 1, &last);
    }
  GraphValue *stacked = graph_opv (G, "Concat", k, parts, "axis_i", (gint64) br, NULL);
  GraphValue *g = graph_op (G, "GatherND", t, stacked, NULL);
  if (adjacent && pos[0] > 0)
    {
      /* GatherND gives B + dims[:p] + dims[p+k:]; PyTorch dims[:p] + B + ... */
      gint64 back[TENSOR_MAX_RANK];
      int m = 0, p = (int) pos[0], rest = r - (int) k;
      for (int d = 0; d < p; d++)
        back[m++] = br + d;
      for (int d = 0; d < br; d++)
        back[m++] = d;
      for (int d = p; d < rest; d++)
        back[m++] = br + d;
      g = graph_op (G, "Transpose", g, "perm_is", m, back, NULL);
    }
  out[0] = g;
  return TRUE;
}

/* aten::where(condition, self, other) */
/* aten::take(self, index): Gather from the flattened input, reshaped as index */
static gboolean
sym_take (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index;
  if (!sym_parse_args (ctx, n, "vv", &self, &index, error))
    return FALSE;
  static const gint64 flat[] = { -1 };
  GraphValue *f = sym_reshape_static (ctx, self, 1, flat);
  GraphValue *g = graph_op (G, "Gather", f, index, "axis_i", (gint64) 0, NULL);
  out[0] = sym_reshape (ctx, g, sym_size (ctx, index, G_MININT64));
  return TRUE;
}

/* aten::scatter(self, dim, index, src|value): Scatter before 11,
 * ScatterElements from 11; a scalar value takes self's type and index's
 * shape (Expand). */
gboolean
sym_scatter_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  const char *op = sym_opset (ctx) >= 11 ? "ScatterElements" : "Scatter";
  double v;
  GraphValue *s = graph_node_input (n, 3);
  if (sym_rank (s) <= 0 && sym_get_const_double (s, &v))
    {
      GraphValue *c = sym_scalar_like (ctx, v, self);
      src = graph_op (G, "Expand", c, sym_size (ctx, index, G_MININT64), NULL);
    }
  out[0] = graph_op (G, op, self, index, src, "axis_i", dim, NULL);
  return TRUE;
}

/* aten::scatter_add(self, dim, index, src) before 16: self + a scatter of
 * src into zeros (a constant when self's shape is static). */
static gboolean
sym_scatter_add (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  GraphDType dt = sym_dtype (self);
  if (dt == GRAPH_DTYPE_UNDEFINED)
    return sym_unimplemented (ctx, n, error, "scatter_add of an input of unknown type");
  gint64 dims[TENSOR_MAX_RANK];
  int rank = sym_rank (self);
  GraphValue *zeros = rank >= 0 && rank <= TENSOR_MAX_RANK && sym_static_shape (self, dims)
                        ? sym_const_filled (ctx, (gsize) rank, dims, dt, 0.0) : NULL;
  if (zeros == NULL)
    zeros = sym_constant_of_shape (ctx, sym_size (ctx, self, G_MININT64), dt, 0.0);
  const char *op = sym_opset (ctx) >= 11 ? "ScatterElements" : "Scatter";
  GraphValue *to_add = graph_op (G, op, zeros, index, src, "axis_i", dim, NULL);
  out[0] = graph_op (G, "Add", self, to_add, NULL);
  return TRUE;
}

/* aten::index_fill(self, dim, index, value) / index_copy(self, dim, index,
 * source): the index unsqueezed to self's rank and expanded to self's
 * shape with index's length at dim, then a scatter along dim.  torch
 * computes that shape at run time (Shape/Scatter); we need it static and
 * write it as a constant. */
static gboolean
index_scatter (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean fill)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  int rank = sym_rank (self);
  gint64 dims[TENSOR_MAX_RANK], idims[TENSOR_MAX_RANK];
  int irank = sym_rank (index);
  if (rank < 1 || rank > TENSOR_MAX_RANK || !sym_static_shape (self, dims) || irank > 1
      || (irank == 1 && !sym_static_shape (index, idims)))
    return sym_unimplemented (ctx, n, error, "index_fill/index_copy of dynamic shapes");
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    return sym_unimplemented (ctx, n, error, "dim out of range");
  dims[dim] = irank == 1 ? idims[0] : 1;
  gint64 axes[TENSOR_MAX_RANK];
  gsize na = 0;
  for (int i = 0; i < rank; i++)
    if (i != dim)
      axes[na++] = i;
  if (irank == 0)
    {
      gint64 zero = 0;
      index = sym_unsqueeze (ctx, index, 1, &zero);
    }
  GraphValue *shape = sym_const_ints (ctx, (gsize) rank, dims);
  GraphValue *idx = na ? sym_unsqueeze (ctx, index, na, axes) : index;
  idx = graph_op (G, "Expand", idx, shape, NULL);
  if (fill)
    {
      double v;
      GraphValue *val = sym_get_const_double (graph_node_input (n, 3), &v)
                          ? sym_scalar_like (ctx, v, self) : src;
      src = graph_op (G, "Expand", val, sym_const_ints (ctx, (gsize) rank, dims), NULL);
    }
  const char *op = sym_opset (ctx) >= 11 ? "ScatterElements" : "Scatter";
  out[0] = graph_op (G, op, self, idx, src, "axis_i", dim, NULL);
  return TRUE;
}

static gboolean
sym_index_fill (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return index_scatter (ctx, n, out, error, TRUE);
}

static gboolean
sym_index_copy (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return index_scatter (ctx, n, out, error, FALSE);
}

/* aten::index_add(self, dim, index, source, alpha): source scattered-added
 * along dim at index (unsqueezed and expanded to source's shape), as
 * torch's opset-9 scatter_add (at every opset: zeros, a scatter, Add).
 * torch computes the expanded shapes at run time (Slice/Shape/Expand); we
 * need them static.  Like torch's export, duplicate indices are not summed. */
static gboolean
sym_index_add (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  double alpha;
  GraphValue *a = graph_node_n_inputs (n) > 4 ? graph_node_input (n, 4) : NULL;
  if (a && !sym_is_none (a) && (!sym_get_const_double (a, &alpha) || alpha != 1.0))
    return sym_unimplemented (ctx, n, error, "index_add with alpha != 1");
  int rank = sym_rank (self), srank = sym_rank (src), irank = sym_rank (index);
  gint64 dims[TENSOR_MAX_RANK], sdims[TENSOR_MAX_RANK];
  if (rank < 1 || rank > TENSOR_MAX_RANK || srank != rank || irank != 1
      || !sym_static_shape (self, dims) || !sym_static_shape (src, sdims))
    return sym_unimplemented (ctx, n, error, "index_add of dynamic shapes");
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    return sym_unimplemented (ctx, n, error, "dim out of range");
  gint64 axes[TENSOR_MAX_RANK];
  gsize na = 0;
  for (int i = 0; i < rank; i++)
    if (i != dim)
      axes[na++] = i;
  GraphValue *idx = na ? sym_unsqueeze (ctx, index, na, axes) : index;
  idx = graph_op (G, "Expand", idx, sym_const_ints (ctx, (gsize) rank, sdims), NULL);
  GraphValue *zeros = sym_const_filled (ctx, (gsize) rank, dims, sym_dtype (self), 0.0);
  if (zeros == NULL)
    return sym_unimplemented (ctx, n, error, "index_add of this element type");
  const char *op = sym_opset (ctx) >= 11 ? "ScatterElements" : "Scatter";
  GraphValue *to_add = graph_op (G, op, zeros, idx, src, "axis_i", dim, NULL);
  out[0] = graph_op (G, "Add", self, to_add, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::index_select", sym_index_select),
  SYM_FN ("aten::index", sym_index),
  SYM_FN ("aten::take", sym_take),
  SYM_FN ("aten::index_fill", sym_index_fill),
  SYM_FN ("aten::index_copy", sym_index_copy),
  SYM_FN ("aten::index_add", sym_index_add),
  SYM_FN ("aten::scatter", sym_scatter_any),
  SYM_FN ("aten::scatter_add", sym_scatter_add),
};
const SymTable sym_opset9_index = SYM_TABLE (9, entries);
