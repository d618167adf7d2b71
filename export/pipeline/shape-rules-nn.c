/* Symbolic shape propagation, part 2: shape rules for the network ops
 * (Conv, ConvTranspose, pools, Gemm, MatMul, Pad, Resize, LSTM/GRU/RNN,
 * reductions).  Each fills out[0..n_outputs) or returns FALSE. */
#include "export/pipeline/shapes-private.h"
#include <string.h>

/* Conv, and the pools through it (no weight: kernel_shape attribute). */
static gboolean
conv_like (Ctx *c, GraphNode *n, Shape *out, gboolean has_weight, gboolean transposed)
{
  Shape x, w;
  if (!shape_of (c, shape_in_at (n, 0), &x) || x.rank < 3)
    return FALSE;
  guint sp = (guint) x.rank - 2;
  gint64 k[TENSOR_MAX_RANK], st[TENSOR_MAX_RANK], dil[TENSOR_MAX_RANK], pads[2 * TENSOR_MAX_RANK];
  gsize len = 0;
  const gint64 *ks = NULL;
  if (graph_node_get_is (n, "kernel_shape", &len, &ks))
    {
      if (len != sp)
        return FALSE;
      memcpy (k, ks, sp * sizeof (gint64));
    }
  else if (has_weight && shape_of (c, shape_in_at (n, 1), &w) && w.rank == x.rank)
    {
      for (guint i = 0; i < sp; i++)
        {
          if (w.d[i + 2].kind != GRAPH_DIM_STATIC)
            return FALSE;
          k[i] = w.d[i + 2].value;
        }
    }
  else
    return FALSE;
  if (!shape_attr_is (n, "strides", st, sp, 1) || !shape_attr_is (n, "dilations", dil, sp, 1)
      || !shape_attr_is (n, "pads", pads, 2 * sp, 0))
    return FALSE;
  for (guint i = 0; i < sp; i++)
    if (k[i] < 1 || k[i] > ATTR_LIMIT || st[i] < 1 || st[i] > ATTR_LIMIT || dil[i] < 1
        || dil[i] > ATTR_LIMIT || !shape_small (pads[i]) || !shape_small (pads[i + sp]))
      return FALSE;
  const char *auto_pad = "NOTSET";
  graph_node_get_s (n, "auto_pad", &auto_pad, NULL);
  gboolean ceil_mode = shape_attr_i (n, "ceil_mode", 0) != 0;

  out->rank = x.rank;
  out->d[0] = x.d[0];
  out->d[1] = x.d[1];
  if (has_weight)
    {
      if (!shape_of (c, shape_in_at (n, 1), &w) || w.rank != x.rank)
        return FALSE;
      out->d[1] = transposed
                    ? shape_dim_mul (w.d[1], shape_dim_static (shape_attr_i (n, "group", 1)))
                    : w.d[0];
    }
  gsize olen = 0;
  const gint64 *oshape = NULL, *opad = NULL;
  gboolean have_oshape = transposed && graph_node_get_is (n, "output_shape", &olen, &oshape)
                         && olen == sp;
  gsize oplen = 0;
  if (transposed && graph_node_get_is (n, "output_padding", &oplen, &opad) && oplen != sp)
    return FALSE;
  for (guint i = 0; opad && i < sp; i++)
    if (!shape_small (opad[i]))
      return FALSE;
  for (guint i = 0; i < sp; i++)
    {
      GraphDim in = x.d[i + 2];
      gint64 ke = dil[i] * (k[i] - 1) + 1;
      if (have_oshape)
        out->d[i + 2] = shape_dim_static (oshape[i]);
      else if (strcmp (auto_pad, "SAME_UPPER") == 0 || strcmp (auto_pad, "SAME_LOWER") == 0)
        {
          /* ceil(in / stride), in * stride for ConvTranspose. */
          if (in.kind == GRAPH_DIM_STATIC && shape_small (in.value) && in.value >= 0)
            out->d[i + 2] = shape_dim_static (transposed ? in.value * st[i]
                                                         : (in.value + st[i] - 1) / st[i]);
          else
            out->d[i + 2] = st[i] == 1 ? in : shape_dim_unknown ();
        }
      else if (transposed)
        {
          /* stride * (in - 1) + output_padding + effective kernel - pads */
          gint64 extra = (opad ? opad[i] : 0) + ke - pads[i] - pads[i + sp];
          if (in.kind == GRAPH_DIM_STATIC && shape_small (in.value) && in.value > 0)
            out->d[i + 2] = st[i] * (in.value - 1) + extra >= 0
                              ? shape_dim_static (st[i] * (in.value - 1) + extra)
                              : shape_dim_unknown ();
          else
            out->d[i + 2] = st[i] == 1 && extra == 1 ? in : shape_dim_unknown ();
        }
      else
        {
          gboolean valid = strcmp (auto_pad, "VALID") == 0;
          gint64 pad = valid ? 0 : pads[i] + pads[i + sp];
          out->d[i + 2] = shape_window_dim (in, ke, pad, valid ? 0 : pads[i], st[i], ceil_mode);
        }
    }
  for (guint i = 1; i < graph_node_n_outputs (n); i++)   /* MaxPool's Indices */
    out[i] = out[0];
  return TRUE;
}

