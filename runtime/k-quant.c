/* Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv.
 * Integer products are summed in double (exact below 2^53); the convolutions
 * run the float Conv kernel on zero-point-shifted double copies. */
#include "runtime/kernel.h"
#include "runtime/session-private.h"
#include <math.h>
#include <string.h>

/* Saturating store of round-half-even(v) into an 8-bit (or wider int) type. */
static void
store_sat (RtTensor *o, gint64 i, double v)
{
  double lo = 0, hi = 255;
  switch (o->dtype)
    {
    case GRAPH_DTYPE_INT8: lo = -128; hi = 127; break;
    case GRAPH_DTYPE_INT32: lo = G_MININT32; hi = G_MAXINT32; break;
    case GRAPH_DTYPE_UINT16: hi = 65535; break;
    case GRAPH_DTYPE_INT16: lo = -32768; hi = 32767; break;
    default: break;
    }
  /* NaN (x / 0 with x = 0) saturates low, as x86's float→int conversion
   * then the clamp give in ONNX Runtime. */
  v = isnan (v) ? lo : nearbyint (v);
  v = v < lo ? lo : v > hi ? hi : v;
  gint64 iv = (gint64) v;
  rt_convert (&iv, GRAPH_DTYPE_INT64, (char *) o->data + i * (gint64) rt_dtype_size (o->dtype),
              o->dtype, 1);
}

/* Per-tensor or per-axis parameter lookup: p is a scalar/1-element tensor or
 * a 1-D tensor along `axis` of x. */
typedef struct
{
  const RtTensor *t;
  gint64 inner, n;   /* element i of x uses t[(i / inner) % n] */
} Param;

static gboolean
param_init (RtCall *call, Param *p, const RtTensor *t, const RtTensor *x, gint64 axis,
            const char *what, GError **error)
{
  p->t = t;
  p->inner = 1;
  p->n = 1;
  if (t == NULL || t->numel == 1)
    return TRUE;
  guint ax;
  if (t->rank != 1 || !rt_axis (call, axis, x->rank, &ax, error) || t->dims[0] != x->dims[ax])
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "%s must be a scalar or 1-D along axis", what);
      return FALSE;
    }
  p->inner = rt_shape_inner (x->rank, x->dims, ax);
  p->n = t->dims[0];
  return TRUE;
}

static double
param_get (const Param *p, gint64 i, double def)
{
  if (p->t == NULL)
    return def;
  return rt_get_f64 (p->t, (i / p->inner) % p->n);
}

static gboolean
k_quantize (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  const RtTensor *zpt = call->n_inputs > 2 ? call->inputs[2] : NULL;
  gint64 axis = rt_attr_i (call->node, "axis", 1);
  Param sc, zp;
  if (!param_init (call, &sc, call->inputs[1], x, axis, "y_scale", error)
      || !param_init (call, &zp, zpt, x, axis, "y_zero_point", error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, zpt ? zpt->dtype : GRAPH_DTYPE_UINT8, x->rank, x->dims, error);
  if (o == NULL)
    return FALSE;
  for (gint64 i = 0; i < x->numel; i++)
    {
      /* x / scale in x's precision, as the reference does. */
      double q = x->dtype == GRAPH_DTYPE_FLOAT
        ? (double) ((float) rt_get_f64 (x, i) / (float) param_get (&sc, i, 1))
        : rt_get_f64 (x, i) / param_get (&sc, i, 1);
      store_sat (o, i, nearbyint (q) + param_get (&zp, i, 0));
    }
  return TRUE;
}

static gboolean
k_dequantize (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  const RtTensor *scale = call->inputs[1];
  gint64 axis = rt_attr_i (call->node, "axis", 1);
  Param sc, zp;
  if (!param_init (call, &sc, scale, x, axis, "x_scale", error)
      || !param_init (call, &zp, call->n_inputs > 2 ? call->inputs[2] : NULL, x, axis,
                      "x_zero_point", error))
    return FALSE;
  /* The output has x_scale's type, which ONNX allows to be a float type
   * only (an integer one wrote 8-byte doubles into a smaller buffer). */
  if (!graph_dtype_is_floating (scale->dtype))
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "x_scale is %s; it must be a float type",
                     graph_dtype_name (scale->dtype));
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, scale->dtype, x->rank, x->dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (o->dtype);
  for (gint64 i = 0; i < x->numel; i++)
    {
      double v = (rt_get_f64 (x, i) - param_get (&zp, i, 0)) * param_get (&sc, i, 1);
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + (gsize) i * es, o->dtype, 1);
    }
  return TRUE;
}

