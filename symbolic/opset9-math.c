/* Opset 9 base set: element-wise math, comparisons, reductions, matmul. */
#include "symbolic/opset-tables.h"
#include <math.h>

#define G sym_graph (ctx)

/* An aten op that is one ONNX op (sym_user_data: its op_type) on its
 * single tensor argument: the body behind every SYM_ONNX table line. */
gboolean
sym_onnx_unary (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, (const char *) sym_user_data (ctx), self, NULL);
  return out[0] != NULL;
}

/* aten::_cast_<Type>(self, non_blocking): Cast to the entry's element type
 * (sym_user_data: a GraphDType); non_blocking does not matter here. */
gboolean
sym_cast_to (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  const GraphDType *to = sym_user_data (ctx);
  if (*to == GRAPH_DTYPE_BFLOAT16 && sym_opset (ctx) < 13)
    /* torch 1.13: writes Cast to=16 at every opset; refused here because ONNX's Cast takes
     * bfloat16 from opset 13 */
    return sym_unimplemented (ctx, n, error, "a cast to bfloat16 (ONNX's Cast has it from opset 13)");
  out[0] = graph_op (G, "Cast", self, "to_i", (gint64) *to, NULL);
  return out[0] != NULL;
}

/* Binary ops: tensor or scalar `other`. */
#define BINARY(name, onnx)                                                     \
  static gboolean sym_##name (SymContext *ctx, GraphNode *n, GraphValue **out, \
                              GError **error)                                  \
  {                                                                            \
    GraphValue *self, *other;                                                  \
    if (!sym_parse_args (ctx, n, "vv", &self, &other, error))                  \
      return FALSE;                                                            \
    out[0] = graph_op (G, onnx, self, other, NULL);                            \
    return out[0] != NULL;                                                     \
  }


/* Arithmetic in PyTorch's result type, as the trace records it: a 0-d
 * tensor computed at run time (anchor strides: int32 arange * an int64 0-d
 * stride is int32 in PyTorch) is cast to it; constant scalars are left to
 * the scalar type analysis pass. */
static void
result_typed (SymContext *ctx, GraphNode *n, GraphValue **a, GraphValue **b)
{
  GraphDType want = sym_dtype (graph_node_output (n, 0));
  if (want == GRAPH_DTYPE_UNDEFINED || want == GRAPH_DTYPE_BOOL)
    return;
  GraphValue **v[2] = { a, b };
  for (guint i = 0; i < 2; i++)
    {
      GraphValue *src = graph_node_input (n, i);
      GraphDType d = sym_dtype (src);
      if (*v[i] && d != GRAPH_DTYPE_UNDEFINED && d != want && !sym_is_constant (src)
          && graph_value_type (src) && graph_type_is_tensor (graph_value_type (src)))
        *v[i] = sym_cast (ctx, *v[i], want);
    }
}

static gboolean
sym_mul (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  result_typed (ctx, n, &self, &other);
  out[0] = graph_op (G, "Mul", self, other, NULL);
  return out[0] != NULL;
}
BINARY (eq, "Equal")
BINARY (gt, "Greater")
BINARY (lt, "Less")
/* aten::logical_and/or/xor: non-bool inputs are true where non-zero (torch
 * casts them to bool; And/Or/Xor take bool only). */
static gboolean
logical_op (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, const char *op)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  if (sym_dtype (self) != GRAPH_DTYPE_BOOL)
    self = sym_cast (ctx, self, GRAPH_DTYPE_BOOL);
  if (sym_dtype (other) != GRAPH_DTYPE_BOOL)
    other = sym_cast (ctx, other, GRAPH_DTYPE_BOOL);
  out[0] = graph_op (G, op, self, other, NULL);
  return out[0] != NULL;
}

static gboolean
sym_logical_and (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return logical_op (ctx, n, out, error, "And");
}

static gboolean
sym_logical_or (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return logical_op (ctx, n, out, error, "Or");
}

static gboolean
sym_logical_xor (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return logical_op (ctx, n, out, error, "Xor");
}
/* aten::pow(self, exponent): a constant exponent takes self's type (Pow
 * wants matching types before opset 12). */
static gboolean
sym_pow (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *exp;
  double e;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  /* Compute in PyTorch's result type (the trace's output type): an integer
   * base with a float exponent gives a float (x ** 0.5), and an integer
   * result before opset 12 (Pow takes no integers there) goes through
   * float and back. */
  GraphDType odt = sym_dtype (graph_node_output (n, 0));
  if (odt == GRAPH_DTYPE_UNDEFINED)
    odt = sym_dtype (self);
  GraphDType cdt = odt;
  if (!graph_dtype_is_floating (cdt) && sym_opset (ctx) < 12)
    cdt = GRAPH_DTYPE_FLOAT;
  if (cdt != GRAPH_DTYPE_UNDEFINED && sym_dtype (self) != cdt)
    self = sym_cast (ctx, self, cdt);
  if (sym_get_const_double (graph_node_input (n, 1), &e) && sym_rank (graph_node_input (n, 1)) <= 0)
    exp = cdt != GRAPH_DTYPE_UNDEFINED ? sym_const_scalar (ctx, cdt, e) : sym_scalar_like (ctx, e, self);
  else if (!sym_parse_args (ctx, n, "none,v", &exp, error))
    return FALSE;
  else if (cdt != GRAPH_DTYPE_UNDEFINED && sym_dtype (exp) != cdt
           && (sym_opset (ctx) < 12 || !graph_dtype_is_floating (sym_dtype (exp))))
    exp = sym_cast (ctx, exp, cdt);
  /* an integer exponent other than int32/int64 as int64 (the same value):
   * ONNX allows any, ONNX Runtime implements those (PyTorch's suite,
   * test_arithmeticOps_with_low_precision: uint8 ** uint8) */
  GraphDType edt = sym_dtype (exp);
  if (edt != GRAPH_DTYPE_UNDEFINED && !graph_dtype_is_floating (edt) && edt != GRAPH_DTYPE_INT32
      && edt != GRAPH_DTYPE_INT64 && edt != GRAPH_DTYPE_BOOL)
    exp = sym_cast (ctx, exp, GRAPH_DTYPE_INT64);
  out[0] = graph_op (G, "Pow", self, exp, NULL);
  if (cdt != odt)
    out[0] = sym_cast (ctx, out[0], odt);
  return TRUE;
}
BINARY (matmul, "MatMul")
BINARY (bmm, "MatMul")
BINARY (bitwise_or, "Or")
BINARY (bitwise_and, "And")
BINARY (bitwise_xor, "Xor")

