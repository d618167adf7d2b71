/* Symbolic shapes with dynamic axes (export/pipeline/shape-propagation.c).
 *
 * tests/fixtures/dynamic-shapes/ (tools/gen_dynamic_shape_fixtures.py) holds
 * models that torch.onnx.export (torch 1.13) exported with dynamic axes:
 * the graph output shapes torch declared, and for every other value the
 * shape ONNX shape inference (with data propagation) gives in torch's
 * model.  Each is exported here with the same dynamic axes, and
 *  - the graph output shapes must equal torch's (a symbol torch invented
 *    maps one-to-one onto one of ours);
 *  - for every value present in both, a dim torch knows statically must be
 *    the same static dim here, and a dim torch has as a dynamic-axes symbol
 *    must not be static here; the matches are counted and reported;
 *  - the model runs at two other sizes of its dynamic axes, with every
 *    value we gave a shape returned: each static dim must be the run's,
 *    each symbol one value throughout the run (the input's where it names
 *    an input dim), and the outputs PyTorch's. */
#include "symonnx.h"
#include "export/export.h"
#include "export/onnxio.h"
#include "export/tensorfiles.h"
#include "runtime/runtime.h"
#include "tests/common/test-util.h"
#include "tests/common/test-weights.h"
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define FIXTURES "tests/fixtures/dynamic-shapes"

static char *
fixture (const char *name)
{
  g_autofree char *rel = g_build_filename (FIXTURES, name, NULL);
  return test_source_path (rel);
}

static GStrv
json_strv (JsonArray *a)
{
  GStrv v = g_new0 (char *, json_array_get_length (a) + 1);
  for (guint i = 0; i < json_array_get_length (a); i++)
    v[i] = g_strdup (json_array_get_string_element (a, i));
  return v;
}

/* ---- static comparison with torch ----------------------------------------- */

typedef struct
{
  GHashTable *user_symbols;   /* the dynamic-axes symbols */
  GHashTable *to_ours;        /* torch's invented symbol → ours */
  GHashTable *to_torch;
  guint values, dims, torch_static, torch_user_symbol, same_symbol, ours_better;
} Compare;

static void
map_symbol (Compare *c, const char *torch, const char *ours, const char *what)
{
  const char *bound = g_hash_table_lookup (c->to_ours, torch);
  const char *back = g_hash_table_lookup (c->to_torch, ours);
  if (bound == NULL && back == NULL)
    {
      g_hash_table_insert (c->to_ours, (gpointer) torch, (gpointer) ours);
      g_hash_table_insert (c->to_torch, (gpointer) ours, (gpointer) torch);
      return;
    }
  if (g_strcmp0 (bound, ours) != 0 || g_strcmp0 (back, torch) != 0)
    g_error ("%s: torch's symbol %s is ours %s elsewhere, here %s", what, torch,
             bound ? bound : "(none)", ours);
}

static char *
dims_string (GraphType *t)
{
  return t ? graph_type_to_string (t) : g_strdup ("(no type)");
}

/* A graph output: every dim as torch declared it. */
static void
compare_output (Compare *c, const char *name, GraphType *t, JsonArray *torch)
{
  g_autofree char *ts = dims_string (t);
  if (t == NULL || graph_type_rank (t) != (int) json_array_get_length (torch))
    g_error ("output %s: %s, torch's rank %u", name, ts, json_array_get_length (torch));
  for (guint i = 0; i < json_array_get_length (torch); i++)
    {
      JsonNode *d = json_array_get_element (torch, i);
      const GraphDim *ours = graph_type_dim (t, i);
      if (JSON_NODE_HOLDS_NULL (d))
        {
          if (ours->kind != GRAPH_DIM_UNKNOWN)
            g_error ("output %s dim %u: torch unknown, ours %s", name, i, ts);
        }
      else if (json_node_get_value_type (d) == G_TYPE_STRING)
        {
          const char *sym = json_node_get_string (d);
          if (ours->kind != GRAPH_DIM_SYMBOLIC)
            g_error ("output %s dim %u: torch %s, ours %s", name, i, sym, ts);
          if (g_hash_table_contains (c->user_symbols, sym))
            g_assert_cmpstr (ours->symbol, ==, sym);
          else
            map_symbol (c, json_node_get_string (d), ours->symbol, name);
        }
      else if (ours->kind != GRAPH_DIM_STATIC || ours->value != json_node_get_int (d))
        g_error ("output %s dim %u: torch %" G_GINT64_FORMAT ", ours %s", name, i,
                 json_node_get_int (d), ts);
    }
}

