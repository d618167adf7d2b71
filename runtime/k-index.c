/* Index-driven data movement: GatherND, ScatterND, Scatter (the opset 9-10
 * name of ScatterElements), Compress, ReverseSequence, Unique.  Elements are
 * moved as bytes, so every dtype works. */
#include "runtime/kernel.h"
#include <stdlib.h>
#include <string.h>

/* Index i along a dim of size n, negative counting from the end. */
static gboolean
norm_index (RtCall *call, gint64 i, gint64 n, gint64 *out, GError **error)
{
  if (i < 0)
    i += n;
  if (i < 0 || i >= n)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "index %" G_GINT64_FORMAT " is out of range for a dimension of %" G_GINT64_FORMAT,
                     i < 0 ? i - n : i, n);
      return FALSE;
    }
  *out = i;
  return TRUE;
}

/* ---- GatherND / ScatterND ------------------------------------------------- */

/* Shared shape logic: data (r), indices (q) with last dim k, batch dims b.
 * Each index tuple addresses a slice of `slice` elements; there are
 * `n_tuples` tuples, `per_batch` of them per batch entry. */
typedef struct
{
  gint64 k, b, batch, per_batch, slice, batch_stride;
  gint64 strides[RT_MAX_RANK];
} NdPlan;

static gboolean
nd_plan (RtCall *call, const RtTensor *data, const RtTensor *idx, gint64 b, NdPlan *p,
         GError **error)
{
  if (idx->rank < 1 || b < 0 || b >= idx->rank || b >= data->rank)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "bad indices rank or batch_dims");
      return FALSE;
    }
  p->k = idx->dims[idx->rank - 1];
  p->b = b;
  if (p->k < 1 || p->k > data->rank - b)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "indices' last dimension %" G_GINT64_FORMAT
                     " does not fit data of rank %u", p->k, data->rank);
      return FALSE;
    }
  for (gint64 i = 0; i < b; i++)
    if (idx->dims[i] != data->dims[i])
      {
        rt_call_error (call, error, RT_ERROR_SHAPE, "batch dimensions differ");
        return FALSE;
      }
  p->batch = rt_shape_numel ((guint) b, data->dims);
  p->per_batch = p->batch ? idx->numel / p->k / p->batch : 0;
  p->slice = rt_shape_numel (data->rank - (guint) (b + p->k), data->dims + b + p->k);
  p->batch_stride = rt_shape_numel (data->rank - (guint) b, data->dims + b);
  rt_contiguous_strides (data->rank, data->dims, p->strides);
  return TRUE;
}

/* Element offset in data of tuple t (flat over all batches). */
static gboolean
nd_offset (RtCall *call, const RtTensor *data, const RtTensor *idx, const NdPlan *p, gint64 t,
           gint64 *off, GError **error)
{
  gint64 o = (t / MAX (p->per_batch, 1)) * p->batch_stride;
  for (gint64 j = 0; j < p->k; j++)
    {
      gint64 v;
      if (!norm_index (call, rt_get_i64 (idx, t * p->k + j), data->dims[p->b + j], &v, error))
        return FALSE;
      o += v * p->strides[p->b + j];
    }
  *off = o;
  return TRUE;
}

static gboolean
k_gathernd (RtCall *call, GError **error)
{
  const RtTensor *data = call->inputs[0], *idx = call->inputs[1];
  NdPlan p;
  if (!nd_plan (call, data, idx, rt_attr_i (call->node, "batch_dims", 0), &p, error))
    return FALSE;
  gint64 dims[RT_MAX_RANK];
  guint rank = 0;
  for (guint i = 0; i + 1 < idx->rank; i++)
    dims[rank++] = idx->dims[i];
  for (guint i = (guint) (p.b + p.k); i < data->rank; i++)
    {
      if (rank >= RT_MAX_RANK)
        {
          rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "output rank is too large");
          return FALSE;
        }
      dims[rank++] = data->dims[i];
    }
  RtTensor *o = rt_call_output (call, 0, data->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (data->dtype);
  gint64 n = p.batch * p.per_batch;
  for (gint64 t = 0; t < n; t++)
    {
      gint64 off;
      if (!nd_offset (call, data, idx, &p, t, &off, error))
        return FALSE;
      memcpy ((char *) o->data + t * p.slice * (gint64) es, (const char *) data->data + off * (gint64) es,
              (gsize) p.slice * es);
    }
  return TRUE;
}

