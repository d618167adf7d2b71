/* Symbolic shape propagation, part 3: shape rules for the element-wise
 * and tensor-layout ops (same shape, broadcast, Flatten, Reshape,
 * Transpose, Concat, Split, Slice, Squeeze, Unsqueeze, Gather, Shape, Size,
 * ConstantOfShape, Expand, Tile).  Each fills out[0..n_outputs) or returns
 * FALSE. */
#include "export/pipeline/shapes-private.h"
#include <string.h>

/* Every output has input 0's shape (unary ops, normalisations, Dropout's
 * output and mask, Identity, Cast). */
gboolean
shape_rule_same (Ctx *c, GraphNode *n, Shape *out)
{
  if (!shape_of (c, shape_in_at (n, 0), &out[0]))
    return FALSE;
  for (guint i = 1; i < graph_node_n_outputs (n); i++)
    out[i] = out[0];
  return TRUE;
}

/* The static shape of a `shape` ints attribute (RandomNormal, RandomUniform). */
gboolean
shape_rule_shape_attr (Ctx *c, GraphNode *n, Shape *out)
{
  (void) c;
  gsize len = 0;
  const gint64 *dims = NULL;
  if (graph_node_n_outputs (n) != 1 || !graph_node_get_is (n, "shape", &len, &dims)
      || len > TENSOR_MAX_RANK)
    return FALSE;
  out->rank = (int) len;
  for (gsize i = 0; i < len; i++)
    {
      if (dims[i] < 0 || !shape_small (dims[i]))
        return FALSE;
      out->d[i] = shape_dim_static (dims[i]);
    }
  return TRUE;
}

/* One output with input 1's shape (GatherElements: the indices'). */
gboolean
shape_rule_like_input1 (Ctx *c, GraphNode *n, Shape *out)
{
  return graph_node_n_outputs (n) == 1 && shape_of (c, shape_in_at (n, 1), &out[0]);
}

/* LayerNormalization: Y as X; Mean and InvStdDev keep the dims before
 * `axis` and have 1 from it on. */
gboolean
shape_rule_layer_norm (Ctx *c, GraphNode *n, Shape *out)
{
  if (!shape_of (c, shape_in_at (n, 0), &out[0]) || out[0].rank < 0)
    return FALSE;
  gint64 axis = shape_attr_i (n, "axis", -1);
  if (!shape_norm_axis (&axis, out[0].rank))
    return FALSE;
  for (guint i = 1; i < graph_node_n_outputs (n); i++)
    {
      out[i] = out[0];
      for (int k = (int) axis; k < out[i].rank; k++)
        out[i].d[k] = shape_dim_static (1);
    }
  return TRUE;
}

gboolean
shape_rule_broadcast (Ctx *c, GraphNode *n, Shape *out)
{
  guint nin = graph_node_n_inputs (n);
  if (nin == 0 || nin > 8)
    return FALSE;
  Shape s[8];
  int rank = 0;
  for (guint i = 0; i < nin; i++)
    {
      if (!shape_of (c, graph_node_input (n, i), &s[i]))
        return FALSE;
      rank = MAX (rank, s[i].rank);
    }
  out->rank = rank;
  for (int k = 0; k < rank; k++)
    {
      GraphDim ds[8];
      guint m = 0;
      for (guint i = 0; i < nin; i++)
        {
          int j = k - (rank - s[i].rank);
          if (j >= 0)
            ds[m++] = s[i].d[j];
        }
      out->d[k] = shape_dim_broadcast (ds, m);
    }
  return TRUE;
}

gboolean
shape_rule_flatten (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  gint64 axis = shape_attr_i (n, "axis", 1);
  if (axis < 0)
    axis += x.rank;
  if (axis < 0 || axis > x.rank)
    return FALSE;
  out->rank = 2;
  out->d[0] = shape_dims_product (&x, 0, (int) axis);
  out->d[1] = shape_dims_product (&x, (int) axis, x.rank);
  return TRUE;
}

/* -1 of a Reshape: the input's dims divided by the known output dims, when
 * the quotient is one static value or one leftover symbol. */
