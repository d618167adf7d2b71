/* ATen tensor ops: views copied out (transpose, permute, expand, select,
 * slice, flip, ...), conversions, joining and splitting (stack, chunk,
 * split, unbind).  A view is one strided copy (view_copy) of whole
 * elements, so every dtype is exact.  Creation ops are in k-aten-create.c,
 * indexing and sorting in k-aten-index.c, products in k-aten-products.c. */
#include "runtime/k-aten-private.h"
#include <math.h>
#include <stdlib.h>

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
  aten_strides (a, st);
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
  if (!aten_tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &d0, error)
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
  if (!aten_tensor_arg (call, 0, &a, error))
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

/* movedim / moveaxis(self, source, destination): int or int[] (of one
 * length, no repeats); the other dims keep their order. */
static gboolean
a_movedim (RtCall *call, GError **error)
{
  const RtTensor *a, *sa = aten_arg (call, 1), *da = aten_arg (call, 2);
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (sa == NULL || da == NULL || !graph_dtype_is_integer (sa->dtype) || !graph_dtype_is_integer (da->dtype)
      || sa->rank > 1 || da->rank > 1 || sa->numel != da->numel || sa->numel > MAX (a->rank, 1))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "source and destination must be dims (int or int[]) "
                     "of one length");
      return FALSE;
    }
  guint perm[RT_MAX_RANK], n = (guint) sa->numel, rank = MAX (a->rank, 1);
  gboolean src_used[RT_MAX_RANK] = { FALSE }, dst_used[RT_MAX_RANK] = { FALSE };
  for (guint i = 0; i < n; i++)
    {
      guint sd, dd;
      if (!rt_axis (call, rt_get_i64 (sa, i), rank, &sd, error) || !rt_axis (call, rt_get_i64 (da, i), rank, &dd, error))
        return FALSE;
      if (src_used[sd] || dst_used[dd])
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "repeated dim in source or destination");
          return FALSE;
        }
      src_used[sd] = dst_used[dd] = TRUE;
      perm[dd] = sd;
    }
  if (a->rank == 0)
    return reshaped (call, a, 0, NULL, error);
  for (guint d = 0, k = 0; d < a->rank; d++)
    {
      if (dst_used[d])
        continue;
      while (src_used[k])
        k++;
      perm[d] = k++;
    }
  return permuted (call, a, perm, error);
}

/* unsqueeze(self, dim) */
static gboolean
a_unsqueeze (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!aten_tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, 0), a->rank + 1, &ax, error))
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
  if (!aten_tensor_arg (call, 0, &a, error))
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
  aten_strides (a, ast);
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
  if (!aten_tensor_arg (call, 0, &a, error))
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
  return aten_tensor_arg (call, 0, &a, error) && aten_tensor_arg (call, 1, &b, error)
         && expand_to (call, a, b->rank, b->dims, error);
}

/* A view of a: its dims, element strides and offset. */
typedef struct
{
  guint rank;
  gint64 dims[RT_MAX_RANK], strides[RT_MAX_RANK], offset;
} View;

/* select(self, dim, index)'s view (arguments 1 and 2). */
static gboolean
select_view (RtCall *call, const RtTensor *a, View *v, GError **error)
{
  guint ax;
  if (a->rank == 0 || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
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
  gint64 st[RT_MAX_RANK];
  aten_strides (a, st);
  v->rank = 0;
  for (guint d = 0; d < a->rank; d++)
    if (d != ax)
      {
        v->dims[v->rank] = a->dims[d];
        v->strides[v->rank++] = st[d];
      }
  v->offset = idx * st[ax];
  return TRUE;
}

/* The rows [start, end) by step of dim ax, torch's clamping of start/end. */
static gboolean
slice_view (RtCall *call, const RtTensor *a, guint ax, gint64 start, gint64 end, gint64 step, View *v,
            GError **error)
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
  gint64 st[RT_MAX_RANK];
  aten_strides (a, st);
  v->rank = a->rank;
  for (guint d = 0; d < a->rank; d++)
    {
      v->dims[d] = d == ax ? (end - start + step - 1) / step : a->dims[d];
      v->strides[d] = d == ax ? st[d] * step : st[d];
    }
  v->offset = start * st[ax];
  return TRUE;
}

/* slice(self, dim=0, start?, end?, step=1)'s view (arguments 1 to 4). */
static gboolean
slice_args_view (RtCall *call, const RtTensor *a, View *v, GError **error)
{
  guint ax;
  if (a->rank == 0 || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "cannot slice a 0-d tensor");
      return FALSE;
    }
  return slice_view (call, a, ax, aten_i (call, 2, 0), aten_i (call, 3, G_MAXINT64), aten_i (call, 4, 1), v, error);
}

