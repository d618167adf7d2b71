/* Losses (issue 12), as torch 1.13's symbolic_opset12.py writes them:
 * nll_loss, nll_loss2d, nll_loss_nd (NegativeLogLikelihoodLoss) and
 * cross_entropy_loss (SoftmaxCrossEntropyLoss) from opset 12, where those
 * ops start, and before 12 (where torch refuses) composed of opset-9 ops;
 * binary_cross_entropy_with_logits, torch's composition of
 * Sigmoid/Log/Sub/Mul, which needs nothing of opset 12, from opset 9
 * (torch registers it from 12). */
#include "symbolic/opset-tables.h"
#include <string.h>

#define G sym_graph (ctx)

/* The reduction argument (0 none, 1 mean, 2 sum) as ONNX's string. */
static const char *
reduction_name (GraphValue *src)
{
  static const char *const names[] = { "none", "mean", "sum" };
  gint64 r;
  if (!sym_get_const_int (src, &r) || r < 0 || r > 2)
    return NULL;
  return names[r];
}

/* The arguments of aten::nll_loss/nll_loss2d/nll_loss_nd(self, target,
 * weight, reduction, ignore_index) and cross_entropy_loss(..., ignore_index,
 * label_smoothing): what ONNX's loss ops can express. */
typedef struct
{
  GraphValue *self, *target, *weight;
  const char *reduction;   /* "none", "mean", "sum" */
  gint64      ignore_index;
} ClassLoss;

static gboolean
class_loss_args (SymContext *ctx, GraphNode *n, gboolean softmax, ClassLoss *a, GError **error)
{
  if (!sym_parse_args (ctx, n, "vvv", &a->self, &a->target, &a->weight, error))
    return FALSE;
  a->reduction = graph_node_n_inputs (n) > 3 ? reduction_name (graph_node_input (n, 3)) : NULL;
  if (a->reduction == NULL)
    /* torch 1.13: also refuses (it indexes ["none", "mean", "sum"] with a constant reduction) */
    return sym_unimplemented (ctx, n, error, "a reduction that is not a constant 0, 1 or 2");
  /* a size of the trace folds to a constant without dynamic axes, as
   * torch's shape inference folds it (Note [Traced sizes folded]) */
  if (graph_node_n_inputs (n) < 5 || !sym_traced_int (ctx, graph_node_input (n, 4), &a->ignore_index))
    /* torch 1.13: also refuses (ignore_index is written as an attribute: it must be a constant) */
    return sym_unimplemented (ctx, n, error, "a computed ignore_index");
  double smoothing = 0.0;
  if (softmax && graph_node_n_inputs (n) > 5 && !sym_is_none (graph_node_input (n, 5))
      && (!sym_get_const_double (graph_node_input (n, 5), &smoothing) || smoothing != 0.0))
    /* torch 1.13: also refuses ("Unsupported: ONNX does not support label_smoothing") */
    return sym_unimplemented (ctx, n, error, "label_smoothing (SoftmaxCrossEntropyLoss has none)");
  GraphDType tt = sym_dtype (a->target);
  if (tt != GRAPH_DTYPE_INT64 && tt != GRAPH_DTYPE_INT32)
    /* torch 1.13: passes class probabilities as SoftmaxCrossEntropyLoss's target, which must be
     * int32/int64; refused here because that model is ill-typed */
    return sym_unimplemented (ctx, n, error, "a target that is not class indices (int64 or int32)%s",
                              graph_dtype_is_floating (tt) ? ": class probabilities" : "");
  return TRUE;
}

/* From opset 12: NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss (the
 * table's constant), as torch.  ignore_index is always written (the ONNX
 * op has no default; torch's is -100). */
static gboolean
sym_class_loss (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);
  ClassLoss a;
  if (!class_loss_args (ctx, n, strcmp (op, "SoftmaxCrossEntropyLoss") == 0, &a, error))
    return FALSE;
  GraphValue *ins[3] = { a.self, a.target, a.weight };
  out[0] = graph_opv (G, op, a.weight ? 3 : 2, ins, "reduction_s", a.reduction, "ignore_index_i",
                      a.ignore_index, NULL);
  return TRUE;
}

/* Before opset 12 (torch refuses): the same loss from opset-9 ops.  The
 * log-probabilities (LogSoftmax over dim 1 for cross_entropy_loss) times
 * OneHot(target) summed over dim 1 pick −loss per element; ignored targets
 * read class 0 and get weight 0; the weight is Gather(weight, target).
 * mean divides the sum by the sum of the weights, as PyTorch (NaN when
 * every target is ignored, as PyTorch).  Needs a static class count. */