typedef enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN } Reduction;

static gboolean
parse_reduction (RtCall *call, Reduction *r, GError **error)
{
  const char *s = rt_attr_s (call->node, "reduction", "none");
  static const char *const names[] = { "none", "add", "mul", "max", "min" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (s, names[i]) == 0)
      {
        *r = (Reduction) i;
        return TRUE;
      }
  rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "unknown reduction '%s'", s);
  return FALSE;
}

#define GEN_COMBINE(E, T)                                                        \
  static void                                                                    \
  combine_##E (void *dst, const void *src, gint64 n, Reduction r)                \
  {                                                                              \
    T *d = dst;                                                                  \
    const T *s = src;                                                            \
    for (gint64 i = 0; i < n; i++)                                               \
      switch (r)                                                                 \
        {                                                                        \
        case RED_ADD: d[i] = (T) (d[i] + s[i]); break;                           \
        case RED_MUL: d[i] = (T) (d[i] * s[i]); break;                           \
        case RED_MAX: d[i] = d[i] > s[i] ? d[i] : s[i]; break;                   \
        case RED_MIN: d[i] = d[i] < s[i] ? d[i] : s[i]; break;                   \
        case RED_NONE: default: d[i] = s[i]; break;                              \
        }                                                                        \
  }
RT_FOREACH_NUMERIC (GEN_COMBINE)

static void
combine (GraphDType dt, void *dst, const void *src, gint64 n, Reduction r)
{
  switch (dt)
    {
#define CASE(E, T) case GRAPH_DTYPE_##E: combine_##E (dst, src, n, r); return;
      RT_FOREACH_NUMERIC (CASE)
#undef CASE
    default:
      memcpy (dst, src, (gsize) n * rt_dtype_size (dt));
    }
}

static gboolean
k_scatternd (RtCall *call, GError **error)
{
  const RtTensor *data = call->inputs[0], *idx = call->inputs[1], *upd = call->inputs[2];
  Reduction r;
  NdPlan p;
  if (!parse_reduction (call, &r, error) || !nd_plan (call, data, idx, 0, &p, error))
    return FALSE;
  if (r != RED_NONE && data->dtype == GRAPH_DTYPE_BOOL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "reduction on bool data");
      return FALSE;
    }
  gint64 n = p.per_batch;
  if (upd->dtype != data->dtype || upd->numel != n * p.slice)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "updates do not match indices and data");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, data, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (data->dtype);
  memcpy (o->data, data->data, (gsize) data->numel * es);
  for (gint64 t = 0; t < n; t++)
    {
      gint64 off;
      if (!nd_offset (call, data, idx, &p, t, &off, error))
        return FALSE;
      combine (data->dtype, (char *) o->data + off * (gint64) es,
               (const char *) upd->data + t * p.slice * (gint64) es, p.slice, r);
    }
  return TRUE;
}

/* Scatter (opset 9-10) is ScatterElements without reduction. */
static gboolean
k_scatter (RtCall *call, GError **error)
{
  const RtKernelDef *d = rt_registry_lookup ("onnx", "ScatterElements", 11);
  if (d == NULL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "no ScatterElements kernel");
      return FALSE;
    }
  return d->run (call, error);
}

/* ---- Compress / ReverseSequence ------------------------------------------- */

static gboolean
k_compress (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0], *cond = call->inputs[1];
  gboolean has_axis = graph_node_has_attr (call->node, "axis");
  guint ax = 0;
  if (has_axis && !rt_axis (call, rt_attr_i (call->node, "axis", 0), a->rank, &ax, error))
    return FALSE;
  gint64 outer, n, inner;
  if (has_axis)
    {
      outer = rt_shape_numel (ax, a->dims);
      n = a->dims[ax];
      inner = rt_shape_inner (a->rank, a->dims, ax);
    }
  else
    {
      outer = 1;
      n = a->numel;
      inner = 1;
    }
  if (cond->rank != 1 || cond->numel > n)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "condition must be 1-D and no longer than the axis");
      return FALSE;
    }
  gint64 kept = 0;
  for (gint64 i = 0; i < cond->numel; i++)
    kept += rt_get_i64 (cond, i) != 0;
  gint64 dims[RT_MAX_RANK];
  guint rank = 1;
  dims[0] = kept;
  if (has_axis)
    {
      memcpy (dims, a->dims, a->rank * sizeof (gint64));
      dims[ax] = kept;
      rank = a->rank;
    }
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  char *dst = o->data;
  for (gint64 i = 0; i < outer; i++)
    for (gint64 j = 0; j < cond->numel; j++)
      if (rt_get_i64 (cond, j) != 0)
        {
          memcpy (dst, (const char *) a->data + (i * n + j) * inner * (gint64) es, (gsize) inner * es);
          dst += inner * (gint64) es;
        }
  return TRUE;
}

