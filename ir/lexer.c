/* The text format's lexer: a cursor over the input, tokens, and errors that
 * say "FILE:LINE:COL: expected X, found Y". */
#include "ir/text-private.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

void
text_position (const TextCursor *c, gsize pos, guint *line, guint *col)
{
  guint l = 1;
  gsize line_start = 0;
  if (pos > c->len)
    pos = c->len;
  for (gsize i = 0; i < pos; i++)
    if (c->text[i] == '\n')
      {
        l++;
        line_start = i + 1;
      }
  /* Columns count characters; continuation bytes of UTF-8 do not count. */
  guint k = 1;
  for (gsize i = line_start; i < pos; i++)
    if (((guchar) c->text[i] & 0xC0) != 0x80)
      k++;
  *line = l;
  *col = k;
}

gboolean
text_error_at (const TextCursor *c, gsize pos, GError **error, const char *fmt, ...)
{
  guint line, col;
  text_position (c, pos, &line, &col);
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, GRAPH_ERROR, GRAPH_ERROR_PARSE, "%s:%u:%u: %s",
               c->filename ? c->filename : "<input>", line, col, msg);
  return FALSE;
}

/* A short, printable description of the input at pos. */
static char *
describe (const TextCursor *c, gsize pos)
{
  if (pos >= c->len)
    return g_strdup ("end of input");
  char ch = c->text[pos];
  if (ch == '\n' || (ch == '\r' && pos + 1 < c->len && c->text[pos + 1] == '\n'))
    return g_strdup ("end of line");
  gsize end = pos;
  gboolean wordy = text_is_name_char ((guchar) ch) || (guchar) ch >= 0x80;
  if (wordy)
    while (end < c->len && end - pos < 24
           && (text_is_name_char ((guchar) c->text[end]) || (guchar) c->text[end] >= 0x80))
      end++;
  else
    end = pos + 1;
  /* Never cut a UTF-8 sequence in the middle. */
  while (end < c->len && ((guchar) c->text[end] & 0xC0) == 0x80)
    end++;
  GString *s = g_string_new ("'");
  for (gsize i = pos; i < end; i++)
    {
      guchar b = (guchar) c->text[i];
      if (b < 0x20 || b == 0x7f)
        g_string_append_printf (s, "\\x%02x", b);
      else
        g_string_append_c (s, (char) b);
    }
  if (wordy && end < c->len && text_is_name_char ((guchar) c->text[end]))
    g_string_append (s, "...");
  g_string_append_c (s, '\'');
  return g_string_free (s, FALSE);
}

gboolean
text_expected (const TextCursor *c, const char *what, GError **error)
{
  g_autofree char *found = describe (c, c->pos);
  return text_error_at (c, c->pos, error, "expected %s, found %s", what, found);
}

gboolean
text_check_encoding (TextCursor *c, GError **error)
{
  const char *nul = memchr (c->text, '\0', c->len);
  if (nul != NULL)
    return text_error_at (c, (gsize) (nul - c->text), error, "NUL byte in the input");
  const char *end = NULL;
  if (!g_utf8_validate_len (c->text, c->len, &end))
    return text_error_at (c, (gsize) (end - c->text), error,
                          "invalid UTF-8 (byte 0x%02x)", (guchar) *end);
  return TRUE;
}

void
text_skip_blank (TextCursor *c)
{
  while (c->pos < c->len && (c->text[c->pos] == ' ' || c->text[c->pos] == '\t'
                             || c->text[c->pos] == '\r'))
    c->pos++;
}

void
text_skip_ws (TextCursor *c)
{
  while (c->pos < c->len && g_ascii_isspace (c->text[c->pos]))
    c->pos++;
}

gboolean
text_eat (TextCursor *c, char ch)
{
  if (c->pos < c->len && c->text[c->pos] == ch)
    {
      c->pos++;
      return TRUE;
    }
  return FALSE;
}

gboolean
text_eat_str (TextCursor *c, const char *s)
{
  gsize n = strlen (s);
  if (c->len - c->pos >= n && memcmp (c->text + c->pos, s, n) == 0)
    {
      c->pos += n;
      return TRUE;
    }
  return FALSE;
}

