/* Deferred tensors: shape and element type now, bytes computed when first
 * needed.  Export uses them for weights it derives (Conv+BatchNorm fusion)
 * so the ONNX writer can stream them to the file in pieces instead of
 * holding a second copy of the model's weights. */
#include "ir/graph-private.h"
#include <string.h>

/* The payload pointer, read atomically (set once by tensor_payload). */
static GBytes *
payload_get (const Tensor *t)
{
  Tensor *mut = (Tensor *) t;
  return g_atomic_pointer_get (&mut->data);
}

Tensor *
tensor_new_deferred (GraphDType dtype, guint rank, const gint64 *dims, TensorFillFunc fill,
                     gpointer user_data, GDestroyNotify destroy, GError **error)
{
  g_return_val_if_fail (fill != NULL, NULL);
  gsize nbytes;
  Tensor *t = NULL;
  if (dtype == GRAPH_DTYPE_STRING || dtype == GRAPH_DTYPE_UNDEFINED
      || !graph_dtype_is_valid (dtype))
    g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                 "a deferred tensor needs a numeric element type, not %s",
                 graph_dtype_is_valid (dtype) ? graph_dtype_name (dtype) : "an unknown one");
  else if (!tensor_shape_nbytes (dtype, rank, dims, &nbytes))
    g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                 "tensor shape has a negative dimension or too many elements");
  else
    t = tensor_alloc (dtype, rank, dims, error);
  if (t == NULL)
    {
      if (destroy)
        destroy (user_data);
      return NULL;
    }
  t->fill = fill;
  t->fill_data = user_data;
  t->fill_destroy = destroy;
  return t;
}

gboolean
tensor_is_deferred (const Tensor *t)
{
  return t->fill != NULL && payload_get (t) == NULL;
}

GBytes *
tensor_payload (const Tensor *t)
{
  GBytes *data = payload_get (t);
  if (data != NULL || t->fill == NULL)
    return data;
  gsize nbytes = tensor_nbytes (t);
  guint8 *buf = g_malloc (nbytes ? nbytes : 1);
  t->fill (t->fill_data, 0, t->numel, buf);
  GBytes *made = g_bytes_new_take (buf, nbytes);
  /* Two threads may race to compute it: the first one's bytes are kept. */
  Tensor *mut = (Tensor *) t;
  if (!g_atomic_pointer_compare_and_exchange (&mut->data, NULL, made))
    g_bytes_unref (made);
  return payload_get (t);
}

void
tensor_fill (const Tensor *t, gint64 first, gint64 count, gpointer dst)
{
  g_return_if_fail (first >= 0 && count >= 0 && first <= t->numel && count <= t->numel - first);
  GBytes *data = payload_get (t);
  gsize size = graph_dtype_size (t->dtype);
  if (data != NULL)
    memcpy (dst, (const guint8 *) g_bytes_get_data (data, NULL) + first * size, count * size);
  else if (t->fill != NULL)
    t->fill (t->fill_data, first, count, dst);
  else
    g_return_if_reached ();
}
