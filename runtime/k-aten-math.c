/* ATen element-wise math: unary functions, binary arithmetic, comparisons,
 * logical and bitwise ops, where / masked_fill / clamp / lerp / addcmul,
 * isnan & co.  Ops ONNX also has run the ONNX element-wise loops
 * (rt_elementwise_unary / rt_elementwise_binary) after torch's type
 * promotion; the others use the broadcast loops below (aten_map1 /
 * aten_mapn), computing in double for floating results and in int64 for
 * integer ones, so no integer goes through a double. */
#include "runtime/k-aten-private.h"
#include <math.h>

/* ---- the shared loops ---------------------------------------------------- */

gboolean
aten_map1 (RtCall *call, const RtTensor *a, GraphDType out_dt, AtenF1 f, AtenI1 fi,
           const double *params, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, out_dt, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (out_dt);
  gboolean as_int = fi && !graph_dtype_is_floating (out_dt);
  for (gint64 i = 0; i < a->numel; i++)
    {
      char *dst = (char *) o->data + i * (gint64) es;
      if (as_int)
        {
          gint64 v = fi (rt_get_i64 (a, i));
          rt_convert (&v, GRAPH_DTYPE_INT64, dst, out_dt, 1);
        }
      else
        {
          double v = f (rt_get_f64 (a, i), params);
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, dst, out_dt, 1);
        }
    }
  return TRUE;
}

