/* Quantized models: torch 1.13's quantized symbolics (symbolic_opset10.py,
 * symbolic_opset13.py, symbolic_helper.py's dequantize_helper,
 * quantize_helper, requantize_bias_helper and quantized_args), node for node.
 *
 * Note [Quantized values]
 * torch.onnx carries a quantized tensor between symbolics as a tuple
 * (tensor, scale, zero_point[, axis]).  Here the source value is mapped to
 * the tensor (an integer QuantizeLinear output) and the rest is recorded in
 * the context (sym_quantized_record).  Every use dequantizes anew, as
 * torch's does: Cast(value) → DequantizeLinear(value, Cast(scale, FLOAT),
 * Cast(zero_point)); an op's float result is quantized again with
 * QuantizeLinear.  The symbolics see a quantized source value as Float
 * (sym_dtype), its dequantized value.
 *
 * Packed weights: a quantized::conv2d or quantized::linear reads its
 * weights from a prim::GetAttr of a __torch__.torch.classes.quantized
 * packed-parameters object; torch.onnx's unpack pass reads that object, and
 * tools/torch2trace.py stores it unpacked under the chain's path P as P.weight
 * (+ :scale, :zero_point, :axis), P.bias, P.stride ... (Note [Quantized
 * tensors in safetensors], python/symonnx/_trace.py). */
#include "symbolic/opset-tables.h"
#include "ir/qnnp-add.h"
#include <math.h>
#include <string.h>

#define G (sym_graph (ctx))

static GraphType *
float_type_of (GraphValue *src)
{
  GraphType *t = graph_value_type (src);
  if (t == NULL || !graph_type_is_tensor (t))
    return graph_type_new_tensor (GRAPH_DTYPE_FLOAT, -1, NULL);
  int rank = graph_type_rank (t);
  GraphDim dims[TENSOR_MAX_RANK];
  for (int i = 0; i < rank && i < TENSOR_MAX_RANK; i++)
    dims[i] = *graph_type_dim (t, (guint) i);
  return graph_type_new_tensor (GRAPH_DTYPE_FLOAT, rank, rank > 0 ? dims : NULL);
}

gboolean
sym_has_quantized_input (SymContext *ctx, GraphNode *n)
{
  (void) ctx;
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *v = graph_node_input (n, i);
      if (v && graph_type_is_quantized (graph_value_type (v)))
        return TRUE;
      GraphNode *p = v ? graph_value_node (v) : NULL;   /* a list of quantized tensors */
      for (guint k = 0; p && graph_node_is (p, "prim::ListConstruct") && k < graph_node_n_inputs (p); k++)
        if (graph_type_is_quantized (graph_value_type (graph_node_input (p, k))))
          return TRUE;
    }
  return FALSE;
}

static const SymQuantized *
quantized_arg (SymContext *ctx, GraphNode *n, GraphValue *src, GError **error)
{
  const SymQuantized *q = sym_quantized_lookup (ctx, src);
  if (q == NULL)
    g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS,
                 "%s: an argument is not a quantized tensor the export knows (its producer "
                 "is not a quantized op symonnx translated)", graph_node_kind (n));
  return q;
}

/* torch's dequantize_helper: the float value; the Cast scale in *scale. */
static GraphValue *
dequantize (SymContext *ctx, const SymQuantized *q, GraphValue **scale, GError **error)
{
  GraphDType qdt = sym_dtype (q->value);
  if (q->axis >= 0 && sym_opset (ctx) < 13)
    {
      /* torch 1.13: also refuses ("Opset < 13 does not support per-channel quantization") */
      g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                   "per-channel quantization (DequantizeLinear's axis) needs opset 13 or later");
      return NULL;
    }
  GraphValue *value = sym_cast (ctx, q->value, qdt);
  GraphValue *s = sym_cast (ctx, q->scale, GRAPH_DTYPE_FLOAT);
  GraphValue *zp = sym_cast (ctx, q->zero_point, qdt);
  GraphValue *out = q->axis >= 0
    ? graph_op (G, "DequantizeLinear", value, s, zp, "axis_i", q->axis, NULL)
    : graph_op (G, "DequantizeLinear", value, s, zp, NULL);
  if (out && graph_value_type (value))
    {
      g_autoptr (GraphType) t = float_type_of (value);
      graph_value_set_type (out, t);
    }
  if (scale)
    *scale = s;
  return out;
}

/* The scale (float) and zero point of n's quantized result, cast as torch's
 * quantize_helper casts them (n NULL: the zero point is of the result's
 * type already unless it is neither uint8 nor int8). */
static void
result_params (SymContext *ctx, GraphNode *n, GraphValue **scale, GraphValue **zero_point)
{
  if (sym_dtype (*scale) != GRAPH_DTYPE_FLOAT)
    *scale = sym_cast (ctx, *scale, GRAPH_DTYPE_FLOAT);
  GraphType *rt = n && graph_node_n_outputs (n) ? graph_value_type (graph_node_output (n, 0)) : NULL;
  GraphDType want = graph_type_is_quantized (rt) ? graph_type_dtype (rt) : GRAPH_DTYPE_UINT8;
  if (want != GRAPH_DTYPE_INT8)
    want = GRAPH_DTYPE_UINT8;
  GraphDType zdt = sym_dtype (*zero_point);
  if (n ? zdt != want : zdt != GRAPH_DTYPE_UINT8 && zdt != GRAPH_DTYPE_INT8)
    *zero_point = sym_cast (ctx, *zero_point, want);
}

/* torch's quantize_helper (per tensor): QuantizeLinear of x, the result of
 * n (NULL: zero_point is of the result's type already); the result's
 * parameters in *q.  The zero point is cast to the integer type of n's
 * quantized result in the trace: torch casts any zero point that is not
 * uint8 or int8 to uint8, which turns a qint8 result (quantized::cat of
 * qint8 tensors, its zero point an int argument) into uint8 numbers. */
static void
quantize (SymContext *ctx, GraphNode *n, GraphValue *x, GraphValue *scale, GraphValue *zero_point,
          SymQuantized *q)
{
  result_params (ctx, n, &scale, &zero_point);
  q->value = graph_op (G, "QuantizeLinear", x, scale, zero_point, NULL);
  q->scale = scale;
  q->zero_point = zero_point;
  q->axis = -1;
}

