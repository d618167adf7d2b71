/* Tensor: element type, shape and a refcounted GBytes payload. */
#include "ir/graph-private.h"
#include <string.h>

gboolean
tensor_shape_numel (guint rank, const gint64 *dims, gint64 *numel)
{
  gint64 n = 1;
  if (rank > TENSOR_MAX_RANK)
    return FALSE;
  for (guint i = 0; i < rank; i++)
    {
      if (dims[i] < 0)
        return FALSE;
      if (dims[i] != 0 && n > G_MAXINT64 / dims[i])
        return FALSE;
      n *= dims[i];
    }
  *numel = n;
  return TRUE;
}

gboolean
tensor_shape_nbytes (GraphDType dtype, guint rank, const gint64 *dims, gsize *nbytes)
{
  gint64 numel;
  gsize size = graph_dtype_is_valid (dtype) ? graph_dtype_size (dtype) : 0;
  if (!tensor_shape_numel (rank, dims, &numel))
    return FALSE;
  if (size != 0 && (guint64) numel > G_MAXSIZE / size)
    return FALSE;
  if (size != 0 && (guint64) numel * size > (guint64) G_MAXINT64)
    return FALSE;
  *nbytes = (gsize) numel * size;
  return TRUE;
}

Tensor *
tensor_alloc (GraphDType dtype, guint rank, const gint64 *dims, GError **error)
{
  gint64 numel;
  if (!graph_dtype_is_valid (dtype))
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR, "unknown element type %d", (int) dtype);
      return NULL;
    }
  if (rank > TENSOR_MAX_RANK)
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                   "tensor rank %u exceeds the limit of %d", rank, TENSOR_MAX_RANK);
      return NULL;
    }
  if (!tensor_shape_numel (rank, dims, &numel))
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                   "tensor shape has a negative dimension or too many elements");
      return NULL;
    }
  Tensor *t = g_new0 (Tensor, 1);
  t->ref = 1;
  t->dtype = dtype;
  t->rank = rank;
  t->dims = rank ? g_memdup2 (dims, rank * sizeof (gint64)) : NULL;
  t->numel = numel;
  return t;
}

Tensor *
tensor_new (GraphDType dtype, guint rank, const gint64 *dims, GBytes *data, GError **error)
{
  gsize nbytes;
  if (dtype == GRAPH_DTYPE_STRING && data != NULL)
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                   "string tensors are made with tensor_new_strings()");
      return NULL;
    }
  if (dtype == GRAPH_DTYPE_UNDEFINED && data != NULL)
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                   "a tensor of undefined element type cannot hold data");
      return NULL;
    }
  Tensor *t = tensor_alloc (dtype, rank, dims, error);
  if (t == NULL)
    return NULL;
  if (data != NULL)
    {
      if (!tensor_shape_nbytes (dtype, rank, dims, &nbytes)
          || g_bytes_get_size (data) != nbytes)
        {
          g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                       "tensor data has %" G_GSIZE_FORMAT " bytes but its %s shape needs %"
                       G_GINT64_FORMAT " elements of %" G_GSIZE_FORMAT " bytes",
                       g_bytes_get_size (data), graph_dtype_name (dtype), t->numel,
                       graph_dtype_size (dtype));
          tensor_unref (t);
          return NULL;
        }
      t->data = g_bytes_ref (data);
    }
  return t;
}

Tensor *
tensor_new_zeroed (GraphDType dtype, guint rank, const gint64 *dims, GError **error)
{
  gsize nbytes;
  if (dtype == GRAPH_DTYPE_STRING)
    {
      gint64 numel;
      if (!tensor_shape_numel (rank, dims, &numel) || numel > (1 << 24))
        {
          g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR, "string tensor too large");
          return NULL;
        }
      g_autoptr (GBytes) empty = g_bytes_new_static ("", 0);
      g_autofree GBytes **strs = g_new (GBytes *, numel ? numel : 1);
      for (gint64 i = 0; i < numel; i++)
        strs[i] = empty;
      return tensor_new_strings (rank, dims, strs, error);
    }
  if (!tensor_shape_nbytes (dtype, rank, dims, &nbytes))
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                   "tensor shape has a negative dimension or too many elements");
      return NULL;
    }
  gpointer mem = g_try_malloc0 (nbytes ? nbytes : 1);
  if (mem == NULL)
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR,
                   "cannot allocate %" G_GSIZE_FORMAT " bytes for a tensor", nbytes);
      return NULL;
    }
  g_autoptr (GBytes) bytes = g_bytes_new_take (mem, nbytes);
  return tensor_new (dtype, rank, dims, bytes, error);
}

Tensor *
tensor_new_from_data (GraphDType dtype, guint rank, const gint64 *dims,
                      gconstpointer data, gsize nbytes, GError **error)
{
  g_autoptr (GBytes) bytes = g_bytes_new (data, nbytes);
  return tensor_new (dtype, rank, dims, bytes, error);
}