/* An intermediate value: torch's static dims must be ours; a dynamic-axes
 * symbol must not be static here. */
static void
compare_value (Compare *c, const char *name, GraphType *t, JsonArray *torch)
{
  g_autofree char *ts = dims_string (t);
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) != (int) json_array_get_length (torch))
    g_error ("value %s: ours %s, torch's rank %u", name, ts, json_array_get_length (torch));
  c->values++;
  for (guint i = 0; i < json_array_get_length (torch); i++)
    {
      JsonNode *d = json_array_get_element (torch, i);
      const GraphDim *ours = graph_type_dim (t, i);
      c->dims++;
      if (JSON_NODE_HOLDS_NULL (d))
        c->ours_better += ours->kind != GRAPH_DIM_UNKNOWN;
      else if (json_node_get_value_type (d) == G_TYPE_STRING)
        {
          const char *sym = json_node_get_string (d);
          if (!g_hash_table_contains (c->user_symbols, sym))
            {
              c->ours_better += ours->kind != GRAPH_DIM_UNKNOWN;   /* torch's unk__N */
              continue;
            }
          c->torch_user_symbol++;
          if (ours->kind == GRAPH_DIM_STATIC)
            g_error ("value %s dim %u: torch %s, ours %s", name, i, sym, ts);
          c->same_symbol += ours->kind == GRAPH_DIM_SYMBOLIC && strcmp (ours->symbol, sym) == 0;
        }
      else
        {
          c->torch_static++;
          if (ours->kind != GRAPH_DIM_STATIC || ours->value != json_node_get_int (d))
            g_error ("value %s dim %u: torch %" G_GINT64_FORMAT ", ours %s", name, i,
                     json_node_get_int (d), ts);
        }
    }
}

/* ---- runs ------------------------------------------------------------------ */

/* Every value's declared dims against the tensor it had at run time: static
 * dims equal, each symbol one value (bound by the inputs first). */
static void
check_run_shape (GHashTable *bound, const char *name, GraphType *t, const Tensor *v)
{
  g_autofree char *ts = dims_string (t);
  if ((int) tensor_rank (v) != graph_type_rank (t))
    g_error ("run: %s is declared %s, has rank %u", name, ts, tensor_rank (v));
  for (guint i = 0; i < tensor_rank (v); i++)
    {
      const GraphDim *d = graph_type_dim (t, i);
      if (d->kind == GRAPH_DIM_STATIC && d->value != tensor_dim (v, i))
        g_error ("run: %s is declared %s, dim %u is %" G_GINT64_FORMAT, name, ts, i,
                 tensor_dim (v, i));
      if (d->kind != GRAPH_DIM_SYMBOLIC)
        continue;
      gpointer have;
      if (!g_hash_table_lookup_extended (bound, d->symbol, NULL, &have))
        g_hash_table_insert (bound, (gpointer) d->symbol, GSIZE_TO_POINTER (tensor_dim (v, i)));
      else if (GPOINTER_TO_SIZE (have) != (gsize) tensor_dim (v, i))
        g_error ("run: %s is declared %s, but %s is %" G_GSIZE_FORMAT " and dim %u is %"
                 G_GINT64_FORMAT, name, ts, d->symbol, GPOINTER_TO_SIZE (have), i, tensor_dim (v, i));
    }
}

static void
compare_tensors (const char *what, const Tensor *got, const Tensor *want)
{
  g_assert_cmpuint (tensor_rank (got), ==, tensor_rank (want));
  for (guint d = 0; d < tensor_rank (got); d++)
    g_assert_cmpint (tensor_dim (got, d), ==, tensor_dim (want, d));
  for (gint64 e = 0; e < tensor_numel (got); e++)
    {
      double a = tensor_get_double (got, e), b = tensor_get_double (want, e);
      if (!(fabs (a - b) <= 1e-4 + 1e-4 * fabs (b)))
        g_error ("%s[%" G_GINT64_FORMAT "]: %g, expected %g", what, e, a, b);
    }
}