gboolean
aten_mapn (RtCall *call, guint n, const RtTensor *const *ts, GraphDType out_dt, AtenFn fn,
           AtenIn fin, const double *params, GError **error)
{
  guint rank = 0;
  gint64 dims[RT_MAX_RANK] = { 0 };
  if (n > 3)
    {
      rt_call_error (call, error, RT_ERROR_FAILED, "at most 3 operands");
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    {
      guint r2;
      gint64 d2[RT_MAX_RANK];
      if (!rt_broadcast_shape (call, rank, dims, ts[k]->rank, ts[k]->dims, &r2, d2, error))
        return FALSE;
      rank = r2;
      memcpy (dims, d2, sizeof (gint64) * r2);
    }
  RtTensor *o = rt_call_output (call, 0, out_dt, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 strides[3][RT_MAX_RANK];
  for (guint k = 0; k < n; k++)
    rt_broadcast_strides (ts[k], rank, dims, strides[k]);
  gint64 c[RT_MAX_RANK] = { 0 };
  gsize es = rt_dtype_size (out_dt);
  gboolean as_int = fin && !graph_dtype_is_floating (out_dt);
  for (gint64 i = 0; i < o->numel; i++)
    {
      double x[3];
      gint64 xi[3];
      for (guint k = 0; k < n; k++)
        {
          gint64 off = 0;
          for (guint d = 0; d < rank; d++)
            off += c[d] * strides[k][d];
          if (as_int)
            xi[k] = rt_get_i64 (ts[k], off);
          else
            x[k] = rt_get_f64 (ts[k], off);
        }
      char *dst = (char *) o->data + i * (gint64) es;
      if (as_int)
        {
          gint64 v;
          if (!fin (xi, &v))
            {
              rt_call_error (call, error, RT_ERROR_FAILED, "integer division by zero");
              return FALSE;
            }
          rt_convert (&v, GRAPH_DTYPE_INT64, dst, out_dt, 1);
        }
      else
        {
          double v = fn (x, params);
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, dst, out_dt, 1);
        }
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

/* The floating type a float function of `t` gives (torch's default float
 * for integers and bools). */
static GraphDType
float_type (const RtTensor *t)
{
  return graph_dtype_is_floating (t->dtype) ? t->dtype : GRAPH_DTYPE_FLOAT;
}

static gboolean
need (RtCall *call, guint n, GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      const RtTensor *t = aten_arg (call, i);
      if (t == NULL || t->kind != RT_KIND_TENSOR || t->dtype == GRAPH_DTYPE_STRING)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a numeric tensor", i);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- unary: the ONNX loops ------------------------------------------------ */

/* aten op → ONNX unary op; keeps_int: an integer input stays integer
 * (abs, neg, sign); the others compute in the floating type. */
static const struct { const char *aten, *onnx; gboolean keeps_int; } unary_ops[] = {
  { "abs", "Abs", TRUE }, { "neg", "Neg", TRUE }, { "sign", "Sign", TRUE },
  { "ceil", "Ceil", FALSE }, { "floor", "Floor", FALSE }, { "round", "Round", FALSE },
  { "cos", "Cos", FALSE }, { "sin", "Sin", FALSE }, { "tan", "Tan", FALSE },
  { "cosh", "Cosh", FALSE }, { "sinh", "Sinh", FALSE }, { "atan", "Atan", FALSE },
  { "asin", "Asin", FALSE }, { "acos", "Acos", FALSE }, { "asinh", "Asinh", FALSE },
  { "atanh", "Atanh", FALSE }, { "erf", "Erf", FALSE }, { "log", "Log", FALSE },
  { "sqrt", "Sqrt", FALSE }, { "reciprocal", "Reciprocal", FALSE },
};

static const char *
aten_op_name (RtCall *call)
{
  return graph_node_is (call->node, GRAPH_KIND_ATEN) ? rt_attr_s (call->node, "operator", "")
                                                     : graph_node_op_type (call->node);
}

static gboolean
a_unary_onnx (RtCall *call, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const char *op = aten_op_name (call);
  const char *base = op;
  g_autofree char *stripped = NULL;
  if (g_str_has_suffix (op, "_") && !g_str_has_suffix (op, "__"))
    base = stripped = g_strndup (op, strlen (op) - 1);
  for (guint i = 0; i < G_N_ELEMENTS (unary_ops); i++)
    if (strcmp (unary_ops[i].aten, base) == 0)
      {
        const RtTensor *a = aten_arg (call, 0);
        RtTensor ca;
        if (a->dtype == GRAPH_DTYPE_BOOL || (!unary_ops[i].keeps_int && !graph_dtype_is_floating (a->dtype)))
          {
            if (!aten_as_dtype (call, a, unary_ops[i].keeps_int ? GRAPH_DTYPE_INT64 : GRAPH_DTYPE_FLOAT, 1, &ca, error))
              return FALSE;
            a = &ca;
          }
        return rt_elementwise_unary (call, a, unary_ops[i].onnx, 0, 0, 0, error);
      }
  rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "no element-wise form of '%s'", op);
  return FALSE;
}

/* ---- unary: functions ONNX lacks ----------------------------------------- */

static double f_log2 (double x, const double *p) { (void) p; return log2 (x); }
static double f_log10 (double x, const double *p) { (void) p; return log10 (x); }
static double f_log1p (double x, const double *p) { (void) p; return log1p (x); }
static double f_rsqrt (double x, const double *p) { (void) p; return 1.0 / sqrt (x); }
static double f_expm1 (double x, const double *p) { (void) p; return expm1 (x); }
static double f_trunc (double x, const double *p) { (void) p; return trunc (x); }
static double f_frac (double x, const double *p) { (void) p; return x - trunc (x); }
static gint64 i_same (gint64 x) { return x; }
static gint64 i_zero (gint64 x) { (void) x; return 0; }

static gboolean
unary_float (RtCall *call, AtenF1 f, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  return aten_map1 (call, a, float_type (a), f, NULL, NULL, error);
}

static gboolean a_log2 (RtCall *c, GError **e) { return unary_float (c, f_log2, e); }
static gboolean a_log10 (RtCall *c, GError **e) { return unary_float (c, f_log10, e); }
static gboolean a_log1p (RtCall *c, GError **e) { return unary_float (c, f_log1p, e); }
static gboolean a_rsqrt (RtCall *c, GError **e) { return unary_float (c, f_rsqrt, e); }
static gboolean a_expm1 (RtCall *c, GError **e) { return unary_float (c, f_expm1, e); }

/* trunc and frac keep an integer input's type (trunc: itself; frac: 0). */
static gboolean
rounding (RtCall *call, AtenF1 f, AtenI1 fi, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  if (a->dtype == GRAPH_DTYPE_BOOL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "not defined for bool tensors");
      return FALSE;
    }
  return aten_map1 (call, a, a->dtype, f, fi, NULL, error);
}

static gboolean a_trunc (RtCall *c, GError **e) { return rounding (c, f_trunc, i_same, e); }
static gboolean a_frac (RtCall *c, GError **e) { return rounding (c, f_frac, i_zero, e); }

/* square(x) = x * x, the ONNX Mul loop (integers stay integers). */
static gboolean
a_square (RtCall *call, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  RtTensor ca;
  if (a->dtype == GRAPH_DTYPE_BOOL)
    {
      if (!aten_as_dtype (call, a, GRAPH_DTYPE_INT64, 1, &ca, error))
        return FALSE;
      a = &ca;
    }
  return rt_elementwise_binary (call, a, a, "Mul", error);
}

/* ---- binary --------------------------------------------------------------- */

/* Both operands in their torch result type (scratch 1 and 2). */
static gboolean
promote2 (RtCall *call, GraphDType *dt, RtTensor *ca, RtTensor *cb, GError **error)
{
  if (!need (call, 2, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0), *b = aten_arg (call, 1);
  if (*dt == GRAPH_DTYPE_UNDEFINED)
    *dt = aten_declared_dtype (call, aten_result_type (a, b));
  return aten_as_dtype (call, a, *dt, 1, ca, error) && aten_as_dtype (call, b, *dt, 2, cb, error);
}

static double f_atan2 (const double *x, const double *p) { (void) p; return atan2 (x[0], x[1]); }
static double f_max (const double *x, const double *p) { (void) p; return isnan (x[0]) || isnan (x[1]) ? NAN : MAX (x[0], x[1]); }
static double f_min (const double *x, const double *p) { (void) p; return isnan (x[0]) || isnan (x[1]) ? NAN : MIN (x[0], x[1]); }
static double f_fmod (const double *x, const double *p) { (void) p; return fmod (x[0], x[1]); }
static double
f_remainder (const double *x, const double *p)
{
  (void) p;
  double r = fmod (x[0], x[1]);
  return r != 0 && ((r < 0) != (x[1] < 0)) ? r + x[1] : r;
}
static double f_floordiv (const double *x, const double *p) { (void) p; return floor (x[0] / x[1]); }

static gboolean i_max (const gint64 *x, gint64 *r) { *r = MAX (x[0], x[1]); return TRUE; }
static gboolean i_min (const gint64 *x, gint64 *r) { *r = MIN (x[0], x[1]); return TRUE; }
static gboolean
i_fmod (const gint64 *x, gint64 *r)
{
  if (x[1] == 0)
    return FALSE;
  *r = x[1] == -1 ? 0 : x[0] % x[1];
  return TRUE;
}
static gboolean
i_remainder (const gint64 *x, gint64 *r)
{
  if (!i_fmod (x, r))
    return FALSE;
  if (*r != 0 && ((*r < 0) != (x[1] < 0)))
    *r += x[1];
  return TRUE;
}
static gboolean
i_floordiv (const gint64 *x, gint64 *r)
{
  if (x[1] == 0)
    return FALSE;
  if (x[1] == -1)
    {
      *r = (gint64) (0 - (guint64) x[0]);   /* wraps like torch for INT64_MIN */
      return TRUE;
    }
  gint64 q = x[0] / x[1];
  *r = (x[0] % x[1] != 0 && ((x[0] < 0) != (x[1] < 0))) ? q - 1 : q;
  return TRUE;
}
static gboolean i_and (const gint64 *x, gint64 *r) { *r = x[0] & x[1]; return TRUE; }
static gboolean i_or (const gint64 *x, gint64 *r) { *r = x[0] | x[1]; return TRUE; }
static gboolean i_xor (const gint64 *x, gint64 *r) { *r = x[0] ^ x[1]; return TRUE; }

static gboolean
binary_map (RtCall *call, gboolean to_float, AtenFn f, AtenIn fi, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  RtTensor ca, cb;
  if (!promote2 (call, &dt, &ca, &cb, error))
    return FALSE;
  if (to_float && !graph_dtype_is_floating (dt))
    dt = GRAPH_DTYPE_FLOAT;
  const RtTensor *ts[2] = { &ca, &cb };
  return aten_mapn (call, 2, ts, dt, f, fi, NULL, error);
}

gboolean
aten_elementwise_extreme (RtCall *call, gboolean max, GError **error)
{
  return max ? binary_map (call, FALSE, f_max, i_max, error) : binary_map (call, FALSE, f_min, i_min, error);
}

static gboolean a_atan2 (RtCall *c, GError **e) { return binary_map (c, TRUE, f_atan2, NULL, e); }
static gboolean a_maximum (RtCall *c, GError **e) { return binary_map (c, FALSE, f_max, i_max, e); }
static gboolean a_minimum (RtCall *c, GError **e) { return binary_map (c, FALSE, f_min, i_min, e); }
static gboolean a_fmod (RtCall *c, GError **e) { return binary_map (c, FALSE, f_fmod, i_fmod, e); }
static gboolean a_remainder (RtCall *c, GError **e) { return binary_map (c, FALSE, f_remainder, i_remainder, e); }
static gboolean a_floor_divide (RtCall *c, GError **e) { return binary_map (c, FALSE, f_floordiv, i_floordiv, e); }

static double f_truncdiv (const double *x, const double *p) { (void) p; return trunc (x[0] / x[1]); }
static gboolean
i_truncdiv (const gint64 *x, gint64 *r)
{
  if (x[1] == 0)
    return FALSE;
  *r = x[1] == -1 ? (gint64) (0 - (guint64) x[0]) : x[0] / x[1];   /* INT64_MIN / -1 wraps, as torch's */
  return TRUE;
}

gboolean
aten_div_rounded (RtCall *call, gboolean floor_mode, GError **error)
{
  return floor_mode ? binary_map (call, FALSE, f_floordiv, i_floordiv, error)
                    : binary_map (call, FALSE, f_truncdiv, i_truncdiv, error);
}

static gboolean i_lshift (const gint64 *x, gint64 *r) { *r = (gint64) ((guint64) x[0] << x[1]); return TRUE; }
static gboolean i_rshift (const gint64 *x, gint64 *r) { *r = x[0] >> x[1]; return TRUE; }

/* __lshift__ / __rshift__(self, other): integer shifts in the promoted
 * type (left shifts wrap, right shifts are arithmetic for signed types).
 * Floats are refused, as torch's CPU kernels do; so are shift counts
 * outside [0, bits of the type), whose results torch leaves to the
 * hardware. */
static gboolean
shift (RtCall *call, gboolean left, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  RtTensor ca, cb;
  if (!promote2 (call, &dt, &ca, &cb, error))
    return FALSE;
  if (!graph_dtype_is_integer (dt) || dt == GRAPH_DTYPE_BOOL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "shifts need integer tensors (got %s)",
                     graph_dtype_name (dt));
      return FALSE;
    }
  gint64 bits = (gint64) rt_dtype_size (dt) * 8;
  for (gint64 i = 0; i < cb.numel; i++)
    if (rt_get_i64 (&cb, i) < 0 || rt_get_i64 (&cb, i) >= bits)
      {
        rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "shift count %" G_GINT64_FORMAT " is outside [0, %"
                       G_GINT64_FORMAT ") for %s", rt_get_i64 (&cb, i), bits, graph_dtype_name (dt));
        return FALSE;
      }
  const RtTensor *ts[2] = { &ca, &cb };
  return aten_mapn (call, 2, ts, dt, NULL, left ? i_lshift : i_rshift, NULL, error);
}

static gboolean a_lshift (RtCall *c, GError **e) { return shift (c, TRUE, e); }
static gboolean a_rshift (RtCall *c, GError **e) { return shift (c, FALSE, e); }

/* bitwise_and/or/xor and __and__/...: And/Or/Xor for bools, integer ops
 * otherwise; floats are refused, as torch does. */
static gboolean
bitwise (RtCall *call, const char *onnx, AtenIn fi, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  RtTensor ca, cb;
  if (!promote2 (call, &dt, &ca, &cb, error))
    return FALSE;
  if (graph_dtype_is_floating (dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "bitwise ops need integer or bool tensors");
      return FALSE;
    }
  if (dt == GRAPH_DTYPE_BOOL)
    return rt_elementwise_binary (call, &ca, &cb, onnx, error);
  const RtTensor *ts[2] = { &ca, &cb };
  return aten_mapn (call, 2, ts, dt, NULL, fi, NULL, error);
}

static gboolean a_bitwise_and (RtCall *c, GError **e) { return bitwise (c, "And", i_and, e); }
static gboolean a_bitwise_or (RtCall *c, GError **e) { return bitwise (c, "Or", i_or, e); }
static gboolean a_bitwise_xor (RtCall *c, GError **e) { return bitwise (c, "Xor", i_xor, e); }

static gint64 i_not (gint64 x) { return ~x; }

static gboolean
a_bitwise_not (RtCall *call, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  if (a->dtype == GRAPH_DTYPE_BOOL)
    return rt_elementwise_unary (call, a, "Not", 0, 0, 0, error);
  if (graph_dtype_is_floating (a->dtype))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "bitwise_not needs an integer or bool tensor");
      return FALSE;
    }
  return aten_map1 (call, a, a->dtype, NULL, i_not, NULL, error);
}

