/* safetensors.c — .safetensors weights files, read (mmapped, zero-copy) and
 * written (atomic, byte-identical to the reference writer).
 *
 * Layout: u64 LE header length N; N bytes of UTF-8 JSON,
 *   {"__metadata__": {"k": "v", ...},
 *    "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}
 * padded with spaces; then the data buffer, which the tensors' ranges tile.
 * See Note [safetensors] in tensorfiles.h.
 */
#include "export/tensors/tensorfiles-private.h"

#include <json-glib/json-glib.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ST_MAX_HEADER   100000000   /* the reference's MAX_HEADER_SIZE */
#define ST_MAX_DEPTH    64          /* JSON nesting; a valid header needs 3 */
#define ST_METADATA_KEY "__metadata__"

typedef struct
{
  const char *name;
  GraphDType  dtype;
  guint       rank;    /* writer order: the reference's Dtype enum index */
} StType;

/* In the reference's Dtype enum order ("increasing alignment"). */
static const StType st_types[] = {
  { "BOOL", GRAPH_DTYPE_BOOL,     0 },
  { "U8",   GRAPH_DTYPE_UINT8,    1 },
  { "I8",   GRAPH_DTYPE_INT8,     2 },
  { "I16",  GRAPH_DTYPE_INT16,    5 },
  { "U16",  GRAPH_DTYPE_UINT16,   6 },
  { "F16",  GRAPH_DTYPE_FLOAT16,  7 },
  { "BF16", GRAPH_DTYPE_BFLOAT16, 8 },
  { "I32",  GRAPH_DTYPE_INT32,    9 },
  { "U32",  GRAPH_DTYPE_UINT32,  10 },
  { "F32",  GRAPH_DTYPE_FLOAT,   11 },
  { "F64",  GRAPH_DTYPE_DOUBLE,  12 },
  { "I64",  GRAPH_DTYPE_INT64,   13 },
  { "U64",  GRAPH_DTYPE_UINT64,  14 },
};

static const StType *
st_type_for_dtype (GraphDType dtype)
{
  for (gsize i = 0; i < G_N_ELEMENTS (st_types); i++)
    if (st_types[i].dtype == dtype)
      return &st_types[i];
  return NULL;
}

static gboolean G_GNUC_PRINTF (4, 5)
st_error (GError **error, int code, const char *name, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, EXPORT_TENSOR_FILE_ERROR, code, "%s: %s", name, msg);
  return FALSE;
}

/* ---- strict JSON scan ----------------------------------------------------- */

/* Note [Strict JSON before json-glib]
 * json-glib 1.6 has no strict mode (its scanner takes comments, hex numbers
 * and more), recurses once per nesting level with no limit (a header of a
 * million '[' overflows the stack), and may wrap integers that do not fit
 * 64 bits.  So the header is first checked against RFC 8259 here, with
 * bounded depth, integers limited to int64, no NUL escapes, no lone
 * surrogates, and no duplicate top-level keys; only then is it handed to
 * JsonParser. */
typedef struct
{
  const char *s;
  gsize       len;
  gsize       pos;
  const char *msg;     /* set on failure, pos at the problem */
  GHashTable *top_keys;/* raw top-level keys, for duplicates */
} StScan;

static gboolean
scan_fail (StScan *j, const char *msg)
{
  j->msg = msg;
  return FALSE;
}

static void
scan_ws (StScan *j)
{
  while (j->pos < j->len && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t'
                             || j->s[j->pos] == '\n' || j->s[j->pos] == '\r'))
    j->pos++;
}

