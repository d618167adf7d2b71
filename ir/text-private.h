/* Private helpers of the text printer and parser (ir/print.c, ir/parse.c,
 * ir/parse-type.c, ir/lexer.c, ir/text-literal.c).  The grammar is written
 * down in doc/ir-text-grammar.md. */
#pragma once

#include "ir/graph.h"

/* Bounds that keep hostile input from exhausting the stack or memory. */
#define TEXT_MAX_DEPTH 64          /* nested subgraphs, nested types */
#define TEXT_MAX_NAME  4096        /* identifiers, value names, kinds */
#define TEXT_MAX_NUMBER 128        /* characters in one numeric literal */

/* ------------------------------------------------------------------------ */
/* Spelling rules shared by the printer and the parser (text-literal.c).    */

/* Characters of an unquoted value name: [A-Za-z0-9_.:/-]. */
gboolean  text_is_name_char (int c);
/* Characters of an unquoted node kind / attribute name / type word. */
gboolean  text_is_word_char (int c);
/* TRUE if `s` can be printed without quotes as a value name. */
gboolean  text_name_is_plain (const char *s);
/* Characters of a node kind: what graph_symbol() accepts. */
gboolean  text_is_kind_char (int c);
/* One attribute's value as the printer writes it ("[3, 3]", "0.5").
 * (transfer full) */
char     *text_attr_value_to_string (const GraphNode *n, const char *name);
/* TRUE if `s` can be printed unquoted as an attribute name. */
gboolean  text_attr_name_is_plain (const char *s);

/* "..." with PyTorch's escapes (\\ \' \" \a \b \f \n \r \t \v); other
 * control bytes, DEL and bytes that are not part of valid UTF-8 as \xHH. */
void      text_append_quoted (GString *out, const char *s, gsize len);
/* PyTorch's double spelling: %.17g, "." appended when the text has no '.',
 * 'e', "inf" or "nan" (1. 0.10000000000000001 -0. inf -inf nan). */
void      text_append_double (GString *out, double v);
/* Shortest %g text that reads back to the same element of `dtype`
 * (FLOAT, DOUBLE, FLOAT16, BFLOAT16). */
void      text_append_shortest (GString *out, GraphDType dtype, double v);

/* Element codecs for single-element tensor literals.  The encoders check the
 * range of the target type; they return FALSE when the value does not fit. */
gboolean  text_encode_int (GraphDType dtype, gboolean negative, guint64 magnitude,
                           guint8 out[16]);
gboolean  text_encode_float (GraphDType dtype, double v, guint8 out[16]);
gboolean  text_encode_complex (GraphDType dtype, double re, double im, guint8 out[16]);
double    text_decode_float (GraphDType dtype, const guint8 *p);

/* ------------------------------------------------------------------------ */
/* Cursor and tokens (lexer.c).                                              */

typedef struct
{
  const char *text;
  gsize       len;
  gsize       pos;
  const char *filename;
} TextCursor;

/* Character at pos + k, or -1 past the end. */
static inline int
text_peek_at (const TextCursor *c, gsize k)
{
  return c->pos + k < c->len ? (guchar) c->text[c->pos + k] : -1;
}

static inline int
text_peek (const TextCursor *c)
{
  return text_peek_at (c, 0);
}

/* Checks the whole input for NUL bytes and invalid UTF-8. */
gboolean  text_check_encoding (TextCursor *c, GError **error);
/* Spaces, tabs and carriage returns. */
void      text_skip_blank (TextCursor *c);
/* Blanks and newlines. */
void      text_skip_ws (TextCursor *c);
gboolean  text_eat (TextCursor *c, char ch);
/* Consumes `s` when the input continues with it. */
gboolean  text_eat_str (TextCursor *c, const char *s);
/* Consumes keyword `w` when it is not followed by a word character. */
gboolean  text_eat_keyword (TextCursor *c, const char *w);

/* Sets a GRAPH_ERROR_PARSE error "FILE:LINE:COL: message" for byte offset
 * `pos` and returns FALSE. */
gboolean  text_error_at (const TextCursor *c, gsize pos, GError **error,
                         const char *fmt, ...) G_GNUC_PRINTF (4, 5);
