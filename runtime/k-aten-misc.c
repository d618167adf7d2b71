/* ATen ops with several outputs from a Tensor[] or one tensor
 * (broadcast_tensors, meshgrid, tensor_split), windows (unfold), index_add
 * / index_copy, empty (zeros: torch leaves the values unspecified), and
 * linear / trilinear upsampling (torch's area_pixel source index, as
 * upsample_bilinear2d in k-aten.c), einsum (ONNX Einsum's loop). */
#include "runtime/k-aten-private.h"
#include <math.h>

/* Output k (rank, dims) := t broadcast to it. */
static gboolean
broadcast_out (RtCall *call, guint k, const RtTensor *t, guint rank, const gint64 *dims, GError **error)
{
  RtTensor *o = rt_call_output (call, k, t->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 st[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_broadcast_strides (t, rank, dims, st);
  gsize es = rt_dtype_size (t->dtype);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d < rank; d++)
        off += c[d] * st[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) t->data + off * (gint64) es, es);
      rt_index_next (c, dims, rank);
    }
  return TRUE;
}

static gboolean
all_tensors (RtCall *call, guint n, GError **error)
{
  if (n == 0 || n != call->n_outputs)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "%u tensors for %u outputs", n, call->n_outputs);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (call->inputs[i] == NULL || call->inputs[i]->kind != RT_KIND_TENSOR)
      {
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument %u must be a tensor", i);
        return FALSE;
      }
  return TRUE;
}

/* broadcast_tensors(tensors...) */
static gboolean
a_broadcast_tensors (RtCall *call, GError **error)
{
  guint n = call->n_inputs, rank = 0;
  gint64 dims[RT_MAX_RANK] = { 0 };
  if (!all_tensors (call, n, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      guint r2;
      gint64 d2[RT_MAX_RANK];
      if (!rt_broadcast_shape (call, rank, dims, call->inputs[i]->rank, call->inputs[i]->dims, &r2, d2, error))
        return FALSE;
      rank = r2;
      memcpy (dims, d2, sizeof (gint64) * r2);
    }
  for (guint i = 0; i < n; i++)
    if (!broadcast_out (call, i, call->inputs[i], rank, dims, error))
      return FALSE;
  return TRUE;
}

/* meshgrid(tensors..., str indexing="ij"): 0-d or 1-D tensors; "xy" swaps
 * the first two output dims. */
static gboolean
a_meshgrid (RtCall *call, GError **error)
{
  guint n = call->n_inputs;
  const RtTensor *last = n ? call->inputs[n - 1] : NULL;
  gboolean xy = FALSE;
  if (last && last->dtype == GRAPH_DTYPE_STRING)
    {
      if (!aten_s_is (call, n - 1, "ij", "ij") && !aten_s_is (call, n - 1, "ij", "xy"))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "indexing must be 'ij' or 'xy'");
          return FALSE;
        }
      xy = aten_s_is (call, n - 1, "ij", "xy");
      n--;
    }
  if (!all_tensors (call, n, error) || n > RT_MAX_RANK)
    return FALSE;
  gint64 dims[RT_MAX_RANK];
  for (guint i = 0; i < n; i++)
    {
      if (call->inputs[i]->rank > 1 || call->inputs[i]->dtype != call->inputs[0]->dtype)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "meshgrid takes 0-d or 1-D tensors of one dtype");
          return FALSE;
        }
      dims[i] = call->inputs[i]->numel;
    }
  if (xy && n >= 2)
    {
      gint64 t = dims[0];
      dims[0] = dims[1];
      dims[1] = t;
    }
  for (guint i = 0; i < n; i++)
    {
      /* input i varies along dim i (dims 0 and 1 swapped with "xy") */
      guint along = xy && i < 2 && n >= 2 ? 1 - i : i;
      RtTensor view = *call->inputs[i];
      view.rank = n;
      for (guint d = 0; d < n; d++)
        view.dims[d] = d == along ? call->inputs[i]->numel : 1;
      if (!broadcast_out (call, i, &view, n, dims, error))
        return FALSE;
    }
  return TRUE;
}

