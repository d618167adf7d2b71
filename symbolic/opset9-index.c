/* Opset 9 base set: indexing and scatter.  index_select/index pick with
 * Gather, take gathers from the flattened input, and scatter, scatter_add,
 * index_fill, index_copy and index_add write Scatter (ScatterElements from
 * opset 11).  torch computes several of these shapes at run time; the ones
 * here need them static and write them as constants.  The zero-filled
 * tensors they add into come from opset9-create.c (sym_const_filled). */
#include "symbolic/opset-tables.h"
#include "symbolic/translate.h"
#include <string.h>

#define G sym_graph (ctx)

/* aten::index_select(self, dim, index) */
static gboolean
sym_index_select (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdv", &self, &dim, &index, error))
    return FALSE;
  /* A 0-d index selects one entry but keeps the dim (size 1), unlike
   * Gather with a 0-d index, which drops it. */
  if (sym_rank (index) == 0)
    {
      static const gint64 one[] = { 1 };
      index = sym_reshape_static (ctx, index, 1, one);
    }
  out[0] = graph_op (G, "Gather", self, index, "axis_i", dim, NULL);
  return TRUE;
}

/* Several integer index tensors (x[i, j], x[:, i, j]) as GatherND and
 * ScatterND take them: the indexed dims moved to the front (perm), the
 * indices broadcast to their common static shape b, reduced modulo their
 * dims (negative indices) and stacked on a last axis. */
typedef struct
{
  guint      k, pos[TENSOR_MAX_RANK];
  int        rank, br;
  gint64     dims[TENSOR_MAX_RANK], b[TENSOR_MAX_RANK], perm[TENSOR_MAX_RANK];
  gboolean   identity, adjacent;
  gboolean   dynamic;   /* a shape known only at run time: p->dims and p->b unset */
  GraphValue *stacked;   /* from opset 11: the indices stacked for GatherND */
  /* below 11: index j normalised (negative counted from the end) and its dim's size */
  GraphValue *norm[TENSOR_MAX_RANK], *dimv[TENSOR_MAX_RANK];
  /* index j's trace value (src[j]), or, for a row of a boolean mask's
   * NonZero among other indices (src[j] NULL), its int64 ONNX value iv[j] */
  GraphValue *src[TENSOR_MAX_RANK], *iv[TENSOR_MAX_RANK];
} IndexPlan;

/* The index tensors of list lc into p (p->k = 0 when all are None), p->pos
 * their dims.  A boolean mask alone in the list: refused unless allow_mask
 * (then p->k = 1 and p->pos[0] = 0, p->stacked unset).  A mask among other
 * indices (x[:, m], x[m, i]), as PyTorch does: the rows of its NonZero, one
 * integer index per dim it covers (a run-time count). */
static gboolean
index_plan (SymContext *ctx, GraphNode *n, GraphValue *self, GraphNode *lc, gboolean allow_mask,
            IndexPlan *p, gboolean *is_mask, GError **error)
{
  memset (p, 0, sizeof *p);
  *is_mask = FALSE;
  guint ni = graph_node_n_inputs (lc);
  /* the trace's type, or the value's own (a parameter read with GetAttr
   * is typed by its initializer) */
  GraphValue *typed = sym_rank (graph_node_input (n, 0)) >= 0 ? graph_node_input (n, 0) : self;
  p->rank = sym_rank (typed);
  if (p->rank < 0 || ni > (guint) p->rank)
    /* torch 1.13: also refuses (_unimplemented "advanced indexing on tensor of unknown rank") */
    return sym_unimplemented (ctx, n, error, "indexing an input of unknown rank");
  int at = 0;   /* the dim list entry i indexes */
  for (guint i = 0; i < ni; i++)
    {
      GraphValue *s = graph_node_input (lc, i);
      if (sym_is_none (s))
        {
          at++;
          continue;
        }
      GraphDType dt = sym_dtype (s);
      if (dt == GRAPH_DTYPE_BOOL || dt == GRAPH_DTYPE_UINT8)
        {
          if (allow_mask && ni == 1)
            {
              *is_mask = TRUE;
              p->src[p->k] = s;
              p->pos[p->k++] = i;
              at++;
              continue;
            }
          int mr = sym_rank (s);
          if (mr > 0 && at + mr > p->rank)
            /* torch 1.13: also refuses (PyTorch raises IndexError: too many indices for the tensor) */
            return sym_unimplemented (ctx, n, error, "indices covering %d dims of a tensor of rank %d",
                                      at + mr, p->rank);
          if (mr < 1)
            /* torch 1.13: exports a mask among other indices as NonZero indices (a wrong graph for
             * a mask of rank > 1, as it warns); not yet here for a 0-d mask or one of unknown rank */
            return sym_unimplemented (ctx, n, error, "boolean mask indexing");
          GraphValue *m = sym_value (ctx, s, error);
          if (m == NULL)
            return FALSE;
          if (dt != GRAPH_DTYPE_BOOL)
            m = sym_cast (ctx, m, GRAPH_DTYPE_BOOL);
          GraphValue *nz = graph_op (G, "NonZero", m, NULL);   /* (mr, count) */
          if (mr == 1)
            {
              /* torch's form: Squeeze of the transposed NonZero */
              static const gint64 perm2[] = { 1, 0 }, one = 1;
              GraphValue *t = graph_op (G, "Transpose", nz, "perm_is", 2, perm2, NULL);
              p->iv[p->k] = sym_squeeze (ctx, t, 1, &one);
              p->pos[p->k++] = (guint) at++;
            }
          else
            for (int a = 0; a < mr; a++)
              {
                /* the mask's dim a: row a of NonZero (torch 1.13 squeezes
                 * the transposed NonZero at 1, which fails for mr > 1) */
                p->iv[p->k] = graph_op (G, "Gather", nz, sym_const_i64 (ctx, a), "axis_i", (gint64) 0, NULL);
                p->pos[p->k++] = (guint) at++;
              }
          continue;
        }
      p->src[p->k] = s;
      p->pos[p->k++] = (guint) at++;
    }
  if (at > p->rank)
    /* torch 1.13: also refuses (PyTorch raises IndexError: too many indices for the tensor) */
    return sym_unimplemented (ctx, n, error, "indices covering %d dims of a tensor of rank %d", at, p->rank);
  if (p->k <= 1)
    return TRUE;
  /* static: the indices expanded to their constant broadcast shape and
   * reduced modulo constant dims; otherwise (data-dependent counts, as
   * Mask R-CNN's probs[arange(n), labels]) broadcast at run time by adding
   * their zeroed sum, modulo run-time sizes */
  p->dynamic = !sym_static_shape (typed, p->dims);
  for (guint j = 0; j < p->k; j++)
    {
      GraphValue *s = p->src[j];
      gint64 d[TENSOR_MAX_RANK];
      int rr = s != NULL ? sym_rank (s) : 1;   /* a mask's NonZero row: (count) */
      if (rr < 0)
        /* torch 1.13: exports index tensors of unknown rank through run-time Shape arithmetic; not
         * yet here */
        return sym_unimplemented (ctx, n, error, "index tensors of unknown rank");
      if (s == NULL || !sym_static_shape (s, d))
        {
          p->dynamic = TRUE;
          for (int a = 0; a < rr; a++)
            d[a] = 1;
        }
      if (rr > p->br)
        {
          /* right-align the shape so far to the longer one */
          memmove (p->b + (rr - p->br), p->b, (gsize) p->br * sizeof *p->b);
          for (int c = 0; c < rr - p->br; c++)
            p->b[c] = 1;
          p->br = rr;
        }
      for (int a = 0; a < rr; a++)
        {
          gint64 *o = &p->b[p->br - rr + a];
          if (*o == 1)
            *o = d[a];
          else if (d[a] != 1 && d[a] != *o)
            /* torch 1.13: also refuses (PyTorch rejects index tensors that do not broadcast) */
            return sym_unimplemented (ctx, n, error, "index tensors that do not broadcast");
        }
    }
  if (p->br + p->rank - (int) p->k + 1 > TENSOR_MAX_RANK)
    /* torch 1.13: exports any result rank (ONNX has no limit); not yet here (symonnx tensors have
     * at most TENSOR_MAX_RANK dims) */
    return sym_unimplemented (ctx, n, error, "an index result of too high a rank");
  int np = 0;
  p->adjacent = TRUE;
  for (guint j = 0; j < p->k; j++)
    {
      p->perm[np++] = p->pos[j];
      p->adjacent = p->adjacent && (j == 0 || p->pos[j] == p->pos[j - 1] + 1);
    }
  for (int d = 0; d < p->rank; d++)
    {
      gboolean indexed = FALSE;
      for (guint j = 0; j < p->k; j++)
        indexed = indexed || p->pos[j] == (guint) d;
      if (!indexed)
        p->perm[np++] = d;
    }
  p->identity = TRUE;
  for (int d = 0; d < p->rank; d++)
    p->identity = p->identity && p->perm[d] == d;
  g_autoptr (Tensor) bshape = tensor_new_int64_vector ((guint) p->br, p->b);
  /* the broadcast shape of GatherND's stacked indices (not below 11) */
  GraphValue *bs = sym_opset (ctx) >= 11 ? sym_constant (ctx, bshape) : NULL;
  g_autofree GraphValue **parts = g_new (GraphValue *, p->k);
  g_autofree GraphValue **ivs = g_new (GraphValue *, p->k);
  const gint64 last = p->br;
  GraphValue *zeros = NULL;   /* the dynamic case's broadcast: Σ 0·index */
  for (guint j = 0; j < p->k; j++)
    {
      GraphValue *iv = p->src[j] != NULL ? sym_value (ctx, p->src[j], error) : p->iv[j];
      if (iv == NULL)
        return FALSE;
      if (p->src[j] != NULL && sym_dtype (p->src[j]) != GRAPH_DTYPE_INT64)
        iv = sym_cast (ctx, iv, GRAPH_DTYPE_INT64);
      GraphValue *dim = p->dynamic ? sym_size (ctx, self, p->pos[j]) : sym_const_i64 (ctx, p->dims[p->pos[j]]);
      if (sym_opset (ctx) < 11)
        {
          /* no integer Mod before 10: Where(i < 0, i + size, i) */
          GraphValue *neg = graph_op (G, "Less", iv, sym_const_i64 (ctx, 0), NULL);
          p->norm[j] = graph_op (G, "Where", neg, graph_op (G, "Add", iv, dim, NULL), iv, NULL);
          p->dimv[j] = dim;
          continue;
        }
      ivs[j] = graph_op (G, "Mod", iv, dim, NULL);   /* negative indices */
      if (p->dynamic)
        {
          GraphValue *z = graph_op (G, "Mul", ivs[j], sym_const_i64 (ctx, 0), NULL);
          zeros = zeros ? graph_op (G, "Add", zeros, z, NULL) : z;
        }
    }
  if (sym_opset (ctx) < 11)
    return TRUE;   /* sym_index's linear form */
  for (guint j = 0; j < p->k; j++)
    {
      GraphValue *e = p->dynamic ? graph_op (G, "Add", ivs[j], zeros, NULL) : graph_op (G, "Expand", ivs[j], bs, NULL);
      parts[j] = sym_unsqueeze (ctx, e, 1, &last);
    }
  p->stacked = graph_opv (G, "Concat", p->k, parts, "axis_i", (gint64) p->br, NULL);
  return TRUE;
}