/* true_divide: Div in the floating result type. */
static gboolean
a_true_divide (RtCall *call, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  RtTensor ca, cb;
  if (!need (call, 2, error))
    return FALSE;
  dt = aten_result_type (aten_arg (call, 0), aten_arg (call, 1));
  if (!graph_dtype_is_floating (dt))
    dt = GRAPH_DTYPE_FLOAT;
  if (!promote2 (call, &dt, &ca, &cb, error))
    return FALSE;
  return rt_elementwise_binary (call, &ca, &cb, "Div", error);
}

/* rsub(self, other, alpha) = other - alpha * self */
static double f_rsub (const double *x, const double *p) { return x[1] - p[0] * x[0]; }
static gboolean
i_rsub (const gint64 *x, gint64 *r)
{
  *r = x[1] - x[0];
  return TRUE;
}

static gboolean
a_rsub (RtCall *call, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  RtTensor ca, cb;
  if (!promote2 (call, &dt, &ca, &cb, error))
    return FALSE;
  double alpha = aten_f (call, 2, 1);
  const RtTensor *ts[2] = { &ca, &cb };
  if (!graph_dtype_is_floating (dt) && alpha != 1)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "integer rsub with alpha other than 1");
      return FALSE;
    }
  return aten_mapn (call, 2, ts, dt, f_rsub, i_rsub, &alpha, error);
}

