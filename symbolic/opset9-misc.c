/* Opset 9 base set: small queries answered from the traced types. */
#include "symbolic/opset-tables.h"

/* aten::dim(self): the rank, a constant. */
static gboolean
sym_dim_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  int r = sym_known_rank (ctx, graph_node_input (n, 0));
  if (r < 0)
    /* torch 1.13: exports it as Size(Shape(self)); not yet here */
    return sym_unimplemented (ctx, n, error, "dim() of an input of unknown rank");
  out[0] = sym_const_i64 (ctx, r);
  return TRUE;
}

/* aten::numel(self): ReduceProd of the shape. */
static gboolean
sym_numel (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = sym_reduce (ctx, "ReduceProd", sym_size (ctx, self, G_MININT64), 0, NULL, FALSE);
  return TRUE;
}

/* aten::len(list): the length of a list the trace builds (scripted code's
 * len(size) checks), a constant.  aten::len(Tensor) (`for row in x`,
 * len(x)): size(0), as torch's symbolic, a constant when static. */
static gboolean
sym_len (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 len;
  GraphType *t = graph_value_type (graph_node_input (n, 0));
  if (t && graph_type_is_tensor (t) && !sym_static_int (graph_node_output (n, 0), &len))
    {
      GraphValue *self;
      if (!sym_parse_args (ctx, n, "v", &self, error))
        return FALSE;
      if (sym_rank (graph_node_input (n, 0)) == 0)
        /* torch 1.13: also refuses (PyTorch raises: len() of a 0-d tensor) */
        return sym_unimplemented (ctx, n, error, "len() of a 0-d tensor");
      gint64 d0 = sym_static_dim_size (graph_node_input (n, 0), 0);
      out[0] = d0 >= 0 && !sym_has_dynamic_axes (ctx) ? sym_const_i64 (ctx, d0) : sym_size (ctx, self, 0);
      return out[0] != NULL;
    }
  GraphNode *p = graph_value_node (graph_node_input (n, 0));
  int rank = p && graph_node_is (p, "aten::size") && graph_node_n_inputs (p) == 1
             ? sym_known_rank (ctx, graph_node_input (p, 0)) : -1;
  if (rank >= 0)
    {
      /* len(x.shape): the rank, static even with dynamic axes */
      out[0] = sym_const_i64 (ctx, rank);
      return TRUE;
    }
  gint64 dim;
  if (p && graph_node_is (p, "aten::unbind") && graph_node_n_inputs (p) == 2
      && sym_get_const_int (graph_node_input (p, 1), &dim))
    {
      /* len(x.unbind(dim)): x.size(dim) (the unbind, read only by len, made
       * no list: sym_unbind) */
      int r = sym_rank (graph_node_input (p, 0));
      if (r < 0 || dim < -r || dim >= r)
        /* torch 1.13: also refuses (PyTorch raises: the dim is out of range) */
        return sym_unimplemented (ctx, n, error, "len() of unbind along a dim outside its input's rank");
      GraphValue *x = sym_value (ctx, graph_node_input (p, 0), error);
      if (x == NULL)
        return FALSE;
      out[0] = sym_size (ctx, x, dim < 0 ? dim + r : dim);
      return out[0] != NULL;
    }
  if (!sym_static_int (graph_node_output (n, 0), &len))
    /* torch 1.13: exports it as SequenceLength of the list from opset 11; not yet here */
    return sym_unimplemented (ctx, n, error, "len() of a list whose length is known only at run time");
  out[0] = sym_const_i64 (ctx, len);
  return TRUE;
}

/* The int64 values of n's inputs (scripted code's ints). */
static gboolean
int_inputs (SymContext *ctx, GraphNode *n, guint k, GraphValue **v, GError **error)
{
  for (guint i = 0; i < k; i++)
    {
      GError *local = NULL;
      v[i] = sym_value (ctx, graph_node_input (n, i), &local);
      if (v[i] == NULL)
        {
          if (local)
            g_propagate_error (error, local);
          else
            /* torch 1.13: also refuses (a None bound of a loop-range helper is a malformed graph) */
            sym_unimplemented (ctx, n, error, "a None argument");
          return FALSE;
        }
      if (sym_dtype (v[i]) != GRAPH_DTYPE_INT64)
        v[i] = sym_cast (ctx, v[i], GRAPH_DTYPE_INT64);
    }
  return TRUE;
}

/* aten::__range_length(lo, hi, step): the trip count of `for i in
 * range(lo, hi, step)`, ceil((hi - lo) / step), as torch's symbolic. */