/* PyTorch's order of an index result whose GatherND form is B + the
 * unindexed dims: B goes back where the first index was when the indexed
 * dims are adjacent. */
static gboolean
index_result_perm (const IndexPlan *p, gint64 *back, int *m)
{
  *m = 0;
  if (!p->adjacent || p->pos[0] == 0)
    return FALSE;
  int q = (int) p->pos[0], rest = p->rank - (int) p->k;
  for (int d = 0; d < q; d++)
    back[(*m)++] = p->br + d;
  for (int d = 0; d < p->br; d++)
    back[(*m)++] = d;
  for (int d = q; d < rest; d++)
    back[(*m)++] = p->br + d;
  return TRUE;
}

/* Before GatherND (opset 11), torch 1.13's form of several index tensors:
 * t (self with the indexed dims first) flattened to (indexed, rest), one
 * linear index Σ i_j · stride_j, Gather, and a Reshape to B + the other
 * dims.  torch combines the indices as given, so a negative one gathers
 * the wrong row (its warning says so); here they are normalised first
 * (index_plan's p->norm). */
static GraphValue *
index_linear (SymContext *ctx, GraphValue *self, GraphValue *t, const IndexPlan *p)
{
  GraphValue *flat = graph_op (G, "Flatten", t, "axis_i", (gint64) p->k, NULL);
  GraphValue *lin = p->norm[p->k - 1], *stride = p->dimv[p->k - 1];
  for (guint j = p->k - 1; j-- > 0;)
    {
      lin = graph_op (G, "Add", graph_op (G, "Mul", p->norm[j], stride, NULL), lin, NULL);
      if (j > 0)
        stride = graph_op (G, "Mul", stride, p->dimv[j], NULL);
    }
  GraphValue *g = graph_op (G, "Gather", flat, lin, "axis_i", (gint64) 0, NULL);
  int rest = p->rank - (int) p->k;
  if (!p->dynamic)
    {
      gint64 shape[TENSOR_MAX_RANK];
      memcpy (shape, p->b, (gsize) p->br * sizeof *shape);
      for (int d = 0; d < rest; d++)
        shape[p->br + d] = p->dims[p->perm[p->k + (guint) d]];
      return sym_reshape_static (ctx, g, (gsize) (p->br + rest), shape);
    }
  g_autofree GraphValue **parts = g_new (GraphValue *, (gsize) rest + 1);
  static const gint64 zero = 0;
  parts[0] = graph_op (G, "Shape", lin, NULL);
  for (int d = 0; d < rest; d++)
    parts[d + 1] = sym_unsqueeze (ctx, sym_size (ctx, self, p->perm[p->k + (guint) d]), 1, &zero);
  return sym_reshape (ctx, g, graph_opv (G, "Concat", (guint) rest + 1, parts, "axis_i", (gint64) 0, NULL));
}

