/* The trace run's quantized kernels (runtime/k-aten-qconv.c,
 * k-aten-qops.c; Note [Quantized tensors]) on the cases of
 * tests/fixtures/quant, made by tools/gen_quant_refs.py from PyTorch 1.13
 * (QNNPACK engine): each a small traced module using one quantized op,
 * whose integers (int_repr) must equal PyTorch's exactly; `model`, a small
 * quantized network, also exported in every mode and run, within one
 * quantization step of PyTorch (as the corpus judges), and --localize
 * comparing its nodes.  Error cases: a quantized kernel given
 * a plain tensor, a plain kernel given a quantized one, bad parameters and
 * shapes, packed parameters missing from the weights: a GError each. */
#include "test-quant.h"
#include "tests/common/test-util.h"
#include "symonnx.h"
#include "export/tensorfiles.h"
#include <math.h>
#include <string.h>

#define DIR "tests/fixtures/quant/"

static char *
fixture (const char *cas, const char *suffix)
{
  g_autofree char *rel = g_strdup_printf (DIR "%s%s", cas, suffix);
  return test_source_path (rel);
}

typedef struct
{
  Graph      *trace;
  GHashTable *weights;
  GHashTable *inputs;   /* trace input name → Tensor* */
  Tensor     *want;
} Case;

static void
case_clear (Case *c)
{
  g_clear_pointer (&c->trace, graph_free);
  g_clear_pointer (&c->weights, g_hash_table_unref);
  g_clear_pointer (&c->inputs, g_hash_table_unref);
  g_clear_pointer (&c->want, tensor_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Case, case_clear)

static void
load (const char *cas, Case *c)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tpath = fixture (cas, ".trace"), *wpath = fixture (cas, ".safetensors");
  g_autofree char *opath = fixture (cas, "_out.npy");
  c->trace = graph_parse_file (tpath, &error);
  g_assert_no_error (error);
  c->weights = export_safetensors_load (wpath, &error);
  g_assert_no_error (error);
  c->want = export_npy_load (opath, &error);
  g_assert_no_error (error);
  c->inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
  guint k = 0;
  for (guint i = 0; i < graph_n_inputs (c->trace); i++)
    {
      GraphValue *v = graph_input (c->trace, i);
      GraphType *t = graph_value_type (v);
      if (t == NULL || !graph_type_is_tensor (t))
        continue;   /* the module */
      g_autofree char *suffix = g_strdup_printf ("_in%u.npy", k++);
      g_autofree char *ipath = fixture (cas, suffix);
      Tensor *x = export_npy_load (ipath, &error);
      g_assert_no_error (error);
      g_hash_table_insert (c->inputs, g_strdup (graph_value_get_name (v)), x);
    }
}

/* The trace run's output 0 (NULL and *error on failure). */
static Tensor *
trace_run (Case *c, GError **error)
{
  g_autoptr (Graph) r = verify_runnable_trace (c->trace, c->weights, error);
  if (r == NULL)
    return NULL;
  g_autoptr (RtSession) s = rt_session_new (r, NULL, error);
  if (s == NULL)
    return NULL;
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  if (!rt_session_run (s, c->inputs, outputs, error))
    return NULL;
  Tensor *got = g_hash_table_lookup (outputs, graph_value_get_name (graph_output (r, 0)));
  return got ? tensor_ref (got) : NULL;
}

static void
assert_same_shape (const Tensor *got, const Tensor *want)
{
  g_assert_cmpuint (tensor_rank (got), ==, tensor_rank (want));
  for (guint k = 0; k < tensor_rank (want); k++)
    g_assert_cmpint (tensor_dims (got)[k], ==, tensor_dims (want)[k]);
}

/* One case: exactly PyTorch's integers (or, for dequantize and the
 * model, floats). */