static gboolean
k_dynamic_quantize (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  float mn = 0, mx = 0;
  for (gint64 i = 0; i < x->numel; i++)
    {
      float v = ((const float *) x->data)[i];
      mn = MIN (mn, v);
      mx = MAX (mx, v);
    }
  float scale = (float) ((double) (mx - mn) / 255.0);
  double zpd = scale != 0 ? nearbyint ((double) (0 - mn) / (double) scale) : 0;
  zpd = CLAMP (zpd, 0, 255);
  RtTensor *y = rt_call_output (call, 0, GRAPH_DTYPE_UINT8, x->rank, x->dims, error);
  RtTensor *so = y ? rt_call_output (call, 1, GRAPH_DTYPE_FLOAT, 0, NULL, error) : NULL;
  RtTensor *zo = so ? rt_call_output (call, 2, GRAPH_DTYPE_UINT8, 0, NULL, error) : NULL;
  if (zo == NULL)
    return FALSE;
  *(float *) so->data = scale;
  *(guint8 *) zo->data = (guint8) zpd;
  for (gint64 i = 0; i < x->numel; i++)
    {
      float q = scale != 0 ? ((const float *) x->data)[i] / scale : 0;
      store_sat (y, i, nearbyint ((double) q) + zpd);
    }
  return TRUE;
}

/* ---- integer matmul ------------------------------------------------------- */

/* acc = (a - azp) @ (b - bzp) with numpy matmul broadcasting; returns the
 * output shape in rank/dims and the result (scratch 0) in *acc.  azp may be
 * per row of a (1-D, M), bzp per column of b (1-D, N). */
static gboolean
int_matmul (RtCall *call, const RtTensor *a, const RtTensor *azp, const RtTensor *b,
            const RtTensor *bzp, guint *rank, gint64 *dims, double **acc, GError **error)
{
  if (a->rank < 1 || b->rank < 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "inputs must have rank >= 1");
      return FALSE;
    }
  gint64 M = a->rank > 1 ? a->dims[a->rank - 2] : 1, K = a->dims[a->rank - 1];
  gint64 K2 = b->rank > 1 ? b->dims[b->rank - 2] : b->dims[0];
  gint64 N = b->rank > 1 ? b->dims[b->rank - 1] : 1;
  if (K != K2)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "inner dimensions differ (%" G_GINT64_FORMAT
                     " and %" G_GINT64_FORMAT ")", K, K2);
      return FALSE;
    }
  if (!rt_per_tensor_or (azp, M) || !rt_per_tensor_or (bzp, N))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "zero points must be scalars or per row/column");
      return FALSE;
    }
  guint ra = a->rank > 2 ? a->rank - 2 : 0, rb = b->rank > 2 ? b->rank - 2 : 0;
  guint br;
  gint64 bd[RT_MAX_RANK];
  if (!rt_broadcast_shape (call, ra, a->dims, rb, b->dims, &br, bd, error))
    return FALSE;
  gint64 batch = rt_shape_numel (br, bd);
  *rank = 0;
  for (guint i = 0; i < br; i++)
    dims[(*rank)++] = bd[i];
  if (a->rank > 1)
    dims[(*rank)++] = M;
  if (b->rank > 1)
    dims[(*rank)++] = N;
  /* Batch strides of a and b (in matrices), 0 where broadcast. */
  RtTensor ab = { .rank = ra }, bb = { .rank = rb };
  memcpy (ab.dims, a->dims, ra * sizeof (gint64));
  memcpy (bb.dims, b->dims, rb * sizeof (gint64));
  gint64 sa[RT_MAX_RANK], sb[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_broadcast_strides (&ab, br, bd, sa);
  rt_broadcast_strides (&bb, br, bd, sb);
  double *r = rt_call_scratch (call, (gsize) MAX (batch * M * N, 1) * sizeof (double), error);
  if (r == NULL)
    return FALSE;
  gint64 oa = 0, ob = 0;
  for (gint64 t = 0; t < batch; t++)
    {
      for (gint64 i = 0; i < M; i++)
        for (gint64 j = 0; j < N; j++)
          {
            double s = 0, za = azp ? rt_get_f64_per (azp, i) : 0;
            double zb = bzp ? rt_get_f64_per (bzp, j) : 0;
            for (gint64 k = 0; k < K; k++)
              s += (rt_get_f64 (a, (oa * M + i) * K + k) - za) * (rt_get_f64 (b, (ob * K + k) * N + j) - zb);
            r[(t * M + i) * N + j] = s;
          }
      for (int d = (int) br - 1; d >= 0; d--)
        {
          oa += sa[d];
          ob += sb[d];
          if (++c[d] < bd[d])
            break;
          oa -= sa[d] * c[d];
          ob -= sb[d] * c[d];
          c[d] = 0;
        }
    }
  *acc = r;
  return TRUE;
}

