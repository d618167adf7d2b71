/* Eval-mode peephole: Conv followed by BatchNormalization becomes one Conv
 * with the normalisation folded into its weight and bias, as torch 1.13's
 * _jit_pass_onnx_eval_peephole (fuseConvBatchNorm) does:
 *
 *   s = gamma / sqrt(var + eps)
 *   W' = W * s (per output channel)      b' = (b - mean) * s + beta
 *                                        (beta - mean * s without a bias)
 *
 * one operation at a time in the weights' own type, as torch computes it,
 * so the fused tensors are torch's bit for bit.  Applies when the Conv's
 * output feeds only the BN, the Conv's weight (and bias, if any) and the
 * BN's four parameters are initializers with data, all float or all double,
 * and the shapes agree. */
#include "export/export.h"
#include <math.h>
#include <string.h>

/* An initializer tensor with data that run-time inputs cannot override. */
static Tensor *
param_of (GraphValue *v)
{
  if (v == NULL || graph_value_initializer_is_input (v))
    return NULL;
  Tensor *t = graph_value_get_initializer (v);
  return t && tensor_has_data (t) ? t : NULL;
}

/* W' = W * s per output channel, computed only when written (a deferred
 * tensor): the writer streams it into the file a buffer at a time, so the
 * fused weights never sit in memory beside the originals.  Read and written
 * in the weight's own type: no per-element dispatch on the bulk of a model. */
typedef struct
{
  Tensor *w;
  gint64 per;          /* elements per output channel */
  gpointer s;          /* c scales, in the weights' type */
} ScaledWeights;

static void
scaled_weights_free (gpointer data)
{
  ScaledWeights *sw = data;
  tensor_unref (sw->w);
  g_free (sw->s);
  g_free (sw);
}

#define SCALE_RANGE(T)                                                       \
  G_STMT_START {                                                             \
    const T *src = tensor_data (sw->w);                                      \
    T *d = dst;                                                              \
    for (gint64 i = first, end = first + count; i < end;)                    \
      {                                                                      \
        gint64 o = i / sw->per, stop = MIN (end, (o + 1) * sw->per);         \
        T so = ((const T *) sw->s)[o];                                       \
        for (; i < stop; i++)                                                \
          *d++ = src[i] * so;                                                \
      }                                                                      \
  } G_STMT_END

static void
scaled_weights_fill (gconstpointer data, gint64 first, gint64 count, gpointer dst)
{
  const ScaledWeights *sw = data;
  if (tensor_dtype (sw->w) == GRAPH_DTYPE_FLOAT)
    SCALE_RANGE (float);
  else
    SCALE_RANGE (double);
}

/* Takes `s` (c scales in the weights' type). */
static Tensor *
scaled_weights (Tensor *w, gint64 c, gpointer s)
{
  ScaledWeights *sw = g_new (ScaledWeights, 1);
  sw->w = tensor_ref (w);
  sw->per = c > 0 ? tensor_numel (w) / c : 0;
  sw->s = s;
  return tensor_new_deferred (tensor_dtype (w), tensor_rank (w), tensor_dims (w),
                              scaled_weights_fill, sw, scaled_weights_free, NULL);
}

/* The scales and the new bias, with torch's operations in torch's order. */
#define FUSE_PARAMS(T, SQRT)                                                  \
  G_STMT_START {                                                              \
    const T *gamma = tensor_data (p[0]), *beta = tensor_data (p[1]);         \
    const T *mean = tensor_data (p[2]), *var = tensor_data (p[3]);           \
    const T *cb = b ? tensor_data (b) : NULL;                                 \
    T *sc = scale, *nb = bias;                                                \
    for (gint64 o = 0; o < c; o++)                                            \
      {                                                                       \
        T denom = SQRT (var[o] + (T) eps);                                    \
        sc[o] = gamma[o] / denom;                                             \
        if (cb != NULL)                                                       \
          {                                                                   \
            T centred = cb[o] - mean[o];                                      \
            T scaled = centred * sc[o];                                       \
            nb[o] = scaled + beta[o];                                         \
          }                                                                   \
        else                                                                  \
          {                                                                   \
            T shift = mean[o] * sc[o];                                        \
            nb[o] = beta[o] - shift;                                          \
          }                                                                   \
      }                                                                       \
  } G_STMT_END

