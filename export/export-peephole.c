/* Eval-mode peephole: Conv followed by BatchNormalization becomes one Conv
 * with the normalisation folded into its weight and bias, as torch 1.13's
 * _jit_pass_onnx_eval_peephole (fuseConvBatchNorm) does:
 *
 *   s = gamma / sqrt(var + eps)
 *   W' = W * s (per output channel)      b' = (b - mean) * s + beta
 *
 * Applies when the Conv's output feeds only the BN, the Conv's weight (and
 * bias, if any) and the BN's four parameters are initializers with data,
 * all float or all double, and the shapes agree. */
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

static double
elem (const Tensor *t, gint64 i)
{
  return tensor_get_double (t, i);
}

static Tensor *
new_tensor (GraphDType dt, guint rank, const gint64 *dims)
{
  return tensor_new_zeroed (dt, rank, dims, NULL);
}

static void
store (Tensor *t, gint64 i, double v)
{
  if (tensor_dtype (t) == GRAPH_DTYPE_FLOAT)
    ((float *) tensor_data (t))[i] = (float) v;
  else
    ((double *) tensor_data (t))[i] = v;
}

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

  g_autoptr (Tensor) nw = new_tensor (dt, tensor_rank (w), tensor_dims (w));
  g_autoptr (Tensor) nb = new_tensor (dt, 1, &c);
  if (nw == NULL || nb == NULL)
    return FALSE;
  gint64 per = c > 0 ? tensor_numel (w) / c : 0;
  for (gint64 o = 0; o < c; o++)
    {
      /* p: scale (gamma), B (beta), mean, var */
      double s = elem (p[0], o) / sqrt (elem (p[3], o) + eps);
      for (gint64 k = 0; k < per; k++)
        store (nw, o * per + k, elem (w, o * per + k) * s);
      store (nb, o, ((b ? elem (b, o) : 0.0) - elem (p[2], o)) * s + elem (p[1], o));
    }
  g_autofree char *wname = g_strdup_printf ("onnx::Conv_%u", graph_value_id (graph_node_output (bn, 0)));
  g_autofree char *bname = g_strdup_printf ("%s_bias", wname);
  GraphValue *wv = graph_add_initializer (g, wname, nw);
  GraphValue *nbv = graph_add_initializer (g, bname, nb);
  g_autoptr (GraphType) wt = graph_type_new_tensor_static (dt, tensor_rank (nw), tensor_dims (nw));
  g_autoptr (GraphType) bt = graph_type_new_tensor_static (dt, 1, &c);
  graph_value_set_type (wv, wt);
  graph_value_set_type (nbv, bt);
  graph_node_set_input (conv, 1, wv);
  if (graph_node_n_inputs (conv) > 2)
    graph_node_set_input (conv, 2, nbv);
  else
    graph_node_add_input (conv, nbv);
  GraphValue *y = graph_node_output (bn, 0);
  if (graph_value_type (y) && !graph_value_type (x))
    graph_value_set_type (x, graph_value_type (y));
  graph_value_replace_all_uses (y, x);
  graph_node_destroy (bn);
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
