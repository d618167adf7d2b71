/* ATen kernels: `org.pytorch.aten::ATen` nodes (by their `operator`
 * attribute) and the aten:: nodes of a trace graph, with torch 1.13's
 * layout: every schema argument is an input, scalars are 0-d tensors
 * (int64 for ints and bools, double or float for floats), None is an absent
 * input.  Type promotion follows torch for the cases these ops meet:
 * a 0-d operand of the same category (int/float) does not promote. */
#include "runtime/k-aten-private.h"
#include <math.h>
#include <string.h>

static gboolean
binary (RtCall *call, const char *op, gboolean true_div, double alpha, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *b = aten_arg (call, 1);
  if (a == NULL || b == NULL)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs two operands");
      return FALSE;
    }
  GraphDType dt = aten_result_type (a, b);
  if (true_div && !graph_dtype_is_floating (dt))
    dt = GRAPH_DTYPE_FLOAT;
  dt = aten_declared_dtype (call, dt);
  RtTensor ca, cb;
  if (!aten_as_dtype (call, a, dt, 1, &ca, error) || !aten_as_dtype (call, b, dt, 2, &cb, error))
    return FALSE;
  if (alpha != 1)
    {
      /* other * alpha, in the result type. */
      void *buf = rt_call_scratch_n (call, 3, (gsize) MAX (cb.numel, 1) * rt_dtype_size (dt), error);
      if (buf == NULL)
        return FALSE;
      for (gint64 i = 0; i < cb.numel; i++)
        {
          double v = rt_get_f64 (&cb, i) * alpha;
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) buf + i * (gint64) rt_dtype_size (dt), dt, 1);
        }
      cb.data = buf;
    }
  return rt_elementwise_binary (call, &ca, &cb, op, error);
}

static gboolean a_mul (RtCall *c, GError **e) { return binary (c, "Mul", FALSE, 1, e); }
/* div(self, other, rounding_mode?): true division, or rounded with
 * rounding_mode 'trunc' / 'floor' (a str argument). */
static gboolean
a_div (RtCall *call, GError **error)
{
  if (aten_arg (call, 2) == NULL)
    return binary (call, "Div", TRUE, 1, error);
  if (aten_s_is (call, 2, NULL, "floor") || aten_s_is (call, 2, NULL, "trunc"))
    return aten_div_rounded (call, aten_s_is (call, 2, NULL, "floor"), error);
  rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "rounding_mode must be 'trunc', 'floor' or None");
  return FALSE;
}
static gboolean a_add (RtCall *c, GError **e) { return binary (c, "Add", FALSE, aten_f (c, 2, 1), e); }
static gboolean a_sub (RtCall *c, GError **e) { return binary (c, "Sub", FALSE, aten_f (c, 2, 1), e); }

static gboolean
a_pow (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *b = aten_arg (call, 1);
  if (a == NULL || b == NULL)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs two operands");
      return FALSE;
    }
  GraphDType dt = aten_declared_dtype (call, aten_result_type (a, b));
  RtTensor ca, cb;
  if (!aten_as_dtype (call, a, dt, 1, &ca, error) || !aten_as_dtype (call, b, dt, 2, &cb, error))
    return FALSE;
  return rt_elementwise_binary (call, &ca, &cb, "Pow", error);
}

static gboolean
unary_float (RtCall *call, const char *op, double alpha, double beta, double gamma, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  RtTensor ca;
  if (!graph_dtype_is_floating (a->dtype) && strcmp (op, "Relu") != 0 && strcmp (op, "Neg") != 0)
    {
      if (!aten_as_dtype (call, a, GRAPH_DTYPE_FLOAT, 1, &ca, error))
        return FALSE;
      a = &ca;
    }
  return rt_elementwise_unary (call, a, op, alpha, beta, gamma, error);
}

static gboolean a_relu (RtCall *c, GError **e) { return unary_float (c, "Relu", 0, 0, 0, e); }
static gboolean a_sigmoid (RtCall *c, GError **e) { return unary_float (c, "Sigmoid", 0, 0, 0, e); }
static gboolean a_tanh (RtCall *c, GError **e) { return unary_float (c, "Tanh", 0, 0, 0, e); }
static gboolean a_exp (RtCall *c, GError **e) { return unary_float (c, "Exp", 0, 0, 0, e); }
static gboolean a_neg (RtCall *c, GError **e) { return unary_float (c, "Neg", 0, 0, 0, e); }