static gboolean
fuse_one (Graph *g, GraphNode *bn)
{
  GraphValue *x = graph_node_input (bn, 0);
  GraphNode *conv = x ? graph_value_node (x) : NULL;
  if (conv == NULL || !graph_node_is (conv, "onnx::Conv") || graph_value_n_uses (x) != 1
      || graph_value_is_graph_output (x) || graph_node_n_outputs (bn) != 1
      || graph_node_n_inputs (bn) != 5 || graph_node_n_inputs (conv) < 2)
    return FALSE;
  gint64 training = 0;
  if (graph_node_get_i (bn, "training_mode", &training) && training != 0)
    return FALSE;
  Tensor *w = param_of (graph_node_input (conv, 1));
  GraphValue *bv = graph_node_n_inputs (conv) > 2 ? graph_node_input (conv, 2) : NULL;
  Tensor *b = bv ? param_of (bv) : NULL;
  Tensor *p[4];
  for (guint i = 0; i < 4; i++)
    p[i] = param_of (graph_node_input (bn, i + 1));
  if (w == NULL || (bv && b == NULL) || !p[0] || !p[1] || !p[2] || !p[3])
    return FALSE;
  GraphDType dt = tensor_dtype (w);
  if ((dt != GRAPH_DTYPE_FLOAT && dt != GRAPH_DTYPE_DOUBLE) || tensor_rank (w) < 2)
    return FALSE;
  gint64 c = tensor_dim (w, 0);
  for (guint i = 0; i < 4; i++)
    if (tensor_dtype (p[i]) != dt || tensor_rank (p[i]) != 1 || tensor_dim (p[i], 0) != c)
      return FALSE;
  if (b && (tensor_dtype (b) != dt || tensor_rank (b) != 1 || tensor_dim (b, 0) != c))
    return FALSE;
  double eps = 1e-5;
  graph_node_get_f (bn, "epsilon", &eps);

  /* p: scale (gamma), B (beta), mean, var */
  gsize size = graph_dtype_size (dt);
  gpointer scale = g_malloc ((c ? c : 1) * size);
  g_autofree gpointer bias = g_malloc ((c ? c : 1) * size);
  if (dt == GRAPH_DTYPE_FLOAT)
    FUSE_PARAMS (float, sqrtf);
  else
    FUSE_PARAMS (double, sqrt);
  g_autoptr (Tensor) nw = scaled_weights (w, c, scale);
  g_autoptr (Tensor) nb = tensor_new_from_data (dt, 1, &c, bias, c * size, NULL);
  if (nw == NULL || nb == NULL)
    return FALSE;
  g_autofree char *wname = g_strdup_printf ("onnx::Conv_%u", graph_value_id (graph_node_output (bn, 0)));
  g_autofree char *bname = g_strdup_printf ("%s_bias", wname);
  GraphValue *wv = graph_add_initializer (g, wname, nw);
  GraphValue *nbv = graph_add_initializer (g, bname, nb);
  g_autoptr (GraphType) wt = graph_type_new_tensor_static (dt, tensor_rank (nw), tensor_dims (nw));
  g_autoptr (GraphType) bt = graph_type_new_tensor_static (dt, 1, &c);
  graph_value_set_type (wv, wt);
  graph_value_set_type (nbv, bt);
  /* A new Conv node with a new output replaces both: the old Conv's output
   * meant conv without BN, and whoever kept it (export's trace-value map,
   * graph_value_resolve) must find it gone rather than silently changed. */
  GraphValue *ins[3] = { graph_node_input (conv, 0), wv, nbv };
  GraphNode *fused = graph_create_node (g, "onnx::Conv", 3, ins, 1);
  graph_node_copy_attrs (fused, conv);
  graph_node_set_scope (fused, graph_node_get_scope (conv));
  graph_node_set_source (fused, graph_node_get_source (conv));
  graph_node_insert_before (fused, conv);
  GraphValue *y = graph_node_output (bn, 0), *z = graph_node_output (fused, 0);
  graph_value_set_type (z, graph_value_type (y) ? graph_value_type (y) : graph_value_type (x));
  g_autofree char *xname = g_strdup (graph_value_get_name (x));
  g_autofree char *cname = g_strdup (graph_node_get_name (conv));
  graph_value_replace_all_uses (y, z);
  graph_node_destroy (bn);
  graph_node_destroy (conv);
  if (xname)
    graph_value_set_name (z, xname);
  if (cname)
    graph_node_set_name (fused, cname);
  return TRUE;
}

/* Concat(a, Concat(b, c), d) on one axis, the inner result used only there,
 * becomes Concat(a, b, c, d): torch writes Inception's nested torch.cat
 * calls as one node. */
static gboolean
flatten_concat (GraphNode *n)
{
  gint64 axis;
  if (!graph_node_get_i (n, "axis", &axis))
    return FALSE;
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *v = graph_node_input (n, i);
      GraphNode *p = v ? graph_value_node (v) : NULL;
      gint64 inner_axis;
      if (p == NULL || !graph_node_is (p, "onnx::Concat") || graph_value_n_uses (v) != 1
          || graph_value_is_graph_output (v) || !graph_node_get_i (p, "axis", &inner_axis)
          || inner_axis != axis || graph_node_n_attrs (p) != 1)
        continue;
      /* Rebuild the input list: before i, p's inputs, after i. */
      guint nin = graph_node_n_inputs (n), pin = graph_node_n_inputs (p);
      g_autoptr (GPtrArray) ins = g_ptr_array_new ();
      for (guint k = 0; k < nin; k++)
        if (k == i)
          for (guint j = 0; j < pin; j++)
            g_ptr_array_add (ins, graph_node_input (p, j));
        else
          g_ptr_array_add (ins, graph_node_input (n, k));
      while (graph_node_n_inputs (n) > 0)
        graph_node_remove_input (n, graph_node_n_inputs (n) - 1);
      for (guint k = 0; k < ins->len; k++)
        graph_node_add_input (n, ins->pdata[k]);
      graph_node_destroy (p);
      return TRUE;
    }
  return FALSE;
}

guint
export_flatten_concats (Graph *g)
{
  guint changes = 0;
  graph_foreach_node (g, n)
    if (graph_node_is (n, "onnx::Concat"))
      while (flatten_concat (n))
        changes++;
  return changes;
}

guint
export_fuse_conv_batchnorm (Graph *g)
{
  guint fused = 0;
  for (GraphNode *n = graph_first_node (g), *next; n; n = next)
    {
      next = graph_node_next (n);
      if (graph_node_is (n, "onnx::BatchNormalization") && fuse_one (g, n))
        fused++;
    }
  return fused;
}
