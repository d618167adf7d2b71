/* Normalisations: BatchNormalization (inference and training_mode), InstanceNormalization,
 * LayerNormalization, LRN, MeanVarianceNormalization. */
#include "runtime/kernels-private.h"
#include "runtime/row-sums8.h"
#include <math.h>
#include <string.h>

/* y = (x - mean) * scale / sqrt(var + eps) + bias over planes of `inner`. */
#define GEN_AFFINE(E, T)                                                          \
  static void affine_##E (const T *x, T *y, gint64 inner, double mul, double add) \
  {                                                                               \
    T m = (T) mul, a = (T) add;                                                   \
    for (gint64 i = 0; i < inner; i++)                                            \
      y[i] = x[i] * m + a;                                                        \
  }
RT_FOREACH_FLOAT (GEN_AFFINE)

static void
affine (GraphDType dt, const void *x, void *y, gint64 off, gint64 inner, double mul, double add)
{
  if (dt == GRAPH_DTYPE_FLOAT)
    affine_FLOAT ((const float *) x + off, (float *) y + off, inner, mul, add);
  else
    affine_DOUBLE ((const double *) x + off, (double *) y + off, inner, mul, add);
}

gboolean
rt_batchnorm (RtCall *call, const RtTensor *x, const RtTensor *sc, const RtTensor *b,
              const RtTensor *mean, const RtTensor *var, double eps, GError **error)
{
  gint64 C = x->rank >= 2 ? x->dims[1] : -1;
  if (x->rank < 2 || (sc && sc->numel != C) || (b && b->numel != C) || mean->numel != C
      || var->numel != C)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "scale, B, mean and var must have C elements");
      return FALSE;
    }
  RtTensor *y = rt_call_output_like (call, 0, x, error);
  if (y == NULL)
    return FALSE;
  gint64 N = x->dims[0], inner = x->rank > 2 ? rt_shape_numel (x->rank - 2, x->dims + 2) : 1;
  for (gint64 c = 0; c < C; c++)
    {
      double mul = (sc ? rt_get_f64 (sc, c) : 1.0) / sqrt (rt_get_f64 (var, c) + eps);
      double add = (b ? rt_get_f64 (b, c) : 0.0) - rt_get_f64 (mean, c) * mul;
      for (gint64 n = 0; n < N; n++)
        affine (x->dtype, x->data, y->data, (n * C + c) * inner, inner, mul, add);
    }
  return TRUE;
}

static gboolean
k_batchnorm (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *sc = call->inputs[1], *b = call->inputs[2];
  const RtTensor *mean = call->inputs[3], *var = call->inputs[4];
  double eps = rt_attr_f (call->node, "epsilon", 1e-5);
  if (x->rank < 2 || sc->numel != x->dims[1] || b->numel != x->dims[1] || mean->numel != x->dims[1]
      || var->numel != x->dims[1])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "scale, B, mean and var must have C elements");
      return FALSE;
    }
  /* training_mode: normalise with the batch's statistics (population
   * variance) and output the updated running mean and variance. */
  gboolean training = rt_attr_i (call->node, "training_mode", 0) != 0;
  if (!training)
    return rt_batchnorm (call, x, sc, b, mean, var, eps, error);
  double momentum = rt_attr_f (call->node, "momentum", 0.9);
  RtTensor *y = rt_call_output_like (call, 0, x, error);
  if (y == NULL)
    return FALSE;
  RtTensor *rm = NULL, *rv = NULL;
  if (training && call->n_outputs > 1
      && ((rm = rt_call_output_like (call, 1, mean, error)) == NULL
          || (call->n_outputs > 2 && (rv = rt_call_output_like (call, 2, var, error)) == NULL)))
    return FALSE;
  gint64 N = x->dims[0], C = x->dims[1], inner = x->rank > 2 ? rt_shape_numel (x->rank - 2, x->dims + 2) : 1;
  for (gint64 c = 0; c < C; c++)
    {
      double m = rt_get_f64 (mean, c), v = rt_get_f64 (var, c);
      if (training)
        {
          double s = 0, s2 = 0, cnt = (double) (N * inner);
          for (gint64 n = 0; n < N; n++)
            for (gint64 i = 0; i < inner; i++)
              s += rt_get_f64 (x, (n * C + c) * inner + i);
          double bm = cnt > 0 ? s / cnt : 0;
          for (gint64 n = 0; n < N; n++)
            for (gint64 i = 0; i < inner; i++)
              {
                double d = rt_get_f64 (x, (n * C + c) * inner + i) - bm;
                s2 += d * d;
              }
          double bv = cnt > 0 ? s2 / cnt : 0;
          double outm = m * momentum + bm * (1 - momentum), outv = v * momentum + bv * (1 - momentum);
          if (rm)
            rt_convert (&outm, GRAPH_DTYPE_DOUBLE, (char *) rm->data + c * (gint64) rt_dtype_size (rm->dtype), rm->dtype, 1);
          if (rv)
            rt_convert (&outv, GRAPH_DTYPE_DOUBLE, (char *) rv->data + c * (gint64) rt_dtype_size (rv->dtype), rv->dtype, 1);
          m = bm;
          v = bv;
        }
      double mul = rt_get_f64 (sc, c) / sqrt (v + eps);
      double add = rt_get_f64 (b, c) - m * mul;
      for (gint64 n = 0; n < N; n++)
        affine (x->dtype, x->data, y->data, (n * C + c) * inner, inner, mul, add);
    }
  return TRUE;
}

