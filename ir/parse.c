/* The text parser: reads what ir/print.c writes and what PyTorch 1.13 prints
 * for `str(torch.jit.trace(model, x).inlined_graph)`.  The grammar is in
 * doc/ir-text-grammar.md.
 *
 * Note [Names in the text]
 * Value names are unique across the whole text, nested subgraphs included
 * (the printer makes them so, as PyTorch's blocks share one namespace), so
 * one table maps names to values.  A reference is valid if the value was
 * defined earlier in the same graph or in an enclosing one.  The outputs of
 * a node become visible after its subgraph blocks. */
#include "ir/text-private.h"
#include <string.h>

typedef struct
{
  GraphValue *value;
  gsize       pos;      /* where it was defined */
} ValueDef;

typedef struct
{
  TextCursor  c;
  GHashTable *names;    /* char* → ValueDef* (both owned) */
} Parser;

/* A subgraph attribute still waiting for its block. */
typedef struct
{
  char  *label;         /* "then_branch" or "branches[1]" */
  Graph *graph;         /* (transfer none): owned by the node */
  gboolean seen;
} PendingBlock;

static void
pending_block_clear (gpointer p)
{
  g_free (((PendingBlock *) p)->label);
}

static gboolean parse_body (Parser *p, Graph *g, guint depth, gboolean top, GError **error);

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

/* Blank lines, and lines that hold only a '#' comment. */
static void
skip_lines (Parser *p)
{
  for (;;)
    {
      text_skip_ws (&p->c);
      if (text_peek (&p->c) != '#')
        return;
      while (p->c.pos < p->c.len && p->c.text[p->c.pos] != '\n')
        p->c.pos++;
    }
}

static gboolean
expect (Parser *p, char ch, const char *what, GError **error)
{
  if (text_eat (&p->c, ch))
    return TRUE;
  return text_expected (&p->c, what, error);
}

static gboolean
expect_line_end (Parser *p, GError **error)
{
  text_skip_blank (&p->c);
  if (text_peek (&p->c) < 0 || text_eat (&p->c, '\n'))
    return TRUE;
  return text_expected (&p->c, "end of line", error);
}

static gboolean
graph_is_visible_from (const Graph *owner, const Graph *g)
{
  for (; g != NULL; g = graph_get_outer (g))
    if (g == owner)
      return TRUE;
  return FALSE;
}

/* "%name" or "%"quoted"" (the cursor is on '%'); *pos gets the offset. */
static char *
parse_value_name (Parser *p, gsize *pos, GError **error)
{
  *pos = p->c.pos;
  if (!text_eat (&p->c, '%'))
    return text_expected (&p->c, "a value ('%name')", error), NULL;
  return text_lex_word (&p->c, text_is_name_char, TRUE, "a value name", error);
}

static gboolean
define_value (Parser *p, const char *name, gsize pos, GraphValue *v, GError **error)
{
  ValueDef *old = g_hash_table_lookup (p->names, name);
  if (old != NULL)
    {
      guint line, col;
      text_position (&p->c, old->pos, &line, &col);
      return text_error_at (&p->c, pos, error, "value %%%s is already defined (at %u:%u)",
                            name, line, col);
    }
  ValueDef *d = g_new (ValueDef, 1);
  d->value = v;
  d->pos = pos;
  g_hash_table_insert (p->names, g_strdup (name), d);
  const char *set = graph_value_set_name (v, name);
  g_assert (g_strcmp0 (set, name) == 0);
  return TRUE;
}

/* A reference to a defined value, visible from g. */
static GraphValue *
parse_value_ref (Parser *p, Graph *g, GError **error)
{
  gsize pos;
  g_autofree char *name = parse_value_name (p, &pos, error);
  if (name == NULL)
    return NULL;
  ValueDef *d = g_hash_table_lookup (p->names, name);
  if (d == NULL)
    return text_error_at (&p->c, pos, error, "undefined value %%%s", name), NULL;
  if (!graph_is_visible_from (graph_value_graph (d->value), g))
    return text_error_at (&p->c, pos, error,
                          "value %%%s belongs to another subgraph and is not visible here",
                          name), NULL;
  return d->value;
}

