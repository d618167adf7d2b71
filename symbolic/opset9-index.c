/* Opset 9 base set: indexing and scatter.  index_select/index pick with
 * Gather, take gathers from the flattened input, and scatter, scatter_add,
 * index_fill, index_copy and index_add write Scatter (ScatterElements from
 * opset 11).  torch computes several of these shapes at run time; the ones
 * here need them static and write them as constants.  The zero-filled
 * tensors they add into come from opset9-create.c (sym_const_filled). */
#include "symbolic/opset-tables.h"

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

/* aten::index(self, indices): one index tensor on the first dim. */
static gboolean
sym_index (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphNode *lc = graph_value_node (graph_node_input (n, 1));
  if (lc == NULL || !graph_node_is (lc, "prim::ListConstruct") || graph_node_n_inputs (lc) != 1)
    return sym_unimplemented (ctx, n, error, "indexing with more than one index tensor");
  GraphValue *idx = sym_value (ctx, graph_node_input (lc, 0), error);
  if (idx == NULL)
    return FALSE;
  if (sym_dtype (idx) == GRAPH_DTYPE_BOOL || sym_dtype (idx) == GRAPH_DTYPE_UINT8)
    return sym_unimplemented (ctx, n, error, "boolean mask indexing");
  out[0] = graph_op (G, "Gather", self, idx, "axis_i", (gint64) 0, NULL);
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
