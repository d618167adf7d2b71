/* Initializer deduplication (export/pipeline/dedup-initializers.c).
 *
 * tests/fixtures/dedup/ (tools/gen_dedup_fixtures.py) holds models whose
 * initializers repeat each other, with what torch.onnx.export (torch 1.13)
 * wrote for them.  Each is exported here and compared with torch's model:
 * initializers (names, order, bytes), graph inputs and outputs, every
 * node's op type, name, inputs and outputs; then the exported model is
 * written, read back and run against PyTorch's outputs.
 *
 * Names torch generates ("onnx::Conv_46" for a fused Conv weight) are
 * matched through a consistent one-to-one renaming; every other name must be
 * equal.  Node names torch gives scope-less nodes by their index
 * ("Constant_11") are not compared: export_assign_scoped_names names every
 * node by scope; the Identity nodes of deduplication are compared. */
#include "symonnx.h"
#include "export/export.h"
#include "export/onnxio.h"
#include "export/tensorfiles.h"
#include "runtime/runtime.h"
#include "tests/common/test-util.h"
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ---- the fixtures --------------------------------------------------------- */

static GraphDType
numpy_dtype (const char *name)
{
  static const struct { const char *np; GraphDType dt; } map[] = {
    { "float32", GRAPH_DTYPE_FLOAT }, { "float64", GRAPH_DTYPE_DOUBLE },
    { "int64", GRAPH_DTYPE_INT64 },   { "int32", GRAPH_DTYPE_INT32 },
    { "bool", GRAPH_DTYPE_BOOL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (map[i].np, name) == 0)
      return map[i].dt;
  g_error ("fixture dtype %s is not mapped", name);
  return GRAPH_DTYPE_UNDEFINED;
}

/* {"dtype", "shape", "data" (base64)} → Tensor. */
static Tensor *
json_tensor (JsonObject *o)
{
  JsonArray *shape = json_object_get_array_member (o, "shape");
  guint rank = json_array_get_length (shape);
  g_assert_cmpuint (rank, <=, TENSOR_MAX_RANK);
  gint64 dims[TENSOR_MAX_RANK];
  for (guint i = 0; i < rank; i++)
    dims[i] = json_array_get_int_element (shape, i);
  gsize len = 0;
  g_autofree guchar *data = g_base64_decode (json_object_get_string_member (o, "data"), &len);
  g_autoptr (GError) error = NULL;
  Tensor *t = tensor_new_from_data (numpy_dtype (json_object_get_string_member (o, "dtype")),
                                    rank, dims, data, len, &error);
  g_assert_no_error (error);
  return t;
}

static GStrv
json_strv (JsonArray *a)
{
  GStrv v = g_new0 (char *, json_array_get_length (a) + 1);
  for (guint i = 0; i < json_array_get_length (a); i++)
    v[i] = g_strdup (json_array_get_string_element (a, i));
  return v;
}

/* ---- names ---------------------------------------------------------------- */

/* Torch's names against ours: equal, or a name torch generated ("onnx::")
 * mapped one-to-one. */
typedef struct
{
  GHashTable *to_ours;
  GHashTable *to_torch;
} NameMap;

static void
expect_name (NameMap *m, const char *torch, const char *ours, const char *what)
{
  g_assert_nonnull (ours);
  const char *bound = g_hash_table_lookup (m->to_ours, torch);
  const char *back = g_hash_table_lookup (m->to_torch, ours);
  if (bound == NULL && back == NULL)
    {
      if (!g_str_has_prefix (torch, "onnx::") && strcmp (torch, ours) != 0)
        g_error ("%s: torch's name %s, ours %s", what, torch, ours);
      g_hash_table_insert (m->to_ours, g_strdup (torch), g_strdup (ours));
      g_hash_table_insert (m->to_torch, g_strdup (ours), g_strdup (torch));
      return;
    }
  if (g_strcmp0 (bound, ours) != 0 || g_strcmp0 (back, torch) != 0)
    g_error ("%s: torch's %s is ours %s, but here ours is %s", what, torch,
             bound ? bound : "(none)", ours);
}

/* "Constant_11": how torch names a scope-less node when it writes it. */
static gboolean
index_name (const char *name, const char *op)
{
  gsize n = strlen (op);
  if (strncmp (name, op, n) != 0 || name[n] != '_' || name[n + 1] == '\0')
    return FALSE;
  for (const char *p = name + n + 1; *p; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

/* ---- comparisons ---------------------------------------------------------- */

static void
compare_graph (Graph *g, JsonObject *ref, NameMap *m)
{
  /* Initializers, in order (the writer's order), bit for bit. */
  JsonArray *inits = json_object_get_array_member (ref, "initializers");
  guint k = 0;
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      GraphValue *v = graph_input (g, i);
      Tensor *t = graph_value_get_initializer (v);
      if (t == NULL)
        continue;
      g_assert_cmpuint (k, <, json_array_get_length (inits));
      JsonObject *o = json_array_get_object_element (inits, k++);
      expect_name (m, json_object_get_string_member (o, "name"), graph_value_get_name (v),
                   "initializer");
      g_autoptr (Tensor) want = json_tensor (o);
      if (!tensor_equal (t, want))
        g_error ("initializer %s differs from torch's", graph_value_get_name (v));
    }
  g_assert_cmpuint (k, ==, json_array_get_length (inits));

  /* graph.input: inputs without a tensor and those listed as inputs. */
  JsonArray *ins = json_object_get_array_member (ref, "inputs");
  k = 0;
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      GraphValue *v = graph_input (g, i);
      if (graph_value_get_initializer (v) && !graph_value_initializer_is_input (v))
        continue;
      g_assert_cmpuint (k, <, json_array_get_length (ins));
      expect_name (m, json_array_get_string_element (ins, k++), graph_value_get_name (v), "input");
    }
  g_assert_cmpuint (k, ==, json_array_get_length (ins));

  JsonArray *outs = json_object_get_array_member (ref, "outputs");
  g_assert_cmpuint (graph_n_outputs (g), ==, json_array_get_length (outs));
  for (guint i = 0; i < graph_n_outputs (g); i++)
    expect_name (m, json_array_get_string_element (outs, i),
                 graph_value_get_name (graph_output (g, i)), "output");

  JsonArray *nodes = json_object_get_array_member (ref, "nodes");
  g_assert_cmpuint (graph_n_nodes (g), ==, json_array_get_length (nodes));
  k = 0;
  graph_foreach_node (g, n)
    {
      JsonObject *o = json_array_get_object_element (nodes, k++);
      const char *op = json_object_get_string_member (o, "op_type");
      const char *name = json_object_get_string_member (o, "name");
      g_assert_cmpstr (graph_node_op_type (n), ==, op);
      if (strcmp (op, "Identity") == 0 || !index_name (name, op))
        g_assert_cmpstr (graph_node_get_name (n), ==, name);
      JsonArray *ni = json_object_get_array_member (o, "inputs");
      JsonArray *no = json_object_get_array_member (o, "outputs");
      g_assert_cmpuint (graph_node_n_inputs (n), ==, json_array_get_length (ni));
      g_assert_cmpuint (graph_node_n_outputs (n), ==, json_array_get_length (no));
      for (guint i = 0; i < graph_node_n_inputs (n); i++)
        expect_name (m, json_array_get_string_element (ni, i),
                     graph_value_get_name (graph_node_input (n, i)), name);
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        expect_name (m, json_array_get_string_element (no, i),
                     graph_value_get_name (graph_node_output (n, i)), name);
    }
}

/* Close to PyTorch's outputs; NaN where PyTorch has NaN. */
static void
compare_outputs (GHashTable *got, JsonObject *facts)
{
  JsonArray *names = json_object_get_array_member (facts, "output_names");
  JsonArray *expected = json_object_get_array_member (facts, "expected");
  for (guint i = 0; i < json_array_get_length (expected); i++)
    {
      const char *name = json_array_get_string_element (names, i);
      Tensor *t = g_hash_table_lookup (got, name);
      g_assert_nonnull (t);
      g_autoptr (Tensor) want = json_tensor (json_array_get_object_element (expected, i));
      g_assert_cmpint (tensor_dtype (t), ==, tensor_dtype (want));
      g_assert_cmpuint (tensor_rank (t), ==, tensor_rank (want));
      for (guint d = 0; d < tensor_rank (t); d++)
        g_assert_cmpint (tensor_dim (t, d), ==, tensor_dim (want, d));
      for (gint64 e = 0; e < tensor_numel (t); e++)
        {
          double a = tensor_get_double (t, e), b = tensor_get_double (want, e);
          if (isnan (b))
            g_assert_true (isnan (a));
          else if (fabs (a - b) > 1e-5 + 1e-5 * fabs (b))
            g_error ("output %s[%" G_GINT64_FORMAT "]: %g, PyTorch %g", name, e, a, b);
        }
    }
}

static void
run_model (Graph *g, JsonObject *facts)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-dedup-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (onnxio_save (g, path, NULL, &error));
  g_assert_no_error (error);
  g_autoptr (Graph) loaded = onnxio_load (path, &error);
  g_assert_no_error (error);
  RtOptions opts;
  rt_options_init (&opts);
  g_autoptr (RtSession) s = rt_session_new (loaded, &opts, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  JsonArray *names = json_object_get_array_member (facts, "input_names");
  JsonArray *values = json_object_get_array_member (facts, "inputs");
  for (guint i = 0; i < json_array_get_length (values); i++)
    g_hash_table_insert (inputs, g_strdup (json_array_get_string_element (names, i)),
                         json_tensor (json_array_get_object_element (values, i)));
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           (GDestroyNotify) tensor_unref);
  g_assert_true (rt_session_run (s, inputs, outputs, &error));
  g_assert_no_error (error);
  compare_outputs (outputs, facts);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_torch_fixture (gconstpointer data)
{
  const char *name = data;
  g_autofree char *base = g_strdup_printf ("tests/fixtures/dedup/%s", name);
  g_autofree char *json_rel = g_strconcat (base, ".json", NULL);
  g_autofree char *trace_rel = g_strconcat (base, ".trace", NULL);
  g_autofree char *weights_rel = g_strconcat (base, ".safetensors", NULL);
  g_autofree char *json_path = test_source_path (json_rel);
  g_autofree char *trace_path = test_source_path (trace_rel);
  g_autofree char *weights_path = test_source_path (weights_rel);

  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, json_path, &error));
  JsonObject *facts = json_node_get_object (json_parser_get_root (parser));
  g_autoptr (Graph) trace = graph_parse_file (trace_path, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) weights = export_safetensors_load (weights_path, &error);
  g_assert_no_error (error);
  /* State-dict entries sharing storage in PyTorch: one Tensor here. */
  JsonArray *aliases = json_object_get_array_member (facts, "aliases");
  for (guint i = 0; i < json_array_get_length (aliases); i++)
    {
      JsonArray *group = json_array_get_array_element (aliases, i);
      Tensor *first = g_hash_table_lookup (weights, json_array_get_string_element (group, 0));
      g_assert_nonnull (first);
      for (guint j = 1; j < json_array_get_length (group); j++)
        g_hash_table_insert (weights, g_strdup (json_array_get_string_element (group, j)),
                             tensor_ref (first));
    }

  g_auto (GStrv) in_names = json_strv (json_object_get_array_member (facts, "input_names"));
  g_auto (GStrv) out_names = json_strv (json_object_get_array_member (facts, "output_names"));
  JsonObject *options = json_object_get_object_member (facts, "options");
  ExportOptions o;
  export_options_init (&o);
  o.opset = (int) json_object_get_int_member (facts, "opset");
  o.input_names = (const char *const *) in_names;
  o.output_names = (const char *const *) out_names;
  o.keep_initializers_as_inputs = json_object_get_boolean_member_with_default (
    options, "keep_initializers_as_inputs", FALSE);
  o.weights = weights;
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  g_assert_no_error (error);
  export_options_clear (&o);

  NameMap m = { g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
                g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free) };
  compare_graph (g, json_object_get_object_member (facts, "onnx"), &m);
  g_hash_table_unref (m.to_ours);
  g_hash_table_unref (m.to_torch);
  run_model (g, facts);
}

