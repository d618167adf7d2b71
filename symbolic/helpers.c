/* Opset-aware building blocks for symbolic functions, and the ATen
 * fallback node. */
#include "symbolic/opset-tables.h"
#include <string.h>

GraphValue *
sym_cast_to_output_dtype (SymContext *ctx, GraphNode *n, guint i, GraphValue *v)
{
  GraphDType want = i < graph_node_n_outputs (n) ? sym_dtype (graph_node_output (n, i))
                                                 : GRAPH_DTYPE_UNDEFINED;
  GraphDType have = v ? sym_dtype (v) : GRAPH_DTYPE_UNDEFINED;
  if (want == GRAPH_DTYPE_UNDEFINED || have == GRAPH_DTYPE_UNDEFINED || want == have)
    return v;
  return sym_cast (ctx, v, want);
}

GraphValue *
sym_elu_of (SymContext *ctx, GraphValue *x, double alpha)
{
  Graph *g = sym_graph (ctx);
  if (sym_dtype (x) != GRAPH_DTYPE_DOUBLE)
    return graph_op (g, "Elu", x, "alpha_f", alpha, NULL);
  GraphValue *zero = sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, 0.0);
  GraphValue *one = sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, 1.0);
  GraphValue *below = graph_op (g, "Mul", graph_op (g, "Sub", graph_op (g, "Exp", x, NULL), one, NULL),
                                sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, alpha), NULL);
  GraphValue *r = graph_op (g, "Where", graph_op (g, "Greater", x, zero, NULL), x, below, NULL);
  if (r)
    sym_set_type (r, GRAPH_DTYPE_DOUBLE, sym_rank (x), NULL);
  return r;
}

GraphValue *
sym_cast (SymContext *ctx, GraphValue *v, GraphDType to)
{
  GraphValue *out = graph_op (sym_graph (ctx), "Cast", v, "to_i", (gint64) to, NULL);
  GraphType *t = sym_type (v);
  if (out && t && graph_type_is_tensor (t))
    {
      int rank = graph_type_rank (t);
      GraphDim dims[TENSOR_MAX_RANK];
      for (int i = 0; i < rank && i < TENSOR_MAX_RANK; i++)
        dims[i] = *graph_type_dim (t, (guint) i);
      g_autoptr (GraphType) nt = graph_type_new_tensor (to, rank, rank > 0 ? dims : NULL);
      graph_value_set_type (out, nt);
    }
  else if (out)
    sym_set_type (out, to, -1, NULL);
  return out;
}

GraphValue *
sym_unsqueeze (SymContext *ctx, GraphValue *v, gsize n, const gint64 *axes)
{
  Graph *g = sym_graph (ctx);
  if (sym_opset (ctx) >= 13)
    return graph_op (g, "Unsqueeze", v, sym_const_ints (ctx, n, axes), NULL);
  return graph_op (g, "Unsqueeze", v, "axes_is", (int) n, axes, NULL);
}

GraphValue *
sym_squeeze (SymContext *ctx, GraphValue *v, gsize n, const gint64 *axes)
{
  Graph *g = sym_graph (ctx);
  if (n == 0)
    return graph_op (g, "Squeeze", v, NULL);
  if (sym_opset (ctx) >= 13)
    return graph_op (g, "Squeeze", v, sym_const_ints (ctx, n, axes), NULL);
  return graph_op (g, "Squeeze", v, "axes_is", (int) n, axes, NULL);
}

GraphValue *
sym_reshape (SymContext *ctx, GraphValue *v, GraphValue *shape)
{
  if (sym_opset (ctx) >= 14)
    return graph_op (sym_graph (ctx), "Reshape", v, shape, "allowzero_i", (gint64) 0, NULL);
  return graph_op (sym_graph (ctx), "Reshape", v, shape, NULL);
}

GraphValue *
sym_reshape_static (SymContext *ctx, GraphValue *v, gsize n, const gint64 *shape)
{
  return sym_reshape (ctx, v, sym_const_ints (ctx, n, shape));
}

GraphValue *
sym_slice (SymContext *ctx, GraphValue *v, gsize n, const gint64 *axes, const gint64 *starts,
           const gint64 *ends, const gint64 *steps)
{
  Graph *g = sym_graph (ctx);
  if (sym_opset (ctx) < 10)
    return graph_op (g, "Slice", v, "axes_is", (int) n, axes, "ends_is", (int) n, ends,
                     "starts_is", (int) n, starts, NULL);
  gboolean unit = TRUE;
  for (gsize i = 0; steps && i < n; i++)
    unit = unit && steps[i] == 1;
  if (unit)
    return graph_op (g, "Slice", v, sym_const_ints (ctx, n, starts), sym_const_ints (ctx, n, ends),
                     sym_const_ints (ctx, n, axes), NULL);
  return graph_op (g, "Slice", v, sym_const_ints (ctx, n, starts), sym_const_ints (ctx, n, ends),
                   sym_const_ints (ctx, n, axes), sym_const_ints (ctx, n, steps), NULL);
}