/* Output 0 := the int32 accumulator of MatMulInteger / ConvInteger. */
static gboolean
output_int32 (RtCall *call, guint rank, const gint64 *dims, const double *acc, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT32, rank, dims, error);
  if (o == NULL)
    return FALSE;
  for (gint64 i = 0; i < o->numel; i++)
    ((gint32 *) o->data)[i] = (gint32) acc[i];
  return TRUE;
}

static gboolean
k_matmul_integer (RtCall *call, GError **error)
{
  guint rank;
  gint64 dims[RT_MAX_RANK];
  double *acc;
  const RtTensor *azp = call->n_inputs > 2 ? call->inputs[2] : NULL;
  const RtTensor *bzp = call->n_inputs > 3 ? call->inputs[3] : NULL;
  if (!int_matmul (call, call->inputs[0], azp, call->inputs[1], bzp, &rank, dims, &acc, error))
    return FALSE;
  return output_int32 (call, rank, dims, acc, error);
}

static gboolean
k_qlinear_matmul (RtCall *call, GError **error)
{
  const RtTensor *const *in = call->inputs;
  guint rank;
  gint64 dims[RT_MAX_RANK];
  double *acc;
  if (!int_matmul (call, in[0], in[2], in[3], in[5], &rank, dims, &acc, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, in[7]->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 N = in[3]->rank > 1 ? in[3]->dims[in[3]->rank - 1] : 1;
  gint64 M = in[0]->rank > 1 ? in[0]->dims[in[0]->rank - 2] : 1;
  /* Scales per tensor, or a's per row and b's per column; y's per tensor. */
  if (!rt_per_tensor_or (in[1], M) || !rt_per_tensor_or (in[4], N)
      || in[6]->numel != 1 || in[7]->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "a_scale must have 1 or %" G_GINT64_FORMAT
                     " entries, b_scale 1 or %" G_GINT64_FORMAT ", y_scale and y_zero_point 1",
                     M, N);
      return FALSE;
    }
  double ys = rt_get_f64 (in[6], 0), yzp = rt_get_f64 (in[7], 0);
  for (gint64 i = 0; i < o->numel; i++)
    {
      double as = rt_get_f64_per (in[1], (i / N) % M);
      double bs = rt_get_f64_per (in[4], i % N);
      store_sat (o, i, nearbyint (acc[i] * as * bs / ys) + yzp);
    }
  return TRUE;
}

/* ---- integer convolutions ------------------------------------------------- */

/* Runs the float Conv kernel (same node, so the same attributes) over double
 * copies of x - xzp and w - wzp (wzp per output channel or scalar); the
 * result is copied to scratch 1 and its shape returned. */
static gboolean
conv_result (RtCall *call, const RtTensor *x, const RtTensor *w, const RtTensor *xzp,
             const RtTensor *wzp, guint *rank, gint64 *dims, double **acc, GError **error)
{
  const RtKernelDef *conv = rt_registry_lookup ("onnx", "Conv", 11);
  if (conv == NULL || x->rank < 3 || w->rank != x->rank)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs (N, C, ...) input and weights of the same rank");
      return FALSE;
    }
  gint64 M = w->dims[0], per = M ? w->numel / M : 0;
  if (!rt_per_tensor_or (wzp, M))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "w_zero_point must be a scalar or per output channel");
      return FALSE;
    }
  RtTensor xd = *x, wd = *w;
  xd.dtype = wd.dtype = GRAPH_DTYPE_DOUBLE;
  g_autofree double *xb = g_new (double, MAX (x->numel, 1));
  g_autofree double *wb = g_new (double, MAX (w->numel, 1));
  double za = xzp ? rt_get_f64 (xzp, 0) : 0;
  for (gint64 i = 0; i < x->numel; i++)
    xb[i] = rt_get_f64 (x, i) - za;
  for (gint64 i = 0; i < w->numel; i++)
    wb[i] = rt_get_f64 (w, i) - (wzp ? rt_get_f64_per (wzp, i / per) : 0);
  xd.data = xb;
  wd.data = wb;
  const RtTensor *ins[2] = { &xd, &wd };
  RtCall sub = *call;
  sub.inputs = ins;
  sub.n_inputs = 2;
  sub.state = NULL;
  if (!conv->run (&sub, error))
    return FALSE;
  /* The tensor Conv made as output 0 (runtime internals: session-private.h). */
  RtSession *s = call->ctx;
  const RtTensor *y = &s->rt[s->current->out_idx[0]];
  double *r = rt_call_scratch_n (call, 1, (gsize) MAX (y->numel, 1) * sizeof (double), error);
  if (r == NULL)
    return FALSE;
  memcpy (r, y->data, (gsize) y->numel * sizeof (double));
  *rank = y->rank;
  memcpy (dims, y->dims, y->rank * sizeof (gint64));
  *acc = r;
  return TRUE;
}