/* ---- deferred tensors ----------------------------------------------------- */

/* Element i is i + 1, times `factor` at index `at`. */
typedef struct
{
  gint64 at;
  float  factor;
} Ramp;

static void
ramp_fill (gconstpointer data, gint64 first, gint64 count, gpointer dst)
{
  const Ramp *r = data;
  float *d = dst;
  for (gint64 i = 0; i < count; i++)
    d[i] = (float) (first + i + 1) * (first + i == r->at ? r->factor : 1.0f);
}

static GraphValue *
add_deferred (Graph *g, const char *name, gint64 n, const Ramp *r)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Tensor) t = tensor_new_deferred (GRAPH_DTYPE_FLOAT, 1, &n, ramp_fill, (gpointer) r,
                                              NULL, &error);
  g_assert_no_error (error);
  return graph_add_initializer (g, name, t);
}

/* Deferred tensors are compared without being computed and kept: one with
 * no same-shaped peer, one that differs from its peer only past the
 * sampled elements (in a later chunk), and an equal pair, of which the kept
 * one stays deferred. */
static void
test_deferred (void)
{
  const gint64 n = 40000;
  static const Ramp plain = { -1, 1.0f }, late = { 30001, 2.0f };
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 14);
  gint64 one = n;
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, &one);
  GraphValue *x = graph_add_input (g, "x", ty);
  GraphValue *a = add_deferred (g, "a", n, &plain);
  GraphValue *b = add_deferred (g, "b", n, &late);
  GraphValue *c = add_deferred (g, "c", n, &plain);
  GraphValue *d = add_deferred (g, "d", n - 1, &plain);
  GraphValue *y = graph_op (g, "Add", x, a, NULL);
  y = graph_op (g, "Add", y, b, NULL);
  y = graph_op (g, "Add", y, c, NULL);
  graph_add_output (g, y);
  GraphValue *z = graph_op (g, "Neg", d, NULL);
  graph_add_output (g, z);
  Tensor *ta = graph_value_get_initializer (a), *tb = graph_value_get_initializer (b);
  Tensor *td = graph_value_get_initializer (d);
  tensor_ref (ta);

  g_assert_cmpuint (export_deduplicate_initializers (g), ==, 1);
  assert_lint (g);
  g_assert_true (tensor_is_deferred (ta));
  g_assert_true (tensor_is_deferred (tb));
  g_assert_true (tensor_is_deferred (td));
  GraphNode *id = graph_first_node (g);
  g_assert_cmpstr (graph_node_op_type (id), ==, "Identity");
  g_assert_cmpstr (graph_node_get_name (id), ==, "Identity_0");
  g_assert_true (graph_node_input (id, 0) == a);
  g_assert_cmpstr (graph_value_get_name (graph_node_output (id, 0)), ==, "c");
  g_assert_null (graph_value_get_initializer (graph_find_value (g, "c")));
  g_assert_cmpuint (graph_n_inputs (g), ==, 4);
  /* A second run finds nothing left to merge. */
  g_assert_cmpuint (export_deduplicate_initializers (g), ==, 0);
  tensor_unref (ta);
}

void
test_dedup_register (void)
{
  static const char *const cases[] = { "linear_bn", "conv_bn", "shared_nan" };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/export/dedup/torch/%s", cases[i]);
      g_test_add_data_func (path, cases[i], test_torch_fixture);
    }
  g_test_add_func ("/export/dedup/deferred", test_deferred);
}
