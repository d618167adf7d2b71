/* Atomic, streamed file output: a temporary file in the target folder that
 * protobuf-c packs into as it goes, renamed over the target at the end.
 *
 * The write() calls run in a writer thread, fed in order through a queue:
 * while the kernel copies one buffer (or a weight payload) into the page
 * cache, the caller packs the next buffer or computes the next piece of a
 * deferred tensor (fused Conv weights).  Buffers cycle between the caller
 * and the writer through a second queue, so at most SINK_BUFFERS are ever
 * allocated; payloads passed straight through must stay alive until
 * onnxio_sink_finish/free returns (they belong to the graph being saved). */
#include "export/onnx/onnxio-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SINK_BUFFER_SIZE (1u << 20)
#define SINK_BUFFERS 3
/* Smaller outputs are written without the writer thread (starting and
 * joining one cost ~0.1 ms, a third of a small model's save). */
#define SINK_THREAD_MIN_BYTES (4u << 20)

/* One write for the writer thread: `len` bytes at `data`; `buffer` is the
 * sink buffer they are in (returned to the free queue once written), NULL
 * for a payload written in place; a job with no data ends the thread. */
typedef struct
{
  const guint8 *data;
  gsize len;
  guint8 *buffer;
} SinkJob;

struct _OnnxioSink
{
  ProtobufCBuffer base;     /* first: protobuf-c calls base.append */
  OnnxioSink *self;
  char *path;
  char *tmp_path;
  int fd;
  guint8 *buf;              /* the buffer being filled (the caller's) */
  gsize buf_len;
  guint64 offset;           /* bytes accepted so far */
  gint write_errno;         /* first write error, 0 if none (atomic) */
  gboolean finished;
  GHashTable *deferred;     /* placeholder Tensors to stream (not owned) */
  GThread *writer;          /* NULL once joined */
  GAsyncQueue *jobs;        /* SinkJob*, in file order (NULL: no writer) */
  GAsyncQueue *free_bufs;   /* guint8*, buffers the writer is done with */
  guint8 *bufs[SINK_BUFFERS];
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
failed (OnnxioSink *s)
{
  return g_atomic_int_get (&s->write_errno) != 0;
}

/* Writer thread only. */
static void
write_all (OnnxioSink *s, const guint8 *data, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (s->fd, data, MIN (len, (gsize) 1 << 30));
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          g_atomic_int_set (&s->write_errno, errno);
          return;
        }
      data += n;
      len -= (gsize) n;
    }
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

/* One write, in the writer thread or (without one) the caller's: a payload
 * written in place (no `buffer`) has its pages populated first. */
static void
write_job (OnnxioSink *s, const guint8 *data, gsize len, const guint8 *buffer)
{
  if (failed (s))
    return;
  if (buffer == NULL)
    populate (data, len);
  write_all (s, data, len);
}

static gpointer
writer_main (gpointer data)
{
  OnnxioSink *s = data;
  for (;;)
    {
      SinkJob *job = g_async_queue_pop (s->jobs);
      if (job->data == NULL)
        {
          g_free (job);
          return NULL;
        }
      write_job (s, job->data, job->len, job->buffer);
      if (job->buffer != NULL)
        g_async_queue_push (s->free_bufs, job->buffer);
      g_free (job);
    }
}

/* Writes `len` bytes at `data`: queued for the writer thread, or at once
 * in a sink without one. */
static void
push_job (OnnxioSink *s, const guint8 *data, gsize len, guint8 *buffer)
{
  if (s->writer == NULL)
    {
      write_job (s, data, len, buffer);
      return;
    }
  SinkJob *job = g_new (SinkJob, 1);
  job->data = data;
  job->len = len;
  job->buffer = buffer;
  g_async_queue_push (s->jobs, job);
}

/* Hands the filled buffer to the writer and takes a free one (waiting
 * while all are queued).  FALSE once a write has failed. */
static gboolean
flush (OnnxioSink *s)
{
  if (s->buf_len > 0)
    {
      push_job (s, s->buf, s->buf_len, s->buf);
      if (s->writer != NULL)
        s->buf = g_async_queue_pop (s->free_bufs);
      s->buf_len = 0;
    }
  return !failed (s);
}

/* Ends the writer thread after everything queued is written. */
static void
join_writer (OnnxioSink *s)
{
  if (s->writer == NULL)
    return;
  push_job (s, NULL, 0, NULL);
  g_thread_join (s->writer);
  s->writer = NULL;
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
      if (!flush (s))
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
  if (len == 0 || failed (s))
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
    push_job (s, data, len, NULL);   /* tensor payloads: straight to the file */
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
onnxio_sink_open (const char *path, guint64 expected_bytes, GError **error)
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
  s->bufs[0] = s->buf = g_malloc (SINK_BUFFER_SIZE);
  /* A thread pays off once writing takes longer than starting one. */
  if (expected_bytes >= SINK_THREAD_MIN_BYTES)
    {
      s->jobs = g_async_queue_new ();
      s->free_bufs = g_async_queue_new ();
      for (guint i = 1; i < SINK_BUFFERS; i++)
        {
          s->bufs[i] = g_malloc (SINK_BUFFER_SIZE);
          g_async_queue_push (s->free_bufs, s->bufs[i]);
        }
      s->writer = g_thread_new ("onnx-writer", writer_main, s);
    }
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
  join_writer (s);
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
  join_writer (s);
  if (s->fd >= 0)
    close (s->fd);
  if (!s->finished)
    unlink (s->tmp_path);
  for (guint i = 0; i < SINK_BUFFERS; i++)
    g_free (s->bufs[i]);
  g_clear_pointer (&s->jobs, g_async_queue_unref);
  g_clear_pointer (&s->free_bufs, g_async_queue_unref);
  g_free (s->path);
  g_free (s->tmp_path);
  g_free (s);
}
