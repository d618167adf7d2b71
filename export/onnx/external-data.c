/* External tensor data: reading with paths confined to the model's folder,
 * writing one "<model>.data" file next to the model. */
#include "export/onnx/onnxio-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Offsets of tensors in the data file are aligned to this, so a reader can
 * use them in place (and our own reader does). */
#define EXTERNAL_ALIGN 64

struct _OnnxioExternal
{
  char *base_dir;
  char *base_real;      /* realpath of base_dir, NULL until needed */
  GHashTable *files;    /* real path → GBytes of the mapped file */
};

OnnxioExternal *
onnxio_external_new (const char *base_dir)
{
  OnnxioExternal *ext = g_new0 (OnnxioExternal, 1);
  ext->base_dir = g_strdup (base_dir);
  ext->files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) g_bytes_unref);
  return ext;
}

void
onnxio_external_free (OnnxioExternal *ext)
{
  if (ext == NULL)
    return;
  g_free (ext->base_dir);
  g_free (ext->base_real);
  g_hash_table_unref (ext->files);
  g_free (ext);
}

#define EXT_ERROR(...) \
  (g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_EXTERNAL_DATA, __VA_ARGS__), (GBytes *) NULL)

static gboolean
parse_size (const char *s, guint64 *out)
{
  return s != NULL && g_ascii_string_to_unsigned (s, 10, 0, G_MAXINT64, out, NULL);
}

/* A relative path with no ".." component (both separators, as onnx's own
 * checker treats them).  Works on bytes: the location comes off the wire
 * and need not be UTF-8 (the caller refuses that separately). */
static gboolean
location_is_confined (const char *location)
{
  if (*location == '\0' || g_path_is_absolute (location) || location[0] == '\\')
    return FALSE;
  for (const char *p = location; *p != '\0';)
    {
      gsize len = strcspn (p, "/\\");
      if (len == 2 && p[0] == '.' && p[1] == '.')
        return FALSE;
      p += len;
      if (*p != '\0')
        p++;
    }
  return TRUE;
}

GBytes *
onnxio_external_read (OnnxioExternal *ext, Onnx__TensorProto *tp, gsize expected,
                      const char *display, const char *what, GError **error)
{
  const char *location = NULL, *offset_s = NULL, *length_s = NULL;
  for (gsize i = 0; i < tp->n_external_data; i++)
    {
      const Onnx__StringStringEntryProto *e = tp->external_data[i];
      const char *key = onnxio_str_or_empty (e->key);
      if (strcmp (key, "location") == 0)
        location = e->value;
      else if (strcmp (key, "offset") == 0)
        offset_s = e->value;
      else if (strcmp (key, "length") == 0)
        length_s = e->value;
    }
  if (location == NULL || *location == '\0')
    return EXT_ERROR ("%s: %s: external data without a \"location\" entry", display, what);
  if (!g_utf8_validate (location, -1, NULL))
    return EXT_ERROR ("%s: %s: external data location is not valid UTF-8", display, what);
  if (ext == NULL || ext->base_dir == NULL)
    return EXT_ERROR ("%s: %s: refers to external data \"%s\", but the model was not "
                      "loaded from a folder (no base directory to resolve it in)",
                      display, what, location);
  if (!location_is_confined (location))
    return EXT_ERROR ("%s: %s: external data location \"%s\" is outside the model's folder "
                      "(absolute paths and \"..\" are refused)", display, what, location);

  guint64 offset = 0, length = expected;
  if (offset_s != NULL && !parse_size (offset_s, &offset))
    return EXT_ERROR ("%s: %s: external data offset \"%s\" is not a valid size",
                      display, what, offset_s);
  if (length_s != NULL && !parse_size (length_s, &length))
    return EXT_ERROR ("%s: %s: external data length \"%s\" is not a valid size",
                      display, what, length_s);
  if (length != expected)
    return EXT_ERROR ("%s: %s: external data length %" G_GUINT64_FORMAT
                      " does not match the shape's %" G_GSIZE_FORMAT " bytes",
                      display, what, length, expected);

  if (ext->base_real == NULL)
    {
      ext->base_real = realpath (ext->base_dir, NULL);
      if (ext->base_real == NULL)
        {
          int e = errno;
          return EXT_ERROR ("%s: %s: cannot resolve the model folder %s: %s",
                            display, what, ext->base_dir, g_strerror (e));
        }
    }
  g_autofree char *full = g_build_filename (ext->base_dir, location, NULL);
  g_autofree char *real = realpath (full, NULL);
  if (real == NULL)
    {
      int e = errno;
      return EXT_ERROR ("%s: %s: external data file %s: %s", display, what, full,
                        g_strerror (e));
    }
  gsize blen = strlen (ext->base_real);
  gboolean root = strcmp (ext->base_real, "/") == 0;
  if (!root && (strncmp (real, ext->base_real, blen) != 0 || real[blen] != '/'))
    return EXT_ERROR ("%s: %s: external data location \"%s\" resolves to %s, outside "
                      "the model's folder %s (symbolic link?)",
                      display, what, location, real, ext->base_real);

  GBytes *file = g_hash_table_lookup (ext->files, real);
  if (file == NULL)
    {
      GError *local = NULL;
      GMappedFile *mf = g_mapped_file_new (real, FALSE, &local);
      if (mf == NULL)
        {
          g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_EXTERNAL_DATA, "%s: %s: %s",
                       display, what, local->message);
          g_error_free (local);
          return NULL;
        }
      file = g_mapped_file_get_bytes (mf);
      g_mapped_file_unref (mf);
      g_hash_table_insert (ext->files, g_strdup (real), file);
    }
  gsize size = g_bytes_get_size (file);
  if (offset > size || length > size - offset)
    return EXT_ERROR ("%s: %s: external data [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT
                      ") runs past the end of %s (%" G_GSIZE_FORMAT " bytes)",
                      display, what, offset, length, location, size);
  if (offset % 16 == 0)
    return g_bytes_new_from_bytes (file, offset, length);   /* a view, no copy */
  /* Misaligned for the element type: copy so kernels get aligned data. */
  return g_bytes_new ((const guint8 *) g_bytes_get_data (file, NULL) + offset, length);
}

