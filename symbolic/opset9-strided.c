/* Opset 9: aten::as_strided, as torch 1.13's symbolic writes it: self
 * flattened (Reshape to [-1]) and one Gather of the element positions the
 * sizes, strides and offset select, computed here as a constant. */
#include "symbolic/opset-tables.h"

#define G sym_graph (ctx)

/* At most this many positions in the constant (2^24 int64s, 128 MiB). */
#define MAX_POSITIONS (G_GINT64_CONSTANT (1) << 24)

/* The memory layout the trace declares for src (strides=[...], which it
 * must have) is row-major contiguous (a dim of size 1 may have any
 * stride, as PyTorch's is_contiguous). */
static gboolean
declared_contiguous (GraphValue *src, int rank, const gint64 *dims)
{
  GraphType *t = graph_value_type (src);
  const gint64 *st = t ? graph_type_strides (t) : NULL;
  if (st == NULL)
    return FALSE;
  gint64 expect = 1;
  for (int i = rank - 1; i >= 0; i--)
    {
      if (dims[i] != 1 && st[i] != expect)
        return FALSE;
      expect *= dims[i];
    }
  return TRUE;
}

/* src is a tensor of its own from the exported model's point of view, its
 * storage starting at its first element: a graph input, a weight or a
 * constant.  (An op's result may be a view into another tensor's storage
 * at some offset, which the trace does not record.) */
static gboolean
owns_storage (GraphValue *src)
{
  GraphNode *p = graph_value_node (src);
  return p == NULL || graph_node_is (p, "prim::Constant") || graph_node_is (p, "prim::GetAttr")
         || graph_node_is (p, "prim::Param");
}

/* aten::as_strided(self, size, stride, storage_offset=None): the element at
 * index (i_0, ..., i_k) is storage[offset + Σ i_j · stride_j].  The storage
 * is self's own elements in row-major order, so self must be contiguous as
 * the trace declares it, every position must lie inside self, and an
 * explicit offset needs self to start its storage (with None, PyTorch takes
 * self's own offset, which is where the flattened self starts). */
static gboolean
sym_as_strided (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  /* sizes from the trace's static shapes fold as torch's shape inference folds them */
  g_autoptr (GArray) sizes = sym_traced_ints (ctx, graph_node_input (n, 1));
  g_autoptr (GArray) strides = sym_traced_ints (ctx, graph_node_input (n, 2));
  if (sizes == NULL || strides == NULL)
    /* torch 1.13: builds the positions at run time (Range per dim) for sizes computed at run
     * time; refused here because positions outside self could not be checked then */
    return sym_unimplemented (ctx, n, error, "as_strided with sizes or strides that are not constant");
  GraphValue *off_src = graph_node_n_inputs (n) > 3 ? graph_node_input (n, 3) : NULL;
  gboolean explicit_offset = off_src != NULL && !sym_is_none (off_src);
  gint64 offset = 0;
  if (explicit_offset && !sym_get_const_int (off_src, &offset))
    /* torch 1.13: also refuses (parse_args 'i' on a storage_offset that is not constant) */
    return sym_unimplemented (ctx, n, error, "as_strided with a storage offset that is not constant");
  guint rank = sizes->len;
  if (strides->len != rank || rank > TENSOR_MAX_RANK)
    {
      g_autofree char *where = sym_node_location (n);
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "aten::as_strided (%s): %u sizes and %u "
                   "strides (PyTorch needs as many of each, at most %d)", where, rank, strides->len,
                   TENSOR_MAX_RANK);
      return FALSE;
    }
  const gint64 *sz = (const gint64 *) sizes->data, *st = (const gint64 *) strides->data;
  gint64 count = 1, last = offset;
  gboolean bad = offset < 0;
  for (guint i = 0; i < rank; i++)
    {
      bad = bad || sz[i] < 0 || st[i] < 0 || sz[i] > MAX_POSITIONS || st[i] > G_MAXINT32;
      if (!bad)
        count *= sz[i];
      bad = bad || count > MAX_POSITIONS;
    }
  if (bad)
    {
      /* PyTorch refuses negative sizes, strides and offsets too */
      g_autofree char *where = sym_node_location (n);
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "aten::as_strided (%s): a negative size, "
                   "stride or offset, or more than %" G_GINT64_FORMAT " positions", where,
                   MAX_POSITIONS);
      return FALSE;
    }
  for (guint i = 0; i < rank && count > 0; i++)
    last += (sz[i] - 1) * st[i];   /* < 2^24 · 2^31 · 8 per term: no overflow */

  gint64 dims[TENSOR_MAX_RANK], numel;
  int r = sym_rank (self);
  if (r < 0 || !sym_static_shape (self, dims) || !tensor_shape_numel ((guint) r, dims, &numel))
    /* torch 1.13: flattens self whatever its shape; refused here because positions outside self
     * (an error in the exported model, or other numbers) could not be checked */
    return sym_unimplemented (ctx, n, error, "as_strided of an input whose shape is not static");
  GraphValue *src = graph_node_input (n, 0);
  GraphType *st_type = graph_value_type (src);
  gboolean declared = st_type && graph_type_strides (st_type);
  if (declared ? !declared_contiguous (src, r, dims) : !owns_storage (src))
    /* torch 1.13: Gathers from the flattened self, in its logical order; refused here because
     * PyTorch reads the storage, in another order when self is not contiguous (a transpose), and
     * a computed self without declared strides may be such a view */
    return sym_unimplemented (ctx, n, error, "as_strided of an input the trace does not declare "
                              "contiguous (PyTorch reads its storage, not its logical order)");
  if (explicit_offset && !owns_storage (src))
    /* torch 1.13: Gathers at the offset from self's first element; refused here because PyTorch
     * counts an explicit offset from the start of the storage, and self may be a view into it
     * at an offset the trace does not record */
    return sym_unimplemented (ctx, n, error, "as_strided with an explicit storage offset of a "
                              "computed tensor (it may be a view at another offset)");
  if (count > 0 && last >= numel)
    /* torch 1.13: Gathers out of range (the exported model fails at run time); refused here because
     * PyTorch reads the storage beyond self, which the flattened self does not hold */
    return sym_unimplemented (ctx, n, error, "as_strided reading position %" G_GINT64_FORMAT
                              " of an input of %" G_GINT64_FORMAT " elements", last, numel);

  g_autofree gint64 *pos = g_new (gint64, count > 0 ? count : 1);
  for (gint64 k = 0; k < count; k++)
    {
      gint64 rest = k, p = offset;
      for (int i = (int) rank - 1; i >= 0; i--)
        {
          p += (rest % sz[i]) * st[i];
          rest /= sz[i];
        }
      pos[k] = p;
    }
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_INT64, rank, sz, pos,
                                               (gsize) count * sizeof (gint64), error);
  if (t == NULL)
    return FALSE;
  static const gint64 flat[1] = { -1 };
  out[0] = graph_op (G, "Gather", sym_reshape_static (ctx, self, 1, flat), sym_constant (ctx, t), NULL);
  return out[0] != NULL;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::as_strided", sym_as_strided),
};
const SymTable sym_opset9_strided = SYM_TABLE (9, entries);
