/* Reductions (Reduce*), ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax, CumSum,
 * TopK.  Accumulation is in double. */
#include "runtime/kernels-private.h"
#include "runtime/softmax-rows.h"
#include "runtime/vexp.h"
#include <math.h>
#include <string.h>

typedef enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LOGSUMEXP, R_SUMSQUARE } RKind;

static const struct { const char *op; RKind kind; int axes_input_since; } reduce_ops[] = {
  { "ReduceSum", R_SUM, 13 }, { "ReduceMean", R_MEAN, 18 }, { "ReduceMax", R_MAX, 18 },
  { "ReduceMin", R_MIN, 18 }, { "ReduceProd", R_PROD, 18 }, { "ReduceL1", R_L1, 18 },
  { "ReduceL2", R_L2, 18 }, { "ReduceLogSum", R_LOGSUM, 18 },
  { "ReduceLogSumExp", R_LOGSUMEXP, 18 }, { "ReduceSumSquare", R_SUMSQUARE, 18 },
};

/* Marks reduced axes; FALSE on bad axes.  *all when every axis is reduced. */
static gboolean
reduce_axes (RtCall *call, guint rank, int axes_input_since, gboolean *red, gboolean *noop,
             GError **error)
{
  gint64 axes[RT_MAX_RANK];
  guint n = 0;
  *noop = FALSE;
  memset (red, 0, RT_MAX_RANK * sizeof (gboolean));
  if (call->opset >= axes_input_since)
    {
      const RtTensor *t = call->n_inputs > 1 ? call->inputs[1] : NULL;
      if (t)
        {
          if (t->numel > RT_MAX_RANK)
            {
              rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "too many axes");
              return FALSE;
            }
          for (gint64 i = 0; i < t->numel; i++)
            axes[n++] = rt_get_i64 (t, i);
        }
      if (n == 0 && rt_attr_i (call->node, "noop_with_empty_axes", 0))
        {
          *noop = TRUE;
          return TRUE;
        }
    }
  else
    {
      gsize len;
      const gint64 *v;
      if (rt_attr_ints (call->node, "axes", &len, &v))
        {
          if (len > RT_MAX_RANK)
            {
              rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "too many axes");
              return FALSE;
            }
          memcpy (axes, v, len * sizeof (gint64));
          n = (guint) len;
        }
    }
  if (n == 0)
    for (guint i = 0; i < rank; i++)
      red[i] = TRUE;
  for (guint i = 0; i < n; i++)
    {
      guint ax;
      if (!rt_axis (call, axes[i], rank, &ax, error))
        return FALSE;
      red[ax] = TRUE;
    }
  return TRUE;
}

/* One element x into the accumulator d (aux: the max, for log-sum-exp). */
static inline void
accumulate (RKind kind, double *d, double x, double aux)
{
  switch (kind)
    {
    case R_SUM: case R_MEAN: case R_LOGSUM: *d += x; break;
    case R_MAX: if (x > *d || isnan (x)) *d = x; break;
    case R_MIN: if (x < *d || isnan (x)) *d = x; break;
    case R_PROD: *d *= x; break;
    case R_L1: *d += fabs (x); break;
    case R_L2: case R_SUMSQUARE: *d += x * x; break;
    case R_LOGSUMEXP: *d += isinf (aux) ? exp (x) : exp (x - aux); break;
    default: break;
    }
}

/* Reduction over the trailing axes of a float or double tensor: rows of n
 * contiguous elements, each accumulated in index order as the general loop
 * does (same bits), rows split over the session's threads. */
typedef struct
{
  const RtTensor *a;
  double         *acc;
  gint64          n;
  RKind           kind;
} RowsJob;

static void
reduce_rows (gint64 begin, gint64 end, gpointer data)
{
  const RowsJob *j = data;
  for (gint64 r = begin; r < end; r++)
    {
      double d = j->acc[r];
      if (j->a->dtype == GRAPH_DTYPE_FLOAT)
        for (gint64 i = 0; i < j->n; i++)
          accumulate (j->kind, &d, (double) ((const float *) j->a->data)[r * j->n + i], 0);
      else
        for (gint64 i = 0; i < j->n; i++)
          accumulate (j->kind, &d, ((const double *) j->a->data)[r * j->n + i], 0);
      j->acc[r] = d;
    }
}

