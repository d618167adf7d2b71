/* ATen indexing and sorting: gather, index_select, take, scatter(_add),
 * index_fill; sort, argsort, topk (stable, NaN last as torch), sorted
 * _unique / _unique2 / unique_dim. */
#include "runtime/k-aten-private.h"
#include <math.h>
#include <stdlib.h>

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
  if (!aten_tensor_arg (call, 0, &a, error) || !int_index (call, idx, error)
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
  aten_strides (a, st);
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
  if (!aten_tensor_arg (call, 0, &a, error) || !int_index (call, idx, error) || a->rank == 0
      || !rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error) || idx->rank > 1)
    {
      if (error && *error == NULL)
        rt_call_error (call, error, RT_ERROR_SHAPE, "needs a tensor of rank >= 1 and a 1-D index");
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK], st[RT_MAX_RANK], c[RT_MAX_RANK] = { 0 };
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[ax] = idx->numel;
  aten_strides (a, st);
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
  if (!aten_tensor_arg (call, 0, &a, error) || !int_index (call, idx, error))
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
  if (!aten_tensor_arg (call, 0, &a, error) || !int_index (call, idx, error) || src == NULL
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
  aten_strides (a, st);
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
  if (!aten_tensor_arg (call, 0, &a, error) || !int_index (call, idx, error) || a->rank == 0
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
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_inner (a->rank, a->dims, ax);
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
  gint64 inner = a->rank ? rt_shape_inner (a->rank, a->dims, ax) : 1;
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
  if (!aten_tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  return sorted (call, a, ax, a->rank ? a->dims[ax] : 1, aten_i (call, 2, 0) != 0, 0, 1, error);
}

/* argsort(self, dim=-1, descending=False) */
static gboolean
a_argsort (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!aten_tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 1, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  return sorted (call, a, ax, a->rank ? a->dims[ax] : 1, aten_i (call, 2, 0) != 0, G_MAXUINT, 0, error);
}

/* topk(self, k, dim=-1, largest=True, sorted=True) → values, indices */
static gboolean
a_topk (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!aten_tensor_arg (call, 0, &a, error) || !rt_axis (call, aten_i (call, 2, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  return sorted (call, a, ax, aten_i (call, 1, 1), aten_i (call, 3, 1) != 0, 0, 1, error);
}

/* _unique2(self, sorted, return_inverse, return_counts) → (values,
 * inverse, counts) and _unique(self, sorted, return_inverse) → (values,
 * inverse): sorted only (torch's unsorted order is its hash table's); an
 * output not asked for is empty, as torch returns it. */
static gboolean
unique (RtCall *call, gboolean with_counts, GError **error)
{
  const RtTensor *a;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (aten_i (call, 1, 1) == 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unique with sorted=False has torch's hash order: not reproduced");
      return FALSE;
    }
  gboolean want_inv = aten_i (call, 2, 0) != 0, want_cnt = with_counts && aten_i (call, 3, 0) != 0;
  gint64 n = a->numel;
  Keyed *line = rt_call_scratch_n (call, 1, (gsize) MAX (n, 1) * sizeof (Keyed), error);
  if (line == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    {
      line[i].v = rt_get_f64 (a, i);
      line[i].i = i;
    }
  qsort (line, (size_t) n, sizeof (Keyed), cmp_asc);
  gint64 u = 0;
  for (gint64 i = 0; i < n; i++)
    u += i == 0 || line[i].v != line[i - 1].v;
  gint64 zero = 0;
  RtTensor *vals = rt_call_output (call, 0, a->dtype, 1, &u, error);
  RtTensor *inv = vals && call->n_outputs > 1
                  ? (want_inv ? rt_call_output (call, 1, GRAPH_DTYPE_INT64, a->rank, a->dims, error)
                              : rt_call_output (call, 1, GRAPH_DTYPE_INT64, 1, &zero, error)) : NULL;
  RtTensor *cnt = inv && call->n_outputs > 2
                  ? rt_call_output (call, 2, GRAPH_DTYPE_INT64, 1, want_cnt ? &u : &zero, error) : NULL;
  if (vals == NULL || (call->n_outputs > 1 && inv == NULL) || (call->n_outputs > 2 && cnt == NULL))
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 k = -1;
  for (gint64 i = 0; i < n; i++)
    {
      if (i == 0 || line[i].v != line[i - 1].v)
        {
          k++;
          memcpy ((char *) vals->data + k * (gint64) es, (const char *) a->data + line[i].i * (gint64) es, es);
          if (cnt && want_cnt)
            ((gint64 *) cnt->data)[k] = 0;
        }
      if (inv && want_inv)
        ((gint64 *) inv->data)[line[i].i] = k;
      if (cnt && want_cnt)
        ((gint64 *) cnt->data)[k]++;
    }
  return TRUE;
}

/* unique_dim's slices: slice k of a (outer, n, inner) view is the
 * elements (o, k, i) in (o, i) order, what a.movedim(dim, 0)[k] holds. */
typedef struct
{
  const RtTensor *a;
  gint64 n, outer, inner;
  gboolean ints;
} Slices;

static int
slice_cmp (const Slices *s, gint64 k1, gint64 k2)
{
  for (gint64 o = 0; o < s->outer; o++)
    for (gint64 i = 0; i < s->inner; i++)
      {
        gint64 p1 = (o * s->n + k1) * s->inner + i, p2 = (o * s->n + k2) * s->inner + i;
        if (s->ints)
          {
            gint64 v1 = rt_get_i64 (s->a, p1), v2 = rt_get_i64 (s->a, p2);
            if (v1 != v2)
              return v1 < v2 ? -1 : 1;
          }
        else
          {
            double v1 = rt_get_f64 (s->a, p1), v2 = rt_get_f64 (s->a, p2);
            if (v1 != v2)
              return v1 < v2 ? -1 : 1;
          }
      }
  return 0;
}

static gint
slice_cmp_sort (gconstpointer a, gconstpointer b, gpointer data)
{
  gint64 k1 = *(const gint64 *) a, k2 = *(const gint64 *) b;
  int c = slice_cmp (data, k1, k2);
  return c ? c : (k1 > k2) - (k1 < k2);   /* stable: equal slices keep their order */
}

/* unique_dim(self, dim, sorted, return_inverse, return_counts) → (the
 * distinct slices along dim in lexicographic order, each slice's index
 * among them, their counts).  torch 1.13 sorts whatever `sorted` says and
 * returns inverse and counts whatever the flags say; NaNs are refused
 * (they have no order). */
static gboolean
a_unique_dim (RtCall *call, GError **error)
{
  const RtTensor *a;
  guint ax;
  if (!aten_tensor_arg (call, 0, &a, error))
    return FALSE;
  if (a->rank == 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "unique_dim needs a tensor with dims");
      return FALSE;
    }
  if (!rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    return FALSE;
  Slices s = { .a = a, .n = a->dims[ax], .outer = rt_shape_numel (ax, a->dims),
               .inner = rt_shape_numel (a->rank - ax - 1, a->dims + ax + 1),
               .ints = !graph_dtype_is_floating (a->dtype) };
  for (gint64 i = 0; !s.ints && i < a->numel; i++)
    if (isnan (rt_get_f64 (a, i)))
      {
        rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "unique_dim of slices with NaN (unordered) is not supported");
        return FALSE;
      }
  g_autoptr (GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (gint64), (guint) MIN (s.n, G_MAXUINT));
  for (gint64 k = 0; k < s.n; k++)
    g_array_append_val (order, k);
  g_array_sort_with_data (order, slice_cmp_sort, &s);
  const gint64 *ord = (const gint64 *) order->data;
  gint64 u = 0;
  for (gint64 k = 0; k < s.n; k++)
    u += k == 0 || slice_cmp (&s, ord[k], ord[k - 1]) != 0;
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, sizeof (gint64) * a->rank);
  dims[ax] = u;
  RtTensor *vals = rt_call_output (call, 0, a->dtype, a->rank, dims, error);
  RtTensor *inv = vals && call->n_outputs > 1 ? rt_call_output (call, 1, GRAPH_DTYPE_INT64, 1, &s.n, error) : NULL;
  RtTensor *cnt = inv && call->n_outputs > 2 ? rt_call_output (call, 2, GRAPH_DTYPE_INT64, 1, &u, error) : NULL;
  if (vals == NULL || (call->n_outputs > 1 && inv == NULL) || (call->n_outputs > 2 && cnt == NULL))
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 j = -1;
  for (gint64 k = 0; k < s.n; k++)
    {
      if (k == 0 || slice_cmp (&s, ord[k], ord[k - 1]) != 0)
        {
          j++;
          for (gint64 o = 0; o < s.outer; o++)
            memcpy ((char *) vals->data + ((o * u + j) * s.inner) * (gint64) es,
                    (const char *) a->data + ((o * s.n + ord[k]) * s.inner) * (gint64) es, (gsize) s.inner * es);
          if (cnt)
            ((gint64 *) cnt->data)[j] = 0;
        }
      if (inv)
        ((gint64 *) inv->data)[ord[k]] = j;
      if (cnt)
        ((gint64 *) cnt->data)[j]++;
    }
  return TRUE;
}

static gboolean a_unique2 (RtCall *c, GError **e) { return unique (c, TRUE, e); }
static gboolean a_unique (RtCall *c, GError **e) { return unique (c, FALSE, e); }


static const RtKernelDef defs[] = {
  { RT_ATEN ("_unique2"), RT_IN (1, 4), RT_OUT (1, 3), .run = a_unique2 },
  { RT_ATEN ("_unique"), RT_IN (1, 3), RT_OUT (1, 2), .run = a_unique },
  { RT_ATEN ("unique_dim"), RT_IN (2, 5), RT_OUT (1, 3), .run = a_unique_dim },
  RT_ATEN_ROW ("gather", 3, 4, a_gather), RT_ATEN_ROW ("index_select", 3, 3, a_index_select), RT_ATEN_ROW ("take", 2, 2, a_take),
  RT_ATEN_ROW ("scatter", 4, 5, a_scatter), RT_ATEN_ROW ("scatter_add", 4, 4, a_scatter_add),
  RT_ATEN_ROW ("index_fill", 4, 4, a_index_fill), { RT_ATEN ("sort"), RT_IN (1, 4), RT_OUT (2, 2), .run = a_sort },
  RT_ATEN_ROW ("argsort", 1, 3, a_argsort), { RT_ATEN ("topk"), RT_IN (2, 5), RT_OUT (2, 2), .run = a_topk },
};

RT_KERNEL_TABLE (rt_kernels_aten_index, defs);
