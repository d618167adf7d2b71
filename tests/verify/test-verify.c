/* verify/: verify_localize on real seed-model traces (DCGAN and the word
 * language model of tests/fixtures/dynamic-shapes, with their weights),
 * with the built-in symbolics (everything matches) and with a wrong
 * symbolic planted through sym_register or a plugin (the localization must
 * name exactly that node), in each export mode; the CLI's --localize and
 * --all, and the guide's C example. */
#include "tests/common/test-util.h"
#include "tests/common/test-cli.h"
#include "test-loops.h"
#include "test-lists.h"
#include "test-quant.h"
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define FIXTURES "tests/fixtures/dynamic-shapes/"

typedef struct
{
  const char *name;        /* fixture prefix */
  const char *input;       /* the trace's input name */
} Model;

static const Model dcgan = { "dcgan", "x" };
static const Model wlm = { "word_language_model", "input.1" };

/* The model's input, of the trace's type: deterministic values (both runs
 * get the same; no reference numbers are involved). */
static Tensor *
make_input (Graph *trace, const Model *m)
{
  GraphValue *in = graph_find_value (trace, m->input);
  g_assert_nonnull (in);
  GraphType *t = graph_value_type (in);
  gint64 dims[8];
  guint rank = (guint) graph_type_rank (t);
  for (guint i = 0; i < rank; i++)
    dims[i] = graph_type_dim (t, i)->value;
  GraphDType dt = graph_type_dtype (t);
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  g_autofree void *data = g_malloc (n * graph_dtype_size (dt));
  for (gint64 i = 0; i < n; i++)
    if (dt == GRAPH_DTYPE_INT64)
      ((gint64 *) data)[i] = (i * 7) % 10;   /* token ids below the vocabulary size */
    else
      ((float *) data)[i] = (float) sin ((double) i * 0.37);
  return tensor_new_from_data (dt, rank, dims, data, n * graph_dtype_size (dt), NULL);
}

typedef struct
{
  Graph      *trace;
  GHashTable *weights;
  GHashTable *inputs;
} Loaded;

static void
loaded_clear (Loaded *l)
{
  g_clear_pointer (&l->trace, graph_free);
  g_clear_pointer (&l->weights, g_hash_table_unref);
  g_clear_pointer (&l->inputs, g_hash_table_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Loaded, loaded_clear)

static void
load (const Model *m, Loaded *l)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *rel = g_strdup_printf (FIXTURES "%s.trace", m->name);
  g_autofree char *wrel = g_strdup_printf (FIXTURES "%s.safetensors", m->name);
  g_autofree char *path = test_source_path (rel);
  g_autofree char *wpath = test_source_path (wrel);
  l->trace = graph_parse_file (path, &error);
  g_assert_no_error (error);
  l->weights = export_safetensors_load (wpath, &error);
  g_assert_no_error (error);
  l->inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
  g_hash_table_insert (l->inputs, g_strdup (m->input), make_input (l->trace, m));
}

static VerifyLocalization *
localize (Loaded *l, SymRegistry *reg, SymMode mode)
{
  ExportOptions o;
  export_options_init (&o);
  o.opset = 14;
  o.mode = mode;
  o.registry = reg;
  o.weights = l->weights;
  g_autoptr (GError) error = NULL;
  VerifyLocalization *r = verify_localize (l->trace, &o, l->inputs, 1e-3, 1e-5, &error);
  export_options_clear (&o);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  return r;
}

static const VerifyNodeResult *
row (const VerifyLocalization *l, guint i)
{
  return &g_array_index (l->rows, VerifyNodeResult, i);
}

/* The built-in symbolics: every compared output matches, and the report
 * says so. */
static void
test_all_match (gconstpointer data)
{
  const Model *m = data;
  g_auto (Loaded) l = { 0 };
  load (m, &l);
  static const SymMode modes[] = { SYM_MODE_ONNX, SYM_MODE_ONNX_ATEN_FALLBACK, SYM_MODE_ONNX_ATEN };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    {
      g_autoptr (VerifyLocalization) r = localize (&l, NULL, modes[k]);
      g_assert_cmpint (r->first, ==, -1);
      g_assert_cmpuint (r->compared, >=, 6);
      guint n_aten = 0;
      for (guint i = 0; i < r->rows->len; i++)
        {
          g_assert_false (row (r, i)->diverges);
          g_assert_true (g_str_has_prefix (row (r, i)->kind, "aten::"));
          if (row (r, i)->skipped == NULL)
            g_assert_nonnull (row (r, i)->onnx_value);
          if (strcmp (row (r, i)->symbolic, "ATen fallback") == 0)
            n_aten++;
        }
      /* In ONNX_ATEN mode every node went to an ATen node. */
      if (modes[k] == SYM_MODE_ONNX_ATEN)
        g_assert_cmpuint (n_aten, ==, r->rows->len);
      g_autofree char *report = verify_localization_format (r, FALSE);
      g_assert_true (g_str_has_prefix (report, "localize: all "));
      g_assert_nonnull (strstr (report, " compared node outputs match within rtol 0.001"));
    }
}

