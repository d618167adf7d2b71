/* Attribute lists of the text format: "[name=value, ...]" with numbers,
 * strings, tensor literals ({v}, <Tensor>, PyTorch's tensor repr), lists,
 * typed empty lists, types and <Graph> (whose blocks parse.c reads).  See
 * doc/ir-text-grammar.md. */
#include "ir/text-private.h"
#include <string.h>

static gboolean
expect (TextCursor *c, char ch, const char *what, GError **error)
{
  if (text_eat (c, ch))
    return TRUE;
  return text_expected (c, what, error);
}

/* Does the value at the cursor look like PyTorch's tensor repr
 * (" 1.5000  2.0000 [ CPUFloatType{2} ]")?  Returns the offset of its
 * "[ " trailer, or 0. */
static gsize
find_tensor_repr (const TextCursor *c)
{
  gsize i = c->pos;
  while (i < c->len && c->text[i] != '[' && c->text[i] != ']' && c->text[i] != '\n')
    i++;
  if (i + 2 >= c->len || c->text[i] != '[' || c->text[i + 1] != ' ')
    return 0;
  gsize j = i + 2;
  while (j < c->len && g_ascii_isalnum (c->text[j]))
    j++;
  if (j - (i + 2) < 5 || memcmp (c->text + j - 4, "Type", 4) != 0 || j >= c->len
      || c->text[j] != '{')
    return 0;
  return i;
}

/* Reads the repr: a tensor of the trailer's dtype and shape whose data
 * is not kept (PyTorch prints it rounded). */
static Tensor *
parse_tensor_repr (TextCursor *c, gsize trailer, GError **error)
{
  c->pos = trailer + 2;
  gsize word = c->pos;
  while (g_ascii_isalnum (text_peek (c)))
    c->pos++;
  if (c->pos - word < 5 || memcmp (c->text + c->pos - 4, "Type", 4) != 0 || text_peek (c) != '{')
    {
      c->pos = word;
      return text_expected (c, "a tensor type and shape ('CPUFloatType{2}')", error), NULL;
    }
  g_autofree char *name = g_strndup (c->text + word, c->pos - word - 4);   /* drop "Type" */
  static const char *const prefixes[] = { "", "CPU", "CUDA", "HIP", "MPS", "XPU", "XLA", "Meta",
                                          "Lazy", "IPU", "Sparse", "SparseCPU", "SparseCUDA" };
  GraphDType dtype = GRAPH_DTYPE_UNDEFINED;
  gboolean found = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (prefixes) && !found; i++)
    if (g_str_has_prefix (name, prefixes[i]))
      found = graph_dtype_from_torch_name (name + strlen (prefixes[i]), &dtype)
              && dtype != GRAPH_DTYPE_UNDEFINED;
  if (!found)
    return text_error_at (c, word, error, "unknown tensor type '%sType' in a tensor value", name),
           NULL;
  c->pos++;   /* '{' */
  gint64 dims[TENSOR_MAX_RANK];
  guint rank = 0;
  if (!text_eat (c, '}'))
    for (;;)
      {
        TextNumber num;
        if (rank >= TENSOR_MAX_RANK)
          return text_error_at (c, c->pos, error, "more than %d dims", TENSOR_MAX_RANK), NULL;
        if (!text_lex_number (c, &num, error) || !text_number_to_int64 (c, &num, &dims[rank], error))
          return NULL;
        if (dims[rank++] < 0)
          return text_error_at (c, num.start, error, "negative dim"), NULL;
        if (text_eat (c, '}'))
          break;
        if (!text_eat (c, ','))
          return text_expected (c, "',' or '}' in the tensor's shape", error), NULL;
      }
  if (!text_eat_str (c, " ]"))
    return text_expected (c, "' ]' after the tensor's shape", error), NULL;
  return tensor_new (dtype, rank, dims, NULL, error);
}

/* Shape from an explicit " : T" in a tensor literal. */
static gboolean
explicit_tensor_type (TextCursor *c, GraphDType *dtype, guint *rank, gint64 *dims, GError **error)
{
  gsize pos = c->pos;
  g_autoptr (GraphType) t = text_parse_type (c, 0, error);
  if (t == NULL)
    return FALSE;
  if (graph_type_kind (t) != GRAPH_TYPE_TENSOR || graph_type_dtype (t) == GRAPH_DTYPE_UNDEFINED
      || graph_type_rank (t) < 0 || !graph_type_static_shape (t, dims))
    return text_error_at (c, pos, error,
                          "a tensor value's type needs a dtype and a static shape");
  *dtype = graph_type_dtype (t);
  *rank = (guint) graph_type_rank (t);
  return TRUE;
}

