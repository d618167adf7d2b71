/* Spelling of names, strings, numbers and tensor literals in the text
 * format, shared by the printer and the parser so that they agree. */
#include "ir/text-private.h"
#include <math.h>
#include <string.h>

gboolean
text_is_word_char (int c)
{
  return c >= 0 && c < 0x80 && (g_ascii_isalnum (c) || c == '_');
}

gboolean
text_is_name_char (int c)
{
  return text_is_word_char (c) || c == '.' || c == ':' || c == '/' || c == '-';
}

gboolean
text_is_kind_char (int c)
{
  /* graph_symbol() refuses blanks, control characters and these. */
  return c > ' ' && c != 0x7f && strchr ("()[]{},=%\"'", c) == NULL;
}

static gboolean
all_chars (const char *s, gboolean (*accept) (int))
{
  if (s == NULL || *s == '\0' || strlen (s) > TEXT_MAX_NAME)
    return FALSE;
  for (; *s; s++)
    if (!accept ((guchar) *s))
      return FALSE;
  return TRUE;
}

gboolean
text_name_is_plain (const char *s)
{
  return all_chars (s, text_is_name_char);
}

gboolean
text_attr_name_is_plain (const char *s)
{
  return all_chars (s, text_is_word_char);
}

void
text_append_quoted (GString *out, const char *s, gsize len)
{
  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar b = (guchar) s[i];
      switch (b)
        {
        case '\\': g_string_append (out, "\\\\"); continue;
        case '\'': g_string_append (out, "\\'"); continue;
        case '"': g_string_append (out, "\\\""); continue;
        case '\a': g_string_append (out, "\\a"); continue;
        case '\b': g_string_append (out, "\\b"); continue;
        case '\f': g_string_append (out, "\\f"); continue;
        case '\n': g_string_append (out, "\\n"); continue;
        case '\r': g_string_append (out, "\\r"); continue;
        case '\t': g_string_append (out, "\\t"); continue;
        case '\v': g_string_append (out, "\\v"); continue;
        default: break;
        }
      if (b >= 0x20 && b < 0x7f)
        g_string_append_c (out, (char) b);
      else if (b >= 0x80
               && g_utf8_get_char_validated (s + i, (gssize) (len - i)) < (gunichar) -2)
        {
          /* A whole, valid UTF-8 sequence is written as is. */
          gsize n = (gsize) g_utf8_skip[b];
          g_string_append_len (out, s + i, (gssize) n);
          i += n - 1;
        }
      else
        g_string_append_printf (out, "\\x%02x", b);
    }
  g_string_append_c (out, '"');
}

void
text_append_double (GString *out, double v)
{
  if (isnan (v))
    {
      g_string_append (out, "nan");
      return;
    }
  if (isinf (v))
    {
      g_string_append (out, v < 0 ? "-inf" : "inf");
      return;
    }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.17g", v);
  g_string_append (out, buf);
  if (strpbrk (buf, ".e") == NULL)
    g_string_append_c (out, '.');
}

/* ------------------------------------------------------------------------ */
/* Element codecs                                                            */

/* Rounds v to nearest-even in a binary format with eb exponent and mb
 * mantissa bits (float16: 5/10, bfloat16: 8/7).  FALSE on overflow. */
static gboolean
pack_small_float (double v, int eb, int mb, guint32 *out)
{
  guint64 bits;
  memcpy (&bits, &v, sizeof bits);
  guint32 sign = (guint32) (bits >> 63) << (eb + mb);
  int exp = (int) ((bits >> 52) & 0x7ff);
  guint64 mant = bits & ((G_GUINT64_CONSTANT (1) << 52) - 1);
  guint32 exp_max = (1u << eb) - 1;
  int bias = (1 << (eb - 1)) - 1;
  if (exp == 0x7ff)
    {
      *out = sign | (exp_max << mb) | (mant ? 1u << (mb - 1) : 0);
      return TRUE;
    }
  if (exp == 0 && mant == 0)
    {
      *out = sign;
      return TRUE;
    }
  /* v = M * 2^(e - 52) */
  guint64 M = exp ? (mant | (G_GUINT64_CONSTANT (1) << 52)) : mant;
  int e = exp ? exp - 1023 : -1022;
  int te = e < 1 - bias ? 1 - bias : e;          /* subnormals use the least exponent */
  int shift = 52 - mb + (te - e);
  guint64 m = 0;
  if (shift < 64)
    {
      m = M >> shift;
      guint64 rem = M & ((G_GUINT64_CONSTANT (1) << shift) - 1);
      guint64 half = G_GUINT64_CONSTANT (1) << (shift - 1);
      if (rem > half || (rem == half && (m & 1)))
        m++;
    }
  if (m >> (mb + 1))
    {
      m >>= 1;
      te++;
    }
  guint32 field;
  if (m & (1u << mb))
    {
      int E = te + bias;
      if (E >= (int) exp_max)
        return FALSE;
      field = ((guint32) E << mb) | (guint32) (m & ((1u << mb) - 1));
    }
  else
    field = (guint32) m;
  *out = sign | field;
  return TRUE;
}