/* Renamed graph inputs (ExportOptions.input_names) pair with the trace's
 * by position. */
static void
test_input_names (void)
{
  g_auto (Loaded) l = { 0 };
  load (&wlm, &l);
  static const char *const names[] = { "tokens", NULL };
  ExportOptions o;
  export_options_init (&o);
  o.weights = l.weights;
  o.input_names = names;
  g_autoptr (GError) error = NULL;
  g_autoptr (VerifyLocalization) r = verify_localize (l.trace, &o, l.inputs, 1e-3, 1e-5, &error);
  export_options_clear (&o);
  g_assert_no_error (error);
  g_assert_cmpint (r->first, ==, -1);
  g_assert_cmpuint (r->compared, >=, 6);
}

/* A wrong symbolic planted with sym_register: aten::linear that subtracts
 * the bias.  The word language model has one linear layer, in the middle
 * (embedding, dropout, lstm, dropout, linear, log_softmax). */
static gboolean
linear_bias_subtracted (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *w, *b;
  if (!sym_parse_args (ctx, n, "vvv", &x, &w, &b, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  out[0] = graph_op (g, "Sub", graph_op (g, "MatMul", x, graph_op (g, "Transpose", w, NULL), NULL), b, NULL);
  return TRUE;
}

static void
assert_names_linear (const VerifyLocalization *r, const char *symbolic_prefix)
{
  g_assert_cmpint (r->first, >=, 0);
  const VerifyNodeResult *d = row (r, (guint) r->first);
  g_assert_cmpstr (d->kind, ==, "aten::linear");
  g_assert_true (d->diverges);
  g_assert_nonnull (d->source);
  g_assert_nonnull (strstr (d->source, "linear.py") ? d->source : strstr (d->source, "functional.py"));
  g_assert_true (g_str_has_prefix (d->symbolic, symbolic_prefix));
  g_assert_cmpfloat (d->cmp.max_abs_error, >, 1e-3);
  /* Everything before it matches; the one linear node is the one named. */
  guint linears = 0;
  for (guint i = 0; i < r->rows->len; i++)
    {
      if (i < (guint) r->first)
        g_assert_false (row (r, i)->diverges);
      /* after it, what diverges reads its output (Note [Blame]) */
      if (i > (guint) r->first && row (r, i)->diverges)
        g_assert_true (row (r, i)->inherited);
      linears += strcmp (row (r, i)->kind, "aten::linear") == 0;
    }
  g_assert_false (row (r, (guint) r->first)->inherited);
  g_assert_true (row (r, r->rows->len - 1)->inherited);   /* log_softmax reads the linear */
  g_assert_cmpuint (linears, ==, 1);
  g_autofree char *report = verify_localization_format (r, TRUE);
  g_assert_nonnull (strstr (report, "localize: first divergent node: aten::linear, output 0"));
  g_assert_nonnull (strstr (report, "  symbolic: custom aten::linear (sym_register since opset 9"));
  g_assert_nonnull (strstr (report, "  opset:    14"));
  g_assert_nonnull (strstr (report, "DIVERGES"));
}

static void
test_planted (void)
{
  g_auto (Loaded) l = { 0 };
  load (&wlm, &l);
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  g_assert_true (sym_register (reg, "aten::linear", 9, linear_bias_subtracted, NULL));
  static const SymMode modes[] = { SYM_MODE_ONNX, SYM_MODE_ONNX_ATEN_FALLBACK, SYM_MODE_ONNX_ATEN };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    {
      g_autoptr (VerifyLocalization) r = localize (&l, reg, modes[k]);
      assert_names_linear (r, "custom aten::linear (sym_register since opset 9)");
      g_assert_cmpint (r->mode, ==, modes[k]);
    }
}

/* The same bug elsewhere names another node: planted in DCGAN's batch
 * norms (epsilon 0.5 instead of the trace's), the first batch_norm, the
 * second node of fourteen, is named, not its convolution. */
static gboolean
batch_norm_wrong_eps (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x, *w, *b, *mean, *var;
  if (!sym_parse_args (ctx, n, "vvvvv", &x, &w, &b, &mean, &var, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "BatchNormalization", x, w, b, mean, var, "epsilon_f", 0.5, NULL);
  return TRUE;
}

static void
test_planted_dcgan (void)
{
  g_auto (Loaded) l = { 0 };
  load (&dcgan, &l);
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  g_assert_true (sym_register (reg, "aten::batch_norm", 9, batch_norm_wrong_eps, NULL));
  g_autoptr (VerifyLocalization) r = localize (&l, reg, SYM_MODE_ONNX_ATEN_FALLBACK);
  g_assert_cmpint (r->first, ==, 1);
  g_assert_cmpstr (row (r, 0)->kind, ==, "aten::_convolution");
  g_assert_false (row (r, 0)->diverges);
  g_assert_null (row (r, 0)->skipped);
  g_assert_cmpstr (row (r, 1)->kind, ==, "aten::batch_norm");
  g_assert_nonnull (strstr (row (r, 1)->scope ? row (r, 1)->scope : row (r, 1)->source, "1"));
}

static char *
fixture (const char *file)
{
  g_autofree char *rel = g_strconcat (FIXTURES, file, NULL);
  return test_source_path (rel);
}

/* An input file for the CLI. */
static char *
input_file (const Model *m, const char *dir)
{
  g_auto (Loaded) l = { 0 };
  load (m, &l);
  g_autofree char *base = g_strdup_printf ("%s-input.npy", m->name);
  char *path = g_build_filename (dir, base, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (export_npy_save (g_hash_table_lookup (l.inputs, m->input), path, &error));
  g_assert_no_error (error);
  return path;
}

static void
test_cli (void)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-localize-XXXXXX", NULL);
  g_autofree char *input = input_file (&wlm, dir);
  g_autofree char *trace = fixture ("word_language_model.trace");
  g_autofree char *weights = fixture ("word_language_model.safetensors");
  const char *plugin = g_getenv ("SYMONNX_PLUGIN_BROKEN_LINEAR");
  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "-i", input,
                                        "--localize", NULL });
  assert_status (&r, 0, "verify --localize (built-ins)");
  g_assert_nonnull (strstr (r.out, "localize: all "));
  run_result_clear (&r);
  static const char *const modes[] = { "onnx", "aten-fallback", "aten" };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    {
      r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "-i", input,
                                  "--plugin", plugin, "--mode", modes[k], "--all", NULL });
      assert_status (&r, 1, "verify --all with the broken plugin");
      g_assert_nonnull (strstr (r.out, "FAIL: 0 of 1 output"));
      g_assert_nonnull (strstr (r.out, "localize: first divergent node: aten::linear, output 0"));
      g_autofree char *sym = g_strdup_printf ("  symbolic: custom aten::linear (sym_register since "
                                              "opset 9, plugin %s)", plugin);
      g_assert_nonnull (strstr (r.out, sym));
      g_assert_nonnull (strstr (r.out, "  source:   # "));
      g_assert_nonnull (strstr (r.out, "aten::embedding"));   /* the --all table */
      g_assert_nonnull (strstr (r.out, " ok\n"));
      run_result_clear (&r);
    }
  /* --localize needs a trace. */
  g_autofree char *onnx = g_build_filename (dir, "m.onnx", NULL);
  r = run ((const char *[]) { "symonnx", "export", trace, "-w", weights, "-o", onnx, NULL });
  assert_status (&r, 0, "export");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "verify", onnx, "-i", input, "--localize", NULL });
  assert_status (&r, 2, "verify MODEL --localize");
  g_assert_nonnull (strstr (r.err, "--localize"));
  run_result_clear (&r);
  g_unlink (onnx);
  g_unlink (input);
  g_rmdir (dir);
}