/* Output 0 of n is q->value, recorded as quantized. */
static gboolean
finish (SymContext *ctx, GraphNode *n, const SymQuantized *q, GraphValue **out)
{
  out[0] = q->value;
  sym_quantized_record (ctx, graph_node_output (n, 0), q);
  return TRUE;
}

/* The op's output scale and zero point: inputs i and i + 1 of n. */
static gboolean
op_params (SymContext *ctx, GraphNode *n, guint i, GraphValue **scale, GraphValue **zp,
           GError **error)
{
  *scale = sym_value (ctx, graph_node_input (n, i), error);
  if (*scale == NULL)
    return FALSE;
  *zp = sym_value (ctx, graph_node_input (n, i + 1), error);
  return *zp != NULL;
}

/* ------------------------------------------------------------------------ */
/* quantize_per_tensor, dequantize                                           */

/* aten::quantize_per_tensor(self, float scale, int zero_point, ScalarType dtype) */
static gboolean
sym_quantize_per_tensor (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *scale, *zp;
  gint64 code;
  if (!sym_parse_args (ctx, n, "vvvi", &self, &scale, &zp, &code, error))
    return FALSE;
  /* torch's ScalarType codes 12 QInt8, 13 QUInt8 (14 QInt32 has no ONNX QuantizeLinear) */
  if (code != 12 && code != 13)
    /* torch 1.13: writes QuantizeLinear with an int32 zero point for qint32, which ONNX's schema
     * refuses; refused here because that model is ill-typed */
    return sym_unimplemented (ctx, n, error, "quantize_per_tensor to a type other than quint8 "
                              "or qint8 (ONNX's QuantizeLinear writes uint8 or int8)");
  zp = sym_cast (ctx, zp, code == 13 ? GRAPH_DTYPE_UINT8 : GRAPH_DTYPE_INT8);
  scale = sym_cast (ctx, scale, GRAPH_DTYPE_FLOAT);
  SymQuantized q;
  quantize (ctx, NULL, self, scale, zp, &q);
  return finish (ctx, n, &q, out);
}

/* aten::dequantize(self) */
static gboolean
sym_dequantize (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const SymQuantized *q = quantized_arg (ctx, n, graph_node_input (n, 0), error);
  if (q == NULL)
    return FALSE;
  out[0] = dequantize (ctx, q, NULL, error);
  return out[0] != NULL;
}

/* ------------------------------------------------------------------------ */
/* Packed weights                                                            */

static Tensor *
packed_tensor (SymContext *ctx, GraphNode *n, const char *path, const char *what, GError **error)
{
  g_autofree char *key = g_strconcat (path, what, NULL);
  Tensor *t = sym_weight_tensor (ctx, key);
  if (t == NULL && error)
    g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                 "%s: the packed parameters '%s' are not in the weights (no '%s': trace the "
                 "model with tools/torch2trace.py, which stores them unpacked)",
                 graph_node_kind (n), path, key);
  return t;
}

/* P.weight as torch's unpack pass gives it: the integer weight, its scale
 * and zero point (and axis), as a quantized value. */
static gboolean
packed_weight (SymContext *ctx, GraphNode *n, const char *path, SymQuantized *q, GError **error)
{
  g_autofree char *wkey = g_strconcat (path, ".weight", NULL);
  Tensor *scale = packed_tensor (ctx, n, path, ".weight:scale", error);
  Tensor *zp = scale ? packed_tensor (ctx, n, path, ".weight:zero_point", error) : NULL;
  if (zp == NULL)
    return FALSE;
  Tensor *axis = packed_tensor (ctx, n, path, ".weight:axis", NULL);
  q->axis = -1;
  if (axis && (tensor_numel (axis) != 1 || (q->axis = graph_double_to_int64 (tensor_get_double (axis, 0))) < 0))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s: '%s:axis' is not one axis",
                   graph_node_kind (n), wkey);
      return FALSE;
    }
  q->value = sym_weight_initializer (ctx, wkey, error);
  if (q->value == NULL)
    return FALSE;
  GraphDType wdt = sym_dtype (q->value);
  if (wdt != GRAPH_DTYPE_INT8 && wdt != GRAPH_DTYPE_UINT8)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s: '%s' is not int8 or uint8",
                   graph_node_kind (n), wkey);
      return FALSE;
    }
  q->scale = sym_constant (ctx, scale);
  q->zero_point = sym_constant (ctx, zp);
  return TRUE;
}

/* torch's requantize_bias_helper then dequantize_helper: the bias as
 * DequantizeLinear(Cast(Div(bias, Mul(weight_scale, input_scale)), INT32), ...). */
static GraphValue *
requantized_bias (SymContext *ctx, GraphValue *bias, GraphValue *input_scale,
                  GraphValue *weight_scale, gint64 axis, GError **error)
{
  GraphValue *bias_scale = graph_op (G, "Mul", weight_scale, input_scale, NULL);
  GraphValue *shape = graph_op (G, "Shape", bias_scale, NULL);
  g_autoptr (Tensor) zero = tensor_new_int64_vector (1, (const gint64[]) { 0 });
  g_autoptr (Tensor) zero32 = tensor_cast (zero, GRAPH_DTYPE_INT32, NULL);
  GraphValue *bias_zp = graph_op (G, "ConstantOfShape", shape, "value_t", zero32, NULL);
  sym_set_type (bias_zp, GRAPH_DTYPE_INT32, -1, NULL);
  GraphValue *qb = sym_cast (ctx, graph_op (G, "Div", bias, bias_scale, NULL), GRAPH_DTYPE_INT32);
  SymQuantized q = { qb, bias_scale, bias_zp, axis };
  return dequantize (ctx, &q, NULL, error);
}

/* ------------------------------------------------------------------------ */
/* quantized:: ops                                                           */

/* A scratch constant list of ints for sym_call_op. */
static GraphValue *
scratch_ints (SymContext *ctx, const Tensor *t)
{
  gint64 v[TENSOR_MAX_RANK] = { 0 };
  gint64 k = MIN (tensor_numel (t), TENSOR_MAX_RANK);
  for (gint64 i = 0; i < k; i++)
    v[i] = graph_double_to_int64 (tensor_get_double (t, i));   /* total: a weights file's values */
  return graph_op (sym_context_scratch (ctx), "prim::Constant", "value_is", (int) k, v, NULL);
}

