/* ATen reductions: sum, mean, prod, amax/amin, max/min (all, per dim with
 * indices, or element-wise), argmax/argmin, logsumexp, std/var (and their
 * _mean forms), norm / frobenius_norm / linalg_vector_norm, cumsum.  One
 * loop (reduce()) walks the input once per pass and accumulates into the
 * output element each input element maps to: in int64 for integer sums
 * and products, in double otherwise, as torch accumulates float in
 * double-width on the CPU. */
#include "runtime/k-aten-private.h"
#include <math.h>

typedef enum
{
  R_SUM, R_MEAN, R_PROD, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_LSE, R_VAR, R_NORM,
} Reduction;

typedef struct
{
  gboolean red[RT_MAX_RANK];   /* reduced dims */
  gboolean keep;               /* keepdim */
  Reduction kind;
  double   p;                  /* R_NORM: the order */
  double   correction;         /* R_VAR: 1 unbiased, 0 biased */
  gboolean root;               /* R_VAR: std */
} ReduceSpec;

/* The output shape, and for each input element its output element. */
static void
out_shape (const RtTensor *a, const ReduceSpec *r, guint *rank, gint64 *dims)
{
  *rank = 0;
  for (guint d = 0; d < a->rank; d++)
    if (!r->red[d])
      dims[(*rank)++] = a->dims[d];
    else if (r->keep)
      dims[(*rank)++] = 1;
}

/* ostride[d]: output stride of input dim d (0 when reduced). */
static void
out_strides (const RtTensor *a, const ReduceSpec *r, gint64 *ostride)
{
  gint64 s = 1;
  for (guint d = a->rank; d-- > 0;)
    {
      ostride[d] = r->red[d] ? 0 : s;
      if (!r->red[d])
        s *= a->dims[d];
    }
}

/* Output `which` of the call := the reduction of a.  For R_MAX/R_MIN with
 * `indices` (output 1), the first index of the extreme along the single
 * reduced dim as well. */
