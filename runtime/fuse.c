/* Fusion at session creation (Note [Fusion], session-private.h):
 *
 *   Conv [+ Add (z)] [+ Relu | Clip]  →  one Conv whose epilogue adds z and
 *                                        applies the activation per block
 *   Conv [+ Relu | Clip] + MaxPool    →  an image's first Conv (conv-direct.c)
 *                                        pooling its rows as they are made
 *   Add + Relu | Clip                 →  one pass over the elements
 *   DequantizeLinear (x, w, b) → Conv [→ Relu] → QuantizeLinear
 *                                     →  one integer convolution (Note
 *                                        [Quantized Conv chains], k-quant.c)
 *   DequantizeLinear (a, b) → Add [→ Relu] → QuantizeLinear
 *                                     →  QNNPACK's integer add (Note
 *                                        [Quantized Add chains], fuse-qadd.c)
 *
 * The first three compute each element with the same operations in the
 * same order as the unfused nodes, so results are bit-identical; the
 * quantized Conv chain sums exactly what the Conv sums in float; the
 * quantized Add chain computes PyTorch's quantized engine's integers, not
 * the float form (SYMONNX_NO_QNNPACK_ADD keeps it unfused). */
#include "runtime/fuse-private.h"
#include "runtime/kernels-private.h"
#include "runtime/spatial.h"
#include "runtime/conv-packed.h"
#include "runtime/conv-direct.h"
#include <stdlib.h>
#include <math.h>
#include <string.h>

typedef struct
{
  gboolean  has_sum;
  RtActKind act;
  gint64    clip_opset;   /* Clip before opset 11 has its bounds as attributes */
  double    lo, hi;       /* ... read here */
  RtPackedW *packed;      /* the Conv's state: its packed weights (or NULL) */
  const GraphNode *pool;  /* a MaxPool after the activation, or NULL */
} Fused;

static void
fused_free (gpointer state)
{
  Fused *f = state;
  rt_conv_packed_free (f->packed);
  g_free (f);
}

/* Inputs of a fused Conv: X, W, B, Z (the Add's other operand), Clip's min and max. */
enum { F_X, F_W, F_B, F_Z, F_MIN, F_MAX, F_N_IN };
/* Of a fused Add: A, B, Clip's min and max. */
enum { A_A, A_B, A_MIN, A_MAX, A_N_IN };

/* The epilogue's activation, its Clip bounds from the node's inputs
 * (opset 11 on; numel 1, else no bound, as Clip) or attributes. */
static void
fused_act (const RtCall *call, const Fused *f, guint min_at, RtEpilogue *ep)
{
  ep->act = f->act;
  ep->lo = f->lo;
  ep->hi = f->hi;
  if (f->act != RT_ACT_CLIP || f->clip_opset < 11)
    return;
  const RtTensor *mn = call->inputs[min_at], *mx = call->inputs[min_at + 1];
  if (mn && mn->numel == 1)
    ep->lo = rt_get_f64 (mn, 0);
  if (mx && mx->numel == 1)
    ep->hi = rt_get_f64 (mx, 0);
}

RtTensor *
rt_fuse_output (RtCall *call)
{
  RtSession *s = call->ctx;
  return &s->rt[s->current->out_idx[0]];
}

/* The activation alone on output 0, in place. */
static void
act_in_place (RtCall *call, const RtEpilogue *ep)
{
  RtEpilogue act = *ep;
  act.sum = NULL;
  RtTensor *o = rt_fuse_output (call);
  rt_epilogue_apply (o->dtype, o->data, 0, o->numel, &act);
}

/* tmp := the Conv (then ep, or NULL) in scratch RT_N_SCRATCH - 1, for a
 * fused node whose last step is another kernel's. */
static gboolean
conv_into_scratch (RtCall *call, const Fused *f, const RtTensor *x, const RtTensor *wt,
                   const RtTensor *bias, gint64 group, const RtWindow *w, const RtEpilogue *ep,
                   RtTensor *tmp, GError **error)
{
  gint64 dims[5] = { x->dims[0], wt->dims[0] };
  for (guint i = 0; i < w->nsp; i++)
    dims[2 + i] = w->out[3 - w->nsp + i];
  gsize nbytes;
  if (!tensor_shape_nbytes (x->dtype, x->rank, dims, &nbytes))
    {
      rt_call_error (call, error, RT_ERROR_TOO_LARGE, "the output's size overflows");
      return FALSE;
    }
  *tmp = (RtTensor) { .dtype = x->dtype };
  return (tmp->data = rt_call_scratch_n (call, RT_N_SCRATCH - 1, nbytes, error)) != NULL
         && rt_conv_ex (call, x, wt, bias, group, w, ep, tmp, f->packed, error);
}

