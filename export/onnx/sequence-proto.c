/* SequenceProto and OptionalProto .pb files (see onnx-sequence.h).  The
 * generated protobuf code covers onnx.proto only, so the two small
 * messages of onnx-data.proto are decoded here from the wire format; their
 * TensorProto fields go through the TensorProto reader. */
#include "export/onnx-sequence.h"
#include "export/onnxio.h"
#include <string.h>

/* onnx-data.proto field numbers (the same in both messages) and the
 * elem_type values. */
enum { F_NAME = 1, F_ELEM_TYPE = 2, F_TENSOR = 3, F_SPARSE = 4, F_SEQUENCE = 5, F_MAP = 6,
       F_OPTIONAL = 7 };
enum { ELEM_UNDEFINED = 0, ELEM_TENSOR = 1, ELEM_SEQUENCE = 3 };

void
onnxio_value_free (OnnxioValue *v)
{
  if (v == NULL)
    return;
  g_clear_pointer (&v->tensor, tensor_unref);
  g_clear_pointer (&v->items, g_ptr_array_unref);
  g_free (v);
}

typedef struct
{
  const guint8 *data;
  gsize len, pos;
  const char *display, *what;
} Reader;

static gboolean
read_varint (Reader *r, guint64 *out, GError **error)
{
  guint64 v = 0;
  for (guint shift = 0; shift < 64; shift += 7)
    {
      if (r->pos >= r->len)
        break;
      guint8 b = r->data[r->pos++];
      v |= (guint64) (b & 0x7f) << shift;
      if (!(b & 0x80))
        {
          *out = v;
          return TRUE;
        }
    }
  g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
               "%s: %s: truncated or overlong varint at offset %zu", r->display, r->what, r->pos);
  return FALSE;
}

/* Next field: its number, wire type, and for length-delimited fields the
 * bytes (*sub, *sub_len); other wire types are skipped. */
static gboolean
read_field (Reader *r, guint *field, guint *wire, const guint8 **sub, gsize *sub_len,
            guint64 *varint, GError **error)
{
  guint64 key, v;
  gsize at = r->pos;
  if (!read_varint (r, &key, error))
    return FALSE;
  *field = (guint) MIN (key >> 3, G_MAXUINT);
  *wire = (guint) (key & 7);
  *sub = NULL;
  *sub_len = 0;
  switch (*wire)
    {
    case 0:
      return read_varint (r, varint, error);
    case 1:
    case 5:
      {
        gsize n = *wire == 1 ? 8 : 4;
        if (r->len - r->pos < n)
          break;
        r->pos += n;
        return TRUE;
      }
    case 2:
      if (!read_varint (r, &v, error))
        return FALSE;
      if (v > r->len - r->pos)
        break;
      *sub = r->data + r->pos;
      *sub_len = (gsize) v;
      r->pos += (gsize) v;
      return TRUE;
    default:
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                   "%s: %s: field %u at offset %zu has wire type %u, which is not valid here",
                   r->display, r->what, *field, at, *wire);
      return FALSE;
    }
  g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
               "%s: %s: field %u at offset %zu runs past the end of the data (%zu bytes)",
               r->display, r->what, *field, at, r->len);
  return FALSE;
}

static OnnxioValue *load_message (const guint8 *data, gsize len, const char *display,
                                  gboolean sequence, guint depth, char **name, GError **error);

static gboolean
wrong_wire (Reader *r, guint field, GError **error)
{
  g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
               "%s: %s: field %u has the wrong wire type", r->display, r->what, field);
  return FALSE;
}