static gboolean
k_reverse_sequence (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0], *lens = call->inputs[1];
  gint64 ta = rt_attr_i (call->node, "time_axis", 0), ba = rt_attr_i (call->node, "batch_axis", 1);
  if (a->rank < 2 || !((ta == 0 && ba == 1) || (ta == 1 && ba == 0)))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "time_axis and batch_axis must be 0 and 1 of a rank >= 2 input");
      return FALSE;
    }
  gint64 T = a->dims[ta], B = a->dims[ba];
  if (lens->numel != B)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "sequence_lens must have one entry per batch");
      return FALSE;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 inner = rt_shape_numel (a->rank - 2, a->dims + 2) * (gint64) es;
  for (gint64 b = 0; b < B; b++)
    {
      gint64 len = rt_get_i64 (lens, b);
      if (len < 0 || len > T)
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                         "sequence length %" G_GINT64_FORMAT " is outside [0, %" G_GINT64_FORMAT "]",
                         len, T);
          return FALSE;
        }
      for (gint64 t = 0; t < T; t++)
        {
          gint64 src = t < len ? len - 1 - t : t;
          gint64 di = ta == 0 ? t * B + b : b * T + t;
          gint64 si = ta == 0 ? src * B + b : b * T + src;
          memcpy ((char *) o->data + di * inner, (const char *) a->data + si * inner, (gsize) inner);
        }
    }
  return TRUE;
}

/* ---- Unique --------------------------------------------------------------- */

typedef struct
{
  const RtTensor *a;
  gint64 n, inner;     /* slices are a[i, :, j] over (outer, n, inner) at index along n */
  gint64 outer;
} UniqueCtx;

static int
slice_cmp (const UniqueCtx *u, gint64 x, gint64 y)
{
  gboolean integer = graph_dtype_is_integer (u->a->dtype);
  for (gint64 i = 0; i < u->outer; i++)
    for (gint64 j = 0; j < u->inner; j++)
      {
        gint64 ix = (i * u->n + x) * u->inner + j, iy = (i * u->n + y) * u->inner + j;
        if (integer && u->a->dtype != GRAPH_DTYPE_UINT64)
          {
            gint64 vx = rt_get_i64 (u->a, ix), vy = rt_get_i64 (u->a, iy);
            if (vx != vy)
              return vx < vy ? -1 : 1;
          }
        else
          {
            double vx = rt_get_f64 (u->a, ix), vy = rt_get_f64 (u->a, iy);
            if (vx != vy)
              return vx < vy ? -1 : 1;
          }
      }
  return 0;
}

static int
unique_order (gconstpointer pa, gconstpointer pb, gpointer data)
{
  gint64 x = *(const gint64 *) pa, y = *(const gint64 *) pb;
  int c = slice_cmp (data, x, y);
  return c ? c : (x < y ? -1 : x > y);
}

static int
cmp_i64 (const void *pa, const void *pb)
{
  gint64 x = *(const gint64 *) pa, y = *(const gint64 *) pb;
  return x < y ? -1 : x > y;
}

