/* The ONNX reader and writer against ONNX's own backend test data
 * (Debian's libonnx-testdata): every model loads, load → save → load gives
 * the same graph, onnx.checker accepts what we re-save, and every
 * TensorProto .pb round-trips. */
#include "tests/export/onnxio-testutil.h"
#include "export/onnx/onnxio-private.h"
#include "export/export.h"

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

/* Peak resident memory of this process so far, in KiB (VmHWM). */
static gsize
peak_rss_kib (void)
{
  g_autofree char *status = NULL;
  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  const char *hwm = strstr (status, "VmHWM:");
  g_assert_nonnull (hwm);
  return (gsize) g_ascii_strtoull (hwm + 6, NULL, 10);
}

#define LARGE_N 4
#define LARGE_FLOATS (2 * 1024 * 1024)

/* b's initializers big0.. and s0.. hold a's bytes. */
static void
same_initializers (Graph *a, Graph *b)
{
  for (int i = 0; i < 2 * LARGE_N; i++)
    {
      g_autofree char *name = g_strdup_printf (i % 2 ? "big%d" : "s%d", i / 2);
      Tensor *ta = graph_value_get_initializer (graph_find_value (a, name));
      GraphValue *vb = graph_find_value (b, name);
      g_assert_nonnull (vb);
      Tensor *tb = graph_value_get_initializer (vb);
      g_assert_nonnull (tb);
      g_assert_cmpmem (tensor_data (ta), tensor_nbytes (ta), tensor_data (tb), tensor_nbytes (tb));
    }
}

/* Four initializers of 8 MiB (and small ones between, so their bytes
 * start at odd offsets) load with the same values from the file and from
 * memory, and loading the file raises peak memory by about their size,
 * not twice it: the mapped pages of each are dropped once protobuf-c has
 * copied them (OnnxioDropper).  The peak is measured in a fresh process. */
static void
test_large_initializers (void)
{
  const char *path = g_getenv ("SYMONNX_TEST_LARGE_MODEL");
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      gsize before = peak_rss_kib ();
      g_autoptr (Graph) g = onnxio_load (path, &error);
      g_assert_no_error (error);
      gsize grew = peak_rss_kib () - before, data = LARGE_N * LARGE_FLOATS * sizeof (float) / 1024;
      g_test_message ("peak RSS grew %" G_GSIZE_FORMAT " KiB for %" G_GSIZE_FORMAT " KiB of data",
                      grew, data);
      g_assert_cmpuint (grew, <, data * 7 / 4);   /* twice without dropping; ASan adds 1/8 */
      return;
    }
  g_autoptr (Graph) g = graph_new ();
  for (int i = 0; i < LARGE_N; i++)
    {
      gint64 n = LARGE_FLOATS, one = 1 + i;
      float *v = g_new (float, n);
      for (gint64 k = 0; k < n; k++)
        v[k] = (float) ((k * 7 + i) % 1009) - 500.5f;
      g_autoptr (GBytes) b = g_bytes_new_take (v, n * sizeof (float));
      g_autoptr (Tensor) big = tensor_new (GRAPH_DTYPE_FLOAT, 1, &n, b, NULL);
      g_autoptr (Tensor) small = tensor_new_from_data (GRAPH_DTYPE_UINT8, 1, &one,
                                                       "abcd", (gsize) one, NULL);
      g_autofree char *bn = g_strdup_printf ("big%d", i), *sn = g_strdup_printf ("s%d", i);
      graph_add_output (g, graph_op (g, "Identity", graph_add_initializer (g, sn, small), NULL));
      graph_add_output (g, graph_op (g, "Identity", graph_add_initializer (g, bn, big), NULL));
    }
  graph_set_opset (g, "", 13);
  graph_set_name (g, "large");
  g_autoptr (GError) error = NULL;
  g_assert_true (export_infer_types (g, &error));
  g_autofree char *dir = onnxio_test_mkdtemp ();
  g_autofree char *file = g_build_filename (dir, "large.onnx", NULL);
  gboolean saved = onnxio_save (g, file, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (saved);

  g_autoptr (Graph) back = onnxio_load (file, &error);
  g_assert_no_error (error);
  same_initializers (g, back);
  /* From memory (the caller's, never dropped). */
  g_autofree char *bytes = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (file, &bytes, &len, NULL));
  g_autoptr (Graph) mem = onnxio_load_from_data ((const guint8 *) bytes, len, dir, "mem", &error);
  g_assert_no_error (error);
  same_initializers (g, mem);

  g_setenv ("SYMONNX_TEST_LARGE_MODEL", file, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  onnxio_test_rmtree (dir);
}

void
test_onnxio_register (void)
{
  g_test_add_func ("/export/onnx/testdata/roundtrip", test_testdata_roundtrip);
  g_test_add_func ("/export/onnx/testdata/pb", test_testdata_pb);
  g_test_add_func ("/export/onnx/attribute-tensor-name", test_attribute_tensor_name);
  g_test_add_func ("/export/onnx/read/large-initializers", test_large_initializers);
}
