/* ATen losses torch 1.13's exporter has symbolics for: nll_loss (and its
 * 2d / nd forms), cross_entropy_loss (class indices or probabilities, label
 * smoothing),
 * binary_cross_entropy_with_logits, kl_div.  reduction: 0 none, 1 mean,
 * 2 sum, as torch's Reduction enum. */
#include "runtime/k-aten-private.h"
#include <math.h>

static gboolean
float_input (RtCall *call, guint i, const RtTensor **t, GError **error)
{
  *t = aten_arg (call, i);
  if (!aten_is_float (*t))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "argument %u must be a float or double tensor", i);
      return FALSE;
    }
  return TRUE;
}

/* Output 0 := the per-element losses (reduction 0, shape dims) or their
 * mean (divided by `denom`) / sum. */
static gboolean
reduced (RtCall *call, const double *loss, gint64 n, guint rank, const gint64 *dims, gint64 reduction,
         double denom, GraphDType dt, GError **error)
{
  if (reduction < 0 || reduction > 2)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "reduction must be 0 (none), 1 (mean) or 2 (sum)");
      return FALSE;
    }
  if (reduction == 0)
    {
      RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
      return o && rt_convert (loss, GRAPH_DTYPE_DOUBLE, o->data, dt, n);
    }
  double s = 0;
  for (gint64 i = 0; i < n; i++)
    s += loss[i];
  if (reduction == 1)
    s /= denom;
  RtTensor *o = rt_call_output (call, 0, dt, 0, NULL, error);
  return o && rt_convert (&s, GRAPH_DTYPE_DOUBLE, o->data, dt, 1);
}

/* log p[b, c, k]: x itself (nll) or its log-softmax over the class dim
 * (lse[b * inner + k] the log-sum-exp of that column). */
static double
logp (const RtTensor *x, const double *lse, gint64 C, gint64 inner, gint64 b, gint64 c, gint64 k)
{
  double v = rt_get_f64 (x, (b * C + c) * inner + k);
  return lse ? v - lse[b * inner + k] : v;
}

/* lse[i] := log-sum-exp over the classes of column i (N * inner of them). */
static void
log_sum_exp (const RtTensor *x, gint64 N, gint64 C, gint64 inner, double *lse)
{
  for (gint64 b = 0; b < N; b++)
    for (gint64 k = 0; k < inner; k++)
      {
        double mx = -INFINITY, s = 0;
        for (gint64 j = 0; j < C; j++)
          mx = MAX (mx, rt_get_f64 (x, (b * C + j) * inner + k));
        for (gint64 j = 0; j < C; j++)
          s += exp (rt_get_f64 (x, (b * C + j) * inner + k) - mx);
        lse[b * inner + k] = isinf (mx) ? mx : mx + log (s);
      }
}

/* Whether t has x's shape without the class dim (dim 1, or 0 for 1-D x);
 * with_classes: x's shape itself (class-probability targets). */
static gboolean
target_shape_ok (const RtTensor *x, const RtTensor *t, gboolean with_classes)
{
  if (with_classes)
    return t->rank == x->rank && memcmp (t->dims, x->dims, sizeof (gint64) * x->rank) == 0;
  if (t->rank != (x->rank >= 2 ? x->rank - 1 : 0))
    return FALSE;
  for (guint d = 0; d < t->rank; d++)
    if (t->dims[d] != x->dims[d == 0 ? 0 : d + 1])
      return FALSE;
  return TRUE;
}

/* nll_loss: -w[t] * logp[i, t] per sample (class dim 1, or 0 for a 1-D
 * input).  cross_entropy_loss (softmax): the same on the log-softmax, with
 * torch's label smoothing e, (1 - e) of that plus e of the mean over the
 * classes of -w[c] * logp[i, c] (0 for an ignored sample, the mean divided
 * by the ignored samples' weights as nll's); or, for float targets of
 * class probabilities p, -sum_c w[c] ((1 - e) p[c] + e / C) logp[i, c],
 * the mean over every sample. */