/* elu(x, alpha, scale, input_scale) = scale * (max(0,x) + min(0, alpha*(exp(x*input_scale)-1))) */
static gboolean
a_elu (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  double alpha = aten_f (call, 1, 1), scale = aten_f (call, 2, 1), in_scale = aten_f (call, 3, 1);
  if (!graph_dtype_is_floating (a->dtype))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "elu needs a floating-point input");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  for (gint64 i = 0; i < a->numel; i++)
    {
      double x = rt_get_f64 (a, i);
      double v = scale * (x > 0 ? x : alpha * expm1 (x * in_scale));
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) rt_dtype_size (a->dtype), a->dtype, 1);
    }
  return TRUE;
}

/* ones/zeros(int[] size, ScalarType? dtype, Layout?, Device?, bool? pin_memory);
 * the builder's form with attributes size / type is read too. */
static gboolean
fill (RtCall *call, double value, GError **error)
{
  gint64 dims[RT_MAX_RANK];
  guint rank = 0;
  const RtTensor *size = aten_arg (call, 0);
  gsize len;
  const gint64 *v;
  if (size)
    {
      if (!graph_dtype_is_integer (size->dtype) || size->rank > 1 || size->numel > RT_MAX_RANK)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "size must be an integer list");
          return FALSE;
        }
      for (gint64 i = 0; i < size->numel; i++)
        dims[rank++] = rt_get_i64 (size, i);
    }
  else if (rt_attr_ints (call->node, "size", &len, &v) && len <= RT_MAX_RANK)
    for (gsize i = 0; i < len; i++)
      dims[rank++] = v[i];
  else
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "missing size");
      return FALSE;
    }
  GraphDType dt = GRAPH_DTYPE_FLOAT;
  const char *type = rt_attr_s (call->node, "type", rt_attr_s (call->node, "dtype", NULL));
  if (aten_arg (call, 1) && !aten_scalar_type (aten_i (call, 1, 6), &dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype code %" G_GINT64_FORMAT,
                     aten_i (call, 1, 6));
      return FALSE;
    }
  if (!aten_arg (call, 1) && type && !graph_dtype_from_name (type, &dt) && !graph_dtype_from_torch_name (type, &dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unknown type '%s'", type);
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (dt);
  guint8 one[16];
  rt_convert (&value, GRAPH_DTYPE_DOUBLE, one, dt, 1);
  for (gint64 i = 0; i < o->numel; i++)
    memcpy ((char *) o->data + i * (gint64) es, one, es);
  return TRUE;
}

static gboolean a_ones (RtCall *c, GError **e) { return fill (c, 1, e); }
static gboolean a_zeros (RtCall *c, GError **e) { return fill (c, 0, e); }

static gboolean
tri (RtCall *call, gboolean upper, GError **error)
{
  return rt_trilu (call, aten_arg (call, 0), aten_i (call, 1, 0), upper, error);
}

static gboolean a_triu (RtCall *c, GError **e) { return tri (c, TRUE, e); }
static gboolean a_tril (RtCall *c, GError **e) { return tri (c, FALSE, e); }

/* cumprod(Tensor self, int dim, ScalarType? dtype) */
static gboolean
a_cumprod (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  guint ax;
  if (!rt_axis (call, aten_i (call, 1, rt_attr_i (call->node, "dim", 0)), a->rank, &ax, error))
    return FALSE;
  GraphDType dt = graph_dtype_is_floating (a->dtype) ? a->dtype : GRAPH_DTYPE_INT64;
  if (aten_arg (call, 2) && !aten_scalar_type (aten_i (call, 2, 6), &dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, dt, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  gint64 outer = rt_shape_numel (ax, a->dims), n = a->rank ? a->dims[ax] : 1;
  gint64 inner = rt_shape_inner (a->rank, a->dims, ax);
  if (a->rank == 0)
    n = inner = 1;
  gsize es = rt_dtype_size (dt);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        double p = 1;
        gint64 ip = 1;
        for (gint64 j = 0; j < n; j++)
          {
            gint64 idx = (i * n + j) * inner + k;
            char *dst = (char *) o->data + idx * (gint64) es;
            if (graph_dtype_is_floating (dt))
              {
                /* Rounded to the output type at each step, as torch does. */
                p *= rt_get_f64 (a, idx);
                rt_convert (&p, GRAPH_DTYPE_DOUBLE, dst, dt, 1);
                rt_convert (dst, dt, &p, GRAPH_DTYPE_DOUBLE, 1);
              }
            else
              {
                ip *= rt_get_i64 (a, idx);
                rt_convert (&ip, GRAPH_DTYPE_INT64, dst, dt, 1);
              }
          }
      }
  return TRUE;
}

/* upsample_bilinear2d(Tensor self, int[]? output_size, bool align_corners,
 * float[]? scale_factors)  (the .vec overload), or
 * upsample_bilinear2d(Tensor self, int[2] output_size, bool align_corners,
 * float? scales_h, float? scales_w). */
static gboolean
a_upsample_bilinear2d (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *osize = aten_arg (call, 1), *sf = aten_arg (call, 3);
  gboolean align = aten_i (call, 2, 0) != 0;
  if (x->rank != 4 || !graph_dtype_is_floating (x->dtype))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a 4-D floating-point input");
      return FALSE;
    }
  gint64 H = x->dims[2], W = x->dims[3], OH, OW;
  double sh = 0, sw = 0;   /* user scale factors, 0: none */
  if (osize && osize->numel == 2)
    {
      OH = rt_get_i64 (osize, 0);
      OW = rt_get_i64 (osize, 1);
      if (aten_arg (call, 3) && aten_arg (call, 4) && aten_arg (call, 3)->numel == 1)
        {
          sh = aten_f (call, 3, 0);
          sw = aten_f (call, 4, 0);
        }
    }
  else if (sf && sf->numel == 2)
    {
      sh = rt_get_f64 (sf, 0);
      sw = rt_get_f64 (sf, 1);
      OH = graph_double_to_int64 (floor ((double) H * sh));
      OW = graph_double_to_int64 (floor ((double) W * sw));
    }
  else
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs output_size or scale_factors");
      return FALSE;
    }
  if (OH <= 0 || OW <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "output size must be positive");
      return FALSE;
    }
  gint64 dims[4] = { x->dims[0], x->dims[1], OH, OW };
  RtTensor *o = rt_call_output (call, 0, x->dtype, 4, dims, error);
  if (o == NULL)
    return FALSE;
  /* area_pixel_compute_scale / source_index of ATen's UpSample.h */
  double rh = align ? (OH > 1 ? (double) (H - 1) / (double) (OH - 1) : 0)
                    : (sh > 0 ? 1.0 / sh : (double) H / (double) OH);
  double rw = align ? (OW > 1 ? (double) (W - 1) / (double) (OW - 1) : 0)
                    : (sw > 0 ? 1.0 / sw : (double) W / (double) OW);
  gboolean is_float = x->dtype == GRAPH_DTYPE_FLOAT;
  for (gint64 p = 0; p < x->dims[0] * x->dims[1]; p++)
    for (gint64 i = 0; i < OH; i++)
      {
        double y = align ? rh * (double) i : MAX (rh * ((double) i + 0.5) - 0.5, 0);
        if (is_float)
          y = (float) (align ? (float) rh * (float) i : MAX ((float) rh * ((float) i + 0.5f) - 0.5f, 0.0f));
        gint64 y0 = MIN ((gint64) y, H - 1), y1 = y0 < H - 1 ? y0 + 1 : y0;
        double ly = y - (double) y0;
        for (gint64 j = 0; j < OW; j++)
          {
            double xx = align ? rw * (double) j : MAX (rw * ((double) j + 0.5) - 0.5, 0);
            if (is_float)
              xx = (float) (align ? (float) rw * (float) j : MAX ((float) rw * ((float) j + 0.5f) - 0.5f, 0.0f));
            gint64 x0 = MIN ((gint64) xx, W - 1), x1 = x0 < W - 1 ? x0 + 1 : x0;
            double lx = xx - (double) x0;
            gint64 base = p * H * W;
            double v = (1 - ly) * ((1 - lx) * rt_get_f64 (x, base + y0 * W + x0) + lx * rt_get_f64 (x, base + y0 * W + x1))
                       + ly * ((1 - lx) * rt_get_f64 (x, base + y1 * W + x0) + lx * rt_get_f64 (x, base + y1 * W + x1));
            rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + ((p * OH + i) * OW + j) * (gint64) rt_dtype_size (x->dtype), x->dtype, 1);
          }
      }
  return TRUE;
}

