/* Losses: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss (opset 12+).
 * Input (N, C, d1..dk), target (N, d1..dk); accumulation in double. */
#include "runtime/kernel.h"
#include <math.h>
#include <string.h>

/* loss[n, d] = -w[t] * logp[n, t, d] for t = target[n, d] (0 where t is
 * ignore_index), then reduced.  logp is (N, C, D) in double. */
static gboolean
nll_reduce (RtCall *call, const double *logp, const RtTensor *x, const RtTensor *target,
            const RtTensor *weight, GError **error)
{
  const char *reduction = rt_attr_s (call->node, "reduction", "mean");
  gboolean has_ii = graph_node_has_attr (call->node, "ignore_index");
  gint64 ii = rt_attr_i (call->node, "ignore_index", 0);
  gint64 N = x->dims[0], C = x->dims[1];
  gint64 D = N > 0 && C > 0 ? x->numel / (N * C) : 0;
  int red = strcmp (reduction, "none") == 0 ? 0 : strcmp (reduction, "sum") == 0 ? 1
          : strcmp (reduction, "mean") == 0 ? 2 : -1;
  if (red < 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "unknown reduction '%s'", reduction);
      return FALSE;
    }
  if (target->rank + 1 != x->rank || target->dims[0] != N
      || memcmp (target->dims + 1, x->dims + 2, (x->rank - 2) * sizeof (gint64)) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "target shape does not match input (N, C, d1..dk)");
      return FALSE;
    }
  if (weight && (weight->rank != 1 || weight->dims[0] != C))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "weight must have shape (C)");
      return FALSE;
    }
  RtTensor *o = red == 0 ? rt_call_output (call, 0, x->dtype, target->rank, target->dims, error)
                         : rt_call_output (call, 0, x->dtype, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  double sum = 0, wsum = 0;
  for (gint64 n = 0; n < N; n++)
    for (gint64 d = 0; d < D; d++)
      {
        gint64 ti = n * D + d;
        gint64 t = rt_get_i64 (target, ti);
        double l = 0, w = 1;
        if (has_ii && t == ii)
          w = 0;
        else
          {
            if (t < 0 || t >= C)
              {
                rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                               "target %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT ")",
                               t, C);
                return FALSE;
              }
            if (weight)
              w = rt_get_f64 (weight, t);
            l = -w * logp[(n * C + t) * D + d];
          }
        if (red == 0)
          {
            if (o->dtype == GRAPH_DTYPE_FLOAT)
              ((float *) o->data)[ti] = (float) l;
            else
              ((double *) o->data)[ti] = l;
          }
        sum += l;
        wsum += w;
      }
  if (red == 0)
    return TRUE;
  /* mean divides by the sum of the weights (the count without weights or ignore_index). */
  double r = red == 1 ? sum : sum / wsum;
  if (o->dtype == GRAPH_DTYPE_FLOAT)
    *(float *) o->data = (float) r;
  else
    *(double *) o->data = r;
  return TRUE;
}

static gboolean
check_input (RtCall *call, const RtTensor *x, GError **error)
{
  if (x->rank < 2)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "input must have rank >= 2 (N, C, ...)");
      return FALSE;
    }
  return TRUE;
}

static gboolean
k_nllloss (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  if (!check_input (call, x, error))
    return FALSE;
  double *logp = rt_call_scratch (call, (gsize) MAX (x->numel, 1) * sizeof (double), error);
  if (logp == NULL)
    return FALSE;
  for (gint64 i = 0; i < x->numel; i++)
    logp[i] = rt_get_f64 (x, i);
  return nll_reduce (call, logp, x, call->inputs[1], call->n_inputs > 2 ? call->inputs[2] : NULL,
                     error);
}

static gboolean
k_sce (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  if (!check_input (call, x, error))
    return FALSE;
  gint64 N = x->dims[0], C = x->dims[1];
  gint64 D = N > 0 && C > 0 ? x->numel / (N * C) : 0;
  double *logp = rt_call_scratch (call, (gsize) MAX (x->numel, 1) * sizeof (double), error);
  if (logp == NULL)
    return FALSE;
  /* log_softmax over C. */
  for (gint64 n = 0; n < N; n++)
    for (gint64 d = 0; d < D; d++)
      {
        double m = -INFINITY, s = 0;
        for (gint64 c = 0; c < C; c++)
          m = MAX (m, rt_get_f64 (x, (n * C + c) * D + d));
        for (gint64 c = 0; c < C; c++)
          s += exp (rt_get_f64 (x, (n * C + c) * D + d) - m);
        double ls = log (s);
        for (gint64 c = 0; c < C; c++)
          {
            gint64 i = (n * C + c) * D + d;
            logp[i] = rt_get_f64 (x, i) - m - ls;
          }
      }
  if (call->n_outputs > 1)
    {
      RtTensor *lp = rt_call_output_like (call, 1, x, error);
      if (lp == NULL)
        return FALSE;
      for (gint64 i = 0; i < x->numel; i++)
        if (lp->dtype == GRAPH_DTYPE_FLOAT)
          ((float *) lp->data)[i] = (float) logp[i];
        else
          ((double *) lp->data)[i] = logp[i];
    }
  return nll_reduce (call, logp, x, call->inputs[1], call->n_inputs > 2 ? call->inputs[2] : NULL,
                     error);
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("NegativeLogLikelihoodLoss", 12), RT_IN (2, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_nllloss },
  { RT_ONNX ("SoftmaxCrossEntropyLoss", 12), RT_IN (2, 3), RT_OUT (1, 2), .dtypes = RT_DT_FLOATS, .run = k_sce },
};

RT_KERNEL_TABLE (rt_kernels_loss, defs);
