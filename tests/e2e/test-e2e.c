/* End to end, as a user runs it: PyTorch model → tools/torch2trace.py (at
 * test time, random weights) → `symonnx export` at opsets 9 and 13 →
 * onnx.checker (full_check) → `symonnx run` against PyTorch's outputs
 * (numpy.allclose, rtol 1e-3, atol 1e-5) → ONNX Runtime 1.20 on the same
 * file (when tests/e2e/install-ort.sh has installed it) → `symonnx verify`,
 * with PyTorch's outputs and without them (the executor's run of the trace).
 * Expected values all come from PyTorch, checks from numpy/python3-onnx. */
#include "tests/common/test-util.h"
#include "tests/common/test-cli.h"
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#define E2E_RTOL "1e-3"
#define E2E_ATOL "1e-5"

static char *tmp_root;      /* one folder per model under it */
static const char *python = "/usr/bin/python3";

static void
assert_one_line_error (const RunResult *r, const char *needle)
{
  if (strstr (r->err, needle) == NULL)
    g_error ("stderr lacks '%s':\n%s", needle, r->err);
  const char *nl = strchr (r->err, '\n');
  g_assert_nonnull (nl);
  g_assert_cmpstr (nl + 1, ==, "");
  g_assert_true (g_str_has_prefix (r->err, "symonnx verify: "));
}

static char *
script (const char *rel)
{
  return test_source_path (rel);
}

/* tools/torch2trace.py into tmp_root/<dir>; returns the folder. */
static char *
torch2trace (const char *dir, const char *const *args)
{
  g_autofree char *t2t = script ("tools/torch2trace.py");
  char *out = g_build_filename (tmp_root, dir, NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) python);
  g_ptr_array_add (argv, t2t);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, (gpointer) "-o");
  g_ptr_array_add (argv, out);
  g_ptr_array_add (argv, NULL);
  RunResult r = run ((const char *const *) argv->pdata);
  assert_status (&r, 0, "torch2trace.py");
  run_result_clear (&r);
  return out;
}

static char *
in_dir (const char *dir, const char *file)
{
  return g_build_filename (dir, file, NULL);
}

/* The model's graph input names (those without an initializer), from the
 * written file. */
static GPtrArray *
model_input_names (const char *onnx_path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = onnxio_load (onnx_path, &error);
  g_assert_no_error (error);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < graph_n_inputs (g); i++)
    if (graph_value_get_initializer (graph_input (g, i)) == NULL)
      g_ptr_array_add (names, g_strdup (graph_value_get_name (graph_input (g, i))));
  return names;
}

static void
python_compare (const char *expected, const char *actual)
{
  g_autofree char *check = script ("tests/e2e/e2e_check.py");
  RunResult r = run ((const char *[]) { python, check, "compare", E2E_RTOL, E2E_ATOL, expected,
                                        actual, NULL });
  assert_status (&r, 0, "e2e_check.py compare");
  g_test_message ("%s", r.out);
  run_result_clear (&r);
}

/* ---- the seed models ------------------------------------------------------ */

typedef struct
{
  const char *name;        /* torch2trace --model */
  const char *input;       /* --input spec, or NULL for the model's default */
  const char *needs;       /* operator whose absence means "skip", or NULL */
} SeedModel;

static const SeedModel seed_models[] = {
  { "superres", "1,1,32,32", NULL },
  { "dcgan", "1,100,1,1", NULL },
  { "resnet18", "1,3,64,64", NULL },
  { "word_language_model", NULL, "lstm" },
};

static const int opsets[] = { 9, 13 };

/* The names of what a missing operator/kernel looks like in an error. */
static gboolean
mentions_missing (const char *err, const char *op)
{
  g_autofree char *aten = g_strdup_printf ("aten::%s", op);
  g_autofree char *upper = g_ascii_strup (op, -1);
  return strstr (err, aten) || strstr (err, upper);
}

/* The model traced by torch2trace.py into tmp_root/<name> (once: the
 * tests that use a model share it). */
static char *
seed_model_dir (const SeedModel *m)
{
  g_autofree char *done = g_build_filename (tmp_root, m->name, "model.trace", NULL);
  if (g_file_test (done, G_FILE_TEST_EXISTS))
    return g_build_filename (tmp_root, m->name, NULL);
  const char *t2t_args[5] = { "--model", m->name, NULL, NULL, NULL };
  if (m->input)
    {
      t2t_args[2] = "--input";
      t2t_args[3] = m->input;
    }
  return torch2trace (m->name, t2t_args);
}

/* A traced seed model's files (torch2trace's layout). */
typedef struct
{
  char *dir, *trace, *weights, *input, *expected;
} SeedFiles;

static void
seed_files_clear (SeedFiles *f)
{
  g_free (f->dir);
  g_free (f->trace);
  g_free (f->weights);
  g_free (f->input);
  g_free (f->expected);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SeedFiles, seed_files_clear)

static void
seed_files (const SeedModel *m, SeedFiles *f)
{
  f->dir = seed_model_dir (m);
  f->trace = in_dir (f->dir, "model.trace");
  f->weights = in_dir (f->dir, "weights.safetensors");
  f->input = in_dir (f->dir, "input_0.npy");
  f->expected = in_dir (f->dir, "expected_0.npy");
}