/* The first item along axis 0 (ResNet's batch-independence check). */
static Tensor *
first_item (const Tensor *t)
{
  gint64 dims[TENSOR_MAX_RANK];
  memcpy (dims, tensor_dims (t), tensor_rank (t) * sizeof (gint64));
  dims[0] = 1;
  g_autoptr (GError) error = NULL;
  Tensor *r = tensor_new_from_data (tensor_dtype (t), tensor_rank (t), dims, tensor_data (t),
                                    tensor_nbytes (t) / (gsize) tensor_dim (t, 0), &error);
  g_assert_no_error (error);
  return r;
}

static GHashTable *
tensor_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
}

/* Runs `loaded` on `inputs`, checking every declared shape; returns the
 * graph outputs. */
static GHashTable *
run_checked (Graph *loaded, GPtrArray *names, GHashTable *inputs)
{
  RtOptions opts;
  rt_options_init (&opts);
  opts.extra_outputs = (const char *const *) names->pdata;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (loaded, &opts, &error);
  g_assert_no_error (error);
  GHashTable *outputs = tensor_table ();
  g_assert_true (rt_session_run (s, inputs, outputs, &error));
  g_assert_no_error (error);
  g_autoptr (GHashTable) bound = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < graph_n_inputs (loaded); i++)
    {
      GraphValue *v = graph_input (loaded, i);
      Tensor *t = g_hash_table_lookup (inputs, graph_value_get_name (v));
      if (t)
        check_run_shape (bound, graph_value_get_name (v), graph_value_type (v), t);
    }
  guint checked = 0;
  for (guint i = 0; i + 1 < names->len; i++)
    {
      GraphValue *v = graph_find_value (loaded, names->pdata[i]);
      Tensor *t = g_hash_table_lookup (outputs, names->pdata[i]);
      g_assert_nonnull (t);
      check_run_shape (bound, names->pdata[i], graph_value_type (v), t);
      checked++;
    }
  for (guint i = 0; i < graph_n_outputs (loaded); i++)
    {
      GraphValue *v = graph_output (loaded, i);
      Tensor *t = g_hash_table_lookup (outputs, graph_value_get_name (v));
      g_assert_nonnull (t);
      check_run_shape (bound, graph_value_get_name (v), graph_value_type (v), t);
    }
  g_test_message ("  run: %u intermediate shapes checked", checked);
  return outputs;
}