/* ---- comparisons and logic ------------------------------------------------ */

static gboolean
compare (RtCall *call, const char *onnx, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  RtTensor ca, cb;
  return promote2 (call, &dt, &ca, &cb, error) && rt_elementwise_binary (call, &ca, &cb, onnx, error);
}

static gboolean a_eq (RtCall *c, GError **e) { return compare (c, "Equal", e); }
static gboolean a_lt (RtCall *c, GError **e) { return compare (c, "Less", e); }
static gboolean a_le (RtCall *c, GError **e) { return compare (c, "LessOrEqual", e); }
static gboolean a_gt (RtCall *c, GError **e) { return compare (c, "Greater", e); }
static gboolean a_ge (RtCall *c, GError **e) { return compare (c, "GreaterOrEqual", e); }

static double f_ne (const double *x, const double *p) { (void) p; return x[0] != x[1]; }
static gboolean i_ne (const gint64 *x, gint64 *r) { *r = x[0] != x[1]; return TRUE; }

static gboolean
a_ne (RtCall *call, GError **error)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  RtTensor ca, cb;
  if (!promote2 (call, &dt, &ca, &cb, error))
    return FALSE;
  const RtTensor *ts[2] = { &ca, &cb };
  /* Floats compare as doubles (exact for float and double); integers as
   * int64.  The output is bool. */
  if (graph_dtype_is_floating (dt))
    return aten_mapn (call, 2, ts, GRAPH_DTYPE_BOOL, f_ne, NULL, NULL, error);
  return aten_mapn (call, 2, ts, GRAPH_DTYPE_BOOL, f_ne, i_ne, NULL, error);
}