static void
test_seed_model (gconstpointer data)
{
  const SeedModel *m = data;
  g_auto (SeedFiles) f = { 0 };
  seed_files (m, &f);
  const char *dir = f.dir, *trace = f.trace, *weights = f.weights, *input = f.input,
             *expected = f.expected;
  g_autofree char *check = script ("tests/e2e/e2e_check.py");

  for (guint k = 0; k < G_N_ELEMENTS (opsets); k++)
    {
      g_autofree char *opset = g_strdup_printf ("%d", opsets[k]);
      g_autofree char *base = g_strdup_printf ("model-%d.onnx", opsets[k]);
      g_autofree char *model = in_dir (dir, base);
      RunResult r = run ((const char *[]) { "symonnx", "export", trace, "--weights", weights,
                                            "--opset", opset, "-o", model, NULL });
      if (r.status != 0 && m->needs && mentions_missing (r.err, m->needs))
        {
          g_autofree char *why = g_strdup_printf ("%s: no export for aten::%s yet: %s", m->name,
                                                  m->needs, r.err);
          g_test_skip (why);
          run_result_clear (&r);
          return;
        }
      assert_status (&r, 0, "symonnx export");
      run_result_clear (&r);

      r = run ((const char *[]) { python, check, "check", model, NULL });
      assert_status (&r, 0, "onnx.checker");
      run_result_clear (&r);

      g_autoptr (GPtrArray) names = model_input_names (model);
      g_assert_cmpuint (names->len, ==, 1);
      g_autofree char *bind = g_strdup_printf ("%s=%s", (char *) names->pdata[0], input);
      g_autofree char *outdir_base = g_strdup_printf ("out-%d", opsets[k]);
      g_autofree char *outdir = in_dir (dir, outdir_base);
      r = run ((const char *[]) { "symonnx", "run", model, "--input", bind, "--output-dir", outdir, NULL });
      if (r.status != 0 && m->needs && mentions_missing (r.err, m->needs))
        {
          g_autofree char *why = g_strdup_printf ("%s: exports, but no kernel for %s yet: %s",
                                                  m->name, m->needs, r.err);
          g_test_skip (why);
          run_result_clear (&r);
          return;
        }
      assert_status (&r, 0, "symonnx run");
      run_result_clear (&r);
      g_autofree char *actual = in_dir (outdir, "output.npy");
      python_compare (expected, actual);

      /* The guide's one-command form agrees. */
      r = run ((const char *[]) { "symonnx", "verify", trace, "--weights", weights, "--opset", opset,
                                  "--input", input, "--expected", expected, NULL });
      assert_status (&r, 0, "symonnx verify");
      g_assert_nonnull (strstr (r.out, "PASS: 1 of 1 output within rtol 0.001, atol 1e-05"));
      run_result_clear (&r);

      /* The guide's C sample does the same check with the library. */
      if (strcmp (m->name, "superres") == 0)
        {
          r = run ((const char *[]) { g_getenv ("SYMONNX_GUIDE_VERIFY"), model,
                                      (char *) names->pdata[0], input, expected, NULL });
          assert_status (&r, 0, "guide-verify");
          g_assert_nonnull (strstr (r.out, "output: max abs"));
          run_result_clear (&r);
        }
    }

  /* The guide's dynamic axes: the batch dim becomes "batch" and the model
   * still computes PyTorch's output. */
  if (strcmp (m->name, "resnet18") == 0)
    {
      g_autofree char *model = in_dir (dir, "model-dyn.onnx");
      g_autofree char *outdir = in_dir (dir, "out-dyn");
      g_autofree char *bind = g_strdup_printf ("x.1=%s", input);
      RunResult r = run ((const char *[]) { "symonnx", "export", trace, "--weights", weights, "--opset", "13",
                                            "--dynamic-axes", "x.1:0=batch", "--dynamic-axes", "output:0=batch",
                                            "-o", model, NULL });   /* repeatable: both apply */
      assert_status (&r, 0, "export with dynamic axes");
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "print", model, NULL });
      assert_status (&r, 0, "print");
      g_assert_nonnull (strstr (r.out, "%x.1 : Float(batch, 3, 64, 64)"));
      g_assert_nonnull (strstr (r.out, "%output : Float(batch, "));
      run_result_clear (&r);
      r = run ((const char *[]) { python, check, "check", model, NULL });
      assert_status (&r, 0, "onnx.checker");
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "run", model, "--input", bind, "--output-dir", outdir, NULL });
      assert_status (&r, 0, "run");
      run_result_clear (&r);
      g_autofree char *actual = in_dir (outdir, "output.npy");
      python_compare (expected, actual);
    }
}

/* ONNX Runtime on the files test_seed_model wrote (it runs first). */
static void
test_seed_model_ort (gconstpointer data)
{
  const SeedModel *m = data;
  const char *modules = g_getenv ("SYMONNX_ORT_MODULES");
  g_autofree char *ort_pkg = modules ? g_build_filename (modules, "onnxruntime-node", NULL) : NULL;
  if (ort_pkg == NULL || !g_file_test (ort_pkg, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("onnxruntime-node is not installed: run tests/e2e/install-ort.sh BUILD_DIR/ort");
      return;
    }
  g_autofree char *node = g_find_program_in_path ("node");
  if (node == NULL)
    {
      g_test_skip ("node is not installed");
      return;
    }
  g_autofree char *dir = g_build_filename (tmp_root, m->name, NULL);
  g_autofree char *expected = in_dir (dir, "expected_0.npy");
  g_autofree char *input = in_dir (dir, "input_0.npy");
  g_autofree char *js = script ("tests/e2e/ort-run.js");
  g_autofree char *node_path = g_strdup_printf ("NODE_PATH=%s", modules);
  guint ran = 0;
  for (guint k = 0; k < G_N_ELEMENTS (opsets); k++)
    {
      g_autofree char *base = g_strdup_printf ("model-%d.onnx", opsets[k]);
      g_autofree char *model = in_dir (dir, base);
      g_autofree char *outdir_base = g_strdup_printf ("out-%d", opsets[k]);
      g_autofree char *outdir = in_dir (dir, outdir_base);
      if (!g_file_test (model, G_FILE_TEST_EXISTS))
        continue;   /* test_seed_model skipped this one */
      g_autoptr (GPtrArray) names = model_input_names (model);
      g_autofree char *bind = g_strdup_printf ("%s=%s", (char *) names->pdata[0], input);
      RunResult r = run_env ((const char *[]) { node, js, model, outdir, bind, NULL },
                             (const char *[]) { node_path, NULL });
      assert_status (&r, 0, "ort-run.js");
      run_result_clear (&r);
      g_autofree char *actual = in_dir (outdir, "ort_0.npy");
      python_compare (expected, actual);
      ran++;
    }
  if (ran == 0)
    g_test_skip ("no model was exported (see the export test's skip reason)");
}

/* ---- the seed tutorial's MyModule: a PythonOp through a plugin ------------ */

static void
test_mymodule_bundled (void)
{
  g_autofree char *trace = script ("examples/mymodule.trace");
  g_autofree char *x = script ("examples/mymodule-x.npy");
  g_autofree char *y = script ("examples/mymodule-y.npy");
  g_autofree char *exp = script ("examples/mymodule-expected.npy");
  g_autofree char *bx = g_strdup_printf ("x.1=%s", x);
  g_autofree char *by = g_strdup_printf ("y=%s", y);
  const char *plugin = g_getenv ("SYMONNX_MYMODULE_PLUGIN");

  /* Without the plugin: the Function is named, and how to supply it. */
  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--input", by,
                                        "--expected", exp, NULL });
  assert_status (&r, 4, "verify without the plugin");
  assert_one_line_error (&r, "Couldn't export Python operator MyFunction");
  g_assert_nonnull (strstr (r.err, "\"prim::PythonOp::MyFunction\""));
  g_assert_nonnull (strstr (r.err, "--plugin"));
  run_result_clear (&r);

  for (guint k = 0; k < G_N_ELEMENTS (opsets); k++)
    {
      g_autofree char *opset = g_strdup_printf ("%d", opsets[k]);
      g_autofree char *model = g_build_filename (tmp_root, "mymodule-bundled.onnx", NULL);
      r = run ((const char *[]) { "symonnx", "verify", trace, "--plugin", plugin, "--opset", opset,
                                  "--input", bx, "--input", by, "--expected", exp, "-o", model, NULL });
      assert_status (&r, 0, "verify with the plugin");
      g_assert_nonnull (strstr (r.out, "PASS: 1 of 1 output"));
      run_result_clear (&r);
      /* The export holds the symbolic's two ATen nodes, run by our executor. */
      g_autoptr (GError) error = NULL;
      g_autoptr (Graph) g = onnxio_load (model, &error);
      g_assert_no_error (error);
      guint aten = 0;
      for (GraphNode *n = graph_first_node (g); n; n = graph_node_next (n))
        if (graph_node_is (n, GRAPH_KIND_ATEN))
          {
            const char *op;
            gsize len;
            g_assert_true (graph_node_get_s (n, "operator", &op, &len));
            g_assert_cmpstr (op, ==, aten == 0 ? "mul" : "add");
            aten++;
          }
      g_assert_cmpuint (aten, ==, 2);
    }
}