static void
test_case (gconstpointer data)
{
  const char *cas = data;
  g_auto (Case) c = { 0 };
  load (cas, &c);
  g_autoptr (GError) error = NULL;
  g_autoptr (Tensor) got = trace_run (&c, &error);
  if (got == NULL)
    g_error ("%s: the trace run fails: %s", cas, error ? error->message : "no output");
  g_assert_cmpint (tensor_dtype (got), ==, tensor_dtype (c.want));
  assert_same_shape (got, c.want);
  guint differ = 0;
  for (gint64 i = 0; i < tensor_numel (c.want); i++)
    if (tensor_get_double (got, i) != tensor_get_double (c.want, i))
      {
        if (differ++ == 0)
          g_test_message ("%s: element %" G_GINT64_FORMAT " is %.9g, PyTorch gives %.9g", cas, i,
                          tensor_get_double (got, i), tensor_get_double (c.want, i));
      }
  if (differ)
    g_error ("%s: %u of %" G_GINT64_FORMAT " elements differ from PyTorch's", cas, differ, tensor_numel (c.want));
}

/* The model exported in each mode and run: within two quantization steps
 * (its output scale, fc's 0.03) of PyTorch; --localize runs.  Two, not
 * one: the export's convolution chains are a step off QNNPACK's here and
 * there (torch's form truncates the bias to int32 and requantizes in
 * float), and the residual add_relu, computed as QNNPACK's integer add
 * (Note [Quantized Add chains], runtime/fuse-qadd.c), adds two such
 * differences: 2 steps on 1 of the 5 outputs (the float form happened to
 * round that one back within a step).  The add itself is exact given its
 * inputs (tests/runtime/test-fusion-qadd.c). */
static void
test_model_modes (void)
{
  g_auto (Case) c = { 0 };
  load ("model", &c);
  static const SymMode modes[] = { SYM_MODE_ONNX, SYM_MODE_ONNX_ATEN_FALLBACK, SYM_MODE_ONNX_ATEN };
  const double step = 0.03;
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    {
      ExportOptions o;
      export_options_init (&o);
      o.opset = 13;
      o.mode = modes[k];
      o.weights = c.weights;
      g_autoptr (GError) error = NULL;
      g_autoptr (VerifyLocalization) l = verify_localize (c.trace, &o, c.inputs, 0, step * 1.0001, &error);
      g_assert_no_error (error);
      g_assert_nonnull (l);
      /* A node may still be named: a one-step difference upstream (the
       * export requantizes in float) can grow by a step through an add;
       * the report is made either way (Note [Quantized nodes]). */
      g_autofree char *report = verify_localization_format (l, FALSE);
      g_test_message ("mode %s: %s", sym_mode_name (modes[k]), report);
      g_assert_cmpuint (l->compared, >=, 8);
      g_autoptr (Graph) g = export_graph (c.trace, &o, &error);
      g_assert_no_error (error);
      /* no ATen node can carry a quantized tensor: each mode's graph runs */
      g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                              (GDestroyNotify) tensor_unref);
      g_autoptr (GHashTable) ins = g_hash_table_new (g_str_hash, g_str_equal);
      g_assert_cmpuint (rt_session_n_required_inputs (s), ==, 1);
      GHashTableIter it;
      gpointer key, val;
      g_hash_table_iter_init (&it, c.inputs);
      g_assert_true (g_hash_table_iter_next (&it, &key, &val));
      g_hash_table_insert (ins, (gpointer) graph_value_get_name (rt_session_required_input (s, 0)), val);
      g_assert_true (rt_session_run (s, ins, outputs, &error));
      g_assert_no_error (error);
      Tensor *got = g_hash_table_lookup (outputs, graph_value_get_name (graph_output (g, 0)));
      g_assert_nonnull (got);
      assert_same_shape (got, c.want);
      for (gint64 i = 0; i < tensor_numel (c.want); i++)
        g_assert_cmpfloat (fabs (tensor_get_double (got, i) - tensor_get_double (c.want, i)), <=, 2 * step * 1.0001);
      export_options_clear (&o);
    }
}

