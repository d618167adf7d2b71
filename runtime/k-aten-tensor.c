/* ATen tensor ops: views copied out (transpose, permute, expand, select,
 * slice, flip, ...), conversions, creation (full, arange, eye, *_like),
 * joining and splitting (stack, chunk, split, unbind), indexing (gather,
 * index_select, take, scatter, index_fill), sorting (sort, argsort, topk)
 * and small linear algebra (dot, mv, bmm, baddbmm, outer, cross).  A view
 * is one strided copy (view_copy) of whole elements, so every dtype is
 * exact; matrix products run the ONNX MatMul kernel (rt_matmul). */
#include "runtime/k-aten-private.h"
#include <math.h>
#include <stdlib.h>

static gboolean
tensor_arg (RtCall *call, guint i, const RtTensor **t, GError **error)
{
  *t = aten_arg (call, i);
  if (*t == NULL || (*t)->kind != RT_KIND_TENSOR)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a tensor", i);
      return FALSE;
    }
  return TRUE;
}

/* Output `which` (rank, dims) := a's elements at offset + sum c[d] * strides[d]. */
static gboolean
view_copy (RtCall *call, guint which, const RtTensor *a, guint rank, const gint64 *dims,
           const gint64 *strides, gint64 offset, GError **error)
{
  RtTensor *o = rt_call_output (call, which, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = offset;
      for (guint d = 0; d < rank; d++)
        off += c[d] * strides[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

static void
contiguous (const RtTensor *a, gint64 *strides)
{
  rt_contiguous_strides (a->rank, a->dims, strides);
}

/* Output 0 := a with another shape (same elements). */
static gboolean
reshaped (RtCall *call, const RtTensor *a, guint rank, const gint64 *dims, GError **error)
{
  if (rt_shape_numel (rank, dims) != a->numel)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "shape does not hold %" G_GINT64_FORMAT " elements",
                     a->numel);
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  memcpy (o->data, a->data, (gsize) a->numel * rt_dtype_size (a->dtype));
  return TRUE;
}

/* ---- views ---------------------------------------------------------------- */

static gboolean
permuted (RtCall *call, const RtTensor *a, const guint *perm, GError **error)
{
  gint64 st[RT_MAX_RANK], dims[RT_MAX_RANK], ps[RT_MAX_RANK];
  contiguous (a, st);
  for (guint d = 0; d < a->rank; d++)
    {
      dims[d] = a->dims[perm[d]];
      ps[d] = st[perm[d]];
    }
  return view_copy (call, 0, a, a->rank, dims, ps, 0, error);
}

/* transpose(self, dim0, dim1) */
static gboolean
a_transpose (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint d0, d1, perm[RT_MAX_RANK];
  if (!tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &d0, error)
      || !rt_axis (call, aten_i (call, 2, 0), MAX (a->rank, 1), &d1, error))
    return FALSE;
  if (a->rank == 0)
    return reshaped (call, a, 0, NULL, error);
  for (guint d = 0; d < a->rank; d++)
    perm[d] = d == d0 ? d1 : d == d1 ? d0 : d;
  return permuted (call, a, perm, error);
}

/* permute(self, dims) */
static gboolean
a_permute (RtCall *call, GError **error)
{
  const RtTensor *a, *p = aten_arg (call, 1);
  guint perm[RT_MAX_RANK];
  gboolean seen[RT_MAX_RANK] = { 0 };
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (p == NULL || p->numel != a->rank || !graph_dtype_is_integer (p->dtype))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "dims must list each of the %u dims once", a->rank);
      return FALSE;
    }
  for (guint d = 0; d < a->rank; d++)
    {
      if (!rt_axis (call, rt_get_i64 (p, d), a->rank, &perm[d], error))
        return FALSE;
      if (seen[perm[d]])
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "dim %u repeats in the permutation", perm[d]);
          return FALSE;
        }
      seen[perm[d]] = TRUE;
    }
  return permuted (call, a, perm, error);
}

/* movedim(self, int source, int destination) */
static gboolean
a_movedim (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint src, dst, perm[RT_MAX_RANK], k = 0;
  if (!tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &src, error)
      || !rt_axis (call, aten_i (call, 2, 0), MAX (a->rank, 1), &dst, error))
    return FALSE;
  if (a->rank == 0)
    return reshaped (call, a, 0, NULL, error);
  for (guint d = 0; d < a->rank; d++)
    {
      if (d == dst)
        continue;
      if (k == src)
        k++;
      perm[d] = k++;
    }
  perm[dst] = src;
  return permuted (call, a, perm, error);
}

/* unsqueeze(self, dim) */
static gboolean
a_unsqueeze (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, 0), a->rank + 1, &ax, error))
    return FALSE;
  if (a->rank + 1 > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "rank above %d", RT_MAX_RANK);
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  for (guint d = 0, k = 0; d <= a->rank; d++)
    dims[d] = d == ax ? 1 : a->dims[k++];
  return reshaped (call, a, a->rank + 1, dims, error);
}

/* squeeze(self) or squeeze(self, dim) */
static gboolean
a_squeeze (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax = G_MAXUINT, rank = 0;
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (aten_arg (call, 1) && !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &ax, error))
    return FALSE;
  gint64 dims[RT_MAX_RANK];
  for (guint d = 0; d < a->rank; d++)
    if (a->dims[d] != 1 || (ax != G_MAXUINT && d != ax))
      dims[rank++] = a->dims[d];
  return reshaped (call, a, rank, dims, error);
}

static gboolean
expand_to (RtCall *call, const RtTensor *a, guint rank, const gint64 *want, GError **error)
{
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK], ast[RT_MAX_RANK];
  if (rank < a->rank || rank > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "cannot expand rank %u to rank %u", a->rank, rank);
      return FALSE;
    }
  contiguous (a, ast);
  for (guint d = 0; d < rank; d++)
    {
      gint64 ad = (gint64) d - (gint64) (rank - a->rank);
      gint64 have = ad >= 0 ? a->dims[ad] : 1;
      dims[d] = want[d] == -1 && ad >= 0 ? have : want[d];
      if (dims[d] < 0 || (have != 1 && have != dims[d]))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE,
                         "size %" G_GINT64_FORMAT " of dim %u cannot expand to %" G_GINT64_FORMAT, have, d,
                         want[d]);
          return FALSE;
        }
      st[d] = ad >= 0 && have == dims[d] ? ast[ad] : 0;
    }
  return view_copy (call, 0, a, rank, dims, st, 0, error);
}