/* "(%a, %b)" into `out`; absent inputs ("None") only when allow_absent. */
static gboolean
parse_ref_list (Parser *p, Graph *g, gboolean allow_absent, GPtrArray *out, GError **error)
{
  if (!expect (p, '(', "'('", error))
    return FALSE;
  text_skip_blank (&p->c);
  if (text_eat (&p->c, ')'))
    return TRUE;
  for (;;)
    {
      text_skip_blank (&p->c);
      if (allow_absent && text_eat_keyword (&p->c, "None"))
        g_ptr_array_add (out, NULL);
      else
        {
          if (text_peek (&p->c) != '%')
            return text_expected (&p->c, allow_absent ? "a value ('%name') or None" : "a value ('%name')",
                                  error);
          GraphValue *v = parse_value_ref (p, g, error);
          if (v == NULL)
            return FALSE;
          g_ptr_array_add (out, v);
        }
      text_skip_blank (&p->c);
      if (text_eat (&p->c, ')'))
        return TRUE;
      if (!text_eat (&p->c, ','))
        return text_expected (&p->c, "',' or ')'", error);
    }
}

/* "%x : T, %y" → graph inputs of g (the cursor is after '('). */
static gboolean
parse_params (Parser *p, Graph *g, GError **error)
{
  text_skip_ws (&p->c);
  if (text_eat (&p->c, ')'))
    return TRUE;
  for (;;)
    {
      gsize pos;
      text_skip_ws (&p->c);
      g_autofree char *name = parse_value_name (p, &pos, error);
      if (name == NULL)
        return FALSE;
      text_skip_blank (&p->c);
      g_autoptr (GraphType) type = NULL;
      if (text_eat (&p->c, ':'))
        {
          text_skip_blank (&p->c);
          type = text_parse_type (&p->c, 0, error);
          if (type == NULL)
            return FALSE;
        }
      GraphValue *v = graph_add_input (g, NULL, type);
      if (!define_value (p, name, pos, v, error))
        return FALSE;
      text_skip_ws (&p->c);
      if (text_eat (&p->c, ')'))
        return TRUE;
      if (!text_eat (&p->c, ','))
        return text_expected (&p->c, "',' or ')' after a graph input", error);
    }
}

/* ------------------------------------------------------------------------ */
/* Attribute values                                                          */

/* Does the value at the cursor look like PyTorch's tensor repr
 * (" 1.5000  2.0000 [ CPUFloatType{2} ]")?  Returns the offset of its
 * "[ " trailer, or 0. */