static gboolean
reduce (RtCall *call, const RtTensor *a, const ReduceSpec *r, GraphDType out_dt, guint which,
        gboolean indices, GError **error)
{
  guint rank;
  gint64 dims[RT_MAX_RANK], ostride[RT_MAX_RANK];
  out_shape (a, r, &rank, dims);
  out_strides (a, r, ostride);
  gint64 n_out = rt_shape_numel (rank, dims), count = 1;
  for (guint d = 0; d < a->rank; d++)
    if (r->red[d])
      count *= a->dims[d];
  if (count == 0 && (r->kind == R_MAX || r->kind == R_MIN || r->kind == R_ARGMAX || r->kind == R_ARGMIN))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "cannot take the max or min of an empty dimension");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, which, out_dt, rank, dims, error);
  RtTensor *oi = o && indices ? rt_call_output (call, which + 1, GRAPH_DTYPE_INT64, rank, dims, error) : NULL;
  if (o == NULL || (indices && oi == NULL))
    return FALSE;
  gsize bytes = (gsize) MAX (n_out, 1) * sizeof (double);
  double *acc = rt_call_scratch_n (call, 1, bytes, error);
  double *aux = rt_call_scratch_n (call, 2, bytes, error);
  gint64 *iacc = rt_call_scratch_n (call, 3, (gsize) MAX (n_out, 1) * sizeof (gint64) * 3, error);
  if (acc == NULL || aux == NULL || iacc == NULL)
    return FALSE;
  gint64 *pos = iacc + MAX (n_out, 1);   /* index along the reduced dims of the extreme */
  gint64 *flat = pos + MAX (n_out, 1);   /* its flat index in a: the value is copied from there */
  gboolean int_math = !graph_dtype_is_floating (out_dt) && (r->kind == R_SUM || r->kind == R_PROD);
  for (gint64 j = 0; j < n_out; j++)
    {
      acc[j] = r->kind == R_PROD ? 1 : r->kind == R_MAX || r->kind == R_ARGMAX || r->kind == R_LSE ? -INFINITY
             : r->kind == R_MIN || r->kind == R_ARGMIN ? INFINITY : 0;
      iacc[j] = r->kind == R_PROD ? 1 : 0;
      pos[j] = 0;
      flat[j] = -1;
      aux[j] = 0;
    }
  gint64 c[RT_MAX_RANK] = { 0 };
  /* Pass 1: sums, extremes; the mean for R_VAR; the max for R_LSE. */
  for (gint64 i = 0; i < a->numel; i++)
    {
      gint64 j = 0, k = 0;
      for (guint d = 0; d < a->rank; d++)
        {
          j += c[d] * ostride[d];
          if (r->red[d])
            k = k * a->dims[d] + c[d];
        }
      if (int_math)
        {
          gint64 v = rt_get_i64 (a, i);
          iacc[j] = r->kind == R_SUM ? (gint64) ((guint64) iacc[j] + (guint64) v)
                                     : (gint64) ((guint64) iacc[j] * (guint64) v);
        }
      else
        {
          double v = rt_get_f64 (a, i);
          switch (r->kind)
            {
            case R_SUM: case R_MEAN: case R_VAR: acc[j] += v; break;
            case R_PROD: acc[j] *= v; break;
            case R_NORM:
              acc[j] = isinf (r->p) ? (r->p > 0 ? MAX (acc[j], fabs (v)) : (aux[j]++ ? MIN (acc[j], fabs (v)) : fabs (v)))
                     : r->p == 0 ? acc[j] + (v != 0) : acc[j] + pow (fabs (v), r->p);
              break;
            case R_MAX: case R_ARGMAX: case R_LSE:
              if (flat[j] < 0 || v > acc[j] || (isnan (v) && !isnan (acc[j])))
                {
                  acc[j] = v;
                  pos[j] = k;
                  flat[j] = i;
                }
              break;
            case R_MIN: case R_ARGMIN:
              if (flat[j] < 0 || v < acc[j] || (isnan (v) && !isnan (acc[j])))
                {
                  acc[j] = v;
                  pos[j] = k;
                  flat[j] = i;
                }
              break;
            }
        }
      rt_index_next (c, a->dims, a->rank);
    }
  /* Pass 2: squared deviations for R_VAR, exp sums for R_LSE. */
  if (r->kind == R_VAR || r->kind == R_LSE)
    {
      memset (c, 0, sizeof c);
      for (gint64 i = 0; i < a->numel; i++)
        {
          gint64 j = 0;
          for (guint d = 0; d < a->rank; d++)
            j += c[d] * ostride[d];
          double v = rt_get_f64 (a, i);
          if (r->kind == R_VAR)
            {
              double dv = v - acc[j] / (double) count;
              aux[j] += dv * dv;
            }
          else if (!isinf (acc[j]))
            aux[j] += exp (v - acc[j]);
          rt_index_next (c, a->dims, a->rank);
        }
    }
  gsize es = rt_dtype_size (out_dt);
  for (gint64 j = 0; j < n_out; j++)
    {
      char *dst = (char *) o->data + j * (gint64) es;
      if (int_math)
        {
          rt_convert (&iacc[j], GRAPH_DTYPE_INT64, dst, out_dt, 1);
          continue;
        }
      double v = acc[j];
      switch (r->kind)
        {
        case R_MEAN: v = acc[j] / (double) count; break;
        case R_VAR:
          v = aux[j] / MAX ((double) count - r->correction, 0.0);
          if (r->root)
            v = sqrt (v);
          break;
        case R_LSE: v = isinf (acc[j]) ? acc[j] : acc[j] + log (aux[j]); break;
        case R_NORM: v = isinf (r->p) || r->p == 0 ? acc[j] : pow (acc[j], 1.0 / r->p); break;
        default: break;
        }
      if (r->kind == R_ARGMAX || r->kind == R_ARGMIN)
        {
          gint64 idx = pos[j];
          rt_convert (&idx, GRAPH_DTYPE_INT64, dst, out_dt, 1);
        }
      else if ((r->kind == R_MAX || r->kind == R_MIN) && flat[j] >= 0 && out_dt == a->dtype)
        /* The element itself: exact for int64 beyond 2^53 too. */
        memcpy (dst, (const char *) a->data + flat[j] * (gint64) es, es);
      else
        rt_convert (&v, GRAPH_DTYPE_DOUBLE, dst, out_dt, 1);
      if (oi)
        ((gint64 *) oi->data)[j] = pos[j];
    }
  return TRUE;
}