/* A case's trace with `from` replaced by `to` (once), run: its error. */
static char *
edited_run_error (const char *cas, const char *from, const char *to, GHashTable *drop_weights_prefix)
{
  g_auto (Case) c = { 0 };
  load (cas, &c);
  g_autofree char *tpath = fixture (cas, ".trace");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (tpath, &text, NULL, NULL));
  char *at = strstr (text, from);
  g_assert_nonnull (at);
  g_autoptr (GString) s = g_string_new_len (text, at - text);
  g_string_append (s, to);
  g_string_append (s, at + strlen (from));
  g_autoptr (GError) error = NULL;
  graph_free (c.trace);
  c.trace = graph_parse (s->str, s->len, cas, &error);
  g_assert_no_error (error);
  if (drop_weights_prefix)
    {
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, c.weights);
      while (g_hash_table_iter_next (&it, &key, NULL))
        if (g_hash_table_contains (drop_weights_prefix, key))
          g_hash_table_iter_remove (&it);
    }
  g_autoptr (Tensor) got = trace_run (&c, &error);
  g_assert_null (got);
  g_assert_nonnull (error);
  g_test_message ("%s: %s", cas, error->message);
  return g_strdup (error->message);
}

static void
test_errors (void)
{
  /* a scale that is not positive */
  g_autofree char *e1 = edited_run_error ("add", "prim::Constant[value=0.089999999999999997]()",
                                          "prim::Constant[value=-0.5]()", NULL);
  g_assert_nonnull (strstr (e1, "scale must be positive"));
  /* a zero point outside quint8's range */
  g_autofree char *e2 = edited_run_error ("hardswish", "prim::Constant[value=40]()", "prim::Constant[value=300]()",
                                          NULL);
  g_assert_nonnull (strstr (e2, "zero_point 300 is outside [0, 255]"));
  /* quantize_per_tensor to an unknown dtype */
  g_autofree char *e3 = edited_run_error ("quantize", "prim::Constant[value=13]()", "prim::Constant[value=6]()",
                                          NULL);
  g_assert_nonnull (strstr (e3, "dtype 6 is not quint8"));
  /* a quantized kernel given a plain tensor: relu of the float input,
   * int_repr still declared to read a quantized one */
  g_autofree char *e4 = edited_run_error ("relu", "aten::relu(%v)", "aten::relu(%x)", NULL);
  g_assert_nonnull (strstr (e4, "argument 0 must be a quantized tensor (got a plain float)"));
  /* a plain kernel given a quantized tensor: its type not declared quantized */
  g_autofree char *e5 = edited_run_error ("relu", "%v : QUInt8(3, 40", "%v : Byte(3, 40", NULL);
  g_assert_nonnull (strstr (e5, "input 0 is a quantized tensor, which this kernel does not take"));
  /* cat of shapes that do not match outside its dim */
  g_autofree char *e6 = edited_run_error ("cat", "%12 : int = prim::Constant[value=1]()",
                                          "%12 : int = prim::Constant[value=2]()", NULL);
  g_assert_nonnull (strstr (e6, "tensor 1's type or shape does not match tensor 0's outside dim 2"));
  /* the packed weights missing */
  g_autoptr (GHashTable) drop = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_add (drop, (gpointer) "mods.0._packed_params.weight:scale");
  g_autofree char *e7 = edited_run_error ("conv2d", "graph(", "graph(", drop);
  g_assert_nonnull (strstr (e7, "packed parameters 'mods.0._packed_params' are not in the weights"));
}

void
quant_tests_add (void)
{
  g_autofree char *list = test_source_path (DIR "cases.txt");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (list, &text, NULL, NULL));
  char **names = g_strsplit (g_strstrip (text), "\n", -1);
  for (char **n = names; *n; n++)
    {
      g_autofree char *path = g_strdup_printf ("/verify/quantized/%s", *n);
      g_test_add_data_func_full (path, *n, test_case, g_free);   /* each name: its test's data */
    }
  g_free (names);   /* the array only */
  g_test_add_func ("/verify/quantized/model-modes", test_model_modes);
  g_test_add_func ("/verify/quantized/errors", test_errors);
}
