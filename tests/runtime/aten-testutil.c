/* Shared by the ATen kernel tests: see tests/runtime/aten-testutil.h. */
#include "tests/runtime/aten-testutil.h"
#include "tests/common/test-util.h"
#include "export/tensorfiles.h"
#include <string.h>

Tensor *
aten_test_fixture_in (const char *dir, const char *file)
{
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/%s/%s", dir, file);
  g_autofree char *path = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  Tensor *t = export_npy_load (path, &error);
  g_assert_no_error (error);
  return t;
}

Tensor *
aten_test_fixture (const char *file)
{
  return aten_test_fixture_in ("runtime", file);
}

GHashTable *
aten_test_run (Graph *g, GHashTable *inputs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  GHashTable *outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) tensor_unref);
  g_assert_true (rt_session_run (s, inputs, outputs, &error));
  g_assert_no_error (error);
  return outputs;
}

void
aten_test_expect_in (const char *dir, GHashTable *outputs, const char *name, const char *fixture,
                     double rtol, double atol, const char *what)
{
  g_autoptr (Tensor) expected = aten_test_fixture_in (dir, fixture);
  Tensor *actual = g_hash_table_lookup (outputs, name);
  g_assert_nonnull (actual);
  RtCompareResult r;
  gboolean ok = rt_compare (expected, actual, rtol, atol, TRUE, &r);
  g_autofree char *diff = rt_compare_result_to_string (&r, expected, actual);
  if (!ok)
    g_error ("%s: %s", what, diff);
  g_assert_cmpint (tensor_dtype (actual), ==, tensor_dtype (expected));
}

void
aten_test_expect (GHashTable *outputs, const char *name, const char *fixture, double rtol,
                  double atol, const char *what)
{
  aten_test_expect_in ("runtime", outputs, name, fixture, rtol, atol, what);
}

/* A list: a 1-D Constant (ATen node) or a prim::ListConstruct of
 * prim::Constants (trace); int64, or double with `floats`. */