/* quantized::conv2d(qx, packed, scale, zero_point) (and _relu), quantized::linear(qx, packed,
 * scale, zero_point): after torch's unpack pass, conv2d(x, w, b, stride, padding, dilation,
 * groups) or linear(x, w, b) on the dequantized values, then QuantizeLinear.  Beyond torch
 * (no symbolic in 1.13), the same for quantized::conv1d (and _relu), conv_transpose1d and
 * conv_transpose2d (per-tensor weights). */
static gboolean
sym_quantized_weighted (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);   /* "conv2d", "conv1d_relu", "conv_transpose2d", "linear" ... */
  gboolean conv = g_str_has_prefix (op, "conv");
  if (graph_node_n_inputs (n) != 4)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS, "%s takes 4 arguments, the trace gives %u",
                   graph_node_kind (n), graph_node_n_inputs (n));
      return FALSE;
    }
  GraphValue *xs = graph_node_input (n, 0);
  const SymQuantized *qx = quantized_arg (ctx, n, xs, error);
  g_autofree char *path = sym_getattr_path (graph_node_input (n, 1));
  if (qx == NULL)
    return FALSE;
  if (path == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS, "%s: its packed parameters are not a "
                   "prim::GetAttr chain of the module", graph_node_kind (n));
      return FALSE;
    }
  SymQuantized qw;
  GraphValue *x_scale, *w_scale, *op_scale, *op_zp;
  if (!packed_weight (ctx, n, path, &qw, error) || !op_params (ctx, n, 2, &op_scale, &op_zp, error))
    return FALSE;
  GraphValue *x = dequantize (ctx, qx, &x_scale, error);
  GraphValue *w = x ? dequantize (ctx, &qw, &w_scale, error) : NULL;
  if (w == NULL)
    return FALSE;
  g_autofree char *bkey = g_strconcat (path, ".bias", NULL);
  GraphValue *b = NULL;
  if (sym_weight_tensor (ctx, bkey))
    {
      GraphValue *fb = sym_weight_initializer (ctx, bkey, error);
      b = fb ? requantized_bias (ctx, fb, x_scale, w_scale, qw.axis, error) : NULL;
      if (b == NULL)
        return FALSE;
    }
  Graph *scratch = sym_context_scratch (ctx);
  g_autoptr (GraphType) xt = float_type_of (xs);
  g_autoptr (GraphType) wt = float_type_of (qw.value);
  g_autoptr (GraphType) bt = b ? float_type_of (b) : NULL;
  GraphValue *bias = b ? b : graph_op (scratch, "prim::Constant", NULL);
  GraphValue *y[2] = { NULL, NULL };
  if (conv)
    {
      static const char *const settings[] = { ".stride", ".padding", ".dilation", ".groups",
                                              ".transpose", ".output_padding" };
      Tensor *st[G_N_ELEMENTS (settings)];
      gboolean transposed = g_str_has_prefix (op, "conv_transpose"), one_d = strstr (op, "1d") != NULL;
      for (guint i = 0; i < G_N_ELEMENTS (settings) - !transposed; i++)
        if ((st[i] = packed_tensor (ctx, n, path, settings[i], error)) == NULL)
          return FALSE;
      if (tensor_numel (st[4]) != 1 || (tensor_get_double (st[4], 0) != 0) != transposed
          || tensor_numel (st[3]) != 1)
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s: '%s.transpose' or '%s.groups' is not "
                       "what the op says", graph_node_kind (n), path, path);
          return FALSE;
        }
      if (transposed && qw.axis >= 0)
        /* torch 1.13: also refuses (no symbolic for quantized::conv_transpose*) */
        return sym_unimplemented (ctx, n, error, "a transposed quantized convolution with per-channel "
                                  "weights");
      /* The 1-d forms run as 2-d ones on (N, C, 1, L), as PyTorch's quantized
       * kernels do: the packed weight is (out, in, 1, k) and the settings have
       * two entries. */
      g_autoptr (GraphType) yt = float_type_of (graph_node_output (n, 0));
      if (one_d)
        {
          gint64 two = 2;
          GraphType *t3[2] = { xt, yt };
          for (guint k = 0; k < 2; k++)
            if (graph_type_rank (t3[k]) != 3)
              {
                g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS, "%s: a 1-d convolution of a rank-%d "
                             "tensor", graph_node_kind (n), graph_type_rank (t3[k]));
                return FALSE;
              }
          GraphDim d4[2][4];
          for (guint k = 0; k < 2; k++)
            for (guint i = 0; i < 4; i++)
              d4[k][i] = i < 2 ? *graph_type_dim (t3[k], i)
                         : i == 2 ? (GraphDim) { .kind = GRAPH_DIM_STATIC, .value = 1 }
                                  : *graph_type_dim (t3[k], 2);
          g_clear_pointer (&xt, graph_type_unref);
          g_clear_pointer (&yt, graph_type_unref);
          xt = graph_type_new_tensor (GRAPH_DTYPE_FLOAT, 4, d4[0]);
          yt = graph_type_new_tensor (GRAPH_DTYPE_FLOAT, 4, d4[1]);
          x = sym_unsqueeze (ctx, x, 1, &two);
        }
      GraphValue *groups = graph_op (scratch, "prim::Constant", "value_i", graph_double_to_int64 (tensor_get_double (st[3], 0)),
                                     NULL);
      GraphValue *args[8] = { x, w, bias, scratch_ints (ctx, st[0]), scratch_ints (ctx, st[1]) };
      GraphType *types[8] = { xt, wt, bt };
      if (transposed)
        {
          /* conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation) */
          args[5] = scratch_ints (ctx, st[5]);
          args[6] = groups;
          args[7] = scratch_ints (ctx, st[2]);
        }
      else
        {
          /* conv2d(input, weight, bias, stride, padding, dilation, groups) */
          args[5] = scratch_ints (ctx, st[2]);
          args[6] = groups;
        }
      if (!sym_call_op (ctx, transposed ? "aten::conv_transpose2d" : "aten::conv2d", transposed ? 8 : 7, args,
                        types, yt, y, error))
        return FALSE;
      if (g_str_has_suffix (op, "_relu"))
        y[0] = graph_op (G, "Relu", y[0], NULL);
      if (one_d)
        {
          gint64 two = 2;
          y[0] = sym_squeeze (ctx, y[0], 1, &two);
        }
    }
  else
    {
      GraphValue *args[3] = { x, w, bias };
      GraphType *types[3] = { xt, wt, bt };
      g_autoptr (GraphType) yt = float_type_of (graph_node_output (n, 0));
      if (!sym_call_op (ctx, "aten::linear", 3, args, types, yt, y, error))
        return FALSE;
    }
  SymQuantized q;
  quantize (ctx, n, y[0], op_scale, op_zp, &q);
  return finish (ctx, n, &q, out);
}