/* doc/examples/guide-localize.c: a dropout symbolic scaling as in
 * training, found at the first dropout of the word language model. */
static void
test_guide_example (void)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-localize-XXXXXX", NULL);
  g_autofree char *input = input_file (&wlm, dir);
  g_autofree char *trace = fixture ("word_language_model.trace");
  g_autofree char *weights = fixture ("word_language_model.safetensors");
  RunResult r = run ((const char *[]) { g_getenv ("SYMONNX_GUIDE_LOCALIZE"), trace, weights,
                                        "input.1", input, NULL });
  assert_status (&r, 1, "guide-localize");
  g_assert_nonnull (strstr (r.out, "localize: first divergent node: aten::dropout, output 0 (%input.5"));
  g_assert_nonnull (strstr (r.out, "first divergent: aten::dropout at "));
  run_result_clear (&r);
  g_unlink (input);
  g_rmdir (dir);
}

/* doc/guide.md shows the plugin's symbolic and the C example's calls as
 * the files hold them. */
static void
test_guide_in_sync (void)
{
  g_autofree char *gpath = test_source_path ("doc/guide.md");
  g_autofree char *ppath = test_source_path ("doc/examples/plugin/broken-linear-plugin.c");
  g_autofree char *cpath = test_source_path ("doc/examples/guide-localize.c");
  g_autofree char *guide = NULL, *plugin = NULL, *example = NULL;
  g_assert_true (g_file_get_contents (gpath, &guide, NULL, NULL));
  g_assert_true (g_file_get_contents (ppath, &plugin, NULL, NULL));
  g_assert_true (g_file_get_contents (cpath, &example, NULL, NULL));
  const char *sec = strstr (guide, "## 11. Finding where an export goes wrong");
  g_assert_nonnull (sec);
  guint blocks = 0;
  for (const char *p = strstr (sec, "```c\n"); p; p = strstr (p, "```c\n"))
    {
      p += 5;
      const char *end = strstr (p, "```");
      g_assert_nonnull (end);
      g_autofree char *code = g_strndup (p, end - p);
      if (strstr (plugin, code) == NULL && strstr (example, code) == NULL)
        g_error ("doc/guide.md's code block is in neither example file:\n%s", code);
      blocks++;
      p = end + 3;
    }
  g_assert_cmpuint (blocks, ==, 2);
}