static void
run_model (Graph *g, JsonObject *facts)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-dynshapes-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (onnxio_save (g, path, NULL, &error));
  g_assert_no_error (error);
  g_autoptr (Graph) loaded = onnxio_load (path, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);

  /* Every intermediate tensor the model declares a shape for. */
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  graph_foreach_node (loaded, n)
    for (guint i = 0; i < graph_node_n_outputs (n); i++)
      {
        GraphValue *v = graph_node_output (n, i);
        GraphType *t = graph_value_type (v);
        if (t && graph_type_is_tensor (t) && graph_type_rank (t) >= 0 && graph_value_get_name (v)
            && !graph_value_is_graph_output (v) && graph_value_n_uses (v) > 0)
          g_ptr_array_add (names, (gpointer) graph_value_get_name (v));
      }
  g_ptr_array_add (names, NULL);

  JsonArray *in_names = json_object_get_array_member (facts, "input_names");
  JsonArray *out_names = json_object_get_array_member (facts, "output_names");
  JsonArray *runs = json_object_get_array_member (facts, "runs");
  g_assert_cmpuint (json_array_get_length (runs), ==, 2);
  gint64 first_dim[2] = { 0 };
  for (guint r = 0; r < json_array_get_length (runs); r++)
    {
      JsonObject *run = json_array_get_object_element (runs, r);
      JsonArray *ins = json_object_get_array_member (run, "inputs");
      JsonArray *exp = json_object_get_array_member (run, "expected");
      g_autoptr (GHashTable) inputs = tensor_table ();
      for (guint i = 0; i < json_array_get_length (ins); i++)
        {
          g_autofree char *p = fixture (json_array_get_string_element (ins, i));
          Tensor *t = export_npy_load (p, &error);
          g_assert_no_error (error);
          g_hash_table_insert (inputs, g_strdup (json_array_get_string_element (in_names, i)), t);
          if (i == 0)
            first_dim[r] = tensor_dim (t, 0);
        }
      g_autoptr (GHashTable) outputs = run_checked (loaded, names, inputs);
      for (guint i = 0; i < json_array_get_length (exp); i++)
        {
          g_autofree char *p = fixture (json_array_get_string_element (exp, i));
          g_autoptr (Tensor) want = export_npy_load (p, &error);
          g_assert_no_error (error);
          const char *oname = json_array_get_string_element (out_names, i);
          compare_tensors (oname, g_hash_table_lookup (outputs, oname), want);
        }
      if (json_array_get_length (exp) == 0)
        {
          /* No PyTorch outputs (random weights written here): the first
           * item alone gives the first row of the batch's output. */
          g_assert_cmpuint (json_array_get_length (ins), ==, 1);
          const char *iname = json_array_get_string_element (in_names, 0);
          g_autoptr (GHashTable) one = tensor_table ();
          g_hash_table_insert (one, g_strdup (iname), first_item (g_hash_table_lookup (inputs, iname)));
          g_autoptr (GHashTable) single = run_checked (loaded, names, one);
          for (guint i = 0; i < json_array_get_length (out_names); i++)
            {
              const char *oname = json_array_get_string_element (out_names, i);
              g_autoptr (Tensor) row = first_item (g_hash_table_lookup (outputs, oname));
              compare_tensors (oname, g_hash_table_lookup (single, oname), row);
            }
        }
    }
  /* The two runs really are at different sizes. */
  g_assert_cmpint (first_dim[0], !=, first_dim[1]);
}

/* ---- the cases ------------------------------------------------------------- */

