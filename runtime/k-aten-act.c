/* ATen activations.  Those ONNX has with torch's parameters (LeakyRelu,
 * Celu, Selu, HardSigmoid, HardSwish, Softsign, Shrink) run the ONNX
 * element-wise loop; the others (gelu, silu, mish, softplus with beta and
 * threshold, ...) aten_map1's.  All need floating-point inputs, as torch's
 * do. */
#include "runtime/k-aten-private.h"
#include <math.h>

static gboolean
float_input (RtCall *call, const RtTensor **a, GError **error)
{
  *a = aten_arg (call, 0);
  if (*a == NULL || (*a)->kind != RT_KIND_TENSOR || !graph_dtype_is_floating ((*a)->dtype))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "needs a floating-point input tensor");
      return FALSE;
    }
  return TRUE;
}

static gboolean
onnx_unary (RtCall *call, const char *op, double alpha, double beta, double gamma, GError **error)
{
  const RtTensor *a;
  return float_input (call, &a, error) && rt_elementwise_unary (call, a, op, alpha, beta, gamma, error);
}

static gboolean a_leaky_relu (RtCall *c, GError **e) { return onnx_unary (c, "LeakyRelu", aten_f (c, 1, 0.01), 0, 0, e); }
static gboolean a_celu (RtCall *c, GError **e) { return onnx_unary (c, "Celu", aten_f (c, 1, 1), 0, 0, e); }
/* torch's selu constants are ONNX Selu's defaults. */
static gboolean a_selu (RtCall *c, GError **e) { return onnx_unary (c, "Selu", 1.6732632423543772848170429916717, 0, 1.0507009873554804934193349852946, e); }
/* hardsigmoid(x) = relu6(x + 3) / 6 */
static gboolean a_hardsigmoid (RtCall *c, GError **e) { return onnx_unary (c, "HardSigmoid", 1.0 / 6, 0.5, 0, e); }
static gboolean a_hardswish (RtCall *c, GError **e) { return onnx_unary (c, "HardSwish", 0, 0, 0, e); }
static gboolean a_softsign (RtCall *c, GError **e) { return onnx_unary (c, "Softsign", 0, 0, 0, e); }
static gboolean a_hardshrink (RtCall *c, GError **e) { return onnx_unary (c, "Shrink", aten_f (c, 1, 0.5), 0, 0, e); }
static gboolean a_softshrink (RtCall *c, GError **e) { double l = aten_f (c, 1, 0.5); return onnx_unary (c, "Shrink", l, l, 0, e); }

static double f_hardtanh (double x, const double *p) { return x < p[0] ? p[0] : x > p[1] ? p[1] : x; }
static double f_silu (double x, const double *p) { (void) p; return x / (1 + exp (-x)); }
static double f_mish (double x, const double *p) { (void) p; return x * tanh (log1p (exp (x))); }
static double f_log_sigmoid (double x, const double *p) { (void) p; return x < 0 ? x - log1p (exp (x)) : -log1p (exp (-x)); }
static double f_tanhshrink (double x, const double *p) { (void) p; return x - tanh (x); }
static double f_threshold (double x, const double *p) { return x > p[0] ? x : p[1]; }
static double f_gelu (double x, const double *p) { (void) p; return 0.5 * x * (1 + erf (x * M_SQRT1_2)); }
static double
f_gelu_tanh (double x, const double *p)
{
  (void) p;
  const double k = M_SQRT2 * M_2_SQRTPI * 0.5;   /* sqrt(2 / pi) */
  return 0.5 * x * (1 + tanh (k * (x + 0.044715 * x * x * x)));
}
/* softplus(x, beta, threshold) = log(1 + exp(beta x)) / beta, or x where
 * beta x > threshold. */
static double f_softplus (double x, const double *p) { return p[0] * x > p[1] ? x : log1p (exp (p[0] * x)) / p[0]; }

static gboolean
mapped (RtCall *call, AtenF1 f, const double *params, GError **error)
{
  const RtTensor *a;
  return float_input (call, &a, error) && aten_map1 (call, a, a->dtype, f, NULL, params, error);
}

static gboolean
a_hardtanh (RtCall *call, GError **error)
{
  double p[2] = { aten_f (call, 1, -1), aten_f (call, 2, 1) };
  return mapped (call, f_hardtanh, p, error);
}

static gboolean
a_relu6 (RtCall *call, GError **error)
{
  static const double p[2] = { 0, 6 };
  return mapped (call, f_hardtanh, p, error);
}

static gboolean a_silu (RtCall *c, GError **e) { return mapped (c, f_silu, NULL, e); }
static gboolean a_mish (RtCall *c, GError **e) { return mapped (c, f_mish, NULL, e); }
static gboolean a_log_sigmoid (RtCall *c, GError **e) { return mapped (c, f_log_sigmoid, NULL, e); }
static gboolean a_tanhshrink (RtCall *c, GError **e) { return mapped (c, f_tanhshrink, NULL, e); }

