/* The ONNX reader and writer against ONNX's own backend test data
 * (Debian's libonnx-testdata): every model loads, load → save → load gives
 * the same graph, onnx.checker accepts what we re-save, and every
 * TensorProto .pb round-trips. */
#include "tests/export/onnxio-testutil.h"
#include "export/onnx/onnxio-private.h"

#include <string.h>

static gboolean
have_testdata (void)
{
  if (g_file_test (ONNXIO_TESTDATA "/node", G_FILE_TEST_IS_DIR))
    return TRUE;
  g_test_skip ("libonnx-testdata is not installed (" ONNXIO_TESTDATA ")");
  return FALSE;
}

static void
test_testdata_roundtrip (void)
{
  if (!have_testdata ())
    return;
  g_autoptr(GPtrArray) models = onnxio_test_list_models ();
  g_assert_cmpuint (models->len, >, 1000);
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autoptr(GString) list = g_string_new (NULL);
  guint failures = 0;

  for (guint i = 0; i < models->len; i++)
    {
      const char *path = g_ptr_array_index (models, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(Graph) g = onnxio_load (path, &error);
      if (g == NULL)
        {
          g_test_message ("LOAD %s: %s", path, error->message);
          failures++;
          continue;
        }
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *parent = g_path_get_dirname (dir);
      g_autofree char *b1 = g_path_get_basename (parent);
      g_autofree char *b2 = g_path_get_basename (dir);
      g_autofree char *fname = g_strdup_printf ("%s__%s.onnx", b1, b2);
      g_autofree char *out = g_build_filename (tmp, fname, NULL);
      if (!onnxio_save (g, out, NULL, &error))
        {
          g_test_message ("SAVE %s: %s", path, error->message);
          failures++;
          continue;
        }
      g_autoptr(Graph) g2 = onnxio_load (out, &error);
      if (g2 == NULL)
        {
          g_test_message ("RELOAD %s: %s", path, error->message);
          failures++;
          continue;
        }
      g_autoptr(GString) why = g_string_new (NULL);
      if (!onnxio_test_graph_equal (g, g2, why))
        {
          g_test_message ("DIFF %s: %s", path, why->str);
          failures++;
          continue;
        }
      /* Same print too (ir/print.c), the check the issue asks for. */
      g_autofree char *s1 = graph_to_string (g);
      g_autofree char *s2 = graph_to_string (g2);
      if (strcmp (s1, s2) != 0)
        {
          g_test_message ("PRINT %s:\n%s\n---\n%s", path, s1, s2);
          failures++;
          continue;
        }
      g_assert_true (graph_lint (g2, &error));
      g_string_append_printf (list, "%s\t%s\n", path, out);
    }
  g_test_message ("%u models, %u failures", models->len, failures);
  g_assert_cmpuint (failures, ==, 0);

  g_autofree char *list_path = g_build_filename (tmp, "pairs.txt", NULL);
  g_assert_true (g_file_set_contents (list_path, list->str, -1, NULL));
  gboolean skipped;
  const char *args[] = { list_path, NULL };
  gboolean ok = onnxio_test_run_python ("onnx_checker.py", args, &skipped);
  onnxio_test_rmtree (tmp);
  if (skipped)
    g_test_skip ("python3-onnx is not available");
  else
    g_assert_true (ok);
}

/* The tensor type of the i-th graph input that is not an initializer
 * (input_i.pb) or of the i-th output (output_i.pb); NULL otherwise. */
static const GraphType *
pb_expected_type (const Graph *g, const char *fname)
{
  guint idx;
  if (sscanf (fname, "input_%u.pb", &idx) == 1)
    {
      for (guint i = 0, k = 0; i < graph_n_inputs (g); i++)
        {
          GraphValue *v = graph_input (g, i);
          if (graph_value_get_initializer (v) != NULL)
            continue;
          if (k++ == idx)
            return graph_value_type (v);
        }
    }
  else if (sscanf (fname, "output_%u.pb", &idx) == 1 && idx < graph_n_outputs (g))
    return graph_value_type (graph_output (g, idx));
  return NULL;
}

static gboolean
uses_typed_fields (const guint8 *data, gsize len)
{
  Onnx__TensorProto *tp = onnx__tensor_proto__unpack (NULL, len, data);
  g_assert_nonnull (tp);
  gboolean typed = tp->n_float_data || tp->n_int32_data || tp->n_int64_data
                   || tp->n_double_data || tp->n_uint64_data;
  onnx__tensor_proto__free_unpacked (tp, NULL);
  return typed;
}

static void
test_testdata_pb (void)
{
  if (!have_testdata ())
    return;
  g_autoptr(GPtrArray) models = onnxio_test_list_models ();
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *out = g_build_filename (tmp, "t.pb", NULL);
  guint n_exact = 0, n_values = 0, n_other = 0, failures = 0;

  for (guint m = 0; m < models->len; m++)
    {
      const char *path = g_ptr_array_index (models, m);
      g_autoptr(Graph) g = onnxio_load (path, NULL);
      g_assert_nonnull (g);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
      const char *set;
      while ((set = g_dir_read_name (d)) != NULL)
        {
          if (!g_str_has_prefix (set, "test_data_set_"))
            continue;
          g_autofree char *sdir = g_build_filename (dir, set, NULL);
          g_autoptr(GDir) sd = g_dir_open (sdir, 0, NULL);
          const char *f;
          while (sd != NULL && (f = g_dir_read_name (sd)) != NULL)
            {
              if (!g_str_has_suffix (f, ".pb"))
                continue;
              g_autofree char *pb = g_build_filename (sdir, f, NULL);
              const GraphType *type = pb_expected_type (g, f);
              if (type == NULL || graph_type_kind (type) != GRAPH_TYPE_TENSOR)
                {
                  n_other++;   /* SequenceProto / OptionalProto files */
                  continue;
                }
              g_autoptr(GError) error = NULL;
              g_autofree char *name = NULL, *name2 = NULL;
              g_autoptr(Tensor) t = onnxio_tensor_load (pb, &name, &error);
              if (t == NULL)
                {
                  g_test_message ("LOAD %s: %s", pb, error->message);
                  failures++;
                  continue;
                }
              g_assert_true (onnxio_tensor_save (t, name, out, &error));
              g_assert_no_error (error);
              g_autoptr(Tensor) t2 = onnxio_tensor_load (out, &name2, &error);
              g_assert_no_error (error);
              g_autofree guint8 *a = NULL, *b = NULL;
              gsize la, lb;
              g_assert_true (g_file_get_contents (pb, (char **) &a, &la, NULL));
              g_assert_true (g_file_get_contents (out, (char **) &b, &lb, NULL));
              if (!tensor_equal (t, t2) || g_strcmp0 (name, name2) != 0)
                {
                  g_test_message ("VALUES %s differ after a round trip", pb);
                  failures++;
                }
              else if (uses_typed_fields (a, la))
                n_values++;   /* float_data etc. are written back as raw_data */
              else if (la == lb && memcmp (a, b, la) == 0)
                n_exact++;
              else
                {
                  g_test_message ("BYTES %s: the re-saved file differs", pb);
                  failures++;
                }
            }
        }
    }
  g_test_message ("%u .pb files bit-exact, %u typed-field files equal in value, "
                  "%u not tensors, %u failures", n_exact, n_values, n_other, failures);
  onnxio_test_rmtree (tmp);
  g_assert_cmpuint (failures, ==, 0);
  g_assert_cmpuint (n_exact, >, 3000);
}

/* A tensor-valued attribute keeps its TensorProto.name through load and
 * save (ONNX's test_constant names its value "const_tensor"; the round trip
 * dropped it). */
static void
test_attribute_tensor_name (void)
{
  const char *src = "/usr/share/libonnx-testdata/data/node/test_constant/model.onnx";
  if (!g_file_test (src, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = onnxio_load (src, &error);
  g_assert_no_error (error);
  g_autofree char *dir = g_dir_make_tmp ("symonnx-attr-name-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "m.onnx", NULL);
  g_assert_true (onnxio_save (g, out, NULL, &error));
  g_assert_no_error (error);
  g_autoptr (Graph) back = onnxio_load (out, &error);
  g_assert_no_error (error);
  guint seen = 0;
  graph_foreach_node (back, n)
    {
      Tensor *t;
      if (graph_node_is (n, "onnx::Constant") && graph_node_get_t (n, "value", &t))
        {
          g_assert_cmpstr (tensor_get_name (t), ==, "const_tensor");
          seen++;
        }
    }
  g_assert_cmpuint (seen, ==, 1);
  onnxio_test_rmtree (dir);
}

void
test_onnxio_register (void)
{
  g_test_add_func ("/export/onnx/testdata/roundtrip", test_testdata_roundtrip);
  g_test_add_func ("/export/onnx/testdata/pb", test_testdata_pb);
  g_test_add_func ("/export/onnx/attribute-tensor-name", test_attribute_tensor_name);
}
