/* Note [Element types a schema does not allow]
 * PyTorch computes an elementwise op in its result type; ONNX defines many
 * ops for fewer element types (Add-13 has no uint8, int8, int16 or bool;
 * Relu-13 and Reciprocal-13 only floating types).  Where a node's inputs
 * have a type its schema does not allow, the node computes in a wider type
 * that holds every value exactly, between Casts, as torch does op by op
 * (op_with_optional_float_cast):
 *   - Add, Sub, Mul, Neg, Sum, Pow of small integers in int32 (int64): the
 *     Cast back wraps as the narrow type's arithmetic does (modular);
 *     of bools (Add, Mul) in int32, the Cast back is "non-zero";
 *   - Abs, Max, Min, Relu, comparisons: in an integer type, else in float
 *     (16-bit and smaller) or double (32-bit), which hold every value;
 *   - a float-computing op (Reciprocal, Sqrt, ...) of an integer input
 *     whose declared output is floating: the input cast to that type (what
 *     PyTorch computes: 1 / (float) x).
 * int64 and floating inputs are left alone (no wider exact type): the
 * checker reports those. */
#include "export/export.h"
#include "export/onnx-schema.h"
#include <string.h>

typedef enum { K_RING, K_ORDER, K_COMPARE, K_FLOAT } Kind;

static const struct { const char *op; Kind kind; } ops[] = {
  { "Add", K_RING }, { "Sub", K_RING }, { "Mul", K_RING }, { "Neg", K_RING }, { "Sum", K_RING },
  { "Pow", K_RING }, { "Abs", K_ORDER }, { "Max", K_ORDER }, { "Min", K_ORDER }, { "Relu", K_ORDER },
  { "Greater", K_COMPARE }, { "Less", K_COMPARE }, { "Equal", K_COMPARE },
  { "GreaterOrEqual", K_COMPARE }, { "LessOrEqual", K_COMPARE },
  { "Reciprocal", K_FLOAT }, { "Sqrt", K_FLOAT }, { "Exp", K_FLOAT }, { "Log", K_FLOAT },
  { "Sin", K_FLOAT }, { "Cos", K_FLOAT }, { "Tanh", K_FLOAT }, { "Sigmoid", K_FLOAT },
  { "Erf", K_FLOAT }, { "Floor", K_FLOAT }, { "Ceil", K_FLOAT },
};

static GraphDType
dtype_of (GraphValue *v)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  return t && graph_type_is_tensor (t) ? graph_type_dtype (t) : GRAPH_DTYPE_UNDEFINED;
}

static gboolean
allowed (const OnnxSchemaParam *p, GraphDType d)
{
  const OnnxTypeSet *ts = p ? onnx_schema_typeset (p->typeset) : NULL;
  return ts && d > 0 && d < 32 && (ts->tensor & (1u << d));
}

/* A copy of v's type with element type d. */
static void
set_dtype_like (GraphValue *dst, GraphValue *like, GraphDType d)
{
  GraphType *t = graph_value_type (like);
  if (t == NULL || !graph_type_is_tensor (t))
    return;
  int r = graph_type_rank (t);
  GraphDim dims[TENSOR_MAX_RANK];
  for (int k = 0; k < r && k < TENSOR_MAX_RANK; k++)
    dims[k] = *graph_type_dim (t, (guint) k);
  g_autoptr (GraphType) nt = graph_type_new_tensor (d, r, r > 0 ? dims : NULL);
  graph_value_set_type (dst, nt);
}

/* The first of `cands` every parameter in params[0..n) allows. */
static GraphDType
first_allowed (const GraphDType *cands, guint nc, const OnnxSchemaParam *const *params, guint n)
{
  for (guint c = 0; c < nc; c++)
    {
      gboolean ok = TRUE;
      for (guint i = 0; i < n && ok; i++)
        ok = allowed (params[i], cands[c]);
      if (ok)
        return cands[c];
    }
  return GRAPH_DTYPE_UNDEFINED;
}

static gboolean
small_int (GraphDType d)
{
  return d == GRAPH_DTYPE_BOOL || d == GRAPH_DTYPE_INT8 || d == GRAPH_DTYPE_UINT8
         || d == GRAPH_DTYPE_INT16 || d == GRAPH_DTYPE_UINT16;
}

/* The type node n computes in instead of d (all its type-T inputs are d);
 * UNDEFINED when there is none. */
