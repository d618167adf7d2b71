/* Small standalone ops: IsInf, IsNaN, Hann/Hamming/BlackmanWindow,
 * MeanVarianceNormalization, Det.  Arithmetic in double. */
#include "runtime/kernel.h"
#include <math.h>
#include <string.h>

static gboolean
k_isinf_isnan (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gboolean nan = strcmp (graph_node_op_type (call->node), "IsNaN") == 0;
  gboolean pos = rt_attr_i (call->node, "detect_positive", 1) != 0;
  gboolean neg = rt_attr_i (call->node, "detect_negative", 1) != 0;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_BOOL, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  guint8 *y = o->data;
  for (gint64 i = 0; i < a->numel; i++)
    {
      double v = rt_get_f64 (a, i);
      y[i] = nan ? isnan (v) : isinf (v) && ((v > 0 && pos) || (v < 0 && neg));
    }
  return TRUE;
}

/* Generalized cosine windows: sum_k (-1)^k a_k cos (2 pi k n / N). */
static gboolean
k_window (RtCall *call, GError **error)
{
  const char *op = graph_node_op_type (call->node);
  double a[3] = { 0.5, 0.5, 0 };
  if (strcmp (op, "HammingWindow") == 0)
    {
      a[0] = 25.0 / 46;
      a[1] = 21.0 / 46;
    }
  else if (strcmp (op, "BlackmanWindow") == 0)
    {
      a[0] = 0.42;
      a[1] = 0.5;
      a[2] = 0.08;
    }
  const RtTensor *sz = call->inputs[0];
  if (sz->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "size must be a scalar");
      return FALSE;
    }
  gint64 n = rt_get_i64 (sz, 0);
  gint64 dtv = rt_attr_i (call->node, "output_datatype", GRAPH_DTYPE_FLOAT);
  GraphDType dt = (GraphDType) dtv;
  if (n < 0 || dtv < 0 || dtv > 31 || !(RT_DT_NUMERIC & (1u << dtv)))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad size or output_datatype");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, dt, 1, &n, error);
  if (o == NULL)
    return FALSE;
  gboolean periodic = rt_attr_i (call->node, "periodic", 1) != 0;
  double den = periodic ? (double) n : (double) (n - 1);
  double *w = rt_call_scratch (call, (gsize) MAX (n, 1) * sizeof (double), error);
  if (w == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    {
      double x = den > 0 ? 2 * G_PI * (double) i / den : 0;
      w[i] = a[0] - a[1] * cos (x) + a[2] * cos (2 * x);
    }
  return rt_convert (w, GRAPH_DTYPE_DOUBLE, o->data, dt, n);
}

static gboolean
k_mvn (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gboolean red[RT_MAX_RANK] = { FALSE };
  gsize len;
  const gint64 *axes;
  static const gint64 def_axes[] = { 0, 2, 3 };
  if (!rt_attr_ints (call->node, "axes", &len, &axes))
    {
      axes = def_axes;
      len = 3;
    }
  for (gsize i = 0; i < len; i++)
    {
      guint ax;
      if (!rt_axis (call, axes[i], a->rank, &ax, error))
        return FALSE;
      red[ax] = TRUE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  /* Statistics per kept-axes position, indexed by strides over the input
   * dims that are 0 on reduced axes. */
  gint64 kdims[RT_MAX_RANK], kst[RT_MAX_RANK];
  for (guint i = 0; i < a->rank; i++)
    kdims[i] = red[i] ? 1 : a->dims[i];
  rt_contiguous_strides (a->rank, kdims, kst);
  for (guint i = 0; i < a->rank; i++)
    if (red[i])
      kst[i] = 0;
  gint64 kn = rt_shape_numel (a->rank, kdims);
  double *s = rt_call_scratch (call, (gsize) MAX (kn, 1) * 2 * sizeof (double), error);
  if (s == NULL)
    return FALSE;
  double *s2 = s + kn;
  memset (s, 0, (gsize) MAX (kn, 1) * 2 * sizeof (double));
  gint64 cnt = kn ? a->numel / kn : 0;
  for (int pass = 0; pass < 2; pass++)
    {
      gint64 c[RT_MAX_RANK] = { 0 }, k = 0;
      for (gint64 i = 0; i < a->numel; i++)
        {
          double v = rt_get_f64 (a, i);
          if (pass == 0)
            {
              s[k] += v;
              s2[k] += v * v;
            }
          else
            {
              double mean = s[k] / (double) cnt;
              double sd = sqrt (s2[k] / (double) cnt - mean * mean);
              double y = (v - mean) / (sd + 1e-9);
              if (o->dtype == GRAPH_DTYPE_FLOAT)
                ((float *) o->data)[i] = (float) y;
              else
                ((double *) o->data)[i] = y;
            }
          for (int d = (int) a->rank - 1; d >= 0; d--)
            {
              k += kst[d];
              if (++c[d] < a->dims[d])
                break;
              k -= kst[d] * c[d];
              c[d] = 0;
            }
        }
    }
  return TRUE;
}

static gboolean
k_det (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  if (a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "input must be (..., M, M)");
      return FALSE;
    }
  gint64 m = a->dims[a->rank - 1];
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank - 2, a->dims, error);
  if (o == NULL)
    return FALSE;
  double *lu = rt_call_scratch (call, (gsize) MAX (m * m, 1) * sizeof (double), error);
  if (lu == NULL)
    return FALSE;
  for (gint64 b = 0; b < o->numel; b++)
    {
      for (gint64 i = 0; i < m * m; i++)
        lu[i] = rt_get_f64 (a, b * m * m + i);
      /* LU with partial pivoting: det = sign * prod (diag). */
      double det = 1;
      for (gint64 c = 0; c < m && det != 0; c++)
        {
          gint64 p = c;
          for (gint64 r = c + 1; r < m; r++)
            if (fabs (lu[r * m + c]) > fabs (lu[p * m + c]))
              p = r;
          if (lu[p * m + c] == 0)
            {
              det = 0;
              break;
            }
          if (p != c)
            {
              for (gint64 j = 0; j < m; j++)
                {
                  double t = lu[c * m + j];
                  lu[c * m + j] = lu[p * m + j];
                  lu[p * m + j] = t;
                }
              det = -det;
            }
          det *= lu[c * m + c];
          for (gint64 r = c + 1; r < m; r++)
            {
              double f = lu[r * m + c] / lu[c * m + c];
              for (gint64 j = c; j < m; j++)
                lu[r * m + j] -= f * lu[c * m + j];
            }
        }
      if (o->dtype == GRAPH_DTYPE_FLOAT)
        ((float *) o->data)[b] = (float) det;
      else
        ((double *) o->data)[b] = det;
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("IsInf", 10), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_isinf_isnan },
  { RT_ONNX ("IsNaN", 9), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_isinf_isnan },
  { RT_ONNX ("HannWindow", 17), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT (INT32) | RT_DT (INT64), .run = k_window },
  { RT_ONNX ("HammingWindow", 17), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT (INT32) | RT_DT (INT64), .run = k_window },
  { RT_ONNX ("BlackmanWindow", 17), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT (INT32) | RT_DT (INT64), .run = k_window },
  { RT_ONNX ("MeanVarianceNormalization", 9), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_mvn },
  { RT_ONNX ("Det", 11), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS, .run = k_det },
};

RT_KERNEL_TABLE (rt_kernels_misc, defs);