/* ---- argument forms ------------------------------------------------------- */

static gboolean
input (RtCall *call, const RtTensor **a, GError **error)
{
  *a = aten_arg (call, 0);
  if (*a == NULL || (*a)->kind != RT_KIND_TENSOR || (*a)->dtype == GRAPH_DTYPE_STRING)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument 0 must be a numeric tensor");
      return FALSE;
    }
  return TRUE;
}

/* dims from argument i (int or int[]; absent or empty: every dim). */
static gboolean
dims_arg (RtCall *call, const RtTensor *a, guint i, ReduceSpec *r, GError **error)
{
  const RtTensor *t = aten_arg (call, i);
  memset (r->red, 0, sizeof r->red);
  if (t == NULL || t->numel == 0)
    {
      for (guint d = 0; d < a->rank; d++)
        r->red[d] = TRUE;
      return TRUE;
    }
  if (!graph_dtype_is_integer (t->dtype) || t->rank > 1)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be dims (int or int[])", i);
      return FALSE;
    }
  for (gint64 k = 0; k < t->numel; k++)
    {
      guint ax;
      if (!rt_axis (call, rt_get_i64 (t, k), MAX (a->rank, 1), &ax, error))
        return FALSE;
      if (a->rank > 0)
        r->red[ax] = TRUE;
    }
  return TRUE;
}

/* The dtype argument at i (a ScalarType code), else def. */
static gboolean
dtype_arg (RtCall *call, guint i, GraphDType def, GraphDType *out, GError **error)
{
  *out = def;
  if (aten_arg (call, i) && !aten_scalar_type (aten_i (call, i, 6), out))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype code %" G_GINT64_FORMAT,
                     aten_i (call, i, 6));
      return FALSE;
    }
  return TRUE;
}

static GraphDType
sum_type (const RtTensor *a)
{
  return graph_dtype_is_floating (a->dtype) ? a->dtype : GRAPH_DTYPE_INT64;
}

/* sum / mean / prod: (self, dtype?) over everything, or (self, dims,
 * keepdim, dtype?). */
static gboolean
sum_like (RtCall *call, Reduction kind, GError **error)
{
  const RtTensor *a;
  ReduceSpec r = { .kind = kind };
  GraphDType dt;
  if (!input (call, &a, error))
    return FALSE;
  gboolean full = call->n_inputs <= 2;
  if (full ? !dims_arg (call, a, G_MAXUINT, &r, error) : !dims_arg (call, a, 1, &r, error))
    return FALSE;
  r.keep = !full && aten_i (call, 2, 0) != 0;
  if (!dtype_arg (call, full ? 1 : 3, sum_type (a), &dt, error))
    return FALSE;
  if (kind == R_MEAN && !graph_dtype_is_floating (dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "mean needs a floating-point input or dtype");
      return FALSE;
    }
  return reduce (call, a, &r, dt, 0, FALSE, error);
}

static gboolean a_sum (RtCall *c, GError **e) { return sum_like (c, R_SUM, e); }
static gboolean a_mean (RtCall *c, GError **e) { return sum_like (c, R_MEAN, e); }
static gboolean a_prod (RtCall *c, GError **e) { return sum_like (c, R_PROD, e); }

