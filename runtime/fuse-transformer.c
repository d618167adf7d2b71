/* Fusion of the chains transformer exports are made of (Note [Fusion],
 * session-private.h; kernels in runtime/fused-transformer.c):
 *
 *   MatMul (A, B 2-D) + Add (bias: 1-D weight, one per column)
 *       [+ Relu | the Gelu chain]                  →  one MatMul
 *   ReduceMean, Sub, Pow (2), ReduceMean, Add (eps), Sqrt, Div, Mul (scale),
 *       Add (bias): torch's layer_norm below opset 17 →  one LayerNorm
 *   Div (c1), Erf, Add (c2), Mul (x), Mul (c3): torch's gelu → one Gelu
 *
 * Only float chains are fused: each has a float weight or constant that an
 * operator whose operands share one type reads with the chain's values, so
 * in a valid graph those are float too (the kernels check at run time).
 * The kernels read scalars or vectors from weights and constants only, and
 * only values no one else reads (nor returned) disappear; anything else
 * keeps its nodes. */
#include "runtime/fuse-private.h"
#include "runtime/kernels-private.h"
#include <string.h>

static RtNodePlan *
plan (const RtFuser *fz, int j)
{
  return &fz->s->nodes[j];
}

/* The operand of binary plan node j that is not v; NULL when j does not
 * read v once among two inputs. */
static GraphValue *
other_operand (const RtFuser *fz, int j, GraphValue *v)
{
  const RtNodePlan *p = plan (fz, j);
  if (p->n_in != 2 || p->n_out != 1)
    return NULL;
  GraphValue *a = graph_node_input (p->node, 0), *b = graph_node_input (p->node, 1);
  if (a == v && b != v)
    return b;
  if (b == v && a != v)
    return a;
  return NULL;
}

static GraphValue *
out0 (const RtFuser *fz, int j)
{
  return graph_node_output (plan (fz, j)->node, 0);
}

/* The sole reader of v when it is the ONNX op `op`; -1 otherwise. */
static int
reader_op (const RtFuser *fz, GraphValue *v, const char *op)
{
  int j = rt_fuse_sole_reader (fz, v);
  return j >= 0 && rt_fuse_is_op (plan (fz, j), op) && plan (fz, j)->n_out == 1 ? j : -1;
}

static gboolean
is_float (GraphValue *v)
{
  GraphType *t = v ? graph_value_type (v) : NULL;
  return t && graph_type_is_tensor (t) && graph_type_dtype (t) == GRAPH_DTYPE_FLOAT;
}

/* A float weight or constant of one element, with its value before plan node i. */
static gboolean
float_scalar (const RtFuser *fz, GraphValue *v, int i)
{
  Tensor *c = rt_fuse_const (v);
  return c && tensor_dtype (c) == GRAPH_DTYPE_FLOAT && tensor_numel (c) == 1
         && rt_fuse_ready_before (fz, v, i);
}

/* A 1-D float weight or constant of n elements (n < 0: any), ready before plan node i. */
static gboolean
float_vector (const RtFuser *fz, GraphValue *v, gint64 n, int i)
{
  Tensor *c = rt_fuse_const (v);
  return c && tensor_dtype (c) == GRAPH_DTYPE_FLOAT && tensor_rank (c) == 1
         && (n < 0 || tensor_dims (c)[0] == n) && rt_fuse_ready_before (fz, v, i);
}

/* The static size of v's last dimension; -1 when unknown. */
static gint64
last_dim (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  gint64 dims[TENSOR_MAX_RANK];
  int r = t && graph_type_is_tensor (t) ? graph_type_rank (t) : -1;
  if (r < 1 || !graph_type_static_shape (t, dims))
    return -1;
  return dims[r - 1];
}

/* Whether v may disappear into a fused node although it has several
 * readers (all of them in the chain): neither a graph output nor returned. */
static gboolean
internal (const RtFuser *fz, GraphValue *v)
{
  if (graph_value_is_graph_output (v))
    return FALSE;
  for (guint i = 0; i < fz->s->returned->len; i++)
    if (g_ptr_array_index (fz->s->returned, i) == v)
      return FALSE;
  return TRUE;
}

/* The plan index of use k of v (a node not merged yet); -1 otherwise. */
static int
use_index (const RtFuser *fz, GraphValue *v, guint k)
{
  int j = GPOINTER_TO_INT (g_hash_table_lookup (fz->pos, graph_value_use (v, k)->node)) - 1;
  return j >= 0 && !fz->gone[j] ? j : -1;
}

/* ---- Gelu ------------------------------------------------------------------- */

typedef struct
{
  int         div, erf, add, mul, mul2;    /* plan indices */
  GraphValue *c[3];
  GraphValue *out;
} GeluChain;

