/* Traces printed by PyTorch 1.13 (tests/fixtures/traces/NAME.trace, made by
 * tools/gen_trace_fixtures.py) parse with every node, value, type and scope
 * accounted for: the .json next to each trace holds facts torch computed
 * from the traced graph object. */
#include "tests/ir/text-test-util.h"
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

static JsonObject *
load_facts (const char *name, JsonParser **parser)
{
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/traces/%s.json", name);
  g_autofree char *path = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  *parser = json_parser_new ();
  if (!json_parser_load_from_file (*parser, path, &error))
    g_error ("%s: %s", path, error->message);
  return json_node_get_object (json_parser_get_root (*parser));
}

/* Python's Type.annotation_str for a type, written independently of the
 * printer: "Tensor", "int", "List[int]", "Tuple[Tensor, int]", ... */
static void
append_annotation (GString *s, const GraphType *t)
{
  switch (graph_type_kind (t))
    {
    case GRAPH_TYPE_TENSOR: case GRAPH_TYPE_SPARSE_TENSOR: g_string_append (s, "Tensor"); break;
    case GRAPH_TYPE_INT: g_string_append (s, "int"); break;
    case GRAPH_TYPE_FLOAT: g_string_append (s, "float"); break;
    case GRAPH_TYPE_BOOL: g_string_append (s, "bool"); break;
    case GRAPH_TYPE_STR: g_string_append (s, "str"); break;
    case GRAPH_TYPE_NONE: g_string_append (s, "NoneType"); break;
    case GRAPH_TYPE_DEVICE: g_string_append (s, "Device"); break;
    case GRAPH_TYPE_NUMBER: g_string_append (s, "number"); break;
    case GRAPH_TYPE_NAMED: case GRAPH_TYPE_CLASS: g_string_append (s, graph_type_name (t)); break;
    case GRAPH_TYPE_LIST: case GRAPH_TYPE_OPTIONAL: case GRAPH_TYPE_TUPLE: case GRAPH_TYPE_DICT:
      {
        static const char *const heads[] = { [GRAPH_TYPE_LIST] = "List", [GRAPH_TYPE_OPTIONAL] = "Optional",
                                             [GRAPH_TYPE_TUPLE] = "Tuple", [GRAPH_TYPE_DICT] = "Dict" };
        g_string_append_printf (s, "%s[", heads[graph_type_kind (t)]);
        for (guint i = 0; i < graph_type_n_elems (t); i++)
          {
            if (i)
              g_string_append (s, ", ");
            append_annotation (s, graph_type_elem (t, i));
          }
        g_string_append_c (s, ']');
        break;
      }
    }
}

/* The parsed type agrees with torch's accessors: annotation, scalarType,
 * varyingSizes, strides, device. */
static void
check_type (JsonObject *fact, const GraphType *t, const char *where)
{
  g_assert_nonnull (t);
  g_autoptr (GString) ann = g_string_new (NULL);
  append_annotation (ann, t);
  if (strcmp (ann->str, json_object_get_string_member (fact, "annotation")) != 0)
    g_error ("%s: torch's annotation %s, parsed %s", where,
             json_object_get_string_member (fact, "annotation"), ann->str);
  if (!json_object_has_member (fact, "dtype"))
    return;
  g_assert_true (graph_type_is_tensor (t));
  const char *dtype = json_object_get_string_member_with_default (fact, "dtype", NULL);
  g_assert_cmpstr (graph_dtype_torch_name (graph_type_dtype (t)), ==, dtype ? dtype : "Tensor");
  JsonNode *sizes = json_object_get_member (fact, "sizes");
  if (JSON_NODE_HOLDS_NULL (sizes))
    g_assert_cmpint (graph_type_rank (t), ==, -1);
  else
    {
      JsonArray *a = json_node_get_array (sizes);
      g_assert_cmpint (graph_type_rank (t), ==, (int) json_array_get_length (a));
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *d = json_array_get_element (a, i);
          const GraphDim *dim = graph_type_dim (t, i);
          if (JSON_NODE_HOLDS_NULL (d))
            g_assert_cmpint (dim->kind, ==, GRAPH_DIM_UNKNOWN);
          else
            {
              g_assert_cmpint (dim->kind, ==, GRAPH_DIM_STATIC);
              g_assert_cmpint (dim->value, ==, json_node_get_int (d));
            }
        }
    }
  JsonNode *strides = json_object_get_member (fact, "strides");
  const gint64 *got = graph_type_strides (t);
  if (JSON_NODE_HOLDS_NULL (strides) || (graph_type_rank (t) == 0 && got == NULL))
    g_assert_null (got);    /* torch does not print a 0-d tensor's empty strides */
  else
    {
      JsonArray *a = json_node_get_array (strides);
      g_assert_nonnull (got);
      for (guint i = 0; i < json_array_get_length (a); i++)
        g_assert_cmpint (got[i], ==, json_array_get_int_element (a, i));
    }
  const char *device = json_object_get_string_member_with_default (fact, "device", NULL);
  g_assert_cmpstr (graph_type_device (t), ==, device);
}