/* expand(self, size, implicit) */
static gboolean
a_expand (RtCall *call, GError **error)
{
  const RtTensor *a, *s = aten_arg (call, 1);
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (s == NULL || !graph_dtype_is_integer (s->dtype) || s->rank > 1 || s->numel > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "size must be an int list");
      return FALSE;
    }
  gint64 want[RT_MAX_RANK];
  for (gint64 i = 0; i < s->numel; i++)
    want[i] = rt_get_i64 (s, i);
  return expand_to (call, a, (guint) s->numel, want, error);
}

/* expand_as(self, other) */
static gboolean
a_expand_as (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  return tensor_arg (call, 0, &a, error) && tensor_arg (call, 1, &b, error)
         && expand_to (call, a, b->rank, b->dims, error);
}

/* select(self, dim, index) */
static gboolean
a_select (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || a->rank == 0
      || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "cannot select from a 0-d tensor");
      return FALSE;
    }
  gint64 idx = aten_i (call, 2, 0), n = a->dims[ax];
  if (idx < -n || idx >= n)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "index %" G_GINT64_FORMAT " is out of range for dim %u of size %"
                     G_GINT64_FORMAT, idx, ax, n);
      return FALSE;
    }
  if (idx < 0)
    idx += n;
  gint64 st[RT_MAX_RANK], dims[RT_MAX_RANK], ss[RT_MAX_RANK];
  contiguous (a, st);
  guint r = 0;
  for (guint d = 0; d < a->rank; d++)
    if (d != ax)
      {
        dims[r] = a->dims[d];
        ss[r++] = st[d];
      }
  return view_copy (call, 0, a, r, dims, ss, idx * st[ax], error);
}

/* The rows [start, end) by step of dim ax, torch's clamping of start/end. */
static gboolean
sliced (RtCall *call, const RtTensor *a, guint ax, gint64 start, gint64 end, gint64 step, GError **error)
{
  gint64 n = a->dims[ax];
  if (step <= 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "slice step must be positive");
      return FALSE;
    }
  if (start < 0)
    start = MAX (start + n, 0);
  if (end < 0)
    end = MAX (end + n, 0);
  start = MIN (start, n);
  end = CLAMP (end, start, n);
  gint64 st[RT_MAX_RANK], dims[RT_MAX_RANK], ss[RT_MAX_RANK];
  contiguous (a, st);
  for (guint d = 0; d < a->rank; d++)
    {
      dims[d] = d == ax ? (end - start + step - 1) / step : a->dims[d];
      ss[d] = d == ax ? st[d] * step : st[d];
    }
  return view_copy (call, 0, a, a->rank, dims, ss, start * st[ax], error);
}

/* slice(self, dim=0, start?, end?, step=1) */
static gboolean
a_slice (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || a->rank == 0
      || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "cannot slice a 0-d tensor");
      return FALSE;
    }
  return sliced (call, a, ax, aten_i (call, 2, 0), aten_i (call, 3, G_MAXINT64), aten_i (call, 4, 1), error);
}

/* narrow(self, dim, start, length) */
static gboolean
a_narrow (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || a->rank == 0
      || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "cannot narrow a 0-d tensor");
      return FALSE;
    }
  gint64 start = aten_i (call, 2, 0), len = aten_i (call, 3, 0), n = a->dims[ax];
  if (start < 0)
    start += n;
  if (start < 0 || len < 0 || start > n || len > n - start)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "narrow out of range");
      return FALSE;
    }
  return sliced (call, a, ax, start, start + len, 1, error);
}

/* flip(self, dims) */
static gboolean
a_flip (RtCall *call, GError **error)
{
  const RtTensor *a, *dl = aten_arg (call, 1);
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  gint64 st[RT_MAX_RANK], off = 0;
  contiguous (a, st);
  for (gint64 k = 0; dl && k < dl->numel; k++)
    {
      guint ax;
      if (!rt_axis (call, rt_get_i64 (dl, k), MAX (a->rank, 1), &ax, error))
        return FALSE;
      if (a->rank == 0 || st[ax] < 0)
        continue;
      off += (a->dims[ax] - 1) * st[ax];
      st[ax] = -st[ax];
    }
  return view_copy (call, 0, a, a->rank, a->dims, st, off, error);
}

/* roll(self, shifts, dims): no dims rolls the flattened tensor. */
static gboolean
a_roll (RtCall *call, GError **error)
{
  const RtTensor *a, *sh = aten_arg (call, 1), *dl = aten_arg (call, 2);
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  gboolean flat = dl == NULL || dl->numel == 0;
  if (sh == NULL || sh->numel == 0 || (!flat && sh->numel != dl->numel) || (flat && sh->numel != 1))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "shifts and dims must have one entry each");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  if (flat)
    {
      gint64 n = a->numel, s = n ? ((rt_get_i64 (sh, 0) % n) + n) % n : 0;
      for (gint64 i = 0; i < n; i++)
        memcpy ((char *) o->data + ((i + s) % n) * (gint64) es, (const char *) a->data + i * (gint64) es, es);
      return TRUE;
    }
  gint64 shift[RT_MAX_RANK] = { 0 }, st[RT_MAX_RANK];
  for (gint64 k = 0; k < dl->numel; k++)
    {
      guint ax;
      if (!rt_axis (call, rt_get_i64 (dl, k), MAX (a->rank, 1), &ax, error))
        return FALSE;
      shift[ax] += rt_get_i64 (sh, k);
    }
  contiguous (a, st);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < a->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d < a->rank; d++)
        off += ((c[d] + (shift[d] % a->dims[d]) + a->dims[d]) % a->dims[d]) * st[d];
      memcpy ((char *) o->data + off * (gint64) es, (const char *) a->data + i * (gint64) es, es);
      rt_index_next (c, a->dims, a->rank);
    }
  return TRUE;
}