/* Errors: a missing input, and an op the executor has no ATen kernel for
 * (the trace run cannot be made: the op is named). */
static void
test_errors (void)
{
  g_auto (Loaded) l = { 0 };
  load (&wlm, &l);
  ExportOptions o;
  export_options_init (&o);
  o.weights = l.weights;
  g_autoptr (GHashTable) none = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GError) error = NULL;
  g_assert_null (verify_localize (l.trace, &o, none, 1e-3, 1e-5, &error));
  g_assert_error (error, VERIFY_ERROR, VERIFY_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "input.1"));
  g_clear_error (&error);

  const char *text = "graph(%x : Float(2, 3)):\n"
                     "  %y : Float(2, 3) = aten::special_i1e(%x) # t.py:1:0\n"
                     "  return (%y)\n";
  g_autoptr (Graph) t = graph_parse (text, strlen (text), "t.trace", &error);
  g_assert_no_error (error);
  o.mode = SYM_MODE_ONNX_ATEN_FALLBACK;
  o.weights = NULL;
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     (GDestroyNotify) tensor_unref);
  float x[6] = { 0 };
  gint64 dims[2] = { 2, 3 };
  g_hash_table_insert (in, g_strdup ("x"), tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, dims, x, sizeof x, NULL));
  g_assert_null (verify_localize (t, &o, in, 1e-3, 1e-5, &error));
  g_assert_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN);
  g_assert_nonnull (strstr (error->message, "special_i1e"));
  export_options_clear (&o);
}

/* Runs the trace text on x (float, of dims) through verify_runnable_trace;
 * returns the runnable graph's outputs in order (transfer full).  `only`:
 * NULL, or the name of the graph's one output. */
static GPtrArray *
run_trace_outputs (const char *text, const float *x, guint rank, const gint64 *dims, const char *only)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) t = graph_parse (text, strlen (text), "t.trace", &error);
  g_assert_no_error (error);
  g_autoptr (Graph) r = verify_runnable_trace (t, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (RtSession) s = rt_session_new (r, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
  gint64 n = 1;
  for (guint d = 0; d < rank; d++)
    n *= dims[d];
  g_hash_table_insert (in, g_strdup ("x"),
                       tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, x, (gsize) n * sizeof (float), NULL));
  g_assert_true (rt_session_run (s, in, out, &error));
  if (only)
    {
      g_assert_cmpuint (graph_n_outputs (r), ==, 1);
      g_assert_cmpstr (graph_value_get_name (graph_output (r, 0)), ==, only);
    }
  GPtrArray *ys = g_ptr_array_new_with_free_func ((GDestroyNotify) tensor_unref);
  for (guint i = 0; i < graph_n_outputs (r); i++)
    {
      Tensor *y = g_hash_table_lookup (out, graph_value_get_name (graph_output (r, i)));
      g_assert_nonnull (y);
      g_ptr_array_add (ys, tensor_ref (y));
    }
  return ys;
}

/* The same, for a trace with the one output "r". */
static Tensor *
run_trace_text_dims (const char *text, const float *x, guint rank, const gint64 *dims)
{
  g_autoptr (GPtrArray) ys = run_trace_outputs (text, x, rank, dims, "r");
  return tensor_ref (ys->pdata[0]);
}