static gboolean
nll (RtCall *call, gboolean softmax, GError **error)
{
  const RtTensor *x, *t = aten_arg (call, 1), *w = aten_arg (call, 2);
  if (!float_input (call, 0, &x, error))
    return FALSE;
  gint64 reduction = aten_i (call, 3, 1), ignore = aten_i (call, 4, -100);
  double eps = softmax ? aten_f (call, 5, 0) : 0;
  if (!(eps >= 0 && eps <= 1))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "label_smoothing must be in [0, 1] (got %g)", eps);
      return FALSE;
    }
  gboolean batched = x->rank >= 2;
  gint64 C = x->rank == 0 ? 0 : batched ? x->dims[1] : x->dims[0], N = batched ? x->dims[0] : 1;
  gint64 inner = batched ? rt_shape_numel (x->rank - 2, x->dims + 2) : 1;
  gboolean probs = softmax && t && t->dtype == x->dtype;
  gboolean shape_ok = t && (probs || graph_dtype_is_integer (t->dtype)) && target_shape_ok (x, t, probs)
                      && (w == NULL || (w->numel == C && w->rank == 1));
  if (x->rank == 0 || !shape_ok)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     softmax ? "needs input (N, C, ...) or (C), targets (N, ...) or () of class indices, or "
                               "of the input's shape and type (class probabilities), weight of C"
                             : "needs input (N, C, ...) or (C), integer targets (N, ...) or (), weight of C");
      return FALSE;
    }
  gint64 n = N * inner;
  double *loss = rt_call_scratch_n (call, 1, (gsize) MAX (n, 1) * sizeof (double), error);
  double *lse = loss && softmax ? rt_call_scratch_n (call, 2, (gsize) MAX (n, 1) * sizeof (double), error) : NULL;
  if (loss == NULL || (softmax && lse == NULL))
    return FALSE;
  if (softmax)
    log_sum_exp (x, N, C, inner, lse);
  double denom = probs ? (double) MAX (n, 1) : 0;
  for (gint64 b = 0; b < N; b++)
    for (gint64 k = 0; k < inner; k++)
      {
        gint64 i = b * inner + k;
        if (probs)
          {
            double s = 0;
            for (gint64 j = 0; j < C; j++)
              s += (w ? rt_get_f64 (w, j) : 1) * ((1 - eps) * rt_get_f64 (t, (b * C + j) * inner + k) + eps / C)
                   * logp (x, lse, C, inner, b, j, k);
            loss[i] = -s;
            continue;
          }
        gint64 c = rt_get_i64 (t, i);
        if (c == ignore)
          {
            loss[i] = 0;
            continue;
          }
        if (c < 0 || c >= C)
          {
            rt_call_error (call, error, RT_ERROR_SHAPE, "target %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT ")", c, C);
            return FALSE;
          }
        double wc = w ? rt_get_f64 (w, c) : 1;
        loss[i] = -wc * logp (x, lse, C, inner, b, c, k);
        denom += wc;
        if (eps > 0)
          {
            double s = 0;
            for (gint64 j = 0; j < C; j++)
              s += (w ? rt_get_f64 (w, j) : 1) * logp (x, lse, C, inner, b, j, k);
            loss[i] = (1 - eps) * loss[i] - eps * s / C;
          }
      }
  /* reduction none: x's shape without the class dim. */
  gint64 od[RT_MAX_RANK];
  guint orank = batched ? x->rank - 1 : 0;
  for (guint d = 0; d < orank; d++)
    od[d] = x->dims[d == 0 ? 0 : d + 1];
  return reduced (call, loss, n, orank, od, reduction, denom, x->dtype, error);
}

/* nll_loss / nll_loss2d / nll_loss_nd(self, target, weight?, reduction, ignore_index) */
static gboolean a_nll_loss (RtCall *c, GError **e) { return nll (c, FALSE, e); }
/* cross_entropy_loss(self, target, weight?, reduction, ignore_index, label_smoothing) */
static gboolean a_cross_entropy_loss (RtCall *c, GError **e) { return nll (c, TRUE, e); }