static gboolean
sliced (RtCall *call, const RtTensor *a, guint ax, gint64 start, gint64 end, gint64 step, GError **error)
{
  View v;
  return slice_view (call, a, ax, start, end, step, &v, error)
         && view_copy (call, 0, a, v.rank, v.dims, v.strides, v.offset, error);
}

static gboolean
a_select (RtCall *call, GError **error)
{
  const RtTensor *a;
  View v;
  return aten_tensor_arg (call, 0, &a, error) && select_view (call, a, &v, error)
         && view_copy (call, 0, a, v.rank, v.dims, v.strides, v.offset, error);
}

static gboolean
a_slice (RtCall *call, GError **error)
{
  const RtTensor *a;
  View v;
  return aten_tensor_arg (call, 0, &a, error) && slice_args_view (call, a, &v, error)
         && view_copy (call, 0, a, v.rank, v.dims, v.strides, v.offset, error);
}

/* slice_scatter(self, src, dim, start?, end?, step) / select_scatter(self,
 * src, dim, index): self with the view replaced by src (of the view's
 * shape), in self's type.  verify's trace run writes an in-place op on a
 * view back into its base with them (verify/runnable.c). */
static gboolean
view_scatter (RtCall *call, gboolean select, GError **error)
{
  const RtTensor *a, *src;
  if (!aten_tensor_arg (call, 0, &a, error) || !aten_tensor_arg (call, 1, &src, error))
    return FALSE;
  /* the view's arguments follow src: shift them to select_view's places */
  RtCall shifted = *call;
  const RtTensor *args[6] = { a, NULL, NULL, NULL, NULL, NULL };
  for (guint i = 2; i < call->n_inputs && i < 6; i++)
    args[i - 1] = call->inputs[i];
  shifted.inputs = args;
  shifted.n_inputs = call->n_inputs - 1;
  View v;
  if (!(select ? select_view (&shifted, a, &v, error) : slice_args_view (&shifted, a, &v, error)))
    return FALSE;
  if (src->rank != v.rank || memcmp (src->dims, v.dims, sizeof (gint64) * v.rank) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "src must have the shape of the %s", select ? "selection" : "slice");
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank, a->dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  if (a->numel)
    memcpy (o->data, a->data, (gsize) a->numel * es);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < src->numel; i++)
    {
      gint64 off = v.offset;
      for (guint d = 0; d < v.rank; d++)
        off += c[d] * v.strides[d];
      if (!rt_convert ((const char *) src->data + i * (gint64) rt_dtype_size (src->dtype), src->dtype,
                       (char *) o->data + off * (gint64) es, a->dtype, 1))
        {
          rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "cannot store %s in %s", graph_dtype_name (src->dtype),
                         graph_dtype_name (a->dtype));
          return FALSE;
        }
      rt_index_next (c, v.dims, v.rank);
    }
  return TRUE;
}

static gboolean a_slice_scatter (RtCall *c, GError **e) { return view_scatter (c, FALSE, e); }
static gboolean a_select_scatter (RtCall *c, GError **e) { return view_scatter (c, TRUE, e); }

/* narrow(self, dim, start, length) */
static gboolean
a_narrow (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!aten_tensor_arg (call, 0, &a, error) || a->rank == 0
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
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  gint64 st[RT_MAX_RANK], off = 0;
  aten_strides (a, st);
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
  if (!aten_tensor_arg (call, 0, &a, error))
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
  aten_strides (a, st);
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
  if (!aten_tensor_arg (call, 0, &a, error))
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

/* The repeat counts of repeat_interleave: one count (a 0-d or 1-element
 * tensor) for all n slices, or one per slice; none negative.  The counts
 * go into cum as cumulative sums (cum[k] = slices before slice k's first
 * copy, cum[n] the total), which must match output_size when given. */
static gboolean
repeat_counts (RtCall *call, const RtTensor *rep, gint64 n, guint size_arg, gint64 **cum, GError **error)
{
  if (rep == NULL || !graph_dtype_is_integer (rep->dtype) || rep->rank > 1
      || (rep->numel != 1 && rep->numel != n))
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "repeats must be an integer or a 1-D integer tensor of "
                     "%" G_GINT64_FORMAT " counts (the size of the repeated dim)", n);
      return FALSE;
    }
  *cum = rt_call_scratch_n (call, 1, (gsize) (n + 1) * sizeof (gint64), error);
  if (*cum == NULL)
    return FALSE;
  (*cum)[0] = 0;
  for (gint64 k = 0; k < n; k++)
    {
      gint64 r = rt_get_i64 (rep, rep->numel == 1 ? 0 : k);
      if (r < 0 || r > G_MAXINT64 / 2 - (*cum)[k])
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "repeats must be non-negative (got %" G_GINT64_FORMAT ")", r);
          return FALSE;
        }
      (*cum)[k + 1] = (*cum)[k] + r;
    }
  const RtTensor *size = aten_arg (call, size_arg);
  if (size && size->numel == 1 && rt_get_i64 (size, 0) != (*cum)[n])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "output_size %" G_GINT64_FORMAT " is not the sum of the "
                     "repeats, %" G_GINT64_FORMAT, rt_get_i64 (size, 0), (*cum)[n]);
      return FALSE;
    }
  return TRUE;
}

