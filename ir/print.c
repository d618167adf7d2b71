/* The text printer: PyTorch 1.13's verbose graph format (Graph::print and
 * Node::print in torch/csrc/jit/ir/ir.cpp), extended so that everything in
 * the IR reads back (doc/ir-text-grammar.md):
 *
 *   graph(%x : Float(1, 3, 8, 8),
 *         %w : Float(4, 3, 3, 3)):
 *     %y : Float(1, 4, 6, 6) = onnx::Conv[group=1, pads=[0, 0, 0, 0]](%x, %w), scope: M::/Conv2d::conv
 *     return (%y)
 *
 * Note [Printed names]
 * Every value gets one printed name that is unique in the whole text,
 * subgraphs included: its own name when no value printed earlier took it,
 * else "name.N"; unnamed values print as their id ("%5") unless a name in
 * the text is already that.  So text read back names every value, and
 * printing it again gives the same text. */
#include "ir/text-private.h"
#include <string.h>

typedef struct
{
  GString    *out;
  GHashTable *printed;    /* GraphValue* → char* printed name (owned) */
  GHashTable *taken;      /* printed names (not owned: values of `printed`) */
  GHashTable *reserved;   /* explicit names anywhere in the text (IR strings) */
} Printer;

static void print_nodes (Printer *pr, const Graph *g, guint level);

static void
reserve_names (Printer *pr, const Graph *g)
{
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      const char *name = graph_value_get_name (graph_input (g, i));
      if (name)
        g_hash_table_add (pr->reserved, (gpointer) name);
    }
  graph_foreach_node (g, n)
    {
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        {
          const char *name = graph_value_get_name (graph_node_output (n, i));
          if (name)
            g_hash_table_add (pr->reserved, (gpointer) name);
        }
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *sub, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &sub, &subs);
          for (gsize k = 0; k < len; k++)
            reserve_names (pr, subs[k]);
        }
    }
}

static const char *
printed_name (Printer *pr, const GraphValue *v)
{
  const char *done = g_hash_table_lookup (pr->printed, v);
  if (done)
    return done;
  const char *own = graph_value_get_name (v);
  char *name = own ? g_strdup (own) : g_strdup_printf ("%u", graph_value_id (v));
  /* A name another value took, or (for an id) any explicit name. */
  if (g_hash_table_contains (pr->taken, name) || (!own && g_hash_table_contains (pr->reserved, name)))
    {
      char *base = name;
      for (guint k = 1;; k++)
        {
          name = g_strdup_printf ("%s.%u", base, k);
          if (!g_hash_table_contains (pr->taken, name) && !g_hash_table_contains (pr->reserved, name))
            break;
          g_free (name);
        }
      g_free (base);
    }
  g_hash_table_insert (pr->printed, (gpointer) v, name);
  g_hash_table_add (pr->taken, name);
  return name;
}

static void
print_value_ref (Printer *pr, const GraphValue *v)
{
  const char *name = printed_name (pr, v);
  g_string_append_c (pr->out, '%');
  if (text_name_is_plain (name))
    g_string_append (pr->out, name);
  else
    text_append_quoted (pr->out, name, strlen (name));
}

static void
print_type (Printer *pr, const GraphType *t)
{
  if (t == NULL)
    {
      g_string_append (pr->out, "Tensor");
      return;
    }
  g_autofree char *s = graph_type_to_string (t);
  g_string_append (pr->out, s);
}

static void
print_value_decl (Printer *pr, const GraphValue *v)
{
  print_value_ref (pr, v);
  g_string_append (pr->out, " : ");
  print_type (pr, graph_value_type (v));
}