static gsize
find_tensor_repr (const Parser *p)
{
  const TextCursor *c = &p->c;
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
parse_tensor_repr (Parser *p, gsize trailer, GError **error)
{
  TextCursor *c = &p->c;
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
explicit_tensor_type (Parser *p, GraphDType *dtype, guint *rank, gint64 *dims, GError **error)
{
  gsize pos = p->c.pos;
  g_autoptr (GraphType) t = text_parse_type (&p->c, 0, error);
  if (t == NULL)
    return FALSE;
  if (graph_type_kind (t) != GRAPH_TYPE_TENSOR || graph_type_dtype (t) == GRAPH_DTYPE_UNDEFINED
      || graph_type_rank (t) < 0 || !graph_type_static_shape (t, dims))
    return text_error_at (&p->c, pos, error,
                          "a tensor value's type needs a dtype and a static shape");
  *dtype = graph_type_dtype (t);
  *rank = (guint) graph_type_rank (t);
  return TRUE;
}

/* "{v}" / "{v : T}" (the cursor is on '{'). */
static Tensor *
parse_tensor_literal (Parser *p, const GraphType *hint, GError **error)
{
  TextCursor *c = &p->c;
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
      if (!text_lex_number (c, &num, error) || !expect (p, ',', "',' in a complex value", error)
          || !text_lex_number (c, &im, error) || !expect (p, ')', "')' after a complex value", error))
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
      if (!explicit_tensor_type (p, &dtype, &rank, dims, error))
        return NULL;
      gint64 numel;
      if (!tensor_shape_numel (rank, dims, &numel) || numel != 1)
        return text_error_at (c, start, error, "a {value} tensor has exactly one element"), NULL;
      text_skip_blank (c);
    }
  else
    text_infer_tensor (hint, kind, &dtype, &rank, dims);
  if (!expect (p, '}', "'}' after a tensor value", error))
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
parse_unknown_tensor (Parser *p, const GraphType *hint, GError **error)
{
  GraphDType dtype;
  guint rank;
  gint64 dims[TENSOR_MAX_RANK];
  text_skip_blank (&p->c);
  if (text_eat (&p->c, ':'))
    {
      text_skip_blank (&p->c);
      if (!explicit_tensor_type (p, &dtype, &rank, dims, error))
        return NULL;
      text_skip_blank (&p->c);
    }
  else
    text_infer_tensor (hint, TEXT_LITERAL_NONE, &dtype, &rank, dims);
  if (!expect (p, '>', "'>' after <Tensor", error))
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
parse_scalar (Parser *p, const GraphType *hint, gboolean in_list, Value *v, GError **error)
{
  TextCursor *c = &p->c;
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
      v->t = parse_tensor_literal (p, in_list ? NULL : hint, error);
      return v->t != NULL;
    }
  if (ch == '<')
    {
      if (text_eat_str (c, "<Tensor") && text_peek (c) != 's')
        {
          v->kind = V_TENSOR;
          v->t = parse_unknown_tensor (p, in_list ? NULL : hint, error);
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
  TextNumber num;
  if (!text_lex_number (c, &num, error))
    {
      g_clear_error (error);
      c->pos = v->pos;
      return text_expected (c, "an attribute value (number, string, {tensor}, <Tensor>, "
                            "<Graph>, list or type)", error);
    }
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
parse_annotated_empty (Parser *p, GraphAttrKind *kind, GError **error)
{
  static const struct { const char *elem; GraphAttrKind kind; } kinds[] = {
    { "int", GRAPH_ATTR_IS }, { "float", GRAPH_ATTR_FS }, { "str", GRAPH_ATTR_SS },
    { "Tensor", GRAPH_ATTR_TS }, { "Graph", GRAPH_ATTR_GS }, { "Type", GRAPH_ATTR_TPS },
  };
  TextCursor *c = &p->c;
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

/* A '[' list value; sets the attribute on n. */
static gboolean
parse_list (Parser *p, GraphNode *n, const char *name, GArray *pending, GError **error)
{
  TextCursor *c = &p->c;
  gsize start = c->pos;
  c->pos++;
  g_autoptr (GArray) items = g_array_new (FALSE, TRUE, sizeof (Value));
  g_array_set_clear_func (items, (GDestroyNotify) value_clear);
  text_skip_blank (c);
  if (!text_eat (c, ']'))
    for (;;)
      {
        Value v;
        text_skip_blank (c);
        gboolean got = parse_scalar (p, NULL, TRUE, &v, error);
        g_array_append_val (items, v);
        if (!got)
          return FALSE;
        text_skip_blank (c);
        if (text_eat (c, ']'))
          break;
        if (!text_eat (c, ','))
          return text_expected (c, "',' or ']' in a list", error);
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
parse_attr_value (Parser *p, GraphNode *n, const char *name, GArray *pending, GError **error)
{
  TextCursor *c = &p->c;
  const GraphType *hint = graph_node_n_outputs (n) == 1
                            ? graph_value_type (graph_node_output (n, 0)) : NULL;
  int ch = text_peek (c);
  if (ch != '"' && ch != '{' && ch != '<')
    {
      gsize trailer = find_tensor_repr (p);
      if (trailer != 0 || (ch == '[' && text_peek_at (c, 1) == ' '))
        {
          if (trailer == 0)
            trailer = c->pos;
          Tensor *t = parse_tensor_repr (p, trailer, error);
          if (t == NULL)
            return FALSE;
          graph_node_set_t (n, name, t);
          tensor_unref (t);
          return TRUE;
        }
    }
  if (ch == '[')
    return parse_list (p, n, name, pending, error);
  if (text_eat_str (c, "annotate("))
    {
      GraphAttrKind kind = GRAPH_ATTR_IS;
      if (!parse_annotated_empty (p, &kind, error))
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
  gboolean ok = parse_scalar (p, hint, FALSE, &v, error);
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
static gboolean
parse_attrs (Parser *p, GraphNode *n, GArray *pending, GError **error)
{
  TextCursor *c = &p->c;
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
      if (!expect (p, '=', "'=' after an attribute name", error))
        return FALSE;
      if (!parse_attr_value (p, n, name, pending, error))
        return FALSE;
      text_skip_blank (c);
      if (text_eat (c, ']'))
        return TRUE;
      if (!text_eat (c, ','))
        return text_expected (c, "',' or ']' after an attribute", error);
    }
}

/* ------------------------------------------------------------------------ */
/* Nodes and blocks                                                          */

/* Scope or source text: a quoted string, or the rest of the line (the scope
 * stops before " #"). */
static char *
parse_trailing_text (Parser *p, gboolean is_scope, const char *what, GError **error)
{
  TextCursor *c = &p->c;
  gsize start = c->pos;
  if (text_peek (c) == '"')
    {
      g_autoptr (GByteArray) b = g_byte_array_new ();
      if (!text_lex_string (c, b, error))
        return NULL;
      if (b->len && memchr (b->data, '\0', b->len) != NULL)
        return text_error_at (c, start, error, "%s cannot hold NUL bytes", what), NULL;
      return g_strndup (b->len ? (const char *) b->data : "", b->len);
    }
  gsize end = start;
  while (end < c->len && c->text[end] != '\n'
         && !(is_scope && c->text[end] == '#' && end > start
              && (c->text[end - 1] == ' ' || c->text[end - 1] == '\t')))
    end++;
  c->pos = end;
  while (end > start && (c->text[end - 1] == ' ' || c->text[end - 1] == '\t'
                         || c->text[end - 1] == '\r'))
    end--;
  if (end == start)
    return text_expected (c, what, error), NULL;
  return g_strndup (c->text + start, end - start);
}

/* "label(%a : T):" NL body "-> (...)" NL; the cursor is on the label. */
static gboolean
parse_block (Parser *p, GraphNode *n, GArray *pending, guint depth, GError **error)
{
  TextCursor *c = &p->c;
  gsize pos = c->pos;
  g_autofree char *word = text_lex_word (c, text_is_word_char, TRUE, "a block label", error);
  if (word == NULL)
    return FALSE;
  g_autofree char *label = NULL;
  if (text_eat (c, '['))
    {
      TextNumber num;
      gint64 idx;
      if (!text_lex_number (c, &num, error) || !text_number_to_int64 (c, &num, &idx, error)
          || !expect (p, ']', "']' after a block index", error))
        return FALSE;
      label = g_strdup_printf ("%s[%" G_GINT64_FORMAT "]", word, idx);
    }
  else
    label = g_strdup (word);
  PendingBlock *b = NULL;
  for (guint i = 0; i < pending->len; i++)
    if (strcmp (g_array_index (pending, PendingBlock, i).label, label) == 0)
      b = &g_array_index (pending, PendingBlock, i);
  if (b == NULL)
    {
      /* PyTorch's "block0(...)" of prim::If/Loop: a graph attribute of that name. */
      if (strchr (label, '[') != NULL || graph_node_has_attr (n, label))
        return text_error_at (c, pos, error, "block '%s' matches no <Graph> attribute of the node",
                              label);
      graph_node_set_g (n, label, graph_new ());
      PendingBlock nb = { g_strdup (label), NULL, FALSE };
      graph_node_get_g (n, label, &nb.graph);
      g_array_append_val (pending, nb);
      b = &g_array_index (pending, PendingBlock, pending->len - 1);
    }
  if (b->seen)
    return text_error_at (c, pos, error, "block '%s' given twice", label);
  if (depth + 1 >= TEXT_MAX_DEPTH)
    return text_error_at (c, pos, error, "subgraphs nested deeper than %d levels", TEXT_MAX_DEPTH);
  b->seen = TRUE;
  Graph *sub = b->graph;
  if (!expect (p, '(', "'(' after a block label", error) || !parse_params (p, sub, error))
    return FALSE;
  text_skip_blank (c);
  if (!expect (p, ':', "':' after the block's inputs", error) || !expect_line_end (p, error))
    return FALSE;
  if (!parse_body (p, sub, depth + 1, FALSE, error))
    return FALSE;
  /* parse_body stopped on "->" */
  c->pos += 2;
  text_skip_blank (c);
  g_autoptr (GPtrArray) outs = g_ptr_array_new ();
  if (!parse_ref_list (p, sub, FALSE, outs, error))
    return FALSE;
  for (guint i = 0; i < outs->len; i++)
    graph_add_output (sub, outs->pdata[i]);
  return expect_line_end (p, error);
}

typedef struct
{
  char      *name;
  gsize      pos;
  GraphType *type;
} OutputDecl;

static void
output_decl_clear (gpointer p)
{
  OutputDecl *o = p;
  g_free (o->name);
  g_clear_pointer (&o->type, graph_type_unref);
}

static gboolean
parse_node (Parser *p, Graph *g, guint depth, GError **error)
{
  TextCursor *c = &p->c;
  gsize line_start = c->pos;
  g_autoptr (GArray) outs = g_array_new (FALSE, TRUE, sizeof (OutputDecl));
  g_array_set_clear_func (outs, output_decl_clear);
  if (text_peek (c) == '%')
    for (;;)
      {
        OutputDecl o = { 0 };
        o.name = parse_value_name (p, &o.pos, error);
        if (o.name == NULL)
          return FALSE;
        g_array_append_val (outs, o);
        text_skip_blank (c);
        if (text_eat (c, ':'))
          {
            text_skip_blank (c);
            g_array_index (outs, OutputDecl, outs->len - 1).type = text_parse_type (c, 0, error);
            if (g_array_index (outs, OutputDecl, outs->len - 1).type == NULL)
              return FALSE;
            text_skip_blank (c);
          }
        if (!text_eat (c, ','))
          break;
        text_skip_blank (c);
      }
  if (!expect (p, '=', outs->len ? "',' or '=' after a node's outputs" : "'%' or '='", error))
    return FALSE;
  text_skip_blank (c);
  gsize kind_pos = c->pos;
  g_autofree char *kind = text_lex_word (c, text_is_kind_char, FALSE, "a node kind", error);
  if (kind == NULL)
    return FALSE;
  if (graph_symbol (kind, GRAPH_ONNX_DOMAIN) == NULL)
    return text_error_at (c, kind_pos, error, "'%s' is not a valid node kind", kind);
  GraphNode *n = graph_create_node (g, kind, 0, NULL, outs->len);
  graph_insert_node (g, n);
  for (guint i = 0; i < outs->len; i++)
    graph_value_set_type (graph_node_output (n, i), g_array_index (outs, OutputDecl, i).type);

  g_autoptr (GArray) pending = g_array_new (FALSE, TRUE, sizeof (PendingBlock));
  g_array_set_clear_func (pending, pending_block_clear);
  if (text_peek (c) == '[' && !parse_attrs (p, n, pending, error))
    return FALSE;
  text_skip_blank (c);
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  if (!parse_ref_list (p, g, TRUE, inputs, error))
    return FALSE;
  for (guint i = 0; i < inputs->len; i++)
    graph_node_add_input (n, inputs->pdata[i]);
  text_skip_blank (c);
  if (text_eat (c, ','))
    {
      text_skip_blank (c);
      if (!text_eat_str (c, "scope:"))
        return text_expected (c, "'scope:'", error);
      text_skip_blank (c);
      g_autofree char *scope = parse_trailing_text (p, TRUE, "a scope", error);
      if (scope == NULL)
        return FALSE;
      graph_node_set_scope (n, scope);
      text_skip_blank (c);
    }
  if (text_eat (c, '#'))
    {
      text_eat (c, ' ');
      g_autofree char *source = parse_trailing_text (p, FALSE, "a source location", error);
      if (source == NULL)
        return FALSE;
      graph_node_set_source (n, source);
    }
  if (!expect_line_end (p, error))
    return FALSE;

  /* Subgraph blocks: lines that start with a label. */
  for (;;)
    {
      gsize save = c->pos;
      skip_lines (p);
      int ch = text_peek (c);
      if (!(g_ascii_isalpha (ch) || ch == '_' || ch == '"') || text_eat_keyword (c, "return"))
        {
          c->pos = save;
          break;
        }
      if (!parse_block (p, n, pending, depth, error))
        return FALSE;
    }
  for (guint i = 0; i < pending->len; i++)
    if (!g_array_index (pending, PendingBlock, i).seen)
      return text_error_at (c, line_start, error, "no block follows for the node's <Graph> "
                            "attribute '%s'", g_array_index (pending, PendingBlock, i).label);
  for (guint i = 0; i < outs->len; i++)
    {
      OutputDecl *o = &g_array_index (outs, OutputDecl, i);
      if (!define_value (p, o->name, o->pos, graph_node_output (n, i), error))
        return FALSE;
    }
  return TRUE;
}

/* Node lines up to "return" (top) or "->" (subgraph). */
static gboolean
parse_body (Parser *p, Graph *g, guint depth, gboolean top, GError **error)
{
  TextCursor *c = &p->c;
  if (depth >= TEXT_MAX_DEPTH)
    return text_error_at (c, c->pos, error, "subgraphs nested deeper than %d levels",
                          TEXT_MAX_DEPTH);
  for (;;)
    {
      skip_lines (p);
      int ch = text_peek (c);
      if (ch == '%' || ch == '=')
        {
          if (!parse_node (p, g, depth, error))
            return FALSE;
          continue;
        }
      if (!top && ch == '-' && text_peek_at (c, 1) == '>')
        return TRUE;
      if (top && text_eat_keyword (c, "return"))
        {
          c->pos -= 6;
          return TRUE;
        }
      return text_expected (c, top ? "a node ('%name : Type = kind(...)') or 'return'"
                                   : "a node ('%name : Type = kind(...)') or '->'", error);
    }
}

Graph *
graph_parse (const char *text, gsize len, const char *filename, GError **error)
{
  g_return_val_if_fail (text != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  Parser p = { { text ? text : "", len, 0, filename }, NULL };
  if (!text_check_encoding (&p.c, error))
    return NULL;
  p.names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (Graph) g = graph_new ();
  gboolean ok = FALSE;
  g_autoptr (GPtrArray) outs = g_ptr_array_new ();

  skip_lines (&p);
  if (!text_eat_keyword (&p.c, "graph"))
    {
      text_expected (&p.c, "'graph('", error);
      goto out;
    }
  if (!expect (&p, '(', "'(' after 'graph'", error) || !parse_params (&p, g, error))
    goto out;
  text_skip_blank (&p.c);
  if (!expect (&p, ':', "':' after the graph's inputs", error) || !expect_line_end (&p, error)
      || !parse_body (&p, g, 0, TRUE, error))
    goto out;
  text_eat_keyword (&p.c, "return");
  text_skip_blank (&p.c);
  if (!parse_ref_list (&p, g, FALSE, outs, error))
    goto out;
  for (guint i = 0; i < outs->len; i++)
    graph_add_output (g, outs->pdata[i]);
  if (!expect_line_end (&p, error))
    goto out;
  skip_lines (&p);
  if (text_peek (&p.c) >= 0)
    {
      text_expected (&p.c, "end of input after 'return (...)'", error);
      goto out;
    }
  ok = TRUE;
out:
  g_hash_table_unref (p.names);
  return ok ? g_steal_pointer (&g) : NULL;
}

Graph *
graph_parse_file (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize len;
  if (!g_file_get_contents (path, &contents, &len, error))
    return NULL;
  return graph_parse (contents, len, path, error);
}