/* amax / amin (self, dims, keepdim) */
static gboolean
amax_like (RtCall *call, Reduction kind, GError **error)
{
  const RtTensor *a;
  ReduceSpec r = { .kind = kind };
  if (!input (call, &a, error) || !dims_arg (call, a, 1, &r, error))
    return FALSE;
  r.keep = aten_i (call, 2, 0) != 0;
  return reduce (call, a, &r, a->dtype, 0, FALSE, error);
}

static gboolean a_amax (RtCall *c, GError **e) { return amax_like (c, R_MAX, e); }
static gboolean a_amin (RtCall *c, GError **e) { return amax_like (c, R_MIN, e); }

/* argmax / argmin (self, dim?, keepdim): no dim is the flat index. */
static gboolean
arg_like (RtCall *call, Reduction kind, GError **error)
{
  const RtTensor *a;
  ReduceSpec r = { .kind = kind };
  if (!input (call, &a, error) || !dims_arg (call, a, 1, &r, error))
    return FALSE;
  r.keep = aten_arg (call, 1) && aten_i (call, 2, 0) != 0;
  return reduce (call, a, &r, GRAPH_DTYPE_INT64, 0, FALSE, error);
}

static gboolean a_argmax (RtCall *c, GError **e) { return arg_like (c, R_ARGMAX, e); }
static gboolean a_argmin (RtCall *c, GError **e) { return arg_like (c, R_ARGMIN, e); }

/* max / min: (self) everything; (self, dim, keepdim) → values, indices;
 * (self, other) element-wise (aten::maximum's kernel). */
static gboolean
max_like (RtCall *call, Reduction kind, GError **error)
{
  const RtTensor *a;
  ReduceSpec r = { .kind = kind };
  if (!input (call, &a, error))
    return FALSE;
  if (call->n_outputs == 2)
    {
      if (!dims_arg (call, a, 1, &r, error))
        return FALSE;
      if (aten_arg (call, 1) == NULL || aten_arg (call, 1)->numel != 1)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "max/min with indices needs one dim");
          return FALSE;
        }
      r.keep = aten_i (call, 2, 0) != 0;
      return reduce (call, a, &r, a->dtype, 0, TRUE, error);
    }
  if (call->n_inputs == 2)
    return aten_elementwise_extreme (call, kind == R_MAX, error);
  if (!dims_arg (call, a, G_MAXUINT, &r, error))
    return FALSE;
  return reduce (call, a, &r, a->dtype, 0, FALSE, error);
}

static gboolean a_max (RtCall *c, GError **e) { return max_like (c, R_MAX, e); }
static gboolean a_min (RtCall *c, GError **e) { return max_like (c, R_MIN, e); }

/* logsumexp(self, dims, keepdim) */
static gboolean
a_logsumexp (RtCall *call, GError **error)
{
  const RtTensor *a;
  ReduceSpec r = { .kind = R_LSE };
  if (!input (call, &a, error) || !dims_arg (call, a, 1, &r, error))
    return FALSE;
  r.keep = aten_i (call, 2, 0) != 0;
  return reduce (call, a, &r, graph_dtype_is_floating (a->dtype) ? a->dtype : GRAPH_DTYPE_FLOAT, 0,
                 FALSE, error);
}

/* The divisor's correction of std / var: argument i is `unbiased` (a
 * bool: 1 or 0) in the .dim overloads, `correction` (an int, None meaning
 * 1) in the .correction ones; a trace and an ATen node keep its type. */
static gboolean
correction_arg (RtCall *call, guint i, double *out, GError **error)
{
  const RtTensor *t = aten_arg (call, i);
  *out = 1;
  if (t == NULL)
    return TRUE;
  if (t->numel != 1 || t->kind != RT_KIND_TENSOR || t->dtype == GRAPH_DTYPE_STRING)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u (unbiased or correction) must be one value", i);
      return FALSE;
    }
  if (t->dtype == GRAPH_DTYPE_BOOL)
    *out = rt_get_i64 (t, 0) != 0 ? 1 : 0;
  else if (graph_dtype_is_integer (t->dtype))
    *out = (double) rt_get_i64 (t, 0);
  else
    *out = rt_get_f64 (t, 0);
  return TRUE;
}