static Tensor *
run_trace_text (const char *text, const float *x, gint64 n)
{
  return run_trace_text_dims (text, x, 1, &n);
}

/* The trace run's rewrites: an in-place write into a slice/select view
 * whose base is read afterwards is written back (the base reads the new
 * values, as in PyTorch); through another view it is refused (the run
 * would read the base's old value); chunk + ListUnpack becomes one node
 * with the elements as outputs. */
static void
test_runnable_trace (void)
{
  static const char *const head = "graph(%x : Float(2, 3)):\n"
                                   "  %c0 : int = prim::Constant[value=0]()\n"
                                   "  %c1 : int = prim::Constant[value=1]()\n"
                                   "  %one : float = prim::Constant[value=1.5]()\n";
  g_autofree char *through_select = g_strconcat (head, "  %v : Float(3) = aten::select(%x, %c0, %c0)\n"
                                                 "  %w : Float(3) = aten::fill_(%v, %one) # t.py:3:0\n"
                                                 "  %r : Float(2, 3) = aten::mul(%x, %x)\n  return (%r)\n", NULL);
  g_autofree char *through_transpose = g_strconcat (head, "  %v : Float(3, 2) = aten::transpose(%x, %c0, %c1)\n"
                                                    "  %w : Float(3, 2) = aten::fill_(%v, %one) # t.py:3:0\n"
                                                    "  %r : Float(2, 3) = aten::mul(%x, %x)\n  return (%r)\n", NULL);
  const float x0[6] = { 1, 2, 3, 4, 5, 6 };
  static const gint64 d23[2] = { 2, 3 };
  g_autoptr (Tensor) r = run_trace_text_dims (through_select, x0, 2, d23);
  const float *rv = tensor_data (r);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (rv[i], ==, i < 3 ? 2.25f : x0[i] * x0[i]);   /* x[0] = 1.5, then x * x */
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) t1 = graph_parse (through_transpose, strlen (through_transpose), "t.trace", &error);
  g_assert_no_error (error);
  g_assert_null (verify_runnable_trace (t1, NULL, &error));
  g_assert_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN);
  g_assert_nonnull (strstr (error->message, "aten::fill_ at t.py:3:0 writes in place into a view"));
  g_clear_error (&error);

  /* views made before the write read it (Note [Aliases of a written
   * tensor]): a column select and a transpose */
  g_autofree char *sibling = g_strconcat (head, "  %z : Float(2) = aten::select(%x, %c1, %c0)\n"
                                          "  %t : Float(3, 2) = aten::transpose(%x, %c0, %c1)\n"
                                          "  %v : Float(3) = aten::select(%x, %c0, %c0)\n"
                                          "  %w : Float(3) = aten::fill_(%v, %one)\n"
                                          "  %r : Float(3, 2) = aten::add(%t, %z, %c1)\n  return (%r)\n", NULL);
  g_autoptr (Tensor) rs = run_trace_text_dims (sibling, x0, 2, d23);
  const float *sv = tensor_data (rs);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++)   /* t[i][j] + z[j] = x'[j][i] + x'[j][0], x' = x with row 0 = 1.5 */
      g_assert_cmpfloat (sv[i * 2 + j], ==, (j == 0 ? 3.0f : x0[3 + i] + x0[3]));

  const char *chunk = "graph(%x : Float(4, 3)):\n"
                      "  %c2 : int = prim::Constant[value=2]()\n"
                      "  %c0 : int = prim::Constant[value=0]()\n"
                      "  %l : Tensor[] = aten::chunk(%x, %c2, %c0)\n"
                      "  %a : Float(2, 3), %b : Float(2, 3) = prim::ListUnpack(%l)\n"
                      "  %y : Float(2, 3) = aten::sub(%a, %b, %c2)\n"
                      "  return (%y)\n";
  g_autoptr (Graph) t3 = graph_parse (chunk, strlen (chunk), "t.trace", &error);
  g_assert_no_error (error);
  g_autoptr (Graph) r3 = verify_runnable_trace (t3, NULL, &error);
  g_assert_no_error (error);
  GraphValue *a = graph_find_value (r3, "a");
  g_assert_nonnull (a);
  GraphNode *p = graph_value_node (a);
  g_assert_true (graph_node_is (p, "aten::chunk"));
  g_assert_cmpuint (graph_node_n_outputs (p), ==, 2);
  g_assert_true (graph_node_output (p, 1) == graph_find_value (r3, "b"));
  /* and it runs: x - 2 * x's second half */
  g_autoptr (RtSession) s = rt_session_new (r3, NULL, &error);
  g_assert_no_error (error);
  float x[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  gint64 dims[2] = { 4, 3 };
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
  g_hash_table_insert (in, g_strdup ("x"), tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, dims, x, sizeof x, NULL));
  g_assert_true (rt_session_run (s, in, out, &error));
  Tensor *y = g_hash_table_lookup (out, "y");
  g_assert_nonnull (y);
  const float *yv = tensor_data (y);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (yv[i], ==, x[i] - 2 * x[i + 6]);
}