static gboolean
sym_class_loss_composed (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gboolean softmax = strcmp (sym_user_data (ctx), "SoftmaxCrossEntropyLoss") == 0;
  ClassLoss a;
  if (!class_loss_args (ctx, n, softmax, &a, error))
    return FALSE;
  int r = sym_rank (a.self);
  GraphDType dt = sym_dtype (a.self);
  gint64 dims[TENSOR_MAX_RANK];
  if (r < 2 || !sym_static_shape (a.self, dims) || !graph_dtype_is_floating (dt))
    /* torch 1.13: also refuses (nll_loss and cross_entropy_loss only from opset 12) */
    return sym_unimplemented (ctx, n, error, "a loss over an input that is not (N, C, ...) floats with a "
                              "static C");
  GraphValue *logp = softmax ? sym_softmax_values (ctx, a.self, 1, "LogSoftmax", TRUE) : a.self;
  GraphValue *target = sym_dtype (a.target) == GRAPH_DTYPE_INT64 ? a.target
                                                                 : sym_cast (ctx, a.target, GRAPH_DTYPE_INT64);
  GraphValue *valid = graph_op (G, "Not", graph_op (G, "Equal", target, sym_const_i64 (ctx, a.ignore_index),
                                                    NULL), NULL);
  GraphValue *safe = graph_op (G, "Where", valid, target, sym_const_i64 (ctx, 0), NULL);
  static const gint64 two = 2;
  static const double off_on[2] = { 0.0, 1.0 };
  GraphValue *values = sym_const_doubles (ctx, dt, 1, &two, off_on, error);
  if (values == NULL)
    return FALSE;
  GraphValue *onehot = graph_op (G, "OneHot", safe, sym_const_ints (ctx, 1, &dims[1]), values,
                                 "axis_i", (gint64) 1, NULL);
  gint64 one = 1;
  GraphValue *picked = sym_reduce (ctx, "ReduceSum", graph_op (G, "Mul", logp, onehot, NULL), 1, &one, FALSE);
  GraphValue *w = sym_cast (ctx, valid, dt);
  if (a.weight)
    w = graph_op (G, "Mul", graph_op (G, "Gather", a.weight, safe, "axis_i", (gint64) 0, NULL), w, NULL);
  GraphValue *loss = graph_op (G, "Mul", graph_op (G, "Neg", picked, NULL), w, NULL);
  if (strcmp (a.reduction, "sum") == 0)
    loss = sym_reduce (ctx, "ReduceSum", loss, 0, NULL, FALSE);
  else if (strcmp (a.reduction, "mean") == 0)
    loss = graph_op (G, "Div", sym_reduce (ctx, "ReduceSum", loss, 0, NULL, FALSE),
                     sym_reduce (ctx, "ReduceSum", w, 0, NULL, FALSE), NULL);
  out[0] = loss;
  return TRUE;
}

/* aten::binary_cross_entropy_with_logits(self, target, weight, pos_weight,
 * reduction): −(t·log σ(x)·pos_weight + (1 − t)·log(1 − σ(x))), times
 * weight, then ReduceMean/ReduceSum over everything, in torch's node
 * order.  As in torch's export, log(1 − σ(x)) is −inf where σ(x) rounds to
 * 1 (x above about 17 in float), where PyTorch's stable form is finite. */
static gboolean
sym_bce_with_logits (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *t, *weight, *pos_weight;
  gint64 reduction;
  if (!sym_parse_args (ctx, n, "vvvvi", &x, &t, &weight, &pos_weight, &reduction, error))
    return FALSE;
  if (reduction < 0 || reduction > 2)
    /* torch 1.13: also refuses (_onnx_unsupported "reduction other than none, mean, or sum") */
    return sym_unimplemented (ctx, n, error, "reduction %" G_GINT64_FORMAT, reduction);
  GraphValue *one = sym_scalar_like (ctx, 1.0, x);
  GraphValue *sig = graph_op (G, "Sigmoid", x, NULL);
  GraphValue *log_sig = graph_op (G, "Log", sig, NULL);
  GraphValue *sub_1_x = graph_op (G, "Sub", one, sig, NULL);
  GraphValue *sub_1_y = graph_op (G, "Sub", one, t, NULL);
  GraphValue *log_1_x = graph_op (G, "Log", sub_1_x, NULL);
  GraphValue *pos = graph_op (G, "Mul", t, log_sig, NULL);
  if (pos_weight)
    pos = graph_op (G, "Mul", pos, pos_weight, NULL);
  GraphValue *y = graph_op (G, "Neg", graph_op (G, "Add", pos, graph_op (G, "Mul", sub_1_y, log_1_x, NULL),
                                                NULL), NULL);
  if (weight)
    y = graph_op (G, "Mul", weight, y, NULL);
  if (reduction == 1)
    y = graph_op (G, "ReduceMean", y, "keepdims_i", (gint64) 0, NULL);
  else if (reduction == 2)
    y = graph_op (G, "ReduceSum", y, "keepdims_i", (gint64) 0, NULL);
  out[0] = y;
  return TRUE;
}

static const SymEntry entries9[] = {
  SYM_FN ("aten::binary_cross_entropy_with_logits", sym_bce_with_logits),
  SYM_DATA ("aten::nll_loss", sym_class_loss_composed, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::nll_loss2d", sym_class_loss_composed, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::nll_loss_nd", sym_class_loss_composed, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::cross_entropy_loss", sym_class_loss_composed, "SoftmaxCrossEntropyLoss"),
};
const SymTable sym_opset9_loss = SYM_TABLE (9, entries9);

static const SymEntry entries12[] = {
  SYM_DATA ("aten::nll_loss", sym_class_loss, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::nll_loss2d", sym_class_loss, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::nll_loss_nd", sym_class_loss, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::cross_entropy_loss", sym_class_loss, "SoftmaxCrossEntropyLoss"),
};
const SymTable sym_opset12_loss = SYM_TABLE (12, entries12);