/* std / var: (self, unbiased), (self, dims, unbiased, keepdim) or
 * (self, dims?, correction?, keepdim); std_mean / var_mean: the same, then
 * the mean as output 1. */
static gboolean
var_like (RtCall *call, gboolean root, gboolean with_mean, GError **error)
{
  const RtTensor *a;
  ReduceSpec r = { .kind = R_VAR, .root = root };
  if (!input (call, &a, error))
    return FALSE;
  if (!graph_dtype_is_floating (a->dtype))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "std and var need a floating-point input");
      return FALSE;
    }
  gboolean full = call->n_inputs <= 2;
  if (!dims_arg (call, a, full ? G_MAXUINT : 1, &r, error))
    return FALSE;
  if (!correction_arg (call, full ? 1 : 2, &r.correction, error))
    return FALSE;
  r.keep = !full && aten_i (call, 3, 0) != 0;
  if (!reduce (call, a, &r, a->dtype, 0, FALSE, error))
    return FALSE;
  if (!with_mean)
    return TRUE;
  r.kind = R_MEAN;
  return reduce (call, a, &r, a->dtype, 1, FALSE, error);
}

static gboolean a_std (RtCall *c, GError **e) { return var_like (c, TRUE, FALSE, e); }
static gboolean a_var (RtCall *c, GError **e) { return var_like (c, FALSE, FALSE, e); }
static gboolean a_std_mean (RtCall *c, GError **e) { return var_like (c, TRUE, TRUE, e); }
static gboolean a_var_mean (RtCall *c, GError **e) { return var_like (c, FALSE, TRUE, e); }

/* norm(self, p, dims, keepdim) or norm(self, p); linalg_vector_norm(self,
 * ord, dims?, keepdim, dtype?); frobenius_norm(self, dims, keepdim). */
static gboolean
norm (RtCall *call, double p, guint dims_at, guint keep_at, GError **error)
{
  const RtTensor *a;
  ReduceSpec r = { .kind = R_NORM, .p = p };
  if (!input (call, &a, error))
    return FALSE;
  if (!graph_dtype_is_floating (a->dtype))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "norm needs a floating-point input");
      return FALSE;
    }
  if (!dims_arg (call, a, dims_at, &r, error))
    return FALSE;
  r.keep = aten_i (call, keep_at, 0) != 0;
  return reduce (call, a, &r, a->dtype, 0, FALSE, error);
}

static gboolean a_norm (RtCall *c, GError **e) { return norm (c, aten_f (c, 1, 2), c->n_inputs > 2 ? 2 : G_MAXUINT, 3, e); }
static gboolean a_linalg_vector_norm (RtCall *c, GError **e) { return norm (c, aten_f (c, 1, 2), 2, 3, e); }
static gboolean a_frobenius_norm (RtCall *c, GError **e) { return norm (c, 2, 1, 2, e); }

/* A matrix norm of order ord (1, -1, inf, -inf: column or row sums of
 * |a|, their max or min; 2, -2 and 'nuc' need singular values and are
 * refused) over dims (r, c), each output element one matrix. */
