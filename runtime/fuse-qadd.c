/* Note [Quantized Add chains]: torch's export of quantized::add and
 * add_relu (and symonnx's, the same nodes) is
 *
 *   DequantizeLinear (a), DequantizeLinear (b) → Add [→ Relu] → QuantizeLinear
 *
 * which ONNX defines, and ONNX Runtime computes, as the float sum of the
 * dequantized values rounded once, half to even.  The model it came from
 * computed something else: PyTorch's quantized add with the qnnpack engine
 * (Debian's torch 1.13 has no other; torchvision's quantized models are
 * built with it) is QNNPACK's fixed-point sum (Note [QNNPACK's add],
 * ir/qnnp-add.c), which differs by one step on sums near a half
 * step, and a step of difference in a residual add grows through the next
 * convolutions (quantized ResNet-50: 2 steps on 10 of its 1000 outputs).
 * So the executor runs such a chain as QNNPACK does, on the integers: it
 * gives the quantized engine's numbers where a standard ONNX runtime gives
 * the float form's.  It is a deliberate departure from ONNX's definition
 * (the only one among the fusions: Note [Fusion]), taken only where the
 * result is QNNPACK's exactly:
 *   - both DequantizeLinears and the QuantizeLinear have constant scalar
 *     float scales and uint8 zero points (quint8: QNNPACK's add; torch
 *     runs qint8 adds elsewhere);
 *   - the Add reads the two DequantizeLinears' outputs, whose types do
 *     not say their shapes differ (QNNPACK does not broadcast: torch runs
 *     a broadcasting add in float, so types that say so stay unfused;
 *     torch's files carry no intermediate types, so where they are
 *     unknown the fused kernel decides at run time: one shape, QNNPACK's
 *     add; else the float form, broadcast, as the unfused nodes compute);
 *   - the Add's output (and the Relu's) has no other reader;
 *   - QNNPACK accepts the scale ratios (tensor_qnnp_add_init).
 * Everything else runs unfused.  SYMONNX_NO_QNNPACK_ADD set in the
 * environment at session creation keeps every such chain unfused (the
 * float form, as ONNX Runtime), for comparisons.  A DequantizeLinear read
 * by others besides the Add stays in the plan for them. */
#include "runtime/fuse-private.h"
#include "runtime/qnnp-add.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  TensorQnnpAdd q;        /* the add as QNNPACK computes it */
  float         sa, sb, ys;   /* the chain's constants, for its float form */
  gint64        za, zb, yz;
  gboolean      relu;
} QAdd;

typedef struct
{
  const RtTensor *a, *b;
  RtTensor       *o;
  const QAdd     *p;
} QAddJob;

static void
qadd_range (gint64 begin, gint64 end, gpointer data)
{
  const QAddJob *j = data;
  rt_qnnp_add_u8 (&j->p->q, j->a->data, j->b->data, j->o->data, begin, end);
}

/* Inputs of different shapes (types that did not say): the float form,
 * broadcast, as the unfused kernels compute it (k-quant.c's
 * DequantizeLinear and QuantizeLinear, Add and Relu in float). */
static gboolean
qadd_float_form (RtCall *call, const QAdd *p, const RtTensor *a, const RtTensor *b, GError **error)
{
  guint rank;
  gint64 dims[RT_MAX_RANK], st_a[RT_MAX_RANK], st_b[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  if (!rt_broadcast_shape (call, a->rank, a->dims, b->rank, b->dims, &rank, dims, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_UINT8, rank, dims, error);
  if (o == NULL)
    return FALSE;
  rt_broadcast_strides (a, rank, dims, st_a);
  rt_broadcast_strides (b, rank, dims, st_b);
  const guint8 *pa = a->data, *pb = b->data;
  guint8 *y = o->data;
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 ia = 0, ib = 0;
      for (guint k = 0; k < rank; k++)
        {
          ia += c[k] * st_a[k];
          ib += c[k] * st_b[k];
        }
      float fa = (float) ((double) (pa[ia] - p->za) * p->sa);
      float fb = (float) ((double) (pb[ib] - p->zb) * p->sb);
      float v = fa + fb;
      if (p->relu && v < 0)
        v = 0;
      double q = nearbyint ((double) (v / p->ys)) + (double) p->yz;
      y[i] = (guint8) (q < 0 ? 0 : q > 255 ? 255 : q);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

static gboolean
k_qdq_add (RtCall *call, GError **error)
{
  const QAdd *p = call->state;
  const RtTensor *a = call->inputs[0], *b = call->inputs[1];
  if (a->dtype != GRAPH_DTYPE_UINT8 || b->dtype != GRAPH_DTYPE_UINT8)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "a quantized Add chain (Note [Quantized Add chains]) "
                     "reads uint8 tensors (got %s and %s)", graph_dtype_name (a->dtype),
                     graph_dtype_name (b->dtype));
      return FALSE;
    }
  if (a->rank != b->rank || memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) != 0)
    return qadd_float_form (call, p, a, b, error);
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_UINT8, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  QAddJob job = { a, b, o, p };
  rt_parallel_for (call, a->numel, 65536, qadd_range, &job);
  return TRUE;
}

static const RtKernelDef qdq_add_def = {
  RT_ONNX ("Add", 1), RT_IN (2, 2), RT_OUT (1, 1), .run = k_qdq_add, .free_state = g_free,
};

gboolean
rt_fuse_qdq_add_is_def (const RtKernelDef *def)
{
  return def == &qdq_add_def;
}

