/* npy.c — numpy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * Layout (numpy/lib/format.py):
 *   "\x93NUMPY" major minor
 *   header length: u16 LE (1.0) or u32 LE (2.0, 3.0)
 *   header: a Python dict literal, latin-1 (1.0, 2.0) or UTF-8 (3.0), e.g.
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 *     padded with spaces and ended by '\n' so that the data start on a
 *     64-byte boundary
 *   data: numel * itemsize bytes, C order.
 * See Note [npy] in tensorfiles.h for what is accepted.
 */
#include "export/tensors/tensorfiles-private.h"

#include <string.h>

#define NPY_MAGIC     "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN     64
#define NPY_MAXDIMS   32          /* numpy 1.x cannot load more */
/* numpy leaves room for the first dim to grow to 21 digits in place. */
#define NPY_GROWTH_AXIS_MAX_DIGITS 21

typedef struct
{
  const char *code;   /* descr without the byte-order mark */
  GraphDType  dtype;
  guint       swap;   /* byte-swap unit for '>' data (complex: per part) */
} NpyType;

static const NpyType npy_types[] = {
  { "f2",  GRAPH_DTYPE_FLOAT16,    2 },
  { "f4",  GRAPH_DTYPE_FLOAT,      4 },
  { "f8",  GRAPH_DTYPE_DOUBLE,     8 },
  { "i1",  GRAPH_DTYPE_INT8,       1 },
  { "i2",  GRAPH_DTYPE_INT16,      2 },
  { "i4",  GRAPH_DTYPE_INT32,      4 },
  { "i8",  GRAPH_DTYPE_INT64,      8 },
  { "u1",  GRAPH_DTYPE_UINT8,      1 },
  { "u2",  GRAPH_DTYPE_UINT16,     2 },
  { "u4",  GRAPH_DTYPE_UINT32,     4 },
  { "u8",  GRAPH_DTYPE_UINT64,     8 },
  { "b1",  GRAPH_DTYPE_BOOL,       1 },
  { "c8",  GRAPH_DTYPE_COMPLEX64,  4 },
  { "c16", GRAPH_DTYPE_COMPLEX128, 8 },
};

static const NpyType *
npy_type_for_dtype (GraphDType dtype)
{
  for (gsize i = 0; i < G_N_ELEMENTS (npy_types); i++)
    if (npy_types[i].dtype == dtype)
      return &npy_types[i];
  return NULL;
}

/* ---- header parser ------------------------------------------------------ */

/* Note [npy header grammar]
 * What numpy writes, and what ast.literal_eval would accept of it:
 *   dict  := '{' [ entry { ',' entry } [ ',' ] ] '}'
 *   entry := string ':' value        (keys: descr, fortran_order, shape)
 *   descr := string                  (a list here is a structured dtype)
 *   fortran_order := 'True' | 'False'
 *   shape := '(' ')' | '(' int ',' ')' | '(' int { ',' int } [ ',' ] ')'
 *   int   := digits [ 'L' ]          (python 2 wrote 3L)
 * with spaces, tabs and newlines between tokens.  Strings take no escapes
 * (no valid descr needs one).  Each value is parsed by what its key needs,
 * so there is no recursion and garbage fails at its first byte. */
typedef struct
{
  const char *name;     /* for messages */
  const char *text;     /* the header */
  gsize       len;
  gsize       pos;
  gsize       base;     /* file offset of text[0] */
  GError    **error;
} NpyParser;

typedef struct
{
  char    *descr;
  gboolean fortran_order;
  guint    rank;
  gint64   dims[TENSOR_MAX_RANK];
} NpyHeader;

static gboolean G_GNUC_PRINTF (2, 3)
npy_fail (NpyParser *p, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (p->error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_FORMAT,
               "%s: header at byte %" G_GSIZE_FORMAT ": %s",
               p->name, p->base + p->pos, msg);
  return FALSE;
}

