/* Graphviz output: `symonnx print --dot model.trace | dot -Tsvg > g.svg`.
 *
 * Graph inputs and outputs are ellipses, nodes are boxes labelled with
 * their kind and their scalar and list attributes (long values cut short),
 * edges carry the value's name and, when known, its element type and shape;
 * subgraphs (g/gs attributes) are clusters, tied to their node by a dashed
 * edge. */
#include "ir/text-private.h"
#include <string.h>

typedef struct
{
  GString    *out;
  GHashTable *producer;   /* GraphValue* → char* DOT id of what defines it */
  guint       next_id;
  guint       next_cluster;
} Dot;

/* A DOT string literal: valid UTF-8, '"' and '\' escaped, newlines as \n. */
static void
append_dot_string (GString *out, const char *s)
{
  g_autofree char *valid = g_utf8_make_valid (s, -1);
  g_string_append_c (out, '"');
  for (const char *p = valid; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, *p);
        }
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else if ((guchar) *p < 0x20 || *p == 0x7f)
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static char *
value_label (const GraphValue *v)
{
  const char *name = graph_value_get_name (v);
  return name ? g_strdup_printf ("%%%s", name) : g_strdup_printf ("%%%u", graph_value_id (v));
}

static char *
new_id (Dot *d, const char *prefix)
{
  return g_strdup_printf ("%s%u", prefix, d->next_id++);
}

static void
indent (Dot *d, guint level)
{
  for (guint i = 0; i < level; i++)
    g_string_append (d->out, "  ");
}

/* "Float(1, 3, 224, 224)": a tensor's element type and dims only (a
 * trace's strides and device would crowd the picture); NULL otherwise. */
static char *
short_type (const GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) < 0)
    return NULL;
  int rank = graph_type_rank (t);
  GraphDim dims[TENSOR_MAX_RANK];
  for (int i = 0; i < rank && i < TENSOR_MAX_RANK; i++)
    dims[i] = *graph_type_dim (t, (guint) i);
  g_autoptr (GraphType) plain = graph_type_new_tensor (graph_type_dtype (t), MIN (rank, TENSOR_MAX_RANK),
                                                       rank > 0 ? dims : NULL);
  return graph_type_to_string (plain);
}

#define DOT_ATTR_MAX 32   /* characters of one attribute value in a box */

/* "kernel_shape=[3, 3]\nstrides=[2, 2]": the attributes worth seeing in a
 * box (not tensors, graphs or what the box's title already says). */
static void
append_attrs (GString *label, const GraphNode *n)
{
  for (guint a = 0; a < graph_node_n_attrs (n); a++)
    {
      const char *name = graph_node_attr_name (n, a);
      GraphAttrKind kind;
      graph_node_attr_kind (n, name, &kind);
      if (kind == GRAPH_ATTR_T || kind == GRAPH_ATTR_G || kind == GRAPH_ATTR_TS
          || kind == GRAPH_ATTR_GS || kind == GRAPH_ATTR_TP || kind == GRAPH_ATTR_TPS
          || strcmp (name, "operator") == 0 || strcmp (name, "overload_name") == 0
          || strcmp (name, GRAPH_PYTHON_OP_NAME_ATTR) == 0)
        continue;
      g_autofree char *value = text_attr_value_to_string (n, name);
      if (g_utf8_strlen (value, -1) > DOT_ATTR_MAX)
        {
          char *cut = g_utf8_offset_to_pointer (value, DOT_ATTR_MAX - 3);
          strcpy (cut, "...");
        }
      g_string_append_printf (label, "\n%s=%s", name, value);
    }
}

static void
edge (Dot *d, guint level, const char *from, const char *to, const GraphValue *v)
{
  indent (d, level);
  g_string_append_printf (d->out, "%s -> %s", from, to);
  if (v)
    {
      g_autofree char *name = value_label (v);
      g_autofree char *type = short_type (v);
      g_autofree char *label = type ? g_strdup_printf ("%s\n%s", name, type) : g_strdup (name);
      g_string_append (d->out, " [label=");
      append_dot_string (d->out, label);
      g_string_append_c (d->out, ']');
    }
  g_string_append (d->out, ";\n");
}

