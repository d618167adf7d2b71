/* A non-recursive walk over protobuf wire data, run before protobuf-c
 * unpacks anything: protobuf-c 1.4 recurses once per nested message with no
 * limit (a few thousand nested If bodies overflow the stack) and reports no
 * reason when it fails.  This walk bounds the nesting and names the offset
 * and field of the first malformed thing. */
#include "export/onnx/onnxio-private.h"

typedef struct
{
  const ProtobufCMessageDescriptor *desc;
  gsize end;
} Frame;

static gboolean
read_varint (const guint8 *data, gsize end, gsize *pos, guint64 *out)
{
  guint64 v = 0;
  for (guint shift = 0; shift < 64; shift += 7)
    {
      if (*pos >= end)
        return FALSE;
      guint8 b = data[(*pos)++];
      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        {
          *out = v;
          return TRUE;
        }
    }
  return FALSE;   /* more than 10 bytes */
}

static int
wire_type_of (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_BOOL: case PROTOBUF_C_TYPE_ENUM:
      return 0;
    case PROTOBUF_C_TYPE_DOUBLE: case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
      return 1;
    case PROTOBUF_C_TYPE_FLOAT: case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
      return 5;
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
    default:
      return 2;
    }
}

/* A packed repeated scalar: every element must be complete. */
static gboolean
check_packed (const guint8 *data, gsize pos, gsize end, int elem_wire_type)
{
  switch (elem_wire_type)
    {
    case 1:
      return (end - pos) % 8 == 0;
    case 5:
      return (end - pos) % 4 == 0;
    default:
      while (pos < end)
        {
          guint64 v;
          if (!read_varint (data, end, &pos, &v))
            return FALSE;
        }
      return TRUE;
    }
}

#define WIRE_ERROR(...) \
  (g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE, __VA_ARGS__), FALSE)

gboolean
onnxio_wire_check (const guint8 *data, gsize len,
                   const ProtobufCMessageDescriptor *desc,
                   const char *display, GError **error)
{
  return onnxio_wire_check_spans (data, len, desc, display, NULL, error);
}

gboolean
onnxio_wire_check_spans (const guint8 *data, gsize len,
                         const ProtobufCMessageDescriptor *desc,
                         const char *display, GArray *spans, GError **error)
{
  Frame stack[ONNXIO_MAX_MESSAGE_DEPTH + 1];
  guint depth = 0;
  guint graph_depth = desc == &onnx__graph_proto__descriptor;
  gsize pos = 0;

  stack[0] = (Frame) { desc, len };
  for (;;)
    {
      Frame *f = &stack[depth];
      if (pos == f->end)
        {
          if (depth == 0)
            return TRUE;
          if (f->desc == &onnx__graph_proto__descriptor)
            graph_depth--;
          depth--;
          continue;
        }

      gsize tag_pos = pos;
      guint64 tag;
      if (!read_varint (data, f->end, &pos, &tag))
        return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": in %s: truncated or malformed field tag",
                           display, tag_pos, f->desc->name);
      guint64 number = tag >> 3;
      int wt = (int) (tag & 7);
      if (number == 0 || number > G_MAXINT32)
        return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": in %s: invalid field number %" G_GUINT64_FORMAT,
                           display, tag_pos, f->desc->name, number);
      const ProtobufCFieldDescriptor *field =
        protobuf_c_message_descriptor_get_field (f->desc, (unsigned) number);
      const char *fname = field != NULL ? field->name : "(unknown field)";

      if (field != NULL && wt != wire_type_of (field->type)
          && !(wt == 2 && field->label == PROTOBUF_C_LABEL_REPEATED))
        return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s (field %" G_GUINT64_FORMAT
                           "): wire type %d, expected %d",
                           display, tag_pos, f->desc->name, fname, number, wt,
                           wire_type_of (field->type));

      guint64 v;
      switch (wt)
        {
        case 0:
          if (!read_varint (data, f->end, &pos, &v))
            return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s: truncated or malformed varint",
                               display, pos, f->desc->name, fname);
          break;
        case 1:
        case 5:
          {
            gsize n = wt == 1 ? 8 : 4;
            if (f->end - pos < n)
              return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s: truncated %s-byte value",
                                 display, pos, f->desc->name, fname, wt == 1 ? "8" : "4");
            pos += n;
          }
          break;
        case 2:
          {
            gsize len_pos = pos;
            if (!read_varint (data, f->end, &pos, &v))
              return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s: truncated or malformed length",
                                 display, len_pos, f->desc->name, fname);
            if (v > f->end - pos)
              return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s: length %" G_GUINT64_FORMAT
                                 " runs past the end of its message (%" G_GSIZE_FORMAT " bytes left)",
                                 display, len_pos, f->desc->name, fname, v, f->end - pos);
            gsize sub_end = pos + (gsize) v;
            if (field != NULL && field->type == PROTOBUF_C_TYPE_MESSAGE)
              {
                const ProtobufCMessageDescriptor *sub = field->descriptor;
                if (depth + 1 > ONNXIO_MAX_MESSAGE_DEPTH)
                  return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s: messages nested deeper than %d levels",
                                     display, tag_pos, f->desc->name, fname,
                                     ONNXIO_MAX_MESSAGE_DEPTH);
                if (sub == &onnx__graph_proto__descriptor
                    && ++graph_depth > ONNXIO_MAX_GRAPH_DEPTH)
                  return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s: subgraphs nested deeper than %d levels",
                                     display, tag_pos, f->desc->name, fname,
                                     ONNXIO_MAX_GRAPH_DEPTH);
                stack[++depth] = (Frame) { sub, sub_end };
                continue;   /* walk into it; pos stays at its first byte */
              }
            if (field != NULL && wire_type_of (field->type) != 2
                && !check_packed (data, pos, sub_end, wire_type_of (field->type)))
              return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": %s.%s: packed values do not fill their %"
                                 G_GUINT64_FORMAT " bytes",
                                 display, pos, f->desc->name, fname, v);
            if (spans != NULL && v >= ONNXIO_SPAN_MIN)
              g_array_append_val (spans, ((OnnxioSpan) { pos, (gsize) v }));
            pos = sub_end;
          }
          break;
        default:
          return WIRE_ERROR ("%s: offset %" G_GSIZE_FORMAT ": in %s: unsupported wire type %d (field %"
                             G_GUINT64_FORMAT ")",
                             display, tag_pos, f->desc->name, wt, number);
        }
    }
}