static GraphDim
reshape_infer (const Shape *x, const Shape *out, int skip)
{
  gint64 num = 1, den = 1;
  const char *syms[TENSOR_MAX_RANK];
  guint n_syms = 0;
  for (int i = 0; i < x->rank; i++)
    {
      const GraphDim *d = &x->d[i];
      if (d->kind == GRAPH_DIM_UNKNOWN)
        return shape_dim_unknown ();
      if (d->kind == GRAPH_DIM_SYMBOLIC)
        syms[n_syms++] = d->symbol;
      else if (d->value <= 0 || num > G_MAXINT64 / d->value)
        return shape_dim_unknown ();
      else
        num *= d->value;
    }
  for (int i = 0; i < out->rank; i++)
    {
      const GraphDim *d = &out->d[i];
      if (i == skip)
        continue;
      if (d->kind == GRAPH_DIM_UNKNOWN)
        return shape_dim_unknown ();
      if (d->kind == GRAPH_DIM_STATIC)
        {
          if (d->value <= 0 || den > G_MAXINT64 / d->value)
            return shape_dim_unknown ();
          den *= d->value;
          continue;
        }
      guint j = 0;   /* cancel one occurrence of the symbol */
      while (j < n_syms && g_strcmp0 (syms[j], d->symbol) != 0)
        j++;
      if (j == n_syms)
        return shape_dim_unknown ();
      syms[j] = syms[--n_syms];
    }
  if (num % den != 0 || n_syms > 1)
    return shape_dim_unknown ();
  if (n_syms == 0)
    return shape_dim_static (num / den);
  return num == den ? (GraphDim) { GRAPH_DIM_SYMBOLIC, 0, g_intern_string (syms[0]) }
                    : shape_dim_unknown ();
}

gboolean
shape_rule_reshape (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  DimVec sh;
  if (!shape_of (c, shape_in_at (n, 0), &x) || !shape_data_of (c, shape_in_at (n, 1), &sh)
      || sh.scalar)
    return FALSE;
  gboolean allowzero = shape_attr_i (n, "allowzero", 0) != 0;
  int infer = -1;
  out->rank = (int) sh.n;
  for (guint i = 0; i < sh.n; i++)
    {
      GraphDim d = sh.v[i];
      if (d.kind == GRAPH_DIM_STATIC && d.value == 0 && !allowzero)
        {
          if ((int) i >= x.rank)
            return FALSE;
          d = x.d[i];
        }
      else if (d.kind == GRAPH_DIM_STATIC && d.value == -1)
        {
          if (infer >= 0)
            return FALSE;
          infer = (int) i;
        }
      else if (d.kind == GRAPH_DIM_STATIC && d.value < 0)
        return FALSE;
      out->d[i] = d;
    }
  if (infer >= 0)
    out->d[infer] = reshape_infer (&x, out, infer);
  return TRUE;
}

gboolean
shape_rule_transpose (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  gint64 perm[TENSOR_MAX_RANK];
  gsize len = 0;
  const gint64 *p = NULL;
  if (graph_node_get_is (n, "perm", &len, &p))
    {
      if (len != (gsize) x.rank)
        return FALSE;
      memcpy (perm, p, len * sizeof (gint64));
    }
  else
    for (int i = 0; i < x.rank; i++)
      perm[i] = x.rank - 1 - i;
  out->rank = x.rank;
  for (int i = 0; i < x.rank; i++)
    {
      if (perm[i] < 0 || perm[i] >= x.rank)
        return FALSE;
      out->d[i] = x.d[perm[i]];
    }
  return TRUE;
}