static gboolean
logical (RtCall *call, const char *onnx, GError **error)
{
  if (!need (call, 2, error))
    return FALSE;
  RtTensor ca, cb;
  if (!aten_as_dtype (call, aten_arg (call, 0), GRAPH_DTYPE_BOOL, 1, &ca, error)
      || !aten_as_dtype (call, aten_arg (call, 1), GRAPH_DTYPE_BOOL, 2, &cb, error))
    return FALSE;
  return rt_elementwise_binary (call, &ca, &cb, onnx, error);
}

static gboolean a_logical_and (RtCall *c, GError **e) { return logical (c, "And", e); }
static gboolean a_logical_or (RtCall *c, GError **e) { return logical (c, "Or", e); }
static gboolean a_logical_xor (RtCall *c, GError **e) { return logical (c, "Xor", e); }

static gboolean
a_logical_not (RtCall *call, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  RtTensor ca;
  return aten_as_dtype (call, aten_arg (call, 0), GRAPH_DTYPE_BOOL, 1, &ca, error)
         && rt_elementwise_unary (call, &ca, "Not", 0, 0, 0, error);
}

/* ---- selection ---------------------------------------------------------- */

static double f_where (const double *x, const double *p) { (void) p; return x[0] != 0 ? x[1] : x[2]; }
static gboolean i_where (const gint64 *x, gint64 *r) { *r = x[0] != 0 ? x[1] : x[2]; return TRUE; }

/* where(condition, self, other); where(condition): nonzero_numpy's
 * indices (the Tensor[] a trace unpacks). */
static gboolean
a_where (RtCall *call, GError **error)
{
  if (call->n_inputs == 1)
    return aten_nonzero_numpy (call, error);
  if (call->n_outputs != 1)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "where(condition, self, other) has one output");
      return FALSE;
    }
  if (!need (call, 3, error))
    return FALSE;
  const RtTensor *c = aten_arg (call, 0), *a = aten_arg (call, 1), *b = aten_arg (call, 2);
  GraphDType dt = aten_result_type (a, b);
  RtTensor ca, cb;
  if (!aten_as_dtype (call, a, dt, 1, &ca, error) || !aten_as_dtype (call, b, dt, 2, &cb, error))
    return FALSE;
  const RtTensor *ts[3] = { c, &ca, &cb };
  return aten_mapn (call, 3, ts, dt, f_where, i_where, NULL, error);
}

/* masked_fill(self, mask, value): value where mask (broadcast to self). */
static gboolean
a_masked_fill (RtCall *call, GError **error)
{
  if (!need (call, 3, error))
    return FALSE;
  const RtTensor *self = aten_arg (call, 0), *mask = aten_arg (call, 1), *value = aten_arg (call, 2);
  if (mask->dtype != GRAPH_DTYPE_BOOL || value->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs a bool mask and a one-element value");
      return FALSE;
    }
  if (!rt_broadcasts_to (call, mask, self->rank, self->dims, "mask", error))
    return FALSE;
  RtTensor cv;
  if (!aten_as_dtype (call, value, self->dtype, 1, &cv, error))
    return FALSE;
  const RtTensor *ts[3] = { mask, &cv, self };
  return aten_mapn (call, 3, ts, self->dtype, f_where, i_where, NULL, error);
}

/* clamp(self, min?, max?) and clamp_min / clamp_max; a NaN stays NaN. */
static double
f_clamp (const double *x, const double *p)
{
  double v = x[0];
  if (isnan (v))
    return v;
  if (!isnan (p[0]) && v < p[0])
    v = p[0];
  if (!isnan (p[1]) && v > p[1])
    v = p[1];
  return v;
}

