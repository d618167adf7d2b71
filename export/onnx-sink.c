/* Atomic, streamed file output: a temporary file in the target folder that
 * protobuf-c packs into as it goes, renamed over the target at the end. */
#include "export/onnxio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SINK_BUFFER_SIZE (1u << 20)

struct _OnnxioSink
{
  ProtobufCBuffer base;     /* first: protobuf-c calls base.append */
  OnnxioSink *self;
  char *path;
  char *tmp_path;
  int fd;
  guint8 *buf;
  gsize buf_len;
  guint64 offset;           /* bytes accepted so far */
  int write_errno;          /* first write error, 0 if none */
  gboolean finished;
  GHashTable *deferred;     /* placeholder Tensors to stream (not owned) */
};

/* The mode a plain open(O_CREAT, 0666) would give: mkstemp uses 0600. */
static mode_t
default_file_mode (void)
{
  g_autofree char *status = NULL;
  mode_t mask = 022;
  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    {
      const char *u = strstr (status, "\nUmask:");
      if (u != NULL)
        mask = (mode_t) strtoul (u + 7, NULL, 8) & 0777;
    }
  return 0666 & ~mask;
}

static gboolean
write_all (OnnxioSink *s, const guint8 *data, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (s->fd, data, MIN (len, (gsize) 1 << 30));
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          s->write_errno = errno;
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

/* Maps the pages of [data, data + len) before write() copies them.  A
 * payload is often a freshly mapped weights file: write() copying from it
 * faults the pages in one by one on a slow path (AlexNet's 233 MiB took
 * 157 ms instead of 62 ms); MADV_POPULATE_READ maps them at once.  Best
 * effort: a no-op for memory already mapped, EINVAL before Linux 5.14. */
static void
populate (const void *data, gsize len)
{
#ifdef MADV_POPULATE_READ
  static gsize page;
  if (page == 0)
    page = (gsize) sysconf (_SC_PAGESIZE);
  guintptr start = (guintptr) data & ~(guintptr) (page - 1);
  (void) madvise ((void *) start, (guintptr) data + len - start, MADV_POPULATE_READ);
#else
  (void) data;
  (void) len;
#endif
}

static gboolean
flush (OnnxioSink *s)
{
  gboolean ok = s->write_errno == 0 && write_all (s, s->buf, s->buf_len);
  s->buf_len = 0;
  return ok;
}

/* A deferred tensor's bytes, computed a buffer at a time straight into
 * the sink's buffer: never held whole.  Each piece starts at the start of
 * the (malloc-aligned) buffer, as tensor_fill wants its elements aligned:
 * what is pending (the field's tag and length) is flushed first. */
static void
stream_deferred (OnnxioSink *s, const Tensor *t)
{
  gsize size = graph_dtype_size (tensor_dtype (t));
  gint64 numel = tensor_numel (t), per_chunk = (gint64) (SINK_BUFFER_SIZE / size);
  for (gint64 first = 0; first < numel; first += per_chunk)
    {
      gint64 n = MIN (per_chunk, numel - first);
      if ((s->buf_len > 0 && !flush (s)) || s->write_errno != 0)
        return;
      tensor_fill (t, first, n, s->buf);
      s->buf_len = (gsize) n * size;
    }
}

void
onnxio_sink_set_deferred (OnnxioSink *s, GHashTable *deferred)
{
  s->deferred = deferred;
}

void
onnxio_sink_write (OnnxioSink *s, const void *data, gsize len)
{
  s->offset += len;
  if (s->write_errno != 0 || len == 0)
    return;
  if (s->deferred != NULL && g_hash_table_contains (s->deferred, data))
    {
      g_return_if_fail (len == tensor_nbytes (data));
      stream_deferred (s, data);
      return;
    }
  if (s->buf_len + len <= SINK_BUFFER_SIZE)
    {
      memcpy (s->buf + s->buf_len, data, len);
      s->buf_len += len;
      return;
    }
  if (!flush (s))
    return;
  if (len >= SINK_BUFFER_SIZE / 2)
    {
      /* Tensor payloads: straight to the file. */
      populate (data, len);
      write_all (s, data, len);
    }
  else
    {
      memcpy (s->buf, data, len);
      s->buf_len = len;
    }
}

static void
sink_append (ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
  OnnxioSink *s = ((OnnxioSink *) buffer)->self;
  onnxio_sink_write (s, data, len);
}

OnnxioSink *
onnxio_sink_open (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmpl = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  int fd = mkostemp (tmpl, O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO,
                   "%s: cannot create a temporary file in %s: %s",
                   path, dir, g_strerror (e));
      return NULL;
    }
  if (fchmod (fd, default_file_mode ()) != 0)
    { /* not fatal: the file just keeps mode 0600 */ }

  OnnxioSink *s = g_new0 (OnnxioSink, 1);
  s->base.append = sink_append;
  s->self = s;
  s->path = g_strdup (path);
  s->tmp_path = g_steal_pointer (&tmpl);
  s->fd = fd;
  s->buf = g_malloc (SINK_BUFFER_SIZE);
  return s;
}

ProtobufCBuffer *
onnxio_sink_buffer (OnnxioSink *s)
{
  return &s->base;
}

guint64
onnxio_sink_offset (OnnxioSink *s)
{
  return s->offset;
}

gboolean
onnxio_sink_finish (OnnxioSink *s, GError **error)
{
  g_return_val_if_fail (!s->finished, FALSE);
  flush (s);
  if (s->write_errno != 0)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO,
                   "%s: write failed: %s", s->path, g_strerror (s->write_errno));
      return FALSE;
    }
  int fd = s->fd;
  s->fd = -1;
  if (close (fd) != 0)
    {
      int e = errno;
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO,
                   "%s: write failed: %s", s->path, g_strerror (e));
      return FALSE;
    }
  if (rename (s->tmp_path, s->path) != 0)
    {
      int e = errno;
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO,
                   "%s: cannot rename %s into place: %s", s->path, s->tmp_path,
                   g_strerror (e));
      return FALSE;
    }
  s->finished = TRUE;
  return TRUE;
}

void
onnxio_sink_free (OnnxioSink *s)
{
  if (s == NULL)
    return;
  if (s->fd >= 0)
    close (s->fd);
  if (!s->finished)
    unlink (s->tmp_path);
  g_free (s->buf);
  g_free (s->path);
  g_free (s->tmp_path);
  g_free (s);
}