static GraphDType
wider_type (Kind kind, GraphDType d, const OnnxSchemaParam *const *params, guint n)
{
  static const GraphDType ints[] = { GRAPH_DTYPE_INT32, GRAPH_DTYPE_INT64 };
  static const GraphDType ints64[] = { GRAPH_DTYPE_INT64 };
  static const GraphDType floats[] = { GRAPH_DTYPE_FLOAT, GRAPH_DTYPE_DOUBLE };
  static const GraphDType doubles[] = { GRAPH_DTYPE_DOUBLE };
  gboolean i32 = d == GRAPH_DTYPE_INT32 || d == GRAPH_DTYPE_UINT32;
  if (!small_int (d) && !i32)
    return GRAPH_DTYPE_UNDEFINED;
  GraphDType w = small_int (d) ? first_allowed (ints, 2, params, n) : first_allowed (ints64, 1, params, n);
  if (w || kind == K_RING)
    return w;
  return small_int (d) ? first_allowed (floats, 2, params, n) : first_allowed (doubles, 1, params, n);
}

static GraphValue *
cast_before (Graph *g, GraphNode *n, GraphValue *v, GraphDType to)
{
  GraphNode *saved = graph_get_insert_point (g);
  graph_set_insert_point (g, n);
  GraphValue *c = graph_op (g, "Cast", v, "to_i", (gint64) to, NULL);
  graph_set_insert_point (g, saved);
  if (c)
    set_dtype_like (c, v, to);
  return c;
}

static guint
legalize_node (Graph *g, GraphNode *n, int opset)
{
  if (strcmp (graph_node_domain (n), GRAPH_ONNX_DOMAIN) != 0 || graph_node_n_outputs (n) != 1)
    return 0;
  const char *op = graph_node_op_type (n);
  Kind kind = K_RING;
  gboolean known = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops) && !known; i++)
    if (strcmp (ops[i].op, op) == 0)
      kind = ops[i].kind, known = TRUE;
  const OnnxSchema *s = known ? onnx_schema_lookup ("", op, opset) : NULL;
  guint nin = graph_node_n_inputs (n);
  if (s == NULL || nin == 0 || nin > 8)
    return 0;
  /* Pow's exponent has its own type (T1): only the base is T */
  guint nt = strcmp (op, "Pow") == 0 ? 1 : nin;
  GraphDType d = dtype_of (graph_node_input (n, 0));
  const OnnxSchemaParam *params[9];
  gboolean fine = TRUE;
  for (guint i = 0; i < nt; i++)
    {
      params[i] = onnx_schema_input_param (s, i);
      if (dtype_of (graph_node_input (n, i)) != d || d == GRAPH_DTYPE_UNDEFINED)
        return 0;
      fine &= allowed (params[i], d);
    }
  if (fine)
    return 0;
  GraphValue *out = graph_node_output (n, 0);
  GraphDType out_d = dtype_of (out), w;
  if (kind == K_FLOAT)
    {
      /* computed in the declared floating output type */
      params[nt] = onnx_schema_output_param (s, 0);
      if (!graph_dtype_is_floating (out_d) || graph_dtype_is_floating (d))
        return 0;
      w = first_allowed (&out_d, 1, params, nt + 1);
    }
  else
    {
      if (kind == K_RING && d == GRAPH_DTYPE_BOOL && strcmp (op, "Add") != 0 && strcmp (op, "Mul") != 0)
        return 0;
      guint np = nt;
      if (kind != K_COMPARE)
        params[np++] = onnx_schema_output_param (s, 0);
      w = wider_type (kind, d, params, np);
    }
  if (w == GRAPH_DTYPE_UNDEFINED)
    return 0;
  for (guint i = 0; i < nt; i++)
    {
      GraphValue *c = cast_before (g, n, graph_node_input (n, i), w);
      if (c == NULL)
        return 0;
      graph_node_set_input (n, i, c);
    }
  if (kind == K_COMPARE || kind == K_FLOAT)
    return 1;
  /* the result back in the type PyTorch computes */
  GraphNode *next = graph_node_next (n);
  GraphNode *saved = graph_get_insert_point (g);
  graph_set_insert_point (g, next);
  GraphValue *back = graph_op (g, "Cast", out, "to_i", (gint64) d, NULL);
  graph_set_insert_point (g, saved);
  if (back == NULL)
    return 1;
  set_dtype_like (back, out, d);
  set_dtype_like (out, out, w);
  graph_value_replace_all_uses (out, back);
  graph_node_set_input (graph_value_node (back), 0, out);
  return 1;
}

guint
export_legalize_element_types (Graph *g, int opset)
{
  guint changes = 0;
  graph_foreach_node (g, n)
    {
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize b = 0; b < len; b++)
            changes += export_legalize_element_types (subs[b], opset);
        }
      changes += legalize_node (g, n, opset);
    }
  return changes;
}