/* The slice of `cum` (n + 1 cumulative counts) output row `i` copies. */
static gint64
repeat_source (const gint64 *cum, gint64 n, gint64 i)
{
  gint64 lo = 0, hi = n;   /* the last k with cum[k] <= i, cum[k + 1] > i */
  while (hi - lo > 1)
    {
      gint64 mid = lo + (hi - lo) / 2;
      if (cum[mid] <= i)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* repeat_interleave(self, repeats (int or Tensor), dim?, output_size?):
 * each slice along dim (of the flattened self when dim is None) repeated
 * its count of times; repeat_interleave(repeats, output_size?): the
 * indices 0..n-1, each repeated its count of times. */
static gboolean
a_repeat_interleave (RtCall *call, GError **error)
{
  const RtTensor *a;
  gint64 *cum;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (call->n_inputs <= 2)
    {
      if (a->rank != 1 || !graph_dtype_is_integer (a->dtype))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "repeats must be a 1-D integer tensor");
          return FALSE;
        }
      if (!repeat_counts (call, a, a->numel, 1, &cum, error))
        return FALSE;
      gint64 total = cum[a->numel];
      RtTensor *o = rt_call_output (call, 0, a->dtype, 1, &total, error);
      if (o == NULL)
        return FALSE;
      for (gint64 k = 0, i = 0; k < a->numel; k++)
        for (; i < cum[k + 1]; i++)
          {
            gint64 v = k;
            rt_convert (&v, GRAPH_DTYPE_INT64, (char *) o->data + i * (gint64) rt_dtype_size (a->dtype), a->dtype, 1);
          }
      return TRUE;
    }
  /* dim None: self flattened. */
  gboolean flat = aten_arg (call, 2) == NULL;
  guint rank = flat ? 1 : a->rank;
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK];
  guint ax = 0;
  if (flat)
    dims[0] = a->numel;
  else
    {
      if (a->rank == 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "a 0-d tensor has no dim to repeat along");
          return FALSE;
        }
      if (!rt_axis (call, aten_i (call, 2, 0), a->rank, &ax, error))
        return FALSE;
      memcpy (dims, a->dims, sizeof (gint64) * a->rank);
    }
  rt_contiguous_strides (rank, dims, st);
  gint64 n = dims[ax];
  if (!repeat_counts (call, aten_arg (call, 1), n, 3, &cum, error))
    return FALSE;
  dims[ax] = cum[n];
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d < rank; d++)
        off += (d == ax ? repeat_source (cum, n, c[d]) : c[d]) * st[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

/* ---- copies and conversions ------------------------------------------------ */

static gboolean
a_copy_input (RtCall *call, GError **error)
{
  const RtTensor *a;
  return aten_tensor_arg (call, 0, &a, error) && reshaped (call, a, a->rank, a->dims, error);
}

/* set_(self, source): the result is source */
static gboolean
a_set (RtCall *call, GError **error)
{
  const RtTensor *a;
  return aten_tensor_arg (call, 1, &a, error) && reshaped (call, a, a->rank, a->dims, error);
}

/* view_as / reshape_as (self, other) */
static gboolean
a_view_as (RtCall *call, GError **error)
{
  const RtTensor *a, *b;
  return aten_tensor_arg (call, 0, &a, error) && aten_tensor_arg (call, 1, &b, error)
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
  return aten_tensor_arg (call, 0, &a, error) && aten_tensor_arg (call, 1, &b, error)
         && converted (call, a, b->dtype, error);
}

/* to: (self, dtype, non_blocking, copy, memory_format?), (self, device,
 * dtype, non_blocking, copy, memory_format?), (self, other, non_blocking,
 * copy, memory_format?) or to.dtype_layout (self, dtype?, layout?,
 * device?, pin_memory?, non_blocking, copy, memory_format?). */
static gboolean
a_to (RtCall *call, GError **error)
{
  const RtTensor *a, *t1 = aten_arg (call, 1);
  GraphDType dt;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (call->n_inputs == 8)
    return aten_dtype_arg (call, 1, a->dtype, &dt, error) && converted (call, a, dt, error);
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

/* ---- joining and splitting ------------------------------------------------- */

/* stack(tensors..., dim): the Tensor[] flattened into inputs 0..n-2. */
static gboolean
a_stack (RtCall *call, GError **error)
{
  guint n = call->n_inputs - 1;
  const RtTensor *a0;
  if (n == 0 || !aten_tensor_arg (call, 0, &a0, error))
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
  aten_strides (a, st);
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
  if (!aten_tensor_arg (call, 0, &a, error) || a->rank == 0 || !rt_axis (call, aten_i (call, 2, 0), a->rank, &ax, error))
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
  if (!aten_tensor_arg (call, 0, &a, error) || a->rank == 0 || !rt_axis (call, aten_i (call, 2, 0), a->rank, &ax, error))
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
  if (!aten_tensor_arg (call, 0, &a, error) || a->rank == 0 || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    return FALSE;
  g_autofree gint64 *sizes = g_new (gint64, MAX (a->dims[ax], 1));
  for (gint64 k = 0; k < a->dims[ax]; k++)
    sizes[k] = 1;
  return pieces (call, a, ax, sizes, (guint) a->dims[ax], TRUE, error);
}

/* aten::Int / aten::Float (a 0-d tensor as a number), prim::NumToTensor
 * and aten::ScalarImplicit (a number as a 0-d tensor): numbers are 0-d
 * tensors here already, so these convert or copy. */
static gboolean
a_to_int (RtCall *call, GError **error)
{
  const RtTensor *a;
  return aten_tensor_arg (call, 0, &a, error) && converted (call, a, GRAPH_DTYPE_INT64, error);
}

static gboolean
a_to_float (RtCall *call, GError **error)
{
  const RtTensor *a;
  return aten_tensor_arg (call, 0, &a, error) && converted (call, a, GRAPH_DTYPE_DOUBLE, error);
}

/* aten::IntImplicit / aten::FloatImplicit: scripted code passing a tensor
 * where a number is expected (`torch.zeros(int(t))` in a scripted
 * function).  torch (checkImplicitTensorToNum) refuses a tensor that is
 * not 0-d, and for an int a tensor that is not of an integer type. */
static gboolean
implicit_number (RtCall *call, gboolean to_int, GError **error)
{
  const RtTensor *a;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (a->rank != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "cannot take a tensor of dimension %u as a scalar "
                     "argument (it must be 0-d)", a->rank);
      return FALSE;
    }
  gboolean integral = a->dtype == GRAPH_DTYPE_INT64 || a->dtype == GRAPH_DTYPE_INT32
                      || a->dtype == GRAPH_DTYPE_INT16 || a->dtype == GRAPH_DTYPE_INT8
                      || a->dtype == GRAPH_DTYPE_UINT8 || a->dtype == GRAPH_DTYPE_BOOL;
  if (to_int && !integral)
    {
      rt_call_error (call, error, RT_ERROR_INPUT, "cannot take a tensor of type %s as an integral "
                     "argument", graph_dtype_name (a->dtype));
      return FALSE;
    }
  return converted (call, a, to_int ? GRAPH_DTYPE_INT64 : GRAPH_DTYPE_DOUBLE, error);
}

static gboolean a_int_implicit (RtCall *c, GError **e) { return implicit_number (c, TRUE, e); }
static gboolean a_float_implicit (RtCall *c, GError **e) { return implicit_number (c, FALSE, e); }

/* Bool(tensor): a one-element tensor's truth as a 0-d bool. */
static gboolean
a_to_bool (RtCall *call, GError **error)
{
  const RtTensor *a;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (a->numel != 1)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "Bool needs a one-element tensor (%" G_GINT64_FORMAT
                     " elements)", a->numel);
      return FALSE;
    }
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_BOOL, 0, NULL, error);
  return o && rt_convert (a->data, a->dtype, o->data, GRAPH_DTYPE_BOOL, 1);
}