static gboolean
matrix_norm (RtCall *call, const RtTensor *a, double ord, guint r, guint c, gboolean keep, GError **error)
{
  if (!(fabs (ord) == 1 || isinf (ord)))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                     "matrix norm of order %g needs singular values: not supported", ord);
      return FALSE;
    }
  /* Sum |a| along `along`, then max (ord > 0) or min over the other. */
  guint along = fabs (ord) == 1 ? r : c, other = along == r ? c : r;
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK];
  guint rank = 0;
  for (guint d = 0; d < a->rank; d++)
    if (d != r && d != c)
      dims[rank++] = a->dims[d];
    else if (keep)
      dims[rank++] = 1;
  rt_contiguous_strides (a->rank, a->dims, st);
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 bd[RT_MAX_RANK], bst[RT_MAX_RANK], c2[RT_MAX_RANK] = { 0 };
  guint br = 0;
  for (guint d = 0; d < a->rank; d++)
    if (d != r && d != c)
      {
        bd[br] = a->dims[d];
        bst[br++] = st[d];
      }
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 base = 0;
      for (guint d = 0; d < br; d++)
        base += c2[d] * bst[d];
      double best = 0;
      for (gint64 j = 0; j < a->dims[other]; j++)
        {
          double s2 = 0;
          for (gint64 k = 0; k < a->dims[along]; k++)
            s2 += fabs (rt_get_f64 (a, base + j * st[other] + k * st[along]));
          best = j == 0 ? s2 : ord > 0 ? MAX (best, s2) : MIN (best, s2);
        }
      rt_convert (&best, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, a->dtype, 1);
      rt_index_next (c2, bd, br);
    }
  return TRUE;
}

/* The order argument i: a number, or 'fro' (2 over both dims: -> NAN
 * flags it) / 'nuc' (refused). */
static gboolean
order_arg (RtCall *call, guint i, double def, double *ord, gboolean *fro, GError **error)
{
  const RtTensor *t = aten_arg (call, i);
  *fro = FALSE;
  *ord = def;
  if (t == NULL)
    return TRUE;
  if (t->dtype == GRAPH_DTYPE_STRING)
    {
      if (aten_s_is (call, i, "fro", "fro"))
        {
          *fro = TRUE;
          return TRUE;
        }
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "only the 'fro' string order is supported");
      return FALSE;
    }
  *ord = aten_f (call, i, def);
  return TRUE;
}

/* linalg_matrix_norm(self, ord, dim=[-2, -1], keepdim, dtype?) */
static gboolean
a_linalg_matrix_norm (RtCall *call, GError **error)
{
  const RtTensor *a, *dl = aten_arg (call, 2);
  double ord;
  gboolean fro;
  guint r, c;
  if (!input (call, &a, error) || !order_arg (call, 1, 2, &ord, &fro, error))
    return FALSE;
  if (!aten_is_float (a) || a->rank < 2 || (dl && dl->numel != 2))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a float tensor of rank >= 2 and two dims");
      return FALSE;
    }
  if (!rt_axis (call, dl ? rt_get_i64 (dl, 0) : -2, a->rank, &r, error)
      || !rt_axis (call, dl ? rt_get_i64 (dl, 1) : -1, a->rank, &c, error))
    return FALSE;
  gboolean keep = aten_i (call, 3, 0) != 0;
  if (fro)
    {
      ReduceSpec rs = { .kind = R_NORM, .p = 2, .keep = keep };
      rs.red[r] = rs.red[c] = TRUE;
      return reduce (call, a, &rs, a->dtype, 0, FALSE, error);
    }
  return matrix_norm (call, a, ord, r, c, keep, error);
}

/* linalg_norm(self, ord?, dim?, keepdim, dtype?): no ord: the 2-norm of
 * the flattened tensor (or over dim, Frobenius for two dims); a numeric
 * ord is a vector norm over one dim (or a 1-D input) and a matrix norm
 * over two (or a 2-D input). */