/* The tensor bounds' form (clamp.Tensor, clamp_min.Tensor, ...): min and
 * max broadcast with self, torch's promotion over all three, and a NaN in
 * any operand gives NaN (where the scalar form ignores a NaN bound).  x[1]
 * / x[2] are the bounds; p[0] / p[1] say whether each is given. */
static double
f_clamp_t (const double *x, const double *p)
{
  double v = x[0];
  if (p[0] != 0 && (isnan (x[1]) || v < x[1]))
    v = x[1];
  if (p[1] != 0 && (isnan (x[2]) || v > x[2]))
    v = x[2];
  return v;
}

static gboolean
i_clamp_lo (const gint64 *x, gint64 *r)
{
  *r = MAX (x[0], x[1]);
  return TRUE;
}

static gboolean
i_clamp_hi (const gint64 *x, gint64 *r)
{
  *r = MIN (x[0], x[1]);
  return TRUE;
}

static gboolean
i_clamp_both (const gint64 *x, gint64 *r)
{
  *r = MIN (MAX (x[0], x[1]), x[2]);
  return TRUE;
}

static gboolean
clamp_tensors (RtCall *call, const RtTensor *a, const RtTensor *lo, const RtTensor *hi, GError **error)
{
  /* torch.result_type over self and both bounds: fold pairwise, a
   * stand-in of the folded type keeping "dimensioned or 0-d". */
  GraphDType dt = a->dtype;
  gboolean zero_d = a->rank == 0;
  const RtTensor *bounds[2] = { lo, hi };
  for (int k = 0; k < 2; k++)
    if (bounds[k])
      {
        RtTensor acc = { .dtype = dt, .rank = zero_d ? 0 : 1 };
        dt = aten_result_type (&acc, bounds[k]);
        zero_d = zero_d && bounds[k]->rank == 0;
      }
  if (graph_dtype_promotion_rank (dt) < 0 || dt == GRAPH_DTYPE_BOOL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "clamp of %s tensors is not supported",
                     graph_dtype_name (dt));
      return FALSE;
    }
  RtTensor ca, clo, chi;
  if (!aten_as_dtype (call, a, dt, 1, &ca, error) || (lo && !aten_as_dtype (call, lo, dt, 2, &clo, error))
      || (hi && !aten_as_dtype (call, hi, dt, 3, &chi, error)))
    return FALSE;
  if (!graph_dtype_is_floating (dt))
    {
      /* Integers exactly, in int64: self and the bounds given, in order. */
      const RtTensor *ts[3] = { &ca, lo ? &clo : &chi, &chi };
      return aten_mapn (call, 1 + (lo != NULL) + (hi != NULL), ts, dt, NULL,
                        lo && hi ? i_clamp_both : lo ? i_clamp_lo : i_clamp_hi, NULL, error);
    }
  /* An absent bound's operand is self again (read, unused). */
  const RtTensor *ts[3] = { &ca, lo ? &clo : &ca, hi ? &chi : &ca };
  double p[2] = { lo != NULL, hi != NULL };
  return aten_mapn (call, 3, ts, dt, f_clamp_t, NULL, p, error);
}

static gboolean
clamp (RtCall *call, guint lo_arg, guint hi_arg, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  const RtTensor *lo = lo_arg ? aten_arg (call, lo_arg) : NULL, *hi = hi_arg ? aten_arg (call, hi_arg) : NULL;
  if (lo == NULL && hi == NULL)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "clamp needs a min or a max");
      return FALSE;
    }
  /* A bound with dimensions is the Tensor overload (a 0-d one computes
   * the same as a Scalar, but for a NaN bound, which the scalar form
   * ignores: torch's scalar bounds are what a trace's 0-d values are). */
  if ((lo && lo->rank > 0) || (hi && hi->rank > 0))
    return clamp_tensors (call, a, lo, hi, error);
  GraphDType dt = a->dtype;
  if (!graph_dtype_is_floating (dt) && ((lo && graph_dtype_is_floating (lo->dtype))
                                        || (hi && graph_dtype_is_floating (hi->dtype))))
    dt = GRAPH_DTYPE_FLOAT;
  double p[2] = { lo ? rt_get_f64 (lo, 0) : NAN, hi ? rt_get_f64 (hi, 0) : NAN };
  RtTensor ca;
  if (!aten_as_dtype (call, a, dt, 1, &ca, error))
    return FALSE;
  if (!graph_dtype_is_floating (dt))
    {
      /* Integer bounds: exact in int64 through Max/Min of the ONNX loops
       * would need tensors; the bounds fit a double exactly when small. */
      if ((lo && fabs (p[0]) > 9007199254740992.0) || (hi && fabs (p[1]) > 9007199254740992.0))
        {
          rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "integer bounds beyond 2^53");
          return FALSE;
        }
    }
  const RtTensor *ts[1] = { &ca };
  return aten_mapn (call, 1, ts, dt, f_clamp, NULL, p, error);
}

