/* Opset 12: GreaterOrEqual / LessOrEqual, Celu. */
#include "symbolic/opset-tables.h"

#define G sym_graph (ctx)

static gboolean
sym_ge12 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "GreaterOrEqual", self, other, NULL);
  return TRUE;
}

static gboolean
sym_le12 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *other;
  if (!sym_parse_args (ctx, n, "vv", &self, &other, error))
    return FALSE;
  out[0] = graph_op (G, "LessOrEqual", self, other, NULL);
  return TRUE;
}

/* aten::celu(self, alpha).  ONNX's Celu takes float only: a double input
 * is computed as alpha * Elu(x / alpha) in double (the same function:
 * x above 0, alpha * (exp(x / alpha) - 1) below; sym_elu_of's formula, as
 * ONNX Runtime has no double Elu).  torch casts it to float and back,
 * losing what double keeps; a Celu on double fails the checker. */
static gboolean
sym_celu (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double alpha;
  if (!sym_parse_args (ctx, n, "vf", &self, &alpha, error))
    return FALSE;
  if (sym_dtype (self) == GRAPH_DTYPE_DOUBLE)
    {
      GraphValue *a = sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, alpha);
      GraphValue *q = graph_op (G, "Div", self, a, NULL);
      if (q)
        sym_set_type (q, GRAPH_DTYPE_DOUBLE, sym_rank (self), NULL);
      GraphValue *e = sym_elu_of (ctx, q, 1.0);
      out[0] = graph_op (G, "Mul", e, a, NULL);
      return TRUE;
    }
  out[0] = graph_op (G, "Celu", self, "alpha_f", alpha, NULL);
  return TRUE;
}

/* torch's _einsum_helper: Einsum (bool inputs through int64). */
static GraphValue *
einsum_of (SymContext *ctx, const char *eq, guint n, GraphValue *const *xs)
{
  if (n > 0 && sym_dtype (xs[0]) == GRAPH_DTYPE_BOOL)
    {
      GraphValue *c[16];
      for (guint i = 0; i < n && i < 16; i++)
        c[i] = sym_cast (ctx, xs[i], GRAPH_DTYPE_INT64);
      return sym_cast (ctx, graph_opv (G, "Einsum", MIN (n, 16), c, "equation_s", eq, NULL),
                       GRAPH_DTYPE_BOOL);
    }
  return graph_opv (G, "Einsum", n, xs, "equation_s", eq, NULL);
}

/* aten::einsum(equation, tensors, path) */
static gboolean
sym_einsum (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *eq;
  if (!sym_parse_args (ctx, n, "s", &eq, error))
    return FALSE;
  g_autoptr (GPtrArray) xs = sym_list_values (ctx, graph_node_input (n, 1), error);
  if (xs == NULL)
    return FALSE;
  if (xs->len == 0 || xs->len > 16)
    /* torch 1.13: refuses no operands (RuntimeError) and exports any other count as one Einsum; not
     * yet here (more than 16) */
    return sym_unimplemented (ctx, n, error, "einsum of %u tensors", xs->len);
  out[0] = einsum_of (ctx, eq, xs->len, (GraphValue *const *) xs->pdata);
  return TRUE;
}

/* The two operands of n in one element type: the result type the trace
 * declares (PyTorch's promotion: float32 by float64 is float64; torch 1.13
 * casts b to a's type, a float32 result); refused when the types differ and
 * no result type is declared. */
static gboolean
same_type_operands (SymContext *ctx, GraphNode *n, GraphValue **xs, GError **error)
{
  GraphDType a = sym_dtype (xs[0]), b = sym_dtype (xs[1]);
  GraphDType want = sym_dtype (graph_node_output (n, 0));
  if (want == GRAPH_DTYPE_UNDEFINED && a == b && a != GRAPH_DTYPE_UNDEFINED)
    return TRUE;
  if (want == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: casts b to a's type (not PyTorch's promotion); refused here because the result
     * type cannot be told */
    return sym_unimplemented (ctx, n, error, "operands of types %s and %s without a declared "
                              "result type", graph_dtype_name (a), graph_dtype_name (b));
  for (guint i = 0; i < 2; i++)
    xs[i] = sym_cast_to_output_dtype (ctx, n, 0, xs[i]);
  return TRUE;
}

