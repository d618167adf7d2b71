/* Losses (issue 12), as torch 1.13's symbolic_opset12.py writes them:
 * nll_loss, nll_loss2d, nll_loss_nd (NegativeLogLikelihoodLoss) and
 * cross_entropy_loss (SoftmaxCrossEntropyLoss) from opset 12, where those
 * ops start; binary_cross_entropy_with_logits, torch's composition of
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

/* aten::nll_loss/nll_loss2d/nll_loss_nd(self, target, weight, reduction,
 * ignore_index) → NegativeLogLikelihoodLoss; cross_entropy_loss(self,
 * target, weight, reduction, ignore_index, label_smoothing) →
 * SoftmaxCrossEntropyLoss.  ignore_index is always written (the ONNX op
 * has no default; torch's is -100). */
static gboolean
sym_class_loss (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  const char *op = sym_user_data (ctx);
  gboolean softmax = strcmp (op, "SoftmaxCrossEntropyLoss") == 0;
  GraphValue *self, *target, *weight;
  if (!sym_parse_args (ctx, n, "vvv", &self, &target, &weight, error))
    return FALSE;
  const char *reduction = graph_node_n_inputs (n) > 3 ? reduction_name (graph_node_input (n, 3)) : NULL;
  gint64 ignore_index;
  if (reduction == NULL)
    return sym_unimplemented (ctx, n, error, "a reduction that is not a constant 0, 1 or 2");
  if (graph_node_n_inputs (n) < 5 || !sym_get_const_int (graph_node_input (n, 4), &ignore_index))
    return sym_unimplemented (ctx, n, error, "a computed ignore_index");
  double smoothing = 0.0;
  if (softmax && graph_node_n_inputs (n) > 5 && !sym_is_none (graph_node_input (n, 5))
      && (!sym_get_const_double (graph_node_input (n, 5), &smoothing) || smoothing != 0.0))
    return sym_unimplemented (ctx, n, error, "label_smoothing (SoftmaxCrossEntropyLoss has none)");
  GraphDType tt = sym_dtype (target);
  if (tt != GRAPH_DTYPE_INT64 && tt != GRAPH_DTYPE_INT32)
    return sym_unimplemented (ctx, n, error, "a target that is not class indices (int64 or int32)%s",
                              graph_dtype_is_floating (tt) ? ": class probabilities" : "");
  GraphValue *ins[3] = { self, target, weight };
  out[0] = graph_opv (G, op, weight ? 3 : 2, ins, "reduction_s", reduction, "ignore_index_i", ignore_index,
                      NULL);
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
};
const SymTable sym_opset9_loss = SYM_TABLE (9, entries9);

static const SymEntry entries12[] = {
  SYM_DATA ("aten::nll_loss", sym_class_loss, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::nll_loss2d", sym_class_loss, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::nll_loss_nd", sym_class_loss, "NegativeLogLikelihoodLoss"),
  SYM_DATA ("aten::cross_entropy_loss", sym_class_loss, "SoftmaxCrossEntropyLoss"),
};
const SymTable sym_opset12_loss = SYM_TABLE (12, entries12);