/* Conv [+ act] + MaxPool: conv-direct.c pools the Conv's rows as it makes
 * them where it applies; otherwise the Conv into scratch, then the pool,
 * as unfused. */
static gboolean
conv_pool (RtCall *call, const Fused *f, const RtTensor *x, const RtTensor *wt,
           const RtTensor *bias, gint64 group, const RtWindow *w, const RtEpilogue *ep,
           GError **error)
{
  RtTensor cy = { .dtype = x->dtype, .rank = x->rank, .dims = { x->dims[0], wt->dims[0] } };
  for (guint i = 0; i < w->nsp; i++)
    cy.dims[2 + i] = w->out[3 - w->nsp + i];
  cy.numel = rt_shape_numel (cy.rank, cy.dims);
  /* the pool's window from its attributes (and its name in errors) */
  RtWindow pw;
  const GraphNode *conv = call->node;
  call->node = f->pool;
  gboolean ok = rt_window_init (call, &cy, NULL, rt_attr_i (f->pool, "ceil_mode", 0) != 0, &pw,
                                error);
  call->node = conv;
  if (!ok)
    return FALSE;
  gint64 mpad;
  gboolean narrow;
  const float *taps = rt_conv_packed_taps (f->packed, wt, &mpad, &narrow);
  if (taps && !narrow && rt_conv_direct_applies (x, group, w) && rt_conv_direct_pool_applies (&pw))
    {
      gint64 dims[4] = { cy.dims[0], cy.dims[1], pw.out[1], pw.out[2] };
      RtTensor *y = rt_call_output (call, 0, x->dtype, 4, dims, error);
      return y && rt_conv_direct (call, taps, mpad, x, wt, bias, w, &pw, y, ep, error);
    }
  RtTensor tmp;
  return conv_into_scratch (call, f, x, wt, bias, group, w, ep, &tmp, error)
         && rt_pool (call, &tmp, &pw, TRUE, FALSE, error);
}

static gboolean
k_conv_fused (RtCall *call, GError **error)
{
  const Fused *f = call->state;
  const RtTensor *x = call->inputs[F_X], *wt = call->inputs[F_W], *bias = call->inputs[F_B];
  const RtTensor *z = call->inputs[F_Z];
  gint64 group;
  RtWindow w;
  if (!rt_conv_window (call, x, wt, &group, &w, error))
    return FALSE;
  RtEpilogue ep = { 0 };
  fused_act (call, f, F_MIN, &ep);
  if (f->pool)
    return conv_pool (call, f, x, wt, bias, group, &w, &ep, error);
  if (!f->has_sum)
    return rt_conv_ex (call, x, wt, bias, group, &w, &ep, NULL, f->packed, error);
  gboolean same = z->dtype == x->dtype && z->rank == x->rank && z->dims[0] == x->dims[0]
                  && z->dims[1] == wt->dims[0];
  for (guint i = 0; same && i < w.nsp; i++)
    same = z->dims[2 + i] == w.out[3 - w.nsp + i];
  if (same)
    {
      ep.sum = z;
      return rt_conv_ex (call, x, wt, bias, group, &w, &ep, NULL, f->packed, error);
    }
  /* The Add broadcasts: Conv into scratch, then Add, then the activation. */
  RtTensor tmp;
  if (!conv_into_scratch (call, f, x, wt, bias, group, &w, NULL, &tmp, error)
      || !rt_elementwise_binary (call, &tmp, z, "Add", error))
    return FALSE;
  act_in_place (call, &ep);
  return TRUE;
}

typedef struct
{
  const RtTensor   *a, *b;
  RtTensor         *o;
  const RtEpilogue *ep;
} AddJob;

#define GEN_ADD(E, T)                                                       \
  static void add_##E (const T *a, const T *b, T *o, gint64 n)               \
  {                                                                         \
    for (gint64 i = 0; i < n; i++)                                          \
      o[i] = a[i] + b[i];                                                   \
  }