/* aten::index(self, indices), indices a list of tensors or None (x[:, i],
 * x[i, j]).  One integer index at dim p: Gather along p.  Several: from
 * opset 11 GatherND of the indexed dims moved first (index_plan), before
 * it index_linear; the result's dims in PyTorch's order.  One boolean mask over the leading
 * dims (from 11): GatherND at its NonZero positions. */
static gboolean
sym_index (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphNode *lc = graph_value_node (graph_node_input (n, 1));
  if (lc == NULL || !graph_node_is (lc, "prim::ListConstruct"))
    /* torch 1.13: takes a list it cannot unpack as one index tensor (a wrong graph for a real
     * list); refused here because the list's elements are unknown */
    return sym_unimplemented (ctx, n, error, "indices that are not a list");
  IndexPlan p;
  gboolean mask;
  if (!index_plan (ctx, n, self, lc, sym_opset (ctx) >= 11, &p, &mask, error))
    return FALSE;
  if (p.k == 0)
    {
      out[0] = self;
      return TRUE;
    }
  if (mask)
    {
      /* x[mask], mask over self's leading dims: GatherND at NonZero's
       * positions (masked_select's form) */
      GraphValue *m = sym_value (ctx, graph_node_input (lc, 0), error);
      if (m == NULL)
        return FALSE;
      if (sym_dtype (graph_node_input (lc, 0)) != GRAPH_DTYPE_BOOL)
        m = sym_cast (ctx, m, GRAPH_DTYPE_BOOL);
      static const gint64 perm2[] = { 1, 0 };
      GraphValue *idx = graph_op (G, "Transpose", graph_op (G, "NonZero", m, NULL), "perm_is", 2, perm2, NULL);
      out[0] = graph_op (G, "GatherND", self, idx, NULL);
      return TRUE;
    }
  if (p.k == 1)
    {
      GraphValue *idx = p.src[0] != NULL ? sym_value (ctx, p.src[0], error) : p.iv[0];
      if (idx == NULL)
        return FALSE;
      out[0] = graph_op (G, "Gather", self, idx, "axis_i", (gint64) p.pos[0], NULL);
      return TRUE;
    }
  GraphValue *t = p.identity ? self : graph_op (G, "Transpose", self, "perm_is", p.rank, p.perm, NULL);
  GraphValue *g = sym_opset (ctx) >= 11 ? graph_op (G, "GatherND", t, p.stacked, NULL)
                                        : index_linear (ctx, self, t, &p);
  gint64 back[TENSOR_MAX_RANK];
  int m;
  if (index_result_perm (&p, back, &m))
    g = graph_op (G, "Transpose", g, "perm_is", m, back, NULL);
  out[0] = g;
  return TRUE;
}

/* values of rank vr as a broadcast of rank full (leading dims of 1) */
static GraphValue *
values_to_rank (SymContext *ctx, GraphValue *values, int vr, int full)
{
  if (vr >= full)
    return values;
  gint64 axes[TENSOR_MAX_RANK];
  for (int a = 0; a < full - vr; a++)
    axes[a] = a;
  return sym_unsqueeze (ctx, values, (gsize) (full - vr), axes);
}

/* Note [index_put accumulate before opset 16]: ScatterND has no "add"
 * reduction before 16, and torch 1.13 scatters into zeros and adds, which
 * keeps one of duplicate indices' values where PyTorch sums them.  Here a
 * Loop over the index rows adds one row's values at a time (GatherND, Add,
 * ScatterND of that row), in the order PyTorch's CPU kernel adds them.
 * t: the tensor scattered into; idx: [..., K] positions; upd: [..., rest]
 * the values, rest being t's dims after the K indexed ones. */
static GraphValue *
scatter_add_loop (SymContext *ctx, GraphValue *t, GraphValue *idx, GraphValue *upd, gint64 K)
{
  Graph *outer = sym_graph (ctx);
  static const gint64 zero = 0;
  const gint64 rows[] = { -1, K };
  GraphValue *idx2 = sym_reshape_static (ctx, idx, 2, rows);
  GraphValue *rest = sym_shape_dims (ctx, t, K, G_MAXINT64);
  GraphValue *vshape = graph_op (outer, "Concat", sym_const_ints (ctx, 1, (const gint64[]) { -1 }), rest,
                                 "axis_i", (gint64) 0, NULL);
  GraphValue *upd2 = sym_reshape (ctx, upd, vshape);
  GraphValue *trips = sym_size (ctx, idx2, 0);
  g_autoptr (Tensor) yes = tensor_new_scalar_int64 (GRAPH_DTYPE_BOOL, 1);
  GraphValue *cond = sym_constant (ctx, yes);
  if (idx2 == NULL || upd2 == NULL || trips == NULL || cond == NULL)
    return NULL;

  Graph *sub = graph_new_subgraph (outer);
  g_autoptr (GraphType) it_t = graph_type_new_tensor (GRAPH_DTYPE_INT64, 0, NULL);
  g_autoptr (GraphType) cond_t = graph_type_new_tensor (GRAPH_DTYPE_BOOL, 0, NULL);
  GraphValue *i = graph_add_input (sub, "row", it_t);
  GraphValue *c = graph_add_input (sub, "cond", cond_t);
  GraphType *tt = graph_value_type (t);
  g_autoptr (GraphType) acc_t = tt ? graph_type_ref (tt) : graph_type_new_tensor (sym_dtype (t), sym_rank (t), NULL);
  GraphValue *acc = graph_add_input (sub, "acc", acc_t);
  sym_context_swap_graph (ctx, sub);
  GraphValue *at = sym_unsqueeze (ctx, graph_op (sub, "Gather", idx2, i, "axis_i", (gint64) 0, NULL), 1, &zero);
  GraphValue *v = sym_unsqueeze (ctx, graph_op (sub, "Gather", upd2, i, "axis_i", (gint64) 0, NULL), 1, &zero);
  GraphValue *sum = graph_op (sub, "Add", graph_op (sub, "GatherND", acc, at, NULL), v, NULL);
  GraphValue *next = graph_op (sub, "ScatterND", acc, at, sum, NULL);
  GraphValue *c_out = graph_op (sub, "Identity", c, NULL);
  sym_context_swap_graph (ctx, outer);
  if (next == NULL || c_out == NULL)
    {
      graph_free (sub);
      return NULL;
    }
  graph_add_output (sub, c_out);
  graph_add_output (sub, next);
  GraphNode *loop = graph_op_outputs (outer, "Loop", 1, trips, cond, t, NULL);
  if (loop == NULL)
    {
      graph_free (sub);
      return NULL;
    }
  graph_node_set_g (loop, "body", sub);
  GraphValue *r = graph_node_output (loop, 0);
  graph_value_set_type (r, acc_t);
  return r;
}

/* aten::index_put(self, indices, values, accumulate) (index_put_, x[i] = v),
 * from opset 11: ScatterND of values into self at the positions
 * index_plan stacks (self transposed so the indexed dims come first, and
 * back), values expanded to the indexed region's shape; a boolean mask over
 * self's leading dims: the positions of NonZero(mask) (x[mask] = v); a 1-D mask
 * among Nones (x[:, m] = v): its NonZero as one index.  accumulate:
 * ScatterND's "add" reduction (opset 16), a Loop before. */