GraphValue *
sym_reduce (SymContext *ctx, const char *op, GraphValue *v, gsize n, const gint64 *axes,
            gboolean keepdims)
{
  Graph *g = sym_graph (ctx);
  /* ReduceSum takes axes as an input from 13; the others from 18. */
  gboolean axes_input = strcmp (op, "ReduceSum") == 0 ? sym_opset (ctx) >= 13
                                                      : sym_opset (ctx) >= 18;
  if (n == 0)
    return graph_op (g, op, v, "keepdims_i", (gint64) keepdims, NULL);
  if (axes_input)
    return graph_op (g, op, v, sym_const_ints (ctx, n, axes), "keepdims_i", (gint64) keepdims,
                     NULL);
  return graph_op (g, op, v, "axes_is", (int) n, axes, "keepdims_i", (gint64) keepdims, NULL);
}

GraphNode *
sym_split (SymContext *ctx, GraphValue *v, gint64 axis, guint n_outputs, const gint64 *sizes)
{
  Graph *g = sym_graph (ctx);
  if (sizes == NULL)
    return graph_op_outputs (g, "Split", n_outputs, v, "axis_i", axis, NULL);
  if (sym_opset (ctx) >= 13)
    return graph_op_outputs (g, "Split", n_outputs, v, sym_const_ints (ctx, n_outputs, sizes),
                             "axis_i", axis, NULL);
  return graph_op_outputs (g, "Split", n_outputs, v, "axis_i", axis, "split_is", (int) n_outputs,
                           sizes, NULL);
}

GraphValue *
sym_size (SymContext *ctx, GraphValue *v, gint64 dim)
{
  Graph *g = sym_graph (ctx);
  GraphValue *shape = graph_op (g, "Shape", v, NULL);
  int rank = sym_rank (v);
  if (shape)
    {
      gint64 r = rank;
      sym_set_type (shape, GRAPH_DTYPE_INT64, 1, rank >= 0 ? &r : NULL);
    }
  if (dim == G_MININT64)
    return shape;
  GraphValue *out = graph_op (g, "Gather", shape, sym_const_i64 (ctx, dim), "axis_i", (gint64) 0,
                              NULL);
  if (out)
    sym_set_type (out, GRAPH_DTYPE_INT64, 0, NULL);
  return out;
}

GraphValue *
sym_shape_dims (SymContext *ctx, GraphValue *v, gint64 start, gint64 end)
{
  static const gint64 zero = 0;
  return sym_slice (ctx, sym_size (ctx, v, G_MININT64), 1, &zero, &start, &end, NULL);
}

/* ------------------------------------------------------------------------ */
/* ATen fallback                                                             */

static gboolean
is_tensor_list (GraphValue *src)
{
  GraphType *t = graph_value_type (src);
  if (t == NULL || graph_type_kind (t) != GRAPH_TYPE_LIST)
    return FALSE;
  GraphType *e = graph_type_elem (t, 0);
  if (e && graph_type_kind (e) == GRAPH_TYPE_OPTIONAL)   /* Tensor?[] (index's indices) */
    e = graph_type_elem (e, 0);
  return e && graph_type_is_tensor (e);
}