static float
unpack_half (guint16 h)
{
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0x1f)
    v = mant ? NAN : INFINITY;
  else if (exp == 0)
    v = ldexp (mant, -24);
  else
    v = ldexp (mant | 0x400, exp - 25);
  return (float) ((h & 0x8000) ? -v : v);
}

double
text_decode_float (GraphDType dtype, const guint8 *p)
{
  switch (dtype)
    {
    case GRAPH_DTYPE_FLOAT:
    case GRAPH_DTYPE_COMPLEX64:
      {
        float f;
        memcpy (&f, p, 4);
        return f;
      }
    case GRAPH_DTYPE_DOUBLE:
    case GRAPH_DTYPE_COMPLEX128:
      {
        double d;
        memcpy (&d, p, 8);
        return d;
      }
    case GRAPH_DTYPE_FLOAT16:
      {
        guint16 h;
        memcpy (&h, p, 2);
        return unpack_half (h);
      }
    case GRAPH_DTYPE_BFLOAT16:
      {
        guint16 h;
        memcpy (&h, p, 2);
        guint32 bits = (guint32) h << 16;
        float f;
        memcpy (&f, &bits, 4);
        return f;
      }
    default:
      g_return_val_if_reached (0);
    }
}

gboolean
text_encode_float (GraphDType dtype, double v, guint8 out[16])
{
  switch (dtype)
    {
    case GRAPH_DTYPE_FLOAT:
    case GRAPH_DTYPE_COMPLEX64:
      {
        /* Past FLT_MAX + half an ulp the value rounds to infinity (and the
         * conversion is undefined behaviour in C): out of range. */
        if (isfinite (v) && fabs (v) >= 0x1.ffffffp127)
          return FALSE;
        float f = (float) v;
        memset (out, 0, 16);
        memcpy (out, &f, 4);
        return TRUE;
      }
    case GRAPH_DTYPE_DOUBLE:
    case GRAPH_DTYPE_COMPLEX128:
      memset (out, 0, 16);
      memcpy (out, &v, 8);
      return TRUE;
    case GRAPH_DTYPE_FLOAT16:
    case GRAPH_DTYPE_BFLOAT16:
      {
        guint32 bits;
        if (!pack_small_float (v, dtype == GRAPH_DTYPE_FLOAT16 ? 5 : 8,
                               dtype == GRAPH_DTYPE_FLOAT16 ? 10 : 7, &bits))
          return FALSE;
        guint16 h = (guint16) bits;
        memset (out, 0, 16);
        memcpy (out, &h, 2);
        return TRUE;
      }
    default:
      return FALSE;
    }
}

gboolean
text_encode_complex (GraphDType dtype, double re, double im, guint8 out[16])
{
  guint8 a[16], b[16];
  if (dtype != GRAPH_DTYPE_COMPLEX64 && dtype != GRAPH_DTYPE_COMPLEX128)
    return FALSE;
  if (!text_encode_float (dtype, re, a) || !text_encode_float (dtype, im, b))
    return FALSE;
  gsize half = graph_dtype_size (dtype) / 2;
  memcpy (out, a, half);
  memcpy (out + half, b, half);
  return TRUE;
}