/* "{v}" / "{v : T}" (the cursor is on '{'). */
static Tensor *
parse_tensor_literal (TextCursor *c, const GraphType *hint, GError **error)
{
  gsize start = c->pos;
  c->pos++;
  text_skip_blank (c);
  TextLiteralKind kind;
  TextNumber num, im;
  g_autoptr (GByteArray) str = g_byte_array_new ();
  gsize lit = c->pos;
  if (text_peek (c) == '"')
    {
      if (!text_lex_string (c, str, error))
        return NULL;
      kind = TEXT_LITERAL_STRING;
    }
  else if (text_eat (c, '('))
    {
      if (!text_lex_number (c, &num, error) || !expect (c, ',', "',' in a complex value", error)
          || !text_lex_number (c, &im, error) || !expect (c, ')', "')' after a complex value", error))
        return NULL;
      kind = TEXT_LITERAL_COMPLEX;
    }
  else
    {
      if (!text_lex_number (c, &num, error))
        return NULL;
      kind = num.is_float ? TEXT_LITERAL_FLOAT : TEXT_LITERAL_INT;
    }
  text_skip_blank (c);
  GraphDType dtype;
  guint rank;
  gint64 dims[TENSOR_MAX_RANK];
  if (text_eat (c, ':'))
    {
      text_skip_blank (c);
      if (!explicit_tensor_type (c, &dtype, &rank, dims, error))
        return NULL;
      gint64 numel;
      if (!tensor_shape_numel (rank, dims, &numel) || numel != 1)
        return text_error_at (c, start, error, "a {value} tensor has exactly one element"), NULL;
      text_skip_blank (c);
    }
  else
    text_infer_tensor (hint, kind, &dtype, &rank, dims);
  if (!expect (c, '}', "'}' after a tensor value", error))
    return NULL;

  if (dtype == GRAPH_DTYPE_STRING || kind == TEXT_LITERAL_STRING)
    {
      if (dtype != GRAPH_DTYPE_STRING || kind != TEXT_LITERAL_STRING)
        return text_error_at (c, lit, error, "a String tensor holds a string literal"), NULL;
      g_autoptr (GBytes) b = g_bytes_new (str->data, str->len);
      return tensor_new_strings (rank, dims, &b, error);
    }
  guint8 buf[16];
  gboolean ok;
  double re, v;
  if (dtype == GRAPH_DTYPE_COMPLEX64 || dtype == GRAPH_DTYPE_COMPLEX128)
    {
      double imv = 0;
      if (!text_number_to_double (c, &num, &re, error)
          || (kind == TEXT_LITERAL_COMPLEX && !text_number_to_double (c, &im, &imv, error)))
        return NULL;
      ok = text_encode_complex (dtype, re, imv, buf);
    }
  else if (kind == TEXT_LITERAL_COMPLEX)
    return text_error_at (c, lit, error, "a complex value needs a ComplexFloat or ComplexDouble "
                          "tensor, not %s", graph_dtype_torch_name (dtype)), NULL;
  else if (graph_dtype_is_floating (dtype))
    {
      if (!text_number_to_double (c, &num, &v, error))
        return NULL;
      ok = text_encode_float (dtype, v, buf);
    }
  else
    {
      gboolean neg;
      guint64 mag;
      if (kind == TEXT_LITERAL_FLOAT)
        return text_error_at (c, lit, error, "expected an integer for a %s tensor, found '%s'",
                              graph_dtype_torch_name (dtype), num.text), NULL;
      if (!text_number_to_magnitude (c, &num, &neg, &mag, error))
        return NULL;
      ok = text_encode_int (dtype, neg, mag, buf);
    }
  if (!ok)
    return text_error_at (c, lit, error, "value out of the range of %s",
                          graph_dtype_torch_name (dtype)), NULL;
  return tensor_new_from_data (dtype, rank, dims, buf, graph_dtype_size (dtype), error);
}

/* "<Tensor>" / "<Tensor : T>" (the cursor is after "<Tensor"). */
static Tensor *
parse_unknown_tensor (TextCursor *c, const GraphType *hint, GError **error)
{
  GraphDType dtype;
  guint rank;
  gint64 dims[TENSOR_MAX_RANK];
  text_skip_blank (c);
  if (text_eat (c, ':'))
    {
      text_skip_blank (c);
      if (!explicit_tensor_type (c, &dtype, &rank, dims, error))
        return NULL;
      text_skip_blank (c);
    }
  else
    text_infer_tensor (hint, TEXT_LITERAL_NONE, &dtype, &rank, dims);
  if (!expect (c, '>', "'>' after <Tensor", error))
    return NULL;
  return tensor_new (dtype, rank, dims, NULL, error);
}

