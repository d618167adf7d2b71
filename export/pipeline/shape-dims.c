/* Symbolic shape propagation, part 1: dim arithmetic (static, symbolic or
 * unknown dims) and the helpers that read a node's values and attributes:
 * a value's shape, a small integer tensor's values, ints attributes, axes.
 * See shape-propagation.c for the pass and the rules it follows. */
#include "export/pipeline/shapes-private.h"
#include <string.h>

gboolean
shape_small (gint64 v)
{
  return v >= -DIM_LIMIT && v <= DIM_LIMIT;
}

/* ---- dims ---------------------------------------------------------------- */

GraphDim
shape_dim_static (gint64 v)
{
  return (GraphDim) { GRAPH_DIM_STATIC, v, NULL };
}

GraphDim
shape_dim_unknown (void)
{
  return (GraphDim) { GRAPH_DIM_UNKNOWN, 0, NULL };
}

gboolean
shape_is_static (const GraphDim *d, gint64 v)
{
  return d->kind == GRAPH_DIM_STATIC && d->value == v;
}

/* d + k: a symbol only when k == 0. */
GraphDim
shape_dim_add (GraphDim d, gint64 k)
{
  if (d.kind == GRAPH_DIM_STATIC)
    return shape_small (d.value) && shape_small (k) && d.value + k >= 0
             ? shape_dim_static (d.value + k) : shape_dim_unknown ();
  return k == 0 ? d : shape_dim_unknown ();
}

GraphDim
shape_dim_mul (GraphDim a, GraphDim b)
{
  if (shape_is_static (&a, 1))
    return b;
  if (shape_is_static (&b, 1))
    return a;
  if (a.kind == GRAPH_DIM_STATIC && b.kind == GRAPH_DIM_STATIC && a.value >= 0 && b.value >= 0
      && (a.value == 0 || b.value <= G_MAXINT64 / a.value))
    return shape_dim_static (a.value * b.value);
  return shape_dim_unknown ();
}

/* Product of dims [from, to). */
GraphDim
shape_dims_product (const Shape *s, int from, int to)
{
  GraphDim p = shape_dim_static (1);
  for (int i = from; i < to; i++)
    p = shape_dim_mul (p, s->d[i]);
  return p;
}

/* Two dims that must be equal (Concat's other axes, MatMul's K): the one
 * known best. */
GraphDim
shape_dim_merge (GraphDim a, GraphDim b)
{
  if (a.kind == GRAPH_DIM_STATIC)
    return a;
  if (b.kind == GRAPH_DIM_STATIC)
    return b;
  return a.kind == GRAPH_DIM_SYMBOLIC ? a : b;
}

/* One broadcast position: a static dim > 1 wins, 1s drop out, and a symbol
 * survives only when every remaining dim is that symbol. */
GraphDim
shape_dim_broadcast (const GraphDim *ds, guint n)
{
  const GraphDim *sym = NULL;
  gboolean unknown = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (ds[i].kind == GRAPH_DIM_STATIC && ds[i].value != 1)
        return ds[i];
      if (ds[i].kind == GRAPH_DIM_UNKNOWN)
        unknown = TRUE;
      else if (ds[i].kind == GRAPH_DIM_SYMBOLIC)
        {
          if (sym && g_strcmp0 (sym->symbol, ds[i].symbol) != 0)
            unknown = TRUE;
          sym = &ds[i];
        }
    }
  if (unknown)
    return shape_dim_unknown ();
  return sym ? *sym : shape_dim_static (1);
}

/* Output size of a sliding window (Conv, pools): effective kernel `k`, total
 * padding `pad`.  A symbol is kept when the window maps n to n. */
GraphDim
shape_window_dim (GraphDim in, gint64 k, gint64 pad, gint64 pad_begin, gint64 stride, gboolean ceil_mode)
{
  if (stride <= 0 || k <= 0 || !shape_small (pad))
    return shape_dim_unknown ();
  if (in.kind != GRAPH_DIM_STATIC)
    return stride == 1 && pad == k - 1 ? in : shape_dim_unknown ();
  if (!shape_small (in.value))
    return shape_dim_unknown ();
  gint64 span = in.value + pad - k;
  if (span < 0)
    return shape_dim_unknown ();
  gint64 out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  /* ceil mode: a last window starting in the right padding is dropped (as
   * PyTorch, ONNX from opset 19, ONNX Runtime and our executor do) */
  if (ceil_mode && (out - 1) * stride >= in.value + pad_begin)
    out--;
  return shape_dim_static (out);
}