static gboolean
sym_range_length (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *v[3];
  if (!int_inputs (ctx, n, 3, v, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  GraphValue *diff = graph_op (g, "Sub", v[1], v[0], NULL);
  sym_set_type (diff, GRAPH_DTYPE_INT64, 0, NULL);
  GraphValue *q = graph_op (g, "Div", sym_cast (ctx, diff, GRAPH_DTYPE_DOUBLE),
                            sym_cast (ctx, v[2], GRAPH_DTYPE_DOUBLE), NULL);
  sym_set_type (q, GRAPH_DTYPE_DOUBLE, 0, NULL);
  GraphValue *c = graph_op (g, "Ceil", q, NULL);
  sym_set_type (c, GRAPH_DTYPE_DOUBLE, 0, NULL);
  out[0] = sym_cast (ctx, c, GRAPH_DTYPE_INT64);
  return TRUE;
}

/* aten::__derive_index(index, start, step): the loop variable of such a
 * range, start + index * step. */
static gboolean
sym_derive_index (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *v[3];
  if (!int_inputs (ctx, n, 3, v, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  GraphValue *m = graph_op (g, "Mul", v[0], v[2], NULL);
  sym_set_type (m, GRAPH_DTYPE_INT64, 0, NULL);
  out[0] = graph_op (g, "Add", v[1], m, NULL);
  sym_set_type (out[0], GRAPH_DTYPE_INT64, 0, NULL);
  return TRUE;
}

/* A tensor list's element at a run-time index (scripted `[x, y, z][i]`),
 * as torch writes it: SequenceAt of a SequenceConstruct.  The elements
 * must share an element type; the result has their common rank, each dim
 * static where they agree. */
static gboolean
list_at_run_time (SymContext *ctx, GraphNode *n, GPtrArray *items, GraphValue *isrc, GraphValue **out,
                  GError **error)
{
  if (items->len == 0)
    /* torch 1.13: also refuses (PyTorch raises IndexError on an empty list) */
    return sym_unimplemented (ctx, n, error, "an element of an empty list");
  GraphDType dt = sym_dtype (items->pdata[0]);
  int rank = sym_rank (items->pdata[0]);
  gint64 dims[TENSOR_MAX_RANK], d[TENSOR_MAX_RANK];
  gboolean shaped = rank >= 0 && sym_static_shape (items->pdata[0], dims);
  for (guint i = 1; i < items->len; i++)
    {
      if (sym_dtype (items->pdata[i]) != dt)
        /* torch 1.13: writes a SequenceConstruct of mixed element types, which ONNX refuses;
         * refused here because the model would not load */
        return sym_unimplemented (ctx, n, error, "a run-time index into a list of tensors of "
                                  "different element types");
      if (sym_rank (items->pdata[i]) != rank)
        rank = -1;
      if (rank >= 0 && shaped && sym_static_shape (items->pdata[i], d))
        for (int a = 0; a < rank; a++)
          dims[a] = dims[a] == d[a] ? dims[a] : -1;
      else
        shaped = FALSE;
    }
  if (dt == GRAPH_DTYPE_UNDEFINED || rank < 0)
    /* torch 1.13: writes SequenceAt whose result has no rank; refused here because a graph
     * output needs a type */
    return sym_unimplemented (ctx, n, error, "a run-time index into a list of tensors of unknown "
                              "or different ranks");
  GraphValue *idx = sym_value (ctx, isrc, error);
  if (idx == NULL)
    return FALSE;
  if (sym_dtype (idx) != GRAPH_DTYPE_INT64)
    idx = sym_cast (ctx, idx, GRAPH_DTYPE_INT64);
  GraphValue *seq = graph_opv (sym_graph (ctx), "SequenceConstruct", items->len,
                               (GraphValue *const *) items->pdata, NULL);
  out[0] = graph_op (sym_graph (ctx), "SequenceAt", seq, idx, NULL);
  if (out[0] == NULL)
    return FALSE;
  GraphDim gd[TENSOR_MAX_RANK];
  for (int a = 0; a < rank; a++)
    gd[a] = shaped && dims[a] >= 0 ? (GraphDim) { .kind = GRAPH_DIM_STATIC, .value = dims[a] }
                                   : (GraphDim) { .kind = GRAPH_DIM_UNKNOWN };
  g_autoptr (GraphType) t = graph_type_new_tensor (dt, rank, gd);
  graph_value_set_type (out[0], t);
  return TRUE;
}

/* aten::__getitem__(list, idx) of scripted code (torch's `__getitem_`):
 * an element of an int, float or bool list such as x.shape[1] is torch's
 * select(list, 0, idx), a Gather of the list's 1-D tensor; an element of a
 * tensor list at a known index is that element. */
static gboolean
sym_getitem (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  /* two inputs: the aten schema check ran before (symbolic/aten-schemas.c) */
  GraphValue *list = graph_node_input (n, 0), *isrc = graph_node_input (n, 1);
  GraphType *lt = graph_value_type (list);
  GraphType *et = lt && graph_type_kind (lt) == GRAPH_TYPE_LIST ? graph_type_elem (lt, 0) : NULL;
  GraphTypeKind ek = et ? graph_type_kind (et) : GRAPH_TYPE_NONE;
  gint64 k;
  gboolean known = sym_static_int (isrc, &k);
  if (ek == GRAPH_TYPE_TENSOR)
    {
      if (!known && sym_opset (ctx) < 11)
        /* torch 1.13: also refuses before opset 11 (SequenceAt starts at 11) */
        return sym_unimplemented (ctx, n, error, "an element of a tensor list at an index known "
                                  "only at run time (from opset 11)");
      g_autoptr (GPtrArray) items = sym_list_values (ctx, list, error);
      if (items == NULL)
        return FALSE;
      if (!known)
        return list_at_run_time (ctx, n, items, isrc, out, error);
      if (k < -(gint64) items->len || k >= (gint64) items->len)
        /* torch 1.13: also refuses (PyTorch raises IndexError; torch's SequenceAt fails at run time) */
        return sym_unimplemented (ctx, n, error, "index %" G_GINT64_FORMAT " of a list of %u "
                                  "tensors", k, items->len);
      out[0] = items->pdata[k < 0 ? k + (gint64) items->len : k];
      return TRUE;
    }
  if (ek != GRAPH_TYPE_INT && ek != GRAPH_TYPE_FLOAT && ek != GRAPH_TYPE_BOOL)
    /* torch 1.13: also refuses (select of a dict, a string or a list of unknown elements fails in
     * its symbolic) */
    return sym_unimplemented (ctx, n, error, "__getitem__ of something other than a list of "
                              "tensors, ints, floats or bools");
  GraphValue *v = sym_value (ctx, list, error);
  if (v == NULL)
    return FALSE;
  gint64 len = -1;
  if (sym_rank (v) == 1)
    sym_static_shape (v, &len);
  GraphValue *idx;
  if (known)
    {
      if (len >= 0 && (k < -len || k >= len))
        /* torch 1.13: also refuses (PyTorch raises IndexError; torch's Gather fails at run time) */
        return sym_unimplemented (ctx, n, error, "index %" G_GINT64_FORMAT " of a list of %"
                                  G_GINT64_FORMAT " elements", k, len);
      if (k < 0 && len >= 0)
        k += len;
      if (k < 0 && sym_opset (ctx) < 11)
        /* torch 1.13: writes a Gather with the negative index, which Gather defines only from opset
         * 11; refused here because the element read would be undefined */
        return sym_unimplemented (ctx, n, error, "a negative index into a list of unknown length "
                                  "(Gather takes negative indices from opset 11)");
      idx = sym_const_i64 (ctx, k);
    }
  else
    {
      if (sym_opset (ctx) < 11)
        /* torch 1.13: writes a Gather with the run-time index, which may be negative, and Gather
         * defines negative indices only from opset 11; refused here because such a read is
         * undefined */
        return sym_unimplemented (ctx, n, error, "an index known only at run time (Gather takes "
                                  "negative indices from opset 11)");
      idx = sym_value (ctx, isrc, error);
      if (idx == NULL)
        return FALSE;
      if (sym_dtype (idx) != GRAPH_DTYPE_INT64)
        idx = sym_cast (ctx, idx, GRAPH_DTYPE_INT64);
    }
  out[0] = graph_op (sym_graph (ctx), "Gather", v, idx, "axis_i", (gint64) 0, NULL);
  sym_set_type (out[0], sym_dtype (v), 0, NULL);
  return out[0] != NULL;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::__getitem__", sym_getitem),
  SYM_FN ("aten::__range_length", sym_range_length),
  SYM_FN ("aten::__derive_index", sym_derive_index),
  SYM_FN ("aten::dim", sym_dim_op),
  SYM_FN ("aten::len", sym_len),
  SYM_FN ("aten::numel", sym_numel),
};
const SymTable sym_opset9_misc = SYM_TABLE (9, entries);