/* repeat(self, repeats) */
static gboolean
a_repeat (RtCall *call, GError **error)
{
  const RtTensor *a, *r = aten_arg (call, 1);
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (r == NULL || r->numel < a->rank || r->numel > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "repeats must have at least %u entries", a->rank);
      return FALSE;
    }
  guint rank = (guint) r->numel;
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK], ad[RT_MAX_RANK];
  for (guint d = 0; d < rank; d++)
    {
      gint64 k = (gint64) d - (gint64) (rank - a->rank);
      ad[d] = k >= 0 ? a->dims[k] : 1;
      gint64 rep = rt_get_i64 (r, d);
      if (rep < 0 || (ad[d] && rep > G_MAXINT64 / ad[d]))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "bad repeat count %" G_GINT64_FORMAT, rep);
          return FALSE;
        }
      dims[d] = ad[d] * rep;
    }
  rt_contiguous_strides (rank, ad, st);
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d < rank; d++)
        off += (c[d] % ad[d]) * st[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

/* repeat_interleave(self, int repeats, dim?, output_size?) */
static gboolean
a_repeat_interleave (RtCall *call, GError **error)
{
  const RtTensor *a, *rep = aten_arg (call, 1);
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (rep == NULL || rep->numel != 1 || rt_get_i64 (rep, 0) < 0 || aten_arg (call, 2) == NULL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "only one repeat count along a given dim is supported");
      return FALSE;
    }
  guint ax;
  if (!rt_axis (call, aten_i (call, 2, 0), MAX (a->rank, 1), &ax, error) || a->rank == 0)
    return FALSE;
  gint64 r = rt_get_i64 (rep, 0), st[RT_MAX_RANK], dims[RT_MAX_RANK];
  contiguous (a, st);
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[ax] *= r;
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d < a->rank; d++)
        off += (d == ax ? c[d] / r : c[d]) * st[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, a->rank);
    }
  return TRUE;
}

/* ---- copies and conversions ------------------------------------------------ */

static gboolean
a_copy_input (RtCall *call, GError **error)
{
  const RtTensor *a;
  return tensor_arg (call, 0, &a, error) && reshaped (call, a, a->rank, a->dims, error);
}

/* view_as / reshape_as (self, other) */
static gboolean
a_view_as (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  return tensor_arg (call, 0, &a, error) && tensor_arg (call, 1, &b, error)
         && reshaped (call, a, b->rank, b->dims, error);
}

static gboolean
converted (RtCall *call, const RtTensor *a, GraphDType dt, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, dt, a->rank, a->dims, error);
  return o && rt_convert (a->data, a->dtype, o->data, dt, a->numel);
}

/* type_as(self, other) */
static gboolean
a_type_as (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  return tensor_arg (call, 0, &a, error) && tensor_arg (call, 1, &b, error)
         && converted (call, a, b->dtype, error);
}

/* to: (self, dtype, non_blocking, copy, memory_format?), (self, device,
 * dtype, non_blocking, copy, memory_format?) or (self, other, non_blocking,
 * copy, memory_format?). */
static gboolean
a_to (RtCall *call, GError **error)
{
  const RtTensor *a, *t1 = aten_arg (call, 1);
  GraphDType dt;
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (call->n_inputs == 6)
    t1 = aten_arg (call, 2);
  if (t1 == NULL)
    return converted (call, a, a->dtype, error);
  /* to.other takes a computed tensor; a dtype is a constant (a 0-d int
   * from a Constant node or an initializer): a 0-d int tensor that is
   * neither is `other`. */
  GraphValue *v1 = graph_node_input (call->node, call->n_inputs == 6 ? 2 : 1);
  GraphNode *p1 = v1 ? graph_value_node (v1) : NULL;
  gboolean constant = p1 ? graph_node_is (p1, "onnx::Constant") || graph_node_is (p1, "prim::Constant")
                        : v1 && graph_value_get_initializer (v1) != NULL;
  if (t1->rank > 0 || !graph_dtype_is_integer (t1->dtype) || !constant)
    return converted (call, a, t1->dtype, error);   /* to.other */
  if (!aten_scalar_type (rt_get_i64 (t1, 0), &dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype code %" G_GINT64_FORMAT,
                     rt_get_i64 (t1, 0));
      return FALSE;
    }
  return converted (call, a, dt, error);
}

/* ---- creation --------------------------------------------------------------- */

static gboolean
filled (RtCall *call, GraphDType dt, guint rank, const gint64 *dims, double v, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, dt, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (dt);
  guint8 one[16];
  rt_convert (&v, GRAPH_DTYPE_DOUBLE, one, dt, 1);
  for (gint64 i = 0; i < o->numel; i++)
    memcpy ((char *) o->data + i * (gint64) es, one, es);
  return TRUE;
}

static gboolean
dtype_at (RtCall *call, guint i, GraphDType def, GraphDType *dt, GError **error)
{
  *dt = def;
  if (aten_arg (call, i) && !aten_scalar_type (aten_i (call, i, 6), dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype code %" G_GINT64_FORMAT,
                     aten_i (call, i, 6));
      return FALSE;
    }
  return TRUE;
}

/* zeros_like / ones_like (self, dtype?, ...); full_like (self, value,
 * dtype?, ...) */
static gboolean
like (RtCall *call, double v, guint dtype_at_i, GError **error)
{
  const RtTensor *a;
  GraphDType dt;
  return tensor_arg (call, 0, &a, error) && dtype_at (call, dtype_at_i, a->dtype, &dt, error)
         && filled (call, dt, a->rank, a->dims, v, error);
}

static gboolean a_zeros_like (RtCall *c, GError **e) { return like (c, 0, 1, e); }
static gboolean a_ones_like (RtCall *c, GError **e) { return like (c, 1, 1, e); }
static gboolean a_full_like (RtCall *c, GError **e) { return like (c, aten_f (c, 1, 0), 2, e); }
/* fill(self, value): self's shape and dtype */
static gboolean a_fill (RtCall *c, GError **e) { return like (c, aten_f (c, 1, 0), G_MAXUINT, e); }

static gboolean
size_arg (RtCall *call, guint i, guint *rank, gint64 *dims, GError **error)
{
  const RtTensor *s = aten_arg (call, i);
  if (s == NULL || !graph_dtype_is_integer (s->dtype) || s->rank > 1 || s->numel > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a size (int list)", i);
      return FALSE;
    }
  *rank = (guint) s->numel;
  for (guint d = 0; d < *rank; d++)
    if ((dims[d] = rt_get_i64 (s, d)) < 0)
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "negative size");
        return FALSE;
      }
  return TRUE;
}

/* full(size, value, dtype?, ...): the value's type without a dtype. */
static gboolean
a_full (RtCall *call, GError **error)
{
  guint rank;
  gint64 dims[RT_MAX_RANK];
  const RtTensor *v = aten_arg (call, 1);
  GraphDType def = v && graph_dtype_is_floating (v->dtype) ? GRAPH_DTYPE_FLOAT
                 : v && v->dtype == GRAPH_DTYPE_BOOL ? GRAPH_DTYPE_BOOL : GRAPH_DTYPE_INT64;
  GraphDType dt;
  return size_arg (call, 0, &rank, dims, error) && dtype_at (call, 2, def, &dt, error)
         && filled (call, dt, rank, dims, aten_f (call, 1, 0), error);
}