/* Mean and variance of `rows` (1 to 8) float rows of n (row stride n),
 * their sums side by side (row-sums8.h): each row's the same bits as alone. */
static void
float_moments (const float *x, gint64 n, int rows, double *mean, double *var)
{
  double s[8];
  rt_row_sums8 (x, n, n, rows, RT_ROW_SUM, NULL, s);
  for (int k = 0; k < rows; k++)
    mean[k] = n ? s[k] / (double) n : 0;
  rt_row_sums8 (x, n, n, rows, RT_ROW_SUM_DEV2, mean, s);
  for (int k = 0; k < rows; k++)
    var[k] = n ? s[k] / (double) n : 0;
}

static void
moments (const RtTensor *x, gint64 off, gint64 n, double *mean, double *var)
{
  if (x->dtype == GRAPH_DTYPE_FLOAT)
    {
      float_moments ((const float *) x->data + off, n, 1, mean, var);
      return;
    }
  double s = 0, s2 = 0;
  for (gint64 i = 0; i < n; i++)
    s += rt_get_f64 (x, off + i);
  double m = n ? s / (double) n : 0;
  for (gint64 i = 0; i < n; i++)
    {
      double d = rt_get_f64 (x, off + i) - m;
      s2 += d * d;
    }
  *mean = m;
  *var = n ? s2 / (double) n : 0;
}

static gboolean
k_instancenorm (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *sc = call->inputs[1], *b = call->inputs[2];
  double eps = rt_attr_f (call->node, "epsilon", 1e-5);
  if (x->rank < 3 || sc->numel != x->dims[1] || b->numel != x->dims[1])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "scale and B must have C elements, rank >= 3");
      return FALSE;
    }
  RtTensor *y = rt_call_output_like (call, 0, x, error);
  if (y == NULL)
    return FALSE;
  gint64 N = x->dims[0], C = x->dims[1], inner = rt_shape_numel (x->rank - 2, x->dims + 2);
  for (gint64 n = 0; n < N; n++)
    for (gint64 c = 0; c < C; c++)
      {
        double m, v;
        gint64 off = (n * C + c) * inner;
        moments (x, off, inner, &m, &v);
        double mul = rt_get_f64 (sc, c) / sqrt (v + eps);
        affine (x->dtype, x->data, y->data, off, inner, mul, rt_get_f64 (b, c) - m * mul);
      }
  return TRUE;
}

/* LayerNormalization of whole rows with scale and B of the normalised
 * shape (the usual case): the general loop's arithmetic, element for
 * element (same bits), rows split over the session's threads. */
typedef struct
{
  const RtTensor *x, *sc, *b;
  RtTensor       *y, *mo, *io;
  gint64          inner;
  double          eps;
  GraphDType      st;
} LnJob;