/* "FILE:LINE:COL: expected WHAT, found <description of the input at pos>". */
gboolean  text_expected (const TextCursor *c, const char *what, GError **error);
/* 1-based line and column (in characters) of byte offset pos. */
void      text_position (const TextCursor *c, gsize pos, guint *line, guint *col);

/* A run of characters accepted by `accept` (at most TEXT_MAX_NAME), or a
 * quoted string when the input starts with '"' and `allow_quoted`.  The
 * result is NUL-terminated; an empty run fails with "expected WHAT". */
char     *text_lex_word (TextCursor *c, gboolean (*accept) (int ch), gboolean allow_quoted,
                         const char *what, GError **error);
/* A "..." literal (the cursor is on the opening quote); bytes in `out`. */
gboolean  text_lex_string (TextCursor *c, GByteArray *out, GError **error);

typedef struct
{
  gsize    start;        /* offset of the literal */
  gboolean is_float;     /* has '.', an exponent, or is inf/nan */
  char     text[TEXT_MAX_NUMBER + 1];
} TextNumber;

/* [+-]? digits [. digits] [e [+-] digits] | [+-]? (inf | nan) */
gboolean  text_lex_number (TextCursor *c, TextNumber *num, GError **error);
/* Conversions with range checks; errors point at the literal. */
gboolean  text_number_to_int64 (const TextCursor *c, const TextNumber *num, gint64 *out,
                                GError **error);
gboolean  text_number_to_double (const TextCursor *c, const TextNumber *num, double *out,
                                 GError **error);
/* Sign and magnitude of an integer literal (for unsigned 64-bit values). */
gboolean  text_number_to_magnitude (const TextCursor *c, const TextNumber *num,
                                    gboolean *negative, guint64 *magnitude, GError **error);

/* ------------------------------------------------------------------------ */
/* Types (parse-type.c).                                                     */

/* Reads a type as graph_type_to_string() and PyTorch 1.13 spell it. */
GraphType *text_parse_type (TextCursor *c, guint depth, GError **error);

/* ------------------------------------------------------------------------ */
/* Attribute lists (parse-attr.c).                                           */

/* A subgraph attribute read as <Graph>, waiting for its block. */
typedef struct
{
  char    *label;        /* "then_branch" or "branches[1]" */
  Graph   *graph;        /* (transfer none): owned by the node */
  gboolean seen;
} PendingBlock;

void      text_pending_block_clear (gpointer p);
/* "[name=value, ...]" (the cursor is on '['): sets the attributes on n;
 * <Graph> values get an empty subgraph and an entry in `pending`. */
gboolean  text_parse_attrs (TextCursor *c, GraphNode *n, GArray *pending, GError **error);

/* ------------------------------------------------------------------------ */
/* Tensor attribute literals (text-literal.c), shared so that the printer
 * writes the short form exactly when the parser will infer the same dtype
 * and shape.
 *
 * Note [Tensor literal inference]
 * `{v}` and `<Tensor>` carry no dtype or shape.  The parser takes them from
 * the node's single output when its type is a tensor type with a known
 * dtype (the shape too when it is static with one element for `{v}`, or
 * fully static for `<Tensor>`); otherwise `{v}` is a 0-d Long (integer
 * literal), Float (float literal), String or ComplexFloat tensor and
 * `<Tensor>` a 0-d Float.  When that guess would be wrong the printer writes
 * the type explicitly: `{2 : Double(1)}`, `<Tensor : Long(2, 3)>`. */
typedef enum
{
  TEXT_LITERAL_INT,
  TEXT_LITERAL_FLOAT,
  TEXT_LITERAL_STRING,
  TEXT_LITERAL_COMPLEX,
  TEXT_LITERAL_NONE,        /* <Tensor> */
} TextLiteralKind;

/* The dtype and shape the parser infers; dims must hold TENSOR_MAX_RANK. */
void      text_infer_tensor (const GraphType *hint, TextLiteralKind kind,
                             GraphDType *dtype, guint *rank, gint64 *dims);
/* Appends `{v}`, `{v : T}`, `<Tensor>` or `<Tensor : T>` for `t`; `hint` is
 * the type of the node's only output, or NULL. */
void      text_append_tensor (GString *out, const Tensor *t, const GraphType *hint);