static int
scan_hex4 (StScan *j)
{
  int v = 0;
  if (j->len - j->pos < 4)
    return -1;
  for (int k = 0; k < 4; k++)
    {
      int d = g_ascii_xdigit_value (j->s[j->pos + k]);
      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  j->pos += 4;
  return v;
}

static gboolean
scan_string (StScan *j)
{
  j->pos++;   /* '"' */
  while (j->pos < j->len)
    {
      guchar c = j->s[j->pos];
      if (c == '"')
        {
          j->pos++;
          return TRUE;
        }
      if (c < 0x20)
        return scan_fail (j, "control character in a string");
      if (c != '\\')
        {
          j->pos++;
          continue;
        }
      if (++j->pos >= j->len)
        break;
      c = j->s[j->pos++];
      if (c == 'u')
        {
          int u = scan_hex4 (j);
          if (u < 0)
            return scan_fail (j, "bad \\u escape");
          if (u == 0)
            return scan_fail (j, "\\u0000 (NUL) in a string");
          if (u >= 0xdc00 && u <= 0xdfff)
            return scan_fail (j, "lone low surrogate escape");
          if (u >= 0xd800 && u <= 0xdbff)
            {
              if (j->len - j->pos < 2 || j->s[j->pos] != '\\' || j->s[j->pos + 1] != 'u')
                return scan_fail (j, "high surrogate escape without its low half");
              j->pos += 2;
              u = scan_hex4 (j);
              if (u < 0xdc00 || u > 0xdfff)
                return scan_fail (j, "high surrogate escape without its low half");
            }
        }
      else if (strchr ("\"\\/bfnrt", c) == NULL || c == 0)
        {
          j->pos--;
          return scan_fail (j, "bad escape in a string");
        }
    }
  return scan_fail (j, "unterminated string");
}

static gboolean
scan_number (StScan *j)
{
  gsize start = j->pos;
  gboolean integer = TRUE;

  if (j->s[j->pos] == '-')
    j->pos++;
  if (j->pos >= j->len || !g_ascii_isdigit (j->s[j->pos]))
    return scan_fail (j, "bad number");
  if (j->s[j->pos] == '0')
    j->pos++;
  else
    while (j->pos < j->len && g_ascii_isdigit (j->s[j->pos]))
      j->pos++;
  if (j->pos < j->len && j->s[j->pos] == '.')
    {
      integer = FALSE;
      j->pos++;
      if (j->pos >= j->len || !g_ascii_isdigit (j->s[j->pos]))
        return scan_fail (j, "bad number (no digit after '.')");
      while (j->pos < j->len && g_ascii_isdigit (j->s[j->pos]))
        j->pos++;
    }
  if (j->pos < j->len && (j->s[j->pos] == 'e' || j->s[j->pos] == 'E'))
    {
      integer = FALSE;
      j->pos++;
      if (j->pos < j->len && (j->s[j->pos] == '+' || j->s[j->pos] == '-'))
        j->pos++;
      if (j->pos >= j->len || !g_ascii_isdigit (j->s[j->pos]))
        return scan_fail (j, "bad number (no digit in the exponent)");
      while (j->pos < j->len && g_ascii_isdigit (j->s[j->pos]))
        j->pos++;
    }
  if (integer)
    {
      /* Must fit gint64, so json-glib stores it exactly. */
      char buf[24];
      gsize n = j->pos - start;
      gint64 v;
      if (n >= sizeof buf)
        goto too_big;
      memcpy (buf, j->s + start, n);
      buf[n] = 0;
      if (!g_ascii_string_to_signed (buf, 10, G_MININT64, G_MAXINT64, &v, NULL))
        goto too_big;
    }
  return TRUE;

too_big:
  j->pos = start;
  return scan_fail (j, "integer does not fit in 64 bits");
}

static gboolean
scan_value (StScan *j, guint depth)
{
  scan_ws (j);
  if (j->pos >= j->len)
    return scan_fail (j, "unexpected end of the header");

  char c = j->s[j->pos];
  if (c == '{' || c == '[')
    {
      char close = c == '{' ? '}' : ']';
      if (depth >= ST_MAX_DEPTH)
        return scan_fail (j, "nested too deeply");
      j->pos++;
      scan_ws (j);
      if (j->pos < j->len && j->s[j->pos] == close)
        {
          j->pos++;
          return TRUE;
        }
      for (;;)
        {
          if (c == '{')
            {
              scan_ws (j);
              if (j->pos >= j->len || j->s[j->pos] != '"')
                return scan_fail (j, "expected a member name");
              gsize key = j->pos;
              if (!scan_string (j))
                return FALSE;
              if (depth == 0
                  && !g_hash_table_add (j->top_keys,
                                        g_strndup (j->s + key, j->pos - key)))
                {
                  j->pos = key;
                  return scan_fail (j, "duplicate tensor name");
                }
              scan_ws (j);
              if (j->pos >= j->len || j->s[j->pos] != ':')
                return scan_fail (j, "expected ':'");
              j->pos++;
            }
          if (!scan_value (j, depth + 1))
            return FALSE;
          scan_ws (j);
          if (j->pos < j->len && j->s[j->pos] == ',')
            {
              j->pos++;
              continue;
            }
          if (j->pos < j->len && j->s[j->pos] == close)
            {
              j->pos++;
              return TRUE;
            }
          return scan_fail (j, c == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
  if (c == '"')
    return scan_string (j);
  if (c == '-' || g_ascii_isdigit (c))
    return scan_number (j);
  static const char *const words[] = { "true", "false", "null" };
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    {
      gsize n = strlen (words[i]);
      if (j->len - j->pos >= n && memcmp (j->s + j->pos, words[i], n) == 0)
        {
          j->pos += n;
          return TRUE;
        }
    }
  return scan_fail (j, "invalid JSON value");
}

/* Checks `s` (the header, at file offset 8) is one strict JSON object;
 * *n_top gets the number of its members. */
static gboolean
st_check_json (const char *s, gsize len, const char *name, guint *n_top, GError **error)
{
  StScan j = { s, len, 0, NULL, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) };
  gboolean ok;

  scan_ws (&j);
  if (j.pos < j.len && s[j.pos] != '{')
    ok = scan_fail (&j, "the header is not a JSON object");
  else if ((ok = scan_value (&j, 0)))
    {
      scan_ws (&j);
      if (j.pos != j.len)
        ok = scan_fail (&j, "data after the JSON object");
    }
  *n_top = g_hash_table_size (j.top_keys);
  g_hash_table_unref (j.top_keys);
  if (ok)
    return TRUE;

  guint line = 1, col = 1;
  for (gsize i = 0; i < j.pos; i++)
    if (s[i] == '\n')
      line++, col = 1;
    else if (((guchar) s[i] & 0xc0) != 0x80)  /* count characters, not bytes */
      col++;
  return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                   "header JSON at byte %" G_GSIZE_FORMAT " (line %u, column %u): %s",
                   (gsize) 8 + j.pos, line, col, j.msg);
}

/* ---- reader ----------------------------------------------------------------- */

typedef struct
{
  const char *name;    /* borrowed from the JSON tree */
  GraphDType  dtype;
  guint       rank;
  guint       dims_at; /* index into the shared dims array */
  guint64     begin, end;
} StEntry;

static int
st_entry_cmp (gconstpointer a, gconstpointer b)
{
  const StEntry *x = a, *y = b;
  if (x->begin != y->begin)
    return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return 0;
}

/* A non-negative JSON integer, or FALSE. */
static gboolean
st_get_uint (JsonNode *node, guint64 *out)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  gint64 v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

static gboolean
st_read_entry (const char *file, const char *tname, JsonNode *node, guint64 data_len,
               GArray *dims, StEntry *e, GError **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': entry is not a JSON object", tname);
  JsonObject *o = json_node_get_object (node);
  JsonNode *dtype = json_object_get_member (o, "dtype");
  JsonNode *shape = json_object_get_member (o, "shape");
  JsonNode *offsets = json_object_get_member (o, "data_offsets");

  e->name = tname;
  if (dtype == NULL || !JSON_NODE_HOLDS_VALUE (dtype)
      || json_node_get_value_type (dtype) != G_TYPE_STRING)
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': \"dtype\" is missing or not a string", tname);
  const char *dname = json_node_get_string (dtype);
  const StType *type = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (st_types); i++)
    if (g_str_equal (dname, st_types[i].name))
      type = &st_types[i];
  if (type == NULL)
    return st_error (error, g_str_has_prefix (dname, "F8_")
                            ? EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED
                            : EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': %s dtype \"%s\" (known: BOOL U8 I8 I16 U16 F16 "
                     "BF16 I32 U32 F32 F64 I64 U64)", tname,
                     g_str_has_prefix (dname, "F8_") ? "unsupported" : "unknown", dname);
  e->dtype = type->dtype;

  if (shape == NULL || !JSON_NODE_HOLDS_ARRAY (shape))
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': \"shape\" is missing or not an array", tname);
  JsonArray *sa = json_node_get_array (shape);
  guint rank = json_array_get_length (sa);
  if (rank > TENSOR_MAX_RANK)
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': shape has %u dimensions, more than %d",
                     tname, rank, TENSOR_MAX_RANK);
  guint64 nbytes = graph_dtype_size (type->dtype);
  e->rank = rank;
  e->dims_at = dims->len;
  for (guint i = 0; i < rank; i++)
    {
      guint64 d;
      if (!st_get_uint (json_array_get_element (sa, i), &d))
        return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                         "tensor '%s': shape[%u] is not a non-negative integer",
                         tname, i);
      if (!g_uint64_checked_mul (&nbytes, nbytes, d) || nbytes > G_MAXINT64)
        return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                         "tensor '%s': shape's byte size overflows 64 bits", tname);
      gint64 sd = (gint64) d;
      g_array_append_val (dims, sd);
    }

  if (offsets == NULL || !JSON_NODE_HOLDS_ARRAY (offsets)
      || json_array_get_length (json_node_get_array (offsets)) != 2
      || !st_get_uint (json_array_get_element (json_node_get_array (offsets), 0), &e->begin)
      || !st_get_uint (json_array_get_element (json_node_get_array (offsets), 1), &e->end))
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': \"data_offsets\" is missing or not two "
                     "non-negative integers", tname);
  if (e->end < e->begin)
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': data_offsets [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                     "] are reversed", tname, e->begin, e->end);
  if (e->end > data_len)
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': data_offsets [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                     "] run past the data buffer (%" G_GUINT64_FORMAT " bytes)",
                     tname, e->begin, e->end, data_len);
  if (e->end - e->begin != nbytes)
    return st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                     "tensor '%s': data_offsets [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                     "] hold %" G_GUINT64_FORMAT " bytes, but %s of this shape needs %"
                     G_GUINT64_FORMAT, tname, e->begin, e->end, e->end - e->begin,
                     dname, nbytes);
  return TRUE;
}