/* aten::mm: Gemm with a zero C and beta 0, as torch writes it. */
static gboolean
sym_mm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  GraphDType dt = sym_dtype (self) ? sym_dtype (self) : GRAPH_DTYPE_FLOAT;
  gint64 one = 1;
  g_autoptr (Tensor) z = tensor_new_zeroed (dt, 1, &one, NULL);
  out[0] = graph_op (G, "Gemm", self, other, sym_constant (ctx, z), "alpha_f", 1.0, "beta_f", 0.0,
                     NULL);
  return TRUE;
}
/* aten::prelu(self, weight): the weight applies along dim 1, so for rank
 * > 2 it is unsqueezed to (C, 1, ...) (ONNX broadcasts from the right); a
 * one-element weight of a 0-d input is squeezed, so that the 0-d input
 * stays 0-d (as torch). */
static gboolean
sym_prelu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *weight;
  if (!sym_parse_args (ctx, n, "vv", &self, &weight, error))
    return FALSE;
  int rank = sym_rank (self), wrank = sym_rank (weight);
  if (rank < 0 || wrank < 0)
    /* torch 1.13: exports PRelu unchanged; refused here because the weight must go to dim 1 */
    return sym_unimplemented (ctx, n, error, "prelu of unknown rank");
  if (rank > 2 && wrank == 1)
    {
      gint64 axes[TENSOR_MAX_RANK];
      for (int i = 1; i < rank - 1; i++)
        axes[i - 1] = i;
      weight = sym_unsqueeze (ctx, weight, (gsize) (rank - 2), axes);
    }
  else if (rank == 0 && wrank == 1)
    {
      gint64 zero = 0;
      if (sym_static_dim_size (weight, 0) != 1)
        /* torch 1.13: exports PRelu unchanged; refused here because the result would not be 0-d */
        return sym_unimplemented (ctx, n, error, "prelu of a 0-d input with a weight of unknown size");
      weight = sym_squeeze (ctx, weight, 1, &zero);
    }
  else if (wrank > rank)
    /* torch 1.13: also refuses (its assert: the input rank is at least the weight's) */
    return sym_unimplemented (ctx, n, error, "a weight of higher rank than the input");
  out[0] = graph_op (G, "PRelu", self, weight, NULL);
  return TRUE;
}

/* aten::div(self, other, rounding_mode=None) */

/* Whether trace value v is a Python number (int, float, bool, Scalar). */
static gboolean
is_python_number (GraphValue *v)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  return t && !graph_type_is_tensor (t) && sym_rank (v) == 0;
}

/* True division's result type where the trace declares none (scripted
 * code), by PyTorch's promotion where it does not depend on the default
 * dtype: a floating tensor divided by a Python number (an int or a float)
 * or by an integer tensor keeps its type (a number never widens a tensor
 * of its category or above, a lower category never does), and so does a
 * division of two tensors of one floating type.  Where no floating tensor
 * takes part (integer or bool tensors, with numbers of any kind), the
 * default dtype PyTorch had at export time, as torch.onnx.export's
 * true_divide casts to it.  UNDEFINED otherwise (an unknown operand type;
 * two floating types: which one wins depends on their ranks). */
static GraphDType
true_div_dtype (SymContext *ctx, GraphNode *n, GraphValue *self, GraphValue *other)
{
  GraphDType ds = sym_dtype (self), dto = sym_dtype (other);
  GraphValue *ts = graph_node_input (n, 0), *to = graph_node_input (n, 1);
  gboolean fs = graph_dtype_is_floating (ds), fo = graph_dtype_is_floating (dto);
  gboolean ns = is_python_number (ts), no = is_python_number (to);
  if (fs && fo)
    {
      if (ns != no)   /* a number beside a floating tensor: the tensor's type */
        return no ? ds : dto;
      return !ns && ds == dto ? ds : GRAPH_DTYPE_UNDEFINED;
    }
  if (fs && !ns && dto != GRAPH_DTYPE_UNDEFINED)
    return ds;
  if (fo && !no && ds != GRAPH_DTYPE_UNDEFINED)
    return dto;
  if (ds != GRAPH_DTYPE_UNDEFINED && dto != GRAPH_DTYPE_UNDEFINED && !(fs && !ns) && !(fo && !no))
    return sym_default_dtype (ctx);
  return GRAPH_DTYPE_UNDEFINED;
}