static void
test_case (gconstpointer data)
{
  const char *name = data;
  g_autofree char *json_name = g_strconcat (name, ".json", NULL);
  g_autofree char *trace_name = g_strconcat (name, ".trace", NULL);
  g_autofree char *weights_name = g_strconcat (name, ".safetensors", NULL);
  g_autofree char *json_path = fixture (json_name);
  g_autofree char *trace_path = fixture (trace_name);
  g_autofree char *weights_path = fixture (weights_name);

  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, json_path, &error));
  JsonObject *facts = json_node_get_object (json_parser_get_root (parser));
  g_autoptr (Graph) trace = graph_parse_file (trace_path, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) weights = NULL;
  if (json_object_has_member (facts, "weights"))
    weights = test_random_weights (json_object_get_object_member (facts, "weights"));
  else
    weights = export_safetensors_load (weights_path, &error);
  g_assert_no_error (error);

  g_auto (GStrv) in_names = json_strv (json_object_get_array_member (facts, "input_names"));
  g_auto (GStrv) out_names = json_strv (json_object_get_array_member (facts, "output_names"));
  ExportOptions o;
  export_options_init (&o);
  o.opset = (int) json_object_get_int_member (facts, "opset");
  o.input_names = (const char *const *) in_names;
  o.output_names = (const char *const *) out_names;
  o.weights = weights;
  const char *spec = json_object_get_string_member (facts, "dynamic_axes");
  g_assert_true (export_options_parse_dynamic_axes (&o, spec, &error));
  g_assert_no_error (error);
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  g_assert_no_error (error);

  Compare c = { 0 };
  c.user_symbols = g_hash_table_new (g_str_hash, g_str_equal);
  c.to_ours = g_hash_table_new (g_str_hash, g_str_equal);
  c.to_torch = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < o.dynamic_axes->len; i++)
    g_hash_table_add (c.user_symbols,
                      (gpointer) g_intern_string (g_array_index (o.dynamic_axes, ExportDynamicAxis, i).symbol));
  export_options_clear (&o);

  JsonObject *outs = json_object_get_object_member (facts, "outputs");
  g_assert_cmpuint (graph_n_outputs (g), ==, json_object_get_size (outs));
  for (guint i = 0; i < graph_n_outputs (g); i++)
    {
      GraphValue *v = graph_output (g, i);
      const char *oname = graph_value_get_name (v);
      g_assert_true (json_object_has_member (outs, oname));
      compare_output (&c, oname, graph_value_type (v), json_object_get_array_member (outs, oname));
    }

  /* Values pair up by name, else as the k-th output of the k-th node of an
   * op type in both graphs (our value names differ from torch's in places:
   * "/layer1/0/..." for torch's "/layer1/layer1.0/..."). */
  JsonObject *vi = json_object_get_object_member (facts, "value_info");
  JsonArray *tnodes = json_object_get_array_member (facts, "nodes");
  g_autoptr (GHashTable) ours_by_op = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                             (GDestroyNotify) g_ptr_array_unref);
  graph_foreach_node (g, n)
    {
      GPtrArray *a = g_hash_table_lookup (ours_by_op, graph_node_op_type (n));
      if (a == NULL)
        g_hash_table_insert (ours_by_op, (gpointer) graph_node_op_type (n), a = g_ptr_array_new ());
      g_ptr_array_add (a, n);
    }
  g_autoptr (GHashTable) torch_count = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < json_array_get_length (tnodes); i++)
    {
      const char *op = json_array_get_string_element (json_array_get_array_element (tnodes, i), 0);
      g_hash_table_insert (torch_count, (gpointer) op,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (torch_count, op)) + 1));
    }
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint torch_values = 0, by_name = 0;
  for (guint i = 0; i < json_array_get_length (tnodes); i++)
    {
      JsonArray *tn = json_array_get_array_element (tnodes, i);
      const char *op = json_array_get_string_element (tn, 0);
      JsonArray *touts = json_array_get_array_element (tn, 1);
      guint k = GPOINTER_TO_UINT (g_hash_table_lookup (seen, op));
      g_hash_table_insert (seen, (gpointer) op, GUINT_TO_POINTER (k + 1));
      GPtrArray *ours = g_hash_table_lookup (ours_by_op, op);
      GraphNode *twin = ours && ours->len == GPOINTER_TO_UINT (g_hash_table_lookup (torch_count, op))
                          ? ours->pdata[k] : NULL;
      for (guint j = 0; j < json_array_get_length (touts); j++)
        {
          const char *tname = json_array_get_string_element (touts, j);
          JsonNode *dims = json_object_get_member (vi, tname);
          if (dims == NULL || JSON_NODE_HOLDS_NULL (dims))
            continue;
          torch_values++;
          GraphValue *v = graph_find_value (g, tname);
          if (v && graph_value_node (v))
            by_name++;
          else if (twin && j < graph_node_n_outputs (twin))
            v = graph_node_output (twin, j);
          else
            continue;
          compare_value (&c, tname, graph_value_type (v), json_node_get_array (dims));
        }
    }
  g_test_message ("%s: %u of torch's %u values present here (%u by name); of their %u dims: %u static in "
                  "torch, all equal here; %u with a dynamic-axes symbol in torch, %u the same "
                  "symbol here; %u unknown in torch, known here", name, c.values, torch_values, by_name,
                  c.dims, c.torch_static, c.torch_user_symbol, c.same_symbol, c.ours_better);
  /* Most values are named as torch names them: the comparison is not empty. */
  g_assert_cmpuint (c.values * 2, >=, torch_values);
  g_assert_cmpuint (c.torch_static, >, 0);
  g_hash_table_unref (c.user_symbols);
  g_hash_table_unref (c.to_ours);
  g_hash_table_unref (c.to_torch);

  run_model (g, facts);
}

/* ---- every op rule against ONNX shape inference --------------------------- */

/* ops.onnx carries the static shapes ONNX inferred (the "traced" shapes);
 * with its inputs' dynamic dims set, export_infer_shapes must give every
 * dim ONNX knows statically, and every dynamic-axes symbol ONNX passes
 * through; the shapes are then checked at run time at two other sizes. */