/* Scripted code inside a trace (torchvision's batched_nms): a prim::If
 * whose blocks read the enclosing graph's None and the input's device
 * runs, each branch as its condition says; a 0-d Double constant standing
 * for a Python number keeps a Float product Float, as the trace declares. */
static void
test_runnable_trace_if (void)
{
  const char *text = "graph(%x : Float(*)):\n"
                     "  %none : NoneType = prim::Constant()\n"
                     "  %c0 : int = prim::Constant[value=0]()\n"
                     "  %n : int = aten::numel(%x)\n"
                     "  %cond : bool = aten::eq(%n, %c0)\n"
                     "  %r : Tensor = prim::If(%cond)\n"
                     "    block0():\n"
                     "      %d : Device = prim::device(%x)\n"
                     "      %l : int[] = prim::ListConstruct(%c0)\n"
                     "      %e : Tensor = aten::zeros(%l, %none, %none, %d, %none)\n"
                     "      -> (%e)\n"
                     "    block1():\n"
                     "      %s : Tensor = aten::mul(%x, %x)\n"
                     "      -> (%s)\n"
                     "  return (%r)\n";
  const float x[3] = { 1, -2, 3 };
  g_autoptr (Tensor) full = run_trace_text (text, x, 3);
  g_assert_cmpint (tensor_numel (full), ==, 3);
  const float *v = tensor_data (full);
  g_assert_cmpfloat (v[1], ==, 4);
  g_autoptr (Tensor) empty = run_trace_text (text, x, 0);
  g_assert_cmpint (tensor_numel (empty), ==, 0);
  g_assert_cmpint (tensor_dtype (empty), ==, GRAPH_DTYPE_FLOAT);

  const char *wrapped = "graph(%x : Float(3)):\n"
                        "  %none : NoneType = prim::Constant()\n"
                        "  %s : Float(requires_grad=0, device=cpu) = aten::sum(%x, %none)\n"
                        "  %c : Double(requires_grad=0, device=cpu) = prim::Constant[value={0.1}]()\n"
                        "  %r : Float(requires_grad=0, device=cpu) = aten::mul(%s, %c)\n"
                        "  return (%r)\n";
  g_autoptr (Tensor) p = run_trace_text (wrapped, x, 3);
  g_assert_cmpint (tensor_dtype (p), ==, GRAPH_DTYPE_FLOAT);   /* two 0-d tensors: Double without the type */
  g_assert_cmpfloat (fabs (((const float *) tensor_data (p))[0] - 0.2), <, 1e-6);
}

/* A list of tensors returned by the model (RAFT's flow predictions) is
 * flattened into its elements in the trace run, as export flattens it. */
static void
test_runnable_trace_list_output (void)
{
  const char *text = "graph(%x : Float(3)):\n"
                     "  %a : Float(3) = aten::mul(%x, %x)\n"
                     "  %b : Float(3) = aten::neg(%x)\n"
                     "  %l : Tensor[] = prim::ListConstruct(%a, %b)\n"
                     "  return (%l)\n";
  const float x[3] = { 1, -2, 3 };
  const gint64 n = 3;
  g_autoptr (GPtrArray) ys = run_trace_outputs (text, x, 1, &n, NULL);
  g_assert_cmpuint (ys->len, ==, 2);
  const Tensor *a = ys->pdata[0], *b = ys->pdata[1];
  g_assert_cmpfloat (((const float *) tensor_data (a))[1], ==, 4);
  g_assert_cmpfloat (((const float *) tensor_data (b))[2], ==, -3);
}

/* An in-place op with no kernel of its own (mul_) runs its out-of-place
 * kernel, and a write through detach (a view of the whole tensor) reaches
 * the base the later add reads: x.clone().detach().mul_(2), then + 1. */