/* A scale or zero point of the exported graph, when it is a constant: a
 * onnx::Constant of one element, through the Casts the quantized
 * symbolics put on it (applied: a Cast to float rounds to float). */
static gboolean
exported_const (GraphValue *v, double *out)
{
  GraphNode *p = v ? graph_value_node (v) : NULL;
  Tensor *t;
  if (p && graph_node_is (p, "onnx::Cast") && graph_node_n_inputs (p) == 1)
    {
      gint64 to;
      double x;
      if (!graph_node_get_i (p, "to", &to) || !exported_const (graph_node_input (p, 0), &x))
        return FALSE;
      if (to == GRAPH_DTYPE_FLOAT)
        x = (float) x;
      else if (to == GRAPH_DTYPE_UINT8 || to == GRAPH_DTYPE_INT64)
        {
          if (x != floor (x) || x < 0 || x > (to == GRAPH_DTYPE_UINT8 ? 255 : 1e15))
            return FALSE;
        }
      else if (to != GRAPH_DTYPE_DOUBLE)
        return FALSE;
      *out = x;
      return TRUE;
    }
  if (p && graph_node_is (p, "onnx::Constant") && graph_node_get_t (p, "value", &t)
      && tensor_numel (t) == 1)
    {
      *out = tensor_get_double (t, 0);
      return TRUE;
    }
  return FALSE;
}

/* Whether a and b are traced with one shape, every dim known. */
static gboolean
same_traced_shape (GraphValue *a, GraphValue *b)
{
  GraphType *ta = graph_value_type (a), *tb = graph_value_type (b);
  gint64 da[TENSOR_MAX_RANK], db[TENSOR_MAX_RANK];
  int rank = ta ? graph_type_rank (ta) : -1;
  return ta && tb && rank <= TENSOR_MAX_RANK && graph_type_rank (tb) == rank
         && graph_type_static_shape (ta, da) && graph_type_static_shape (tb, db)
         && memcmp (da, db, (gsize) rank * sizeof (gint64)) == 0;
}

/* Note [QNNPACK's add in ONNX]: PyTorch's quantized::add and add_relu of
 * quint8 tensors of one shape, with the qnnpack engine, is QNNPACK's
 * fixed-point sum (Note [QNNPACK's add], ir/qnnp-add.c); torch.onnx
 * writes DequantizeLinear → Add → QuantizeLinear, whose float sum rounds
 * half to even where QNNPACK rounds half away from zero, with multipliers
 * of 22 bits: a step off on sums near a half step, and a step in a
 * residual add grows through the convolutions after it (quantized
 * ResNet-50 in ONNX Runtime: 14 of its 1000 outputs 2 steps off PyTorch's).
 * So the add is written as QNNPACK's integers, which ONNX defines exactly:
 *
 *   acc = Cast(a, int64) * a_mult + Cast(b, int64) * b_mult + zero_point_product
 *   q   = Sign(acc) * ((Abs(acc) + 2^(shift-1)) / 2^shift)    (half away from zero)
 *   y   = QuantizeLinear([Relu] (Cast(q, float)), 1, y_zero_point)   (+ zp, saturated)
 *
 * the multipliers and shift made by QNNPACK's rules at export time
 * (tensor_qnnp_add_init).  Taken when every scale and zero point is a
 * constant, both inputs uint8 per tensor with one traced shape (QNNPACK
 * does not broadcast: torch adds other shapes in float), and QNNPACK
 * accepts the ratios; otherwise, and with ExportOptions'
 * float_quantized_add (the fbgemm and x86 engines add in float), torch's
 * form.  With dynamic axes the traced shapes decide: inputs traced with
 * one shape are taken to keep it.  NULL: not taken. */