static gboolean
sym_div (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  const char *mode = NULL;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_is_none (graph_node_input (n, 2))
      && !sym_parse_args (ctx, n, "none,none,s", &mode, error))
    return FALSE;
  if (mode == NULL)
    {
      /* True division: integer operands divide as floats (the trace's
       * result type), as torch's _true_divide does. */
      GraphDType rt = sym_dtype (graph_node_output (n, 0));
      if (rt == GRAPH_DTYPE_UNDEFINED)
        rt = true_div_dtype (ctx, n, self, other);
      if (rt == GRAPH_DTYPE_UNDEFINED)
        /* torch 1.13: casts operands of unknown type to the default dtype (a floating one of
         * another type too) and writes Div of two floating types as they are (ONNX requires one);
         * refused here because scripted code declares no result type */
        return sym_unimplemented (ctx, n, error, "true division whose result type the trace does "
                                  "not declare and PyTorch's promotion does not fix (an operand of "
                                  "unknown type, or two floating types in scripted code)");
      if (sym_dtype (self) != rt)
        self = sym_cast (ctx, self, rt);
      if (sym_dtype (other) != rt)
        other = sym_cast (ctx, other, rt);
      out[0] = graph_op (G, "Div", self, other, NULL);
      return TRUE;
    }
  if (g_str_equal (mode, "floor") && graph_dtype_is_floating (sym_dtype (self)))
    {
      out[0] = graph_op (G, "Floor", graph_op (G, "Div", self, other, NULL), NULL);
      return TRUE;
    }
  if (g_str_equal (mode, "floor") && sym_dtype (self) != GRAPH_DTYPE_UNDEFINED
      && sym_dtype (self) == sym_dtype (other))
    {
      out[0] = sym_floor_div_values (ctx, self, other);
      return TRUE;
    }
  /* Floats: the quotient in the result type, truncated as Sign · Floor(|q|)
   * (exact; torch 1.13 casts it through int64, wrong beyond 2^63 and for
   * inf and NaN).  The result type where scripted code declares none: true
   * division's, when a floating operand takes part (PyTorch's suite,
   * scripted test_div_rounding_mode on float tensors). */
  GraphDType rt = sym_dtype (graph_node_output (n, 0));
  if (rt == GRAPH_DTYPE_UNDEFINED
      && (graph_dtype_is_floating (sym_dtype (self)) || graph_dtype_is_floating (sym_dtype (other))))
    rt = true_div_dtype (ctx, n, self, other);
  if (g_str_equal (mode, "trunc") && graph_dtype_is_floating (rt))
    {
      if (sym_dtype (self) != rt)
        self = sym_cast (ctx, self, rt);
      if (sym_dtype (other) != rt)
        other = sym_cast (ctx, other, rt);
      out[0] = sym_trunc_values (ctx, graph_op (G, "Div", self, other, NULL));
      return TRUE;
    }
  if (g_str_equal (mode, "trunc") && !graph_dtype_is_floating (sym_dtype (self))
      && sym_dtype (self) != GRAPH_DTYPE_UNDEFINED)
    {
      out[0] = graph_op (G, "Div", self, other, NULL);  /* integer Div truncates */
      return TRUE;
    }
  /* torch 1.13: divides integer operands of different types as they are (ill-typed) and raises on a
   * mode PyTorch lacks; refused here because the integer types are unknown or differ */
  return sym_unimplemented (ctx, n, error, "rounding_mode '%s' on this element type", mode);
}

/* aten::ne: Not(Equal) */
static gboolean
sym_ne (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "Not", graph_op (G, "Equal", self, other, NULL), NULL);
  return TRUE;
}

/* ge/le before opset 12: Not(Less) / Not(Greater). */
static gboolean
sym_ge (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "Not", graph_op (G, "Less", self, other, NULL), NULL);
  return TRUE;
}

static gboolean
sym_le (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "Not", graph_op (G, "Greater", self, other, NULL), NULL);
  return TRUE;
}

/* other * alpha, skipping the Mul when alpha is the constant 1. */
static GraphValue *
scaled (SymContext *ctx, GraphNode *n, GraphValue *other, GraphValue *like, GError **error)
{
  GraphValue *alpha_src = graph_node_n_inputs (n) > 2 ? graph_node_input (n, 2) : NULL;
  double alpha;
  if (alpha_src == NULL || sym_is_none (alpha_src))
    return other;
  if (sym_get_const_double (alpha_src, &alpha))
    {
      if (alpha == 1.0)
        return other;
      return graph_op (G, "Mul", other, sym_scalar_like (ctx, alpha, like), NULL);
    }
  GraphValue *a = sym_value (ctx, alpha_src, error);
  return a ? graph_op (G, "Mul", other, a, NULL) : NULL;
}

/* aten::add(self, other, alpha=1) */
static gboolean
sym_add (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  if (sym_rank (graph_node_input (n, 0)) < 0 && graph_value_type (graph_node_input (n, 0))
      && graph_type_kind (graph_value_type (graph_node_input (n, 0))) == GRAPH_TYPE_LIST)
    /* torch 1.13: refuses before opset 11 and exports list + list as SequenceInsert of each element
     * from 11; not yet here */
    return sym_unimplemented (ctx, n, error, "adding lists");
  other = scaled (ctx, n, other, self, error);
  if (other == NULL)
    return FALSE;
  result_typed (ctx, n, &self, &other);
  out[0] = graph_op (G, "Add", self, other, NULL);
  return TRUE;
}

static gboolean
sym_sub (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  other = scaled (ctx, n, other, self, error);
  if (other == NULL)
    return FALSE;
  result_typed (ctx, n, &self, &other);
  out[0] = graph_op (G, "Sub", self, other, NULL);
  return TRUE;
}

/* aten::rsub(self, other, alpha): other - self * alpha */
static gboolean
sym_rsub (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  result_typed (ctx, n, &self, &other);
  GraphValue *s = scaled (ctx, n, self, self, error);
  if (s == NULL)
    return FALSE;
  out[0] = graph_op (G, "Sub", other, s, NULL);
  return TRUE;
}

/* aten::addmm(self, mat1, mat2, beta, alpha) → Gemm */
static gboolean
sym_addmm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *m1, *m2;
  double beta, alpha;
  if (!sym_parse_args (ctx, n, "vvvff", &self, &m1, &m2, &beta, &alpha, error))
    return FALSE;
  out[0] = graph_op (G, "Gemm", m1, m2, self, "alpha_f", alpha, "beta_f", beta, NULL);
  return TRUE;
}

/* aten::linear(input, weight, bias) */
static gboolean
sym_linear (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input, *weight, *bias;
  if (!sym_parse_args (ctx, n, "vvv", &input, &weight, &bias, error))
    return FALSE;
  if (sym_rank (input) == 2 && bias)
    {
      out[0] = graph_op (G, "Gemm", input, weight, bias, "alpha_f", 1.0, "beta_f", 1.0,
                         "transB_i", (gint64) 1, NULL);
      return TRUE;
    }
  static const gint64 perm[] = { 1, 0 };
  GraphValue *wt = graph_op (G, "Transpose", weight, "perm_is", 2, perm, NULL);
  GraphValue *mm = graph_op (G, "MatMul", input, wt, NULL);
  out[0] = bias ? graph_op (G, "Add", bias, mm, NULL) : mm;
  return TRUE;
}