static gboolean
k_reduce (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  const char *op = graph_node_op_type (call->node);
  RKind kind = R_SUM;
  int since = 13;
  for (guint i = 0; i < G_N_ELEMENTS (reduce_ops); i++)
    if (strcmp (reduce_ops[i].op, op) == 0)
      {
        kind = reduce_ops[i].kind;
        since = reduce_ops[i].axes_input_since;
      }
  gboolean red[RT_MAX_RANK], noop;
  if (!reduce_axes (call, a->rank, since, red, &noop, error))
    return FALSE;
  gboolean keep = rt_attr_i (call->node, "keepdims", 1) != 0;
  if (noop)
    {
      RtTensor *o = rt_call_output_like (call, 0, a, error);
      if (o == NULL)
        return FALSE;
      memcpy (o->data, a->data, (gsize) a->numel * rt_dtype_size (a->dtype));
      return TRUE;
    }
  gint64 odims[RT_MAX_RANK], kdims[RT_MAX_RANK];
  guint orank = 0;
  for (guint i = 0; i < a->rank; i++)
    {
      kdims[i] = red[i] ? 1 : a->dims[i];
      if (keep || !red[i])
        odims[orank++] = kdims[i];
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, orank, odims, error);
  if (o == NULL)
    return FALSE;
  gint64 on = o->numel;
  double *acc = rt_call_scratch (call, (gsize) MAX (on, 1) * 2 * sizeof (double), error);
  if (acc == NULL)
    return FALSE;
  double *aux = acc + on;
  double init = kind == R_MAX ? -INFINITY : kind == R_MIN ? INFINITY : kind == R_PROD ? 1 : 0;
  for (gint64 i = 0; i < on; i++)
    {
      acc[i] = init;
      aux[i] = -INFINITY;
    }
  /* Output strides over the input's dims (0 on reduced axes). */
  gint64 kst[RT_MAX_RANK], ost[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (a->rank, kdims, kst);
  for (guint i = 0; i < a->rank; i++)
    ost[i] = red[i] ? 0 : kst[i];
  if (kind == R_LOGSUMEXP)
    {
      /* First pass: the max per output, for a stable log-sum-exp. */
      gint64 off = 0;
      for (gint64 k = 0; k < a->numel; k++)
        {
          double x = rt_get_f64 (a, k);
          if (x > aux[off])
            aux[off] = x;
          for (gint64 j = (gint64) a->rank - 1; j >= 0; j--)
            {
              off += ost[j];
              if (++c[j] < a->dims[j])
                break;
              off -= ost[j] * a->dims[j];
              c[j] = 0;
            }
        }
      memset (c, 0, sizeof c);
    }
  /* Whether the reduced axes are the trailing ones (and some are). */
  guint first = a->rank;
  while (first > 0 && red[first - 1])
    first--;
  gboolean trailing = first < a->rank && kind != R_LOGSUMEXP
                      && (a->dtype == GRAPH_DTYPE_FLOAT || a->dtype == GRAPH_DTYPE_DOUBLE);
  for (guint i = 0; i < first; i++)
    trailing = trailing && !red[i];
  if (trailing && on > 0)
    {
      RowsJob j = { a, acc, a->numel / on, kind };
      rt_parallel_for (call, on, MAX (1, 16384 / MAX (j.n, 1)), reduce_rows, &j);
    }
  gint64 off = 0;
  for (gint64 k = 0; k < (trailing ? 0 : a->numel); k++)
    {
      double x = rt_get_f64 (a, k);
      accumulate (kind, &acc[off], x, aux[off]);
      for (gint64 j = (gint64) a->rank - 1; j >= 0; j--)
        {
          off += ost[j];
          if (++c[j] < a->dims[j])
            break;
          off -= ost[j] * a->dims[j];
          c[j] = 0;
        }
    }
  gint64 count = on ? a->numel / on : 0;
  for (gint64 i = 0; i < on; i++)
    {
      double v = acc[i];
      if (kind == R_MEAN)
        v = count ? v / (double) count : NAN;
      else if (kind == R_L2)
        v = sqrt (v);
      else if (kind == R_LOGSUM)
        v = log (v);
      else if (kind == R_LOGSUMEXP)
        v = log (v) + (isinf (aux[i]) ? 0 : aux[i]);
      if (graph_dtype_is_integer (a->dtype) && (isinf (v) || isnan (v)))
        v = 0;
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) rt_dtype_size (a->dtype),
                  a->dtype, 1);
    }
  return TRUE;
}