gboolean
sym_emit_aten (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  g_autoptr (GPtrArray) ins = g_ptr_array_new ();
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *src = graph_node_input (n, i);
      /* A Device argument (zeros(..., device=cpu)) becomes an absent input:
       * ONNX has no device value (torch 1.13 writes a Constant with a string
       * `value`, which onnx.checker refuses), and the executor runs on the CPU. */
      GraphType *st = src ? graph_value_type (src) : NULL;
      if (src == NULL || sym_is_none (src) || (st && graph_type_kind (st) == GRAPH_TYPE_DEVICE))
        {
          g_ptr_array_add (ins, NULL);
          continue;
        }
      GraphNode *lp = graph_value_node (src);
      if (is_tensor_list (src) && lp && graph_node_is (lp, "prim::ListConstruct"))
        {
          /* Element by element: a None in a Tensor?[] stays an absent
           * input, in its place, as the trace run passes it. */
          for (guint j = 0; j < graph_node_n_inputs (lp); j++)
            {
              GraphValue *e = graph_node_input (lp, j);
              GraphValue *v = e && !sym_is_none (e) ? sym_value (ctx, e, error) : NULL;
              if (v == NULL && e && !sym_is_none (e))
                return FALSE;
              g_ptr_array_add (ins, v);
            }
          continue;
        }
      if (is_tensor_list (src))
        {
          g_autoptr (GPtrArray) elems = sym_list_values (ctx, src, error);
          if (elems == NULL)
            return FALSE;
          for (guint j = 0; j < elems->len; j++)
            g_ptr_array_add (ins, elems->pdata[j]);
          continue;
        }
      /* A str argument (gelu's approximate, div's rounding_mode, pad's
       * mode): a Constant holding a 0-d STRING tensor, which the
       * executor's ATen kernels read (ONNX tensors hold strings). */
      GraphNode *cp = graph_value_node (src);
      const char *sv;
      gsize slen;
      if (cp && graph_node_is (cp, "prim::Constant") && graph_node_get_s (cp, "value", &sv, &slen))
        {
          g_autoptr (GBytes) b = g_bytes_new (sv, slen);
          g_autoptr (Tensor) t = tensor_new_strings (0, NULL, &b, error);
          if (t == NULL)
            return FALSE;
          g_ptr_array_add (ins, sym_constant (ctx, t));
          continue;
        }
      GError *local = NULL;
      GraphValue *v = sym_value (ctx, src, &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      g_ptr_array_add (ins, v);
    }
  guint n_out = graph_node_n_outputs (n);
  /* A Tensor[] result (chunk, split, unbind) that a prim::ListUnpack
   * takes apart: the ATen node has one output per element, as the
   * executor's kernels give them, and the list is known by its values. */
  int n_elems = n_out == 1 && is_tensor_list (graph_node_output (n, 0)) ? sym_list_unpack_size (ctx, n, 0) : -1;
  GraphNode *at = graph_create_node (sym_graph (ctx), GRAPH_KIND_ATEN, ins->len,
                                     (GraphValue *const *) ins->pdata, n_elems >= 0 ? (guint) n_elems : n_out);
  if (at == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "cannot create an ATen node");
      return FALSE;
    }
  graph_node_set_s (at, "operator", sym_op_short_name (graph_node_kind (n)));
  graph_node_set_s (at, "overload_name", "");
  graph_insert_node (sym_graph (ctx), at);
  if (n_elems >= 0)
    {
      g_autoptr (GPtrArray) elems = g_ptr_array_new ();
      for (guint i = 0; i < (guint) n_elems; i++)
        g_ptr_array_add (elems, graph_node_output (at, i));
      sym_set_list_output (ctx, n, 0, elems->len, (GraphValue *const *) elems->pdata);
      out[0] = NULL;
      return TRUE;
    }
  for (guint i = 0; i < n_out; i++)
    out[i] = graph_node_output (at, i);
  return TRUE;
}

GraphValue *
sym_int_input_1d (SymContext *ctx, GraphNode *n, guint i, GError **error)
{
  GraphValue *src = i < graph_node_n_inputs (n) ? graph_node_input (n, i) : NULL;
  gint64 c;
  if (src && sym_get_const_int (src, &c))
    return sym_const_ints (ctx, 1, &c);
  GraphValue *v = src ? sym_value (ctx, src, error) : NULL;
  if (v == NULL)
    {
      if (error && *error == NULL)
        /* torch 1.13: also refuses (None where the schema needs an int: its symbolic fails on the
         * None) */
        sym_unimplemented (ctx, n, error, "argument %u is None where an int is required", i);
      return NULL;
    }
  int r = sym_rank (src);
  GraphDType dt = sym_dtype (src);
  if (r > 1 || dt == GRAPH_DTYPE_UNDEFINED || graph_dtype_is_floating (dt))
    {
      /* torch 1.13: passes the value on unchecked; refused here because a float, a list or an
       * untyped value would be misread as an int bound */
      sym_unimplemented (ctx, n, error, "argument %u is not an int scalar (%s, rank %d)", i,
                         graph_dtype_name (dt), r);
      return NULL;
    }
  if (dt != GRAPH_DTYPE_INT64)
    v = sym_cast (ctx, v, GRAPH_DTYPE_INT64);
  if (r == 1)
    return v;
  static const gint64 zero = 0;
  return sym_unsqueeze (ctx, v, 1, &zero);
}