/* A short printable excerpt of the text at the current position. */
static char *
npy_excerpt (NpyParser *p)
{
  if (p->pos >= p->len)
    return g_strdup ("end of header");
  GString *s = g_string_new ("'");
  for (gsize i = p->pos; i < p->len && i < p->pos + 16; i++)
    {
      guchar c = p->text[i];
      if (c >= 0x20 && c < 0x7f)
        g_string_append_c (s, c);
      else
        g_string_append_printf (s, "\\x%02x", c);
    }
  g_string_append_c (s, '\'');
  return g_string_free (s, FALSE);
}

static gboolean
npy_expected (NpyParser *p, const char *what)
{
  g_autofree char *got = npy_excerpt (p);
  return npy_fail (p, "expected %s, found %s", what, got);
}

static void
npy_skip_ws (NpyParser *p)
{
  while (p->pos < p->len && strchr (" \t\r\n", p->text[p->pos]) != NULL
         && p->text[p->pos] != '\0')
    p->pos++;
}

static gboolean
npy_accept (NpyParser *p, char c)
{
  npy_skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == c)
    {
      p->pos++;
      return TRUE;
    }
  return FALSE;
}

static gboolean
npy_expect (NpyParser *p, char c)
{
  char what[4] = { '\'', c, '\'', 0 };
  return npy_accept (p, c) || npy_expected (p, what);
}

static gboolean
npy_parse_string (NpyParser *p, char **out)
{
  npy_skip_ws (p);
  if (p->pos >= p->len || (p->text[p->pos] != '\'' && p->text[p->pos] != '"'))
    return npy_expected (p, "a quoted string");
  char quote = p->text[p->pos];
  gsize start = p->pos + 1;
  for (gsize i = start; i < p->len; i++)
    {
      char c = p->text[i];
      if (c == quote)
        {
          *out = g_strndup (p->text + start, i - start);
          p->pos = i + 1;
          return TRUE;
        }
      if (c == '\\' || c == '\n' || c == '\0')
        {
          p->pos = i;
          return npy_fail (p, "unsupported character in a string (escape, newline or NUL)");
        }
      if ((guchar) c >= 0x80)   /* no valid descr has one; keeps messages UTF-8 */
        {
          p->pos = i;
          return npy_fail (p, "non-ASCII character in a string");
        }
    }
  return npy_fail (p, "unterminated string");
}

static gboolean
npy_is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

static gboolean
npy_parse_bool (NpyParser *p, gboolean *out)
{
  npy_skip_ws (p);
  static const char *const words[] = { "False", "True" };
  for (int v = 0; v < 2; v++)
    {
      gsize n = strlen (words[v]);
      if (p->len - p->pos >= n && memcmp (p->text + p->pos, words[v], n) == 0
          && (p->pos + n == p->len || !npy_is_ident_char (p->text[p->pos + n])))
        {
          p->pos += n;
          *out = v;
          return TRUE;
        }
    }
  return npy_expected (p, "True or False");
}

static gboolean
npy_parse_dim (NpyParser *p, gint64 *out)
{
  npy_skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == '-')
    return npy_fail (p, "negative dimension");
  if (p->pos >= p->len || !g_ascii_isdigit (p->text[p->pos]))
    return npy_expected (p, "a dimension (non-negative integer)");
  gsize start = p->pos;
  guint64 v = 0;
  while (p->pos < p->len && g_ascii_isdigit (p->text[p->pos]))
    {
      if (!g_uint64_checked_mul (&v, v, 10)
          || !g_uint64_checked_add (&v, v, (guint64) (p->text[p->pos] - '0'))
          || v > (guint64) G_MAXINT64)
        {
          p->pos = start;
          return npy_fail (p, "dimension does not fit in 64 bits");
        }
      p->pos++;
    }
  if (p->pos - start > 1 && p->text[start] == '0')
    {
      p->pos = start;
      return npy_fail (p, "dimension with a leading zero");
    }
  if (p->pos < p->len && (p->text[p->pos] == 'L' || p->text[p->pos] == 'l'))
    p->pos++;
  if (p->pos < p->len && npy_is_ident_char (p->text[p->pos]))
    return npy_expected (p, "',' or ')' after a dimension");
  *out = (gint64) v;
  return TRUE;
}