/* aten::t */
static gboolean
sym_t (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (sym_rank (self) < 2)
    {
      out[0] = self;
      return TRUE;
    }
  static const gint64 perm[] = { 1, 0 };
  out[0] = graph_op (G, "Transpose", self, "perm_is", 2, perm, NULL);
  return TRUE;
}

/* What sum and prod compute in: the result type the trace declares (sum
 * of uint8 → int64, dtype=); where scripted code declares none, torch's
 * rule: bool and integer inputs are summed as int64. */
static GraphValue *
reduction_input (SymContext *ctx, GraphNode *n, GraphValue *self)
{
  GraphDType have = sym_dtype (self);
  if (sym_dtype (graph_node_output (n, 0)) == GRAPH_DTYPE_UNDEFINED
      && (have == GRAPH_DTYPE_BOOL || graph_dtype_is_integer (have)) && have != GRAPH_DTYPE_INT64)
    {
      GraphValue *last = graph_node_input (n, graph_node_n_inputs (n) - 1);
      if (graph_node_n_inputs (n) == 1 || sym_is_none (last))
        return sym_cast (ctx, self, GRAPH_DTYPE_INT64);
    }
  return sym_cast_to_output_dtype (ctx, n, 0, self);
}

/* Reductions: aten::sum(self, dim, keepdim, dtype) / sum(self, dtype);
 * sym_user_data is the ONNX op ("ReduceSum"): the body of SYM_REDUCE. */
gboolean
sym_reduce_dims (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  guint nin = graph_node_n_inputs (n);
  gsize nd = 0;
  const gint64 *dims = NULL;
  gboolean keepdim = FALSE;
  GraphValue *d = nin > 1 ? graph_node_input (n, 1) : NULL;
  GraphType *dt = d ? graph_value_type (d) : NULL;
  /* sum(self, dtype): the second argument is the dtype, not dims. */
  gboolean has_dims = d && !sym_is_none (d) && !(dt && graph_type_kind (dt) == GRAPH_TYPE_INT
                                                  && nin == 2);
  if (has_dims && !sym_parse_args (ctx, n, "none,ds", &nd, &dims, error))
    return FALSE;
  if (has_dims && nin > 2 && !sym_parse_args (ctx, n, "none,none,b", &keepdim, error))
    return FALSE;
  /* Reduced in the result type the trace declares (sum of uint8 → int64,
   * dtype=): torch computes in it, so a small type must not overflow. */
  if (strcmp (op, "ReduceSum") == 0)
    self = reduction_input (ctx, n, self);
  else
    self = sym_cast_to_output_dtype (ctx, n, 0, self);
  out[0] = sym_reduce (ctx, op, self, nd, dims, keepdim);
  return TRUE;
}

/* aten::prod(self, dtype) / prod(self, dim, keepdim, dtype) */
static gboolean
sym_prod (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  gboolean keep = FALSE;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  self = reduction_input (ctx, n, self);   /* as sum: int64 for small ints */
  if (graph_node_n_inputs (n) >= 4)
    {
      if (!sym_parse_args (ctx, n, "none,d,b", &dim, &keep, error))
        return FALSE;
      out[0] = sym_reduce (ctx, "ReduceProd", self, 1, &dim, keep);
    }
  else
    out[0] = sym_reduce (ctx, "ReduceProd", self, 0, NULL, FALSE);
  return TRUE;
}

/* aten::max / aten::min: max(self) (reduce all), max(self, other)
 * (element-wise), max(self, dim, keepdim) (values, indices). */
static gboolean
minmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean is_max)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  guint nin = graph_node_n_inputs (n);
  if (nin == 1)
    {
      out[0] = sym_reduce (ctx, is_max ? "ReduceMax" : "ReduceMin", self, 0, NULL, FALSE);
      return TRUE;
    }
  if (nin == 2)
    {
      GraphValue *other;
      if (!sym_parse_args (ctx, n, "none,v", &other, error))
        return FALSE;
      out[0] = graph_op (G, is_max ? "Max" : "Min", self, other, NULL);
      return TRUE;
    }
  gint64 dim;
  gboolean keep;
  if (!sym_parse_args (ctx, n, "none,d,b", &dim, &keep, error))
    return FALSE;
  out[0] = sym_reduce (ctx, is_max ? "ReduceMax" : "ReduceMin", self, 1, &dim, keep);
  if (graph_node_n_outputs (n) > 1)
    out[1] = graph_op (G, is_max ? "ArgMax" : "ArgMin", self, "axis_i", dim, "keepdims_i",
                       (gint64) keep, NULL);
  return TRUE;
}

static gboolean
sym_max (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return minmax (ctx, n, out, error, TRUE);
}

static gboolean
sym_min (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return minmax (ctx, n, out, error, FALSE);
}

/* prim::min / prim::max (scripted code's min(a, b) of two numbers, as
 * `enumerate` makes it): the element-wise form of aten::min/max on the
 * two 0-d values, as torch's prim_min.  Python's min of an int and a
 * float keeps the chosen operand's type, which one ONNX result type
 * cannot; min of a list is not made. */
