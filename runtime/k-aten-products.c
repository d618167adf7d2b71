/* ATen small products: dot, mv, bmm, baddbmm (the ONNX MatMul kernel,
 * rt_matmul), outer (the Mul loop), cross / linalg_cross. */
#include "runtime/k-aten-private.h"

/* ---- small linear algebra ----------------------------------------------------- */

static gboolean
two_floats (RtCall *call, const RtTensor **a, const RtTensor **b, GError **error)
{
  if (!aten_tensor_arg (call, 0, a, error) || !aten_tensor_arg (call, 1, b, error))
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
  if (!aten_tensor_arg (call, 0, &self, error) || a == NULL || b == NULL || !aten_is_float (a)
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
  gint64 outer = rt_shape_numel (ax, a->dims), inner = rt_shape_inner (a->rank, a->dims, ax);
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


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("dot", 2, 2, a_dot), RT_ATEN_ROW ("mv", 2, 2, a_mv), RT_ATEN_ROW ("bmm", 2, 2, a_bmm), RT_ATEN_ROW ("baddbmm", 3, 5, a_baddbmm),
  RT_ATEN_ROW ("outer", 2, 2, a_outer), RT_ATEN_ROW ("cross", 2, 3, a_cross), RT_ATEN_ROW ("linalg_cross", 2, 3, a_cross),
};

RT_KERNEL_TABLE (rt_kernels_aten_products, defs);