#define GEN_LN_ROWS(E, T)                                                                  \
  static void ln_rows_##E (const LnJob *j, gint64 o0, gint64 o1)                          \
  {                                                                                        \
    const T *x = j->x->data, *sc = j->sc->data, *b = j->b ? j->b->data : NULL;            \
    T *y = j->y->data;                                                                     \
    gint64 n = j->inner;                                                                   \
    double m8[8], v8[8];   /* float: the moments of 8 rows at a time */               \
    for (gint64 o = o0; o < o1; o++)                                                       \
      {                                                                                    \
        double m, v;                                                                       \
        gint64 k = (o - o0) % 8;                                                           \
        if (j->x->dtype == GRAPH_DTYPE_FLOAT)                                              \
          {                                                                                \
            if (k == 0)                                                                    \
              float_moments ((const float *) j->x->data + o * n, n, (int) MIN (8, o1 - o), \
                             m8, v8);                                                      \
            m = m8[k], v = v8[k];                                                          \
          }                                                                                \
        else                                                                               \
          moments (j->x, o * n, n, &m, &v);                                                \
        double inv = 1.0 / sqrt (v + j->eps);                                              \
        for (gint64 i = 0; i < n; i++)                                                     \
          y[o * n + i] = (T) (((double) x[o * n + i] - m) * inv * (double) sc[i]           \
                              + (b ? (double) b[i] : 0));                                  \
        if (j->mo)                                                                         \
          rt_convert (&m, GRAPH_DTYPE_DOUBLE, (char *) j->mo->data + o * (gint64) rt_dtype_size (j->st), j->st, 1); \
        if (j->io)                                                                         \
          rt_convert (&inv, GRAPH_DTYPE_DOUBLE, (char *) j->io->data + o * (gint64) rt_dtype_size (j->st), j->st, 1); \
      }                                                                                    \
  }
RT_FOREACH_FLOAT (GEN_LN_ROWS)

static void
ln_range (gint64 begin, gint64 end, gpointer data)
{
  const LnJob *j = data;
  if (j->x->dtype == GRAPH_DTYPE_FLOAT)
    ln_rows_FLOAT (j, begin, end);
  else
    ln_rows_DOUBLE (j, begin, end);
}