/* Output k := rows [start, end) of dim ax. */
static gboolean
rows_out (RtCall *call, guint k, const RtTensor *a, guint ax, gint64 start, gint64 end, GError **error)
{
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[ax] = end - start;
  RtTensor *o = rt_call_output (call, k, a->dtype, a->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_inner (a->rank, a->dims, ax);
  gsize row = (gsize) inner * rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < outer; i++)
    memcpy ((char *) o->data + i * (end - start) * (gint64) row,
            (const char *) a->data + (i * a->dims[ax] + start) * (gint64) row, (end - start) * row);
  return TRUE;
}

/* tensor_split(self, int sections | int[] indices, dim=0) */
static gboolean
a_tensor_split (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *s = aten_arg (call, 1);
  guint ax;
  if (a == NULL || a->rank == 0 || s == NULL || !graph_dtype_is_integer (s->dtype)
      || !rt_axis (call, aten_i (call, 2, 0), MAX (a->rank, 1), &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs a tensor and sections or indices");
      return FALSE;
    }
  gint64 n = a->dims[ax];
  guint pieces = s->rank == 0 ? (guint) MAX (rt_get_i64 (s, 0), 0) : (guint) s->numel + 1;
  if (pieces == 0 || pieces != call->n_outputs)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "%u pieces for %u outputs", pieces, call->n_outputs);
      return FALSE;
    }
  gint64 start = 0;
  for (guint k = 0; k < pieces; k++)
    {
      gint64 end;
      if (s->rank == 0)
        {
          /* The first n % sections pieces get one more. */
          gint64 q = n / pieces, r = n % pieces;
          end = start + q + ((gint64) k < r ? 1 : 0);
        }
      else
        end = k + 1 < pieces ? rt_get_i64 (s, k) : n;
      if (end < 0)
        end += n;
      end = CLAMP (end, start, n);
      if (!rows_out (call, k, a, ax, start, end, error))
        return FALSE;
      start = end;
    }
  return TRUE;
}

/* unfold(self, dimension, size, step): windows of `size` along dim every
 * `step`, the window as a new last dim. */
static gboolean
a_unfold (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  guint ax;
  if (a == NULL || a->rank == 0 || a->rank + 1 > RT_MAX_RANK
      || !rt_axis (call, aten_i (call, 1, 0), MAX (a->rank, 1), &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs a tensor of rank >= 1");
      return FALSE;
    }
  gint64 size = aten_i (call, 2, 1), step = aten_i (call, 3, 1), n = a->dims[ax];
  if (size < 0 || size > n || step <= 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "size %" G_GINT64_FORMAT " / step %" G_GINT64_FORMAT
                     " do not fit dim %u of size %" G_GINT64_FORMAT, size, step, ax, n);
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK], ss[RT_MAX_RANK];
  rt_contiguous_strides (a->rank, a->dims, st);
  for (guint d = 0; d < a->rank; d++)
    {
      dims[d] = d == ax ? (n - size) / step + 1 : a->dims[d];
      ss[d] = d == ax ? st[d] * step : st[d];
    }
  dims[a->rank] = size;
  ss[a->rank] = st[ax];
  RtTensor *o = rt_call_output (call, 0, a->dtype, a->rank + 1, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 c[RT_MAX_RANK] = { 0 };
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 off = 0;
      for (guint d = 0; d <= a->rank; d++)
        off += c[d] * ss[d];
      memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      rt_index_next (c, dims, a->rank + 1);
    }
  return TRUE;
}

/* index_add(self, dim, index, source, alpha=1) and index_copy(self, dim,
 * index, source): source's slices written to (added at) self's rows. */