static gboolean a_clamp (RtCall *c, GError **e) { return clamp (c, 1, 2, e); }
static gboolean a_clamp_min (RtCall *c, GError **e) { return clamp (c, 1, 0, e); }
static gboolean a_clamp_max (RtCall *c, GError **e) { return clamp (c, 0, 1, e); }

/* lerp(self, end, weight): torch's two-sided formula. */
static double
f_lerp (const double *x, const double *p)
{
  (void) p;
  double w = x[2], d = x[1] - x[0];
  return fabs (w) < 0.5 ? x[0] + w * d : x[1] - d * (1 - w);
}

static gboolean
a_lerp (RtCall *call, GError **error)
{
  if (!need (call, 3, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  if (!graph_dtype_is_floating (a->dtype))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "lerp needs floating-point tensors");
      return FALSE;
    }
  const RtTensor *ts[3] = { a, aten_arg (call, 1), aten_arg (call, 2) };
  return aten_mapn (call, 3, ts, a->dtype, f_lerp, NULL, NULL, error);
}

/* addcmul(self, tensor1, tensor2, value) = self + value * tensor1 * tensor2 */
static double f_addcmul (const double *x, const double *p) { return x[0] + p[0] * x[1] * x[2]; }

static gboolean
a_addcmul (RtCall *call, GError **error)
{
  if (!need (call, 3, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  if (!graph_dtype_is_floating (a->dtype))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "addcmul needs floating-point tensors");
      return FALSE;
    }
  double value = aten_f (call, 3, 1);
  const RtTensor *ts[3] = { a, aten_arg (call, 1), aten_arg (call, 2) };
  return aten_mapn (call, 3, ts, a->dtype, f_addcmul, NULL, &value, error);
}

/* ---- floating-point classes -------------------------------------------------- */

static double f_isnan (double x, const double *p) { (void) p; return isnan (x); }
static double f_isinf (double x, const double *p) { (void) p; return isinf (x); }
static double f_isfinite (double x, const double *p) { (void) p; return isfinite (x); }
static gint64 i_false (gint64 x) { (void) x; return 0; }
static gint64 i_true (gint64 x) { (void) x; return 1; }

static gboolean
classify (RtCall *call, AtenF1 f, AtenI1 fi, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  /* Integers are never NaN or infinite. */
  RtTensor *o = NULL;
  if (!graph_dtype_is_floating (a->dtype))
    {
      o = rt_call_output (call, 0, GRAPH_DTYPE_BOOL, a->rank, a->dims, error);
      if (o == NULL)
        return FALSE;
      memset (o->data, (int) fi (0), (gsize) o->numel);
      return TRUE;
    }
  return aten_map1 (call, a, GRAPH_DTYPE_BOOL, f, NULL, NULL, error);
}

static gboolean a_isnan (RtCall *c, GError **e) { return classify (c, f_isnan, i_false, e); }
static gboolean a_isinf (RtCall *c, GError **e) { return classify (c, f_isinf, i_false, e); }
static gboolean a_isfinite (RtCall *c, GError **e) { return classify (c, f_isfinite, i_true, e); }

/* nan_to_num(self, nan?, posinf?, neginf?): defaults 0 and the type's
 * largest and lowest finite values. */
static double
f_nan_to_num (double x, const double *p)
{
  return isnan (x) ? p[0] : x == INFINITY ? p[1] : x == -INFINITY ? p[2] : x;
}