static GHashTable *
st_read_metadata (const char *file, JsonNode *node, GError **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "\"" ST_METADATA_KEY "\" is not an object of strings");
      return NULL;
    }
  g_autoptr(GHashTable) md = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  JsonObjectIter it;
  const char *key;
  JsonNode *value;
  json_object_iter_init (&it, json_node_get_object (node));
  while (json_object_iter_next (&it, &key, &value))
    {
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        {
          st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                    "\"" ST_METADATA_KEY "\": value of \"%s\" is not a string", key);
          return NULL;
        }
      g_hash_table_insert (md, g_strdup (key), g_strdup (json_node_get_string (value)));
    }
  return g_steal_pointer (&md);
}

GHashTable *
export_safetensors_load_bytes (GBytes *bytes, const char *display_name,
                               GHashTable **metadata, GError **error)
{
  g_return_val_if_fail (bytes != NULL, NULL);
  const char *file = display_name != NULL ? display_name : "<safetensors data>";
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  if (len < 8)
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "file is %" G_GSIZE_FORMAT " bytes, too short for the 8-byte header length",
                len);
      return NULL;
    }
  guint64 n = 0;
  for (int i = 7; i >= 0; i--)
    n = n << 8 | data[i];
  if (n > ST_MAX_HEADER)
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "byte 0: header length %" G_GUINT64_FORMAT " is over the %d byte limit",
                n, ST_MAX_HEADER);
      return NULL;
    }
  if (n > len - 8)
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "byte 0: header length %" G_GUINT64_FORMAT " runs past the end of the "
                "file (%" G_GSIZE_FORMAT " bytes)", n, len);
      return NULL;
    }
  const char *header = (const char *) data + 8;
  const char *bad;
  if (!g_utf8_validate_len (header, n, &bad))
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "header byte %" G_GSIZE_FORMAT ": not valid UTF-8 (or a NUL byte)",
                (gsize) (8 + (bad - header)));
      return NULL;
    }
  if (n == 0 || header[0] != '{')
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "byte 8: the header does not start with '{'");
      return NULL;
    }
  guint n_top;
  if (!st_check_json (header, n, file, &n_top, error))
    return NULL;

  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local = NULL;
  if (!json_parser_load_from_data (parser, header, n, &local))
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file, "header JSON: %s",
                local->message);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file, "the header is not a JSON object");
      return NULL;
    }
  /* Names spelled differently ("a", "\u0061") that decode to the same key:
   * json-glib keeps one of them. */
  if (json_object_get_size (json_node_get_object (root)) != n_top)
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "duplicate tensor name (after decoding JSON escapes)");
      return NULL;
    }

  guint64 data_start = 8 + n;
  guint64 data_len = len - data_start;
  g_autoptr(GHashTable) md = NULL;
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (StEntry));
  g_autoptr(GArray) dims = g_array_new (FALSE, FALSE, sizeof (gint64));
  JsonObjectIter it;
  const char *key;
  JsonNode *value;
  json_object_iter_init (&it, json_node_get_object (root));
  while (json_object_iter_next (&it, &key, &value))
    {
      if (g_str_equal (key, ST_METADATA_KEY))
        {
          md = st_read_metadata (file, value, error);
          if (md == NULL)
            return NULL;
          continue;
        }
      StEntry e = { 0 };
      if (!st_read_entry (file, key, value, data_len, dims, &e, error))
        return NULL;
      g_array_append_val (entries, e);
    }

  /* The ranges, sorted, must tile [0, data_len) exactly. */
  g_array_sort (entries, st_entry_cmp);
  guint64 expect = 0;
  for (guint i = 0; i < entries->len; i++)
    {
      const StEntry *e = &g_array_index (entries, StEntry, i);
      if (e->begin < expect)
        {
          st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                    "tensor '%s': data_offsets [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                    "] overlap tensor '%s' (which ends at %" G_GUINT64_FORMAT ")",
                    e->name, e->begin, e->end,
                    g_array_index (entries, StEntry, i - 1).name, expect);
          return NULL;
        }
      if (e->begin > expect)
        {
          st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                    "tensor '%s': data_offsets [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                    "] leave a gap of %" G_GUINT64_FORMAT " unused bytes before them "
                    "(the format requires the tensors to cover the data contiguously)",
                    e->name, e->begin, e->end, e->begin - expect);
          return NULL;
        }
      expect = e->end;
    }
  if (expect != data_len)
    {
      st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file,
                "%" G_GUINT64_FORMAT " bytes after the last tensor's data (data buffer "
                "at byte %" G_GUINT64_FORMAT " is %" G_GUINT64_FORMAT " bytes, tensors "
                "cover %" G_GUINT64_FORMAT ")", data_len - expect, data_start, data_len,
                expect);
      return NULL;
    }

  g_autoptr(GHashTable) tensors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  for (guint i = 0; i < entries->len; i++)
    {
      const StEntry *e = &g_array_index (entries, StEntry, i);
      gsize elem = graph_dtype_size (e->dtype);
      const guint8 *p = data + data_start + e->begin;
      gsize size = e->end - e->begin;
      g_autoptr(GBytes) view = NULL;
      /* Zero copy unless the data are misaligned for their element type
       * (the reference writer never produces that). */
      if ((guintptr) p % elem == 0)
        view = g_bytes_new_from_bytes (bytes, data_start + e->begin, size);
      else
        view = g_bytes_new (p, size);
      const gint64 *d = e->rank ? &g_array_index (dims, gint64, e->dims_at) : NULL;
      Tensor *t = tensor_new (e->dtype, e->rank, d, view, &local);
      if (t == NULL)
        {
          st_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, file, "tensor '%s': %s",
                    e->name, local->message);
          return NULL;
        }
      g_hash_table_insert (tensors, g_strdup (e->name), t);
    }

  if (metadata != NULL)
    *metadata = md != NULL ? g_steal_pointer (&md)
                           : g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return g_steal_pointer (&tensors);
}