static gboolean
k_conv_integer (RtCall *call, GError **error)
{
  guint rank;
  gint64 dims[RT_MAX_RANK];
  double *acc;
  if (!conv_result (call, call->inputs[0], call->inputs[1],
                    call->n_inputs > 2 ? call->inputs[2] : NULL,
                    call->n_inputs > 3 ? call->inputs[3] : NULL, &rank, dims, &acc, error))
    return FALSE;
  return output_int32 (call, rank, dims, acc, error);
}

static gboolean
k_qlinear_conv (RtCall *call, GError **error)
{
  const RtTensor *const *in = call->inputs;
  guint rank;
  gint64 dims[RT_MAX_RANK];
  double *acc;
  if (!conv_result (call, in[0], in[3], in[2], in[5], &rank, dims, &acc, error))
    return FALSE;
  const RtTensor *bias = call->n_inputs > 8 ? in[8] : NULL;
  gint64 M = dims[1], inner = rt_shape_numel (rank - 2, dims + 2);
  /* scalars, w_scale per tensor or per output channel, bias per channel
   * (a w_scale of another length was read past its end) */
  if (in[1]->numel != 1 || in[6]->numel != 1 || in[7]->numel != 1
      || !rt_per_tensor_or (in[4], M) || (bias && bias->numel != M))
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "x_scale, y_scale and y_zero_point must be scalars, "
                     "w_scale one value or one per output channel (%" G_GINT64_FORMAT "), and B one per "
                     "output channel", M);
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, in[7]->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  double xs = rt_get_f64 (in[1], 0), ys = rt_get_f64 (in[6], 0), yzp = rt_get_f64 (in[7], 0);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 m = (i / inner) % M;
      double ws = rt_get_f64_per (in[4], m);
      double v = acc[i] + (bias ? rt_get_f64 (bias, m) : 0);
      store_sat (o, i, nearbyint (v * xs * ws / ys) + yzp);
    }
  return TRUE;
}

/* Note [Quantized Conv chains]: torch's export of a quantized convolution
 * is DequantizeLinear (x, w, bias) → Conv [→ Relu] → QuantizeLinear.  Run
 * as written, the Conv sums float products of dequantized values, whose
 * rounding moves an output that lands near a half step by one step.
 * runtime/fuse.c gives the chain to this kernel, which sums the integer
 * products exactly (as ONNX Runtime's QDQ fusion into QLinearConv and
 * PyTorch's quantized kernels do) and quantizes acc·sx·sw + (bq − zb)·sb
 * once.  Inputs: xq, sx, zx, wq, sw, zw (per output channel or scalar), ys,
 * yzp, then bq, sb, zb or none; the Conv node's attributes; `relu` clamps
 * at yzp (Relu before quantizing, exactly). */