/* torch's gelu from the Div at plan index jd reading x: Div (x, c1), Erf,
 * Add (c2), Mul (x), Mul (c3), with float scalar constants ready before
 * plan node i. */
static gboolean
match_gelu (const RtFuser *fz, int jd, GraphValue *x, int i, GeluChain *g)
{
  const RtNodePlan *d = plan (fz, jd);
  if (!rt_fuse_is_op (d, "Div") || d->n_in != 2 || d->n_out != 1 || graph_node_input (d->node, 0) != x)
    return FALSE;
  g->div = jd;
  g->c[0] = graph_node_input (d->node, 1);
  if ((g->erf = reader_op (fz, out0 (fz, jd), "Erf")) < 0 || plan (fz, g->erf)->n_in != 1
      || (g->add = reader_op (fz, out0 (fz, g->erf), "Add")) < 0
      || (g->c[1] = other_operand (fz, g->add, out0 (fz, g->erf))) == NULL
      || (g->mul = reader_op (fz, out0 (fz, g->add), "Mul")) < 0
      || other_operand (fz, g->mul, out0 (fz, g->add)) != x
      || (g->mul2 = reader_op (fz, out0 (fz, g->mul), "Mul")) < 0
      || (g->c[2] = other_operand (fz, g->mul2, out0 (fz, g->mul))) == NULL)
    return FALSE;
  for (int k = 0; k < 3; k++)
    if (!float_scalar (fz, g->c[k], i))
      return FALSE;
  g->out = out0 (fz, g->mul2);
  return TRUE;
}

static void
gelu_gone (RtFuser *fz, const GeluChain *g)
{
  fz->gone[g->erf] = fz->gone[g->add] = fz->gone[g->mul] = fz->gone[g->mul2] = TRUE;
}

static void
try_gelu (RtFuser *fz, int i)
{
  GraphValue *x = graph_node_input (plan (fz, i)->node, 0);
  GeluChain g;
  if (!match_gelu (fz, i, x, i, &g))
    return;
  GraphValue *ins[4] = { x, g.c[0], g.c[1], g.c[2] };
  rt_fuse_replace (fz, i, &rt_fused_gelu_def, NULL, ins, 4, g.out);
  gelu_gone (fz, &g);
}

/* ---- MatMul + bias [+ Relu | Gelu] ------------------------------------------ */

/* The Gelu chain reading y (y's two readers: its Div and its Mul). */
static gboolean
gelu_after (const RtFuser *fz, GraphValue *y, int i, GeluChain *g)
{
  if (graph_value_n_uses (y) != 2 || !internal (fz, y))
    return FALSE;
  for (guint k = 0; k < 2; k++)
    {
      int jd = use_index (fz, y, k), jm = use_index (fz, y, 1 - k);
      if (jd >= 0 && jm >= 0 && match_gelu (fz, jd, y, i, g) && g->mul == jm)
        return TRUE;
    }
  return FALSE;
}

static void
try_matmul (RtFuser *fz, int i)
{
  RtNodePlan *p = plan (fz, i);
  if (p->n_in != 2 || p->n_out != 1)
    return;
  GraphValue *a = graph_node_input (p->node, 0), *b = graph_node_input (p->node, 1);
  GraphType *bt = graph_value_type (b);
  gint64 n = last_dim (b);
  if (!is_float (b) || graph_type_rank (bt) != 2 || n < 0)
    return;
  GraphValue *mm = out0 (fz, i);
  int ja = reader_op (fz, mm, "Add");
  GraphValue *bias = ja >= 0 ? other_operand (fz, ja, mm) : NULL;
  if (bias == NULL || !float_vector (fz, bias, n, i))
    return;
  RtFusedMatMul f = { RT_FUSED_NONE };
  GraphValue *ins[6] = { a, b, bias }, *out = out0 (fz, ja);
  int jr = reader_op (fz, out, "Relu");
  GeluChain g;
  if (jr >= 0 && plan (fz, jr)->n_in == 1)
    {
      f.act = RT_FUSED_RELU;
      out = out0 (fz, jr);
      fz->gone[jr] = TRUE;
    }
  else if (gelu_after (fz, out, i, &g))
    {
      f.act = RT_FUSED_GELU;
      memcpy (&ins[3], g.c, sizeof g.c);
      out = g.out;
      fz->gone[g.div] = TRUE;
      gelu_gone (fz, &g);
    }
  fz->gone[ja] = TRUE;
  f.packed = p->state;   /* moves into the fused node */
  p->state = NULL;
  rt_fuse_replace (fz, i, &rt_fused_matmul_def, g_memdup2 (&f, sizeof f), ins, 6, out);
}

/* ---- LayerNorm (torch's layer_norm below opset 17) --------------------------- */

/* A ReduceMean over the last axis alone (axes attribute, before opset 18)
 * that keeps dims; `rank`: the chain's x's (-1: unknown). */
