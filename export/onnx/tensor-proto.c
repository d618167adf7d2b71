/* ONNX TensorProto <-> Tensor, and TensorProto .pb files. */
#include "export/onnx/onnxio-private.h"

#include <string.h>

#define TENSOR_ERROR(code, ...) \
  (g_set_error (error, ONNXIO_ERROR, (code), __VA_ARGS__), (Tensor *) NULL)

static char *
shape_string (guint rank, const gint64 *dims)
{
  GString *s = g_string_new ("[");
  for (guint i = 0; i < rank; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* Narrows int32_data (ONNX stores int8/16, uint8/16, bool, float16 and
 * bfloat16 there, one element per value) to the element size. */
static GBytes *
bytes_from_int32_data (const int32_t *v, gsize n, gsize elem_size)
{
  guint8 *out = g_malloc (MAX (n * elem_size, 1));
  for (gsize i = 0; i < n; i++)
    {
      guint32 u = (guint32) v[i];
      switch (elem_size)
        {
        case 1: out[i] = (guint8) u; break;
        case 2: { guint16 h = (guint16) u; memcpy (out + 2 * i, &h, 2); } break;
        default: memcpy (out + 4 * i, &u, 4); break;
        }
    }
  return g_bytes_new_take (out, n * elem_size);
}

static GBytes *
bytes_from_uint64_data (const uint64_t *v, gsize n, gsize elem_size)
{
  guint8 *out = g_malloc (MAX (n * elem_size, 1));
  for (gsize i = 0; i < n; i++)
    {
      if (elem_size == 4)
        {
          guint32 u = (guint32) v[i];
          memcpy (out + 4 * i, &u, 4);
        }
      else
        memcpy (out + 8 * i, &v[i], 8);
    }
  return g_bytes_new_take (out, n * elem_size);
}

Tensor *
onnxio_tensor_from_proto (Onnx__TensorProto *tp, OnnxioExternal *ext,
                          const char *display, const char *what, GError **error)
{
  if (!tp->has_data_type || tp->data_type == GRAPH_DTYPE_UNDEFINED)
    return TENSOR_ERROR (ONNXIO_ERROR_PARSE, "%s: %s: TensorProto.data_type is not set",
                         display, what);
  if (!graph_dtype_is_valid (tp->data_type))
    return TENSOR_ERROR (ONNXIO_ERROR_UNSUPPORTED,
                         "%s: %s: TensorProto.data_type %d is not a known data type",
                         display, what, (int) tp->data_type);
  if (tp->segment != NULL)
    return TENSOR_ERROR (ONNXIO_ERROR_UNSUPPORTED,
                         "%s: %s: TensorProto.segment (chunked tensors) is not supported",
                         display, what);
  if (tp->n_dims > TENSOR_MAX_RANK)
    return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                         "%s: %s: TensorProto.dims has %" G_GSIZE_FORMAT " entries (at most %d)",
                         display, what, tp->n_dims, TENSOR_MAX_RANK);
  GraphDType dtype = (GraphDType) tp->data_type;
  guint rank = (guint) tp->n_dims;
  const gint64 *dims = (const gint64 *) tp->dims;
  for (guint i = 0; i < rank; i++)
    if (dims[i] < 0)
      return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                           "%s: %s: TensorProto.dims[%u] is negative (%" G_GINT64_FORMAT ")",
                           display, what, i, dims[i]);
  gint64 numel;
  gsize nbytes = 0;
  if (!tensor_shape_numel (rank, dims, &numel)
      || (dtype != GRAPH_DTYPE_STRING && !tensor_shape_nbytes (dtype, rank, dims, &nbytes)))
    {
      g_autofree char *s = shape_string (rank, dims);
      return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                           "%s: %s: TensorProto.dims %s overflows the element count",
                           display, what, s);
    }

  /* One source of values: a tensor with two (raw_data and float_data, say)
   * is ambiguous, and readers disagree on which wins. */
  const struct { const char *name; gboolean set; } fields[] = {
    { "raw_data", tp->has_raw_data }, { "float_data", tp->n_float_data > 0 },
    { "int32_data", tp->n_int32_data > 0 }, { "string_data", tp->n_string_data > 0 },
    { "int64_data", tp->n_int64_data > 0 }, { "double_data", tp->n_double_data > 0 },
    { "uint64_data", tp->n_uint64_data > 0 },
    { "external data", tp->has_data_location
                         && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL },
  };
  const char *first_field = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    if (fields[i].set && first_field == NULL)
      first_field = fields[i].name;
    else if (fields[i].set)
      return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                           "%s: %s: TensorProto has both %s and %s; a tensor's values must come "
                           "from one field", display, what, first_field, fields[i].name);

  g_autoptr(GBytes) data = NULL;
  const char *field = NULL;
  gsize count = 0, need = (gsize) numel;

  if (tp->has_data_location
      && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    {
      if (dtype == GRAPH_DTYPE_STRING)
        return TENSOR_ERROR (ONNXIO_ERROR_UNSUPPORTED,
                             "%s: %s: external data for a string tensor is not supported",
                             display, what);
      data = onnxio_external_read (ext, tp, nbytes, display, what, error);
      if (data == NULL)
        return NULL;
    }
  else if (dtype == GRAPH_DTYPE_STRING)
    {
      if (tp->n_string_data != need)
        {
          g_autofree char *s = shape_string (rank, dims);
          return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                               "%s: %s: TensorProto.string_data has %" G_GSIZE_FORMAT
                               " values, shape %s needs %" G_GSIZE_FORMAT,
                               display, what, tp->n_string_data, s, need);
        }
      g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
      for (gsize i = 0; i < need; i++)
        g_ptr_array_add (strings, g_bytes_new (tp->string_data[i].data, tp->string_data[i].len));
      return tensor_new_strings (rank, dims, (GBytes *const *) strings->pdata, error);
    }
  else if (tp->has_raw_data)
    {
      if (tp->raw_data.len != nbytes)
        {
          g_autofree char *s = shape_string (rank, dims);
          return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                               "%s: %s: TensorProto.raw_data has %" G_GSIZE_FORMAT
                               " bytes, %s %s needs %" G_GSIZE_FORMAT,
                               display, what, tp->raw_data.len, graph_dtype_name (dtype),
                               s, nbytes);
        }
      /* Take protobuf-c's copy (allocated with g_try_malloc) instead of
       * copying it again. */
      data = tp->raw_data.data != NULL
        ? g_bytes_new_take (tp->raw_data.data, tp->raw_data.len)
        : g_bytes_new (NULL, 0);
      tp->raw_data.data = NULL;
      tp->raw_data.len = 0;
      tp->has_raw_data = FALSE;
    }
  else
    {
      gsize esize = graph_dtype_size (dtype);
      switch (dtype)
        {
        case GRAPH_DTYPE_FLOAT:
        case GRAPH_DTYPE_COMPLEX64:
          field = "float_data";
          count = tp->n_float_data;
          need = nbytes / 4;
          if (count == need)
            data = g_bytes_new (tp->float_data, nbytes);
          break;
        case GRAPH_DTYPE_DOUBLE:
        case GRAPH_DTYPE_COMPLEX128:
          field = "double_data";
          count = tp->n_double_data;
          need = nbytes / 8;
          if (count == need)
            data = g_bytes_new (tp->double_data, nbytes);
          break;
        case GRAPH_DTYPE_INT64:
          field = "int64_data";
          count = tp->n_int64_data;
          if (count == need)
            data = g_bytes_new (tp->int64_data, nbytes);
          break;
        case GRAPH_DTYPE_UINT32:
        case GRAPH_DTYPE_UINT64:
          field = "uint64_data";
          count = tp->n_uint64_data;
          if (count == need)
            data = bytes_from_uint64_data (tp->uint64_data, count, esize);
          break;
        default:   /* int8/16/32, uint8/16, bool, float16, bfloat16 */
          field = "int32_data";
          count = tp->n_int32_data;
          if (count == need)
            data = bytes_from_int32_data (tp->int32_data, count, esize);
          break;
        }
      if (data == NULL)
        {
          g_autofree char *s = shape_string (rank, dims);
          if (count == 0)
            return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                                 "%s: %s: TensorProto has no data (neither raw_data nor %s) for %s %s",
                                 display, what, field, graph_dtype_name (dtype), s);
          return TENSOR_ERROR (ONNXIO_ERROR_PARSE,
                               "%s: %s: TensorProto.%s has %" G_GSIZE_FORMAT
                               " values, %s %s needs %" G_GSIZE_FORMAT,
                               display, what, field, count, graph_dtype_name (dtype), s, need);
        }
    }

  Tensor *t = tensor_new (dtype, rank, dims, data, error);
  if (t == NULL)
    g_prefix_error (error, "%s: %s: ", display, what);
  return t;
}