/* new_zeros / new_ones / new_empty (self, size, dtype?, ...) and
 * new_full (self, size, value, dtype?, ...): self's dtype by default. */
static gboolean
new_filled (RtCall *call, gboolean full, double v, GError **error)
{
  const RtTensor *a;
  guint rank;
  gint64 dims[RT_MAX_RANK];
  GraphDType dt;
  return tensor_arg (call, 0, &a, error) && size_arg (call, 1, &rank, dims, error)
         && dtype_at (call, full ? 3 : 2, a->dtype, &dt, error)
         && filled (call, dt, rank, dims, full ? aten_f (call, 2, 0) : v, error);
}

static gboolean a_new_zeros (RtCall *c, GError **e) { return new_filled (c, FALSE, 0, e); }
static gboolean a_new_ones (RtCall *c, GError **e) { return new_filled (c, FALSE, 1, e); }
static gboolean a_new_full (RtCall *c, GError **e) { return new_filled (c, TRUE, 0, e); }

/* arange(end, dtype?, ...), arange(start, end, dtype?, ...),
 * arange(start, end, step, dtype?, ...): 5, 6 or 7 arguments. */
static gboolean
a_arange (RtCall *call, GError **error)
{
  guint nargs = call->n_inputs >= 7 ? 3 : call->n_inputs == 6 ? 2 : 1;
  double start = 0, end, step = 1;
  gboolean fl = FALSE;
  for (guint i = 0; i < nargs; i++)
    {
      const RtTensor *t = aten_arg (call, i);
      if (t == NULL || t->numel != 1)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a number", i);
          return FALSE;
        }
      fl |= graph_dtype_is_floating (t->dtype);
    }
  if (nargs == 1)
    end = aten_f (call, 0, 0);
  else
    {
      start = aten_f (call, 0, 0);
      end = aten_f (call, 1, 0);
      if (nargs == 3)
        step = aten_f (call, 2, 1);
    }
  GraphDType dt;
  if (!dtype_at (call, nargs, fl ? GRAPH_DTYPE_FLOAT : GRAPH_DTYPE_INT64, &dt, error))
    return FALSE;
  double n = ceil ((end - start) / step);
  if (step == 0 || !(n >= 0) || n > 1e12)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "bad range (%g, %g, %g)", start, end, step);
      return FALSE;
    }
  gint64 len = (gint64) n;
  RtTensor *o = rt_call_output (call, 0, dt, 1, &len, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (dt);
  for (gint64 i = 0; i < len; i++)
    {
      double v = start + (double) i * step;
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, dt, 1);
    }
  return TRUE;
}

/* eye(n, dtype?, ...) or eye(n, m, dtype?, ...) */
static gboolean
a_eye (RtCall *call, GError **error)
{
  gboolean two = call->n_inputs >= 6;
  gint64 dims[2] = { aten_i (call, 0, 0), two ? aten_i (call, 1, 0) : aten_i (call, 0, 0) };
  GraphDType dt;
  if (dims[0] < 0 || dims[1] < 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "negative size");
      return FALSE;
    }
  if (!dtype_at (call, two ? 2 : 1, GRAPH_DTYPE_FLOAT, &dt, error) || !filled (call, dt, 2, dims, 0, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, dt, 2, dims, error);
  double one = 1;
  for (gint64 i = 0; o && i < MIN (dims[0], dims[1]); i++)
    rt_convert (&one, GRAPH_DTYPE_DOUBLE, (char *) o->data + (i * dims[1] + i) * (gint64) rt_dtype_size (dt), dt, 1);
  return o != NULL;
}

/* numel(self) / dim(self) as 0-d int64 */
static gboolean
scalar_out (RtCall *call, gint64 v, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 0, NULL, error);
  if (o)
    *(gint64 *) o->data = v;
  return o != NULL;
}

static gboolean
a_numel (RtCall *call, GError **error)
{
  const RtTensor *a;
  return tensor_arg (call, 0, &a, error) && scalar_out (call, a->numel, error);
}

static gboolean
a_dim (RtCall *call, GError **error)
{
  const RtTensor *a;
  return tensor_arg (call, 0, &a, error) && scalar_out (call, a->rank, error);
}

/* one_hot(self, num_classes=-1) */
static gboolean
a_one_hot (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (a->dtype != GRAPH_DTYPE_INT64 || a->rank + 1 > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "one_hot needs an int64 tensor");
      return FALSE;
    }
  gint64 k = aten_i (call, 1, -1);
  if (k < 0)
    for (gint64 i = 0; i < a->numel; i++)
      k = MAX (k, rt_get_i64 (a, i) + 1);
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[a->rank] = k;
  if (!filled (call, GRAPH_DTYPE_INT64, a->rank + 1, dims, 0, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, a->rank + 1, dims, error);
  for (gint64 i = 0; o && i < a->numel; i++)
    {
      gint64 c = rt_get_i64 (a, i);
      if (c < 0 || c >= k)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "class %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT ")", c, k);
          return FALSE;
        }
      ((gint64 *) o->data)[i * k + c] = 1;
    }
  return o != NULL;
}

/* constant_pad_nd(self, pad, value): pad lists (before, after) pairs from
 * the last dim backwards; negative entries crop. */