/* One list element or scalar value, classified. */
typedef enum
{
  V_INT, V_FLOAT, V_STRING, V_TENSOR, V_GRAPH, V_TYPE, V_TENSORS, V_GRAPHS,
} ValueKind;

typedef struct
{
  ValueKind   kind;
  gint64      i;
  double      f;
  GByteArray *s;
  Tensor     *t;
  GraphType  *tp;
  gsize       pos;
} Value;

static void
value_clear (Value *v)
{
  g_clear_pointer (&v->s, g_byte_array_unref);
  g_clear_pointer (&v->t, tensor_unref);
  g_clear_pointer (&v->tp, graph_type_unref);
}

static gboolean
parse_scalar (TextCursor *c, const GraphType *hint, gboolean in_list, Value *v, GError **error)
{
  memset (v, 0, sizeof *v);
  v->pos = c->pos;
  int ch = text_peek (c);
  if (ch == '"')
    {
      v->kind = V_STRING;
      v->s = g_byte_array_new ();
      return text_lex_string (c, v->s, error);
    }
  if (ch == '{')
    {
      v->kind = V_TENSOR;
      v->t = parse_tensor_literal (c, in_list ? NULL : hint, error);
      return v->t != NULL;
    }
  if (ch == '<')
    {
      if (text_eat_str (c, "<Tensor") && text_peek (c) != 's')
        {
          v->kind = V_TENSOR;
          v->t = parse_unknown_tensor (c, in_list ? NULL : hint, error);
          return v->t != NULL;
        }
      c->pos = v->pos;
      if (text_eat_str (c, "<Graph>"))
        return v->kind = V_GRAPH, TRUE;
      if (in_list && text_eat_str (c, "<Tensors>"))
        return v->kind = V_TENSORS, TRUE;
      if (in_list && text_eat_str (c, "<Graphs>"))
        return v->kind = V_GRAPHS, TRUE;
      return text_expected (c, "<Tensor> or <Graph>", error);
    }
  gboolean word = g_ascii_isalpha (ch) || ch == '_' || ch == '(';
  if (word && !(text_eat_keyword (c, "inf") || text_eat_keyword (c, "nan")))
    {
      if (text_eat_keyword (c, "None"))
        return text_error_at (c, v->pos, error, "None is not an attribute value");
      v->kind = V_TYPE;
      v->tp = text_parse_type (c, 0, error);
      return v->tp != NULL;
    }
  c->pos = v->pos;
  if (!(g_ascii_isdigit (ch) || ch == '-' || ch == '+' || ch == '.' || word))
    return text_expected (c, "an attribute value (number, string, {tensor}, <Tensor>, "
                          "<Graph>, list or type)", error);
  TextNumber num;
  if (!text_lex_number (c, &num, error))
    return FALSE;
  if (num.is_float)
    {
      v->kind = V_FLOAT;
      return text_number_to_double (c, &num, &v->f, error);
    }
  v->kind = V_INT;
  return text_number_to_int64 (c, &num, &v->i, error);
}

/* "annotate(List[T], [])": a typed empty list (PyTorch's spelling). */
static gboolean
parse_annotated_empty (TextCursor *c, GraphAttrKind *kind, GError **error)
{
  static const struct { const char *elem; GraphAttrKind kind; } kinds[] = {
    { "int", GRAPH_ATTR_IS }, { "float", GRAPH_ATTR_FS }, { "str", GRAPH_ATTR_SS },
    { "Tensor", GRAPH_ATTR_TS }, { "Graph", GRAPH_ATTR_GS }, { "Type", GRAPH_ATTR_TPS },
  };
  if (!text_eat_str (c, "List["))
    return text_expected (c, "'List[' in annotate(List[T], [])", error);
  gsize pos = c->pos;
  g_autofree char *elem = text_lex_word (c, text_is_word_char, FALSE, "an element type", error);
  if (elem == NULL)
    return FALSE;
  guint i;
  for (i = 0; i < G_N_ELEMENTS (kinds) && strcmp (elem, kinds[i].elem) != 0; i++)
    ;
  if (i == G_N_ELEMENTS (kinds))
    return text_error_at (c, pos, error, "expected int, float, str, Tensor, Graph or Type in "
                          "annotate(List[T], []), found '%s'", elem);
  *kind = kinds[i].kind;
  if (!text_eat_str (c, "], [])"))
    return text_expected (c, "'], [])'", error);
  return TRUE;
}