Tensor *
tensor_new_strings (guint rank, const gint64 *dims, GBytes *const *strings, GError **error)
{
  Tensor *t = tensor_alloc (GRAPH_DTYPE_STRING, rank, dims, error);
  if (t == NULL)
    return NULL;
  t->strings = g_new0 (GBytes *, t->numel ? t->numel : 1);
  for (gint64 i = 0; i < t->numel; i++)
    t->strings[i] = g_bytes_ref (strings[i]);
  return t;
}

/* Stores v into one element of dtype at p. */
static void
store_double (GraphDType dtype, gpointer p, double v)
{
  switch (dtype)
    {
#define STORE(E, T, conv) case GRAPH_DTYPE_##E: { T x = (T) conv (v); memcpy (p, &x, sizeof x); break; }
#define AS_IS(v) (v)
    STORE (FLOAT, float, AS_IS) STORE (DOUBLE, double, AS_IS)
    STORE (UINT8, guint8, graph_double_to_int32) STORE (INT8, gint8, graph_double_to_int32)
    STORE (UINT16, guint16, graph_double_to_int32) STORE (INT16, gint16, graph_double_to_int32)
    STORE (INT32, gint32, graph_double_to_int32) STORE (INT64, gint64, graph_double_to_int64)
    STORE (UINT32, guint32, graph_double_to_int64) STORE (UINT64, guint64, graph_double_to_uint64)
    STORE (FLOAT16, guint16, graph_float_to_half) STORE (BFLOAT16, guint16, graph_float_to_bfloat16)
#undef AS_IS
#undef STORE
    case GRAPH_DTYPE_BOOL: { guint8 x = v != 0; memcpy (p, &x, 1); break; }
    default:
      g_return_if_reached ();
    }
}

Tensor *
tensor_new_scalar_double (GraphDType dtype, double v)
{
  g_return_val_if_fail (graph_dtype_size (dtype) > 0, NULL);
  guint8 buf[16] = { 0 };
  store_double (dtype, buf, v);
  return tensor_new_from_data (dtype, 0, NULL, buf, graph_dtype_size (dtype), NULL);
}

Tensor *
tensor_new_scalar_int64 (GraphDType dtype, gint64 v)
{
  g_return_val_if_fail (graph_dtype_size (dtype) > 0, NULL);
  guint8 buf[16] = { 0 };
  if (dtype == GRAPH_DTYPE_INT64)
    memcpy (buf, &v, sizeof v);
  else
    store_double (dtype, buf, (double) v);
  return tensor_new_from_data (dtype, 0, NULL, buf, graph_dtype_size (dtype), NULL);
}

Tensor *
tensor_new_int64_vector (gsize n, const gint64 *v)
{
  gint64 dim = (gint64) n;
  return tensor_new_from_data (GRAPH_DTYPE_INT64, 1, &dim, v, n * sizeof (gint64), NULL);
}

Tensor *
tensor_ref (Tensor *t)
{
  g_return_val_if_fail (t != NULL, NULL);
  g_atomic_int_inc (&t->ref);
  return t;
}

void
tensor_unref (Tensor *t)
{
  if (t == NULL || !g_atomic_int_dec_and_test (&t->ref))
    return;
  if (t->strings)
    for (gint64 i = 0; i < t->numel; i++)
      g_bytes_unref (t->strings[i]);
  g_free (t->strings);
  if (t->data)
    g_bytes_unref (t->data);
  if (t->fill_destroy)
    t->fill_destroy (t->fill_data);
  g_free (t->dims);
  g_free (t->name);
  g_free (t);
}

const char *
tensor_get_name (const Tensor *t)
{
  return t->name;
}

void
tensor_set_name (Tensor *t, const char *name)
{
  g_free (t->name);
  t->name = g_strdup (name);
}

GraphDType tensor_dtype (const Tensor *t) { return t->dtype; }
guint tensor_rank (const Tensor *t) { return t->rank; }
const gint64 *tensor_dims (const Tensor *t) { return t->dims; }
gint64 tensor_numel (const Tensor *t) { return t->numel; }
gboolean tensor_has_data (const Tensor *t)
{
  return t->data != NULL || t->strings != NULL || t->fill != NULL;
}
GBytes *tensor_bytes (const Tensor *t) { return tensor_payload (t); }

gint64
tensor_dim (const Tensor *t, guint i)
{
  g_return_val_if_fail (i < t->rank, -1);
  return t->dims[i];
}

gsize
tensor_nbytes (const Tensor *t)
{
  return (gsize) t->numel * graph_dtype_size (t->dtype);
}

gconstpointer
tensor_data (const Tensor *t)
{
  GBytes *data = tensor_payload (t);
  return data ? g_bytes_get_data (data, NULL) : NULL;
}

GBytes *
tensor_string (const Tensor *t, gint64 i)
{
  g_return_val_if_fail (t->strings != NULL && i >= 0 && i < t->numel, NULL);
  return t->strings[i];
}