static void
test_ops (void)
{
  g_autofree char *model_path = fixture ("ops.onnx");
  g_autofree char *json_path = fixture ("ops.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, json_path, &error));
  JsonObject *facts = json_node_get_object (json_parser_get_root (parser));
  g_autoptr (Graph) g = onnxio_load (model_path, &error);
  g_assert_no_error (error);

  Compare c = { 0 };
  c.user_symbols = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) dynamic = g_hash_table_new (NULL, NULL);
  JsonObject *axes = json_object_get_object_member (facts, "dynamic");
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      GraphValue *v = graph_input (g, i);
      if (!json_object_has_member (axes, graph_value_get_name (v)))
        continue;
      JsonObject *a = json_object_get_object_member (axes, graph_value_get_name (v));
      GraphType *t = graph_value_type (v);
      GraphDim dims[TENSOR_MAX_RANK];
      for (int k = 0; k < graph_type_rank (t); k++)
        {
          g_autofree char *key = g_strdup_printf ("%d", k);
          dims[k] = *graph_type_dim (t, (guint) k);
          if (!json_object_has_member (a, key))
            continue;
          dims[k].kind = GRAPH_DIM_SYMBOLIC;
          dims[k].symbol = g_intern_string (json_object_get_string_member (a, key));
          g_hash_table_add (c.user_symbols, (gpointer) dims[k].symbol);
        }
      g_autoptr (GraphType) nt = graph_type_new_tensor (graph_type_dtype (t), graph_type_rank (t), dims);
      graph_value_set_type (v, nt);
      g_hash_table_add (dynamic, v);
    }
  g_assert_cmpuint (g_hash_table_size (dynamic), ==, 2);
  export_infer_shapes (g, dynamic);

  JsonObject *vi = json_object_get_object_member (facts, "value_info");
  g_autoptr (GList) members = json_object_get_members (vi);
  for (GList *l = members; l; l = l->next)
    {
      GraphValue *v = graph_find_value (g, l->data);
      g_assert_nonnull (v);
      JsonArray *dims = json_object_get_array_member (vi, l->data);
      compare_value (&c, l->data, graph_value_type (v), dims);
      for (guint k = 0; k < json_array_get_length (dims); k++)
        {
          JsonNode *d = json_array_get_element (dims, k);
          const GraphDim *ours = graph_type_dim (graph_value_type (v), k);
          if (json_node_get_value_type (d) == G_TYPE_STRING
              && g_hash_table_contains (c.user_symbols, json_node_get_string (d))
              && (ours->kind != GRAPH_DIM_SYMBOLIC
                  || strcmp (ours->symbol, json_node_get_string (d)) != 0))
            {
              g_autofree char *ts = graph_type_to_string (graph_value_type (v));
              g_error ("%s dim %u: ONNX %s, ours %s", (char *) l->data, k,
                       json_node_get_string (d), ts);
            }
        }
    }
  g_test_message ("ops: %u values, %u dims: %u static in ONNX, all equal here; %u with a "
                  "dynamic-axes symbol, all the same here; %u unknown in ONNX, known here",
                  c.values, c.dims, c.torch_static, c.torch_user_symbol, c.ours_better);
  g_assert_cmpuint (c.values, ==, json_object_get_size (vi));
  g_hash_table_unref (c.user_symbols);

  /* Run at two other sizes (zeros: valid Gather indices after the Cast). */
  static const gint64 sizes[2][2][4] = { { { 1, 3, 6, 10 }, { 3, 4, 4 } },
                                         { { 3, 3, 5, 7 }, { 7, 1, 4 } } };
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  graph_foreach_node (g, n)
    for (guint i = 0; i < graph_node_n_outputs (n); i++)
      if (!graph_value_is_graph_output (graph_node_output (n, i)))
        g_ptr_array_add (names, (gpointer) graph_value_get_name (graph_node_output (n, i)));
  g_ptr_array_add (names, NULL);
  for (guint r = 0; r < 2; r++)
    {
      g_autoptr (GHashTable) inputs = tensor_table ();
      g_hash_table_insert (inputs, g_strdup ("x"),
                           tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 4, sizes[r][0], &error));
      g_hash_table_insert (inputs, g_strdup ("s"),
                           tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 3, sizes[r][1], &error));
      g_assert_no_error (error);
      g_autoptr (GHashTable) outputs = run_checked (g, names, inputs);
    }
}