RT_FOREACH_FLOAT (GEN_ADD)

static void
add_range (gint64 begin, gint64 end, gpointer data)
{
  const AddJob *j = data;
  if (j->o->dtype == GRAPH_DTYPE_FLOAT)
    add_FLOAT ((const float *) j->a->data + begin, (const float *) j->b->data + begin,
               (float *) j->o->data + begin, end - begin);
  else
    add_DOUBLE ((const double *) j->a->data + begin, (const double *) j->b->data + begin,
                (double *) j->o->data + begin, end - begin);
  char *o = (char *) j->o->data + (gsize) begin * rt_dtype_size (j->o->dtype);
  rt_epilogue_apply (j->o->dtype, o, begin, end - begin, j->ep);
}

static gboolean
k_add_fused (RtCall *call, GError **error)
{
  const Fused *f = call->state;
  const RtTensor *a = call->inputs[A_A], *b = call->inputs[A_B];
  RtEpilogue ep = { 0 };
  fused_act (call, f, A_MIN, &ep);
  gboolean same = a->dtype == b->dtype && a->rank == b->rank
                  && (a->dtype == GRAPH_DTYPE_FLOAT || a->dtype == GRAPH_DTYPE_DOUBLE)
                  && memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) == 0;
  if (!same)
    {
      /* Broadcasting or other element types: the Add kernel, then the
       * activation's own kernel in place (same errors as unfused). */
      if (!rt_elementwise_binary (call, a, b, "Add", error))
        return FALSE;
      RtTensor o = *rt_fuse_output (call);
      if (o.dtype == GRAPH_DTYPE_FLOAT || o.dtype == GRAPH_DTYPE_DOUBLE)
        {
          act_in_place (call, &ep);
          return TRUE;
        }
      if (f->act == RT_ACT_RELU)
        return rt_elementwise_unary (call, &o, "Relu", 0, 0, 0, error);
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "fused Add + Clip of %s",
                     graph_dtype_name (o.dtype));
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  AddJob job = { a, b, o, &ep };
  rt_parallel_for (call, a->numel, 32768, add_range, &job);
  return TRUE;
}

static const RtKernelDef conv_fused_def = {
  RT_ONNX ("Conv", 1), RT_IN (F_N_IN, F_N_IN), RT_OUT (1, 1), .dtypes = RT_DT_FLOATS,
  .run = k_conv_fused, .free_state = fused_free,
};
static const RtKernelDef add_fused_def = {
  RT_ONNX ("Add", 1), RT_IN (A_N_IN, A_N_IN), RT_OUT (1, 1), .run = k_add_fused,
  .free_state = fused_free,
};

static gboolean
k_qdq_conv_fused (RtCall *call, GError **error)
{
  const Fused *f = call->state;
  return rt_qdq_conv (call, f->act == RT_ACT_RELU, error);
}

static const RtKernelDef qdq_conv_def = {
  RT_ONNX ("Conv", 1), RT_IN (8, 11), RT_OUT (1, 1), .run = k_qdq_conv_fused,
  .free_state = fused_free,
};

gboolean
rt_fuse_is_fused_def (const RtKernelDef *def)
{
  return def == &conv_fused_def || def == &add_fused_def || def == &qdq_conv_def
         || rt_fuse_transformer_is_def (def) || rt_fuse_qdq_add_is_def (def);
}

/* ---- finding the chains --------------------------------------------------- */

gboolean
rt_fuse_is_op (const RtNodePlan *p, const char *op)
{
  return p->fused_in == NULL && strcmp (p->def->domain, "onnx") == 0
         && strcmp (p->def->op, op) == 0;
}

int
rt_fuse_sole_reader (const RtFuser *fz, GraphValue *v)
{
  if (v == NULL || graph_value_n_uses (v) != 1 || graph_value_is_graph_output (v))
    return -1;
  for (guint i = 0; i < fz->s->returned->len; i++)
    if (g_ptr_array_index (fz->s->returned, i) == v)
      return -1;
  int j = GPOINTER_TO_INT (g_hash_table_lookup (fz->pos, graph_value_use (v, 0)->node)) - 1;
  return j >= 0 && !fz->gone[j] ? j : -1;
}