static gboolean
npy_parse_shape (NpyParser *p, NpyHeader *h)
{
  npy_skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == '[')
    return npy_fail (p, "shape is a list, numpy writes a tuple");
  if (!npy_expect (p, '('))
    return FALSE;
  if (npy_accept (p, ')'))
    return TRUE;                      /* () : a 0-d array */
  for (;;)
    {
      if (h->rank == TENSOR_MAX_RANK)
        return npy_fail (p, "more than %d dimensions", TENSOR_MAX_RANK);
      if (!npy_parse_dim (p, &h->dims[h->rank]))
        return FALSE;
      h->rank++;
      if (npy_accept (p, ')'))
        {
          if (h->rank == 1)            /* (3) is the int 3, not a tuple */
            return npy_fail (p, "shape (N) is not a tuple; numpy writes (N,)");
          return TRUE;
        }
      if (!npy_accept (p, ','))
        return npy_expected (p, "',' or ')' after a dimension");
      if (npy_accept (p, ')'))
        return TRUE;
    }
}

static gboolean
npy_parse_header (NpyParser *p, NpyHeader *h)
{
  enum { DESCR = 1, FORTRAN = 2, SHAPE = 4 };
  guint seen = 0;

  if (!npy_expect (p, '{'))
    return FALSE;
  while (!npy_accept (p, '}'))
    {
      g_autofree char *key = NULL;
      gsize key_pos;

      npy_skip_ws (p);
      key_pos = p->pos;
      if (!npy_parse_string (p, &key) || !npy_expect (p, ':'))
        return FALSE;
      guint bit = g_str_equal (key, "descr") ? DESCR
                  : g_str_equal (key, "fortran_order") ? FORTRAN
                  : g_str_equal (key, "shape") ? SHAPE : 0;
      if (bit == 0 || (seen & bit))
        {
          p->pos = key_pos;
          return npy_fail (p, bit ? "duplicate key '%s'"
                                  : "unexpected key '%s' (numpy writes only "
                                    "'descr', 'fortran_order' and 'shape')", key);
        }
      seen |= bit;
      if (bit == DESCR)
        {
          npy_skip_ws (p);
          if (p->pos < p->len && p->text[p->pos] == '[')
            {
              g_set_error (p->error, EXPORT_TENSOR_FILE_ERROR,
                           EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED,
                           "%s: header at byte %" G_GSIZE_FORMAT ": structured dtypes "
                           "(a list descr) are not supported",
                           p->name, p->base + p->pos);
              return FALSE;
            }
          if (!npy_parse_string (p, &h->descr))
            return FALSE;
        }
      else if (bit == FORTRAN)
        {
          if (!npy_parse_bool (p, &h->fortran_order))
            return FALSE;
        }
      else if (!npy_parse_shape (p, h))
        return FALSE;

      if (npy_accept (p, '}'))
        break;
      if (!npy_accept (p, ','))
        return npy_expected (p, "',' or '}'");
    }
  npy_skip_ws (p);
  if (p->pos != p->len)
    return npy_expected (p, "only spaces and a newline after the header dict");
  if (seen != (DESCR | FORTRAN | SHAPE))
    return npy_fail (p, "header dict lacks %s",
                     !(seen & DESCR) ? "'descr'"
                     : !(seen & FORTRAN) ? "'fortran_order'" : "'shape'");
  return TRUE;
}

/* ---- loading ------------------------------------------------------------ */

static gboolean G_GNUC_PRINTF (4, 5)
npy_error (GError **error, int code, const char *name, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, EXPORT_TENSOR_FILE_ERROR, code, "%s: %s", name, msg);
  return FALSE;
}