static gboolean
sym_index_put (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *values;
  gboolean accumulate = FALSE;
  if (!sym_parse_args (ctx, n, "v,none,v", &self, &values, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 3 && !sym_parse_args (ctx, n, "none,none,none,b", &accumulate, error))
    return FALSE;
  if (sym_opset (ctx) < 11)
    /* torch 1.13: also refuses (_onnx_opset_unsupported "index_put" before opset 11) */
    return sym_unimplemented (ctx, n, error, "index_put (from opset 11)");
  if (accumulate && sym_dtype (graph_node_input (n, 0)) == GRAPH_DTYPE_BOOL)
    /* torch 1.13: exports an Add (or ScatterND's add) of booleans, which ONNX does not define;
     * refused here because the model would be ill-typed */
    return sym_unimplemented (ctx, n, error, "index_put with accumulate=True into a bool tensor");
  GraphNode *lc = graph_value_node (graph_node_input (n, 1));
  if (lc == NULL || !graph_node_is (lc, "prim::ListConstruct"))
    /* torch 1.13: takes a list it cannot unpack as one index tensor (a wrong graph for a real
     * list); refused here because the list's elements are unknown */
    return sym_unimplemented (ctx, n, error, "indices that are not a list");
  IndexPlan p;
  gboolean mask;
  if (!index_plan (ctx, n, self, lc, TRUE, &p, &mask, error))
    return FALSE;
  GraphDType dt = sym_dtype (graph_node_input (n, 0));
  if (dt == GRAPH_DTYPE_UNDEFINED || values == NULL)
    /* torch 1.13: also refuses (its index_put reads self's scalar type, which fails when unknown) */
    return sym_unimplemented (ctx, n, error, "index_put into a tensor of unknown type");
  if (sym_dtype (graph_node_input (n, 2)) != dt)
    values = sym_cast (ctx, values, dt);
  if (p.k == 0)
    {
      out[0] = graph_op (G, "Expand", values, sym_size (ctx, self, G_MININT64), NULL);
      if (accumulate)
        out[0] = graph_op (G, "Add", self, out[0], NULL);
      return out[0] != NULL;
    }
  GraphValue *t = self, *idx;
  GraphValue *region;   /* the shape values must take */
  int mask_rank = 0;
  if (mask || p.k == 1)
    {
      gint64 d[TENSOR_MAX_RANK];
      /* a trace value, or (a mask among other indices) a NonZero row */
      GraphValue *iv = p.src[0] != NULL ? sym_value (ctx, p.src[0], error) : p.iv[0];
      if (iv == NULL)
        return FALSE;
      if (mask)
        {
          /* a mask over self's leading mr dims (x[m] = v, x[m, :] = v):
           * ScatterND at NonZero's positions, each of the M positions taking
           * a [rest] block of self's remaining dims */
          mask_rank = sym_rank (graph_node_input (lc, 0));
          if (mask_rank < 1 || mask_rank > p.rank)
            /* torch 1.13: writes masked_fill/masked_scatter, whose mask broadcasts from the right;
             * refused here because a mask of unknown rank leaves the dims it covers unknown */
            return sym_unimplemented (ctx, n, error, "a boolean mask of unknown rank or of more dims than self");
          static const gint64 perm2[] = { 1, 0 };
          idx = graph_op (G, "Transpose", graph_op (G, "NonZero", iv, NULL), "perm_is", 2, perm2, NULL);
          /* values: one per selected position, then self's dims after the mask's */
          region = sym_shape_dims (ctx, idx, 0, 1);
          if (mask_rank < p.rank)
            region = graph_op (G, "Concat", region, sym_shape_dims (ctx, self, mask_rank, G_MAXINT64),
                               "axis_i", (gint64) 0, NULL);
        }
      else
        {
          /* one integer index at dim q: scatter along q with the index
           * stacked on a last axis (self transposed so q comes first) */
          int q = (int) p.pos[0], ir = p.src[0] != NULL ? sym_rank (p.src[0]) : 1;
          if (ir < 0 || !sym_static_shape (graph_node_input (n, 0), d))
            /* torch 1.13: exports it with run-time Shape, Slice and Reshape of the values
             * (ScatterND); not yet here */
            return sym_unimplemented (ctx, n, error, "index_put into a tensor of unknown shape");
          p.perm[0] = q;
          for (int a = 0, m = 1; a < p.rank; a++)
            if (a != q)
              p.perm[m++] = a;
          p.identity = q == 0;
          if (!p.identity)
            t = graph_op (G, "Transpose", self, "perm_is", p.rank, p.perm, NULL);
          if (p.src[0] != NULL && sym_dtype (p.src[0]) != GRAPH_DTYPE_INT64)
            iv = sym_cast (ctx, iv, GRAPH_DTYPE_INT64);
          iv = graph_op (G, "Mod", iv, sym_const_i64 (ctx, d[q]), NULL);
          const gint64 last = ir;
          idx = sym_unsqueeze (ctx, iv, 1, &last);
          GraphValue *is = sym_size (ctx, iv, G_MININT64);
          GraphValue *rest = sym_shape_dims (ctx, t, 1, G_MAXINT64);
          region = graph_op (G, "Concat", is, rest, "axis_i", (gint64) 0, NULL);
          /* PyTorch's values are in x[:, i]'s order: dims before q, then
           * the index's, then the rest; they broadcast to that region
           * right-aligned, so they get its rank (leading 1s) before the
           * Transpose to ScatterND's order */
          int vr = sym_rank (graph_node_input (n, 2)), full = ir + p.rank - 1;
          if (q > 0 && (vr < 0 || vr > full))
            /* torch 1.13: exports it as ScatterND with the values reshaped at run time; not yet
             * here for values of unknown rank or of more dims than the indexed region */
            return sym_unimplemented (ctx, n, error, "index_put at dim %d with values of rank %d", q, vr);
          if (q > 0 && vr > 0)
            {
              values = values_to_rank (ctx, values, vr, full);
              gint64 vp[TENSOR_MAX_RANK];
              int m = 0;
              for (int a = 0; a < ir; a++)
                vp[m++] = q + a;
              for (int a = 0; a < q; a++)
                vp[m++] = a;
              for (int a = q + ir; a < full; a++)
                vp[m++] = a;
              values = graph_op (G, "Transpose", values, "perm_is", m, vp, NULL);
            }
        }
    }
  else
    {
      if (!p.identity)
        t = graph_op (G, "Transpose", self, "perm_is", p.rank, p.perm, NULL);
      idx = p.stacked;
      if (p.dynamic)
        {
          /* the indices' broadcast shape (index_plan's run-time form), then
           * the transposed self's dims after the indexed ones */
          GraphValue *b = sym_shape_dims (ctx, idx, 0, p.br);
          GraphValue *rest = sym_shape_dims (ctx, t, (gint64) p.k, G_MAXINT64);
          region = graph_op (G, "Concat", b, rest, "axis_i", (gint64) 0, NULL);
        }
      else
        {
          gint64 rd[TENSOR_MAX_RANK];
          int m = 0;
          for (int a = 0; a < p.br; a++)
            rd[m++] = p.b[a];
          for (int a = (int) p.k; a < p.rank; a++)
            rd[m++] = p.dims[p.perm[a]];
          g_autoptr (Tensor) rs = tensor_new_int64_vector ((guint) m, rd);
          region = sym_constant (ctx, rs);
        }
      gint64 back[TENSOR_MAX_RANK];
      int bm, vr = sym_rank (graph_node_input (n, 2));
      if (index_result_perm (&p, back, &bm))
        {
          if (vr < 0 || vr > bm)
            /* torch 1.13: exports it as ScatterND with the values reshaped at run time; not yet
             * here for values of unknown rank or of more dims than the indexed region */
            return sym_unimplemented (ctx, n, error, "index_put with values of rank %d", vr);
          if (vr > 0)
            {
              /* values come in PyTorch's order, broadcasting right-aligned:
               * its rank, then GatherND's order */
              values = values_to_rank (ctx, values, vr, bm);
              gint64 inv[TENSOR_MAX_RANK];
              for (int a = 0; a < bm; a++)
                inv[back[a]] = a;
              values = graph_op (G, "Transpose", values, "perm_is", bm, inv, NULL);
            }
        }
    }
  GraphValue *upd = graph_op (G, "Expand", values, region, NULL);
  /* the index rows' length: the mask's dims, 1 for one index, else the indexed dims */
  gint64 K = mask ? mask_rank : p.k == 1 ? 1 : (gint64) p.k;
  GraphValue *r = !accumulate ? graph_op (G, "ScatterND", t, idx, upd, NULL)
                  : sym_opset (ctx) >= 16 ? graph_op (G, "ScatterND", t, idx, upd, "reduction_s", "add", NULL)
                  : scatter_add_loop (ctx, t, idx, upd, K);   /* Note [index_put accumulate before opset 16] */
  if (r == NULL)
    return FALSE;
  if (!p.identity && !mask)
    {
      gint64 inv[TENSOR_MAX_RANK];
      for (int a = 0; a < p.rank; a++)
        inv[p.perm[a]] = a;
      r = graph_op (G, "Transpose", r, "perm_is", p.rank, inv, NULL);
    }
  out[0] = r;
  return TRUE;
}

/* aten::where(condition, self, other) */
/* aten::take(self, index): Gather from the flattened input, reshaped as index */
static gboolean
sym_take (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index;
  if (!sym_parse_args (ctx, n, "vv", &self, &index, error))
    return FALSE;
  static const gint64 flat[] = { -1 };
  GraphValue *f = sym_reshape_static (ctx, self, 1, flat);
  GraphValue *g = graph_op (G, "Gather", f, index, "axis_i", (gint64) 0, NULL);
  out[0] = sym_reshape (ctx, g, sym_size (ctx, index, G_MININT64));
  return TRUE;
}

/* aten::scatter(self, dim, index, src|value): Scatter before 11,
 * ScatterElements from 11; a scalar value takes self's type and index's
 * shape (Expand). */
gboolean
sym_scatter_any (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  const char *op = sym_opset (ctx) >= 11 ? "ScatterElements" : "Scatter";
  double v;
  GraphValue *s = graph_node_input (n, 3);
  if (sym_rank (s) <= 0 && sym_get_const_double (s, &v))
    {
      GraphValue *c = sym_scalar_like (ctx, v, self);
      src = graph_op (G, "Expand", c, sym_size (ctx, index, G_MININT64), NULL);
    }
  out[0] = graph_op (G, op, self, index, src, "axis_i", dim, NULL);
  return TRUE;
}

/* scatter_add reads src only where index has elements: an index smaller
 * than src takes src's leading corner of index's shape (ScatterElements
 * wants them equal; torch slices src the same way).  A run-time Slice to
 * Shape(index) when the two shapes are not statically known, from opset
 * 10; NULL before 10 then (the caller refuses: an unsliced larger src
 * would broadcast against the index and sum the wrong elements). */
GraphValue *
sym_scatter_src_like_index (SymContext *ctx, GraphValue *src, GraphValue *index)
{
  gint64 sd[TENSOR_MAX_RANK], id[TENSOR_MAX_RANK];
  int r = sym_rank (index);
  if (r <= 0 || r != sym_rank (src))
    return src;
  if (sym_static_shape (src, sd) && sym_static_shape (index, id))
    {
      if (memcmp (sd, id, sizeof (gint64) * (gsize) r) == 0)
        return src;
      gint64 axes[TENSOR_MAX_RANK], starts[TENSOR_MAX_RANK];
      for (int i = 0; i < r; i++)
        axes[i] = i, starts[i] = 0;
      return sym_slice (ctx, src, (gsize) r, axes, starts, id, NULL);
    }
  if (sym_opset (ctx) < 10)
    return NULL;
  gint64 axes[TENSOR_MAX_RANK], starts[TENSOR_MAX_RANK];
  for (int i = 0; i < r; i++)
    axes[i] = i, starts[i] = 0;
  return graph_op (G, "Slice", src, sym_const_ints (ctx, (gsize) r, starts),
                   sym_size (ctx, index, G_MININT64), sym_const_ints (ctx, (gsize) r, axes), NULL);
}

/* The mask forms of scatter_add and index_add below opset 16 hold an
 * N x K x rest tensor; past this many elements they are refused (opset 16
 * writes one ScatterElements with reduction 'add' instead). */
#define ADD_MASK_LIMIT (G_GINT64_CONSTANT (1) << 26)

/* The product of v's dims known at export time (a dynamic axis counts as
 * 1): the lower bound of its element count. */
static guint64
known_numel (GraphValue *v)
{
  gint64 d[TENSOR_MAX_RANK];
  int r = sym_static_dims (v, d);
  guint64 n = 1;
  for (int i = 0; i < r; i++)
    if (d[i] > 0 && !g_uint64_checked_mul (&n, n, (guint64) d[i]))
      return G_MAXUINT64;
  return n;
}

/* scatter_add of run-time shapes before opset 11, which has neither Range
 * for the row ids nor a Pad of run-time pads: each position's total over
 * the positions along dim with the same target, Σ_k' Where(index[k] ==
 * index[k'], src[k'], 0) (a K x K x rest mask), scattered into zeros of
 * self's shape (Scatter-9; a repeated target gets its total from each of
 * its positions, the same sum in the same order) and added to self. */
static gboolean
scatter_add_pairwise (SymContext *ctx, GraphNode *n, GraphValue *self, gint64 dim, GraphValue *index,
                      GraphValue *src, GraphValue **out, GError **error)
{
  gint64 idims[TENSOR_MAX_RANK];
  guint64 cells;
  gint64 k = sym_static_dims (index, idims) > dim && idims[dim] > 0 ? idims[dim] : 1;
  if (!g_uint64_checked_mul (&cells, known_numel (index), (guint64) k) || cells > (guint64) ADD_MASK_LIMIT)
    /* torch 1.13: exports a Scatter into zeros, summing one update per repeated index (a wrong
     * number); refused here because the exact form's mask would be too large */
    return sym_unimplemented (ctx, n, error, "scatter_add needing a mask of more than 2^26 elements "
                              "before opset 16 (export at opset 16 or later)");
  GraphValue *ix = sym_cast (ctx, index, GRAPH_DTYPE_INT64);
  gint64 after = dim + 1;
  GraphValue *same = graph_op (G, "Equal", sym_unsqueeze (ctx, ix, 1, &after), sym_unsqueeze (ctx, ix, 1, &dim), NULL);
  GraphValue *picked = graph_op (G, "Where", same, sym_unsqueeze (ctx, src, 1, &dim),
                                 sym_scalar_like (ctx, 0.0, src), NULL);
  GraphValue *total = sym_reduce (ctx, "ReduceSum", picked, 1, &after, FALSE);
  GraphDType dt = sym_dtype (self);
  if (sym_dtype (src) != dt)
    total = sym_cast (ctx, total, dt);
  GraphValue *zeros = sym_constant_of_shape (ctx, graph_op (G, "Shape", self, NULL), dt, 0.0);
  if (zeros == NULL)
    /* torch 1.13: exports a Scatter into zeros of this type; refused here because ONNX has no
     * zero of it for ConstantOfShape */
    return sym_unimplemented (ctx, n, error, "scatter_add into a tensor of this type before opset 11");
  out[0] = graph_op (G, "Add", self, graph_op (G, "Scatter", zeros, ix, total, "axis_i", dim, NULL), NULL);
  return out[0] != NULL;
}

/* 0, 1, ..., N - 1 for self's N rows at dim: constants when n_rows >= 0,
 * else at run time (sym_iota) */
static GraphValue *
row_ids (SymContext *ctx, GraphValue *self, gint64 dim, gint64 n_rows)
{
  if (n_rows < 0)
    return sym_iota (ctx, sym_size (ctx, self, dim));
  gint64 *ids = g_new (gint64, (gsize) MAX (n_rows, 1));
  for (gint64 i = 0; i < n_rows; i++)
    ids[i] = i;
  GraphValue *r = sym_const_ints (ctx, (gsize) n_rows, ids);
  g_free (ids);
  return r;
}

/* aten::scatter_add(self, dim, index, src): src[.., k, ..] added to
 * self[.., index[.., k, ..], ..], repeated indices summed as PyTorch does.
 * From opset 16 one ScatterElements(reduction='add') into self (opset16.c,
 * as torch's opset-16 symbolic).  Before 16, where torch's export scatters into zeros
 * and so keeps one update per repeated index (a wrong number), an exact
 * sum, as index_add's: mask[.., n, k, ..] = (index[.., k, ..] == n) by
 * broadcasting, Where(mask, src, 0), ReduceSum over k, then zeros padded
 * to self's shape where index is smaller than self, and an Add.  The mask
 * is N x numel(index): refused past ADD_MASK_LIMIT elements of its
 * static part (with dynamic axes it grows with them at run time). */
static gboolean
sym_scatter_add (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  GraphDType dt = sym_dtype (self);
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: also refuses (_unimplemented "scatter_add: input dtype not accessible") */
    return sym_unimplemented (ctx, n, error, "scatter_add of an input of unknown type");
  src = sym_scatter_src_like_index (ctx, src, index);
  if (src == NULL)
    /* torch 1.13: exports a Scatter of the whole src into zeros (a wrong number when src is larger
     * than index); refused here because slicing src at run time needs opset 10 */
    return sym_unimplemented (ctx, n, error, "scatter_add of a src of run-time shape before opset 10");
  int rank = sym_rank (self);
  if (rank < 1 || rank >= TENSOR_MAX_RANK || sym_rank (index) != rank)
    /* torch 1.13: exports a scatter into zeros, summing one update per repeated index (a wrong
     * number); refused here because the exact form needs the ranks */
    return sym_unimplemented (ctx, n, error, "scatter_add of inputs of unknown rank before opset 16 "
                              "(export at opset 16 or later)");
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    /* torch 1.13: also refuses (PyTorch rejects a dim out of range) */
    return sym_unimplemented (ctx, n, error, "dim out of range");
  if (dt == GRAPH_DTYPE_BOOL)
    /* torch 1.13: also refuses (PyTorch has no scatter_add of bool tensors) */
    return sym_unimplemented (ctx, n, error, "scatter_add of bool tensors");
  gint64 sdims[TENSOR_MAX_RANK], idims[TENSOR_MAX_RANK];
  int srank = sym_static_dims (self, sdims), irank = sym_static_dims (index, idims);
  gint64 n_rows = srank == rank ? sdims[dim] : -1;
  guint64 cells;
  if (!g_uint64_checked_mul (&cells, known_numel (index), n_rows > 0 ? (guint64) n_rows : 1)
      || cells > (guint64) ADD_MASK_LIMIT)
    /* torch 1.13: exports a scatter into zeros, summing one update per repeated index (a wrong
     * number); refused here because the exact form's mask would be too large (it
     * is one ScatterElements from opset 16) */
    return sym_unimplemented (ctx, n, error, "scatter_add needing a mask of more than 2^26 elements "
                              "before opset 16 (export at opset 16 or later)");
  /* pads of zeros where the index is smaller than self in the other dims */
  gboolean known = srank == rank && irank == rank, same_extent;
  for (int i = 0; known && i < rank; i++)
    known = sdims[i] >= 0 && idims[i] >= 0;
  gint64 pads[2 * TENSOR_MAX_RANK] = { 0 };
  same_extent = known;
  for (int i = 0; known && i < rank; i++)
    if (i != dim)
      {
        pads[rank + i] = sdims[i] - idims[i];
        if (pads[rank + i] < 0)
          /* torch 1.13: also refuses (PyTorch rejects an index larger than self outside dim) */
          return sym_unimplemented (ctx, n, error, "an index larger than self outside dim");
        same_extent = same_extent && pads[rank + i] == 0;
      }
  if (sym_opset (ctx) < 11 && !known)
    return scatter_add_pairwise (ctx, n, self, dim, index, src, out, error);
  /* row ids 0..N-1 along dim, ones elsewhere (rank + 1 dims: K follows dim) */
  GraphValue *rows = row_ids (ctx, self, dim, n_rows);
  gint64 rshape[TENSOR_MAX_RANK + 1];
  for (int i = 0; i <= rank; i++)
    rshape[i] = i == dim ? -1 : 1;
  rows = sym_reshape_static (ctx, rows, (gsize) rank + 1, rshape);
  GraphValue *mask = graph_op (G, "Equal", rows,
                               sym_unsqueeze (ctx, sym_cast (ctx, index, GRAPH_DTYPE_INT64), 1, &dim), NULL);
  GraphValue *picked = graph_op (G, "Where", mask, sym_unsqueeze (ctx, src, 1, &dim),
                                 sym_scalar_like (ctx, 0.0, src), NULL);
  gint64 kaxis = dim + 1;
  GraphValue *sum = sym_reduce (ctx, "ReduceSum", picked, 1, &kaxis, FALSE);
  if (!same_extent && sym_opset (ctx) < 11)
    sum = graph_op (G, "Pad", sum, "mode_s", "constant", "pads_is", 2 * rank, pads, "value_f", 0.0, NULL);
  else if (!same_extent)
    {
      /* run-time shapes: pads (0.., Shape(self) - Shape(sum)) */
      gint64 zeros[TENSOR_MAX_RANK] = { 0 };
      GraphValue *pv = known ? sym_const_ints (ctx, 2 * (gsize) rank, pads)
        : graph_op (G, "Concat", sym_const_ints (ctx, (gsize) rank, zeros),
                    graph_op (G, "Sub", sym_size (ctx, self, G_MININT64), sym_size (ctx, sum, G_MININT64), NULL),
                    "axis_i", (gint64) 0, NULL);
      sum = graph_op (G, "Pad", sum, pv, sym_scalar_like (ctx, 0.0, src), "mode_s", "constant", NULL);
    }
  out[0] = graph_op (G, "Add", self, sum, NULL);
  return TRUE;
}

/* aten::index_fill(self, dim, index, value) / index_copy(self, dim, index,
 * source): the index unsqueezed to self's rank and expanded to self's
 * shape with index's length at dim, then a scatter along dim.  torch
 * computes that shape at run time (Shape/Scatter); we need it static and
 * write it as a constant. */
static gboolean
index_scatter (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error, gboolean fill)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  int rank = sym_rank (self);
  gint64 dims[TENSOR_MAX_RANK], idims[TENSOR_MAX_RANK];
  int irank = sym_rank (index);
  if (rank < 1 || rank > TENSOR_MAX_RANK || !sym_static_shape (self, dims) || irank > 1
      || (irank == 1 && !sym_static_shape (index, idims)))
    /* torch 1.13: exports run-time sizes when the rank is known (Shape, Expand of the unsqueezed
     * index, Scatter); not yet here */
    return sym_unimplemented (ctx, n, error, "index_fill/index_copy of dynamic shapes");
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    /* torch 1.13: also refuses (PyTorch rejects a dim out of range) */
    return sym_unimplemented (ctx, n, error, "dim out of range");
  dims[dim] = irank == 1 ? idims[0] : 1;
  gint64 axes[TENSOR_MAX_RANK];
  gsize na = 0;
  for (int i = 0; i < rank; i++)
    if (i != dim)
      axes[na++] = i;
  if (irank == 0)
    {
      gint64 zero = 0;
      index = sym_unsqueeze (ctx, index, 1, &zero);
    }
  GraphValue *shape = sym_const_ints (ctx, (gsize) rank, dims);
  GraphValue *idx = na ? sym_unsqueeze (ctx, index, na, axes) : index;
  idx = graph_op (G, "Expand", idx, shape, NULL);
  if (fill)
    {
      double v;
      GraphValue *val = sym_get_const_double (graph_node_input (n, 3), &v)
                          ? sym_scalar_like (ctx, v, self) : src;
      src = graph_op (G, "Expand", val, sym_const_ints (ctx, (gsize) rank, dims), NULL);
    }
  const char *op = sym_opset (ctx) >= 11 ? "ScatterElements" : "Scatter";
  out[0] = graph_op (G, op, self, idx, src, "axis_i", dim, NULL);
  return TRUE;
}