GHashTable *
export_safetensors_load_full (const char *path, GHashTable **metadata, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autoptr(GBytes) bytes = export_tensor_file_map (path, error);
  if (bytes == NULL)
    return NULL;
  return export_safetensors_load_bytes (bytes, path, metadata, error);
}

GHashTable *
export_safetensors_load (const char *path, GError **error)
{
  return export_safetensors_load_full (path, NULL, error);
}

/* ---- writer ----------------------------------------------------------------- */

/* JSON string as serde_json writes it: '"' '\\' and control characters
 * escaped (\b \f \n \r \t, else \u00xx), everything else verbatim. */
static void
st_append_json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) s; *p; p++)
    switch (*p)
      {
      case '"':  g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\b': g_string_append (out, "\\b"); break;
      case '\f': g_string_append (out, "\\f"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      default:
        if (*p < 0x20)
          g_string_append_printf (out, "\\u%04x", *p);
        else
          g_string_append_c (out, *p);
      }
  g_string_append_c (out, '"');
}

typedef struct
{
  const char   *name;
  const Tensor *t;
  const StType *type;
} StOut;

static int
st_out_cmp (gconstpointer a, gconstpointer b)
{
  const StOut *x = a, *y = b;
  if (x->type->rank != y->type->rank)
    return x->type->rank > y->type->rank ? -1 : 1;   /* descending dtype */
  return strcmp (x->name, y->name);
}