/* SequenceProto (sequence) or OptionalProto; `depth` limits nesting. */
static OnnxioValue *
load_message (const guint8 *data, gsize len, const char *display, gboolean sequence,
              guint depth, char **name, GError **error)
{
  Reader r = { data, len, 0, display, sequence ? "SequenceProto" : "OptionalProto" };
  g_autoptr (OnnxioValue) v = g_new0 (OnnxioValue, 1);
  g_autofree char *the_name = NULL;
  gboolean has_elem_type = FALSE;
  guint64 elem_type = 0;
  v->kind = sequence ? ONNXIO_VALUE_SEQUENCE : ONNXIO_VALUE_NONE;
  v->elem_type = GRAPH_DTYPE_UNDEFINED;
  if (sequence)
    v->items = g_ptr_array_new_with_free_func ((GDestroyNotify) tensor_unref);
  while (r.pos < r.len)
    {
      guint field, wire;
      const guint8 *sub;
      gsize sub_len;
      guint64 varint = 0;
      gsize at = r.pos;
      if (!read_field (&r, &field, &wire, &sub, &sub_len, &varint, error))
        return NULL;
      switch (field)
        {
        case F_NAME:
          if (wire != 2)
            return wrong_wire (&r, field, error), NULL;
          g_free (the_name);
          the_name = g_strndup ((const char *) sub, sub_len);
          break;
        case F_ELEM_TYPE:
          if (wire != 0)
            return wrong_wire (&r, field, error), NULL;
          has_elem_type = TRUE;
          elem_type = varint;
          break;
        case F_TENSOR:
          {
            if (wire != 2)
              return wrong_wire (&r, field, error), NULL;
            g_autofree char *where = g_strdup_printf ("%s (%s field %u at offset %zu)", display,
                                                      r.what, field, at);
            Tensor *t = onnxio_tensor_load_from_data (sub, sub_len, where, NULL, error);
            if (t == NULL)
              return NULL;
            if (sequence)
              {
                if (v->items->len && tensor_dtype (t) != v->elem_type)
                  {
                    g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                                 "%s: tensor %u is %s in a sequence of %s", where,
                                 v->items->len, graph_dtype_name (tensor_dtype (t)),
                                 graph_dtype_name (v->elem_type));
                    tensor_unref (t);
                    return NULL;
                  }
                v->elem_type = tensor_dtype (t);
                g_ptr_array_add (v->items, t);
              }
            else
              {
                if (v->kind != ONNXIO_VALUE_NONE)
                  {
                    tensor_unref (t);
                    g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                                 "%s: more than one value", where);
                    return NULL;
                  }
                v->kind = ONNXIO_VALUE_TENSOR;
                v->elem_type = tensor_dtype (t);
                v->tensor = t;
              }
            break;
          }
        case F_SEQUENCE:
          {
            if (wire != 2)
              return wrong_wire (&r, field, error), NULL;
            if (sequence || depth > 0)
              {
                g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_UNSUPPORTED,
                             "%s: %s field %u at offset %zu: nested sequences are not supported",
                             display, r.what, field, at);
                return NULL;
              }
            if (v->kind != ONNXIO_VALUE_NONE)
              {
                g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE,
                             "%s: OptionalProto has more than one value", display);
                return NULL;
              }
            g_autofree char *where = g_strdup_printf ("%s (OptionalProto.sequence_value)",
                                                      display);
            OnnxioValue *inner = load_message (sub, sub_len, where, TRUE, depth + 1, NULL, error);
            if (inner == NULL)
              return NULL;
            v->kind = ONNXIO_VALUE_SEQUENCE;
            v->elem_type = inner->elem_type;
            v->items = g_steal_pointer (&inner->items);
            onnxio_value_free (inner);
            break;
          }
        case F_SPARSE:
        case F_MAP:
        case F_OPTIONAL:
          g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_UNSUPPORTED,
                       "%s: %s field %u at offset %zu: %s values are not supported", display,
                       r.what, field, at,
                       field == F_SPARSE ? "sparse tensor" : field == F_MAP ? "map" : "optional");
          return NULL;
        default:
          break;   /* unknown fields are skipped, as protobuf does */
        }
    }
  /* elem_type, when stated, must be what was read. */
  if (has_elem_type && elem_type != ELEM_UNDEFINED
      && ((elem_type != ELEM_TENSOR && elem_type != ELEM_SEQUENCE)
          || (v->kind == ONNXIO_VALUE_TENSOR && elem_type != ELEM_TENSOR)
          || (v->kind == ONNXIO_VALUE_SEQUENCE && !sequence && elem_type != ELEM_SEQUENCE)
          || (sequence && elem_type != ELEM_TENSOR)))
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_UNSUPPORTED,
                   "%s: %s.elem_type %" G_GUINT64_FORMAT " does not fit the values (only "
                   "tensors and sequences of tensors are supported)", display, r.what, elem_type);
      return NULL;
    }
  if (name)
    *name = (the_name && *the_name) ? g_steal_pointer (&the_name) : NULL;
  return g_steal_pointer (&v);
}

OnnxioValue *
onnxio_sequence_load_from_data (const guint8 *data, gsize len, const char *display,
                                char **name, GError **error)
{
  if (name)
    *name = NULL;
  return load_message (data, len, display ? display : "<memory>", TRUE, 0, name, error);
}

OnnxioValue *
onnxio_optional_load_from_data (const guint8 *data, gsize len, const char *display,
                                char **name, GError **error)
{
  if (name)
    *name = NULL;
  return load_message (data, len, display ? display : "<memory>", FALSE, 0, name, error);
}

static OnnxioValue *
load_file (const char *path, gboolean sequence, char **name, GError **error)
{
  GError *local = NULL;
  if (name)
    *name = NULL;
  g_autoptr (GMappedFile) mf = g_mapped_file_new (path, FALSE, &local);
  if (mf == NULL)
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO, "%s", local->message);
      g_error_free (local);
      return NULL;
    }
  return load_message ((const guint8 *) g_mapped_file_get_contents (mf),
                       g_mapped_file_get_length (mf), path, sequence, 0, name, error);
}

OnnxioValue *
onnxio_sequence_load (const char *path, char **name, GError **error)
{
  return load_file (path, TRUE, name, error);
}

OnnxioValue *
onnxio_optional_load (const char *path, char **name, GError **error)
{
  return load_file (path, FALSE, name, error);
}