/* The same from PyTorch at test time: its MyModule, traced now, against its
 * own output. */
static void
test_mymodule_torch (void)
{
  g_autofree char *dir = torch2trace ("mymodule", (const char *[]) { "--model", "mymodule", NULL });
  g_autofree char *trace = in_dir (dir, "model.trace");
  g_autofree char *x = in_dir (dir, "input_0.npy");
  g_autofree char *y = in_dir (dir, "input_1.npy");
  g_autofree char *exp = in_dir (dir, "expected_0.npy");
  g_autofree char *model = in_dir (dir, "model.onnx");
  g_autofree char *outdir = in_dir (dir, "out");
  g_autofree char *bx = g_strdup_printf ("x.1=%s", x);
  g_autofree char *by = g_strdup_printf ("y=%s", y);
  const char *plugin = g_getenv ("SYMONNX_MYMODULE_PLUGIN");
  g_autofree char *check = script ("tests/e2e/e2e_check.py");

  RunResult r = run ((const char *[]) { "symonnx", "export", trace, "--plugin", plugin, "-o", model, NULL });
  assert_status (&r, 0, "export");
  run_result_clear (&r);
  r = run ((const char *[]) { python, check, "check", model, NULL });
  assert_status (&r, 0, "onnx.checker");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "run", model, "--input", bx, "--input", by, "-o", outdir, NULL });
  assert_status (&r, 0, "run");
  run_result_clear (&r);
  g_autofree char *actual = in_dir (outdir, "output.npy");
  python_compare (exp, actual);
  r = run ((const char *[]) { "symonnx", "verify", trace, "--plugin", plugin, "--input", x, "--input", y,
                              "--expected", exp, NULL });
  assert_status (&r, 0, "verify");
  run_result_clear (&r);
}

/* doc/guide.md's symbolic functions: elu with alpha_f, pow with exponent_f
 * and ones with type_s through graph_at, for two PythonOps. */
static void
test_guide_symbolics (void)
{
  RunResult r = run ((const char *[]) { g_getenv ("SYMONNX_GUIDE_SYMBOLICS"), NULL });
  assert_status (&r, 0, "guide-symbolics");
  g_assert_nonnull (strstr (r.out, " = onnx::Elu[alpha=0.5](%x)\n"));
  g_assert_nonnull (strstr (r.out, "org.pytorch.aten::ATen[exponent=2., operator=\"pow\", overload_name=\"\"](%/Elu_output_0)\n"));
  g_assert_nonnull (strstr (r.out, "org.pytorch.aten::ATen[operator=\"ones\", overload_name=\"\", size=[2, 4], type=\"float\"]()\n"));
  g_assert_nonnull (strstr (r.out, "%output : Float(2, 4) = onnx::Add("));
  run_result_clear (&r);
}

/* The guide's verbose print of the exported MyModule, line for line. */
static void
test_mymodule_verbose (void)
{
  g_autofree char *trace = script ("examples/mymodule.trace");
  g_autofree char *model = g_build_filename (tmp_root, "mymodule-v.onnx", NULL);
  RunResult r = run ((const char *[]) { "symonnx", "export", trace, "--plugin",
                                        g_getenv ("SYMONNX_MYMODULE_PLUGIN"), "-v", "-o", model, NULL });
  assert_status (&r, 0, "export -v");
  g_autofree char *guide = script ("doc/guide.md");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (guide, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      {
        g_autofree char *line = g_strconcat (lines[i], "\n", NULL);
        if (strstr (text, line) == NULL)
          g_error ("doc/guide.md lacks the verbose line: %s", lines[i]);
        n++;
      }
  g_assert_cmpuint (n, ==, 6);
  run_result_clear (&r);
}

/* ---- verify on its own ---------------------------------------------------- */

static char *small_dir;

static const char *
small (void)
{
  if (small_dir == NULL)
    {
      g_autofree char *module = script ("tests/e2e/small_model.py");
      g_autofree char *spec = g_strdup_printf ("%s:Small", module);
      small_dir = torch2trace ("small", (const char *[]) { "--module", spec, "--input", "2,5",
                                                           "--input", "2,5", NULL });
    }
  return small_dir;
}

/* No --expected: the reference is the executor's run of the trace itself;
 * PyTorch's output agrees with both. */
static void
test_verify_trace_reference (void)
{
  g_autofree char *trace = in_dir (small (), "model.trace");
  g_autofree char *x = in_dir (small (), "input_0.npy");
  g_autofree char *y = in_dir (small (), "input_1.npy");
  g_autofree char *exp = in_dir (small (), "expected_0.npy");
  for (guint k = 0; k < G_N_ELEMENTS (opsets); k++)
    {
      g_autofree char *opset = g_strdup_printf ("%d", opsets[k]);
      RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "--opset", opset,
                                            "--input", x, "--input", y, NULL });
      assert_status (&r, 0, "verify against the trace");
      g_assert_nonnull (strstr (r.out, "of the executor's run of the trace's aten nodes"));
      g_assert_nonnull (strstr (r.out, "max abs err"));
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "verify", trace, "--opset", opset, "--input", x,
                                  "--input", y, "--expected", exp, NULL });
      assert_status (&r, 0, "verify against PyTorch");
      run_result_clear (&r);      /* Every aten op as an ATen node, run by the executor's ATen kernels. */
      r = run ((const char *[]) { "symonnx", "verify", trace, "--mode", "aten", "--opset", opset,
                                  "--input", x, "--input", y, "--expected", exp, NULL });
      assert_status (&r, 0, "verify --mode aten");
      g_assert_nonnull (strstr (r.out, "mode ONNX_ATEN; PASS"));
      run_result_clear (&r);
    }
  /* A trace the executor cannot run: the error says to give --expected. */
  g_autofree char *mm = script ("examples/mymodule.trace");
  g_autofree char *mx = script ("examples/mymodule-x.npy");
  g_autofree char *my = script ("examples/mymodule-y.npy");
  RunResult r = run ((const char *[]) { "symonnx", "verify", mm, "--plugin",
                                        g_getenv ("SYMONNX_MYMODULE_PLUGIN"), "--input", mx,
                                        "--input", my, NULL });
  assert_status (&r, 4, "verify of an unrunnable trace");
  assert_one_line_error (&r, "give --expected FILE for each output");
  g_assert_nonnull (strstr (r.err, "prim::PythonOp"));
  run_result_clear (&r);
}