static gboolean
index_put (RtCall *call, gboolean add, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *idx = aten_arg (call, 2), *src = aten_arg (call, 3);
  guint ax;
  if (a == NULL || idx == NULL || src == NULL || !graph_dtype_is_integer (idx->dtype) || idx->rank > 1
      || a->rank == 0 || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs self, dim, a 1-D integer index and source");
      return FALSE;
    }
  gboolean ok = src->rank == a->rank && src->dtype == a->dtype && src->dims[ax] == idx->numel;
  for (guint d = 0; ok && d < a->rank; d++)
    ok = d == ax || src->dims[d] == a->dims[d];
  if (!ok)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "source must be self's shape with the index's length at dim %u", ax);
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  memcpy (o->data, a->data, (gsize) a->numel * es);
  double alpha = aten_f (call, 4, 1);
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_inner (a->rank, a->dims, ax);
  gint64 n = a->dims[ax];
  for (gint64 j = 0; j < idx->numel; j++)
    {
      gint64 k = rt_get_i64 (idx, j);
      if (k < -n || k >= n)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "index %" G_GINT64_FORMAT " is out of range for size %"
                         G_GINT64_FORMAT, k, n);
          return FALSE;
        }
      if (k < 0)
        k += n;
      for (gint64 i = 0; i < outer; i++)
        for (gint64 m = 0; m < inner; m++)
          {
            gint64 to = (i * n + k) * inner + m, from = (i * idx->numel + j) * inner + m;
            if (!add)
              {
                memcpy ((char *) o->data + to * (gint64) es, (const char *) src->data + from * (gint64) es, es);
                continue;
              }
            if (graph_dtype_is_floating (a->dtype))
              {
                double v = rt_get_f64 (o, to) + alpha * rt_get_f64 (src, from);
                rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + to * (gint64) es, a->dtype, 1);
              }
            else
              {
                gint64 v = rt_get_i64 (o, to) + (gint64) alpha * rt_get_i64 (src, from);
                rt_convert (&v, GRAPH_DTYPE_INT64, (char *) o->data + to * (gint64) es, a->dtype, 1);
              }
          }
    }
  return TRUE;
}

static gboolean a_index_add (RtCall *c, GError **e) { return index_put (c, TRUE, e); }
static gboolean a_index_copy (RtCall *c, GError **e) { return index_put (c, FALSE, e); }

/* empty(size, dtype?, layout?, device?, pin_memory?, memory_format?):
 * zeros (any values are torch's answer). */
static gboolean
a_empty (RtCall *call, GError **error)
{
  const RtTensor *s = aten_arg (call, 0);
  GraphDType dt = GRAPH_DTYPE_FLOAT;
  if (s == NULL || !graph_dtype_is_integer (s->dtype) || s->rank > 1 || s->numel > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "size must be an int list");
      return FALSE;
    }
  if (aten_arg (call, 1) && !aten_scalar_type (aten_i (call, 1, 6), &dt))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unsupported dtype");
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  for (gint64 i = 0; i < s->numel; i++)
    if ((dims[i] = rt_get_i64 (s, i)) < 0)
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "negative size");
        return FALSE;
      }
  RtTensor *o = rt_call_output (call, 0, dt, (guint) s->numel, dims, error);
  if (o)
    memset (o->data, 0, (gsize) o->numel * rt_dtype_size (dt));
  return o != NULL;
}

/* upsample_linear1d / upsample_trilinear3d: (self, output_size?,
 * align_corners, scale_factors?) (.vec) or (self, output_size,
 * align_corners, scales...?).  Each dim interpolated separately
 * (separable), torch's source index per dim. */
static gboolean
a_upsample_linear (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *osz = aten_arg (call, 1), *sf = aten_arg (call, 3);
  gboolean align = aten_i (call, 2, 0) != 0;
  if (!aten_is_float (x) || x->rank < 3 || x->rank > 5)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a float input of 1 to 3 spatial dims");
      return FALSE;
    }
  guint n = x->rank - 2;
  gint64 out[3];
  double scale[3];
  gboolean vec = call->n_inputs == 4 && sf && sf->numel == n && graph_dtype_is_floating (sf->dtype);
  for (guint i = 0; i < n; i++)
    {
      gint64 in = x->dims[2 + i];
      double given = 0;
      if (osz && osz->numel == n)
        {
          out[i] = rt_get_i64 (osz, i);
          const RtTensor *s = vec ? NULL : aten_arg (call, 3 + i);
          given = vec ? rt_get_f64 (sf, i) : s && s->numel == 1 ? rt_get_f64 (s, 0) : 0;
        }
      else if (vec)
        {
          given = rt_get_f64 (sf, i);
          out[i] = graph_double_to_int64 (floor ((double) in * given));
        }
      else
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs output_size or scale_factors");
          return FALSE;
        }
      if (out[i] <= 0 || out[i] > ((gint64) 1 << 31))
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "bad output size");
          return FALSE;
        }
      scale[i] = align ? (out[i] > 1 ? (double) (in - 1) / (double) (out[i] - 1) : 0)
                       : (given > 0 ? 1.0 / given : (double) in / (double) out[i]);
    }
  gint64 dims[5] = { x->dims[0], x->dims[1], 1, 1, 1 };
  for (guint i = 0; i < n; i++)
    dims[2 + i] = out[i];
  RtTensor *o = rt_call_output (call, 0, x->dtype, x->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gint64 ist[5], c[5] = { 0 };
  rt_contiguous_strides (x->rank, x->dims, ist);
  gsize es = rt_dtype_size (x->dtype);
  for (gint64 i = 0; i < o->numel; i++)
    {
      gint64 lo[3], hi[3];
      double w[3];
      for (guint d = 0; d < n; d++)
        {
          gint64 in = x->dims[2 + d];
          double s = align ? scale[d] * (double) c[2 + d] : MAX (scale[d] * ((double) c[2 + d] + 0.5) - 0.5, 0);
          lo[d] = MIN ((gint64) s, in - 1);
          hi[d] = lo[d] < in - 1 ? lo[d] + 1 : lo[d];
          w[d] = s - (double) lo[d];
        }
      double v = 0;
      for (guint corner = 0; corner < (1u << n); corner++)
        {
          gint64 off = c[0] * ist[0] + c[1] * ist[1];
          double wt = 1;
          for (guint d = 0; d < n; d++)
            {
              gboolean up = (corner >> d) & 1;
              off += (up ? hi[d] : lo[d]) * ist[2 + d];
              wt *= up ? w[d] : 1 - w[d];
            }
          v += wt * rt_get_f64 (x, off);
        }
      rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + i * (gint64) es, x->dtype, 1);
      rt_index_next (c, dims, x->rank);
    }
  return TRUE;
}