gboolean
text_encode_int (GraphDType dtype, gboolean negative, guint64 mag, guint8 out[16])
{
  guint64 max_pos;
  guint64 max_neg;   /* largest magnitude allowed when negative */
  switch (dtype)
    {
    case GRAPH_DTYPE_BOOL: max_pos = 1; max_neg = 0; break;
    case GRAPH_DTYPE_UINT8: max_pos = G_MAXUINT8; max_neg = 0; break;
    case GRAPH_DTYPE_UINT16: max_pos = G_MAXUINT16; max_neg = 0; break;
    case GRAPH_DTYPE_UINT32: max_pos = G_MAXUINT32; max_neg = 0; break;
    case GRAPH_DTYPE_UINT64: max_pos = G_MAXUINT64; max_neg = 0; break;
    case GRAPH_DTYPE_INT8: max_pos = G_MAXINT8; max_neg = (guint64) G_MAXINT8 + 1; break;
    case GRAPH_DTYPE_INT16: max_pos = G_MAXINT16; max_neg = (guint64) G_MAXINT16 + 1; break;
    case GRAPH_DTYPE_INT32: max_pos = G_MAXINT32; max_neg = (guint64) G_MAXINT32 + 1; break;
    case GRAPH_DTYPE_INT64: max_pos = G_MAXINT64; max_neg = (guint64) G_MAXINT64 + 1; break;
    default: return FALSE;
    }
  if (negative ? mag > max_neg : mag > max_pos)
    return FALSE;
  /* Two's complement of the magnitude, little end first as in memory. */
  guint64 v = negative ? 0 - mag : mag;
  gsize n = graph_dtype_size (dtype);
  memset (out, 0, 16);
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  memcpy (out, &v, n);
#else
  memcpy (out, (guint8 *) &v + (8 - n), n);
#endif
  return TRUE;
}

char *
graph_float_to_shortest (GraphDType dtype, double v)
{
  GString *out = g_string_new (NULL);
  text_append_shortest (out, dtype, v);
  return g_string_free (out, FALSE);
}

void
text_append_shortest (GString *out, GraphDType dtype, double v)
{
  if (isnan (v) || isinf (v))
    {
      text_append_double (out, v);
      /* "1." is not wanted here: drop nothing, nan/inf have no dot. */
      return;
    }
  guint8 want[16], got[16];
  gsize size = graph_dtype_size (dtype);
  if (dtype == GRAPH_DTYPE_COMPLEX64)
    size = 4;
  else if (dtype == GRAPH_DTYPE_COMPLEX128)
    size = 8;
  text_encode_float (dtype, v, want);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int p = 1; p <= 17; p++)
    {
      char fmt[8];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", p);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      double back = g_ascii_strtod (buf, NULL);
      if (text_encode_float (dtype, back, got) && memcmp (want, got, size) == 0)
        break;
    }
  g_string_append (out, buf);
}

/* ------------------------------------------------------------------------ */
/* Tensor literals                                                           */

void
text_infer_tensor (const GraphType *hint, TextLiteralKind kind, GraphDType *dtype, guint *rank,
                   gint64 *dims)
{
  static const GraphDType defaults[] = {
    [TEXT_LITERAL_INT] = GRAPH_DTYPE_INT64,     [TEXT_LITERAL_FLOAT] = GRAPH_DTYPE_FLOAT,
    [TEXT_LITERAL_STRING] = GRAPH_DTYPE_STRING, [TEXT_LITERAL_COMPLEX] = GRAPH_DTYPE_COMPLEX64,
    [TEXT_LITERAL_NONE] = GRAPH_DTYPE_FLOAT,
  };
  *dtype = defaults[kind];
  *rank = 0;
  if (!graph_type_is_tensor (hint))
    return;
  GraphDType h = graph_type_dtype (hint);
  gboolean is_complex = h == GRAPH_DTYPE_COMPLEX64 || h == GRAPH_DTYPE_COMPLEX128;
  gboolean usable;
  switch (kind)
    {
    case TEXT_LITERAL_STRING: usable = h == GRAPH_DTYPE_STRING; break;
    case TEXT_LITERAL_COMPLEX: usable = is_complex; break;
    case TEXT_LITERAL_NONE: usable = h != GRAPH_DTYPE_UNDEFINED; break;
    default: usable = h != GRAPH_DTYPE_UNDEFINED && h != GRAPH_DTYPE_STRING && !is_complex; break;
    }
  if (!usable)
    return;
  *dtype = h;
  int r = graph_type_rank (hint);
  gint64 shape[TENSOR_MAX_RANK];
  gint64 numel;
  if (r < 0 || !graph_type_static_shape (hint, shape)
      || !tensor_shape_numel ((guint) r, shape, &numel))
    return;
  if (kind != TEXT_LITERAL_NONE && numel != 1)
    return;
  *rank = (guint) r;
  memcpy (dims, shape, (gsize) r * sizeof (gint64));
}