gboolean
onnxio_tensor_to_proto (const Tensor *t, const char *name, Onnx__TensorProto *tp,
                        OnnxioPool *pool, GHashTable *deferred, const char *what,
                        GError **error)
{
  onnx__tensor_proto__init (tp);
  tp->name = onnxio_pb_str (name);
  GraphDType dtype = tensor_dtype (t);
  if (dtype == GRAPH_DTYPE_UNDEFINED)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID,
                   "%s: tensor of undefined element type", what);
      return FALSE;
    }
  ONNXIO_PB_SET_INT32 (tp, data_type, dtype);
  tp->n_dims = tensor_rank (t);
  tp->dims = (int64_t *) tensor_dims (t);
  gint64 numel = tensor_numel (t);
  if (dtype == GRAPH_DTYPE_STRING)
    {
      tp->n_string_data = (gsize) numel;
      tp->string_data = onnxio_pool_new0 (pool, ProtobufCBinaryData, numel);
      for (gint64 i = 0; i < numel; i++)
        {
          GBytes *s = tensor_string (t, i);
          gsize len = 0;
          const guint8 *d = s != NULL ? g_bytes_get_data (s, &len) : NULL;
          tp->string_data[i].data = (uint8_t *) d;
          tp->string_data[i].len = len;
        }
      return TRUE;
    }
  if (!tensor_has_data (t))
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID,
                   "%s: the tensor's data is unknown, it cannot be written", what);
      return FALSE;
    }
  if (deferred != NULL && tensor_is_deferred (t) && tensor_nbytes (t) > 0)
    {
      g_hash_table_add (deferred, (gpointer) t);
      ONNXIO_PB_SET_BYTES (tp, raw_data, (const void *) t, tensor_nbytes (t));
      return TRUE;
    }
  /* Empty tensors too get an (empty) raw_data, as numpy_helper writes them. */
  ONNXIO_PB_SET_BYTES (tp, raw_data, tensor_data (t), tensor_nbytes (t));
  return TRUE;
}