static int
st_str_cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

gboolean
export_safetensors_save (GHashTable *tensors, GHashTable *metadata, const char *path,
                         GError **error)
{
  g_return_val_if_fail (tensors != NULL && path != NULL, FALSE);

  g_autoptr(GArray) outs = g_array_new (FALSE, FALSE, sizeof (StOut));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, tensors);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      StOut o = { k, v, NULL };
      if (o.name == NULL || o.name[0] == '\0' || !g_utf8_validate (o.name, -1, NULL)
          || g_str_equal (o.name, ST_METADATA_KEY))
        return st_error (error, EXPORT_TENSOR_FILE_ERROR_INVALID, path,
                         "tensor name '%s' is empty, not UTF-8 or reserved",
                         o.name != NULL ? o.name : "(null)");
      o.type = st_type_for_dtype (tensor_dtype (o.t));
      if (o.type == NULL)
        return st_error (error, EXPORT_TENSOR_FILE_ERROR_INVALID, path,
                         "tensor '%s': safetensors has no %s dtype", o.name,
                         graph_dtype_name (tensor_dtype (o.t)));
      GBytes *b = tensor_bytes (o.t);
      if (b == NULL || g_bytes_get_size (b) != tensor_nbytes (o.t))
        return st_error (error, EXPORT_TENSOR_FILE_ERROR_INVALID, path,
                         "tensor '%s' has no data", o.name);
      g_array_append_val (outs, o);
    }
  g_array_sort (outs, st_out_cmp);

  GString *hdr = g_string_new ("{");
  if (metadata != NULL)
    {
      guint n_keys;
      g_autofree gpointer *keys = g_hash_table_get_keys_as_array (metadata, &n_keys);
      qsort (keys, n_keys, sizeof (gpointer), st_str_cmp);
      g_string_append (hdr, "\"" ST_METADATA_KEY "\":{");
      for (guint i = 0; i < n_keys; i++)
        {
          const char *key = keys[i];
          const char *val = g_hash_table_lookup (metadata, key);
          if (val == NULL || !g_utf8_validate (key, -1, NULL) || !g_utf8_validate (val, -1, NULL))
            {
              g_string_free (hdr, TRUE);
              return st_error (error, EXPORT_TENSOR_FILE_ERROR_INVALID, path,
                               "metadata entry '%s' is not a UTF-8 string pair", key);
            }
          if (i > 0)
            g_string_append_c (hdr, ',');
          st_append_json_string (hdr, key);
          g_string_append_c (hdr, ':');
          st_append_json_string (hdr, val);
        }
      g_string_append (hdr, outs->len ? "}," : "}");
    }
  guint64 offset = 0;
  for (guint i = 0; i < outs->len; i++)
    {
      const StOut *o = &g_array_index (outs, StOut, i);
      guint64 size = tensor_nbytes (o->t);
      if (i > 0)
        g_string_append_c (hdr, ',');
      st_append_json_string (hdr, o->name);
      g_string_append_printf (hdr, ":{\"dtype\":\"%s\",\"shape\":[", o->type->name);
      for (guint d = 0; d < tensor_rank (o->t); d++)
        g_string_append_printf (hdr, "%s%" G_GINT64_FORMAT, d ? "," : "",
                                tensor_dim (o->t, d));
      g_string_append_printf (hdr, "],\"data_offsets\":[%" G_GUINT64_FORMAT ",%"
                              G_GUINT64_FORMAT "]}", offset, offset + size);
      offset += size;
    }
  g_string_append_c (hdr, '}');
  while (hdr->len % 8 != 0)
    g_string_append_c (hdr, ' ');

  guint8 lenbuf[8];
  for (int i = 0; i < 8; i++)
    lenbuf[i] = ((guint64) hdr->len >> (8 * i)) & 0xff;

  /* Data go from the tensors' own buffers to the file: no copy. */
  ExportTensorFileWriter *w = export_tensor_file_writer_open (path, error);
  gboolean ok = w != NULL
                && export_tensor_file_writer_write (w, lenbuf, 8, error)
                && export_tensor_file_writer_write (w, hdr->str, hdr->len, error);
  g_string_free (hdr, TRUE);
  for (guint i = 0; ok && i < outs->len; i++)
    {
      const StOut *o = &g_array_index (outs, StOut, i);
      ok = export_tensor_file_writer_write (w, tensor_data (o->t), tensor_nbytes (o->t), error);
    }
  return ok && export_tensor_file_writer_commit (w, error);
}