/* v's value when it is a constant scalar of type dt. */
static gboolean
const_scalar (GraphValue *v, GraphDType dt, double *out)
{
  Tensor *t = rt_fuse_const (v);
  if (t == NULL || tensor_dtype (t) != dt || tensor_numel (t) != 1)
    return FALSE;
  *out = tensor_get_double (t, 0);
  return TRUE;
}

/* Whether x and y's types say they have different shapes: known ranks
 * that differ, or a dim of each known (a static size or a symbol) that
 * differs. */
static gboolean
shapes_differ (GraphValue *x, GraphValue *y)
{
  GraphType *tx = graph_value_type (x), *ty = graph_value_type (y);
  if (x == y || tx == NULL || ty == NULL || !graph_type_is_tensor (tx) || !graph_type_is_tensor (ty)
      || graph_type_rank (tx) < 0 || graph_type_rank (ty) < 0)
    return FALSE;
  if (graph_type_rank (tx) != graph_type_rank (ty))
    return TRUE;
  for (int k = 0; k < graph_type_rank (tx); k++)
    {
      const GraphDim *dx = graph_type_dim (tx, (guint) k), *dy = graph_type_dim (ty, (guint) k);
      if (dx && dy && dx->kind == GRAPH_DIM_STATIC && dy->kind == GRAPH_DIM_STATIC
          && dx->value != dy->value)
        return TRUE;
    }
  return FALSE;
}

/* A DequantizeLinear (plan index *j) making v with constant scalar float
 * scale and uint8 zero point, reading a uint8 value (by its type, where
 * known): its input, scale and zero point. */
static GraphValue *
dq_input (const RtFuser *fz, GraphValue *v, int *j, float *scale, gint64 *zp)
{
  *j = rt_fuse_producer (fz, v);
  if (*j < 0 || fz->gone[*j] || !rt_fuse_is_op (&fz->s->nodes[*j], "DequantizeLinear"))
    return NULL;
  GraphNode *d = fz->s->nodes[*j].node;
  double s, z;
  if (graph_node_n_inputs (d) != 3 || !const_scalar (graph_node_input (d, 1), GRAPH_DTYPE_FLOAT, &s)
      || !const_scalar (graph_node_input (d, 2), GRAPH_DTYPE_UINT8, &z))
    return NULL;
  GraphValue *x = graph_node_input (d, 0);
  GraphType *t = graph_value_type (x);
  if (t && graph_type_is_tensor (t) && graph_type_dtype (t) != GRAPH_DTYPE_UINT8)
    return NULL;
  *scale = (float) s;
  *zp = (gint64) z;
  return x;
}

/* Add plan node i as the chain, when it is one QNNPACK computes. */
static void
try_qdq_add (RtFuser *fz, int i)
{
  RtNodePlan *p = &fz->s->nodes[i];
  if (p->n_in != 2 || p->n_out != 1)
    return;
  GraphNode *add = p->node;
  int ja, jb, act = -1;
  float sa, sb;
  gint64 za, zb;
  GraphValue *xa = dq_input (fz, graph_node_input (add, 0), &ja, &sa, &za);
  GraphValue *xb = dq_input (fz, graph_node_input (add, 1), &jb, &sb, &zb);
  if (xa == NULL || xb == NULL || shapes_differ (xa, xb))
    return;
  GraphValue *out = graph_node_output (add, 0);
  int j = rt_fuse_sole_reader (fz, out);
  if (j >= 0 && rt_fuse_is_op (&fz->s->nodes[j], "Relu") && fz->s->nodes[j].n_in == 1
      && fz->s->nodes[j].n_out == 1)
    {
      act = j;
      out = graph_node_output (fz->s->nodes[j].node, 0);
      j = rt_fuse_sole_reader (fz, out);
    }
  if (j < 0 || !rt_fuse_is_op (&fz->s->nodes[j], "QuantizeLinear") || fz->s->nodes[j].n_out != 1)
    return;
  GraphNode *q = fz->s->nodes[j].node;
  double ys, yz;
  if (graph_node_n_inputs (q) != 3 || graph_node_input (q, 0) != out
      || !const_scalar (graph_node_input (q, 1), GRAPH_DTYPE_FLOAT, &ys)
      || !const_scalar (graph_node_input (q, 2), GRAPH_DTYPE_UINT8, &yz))
    return;
  QAdd params = { .sa = sa, .sb = sb, .ys = (float) ys, .za = za, .zb = zb, .yz = (gint64) yz,
                  .relu = act >= 0 };
  if (!tensor_qnnp_add_init (&params.q, sa, za, sb, zb, (float) ys, (gint64) yz, act >= 0))
    return;
  GraphValue *dqa = graph_node_input (add, 0), *dqb = graph_node_input (add, 1);
  GraphValue *ins[2] = { xa, xb };
  rt_fuse_replace (fz, i, &qdq_add_def, g_memdup2 (&params, sizeof params), ins, 2,
                   graph_node_output (q, 0));
  /* DequantizeLinears read by others stay for them (x + x: read twice) */
  if (rt_fuse_sole_reader (fz, dqa) == i)
    fz->gone[ja] = TRUE;
  if (rt_fuse_sole_reader (fz, dqb) == i)
    fz->gone[jb] = TRUE;
  if (act >= 0)
    fz->gone[act] = TRUE;
  fz->gone[j] = TRUE;
}

void
rt_fuse_qdq_add (RtFuser *fz)
{
  if (getenv ("SYMONNX_NO_QNNPACK_ADD"))
    return;
  for (guint i = 0; i < fz->s->n_nodes; i++)
    if (!fz->gone[i] && rt_fuse_is_op (&fz->s->nodes[i], "Add"))
      try_qdq_add (fz, (int) i);
}