/* ---- .pb files */

Tensor *
onnxio_tensor_load_from_data (const guint8 *data, gsize len, const char *display,
                              char **name, GError **error)
{
  if (display == NULL)
    display = "<memory>";
  if (name != NULL)
    *name = NULL;
  if (!onnxio_wire_check (data, len, &onnx__tensor_proto__descriptor, display, error))
    return NULL;
  Onnx__TensorProto *tp = onnx__tensor_proto__unpack (&onnxio_pb_allocator, len, data);
  if (tp == NULL)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                   "%s: not a valid TensorProto (protobuf-c could not unpack it)", display);
      return NULL;
    }
  Tensor *t = onnxio_tensor_from_proto (tp, NULL, display, "tensor", error);
  if (t != NULL && name != NULL && tp->name != NULL && *tp->name != '\0')
    *name = g_strdup (tp->name);
  onnx__tensor_proto__free_unpacked (tp, &onnxio_pb_allocator);
  return t;
}

Tensor *
onnxio_tensor_load (const char *path, char **name, GError **error)
{
  GError *local = NULL;
  g_autoptr(GMappedFile) mf = g_mapped_file_new (path, FALSE, &local);
  if (mf == NULL)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO, "%s", local->message);
      g_error_free (local);
      return NULL;
    }
  return onnxio_tensor_load_from_data ((const guint8 *) g_mapped_file_get_contents (mf),
                                       g_mapped_file_get_length (mf), path, name, error);
}

gboolean
onnxio_tensor_save (const Tensor *t, const char *name, const char *path,
                    GError **error)
{
  g_return_val_if_fail (t != NULL && path != NULL, FALSE);
  OnnxioPool pool;
  Onnx__TensorProto tp;
  gboolean ok = FALSE;
  g_autofree char *what = g_strdup_printf ("%s: TensorProto", path);

  onnxio_pool_init (&pool);
  if (onnxio_tensor_to_proto (t, name, &tp, &pool, NULL, what, error))
    {
      OnnxioSink *sink = onnxio_sink_open (path, tensor_nbytes (t), error);
      if (sink != NULL)
        {
          onnx__tensor_proto__pack_to_buffer (&tp, onnxio_sink_buffer (sink));
          ok = onnxio_sink_finish (sink, error);
          onnxio_sink_free (sink);
        }
    }
  onnxio_pool_clear (&pool);
  return ok;
}