/* ---- Shape folding ----------------------------------------------------------- */

/* Constant folding turns Shape into a constant only for a fully static
 * input: not for a symbolic dim (batch) nor an unknown one. */
static void
test_shape_not_folded (void)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 14);
  GraphDim batch[2] = { { GRAPH_DIM_SYMBOLIC, 0, g_intern_string ("batch") },
                        { GRAPH_DIM_STATIC, 3, NULL } };
  GraphDim unknown[2] = { { GRAPH_DIM_UNKNOWN, 0, NULL }, { GRAPH_DIM_STATIC, 3, NULL } };
  static const gint64 fixed[2] = { 2, 3 };
  g_autoptr (GraphType) tb = graph_type_new_tensor (GRAPH_DTYPE_FLOAT, 2, batch);
  g_autoptr (GraphType) tu = graph_type_new_tensor (GRAPH_DTYPE_FLOAT, 2, unknown);
  g_autoptr (GraphType) ts = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, fixed);
  GraphValue *x = graph_add_input (g, "x", tb);
  GraphValue *relu = graph_op (g, "Relu", x, NULL);
  graph_value_set_type (relu, tb);
  GraphValue *u = graph_add_input (g, "u", tu);
  GraphValue *s = graph_add_input (g, "s", ts);
  graph_add_output (g, graph_op (g, "Shape", relu, NULL));
  graph_add_output (g, graph_op (g, "Shape", u, NULL));
  graph_add_output (g, graph_op (g, "Shape", s, NULL));
  g_autoptr (GError) error = NULL;
  g_assert_cmpuint (export_fold_constants (g, &error), ==, 1);
  g_assert_no_error (error);
  assert_lint (g);
  g_assert_true (graph_node_is (graph_value_node (graph_output (g, 0)), "onnx::Shape"));
  g_assert_true (graph_node_is (graph_value_node (graph_output (g, 1)), "onnx::Shape"));
  g_assert_true (graph_node_is (graph_value_node (graph_output (g, 2)), "onnx::Constant"));
}

/* Dynamic axes torch.onnx.export ignores with a warning (PyTorch's suite,
 * test_slice_dynamic_to_end): a name that is neither an input nor an
 * output, an output's axis past its rank; an input's axis past its rank is
 * an error. */
static void
test_unknown_axes (void)
{
  static const char text[] = "graph(%x : Float(2, 3)):\n"
                             "  %y : Float(2, 3) = aten::relu(%x)\n"
                             "  return (%y)\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) trace = graph_parse (text, strlen (text), "t.trace", &error);
  g_assert_no_error (error);
  static const char *const outs[] = { "out", NULL };
  ExportOptions o;
  export_options_init (&o);
  o.output_names = outs;
  g_assert_true (export_options_parse_dynamic_axes (&o, "x:0=b,nope:0=z,out:5=q,out:0=b", &error));
  g_autoptr (GPtrArray) warnings = NULL;
  g_autoptr (Graph) g = export_graph_report (trace, &o, &warnings, &error);
  g_assert_no_error (error);
  g_assert_nonnull (g);
  export_options_clear (&o);
  g_assert_nonnull (warnings);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_nonnull (strstr (warnings->pdata[0], "'nope' is neither an input nor an output: ignored"));
  g_assert_nonnull (strstr (warnings->pdata[1], "dynamic axis 5 of the output 'out' is out of its rank (2): ignored"));
  const GraphDim *d = graph_type_dim (graph_value_type (graph_output (g, 0)), 0);
  g_assert_cmpint (d->kind, ==, GRAPH_DIM_SYMBOLIC);   /* the valid axes still apply */

  export_options_init (&o);
  g_assert_true (export_options_parse_dynamic_axes (&o, "x:4=b", &error));
  g_autoptr (Graph) bad = export_graph (trace, &o, &error);
  export_options_clear (&o);
  g_assert_null (bad);
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS);
  g_assert_nonnull (strstr (error->message, "dynamic axis 4 of 'x' is out of its rank (2)"));
}