static GraphValue *
qnnpack_add (SymContext *ctx, GraphNode *n, const SymQuantized *qa, const SymQuantized *qb,
             GraphValue *scale, GraphValue *zp, gboolean relu, GraphValue **y_scale,
             GraphValue **y_zp)
{
  double sa, za, sb, zb, ys;
  gint64 yz;
  GraphType *rt = graph_value_type (graph_node_output (n, 0));
  if (sym_float_quantized_add (ctx) || qa->axis >= 0 || qb->axis >= 0
      || sym_dtype (qa->value) != GRAPH_DTYPE_UINT8 || sym_dtype (qb->value) != GRAPH_DTYPE_UINT8
      || !graph_type_is_quantized (rt) || graph_type_dtype (rt) != GRAPH_DTYPE_UINT8
      || !same_traced_shape (graph_node_input (n, 0), graph_node_input (n, 1))
      || !exported_const (qa->scale, &sa) || !exported_const (qa->zero_point, &za)
      || !exported_const (qb->scale, &sb) || !exported_const (qb->zero_point, &zb)
      || !sym_get_const_double (graph_node_input (n, 2), &ys)
      || !sym_get_const_int (graph_node_input (n, 3), &yz))
    return NULL;
  TensorQnnpAdd p;
  if (!tensor_qnnp_add_init (&p, (float) sa, (gint64) za, (float) sb, (gint64) zb, (float) ys, yz, relu))
    return NULL;
  gint64 dims[TENSOR_MAX_RANK];
  int rank = sym_static_shape (graph_node_input (n, 0), dims) ? sym_rank (graph_node_input (n, 0)) : -1;
  GraphValue *ai = sym_cast (ctx, qa->value, GRAPH_DTYPE_INT64);
  GraphValue *bi = sym_cast (ctx, qb->value, GRAPH_DTYPE_INT64);
  GraphValue *am = sym_const_scalar (ctx, GRAPH_DTYPE_INT64, (double) p.a_mult);
  GraphValue *bm = sym_const_scalar (ctx, GRAPH_DTYPE_INT64, (double) p.b_mult);
  GraphValue *zpp = sym_const_scalar (ctx, GRAPH_DTYPE_INT64, (double) p.zero_point_product);
  GraphValue *half = sym_const_scalar (ctx, GRAPH_DTYPE_INT64, (double) ((gint64) 1 << (p.shift - 1)));
  GraphValue *unit = sym_const_scalar (ctx, GRAPH_DTYPE_INT64, (double) ((gint64) 1 << p.shift));
  GraphValue *v[9];
  v[0] = graph_op (G, "Mul", ai, am, NULL);
  v[1] = graph_op (G, "Mul", bi, bm, NULL);
  v[2] = graph_op (G, "Add", v[0], v[1], NULL);
  v[3] = graph_op (G, "Add", v[2], zpp, NULL);                       /* acc */
  v[4] = graph_op (G, "Abs", v[3], NULL);
  v[5] = graph_op (G, "Add", v[4], half, NULL);
  v[6] = graph_op (G, "Div", v[5], unit, NULL);                      /* the magnitude, rounded */
  v[7] = graph_op (G, "Sign", v[3], NULL);
  v[8] = graph_op (G, "Mul", v[7], v[6], NULL);
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    if (v[i])
      sym_set_type (v[i], GRAPH_DTYPE_INT64, rank, rank >= 0 ? dims : NULL);
  GraphValue *f = sym_cast (ctx, v[8], GRAPH_DTYPE_FLOAT);
  if (relu)
    f = graph_op (G, "Relu", f, NULL);
  if (f)
    sym_set_type (f, GRAPH_DTYPE_FLOAT, rank, rank >= 0 ? dims : NULL);
  *y_scale = scale;
  *y_zp = zp;
  result_params (ctx, n, y_scale, y_zp);   /* the result is quint8: a uint8 zero point */
  return graph_op (G, "QuantizeLinear", f, sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, 1.0), *y_zp, NULL);
}

/* quantized::add/add_relu/mul(qa, qb, scale, zero_point) */
static gboolean
sym_quantized_binary (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);   /* "Add", "AddRelu", "Mul" */
  const SymQuantized *qa = quantized_arg (ctx, n, graph_node_input (n, 0), error);
  const SymQuantized *qb = qa ? quantized_arg (ctx, n, graph_node_input (n, 1), error) : NULL;
  GraphValue *scale, *zp;
  if (qb == NULL || !op_params (ctx, n, 2, &scale, &zp, error))
    return FALSE;
  if (op[0] == 'A')
    {
      SymQuantized q = { .axis = -1 };
      q.value = qnnpack_add (ctx, n, qa, qb, scale, zp, strcmp (op, "AddRelu") == 0, &q.scale,
                             &q.zero_point);
      if (q.value)
        return finish (ctx, n, &q, out);
    }
  GraphValue *a = dequantize (ctx, qa, NULL, error);
  GraphValue *b = a ? dequantize (ctx, qb, NULL, error) : NULL;
  if (b == NULL)
    return FALSE;
  GraphValue *y = graph_op (G, op[0] == 'M' ? "Mul" : "Add", a, b, NULL);
  if (strcmp (op, "AddRelu") == 0)
    y = graph_op (G, "Relu", y, NULL);
  SymQuantized q;
  quantize (ctx, n, y, scale, zp, &q);
  return finish (ctx, n, &q, out);
}

/* quantized::hardswish/sigmoid(qx, scale, zero_point), quantized::leaky_relu(qx,
 * negative_slope, inplace, scale, zero_point): the aten op's symbolic on the
 * dequantized input. */
static gboolean
sym_quantized_unary (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *kind = sym_user_data (ctx);   /* "aten::hardswish" ... */
  guint n_args = strcmp (kind, "aten::leaky_relu") == 0 ? 2 : 1;
  if (graph_node_n_inputs (n) != n_args + 2 + (n_args == 2))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS, "%s: %u arguments", graph_node_kind (n),
                   graph_node_n_inputs (n));
      return FALSE;
    }
  GraphValue *xs = graph_node_input (n, 0), *scale, *zp;
  const SymQuantized *qx = quantized_arg (ctx, n, xs, error);
  if (qx == NULL || !op_params (ctx, n, graph_node_n_inputs (n) - 2, &scale, &zp, error))
    return FALSE;
  GraphValue *x = dequantize (ctx, qx, NULL, error);
  if (x == NULL)
    return FALSE;
  g_autoptr (GraphType) xt = float_type_of (xs);
  GraphValue *args[2] = { x, NULL };
  GraphType *types[2] = { xt, NULL };
  if (n_args == 2)
    {
      double slope;
      if (!sym_get_const_double (graph_node_input (n, 1), &slope))
        /* torch 1.13: also refuses (parse_args 'f': the slope must be a constant) */
        return sym_unimplemented (ctx, n, error, "a computed negative_slope");
      args[1] = graph_op (sym_context_scratch (ctx), "prim::Constant", "value_f", slope, NULL);
    }
  GraphValue *y[2] = { NULL, NULL };
  if (!sym_call_op (ctx, kind, n_args, args, types, xt, y, error))
    return FALSE;
  SymQuantized q;
  quantize (ctx, n, y[0], scale, zp, &q);
  return finish (ctx, n, &q, out);
}

/* A trace argument for sym_call_op: None, an int, a float or an int list
 * that is constant, copied into the scratch graph; else its ONNX value, of
 * the traced type (*type, borrowed). */