static void
check_string_array (JsonArray *a, guint i, const char *got, const char *what)
{
  const char *want = json_array_get_string_element (a, i);
  if (g_strcmp0 (want, got) != 0)
    g_error ("%s %u: torch says '%s', parsed '%s'", what, i, want, got);
}

static int
compare_chars (gconstpointer a, gconstpointer b)
{
  return *(const char *) a - *(const char *) b;
}

static gboolean
same_characters (const char *a, const char *b)
{
  g_autofree char *x = g_strdup (a), *y = g_strdup (b);
  if (strlen (x) != strlen (y))
    return FALSE;
  qsort (x, strlen (x), 1, compare_chars);
  qsort (y, strlen (y), 1, compare_chars);
  return strcmp (x, y) == 0;
}

static void
check_fixture (gconstpointer data)
{
  const char *name = data;
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/traces/%s.trace", name);
  g_autofree char *path = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = graph_parse_file (path, &error);
  g_assert_no_error (error);
  assert_lint (g);
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *facts = load_facts (name, &parser);

  /* graph inputs: names and types */
  JsonArray *in_names = json_object_get_array_member (facts, "input_names");
  JsonArray *in_types = json_object_get_array_member (facts, "input_types");
  g_assert_cmpuint (graph_n_inputs (g), ==, json_array_get_length (in_names));
  guint values = graph_n_inputs (g);
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      check_string_array (in_names, i, graph_value_get_name (graph_input (g, i)), "input");
      check_type (json_array_get_object_element (in_types, i), graph_value_type (graph_input (g, i)),
                  graph_value_get_name (graph_input (g, i)));
    }

  /* every node: kind, outputs (names and types), inputs, attribute names, scope */
  JsonArray *nodes = json_object_get_array_member (facts, "nodes");
  g_assert_cmpuint (graph_n_nodes (g), ==, json_object_get_int_member (facts, "node_count"));
  g_assert_cmpuint (graph_n_nodes (g), ==, json_array_get_length (nodes));
  g_autoptr (GHashTable) kinds = g_hash_table_new (g_str_hash, g_str_equal);
  guint index = 0, with_scope = 0, with_source = 0;
  graph_foreach_node (g, n)
    {
      JsonObject *want = json_array_get_object_element (nodes, index++);
      const char *kind = graph_node_kind (n);
      g_assert_cmpstr (kind, ==, json_object_get_string_member (want, "kind"));
      g_hash_table_insert (kinds, (gpointer) kind,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (kinds, kind)) + 1));
      JsonArray *outs = json_object_get_array_member (want, "outputs");
      JsonArray *types = json_object_get_array_member (want, "types");
      g_assert_cmpuint (graph_node_n_outputs (n), ==, json_array_get_length (outs));
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        {
          check_string_array (outs, i, graph_value_get_name (graph_node_output (n, i)), "output");
          check_type (json_array_get_object_element (types, i), graph_value_type (graph_node_output (n, i)),
                      graph_value_get_name (graph_node_output (n, i)));
        }
      values += graph_node_n_outputs (n);
      JsonArray *ins = json_object_get_array_member (want, "inputs");
      g_assert_cmpuint (graph_node_n_inputs (n), ==, json_array_get_length (ins));
      for (guint i = 0; i < graph_node_n_inputs (n); i++)
        check_string_array (ins, i, graph_value_get_name (graph_node_input (n, i)), "input");
      /* A PythonOp also keeps its Function's name and scalar arguments. */
      JsonArray *attrs = json_object_get_array_member (want, "attributes");
      guint k = 0;
      for (guint i = 0; i < graph_node_n_attrs (n); i++)
        {
          const char *attr = graph_node_attr_name (n, i);
          if (graph_node_is (n, GRAPH_KIND_PYTHON_OP)
              && (strcmp (attr, GRAPH_PYTHON_OP_NAME_ATTR) == 0 || strcmp (attr, GRAPH_PYTHON_OP_ARGS_ATTR) == 0))
            continue;
          g_assert_cmpuint (k, <, json_array_get_length (attrs));
          check_string_array (attrs, k++, attr, "attribute");
        }
      g_assert_cmpuint (k, ==, json_array_get_length (attrs));
      if (graph_node_is (n, GRAPH_KIND_PYTHON_OP))
        {
          const char *py_name;
          g_assert_true (graph_node_get_s (n, GRAPH_PYTHON_OP_NAME_ATTR, &py_name, NULL));
          g_assert_cmpstr (py_name, ==, json_object_get_string_member (want, "python_name"));
        }
      const char *scope = json_object_get_string_member (want, "scope");
      g_assert_cmpstr (graph_node_get_scope (n), ==, *scope ? scope : NULL);
      with_scope += graph_node_get_scope (n) != NULL;
      with_source += graph_node_get_source (n) != NULL;
    }
  g_assert_cmpuint (values, ==, json_object_get_int_member (facts, "value_count"));
  g_assert_cmpuint (with_scope, ==, json_object_get_int_member (facts, "nodes_with_scope"));
  g_assert_cmpuint (with_source, ==, json_object_get_int_member (facts, "nodes_with_source"));
  JsonObject *hist = json_object_get_object_member (facts, "kinds");
  g_assert_cmpuint (g_hash_table_size (kinds), ==, json_object_get_size (hist));
  g_autoptr (GList) members = json_object_get_members (hist);
  for (GList *l = members; l; l = l->next)
    g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (kinds, l->data)), ==,
                      json_object_get_int_member (hist, l->data));
  JsonArray *out_names = json_object_get_array_member (facts, "output_names");
  g_assert_cmpuint (graph_n_outputs (g), ==, json_array_get_length (out_names));
  for (guint i = 0; i < graph_n_outputs (g); i++)
    check_string_array (out_names, i, graph_value_get_name (graph_output (g, i)), "graph output");

  /* Printing gives torch's text back, line for line, except the tensor
   * reprs whose data we do not keep (they print as <Tensor>). */
  g_autofree char *original = NULL;
  g_assert_true (g_file_get_contents (path, &original, NULL, NULL));
  g_autofree char *printed = graph_to_string (g);
  g_auto (GStrv) a = g_strsplit (original, "\n", -1);
  g_auto (GStrv) b = g_strsplit (printed, "\n", -1);
  g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
  guint reprs = 0;
  for (guint i = 0; a[i]; i++)
    if (strcmp (a[i], b[i]) != 0)
      {
        /* A PythonOp's attributes come back in name order: same characters. */
        if (strstr (a[i], "= ^") && same_characters (a[i], b[i]))
          continue;
        if (strstr (a[i], "Type{") == NULL || strstr (b[i], "[value=<Tensor>]") == NULL)
          g_error ("line %u differs:\n%s\n%s", i + 1, a[i], b[i]);
        reprs++;
      }
  if (strcmp (name, "constants") == 0)
    g_assert_cmpuint (reprs, >, 0);
  else
    g_assert_cmpuint (reprs, ==, 0);
  g_autoptr (Graph) back = text_test_round_trip (g);
}

void
test_text_fixtures_register (void)
{
  static const char *const names[] = { "resnet18", "lstm", "mymodule", "constants", "pythonop" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ir/text/fixtures/%s", names[i]);
      g_test_add_data_func (path, names[i], check_fixture);
    }
}
