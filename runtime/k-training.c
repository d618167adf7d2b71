/* ai.onnx.preview.training optimizers: Adagrad, Adam, Momentum (one update
 * step of n tensors: inputs R, T, X1..n, G1..n, then the state tensors;
 * outputs the new X1..n and the new states).  Arithmetic in double. */
#include "runtime/kernel.h"
#include <math.h>
#include <string.h>

typedef enum { OPT_ADAGRAD, OPT_ADAM, OPT_MOMENTUM } OptKind;

static void
put (RtTensor *t, gint64 i, double v)
{
  if (t->dtype == GRAPH_DTYPE_FLOAT)
    ((float *) t->data)[i] = (float) v;
  else
    ((double *) t->data)[i] = v;
}

static gboolean
k_optimizer (RtCall *call, GError **error)
{
  const char *op = graph_node_op_type (call->node);
  OptKind kind = strcmp (op, "Adagrad") == 0 ? OPT_ADAGRAD : strcmp (op, "Adam") == 0 ? OPT_ADAM
                 : OPT_MOMENTUM;
  guint per = kind == OPT_ADAM ? 4 : 3;            /* X, G, states */
  guint nstate = per - 2;
  guint n = call->n_inputs >= 2 ? (call->n_inputs - 2) / per : 0;
  if (n == 0 || call->n_inputs != 2 + n * per || call->n_outputs != n * (1 + nstate))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "expects R, T and %u tensors per optimized input, and %u outputs each",
                     per, 1 + nstate);
      return FALSE;
    }
  const RtTensor *const *in = call->inputs, *scalar;
  if (!rt_scalar_input (call, 0, "R", FALSE, &scalar, error) || !rt_scalar_input (call, 1, "T", FALSE, &scalar, error))
    return FALSE;
  for (guint i = 0; i < call->n_inputs; i++)
    if (in[i] == NULL || (i >= 2 && (!(RT_DT_FLOATS & (1u << in[i]->dtype))
                                     || in[i]->numel != in[2 + (i - 2) % n]->numel)))
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "input %u is absent, not float or of another size", i);
        return FALSE;
      }
  double r = rt_get_f64 (in[0], 0);
  gint64 t = rt_get_i64 (in[1], 0);
  double norm = rt_attr_f (call->node, "norm_coefficient", 0);
  double eps = rt_attr_f (call->node, "epsilon", 1e-6);
  double decay = rt_attr_f (call->node, "decay_factor", 0);
  double alpha = rt_attr_f (call->node, "alpha", 0.9), beta = rt_attr_f (call->node, "beta", 0.999);
  double post = rt_attr_f (call->node, "norm_coefficient_post", 0);
  gboolean nesterov = strcmp (rt_attr_s (call->node, "mode", "standard"), "nesterov") == 0;
  if (kind == OPT_MOMENTUM)
    {
      alpha = rt_attr_f (call->node, "alpha", 0);
      beta = rt_attr_f (call->node, "beta", 0);
    }
  for (guint j = 0; j < n; j++)
    {
      const RtTensor *x = in[2 + j], *g = in[2 + n + j];
      const RtTensor *s1 = in[2 + 2 * n + j], *s2 = nstate > 1 ? in[2 + 3 * n + j] : NULL;
      RtTensor *xo = rt_call_output_like (call, j, x, error);
      RtTensor *o1 = xo ? rt_call_output_like (call, n + j, s1, error) : NULL;
      RtTensor *o2 = o1 && s2 ? rt_call_output_like (call, 2 * n + j, s2, error) : o1;
      if (o2 == NULL)
        return FALSE;
      for (gint64 i = 0; i < x->numel; i++)
        {
          double xv = rt_get_f64 (x, i), gr = norm * xv + rt_get_f64 (g, i), a = rt_get_f64 (s1, i);
          switch (kind)
            {
            case OPT_ADAGRAD:
              {
                double h = a + gr * gr;
                put (xo, i, xv - r / (1 + (double) t * decay) * gr / (sqrt (h) + eps));
                put (o1, i, h);
                break;
              }
            case OPT_ADAM:
              {
                double v = alpha * a + (1 - alpha) * gr;
                double h = beta * rt_get_f64 (s2, i) + (1 - beta) * gr * gr;
                double ra = t > 0 ? r * sqrt (1 - pow (beta, (double) t)) / (1 - pow (alpha, (double) t)) : r;
                put (xo, i, (1 - post) * (xv - ra * (v / (sqrt (h) + eps))));
                put (o1, i, v);
                put (o2, i, h);
                break;
              }
            case OPT_MOMENTUM:
            default:
              {
                double v = alpha * a + (t > 0 ? beta : 1) * gr;
                put (xo, i, nesterov ? xv - r * (gr + alpha * v) : xv - r * v);
                put (o1, i, v);
                break;
              }
            }
        }
    }
  return TRUE;
}

#define OPT(name) { RT_DOMAIN ("ai.onnx.preview.training", name, 1), RT_IN (5, RT_VARIADIC), \
                    RT_OUT (2, RT_VARIADIC), .run = k_optimizer }

static const RtKernelDef defs[] = {
  OPT ("Adagrad"), OPT ("Adam"), OPT ("Momentum"),
};

RT_KERNEL_TABLE (rt_kernels_training, defs);