gboolean
shape_rule_conv (Ctx *c, GraphNode *n, Shape *out)
{
  return conv_like (c, n, out, TRUE, FALSE);
}

gboolean
shape_rule_conv_transpose (Ctx *c, GraphNode *n, Shape *out)
{
  return conv_like (c, n, out, TRUE, TRUE);
}

gboolean
shape_rule_pool (Ctx *c, GraphNode *n, Shape *out)
{
  return conv_like (c, n, out, FALSE, FALSE);
}

gboolean
shape_rule_global_pool (Ctx *c, GraphNode *n, Shape *out)
{
  if (!shape_of (c, shape_in_at (n, 0), out) || out->rank < 2)
    return FALSE;
  for (int i = 2; i < out->rank; i++)
    out->d[i] = shape_dim_static (1);
  return TRUE;
}

gboolean
shape_rule_gemm (Ctx *c, GraphNode *n, Shape *out)
{
  Shape a, b;
  if (!shape_of (c, shape_in_at (n, 0), &a) || !shape_of (c, shape_in_at (n, 1), &b) || a.rank != 2
      || b.rank != 2)
    return FALSE;
  out->rank = 2;
  out->d[0] = a.d[shape_attr_i (n, "transA", 0) ? 1 : 0];
  out->d[1] = b.d[shape_attr_i (n, "transB", 0) ? 0 : 1];
  return TRUE;
}

gboolean
shape_rule_matmul (Ctx *c, GraphNode *n, Shape *out)
{
  Shape a, b;
  if (!shape_of (c, shape_in_at (n, 0), &a) || !shape_of (c, shape_in_at (n, 1), &b) || a.rank < 1
      || b.rank < 1)
    return FALSE;
  /* numpy: a 1-D operand gets a 1 prepended (a) or appended (b), dropped
   * again from the result. */
  gboolean a1 = a.rank == 1, b1 = b.rank == 1;
  if (a1)
    {
      a.d[1] = a.d[0];
      a.d[0] = shape_dim_static (1);
      a.rank = 2;
    }
  if (b1)
    {
      b.d[1] = shape_dim_static (1);
      b.rank = 2;
    }
  Shape ba = a, bb = b;
  ba.rank -= 2;
  bb.rank -= 2;
  int rank = MAX (ba.rank, bb.rank);
  out->rank = 0;
  for (int k = 0; k < rank; k++)
    {
      GraphDim ds[2];
      guint m = 0;
      if (k - (rank - ba.rank) >= 0)
        ds[m++] = ba.d[k - (rank - ba.rank)];
      if (k - (rank - bb.rank) >= 0)
        ds[m++] = bb.d[k - (rank - bb.rank)];
      out->d[out->rank++] = shape_dim_broadcast (ds, m);
    }
  if (!a1)
    out->d[out->rank++] = a.d[a.rank - 2];
  if (!b1)
    out->d[out->rank++] = b.d[b.rank - 1];
  return TRUE;
}

gboolean
shape_rule_pad (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 pads[2 * TENSOR_MAX_RANK];
  guint np = 0;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  gsize len = 0;
  const gint64 *p = NULL;
  if (graph_node_get_is (n, "pads", &len, &p))   /* opset < 11 */
    {
      if (len != 2 * (gsize) x.rank)
        return FALSE;
      memcpy (pads, p, len * sizeof (gint64));
      np = (guint) len;
    }
  else if (!shape_ints_of (c, shape_in_at (n, 1), pads, &np) || shape_in_at (n, 3))
    return FALSE;
  if (np != 2 * (guint) x.rank)
    return FALSE;
  *out = x;
  for (int i = 0; i < x.rank; i++)
    out->d[i] = shape_small (pads[i]) && shape_small (pads[i + x.rank])
                  ? shape_dim_add (x.d[i], pads[i] + pads[i + x.rank]) : shape_dim_unknown ();
  return TRUE;
}

/* Resize (X, roi, scales, sizes) from opset 11, (X, scales) at 10, and
 * Upsample (X, scales) at 9: constant scales or sizes. */