gboolean
shape_rule_concat (Ctx *c, GraphNode *n, Shape *out)
{
  guint nin = graph_node_n_inputs (n);
  if (nin == 0 || !shape_of (c, shape_in_at (n, 0), out))
    return FALSE;
  gint64 axis = shape_attr_i (n, "axis", 0);
  if (!shape_norm_axis (&axis, out->rank))
    return FALSE;
  for (guint i = 1; i < nin; i++)
    {
      Shape s;
      if (!shape_of (c, graph_node_input (n, i), &s) || s.rank != out->rank)
        return FALSE;
      for (int k = 0; k < s.rank; k++)
        {
          if (k != axis)
            out->d[k] = shape_dim_merge (out->d[k], s.d[k]);
          else if (out->d[k].kind == GRAPH_DIM_STATIC && s.d[k].kind == GRAPH_DIM_STATIC)
            out->d[k] = shape_dim_add (out->d[k], s.d[k].value);
          else
            out->d[k] = shape_is_static (&s.d[k], 0) ? out->d[k]
                        : shape_is_static (&out->d[k], 0) ? s.d[k] : shape_dim_unknown ();
        }
    }
  return TRUE;
}

gboolean
shape_rule_split (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  gint64 axis = shape_attr_i (n, "axis", 0);
  if (!shape_norm_axis (&axis, x.rank))
    return FALSE;
  guint nout = graph_node_n_outputs (n);
  gint64 split[TENSOR_MAX_RANK];
  guint ns = 0;
  gsize len = 0;
  const gint64 *sv = NULL;
  gboolean have = FALSE;
  if (graph_node_get_is (n, "split", &len, &sv) && len == nout && len <= TENSOR_MAX_RANK)
    {
      memcpy (split, sv, len * sizeof (gint64));
      have = TRUE;
    }
  else if (shape_in_at (n, 1) && shape_ints_of (c, shape_in_at (n, 1), split, &ns) && ns == nout)
    have = TRUE;
  else if (nout > TENSOR_MAX_RANK && !shape_in_at (n, 1))
    return FALSE;
  /* sizes computed at run time (split by x.size(1)): the axis unknown */
  gboolean computed = !have && shape_in_at (n, 1) != NULL;
  for (guint i = 0; i < nout; i++)
    {
      out[i] = x;
      if (have)
        out[i].d[axis] = shape_dim_static (split[i]);
      else if (computed)
        out[i].d[axis] = shape_dim_unknown ();
      else if (x.d[axis].kind == GRAPH_DIM_STATIC && x.d[axis].value % nout == 0)
        out[i].d[axis] = shape_dim_static (x.d[axis].value / nout);
      else
        out[i].d[axis] = nout == 1 ? x.d[axis] : shape_dim_unknown ();
    }
  return TRUE;
}

/* Slice of one dim [start, end) by step, ONNX's clamping. */
GraphDim
shape_slice_dim (GraphDim d, gint64 start, gint64 end, gint64 step)
{
  const gint64 big = G_MAXINT64 / 4;
  if (d.kind != GRAPH_DIM_STATIC)
    /* The whole dim, forwards: the identity. */
    return step == 1 && start == 0 && end >= big ? d : shape_dim_unknown ();
  gint64 len = d.value;
  if (len < 0 || len > DIM_LIMIT)
    return shape_dim_unknown ();
  /* A step longer than the dim takes one element at most. */
  step = CLAMP (step, -(len + 1), len + 1);
  if (start < 0)
    start += len;
  if (end < 0)
    end += len;
  if (step > 0)
    {
      start = CLAMP (start, 0, len);
      end = CLAMP (end, 0, len);
      return shape_dim_static (end > start ? (end - start - 1) / step + 1 : 0);
    }
  start = CLAMP (start, 0, len - 1);
  end = CLAMP (end, -1, len - 1);
  return shape_dim_static (start > end ? (start - end - 1) / -step + 1 : 0);
}