static gboolean
prim_minmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean is_max)
{
  GraphValue *a, *b;
  if (graph_node_n_inputs (n) != 2)
    /* torch 1.13: exports min of a list as the reduction of its elements; not yet here */
    return sym_unimplemented (ctx, n, error, "min/max of a list");
  if (!sym_parse_args (ctx, n, "vv", &a, &b, error))
    return FALSE;
  if (sym_dtype (a) == GRAPH_DTYPE_UNDEFINED || sym_dtype (a) != sym_dtype (b))
    /* torch 1.13: writes Min/Max of the two as they are (an ill-typed node when they differ);
     * refused here because Python's result type is the chosen operand's */
    return sym_unimplemented (ctx, n, error, "min/max of two numbers of different or unknown types");
  if (graph_dtype_is_floating (sym_dtype (a)) || sym_opset (ctx) >= 12)
    out[0] = graph_op (G, is_max ? "Max" : "Min", a, b, NULL);
  else   /* Min and Max take integers from opset 12: b where it wins, else a */
    out[0] = graph_op (G, "Where", graph_op (G, is_max ? "Greater" : "Less", b, a, NULL), b, a, NULL);
  return TRUE;
}

static gboolean
sym_prim_min (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return prim_minmax (ctx, n, out, error, FALSE);
}

static gboolean
sym_prim_max (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return prim_minmax (ctx, n, out, error, TRUE);
}

GraphValue *
sym_clamp_int_where (SymContext *ctx, GraphValue *self, GraphValue *lo, GraphValue *hi)
{
  GraphDType dt = sym_dtype (self);
  GraphValue *v = self;
  if (lo)
    {
      lo = sym_dtype (lo) != dt ? sym_cast (ctx, lo, dt) : lo;
      v = graph_op (G, "Where", graph_op (G, "Less", v, lo, NULL), lo, v, NULL);
    }
  if (hi && v)
    {
      hi = sym_dtype (hi) != dt ? sym_cast (ctx, hi, dt) : hi;
      v = graph_op (G, "Where", graph_op (G, "Greater", v, hi, NULL), hi, v, NULL);
    }
  if (v)
    sym_set_type (v, dt, sym_rank (self), NULL);
  return v;
}

/* An integer clamp before opset 12 (clamp, clamp_min, clamp_max of
 * self; lo and hi source values or NULL): the Where form, when self
 * and the result are integers.  FALSE when that does not apply. */
static gboolean
clamp_int_before_12 (SymContext *ctx, GraphNode *n, GraphValue *self, GraphValue *lo, GraphValue *hi,
                     GraphValue **out, GError **error)
{
  GraphDType dt = sym_dtype (self), odt = sym_dtype (graph_node_output (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED || graph_dtype_is_floating (dt) || dt == GRAPH_DTYPE_BOOL
      || (odt != GRAPH_DTYPE_UNDEFINED && odt != dt) || sym_opset (ctx) >= 12)
    return FALSE;
  GraphValue *l = lo && !sym_is_none (lo) ? sym_value (ctx, lo, error) : NULL;
  GraphValue *h = hi && !sym_is_none (hi) ? sym_value (ctx, hi, error) : NULL;
  if ((lo && !sym_is_none (lo) && l == NULL) || (hi && !sym_is_none (hi) && h == NULL))
    return FALSE;
  out[0] = sym_clamp_int_where (ctx, self, l, h);
  return out[0] != NULL;
}

/* aten::clamp(self, min, max) at opset 9: Clip attributes (constants only). */
static gboolean
sym_clamp (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphValue *lo = graph_node_n_inputs (n) > 1 ? graph_node_input (n, 1) : NULL;
  GraphValue *hi = graph_node_n_inputs (n) > 2 ? graph_node_input (n, 2) : NULL;
  if (clamp_int_before_12 (ctx, n, self, lo, hi, out, error))
    return TRUE;
  if (error && *error)
    return FALSE;
  double vlo, vhi;
  gboolean has_lo = !sym_is_none (lo), has_hi = !sym_is_none (hi);
  if ((has_lo && !sym_get_const_double (lo, &vlo)) || (has_hi && !sym_get_const_double (hi, &vhi)))
    {
      /* Tensor bounds: Max then Min (they broadcast), as torch does. */
      GraphValue *v = self;
      GraphDType dt = sym_dtype (self);
      if (has_lo)
        {
          GraphValue *l = sym_value (ctx, lo, error);
          if (l == NULL)
            return FALSE;
          v = graph_op (G, "Max", v, dt && sym_dtype (l) != dt ? sym_cast (ctx, l, dt) : l, NULL);
        }
      if (has_hi)
        {
          GraphValue *h = sym_value (ctx, hi, error);
          if (h == NULL)
            return FALSE;
          v = graph_op (G, "Min", v, dt && sym_dtype (h) != dt ? sym_cast (ctx, h, dt) : h, NULL);
        }
      out[0] = v;
      return TRUE;
    }
  if (has_lo && has_hi)
    out[0] = graph_op (G, "Clip", self, "max_f", vhi, "min_f", vlo, NULL);
  else if (has_lo)
    out[0] = graph_op (G, "Clip", self, "min_f", vlo, NULL);
  else if (has_hi)
    out[0] = graph_op (G, "Clip", self, "max_f", vhi, NULL);
  else
    out[0] = self;
  return TRUE;
}

static gboolean
sym_clamp_min (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double lo;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (clamp_int_before_12 (ctx, n, self, graph_node_input (n, 1), NULL, out, error))
    return TRUE;
  if ((error && *error) || !sym_parse_args (ctx, n, "vf", &self, &lo, error))
    return FALSE;
  out[0] = graph_op (G, "Clip", self, "min_f", lo, NULL);
  return TRUE;
}

static gboolean
sym_clamp_max (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double hi;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (clamp_int_before_12 (ctx, n, self, NULL, graph_node_input (n, 1), out, error))
    return TRUE;
  if ((error && *error) || !sym_parse_args (ctx, n, "vf", &self, &hi, error))
    return FALSE;
  out[0] = graph_op (G, "Clip", self, "max_f", hi, NULL);
  return TRUE;
}

/* aten::floor_divide: Floor(Div) for floats, truncating Div for ints
 * (torch 1.13 semantics are truncation toward zero for both). */
/* floor(a / b).  Floats: Floor(Div).  Integers: ONNX's Div truncates, so
 * the quotient steps down by one where the remainder is non-zero and its
 * sign differs from b's (torch's _floor_divide does the same). */
GraphValue *
sym_floor_div_values (SymContext *ctx, GraphValue *a, GraphValue *b)
{
  GraphValue *q = graph_op (G, "Div", a, b, NULL);
  GraphDType dt = sym_dtype (a);
  if (graph_dtype_is_floating (dt))
    return graph_op (G, "Floor", q, NULL);
  GraphValue *zero = sym_scalar_like (ctx, 0.0, a);
  GraphValue *r = graph_op (G, "Sub", a, graph_op (G, "Mul", q, b, NULL), NULL);
  GraphValue *fix = graph_op (G, "And", graph_op (G, "Not", graph_op (G, "Equal", r, zero, NULL), NULL),
                              graph_op (G, "Xor", graph_op (G, "Less", r, zero, NULL),
                                        graph_op (G, "Less", b, zero, NULL), NULL), NULL);
  return graph_op (G, "Sub", q, sym_cast (ctx, fix, dt), NULL);
}

/* aten::floor_divide: floor rounding in torch 1.13, integers too. */
gboolean
sym_floor_divide (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  /* torch's result type (an int tensor % a float scalar is float), as the
   * trace records it */
  self = sym_cast_to_output_dtype (ctx, n, 0, self);
  other = sym_cast_to_output_dtype (ctx, n, 0, other);
  if (!graph_dtype_is_floating (sym_dtype (self))
      && (sym_dtype (self) == GRAPH_DTYPE_UNDEFINED || sym_dtype (self) != sym_dtype (other)))
    /* torch 1.13: truncates (PyTorch 1.13 floors) and divides the operands as they are; refused
     * here because the integer types are unknown or differ */
    return sym_unimplemented (ctx, n, error, "integer floor_divide of operands of unknown or "
                              "different element types");
  out[0] = sym_floor_div_values (ctx, self, other);
  return TRUE;
}

/* aten::remainder: self - floor(self / other) * other */
static gboolean
sym_remainder (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  /* torch's result type (an int tensor % a float scalar is float), as the
   * trace records it */
  self = sym_cast_to_output_dtype (ctx, n, 0, self);
  other = sym_cast_to_output_dtype (ctx, n, 0, other);
  if (!graph_dtype_is_floating (sym_dtype (self))
      && (sym_dtype (self) == GRAPH_DTYPE_UNDEFINED || sym_dtype (self) != sym_dtype (other)))
    /* torch 1.13: writes Div, Mul, Sub of the operands as they are (ill-typed when they differ);
     * refused here because the integer types are unknown or differ */
    return sym_unimplemented (ctx, n, error, "integer remainder of operands of unknown or "
                              "different element types");
  /* Python's modulo: the sign of other, so the quotient is floored for
   * integers too. */
  GraphValue *d = sym_floor_div_values (ctx, self, other);
  out[0] = graph_op (G, "Sub", self, graph_op (G, "Mul", d, other, NULL), NULL);
  return TRUE;
}

/* aten::rsqrt: 1 / sqrt(x) */
static gboolean
sym_rsqrt (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Div", sym_scalar_like (ctx, 1.0, self), graph_op (G, "Sqrt", self, NULL),
                     NULL);
  return TRUE;
}

