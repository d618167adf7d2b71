/* Private to export/onnx-*.c: the protobuf-c generated types and the helpers
 * the reader, the writer and the .pb tensor files share. */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>
#include "proto/onnx.pb-c.h"
#include "export/onnxio.h"

#if G_BYTE_ORDER != G_LITTLE_ENDIAN
#error "symonnx's ONNX reader/writer assumes a little-endian host (raw_data is little-endian)"
#endif

G_BEGIN_DECLS

/* Note [has_ fields]
 * protobuf-c (proto2) silently skips an optional scalar, enum or bytes field
 * whose has_ flag is FALSE.  Every such field is set through one of these
 * helpers, which take the flag and the field together, so the flag cannot be
 * forgotten; tests/export/test-onnxio-fields.c reads each one back with
 * python3-onnx. */
#define ONNXIO_PB_SET_INT64(msg, field, v) \
  onnxio_pb_set_int64 (&(msg)->has_##field, &(msg)->field, (v))
#define ONNXIO_PB_SET_INT32(msg, field, v) \
  onnxio_pb_set_int32 (&(msg)->has_##field, &(msg)->field, (v))
#define ONNXIO_PB_SET_FLOAT(msg, field, v) \
  onnxio_pb_set_float (&(msg)->has_##field, &(msg)->field, (v))
#define ONNXIO_PB_SET_ENUM(msg, field, v) \
  ((msg)->has_##field = TRUE, (msg)->field = (v))
#define ONNXIO_PB_SET_BYTES(msg, field, data, len) \
  onnxio_pb_set_bytes (&(msg)->has_##field, &(msg)->field, (data), (len))

static inline void
onnxio_pb_set_int64 (protobuf_c_boolean *has, int64_t *field, int64_t v)
{
  *has = TRUE;
  *field = v;
}

static inline void
onnxio_pb_set_int32 (protobuf_c_boolean *has, int32_t *field, int32_t v)
{
  *has = TRUE;
  *field = v;
}

static inline void
onnxio_pb_set_float (protobuf_c_boolean *has, float *field, float v)
{
  *has = TRUE;
  *field = v;
}

/* `data` is borrowed: it must outlive the pack. */
static inline void
onnxio_pb_set_bytes (protobuf_c_boolean *has, ProtobufCBinaryData *field,
                     const void *data, gsize len)
{
  *has = TRUE;
  field->data = (uint8_t *) data;
  field->len = len;
}

/* Optional strings: NULL and "" are both "unset" (neither is written). */
static inline char *
onnxio_pb_str (const char *s)
{
  return s != NULL && *s != '\0' ? (char *) s : NULL;
}

static inline const char *
onnxio_str_or_empty (const char *s)
{
  return s != NULL ? s : "";
}

/* ---- Memory for building messages: everything lives until the pool is
 * freed, so the messages can point at IR strings and tensor bytes. */
typedef struct
{
  GPtrArray *allocs;
} OnnxioPool;

void     onnxio_pool_init (OnnxioPool *pool);
void     onnxio_pool_clear (OnnxioPool *pool);
gpointer onnxio_pool_alloc0 (OnnxioPool *pool, gsize size);
#define  onnxio_pool_new0(pool, T, n) \
  ((T *) onnxio_pool_alloc0 ((pool), sizeof (T) * (gsize) (n)))
char    *onnxio_pool_strdup (OnnxioPool *pool, const char *s);
/* Frees `s` with the pool. */
char    *onnxio_pool_take (OnnxioPool *pool, char *s);

/* ---- Unpacking with g_try_malloc/g_free, so the reader can take ownership
 * of bytes fields (raw_data) instead of copying them again. */
extern ProtobufCAllocator onnxio_pb_allocator;

/* Walks the wire format of a `desc` message without recursion: checks every
 * tag, varint, length and wire type against the descriptors and bounds the
 * nesting depth (ONNXIO_MAX_GRAPH_DEPTH GraphProtos,
 * ONNXIO_MAX_MESSAGE_DEPTH messages), because protobuf-c 1.4 recurses
 * without limit.  Errors name `display` and the byte offset. */
gboolean onnxio_wire_check (const guint8 *data, gsize len,
                            const ProtobufCMessageDescriptor *desc,
                            const char *display, GError **error);

/* The same walk, also listing in `spans` (of OnnxioSpan), in file order,
 * the length-delimited values of ONNXIO_SPAN_MIN bytes or more that are
 * not messages (raw_data, packed float_data, ...). */
#define ONNXIO_SPAN_MIN ((gsize) 1 << 20)
typedef struct
{
  gsize offset, len;
} OnnxioSpan;
gboolean onnxio_wire_check_spans (const guint8 *data, gsize len,
                                  const ProtobufCMessageDescriptor *desc,
                                  const char *display, GArray *spans, GError **error);

/* ---- Unpacking a mapped file without holding two copies of its weights */

/* protobuf-c copies every bytes field out of the buffer it unpacks, so a
 * model file's mapped pages and the copies are all resident at the end of
 * the unpack (BERT-base's 209 MB file: peak RSS 414 MB).  This allocator
 * drops the mapped pages of each span (onnxio_wire_check_spans) once
 * protobuf-c has copied it, which it does in file order: each allocation
 * of a span's exact size is taken as that span's copy, done by the next
 * allocation.  Only for read-only private file mappings, whose dropped
 * pages read back from the file; never for memory the caller owns. */
typedef struct
{
  ProtobufCAllocator allocator;
  const guint8      *base;
  const OnnxioSpan  *spans;
  guint              n_spans, next;
  gboolean           pending;    /* spans[next - 1] is being copied */
} OnnxioDropper;
void     onnxio_dropper_init (OnnxioDropper *d, const guint8 *base, const GArray *spans);
/* Drops the last span's pages if still pending (after the unpack). */
void     onnxio_dropper_finish (OnnxioDropper *d);

/* ---- Tensors */

/* How a tensor's data is resolved while reading. */
typedef struct _OnnxioExternal OnnxioExternal;

/* Converts a TensorProto; raw_data is taken from `tp` (no copy).  `what`
 * names it in errors ("initializer 'w'"). */
Tensor  *onnxio_tensor_from_proto (Onnx__TensorProto *tp, OnnxioExternal *ext,
                                   const char *display, const char *what,
                                   GError **error);
/* Fills `tp` from `t`; data is borrowed from `t` (raw_data points into its
 * GBytes; strings into their GBytes).  With `deferred` non-NULL, a deferred
 * tensor (tensor_is_deferred) is not computed here: raw_data.data is the
 * Tensor itself, a placeholder added to the `deferred` set, which a sink
 * given the same set streams with tensor_fill() (onnxio_sink_set_deferred).
 * Without it, the tensor's bytes are computed. */
gboolean onnxio_tensor_to_proto (const Tensor *t, const char *name,
                                 Onnx__TensorProto *tp, OnnxioPool *pool,
                                 GHashTable *deferred, const char *what,
                                 GError **error);

/* ---- External data (export/onnx/external-data.c) */

/* `base_dir` NULL: every external reference is refused. */
OnnxioExternal *onnxio_external_new (const char *base_dir);
void     onnxio_external_free (OnnxioExternal *ext);
/* The bytes [offset, offset+length) of the tensor's external file, after
 * confining `location` to base_dir.  length -1: to the end of the file.
 * (transfer full) */
GBytes  *onnxio_external_read (OnnxioExternal *ext, Onnx__TensorProto *tp,
                               gsize expected, const char *display,
                               const char *what, GError **error);

/* Writer side: one data file next to the model. */
typedef struct _OnnxioExternalWriter OnnxioExternalWriter;
/* `model_path` is the final model path; the data file is
 * "<basename>.data" in the same folder, written through a temporary file. */
OnnxioExternalWriter *onnxio_external_writer_new (const char *model_path,
                                                  GHashTable *deferred,
                                                  GError **error);
/* Appends the tensor's bytes and points `tp` at them (data_location
 * EXTERNAL, external_data location/offset/length, no raw_data). */
gboolean onnxio_external_writer_add (OnnxioExternalWriter *w, Onnx__TensorProto *tp,
                                     OnnxioPool *pool, GError **error);
/* Renames the temporary data file into place. */
gboolean onnxio_external_writer_commit (OnnxioExternalWriter *w, GError **error);
/* Removes the temporary file if not committed; frees. */
void     onnxio_external_writer_free (OnnxioExternalWriter *w);

/* ---- Atomic, streamed output (export/onnx/file-sink.c) */

typedef struct _OnnxioSink OnnxioSink;
/* Opens a temporary file next to `path` (mkstemp).  `expected_bytes`
 * (roughly what will be written) decides whether a writer thread runs. */
OnnxioSink *onnxio_sink_open (const char *path, guint64 expected_bytes, GError **error);
/* The ProtobufCBuffer protobuf-c packs into; writes go to the file as they
 * come (small ones are buffered). */
ProtobufCBuffer *onnxio_sink_buffer (OnnxioSink *sink);
void     onnxio_sink_write (OnnxioSink *sink, const void *data, gsize len);
/* Writes whose data pointer is a Tensor in `deferred` (a set, not owned,
 * which must outlive the sink's writes) stream that tensor's elements
 * instead: see onnxio_tensor_to_proto. */
void     onnxio_sink_set_deferred (OnnxioSink *sink, GHashTable *deferred);
guint64  onnxio_sink_offset (OnnxioSink *sink);
/* Flushes, closes and renames the temporary file over `path`. */
gboolean onnxio_sink_finish (OnnxioSink *sink, GError **error);
/* Closes and removes the temporary file unless finished; frees. */
void     onnxio_sink_free (OnnxioSink *sink);

/* ---- Types (export/onnx/types.c) */

/* NULL type → NULL (no type); errors only for nonsense (unknown elem_type,
 * negative dims). */
gboolean onnxio_type_from_proto (const Onnx__TypeProto *tp, GraphType **out,
                                 const char *display, const char *what,
                                 GError **error);
/* NULL when `t` has no ONNX spelling (trace-only types). */
Onnx__TypeProto *onnxio_type_to_proto (const GraphType *t, OnnxioPool *pool);

/* ---- Domains */

/* "" and "ai.onnx" → "onnx" (the IR spelling of the default domain). */
const char *onnxio_domain_to_ir (const char *domain);
/* "onnx" → "" */
const char *onnxio_domain_from_ir (const char *domain);

G_END_DECLS