/* aten::outer(a, b): Einsum "i,j->ij" in the result type */
static gboolean
sym_outer (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *xs[2];
  if (!sym_parse_args (ctx, n, "vv", &xs[0], &xs[1], error) || !same_type_operands (ctx, n, xs, error))
    return FALSE;
  out[0] = einsum_of (ctx, "i,j->ij", 2, xs);
  return TRUE;
}

/* aten::tensordot(a, b, dims_a, dims_b): one Einsum contracting dims_a of
 * a with dims_b of b, the result a's other dims then b's (torch 1.13's
 * opset-12 symbolic permutes, reshapes and multiplies with MatMul: the
 * same sums). */
static gboolean
sym_tensordot (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *xs[2];
  gsize na, nb;
  const gint64 *da, *db;
  if (!sym_parse_args (ctx, n, "v,v,is,is", &xs[0], &xs[1], &na, &da, &nb, &db, error))
    return FALSE;
  int ra = sym_rank (xs[0]), rb = sym_rank (xs[1]);
  if (ra < 0 || rb < 0 || ra + rb > 52)
    /* torch 1.13: also refuses an unknown rank (its symbolic reads the ranks); not yet here (more
     * than 52 dims in all, the letters of an equation) */
    return sym_unimplemented (ctx, n, error, "tensordot of inputs of rank %d and %d", ra, rb);
  if (na != nb)
    /* torch 1.13: also refuses (PyTorch rejects dims lists of different lengths) */
    return sym_unimplemented (ctx, n, error, "dims lists of %zu and %zu dims", na, nb);
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  char la[53] = "", lb[53] = "";
  gboolean ca[52] = { FALSE }, cb[52] = { FALSE };
  for (int i = 0; i < ra; i++)
    la[i] = letters[i];
  for (int i = 0; i < rb; i++)
    lb[i] = letters[ra + i];
  for (gsize k = 0; k < na; k++)
    {
      gint64 a = da[k] < 0 ? da[k] + ra : da[k], b = db[k] < 0 ? db[k] + rb : db[k];
      gint64 sa = a >= 0 && a < ra ? sym_static_dim_size (xs[0], a) : -2;
      gint64 sb = b >= 0 && b < rb ? sym_static_dim_size (xs[1], b) : -2;
      if (sa == -2 || sb == -2 || ca[a] || cb[b] || (sa >= 0 && sb >= 0 && sa != sb))
        /* torch 1.13: also refuses (PyTorch rejects a dim out of range, repeated or of another size
         * than its partner) */
        return sym_unimplemented (ctx, n, error, "contracting dim %" G_GINT64_FORMAT " of a with dim %"
                                  G_GINT64_FORMAT " of b", da[k], db[k]);
      ca[a] = cb[b] = TRUE;
      lb[b] = la[a];
    }
  GString *eq = g_string_new (NULL);
  g_string_append_printf (eq, "%s,%s->", la, lb);
  for (int i = 0; i < ra; i++)
    if (!ca[i])
      g_string_append_c (eq, la[i]);
  for (int i = 0; i < rb; i++)
    if (!cb[i])
      g_string_append_c (eq, lb[i]);
  g_autofree char *e = g_string_free (eq, FALSE);
  if (!same_type_operands (ctx, n, xs, error))
    return FALSE;
  out[0] = einsum_of (ctx, e, 2, xs);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::tensordot", sym_tensordot),
  SYM_FN ("aten::einsum", sym_einsum),
  SYM_FN ("aten::outer", sym_outer),
  SYM_FN ("aten::ge", sym_ge12),
  SYM_FN ("aten::le", sym_le12),
  SYM_FN ("aten::celu", sym_celu),
};
const SymTable sym_opset12 = SYM_TABLE (12, entries);