/* outer × n × inner view around one axis. */
static void
split_axis (const RtTensor *a, guint ax, gint64 *outer, gint64 *n, gint64 *inner)
{
  *outer = rt_shape_numel (ax, a->dims);
  *n = a->dims[ax];
  *inner = rt_shape_inner (a->rank, a->dims, ax);
}

static gboolean
k_argmax (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", 0), a->rank, &ax, error))
    return FALSE;
  gboolean keep = rt_attr_i (call->node, "keepdims", 1) != 0;
  gboolean last = rt_attr_i (call->node, "select_last_index", 0) != 0;
  gboolean is_max = strcmp (graph_node_op_type (call->node), "ArgMax") == 0;
  gint64 dims[RT_MAX_RANK];
  guint r = 0;
  for (guint i = 0; i < a->rank; i++)
    if (i != ax || keep)
      dims[r++] = i == ax ? 1 : a->dims[i];
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, r, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 outer, n, inner;
  split_axis (a, ax, &outer, &n, &inner);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        gint64 best = 0;
        double bv = n ? rt_get_f64 (a, i * n * inner + k) : 0;
        for (gint64 j = 1; j < n; j++)
          {
            double v = rt_get_f64 (a, (i * n + j) * inner + k);
            gboolean better = is_max ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
            if (better)
              {
                bv = v;
                best = j;
              }
          }
        ((gint64 *) o->data)[i * inner + k] = best;
      }
  return TRUE;
}

/* Softmax (mode 0), LogSoftmax (1), Hardmax (2) over n elements `inner`
 * apart, for outer indices [o0, o1).  Contiguous rows (inner 1) take their
 * exps 8 at a time (rt_vexp) through ex, EX_MAX doubles: kept for the
 * output pass when the row fits, computed again by chunks when not; the
 * sum is in index order, in double, either way. */
#define EX_MAX 2048

/* A contiguous float row (not Hardmax): the same steps as the loop below
 * with softmax-rows.c's vector passes, and its exps summed by
 * rt_vexp_shifted_sum (8 partial sums, not index order). */
static void
softmax_row_f (const float *x, float *y, gint64 n, int mode, double *ex)
{
  double m = rt_row_max_f (x, n);
  if (n <= EX_MAX && mode == 0)
    {
      double s = rt_vexp_shifted_sum (x, n, m, ex);
      rt_row_div_out_f (ex, n, s, y);
      return;
    }
  double s = rt_vexp_shifted_sum (x, n, m, NULL);
  if (mode == 1)
    {
      rt_row_log_out_f (x, n, m, log (s), y);
      return;
    }
  /* the exps again, by chunks of ex */
  for (gint64 j0 = 0; j0 < n; j0 += EX_MAX)
    {
      gint64 len = MIN (EX_MAX, n - j0);
      rt_vexp_shifted_sum (x + j0, len, m, ex);
      rt_row_div_out_f (ex, len, s, y + j0);
    }
}

#define GEN_SOFTMAX(E, T)                                                          \
  static void softmax_##E (const T *x, T *y, gint64 o0, gint64 o1, gint64 n, gint64 inner, \
                           int mode, double *ex)                                    \
  {                                                                                \
    for (gint64 i = o0; i < o1; i++)                                               \
      for (gint64 k = 0; k < inner; k++)                                           \
        {                                                                          \
          const T *px = x + i * n * inner + k;                                     \
          T *py = y + i * n * inner + k;                                           \
          if (sizeof (T) == sizeof (float) && inner == 1 && mode != 2)             \
            {                                                                      \
              softmax_row_f ((const float *) px, (float *) py, n, mode, ex);       \
              continue;                                                            \
            }                                                                      \
          double m = -INFINITY, s = 0;                                             \
          gint64 arg = 0;                                                          \
          for (gint64 j = 0; j < n; j++)                                           \
            if (px[j * inner] > m) { m = px[j * inner]; arg = j; }                 \
          if (mode == 2)                                                           \
            {                                                                      \
              for (gint64 j = 0; j < n; j++) py[j * inner] = (T) (j == arg);       \
              continue;                                                            \
            }                                                                      \
          if (inner == 1)                                                          \
            for (gint64 j0 = 0; j0 < n; j0 += EX_MAX)                              \
              {                                                                    \
                gint64 len = MIN (EX_MAX, n - j0);                                 \
                for (gint64 j = 0; j < len; j++)                                   \
                  ex[j] = (double) px[j0 + j] - m;                                 \
                rt_vexp (ex, len);                                                 \
                for (gint64 j = 0; j < len; j++)                                   \
                  s += ex[j];                                                      \
              }                                                                    \
          else                                                                     \
            for (gint64 j = 0; j < n; j++)                                         \
              s += exp ((double) px[j * inner] - m);                               \
          double ls = mode == 1 ? log (s) : 0;                                     \
          if (mode == 1 || inner != 1)                                             \
            {                                                                      \
              for (gint64 j = 0; j < n; j++)                                       \
                py[j * inner] = (T) (mode == 1 ? (double) px[j * inner] - m - ls  \
                                               : exp ((double) px[j * inner] - m) / s); \
              continue;                                                            \
            }                                                                      \
          for (gint64 j0 = 0; j0 < n; j0 += EX_MAX)                                \
            {                                                                      \
              gint64 len = MIN (EX_MAX, n - j0);                                   \
              if (n > EX_MAX)                                                      \
                {                                                                  \
                  for (gint64 j = 0; j < len; j++)                                 \
                    ex[j] = (double) px[j0 + j] - m;                               \
                  rt_vexp (ex, len);                                               \
                }                                                                  \
              for (gint64 j = 0; j < len; j++)                                     \
                py[j0 + j] = (T) (ex[j] / s);                                      \
            }                                                                      \
        }                                                                          \
  }