static gboolean
mean_last_axis (const RtNodePlan *p, int rank)
{
  gsize len;
  const gint64 *axes;
  if (!rt_fuse_is_op (p, "ReduceMean") || p->opset >= 18 || p->n_in != 1 || p->n_out != 1
      || rt_attr_i (p->node, "keepdims", 1) != 1 || !rt_attr_ints (p->node, "axes", &len, &axes)
      || len != 1)
    return FALSE;
  return axes[0] == -1 || (rank >= 1 && axes[0] == rank - 1);
}

static void
try_layernorm (RtFuser *fz, int i)
{
  RtNodePlan *p = plan (fz, i);
  GraphValue *x = graph_node_input (p->node, 0), *mean = out0 (fz, i);
  GraphType *xt = graph_value_type (x);
  int rank = xt && graph_type_is_tensor (xt) ? graph_type_rank (xt) : -1;
  if (!mean_last_axis (p, rank))
    return;
  int js = reader_op (fz, mean, "Sub");
  if (js < 0 || graph_node_input (plan (fz, js)->node, 0) != x
      || graph_node_input (plan (fz, js)->node, 1) != mean)
    return;
  /* x - mean is read twice, by Pow and by Div. */
  GraphValue *d = out0 (fz, js);
  if (graph_value_n_uses (d) != 2 || !internal (fz, d))
    return;
  int jp = use_index (fz, d, 0), jd = use_index (fz, d, 1);
  if (jp >= 0 && rt_fuse_is_op (plan (fz, jp), "Div"))
    {
      int t = jp;
      jp = jd;
      jd = t;
    }
  if (jp < 0 || jd < 0 || !rt_fuse_is_op (plan (fz, jp), "Pow") || !rt_fuse_is_op (plan (fz, jd), "Div")
      || plan (fz, jp)->n_in != 2 || plan (fz, jd)->n_in != 2 || plan (fz, jp)->n_out != 1
      || plan (fz, jd)->n_out != 1 || graph_node_input (plan (fz, jp)->node, 0) != d
      || graph_node_input (plan (fz, jd)->node, 0) != d)
    return;
  GraphValue *e = graph_node_input (plan (fz, jp)->node, 1);
  int jv = rt_fuse_sole_reader (fz, out0 (fz, jp));
  if (!float_scalar (fz, e, i) || jv < 0 || !mean_last_axis (plan (fz, jv), rank))
    return;
  int je = reader_op (fz, out0 (fz, jv), "Add");
  GraphValue *eps = je >= 0 ? other_operand (fz, je, out0 (fz, jv)) : NULL;
  int jq = eps ? reader_op (fz, out0 (fz, je), "Sqrt") : -1;
  if (eps == NULL || !float_scalar (fz, eps, i) || jq < 0 || plan (fz, jq)->n_in != 1
      || rt_fuse_sole_reader (fz, out0 (fz, jq)) != jd
      || graph_node_input (plan (fz, jd)->node, 1) != out0 (fz, jq))
    return;
  int jm = reader_op (fz, out0 (fz, jd), "Mul");
  GraphValue *w = jm >= 0 ? other_operand (fz, jm, out0 (fz, jd)) : NULL;
  int jb = w ? reader_op (fz, out0 (fz, jm), "Add") : -1;
  GraphValue *b = jb >= 0 ? other_operand (fz, jb, out0 (fz, jm)) : NULL;
  gint64 n = last_dim (x);
  if (b == NULL || !float_vector (fz, w, n, i) || !float_vector (fz, b, n, i))
    return;
  GraphValue *ins[5] = { x, e, eps, w, b };
  rt_fuse_replace (fz, i, &rt_fused_layernorm_def, NULL, ins, 5, out0 (fz, jb));
  int chain[] = { js, jp, jd, jv, je, jq, jm, jb };
  for (guint k = 0; k < G_N_ELEMENTS (chain); k++)
    fz->gone[chain[k]] = TRUE;
}

void
rt_fuse_transformer (RtFuser *fz)
{
  static const struct
  {
    const char *op;
    void      (*fuse) (RtFuser *fz, int i);
  } passes[] = { { "MatMul", try_matmul }, { "ReduceMean", try_layernorm }, { "Div", try_gelu } };
  for (guint k = 0; k < G_N_ELEMENTS (passes); k++)
    for (guint i = 0; i < fz->s->n_nodes; i++)
      if (!fz->gone[i] && rt_fuse_is_op (plan (fz, i), passes[k].op))
        passes[k].fuse (fz, (int) i);
}

gboolean
rt_fuse_transformer_is_def (const RtKernelDef *def)
{
  return def == &rt_fused_matmul_def || def == &rt_fused_layernorm_def || def == &rt_fused_gelu_def;
}