/* Writes g's inputs, nodes and outputs; returns the id of its output node. */
static char *
dot_graph (Dot *d, const Graph *g, guint level)
{
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      GraphValue *v = graph_input (g, i);
      char *id = new_id (d, "in");
      g_autofree char *name = value_label (v);
      g_autofree char *type = graph_type_to_string (graph_value_type (v));
      g_autofree char *label = g_strdup_printf ("%s\n%s", name, type);
      indent (d, level);
      g_string_append_printf (d->out, "%s [shape=ellipse, label=", id);
      append_dot_string (d->out, label);
      g_string_append (d->out, "];\n");
      g_hash_table_insert (d->producer, v, id);
    }
  graph_foreach_node (g, n)
    {
      g_autofree char *id = new_id (d, "n");
      indent (d, level);
      g_string_append_printf (d->out, "%s [shape=box, label=", id);
      /* ATen nodes and PythonOps all share a kind: show what each one calls. */
      const char *op = NULL;
      g_autoptr (GString) label = g_string_new (graph_node_kind (n));
      if ((graph_node_is (n, GRAPH_KIND_ATEN) && graph_node_get_s (n, "operator", &op, NULL))
          || (graph_node_is (n, GRAPH_KIND_PYTHON_OP)
              && graph_node_get_s (n, GRAPH_PYTHON_OP_NAME_ATTR, &op, NULL)))
        g_string_append_printf (label, "\n%s", op);
      append_attrs (label, n);
      append_dot_string (d->out, label->str);
      g_string_append (d->out, "];\n");
      for (guint i = 0; i < graph_node_n_inputs (n); i++)
        {
          GraphValue *v = graph_node_input (n, i);
          const char *from = v ? g_hash_table_lookup (d->producer, v) : NULL;
          if (from)
            edge (d, level, from, id, v);
        }
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        g_hash_table_insert (d->producer, graph_node_output (n, i), g_strdup (id));
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          const char *attr = graph_node_attr_name (n, a);
          Graph *sub;
          Graph *const *subs;
          gsize len = 0;
          gboolean is_list = FALSE;
          if (graph_node_get_g (n, attr, &sub))
            subs = &sub, len = 1;
          else if (graph_node_get_gs (n, attr, &len, &subs))
            is_list = TRUE;
          else
            continue;
          for (gsize k = 0; k < len; k++)
            {
              g_autofree char *label = is_list
                                         ? g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", attr, k)
                                         : g_strdup (attr);
              indent (d, level);
              g_string_append_printf (d->out, "subgraph cluster_%u {\n", d->next_cluster++);
              indent (d, level + 1);
              g_string_append (d->out, "label=");
              append_dot_string (d->out, label);
              g_string_append (d->out, ";\n");
              indent (d, level + 1);
              g_string_append (d->out, "style=rounded;\n");
              g_autofree char *ret = dot_graph (d, subs[k], level + 1);
              indent (d, level);
              g_string_append (d->out, "}\n");
              indent (d, level);
              g_string_append_printf (d->out, "%s -> %s [style=dashed, arrowhead=none, label=", id, ret);
              append_dot_string (d->out, label);
              g_string_append (d->out, "];\n");
            }
        }
    }
  char *ret = new_id (d, "out");
  indent (d, level);
  g_string_append_printf (d->out, "%s [shape=ellipse, label=\"return\"];\n", ret);
  for (guint i = 0; i < graph_n_outputs (g); i++)
    {
      GraphValue *v = graph_output (g, i);
      const char *from = g_hash_table_lookup (d->producer, v);
      if (from)
        edge (d, level, from, ret, v);
    }
  return ret;
}

void
graph_print_dot (const Graph *g, GString *out)
{
  g_return_if_fail (g != NULL && out != NULL);
  Dot d = { out, g_hash_table_new_full (NULL, NULL, NULL, g_free), 0, 0 };
  const char *name = graph_get_name (g);
  g_string_append (out, "digraph ");
  append_dot_string (out, name ? name : "graph");
  g_string_append (out, " {\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
  g_autofree char *ret = dot_graph (&d, g, 1);
  g_string_append (out, "}\n");
  g_hash_table_unref (d.producer);
}
