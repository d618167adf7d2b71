/* Shared bits of the ONNX reader/writer: error quark, message pool,
 * unpack allocator, domain spelling. */
#include "export/onnx/onnxio-private.h"

#include <string.h>

G_DEFINE_QUARK (onnxio-error-quark, onnxio_error)

void
onnxio_pool_init (OnnxioPool *pool)
{
  pool->allocs = g_ptr_array_new_with_free_func (g_free);
}

void
onnxio_pool_clear (OnnxioPool *pool)
{
  g_clear_pointer (&pool->allocs, g_ptr_array_unref);
}

gpointer
onnxio_pool_alloc0 (OnnxioPool *pool, gsize size)
{
  gpointer p = g_malloc0 (MAX (size, 1));
  g_ptr_array_add (pool->allocs, p);
  return p;
}

char *
onnxio_pool_take (OnnxioPool *pool, char *s)
{
  g_ptr_array_add (pool->allocs, s);
  return s;
}

char *
onnxio_pool_strdup (OnnxioPool *pool, const char *s)
{
  char *d = g_strdup (s);
  g_ptr_array_add (pool->allocs, d);
  return d;
}

/* g_try_malloc: a failed allocation is an unpack failure, not an abort.
 * Sizes are already bounded by the input length (protobuf-c checks each
 * length against the remaining buffer). */
static void *
pb_alloc (void *data, size_t size)
{
  (void) data;
  return g_try_malloc (size);
}

static void
pb_free (void *data, void *p)
{
  (void) data;
  g_free (p);
}

ProtobufCAllocator onnxio_pb_allocator = { pb_alloc, pb_free, NULL };

const char *
onnxio_domain_to_ir (const char *domain)
{
  if (domain == NULL || *domain == '\0' || strcmp (domain, "ai.onnx") == 0)
    return GRAPH_ONNX_DOMAIN;
  return domain;
}

const char *
onnxio_domain_from_ir (const char *domain)
{
  if (domain == NULL || strcmp (domain, GRAPH_ONNX_DOMAIN) == 0)
    return "";
  return domain;
}