static gboolean
a_nan_to_num (RtCall *call, GError **error)
{
  if (!need (call, 1, error))
    return FALSE;
  const RtTensor *a = aten_arg (call, 0);
  if (!graph_dtype_is_floating (a->dtype))
    return aten_map1 (call, a, a->dtype, NULL, i_same, NULL, error);
  double big = a->dtype == GRAPH_DTYPE_DOUBLE ? G_MAXDOUBLE
             : a->dtype == GRAPH_DTYPE_FLOAT16 ? 65504.0 : (double) G_MAXFLOAT;
  double p[3] = { aten_f (call, 1, 0), aten_f (call, 2, big), aten_f (call, 3, -big) };
  return aten_map1 (call, a, a->dtype, f_nan_to_num, NULL, p, error);
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("abs", 1, 1, a_unary_onnx), RT_ATEN_ROW ("abs_", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("sign", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("ceil", 1, 1, a_unary_onnx), RT_ATEN_ROW ("floor", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("round", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("cos", 1, 1, a_unary_onnx), RT_ATEN_ROW ("sin", 1, 1, a_unary_onnx), RT_ATEN_ROW ("tan", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("cosh", 1, 1, a_unary_onnx), RT_ATEN_ROW ("sinh", 1, 1, a_unary_onnx), RT_ATEN_ROW ("atan", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("asin", 1, 1, a_unary_onnx), RT_ATEN_ROW ("acos", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("asinh", 1, 1, a_unary_onnx), RT_ATEN_ROW ("atanh", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("erf", 1, 1, a_unary_onnx), RT_ATEN_ROW ("log", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("sqrt", 1, 1, a_unary_onnx), RT_ATEN_ROW ("reciprocal", 1, 1, a_unary_onnx),
  RT_ATEN_ROW ("log2", 1, 1, a_log2), RT_ATEN_ROW ("log10", 1, 1, a_log10), RT_ATEN_ROW ("log1p", 1, 1, a_log1p),
  RT_ATEN_ROW ("rsqrt", 1, 1, a_rsqrt), RT_ATEN_ROW ("expm1", 1, 1, a_expm1), RT_ATEN_ROW ("square", 1, 1, a_square),
  RT_ATEN_ROW ("trunc", 1, 1, a_trunc), RT_ATEN_ROW ("frac", 1, 1, a_frac),
  RT_ATEN_ROW ("atan2", 2, 2, a_atan2), RT_ATEN_ROW ("maximum", 2, 2, a_maximum), RT_ATEN_ROW ("minimum", 2, 2, a_minimum),
  RT_ATEN_ROW ("fmod", 2, 2, a_fmod), RT_ATEN_ROW ("remainder", 2, 2, a_remainder),
  RT_ATEN_ROW ("floor_divide", 2, 2, a_floor_divide), RT_ATEN_ROW ("floordiv", 2, 2, a_floor_divide),
  RT_ATEN_ROW ("true_divide", 2, 2, a_true_divide),
  RT_ATEN_ROW ("rsub", 2, 3, a_rsub),
  RT_ATEN_ROW ("eq", 2, 2, a_eq), RT_ATEN_ROW ("ne", 2, 2, a_ne), RT_ATEN_ROW ("lt", 2, 2, a_lt), RT_ATEN_ROW ("le", 2, 2, a_le),
  RT_ATEN_ROW ("gt", 2, 2, a_gt), RT_ATEN_ROW ("ge", 2, 2, a_ge),
  RT_ATEN_ROW ("logical_and", 2, 2, a_logical_and), RT_ATEN_ROW ("logical_or", 2, 2, a_logical_or),
  RT_ATEN_ROW ("logical_xor", 2, 2, a_logical_xor), RT_ATEN_ROW ("logical_not", 1, 1, a_logical_not),
  RT_ATEN_ROW ("bitwise_and", 2, 2, a_bitwise_and), RT_ATEN_ROW ("bitwise_or", 2, 2, a_bitwise_or),
  RT_ATEN_ROW ("bitwise_xor", 2, 2, a_bitwise_xor), RT_ATEN_ROW ("bitwise_not", 1, 1, a_bitwise_not),
  RT_ATEN_ROW ("__and__", 2, 2, a_bitwise_and), RT_ATEN_ROW ("__or__", 2, 2, a_bitwise_or),
  RT_ATEN_ROW ("__lshift__", 2, 2, a_lshift), RT_ATEN_ROW ("__rshift__", 2, 2, a_rshift),
  RT_ATEN_ROW ("bitwise_left_shift", 2, 2, a_lshift), RT_ATEN_ROW ("bitwise_right_shift", 2, 2, a_rshift),
  RT_ATEN_ROW ("__xor__", 2, 2, a_bitwise_xor),
  { RT_ATEN ("where"), RT_IN (1, 3), RT_OUT (1, RT_MAX_RANK), .run = a_where },
  RT_ATEN_ROW ("masked_fill", 3, 3, a_masked_fill),
  RT_ATEN_ROW ("masked_fill_", 3, 3, a_masked_fill),
  RT_ATEN_ROW ("clamp", 1, 3, a_clamp), RT_ATEN_ROW ("clip", 1, 3, a_clamp), RT_ATEN_ROW ("clamp_", 1, 3, a_clamp),
  RT_ATEN_ROW ("clamp_min", 2, 2, a_clamp_min), RT_ATEN_ROW ("clamp_max", 2, 2, a_clamp_max),
  RT_ATEN_ROW ("lerp", 3, 3, a_lerp), RT_ATEN_ROW ("addcmul", 3, 4, a_addcmul),
  RT_ATEN_ROW ("isnan", 1, 1, a_isnan), RT_ATEN_ROW ("isinf", 1, 1, a_isinf), RT_ATEN_ROW ("isfinite", 1, 1, a_isfinite),
  RT_ATEN_ROW ("nan_to_num", 1, 4, a_nan_to_num),
};

RT_KERNEL_TABLE (rt_kernels_aten_math, defs);