static void
test_verify_errors (void)
{
  g_autofree char *trace = in_dir (small (), "model.trace");
  g_autofree char *x = in_dir (small (), "input_0.npy");
  g_autofree char *y = in_dir (small (), "input_1.npy");
  g_autofree char *exp = in_dir (small (), "expected_0.npy");
  g_autofree char *bx = g_strdup_printf ("x=%s", x);
  g_autofree char *by = g_strdup_printf ("y=%s", y);

  /* Past tolerance: y's values are not the output; exit 1 with the table. */
  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--input", by,
                                        "--expected", y, NULL });
  assert_status (&r, 1, "wrong expected values");
  g_assert_nonnull (strstr (r.out, "FAIL: 0 of 1 output"));
  g_assert_nonnull (strstr (r.out, "/10 "));
  g_assert_cmpstr (r.err, ==, "");
  run_result_clear (&r);

  /* The same comparison within a loose tolerance passes: every output
   * lies in [-3, 1] and every y value of seed 0 in [-3, 3]. */
  r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--input", by,
                              "--expected", y, "--atol", "10", NULL });
  assert_status (&r, 0, "wrong expected values, loose tolerance");
  g_assert_nonnull (strstr (r.out, "PASS: 1 of 1 output within rtol 0.001, atol 10 "));
  run_result_clear (&r);

  r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--expected", exp, NULL });
  assert_status (&r, 2, "missing input");
  assert_one_line_error (&r, "missing --input y=FILE for the graph input 'y'");
  run_result_clear (&r);

  r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--input", "z=/nonexistent.npy",
                              "--expected", exp, NULL });
  assert_status (&r, 2, "unknown input name");
  assert_one_line_error (&r, "the graph has no input named 'z'");
  run_result_clear (&r);

  r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--input", "y=/nonexistent/y.npy",
                              "--expected", exp, NULL });
  assert_status (&r, 3, "unreadable input");
  assert_one_line_error (&r, "/nonexistent/y.npy");
  run_result_clear (&r);

  r = run ((const char *[]) { "symonnx", "verify", "/nonexistent/model.trace", "--input", bx, NULL });
  assert_status (&r, 3, "unreadable model");
  assert_one_line_error (&r, "/nonexistent/model.trace");
  run_result_clear (&r);

  /* A 3x4 tensor for a 2x5 input. */
  g_autofree char *wrong = script ("examples/mymodule-x.npy");
  g_autofree char *bwrong = g_strdup_printf ("y=%s", wrong);
  r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--input", bwrong,
                              "--expected", exp, NULL });
  assert_status (&r, 4, "wrong input shape");
  assert_one_line_error (&r, "'y'");
  run_result_clear (&r);

  r = run ((const char *[]) { "symonnx", "verify", trace, "--input", bx, "--input", by,
                              "--expected", exp, "--expected", exp, NULL });
  assert_status (&r, 2, "two expected files for one output");
  assert_one_line_error (&r, "2 --expected files for 1 graph output");
  run_result_clear (&r);

  /* A model file: it needs --expected, and export options make no sense. */
  g_autofree char *model = g_build_filename (tmp_root, "small.onnx", NULL);
  r = run ((const char *[]) { "symonnx", "export", trace, "-o", model, NULL });
  assert_status (&r, 0, "export");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "verify", model, "--input", bx, "--input", by, NULL });
  assert_status (&r, 2, "model without --expected");
  assert_one_line_error (&r, "a model file needs --expected FILE for each of its 1 output");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "verify", model, "--input", bx, "--input", by,
                              "--expected", exp, NULL });
  assert_status (&r, 0, "model with --expected");
  g_assert_nonnull (strstr (r.out, "PASS: 1 of 1 output within rtol 0.001, atol 1e-05 of the expected files"));
  g_assert_null (strstr (r.out, "exported at opset"));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "verify", model, "--opset", "9", "--mode", "aten",
                              "--input", bx, "--input", by, "--expected", exp, "--weights", x, NULL });
  assert_status (&r, 2, "export options on a model");
  assert_one_line_error (&r, "is not a trace");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "verify", trace, "--mode", "bogus", "--input", bx, NULL });
  assert_status (&r, 2, "bad mode");
  assert_one_line_error (&r, "unknown --mode 'bogus'");
  run_result_clear (&r);
}

static void
rm_rf (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d && (name = g_dir_read_name (d)))
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          rm_rf (child);
        }
    }
  g_remove (path);
}

/* `symonnx verify TRACE -w W --input FILE` WITHOUT --expected: the
 * executor runs the trace's aten:: nodes (prim::GetAttr chains read from
 * the weights, tensor lists spliced) as the reference for the exported
 * model, and exits 0.  So that the check is not only us against us, the
 * trace run's outputs (--save-reference) are compared with PyTorch's
 * (torch2trace's expected_0.npy) by numpy.allclose, rtol 1e-3, atol 1e-5.
 * The larger seed models (alexnet, densenet121, inception_v3, resnet50,
 * vgg16) pass the same way but take too long to trace here. */