static gboolean
a_constant_pad_nd (RtCall *call, GError **error)
{
  const RtTensor *a, *p = aten_arg (call, 1);
  if (!tensor_arg (call, 0, &a, error))
    return FALSE;
  if (p == NULL || p->numel % 2 != 0 || (guint) p->numel / 2 > a->rank)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "pad must hold pairs for at most %u dims", a->rank);
      return FALSE;
    }
  gint64 before[RT_MAX_RANK] = { 0 }, dims[RT_MAX_RANK];
  for (guint d = 0; d < a->rank; d++)
    dims[d] = a->dims[d];
  for (gint64 k = 0; k < p->numel / 2; k++)
    {
      guint d = a->rank - 1 - (guint) k;
      before[d] = rt_get_i64 (p, 2 * k);
      dims[d] += before[d] + rt_get_i64 (p, 2 * k + 1);
      if (dims[d] < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "padding makes dim %u negative", d);
          return FALSE;
        }
    }
  if (!filled (call, a->dtype, a->rank, dims, aten_f (call, 2, 0), error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  gsize es = rt_dtype_size (a->dtype);
  gint64 ost[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (a->rank, dims, ost);
  for (gint64 i = 0; o && i < a->numel; i++)
    {
      gint64 off = 0;
      gboolean in = TRUE;
      for (guint d = 0; d < a->rank; d++)
        {
          gint64 od = c[d] + before[d];
          in &= od >= 0 && od < dims[d];
          off += od * ost[d];
        }
      if (in)
        memcpy ((char *) o->data + off * (gint64) es, (const char *) a->data + i * (gint64) es, es);
      rt_index_next (c, a->dims, a->rank);
    }
  return o != NULL;
}

/* ---- joining and splitting ------------------------------------------------- */

/* stack(tensors..., dim): the Tensor[] flattened into inputs 0..n-2. */
static gboolean
a_stack (RtCall *call, GError **error)
{
  guint n = call->n_inputs - 1;
  const RtTensor *a0;
  if (n == 0 || !tensor_arg (call, 0, &a0, error))
    {
      if (n == 0)
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "stack needs tensors");
      return FALSE;
    }
  guint ax;
  if (!rt_axis (call, aten_i (call, n, 0), a0->rank + 1, &ax, error) || a0->rank + 1 > RT_MAX_RANK)
    return FALSE;
  for (guint k = 1; k < n; k++)
    {
      const RtTensor *t = aten_arg (call, k);
      if (t == NULL || t->dtype != a0->dtype || t->rank != a0->rank
          || memcmp (t->dims, a0->dims, sizeof (gint64) * a0->rank) != 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "stack needs tensors of one shape and dtype (%u differs)", k);
          return FALSE;
        }
    }
  gint64 dims[RT_MAX_RANK];
  for (guint d = 0, k = 0; d <= a0->rank; d++)
    dims[d] = d == ax ? n : a0->dims[k++];
  RtTensor *o = rt_call_output (call, 0, a0->dtype, a0->rank + 1, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 outer = rt_shape_numel (ax, a0->dims), inner = rt_shape_numel (a0->rank - ax, a0->dims + ax);
  gsize bytes = (gsize) inner * rt_dtype_size (a0->dtype);
  for (gint64 i = 0; i < outer; i++)
    for (guint k = 0; k < n; k++)
      memcpy ((char *) o->data + (i * n + k) * (gint64) bytes,
              (const char *) call->inputs[k]->data + i * (gint64) bytes, bytes);
  return TRUE;
}

/* Outputs := consecutive pieces of `sizes` along ax (squeezed for unbind). */
static gboolean
pieces (RtCall *call, const RtTensor *a, guint ax, const gint64 *sizes, guint n, gboolean squeeze,
        GError **error)
{
  if (n != call->n_outputs)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the split gives %u pieces, the node has %u outputs", n,
                     call->n_outputs);
      return FALSE;
    }
  gint64 st[RT_MAX_RANK], start = 0;
  contiguous (a, st);
  for (guint k = 0; k < n; k++)
    {
      gint64 dims[RT_MAX_RANK], ss[RT_MAX_RANK];
      guint r = 0;
      for (guint d = 0; d < a->rank; d++)
        {
          if (d == ax && squeeze)
            continue;
          dims[r] = d == ax ? sizes[k] : a->dims[d];
          ss[r++] = st[d];
        }
      if (!view_copy (call, k, a, r, dims, ss, start * st[ax], error))
        return FALSE;
      start += sizes[k];
    }
  return TRUE;
}

static gboolean
split_by (RtCall *call, const RtTensor *a, guint ax, gint64 size, GError **error)
{
  gint64 n = a->dims[ax];
  if (size <= 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "split size must be positive");
      return FALSE;
    }
  guint count = (guint) MAX ((n + size - 1) / size, 1);
  g_autofree gint64 *sizes = g_new (gint64, count);
  for (guint k = 0; k < count; k++)
    sizes[k] = MIN (size, n - (gint64) k * size);
  return pieces (call, a, ax, sizes, count, FALSE, error);
}

/* chunk(self, chunks, dim) */
static gboolean
a_chunk (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || a->rank == 0 || !rt_axis (call, aten_i (call, 2, 0), a->rank, &ax, error))
    return FALSE;
  gint64 chunks = aten_i (call, 1, 1);
  if (chunks <= 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "chunks must be positive");
      return FALSE;
    }
  return split_by (call, a, ax, (a->dims[ax] + chunks - 1) / chunks, error);
}

/* split(self, int split_size, dim) or split(self, int[] sizes, dim) */
static gboolean
a_split (RtCall *call, GError **error)
{
  const RtTensor *a, *s = aten_arg (call, 1);
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || a->rank == 0 || !rt_axis (call, aten_i (call, 2, 0), a->rank, &ax, error))
    return FALSE;
  if (s && s->rank == 0)
    return split_by (call, a, ax, rt_get_i64 (s, 0), error);
  if (s == NULL || s->numel == 0 || s->numel > 4096)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "split sizes missing");
      return FALSE;
    }
  g_autofree gint64 *sizes = g_new (gint64, s->numel);
  gint64 total = 0;
  for (gint64 k = 0; k < s->numel; k++)
    {
      sizes[k] = rt_get_i64 (s, k);
      if (sizes[k] < 0)
        total = -1;
      if (total >= 0)
        total += sizes[k];
    }
  if (total != a->dims[ax])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "split sizes do not add up to %" G_GINT64_FORMAT, a->dims[ax]);
      return FALSE;
    }
  return pieces (call, a, ax, sizes, (guint) s->numel, FALSE, error);
}

/* unbind(self, dim) */
static gboolean
a_unbind (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || a->rank == 0 || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    return FALSE;
  g_autofree gint64 *sizes = g_new (gint64, MAX (a->dims[ax], 1));
  for (gint64 k = 0; k < a->dims[ax]; k++)
    sizes[k] = 1;
  return pieces (call, a, ax, sizes, (guint) a->dims[ax], TRUE, error);
}

/* ---- indexing ---------------------------------------------------------------- */

static gboolean
index_in (RtCall *call, gint64 i, gint64 n, gint64 *out, GError **error)
{
  if (i < -n || i >= n)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "index %" G_GINT64_FORMAT " is out of range for size %"
                     G_GINT64_FORMAT, i, n);
      return FALSE;
    }
  *out = i < 0 ? i + n : i;
  return TRUE;
}

static gboolean
int_index (RtCall *call, const RtTensor *idx, GError **error)
{
  if (idx == NULL || !graph_dtype_is_integer (idx->dtype))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "the index must be an integer tensor");
      return FALSE;
    }
  return TRUE;
}