gboolean
shape_rule_resize (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  gboolean v11 = graph_node_is (n, "onnx::Resize") && c->opset >= 11;
  GraphValue *scales_v = shape_in_at (n, v11 ? 2 : 1);
  GraphValue *sizes_v = v11 ? shape_in_at (n, 3) : NULL;
  *out = x;
  DimVec sizes;
  if (sizes_v && shape_data_of (c, sizes_v, &sizes) && sizes.n == (guint) x.rank && !sizes.scalar)
    {
      for (int i = 0; i < x.rank; i++)
        out->d[i] = sizes.v[i];
      return TRUE;
    }
  Tensor *s = shape_const_tensor (scales_v);
  if (s == NULL || tensor_numel (s) != x.rank || !graph_dtype_is_floating (tensor_dtype (s)))
    return FALSE;
  for (int i = 0; i < x.rank; i++)
    {
      double f = tensor_get_double (s, i);
      if (f == 1.0)
        continue;
      out->d[i] = x.d[i].kind == GRAPH_DIM_STATIC && f > 0 && f * (double) x.d[i].value < 1e15
                    ? shape_dim_static ((gint64) (f * (double) x.d[i].value))
                    : shape_dim_unknown ();
    }
  return TRUE;
}

/* LSTM, GRU, RNN: Y [seq, dirs, batch, hidden], Y_h and Y_c [dirs, batch,
 * hidden]; layout=1 puts batch first. */
gboolean
shape_rule_rnn (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 hidden = shape_attr_i (n, "hidden_size", -1);
  if (!shape_of (c, shape_in_at (n, 0), &x) || x.rank != 3 || hidden <= 0)
    return FALSE;
  const char *dir = "forward";
  graph_node_get_s (n, "direction", &dir, NULL);
  GraphDim dirs = shape_dim_static (strcmp (dir, "bidirectional") == 0 ? 2 : 1);
  gboolean batch_first = shape_attr_i (n, "layout", 0) != 0;
  GraphDim seq = x.d[batch_first ? 1 : 0], batch = x.d[batch_first ? 0 : 1],
           h = shape_dim_static (hidden);
  out[0].rank = 4;
  GraphDim y[4] = { seq, dirs, batch, h }, yb[4] = { batch, seq, dirs, h };
  memcpy (out[0].d, batch_first ? yb : y, sizeof y);
  GraphDim s[3] = { dirs, batch, h }, sb[3] = { batch, dirs, h };
  for (guint i = 1; i < graph_node_n_outputs (n); i++)
    {
      out[i].rank = 3;
      memcpy (out[i].d, batch_first ? sb : s, sizeof s);
    }
  return TRUE;
}

/* Reduce*, ArgMax/ArgMin: axes (attribute, or input 1 for ReduceSum from
 * 13 and the others from 18), keepdims. */
gboolean
shape_rule_reduce (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 axes[TENSOR_MAX_RANK];
  guint na = 0;
  gboolean present = TRUE;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  const char *op = graph_node_op_type (n);
  if (strcmp (op, "ArgMax") == 0 || strcmp (op, "ArgMin") == 0)
    {
      axes[0] = shape_attr_i (n, "axis", 0);
      na = 1;
    }
  else if (!shape_axes_of (c, n, 1, axes, &na, &present))
    return FALSE;
  gboolean keep = shape_attr_i (n, "keepdims", 1) != 0;
  gboolean red[TENSOR_MAX_RANK] = { FALSE };
  if (!present || na == 0)
    {
      if (shape_attr_i (n, "noop_with_empty_axes", 0))
        {
          *out = x;
          return TRUE;
        }
      for (int i = 0; i < x.rank; i++)
        red[i] = TRUE;
    }
  for (guint i = 0; i < na; i++)
    {
      if (!shape_norm_axis (&axes[i], x.rank))
        return FALSE;
      red[axes[i]] = TRUE;
    }
  out->rank = 0;
  for (int i = 0; i < x.rank; i++)
    if (!red[i])
      out->d[out->rank++] = x.d[i];
    else if (keep)
      out->d[out->rank++] = shape_dim_static (1);
  return TRUE;
}

/* TopK: values and indices have X's shape with K along axis (the k
 * attribute before opset 10, input 1 after; unknown when K is not known
 * at export time). */
gboolean
shape_rule_topk (Ctx *c, GraphNode *n, Shape *out)
{
  if (graph_node_n_outputs (n) != 2 || !shape_of (c, shape_in_at (n, 0), &out[0]) || out[0].rank < 0)
    return FALSE;
  gint64 axis = shape_attr_i (n, "axis", -1);
  if (!shape_norm_axis (&axis, out[0].rank))
    return FALSE;
  GraphDim k = shape_dim_unknown ();
  DimVec kv;
  if (shape_in_at (n, 1) == NULL && graph_node_n_inputs (n) == 1)
    k = shape_dim_static (shape_attr_i (n, "k", -1));
  else if (shape_data_of (c, shape_in_at (n, 1), &kv) && kv.n == 1)
    k = kv.v[0];
  if (k.kind == GRAPH_DIM_STATIC && k.value < 0)
    return FALSE;
  out[0].d[axis] = k;
  out[1] = out[0];
  return TRUE;
}