static void
indent (Printer *pr, guint level)
{
  for (guint i = 0; i < level; i++)
    g_string_append (pr->out, "  ");
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                                */

static void
print_empty_list (Printer *pr, const char *elem)
{
  /* PyTorch's own spelling of a typed empty list. */
  g_string_append_printf (pr->out, "annotate(List[%s], [])", elem);
}

static void
print_attr_value (Printer *pr, const GraphNode *n, const char *name)
{
  GString *out = pr->out;
  GraphAttrKind kind;
  gsize len;
  graph_node_attr_kind (n, name, &kind);
  const GraphType *hint = graph_node_n_outputs (n) == 1
                            ? graph_value_type (graph_node_output (n, 0)) : NULL;
  switch (kind)
    {
    case GRAPH_ATTR_F:
      {
        double v;
        graph_node_get_f (n, name, &v);
        text_append_double (out, v);
        break;
      }
    case GRAPH_ATTR_I:
      {
        gint64 v;
        graph_node_get_i (n, name, &v);
        g_string_append_printf (out, "%" G_GINT64_FORMAT, v);
        break;
      }
    case GRAPH_ATTR_S:
      {
        const char *v;
        graph_node_get_s (n, name, &v, &len);
        text_append_quoted (out, v, len);
        break;
      }
    case GRAPH_ATTR_T:
      {
        Tensor *t;
        graph_node_get_t (n, name, &t);
        text_append_tensor (out, t, hint);
        break;
      }
    case GRAPH_ATTR_G:
      g_string_append (out, "<Graph>");
      break;
    case GRAPH_ATTR_TP:
      {
        GraphType *t;
        graph_node_get_tp (n, name, &t);
        print_type (pr, t);
        break;
      }
    case GRAPH_ATTR_FS:
      {
        const double *v;
        graph_node_get_fs (n, name, &len, &v);
        if (len == 0)
          print_empty_list (pr, "float");
        else
          {
            g_string_append_c (out, '[');
            for (gsize i = 0; i < len; i++)
              {
                if (i)
                  g_string_append (out, ", ");
                text_append_double (out, v[i]);
              }
            g_string_append_c (out, ']');
          }
        break;
      }
    case GRAPH_ATTR_IS:
      {
        const gint64 *v;
        graph_node_get_is (n, name, &len, &v);
        if (len == 0)
          print_empty_list (pr, "int");
        else
          {
            g_string_append_c (out, '[');
            for (gsize i = 0; i < len; i++)
              g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i ? ", " : "", v[i]);
            g_string_append_c (out, ']');
          }
        break;
      }
    case GRAPH_ATTR_SS:
      {
        const char *const *v;
        graph_node_get_ss (n, name, &len, &v);
        if (len == 0)
          print_empty_list (pr, "str");
        else
          {
            g_string_append_c (out, '[');
            for (gsize i = 0; i < len; i++)
              {
                if (i)
                  g_string_append (out, ", ");
                text_append_quoted (out, v[i], strlen (v[i]));
              }
            g_string_append_c (out, ']');
          }
        break;
      }
    case GRAPH_ATTR_TS:
      {
        Tensor *const *v;
        graph_node_get_ts (n, name, &len, &v);
        if (len == 0)
          print_empty_list (pr, "Tensor");
        else
          {
            g_string_append_c (out, '[');
            for (gsize i = 0; i < len; i++)
              {
                if (i)
                  g_string_append (out, ", ");
                text_append_tensor (out, v[i], NULL);
              }
            g_string_append_c (out, ']');
          }
        break;
      }
    case GRAPH_ATTR_GS:
      {
        Graph *const *v;
        graph_node_get_gs (n, name, &len, &v);
        if (len == 0)
          print_empty_list (pr, "Graph");
        else
          {
            g_string_append_c (out, '[');
            for (gsize i = 0; i < len; i++)
              g_string_append (out, i ? ", <Graph>" : "<Graph>");
            g_string_append_c (out, ']');
          }
        break;
      }
    case GRAPH_ATTR_TPS:
      {
        GraphType *const *v;
        graph_node_get_tps (n, name, &len, &v);
        if (len == 0)
          print_empty_list (pr, "Type");
        else
          {
            g_string_append_c (out, '[');
            for (gsize i = 0; i < len; i++)
              {
                if (i)
                  g_string_append (out, ", ");
                print_type (pr, v[i]);
              }
            g_string_append_c (out, ']');
          }
        break;
      }
    }
}

char *
text_attr_value_to_string (const GraphNode *n, const char *name)
{
  Printer pr = { .out = g_string_new (NULL) };
  print_attr_value (&pr, n, name);
  return g_string_free (pr.out, FALSE);
}

static void
print_attr_name (Printer *pr, const char *name)
{
  if (text_attr_name_is_plain (name))
    g_string_append (pr->out, name);
  else
    text_append_quoted (pr->out, name, strlen (name));
}

/* ------------------------------------------------------------------------ */
/* Nodes and graphs                                                          */

/* Scopes and sources are printed bare, as PyTorch does, unless reading them
 * back would change them. */
static gboolean
needs_quotes (const char *s, gboolean is_scope)
{
  gsize len = strlen (s);
  if (len == 0 || s[0] == ' ' || s[0] == '\t' || s[0] == '"' || s[len - 1] == ' '
      || s[len - 1] == '\t' || !g_utf8_validate (s, (gssize) len, NULL))
    return TRUE;
  for (const char *p = s; *p; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f || (is_scope && *p == '#'))
      return TRUE;
  return FALSE;
}

static void
print_trailing_text (Printer *pr, const char *s, gboolean is_scope)
{
  if (needs_quotes (s, is_scope))
    text_append_quoted (pr->out, s, strlen (s));
  else
    g_string_append (pr->out, s);
}

static void
print_block (Printer *pr, const Graph *sub, const char *label, guint level)
{
  indent (pr, level + 1);
  g_string_append (pr->out, label);
  g_string_append_c (pr->out, '(');
  for (guint i = 0; i < graph_n_inputs (sub); i++)
    {
      if (i)
        g_string_append (pr->out, ", ");
      print_value_decl (pr, graph_input (sub, i));
    }
  g_string_append (pr->out, "):\n");
  print_nodes (pr, sub, level + 2);
  indent (pr, level + 2);
  g_string_append (pr->out, "-> (");
  for (guint i = 0; i < graph_n_outputs (sub); i++)
    {
      if (i)
        g_string_append (pr->out, ", ");
      print_value_ref (pr, graph_output (sub, i));
    }
  g_string_append (pr->out, ")\n");
}