/* ---- values -------------------------------------------------------------- */

/* A value's shape: computed for tainted values, else its type's. */
gboolean
shape_of (Ctx *c, GraphValue *v, Shape *s)
{
  if (v == NULL)
    return FALSE;
  Shape *known = g_hash_table_lookup (c->shapes, v);
  if (known)
    {
      *s = *known;
      return s->rank >= 0;
    }
  GraphType *t = graph_value_type (v);
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) < 0
      || graph_type_rank (t) > TENSOR_MAX_RANK)
    return FALSE;
  s->rank = graph_type_rank (t);
  for (int i = 0; i < s->rank; i++)
    s->d[i] = *graph_type_dim (t, (guint) i);
  return TRUE;
}

Tensor *
shape_const_tensor (GraphValue *v)
{
  if (v == NULL)
    return NULL;
  Tensor *t = graph_value_get_initializer (v);
  if (t == NULL)
    t = graph_value_constant_tensor (v);
  return t && tensor_has_data (t) && tensor_dtype (t) != GRAPH_DTYPE_STRING ? t : NULL;
}

/* The values of a small integer tensor: a constant's, or propagated. */
gboolean
shape_data_of (Ctx *c, GraphValue *v, DimVec *out)
{
  if (v == NULL)
    return FALSE;
  DimVec *known = g_hash_table_lookup (c->data, v);
  if (known)
    {
      *out = *known;
      return TRUE;
    }
  Tensor *t = shape_const_tensor (v);
  if (t == NULL || !(graph_dtype_is_integer (tensor_dtype (t)) || tensor_dtype (t) == GRAPH_DTYPE_BOOL)
      || tensor_rank (t) > 1
      || tensor_numel (t) > TENSOR_MAX_RANK)
    return FALSE;
  out->n = (guint) tensor_numel (t);
  out->scalar = tensor_rank (t) == 0;
  for (guint i = 0; i < out->n; i++)
    out->v[i] = shape_dim_static (tensor_get_int64 (t, i));
  return TRUE;
}

/* The values of a constant as static integers (attribute-like inputs). */
gboolean
shape_ints_of (Ctx *c, GraphValue *v, gint64 *vals, guint *n)
{
  DimVec d;
  if (!shape_data_of (c, v, &d))
    return FALSE;
  for (guint i = 0; i < d.n; i++)
    {
      if (d.v[i].kind != GRAPH_DIM_STATIC)
        return FALSE;
      vals[i] = d.v[i].value;
    }
  *n = d.n;
  return TRUE;
}

gint64
shape_attr_i (GraphNode *n, const char *name, gint64 dflt)
{
  gint64 v;
  return graph_node_get_i (n, name, &v) ? v : dflt;
}

/* An ints attribute of at most TENSOR_MAX_RANK entries, or `n` copies of
 * `dflt` when absent. */
gboolean
shape_attr_is (GraphNode *n, const char *name, gint64 *vals, guint want, gint64 dflt)
{
  gsize len = 0;
  const gint64 *v = NULL;
  if (!graph_node_get_is (n, name, &len, &v))
    {
      for (guint i = 0; i < want; i++)
        vals[i] = dflt;
      return TRUE;
    }
  if (len != want)
    return FALSE;
  memcpy (vals, v, len * sizeof (gint64));
  return TRUE;
}

/* Axes from the attribute (older opsets) or input `input` (newer). */
gboolean
shape_axes_of (Ctx *c, GraphNode *n, guint input, gint64 *axes, guint *n_axes, gboolean *present)
{
  gsize len = 0;
  const gint64 *v = NULL;
  *present = TRUE;
  if (graph_node_get_is (n, "axes", &len, &v))
    {
      if (len > TENSOR_MAX_RANK)
        return FALSE;
      memcpy (axes, v, len * sizeof (gint64));
      *n_axes = (guint) len;
      return TRUE;
    }
  if (input < graph_node_n_inputs (n) && graph_node_input (n, input))
    return shape_ints_of (c, graph_node_input (n, input), axes, n_axes);
  *present = FALSE;
  *n_axes = 0;
  return TRUE;
}

gboolean
shape_norm_axis (gint64 *axis, int rank)
{
  if (*axis < 0)
    *axis += rank;
  return *axis >= 0 && *axis < rank;
}

GraphValue *
shape_in_at (GraphNode *n, guint i)
{
  return i < graph_node_n_inputs (n) ? graph_node_input (n, i) : NULL;
}