gboolean
text_eat_keyword (TextCursor *c, const char *w)
{
  gsize n = strlen (w);
  if (c->len - c->pos < n || memcmp (c->text + c->pos, w, n) != 0)
    return FALSE;
  if (c->pos + n < c->len && text_is_word_char ((guchar) c->text[c->pos + n]))
    return FALSE;
  c->pos += n;
  return TRUE;
}

char *
text_lex_word (TextCursor *c, gboolean (*accept) (int ch), gboolean allow_quoted,
               const char *what, GError **error)
{
  gsize start = c->pos;
  if (allow_quoted && text_peek (c) == '"')
    {
      g_autoptr (GByteArray) bytes = g_byte_array_new ();
      if (!text_lex_string (c, bytes, error))
        return NULL;
      if (bytes->len > TEXT_MAX_NAME)
        {
          text_error_at (c, start, error, "%s is longer than %d bytes", what, TEXT_MAX_NAME);
          return NULL;
        }
      if ((bytes->len && memchr (bytes->data, '\0', bytes->len) != NULL)
          || !g_utf8_validate_len ((const char *) bytes->data, bytes->len, NULL))
        {
          text_error_at (c, start, error, "%s must be valid UTF-8 without NUL bytes", what);
          return NULL;
        }
      return g_strndup (bytes->len ? (const char *) bytes->data : "", bytes->len);
    }
  while (c->pos < c->len && accept ((guchar) c->text[c->pos]))
    {
      if (c->pos - start >= TEXT_MAX_NAME)
        {
          text_error_at (c, start, error, "%s is longer than %d bytes", what, TEXT_MAX_NAME);
          return NULL;
        }
      c->pos++;
    }
  if (c->pos == start)
    {
      text_expected (c, what, error);
      return NULL;
    }
  return g_strndup (c->text + start, c->pos - start);
}