/* gather(self, dim, index, sparse_grad) */
static gboolean
a_gather (RtCall *call, GError **error)
{
  const RtTensor *a, *idx = aten_arg (call, 2);
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !int_index (call, idx, error)
      || !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &ax, error))
    return FALSE;
  if (idx->rank != a->rank)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "index must have the input's rank");
      return FALSE;
    }
  for (guint d = 0; d < a->rank; d++)
    if (d != ax && idx->dims[d] > a->dims[d])
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "index is larger than the input at dim %u", d);
        return FALSE;
      }
  RtTensor *o = rt_call_output (call, 0, a->dtype, idx->rank, idx->dims, error);
  if (o == NULL)
    return FALSE;
  gint64 st[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  contiguous (a, st);
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < idx->numel; i++)
    {
      gint64 off = 0, k;
      if (!index_in (call, rt_get_i64 (idx, i), a->rank ? a->dims[ax] : 1, &k, error))
        return FALSE;
      for (guint d = 0; d < a->rank; d++)
        off += (d == ax ? k : c[d]) * st[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, idx->dims, idx->rank);
    }
  return TRUE;
}

/* index_select(self, dim, index) */
static gboolean
a_index_select (RtCall *call, GError **error)
{
  const RtTensor *a, *idx = aten_arg (call, 2);
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !int_index (call, idx, error) || a->rank == 0
      || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error) || idx->rank > 1)
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs a tensor of rank >= 1 and a 1-D index");
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[ax] = idx->numel;
  contiguous (a, st);
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0, k;
      if (!index_in (call, rt_get_i64 (idx, c[ax]), a->dims[ax], &k, error))
        return FALSE;
      for (guint d = 0; d < a->rank; d++)
        off += (d == ax ? k : c[d]) * st[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, a->rank);
    }
  return TRUE;
}

/* take(self, index): flat indices */
static gboolean
a_take (RtCall *call, GError **error)
{
  const RtTensor *a, *idx = aten_arg (call, 1);
  if (!tensor_arg (call, 0, &a, error) || !int_index (call, idx, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, a->dtype, idx->rank, idx->dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < idx->numel; i++)
    {
      gint64 k;
      if (!index_in (call, rt_get_i64 (idx, i), a->numel, &k, error))
        return FALSE;
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + k * (gint64) es, es);
    }
  return TRUE;
}

/* scatter(self, dim, index, src | value) and scatter_add(self, dim, index,
 * src): a copy of self with the index's elements written (added). */
static gboolean
scatter (RtCall *call, gboolean add, GError **error)
{
  const RtTensor *a, *idx = aten_arg (call, 2), *src = aten_arg (call, 3);
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !int_index (call, idx, error) || src == NULL
      || !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &ax, error))
    return FALSE;
  gboolean scalar = src->rank == 0 && idx->rank > 0;
  if (idx->rank != a->rank || (!scalar && src->rank != idx->rank))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "index and src must have self's rank");
      return FALSE;
    }
  for (guint d = 0; d < a->rank; d++)
    if ((d != ax && idx->dims[d] > a->dims[d]) || (!scalar && idx->dims[d] > src->dims[d]))
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "index is larger than self or src at dim %u", d);
        return FALSE;
      }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  memcpy (o->data, a->data, (gsize) a->numel * es);
  gint64 st[RT_MAX_RANK], sst[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  contiguous (a, st);
  rt_contiguous_strides (src->rank, src->dims, sst);
  for (gint64 i = 0; i < idx->numel; i++)
    {
      gint64 off = 0, soff = 0, k;
      if (!index_in (call, rt_get_i64 (idx, i), a->rank ? a->dims[ax] : 1, &k, error))
        return FALSE;
      for (guint d = 0; d < a->rank; d++)
        {
          off += (d == ax ? k : c[d]) * st[d];
          if (!scalar)
            soff += c[d] * sst[d];
        }
      double v = rt_get_f64 (src, soff);
      if (add)
        v += rt_get_f64 (o, off);
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + off * (gint64) es, a->dtype, 1);
      rt_index_next (c, idx->dims, idx->rank);
    }
  return TRUE;
}

static gboolean a_scatter (RtCall *c, GError **e) { return scatter (c, FALSE, e); }
static gboolean a_scatter_add (RtCall *c, GError **e) { return scatter (c, TRUE, e); }

/* index_fill(self, dim, index, value) */
static gboolean
a_index_fill (RtCall *call, GError **error)
{
  const RtTensor *a, *idx = aten_arg (call, 2);
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !int_index (call, idx, error) || a->rank == 0
      || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    return FALSE;
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  memcpy (o->data, a->data, (gsize) a->numel * es);
  guint8 val[16];
  double v = aten_f (call, 3, 0);
  rt_convert (&v, GRAPH_DTYPE_DOUBLE, val, a->dtype, 1);
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_numel (a->rank - ax - 1, a->dims + ax + 1);
  for (gint64 j = 0; j < idx->numel; j++)
    {
      gint64 k;
      if (!index_in (call, rt_get_i64 (idx, j), a->dims[ax], &k, error))
        return FALSE;
      for (gint64 i = 0; i < outer; i++)
        for (gint64 m = 0; m < inner; m++)
          memcpy ((char *) o->data + ((i * a->dims[ax] + k) * inner + m) * (gint64) es, val, es);
    }
  return TRUE;
}

/* ---- sorting ------------------------------------------------------------------- */

typedef struct
{
  double  v;
  gint64  i;
} Keyed;