int
rt_fuse_producer (const RtFuser *fz, GraphValue *v)
{
  GraphNode *n = v ? graph_value_node (v) : NULL;
  return n ? GPOINTER_TO_INT (g_hash_table_lookup (fz->pos, n)) - 1 : -1;
}

gboolean
rt_fuse_ready_before (const RtFuser *fz, GraphValue *v, int i)
{
  return rt_fuse_producer (fz, v) < i;   /* inputs, constants (no plan node) and earlier nodes */
}

GraphValue *
rt_fuse_input_or_null (const GraphNode *n, guint i)
{
  return i < graph_node_n_inputs (n) ? graph_node_input (n, i) : NULL;
}

Tensor *
rt_fuse_const (GraphValue *v)
{
  Tensor *c = v ? graph_value_get_initializer (v) : NULL;
  return c || v == NULL ? c : graph_value_constant_tensor (v);
}

void
rt_fuse_replace (RtFuser *fz, int i, const RtKernelDef *def, gpointer state, GraphValue **ins,
                 guint n_in, GraphValue *out)
{
  RtNodePlan *p = &fz->s->nodes[i];
  if (p->state && p->def->free_state)
    p->def->free_state (p->state);
  p->def = def;
  p->state = state;
  p->n_in = n_in;
  p->n_out = 1;
  p->fused_in = g_memdup2 (ins, n_in * sizeof *ins);
  p->fused_out = g_new (GraphValue *, 1);
  p->fused_out[0] = out;
}

/* Relu or Clip reading v alone at plan index j: its activation into f and
 * its bounds' values into min/max; FALSE when it is neither or its bounds
 * are not ready before plan node i. */
static gboolean
take_act (const RtFuser *fz, int i, int j, Fused *f, GraphValue **min, GraphValue **max)
{
  const RtNodePlan *q = &fz->s->nodes[j];
  *min = *max = NULL;
  f->lo = -INFINITY;
  f->hi = INFINITY;
  if (rt_fuse_is_op (q, "Relu") && q->n_in == 1 && q->n_out == 1)
    {
      f->act = RT_ACT_RELU;
      return TRUE;
    }
  if (!rt_fuse_is_op (q, "Clip") || q->n_out != 1)
    return FALSE;
  f->clip_opset = q->opset;
  if (q->opset < 11)
    {
      f->lo = rt_attr_f (q->node, "min", -INFINITY);
      f->hi = rt_attr_f (q->node, "max", INFINITY);
    }
  else
    {
      *min = rt_fuse_input_or_null (q->node, 1);
      *max = rt_fuse_input_or_null (q->node, 2);
      if (!rt_fuse_ready_before (fz, *min, i) || !rt_fuse_ready_before (fz, *max, i))
        return FALSE;
    }
  f->act = RT_ACT_CLIP;
  return TRUE;
}

/* Makes plan node i the fused node: `def`, inputs ins[0..n_in), output out. */
static void
make_fused (RtFuser *fz, int i, const RtKernelDef *def, Fused *f, GraphValue **ins, guint n_in,
            GraphValue *out)
{
  RtNodePlan *p = &fz->s->nodes[i];
  /* The Conv's state moves into the fused one (Add has none). */
  f->packed = def == &conv_fused_def ? p->state : NULL;
  if (def == &conv_fused_def)
    p->state = NULL;
  rt_fuse_replace (fz, i, def, g_memdup2 (f, sizeof *f), ins, n_in, out);
}