/* aten::square */
static gboolean
sym_square (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Mul", self, self, NULL);
  return TRUE;
}

/* aten::argmax(self, dim=None, keepdim=False) */
static gboolean
argminmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, const char *op)
{
  GraphValue *self;
  gint64 dim;
  gboolean keep = FALSE;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_parse_args (ctx, n, "none,none,b", &keep, error))
    return FALSE;
  if (graph_node_n_inputs (n) < 2 || sym_is_none (graph_node_input (n, 1)))
    {
      static const gint64 flat[] = { -1 };
      int rank = sym_rank (self);
      if (keep && rank < 0)
        /* torch 1.13: exports it (Shape of Shape); not yet here */
        return sym_unimplemented (ctx, n, error, "keepdim=True without dim on an input of unknown rank");
      GraphValue *flattened = sym_reshape_static (ctx, self, 1, flat);
      out[0] = graph_op (G, op, flattened, "axis_i", (gint64) 0, "keepdims_i", (gint64) 0, NULL);
      if (sym_opset (ctx) >= 12)
        graph_node_set_i (graph_value_node (out[0]), "select_last_index", 0);
      if (keep)
        {
          /* keepdim without dim keeps every dim, each of size 1 (torch:
           * Reshape to ConstantOfShape(Shape(Shape(x)), 1)) */
          gint64 ones[TENSOR_MAX_RANK];
          for (int i = 0; i < rank; i++)
            ones[i] = 1;
          out[0] = sym_reshape_static (ctx, out[0], (gsize) rank, ones);
        }
      return TRUE;
    }
  if (!sym_parse_args (ctx, n, "none,d", &dim, error))
    return FALSE;
  out[0] = graph_op (G, op, self, "axis_i", dim, "keepdims_i", (gint64) keep, NULL);
  if (sym_opset (ctx) >= 12)
    graph_node_set_i (graph_value_node (out[0]), "select_last_index", 0);
  return TRUE;
}

static gboolean
sym_argmax (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return argminmax (ctx, n, out, error, "ArgMax");
}

static gboolean
sym_argmin (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return argminmax (ctx, n, out, error, "ArgMin");
}

/* ---- torch 1.13 ops added later (maximum ... tanhshrink) ---------------- */

BINARY (maximum, "Max")
BINARY (minimum, "Min")
BINARY (mv, "MatMul")
BINARY (dot, "MatMul")

/* A 1-element 1-D float constant, as torch's torch.tensor([v]). */
GraphValue *
sym_float_1d (SymContext *ctx, double v)
{
  gint64 one = 1;
  float f = (float) v;
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, &one, &f, sizeof f, NULL);
  return sym_constant (ctx, t);
}

/* aten::log10 / log2: Log(x) / ln(base) */
static gboolean
sym_log10 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Div", graph_op (G, "Log", self, NULL), sym_float_1d (ctx, M_LN10), NULL);
  return TRUE;
}