/* einsum(str equation, Tensor[] tensors, int[]? path): ONNX Einsum's loop. */
static gboolean
a_einsum (RtCall *call, GError **error)
{
  const RtTensor *e = aten_arg (call, 0);
  if (e == NULL || e->dtype != GRAPH_DTYPE_STRING)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument 0 must be the equation (a string)");
      return FALSE;
    }
  gsize len;
  const char *s = aten_s (call, 0, "", &len);
  g_autofree char *eq = g_strndup (s, len);
  return rt_einsum (call, eq, 1, error);
}

/* index(self, Tensor?[] indices): numpy advanced indexing (index_put:
 * the same positions written).  Inputs 1..:
 * an int tensor indexes one dim, a bool mask of k dims the next k (its
 * nonzero positions), an absent input keeps a dim whole.  The index
 * tensors broadcast together; their shape replaces the indexed dims where
 * those are adjacent, else leads the result. */
static gboolean
advanced_index (RtCall *call, guint n_index, const RtTensor *values, gboolean accumulate, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  if (a == NULL || a->kind != RT_KIND_TENSOR)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "argument 0 must be a tensor");
      return FALSE;
    }
  RtTensor idx[RT_MAX_RANK];
  guint dim_of[RT_MAX_RANK], n_idx = 0, d = 0;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 1; i < 1 + n_index; i++)
    {
      const RtTensor *t = call->inputs[i];
      if (t == NULL)
        {
          d++;
          continue;
        }
      gboolean mask = t->dtype == GRAPH_DTYPE_BOOL || t->dtype == GRAPH_DTYPE_UINT8;
      guint k = mask ? MAX (t->rank, 1) : 1;
      if ((!mask && !graph_dtype_is_integer (t->dtype)) || d + k > a->rank || n_idx + k > RT_MAX_RANK)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "index %u: an integer or bool tensor within the input's %u dims",
                         i - 1, a->rank);
          return FALSE;
        }
      if (!mask)
        {
          idx[n_idx] = *t;
          dim_of[n_idx++] = d++;
          continue;
        }
      for (guint j = 0; j < t->rank; j++)
        if (t->dims[j] != a->dims[d + j])
          {
            rt_call_error (call, error, RT_ERROR_SHAPE, "mask %u does not match the input's shape", i - 1);
            return FALSE;
          }
      gint64 nnz = 0;
      for (gint64 e = 0; e < t->numel; e++)
        nnz += rt_get_i64 (t, e) != 0;
      gint64 c[RT_MAX_RANK] = { 0 };
      gint64 *pos = g_new (gint64, (gsize) MAX (nnz * k, 1));
      g_ptr_array_add (owned, pos);
      gint64 w = 0;
      for (gint64 e = 0; e < t->numel; e++)
        {
          if (rt_get_i64 (t, e) != 0)
            {
              for (guint j = 0; j < k; j++)
                pos[j * nnz + w] = t->rank ? c[j] : 0;
              w++;
            }
          rt_index_next (c, t->dims, t->rank);
        }
      for (guint j = 0; j < k; j++)
        {
          idx[n_idx] = (RtTensor) { .dtype = GRAPH_DTYPE_INT64, .rank = 1, .dims = { nnz }, .numel = nnz,
                                    .data = pos + j * nnz };
          dim_of[n_idx++] = d + j;
        }
      d += k;
    }
  if (n_idx == 0)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "no index tensor");
      return FALSE;
    }
  guint srank = 0;
  gint64 sdims[RT_MAX_RANK] = { 0 };
  for (guint k = 0; k < n_idx; k++)
    {
      guint r2;
      gint64 d2[RT_MAX_RANK];
      if (!rt_broadcast_shape (call, srank, sdims, idx[k].rank, idx[k].dims, &r2, d2, error))
        return FALSE;
      srank = r2;
      memcpy (sdims, d2, sizeof (gint64) * r2);
    }
  gboolean adjacent = TRUE;
  for (guint k = 1; k < n_idx; k++)
    adjacent &= dim_of[k] == dim_of[k - 1] + 1;
  guint rest = a->rank - n_idx;
  if (srank + rest > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "result rank above %d", RT_MAX_RANK);
      return FALSE;
    }
  /* Result dims: kept dims before, the index shape, kept dims after (or
   * the index shape first when the indexed dims are apart). */
  guint at = adjacent ? dim_of[0] : 0, rrank = 0;
  gint64 rdims[RT_MAX_RANK];
  int src_dim[RT_MAX_RANK];        /* result dim → input dim, -1: an index dim */
  gboolean indexed[RT_MAX_RANK] = { 0 };
  for (guint k = 0; k < n_idx; k++)
    indexed[dim_of[k]] = TRUE;
  guint kept = 0;
  for (guint dd = 0; dd < a->rank; dd++)
    {
      if (indexed[dd])
        continue;
      if (kept == at && rrank == kept)
        for (guint s2 = 0; s2 < srank; s2++, rrank++)
          {
            rdims[rrank] = sdims[s2];
            src_dim[rrank] = -1;
          }
      rdims[rrank] = a->dims[dd];
      src_dim[rrank++] = (int) dd;
      kept++;
    }
  if (rrank < srank + rest)
    for (guint s2 = 0; s2 < srank; s2++, rrank++)
      {
        rdims[rrank] = sdims[s2];
        src_dim[rrank] = -1;
      }
  gint64 total = rt_shape_numel (rrank, rdims), vst[RT_MAX_RANK];
  RtTensor *o;
  if (values)
    {
      /* index_put: a copy of self, the values broadcast to the indexed shape. */
      if (values->dtype != a->dtype)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "values must be of self's dtype");
          return FALSE;
        }
      if (!rt_broadcasts_to (call, values, rrank, rdims, "values", error))
        return FALSE;
      rt_broadcast_strides (values, rrank, rdims, vst);
      o = rt_call_output_like (call, 0, a, error);
      if (o == NULL)
        return FALSE;
      memcpy (o->data, a->data, (gsize) a->numel * rt_dtype_size (a->dtype));
    }
  else if ((o = rt_call_output (call, 0, a->dtype, rrank, rdims, error)) == NULL)
    return FALSE;
  gint64 ist[RT_MAX_RANK], xst[RT_MAX_RANK][RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  rt_contiguous_strides (a->rank, a->dims, ist);
  for (guint k = 0; k < n_idx; k++)
    rt_broadcast_strides (&idx[k], srank, sdims, xst[k]);
  guint first_s = 0;
  while (first_s < rrank && src_dim[first_s] != -1)
    first_s++;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < total; i++)
    {
      gint64 off = 0;
      for (guint r = 0; r < rrank; r++)
        if (src_dim[r] >= 0)
          off += c[r] * ist[src_dim[r]];
      for (guint k = 0; k < n_idx; k++)
        {
          gint64 xo = 0;
          for (guint s2 = 0; s2 < srank; s2++)
            xo += c[first_s + s2] * xst[k][s2];
          gint64 v = rt_get_i64 (&idx[k], xo), n = a->dims[dim_of[k]];
          if (v < -n || v >= n)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "index %" G_GINT64_FORMAT " is out of range for dim %u of size %"
                             G_GINT64_FORMAT, v, dim_of[k], n);
              return FALSE;
            }
          off += (v < 0 ? v + n : v) * ist[dim_of[k]];
        }
      if (values == NULL)
        memcpy ((char *) o->data + i * (gint64) es, (const char *) a->data + off * (gint64) es, es);
      else
        {
          gint64 vo = 0;
          for (guint r = 0; r < rrank; r++)
            vo += c[r] * vst[r];
          if (!accumulate)
            memcpy ((char *) o->data + off * (gint64) es, (const char *) values->data + vo * (gint64) es, es);
          else if (graph_dtype_is_floating (a->dtype))
            {
              double sum = rt_get_f64 (o, off) + rt_get_f64 (values, vo);
              rt_convert (&sum, GRAPH_DTYPE_DOUBLE, (char *) o->data + off * (gint64) es, a->dtype, 1);
            }
          else
            {
              gint64 sum = rt_get_i64 (o, off) + rt_get_i64 (values, vo);
              rt_convert (&sum, GRAPH_DTYPE_INT64, (char *) o->data + off * (gint64) es, a->dtype, 1);
            }
        }
      rt_index_next (c, rdims, rrank);
    }
  return TRUE;
}