/* Resolves descr to a type; *swap is set for big-endian multi-byte data. */
static const NpyType *
npy_lookup_descr (const char *descr, const char *name, gboolean *swap, GError **error)
{
  char order = descr[0];
  const char *code = descr + 1;

  *swap = FALSE;
  if (order != '<' && order != '>' && order != '|' && order != '=')
    {
      /* numpy always writes a byte-order mark. */
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                 "descr '%s' has no byte-order mark ('<', '>', '|' or '=')", descr);
      return NULL;
    }
  if (code[0] == 'O')
    {
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED, name,
                 "object arrays (descr '%s') hold pickled Python objects and "
                 "cannot be loaded", descr);
      return NULL;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (npy_types); i++)
    if (g_str_equal (code, npy_types[i].code))
      {
        const NpyType *t = &npy_types[i];
#if G_BYTE_ORDER == G_BIG_ENDIAN
        *swap = t->swap > 1 && order != '>';
#else
        *swap = t->swap > 1 && order == '>';
#endif
        return t;
      }
  npy_error (error, EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED, name,
             "unsupported dtype '%s' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 "
             "b1 c8 c16)", descr);
  return NULL;
}

static void
npy_byteswap (guint8 *dst, const guint8 *src, gsize nbytes, guint unit)
{
  for (gsize off = 0; off < nbytes; off += unit)
    for (guint k = 0; k < unit; k++)
      dst[off + k] = src[off + unit - 1 - k];
}

/* Parses `data`; if `backing` is given (the GBytes that holds `data`),
 * little-endian, element-aligned data become a view of it instead of a
 * copy. */