static GraphValue *
call_arg (SymContext *ctx, GraphValue *src, GraphType **type, GError **error)
{
  Graph *scratch = sym_context_scratch (ctx);
  GraphType *t = graph_value_type (src);
  GraphTypeKind kind = t ? graph_type_kind (t) : GRAPH_TYPE_TENSOR;
  g_autoptr (GArray) ints = kind == GRAPH_TYPE_LIST ? sym_get_const_ints (src) : NULL;
  gint64 i;
  double d;
  *type = NULL;
  if (sym_is_none (src))
    return graph_op (scratch, "prim::Constant", NULL);
  if (ints)
    return graph_op (scratch, "prim::Constant", "value_is", (int) ints->len, (const gint64 *) ints->data, NULL);
  if ((kind == GRAPH_TYPE_INT || kind == GRAPH_TYPE_BOOL) && sym_get_const_int (src, &i))
    return graph_op (scratch, "prim::Constant", "value_i", i, NULL);
  if (kind == GRAPH_TYPE_FLOAT && sym_get_const_double (src, &d))
    return graph_op (scratch, "prim::Constant", "value_f", d, NULL);
  *type = t;
  return sym_value (ctx, src, error);
}

/* quantized::layer_norm(qx, normalized_shape, weight, bias, eps, scale, zero_point),
 * quantized::group_norm(qx, num_groups, weight, bias, eps, scale, zero_point),
 * quantized::instance_norm(qx, weight, bias, eps, scale, zero_point): as
 * torch's opset-10 symbolics, the aten op's symbolic on the dequantized
 * input (layer_norm / group_norm with cudnn off; instance_norm with the
 * input's statistics, no running ones), then QuantizeLinear. */
static gboolean
sym_quantized_norm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *kind = sym_user_data (ctx);   /* "aten::layer_norm" ... */
  gboolean inst = strcmp (kind, "aten::instance_norm") == 0;
  guint want = inst ? 6 : 7;
  if (graph_node_n_inputs (n) != want)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS, "%s takes %u arguments, the trace gives %u",
                   graph_node_kind (n), want, graph_node_n_inputs (n));
      return FALSE;
    }
  GraphValue *scale, *zp;
  const SymQuantized *qx = quantized_arg (ctx, n, graph_node_input (n, 0), error);
  if (qx == NULL || !op_params (ctx, n, want - 2, &scale, &zp, error))
    return FALSE;
  GraphValue *x = dequantize (ctx, qx, NULL, error);
  if (x == NULL)
    return FALSE;
  Graph *scratch = sym_context_scratch (ctx);
  g_autoptr (GraphType) xt = float_type_of (graph_node_input (n, 0));
  GraphValue *args[9] = { x };
  GraphType *types[9] = { xt };
  guint na = 1;
  /* layer_norm / group_norm: arguments 1-4 as given; instance_norm: weight, bias */
  for (guint i = 1; i <= (inst ? 2u : 4u); i++, na++)
    if ((args[na] = call_arg (ctx, graph_node_input (n, i), &types[na], error)) == NULL)
      return FALSE;
  if (inst)
    {
      /* running_mean, running_var: None; use_input_stats: True; momentum 0; eps */
      args[na++] = graph_op (scratch, "prim::Constant", NULL);
      args[na++] = graph_op (scratch, "prim::Constant", NULL);
      args[na++] = graph_op (scratch, "prim::Constant", "value_i", (gint64) 1, NULL);
      args[na++] = graph_op (scratch, "prim::Constant", "value_f", 0.0, NULL);
      if ((args[na] = call_arg (ctx, graph_node_input (n, 3), &types[na], error)) == NULL)
        return FALSE;
      na++;
    }
  args[na++] = graph_op (scratch, "prim::Constant", "value_i", (gint64) 0, NULL);   /* cudnn */
  g_autoptr (GraphType) yt = float_type_of (graph_node_output (n, 0));
  GraphValue *y[2] = { NULL, NULL };
  if (!sym_call_op (ctx, kind, na, args, types, yt, y, error))
    return FALSE;
  SymQuantized q;
  quantize (ctx, n, y[0], scale, zp, &q);
  return finish (ctx, n, &q, out);
}

/* quantized::cat(Tensor[] qx, int dim, scale, zero_point) */
static gboolean
sym_quantized_cat (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphNode *lc = graph_value_node (graph_node_input (n, 0));
  gint64 dim;
  GraphValue *scale, *zp;
  if (lc == NULL || !graph_node_is (lc, "prim::ListConstruct"))
    /* torch 1.13: also refuses (it unpacks the inputs from a ListConstruct) */
    return sym_unimplemented (ctx, n, error, "a list of tensors that is not a ListConstruct");
  if (!sym_get_const_int (graph_node_input (n, 1), &dim))
    /* torch 1.13: also refuses (parse_args 'i': the dim must be a constant) */
    return sym_unimplemented (ctx, n, error, "a computed dim");
  if (!op_params (ctx, n, 2, &scale, &zp, error))
    return FALSE;
  guint k = graph_node_n_inputs (lc);
  g_autofree GraphValue **parts = g_new0 (GraphValue *, k + 1);
  for (guint i = 0; i < k; i++)
    {
      const SymQuantized *qi = quantized_arg (ctx, n, graph_node_input (lc, i), error);
      if (qi == NULL || (parts[i] = dequantize (ctx, qi, NULL, error)) == NULL)
        return FALSE;
    }
  GraphValue *y = graph_opv (G, "Concat", k, parts, "axis_i", dim, NULL);
  SymQuantized q;
  quantize (ctx, n, y, scale, zp, &q);
  return finish (ctx, n, &q, out);
}

/* ------------------------------------------------------------------------ */
/* aten ops on quantized tensors (torch's quantized_args)                    */

/* Which inputs are dequantized ('q') and, for ops of a fixed output range,
 * the output's scale and zero point (torch's quantized_args(..., scale=, zero_point=)). */
typedef struct
{
  const char *kind;
  const char *args;       /* one char per input: 'q' quantized, '-' not */
  double      scale;      /* 0: the first quantized input's */
  gint64      zero_point;
} QuantArgs;