static void
print_node (Printer *pr, const GraphNode *n, guint level)
{
  GString *out = pr->out;
  indent (pr, level);
  for (guint i = 0; i < graph_node_n_outputs (n); i++)
    {
      if (i)
        g_string_append (out, ", ");
      print_value_decl (pr, graph_node_output (n, i));
    }
  g_string_append (out, " = ");
  const char *py_name = NULL, *py_args = NULL;
  gboolean python_op = graph_node_is (n, GRAPH_KIND_PYTHON_OP)
                       && graph_node_get_s (n, GRAPH_PYTHON_OP_NAME_ATTR, &py_name, NULL)
                       && text_attr_name_is_plain (py_name)
                       && graph_node_get_s (n, GRAPH_PYTHON_OP_ARGS_ATTR, &py_args, NULL);
  if (python_op)
    {
      g_string_append_c (out, '^');
      g_string_append (out, py_name);
    }
  else
    g_string_append (out, graph_node_kind (n));
  guint n_attrs = graph_node_n_attrs (n), printed = 0;
  for (guint a = 0; a < n_attrs; a++)
    {
      const char *name = graph_node_attr_name (n, a);
      if (python_op && (strcmp (name, GRAPH_PYTHON_OP_NAME_ATTR) == 0
                        || strcmp (name, GRAPH_PYTHON_OP_ARGS_ATTR) == 0))
        continue;
      g_string_append (out, printed++ ? ", " : "[");
      print_attr_name (pr, name);
      g_string_append_c (out, '=');
      print_attr_value (pr, n, name);
    }
  if (printed)
    g_string_append_c (out, ']');
  if (python_op)
    g_string_append_printf (out, "(%s)", py_args);
  g_string_append_c (out, '(');
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *v = graph_node_input (n, i);
      if (i)
        g_string_append (out, ", ");
      if (v)
        print_value_ref (pr, v);
      else
        g_string_append (out, "None");
    }
  g_string_append_c (out, ')');
  const char *scope = graph_node_get_scope (n), *source = graph_node_get_source (n);
  if (scope)
    {
      g_string_append (out, ", scope: ");
      print_trailing_text (pr, scope, TRUE);
    }
  if (source)
    {
      g_string_append (out, " # ");
      print_trailing_text (pr, source, FALSE);
    }
  g_string_append_c (out, '\n');

  /* One block per subgraph, labelled by its attribute ("name[i]" in a list). */
  for (guint a = 0; a < n_attrs; a++)
    {
      const char *name = graph_node_attr_name (n, a);
      Graph *sub;
      Graph *const *subs;
      gsize len;
      g_autoptr (GString) label = g_string_new (NULL);
      /* "return" would end the graph instead of starting a block */
      if (text_attr_name_is_plain (name) && strcmp (name, "return") != 0)
        g_string_append (label, name);
      else
        text_append_quoted (label, name, strlen (name));
      if (graph_node_get_g (n, name, &sub))
        {
          /* PyTorch does not print a PythonOp's body: nothing to show. */
          if (!(python_op && graph_n_nodes (sub) == 0 && graph_n_inputs (sub) == 0
                && graph_n_outputs (sub) == 0))
            print_block (pr, sub, label->str, level);
        }
      else if (graph_node_get_gs (n, name, &len, &subs))
        for (gsize k = 0; k < len; k++)
          {
            g_autofree char *item = g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", label->str, k);
            print_block (pr, subs[k], item, level);
          }
    }
}

static void
print_nodes (Printer *pr, const Graph *g, guint level)
{
  graph_foreach_node (g, n)
    print_node (pr, n, level);
}

void
graph_print (const Graph *g, GString *out)
{
  g_return_if_fail (g != NULL && out != NULL);
  Printer pr = { out, g_hash_table_new_full (NULL, NULL, NULL, g_free),
                 g_hash_table_new (g_str_hash, g_str_equal),
                 g_hash_table_new (g_str_hash, g_str_equal) };
  reserve_names (&pr, g);
  g_string_append (out, "graph(");
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      if (i)
        g_string_append (out, ",\n      ");
      print_value_decl (&pr, graph_input (g, i));
    }
  g_string_append (out, "):\n");
  print_nodes (&pr, g, 1);
  g_string_append (out, "  return (");
  for (guint i = 0; i < graph_n_outputs (g); i++)
    {
      if (i)
        g_string_append (out, ", ");
      print_value_ref (&pr, graph_output (g, i));
    }
  g_string_append (out, ")\n");
  g_hash_table_unref (pr.taken);
  g_hash_table_unref (pr.reserved);
  g_hash_table_unref (pr.printed);
}

char *
graph_to_string (const Graph *g)
{
  g_return_val_if_fail (g != NULL, NULL);
  GString *s = g_string_new (NULL);
  graph_print (g, s);
  return g_string_free (s, FALSE);
}