static void
test_verify_without_expected (gconstpointer data)
{
  const SeedModel *m = data;
  g_auto (SeedFiles) f = { 0 };
  seed_files (m, &f);
  const char *dir = f.dir, *trace = f.trace, *weights = f.weights, *input = f.input,
             *expected = f.expected;
  g_autofree char *refdir = in_dir (dir, "reference");
  g_autofree char *reference = in_dir (refdir, "reference_0.npy");

  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--input", input,
                                        "--save-reference", refdir, NULL });
  assert_status (&r, 0, "symonnx verify without --expected");
  g_assert_nonnull (strstr (r.out, "PASS: 1 of 1 output within rtol 0.001, atol 1e-05 of the "
                                   "executor's run of the trace's aten nodes"));
  run_result_clear (&r);

  /* The trace run is PyTorch's result. */
  g_autofree char *check = script ("tests/e2e/e2e_check.py");
  r = run ((const char *[]) { python, check, "compare", E2E_RTOL, E2E_ATOL, expected, reference,
                              NULL });
  assert_status (&r, 0, "trace run against PyTorch (e2e_check.py compare)");
  g_test_message ("%s", r.out);
  run_result_clear (&r);
}

/* `symonnx export --mode aten`: every aten op becomes an ATen node, which
 * no stock runtime runs; verify runs the model in our executor (its ATen
 * kernels) and compares with PyTorch's outputs, rtol 1e-3, atol 1e-5. */
static void
test_aten_mode (gconstpointer data)
{
  const SeedModel *m = data;
  g_auto (SeedFiles) f = { 0 };
  seed_files (m, &f);
  const char *dir = f.dir, *trace = f.trace, *weights = f.weights, *input = f.input,
             *expected = f.expected;
  g_autofree char *model = in_dir (dir, "model-aten.onnx");
  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--mode", "aten",
                                        "--input", input, "--expected", expected, "-o", model,
                                        NULL });
  assert_status (&r, 0, "symonnx verify --mode aten");
  g_assert_nonnull (strstr (r.out, "mode ONNX_ATEN; PASS"));
  run_result_clear (&r);
  /* The model really is ATen nodes. */
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = onnxio_load (model, &error);
  g_assert_no_error (error);
  guint aten = 0;
  graph_foreach_node (g, n)
    aten += graph_node_is (n, GRAPH_KIND_ATEN);
  g_test_message ("%s: %u ATen nodes of %u", m->name, aten, graph_n_nodes (g));
  g_assert_cmpuint (aten, >, 0);
  /* aten-fallback too, and both without --expected: the trace's own run
   * is the reference, and --localize finds every node matching. */
  static const char *const modes[] = { "aten", "aten-fallback" };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    {
      r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--mode", modes[k],
                                  "--input", input, "--expected", expected, NULL });
      assert_status (&r, 0, "symonnx verify --mode (PyTorch's outputs)");
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--mode", modes[k],
                                  "--input", input, "--localize", NULL });
      assert_status (&r, 0, "symonnx verify --mode --localize (the trace's run)");
      g_assert_nonnull (strstr (r.out, "of the executor's run of the trace's aten nodes"));
      g_assert_nonnull (strstr (r.out, "localize: all "));
      run_result_clear (&r);
    }
}

/* Issue 13's small model (tests/e2e/issue13_model.py): ops that torch.onnx
 * 1.13 exports only with ATEN_FALLBACK.  symonnx exports it in ONNX mode
 * from opset 16; aten and aten-fallback exports run in the executor and
 * match PyTorch, with and without --expected. */
static void
test_issue13_model (void)
{
  g_autofree char *module = script ("tests/e2e/issue13_model.py");
  g_autofree char *spec = g_strdup_printf ("%s:Issue13", module);
  g_autofree char *dir = torch2trace ("issue13", (const char *[]) { "--module", spec, "--input",
                                                                    "2,3,10,14", NULL });
  g_autofree char *trace = in_dir (dir, "model.trace");
  g_autofree char *weights = in_dir (dir, "weights.safetensors");
  g_autofree char *input = in_dir (dir, "input_0.npy");
  g_autofree char *e0 = in_dir (dir, "expected_0.npy");
  g_autofree char *e1 = in_dir (dir, "expected_1.npy");
  g_autofree char *e2 = in_dir (dir, "expected_2.npy");
  /* ONNX mode: below 16 only grid_sampler is left (GridSample is opset 16);
   * from 16 the whole model exports as standard ONNX (the uneven adaptive
   * poolings, affine_grid, atan2, cumprod, frac and trunc as symonnx writes
   * them where torch cannot) and matches PyTorch. */
  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--input", input,
                                        "--opset", "13", NULL });
  assert_status (&r, 4, "verify in ONNX mode at opset 13");
  g_assert_nonnull (strstr (r.err, "aten::grid_sampler"));
  g_assert_nonnull (strstr (r.err, "supported from opset 16"));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--input", input, "--opset",
                              "17", "-e", e0, "-e", e1, "-e", e2, NULL });
  assert_status (&r, 0, "verify in ONNX mode at opset 17");
  g_assert_nonnull (strstr (r.out, "mode ONNX; PASS: 3 of 3 outputs"));
  run_result_clear (&r);
  static const char *const modes[] = { "aten", "aten-fallback" };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    {
      r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--mode", modes[k],
                                  "--input", input, "-e", e0, "-e", e1, "-e", e2, NULL });
      assert_status (&r, 0, "verify the issue's model against PyTorch");
      g_assert_nonnull (strstr (r.out, "PASS: 3 of 3 outputs"));
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--mode", modes[k],
                                  "--input", input, "--all", NULL });
      assert_status (&r, 0, "verify the issue's model against its trace");
      for (guint i = 0; i < 8; i++)
        {
          static const char *const ops[] = { "aten::adaptive_avg_pool2d", "aten::adaptive_max_pool2d",
                                             "aten::affine_grid_generator", "aten::grid_sampler",
                                             "aten::atan2", "aten::cumprod", "aten::frac",
                                             "aten::trunc" };
          g_assert_nonnull (strstr (r.out, ops[i]));
        }
      g_assert_null (strstr (r.out, "DIVERGES"));
      g_assert_nonnull (strstr (r.out, "localize: all "));
      run_result_clear (&r);
    }
}

/* The argument forms of tests/e2e/aten_forms_model.py (str arguments,
 * chunk + ListUnpack, a Tensor?[] index, swapaxes, std with correction,
 * clamp with tensor bounds, repeat_interleave with a tensor, a batch_first
 * GRU): aten and aten-fallback exports match PyTorch, and the trace's own
 * run (no --expected) matches them node by node. */
