/* ATen matrix products: linear, addmm, mm, bmm, matmul (k-matmul.c's Gemm
 * and MatMul) and t. */
#include "runtime/k-aten-private.h"
#include <string.h>

/* linear(input (*, K), weight (N, K), bias? (N)) → (*, N) */
static gboolean
a_linear (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *wt = aten_arg (call, 1), *bias = aten_arg (call, 2);
  if (!aten_is_float (x) || wt == NULL || wt->dtype != x->dtype || wt->rank != 2 || x->rank < 1
      || x->dims[x->rank - 1] != wt->dims[1])
    {
      rt_call_error (call, error, RT_ERROR_SHAPE,
                     "needs a float or double input (*, K) and a weight (N, K) of its type");
      return FALSE;
    }
  RtTensor a = *x;
  a.rank = 2;
  a.dims[1] = x->dims[x->rank - 1];
  a.dims[0] = a.dims[1] ? x->numel / a.dims[1] : rt_shape_numel (x->rank - 1, x->dims);
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, x->dims, x->rank * sizeof (gint64));
  dims[x->rank - 1] = wt->dims[0];
  return rt_gemm (call, &a, wt, bias, FALSE, TRUE, 1.0, 1.0, x->rank, dims, error);
}

/* addmm(self, mat1, mat2, beta=1, alpha=1) = beta self + alpha mat1 mat2 */
static gboolean
a_addmm (RtCall *call, GError **error)
{
  const RtTensor *c = aten_arg (call, 0), *a = aten_arg (call, 1), *b = aten_arg (call, 2);
  if (!aten_is_float (a) || c == NULL || c->dtype != a->dtype)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "needs float or double operands of one type");
      return FALSE;
    }
  return rt_gemm (call, a, b, c, FALSE, FALSE, aten_f (call, 4, 1), aten_f (call, 3, 1), 0, NULL, error);
}

/* mm / bmm / matmul(self, other): numpy matmul. */
static gboolean
a_matmul (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0), *b = aten_arg (call, 1);
  if (b == NULL || a->dtype != b->dtype
      || !(aten_is_float (a) || (graph_dtype_is_integer (a->dtype) && a->dtype != GRAPH_DTYPE_BOOL)))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "needs numeric operands of one type");
      return FALSE;
    }
  return rt_matmul (call, a, b, error);
}

/* t(self): the transpose of a matrix; 0-D and 1-D tensors unchanged. */
static gboolean
a_t (RtCall *call, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  if (a->rank > 2)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "t() needs at most 2 dimensions, got %u", a->rank);
      return FALSE;
    }
  if (a->rank < 2)
    return rt_call_output_value (call, 0, a, error);
  gint64 dims[2] = { a->dims[1], a->dims[0] };
  RtTensor *o = rt_call_output (call, 0, a->dtype, 2, dims, error);
  if (o == NULL)
    return FALSE;
  gsize es = rt_dtype_size (a->dtype);
  for (gint64 i = 0; i < a->dims[0]; i++)
    for (gint64 j = 0; j < a->dims[1]; j++)
      memcpy ((char *) o->data + (j * a->dims[0] + i) * (gint64) es,
              (const char *) a->data + (i * a->dims[1] + j) * (gint64) es, es);
  return TRUE;
}


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("linear", 2, 3, a_linear),
  RT_ATEN_ROW ("addmm", 3, 5, a_addmm),
  RT_ATEN_ROW ("mm", 2, 2, a_matmul),
  RT_ATEN_ROW ("bmm", 2, 2, a_matmul),
  RT_ATEN_ROW ("matmul", 2, 2, a_matmul),
  RT_ATEN_ROW ("t", 1, 1, a_t),
};

RT_KERNEL_TABLE (rt_kernels_aten_linalg, defs);