static void
try_conv (RtFuser *fz, int i)
{
  RtNodePlan *p = &fz->s->nodes[i];
  if (p->n_out != 1)
    return;
  GraphValue *ins[F_N_IN] = { NULL };
  for (guint k = 0; k < MIN (p->n_in, 3); k++)
    ins[k] = graph_node_input (p->node, k);
  Fused f = { .act = RT_ACT_NONE, .lo = -INFINITY, .hi = INFINITY };
  GraphValue *out = graph_node_output (p->node, 0);
  int j = rt_fuse_sole_reader (fz, out), add = -1, act = -1;
  if (j >= 0 && rt_fuse_is_op (&fz->s->nodes[j], "Add") && fz->s->nodes[j].n_in == 2
      && fz->s->nodes[j].n_out == 1)
    {
      GraphNode *a = fz->s->nodes[j].node;
      GraphValue *z = graph_node_input (a, graph_node_input (a, 0) == out ? 1 : 0);
      if (z == out || !rt_fuse_ready_before (fz, z, i))
        return;   /* x + x, or z is computed after the Conv */
      ins[F_Z] = z;
      f.has_sum = TRUE;
      add = j;
      out = graph_node_output (a, 0);
      j = rt_fuse_sole_reader (fz, out);
    }
  if (j >= 0 && take_act (fz, i, j, &f, &ins[F_MIN], &ins[F_MAX]))
    {
      act = j;
      out = graph_node_output (fz->s->nodes[j].node, 0);
      j = rt_fuse_sole_reader (fz, out);
    }
  /* A MaxPool (its Y alone) after a Conv conv-direct.c takes (an image's
   * first: SqueezeNet's, ResNet's), whose output (4x the pooled one) then
   * stays in cache: SYMONNX_NO_CONV_POOL keeps it apart, for comparisons. */
  int pool = -1;
  if (j >= 0 && add < 0 && rt_fuse_is_op (&fz->s->nodes[j], "MaxPool")
      && fz->s->nodes[j].n_in == 1 && fz->s->nodes[j].n_out == 1
      && rt_conv_packed_has_direct_taps (p->state) && !getenv ("SYMONNX_NO_CONV_POOL"))
    {
      pool = j;
      f.pool = fz->s->nodes[j].node;
      out = graph_node_output (f.pool, 0);
    }
  if (add < 0 && act < 0 && pool < 0)
    return;
  make_fused (fz, i, &conv_fused_def, &f, ins, F_N_IN, out);
  if (add >= 0)
    fz->gone[add] = TRUE;
  if (act >= 0)
    fz->gone[act] = TRUE;
  if (pool >= 0)
    fz->gone[pool] = TRUE;
}

static void
try_add (RtFuser *fz, int i)
{
  RtNodePlan *p = &fz->s->nodes[i];
  if (p->n_in != 2 || p->n_out != 1 || p->state != NULL)
    return;
  int j = rt_fuse_sole_reader (fz, graph_node_output (p->node, 0));
  Fused f = { 0 };
  GraphValue *ins[A_N_IN] = { graph_node_input (p->node, 0), graph_node_input (p->node, 1) };
  if (j < 0 || !take_act (fz, i, j, &f, &ins[A_MIN], &ins[A_MAX]))
    return;
  make_fused (fz, i, &add_fused_def, &f, ins, A_N_IN,
              graph_node_output (fz->s->nodes[j].node, 0));
  fz->gone[j] = TRUE;
}

/* The plan index of the DequantizeLinear making v, read only by plan node i; -1 otherwise. */
static int
dq_producer (const RtFuser *fz, GraphValue *v, int i)
{
  int j = rt_fuse_producer (fz, v);
  if (j < 0 || fz->gone[j] || !rt_fuse_is_op (&fz->s->nodes[j], "DequantizeLinear")
      || graph_node_n_inputs (fz->s->nodes[j].node) != 3 || rt_fuse_sole_reader (fz, v) != i)
    return -1;
  return j;
}

gboolean
rt_fuse_is_scalar (GraphValue *v)
{
  Tensor *c = rt_fuse_const (v);
  if (c)
    return tensor_numel (c) == 1;
  GraphType *t = v ? graph_value_type (v) : NULL;
  gint64 dims[TENSOR_MAX_RANK], n = 1;
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) < 0
      || !graph_type_static_shape (t, dims))
    return FALSE;
  for (int k = 0; k < graph_type_rank (t); k++)
    n *= dims[k];
  return n == 1;
}

/* Conv plan node i as the integer chain (Note [Quantized Conv chains]):
 * its x and w (and bias) from DequantizeLinears only it reads, its output
 * read only by a QuantizeLinear (through a Relu or not); per-tensor x and
 * y parameters, a weight per tensor or along axis 0. */