static gboolean
a_index (RtCall *call, GError **error)
{
  return advanced_index (call, call->n_inputs - 1, NULL, FALSE, error);
}

/* index_put(self, Tensor?[] indices, values, accumulate): self with the
 * indexed elements replaced (added to, with accumulate) by values. */
static gboolean
a_index_put (RtCall *call, GError **error)
{
  const RtTensor *v = call->n_inputs >= 4 ? aten_arg (call, call->n_inputs - 2) : NULL;
  if (v == NULL)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "needs self, indices, values and accumulate");
      return FALSE;
    }
  return advanced_index (call, call->n_inputs - 3, v, aten_i (call, call->n_inputs - 1, 0) != 0, error);
}

/* embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode,
 * sparse, per_sample_weights?, include_last_offset, padding_idx?) →
 * (output, offset2bag, bag_size, max_indices), 1-D indices with offsets;
 * mode 0 sum, 1 mean, 2 max.  The auxiliary outputs as torch 1.13's CPU
 * kernel leaves them: for sum without padding_idx an empty offset2bag,
 * bag_size and max_indices zeros; for mean max_indices = bag_size; for max
 * the weight row of each column's maximum.  Rows equal to padding_idx
 * take no part; an empty bag is zeros. */
static gboolean
a_embedding_bag (RtCall *call, GError **error)
{
  const RtTensor *w = aten_arg (call, 0), *ind = aten_arg (call, 1), *offs = aten_arg (call, 2);
  const RtTensor *psw = aten_arg (call, 6), *pad = aten_arg (call, 8);
  gint64 mode = aten_i (call, 4, 0);
  gboolean last = aten_i (call, 7, 0) != 0;
  if (!aten_is_float (w) || w->rank != 2 || ind == NULL || !graph_dtype_is_integer (ind->dtype) || ind->rank != 1
      || offs == NULL || !graph_dtype_is_integer (offs->dtype) || offs->rank != 1 || mode < 0 || mode > 2
      || (psw && (psw->numel != ind->numel || mode != 0)) || (last && offs->numel == 0))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "needs a 2-D float weight, 1-D integer indices and offsets, mode 0-2 "
                     "(per_sample_weights only with mode sum)");
      return FALSE;
    }
  gint64 V = w->dims[0], D = w->dims[1], n = ind->numel;
  gint64 B = last ? offs->numel - 1 : offs->numel;
  gint64 padding = pad && pad->numel == 1 ? rt_get_i64 (pad, 0) : G_MININT64;
  if (padding != G_MININT64 && padding < 0)
    padding += V;
  gint64 od[2] = { B, D }, n2b = mode == 0 && padding == G_MININT64 ? 0 : n;
  gint64 mid[2] = { B, D };
  RtTensor *o = rt_call_output (call, 0, w->dtype, 2, od, error);
  RtTensor *o2b = o && call->n_outputs > 1 ? rt_call_output (call, 1, GRAPH_DTYPE_INT64, 1, &n2b, error) : NULL;
  RtTensor *bs = o2b && call->n_outputs > 2 ? rt_call_output (call, 2, GRAPH_DTYPE_INT64, 1, &B, error) : NULL;
  RtTensor *mi = bs && call->n_outputs > 3 ? rt_call_output (call, 3, GRAPH_DTYPE_INT64, mode == 2 ? 2 : 1, mid, error) : NULL;
  if (o == NULL || (call->n_outputs > 1 && o2b == NULL) || (call->n_outputs > 2 && bs == NULL)
      || (call->n_outputs > 3 && mi == NULL))
    return FALSE;
  double *acc = rt_call_scratch_n (call, 1, (gsize) MAX (D, 1) * sizeof (double), error);
  gint64 *arg = acc ? rt_call_scratch_n (call, 2, (gsize) MAX (D, 1) * sizeof (gint64), error) : NULL;
  if (arg == NULL)
    return FALSE;
  gsize es = rt_dtype_size (w->dtype);
  for (gint64 b = 0; b < B; b++)
    {
      gint64 start = rt_get_i64 (offs, b), end = b + 1 < offs->numel ? rt_get_i64 (offs, b + 1) : n;
      if (start < 0 || end > n || start > end)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "offsets must rise within [0, %" G_GINT64_FORMAT "]", n);
          return FALSE;
        }
      gint64 count = 0;
      for (gint64 k = 0; k < D; k++)
        {
          acc[k] = mode == 2 ? -INFINITY : 0;
          arg[k] = 0;
        }
      for (gint64 j = start; j < end; j++)
        {
          gint64 r = rt_get_i64 (ind, j);
          if (r < 0 || r >= V)
            {
              rt_call_error (call, error, RT_ERROR_SHAPE, "index %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT ")", r, V);
              return FALSE;
            }
          if (o2b && n2b)
            ((gint64 *) o2b->data)[j] = b;
          if (r == padding)
            continue;
          count++;
          double s = psw ? rt_get_f64 (psw, j) : 1;
          for (gint64 k = 0; k < D; k++)
            {
              double v = rt_get_f64 (w, r * D + k);
              if (mode != 2)
                acc[k] += s * v;
              else if (v > acc[k] || count == 1)
                {
                  acc[k] = v;
                  arg[k] = r;
                }
            }
        }
      for (gint64 k = 0; k < D; k++)
        {
          double v = count == 0 ? 0 : mode == 1 ? acc[k] / (double) count : acc[k];
          rt_convert (&v, GRAPH_DTYPE_DOUBLE, (char *) o->data + (b * D + k) * (gint64) es, w->dtype, 1);
          if (mi && mode == 2)
            ((gint64 *) mi->data)[b * D + k] = count ? arg[k] : 0;
        }
      if (bs)
        ((gint64 *) bs->data)[b] = mode == 0 ? 0 : count;
      if (mi && mode != 2)
        ((gint64 *) mi->data)[b] = mode == 0 ? 0 : count;
    }
  return TRUE;
}