static gboolean
sym_log2 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Div", graph_op (G, "Log", self, NULL),
                     sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, M_LN2), NULL);
  return TRUE;
}

/* aten::log1p: Log(1 + x) */
static gboolean
sym_log1p (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Log", graph_op (G, "Add", sym_scalar_like (ctx, 1.0, self), self, NULL),
                     NULL);
  return TRUE;
}

/* aten::lerp(self, end, weight): torch's two-sided form (better numerics
 * for weight >= 0.5). */
static gboolean
sym_lerp (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *end, *w;
  if (!sym_parse_args (ctx, n, "vvv", &self, &end, &w, error))
    return FALSE;
  GraphValue *diff = graph_op (G, "Sub", end, self, NULL);
  double wv;
  gboolean wconst = sym_rank (graph_node_input (n, 2)) <= 0
                    && sym_get_const_double (graph_node_input (n, 2), &wv);
  /* A constant weight: self's type, and the condition and 1 - w folded as
   * torch's constant folding leaves them. */
  GraphValue *cond, *om;
  if (wconst)
    {
      w = sym_scalar_like (ctx, wv, self);
      cond = sym_const_scalar (ctx, GRAPH_DTYPE_BOOL, wv < 0.5);
    }
  else
    cond = graph_op (G, "Less", w, sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, 0.5), NULL);
  GraphValue *lo = graph_op (G, "Add", self, graph_op (G, "Mul", w, diff, NULL), NULL);
  om = wconst ? sym_scalar_like (ctx, 1.0 - wv, self)
              : graph_op (G, "Sub", sym_const_scalar (ctx, GRAPH_DTYPE_FLOAT, 1.0), w, NULL);
  GraphValue *hi = graph_op (G, "Sub", end, graph_op (G, "Mul", diff, om, NULL), NULL);
  out[0] = graph_op (G, "Where", cond, lo, hi, NULL);
  return TRUE;
}

/* aten::addcmul(self, t1, t2, value): self + t1 * t2 * value */
static gboolean
sym_addcmul (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *t1, *t2;
  double value;
  if (!sym_parse_args (ctx, n, "vvvf", &self, &t1, &t2, &value, error))
    return FALSE;
  GraphValue *m = graph_op (G, "Mul", graph_op (G, "Mul", t1, t2, NULL), sym_float_1d (ctx, value),
                            NULL);
  out[0] = graph_op (G, "Add", self, m, NULL);
  return TRUE;
}

/* aten::baddbmm(self, b1, b2, beta, alpha): b1 @ b2 * alpha + self * beta */
static gboolean
sym_baddbmm (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *b1, *b2, *beta, *alpha;
  if (!sym_parse_args (ctx, n, "vvvvv", &self, &b1, &b2, &beta, &alpha, error))
    return FALSE;
  GraphDType dt = sym_dtype (self) ? sym_dtype (self) : GRAPH_DTYPE_FLOAT;
  GraphValue *a = graph_op (G, "Mul", graph_op (G, "MatMul", b1, b2, NULL),
                            sym_cast (ctx, alpha, dt), NULL);
  GraphValue *b = graph_op (G, "Mul", self, sym_cast (ctx, beta, dt), NULL);
  out[0] = graph_op (G, "Add", a, b, NULL);
  return TRUE;
}

/* aten::log_sigmoid: Log(Sigmoid(x)) */
static gboolean
sym_log_sigmoid (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Log", graph_op (G, "Sigmoid", self, NULL), NULL);
  return TRUE;
}

/* aten::mish: x * tanh(softplus(x)) */
static gboolean
sym_mish (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Mul", self,
                     graph_op (G, "Tanh", graph_op (G, "Softplus", self, NULL), NULL), NULL);
  return TRUE;
}

/* aten::tanhshrink: x - tanh(x) */
static gboolean
sym_tanhshrink (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  out[0] = graph_op (G, "Sub", self, graph_op (G, "Tanh", self, NULL), NULL);
  return TRUE;
}

/* aten::hardshrink(self, lambd): Where(x > l or x < -l, x, 0).  torch
 * writes Neg(l) and folds it; we write -l directly. */
static gboolean
sym_hardshrink (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double l;
  if (!sym_parse_args (ctx, n, "vf", &self, &l, error))
    return FALSE;
  GraphValue *gt = graph_op (G, "Greater", self, sym_scalar_like (ctx, l, self), NULL);
  GraphValue *lt = graph_op (G, "Less", self, sym_scalar_like (ctx, -l, self), NULL);
  /* torch's logical_or casts both sides to bool */
  gt = sym_cast (ctx, gt, GRAPH_DTYPE_BOOL);
  lt = sym_cast (ctx, lt, GRAPH_DTYPE_BOOL);
  GraphValue *cond = graph_op (G, "Or", gt, lt, NULL);
  out[0] = graph_op (G, "Where", cond, self, sym_scalar_like (ctx, 0.0, self), NULL);
  return TRUE;
}