static gboolean
try_qdq_conv (RtFuser *fz, int i)
{
  RtNodePlan *p = &fz->s->nodes[i];
  GraphNode *c = p->node;
  guint nin = graph_node_n_inputs (c);
  if (p->n_out != 1 || nin < 2 || nin > 3)
    return FALSE;
  int jx = dq_producer (fz, graph_node_input (c, 0), i);
  int jw = dq_producer (fz, graph_node_input (c, 1), i);
  int jb = nin == 3 ? dq_producer (fz, graph_node_input (c, 2), i) : -1;
  if (jx < 0 || jw < 0 || (nin == 3 && jb < 0))
    return FALSE;
  GraphNode *dx = fz->s->nodes[jx].node, *dw = fz->s->nodes[jw].node;
  if (!rt_fuse_is_scalar (graph_node_input (dx, 1)) || !rt_fuse_is_scalar (graph_node_input (dx, 2))
      || (!rt_fuse_is_scalar (graph_node_input (dw, 1)) && rt_attr_i (dw, "axis", 1) != 0))
    return FALSE;
  Fused f = { .act = RT_ACT_NONE, .lo = -INFINITY, .hi = INFINITY };
  GraphValue *out = graph_node_output (c, 0);
  int j = rt_fuse_sole_reader (fz, out), act = -1;
  if (j >= 0 && rt_fuse_is_op (&fz->s->nodes[j], "Relu") && fz->s->nodes[j].n_out == 1)
    {
      act = j;
      f.act = RT_ACT_RELU;
      out = graph_node_output (fz->s->nodes[j].node, 0);
      j = rt_fuse_sole_reader (fz, out);
    }
  if (j < 0 || !rt_fuse_is_op (&fz->s->nodes[j], "QuantizeLinear") || fz->s->nodes[j].n_out != 1)
    return FALSE;
  GraphNode *q = fz->s->nodes[j].node;
  if (graph_node_n_inputs (q) != 3 || graph_node_input (q, 0) != out
      || !rt_fuse_is_scalar (graph_node_input (q, 1)) || !rt_fuse_is_scalar (graph_node_input (q, 2))
      || !rt_fuse_ready_before (fz, graph_node_input (q, 1), i) || !rt_fuse_ready_before (fz, graph_node_input (q, 2), i))
    return FALSE;
  GraphValue *ins[11] = { graph_node_input (dx, 0), graph_node_input (dx, 1), graph_node_input (dx, 2),
                          graph_node_input (dw, 0), graph_node_input (dw, 1), graph_node_input (dw, 2),
                          graph_node_input (q, 1), graph_node_input (q, 2) };
  guint n = 8;
  if (jb >= 0)
    {
      GraphNode *db = fz->s->nodes[jb].node;
      for (guint k = 0; k < 3; k++)
        ins[n++] = graph_node_input (db, k);
    }
  /* no packed float weights (rt_fuse_replace frees them): the chain runs
   * the integer convolution */
  make_fused (fz, i, &qdq_conv_def, &f, ins, n, graph_node_output (q, 0));
  fz->gone[jx] = fz->gone[jw] = fz->gone[j] = TRUE;
  if (jb >= 0)
    fz->gone[jb] = TRUE;
  if (act >= 0)
    fz->gone[act] = TRUE;
  return TRUE;
}

void
rt_fuse_plan (RtSession *s)
{
  RtFuser fz = { s, g_hash_table_new (g_direct_hash, g_direct_equal),
               g_new0 (gboolean, MAX (s->n_nodes, 1)) };
  for (guint i = 0; i < s->n_nodes; i++)
    g_hash_table_insert (fz.pos, s->nodes[i].node, GINT_TO_POINTER (i + 1));
  for (guint i = 0; i < s->n_nodes; i++)
    if (!fz.gone[i] && rt_fuse_is_op (&s->nodes[i], "Conv") && !try_qdq_conv (&fz, (int) i))
      try_conv (&fz, (int) i);
  rt_fuse_transformer (&fz);
  rt_fuse_qdq_add (&fz);
  /* Adds left (not after a Conv or MatMul, or whose Conv could not take them). */
  for (guint i = 0; i < s->n_nodes; i++)
    if (!fz.gone[i] && rt_fuse_is_op (&s->nodes[i], "Add"))
      try_add (&fz, (int) i);
  guint kept = 0;
  for (guint i = 0; i < s->n_nodes; i++)
    {
      RtNodePlan *p = &s->nodes[i];
      if (!fz.gone[i])
        {
          s->nodes[kept++] = *p;
          continue;
        }
      if (p->state && p->def->free_state)
        p->def->free_state (p->state);
      else
        g_free (p->state);
    }
  s->n_nodes = kept;
  g_hash_table_unref (fz.pos);
  g_free (fz.gone);
}