static void
attach_graphs (GraphNode *n, const char *name, guint count, GArray *pending)
{
  g_autofree Graph **subs = g_new0 (Graph *, count + 1);
  for (guint i = 0; i < count; i++)
    subs[i] = graph_new ();
  graph_node_set_gs (n, name, count, subs);
  Graph *const *got;
  gsize len;
  graph_node_get_gs (n, name, &len, &got);
  for (guint i = 0; i < count; i++)
    {
      PendingBlock b = { g_strdup_printf ("%s[%u]", name, i), got[i], FALSE };
      g_array_append_val (pending, b);
    }
}

/* A '[' list value, or a '(' tuple of numbers or strings (scripted code's
 * constant `value=(2, 3)`, an int list here), ending at `close`; sets the
 * attribute on n. */
static gboolean
parse_list (TextCursor *c, GraphNode *n, const char *name, GArray *pending, char close, GError **error)
{
  gsize start = c->pos;
  c->pos++;
  g_autoptr (GArray) items = g_array_new (FALSE, TRUE, sizeof (Value));
  g_array_set_clear_func (items, (GDestroyNotify) value_clear);
  text_skip_blank (c);
  if (!text_eat (c, close))
    for (;;)
      {
        Value v;
        text_skip_blank (c);
        gboolean got = parse_scalar (c, NULL, TRUE, &v, error);
        g_array_append_val (items, v);
        if (!got)
          return FALSE;
        text_skip_blank (c);
        if (text_eat (c, close))
          break;
        if (!text_eat (c, ','))
          return text_expected (c, close == ']' ? "',' or ']' in a list" : "',' or ')' in a tuple", error);
      }
  guint len = items->len;
  Value *it = (Value *) (void *) items->data;
  /* The first element decides; ints and floats mix into a float list. */
  ValueKind kind = len ? it[0].kind : V_INT;
  for (guint i = 1; i < len; i++)
    {
      gboolean numbers = (kind == V_INT || kind == V_FLOAT)
                         && (it[i].kind == V_INT || it[i].kind == V_FLOAT);
      if (it[i].kind != kind && !numbers)
        return text_error_at (c, it[i].pos, error, "list elements of different kinds");
      if (numbers && it[i].kind == V_FLOAT)
        kind = V_FLOAT;
    }
  if ((kind == V_TENSORS || kind == V_GRAPHS) && len != 1)
    return text_error_at (c, start, error, "[<Tensors>] and [<Graphs>] stand alone in a list");
  switch (kind)
    {
    case V_INT:
      {
        g_autofree gint64 *v = g_new0 (gint64, len + 1);
        for (guint i = 0; i < len; i++)
          v[i] = it[i].i;
        graph_node_set_is (n, name, len, v);
        break;
      }
    case V_FLOAT:
      {
        g_autofree double *v = g_new0 (double, len + 1);
        for (guint i = 0; i < len; i++)
          v[i] = it[i].kind == V_INT ? (double) it[i].i : it[i].f;
        graph_node_set_fs (n, name, len, v);
        break;
      }
    case V_STRING:
      {
        g_autofree const char **v = g_new0 (const char *, len + 1);
        for (guint i = 0; i < len; i++)
          {
            if (it[i].s->len && memchr (it[i].s->data, '\0', it[i].s->len) != NULL)
              return text_error_at (c, it[i].pos, error,
                                    "strings in a string list cannot hold NUL bytes");
            guint8 zero = 0;
            g_byte_array_append (it[i].s, &zero, 1);
            v[i] = (const char *) it[i].s->data;
          }
        graph_node_set_ss (n, name, len, v);
        break;
      }
    case V_TENSOR:
      {
        g_autofree Tensor **v = g_new0 (Tensor *, len + 1);
        for (guint i = 0; i < len; i++)
          v[i] = it[i].t;
        graph_node_set_ts (n, name, len, v);
        break;
      }
    case V_TYPE:
      {
        g_autofree GraphType **v = g_new0 (GraphType *, len + 1);
        for (guint i = 0; i < len; i++)
          v[i] = it[i].tp;
        graph_node_set_tps (n, name, len, v);
        break;
      }
    case V_GRAPH:
      attach_graphs (n, name, len, pending);
      break;
    case V_TENSORS:   /* PyTorch's placeholder: the tensors are not printed */
      graph_node_set_ts (n, name, 0, NULL);
      break;
    case V_GRAPHS:
      graph_node_set_gs (n, name, 0, NULL);
      break;
    }
  return TRUE;
}

