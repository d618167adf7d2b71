/* The rank of a trace value that neither the trace nor the export knows:
 * scripted code inside a trace declares its tensors only as "Tensor", and
 * in the ATen modes the ATen nodes made for them carry no type either.
 * The rank is what a static `x.dim()` test of scripted code needs
 * (F.interpolate's checks inside Mask R-CNN's and Keypoint R-CNN's loops,
 * Note [Static scalars in scripted code] in context.c), so it is taken
 * only from ops whose result rank torch fixes from their inputs' ranks and
 * their list arguments' lengths, never from values; anything else stays
 * unknown (-1) and the test stays a run-time one. */
#include "symbolic/translate.h"
#include <string.h>

#define RANK_DEPTH 64
/* Steps one question may take (a hostile trace's a + a chains would
 * otherwise be explored exponentially). */
#define RANK_BUDGET 4096

/* Length of an int[] argument: a prim::ListConstruct's element count or a
 * 1-D constant's; -1 when unknown. */
static int
list_length (GraphValue *v)
{
  GraphNode *p = v ? graph_value_node (v) : NULL;
  if (p == NULL)
    return -1;
  if (graph_node_is (p, "prim::ListConstruct"))
    return (int) MIN (graph_node_n_inputs (p), (guint) G_MAXINT);
  Tensor *t;
  if (graph_node_is (p, "prim::Constant") && graph_node_get_t (p, "value", &t) && tensor_has_data (t)
      && tensor_rank (t) == 1)
    return (int) MIN (tensor_dim (t, 0), (gint64) G_MAXINT);
  return -1;
}

static int rank_r (SymContext *ctx, GraphValue *v, int depth, guint *steps);

/* Ops whose result has input 0's rank. */
static const char *const same_rank[] = {
  "slice", "narrow", "to", "contiguous", "clone", "detach", "alias", "type_as", "neg", "abs",
  "relu", "sigmoid", "tanh", "exp", "log", "sqrt", "floor", "ceil", "round", "clamp",
  "clamp_min", "clamp_max", "masked_fill", "flip", "roll", "dropout", "softmax", "log_softmax",
  "cumsum", "float", "long", "int", "bool", "double",
};

/* Element-wise ops broadcasting their tensor inputs: the largest rank. */
static const char *const broadcast[] = {
  "add", "sub", "mul", "div", "where", "eq", "ne", "lt", "le", "gt", "ge", "pow", "maximum",
  "minimum", "remainder", "floor_divide", "logical_and", "logical_or",
};

/* Ops whose size list (argument `at`) gives the result's rank. */
static const struct { const char *op; guint at; } sized[] = {
  { "zeros", 0 }, { "ones", 0 }, { "empty", 0 }, { "full", 0 }, { "new_zeros", 1 },
  { "new_ones", 1 }, { "new_empty", 1 }, { "new_full", 1 }, { "expand", 1 }, { "view", 1 },
  { "reshape", 1 }, { "broadcast_to", 1 },
};