static void
test_runnable_trace_inplace_detach (void)
{
  const char *text = "graph(%x : Float(3)):\n"
                     "  %n : NoneType = prim::Constant()\n"
                     "  %two : int = prim::Constant[value=2]()\n"
                     "  %one : int = prim::Constant[value=1]()\n"
                     "  %c : Float(3) = aten::clone(%x, %n)\n"
                     "  %d : Float(3) = aten::detach(%c)\n"
                     "  %m : Float(3) = aten::mul_(%d, %two)\n"
                     "  %y : Float(3) = aten::add(%c, %one, %one)\n"
                     "  return (%y)\n";
  const float x[3] = { 1, -2, 3 };
  const gint64 n = 3;
  g_autoptr (GPtrArray) ys = run_trace_outputs (text, x, 1, &n, NULL);
  g_assert_cmpuint (ys->len, ==, 1);
  const float *y = tensor_data (ys->pdata[0]);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (y[i], ==, 2 * x[i] + 1);
}

/* Float32 summation-order noise is not a divergence (Note [Node
 * tolerance]): a 3x3 convolution of 64 channels of values up to 100
 * followed by a BatchNorm, exported in ONNX mode, where export fuses the
 * two (the weights scaled by gamma / sqrt(var + eps), summed in another
 * order), against the trace run's convolution then BatchNorm.  The BN
 * output reaches thousands, and where the 576 products cancel, an element
 * near 0 keeps an absolute error of about 2^-24 times their sum: past a
 * per-element allclose at the test's atol (that is what the plain compare
 * flags), far inside the node's own scale.  A sin after it is noise
 * amplified, found so by running it alone.  The weights are made here
 * (deterministic); no reference numbers are involved: both runs are
 * ours. */
static Tensor *
filled (guint rank, const gint64 *dims, double (*f) (gint64 i))
{
  gint64 n = 1;
  for (guint d = 0; d < rank; d++)
    n *= dims[d];
  g_autofree float *v = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    v[i] = (float) f (i);
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, v, (gsize) n * sizeof (float), NULL);
}

static double x_of (gint64 i) { return 100.0 * sin ((double) i * 0.731); }
static double w_of (gint64 i) { return cos ((double) i * 1.37); }
static double gamma_of (gint64 i) { return 1.0 + 0.25 * (double) (i % 3); }
static double beta_of (gint64 i) { return 0.5 * (double) (i % 5) - 1.0; }
static double mean_of (gint64 i) { return 10.0 * sin ((double) i); }
static double var_of (gint64 i) { return 0.5 + (double) (i % 4); }

static gboolean
sin_as_cos (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  out[0] = graph_op (sym_graph (ctx), "Cos", x, NULL);
  return TRUE;
}