static gboolean
a_threshold (RtCall *call, GError **error)
{
  double p[2] = { aten_f (call, 1, 0), aten_f (call, 2, 0) };
  return mapped (call, f_threshold, p, error);
}

static gboolean
a_softplus (RtCall *call, GError **error)
{
  double p[2] = { aten_f (call, 1, 1), aten_f (call, 2, 20) };
  if (p[0] == 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "softplus beta must not be 0");
      return FALSE;
    }
  return mapped (call, f_softplus, p, error);
}

/* gelu(self, str approximate="none") */
static gboolean
a_gelu (RtCall *call, GError **error)
{
  if (aten_s_is (call, 1, "none", "none"))
    return mapped (call, f_gelu, NULL, error);
  if (aten_s_is (call, 1, "none", "tanh"))
    return mapped (call, f_gelu_tanh, NULL, error);
  gsize len;
  const char *s = aten_s (call, 1, "none", &len);
  rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "approximate must be 'none' or 'tanh', not '%.*s'",
                 (int) MIN (len, 64), s);
  return FALSE;
}

/* prelu(self, weight): one slope, or one per channel (dim 1). */
static gboolean
a_prelu (RtCall *call, GError **error)
{
  const RtTensor *a, *w = aten_arg (call, 1);
  if (!float_input (call, &a, error))
    return FALSE;
  gint64 C = a->rank >= 2 ? a->dims[1] : 1;
  if (w == NULL || w->rank > 1 || (w->numel != 1 && w->numel != C))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "weight must have 1 or %" G_GINT64_FORMAT " elements",
                     C);
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gint64 inner = a->rank >= 2 ? rt_shape_numel (a->rank - 2, a->dims + 2) : 1;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < a->numel; i++)
    {
      double x = rt_get_f64 (a, i);
      double s = rt_get_f64_per (w, (i / inner) % C);
      double v = x >= 0 ? x : s * x;
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, a->dtype, 1);
    }
  return TRUE;
}

/* glu(self, dim): first half * sigmoid(second half) along dim. */
static gboolean
a_glu (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!float_input (call, &a, error) || !rt_axis (call, aten_i (call, 1, -1), a->rank, &ax, error))
    return FALSE;
  if (a->dims[ax] % 2 != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "dimension %u has odd size %" G_GINT64_FORMAT, ax,
                     a->dims[ax]);
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[ax] /= 2;
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 outer = rt_shape_numel (ax, a->dims), h = dims[ax];
  gint64 inner = rt_shape_inner (a->rank, a->dims, ax);
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 j = 0; j < h; j++)
      for (gint64 k = 0; k < inner; k++)
        {
          double x = rt_get_f64 (a, (i * 2 * h + j) * inner + k);
          double g = rt_get_f64 (a, (i * 2 * h + h + j) * inner + k);
          double v = x / (1 + exp (-g));
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + ((i * h + j) * inner + k) * (gint64) es,
                      a->dtype, 1);
        }
  return TRUE;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("leaky_relu", 1, 2, a_leaky_relu), RT_ATEN_ROW ("leaky_relu_", 1, 2, a_leaky_relu),
  RT_ATEN_ROW ("celu", 1, 2, a_celu), RT_ATEN_ROW ("selu", 1, 1, a_selu),
  RT_ATEN_ROW ("hardsigmoid", 1, 1, a_hardsigmoid), RT_ATEN_ROW ("hardswish", 1, 1, a_hardswish),
  RT_ATEN_ROW ("hardswish_", 1, 1, a_hardswish), RT_ATEN_ROW ("softsign", 1, 1, a_softsign),
  RT_ATEN_ROW ("hardshrink", 1, 2, a_hardshrink), RT_ATEN_ROW ("softshrink", 1, 2, a_softshrink),
  RT_ATEN_ROW ("hardtanh", 1, 3, a_hardtanh), RT_ATEN_ROW ("hardtanh_", 1, 3, a_hardtanh),
  RT_ATEN_ROW ("relu6", 1, 1, a_relu6), RT_ATEN_ROW ("silu", 1, 1, a_silu), RT_ATEN_ROW ("silu_", 1, 1, a_silu),
  RT_ATEN_ROW ("mish", 1, 1, a_mish), RT_ATEN_ROW ("log_sigmoid", 1, 1, a_log_sigmoid),
  RT_ATEN_ROW ("tanhshrink", 1, 1, a_tanhshrink), RT_ATEN_ROW ("threshold", 3, 3, a_threshold),
  RT_ATEN_ROW ("softplus", 1, 3, a_softplus), RT_ATEN_ROW ("gelu", 1, 2, a_gelu),
  RT_ATEN_ROW ("prelu", 2, 2, a_prelu), RT_ATEN_ROW ("glu", 1, 2, a_glu),
};

RT_KERNEL_TABLE (rt_kernels_aten_act, defs);