gboolean
shape_rule_slice (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  gint64 starts[TENSOR_MAX_RANK], ends[TENSOR_MAX_RANK], axes[TENSOR_MAX_RANK],
    steps[TENSOR_MAX_RANK];
  guint ns = 0, ne = 0, na = 0, nst = 0;
  if (graph_node_n_inputs (n) == 1)   /* opset 9: attributes */
    {
      gsize ls = 0, le = 0, la = 0;
      const gint64 *s = NULL, *e = NULL, *a = NULL;
      if (!graph_node_get_is (n, "starts", &ls, &s) || !graph_node_get_is (n, "ends", &le, &e)
          || ls != le || ls > TENSOR_MAX_RANK)
        return FALSE;
      ns = ne = (guint) ls;
      memcpy (starts, s, ls * sizeof (gint64));
      memcpy (ends, e, le * sizeof (gint64));
      if (graph_node_get_is (n, "axes", &la, &a))
        {
          if (la != ls)
            return FALSE;
          memcpy (axes, a, la * sizeof (gint64));
          na = (guint) la;
        }
    }
  else if (!shape_ints_of (c, shape_in_at (n, 1), starts, &ns)
           || !shape_ints_of (c, shape_in_at (n, 2), ends, &ne)
           || ns != ne || (shape_in_at (n, 3) && !shape_ints_of (c, shape_in_at (n, 3), axes, &na))
           || (shape_in_at (n, 4) && !shape_ints_of (c, shape_in_at (n, 4), steps, &nst)))
    return FALSE;
  if (na == 0)
    {
      if (ns > (guint) x.rank)
        return FALSE;
      for (guint i = 0; i < ns; i++)
        axes[i] = i;
      na = ns;
    }
  if (nst == 0)
    for (guint i = 0; i < ns; i++)
      steps[i] = 1;
  if (na != ns || (nst != 0 && nst != ns))
    return FALSE;
  *out = x;
  for (guint i = 0; i < ns; i++)
    {
      gint64 axis = axes[i];
      if (!shape_norm_axis (&axis, x.rank) || steps[i] == 0)
        return FALSE;
      out->d[axis] = shape_slice_dim (x.d[axis], starts[i], ends[i], steps[i]);
    }
  return TRUE;
}

gboolean
shape_rule_squeeze (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 axes[TENSOR_MAX_RANK];
  guint na = 0;
  gboolean present;
  if (!shape_of (c, shape_in_at (n, 0), &x) || !shape_axes_of (c, n, 1, axes, &na, &present))
    return FALSE;
  gboolean drop[TENSOR_MAX_RANK] = { FALSE };
  if (!present)
    for (int i = 0; i < x.rank; i++)
      {
        if (x.d[i].kind != GRAPH_DIM_STATIC)
          return FALSE;   /* whether it is a 1 is not known */
        drop[i] = x.d[i].value == 1;
      }
  for (guint i = 0; i < na; i++)
    {
      if (!shape_norm_axis (&axes[i], x.rank))
        return FALSE;
      drop[axes[i]] = TRUE;
    }
  out->rank = 0;
  for (int i = 0; i < x.rank; i++)
    if (!drop[i])
      out->d[out->rank++] = x.d[i];
  return TRUE;
}

gboolean
shape_rule_unsqueeze (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  gint64 axes[TENSOR_MAX_RANK];
  guint na = 0;
  gboolean present;
  if (!shape_of (c, shape_in_at (n, 0), &x) || !shape_axes_of (c, n, 1, axes, &na, &present)
      || !present
      || x.rank + (int) na > TENSOR_MAX_RANK)
    return FALSE;
  out->rank = x.rank + (int) na;
  gboolean one[TENSOR_MAX_RANK] = { FALSE };
  for (guint i = 0; i < na; i++)
    {
      if (!shape_norm_axis (&axes[i], out->rank) || one[axes[i]])
        return FALSE;
      one[axes[i]] = TRUE;
    }
  for (int i = 0, k = 0; i < out->rank; i++)
    out->d[i] = one[i] ? shape_dim_static (1) : x.d[k++];
  return TRUE;
}

gboolean
shape_rule_gather (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x, idx;
  if (!shape_of (c, shape_in_at (n, 0), &x) || !shape_of (c, shape_in_at (n, 1), &idx)
      || x.rank + idx.rank - 1 > TENSOR_MAX_RANK)
    return FALSE;
  gint64 axis = shape_attr_i (n, "axis", 0);
  if (!shape_norm_axis (&axis, x.rank))
    return FALSE;
  out->rank = 0;
  for (int i = 0; i < axis; i++)
    out->d[out->rank++] = x.d[i];
  for (int i = 0; i < idx.rank; i++)
    out->d[out->rank++] = idx.d[i];
  for (int i = (int) axis + 1; i < x.rank; i++)
    out->d[out->rank++] = x.d[i];
  return TRUE;
}