void test_dynamic_shapes_register (void);

/* export_infer_types on graphs built by hand: types where the rules give
 * them, typed values kept, clear errors (no crash) for what cannot be typed;
 * export_infer_shapes takes NULL for "nothing dynamic". */
static void
test_infer_types (void)
{
  g_autoptr (GError) error = NULL;
  g_assert_false (export_infer_types (NULL, &error));
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH);
  g_clear_error (&error);

  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 14);
  gint64 xd[3] = { 2, 3, 5 }, wd[2] = { 5, 4 };
  g_autoptr (GraphType) xt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 3, xd);
  g_autoptr (Tensor) w = tensor_new (GRAPH_DTYPE_FLOAT, 2, wd, NULL, NULL);
  GraphValue *x = graph_add_input (g, "x", xt);
  GraphValue *mm = graph_op (g, "MatMul", x, graph_add_initializer (g, "w", w), NULL);
  GraphValue *t = graph_op (g, "Transpose", mm, "perm_is", 3, (const gint64[]) { 2, 0, 1 }, NULL);
  GraphValue *eq = graph_op (g, "Equal", t, t, NULL);
  graph_add_output (g, t);
  graph_add_output (g, eq);
  export_infer_shapes (g, NULL);   /* nothing dynamic: nothing changes */
  g_assert_null (graph_value_type (t));
  g_assert_true (export_infer_types (g, &error));
  g_assert_no_error (error);
  g_autofree char *mt = graph_type_to_string (graph_value_type (mm));
  g_autofree char *tt = graph_type_to_string (graph_value_type (t));
  g_autofree char *et = graph_type_to_string (graph_value_type (eq));
  g_assert_cmpstr (mt, ==, "Float(2, 3, 4)");
  g_assert_cmpstr (tt, ==, "Float(4, 2, 3)");
  g_assert_cmpstr (et, ==, "Bool(4, 2, 3)");

  /* an op without a rule: the output is named in the error */
  g_autoptr (Graph) h = graph_new ();
  graph_set_opset (h, "", 14);
  GraphValue *hx = graph_add_input (h, "x", xt);
  GraphValue *u = graph_op (h, "mylib::Frob", hx, NULL);
  graph_value_set_name (u, "u");
  graph_add_output (h, u);
  g_assert_false (export_infer_types (h, &error));
  g_assert_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH);
  g_assert_nonnull (strstr (error->message, "graph output 0 'u' (output of mylib::Frob)"));
  g_clear_error (&error);
  /* ... which the builder can set itself */
  graph_value_set_type (u, xt);
  g_assert_true (export_infer_types (h, &error));

  /* an untyped graph input */
  g_autoptr (Graph) k = graph_new ();
  graph_add_output (k, graph_op (k, "Relu", graph_add_input (k, "in", NULL), NULL));
  g_assert_false (export_infer_types (k, &error));
  g_assert_nonnull (strstr (error->message, "graph input 0 'in' has no element type"));
  g_clear_error (&error);
  /* onnxio_save refuses it rather than write what the checker rejects */
  g_assert_false (onnxio_save (k, "/nonexistent/k.onnx", NULL, &error));
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "imports no opset"));
  g_clear_error (&error);
  graph_set_opset (k, "", 14);
  g_assert_false (onnxio_save (k, "/nonexistent/k.onnx", NULL, &error));
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "graph input 0 'in' has no element type and shape"));
}

void
test_dynamic_shapes_register (void)
{
  g_test_add_func ("/export/dynamic-shapes/infer-types", test_infer_types);
  static const char *const cases[] = { "resnet18", "dcgan", "word_language_model", "view_net",
                                       "spatial_net" };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/export/dynamic-shapes/%s", cases[i]);
      g_test_add_data_func (path, cases[i], test_case);
    }
  g_test_add_func ("/export/dynamic-shapes/ops", test_ops);
  g_test_add_func ("/export/dynamic-shapes/shape-not-folded", test_shape_not_folded);
  g_test_add_func ("/export/dynamic-shapes/unknown-axes", test_unknown_axes);
}