/* prim::ListConstruct of scalars → a 1-D tensor (int64, or double when any
 * element is floating); of strs (scripted code's `mode in ("nearest",
 * ...)`) → a 1-D STRING tensor. */
static gboolean
p_list_construct (RtCall *call, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_INT64;
  guint n_str = 0;
  for (guint i = 0; i < call->n_inputs; i++)
    {
      const RtTensor *t = call->inputs[i];
      if (t == NULL || t->rank != 0)
        {
          rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                         "only lists of scalars can be executed (element %u is a tensor or None)", i);
          return FALSE;
        }
      if (graph_dtype_is_floating (t->dtype))
        dt = GRAPH_DTYPE_DOUBLE;
      n_str += t->dtype == GRAPH_DTYPE_STRING;
    }
  if (n_str && n_str != call->n_inputs)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "a list of strs and numbers cannot be executed");
      return FALSE;
    }
  if (n_str)
    dt = GRAPH_DTYPE_STRING;
  gint64 n = call->n_inputs;
  RtTensor *o = rt_call_output (call, 0, dt, 1, &n, error);
  if (o == NULL)
    return FALSE;
  for (guint i = 0; i < call->n_inputs; i++)
    if (dt == GRAPH_DTYPE_STRING)
      {
        GBytes *b = ((GBytes *const *) call->inputs[i]->data)[0];
        ((GBytes **) o->data)[i] = b ? rt_call_keep_string (call, g_bytes_ref (b)) : NULL;
      }
    else
      rt_convert (call->inputs[i]->data, call->inputs[i]->dtype,
                  (char *) o->data + i * (gint64) rt_dtype_size (dt), dt, 1);
  return TRUE;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("mul", 2, 2, a_mul),
  RT_ATEN_ROW ("add", 2, 3, a_add),
  RT_ATEN_ROW ("add_", 2, 3, a_add),   /* in-place forms: a trace names their result */
  RT_ATEN_ROW ("sub", 2, 3, a_sub),
  RT_ATEN_ROW ("div", 2, 3, a_div),
  RT_ATEN_ROW ("pow", 2, 2, a_pow),
  RT_ATEN_ROW ("relu", 1, 1, a_relu),
  RT_ATEN_ROW ("relu_", 1, 1, a_relu),
  RT_ATEN_ROW ("sigmoid", 1, 1, a_sigmoid),
  RT_ATEN_ROW ("tanh", 1, 1, a_tanh),
  RT_ATEN_ROW ("tanh_", 1, 1, a_tanh),
  RT_ATEN_ROW ("exp", 1, 1, a_exp),
  RT_ATEN_ROW ("neg", 1, 1, a_neg),
  RT_ATEN_ROW ("elu", 1, 4, a_elu),
  RT_ATEN_ROW ("ones", 0, 5, a_ones),
  RT_ATEN_ROW ("zeros", 0, 5, a_zeros),
  RT_ATEN_ROW ("triu", 1, 2, a_triu),
  RT_ATEN_ROW ("tril", 1, 2, a_tril),
  RT_ATEN_ROW ("cumprod", 1, 3, a_cumprod),
  RT_ATEN_ROW ("upsample_bilinear2d", 1, 5, a_upsample_bilinear2d),
  { RT_DOMAIN ("prim", "ListConstruct", 0), RT_IN (0, RT_VARIADIC), RT_OUT (1, 1), .run = p_list_construct },
};

RT_KERNEL_TABLE (rt_kernels_aten, defs);