/* aten::softshrink(self, lambd): Where(x > l, x - l, 0) + Where(x < -l, x + l, 0) */
static gboolean
sym_softshrink (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double l;
  if (!sym_parse_args (ctx, n, "vf", &self, &l, error))
    return FALSE;
  GraphValue *gt = graph_op (G, "Greater", self, sym_scalar_like (ctx, l, self), NULL);
  GraphValue *gto = graph_op (G, "Where", gt, graph_op (G, "Sub", self, sym_scalar_like (ctx, l, self), NULL),
                              sym_scalar_like (ctx, 0.0, self), NULL);
  GraphValue *lt = graph_op (G, "Less", self, sym_scalar_like (ctx, -l, self), NULL);
  GraphValue *lto = graph_op (G, "Where", lt, graph_op (G, "Add", self, sym_scalar_like (ctx, l, self), NULL),
                              sym_scalar_like (ctx, 0.0, self), NULL);
  out[0] = graph_op (G, "Add", gto, lto, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_ONNX ("aten::abs", "Abs"),         SYM_ONNX ("aten::neg", "Neg"),
  SYM_ONNX ("aten::sqrt", "Sqrt"),       SYM_ONNX ("aten::exp", "Exp"),
  SYM_ONNX ("aten::log", "Log"),         SYM_ONNX ("aten::sin", "Sin"),
  SYM_ONNX ("aten::cos", "Cos"),         SYM_ONNX ("aten::tan", "Tan"),
  SYM_ONNX ("aten::asin", "Asin"),       SYM_ONNX ("aten::acos", "Acos"),
  SYM_ONNX ("aten::atan", "Atan"),       SYM_ONNX ("aten::sinh", "Sinh"),
  SYM_ONNX ("aten::cosh", "Cosh"),       SYM_ONNX ("aten::tanh", "Tanh"),
  SYM_ONNX ("aten::sigmoid", "Sigmoid"), SYM_ONNX ("aten::relu", "Relu"),
  SYM_ONNX ("aten::floor", "Floor"),     SYM_ONNX ("aten::ceil", "Ceil"),
  SYM_ONNX ("aten::sign", "Sign"),       SYM_ONNX ("aten::erf", "Erf"),
  SYM_ONNX ("aten::reciprocal", "Reciprocal"),
  SYM_ONNX ("aten::logical_not", "Not"),
  SYM_ONNX ("aten::bitwise_not", "Not"),
  SYM_ONNX ("aten::isnan", "IsNaN"),     SYM_ONNX ("aten::softsign", "Softsign"),
  SYM_CAST ("aten::_cast_Byte", UINT8),    SYM_CAST ("aten::_cast_Char", INT8),
  SYM_CAST ("aten::_cast_Short", INT16),   SYM_CAST ("aten::_cast_Int", INT32),
  SYM_CAST ("aten::_cast_Long", INT64),    SYM_CAST ("aten::_cast_Half", FLOAT16),
  SYM_CAST ("aten::_cast_Float", FLOAT),   SYM_CAST ("aten::_cast_Double", DOUBLE),
  SYM_CAST ("aten::_cast_BFloat16", BFLOAT16),   /* not an operator of torch 1.13 (as _cast_Bool) */
  SYM_FN ("aten::mul", sym_mul),         SYM_FN ("aten::div", sym_div),
  SYM_FN ("aten::true_divide", sym_div),
  SYM_FN ("aten::add", sym_add),         SYM_FN ("aten::sub", sym_sub),
  SYM_FN ("aten::rsub", sym_rsub),       SYM_FN ("aten::eq", sym_eq),
  SYM_FN ("aten::ne", sym_ne),           SYM_FN ("aten::gt", sym_gt),
  SYM_FN ("aten::lt", sym_lt),           SYM_FN ("aten::ge", sym_ge),
  SYM_FN ("aten::le", sym_le),           SYM_FN ("aten::logical_and", sym_logical_and),
  SYM_FN ("aten::logical_or", sym_logical_or),
  SYM_FN ("aten::logical_xor", sym_logical_xor),
  SYM_FN ("aten::pow", sym_pow),         SYM_FN ("aten::__or__", sym_bitwise_or),
  SYM_FN ("aten::__and__", sym_bitwise_and), SYM_FN ("aten::__xor__", sym_bitwise_xor),
  SYM_FN ("aten::bitwise_or", sym_bitwise_or), SYM_FN ("aten::bitwise_and", sym_bitwise_and),
  SYM_FN ("aten::bitwise_xor", sym_bitwise_xor),         SYM_FN ("aten::matmul", sym_matmul),
  SYM_FN ("aten::bmm", sym_bmm),         SYM_FN ("aten::mm", sym_mm),
  SYM_FN ("aten::addmm", sym_addmm),     SYM_FN ("aten::linear", sym_linear),
  SYM_FN ("aten::t", sym_t),             SYM_FN ("aten::prelu", sym_prelu),
  SYM_REDUCE ("aten::sum", "ReduceSum"),         SYM_REDUCE ("aten::mean", "ReduceMean"),
  SYM_FN ("aten::prod", sym_prod),       SYM_FN ("aten::max", sym_max),
  SYM_FN ("aten::min", sym_min),         SYM_FN ("prim::min", sym_prim_min),
  SYM_FN ("prim::max", sym_prim_max),         SYM_FN ("aten::clamp", sym_clamp),
  SYM_FN ("aten::clip", sym_clamp),
  SYM_FN ("aten::clamp_min", sym_clamp_min),
  SYM_FN ("aten::clamp_max", sym_clamp_max),
  SYM_FN ("aten::floor_divide", sym_floor_divide),
  SYM_FN ("aten::remainder", sym_remainder),
  SYM_FN ("aten::rsqrt", sym_rsqrt),     SYM_FN ("aten::square", sym_square),
  SYM_FN ("aten::argmax", sym_argmax),   SYM_FN ("aten::argmin", sym_argmin),
  SYM_FN ("aten::maximum", sym_maximum), SYM_FN ("aten::minimum", sym_minimum),
  SYM_FN ("aten::mv", sym_mv),           SYM_FN ("aten::dot", sym_dot),
  SYM_FN ("aten::log10", sym_log10),     SYM_FN ("aten::log2", sym_log2),
  SYM_FN ("aten::log1p", sym_log1p),     SYM_FN ("aten::lerp", sym_lerp),
  SYM_FN ("aten::addcmul", sym_addcmul), SYM_FN ("aten::baddbmm", sym_baddbmm),
  SYM_FN ("aten::log_sigmoid", sym_log_sigmoid),
  SYM_FN ("aten::mish", sym_mish),       SYM_FN ("aten::tanhshrink", sym_tanhshrink),
  SYM_FN ("aten::hardshrink", sym_hardshrink),
  SYM_FN ("aten::softshrink", sym_softshrink),
};
const SymTable sym_opset9_math = SYM_TABLE (9, entries);