static const QuantArgs quant_args[] = {
  { "aten::reshape", "q", 0, 0 },          { "aten::reshape_as", "q", 0, 0 },
  { "aten::view", "q", 0, 0 },             { "aten::transpose", "q", 0, 0 },
  { "aten::flatten", "q", 0, 0 },          { "aten::select", "q", 0, 0 },
  { "aten::slice", "q", 0, 0 },            { "aten::expand", "q", 0, 0 },
  { "aten::expand_as", "qq", 0, 0 },       { "aten::numpy_T", "q", 0, 0 },
  { "aten::relu", "q", 0, 0 },             { "aten::relu6", "q", 0, 0 },
  { "aten::leaky_relu", "q", 0, 0 },       { "aten::hardtanh", "q", 0, 0 },
  { "aten::hardswish", "q", 0, 0 },        { "aten::elu", "q", 0, 0 },
  { "aten::selu", "q", 0, 0 },             { "aten::sign", "q", 0, 0 },
  { "aten::hardsigmoid", "q", 1.0 / 256.0, 0 },
  { "aten::sigmoid", "q", 1.0 / 256.0, 0 },
  { "aten::tanh", "q", 2.0 / 256.0, 128 },
  { "aten::max_pool1d", "q", 0, 0 },       { "aten::max_pool2d", "q", 0, 0 },
  { "aten::max_pool3d", "q", 0, 0 },
  { "aten::avg_pool1d", "q", 0, 0 },       { "aten::avg_pool2d", "q", 0, 0 },
  { "aten::avg_pool3d", "q", 0, 0 },
  { "aten::adaptive_avg_pool1d", "q", 0, 0 }, { "aten::adaptive_avg_pool2d", "q", 0, 0 },
  { "aten::adaptive_avg_pool3d", "q", 0, 0 },
  { "aten::upsample_nearest2d", "q", 0, 0 }, { "aten::upsample_bilinear2d", "q", 0, 0 },
  { "aten::maximum", "qq", 0, 0 },         { "aten::minimum", "qq", 0, 0 },
  { "aten::amax", "q", 0, 0 },             { "aten::amin", "q", 0, 0 },
  { "aten::layer_norm", "q", 0, 0 },       { "aten::group_norm", "q", 0, 0 },
  { "aten::mean", "q", 0, 0 },   /* torch's reductions take quantized inputs too */
};

static const QuantArgs *
quant_args_of (const char *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (quant_args); i++)
    if (strcmp (quant_args[i].kind, kind) == 0)
      return &quant_args[i];
  return NULL;
}

gboolean
sym_quantized_refuse (SymContext *ctx, GraphNode *n, GError **error)
{
  (void) ctx;
  g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS,
               "an input is a quantized tensor, and torch 1.13 has no quantized form of %s "
               "(symonnx refuses rather than compute on the integer values)", graph_node_kind (n));
  return FALSE;
}

/* Ops torch 1.13 has no quantized form of (its export fails) that only
 * read the shape, or only move elements: symonnx runs them on the integer
 * tensor, the result sharing the input's scale and zero point — exact, as
 * PyTorch's quantized kernels of these ops keep the parameters. */
static const char *const shape_ops[] = { "aten::size", "aten::dim", "aten::numel" };
static const char *const moving_ops[] = {
  "aten::contiguous", "aten::chunk", "aten::split", "aten::split_with_sizes", "aten::permute",
  "aten::squeeze", "aten::unsqueeze", "aten::clone", "aten::detach",
  /* torch 1.13 exports this one through DequantizeLinear and QuantizeLinear
   * with the same parameters: the same integers */
  "aten::as_strided",
};

static gboolean
in_list (const char *kind, const char *const *list, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (strcmp (list[i], kind) == 0)
      return TRUE;
  return FALSE;
}

/* A moving op on input 0's integer tensor; its outputs (or the list it
 * returns, for ListUnpack) recorded with input 0's parameters. */
static gboolean
moving_call (SymContext *ctx, GraphNode *n, SymFn fn, GraphValue **out, GError **error)
{
  for (guint i = 1; i < graph_node_n_inputs (n); i++)
    if (graph_type_is_quantized (graph_value_type (graph_node_input (n, i))))
      return sym_quantized_refuse (ctx, n, error);
  const SymQuantized *q = quantized_arg (ctx, n, graph_node_input (n, 0), error);
  if (q == NULL || !fn (ctx, n, out, error))
    return FALSE;
  GraphDType idt = sym_dtype (q->value);
  for (guint i = 0; i < graph_node_n_outputs (n); i++)
    {
      SymQuantized e = *q;
      e.value = out[i];
      if (out[i] && sym_dtype (out[i]) != GRAPH_DTYPE_UNDEFINED && sym_dtype (out[i]) != idt)
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s on a quantized tensor gave "
                       "another element type than its integer input", graph_node_kind (n));
          return FALSE;
        }
      sym_quantized_record (ctx, graph_node_output (n, i), &e);
    }
  return TRUE;
}

gboolean
sym_quantized_call (SymContext *ctx, GraphNode *n, SymFn fn, GraphValue **out, GError **error)
{
  const char *kind = graph_node_kind (n);
  if (graph_node_is (n, "aten::dequantize") || in_list (kind, shape_ops, G_N_ELEMENTS (shape_ops)))
    return fn (ctx, n, out, error);   /* reads its quantized input itself, or only its shape */
  if (in_list (kind, moving_ops, G_N_ELEMENTS (moving_ops)))
    return moving_call (ctx, n, fn, out, error);
  const QuantArgs *qa = quant_args_of (graph_node_kind (n));
  if (qa == NULL || graph_node_n_outputs (n) != 1)
    return sym_quantized_refuse (ctx, n, error);
  guint na = (guint) strlen (qa->args);
  GraphValue *saved[4] = { NULL };
  const SymQuantized *first = NULL;
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *src = graph_node_input (n, i);
      if (!graph_type_is_quantized (graph_value_type (src)))
        continue;
      if (i >= na || qa->args[i] != 'q')
        return sym_quantized_refuse (ctx, n, error);
    }
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < na && i < graph_node_n_inputs (n); i++)
    {
      GraphValue *src = graph_node_input (n, i);
      const SymQuantized *q = sym_quantized_lookup (ctx, src);
      if (q == NULL)
        continue;
      GraphValue *dq = dequantize (ctx, q, NULL, error);
      if (dq == NULL)
        ok = FALSE;
      else
        {
          saved[i] = sym_context_mapped (ctx, src);
          sym_map_value (ctx, src, dq);
          first = first ? first : q;
        }
    }
  if (ok && first == NULL)
    ok = quantized_arg (ctx, n, graph_node_input (n, 0), error) != NULL;
  SymQuantized fq = first ? *first : (SymQuantized) { 0 };
  if (ok)
    ok = fn (ctx, n, out, error);
  for (guint i = 0; i < na && i < graph_node_n_inputs (n); i++)
    if (saved[i])
      sym_map_value (ctx, graph_node_input (n, i), saved[i]);
  if (!ok)
    return FALSE;
  GraphValue *scale = fq.scale, *zp = fq.zero_point;
  if (qa->scale > 0)
    {
      scale = sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, qa->scale);
      zp = sym_const_scalar (ctx, GRAPH_DTYPE_INT64, (double) qa->zero_point);
    }
  SymQuantized q;
  quantize (ctx, n, out[0], scale, zp, &q);
  return finish (ctx, n, &q, out);
}