RT_FOREACH_FLOAT (GEN_SOFTMAX)

typedef struct
{
  const RtTensor *a;
  RtTensor       *o;
  gint64          n, inner;
  int             mode;
} SoftmaxJob;

static void
softmax_range (gint64 begin, gint64 end, gpointer data)
{
  const SoftmaxJob *j = data;
  double ex[EX_MAX];
  if (j->a->dtype == GRAPH_DTYPE_FLOAT)
    softmax_FLOAT (j->a->data, j->o->data, begin, end, j->n, j->inner, j->mode, ex);
  else
    softmax_DOUBLE (j->a->data, j->o->data, begin, end, j->n, j->inner, j->mode, ex);
}

/* The rows (outer indices) split over the session's threads: each row is
 * computed alone, so the bits do not depend on the split. */
static void
softmax_run (RtCall *call, const RtTensor *a, RtTensor *o, gint64 outer, gint64 n, gint64 inner,
             int mode)
{
  SoftmaxJob j = { a, o, n, inner, mode };
  rt_parallel_for (call, outer, MAX (1, 16384 / MAX (n * inner, 1)), softmax_range, &j);
}

gboolean
rt_softmax (RtCall *call, const RtTensor *a, guint axis, gboolean log, GError **error)
{
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gint64 outer, n, inner;
  split_axis (a, axis, &outer, &n, &inner);
  softmax_run (call, a, o, outer, n, inner, log ? 1 : 0);
  return TRUE;
}

static gboolean
k_softmax (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  const char *op = graph_node_op_type (call->node);
  int mode = strcmp (op, "LogSoftmax") == 0 ? 1 : strcmp (op, "Hardmax") == 0 ? 2 : 0;
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", call->opset < 13 ? 1 : -1), a->rank, &ax, error))
    return FALSE;
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gint64 outer, n, inner;
  if (call->opset < 13)
    {
      /* Coerced to 2-D at axis: the softmax runs over all trailing dims. */
      outer = rt_shape_numel (ax, a->dims);
      n = rt_shape_numel (a->rank - ax, a->dims + ax);
      inner = 1;
    }
  else
    split_axis (a, ax, &outer, &n, &inner);
  softmax_run (call, a, o, outer, n, inner, mode);
  return TRUE;
}

/* One CumSum step: integers wrap as ONNX Runtime's do (two's complement,
 * not a signed overflow); a float input is summed in double only. */
static inline void
cumsum_add (const RtTensor *a, gint64 idx, gboolean integer, double *s, gint64 *is)
{
  if (integer)
    *is = (gint64) ((guint64) *is + (guint64) rt_get_i64 (a, idx));
  else
    *s += rt_get_f64 (a, idx);
}