/* Shape's [start, end) (opset 15), clamped as ONNX does. */
void
shape_range (GraphNode *n, int rank, gint64 *start, gint64 *end)
{
  *start = shape_attr_i (n, "start", 0);
  *end = shape_attr_i (n, "end", rank);
  if (*start < 0)
    *start += rank;
  if (*end < 0)
    *end += rank;
  *start = CLAMP (*start, 0, rank);
  *end = CLAMP (*end, *start, rank);
}

gboolean
shape_rule_shape (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  if (!shape_of (c, shape_in_at (n, 0), &x))
    return FALSE;
  gint64 start, end;
  shape_range (n, x.rank, &start, &end);
  out->rank = 1;
  out->d[0] = shape_dim_static (end - start);
  return TRUE;
}

/* Range(start, limit, delta): 1-D, max(ceil((limit - start) / delta), 0)
 * elements when the three are known integers (a scripted arange has no
 * declared type to take the length from). */
gboolean
shape_rule_range (Ctx *c, GraphNode *n, Shape *out)
{
  gint64 v[3];
  gboolean known = TRUE;
  for (guint i = 0; i < 3; i++)
    {
      DimVec d;
      known = known && shape_data_of (c, shape_in_at (n, i), &d) && d.n == 1
              && d.v[0].kind == GRAPH_DIM_STATIC && shape_small (d.v[0].value);
      v[i] = known ? d.v[0].value : 0;
    }
  out->rank = 1;
  out->d[0] = shape_dim_unknown ();
  if (known && v[2] != 0)
    {
      gint64 span = v[1] - v[0];
      gint64 len = span / v[2] + ((span % v[2] != 0 && (span < 0) == (v[2] < 0)) ? 1 : 0);
      out->d[0] = shape_dim_static (len > 0 ? len : 0);
    }
  return TRUE;
}

gboolean
shape_rule_scalar (Ctx *c, GraphNode *n, Shape *out)
{
  (void) c;
  (void) n;
  out->rank = 0;
  return TRUE;
}

gboolean
shape_rule_constant_of_shape (Ctx *c, GraphNode *n, Shape *out)
{
  DimVec sh;
  if (!shape_data_of (c, shape_in_at (n, 0), &sh) || sh.scalar)
    return FALSE;
  out->rank = (int) sh.n;
  for (guint i = 0; i < sh.n; i++)
    out->d[i] = sh.v[i].kind == GRAPH_DIM_STATIC && sh.v[i].value < 0 ? shape_dim_unknown ()
                                                                       : sh.v[i];
  return TRUE;
}

gboolean
shape_rule_expand (Ctx *c, GraphNode *n, Shape *out)
{
  Shape s[2];
  DimVec sh;
  if (!shape_of (c, shape_in_at (n, 0), &s[0]) || !shape_data_of (c, shape_in_at (n, 1), &sh)
      || sh.scalar)
    return FALSE;
  s[1].rank = (int) sh.n;
  memcpy (s[1].d, sh.v, sh.n * sizeof (GraphDim));
  int rank = MAX (s[0].rank, s[1].rank);
  out->rank = rank;
  for (int k = 0; k < rank; k++)
    {
      GraphDim ds[2];
      guint m = 0;
      for (int i = 0; i < 2; i++)
        if (k - (rank - s[i].rank) >= 0)
          ds[m++] = s[i].d[k - (rank - s[i].rank)];
      out->d[k] = shape_dim_broadcast (ds, m);
    }
  return TRUE;
}

gboolean
shape_rule_tile (Ctx *c, GraphNode *n, Shape *out)
{
  Shape x;
  DimVec rep;
  if (!shape_of (c, shape_in_at (n, 0), &x) || !shape_data_of (c, shape_in_at (n, 1), &rep)
      || rep.n != (guint) x.rank)
    return FALSE;
  *out = x;
  for (int i = 0; i < x.rank; i++)
    out->d[i] = shape_dim_mul (x.d[i], rep.v[i]);
  return TRUE;
}
