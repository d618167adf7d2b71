/* ATen layers of inference: batch_norm (k-norm.c's loop), dropout (eval:
 * identity), embedding, softmax / log_softmax (k-reduce.c's loop). */
#include "runtime/k-aten-private.h"
#include <string.h>

/* batch_norm(input, weight?, bias?, running_mean?, running_var?, training,
 * momentum, eps, cudnn_enabled) */
static gboolean
a_batch_norm (RtCall *call, GError **error)
{
  const RtTensor *x = aten_arg (call, 0), *mean = aten_arg (call, 3), *var = aten_arg (call, 4);
  if (aten_i (call, 5, 0) != 0 || mean == NULL || var == NULL)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                     "only inference (training=False, with running statistics) is supported");
      return FALSE;
    }
  if (!aten_is_float (x))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "needs a float or double input");
      return FALSE;
    }
  return rt_batchnorm (call, x, aten_arg (call, 1), aten_arg (call, 2), mean, var,
                       aten_f (call, 7, 1e-5), error);
}

/* dropout / feature_dropout / alpha_dropout(input, p, train): the identity
 * in eval mode; training mode is random and not run. */
static gboolean
a_dropout (RtCall *call, GError **error)
{
  if (aten_i (call, 2, 0) != 0 && aten_f (call, 1, 0) > 0)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "dropout with train=True is random");
      return FALSE;
    }
  return rt_call_output_value (call, 0, aten_arg (call, 0), error);
}

/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
 * rows of weight, shaped indices.shape + [D]. */
static gboolean
a_embedding (RtCall *call, GError **error)
{
  const RtTensor *wt = aten_arg (call, 0), *ind = aten_arg (call, 1);
  if (wt->rank != 2 || ind == NULL || !graph_dtype_is_integer (ind->dtype) || ind->rank + 1 > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_SHAPE, "needs a 2-D weight and integer indices");
      return FALSE;
    }
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, ind->dims, ind->rank * sizeof (gint64));
  dims[ind->rank] = wt->dims[1];
  RtTensor *o = rt_call_output (call, 0, wt->dtype, ind->rank + 1, dims, error);
  if (o == NULL)
    return FALSE;
  gsize row = (gsize) wt->dims[1] * rt_dtype_size (wt->dtype);
  for (gint64 i = 0; i < ind->numel; i++)
    {
      gint64 r = rt_get_i64 (ind, i);
      if (r < 0 || r >= wt->dims[0])
        {
          rt_call_error (call, error, RT_ERROR_INPUT, "index %" G_GINT64_FORMAT " is out of range [0, %"
                         G_GINT64_FORMAT ")", r, wt->dims[0]);
          return FALSE;
        }
      memcpy ((char *) o->data + i * (gint64) row, (const char *) wt->data + r * (gint64) row, row);
    }
  return TRUE;
}

/* softmax / log_softmax(self, dim, ScalarType? dtype) */
static gboolean
softmax (RtCall *call, gboolean log, GError **error)
{
  const RtTensor *a = aten_arg (call, 0);
  RtTensor conv;
  if (aten_arg (call, 2))
    {
      /* dtype: 6 float, 7 double (c10::ScalarType). */
      gint64 code = aten_i (call, 2, 6);
      GraphDType dt = code == 7 ? GRAPH_DTYPE_DOUBLE : GRAPH_DTYPE_FLOAT;
      if (code != 6 && code != 7)
        {
          rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "dtype code %" G_GINT64_FORMAT, code);
          return FALSE;
        }
      conv = *a;
      conv.dtype = dt;
      conv.data = rt_call_scratch_n (call, 1, (gsize) MAX (a->numel, 1) * rt_dtype_size (dt), error);
      if (conv.data == NULL || !rt_convert (a->data, a->dtype, conv.data, dt, a->numel))
        return FALSE;
      a = &conv;
    }
  if (!aten_is_float (a))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "needs a float or double input");
      return FALSE;
    }
  guint ax;
  if (!rt_axis (call, aten_i (call, 1, -1), MAX (a->rank, 1), &ax, error))
    return FALSE;
  return rt_softmax (call, a, a->rank ? ax : 0, log, error);
}

static gboolean a_softmax (RtCall *c, GError **e) { return softmax (c, FALSE, e); }
static gboolean a_log_softmax (RtCall *c, GError **e) { return softmax (c, TRUE, e); }


static const RtKernelDef defs[] = {
  RT_ATEN_ROW ("batch_norm", 1, 9, a_batch_norm),
  RT_ATEN_ROW ("dropout", 1, 3, a_dropout),
  RT_ATEN_ROW ("dropout_", 1, 3, a_dropout),
  RT_ATEN_ROW ("feature_dropout", 1, 3, a_dropout),
  RT_ATEN_ROW ("alpha_dropout", 1, 3, a_dropout),
  RT_ATEN_ROW ("embedding", 2, 5, a_embedding),
  RT_ATEN_ROW ("softmax", 2, 3, a_softmax),
  RT_ATEN_ROW ("log_softmax", 2, 3, a_log_softmax),
};

RT_KERNEL_TABLE (rt_kernels_aten_nn, defs);