static gboolean
a_linalg_norm (RtCall *call, GError **error)
{
  const RtTensor *a, *dl = aten_arg (call, 2);
  double ord;
  gboolean fro;
  if (!input (call, &a, error) || !order_arg (call, 1, 2, &ord, &fro, error))
    return FALSE;
  if (!aten_is_float (a))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "linalg_norm needs a float input");
      return FALSE;
    }
  gboolean keep = aten_i (call, 3, 0) != 0, has_ord = aten_arg (call, 1) != NULL;
  guint nd = dl ? (guint) dl->numel : a->rank;
  if (!has_ord || fro || nd == 1 || (!dl && a->rank == 1))
    {
      ReduceSpec rs = { .kind = R_NORM, .p = fro || !has_ord ? 2 : ord, .keep = keep };
      if (!dims_arg (call, a, 2, &rs, error))
        return FALSE;
      return reduce (call, a, &rs, a->dtype, 0, FALSE, error);
    }
  if (nd != 2 || (!dl && a->rank != 2))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "a numeric ord needs one or two dims");
      return FALSE;
    }
  guint r, c;
  if (!rt_axis (call, dl ? rt_get_i64 (dl, 0) : 0, a->rank, &r, error)
      || !rt_axis (call, dl ? rt_get_i64 (dl, 1) : 1, a->rank, &c, error))
    return FALSE;
  return matrix_norm (call, a, ord, r, c, keep, error);
}

/* cumsum(self, dim, dtype?) */
static gboolean
a_cumsum (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  GraphDType dt;
  if (!input (call, &a, error) || !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &ax, error)
      || !dtype_arg (call, 2, sum_type (a), &dt, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, dt, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  gint64 n = a->rank ? a->dims[ax] : 1;
  gint64 outer = a->rank ? rt_shape_numel (ax, a->dims) : 1;
  gint64 inner = a->rank ? rt_shape_inner (a->rank, a->dims, ax) : 1;
  gsize es = rt_dtype_size (dt);
  gboolean fl = graph_dtype_is_floating (dt);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        double s = 0;
        gint64 is = 0;
        for (gint64 j = 0; j < n; j++)
          {
            gint64 idx = (i * n + j) * inner + k;
            char *dst = (char *) o->data + idx * (gint64) es;
            if (fl)
              {
                /* Rounded to the output type at each step, as torch does. */
                s += rt_get_f64 (a, idx);
                rt_convert (&s, GRAPH_DTYPE_DOUBLE, dst, dt, 1);
                rt_convert (dst, dt, &s, GRAPH_DTYPE_DOUBLE, 1);
              }
            else
              {
                is = (gint64) ((guint64) is + (guint64) rt_get_i64 (a, idx));
                rt_convert (&is, GRAPH_DTYPE_INT64, dst, dt, 1);
              }
          }
      }
  return TRUE;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("sum", 1, 4, a_sum), RT_ATEN_ROW ("mean", 1, 4, a_mean), RT_ATEN_ROW ("prod", 1, 4, a_prod),
  RT_ATEN_ROW ("amax", 1, 3, a_amax), RT_ATEN_ROW ("amin", 1, 3, a_amin),
  RT_ATEN_ROW ("argmax", 1, 3, a_argmax), RT_ATEN_ROW ("argmin", 1, 3, a_argmin),
  { RT_ATEN ("max"), RT_IN (1, 3), RT_OUT (1, 2), .run = a_max }, { RT_ATEN ("min"), RT_IN (1, 3), RT_OUT (1, 2), .run = a_min },
  RT_ATEN_ROW ("logsumexp", 2, 3, a_logsumexp),
  RT_ATEN_ROW ("std", 1, 4, a_std), RT_ATEN_ROW ("var", 1, 4, a_var),
  { RT_ATEN ("std_mean"), RT_IN (1, 4), RT_OUT (2, 2), .run = a_std_mean },
  { RT_ATEN ("var_mean"), RT_IN (1, 4), RT_OUT (2, 2), .run = a_var_mean },
  RT_ATEN_ROW ("norm", 1, 4, a_norm), RT_ATEN_ROW ("linalg_vector_norm", 1, 5, a_linalg_vector_norm),
  RT_ATEN_ROW ("frobenius_norm", 1, 3, a_frobenius_norm),
  RT_ATEN_ROW ("linalg_matrix_norm", 2, 5, a_linalg_matrix_norm), RT_ATEN_ROW ("linalg_norm", 1, 5, a_linalg_norm),
  RT_ATEN_ROW ("cumsum", 2, 3, a_cumsum),
};

RT_KERNEL_TABLE (rt_kernels_aten_reduce, defs);