static void
test_aten_forms_model (void)
{
  g_autofree char *module = script ("tests/e2e/aten_forms_model.py");
  g_autofree char *spec = g_strdup_printf ("%s:AtenForms", module);
  g_autofree char *dir = torch2trace ("aten-forms", (const char *[]) { "--module", spec, "--input",
                                                                       "2,4,8", NULL });
  g_autofree char *trace = in_dir (dir, "model.trace");
  g_autofree char *weights = in_dir (dir, "weights.safetensors");
  g_autofree char *input = in_dir (dir, "input_0.npy");
  static const char *const modes[] = { "aten", "aten-fallback" };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      for (const char *const *a = (const char *[]) { "symonnx", "verify", trace, "-w", weights, "--mode",
                                                      modes[k], "--input", input, NULL }; *a; a++)
        g_ptr_array_add (argv, g_strdup (*a));
      for (guint i = 0; i < 7; i++)
        {
          g_ptr_array_add (argv, g_strdup ("-e"));
          g_ptr_array_add (argv, g_strdup_printf ("%s/expected_%u.npy", dir, i));
        }
      g_ptr_array_add (argv, NULL);
      RunResult r = run ((const char *const *) argv->pdata);
      assert_status (&r, 0, "verify the forms model against PyTorch");
      g_assert_nonnull (strstr (r.out, "PASS: 7 of 7 outputs"));
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--mode", modes[k],
                                  "--input", input, "--all", NULL });
      assert_status (&r, 0, "verify the forms model against its trace");
      static const char *const ops[] = { "aten::chunk", "aten::swapaxes", "aten::index", "aten::gelu",
                                         "aten::div", "aten::std", "aten::clamp", "aten::repeat_interleave",
                                         "aten::gru" };
      for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
        g_assert_nonnull (strstr (r.out, ops[i]));
      g_assert_null (strstr (r.out, "DIVERGES"));
      g_assert_nonnull (strstr (r.out, "localize: all "));
      run_result_clear (&r);
    }
}

/* symonnx info on a trace with its weights: the parameter count and bytes
 * are torch's own (state_dict of the same model), the inputs and the
 * histogram's conv count are the trace's. */
static void
test_info_superres (void)
{
  g_auto (SeedFiles) f = { 0 };
  seed_files (&seed_models[0], &f);   /* superres */
  g_assert_cmpstr (seed_models[0].name, ==, "superres");
  RunResult r = run ((const char *[]) { "symonnx", "info", f.trace, "--weights", f.weights, NULL });
  assert_status (&r, 0, "info");
  g_autofree char *tools = script ("tools");
  g_autofree char *quoted = g_shell_quote (tools);
  g_autofree char *code = g_strdup_printf (
    "import sys; sys.path.insert(0, %s)\n"
    "import torch_models\n"
    "sd = torch_models.MODELS['superres'][0]().state_dict()\n"
    "n = sum(v.numel() for v in sd.values())\n"
    "b = sum(v.numel() * v.element_size() for v in sd.values())\n"
    "print('parameters: %%d tensors, %%d elements, %%d bytes' %% (len(sd), n, b))\n",
    quoted);
  RunResult ref = run ((const char *[]) { python, "-c", code, NULL });
  assert_status (&ref, 0, "torch's state_dict sizes");
  g_strchomp (ref.out);
  if (strstr (r.out, ref.out) == NULL)
    g_error ("symonnx info says\n%s\nbut torch says %s", r.out, ref.out);
  g_assert_nonnull (strstr (r.out, "inputs:     x "));
  g_assert_nonnull (strstr (r.out, "       4  aten::_convolution\n"));
  run_result_clear (&r);
  run_result_clear (&ref);
}

/* ops --missing on a CNN: with --weights every op exports (no bogus
 * _convolution failure); without them the convolution is undecided, not
 * failing.  A Function without a symbolic is named; its plugin clears it. */
static void
test_ops_missing (void)
{
  g_auto (SeedFiles) f = { 0 };
  seed_files (&seed_models[0], &f);   /* superres */
  RunResult r = run ((const char *[]) { "symonnx", "ops", "--missing", f.trace, "--weights",
                                        f.weights, NULL });
  assert_status (&r, 0, "ops --missing --weights");
  g_assert_true (g_str_has_prefix (r.out, "every operator of "));
  g_assert_cmpstr (r.err, ==, "");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "ops", "--missing", f.trace, NULL });
  assert_status (&r, 0, "ops --missing without weights");
  g_assert_nonnull (strstr (r.out, "aten::_convolution\t(undecided: its symbolic needs the weights' shapes; give --weights)\n"));
  g_assert_null (strstr (r.out, "declines"));
  run_result_clear (&r);
  g_autofree char *mm = script ("examples/mymodule.trace");
  r = run ((const char *[]) { "symonnx", "ops", "--missing", mm, NULL });
  assert_status (&r, 1, "ops --missing on MyModule");
  g_assert_true (g_str_has_prefix (r.out, "prim::PythonOp::MyFunction\t"));
  g_assert_nonnull (strstr (r.err, "Couldn't export Python operator MyFunction"));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "ops", "--missing", mm, "--plugin",
                              g_getenv ("SYMONNX_MYMODULE_PLUGIN"), NULL });
  assert_status (&r, 0, "ops --missing with the plugin");
  run_result_clear (&r);
}

/* An autograd Function with scalar arguments and no symbolic is inlined
 * from its recorded body, as torch 1.13 does; a registered symbolic wins,
 * and reads the scalars with sym_parse_args.  Both match PyTorch, pass
 * onnx.checker, and run in ONNX Runtime when it is installed. */