static int
cmp_asc (const void *x, const void *y)
{
  const Keyed *a = x, *b = y;
  /* NaN sorts last (largest), ties by index: a stable order. */
  gboolean an = isnan (a->v), bn = isnan (b->v);
  if (an != bn)
    return an ? 1 : -1;
  if (!an && a->v != b->v)
    return a->v < b->v ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

static int
cmp_desc (const void *x, const void *y)
{
  const Keyed *a = x, *b = y;
  gboolean an = isnan (a->v), bn = isnan (b->v);
  if (an != bn)
    return an ? -1 : 1;
  if (!an && a->v != b->v)
    return a->v > b->v ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* The k first of each line along ax, sorted; values to output vi (or
 * none, G_MAXUINT), indices to output ii. */
static gboolean
sorted (RtCall *call, const RtTensor *a, guint ax, gint64 k, gboolean desc, guint vi, guint ii,
        GError **error)
{
  gint64 n = a->rank ? a->dims[ax] : 1;
  if (k < 0 || k > n)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "k = %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT "]", k, n);
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  if (a->rank)
    dims[ax] = k;
  RtTensor *ov = vi != G_MAXUINT ? rt_call_output (call, vi, a->dtype, a->rank, dims, error) : NULL;
  RtTensor *oi = rt_call_output (call, ii, GRAPH_DTYPE_INT64, a->rank, dims, error);
  if ((vi != G_MAXUINT && ov == NULL) || oi == NULL)
    return FALSE;
  Keyed *line = rt_call_scratch_n (call, 1, (gsize) MAX (n, 1) * sizeof (Keyed), error);
  if (line == NULL)
    return FALSE;
  gint64 outer = a->rank ? rt_shape_numel (ax, a->dims) : 1;
  gint64 inner = a->rank ? rt_shape_numel (a->rank - ax - 1, a->dims + ax + 1) : 1;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 m = 0; m < inner; m++)
      {
        for (gint64 j = 0; j < n; j++)
          {
            line[j].v = rt_get_f64 (a, (i * n + j) * inner + m);
            line[j].i = j;
          }
        qsort (line, (size_t) n, sizeof (Keyed), desc ? cmp_desc : cmp_asc);
        for (gint64 j = 0; j < k; j++)
          {
            gint64 o = (i * k + j) * inner + m;
            ((gint64 *) oi->data)[o] = line[j].i;
            if (ov)
              memcpy ((char *) ov->data + o * (gint64) es,
                      (const char *) a->data + ((i * n + line[j].i) * inner + m) * (gint64) es, es);
          }
      }
  return TRUE;
}

/* sort(self, dim=-1, descending=False) → values, indices */
static gboolean
a_sort (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  return sorted (call, a, ax, a->rank ? a->dims[ax] : 1, aten_i (call, 2, 0) != 0, 0, 1, error);
}

/* argsort(self, dim=-1, descending=False) */
static gboolean
a_argsort (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  return sorted (call, a, ax, a->rank ? a->dims[ax] : 1, aten_i (call, 2, 0) != 0, G_MAXUINT, 0, error);
}

/* topk(self, k, dim=-1, largest=True, sorted=True) → values, indices */
static gboolean
a_topk (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 2, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  return sorted (call, a, ax, aten_i (call, 1, 1), aten_i (call, 3, 1) != 0, 0, 1, error);
}

/* ---- small linear algebra ----------------------------------------------------- */

static gboolean
two_floats (RtCall *call, const RtTensor **a, const RtTensor **b, GError **error)
{
  if (!tensor_arg (call, 0, a, error) || !tensor_arg (call, 1, b, error))
    return FALSE;
  if (!aten_is_float (*a) || (*a)->dtype != (*b)->dtype)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "needs two float or two double tensors");
      return FALSE;
    }
  return TRUE;
}

/* dot (1-D, 1-D), mv (2-D, 1-D), bmm (3-D, 3-D): numpy matmul with rank checks. */
static gboolean
matmul_ranked (RtCall *call, guint ra, guint rb, GError **error)
{
  const RtTensor *a, *b;
  if (!two_floats (call, &a, &b, error))
    return FALSE;
  if (a->rank != ra || b->rank != rb)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs tensors of rank %u and %u", ra, rb);
      return FALSE;
    }
  return rt_matmul (call, a, b, error);
}

static gboolean a_dot (RtCall *c, GError **e) { return matmul_ranked (c, 1, 1, e); }
static gboolean a_mv (RtCall *c, GError **e) { return matmul_ranked (c, 2, 1, e); }
static gboolean a_bmm (RtCall *c, GError **e) { return matmul_ranked (c, 3, 3, e); }

/* baddbmm(self, batch1, batch2, beta, alpha) = beta self + alpha bmm */
static gboolean
a_baddbmm (RtCall *call, GError **error)
{
  const RtTensor *self, *a = aten_arg (call, 1), *b = aten_arg (call, 2);
  if (!tensor_arg (call, 0, &self, error) || a == NULL || b == NULL || !aten_is_float (a)
      || a->dtype != b->dtype || self->dtype != a->dtype || a->rank != 3 || b->rank != 3)
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs float 3-D batches of self's dtype");
      return FALSE;
    }
  if (!rt_matmul (call, a, b, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, a->dtype, 3, (gint64[]) { a->dims[0], a->dims[1], b->dims[2] }, error);
  if (o == NULL)
    return FALSE;
  double beta = aten_f (call, 3, 1), alpha = aten_f (call, 4, 1);
  gint64 st[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  guint rank;
  gint64 dims[RT_MAX_RANK];
  if (!rt_broadcast_shape (call, self->rank, self->dims, o->rank, o->dims, &rank, dims, error))
    return FALSE;
  if (rank != 3 || memcmp (dims, o->dims, sizeof (gint64) * 3) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "self does not broadcast to the product's shape");
      return FALSE;
    }
  rt_broadcast_strides (self, 3, o->dims, st);
  gsize es = rt_dtype_size (o->dtype);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = c[0] * st[0] + c[1] * st[1] + c[2] * st[2];
      double v = alpha * rt_get_f64 (o, i) + (beta != 0 ? beta * rt_get_f64 (self, off) : 0);
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, o->dtype, 1);
      rt_index_next (c, o->dims, 3);
    }
  return TRUE;
}

/* outer(self, vec2) = self[:, None] * vec2[None, :], the ONNX Mul loop */
static gboolean
a_outer (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  if (!two_floats (call, &a, &b, error))
    return FALSE;
  if (a->rank != 1 || b->rank != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs two vectors");
      return FALSE;
    }
  RtTensor col = *a, row = *b;
  col.rank = 2;
  col.dims[1] = 1;
  row.rank = 2;
  row.dims[0] = 1;
  row.dims[1] = b->dims[0];
  return rt_elementwise_binary (call, &col, &row, "Mul", error);
}

/* cross(self, other, dim?) / linalg_cross(self, other, dim=-1): 3-vectors
 * along dim (cross without dim: the first dim of size 3). */