/* ---- writer */

struct _OnnxioExternalWriter
{
  OnnxioSink *sink;
  char *location;
};

OnnxioExternalWriter *
onnxio_external_writer_new (const char *model_path, GHashTable *deferred, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (model_path);
  g_autofree char *base = g_path_get_basename (model_path);
  g_autofree char *location = g_strconcat (base, ".data", NULL);
  g_autofree char *path = g_build_filename (dir, location, NULL);
  OnnxioSink *sink = onnxio_sink_open (path, G_MAXUINT64, error);   /* large by definition */
  if (sink == NULL)
    return NULL;
  onnxio_sink_set_deferred (sink, deferred);
  OnnxioExternalWriter *w = g_new0 (OnnxioExternalWriter, 1);
  w->sink = sink;
  w->location = g_steal_pointer (&location);
  return w;
}

static Onnx__StringStringEntryProto *
entry (OnnxioPool *pool, const char *key, char *value)
{
  Onnx__StringStringEntryProto *e = onnxio_pool_new0 (pool, Onnx__StringStringEntryProto, 1);
  onnx__string_string_entry_proto__init (e);
  e->key = (char *) key;
  e->value = value;
  return e;
}

gboolean
onnxio_external_writer_add (OnnxioExternalWriter *w, Onnx__TensorProto *tp,
                            OnnxioPool *pool, GError **error)
{
  static const guint8 zeros[EXTERNAL_ALIGN];
  (void) error;
  guint64 off = onnxio_sink_offset (w->sink);
  if (off % EXTERNAL_ALIGN != 0)
    {
      gsize pad = EXTERNAL_ALIGN - off % EXTERNAL_ALIGN;
      onnxio_sink_write (w->sink, zeros, pad);
      off += pad;
    }
  gsize len = tp->has_raw_data ? tp->raw_data.len : 0;
  if (len > 0)
    onnxio_sink_write (w->sink, tp->raw_data.data, len);
  tp->has_raw_data = FALSE;
  tp->raw_data.data = NULL;
  tp->raw_data.len = 0;
  ONNXIO_PB_SET_ENUM (tp, data_location, ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
  tp->n_external_data = 3;
  tp->external_data = onnxio_pool_new0 (pool, Onnx__StringStringEntryProto *, 3);
  tp->external_data[0] = entry (pool, "location", w->location);
  tp->external_data[1] = entry (pool, "offset",
                                onnxio_pool_take (pool, g_strdup_printf ("%" G_GUINT64_FORMAT, off)));
  tp->external_data[2] = entry (pool, "length",
                                onnxio_pool_take (pool, g_strdup_printf ("%" G_GSIZE_FORMAT, len)));
  return TRUE;
}

gboolean
onnxio_external_writer_commit (OnnxioExternalWriter *w, GError **error)
{
  return onnxio_sink_finish (w->sink, error);
}

void
onnxio_external_writer_free (OnnxioExternalWriter *w)
{
  if (w == NULL)
    return;
  onnxio_sink_free (w->sink);
  g_free (w->location);
  g_free (w);
}