static void
append_int_element (GString *out, GraphDType dtype, const guint8 *p)
{
  switch (dtype)
    {
#define INT_CASE(E, T, FMT) case GRAPH_DTYPE_##E: { T x; memcpy (&x, p, sizeof x); \
        g_string_append_printf (out, "%" FMT, x); break; }
    INT_CASE (INT8, gint8, "d") INT_CASE (INT16, gint16, "d") INT_CASE (INT32, gint32, "d")
    INT_CASE (INT64, gint64, G_GINT64_FORMAT) INT_CASE (UINT8, guint8, "u")
    INT_CASE (UINT16, guint16, "u") INT_CASE (UINT32, guint32, "u")
    INT_CASE (UINT64, guint64, G_GUINT64_FORMAT) INT_CASE (BOOL, guint8, "u")
#undef INT_CASE
    default: g_return_if_reached ();
    }
}

void
text_append_tensor (GString *out, const Tensor *t, const GraphType *hint)
{
  GraphDType dtype = tensor_dtype (t);
  TextLiteralKind kind = TEXT_LITERAL_NONE;
  g_autoptr (GString) lit = g_string_new (NULL);
  if (tensor_has_data (t) && tensor_numel (t) == 1)
    {
      if (dtype == GRAPH_DTYPE_STRING)
        {
          gsize n;
          const char *s = g_bytes_get_data (tensor_string (t, 0), &n);
          text_append_quoted (lit, s, n);
          kind = TEXT_LITERAL_STRING;
        }
      else
        {
          const guint8 *p = tensor_data (t);
          if (dtype == GRAPH_DTYPE_COMPLEX64 || dtype == GRAPH_DTYPE_COMPLEX128)
            {
              gsize half = graph_dtype_size (dtype) / 2;
              g_string_append_c (lit, '(');
              text_append_shortest (lit, dtype, text_decode_float (dtype, p));
              g_string_append_c (lit, ',');
              text_append_shortest (lit, dtype, text_decode_float (dtype, p + half));
              g_string_append_c (lit, ')');
              kind = TEXT_LITERAL_COMPLEX;
            }
          else if (graph_dtype_is_floating (dtype))
            {
              text_append_shortest (lit, dtype, text_decode_float (dtype, p));
              kind = strpbrk (lit->str, ".en") ? TEXT_LITERAL_FLOAT : TEXT_LITERAL_INT;
            }
          else
            {
              append_int_element (lit, dtype, p);
              kind = TEXT_LITERAL_INT;
            }
        }
    }
  GraphDType guess;
  guint rank;
  gint64 dims[TENSOR_MAX_RANK];
  text_infer_tensor (hint, kind, &guess, &rank, dims);
  gboolean same = guess == dtype && rank == tensor_rank (t)
                  && (rank == 0 || memcmp (dims, tensor_dims (t), rank * sizeof (gint64)) == 0);
  g_autofree char *type_str = NULL;
  if (!same)
    {
      g_autoptr (GraphType) type = graph_type_new_tensor_static (dtype, tensor_rank (t),
                                                                  tensor_dims (t));
      type_str = graph_type_to_string (type);
    }
  if (kind == TEXT_LITERAL_NONE)
    {
      g_string_append (out, "<Tensor");
      if (type_str)
        g_string_append_printf (out, " : %s", type_str);
      g_string_append_c (out, '>');
    }
  else
    {
      g_string_append_c (out, '{');
      g_string_append_len (out, lit->str, (gssize) lit->len);
      if (type_str)
        g_string_append_printf (out, " : %s", type_str);
      g_string_append_c (out, '}');
    }
}