gboolean
rt_qdq_conv (RtCall *call, gboolean relu, GError **error)
{
  const RtTensor *const *in = call->inputs;
  for (guint k = 0; k < 8; k++)
    if (in[k] == NULL || ((k == 1 || k == 2 || k == 6 || k == 7) && in[k]->numel != 1))
      {
        rt_call_error (call, error, RT_ERROR_INPUT, "a quantized Conv chain needs per-tensor "
                       "input and output scales and zero points");
        return FALSE;
      }
  gint64 M0 = in[3]->rank ? in[3]->dims[0] : 0;
  if (!rt_per_tensor_or (in[4], M0) || !rt_per_tensor_or (in[5], M0))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the weight's scale and zero point must be one "
                     "per output channel or a scalar");
      return FALSE;
    }
  guint rank;
  gint64 dims[RT_MAX_RANK];
  double *acc;
  if (!conv_result (call, in[0], in[3], in[2], in[5], &rank, dims, &acc, error))
    return FALSE;
  const RtTensor *bq = call->n_inputs > 8 ? in[8] : NULL;
  const RtTensor *bs = bq && call->n_inputs > 9 ? in[9] : NULL;
  const RtTensor *bz = bq && call->n_inputs > 10 ? in[10] : NULL;
  gint64 M = dims[1], inner = rt_shape_numel (rank - 2, dims + 2);
  /* each of the three may be absent (an absent scale before a present zero
   * point must not end the check) */
  const RtTensor *bias_params[3] = { bq, bs, bz };
  for (guint k = 0; k < G_N_ELEMENTS (bias_params); k++)
    if (!rt_per_tensor_or (bias_params[k], M))
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "the bias and its scale and zero point must "
                       "have one value per output channel");
        return FALSE;
      }
  RtTensor *o = rt_call_output (call, 0, in[7]->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  double xs = rt_get_f64 (in[1], 0), ys = rt_get_f64 (in[6], 0), yzp = rt_get_f64 (in[7], 0);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 m = (i / inner) % M;
      double v = acc[i] * xs * rt_get_f64_per (in[4], m);
      if (bq)
        v += (rt_get_f64_per (bq, m) - (bz ? rt_get_f64_per (bz, m) : 0))
             * (bs ? rt_get_f64_per (bs, m) : 1);
      double q = nearbyint ((double) (float) v / (float) ys) + yzp;
      store_sat (o, i, relu && q < yzp ? yzp : q);
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("QuantizeLinear", 10), RT_IN (2, 3), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS | RT_DT (INT32), .run = k_quantize },
  { RT_ONNX ("DequantizeLinear", 10), RT_IN (2, 3), RT_OUT (1, 1), .run = k_dequantize },
  { RT_ONNX ("DynamicQuantizeLinear", 11), RT_IN (1, 1), RT_OUT (3, 3), .dtypes = RT_DT (FLOAT), .run = k_dynamic_quantize },
  { RT_ONNX ("MatMulInteger", 10), RT_IN (2, 4), RT_OUT (1, 1), .dtypes = RT_DT (INT8) | RT_DT (UINT8), .run = k_matmul_integer },
  { RT_ONNX ("QLinearMatMul", 10), RT_IN (8, 8), RT_OUT (1, 1), .dtypes = RT_DT (INT8) | RT_DT (UINT8), .run = k_qlinear_matmul },
  { RT_ONNX ("ConvInteger", 10), RT_IN (2, 4), RT_OUT (1, 1), .dtypes = RT_DT (INT8) | RT_DT (UINT8), .run = k_conv_integer },
  { RT_ONNX ("QLinearConv", 10), RT_IN (8, 9), RT_OUT (1, 1), .dtypes = RT_DT (INT8) | RT_DT (UINT8), .run = k_qlinear_conv },
};

RT_KERNEL_TABLE (rt_kernels_quant, defs);