/* x.float(), x.long()... as their own ops (Tensor methods the symbolic
 * registry lists): conversions. */
static gboolean
convert_method (RtCall *call, GraphDType dt, GError **error)
{
  const RtTensor *a;
  return aten_tensor_arg (call, 0, &a, error) && converted (call, a, dt, error);
}

static gboolean a_float (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_FLOAT, e); }
static gboolean a_double (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_DOUBLE, e); }
static gboolean a_half (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_FLOAT16, e); }
static gboolean a_long (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_INT64, e); }
static gboolean a_int (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_INT32, e); }
static gboolean a_bool (RtCall *c, GError **e) { return convert_method (c, GRAPH_DTYPE_BOOL, e); }


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("transpose", 3, 3, a_transpose), RT_ATEN_ROW ("swapaxes", 3, 3, a_transpose), RT_ATEN_ROW ("swapdims", 3, 3, a_transpose),
  RT_ATEN_ROW ("moveaxis", 3, 3, a_movedim), RT_ATEN_ROW ("permute", 2, 2, a_permute), RT_ATEN_ROW ("movedim", 3, 3, a_movedim),
  RT_ATEN_ROW ("unsqueeze", 2, 2, a_unsqueeze), RT_ATEN_ROW ("squeeze", 1, 2, a_squeeze), RT_ATEN_ROW ("expand", 2, 3, a_expand),
  RT_ATEN_ROW ("expand_as", 2, 2, a_expand_as), RT_ATEN_ROW ("select", 3, 3, a_select), RT_ATEN_ROW ("slice", 1, 5, a_slice),
  RT_ATEN_ROW ("slice_scatter", 2, 6, a_slice_scatter), RT_ATEN_ROW ("select_scatter", 4, 4, a_select_scatter),
  RT_ATEN_ROW ("narrow", 4, 4, a_narrow), RT_ATEN_ROW ("flip", 2, 2, a_flip), RT_ATEN_ROW ("roll", 2, 3, a_roll),
  RT_ATEN_ROW ("repeat", 2, 2, a_repeat), RT_ATEN_ROW ("repeat_interleave", 1, 4, a_repeat_interleave),
  RT_ATEN_ROW ("detach", 1, 1, a_copy_input), RT_ATEN_ROW ("alias", 1, 1, a_copy_input), RT_ATEN_ROW ("set_", 2, 2, a_set), RT_ATEN_ROW ("lift_fresh", 1, 1, a_copy_input),
  RT_ATEN_ROW ("view_as", 2, 2, a_view_as), RT_ATEN_ROW ("reshape_as", 2, 2, a_view_as), RT_ATEN_ROW ("type_as", 2, 2, a_type_as),
  RT_ATEN_ROW ("to", 1, 8, a_to), RT_ATEN_ROW ("stack", 2, RT_VARIADIC, a_stack), { RT_ATEN ("chunk"), RT_IN (3, 3), RT_OUT (1, RT_VARIADIC), .run = a_chunk },
  { RT_ATEN ("split"), RT_IN (3, 3), RT_OUT (1, RT_VARIADIC), .run = a_split }, { RT_ATEN ("split_with_sizes"), RT_IN (3, 3), RT_OUT (1, RT_VARIADIC), .run = a_split }, { RT_ATEN ("unbind"), RT_IN (2, 2), RT_OUT (1, RT_VARIADIC), .run = a_unbind },
  { RT_ATEN ("unsafe_chunk"), RT_IN (3, 3), RT_OUT (1, RT_VARIADIC), .run = a_chunk }, { RT_ATEN ("unsafe_split"), RT_IN (3, 3), RT_OUT (1, RT_VARIADIC), .run = a_split },
  { RT_ATEN ("unsafe_split_with_sizes"), RT_IN (3, 3), RT_OUT (1, RT_VARIADIC), .run = a_split }, RT_ATEN_ROW ("Int", 1, 1, a_to_int), RT_ATEN_ROW ("Float", 1, 1, a_to_float),
  RT_ATEN_ROW ("Bool", 1, 1, a_to_bool), RT_ATEN_ROW ("IntImplicit", 1, 1, a_int_implicit),
  RT_ATEN_ROW ("FloatImplicit", 1, 1, a_float_implicit),
  RT_ATEN_ROW ("ScalarImplicit", 1, 1, a_copy_input),
  { RT_DOMAIN ("prim", "NumToTensor", 0), RT_IN (1, 1), RT_OUT (1, 1), .run = a_copy_input }, RT_ATEN_ROW ("float", 1, 3, a_float),
  RT_ATEN_ROW ("double", 1, 3, a_double), RT_ATEN_ROW ("half", 1, 3, a_half), RT_ATEN_ROW ("long", 1, 3, a_long), RT_ATEN_ROW ("int", 1, 3, a_int),
  RT_ATEN_ROW ("bool", 1, 3, a_bool),
};

RT_KERNEL_TABLE (rt_kernels_aten_tensor, defs);