static gboolean
sym_index_fill (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return index_scatter (ctx, n, out, error, TRUE);
}

static gboolean
sym_index_copy (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  return index_scatter (ctx, n, out, error, FALSE);
}

/* aten::index_add(self, dim, index, source, alpha): source added along dim
 * at index, duplicate indices summed as PyTorch does.  From opset 16 one
 * ScatterElements(reduction='add') into self.  Before 16, where torch's
 * export scatters into zeros and so keeps only one of each duplicate (a
 * wrong number), an exact sum: mask[n, k] = (index[k] == n), Where(mask,
 * source, 0) with an N axis before dim, ReduceSum over the K axis (no
 * multiplication, so a NaN or Inf only reaches its own target); it needs
 * the N x K x rest mask, so beyond 2^26 elements, and for a self of
 * run-time sizes, the Loop of index_add_dynamic. */

/* The exact sum before opset 16 as a mask: mask[n, k] = (index[k] == n)
 * over self's N rows at dim (n_rows, or a run-time count when it is -1),
 * Where(mask, source, 0) with an N axis before dim, ReduceSum over the K
 * axis, added to self (the source's other dims broadcast against self's). */
static GraphValue *
index_add_mask (SymContext *ctx, GraphValue *self, int rank, gint64 dim, GraphValue *index, GraphValue *src,
                gint64 n_rows, gint64 k)
{
  gint64 one = 1, zero = 0;
  GraphValue *mask = graph_op (G, "Equal", sym_unsqueeze (ctx, row_ids (ctx, self, dim, n_rows), 1, &one),
                               sym_unsqueeze (ctx, sym_cast (ctx, index, GRAPH_DTYPE_INT64), 1, &zero), NULL);
  /* mask (N, K) as (1.., N, K, 1..); source (.., K, ..) as (.., 1, K, ..) */
  if (n_rows >= 0)
    {
      gint64 mshape[TENSOR_MAX_RANK + 1];
      for (int i = 0; i <= rank; i++)
        mshape[i] = i == dim ? n_rows : i == dim + 1 ? k : 1;
      mask = sym_reshape_static (ctx, mask, (gsize) rank + 1, mshape);
    }
  else
    {
      gint64 axes[TENSOR_MAX_RANK];
      gsize na = 0;
      for (int i = 0; i <= rank; i++)
        if (i != dim && i != dim + 1)
          axes[na++] = i;
      if (na > 0)
        mask = sym_unsqueeze (ctx, mask, na, axes);
    }
  GraphValue *src_u = sym_unsqueeze (ctx, src, 1, &dim);
  GraphValue *picked = graph_op (G, "Where", mask, src_u, sym_scalar_like (ctx, 0.0, src), NULL);
  gint64 kaxis = dim + 1;
  return graph_op (G, "Add", self, sym_reduce (ctx, "ReduceSum", picked, 1, &kaxis, FALSE), NULL);
}