static const RtKernelDef defs[] = {
  { RT_ATEN ("broadcast_tensors"), RT_IN (1, RT_VARIADIC), RT_OUT (1, RT_VARIADIC), .run = a_broadcast_tensors },
  { RT_ATEN ("meshgrid"), RT_IN (1, RT_VARIADIC), RT_OUT (1, RT_VARIADIC), .run = a_meshgrid },
  { RT_ATEN ("tensor_split"), RT_IN (2, 3), RT_OUT (1, RT_VARIADIC), .run = a_tensor_split },
  RT_ATEN_ROW ("unfold", 4, 4, a_unfold),
  RT_ATEN_ROW ("index_add", 4, 5, a_index_add), RT_ATEN_ROW ("index_copy", 4, 4, a_index_copy),
  RT_ATEN_ROW ("empty", 1, 6, a_empty), RT_ATEN_ROW ("einsum", 2, RT_VARIADIC, a_einsum),
  RT_ATEN_ROW ("index", 1, RT_VARIADIC, a_index),
  RT_ATEN_ROW ("index_put", 1, RT_VARIADIC, a_index_put), RT_ATEN_ROW ("index_put_", 1, RT_VARIADIC, a_index_put),
  { RT_ATEN ("embedding_bag"), RT_IN (3, 9), RT_OUT (1, 4), .run = a_embedding_bag },
  RT_ATEN_ROW ("upsample_linear1d", 1, 4, a_upsample_linear), RT_ATEN_ROW ("upsample_trilinear3d", 1, 6, a_upsample_linear),
};

RT_KERNEL_TABLE (rt_kernels_aten_misc, defs);