static Tensor *
npy_parse (const guint8 *data, gsize len, GBytes *backing, const char *name,
           GError **error)
{
  guint major, minor;
  gsize prefix, hlen;

  if (len < NPY_MAGIC_LEN + 2 || memcmp (data, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
    {
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                 len < NPY_MAGIC_LEN + 2 && memcmp (data, NPY_MAGIC, MIN (len, NPY_MAGIC_LEN)) == 0
                 ? "truncated: %" G_GSIZE_FORMAT " bytes, shorter than the 8-byte npy preamble"
                 : "not a .npy file (no \\x93NUMPY magic at byte 0; file is %" G_GSIZE_FORMAT " bytes)",
                 len);
      return NULL;
    }
  major = data[6];
  minor = data[7];
  if (major < 1 || major > 3 || minor != 0)
    {
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                 "byte 6: unsupported format version %u.%u (known: 1.0, 2.0, 3.0)",
                 major, minor);
      return NULL;
    }
  prefix = major == 1 ? 10 : 12;
  if (len < prefix)
    {
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                 "truncated: %" G_GSIZE_FORMAT " bytes, the version %u.0 preamble "
                 "needs %" G_GSIZE_FORMAT, len, major, prefix);
      return NULL;
    }
  hlen = major == 1 ? (gsize) data[8] | (gsize) data[9] << 8
                    : (gsize) data[8] | (gsize) data[9] << 8
                      | (gsize) data[10] << 16 | (gsize) data[11] << 24;
  if (hlen > len - prefix)
    {
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                 "byte 8: header length %" G_GSIZE_FORMAT " runs past the end of "
                 "the file (%" G_GSIZE_FORMAT " bytes)", hlen, len);
      return NULL;
    }
  if (major == 3 && !g_utf8_validate_len ((const char *) data + prefix, hlen, NULL))
    {
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                 "byte %" G_GSIZE_FORMAT ": version 3.0 header is not valid UTF-8",
                 prefix);
      return NULL;
    }

  NpyHeader h = { 0 };
  NpyParser p = { name, (const char *) data + prefix, hlen, 0, prefix, error };
  if (!npy_parse_header (&p, &h))
    {
      g_free (h.descr);
      return NULL;
    }
  g_autofree char *descr = h.descr;

  gboolean swap;
  const NpyType *type = npy_lookup_descr (descr, name, &swap, error);
  if (type == NULL)
    return NULL;
  if (h.fortran_order)
    {
      npy_error (error, EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED, name,
                 "fortran_order is True: only C-order arrays are supported "
                 "(save np.ascontiguousarray(a) instead)");
      return NULL;
    }

  /* Shape against file size, before anything is allocated. */
  gsize offset = prefix + hlen;
  gsize have = len - offset;
  gsize elem = graph_dtype_size (type->dtype);
  guint64 need = elem;
  gboolean overflow = FALSE;
  for (guint i = 0; i < h.rank && !overflow; i++)
    overflow = !g_uint64_checked_mul (&need, need, (guint64) h.dims[i]);
  if (overflow || need != have)
    {
      GString *shape = g_string_new ("(");
      for (guint i = 0; i < h.rank; i++)
        g_string_append_printf (shape, "%s%" G_GINT64_FORMAT, i ? ", " : "", h.dims[i]);
      g_string_append (shape, h.rank == 1 ? ",)" : ")");
      if (overflow)
        npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                   "shape %s of '%s' overflows 64-bit byte counts", shape->str, descr);
      else
        npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name,
                   "shape %s of '%s' needs %" G_GUINT64_FORMAT " data bytes, but the "
                   "file has %" G_GSIZE_FORMAT " after the header (byte %" G_GSIZE_FORMAT ")",
                   shape->str, descr, need, have, offset);
      g_string_free (shape, TRUE);
      return NULL;
    }

  g_autoptr(GBytes) bytes = NULL;
  if (swap)
    {
      guint8 *copy = g_malloc (need);
      npy_byteswap (copy, data + offset, need, type->swap);
      bytes = g_bytes_new_take (copy, need);
    }
  else if (backing != NULL && offset % elem == 0)
    bytes = g_bytes_new_from_bytes (backing, offset, need);
  else
    bytes = g_bytes_new (data + offset, need);

  g_autoptr(GError) local = NULL;
  Tensor *t = tensor_new (type->dtype, h.rank, h.dims, bytes, &local);
  if (t == NULL)
    npy_error (error, EXPORT_TENSOR_FILE_ERROR_FORMAT, name, "%s", local->message);
  return t;
}

Tensor *
export_npy_load_from_data (const guint8 *data, gsize len, const char *display_name,
                           GError **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);
  static const guint8 empty[1];
  return npy_parse (data != NULL ? data : empty, len, NULL,
                    display_name != NULL ? display_name : "<npy data>", error);
}

Tensor *
export_npy_load (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  g_autoptr(GBytes) bytes = export_tensor_file_map (path, error);
  if (bytes == NULL)
    return NULL;
  gsize len;
  static const guint8 empty[1];
  const guint8 *data = g_bytes_get_data (bytes, &len);
  return npy_parse (data != NULL ? data : empty, len, bytes, path, error);
}

/* ---- saving ------------------------------------------------------------- */

/* The preamble and header for `t`, exactly as numpy 1.24's
 * _write_array_header writes them; *nbytes gets the data size. */