/* index_add into a self of sizes known only at run time (torch computes
 * the expanded shapes at run time too): self with dim first, the source
 * (at self's rank) likewise and expanded to [K, self's other dims], its K
 * rows added at index's rows: ScatterND's add from opset 16, before it the
 * Loop of Note [index_put accumulate before opset 16]. */
static gboolean
index_add_dynamic (SymContext *ctx, GraphNode *n, GraphValue *self, int rank, gint64 dim, GraphValue *index,
                   GraphValue *src, gboolean too_large, GraphValue **out, GError **error)
{
  if (sym_opset (ctx) < 11 && too_large)
    /* torch 1.13: scatters into zeros (duplicate indices keep one value, not their sum); refused
     * here because the exact form's ScatterND needs opset 11, and its mask would be too large */
    return sym_unimplemented (ctx, n, error, "index_add needing a mask of more than 2^26 elements before "
                              "opset 11");
  if (sym_opset (ctx) < 11)
    {
      /* a self of run-time sizes before ScatterND: the mask of run-time size */
      if (sym_dtype (src) != sym_dtype (self))
        src = sym_cast (ctx, src, sym_dtype (self));
      out[0] = index_add_mask (ctx, self, rank, dim, index, src, -1, -1);
      return TRUE;
    }
  gint64 perm[TENSOR_MAX_RANK];
  perm[0] = dim;
  for (int i = 0, m = 1; i < rank; i++)
    if (i != dim)
      perm[m++] = i;
  GraphValue *t = self;
  if (dim != 0)
    {
      t = graph_op (G, "Transpose", self, "perm_is", rank, perm, NULL);
      src = graph_op (G, "Transpose", src, "perm_is", rank, perm, NULL);
      sym_set_type (t, sym_dtype (self), rank, NULL);
    }
  static const gint64 zero = 0, one = 1;
  GraphValue *k = sym_unsqueeze (ctx, sym_size (ctx, index, 0), 1, &zero);
  GraphValue *rest = sym_shape_dims (ctx, t, 1, G_MAXINT64);
  GraphValue *upd = graph_op (G, "Expand", src, graph_op (G, "Concat", k, rest, "axis_i", (gint64) 0, NULL), NULL);
  if (sym_dtype (src) != sym_dtype (self))
    upd = sym_cast (ctx, upd, sym_dtype (self));
  GraphValue *idx = sym_unsqueeze (ctx, sym_cast (ctx, index, GRAPH_DTYPE_INT64), 1, &one);
  GraphValue *r = sym_opset (ctx) >= 16 ? graph_op (G, "ScatterND", t, idx, upd, "reduction_s", "add", NULL)
                                        : scatter_add_loop (ctx, t, idx, upd, 1);
  if (r == NULL)
    return FALSE;
  if (dim != 0)
    {
      gint64 inv[TENSOR_MAX_RANK];
      for (int a = 0; a < rank; a++)
        inv[perm[a]] = a;
      r = graph_op (G, "Transpose", r, "perm_is", rank, inv, NULL);
    }
  out[0] = r;
  return r != NULL;
}

