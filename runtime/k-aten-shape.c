/* ATen shape ops: flatten, view / reshape, size, cat, pixel_shuffle,
 * contiguous / clone.  Data is C-contiguous, so a view is a copy with
 * other dims. */
#include "runtime/k-aten-private.h"
#include <string.h>

/* Output 0 := a's data with shape (rank, dims). */
static gboolean
output_reshaped (RtCall *call, const RtTensor *a, guint rank, const gint64 *dims, GError **error)
{
  RtTensor *o = rt_call_output (call, 0, a->dtype, rank, dims, error);
  if (o == NULL)
    return FALSE;
  if (a->numel)
    memcpy (o->data, a->data, (gsize) a->numel * rt_dtype_size (a->dtype));
  return TRUE;
}

/* flatten(self, start_dim=0, end_dim=-1) */
static gboolean
a_flatten (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  if (a->rank == 0)
    {
      gint64 one = 1;
      return output_reshaped (call, a, 1, &one, error);
    }
  guint s, e;
  if (!rt_axis (call, aten_i (call, 1, 0), a->rank, &s, error)
      || !rt_axis (call, aten_i (call, 2, -1), a->rank, &e, error))
    return FALSE;
  if (s > e)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "start_dim %u is after end_dim %u", s, e);
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  guint r = 0;
  for (guint i = 0; i < s; i++)
    dims[r++] = a->dims[i];
  dims[r++] = rt_shape_numel (e - s + 1, a->dims + s);
  for (guint i = e + 1; i < a->rank; i++)
    dims[r++] = a->dims[i];
  return output_reshaped (call, a, r, dims, error);
}

/* view(self, int[] size) / reshape(self, int[] shape): one -1 inferred. */
static gboolean
a_view (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *shape = aten_arg (call, 1);
  if (shape == NULL || !graph_dtype_is_integer (shape->dtype) || shape->rank > 1
      || shape->numel > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "the shape must be an integer list");
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK], known = 1;
  int infer = -1;
  guint r = (guint) shape->numel;
  for (guint i = 0; i < r; i++)
    {
      dims[i] = rt_get_i64 (shape, i);
      if (dims[i] == -1 && infer < 0)
        infer = (int) i;
      else if (dims[i] < 0)
        {
          rt_call_error (call, error, RT_ERROR_SHAPE, "invalid size %" G_GINT64_FORMAT, dims[i]);
          return FALSE;
        }
      else
        known *= dims[i];
    }
  if (infer >= 0)
    dims[infer] = known ? a->numel / known : 0;
  if (rt_shape_numel (r, dims) != a->numel)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "shape of %" G_GINT64_FORMAT
                     " elements is invalid for an input of %" G_GINT64_FORMAT,
                     rt_shape_numel (r, dims), a->numel);
      return FALSE;
    }
  return output_reshaped (call, a, r, dims, error);
}

/* size(self, int dim) → a 0-d int64; size(self) → the shape as int64[]. */
static gboolean
a_size (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  if (aten_arg (call, 1) == NULL)
    {
      gint64 n = a->rank;
      RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 1, &n, error);
      if (o == NULL)
        return FALSE;
      if (n)
        memcpy (o->data, a->dims, (gsize) n * sizeof (gint64));
      return TRUE;
    }
  guint ax;
  if (!rt_axis (call, aten_i (call, 1, 0), a->rank, &ax, error))
    return FALSE;
  RtTensor *o = rt_call_output (call, 0, GRAPH_DTYPE_INT64, 0, NULL, error);
  if (o == NULL)
    return FALSE;
  *(gint64 *) o->data = a->dims[ax];
  return TRUE;
}

/* cat(Tensor[] tensors, int dim): the list flattened into inputs
 * 0 .. n-2, dim last.  One element type (no promotion). */
static gboolean
a_cat (RtCall *call, GError **error)
{
  guint n = call->n_inputs - 1;
  guint ax;
  gint64 dims[RT_MAX_RANK];
  if (!aten_cat_dims (call, n, aten_i (call, n, 0), &ax, dims, error))
    return FALSE;
  const RtTensor *first = aten_arg (call, 0);
  RtTensor *o = rt_call_output (call, 0, first->dtype, first->rank, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (first->dtype);
  gint64 outer = rt_shape_numel (ax, dims), inner = rt_shape_inner (first->rank, dims, ax);
  gint64 off = 0;
  for (guint i = 0; i < n; i++)
    {
      const RtTensor *t = call->inputs[i];
      gsize chunk = (gsize) (t->dims[ax] * inner) * es;
      for (gint64 k = 0; k < outer && chunk; k++)
        memcpy ((char *) o->data + ((k * dims[ax] + off) * inner) * (gint64) es,
                (const char *) t->data + k * (gint64) chunk, chunk);
      off += t->dims[ax];
    }
  return TRUE;
}

/* pixel_shuffle(self (*, C r², H, W), int r) → (*, C, H r, W r) */
static gboolean
a_pixel_shuffle (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  gint64 r = aten_i (call, 1, 0);
  if (a->rank < 3 || r <= 0 || a->dims[a->rank - 3] % (r * r) != 0)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "needs rank >= 3 with channels divisible by upscale_factor² (%" G_GINT64_FORMAT ")", r);
      return FALSE;
    }
  guint k = a->rank;
  gint64 C = a->dims[k - 3] / (r * r), H = a->dims[k - 2], W = a->dims[k - 1];
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, k * sizeof (gint64));
  dims[k - 3] = C;
  dims[k - 2] = H * r;
  dims[k - 1] = W * r;
  RtTensor *o = rt_call_output (call, 0, a->dtype, k, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  gint64 batch = rt_shape_numel (k - 3, a->dims);
  /* out[b, c, h r + i, w r + j] = in[b, c r² + i r + j, h, w] */
  for (gint64 b = 0; b < batch; b++)
    for (gint64 c = 0; c < C; c++)
      for (gint64 h = 0; h < H; h++)
        for (gint64 i = 0; i < r; i++)
          for (gint64 w = 0; w < W; w++)
            for (gint64 j = 0; j < r; j++)
              {
                gint64 src = ((b * C * r * r + c * r * r + i * r + j) * H + h) * W + w;
                gint64 dst = ((b * C + c) * H * r + h * r + i) * W * r + w * r + j;
                memcpy ((char *) o->data + dst * (gint64) es, (const char *) a->data + src * (gint64) es, es);
              }
  return TRUE;
}

/* contiguous(self, memory_format) / clone(self, memory_format?) */
static gboolean
a_copy (RtCall *call, GError **error)
{
  return rt_call_output_value (call, 0, aten_arg (call, 0), error);
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("flatten", 1, 3, a_flatten),
  RT_ATEN_ROW ("view", 2, 2, a_view),
  RT_ATEN_ROW ("reshape", 2, 2, a_view),
  RT_ATEN_ROW ("size", 1, 2, a_size),
  RT_ATEN_ROW ("cat", 2, RT_VARIADIC, a_cat),
  RT_ATEN_ROW ("concat", 2, RT_VARIADIC, a_cat),
  RT_ATEN_ROW ("pixel_shuffle", 2, 2, a_pixel_shuffle),
  RT_ATEN_ROW ("contiguous", 1, 2, a_copy),
  RT_ATEN_ROW ("clone", 1, 2, a_copy),
};

RT_KERNEL_TABLE (rt_kernels_aten_shape, defs);