double
tensor_get_double (const Tensor *t, gint64 i)
{
  GBytes *data = tensor_payload (t);
  g_return_val_if_fail (data != NULL && i >= 0 && i < t->numel, 0);
  const guint8 *p = (const guint8 *) g_bytes_get_data (data, NULL) + i * graph_dtype_size (t->dtype);
  switch (t->dtype)
    {
#define LOAD(E, T) case GRAPH_DTYPE_##E: { T x; memcpy (&x, p, sizeof x); return (double) x; }
    LOAD (FLOAT, float) LOAD (DOUBLE, double) LOAD (UINT8, guint8) LOAD (INT8, gint8)
    LOAD (UINT16, guint16) LOAD (INT16, gint16) LOAD (INT32, gint32) LOAD (INT64, gint64)
    LOAD (UINT32, guint32) LOAD (UINT64, guint64) LOAD (BOOL, guint8)
    LOAD (COMPLEX64, float) LOAD (COMPLEX128, double)   /* real part */
#undef LOAD
    case GRAPH_DTYPE_FLOAT16: { guint16 h; memcpy (&h, p, 2); return graph_half_to_float (h); }
    case GRAPH_DTYPE_BFLOAT16: { guint16 h; memcpy (&h, p, 2); return graph_bfloat16_to_float (h); }
    default:
      g_return_val_if_reached (0);
    }
}

gint64
tensor_get_int64 (const Tensor *t, gint64 i)
{
  if (t->dtype == GRAPH_DTYPE_INT64 || t->dtype == GRAPH_DTYPE_UINT64)
    {
      GBytes *data = tensor_payload (t);
      g_return_val_if_fail (data != NULL && i >= 0 && i < t->numel, 0);
      gint64 x;
      memcpy (&x, (const guint8 *) g_bytes_get_data (data, NULL) + i * 8, 8);
      return x;
    }
  return (gint64) tensor_get_double (t, i);
}

gboolean
tensor_equal (const Tensor *a, const Tensor *b)
{
  if (a->dtype != b->dtype || a->rank != b->rank || a->numel != b->numel)
    return FALSE;
  if (a->rank && memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) != 0)
    return FALSE;
  GBytes *ad = tensor_payload (a), *bd = tensor_payload (b);
  if ((ad == NULL) != (bd == NULL) || (a->strings == NULL) != (b->strings == NULL))
    return FALSE;
  if (ad && !g_bytes_equal (ad, bd))
    return FALSE;
  if (a->strings)
    for (gint64 i = 0; i < a->numel; i++)
      if (!g_bytes_equal (a->strings[i], b->strings[i]))
        return FALSE;
  return TRUE;
}

Tensor *
tensor_cast (const Tensor *t, GraphDType to, GError **error)
{
  gint64 n = tensor_numel (t);
  gsize es = graph_dtype_size (to);
  if (!tensor_has_data (t) || es == 0 || tensor_dtype (t) == GRAPH_DTYPE_STRING)
    {
      g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR, "cannot convert a %s tensor to %s",
                   graph_dtype_name (tensor_dtype (t)), graph_dtype_name (to));
      return NULL;
    }
  g_autoptr (Tensor) out = tensor_new_zeroed (to, tensor_rank (t), tensor_dims (t), error);
  if (out == NULL)
    return NULL;
  guint8 *p = (guint8 *) tensor_data (out);
  for (gint64 i = 0; i < n; i++)
    {
      guint8 *e = p + (gsize) i * es;
      double d = tensor_get_double (t, i);
      /* total: NaN, ±Inf and out-of-range values as numpy (graph_double_to_int) */
      gint64 v = graph_dtype_is_floating (tensor_dtype (t)) ? graph_double_to_int (to, d)
                                                             : tensor_get_int64 (t, i);
      switch (to)
        {
        case GRAPH_DTYPE_FLOAT: { float f = (float) d; memcpy (e, &f, 4); break; }
        case GRAPH_DTYPE_DOUBLE: memcpy (e, &d, 8); break;
        case GRAPH_DTYPE_INT64: memcpy (e, &v, 8); break;
        case GRAPH_DTYPE_INT32: { gint32 x = (gint32) v; memcpy (e, &x, 4); break; }
        case GRAPH_DTYPE_INT16: { gint16 x = (gint16) v; memcpy (e, &x, 2); break; }
        case GRAPH_DTYPE_INT8: { gint8 x = (gint8) v; memcpy (e, &x, 1); break; }
        case GRAPH_DTYPE_UINT8: { guint8 x = (guint8) v; memcpy (e, &x, 1); break; }
        case GRAPH_DTYPE_BOOL: { guint8 x = d != 0; memcpy (e, &x, 1); break; }
        case GRAPH_DTYPE_FLOAT16:
          store_double (to, e, d);   /* rounded to nearest even, as ONNX's Cast */
          break;
        /* not bfloat16: ONNX 1.12's Cast tests (and our Cast kernel) truncate
         * to it where torch and later ONNX round; a Cast to it stays unfolded */
        default:
          g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR, "cannot convert constants to %s",
                       graph_dtype_name (to));
          return NULL;
        }
    }
  return g_steal_pointer (&out);
}