static gboolean
k_unique (RtCall *call, GError **error)
{
  const RtTensor *a = call->inputs[0];
  gboolean sorted = rt_attr_i (call->node, "sorted", 1) != 0;
  UniqueCtx u = { a, a->numel, 1, 1 };
  guint ax = 0;
  gboolean has_axis = graph_node_has_attr (call->node, "axis");
  if (has_axis)
    {
      if (!rt_axis (call, rt_attr_i (call->node, "axis", 0), a->rank, &ax, error))
        return FALSE;
      u.outer = rt_shape_numel (ax, a->dims);
      u.n = a->dims[ax];
      u.inner = rt_shape_inner (a->rank, a->dims, ax);
    }
  gint64 n = u.n;
  /* order: slice indices sorted (stably) by value; first[k]: the first
   * index of group k; inv[i]: the group of slice i. */
  gint64 *order = rt_call_scratch_n (call, 0, (gsize) MAX (n, 1) * sizeof (gint64), error);
  gint64 *first = order ? rt_call_scratch_n (call, 1, (gsize) MAX (n, 1) * 2 * sizeof (gint64), error) : NULL;
  gint64 *inv = first ? rt_call_scratch_n (call, 2, (gsize) MAX (n, 1) * sizeof (gint64), error) : NULL;
  gint64 *cnt = inv ? rt_call_scratch_n (call, 3, (gsize) MAX (n, 1) * sizeof (gint64), error) : NULL;
  if (cnt == NULL)
    return FALSE;
  gint64 *rank_of = first + n;   /* group number after (un)sorting, by sorted group */
  for (gint64 i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (gint64), unique_order, &u);
  gint64 K = 0;
  for (gint64 i = 0; i < n; i++)
    {
      if (i == 0 || slice_cmp (&u, order[i - 1], order[i]) != 0)
        {
          first[K] = order[i];
          cnt[K] = 0;
          K++;
        }
      inv[order[i]] = K - 1;
      cnt[K - 1]++;
    }
  if (!sorted)
    {
      /* Groups in order of first occurrence: sort (first index, group) pairs. */
      gint64 *pairs = order;   /* reuse: order is no longer needed */
      for (gint64 k = 0; k < K; k++)
        pairs[k] = first[k] * n + k;
      qsort (pairs, (gsize) K, sizeof (gint64), cmp_i64);
      for (gint64 r = 0; r < K; r++)
        rank_of[pairs[r] % MAX (n, 1)] = r;
    }
  else
    for (gint64 k = 0; k < K; k++)
      rank_of[k] = k;
  gint64 dims[RT_MAX_RANK];
  guint rank = 1;
  dims[0] = K;
  if (has_axis)
    {
      memcpy (dims, a->dims, a->rank * sizeof (gint64));
      dims[ax] = K;
      rank = a->rank;
    }
  RtTensor *y = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (y == NULL)
    return FALSE;
  RtTensor *io = NULL, *iv = NULL, *co = NULL;
  if (call->n_outputs > 1 && (io = rt_call_output (call, 1, GRAPH_DTYPE_INT64, 1, &K, error)) == NULL)
    return FALSE;
  if (call->n_outputs > 2 && (iv = rt_call_output (call, 2, GRAPH_DTYPE_INT64, 1, &n, error)) == NULL)
    return FALSE;
  if (call->n_outputs > 3 && (co = rt_call_output (call, 3, GRAPH_DTYPE_INT64, 1, &K, error)) == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 sl = u.inner * (gint64) es;
  for (gint64 k = 0; k < K; k++)
    {
      gint64 r = rank_of[k];
      for (gint64 i = 0; i < u.outer; i++)
        memcpy ((char *) y->data + (i * K + r) * sl, (const char *) a->data + (i * n + first[k]) * sl,
                (gsize) sl);
      if (io)
        ((gint64 *) io->data)[r] = first[k];
      if (co)
        ((gint64 *) co->data)[r] = cnt[k];
    }
  if (iv)
    for (gint64 i = 0; i < n; i++)
      ((gint64 *) iv->data)[i] = rank_of[inv[i]];
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("GatherND", 11), RT_IN (2, 2), RT_OUT (1, 1), .run = k_gathernd },
  { RT_ONNX ("ScatterND", 11), RT_IN (3, 3), RT_OUT (1, 1), .run = k_scatternd },
  { RT_ONNX ("Scatter", 9), .until = 10, RT_IN (3, 3), RT_OUT (1, 1), .run = k_scatter },
  { RT_ONNX ("Compress", 9), RT_IN (2, 2), RT_OUT (1, 1), .run = k_compress },
  { RT_ONNX ("ReverseSequence", 10), RT_IN (2, 2), RT_OUT (1, 1), .run = k_reverse_sequence },
  { RT_ONNX ("Unique", 11), RT_IN (1, 1), RT_OUT (1, 4), .dtypes = RT_DT_ALL, .run = k_unique },
};

RT_KERNEL_TABLE (rt_kernels_index, defs);