static void
test_function_inlined (void)
{
  g_autofree char *module = script ("tests/e2e/function_model.py");
  g_autofree char *spec = g_strdup_printf ("%s:Net", module);
  g_autofree char *dir = torch2trace ("function", (const char *[]) { "--module", spec, "--input",
                                                                    "2,3,8,8", NULL });
  g_autofree char *trace = in_dir (dir, "model.trace");
  g_autofree char *weights = in_dir (dir, "weights.safetensors");
  g_autofree char *x = in_dir (dir, "input_0.npy");
  g_autofree char *exp = in_dir (dir, "expected_0.npy");
  g_autofree char *inlined = in_dir (dir, "inlined.onnx");
  g_autofree char *custom = in_dir (dir, "custom.onnx");
  g_autofree char *check = script ("tests/e2e/e2e_check.py");
  const char *plugin = g_getenv ("SYMONNX_SCALED_SQUARE_PLUGIN");
  static const int fn_opsets[] = { 10, 11, 14 };   /* arange of a computed size: NonZero at 10, Range from 11 */
  for (guint k = 0; k < G_N_ELEMENTS (fn_opsets); k++)
    {
      g_autofree char *opset = g_strdup_printf ("%d", fn_opsets[k]);
      RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "--weights", weights,
                                            "--opset", opset, "--input", x, "--expected", exp,
                                            "-o", inlined, NULL });
      assert_status (&r, 0, "verify, the Function inlined");
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "print", inlined, NULL });
      g_assert_null (strstr (r.out, "PythonOp"));
      g_assert_null (strstr (r.out, "onnx::Pow"));
      g_assert_nonnull (strstr (r.out, "onnx::ReduceSum"));
      g_assert_nonnull (strstr (r.out, fn_opsets[k] >= 11 ? "onnx::Range" : "onnx::NonZero"));
      run_result_clear (&r);
      r = run ((const char *[]) { python, check, "check", inlined, NULL });
      assert_status (&r, 0, "onnx.checker on the inlined export");
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "verify", trace, "--weights", weights, "--plugin",
                                  plugin, "--opset", opset, "--input", x, "--expected", exp,
                                  "-o", custom, NULL });
      assert_status (&r, 0, "verify with the Function's symbolic");
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "print", custom, NULL });
      g_assert_nonnull (strstr (r.out, "onnx::Pow"));
      run_result_clear (&r);
    }
  /* what ops --missing says: nothing is missing at 14, nor at 10 (arange
   * of a computed size: NonZero before Range); a call a symbolic declines
   * is listed (a squeeze of a run-time size read by another node) */
  RunResult r = run ((const char *[]) { "symonnx", "ops", "--missing", trace, "--weights",
                                        weights, NULL });
  assert_status (&r, 0, "ops --missing");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "ops", "--missing", trace, "--weights", weights,
                              "--opset", "10", NULL });
  assert_status (&r, 0, "ops --missing --opset 10");
  run_result_clear (&r);
  g_autofree char *declined = test_source_path ("tests/fixtures/wrong-results/squeeze_size_from_data_read.trace");
  r = run ((const char *[]) { "symonnx", "ops", "--missing", declined, "--opset", "13", NULL });
  assert_status (&r, 1, "ops --missing of a declined call");
  g_assert_true (g_str_has_prefix (r.out, "aten::squeeze\t(the symbolic declines this call)\n"));
  g_assert_nonnull (strstr (r.err, "read by other nodes"));
  run_result_clear (&r);
}

/* The Python package (python/symonnx) through tests/e2e/python_api.py,
 * on the source tree's package and the build's library.  Skipped in a
 * sanitizer build: python3 cannot load an ASan-instrumented library. */