static int
hex_value (int ch)
{
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

gboolean
text_lex_string (TextCursor *c, GByteArray *out, GError **error)
{
  gsize start = c->pos;
  if (!text_eat (c, '"'))
    return text_expected (c, "'\"'", error);
  for (;;)
    {
      int ch = text_peek (c);
      if (ch < 0 || ch == '\n')
        return text_error_at (c, start, error, "unterminated string (expected '\"' before %s)",
                              ch < 0 ? "end of input" : "end of line");
      c->pos++;
      if (ch == '"')
        return TRUE;
      guint8 b = (guint8) ch;
      if (ch == '\\')
        {
          gsize esc = c->pos - 1;
          int e = text_peek (c);
          c->pos++;
          switch (e)
            {
            case '\\': b = '\\'; break;
            case '\'': b = '\''; break;
            case '"': b = '"'; break;
            case 'a': b = '\a'; break;
            case 'b': b = '\b'; break;
            case 'f': b = '\f'; break;
            case 'n': b = '\n'; break;
            case 'r': b = '\r'; break;
            case 't': b = '\t'; break;
            case 'v': b = '\v'; break;
            case 'x':
              {
                int h1 = hex_value (text_peek (c)), h2 = hex_value (text_peek_at (c, 1));
                if (h1 < 0 || h2 < 0)
                  return text_error_at (c, esc, error, "expected two hex digits after \\x");
                b = (guint8) (h1 * 16 + h2);
                c->pos += 2;
                break;
              }
            default:
              if (e >= '0' && e <= '7')
                {
                  /* PyTorch writes other bytes as three octal digits. */
                  guint v = (guint) (e - '0');
                  for (int k = 0; k < 2 && text_peek (c) >= '0' && text_peek (c) <= '7'; k++)
                    v = v * 8 + (guint) (text_peek (c) - '0'), c->pos++;
                  if (v > 255)
                    return text_error_at (c, esc, error, "octal escape out of range (above \\377)");
                  b = (guint8) v;
                }
              else
                {
                  c->pos = esc;
                  return text_error_at (c, esc, error,
                                        "unknown escape sequence in string (expected one of "
                                        "\\\\ \\' \\\" \\a \\b \\f \\n \\r \\t \\v \\xHH \\ooo)");
                }
            }
        }
      g_byte_array_append (out, &b, 1);
    }
}

gboolean
text_lex_number (TextCursor *c, TextNumber *num, GError **error)
{
  gsize start = c->pos, p = c->pos;
  num->start = start;
  num->is_float = FALSE;
  if (p < c->len && (c->text[p] == '-' || c->text[p] == '+'))
    p++;
  if (c->len - p >= 3 && (memcmp (c->text + p, "inf", 3) == 0 || memcmp (c->text + p, "nan", 3) == 0)
      && !(c->len - p > 3 && text_is_word_char ((guchar) c->text[p + 3])))
    {
      p += 3;
      num->is_float = TRUE;
    }
  else
    {
      gsize digits = 0;
      while (p < c->len && g_ascii_isdigit (c->text[p]))
        p++, digits++;
      if (p < c->len && c->text[p] == '.')
        {
          num->is_float = TRUE;
          p++;
          while (p < c->len && g_ascii_isdigit (c->text[p]))
            p++, digits++;
        }
      if (digits == 0)
        return text_expected (c, "a number", error);
      if (p < c->len && (c->text[p] == 'e' || c->text[p] == 'E'))
        {
          gsize q = p + 1;
          if (q < c->len && (c->text[q] == '-' || c->text[q] == '+'))
            q++;
          if (q < c->len && g_ascii_isdigit (c->text[q]))
            {
              num->is_float = TRUE;
              p = q;
              while (p < c->len && g_ascii_isdigit (c->text[p]))
                p++;
            }
        }
    }
  if (p < c->len && text_is_word_char ((guchar) c->text[p]))
    {
      c->pos = p;
      return text_error_at (c, start, error, "malformed number");
    }
  if (p - start > TEXT_MAX_NUMBER)
    return text_error_at (c, start, error, "number is longer than %d characters", TEXT_MAX_NUMBER);
  memcpy (num->text, c->text + start, p - start);
  num->text[p - start] = '\0';
  c->pos = p;
  return TRUE;
}

gboolean
text_number_to_magnitude (const TextCursor *c, const TextNumber *num, gboolean *negative,
                          guint64 *magnitude, GError **error)
{
  if (num->is_float)
    return text_error_at (c, num->start, error, "expected an integer, found '%s'", num->text);
  const char *s = num->text;
  *negative = *s == '-';
  if (*s == '-' || *s == '+')
    s++;
  errno = 0;
  char *end = NULL;
  guint64 v = g_ascii_strtoull (s, &end, 10);
  if (errno == ERANGE || end == s || *end)
    return text_error_at (c, num->start, error, "integer out of range: %s", num->text);
  *magnitude = v;
  return TRUE;
}

gboolean
text_number_to_int64 (const TextCursor *c, const TextNumber *num, gint64 *out, GError **error)
{
  gboolean neg;
  guint64 mag;
  if (!text_number_to_magnitude (c, num, &neg, &mag, error))
    return FALSE;
  if ((!neg && mag > (guint64) G_MAXINT64) || (neg && mag > (guint64) G_MAXINT64 + 1))
    return text_error_at (c, num->start, error, "integer out of the 64-bit range: %s", num->text);
  *out = neg ? (gint64) (0 - mag) : (gint64) mag;
  return TRUE;
}

gboolean
text_number_to_double (const TextCursor *c, const TextNumber *num, double *out, GError **error)
{
  const char *s = num->text;
  gboolean neg = *s == '-';
  const char *body = (*s == '-' || *s == '+') ? s + 1 : s;
  if (strcmp (body, "inf") == 0)
    {
      *out = neg ? -HUGE_VAL : HUGE_VAL;
      return TRUE;
    }
  if (strcmp (body, "nan") == 0)
    {
      *out = NAN;
      return TRUE;
    }
  errno = 0;
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  if (end == s || *end)
    return text_error_at (c, num->start, error, "malformed number '%s'", num->text);
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
    return text_error_at (c, num->start, error, "number out of the range of a double: %s",
                          num->text);
  *out = v;
  return TRUE;
}
