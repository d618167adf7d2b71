/* Opset 13: Softmax/LogSoftmax normalise along one axis (no transpose
 * needed); Split/Squeeze/Unsqueeze/ReduceSum axes become inputs (in the
 * helpers). */
#include "symbolic/opset-tables.h"

#define G sym_graph (ctx)

static gboolean
softmax13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, const char *op)
{
  GraphValue *self;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vd", &self, &dim, error)
      || !sym_softmax_input_dtype (ctx, n, &self, error))
    return FALSE;
  out[0] = graph_op (G, op, self, "axis_i", dim, NULL);
  return TRUE;
}

static gboolean
sym_softmax13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return softmax13 (ctx, n, out, error, "Softmax");
}

static gboolean
sym_log_softmax13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return softmax13 (ctx, n, out, error, "LogSoftmax");
}

/* aten::tensor_split(self, indices, dim) with a constant list of indices:
 * one Slice per piece, [0, i0), [i0, i1), ..., [in, end) along dim (torch,
 * from 13, slices them in a Loop into a sequence); Slice wraps negative
 * bounds and clamps them as PyTorch's slicing does (start past end: an
 * empty piece). */
static gboolean
tensor_split_indices (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gsize ni;
  const gint64 *idx;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "v,is,d", &self, &ni, &idx, &dim, error))
    return FALSE;
  int rank = sym_rank (graph_node_input (n, 0));
  if (rank < 1 || ni > 255)
    /* torch 1.13: exports a list of indices as Slices in a Loop into a sequence, the last piece to
     * Shape(self)'s size at dim; not yet here for an input of unknown rank or more than 256
     * pieces */
    return sym_unimplemented (ctx, n, error, "tensor_split with a list of %zu indices of an input of "
                              "unknown rank", ni);
  const gint64 axis = dim < 0 ? dim + rank : dim;
  GraphValue *vals[256];
  gint64 start = 0;
  for (gsize i = 0; i <= ni; i++)
    {
      /* the last piece to the end (Slice clamps it to the size) */
      const gint64 end = i < ni ? idx[i] : G_MAXINT64;
      vals[i] = sym_slice (ctx, self, 1, &axis, &start, &end, NULL);
      start = end;
    }
  sym_set_list_output (ctx, n, 0, (guint) ni + 1, vals);
  out[0] = NULL;
  return TRUE;
}

/* aten::tensor_split(self, sections, dim) with an int number of sections
 * and a static dim size: one Split, the first size % sections pieces one
 * longer (from 13, as torch).  A list of indices: tensor_split_indices. */
gboolean
sym_tensor_split13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 sections, dim;
  GraphType *st = graph_value_type (graph_node_input (n, 1));
  if (st != NULL && graph_type_kind (st) == GRAPH_TYPE_LIST)
    return tensor_split_indices (ctx, n, out, error);
  /* a 0-d tensor is a count of sections (tensor_split(x, x.size(1))): its
   * value folded from the static shapes as torch's shape inference does */
  gboolean count_tensor = st != NULL && graph_type_is_tensor (st) && graph_type_rank (st) == 0;
  if (st == NULL || (graph_type_kind (st) != GRAPH_TYPE_INT && !count_tensor))
    /* torch 1.13: exports a tensor of indices as a Loop over a sequence of Slices; not yet here */
    return sym_unimplemented (ctx, n, error, "tensor_split with a tensor of indices");
  if (!sym_parse_args (ctx, n, "v,none,d", &self, &dim, error))
    return FALSE;
  if (!sym_traced_int (ctx, graph_node_input (n, 1), &sections))
    /* torch 1.13: exports a count computed at run time as one Split (wrong unless it divides
     * evenly); refused here because the number of pieces must be known */
    return sym_unimplemented (ctx, n, error, "tensor_split into a number of sections computed at "
                              "run time");
  gint64 len = sym_static_dim_size (self, dim);
  if (len < 0)
    /* torch 1.13: takes the size as sections x outputs (wrong unless it divides evenly); refused
     * here because that guesses the size */
    return sym_unimplemented (ctx, n, error, "tensor_split of a dynamic size");
  if (sections <= 0 || sections > 256)
    /* torch 1.13: exports any positive count as one Split (PyTorch rejects 0 or fewer); not yet
     * here (more than 256) */
    return sym_unimplemented (ctx, n, error, "tensor_split into %" G_GINT64_FORMAT " sections",
                              sections);
  gint64 sizes[256];
  for (gint64 i = 0; i < sections; i++)
    sizes[i] = len / sections + (i < len % sections ? 1 : 0);
  GraphNode *sp = sym_split (ctx, self, dim, (guint) sections, sizes);
  if (sp == NULL)
    return FALSE;
  GraphValue *vals[256];
  for (guint i = 0; i < (guint) sections; i++)
    vals[i] = graph_node_output (sp, i);
  sym_set_list_output (ctx, n, 0, (guint) sections, vals);
  out[0] = NULL;
  return TRUE;
}

/* diagonal of sizes known only at run time: the same Transpose, Reshape
 * and Gather, the positions (r0 + i)·cols + c0 + i for i < len from a Range
 * over the run-time sizes (an empty diagonal gathers nothing).  torch's
 * EyeLike mask, Mul and ReduceSum would turn an infinite element off the
 * diagonal into NaN (0 · inf); gathering does not. */