static gboolean
parse_attr_value (TextCursor *c, GraphNode *n, const char *name, GArray *pending, GError **error)
{
  const GraphType *hint = graph_node_n_outputs (n) == 1
                            ? graph_value_type (graph_node_output (n, 0)) : NULL;
  int ch = text_peek (c);
  if (ch != '"' && ch != '{' && ch != '<')
    {
      gsize trailer = find_tensor_repr (c);
      if (trailer != 0 || (ch == '[' && text_peek_at (c, 1) == ' '))
        {
          if (trailer == 0)
            trailer = c->pos;
          Tensor *t = parse_tensor_repr (c, trailer, error);
          if (t == NULL)
            return FALSE;
          graph_node_set_t (n, name, t);
          tensor_unref (t);
          return TRUE;
        }
    }
  if (ch == '[')
    return parse_list (c, n, name, pending, ']', error);
  if (ch == '(')
    {
      /* a tuple of numbers or strings; `(int, int)` is a type */
      gsize at = 1;
      while (g_ascii_isspace (text_peek_at (c, at)))
        at++;
      int first = text_peek_at (c, at);
      if (g_ascii_isdigit (first) || first == '-' || first == '+' || first == '.' || first == '"'
          || first == '\'')
        return parse_list (c, n, name, pending, ')', error);
    }
  if (text_eat_str (c, "annotate("))
    {
      GraphAttrKind kind = GRAPH_ATTR_IS;
      if (!parse_annotated_empty (c, &kind, error))
        return FALSE;
      switch (kind)
        {
        case GRAPH_ATTR_IS: graph_node_set_is (n, name, 0, NULL); break;
        case GRAPH_ATTR_FS: graph_node_set_fs (n, name, 0, NULL); break;
        case GRAPH_ATTR_SS: graph_node_set_ss (n, name, 0, NULL); break;
        case GRAPH_ATTR_TS: graph_node_set_ts (n, name, 0, NULL); break;
        case GRAPH_ATTR_GS: graph_node_set_gs (n, name, 0, NULL); break;
        default: graph_node_set_tps (n, name, 0, NULL); break;
        }
      return TRUE;
    }
  Value v;
  gboolean ok = parse_scalar (c, hint, FALSE, &v, error);
  if (ok)
    switch (v.kind)
      {
      case V_INT: graph_node_set_i (n, name, v.i); break;
      case V_FLOAT: graph_node_set_f (n, name, v.f); break;
      case V_STRING: graph_node_set_s_len (n, name, (const char *) v.s->data, v.s->len); break;
      case V_TENSOR: graph_node_set_t (n, name, v.t); break;
      case V_TYPE: graph_node_set_tp (n, name, v.tp); break;
      case V_GRAPH:
        {
          graph_node_set_g (n, name, graph_new ());
          PendingBlock b = { g_strdup (name), NULL, FALSE };
          graph_node_get_g (n, name, &b.graph);
          g_array_append_val (pending, b);
          break;
        }
      default:
        ok = text_error_at (c, v.pos, error, "<Tensors> and <Graphs> only appear in lists");
      }
  value_clear (&v);
  return ok;
}

/* "[name=value, ...]" (the cursor is on '['). */
gboolean
text_parse_attrs (TextCursor *c, GraphNode *n, GArray *pending, GError **error)
{
  c->pos++;
  text_skip_blank (c);
  if (text_eat (c, ']'))
    return TRUE;
  for (;;)
    {
      text_skip_blank (c);
      gsize pos = c->pos;
      g_autofree char *name = text_lex_word (c, text_is_word_char, TRUE, "an attribute name", error);
      if (name == NULL)
        return FALSE;
      if (graph_node_has_attr (n, name))
        return text_error_at (c, pos, error, "attribute '%s' given twice", name);
      if (!expect (c, '=', "'=' after an attribute name", error))
        return FALSE;
      if (!parse_attr_value (c, n, name, pending, error))
        return FALSE;
      text_skip_blank (c);
      if (text_eat (c, ']'))
        return TRUE;
      if (!text_eat (c, ','))
        return text_expected (c, "',' or ']' after an attribute", error);
    }
}


void
text_pending_block_clear (gpointer p)
{
  g_free (((PendingBlock *) p)->label);
}
