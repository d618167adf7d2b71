/* ATen kernels against torch 1.13 (fixtures from tools/gen_runtime_refs.py),
 * as org.pytorch.aten::ATen nodes and as aten:: nodes of a trace graph. */
#include "tests/runtime/test-runtime.h"
#include "tests/runtime/aten-testutil.h"
#include "export/tensorfiles.h"
#include <string.h>

typedef struct
{
  const char *name;       /* fixture prefix */
  const char *op;         /* operator attribute */
  const char *args;       /* inputs, ';'-separated: npy, f:X, i:N, is:a,b, fs:a,b, none */
  double      rtol, atol;
} AtenCase;

static const AtenCase cases[] = {
  { "mul_tensor", "mul", "npy;npy", 1e-6, 1e-7 },
  { "mul_scalar", "mul", "npy;f:2.5", 1e-6, 1e-7 },
  { "add_alpha", "add", "npy;npy;f:0.5", 1e-6, 1e-7 },
  { "add_int", "add", "npy;npy;i:3", 0, 0 },
  { "sub_alpha", "sub", "npy;npy;i:2", 1e-6, 1e-7 },
  { "div_int", "div", "npy;npy", 1e-6, 1e-7 },
  { "pow_scalar", "pow", "npy;f:2.0", 1e-6, 1e-7 },
  { "pow_tensor", "pow", "npy;npy", 1e-5, 1e-7 },
  { "ones", "ones", "is:2,3;i:6;none;none;none", 0, 0 },
  { "zeros_long", "zeros", "is:4,1,2;i:4;none;none;none", 0, 0 },
  { "upsample_align", "upsample_bilinear2d", "npy;is:5,7;i:1;none", 1e-5, 1e-6 },
  { "upsample_scales", "upsample_bilinear2d", "npy;none;i:0;fs:2.0,1.5", 1e-5, 1e-6 },
  { "triu", "triu", "npy;i:1", 0, 0 },
  { "tril", "tril", "npy;i:-1", 0, 0 },
  { "cumprod", "cumprod", "npy;i:1;none", 1e-6, 1e-7 },
  { "relu", "relu", "npy", 0, 0 },
  { "elu", "elu", "npy;f:0.7;f:1.2;f:0.8", 1e-6, 1e-7 },
};

static Tensor *
list_tensor (const char *spec, gboolean floats)
{
  g_auto (GStrv) parts = g_strsplit (spec, ",", -1);
  guint n = g_strv_length (parts);
  gint64 dim = n;
  if (floats)
    {
      g_autofree double *v = g_new (double, n);
      for (guint i = 0; i < n; i++)
        v[i] = g_ascii_strtod (parts[i], NULL);
      return tensor_new_from_data (GRAPH_DTYPE_DOUBLE, 1, &dim, v, n * sizeof (double), NULL);
    }
  g_autofree gint64 *v = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    v[i] = g_ascii_strtoll (parts[i], NULL, 10);
  return tensor_new_int64_vector (n, v);
}

/* Builds the case's graph; with `trace`, aten::op with prim::Constant
 * scalars, else an ATen node with onnx::Constant inputs. */
static Graph *
build_case (const AtenCase *c, gboolean trace, GHashTable *inputs)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 17);
  graph_set_opset (g, GRAPH_ATEN_DOMAIN, 1);
  g_auto (GStrv) args = g_strsplit (c->args, ";", -1);
  guint n = g_strv_length (args), n_npy = 0;
  g_autofree GraphValue **in = g_new0 (GraphValue *, n);
  for (guint i = 0; i < n; i++)
    {
      const char *a = args[i];
      g_autoptr (Tensor) t = NULL;
      if (strcmp (a, "npy") == 0)
        {
          g_autofree char *file = g_strdup_printf ("%s_in%u.npy", c->name, n_npy++);
          Tensor *x = aten_test_fixture (file);
          g_autoptr (GraphType) ty = graph_type_new_tensor_static (tensor_dtype (x), tensor_rank (x),
                                                                   tensor_dims (x));
          g_autofree char *name = g_strdup_printf ("x%u", i);
          in[i] = graph_add_input (g, name, ty);
          g_hash_table_insert (inputs, g_strdup (name), x);
          continue;
        }
      if (strcmp (a, "none") == 0)
        {
          in[i] = trace ? graph_op (g, "prim::Constant", NULL) : GRAPH_ABSENT;
          continue;
        }
      if (g_str_has_prefix (a, "f:"))
        {
          if (trace)
            {
              in[i] = graph_op (g, "prim::Constant", "value_f", g_ascii_strtod (a + 2, NULL), NULL);
              continue;
            }
          t = tensor_new_scalar_double (GRAPH_DTYPE_DOUBLE, g_ascii_strtod (a + 2, NULL));
        }
      else if (g_str_has_prefix (a, "i:"))
        {
          if (trace)
            {
              in[i] = graph_op (g, "prim::Constant", "value_i", (gint64) g_ascii_strtoll (a + 2, NULL, 10), NULL);
              continue;
            }
          t = tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, g_ascii_strtoll (a + 2, NULL, 10));
        }
      else if (g_str_has_prefix (a, "is:"))
        t = list_tensor (a + 3, FALSE);
      else if (g_str_has_prefix (a, "fs:"))
        t = list_tensor (a + 3, TRUE);
      else
        g_assert_not_reached ();
      in[i] = graph_op (g, "Constant", "value_t", t, NULL);
      g_assert_nonnull (in[i]);
    }
  GraphValue *out;
  if (trace)
    {
      g_autofree char *kind = g_strdup_printf ("aten::%s", c->op);
      out = graph_opv (g, kind, n, in, NULL);
    }
  else
    out = graph_opv (g, GRAPH_KIND_ATEN, n, in, "operator_s", c->op, "overload_name_s", "", NULL);
  g_assert_nonnull (out);
  graph_value_set_name (out, "y");
  graph_add_output (g, out);
  assert_lint (g);
  return g;
}

static void
run_case (const AtenCase *c, gboolean trace)
{
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  g_autoptr (Graph) g = build_case (c, trace, inputs);
  g_autoptr (GHashTable) outputs = aten_test_run (g, inputs);
  g_autofree char *file = g_strdup_printf ("%s_out.npy", c->name);
  g_autofree char *what = g_strdup_printf ("%s (%s)", c->name, trace ? "trace" : "ATen node");
  aten_test_expect (outputs, "y", file, c->rtol, c->atol, what);
}

static void
test_aten_node (gconstpointer data)
{
  run_case (data, FALSE);
}

static void
test_aten_trace (gconstpointer data)
{
  run_case (data, TRUE);
}

/* An operator without a kernel is reported by name, with the others. */
static void
test_aten_missing (void)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 17);
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 0, NULL);
  GraphValue *x = graph_add_input (g, "x", ty);
  GraphValue *a = graph_at (g, "frobnicate", x, NULL);
  GraphValue *b = graph_op (g, "aten::defrobnicate", a, NULL);
  graph_add_output (g, b);
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_null (s);
  g_assert_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "aten::frobnicate"));
  g_assert_nonnull (strstr (error->message, "aten::defrobnicate"));
  g_assert_nonnull (strstr (error->message, "2 operators"));
}

void
test_aten_register (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/runtime/aten/node/%s", cases[i].name);
      g_autofree char *p2 = g_strdup_printf ("/runtime/aten/trace/%s", cases[i].name);
      g_test_add_data_func (p1, &cases[i], test_aten_node);
      g_test_add_data_func (p2, &cases[i], test_aten_trace);
    }
  g_test_add_func ("/runtime/aten/missing", test_aten_missing);
}
