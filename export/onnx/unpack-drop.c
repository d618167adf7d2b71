/* unpack-drop.c — protobuf-c's allocator for unpacking a model file's
 * mapping, dropping each large field's mapped pages once copied (see
 * OnnxioDropper in onnxio-private.h). */
#include "export/onnx/onnxio-private.h"

#include <sys/mman.h>
#include <unistd.h>

static void
drop_span (OnnxioDropper *d, const OnnxioSpan *s)
{
#ifdef MADV_DONTNEED
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
  guintptr start = (guintptr) (d->base + s->offset), end = start + s->len;
  start = (start + page - 1) / page * page;   /* whole pages inside the span only */
  end = end / page * page;
  if (end > start)
    (void) madvise ((void *) start, end - start, MADV_DONTNEED);   /* (a failure only keeps them) */
#else
  (void) d, (void) s;
#endif
}

static void *
drop_alloc (void *data, size_t size)
{
  OnnxioDropper *d = data;
  /* Any allocation comes after the copy of the span allocated before it. */
  if (d->pending)
    {
      drop_span (d, &d->spans[d->next - 1]);
      d->pending = FALSE;
    }
  if (d->next < d->n_spans && size == d->spans[d->next].len)
    {
      d->next++;
      d->pending = TRUE;
    }
  return g_try_malloc (size);
}

static void
drop_free (void *data, void *p)
{
  (void) data;
  g_free (p);
}

void
onnxio_dropper_init (OnnxioDropper *d, const guint8 *base, const GArray *spans)
{
  *d = (OnnxioDropper) { .allocator = { drop_alloc, drop_free, d }, .base = base,
                         .spans = (const OnnxioSpan *) (gpointer) spans->data,
                         .n_spans = spans->len };
}

void
onnxio_dropper_finish (OnnxioDropper *d)
{
  if (d->pending)
    drop_span (d, &d->spans[d->next - 1]);
  d->pending = FALSE;
}