static void
test_summation_noise (void)
{
  const char *text =
    "graph(%self : __torch__.M,\n"
    "      %x : Float(1, 64, 24, 24)):\n"
    "  %conv : __torch__.Conv2d = prim::GetAttr[name=\"conv\"](%self)\n"
    "  %bn : __torch__.BatchNorm2d = prim::GetAttr[name=\"bn\"](%self)\n"
    "  %none : NoneType = prim::Constant()\n"
    "  %c1 : int = prim::Constant[value=1]()\n"
    "  %c0 : int = prim::Constant[value=0]()\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %f : bool = prim::Constant[value=0]()\n"
    "  %mom : float = prim::Constant[value=0.1]()\n"
    "  %eps : float = prim::Constant[value=1.0000000000000001e-05]()\n"
    "  %w : Tensor = prim::GetAttr[name=\"weight\"](%conv)\n"
    "  %s : int[] = prim::ListConstruct(%c1, %c1)\n"
    "  %p : int[] = prim::ListConstruct(%c1, %c1)\n"
    "  %op : int[] = prim::ListConstruct(%c0, %c0)\n"
    "  %y : Float(1, 32, 24, 24) = aten::_convolution(%x, %w, %none, %s, %p, %s, %f, %op, %c1, %f, %f, %t, %t), scope: __module.conv # m.py:3:0\n"
    "  %var : Tensor = prim::GetAttr[name=\"running_var\"](%bn)\n"
    "  %mean : Tensor = prim::GetAttr[name=\"running_mean\"](%bn)\n"
    "  %b : Tensor = prim::GetAttr[name=\"bias\"](%bn)\n"
    "  %g : Tensor = prim::GetAttr[name=\"weight\"](%bn)\n"
    "  %z : Float(1, 32, 24, 24) = aten::batch_norm(%y, %g, %b, %mean, %var, %f, %mom, %eps, %t), scope: __module.bn # m.py:4:0\n"
    "  %q : Float(1, 32, 24, 24) = aten::sin(%z) # m.py:5:0\n"
    "  return (%q)\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) trace = graph_parse (text, strlen (text), "noise.trace", &error);
  g_assert_no_error (error);
  static const gint64 xd[4] = { 1, 64, 24, 24 }, wd[4] = { 32, 64, 3, 3 }, cd[1] = { 32 };
  g_autoptr (GHashTable) weights = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  g_hash_table_insert (weights, g_strdup ("conv.weight"), filled (4, wd, w_of));
  g_hash_table_insert (weights, g_strdup ("bn.weight"), filled (1, cd, gamma_of));
  g_hash_table_insert (weights, g_strdup ("bn.bias"), filled (1, cd, beta_of));
  g_hash_table_insert (weights, g_strdup ("bn.running_mean"), filled (1, cd, mean_of));
  g_hash_table_insert (weights, g_strdup ("bn.running_var"), filled (1, cd, var_of));
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  g_hash_table_insert (inputs, g_strdup ("x"), filled (4, xd, x_of));
  ExportOptions o;
  export_options_init (&o);
  o.opset = 14;
  o.weights = weights;
  /* the plain allclose: the BatchNorm (the fused pair's output) is flagged */
  g_autoptr (VerifyLocalization) plain = verify_localize_full (trace, &o, inputs, 1e-3, 1e-5, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (plain->first, >=, 0);
  const VerifyNodeResult *bn = row (plain, (guint) plain->first);
  g_assert_cmpstr (bn->kind, ==, "aten::batch_norm");
  g_assert_cmpfloat (bn->scale, >, 1000);
  /* noise: tiny against the node's scale */
  g_assert_cmpfloat (bn->cmp.max_abs_error, <, 5e-6 * bn->scale);
  g_assert_cmpint (bn->cmp.mismatches, <, 50);
  /* the node-scaled tolerance: the BatchNorm matches; sin of values in
   * the thousands turns their noise into an error of its own scale (1),
   * but alone on the export's input values it gives the export's output
   * (Note [Isolating a node]): nothing is named */
  g_autoptr (VerifyLocalization) scaled = verify_localize (trace, &o, inputs, 1e-3, 1e-5, &error);
  g_assert_no_error (error);
  g_assert_cmpint (scaled->first, ==, -1);
  g_assert_cmpuint (scaled->compared, ==, 2);
  const VerifyNodeResult *sin_row = row (scaled, scaled->rows->len - 1);
  g_assert_cmpstr (sin_row->kind, ==, "aten::sin");
  g_assert_false (row (scaled, scaled->rows->len - 2)->diverges);
  g_assert_true (sin_row->diverges);
  g_assert_true (sin_row->upstream_noise);
  g_autofree char *report = verify_localization_format (scaled, TRUE);
  g_assert_nonnull (strstr (report, "+ 3e-05 of each node's scale"));
  g_assert_nonnull (strstr (report, "DIVERGES (alone on the export's inputs it agrees)"));
  /* a wrong sin (cos) after the same noise is named */
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  g_assert_true (sym_register (reg, "aten::sin", 9, sin_as_cos, NULL));
  o.registry = reg;
  g_autoptr (VerifyLocalization) wrong = verify_localize (trace, &o, inputs, 1e-3, 1e-5, &error);
  g_assert_no_error (error);
  g_assert_cmpint (wrong->first, ==, (gint) wrong->rows->len - 1);
  g_assert_cmpstr (row (wrong, (guint) wrong->first)->kind, ==, "aten::sin");
  g_assert_false (row (wrong, (guint) wrong->first)->upstream_noise);
  o.registry = NULL;
  export_options_clear (&o);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/verify/localize/match/dcgan", &dcgan, test_all_match);
  g_test_add_data_func ("/verify/localize/match/word-language-model", &wlm, test_all_match);
  g_test_add_func ("/verify/localize/input-names", test_input_names);
  g_test_add_func ("/verify/localize/planted/sym-register", test_planted);
  g_test_add_func ("/verify/localize/planted/dcgan-batch-norm", test_planted_dcgan);
  g_test_add_func ("/verify/localize/cli", test_cli);
  g_test_add_func ("/verify/localize/guide-example", test_guide_example);
  g_test_add_func ("/verify/localize/errors", test_errors);
  g_test_add_func ("/verify/runnable-trace", test_runnable_trace);
  g_test_add_func ("/verify/runnable-trace/if", test_runnable_trace_if);
  g_test_add_func ("/verify/runnable-trace/list-output", test_runnable_trace_list_output);
  g_test_add_func ("/verify/runnable-trace/inplace-detach", test_runnable_trace_inplace_detach);
  g_test_add_func ("/verify/localize/guide-in-sync", test_guide_in_sync);
  g_test_add_func ("/verify/localize/summation-noise", test_summation_noise);
  loop_tests_add ();
  list_tests_add ();
  quant_tests_add ();
  return g_test_run ();
}