static gboolean
diagonal_dynamic (SymContext *ctx, GraphValue *self, int rank, gint64 offset, gint64 d1, gint64 d2,
                  GraphValue **out)
{
  gint64 perm[TENSOR_MAX_RANK];
  int k = 0;
  for (int i = 0; i < rank; i++)
    if (i != d1 && i != d2)
      perm[k++] = i;
  perm[k] = d1;
  perm[k + 1] = d2;
  GraphValue *t = graph_op (G, "Transpose", self, "perm_is", rank, perm, NULL);
  sym_set_type (t, sym_dtype (self), rank, NULL);
  GraphValue *rows = sym_size (ctx, t, k), *cols = sym_size (ctx, t, k + 1);
  static const gint64 zero = 0;
  GraphValue *lead = sym_shape_dims (ctx, t, 0, k);
  GraphValue *area = sym_unsqueeze (ctx, graph_op (G, "Mul", rows, cols, NULL), 1, &zero);
  t = sym_reshape (ctx, t, graph_op (G, "Concat", lead, area, "axis_i", (gint64) 0, NULL));
  gint64 r0 = offset < 0 ? -offset : 0, c0 = offset > 0 ? offset : 0;
  GraphValue *len = graph_op (G, "Min", graph_op (G, "Sub", rows, sym_const_i64 (ctx, r0), NULL),
                              graph_op (G, "Sub", cols, sym_const_i64 (ctx, c0), NULL), NULL);
  len = graph_op (G, "Max", len, sym_const_i64 (ctx, 0), NULL);
  GraphValue *i = graph_op (G, "Range", sym_const_i64 (ctx, 0), len, sym_const_i64 (ctx, 1), NULL);
  GraphValue *first = graph_op (G, "Add", graph_op (G, "Mul", sym_const_i64 (ctx, r0), cols, NULL),
                                sym_const_i64 (ctx, c0), NULL);
  GraphValue *pos = graph_op (G, "Add", graph_op (G, "Mul", i, graph_op (G, "Add", cols, sym_const_i64 (ctx, 1),
                                                                        NULL), NULL), first, NULL);
  out[0] = graph_op (G, "Gather", t, pos, "axis_i", (gint64) k, NULL);
  if (out[0])
    sym_set_type (out[0], sym_dtype (self), k + 1, NULL);
  return out[0] != NULL;
}

/* aten::diagonal(self, offset, dim1, dim2) with a static input: dim1 and
 * dim2 moved last (Transpose), flattened into one (Reshape) and the
 * diagonal's positions gathered (Gather of a constant).  torch (from 13)
 * builds a mask with EyeLike and computes the shapes at run time; the
 * values are the same. */
static gboolean
sym_diagonal13 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 offset, d1, d2;
  if (!sym_parse_args (ctx, n, "viii", &self, &offset, &d1, &d2, error))
    return FALSE;
  int rank = sym_rank (self);
  gint64 dims[TENSOR_MAX_RANK];
  if (rank < 2 || rank > TENSOR_MAX_RANK)
    /* torch 1.13: also refuses (_unimplemented "diagonal", "unknown input rank") */
    return sym_unimplemented (ctx, n, error, "diagonal of an input of unknown rank");
  d1 = d1 < 0 ? d1 + rank : d1;
  d2 = d2 < 0 ? d2 + rank : d2;
  if (d1 < 0 || d1 >= rank || d2 < 0 || d2 >= rank || d1 == d2)
    /* torch 1.13: also refuses (PyTorch rejects equal or out-of-range dims before the trace) */
    return sym_unimplemented (ctx, n, error, "diagonal dims out of range");
  if (!sym_static_shape (self, dims))
    return diagonal_dynamic (ctx, self, rank, offset, d1, d2, out);
  gint64 rows = dims[d1], cols = dims[d2];
  gint64 r0 = offset < 0 ? -offset : 0, c0 = offset > 0 ? offset : 0;
  gint64 len = MAX (0, MIN (rows - r0, cols - c0));
  if (len == 0 || len > (1 << 20))
    /* torch 1.13: exports an empty or huge diagonal the same way (an empty result); not yet here */
    return sym_unimplemented (ctx, n, error, "an empty diagonal");
  gint64 perm[TENSOR_MAX_RANK], shape[TENSOR_MAX_RANK];
  int k = 0;
  for (int i = 0; i < rank; i++)
    if (i != d1 && i != d2)
      {
        shape[k] = dims[i];
        perm[k++] = i;
      }
  perm[k] = d1;
  perm[k + 1] = d2;
  shape[k] = rows * cols;
  GraphValue *t = graph_op (G, "Transpose", self, "perm_is", rank, perm, NULL);
  t = sym_reshape_static (ctx, t, (gsize) k + 1, shape);
  g_autofree gint64 *idx = g_new (gint64, len);
  for (gint64 i = 0; i < len; i++)
    idx[i] = (r0 + i) * cols + c0 + i;
  out[0] = graph_op (G, "Gather", t, sym_const_ints (ctx, (gsize) len, idx), "axis_i", (gint64) k,
                     NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::diagonal", sym_diagonal13),
  SYM_FN ("aten::tensor_split", sym_tensor_split13),
  SYM_FN ("aten::frobenius_norm", sym_frobenius_norm_any),   /* all dims: one ReduceL2 */
  SYM_FN ("aten::softmax", sym_softmax13),
  SYM_FN ("aten::log_softmax", sym_log_softmax13),
};
const SymTable sym_opset13 = SYM_TABLE (13, entries);