/* ------------------------------------------------------------------------ */
/* Fake quantization (quantization-aware training)                           */

/* aten::fake_quantize_per_tensor_affine(self, scale, zero_point, quant_min, quant_max)
 * and aten::fake_quantize_per_channel_affine(self, scale, zero_point, axis, quant_min,
 * quant_max) (from 13): QuantizeLinear → DequantizeLinear, a Clip at 127
 * for the (0, 127) range (from 13). */
static gboolean
sym_fake_quantize (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gboolean per_channel = graph_node_is (n, "aten::fake_quantize_per_channel_affine");
  gboolean at13 = sym_opset (ctx) >= 13;
  GraphValue *self, *scale, *zp;
  gint64 axis = -1, qmin, qmax;
  if (per_channel ? !sym_parse_args (ctx, n, "v,v,v,d,i,i", &self, &scale, &zp, &axis, &qmin, &qmax, error)
                  : !sym_parse_args (ctx, n, "vvvii", &self, &scale, &zp, &qmin, &qmax, error))
    return FALSE;
  gboolean r127 = qmin == 0 && qmax == 127;
  if (r127 && !at13)
    /* torch 1.13: also refuses (_onnx_opset_unsupported_detailed "Quantize range (0, 127)" before
     * opset 13) */
    return sym_unimplemented (ctx, n, error, "the quantize range (0, 127) before opset 13 (its "
                              "Clip of a uint8 needs opset 13)");
  if (!r127 && !(qmin == 0 && qmax == 255) && !(qmin == -128 && qmax == 127))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_ARGS, "for (quant_min, quant_max), ONNX allows only "
                   "(0, 127), (0, 255) and (-128, 127); got (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ")",
                   qmin, qmax);
      return FALSE;
    }
  if (!at13)
    {
      /* torch's opset-10 form: the scale a float constant */
      double sv;
      if (!sym_get_const_double (graph_node_input (n, 1), &sv))
        /* torch 1.13: also refuses (_onnx_opset_unsupported_detailed "Non-constant scale" before
         * opset 13) */
        return sym_unimplemented (ctx, n, error, "a computed scale before opset 13");
      scale = sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, sv);
    }
  else if (!per_channel && sym_dtype (scale) != GRAPH_DTYPE_FLOAT)
    scale = sym_cast (ctx, scale, GRAPH_DTYPE_FLOAT);
  zp = sym_cast (ctx, zp, qmin == 0 ? GRAPH_DTYPE_UINT8 : GRAPH_DTYPE_INT8);
  GraphValue *q = per_channel
    ? graph_op (G, "QuantizeLinear", self, scale, zp, "axis_i", axis, NULL)
    : graph_op (G, "QuantizeLinear", self, scale, zp, NULL);
  if (r127)
    {
      g_autoptr (Tensor) hi = tensor_new_scalar_int64 (GRAPH_DTYPE_UINT8, 127);
      q = graph_op (G, "Clip", q, GRAPH_ABSENT, sym_constant (ctx, hi), NULL);
    }
  out[0] = per_channel ? graph_op (G, "DequantizeLinear", q, scale, zp, "axis_i", axis, NULL)
                       : graph_op (G, "DequantizeLinear", q, scale, zp, NULL);
  return out[0] != NULL;
}

static const SymEntry entries13[] = {
  SYM_FN ("aten::fake_quantize_per_tensor_affine", sym_fake_quantize),
  SYM_FN ("aten::fake_quantize_per_channel_affine", sym_fake_quantize),
};
const SymTable sym_opset13_quantized = SYM_TABLE (13, entries13);

static const SymEntry entries[] = {
  SYM_FN ("aten::fake_quantize_per_tensor_affine", sym_fake_quantize),
  SYM_FN ("aten::quantize_per_tensor", sym_quantize_per_tensor),
  SYM_FN ("aten::dequantize", sym_dequantize),
  SYM_DATA ("quantized::conv2d", sym_quantized_weighted, "conv2d"),
  SYM_DATA ("quantized::conv2d_relu", sym_quantized_weighted, "conv2d_relu"),
  SYM_DATA ("quantized::conv1d", sym_quantized_weighted, "conv1d"),
  SYM_DATA ("quantized::conv1d_relu", sym_quantized_weighted, "conv1d_relu"),
  SYM_DATA ("quantized::conv_transpose1d", sym_quantized_weighted, "conv_transpose1d"),
  SYM_DATA ("quantized::conv_transpose2d", sym_quantized_weighted, "conv_transpose2d"),
  SYM_DATA ("quantized::linear", sym_quantized_weighted, "linear"),
  SYM_DATA ("quantized::add", sym_quantized_binary, "Add"),
  SYM_DATA ("quantized::add_relu", sym_quantized_binary, "AddRelu"),
  SYM_DATA ("quantized::mul", sym_quantized_binary, "Mul"),
  SYM_DATA ("quantized::hardswish", sym_quantized_unary, "aten::hardswish"),
  SYM_DATA ("quantized::sigmoid", sym_quantized_unary, "aten::sigmoid"),
  SYM_DATA ("quantized::leaky_relu", sym_quantized_unary, "aten::leaky_relu"),
  SYM_FN ("quantized::cat", sym_quantized_cat),
  SYM_DATA ("quantized::layer_norm", sym_quantized_norm, "aten::layer_norm"),
  SYM_DATA ("quantized::group_norm", sym_quantized_norm, "aten::group_norm"),
  SYM_DATA ("quantized::instance_norm", sym_quantized_norm, "aten::instance_norm"),
};
const SymTable sym_opset10_quantized = SYM_TABLE (10, entries);
