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
  /* Names are unique across the whole text, so the graph keeps this one
   * as it is; report rather than rename if that ever fails. */
  const char *set = graph_value_set_name (v, name);
  if (g_strcmp0 (set, name) != 0)
    return text_error_at (&p->c, pos, error, "value %%%s cannot keep its name (it became %%%s)",
                          name, set);
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

/* The "(scalar args)" of a PythonOp, kept as text: balanced parentheses,
 * quotes respected, on one line. */
static char *
parse_python_args (Parser *p, GError **error)
{
  TextCursor *c = &p->c;
  if (!expect (p, '(', "'(' and the scalar arguments of an autograd Function", error))
    return NULL;
  gsize start = c->pos;
  guint depth = 0;
  char quote = 0;
  for (;;)
    {
      int ch = text_peek (c);
      if (ch < 0 || ch == '\n')
        {
          text_expected (c, "')' closing the autograd Function's scalar arguments", error);
          return NULL;
        }
      if (quote)
        {
          if (ch == '\\')
            c->pos++;
          else if (ch == quote)
            quote = 0;
        }
      else if (ch == '"' || ch == '\'')
        quote = (char) ch;
      else if (ch == '(' && ++depth > TEXT_MAX_DEPTH)
        {
          text_error_at (c, c->pos, error, "scalar arguments nested deeper than %d levels",
                         TEXT_MAX_DEPTH);
          return NULL;
        }
      else if (ch == ')' && depth-- == 0)
        break;
      c->pos++;
    }
  char *args = g_strndup (c->text + start, c->pos - start);
  c->pos++;
  return args;
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
  g_autofree char *python_name = NULL;
  g_autofree char *kind = NULL;
  if (text_eat (c, '^'))
    {
      python_name = text_lex_word (c, text_is_word_char, FALSE, "an autograd Function name", error);
      if (python_name == NULL)
        return FALSE;
      kind = g_strdup (GRAPH_KIND_PYTHON_OP);
    }
  else
    kind = text_lex_word (c, text_is_kind_char, FALSE, "a node kind", error);
  if (kind == NULL)
    return FALSE;
  if (graph_symbol (kind, GRAPH_ONNX_DOMAIN) == NULL)
    return text_error_at (c, kind_pos, error, "'%s' is not a valid node kind", kind);
  GraphNode *n = graph_create_node (g, kind, 0, NULL, outs->len);
  graph_insert_node (g, n);
  for (guint i = 0; i < outs->len; i++)
    graph_value_set_type (graph_node_output (n, i), g_array_index (outs, OutputDecl, i).type);

  g_autoptr (GArray) pending = g_array_new (FALSE, TRUE, sizeof (PendingBlock));
  g_array_set_clear_func (pending, text_pending_block_clear);
  if (text_peek (c) == '[' && !text_parse_attrs (&p->c, n, pending, error))
    return FALSE;
  if (python_name)
    {
      g_autofree char *args = parse_python_args (p, error);
      if (args == NULL)
        return FALSE;
      graph_node_set_s (n, GRAPH_PYTHON_OP_NAME_ATTR, python_name);
      graph_node_set_s (n, GRAPH_PYTHON_OP_ARGS_ATTR, args);
    }
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
    if (!g_array_index (pending, PendingBlock, i).seen && python_name == NULL)
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