static GBytes *
npy_header (const Tensor *t, gsize *nbytes, GError **error)
{
  GraphDType dtype = tensor_dtype (t);
  const NpyType *type = npy_type_for_dtype (dtype);
  if (type == NULL)
    {
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID,
                   "cannot save a %s tensor as .npy: numpy has no such dtype",
                   graph_dtype_name (dtype));
      return NULL;
    }
  if (tensor_rank (t) > NPY_MAXDIMS)
    {
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID,
                   "cannot save a %u-d tensor as .npy: numpy supports at most %d dimensions",
                   tensor_rank (t), NPY_MAXDIMS);
      return NULL;
    }
  GBytes *data = tensor_bytes (t);
  *nbytes = tensor_nbytes (t);
  if (data == NULL || g_bytes_get_size (data) != *nbytes)
    {
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID,
                   "cannot save a tensor without data as .npy");
      return NULL;
    }

  /* Keys sorted, repr() of each value, then spare spaces so the first dim
   * can grow in place. */
  guint rank = tensor_rank (t);
  const gint64 *dims = tensor_dims (t);
  GString *hdr = g_string_new (NULL);
  g_string_append_printf (hdr, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                          graph_dtype_size (dtype) == 1 ? '|' : '<', type->code);
  for (guint i = 0; i < rank; i++)
    g_string_append_printf (hdr, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append (hdr, rank == 1 ? ",), }" : "), }");
  if (rank > 0)
    {
      g_autofree char *d0 = g_strdup_printf ("%" G_GINT64_FORMAT, dims[0]);
      for (gsize i = strlen (d0); i < NPY_GROWTH_AXIS_MAX_DIGITS; i++)
        g_string_append_c (hdr, ' ');
    }

  /* Version 1.0 unless the header length does not fit 16 bits (it always
   * does for rank <= TENSOR_MAX_RANK; kept for parity with numpy).  Note
   * numpy pads a full 64 bytes when the header is already aligned. */
  gsize hlen = hdr->len + 1;   /* + '\n' */
  guint major = 1;
  gsize prefix = 10;
  gsize pad = NPY_ALIGN - (prefix + hlen) % NPY_ALIGN;
  if (hlen + pad > G_MAXUINT16)
    {
      major = 2;
      prefix = 12;
      pad = NPY_ALIGN - (prefix + hlen) % NPY_ALIGN;
    }
  gsize total_hlen = hlen + pad;
  for (gsize i = 0; i < pad; i++)
    g_string_append_c (hdr, ' ');
  g_string_append_c (hdr, '\n');

  guint8 pre[12];
  memcpy (pre, NPY_MAGIC, NPY_MAGIC_LEN);
  pre[6] = major;
  pre[7] = 0;
  for (gsize i = 0; i < prefix - 8; i++)
    pre[8 + i] = (total_hlen >> (8 * i)) & 0xff;
  g_string_prepend_len (hdr, (const char *) pre, prefix);
  return g_string_free_to_bytes (hdr);
}

GBytes *
export_npy_save_to_bytes (const Tensor *t, GError **error)
{
  g_return_val_if_fail (t != NULL, NULL);

  gsize nbytes;
  g_autoptr(GBytes) hdr = npy_header (t, &nbytes, error);
  if (hdr == NULL)
    return NULL;
  gsize hsize;
  const guint8 *h = g_bytes_get_data (hdr, &hsize);
  guint8 *out = g_malloc (hsize + nbytes);
  memcpy (out, h, hsize);
  if (nbytes > 0)
    memcpy (out + hsize, tensor_data (t), nbytes);
  return g_bytes_new_take (out, hsize + nbytes);
}

gboolean
export_npy_save (const Tensor *t, const char *path, GError **error)
{
  g_return_val_if_fail (t != NULL && path != NULL, FALSE);

  g_autoptr(GError) local = NULL;
  gsize nbytes;
  g_autoptr(GBytes) hdr = npy_header (t, &nbytes, &local);
  if (hdr == NULL)
    {
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, local->code, "%s: %s",
                   path, local->message);
      return FALSE;
    }
  /* Header and data are written from where they are: no copy of the data. */
  ExportTensorFileWriter *w = export_tensor_file_writer_open (path, error);
  if (w == NULL)
    return FALSE;
  gsize hsize;
  gconstpointer h = g_bytes_get_data (hdr, &hsize);
  if (!export_tensor_file_writer_write (w, h, hsize, error)
      || !export_tensor_file_writer_write (w, tensor_data (t), nbytes, error))
    return FALSE;
  return export_tensor_file_writer_commit (w, error);
}