static gboolean
sym_index_add (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index, *src;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdvv", &self, &dim, &index, &src, error))
    return FALSE;
  double alpha;
  GraphValue *a = graph_node_n_inputs (n) > 4 ? graph_node_input (n, 4) : NULL;
  if (a && !sym_is_none (a) && (!sym_get_const_double (a, &alpha) || alpha != 1.0))
    /* torch 1.13: also refuses (_unimplemented "index_add: alpha != 1") */
    return sym_unimplemented (ctx, n, error, "index_add with alpha != 1");
  int rank = sym_rank (self), srank = sym_rank (src), irank = sym_rank (index);
  gint64 dims[TENSOR_MAX_RANK], sdims[TENSOR_MAX_RANK];
  if (rank < 1 || rank >= TENSOR_MAX_RANK || srank < 1 || srank > rank || irank != 1)
    /* torch 1.13: also refuses unknown ranks (it raises); not yet here for an index of another rank
     * than 1 or a source of higher rank than self */
    return sym_unimplemented (ctx, n, error, "index_add of unknown ranks");
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    /* torch 1.13: also refuses (PyTorch rejects a dim out of range) */
    return sym_unimplemented (ctx, n, error, "dim out of range");
  /* Eager adds source.select(dim, i) to self.select(dim, index[i]): the
   * source's other dims broadcast, right-aligned, against self's other dims
   * (a (1, 3, 3) source adds to every row of a (5, 4, 3) self; torch expands
   * it too).  The source as a tensor of self's rank (ones inserted), then
   * expanded to self's shape with its own size at dim. */
  if (dim >= srank)
    /* torch 1.13: appends dims to the source and exports it; refused here because eager
     * PyTorch takes dim of the source itself, which has no such dim */
    return sym_unimplemented (ctx, n, error, "a source of lower rank than dim");
  if (sym_dtype (self) == GRAPH_DTYPE_BOOL)
    /* torch 1.13: exports Add on bool, which ONNX refuses; refused here because of that */
    return sym_unimplemented (ctx, n, error, "index_add of bool tensors");
  gboolean src_static = sym_static_shape (src, sdims);
  if (srank != rank && !src_static)
    /* torch 1.13: appends dims to the source at run time; not yet here for a source of lower rank
     * whose shape is known only at run time */
    return sym_unimplemented (ctx, n, error, "index_add of a source of lower rank and run-time sizes");
  gint64 rdims[TENSOR_MAX_RANK], tdims[TENSOR_MAX_RANK];
  for (int i = 0, j = 0; src_static && i < rank; i++)
    {
      /* self's i-th dim against the source's: dim to dim, the j-th of
       * self's other dims against the source's other dims from the right */
      int from_end = (rank - 2) - j, sj = (srank - 2) - from_end;
      rdims[i] = i == dim ? sdims[dim] : sj < 0 ? 1 : sdims[sj < dim ? sj : sj + 1];
      j += i != dim;
    }
  if (srank != rank)
    src = sym_reshape_static (ctx, src, (gsize) rank, rdims);
  if (!sym_static_shape (self, dims))
    return index_add_dynamic (ctx, n, self, rank, dim, index, src, FALSE, out, error);
  if (!src_static)
    /* torch 1.13: expands the source at run time; not yet here for a source of run-time sizes
     * added into a tensor of static ones */
    return sym_unimplemented (ctx, n, error, "index_add of a source of run-time sizes");
  for (int i = 0; i < rank; i++)
    {
      if (rdims[i] != dims[i] && rdims[i] != 1 && i != dim)
        /* torch 1.13: also refuses (its Expand of the source fails) */
        return sym_unimplemented (ctx, n, error, "a source of shape that does not broadcast to self's");
      tdims[i] = i == dim ? rdims[i] : dims[i];
    }
  if (memcmp (tdims, rdims, sizeof (gint64) * (gsize) rank) != 0)
    src = graph_op (G, "Expand", src, sym_const_ints (ctx, (gsize) rank, tdims), NULL);
  memcpy (sdims, tdims, sizeof (gint64) * (gsize) rank);
  gint64 axes[TENSOR_MAX_RANK];
  gsize na = 0;
  for (int i = 0; i < rank; i++)
    if (i != dim)
      axes[na++] = i;
  if (sym_opset (ctx) >= 16)
    {
      GraphValue *idx = na ? sym_unsqueeze (ctx, index, na, axes) : index;
      idx = graph_op (G, "Expand", idx, sym_const_ints (ctx, (gsize) rank, sdims), NULL);
      out[0] = graph_op (G, "ScatterElements", self, idx, src, "axis_i", dim, "reduction_s", "add", NULL);
      return TRUE;
    }
  gint64 n_rows = dims[dim], k = sdims[dim];
  guint64 cells = (guint64) n_rows;
  for (int i = 0; i < rank; i++)
    if (!g_uint64_checked_mul (&cells, cells, (guint64) sdims[i]) || cells > (guint64) ADD_MASK_LIMIT)
      return index_add_dynamic (ctx, n, self, rank, dim, index, src, TRUE, out, error);
  out[0] = index_add_mask (ctx, self, rank, dim, index, src, n_rows, k);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::index_select", sym_index_select),
  SYM_FN ("aten::index", sym_index),
  SYM_FN ("aten::index_put", sym_index_put),
  SYM_FN ("aten::take", sym_take),
  SYM_FN ("aten::index_fill", sym_index_fill),
  SYM_FN ("aten::index_copy", sym_index_copy),
  SYM_FN ("aten::index_add", sym_index_add),
  SYM_FN ("aten::scatter", sym_scatter_any),
  SYM_FN ("aten::scatter_add", sym_scatter_add),
};
const SymTable sym_opset9_index = SYM_TABLE (9, entries);