static gboolean
a_cross (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  if (!two_floats (call, &a, &b, error))
    return FALSE;
  if (a->rank != b->rank || memcmp (a->dims, b->dims, sizeof (gint64) * a->rank) != 0 || a->rank == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs two tensors of one shape");
      return FALSE;
    }
  guint ax = G_MAXUINT;
  if (aten_arg (call, 2))
    {
      if (!rt_axis (call, aten_i (call, 2, -1), a->rank, &ax, error))
        return FALSE;
    }
  else
    for (guint d = 0; d < a->rank && ax == G_MAXUINT; d++)
      if (a->dims[d] == 3)
        ax = d;
  if (ax == G_MAXUINT || a->dims[ax] != 3)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "the cross-product dim must have size 3");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_numel (a->rank - ax - 1, a->dims + ax + 1);
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < outer; i++)
    for (gint64 m = 0; m < inner; m++)
      {
        double u[3], v[3];
        for (int k = 0; k < 3; k++)
          {
            u[k] = rt_get_f64 (a, (i * 3 + k) * inner + m);
            v[k] = rt_get_f64 (b, (i * 3 + k) * inner + m);
          }
        double w[3] = { u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0] };
        for (int k = 0; k < 3; k++)
          rt_convert (&w[k], GRAPH_DTYPE_DOUBLE, (char *) o->data + ((i * 3 + k) * inner + m) * (gint64) es,
                      a->dtype, 1);
      }
  return TRUE;
}

/* aten::Int / aten::Float (a 0-d tensor as a number), prim::NumToTensor
 * and aten::ScalarImplicit (a number as a 0-d tensor): numbers are 0-d
 * tensors here already, so these convert or copy. */
static gboolean
a_to_int (RtCall *call, GError **error)
{
  const RtTensor *a;
  return tensor_arg (call, 0, &a, error) && converted (call, a, GRAPH_DTYPE_INT64, error);
}

static gboolean
a_to_float (RtCall *call, GError **error)
{
  const RtTensor *a;
  return tensor_arg (call, 0, &a, error) && converted (call, a, GRAPH_DTYPE_DOUBLE, error);
}

/* x.float(), x.long()... as their own ops (Tensor methods the symbolic
 * registry lists): conversions. */
static gboolean
convert_method (RtCall *call, GraphDType dt, GError **error)
{
  const RtTensor *a;
  return tensor_arg (call, 0, &a, error) && converted (call, a, dt, error);
}

static gboolean a_float (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_FLOAT, e); }
static gboolean a_double (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_DOUBLE, e); }
static gboolean a_half (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_FLOAT16, e); }
static gboolean a_long (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_INT64, e); }
static gboolean a_int (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_INT32, e); }
static gboolean a_bool (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_BOOL, e); }

#define A(op, mi, ma, fn) { "aten", op, 0, 0, mi, ma, 1, 1, 0, fn, NULL, NULL }
#define AN(op, mi, ma, fn) { "aten", op, 0, 0, mi, ma, 1, RT_VARIADIC, 0, fn, NULL, NULL }

static const RtKernelDef defs[] = {
  A ("transpose", 3, 3, a_transpose), A ("permute", 2, 2, a_permute), A ("movedim", 3, 3, a_movedim),
  A ("unsqueeze", 2, 2, a_unsqueeze), A ("squeeze", 1, 2, a_squeeze),
  A ("expand", 2, 3, a_expand), A ("expand_as", 2, 2, a_expand_as),
  A ("select", 3, 3, a_select), A ("slice", 1, 5, a_slice), A ("narrow", 4, 4, a_narrow),
  A ("flip", 2, 2, a_flip), A ("roll", 2, 3, a_roll), A ("repeat", 2, 2, a_repeat),
  A ("repeat_interleave", 2, 4, a_repeat_interleave),
  A ("detach", 1, 1, a_copy_input), A ("alias", 1, 1, a_copy_input), A ("lift_fresh", 1, 1, a_copy_input),
  A ("view_as", 2, 2, a_view_as), A ("reshape_as", 2, 2, a_view_as),
  A ("type_as", 2, 2, a_type_as), A ("to", 1, 6, a_to),
  A ("zeros_like", 1, 6, a_zeros_like), A ("ones_like", 1, 6, a_ones_like),
  A ("empty_like", 1, 6, a_zeros_like), A ("full_like", 2, 7, a_full_like), A ("fill", 2, 2, a_fill),
  A ("full", 2, 6, a_full), A ("new_zeros", 2, 6, a_new_zeros), A ("new_ones", 2, 6, a_new_ones),
  A ("new_empty", 2, 6, a_new_zeros), A ("new_full", 3, 7, a_new_full),
  A ("arange", 1, 7, a_arange), A ("eye", 1, 6, a_eye),
  A ("numel", 1, 1, a_numel), A ("dim", 1, 1, a_dim), A ("one_hot", 1, 2, a_one_hot),
  A ("constant_pad_nd", 2, 3, a_constant_pad_nd),
  A ("stack", 2, RT_VARIADIC, a_stack),
  AN ("chunk", 3, 3, a_chunk), AN ("split", 3, 3, a_split), AN ("split_with_sizes", 3, 3, a_split),
  AN ("unbind", 2, 2, a_unbind),
  AN ("unsafe_chunk", 3, 3, a_chunk), AN ("unsafe_split", 3, 3, a_split),
  AN ("unsafe_split_with_sizes", 3, 3, a_split),
  A ("gather", 3, 4, a_gather), A ("index_select", 3, 3, a_index_select), A ("take", 2, 2, a_take),
  A ("scatter", 4, 5, a_scatter), A ("scatter_add", 4, 4, a_scatter_add),
  A ("index_fill", 4, 4, a_index_fill),
  { "aten", "sort", 0, 0, 1, 4, 2, 2, 0, a_sort, NULL, NULL },
  A ("argsort", 1, 3, a_argsort),
  { "aten", "topk", 0, 0, 2, 5, 2, 2, 0, a_topk, NULL, NULL },
  A ("dot", 2, 2, a_dot), A ("mv", 2, 2, a_mv), A ("bmm", 2, 2, a_bmm), A ("baddbmm", 3, 5, a_baddbmm),
  A ("outer", 2, 2, a_outer), A ("cross", 2, 3, a_cross), A ("linalg_cross", 2, 3, a_cross),
  A ("Int", 1, 1, a_to_int), A ("Float", 1, 1, a_to_float), A ("ScalarImplicit", 1, 1, a_copy_input),
  { "prim", "NumToTensor", 0, 0, 1, 1, 1, 1, 0, a_copy_input, NULL, NULL },
  A ("float", 1, 3, a_float), A ("double", 1, 3, a_double), A ("half", 1, 3, a_half),
  A ("long", 1, 3, a_long), A ("int", 1, 3, a_int), A ("bool", 1, 3, a_bool),
};

RT_KERNEL_TABLE (rt_kernels_aten_tensor, defs);