static gboolean
k_layernorm (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0], *sc = call->inputs[1];
  const RtTensor *b = call->n_inputs > 2 ? call->inputs[2] : NULL;
  double eps = rt_attr_f (call->node, "epsilon", 1e-5);
  guint ax;
  if (!rt_axis (call, rt_attr_i (call->node, "axis", -1), x->rank, &ax, error))
    return FALSE;
  gint64 outer = rt_shape_numel (ax, x->dims), inner = rt_shape_numel (x->rank - ax, x->dims + ax);
  /* Scale and B broadcast to the normalised shape. */
  RtTensor norm = { .dtype = x->dtype, .rank = x->rank - ax };
  memcpy (norm.dims, x->dims + ax, norm.rank * sizeof (gint64));
  gint64 ss[RT_MAX_RANK], bs[RT_MAX_RANK];
  /* a Scale of size 0 against a dim of 1 broadcast to 0 and was read past its end */
  if (!rt_broadcasts_to (call, sc, norm.rank, norm.dims, "Scale", error)
      || (b && !rt_broadcasts_to (call, b, norm.rank, norm.dims, "B", error)))
    return FALSE;
  rt_broadcast_strides (sc, norm.rank, norm.dims, ss);
  if (b)
    rt_broadcast_strides (b, norm.rank, norm.dims, bs);
  RtTensor *y = rt_call_output_like (call, 0, x, error);
  if (y == NULL)
    return FALSE;
  RtTensor *mo = NULL, *io = NULL;
  gint64 sdims[RT_MAX_RANK];
  for (guint i = 0; i < x->rank; i++)
    sdims[i] = i < ax ? x->dims[i] : 1;
  GraphDType st = (GraphDType) rt_attr_i (call->node, "stash_type", GRAPH_DTYPE_FLOAT);
  if (call->n_outputs > 1 && (mo = rt_call_output (call, 1, st, x->rank, sdims, error)) == NULL)
    return FALSE;
  if (call->n_outputs > 2 && (io = rt_call_output (call, 2, st, x->rank, sdims, error)) == NULL)
    return FALSE;
  if ((x->dtype == GRAPH_DTYPE_FLOAT || x->dtype == GRAPH_DTYPE_DOUBLE) && sc->dtype == x->dtype
      && sc->numel == inner && (b == NULL || (b->dtype == x->dtype && b->numel == inner)))
    {
      LnJob j = { x, sc, b, y, mo, io, inner, eps, st };
      rt_parallel_for (call, outer, MAX (1, 16384 / MAX (inner, 1)), ln_range, &j);
      return TRUE;
    }
  for (gint64 o = 0; o < outer; o++)
    {
      double m, v;
      moments (x, o * inner, inner, &m, &v);
      double inv = 1.0 / sqrt (v + eps);
      gint64 c[RT_MAX_RANK] = { 0 }, so = 0, bo = 0;
      for (gint64 i = 0; i < inner; i++)
        {
          double val = (rt_get_f64 (x, o * inner + i) - m) * inv * rt_get_f64 (sc, so)
                       + (b ? rt_get_f64 (b, bo) : 0);
          rt_convert (&val, GRAPH_DTYPE_DOUBLE,
                      (char *) y->data + (o * inner + i) * (gint64) rt_dtype_size (x->dtype), x->dtype, 1);
          for (gint64 j = (gint64) norm.rank - 1; j >= 0; j--)
            {
              so += ss[j];
              bo += b ? bs[j] : 0;
              if (++c[j] < norm.dims[j])
                break;
              so -= ss[j] * norm.dims[j];
              bo -= b ? bs[j] * norm.dims[j] : 0;
              c[j] = 0;
            }
        }
      if (mo)
        rt_convert (&m, GRAPH_DTYPE_DOUBLE, (char *) mo->data + o * (gint64) rt_dtype_size (st), st, 1);
      if (io)
        rt_convert (&inv, GRAPH_DTYPE_DOUBLE, (char *) io->data + o * (gint64) rt_dtype_size (st), st, 1);
    }
  return TRUE;
}

static gboolean
k_lrn (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  double alpha = rt_attr_f (call->node, "alpha", 1e-4), beta = rt_attr_f (call->node, "beta", 0.75);
  double bias = rt_attr_f (call->node, "bias", 1.0);
  gint64 size = rt_attr_i (call->node, "size", 0);
  if (x->rank < 2 || size <= 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs rank >= 2 and size > 0");
      return FALSE;
    }
  RtTensor *y = rt_call_output_like (call, 0, x, error);
  if (y == NULL)
    return FALSE;
  gint64 N = x->dims[0], C = x->dims[1], inner = rt_shape_numel (x->rank - 2, x->dims + 2);
  gint64 lo = (size - 1) / 2, hi = size - 1 - lo;
  for (gint64 n = 0; n < N; n++)
    for (gint64 c = 0; c < C; c++)
      for (gint64 i = 0; i < inner; i++)
        {
          double s = 0;
          for (gint64 k = MAX (0, c - lo); k <= MIN (C - 1, c + hi); k++)
            {
              double v = rt_get_f64 (x, (n * C + k) * inner + i);
              s += v * v;
            }
          double v = rt_get_f64 (x, (n * C + c) * inner + i) / pow (bias + alpha / (double) size * s, beta);
          rt_convert (&v, GRAPH_DTYPE_DOUBLE,
                      (char *) y->data + ((n * C + c) * inner + i) * (gint64) rt_dtype_size (x->dtype), x->dtype, 1);
        }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("BatchNormalization", 1), RT_IN (5, 5), RT_OUT (1, 5), .dtypes = RT_DT_FLOATS, .run = k_batchnorm },
  { RT_ONNX ("InstanceNormalization", 1), RT_IN (3, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_instancenorm },
  { RT_ONNX ("LayerNormalization", 17), RT_IN (2, 3), RT_OUT (1, 3), .dtypes = RT_DT_FLOATS, .run = k_layernorm },
  { RT_ONNX ("LRN", 1), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_lrn },
};

RT_KERNEL_TABLE (rt_kernels_norm, defs);