static void
test_python_api (gconstpointer data)
{
  const char *what = data;
  if (g_getenv ("SYMONNX_SANITIZED"))
    {
      g_test_skip ("libsymonnx is built with sanitizers; python3 cannot load it");
      return;
    }
  g_autofree char *api = script ("tests/e2e/python_api.py");
  g_autofree char *pkg = script ("python");
  g_autofree char *lib = g_build_filename (g_getenv ("SYMONNX_BUILD_ROOT"), "libsymonnx.so", NULL);
  g_autofree char *dir = g_build_filename (tmp_root, "python", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_autofree char *e1 = g_strdup_printf ("PYTHONPATH=%s", pkg);
  g_autofree char *e2 = g_strdup_printf ("SYMONNX_LIBRARY=%s", lib);
  /* ort_files and qnnpack_add also run ONNX Runtime */
  const char *modules = g_getenv ("SYMONNX_ORT_MODULES");
  g_autofree char *ort_pkg = modules ? g_build_filename (modules, "onnxruntime-node", NULL) : NULL;
  g_autofree char *node = g_find_program_in_path ("node");
  gboolean needs_ort = strcmp (what, "ort_files") == 0 || strcmp (what, "qnnpack_add") == 0;
  if (needs_ort && (ort_pkg == NULL || !g_file_test (ort_pkg, G_FILE_TEST_IS_DIR) || node == NULL))
    {
      g_test_skip ("onnxruntime-node (or node) is not installed: run tests/e2e/install-ort.sh BUILD_DIR/ort");
      return;
    }
  g_autofree char *e3 = g_strdup_printf ("SYMONNX_ORT_MODULES=%s", modules ? modules : "");
  const char *const env[] = { e1, e2, e3, NULL };
  RunResult r = run_env ((const char *[]) { python, api, what, dir, NULL }, env);
  assert_status (&r, 0, what);
  g_autofree char *ok = g_strdup_printf ("%s: ok\n", what);
  g_assert_cmpstr (r.out, ==, ok);
  run_result_clear (&r);
}

/* Issue 14's class audit of dim arguments, its fast subset
 * (bench/probe-dim-args.py over every folder and opsets 9/13/17 is the
 * long run): every dim argument of the symbolic and trace fixtures, out of
 * range four ways, exported at opset 13 by this build's CLI (an ASan build
 * reports memory errors through it): each export must be refused, with no
 * crash or sanitizer report.  The dim arguments come from torch 1.13's own
 * schemas (torch._C._jit_get_all_schemas), not from symonnx. */
static void
test_probe_dim_args (void)
{
  g_autofree char *probe = script ("bench/probe-dim-args.py");
  g_autofree char *cli = g_build_filename (g_getenv ("SYMONNX_BUILD_ROOT"), "tools", "symonnx", NULL);
  g_autofree char *sym = script ("tests/fixtures/symbolic");
  g_autofree char *traces = script ("tests/fixtures/traces");
  g_autofree char *e1 = g_strdup_printf ("SYMONNX_CLI=%s", cli);
  const char *const env[] = { e1, NULL };
  RunResult r = run_env ((const char *[]) { python, probe, "--opsets", "13", "--jobs", "2", "--traces", sym, traces,
                                            NULL }, env);
  g_test_message ("%s", r.out);
  assert_status (&r, 0, "probe-dim-args.py");
  g_assert_nonnull (strstr (r.out, "exports: refused"));
  run_result_clear (&r);
}

/* The real-model corpus's fast subset (bench/torchvision-corpus.py runs
 * every torchvision builder): each model exported by symonnx's Python entry
 * point and run in the executor must match PyTorch.  alexnet at 64x64 is
 * one torch.onnx.export refuses (its 6x6 adaptive pooling of a 1x1 map);
 * lraspp returns a dict; swin_t needs computed pads and slices and in-place
 * writes into slices; Faster R-CNN takes a list of images and returns a list
 * of dicts, and runs scripted code (prim::If), nms and roi_align. */
static void
test_corpus_subset (gconstpointer data)
{
  const char *models = data;
  if (g_getenv ("SYMONNX_SANITIZED"))
    {
      g_test_skip ("libsymonnx is built with sanitizers; python3 cannot load it");
      return;
    }
  g_autofree char *corpus = script ("bench/torchvision-corpus.py");
  g_autofree char *lib = g_build_filename (g_getenv ("SYMONNX_BUILD_ROOT"), "libsymonnx.so", NULL);
  g_autofree char *e1 = g_strdup_printf ("SYMONNX_LIBRARY=%s", lib);
  const char *const env[] = { e1, NULL };
  RunResult r = run_env ((const char *[]) { python, corpus, "--models", models, "--require-match",
                                            "--symonnx-only", "--timeout", "300", NULL }, env);
  g_test_message ("%s", r.out);
  assert_status (&r, 0, "the corpus subset");
  run_result_clear (&r);
}

/* A quantized model (tests/e2e/quantized_model.py, built as torchvision's
 * quantized builders are) through torch2trace, whose dump carries the packed
 * weights unpacked, to an export at opset 13 that runs in the executor to
 * PyTorch's output within one quantization step of it (1/256: the model
 * ends in a quantized hardsigmoid, whose output scale PyTorch fixes);
 * refused at opset 9, where ONNX has no QuantizeLinear. */
static void
test_quantized_model (void)
{
  g_autofree char *module = script ("tests/e2e/quantized_model.py");
  g_autofree char *spec = g_strdup_printf ("%s:QuantizedSmall", module);
  g_autofree char *dir = torch2trace ("quantized", (const char *[]) { "--module", spec, "--input",
                                                                      "1,3,12,12", NULL });
  g_autofree char *trace = in_dir (dir, "model.trace");
  g_autofree char *weights = in_dir (dir, "weights.safetensors");
  g_autofree char *input = in_dir (dir, "input_0.npy");
  g_autofree char *e0 = in_dir (dir, "expected_0.npy");
  g_autofree char *onnx = in_dir (dir, "q13.onnx");
  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--input", input,
                                        "-e", e0, "--opset", "13", "--rtol", "0", "--atol",
                                        "0.0039063", "-o", onnx, NULL });
  assert_status (&r, 0, "verify the quantized model at opset 13");
  g_assert_nonnull (strstr (r.out, "PASS: 1 of 1 output"));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "print", onnx, NULL });
  assert_status (&r, 0, "print the quantized export");
  static const char *const ops[] = { "onnx::QuantizeLinear", "onnx::DequantizeLinear", "onnx::Conv",
                                     "onnx::Gemm", "onnx::HardSigmoid" };
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    g_assert_nonnull (strstr (r.out, ops[i]));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "export", trace, "-w", weights, "--opset", "9", "-o",
                              onnx, NULL });
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "aten::quantize_per_tensor at opset 9"));
  g_assert_nonnull (strstr (r.err, "supported from opset 10"));
  run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autoptr (GError) error = NULL;
  tmp_root = g_dir_make_tmp ("symonnx-e2e-XXXXXX", &error);
  g_assert_no_error (error);
  if (!g_file_test (python, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_message ("%s is missing", python);
      return 77;
    }
  g_test_add_func ("/e2e/mymodule/bundled-trace-plugin", test_mymodule_bundled);
  g_test_add_func ("/e2e/mymodule/torch", test_mymodule_torch);
  g_test_add_func ("/e2e/mymodule/verbose-print", test_mymodule_verbose);
  g_test_add_func ("/e2e/guide/symbolics", test_guide_symbolics);
  g_test_add_func ("/e2e/verify/trace-reference", test_verify_trace_reference);
  g_test_add_func ("/e2e/verify/errors", test_verify_errors);
  g_test_add_func ("/e2e/info/superres", test_info_superres);
  g_test_add_func ("/e2e/ops/missing", test_ops_missing);
  g_test_add_func ("/e2e/function/inlined-or-symbolic", test_function_inlined);
  g_test_add_func ("/e2e/probe-dim-args", test_probe_dim_args);
  g_test_add_data_func ("/e2e/python/signature", "signature", test_python_api);
  g_test_add_data_func ("/e2e/python/errors", "errors", test_python_api);
  g_test_add_data_func ("/e2e/python/function", "function", test_python_api);
  g_test_add_data_func ("/e2e/python/seeds", "seeds", test_python_api);
  g_test_add_data_func ("/e2e/python/transformer", "transformer", test_python_api);
  g_test_add_data_func ("/e2e/python/stateful", "stateful", test_python_api);
  g_test_add_data_func ("/e2e/python/scripted", "scripted", test_python_api);
  g_test_add_data_func ("/e2e/python/dynamic", "dynamic", test_python_api);
  g_test_add_data_func ("/e2e/python/ort-files", "ort_files", test_python_api);
  g_test_add_data_func ("/e2e/python/qnnpack-add", "qnnpack_add", test_python_api);
  g_test_add_func ("/e2e/verify/issue13-model", test_issue13_model);
  g_test_add_func ("/e2e/verify/quantized-model", test_quantized_model);
  g_test_add_data_func ("/e2e/corpus/quantized", "quantized_mobilenet_v2", test_corpus_subset);
  g_test_add_func ("/e2e/verify/aten-forms-model", test_aten_forms_model);
  g_test_add_data_func ("/e2e/corpus/classification", "alexnet,squeezenet1_1,mobilenet_v3_small",
                        test_corpus_subset);
  g_test_add_data_func ("/e2e/corpus/dict-and-swin", "lraspp_mobilenet_v3_large,swin_t", test_corpus_subset);
  g_test_add_data_func ("/e2e/corpus/detection", "fasterrcnn_mobilenet_v3_large_320_fpn", test_corpus_subset);
  for (guint i = 0; i < G_N_ELEMENTS (seed_models); i++)
    {
      g_autofree char *p = g_strdup_printf ("/e2e/models/%s", seed_models[i].name);
      g_test_add_data_func (p, &seed_models[i], test_seed_model);
      g_autofree char *q = g_strdup_printf ("/e2e/ort/%s", seed_models[i].name);
      g_test_add_data_func (q, &seed_models[i], test_seed_model_ort);
      g_autofree char *v = g_strdup_printf ("/e2e/verify-trace/%s", seed_models[i].name);
      g_test_add_data_func (v, &seed_models[i], test_verify_without_expected);
      g_autofree char *a = g_strdup_printf ("/e2e/aten-mode/%s", seed_models[i].name);
      g_test_add_data_func (a, &seed_models[i], test_aten_mode);
    }
  int rc = g_test_run ();
  rm_rf (tmp_root);
  g_free (tmp_root);
  g_free (small_dir);
  return rc;
}