static gboolean
in_list (const char *op, const char *const *list, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (strcmp (op, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Ranks of the elements of a Tensor[] argument, all known and equal
 * (torch's cat skips 1-D empty legacy tensors: a list mixing ranks is
 * left unknown). */
static int
list_elements_rank (SymContext *ctx, GraphValue *l, int depth, guint *steps)
{
  GraphNode *p = l ? graph_value_node (l) : NULL;
  if (p == NULL || !graph_node_is (p, "prim::ListConstruct") || graph_node_n_inputs (p) == 0)
    return -1;
  int r = -1;
  for (guint i = 0; i < graph_node_n_inputs (p); i++)
    {
      int e = rank_r (ctx, graph_node_input (p, i), depth + 1, steps);
      if (e < 0 || (r >= 0 && e != r))
        return -1;
      r = e;
    }
  return r;
}

static int
rank_of_node (SymContext *ctx, GraphNode *p, GraphValue *v, int depth, guint *steps)
{
  if (strcmp (graph_node_domain (p), "aten") != 0 || graph_node_n_outputs (p) != 1
      || graph_node_output (p, 0) != v)
    return -1;
  const char *op = graph_node_op_type (p);
  guint nin = graph_node_n_inputs (p);
  for (gsize i = 0; i < G_N_ELEMENTS (sized); i++)
    if (strcmp (op, sized[i].op) == 0)
      return nin > sized[i].at ? list_length (graph_node_input (p, sized[i].at)) : -1;
  if (nin == 0)
    return -1;
  GraphValue *x = graph_node_input (p, 0);
  if (in_list (op, same_rank, G_N_ELEMENTS (same_rank)))
    return rank_r (ctx, x, depth + 1, steps);
  if (in_list (op, broadcast, G_N_ELEMENTS (broadcast)))
    {
      int r = -1;
      for (guint i = 0; i < nin && i < 3; i++)
        {
          GraphValue *in = graph_node_input (p, i);
          GraphType *t = in ? graph_value_type (in) : NULL;
          if (t && !graph_type_is_tensor (t))
            continue;   /* a Scalar argument (add's alpha, a number operand) */
          int e = rank_r (ctx, in, depth + 1, steps);
          if (e < 0)
            return -1;
          r = MAX (r, e);
        }
      return r;
    }
  int r = rank_r (ctx, x, depth + 1, steps);
  if (strcmp (op, "select") == 0)
    return r >= 1 ? r - 1 : -1;
  if (strcmp (op, "unsqueeze") == 0)
    return r >= 0 ? r + 1 : -1;
  if (strcmp (op, "cat") == 0 || strcmp (op, "concat") == 0)
    return list_elements_rank (ctx, x, depth, steps);
  if (strcmp (op, "stack") == 0)
    {
      int e = list_elements_rank (ctx, x, depth, steps);
      return e >= 0 ? e + 1 : -1;
    }
  /* max(x), min(x): every element into one */
  if (nin == 1 && (strcmp (op, "max") == 0 || strcmp (op, "min") == 0))
    return 0;
  /* sum/mean(Tensor self, int[1]? dim, bool keepdim, ScalarType? dtype) */
  gboolean keep;
  if ((strcmp (op, "sum") == 0 || strcmp (op, "mean") == 0) && nin == 4 && r >= 0
      && sym_get_const_bool (graph_node_input (p, 2), &keep))
    {
      int n = list_length (graph_node_input (p, 1));
      return n < 0 || n > r ? -1 : keep ? r : r - n;
    }
  return -1;
}

static int
rank_r (SymContext *ctx, GraphValue *v, int depth, guint *steps)
{
  if (v == NULL || depth > RANK_DEPTH || ++*steps > RANK_BUDGET)
    return -1;
  int r = sym_rank (v);
  if (r >= 0)
    return r;
  GraphValue *d = ctx ? sym_context_mapped (ctx, v) : NULL;
  if (d && sym_rank (d) >= 0)
    return sym_rank (d);
  GraphNode *p = graph_value_node (v);
  return p ? rank_of_node (ctx, p, v, depth, steps) : -1;
}

int
sym_trace_rank (SymContext *ctx, GraphValue *v)
{
  guint steps = 0;
  return rank_r (ctx, v, 0, &steps);
}

/* Element type of a trace value typed only as "Tensor", for the ops whose
 * result type torch fixes without promotion: a factory's dtype argument
 * (None: torch's default, float), `to(x, dtype, ...)` with a constant
 * dtype, and ops that keep input 0's type.  UNDEFINED otherwise. */
static GraphDType dtype_r (SymContext *ctx, GraphValue *v, int depth, guint *steps);

static const struct { const char *op; guint at; } factories[] = {
  { "zeros", 1 }, { "ones", 1 }, { "empty", 1 }, { "full", 2 },
};

static const char *const keeps_type[] = {
  "slice", "narrow", "select", "unsqueeze", "expand", "view", "reshape", "contiguous", "clone",
  "detach", "alias", "neg", "abs", "relu", "flip", "roll", "permute", "transpose", "squeeze",
};

/* Arithmetic whose result type is its tensors' when they share one and
 * every number operand is of no higher category (torch's promotion: a
 * Python number does not widen a tensor of its category or above). */
static const char *const arith[] = { "add", "sub", "mul" };

static GraphDType
arith_dtype (SymContext *ctx, GraphNode *p, int depth, guint *steps)
{
  GraphDType dt = GRAPH_DTYPE_UNDEFINED;
  gboolean float_number = FALSE;
  for (guint i = 0; i < graph_node_n_inputs (p) && i < 2; i++)
    {
      GraphValue *in = graph_node_input (p, i);
      GraphType *t = in ? graph_value_type (in) : NULL;
      if (t && graph_type_kind (t) == GRAPH_TYPE_INT)
        continue;
      if (t && graph_type_kind (t) == GRAPH_TYPE_FLOAT)
        {
          float_number = TRUE;
          continue;
        }
      if (t == NULL || !graph_type_is_tensor (t))
        return GRAPH_DTYPE_UNDEFINED;
      GraphDType e = dtype_r (ctx, in, depth + 1, steps);
      if (e == GRAPH_DTYPE_UNDEFINED || e == GRAPH_DTYPE_BOOL
          || (dt != GRAPH_DTYPE_UNDEFINED && e != dt))
        return GRAPH_DTYPE_UNDEFINED;
      dt = e;
    }
  if (float_number && !graph_dtype_is_floating (dt))
    return GRAPH_DTYPE_UNDEFINED;
  return dt;
}

static GraphDType
dtype_arg (GraphValue *a)
{
  gint64 code;
  GraphDType dt;
  if (sym_is_none (a))
    return GRAPH_DTYPE_FLOAT;
  return sym_get_const_int (a, &code) && sym_scalar_type_dtype (code, &dt) ? dt : GRAPH_DTYPE_UNDEFINED;
}

static GraphDType
dtype_of_node (SymContext *ctx, GraphNode *p, GraphValue *v, int depth, guint *steps)
{
  if (strcmp (graph_node_domain (p), "aten") != 0 || graph_node_n_outputs (p) != 1
      || graph_node_output (p, 0) != v)
    return GRAPH_DTYPE_UNDEFINED;
  const char *op = graph_node_op_type (p);
  guint nin = graph_node_n_inputs (p);
  for (gsize i = 0; i < G_N_ELEMENTS (factories); i++)
    if (strcmp (op, factories[i].op) == 0)
      return nin == factories[i].at + 4 ? dtype_arg (graph_node_input (p, factories[i].at))
                                        : GRAPH_DTYPE_UNDEFINED;
  if (nin == 0)
    return GRAPH_DTYPE_UNDEFINED;
  /* to(Tensor self, ScalarType dtype, bool non_blocking, bool copy, MemoryFormat?) */
  if (strcmp (op, "to") == 0 && nin == 5)
    {
      GraphValue *d = graph_node_input (p, 1);
      GraphType *t = d ? graph_value_type (d) : NULL;
      return t && graph_type_kind (t) == GRAPH_TYPE_INT && !sym_is_none (d) ? dtype_arg (d)
                                                                            : GRAPH_DTYPE_UNDEFINED;
    }
  if (in_list (op, keeps_type, G_N_ELEMENTS (keeps_type)))
    return dtype_r (ctx, graph_node_input (p, 0), depth + 1, steps);
  /* sum(x, dim, keepdim, None) of a floating x keeps its type (an
   * integer one becomes int64) */
  if (strcmp (op, "sum") == 0 && nin == 4 && sym_is_none (graph_node_input (p, 3)))
    {
      GraphDType e = dtype_r (ctx, graph_node_input (p, 0), depth + 1, steps);
      return graph_dtype_is_floating (e) ? e : GRAPH_DTYPE_UNDEFINED;
    }
  if (in_list (op, arith, G_N_ELEMENTS (arith)))
    return arith_dtype (ctx, p, depth, steps);
  if (strcmp (op, "cat") == 0)
    {
      GraphNode *l = graph_value_node (graph_node_input (p, 0));
      if (l == NULL || !graph_node_is (l, "prim::ListConstruct") || graph_node_n_inputs (l) == 0)
        return GRAPH_DTYPE_UNDEFINED;
      GraphDType dt = GRAPH_DTYPE_UNDEFINED;
      for (guint i = 0; i < graph_node_n_inputs (l); i++)
        {
          GraphDType e = dtype_r (ctx, graph_node_input (l, i), depth + 1, steps);
          if (e == GRAPH_DTYPE_UNDEFINED || (i && e != dt))
            return GRAPH_DTYPE_UNDEFINED;   /* cat promotes mixed types */
          dt = e;
        }
      return dt;
    }
  return GRAPH_DTYPE_UNDEFINED;
}

static GraphDType
dtype_r (SymContext *ctx, GraphValue *v, int depth, guint *steps)
{
  if (v == NULL || depth > RANK_DEPTH || ++*steps > RANK_BUDGET)
    return GRAPH_DTYPE_UNDEFINED;
  GraphDType dt = sym_dtype (v);
  if (dt != GRAPH_DTYPE_UNDEFINED)
    return dt;
  GraphValue *d = ctx ? sym_context_mapped (ctx, v) : NULL;
  if (d && sym_dtype (d) != GRAPH_DTYPE_UNDEFINED)
    return sym_dtype (d);
  GraphNode *p = graph_value_node (v);
  return p ? dtype_of_node (ctx, p, v, depth, steps) : GRAPH_DTYPE_UNDEFINED;
}

GraphDType
sym_trace_dtype (SymContext *ctx, GraphValue *v)
{
  guint steps = 0;
  return dtype_r (ctx, v, 0, &steps);
}