/* binary_cross_entropy_with_logits(self, target, weight?, pos_weight?, reduction) */
static gboolean
a_bce_with_logits (RtCall *call, GError **error)
{
  const RtTensor *x, *t, *w = aten_arg (call, 2), *pw = aten_arg (call, 3);
  if (!float_input (call, 0, &x, error) || !float_input (call, 1, &t, error))
    return FALSE;
  if (t->rank != x->rank || memcmp (t->dims, x->dims, sizeof (gint64) * x->rank) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "target must have the input's shape");
      return FALSE;
    }
  gint64 sw[RT_MAX_RANK], sp[RT_MAX_RANK];
  if ((w && !rt_broadcasts_to (call, w, x->rank, x->dims, "weight", error))
      || (pw && !rt_broadcasts_to (call, pw, x->rank, x->dims, "pos_weight", error)))
    return FALSE;
  if (w)
    rt_broadcast_strides (w, x->rank, x->dims, sw);
  if (pw)
    rt_broadcast_strides (pw, x->rank, x->dims, sp);
  double *loss = rt_call_scratch_n (call, 1, (gsize) MAX (x->numel, 1) * sizeof (double), error);
  if (loss == NULL)
    return FALSE;
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < x->numel; i++)
    {
      gint64 ow = 0, op = 0;
      for (guint d = 0; d < x->rank; d++)
        {
          ow += c[d] * (w ? sw[d] : 0);
          op += c[d] * (pw ? sp[d] : 0);
        }
      double v = rt_get_f64 (x, i), y = rt_get_f64 (t, i);
      double m = MAX (-v, 0), lw = pw ? 1 + (rt_get_f64 (pw, op) - 1) * y : 1;
      double l = (1 - y) * v + lw * (log (exp (-m) + exp (-v - m)) + m);
      loss[i] = w ? l * rt_get_f64 (w, ow) : l;
      rt_index_next (c, x->dims, x->rank);
    }
  return reduced (call, loss, x->numel, x->rank, x->dims, aten_i (call, 4, 1), (double) MAX (x->numel, 1),
                  x->dtype, error);
}

/* kl_div(self, target, reduction, log_target): target (log t) against
 * input log-probabilities; reduction mean over every element. */
static gboolean
a_kl_div (RtCall *call, GError **error)
{
  const RtTensor *x, *t;
  if (!float_input (call, 0, &x, error) || !float_input (call, 1, &t, error))
    return FALSE;
  if (t->rank != x->rank || memcmp (t->dims, x->dims, sizeof (gint64) * x->rank) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "target must have the input's shape");
      return FALSE;
    }
  gboolean log_target = aten_i (call, 3, 0) != 0;
  double *loss = rt_call_scratch_n (call, 1, (gsize) MAX (x->numel, 1) * sizeof (double), error);
  if (loss == NULL)
    return FALSE;
  for (gint64 i = 0; i < x->numel; i++)
    {
      double v = rt_get_f64 (x, i), y = rt_get_f64 (t, i);
      loss[i] = log_target ? exp (y) * (y - v) : (y == 0 ? 0 : y * (log (y) - v));
    }
  return reduced (call, loss, x->numel, x->rank, x->dims, aten_i (call, 2, 1), (double) MAX (x->numel, 1),
                  x->dtype, error);
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("nll_loss", 2, 5, a_nll_loss), RT_ATEN_ROW ("nll_loss2d", 2, 5, a_nll_loss), RT_ATEN_ROW ("nll_loss_nd", 2, 5, a_nll_loss),
  RT_ATEN_ROW ("cross_entropy_loss", 2, 6, a_cross_entropy_loss),
  RT_ATEN_ROW ("binary_cross_entropy_with_logits", 2, 5, a_bce_with_logits),
  RT_ATEN_ROW ("kl_div", 2, 4, a_kl_div),
};

RT_KERNEL_TABLE (rt_kernels_aten_loss, defs);