static gboolean
k_cumsum (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  guint ax;
  if (call->inputs[1]->numel != 1 || !rt_axis (call, rt_get_i64 (call->inputs[1], 0), a->rank, &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "axis must be a scalar");
      return FALSE;
    }
  gboolean excl = rt_attr_i (call->node, "exclusive", 0) != 0;
  gboolean rev = rt_attr_i (call->node, "reverse", 0) != 0;
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gint64 outer, n, inner;
  split_axis (a, ax, &outer, &n, &inner);
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        double s = 0;
        gint64 is = 0;
        gboolean integer = graph_dtype_is_integer (a->dtype);
        for (gint64 jj = 0; jj < n; jj++)
          {
            gint64 j = rev ? n - 1 - jj : jj;
            gint64 idx = (i * n + j) * inner + k;
            if (!excl)
              {
                cumsum_add (a, idx, integer, &s, &is);
              }
            if (integer)
              rt_convert (&is, GRAPH_DTYPE_INT64, (char *) o->data + idx * (gint64) es, a->dtype, 1);
            else
              rt_convert (&s, GRAPH_DTYPE_DOUBLE, (char *) o->data + idx * (gint64) es, a->dtype, 1);
            if (excl)
              {
                cumsum_add (a, idx, integer, &s, &is);
              }
          }
      }
  return TRUE;
}

typedef struct
{
  double v;
  gint64 i;
} Pair;

static int
cmp_largest (const void *pa, const void *pb)
{
  const Pair *a = pa, *b = pb;
  if (a->v != b->v)
    return a->v > b->v ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

static int
cmp_smallest (const void *pa, const void *pb)
{
  const Pair *a = pa, *b = pb;
  if (a->v != b->v)
    return a->v < b->v ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

static gboolean
k_topk (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", -1), a->rank, &ax, error))
    return FALSE;
  gint64 kk = call->opset < 10 ? rt_attr_i (call->node, "k", 0)
                               : (call->n_inputs > 1 && call->inputs[1] && call->inputs[1]->numel == 1
                                  ? rt_get_i64 (call->inputs[1], 0) : -1);
  if (kk < 0 || kk > a->dims[ax])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "k = %" G_GINT64_FORMAT " is out of range", kk);
      return FALSE;
    }
  gboolean largest = rt_attr_i (call->node, "largest", 1) != 0;
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, a->rank * sizeof (gint64));
  dims[ax] = kk;
  RtTensor *vo = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  RtTensor *io = vo ? rt_call_output (call, 1, GRAPH_DTYPE_INT64, a->rank, dims, error) : NULL;
  if (io == NULL)
    return FALSE;
  gint64 outer, n, inner;
  split_axis (a, ax, &outer, &n, &inner);
  Pair *p = rt_call_scratch (call, (gsize) MAX (n, 1) * sizeof (Pair), error);
  if (p == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        for (gint64 j = 0; j < n; j++)
          {
            p[j].v = rt_get_f64 (a, (i * n + j) * inner + k);
            p[j].i = j;
          }
        qsort (p, (gsize) n, sizeof (Pair), largest ? cmp_largest : cmp_smallest);
        for (gint64 j = 0; j < kk; j++)
          {
            gint64 oi = (i * kk + j) * inner + k;
            memcpy ((char *) vo->data + oi * (gint64) es,
                    (const char *) a->data + ((i * n + p[j].i) * inner + k) * (gint64) es, es);
            ((gint64 *) io->data)[oi] = p[j].i;
          }
      }
  return TRUE;
}

#define RED(op_) { RT_ONNX (op_, 1), RT_IN (1, 2), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_reduce }

static const RtKernelDef defs[] = {
  RED ("ReduceSum"), RED ("ReduceMean"), RED ("ReduceMax"), RED ("ReduceMin"),
  RED ("ReduceProd"), RED ("ReduceL1"), RED ("ReduceL2"), RED ("ReduceLogSum"),
  RED ("ReduceLogSumExp"), RED ("ReduceSumSquare"),
  { RT_ONNX ("ArgMax", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_argmax },
  { RT_ONNX ("ArgMin", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_argmax },
  { RT_ONNX ("Softmax", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_softmax },
  { RT_ONNX ("LogSoftmax", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_softmax },
  { RT_ONNX ("Hardmax", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_softmax },
  { RT_ONNX ("CumSum", 11), RT_IN (2, 2), RT_OUT (1, 1), .dtypes = RT_DT_NUMERIC, .run = k_cumsum },
  { RT_ONNX ("TopK", 1), RT_IN (1, 2), RT_OUT (2, 2), .dtypes = RT_DT_NUMERIC, .run = k_topk },
};

RT_KERNEL_TABLE (rt_kernels_reduce, defs);