static GraphValue *
list (Graph *g, const char *spec, gboolean trace, gboolean floats)
{
  g_auto (GStrv) parts = *spec ? g_strsplit (spec, ",", -1) : g_new0 (char *, 1);
  guint n = g_strv_length (parts);
  g_autofree gint64 *iv = g_new0 (gint64, MAX (n, 1));
  g_autofree double *fv = g_new0 (double, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      iv[i] = g_ascii_strtoll (parts[i], NULL, 10);
      fv[i] = g_ascii_strtod (parts[i], NULL);
    }
  if (!trace)
    {
      gint64 dim = n;
      g_autoptr (Tensor) t = floats ? tensor_new_from_data (GRAPH_DTYPE_DOUBLE, 1, &dim, fv,
                                                            n * sizeof (double), NULL)
                                    : tensor_new_int64_vector (n, iv);
      return graph_op (g, "Constant", "value_t", t, NULL);
    }
  g_autofree GraphValue **el = g_new0 (GraphValue *, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    el[i] = floats ? graph_op (g, "prim::Constant", "value_f", fv[i], NULL)
                   : graph_op (g, "prim::Constant", "value_i", iv[i], NULL);
  return graph_opv (g, "prim::ListConstruct", n, el, NULL);
}

/* A scalar argument: a 0-d Constant (ATen node) or a prim::Constant (trace). */
static GraphValue *
scalar (Graph *g, const char *a, gboolean trace)
{
  if (g_str_has_prefix (a, "f:"))
    {
      double f = g_ascii_strtod (a + 2, NULL);
      g_autoptr (Tensor) t = tensor_new_scalar_double (GRAPH_DTYPE_DOUBLE, f);
      return trace ? graph_op (g, "prim::Constant", "value_f", f, NULL)
                   : graph_op (g, "Constant", "value_t", t, NULL);
    }
  if (g_str_has_prefix (a, "i:") || g_str_has_prefix (a, "b:"))
    {
      gboolean is_bool = a[0] == 'b';
      gint64 iv = g_ascii_strtoll (a + 2, NULL, 10);
      g_autoptr (Tensor) t = tensor_new_scalar_int64 (is_bool ? GRAPH_DTYPE_BOOL : GRAPH_DTYPE_INT64, iv);
      if (!trace)
        return graph_op (g, "Constant", "value_t", t, NULL);
      GraphValue *v = graph_op (g, "prim::Constant", "value_i", iv, NULL);
      if (is_bool)
        {
          g_autoptr (GraphType) bt = graph_type_new_simple (GRAPH_TYPE_BOOL);
          graph_value_set_type (v, bt);
        }
      return v;
    }
  if (g_str_has_prefix (a, "s:"))
    {
      g_autoptr (GBytes) b = g_bytes_new (a + 2, strlen (a + 2));
      g_autoptr (Tensor) t = tensor_new_strings (0, NULL, &b, NULL);
      return trace ? graph_op (g, "prim::Constant", "value_s", a + 2, NULL)
                   : graph_op (g, "Constant", "value_t", t, NULL);
    }
  g_error ("unknown argument spec '%s'", a);
  return NULL;
}

Graph *
aten_test_build (const char *dir, const char *name, const char *op, const char *args,
                 guint n_outputs, gboolean trace, GHashTable *inputs)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 17);
  graph_set_opset (g, GRAPH_ATEN_DOMAIN, 1);
  g_auto (GStrv) argv = *args ? g_strsplit (args, ";", -1) : g_new0 (char *, 1);
  g_autoptr (GPtrArray) in = g_ptr_array_new ();
  guint n_npy = 0;
  for (guint i = 0; argv[i]; i++)
    {
      const char *a = argv[i];
      guint count = strcmp (a, "npy") == 0 ? 1 : g_str_has_prefix (a, "npys:") ? (guint) g_ascii_strtoull (a + 5, NULL, 10) : 0;
      for (guint k = 0; k < count; k++)
        {
          g_autofree char *file = g_strdup_printf ("%s_in%u.npy", name, n_npy);
          Tensor *x = aten_test_fixture_in (dir, file);
          g_autoptr (GraphType) ty = graph_type_new_tensor_static (tensor_dtype (x), tensor_rank (x),
                                                                   tensor_dims (x));
          g_autofree char *iname = g_strdup_printf ("x%u", n_npy++);
          g_ptr_array_add (in, graph_add_input (g, iname, ty));
          g_hash_table_insert (inputs, g_strdup (iname), x);
        }
      if (count)
        continue;
      GraphValue *v;
      if (strcmp (a, "none") == 0)
        v = trace ? graph_op (g, "prim::Constant", NULL) : NULL;
      else if (g_str_has_prefix (a, "is:"))
        v = list (g, a + 3, trace, FALSE);
      else if (g_str_has_prefix (a, "fs:"))
        v = list (g, a + 3, trace, TRUE);
      else
        v = scalar (g, a, trace);
      g_assert_true (v != NULL || !trace);
      g_ptr_array_add (in, v);
    }
  /* "torchvision::nms": another namespace of a trace */
  g_autofree char *kind = strstr (op, "::") ? g_strdup (op) : g_strdup_printf ("aten::%s", op);
  GraphNode *n = trace ? graph_create_node (g, kind, in->len, (GraphValue *const *) in->pdata, n_outputs)
                       : graph_create_node (g, GRAPH_KIND_ATEN, in->len, (GraphValue *const *) in->pdata,
                                            n_outputs);
  g_assert_nonnull (n);
  if (!trace)
    {
      graph_node_set_s (n, "operator", op);
      graph_node_set_s (n, "overload_name", "");
    }
  graph_insert_node (g, n);
  for (guint i = 0; i < n_outputs; i++)
    {
      g_autofree char *oname = g_strdup_printf ("y%u", i);
      graph_value_set_name (graph_node_output (n, i), oname);
      graph_add_output (g, graph_node_output (n, i));
    }
  assert_lint (g);
  return g;
}
