/* The symonnx CLI and the examples, run as a user runs them. */
#include "test-hostile.h"
#include "tests/common/test-util.h"
#include "tests/common/test-cli.h"
#include <glib/gstdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>

static char *
source_file (const char *rel)
{
  g_autofree char *path = test_source_path (rel);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
assert_one_line_error (const RunResult *r, const char *needle)
{
  g_assert_cmpstr (r->out, ==, "");
  g_assert_nonnull (strstr (r->err, needle));
  const char *nl = strchr (r->err, '\n');
  g_assert_nonnull (nl);
  g_assert_cmpstr (nl + 1, ==, "");
  g_assert_true (g_str_has_prefix (r->err, "symonnx"));
}

static void
test_cli_version_and_help (void)
{
  RunResult r = run ((const char *[]) { "symonnx", "--version", NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "symonnx "));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "--help", NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "print"));
  g_assert_nonnull (strstr (r.out, "Exit codes"));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "print", "--help", NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--dot"));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", NULL });
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
}

static void
test_cli_usage_errors (void)
{
  RunResult r = run ((const char *[]) { "symonnx", "frobnicate", NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "unknown command 'frobnicate'");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "print", "--no-such-option", "x", NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "--no-such-option");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "print", NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "expected exactly one FILE");
  run_result_clear (&r);
}

/* The main job's output is the bundled file itself: print is a fixed point. */
static void
test_print_mymodule (void)
{
  g_autofree char *path = test_source_path ("examples/mymodule.graph");
  g_autofree char *expected = source_file ("examples/mymodule.graph");
  RunResult r = run ((const char *[]) { "symonnx", "print", path, NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpstr (r.out, ==, expected);
  run_result_clear (&r);
}

/* OpenBLAS is opened only by commands that run a graph (runtime/blas.h):
 * the dynamic loader's own log (LD_DEBUG=files) says which files it loaded. */
static void
test_cli_blas_on_demand (void)
{
  const char *dir = "/usr/share/libonnx-testdata/data/node/test_matmul_2d";
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  g_autofree char *model = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *bind_a = g_strdup_printf ("a=%s/test_data_set_0/input_0.pb", dir);
  g_autofree char *bind_b = g_strdup_printf ("b=%s/test_data_set_0/input_1.pb", dir);
  g_autofree char *tmp = g_dir_make_tmp ("symonnx-blas-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (tmp, "copy.onnx", NULL);
  const char *const envp[] = { "LD_DEBUG=files", NULL };
  const char *const *no_blas[] = {
    (const char *[]) { "symonnx", "print", model, NULL },
    (const char *[]) { "symonnx", "check", model, NULL },
    (const char *[]) { "symonnx", "convert", model, copy, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (no_blas); i++)
    {
      RunResult r = run_env (no_blas[i], envp);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.err, "file=libglib-2.0"));   /* the log is there */
      g_assert_null (strstr (r.err, "openblas"));
      run_result_clear (&r);
    }
  RunResult r = run_env ((const char *[]) { "symonnx", "run", model, "--input", bind_a,
                                            "--input", bind_b, "--output-dir", tmp, NULL },
                         envp);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "file=libopenblas"));
  run_result_clear (&r);
  g_autofree char *out = g_build_filename (tmp, "c.npy", NULL);
  g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
  g_unlink (out);
  g_unlink (copy);
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

/* The C example builds the same graph the text file holds. */
static void
test_example_mymodule_c (void)
{
  g_autofree char *expected = source_file ("examples/mymodule.graph");
  RunResult r = run ((const char *[]) { g_getenv ("SYMONNX_EXAMPLE_MYMODULE"), NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, expected);
  run_result_clear (&r);
}

static void
test_print_dot (void)
{
  g_autofree char *path = test_source_path ("examples/mymodule.graph");
  RunResult r = run ((const char *[]) { "symonnx", "print", "--dot", path, NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "digraph"));
  g_assert_nonnull (strstr (r.out, "Relu"));
  g_assert_nonnull (strstr (r.out, "ATen"));
  run_result_clear (&r);
}

static void
test_print_bad_input (void)
{
  RunResult r = run ((const char *[]) { "symonnx", "print", "/nonexistent/x.trace", NULL });
  g_assert_cmpint (r.status, ==, 3);
  assert_one_line_error (&r, "/nonexistent/x.trace");
  run_result_clear (&r);

  g_autofree char *dir = g_dir_make_tmp ("symonnx-test-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.graph", NULL);
  g_assert_true (g_file_set_contents (bad, "graph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%z)\n  return (%y)\n", -1, NULL));
  r = run ((const char *[]) { "symonnx", "print", bad, NULL });
  g_assert_cmpint (r.status, ==, 3);
  g_autofree char *where = g_strdup_printf ("%s:2:", bad);
  assert_one_line_error (&r, where);
  run_result_clear (&r);
  g_unlink (bad);
  g_rmdir (dir);
}

#define TESTDATA "/usr/share/libonnx-testdata/data"

static gboolean
have_testdata (void)
{
  if (g_file_test (TESTDATA "/node/test_relu/model.onnx", G_FILE_TEST_EXISTS))
    return TRUE;
  g_test_skip ("libonnx-testdata is not installed");
  return FALSE;
}

/* ONNX's test_relu: input x is float [3, 4, 5], one Relu node. */
static void
test_print_onnx_model (void)
{
  if (!have_testdata ())
    return;
  RunResult r = run ((const char *[]) { "symonnx", "print", TESTDATA "/node/test_relu/model.onnx", NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "graph(%x : Float(3, 4, 5)):\n"));
  g_assert_nonnull (strstr (r.out, " = onnx::Relu(%x)\n"));
  run_result_clear (&r);
}

static char *
print_of (const char *path)
{
  RunResult r = run ((const char *[]) { "symonnx", "print", path, NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_free (r.err);
  return r.out;
}

static void
test_convert (void)
{
  if (!have_testdata ())
    return;
  const char *in = TESTDATA "/pytorch-converted/test_Conv2d/model.onnx";
  g_autofree char *dir = g_dir_make_tmp ("symonnx-convert-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "out.onnx", NULL);
  g_autofree char *data = g_build_filename (dir, "out.onnx.data", NULL);
  g_autofree char *printed_in = print_of (in);

  RunResult r = run ((const char *[]) { "symonnx", "convert", in, out, NULL });
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *printed_plain = print_of (out);
  g_assert_cmpstr (printed_plain, ==, printed_in);
  g_assert_false (g_file_test (data, G_FILE_TEST_EXISTS));

  /* every initializer (288 and 16 bytes) moves to out.onnx.data */
  r = run ((const char *[]) { "symonnx", "convert", "--external-data", "--size-threshold", "0", in, out, NULL });
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *printed_ext = print_of (out);
  g_assert_cmpstr (printed_ext, ==, printed_in);
  GStatBuf st;
  g_assert_cmpint (g_stat (data, &st), ==, 0);
  g_assert_cmpint (st.st_size, >=, 288 + 16);

  r = run ((const char *[]) { "symonnx", "convert", "--size-threshold", "5", in, out, NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "--external-data");
  run_result_clear (&r);

  r = run ((const char *[]) { "symonnx", "convert", in, "/nonexistent-dir/out.onnx", NULL });
  g_assert_cmpint (r.status, ==, 5);
  assert_one_line_error (&r, "/nonexistent-dir/out.onnx");
  run_result_clear (&r);

  /* a truncated model: exit 3, the file named, nothing written */
  g_autofree char *model = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (in, &model, &len, NULL));
  g_autofree char *bad = g_build_filename (dir, "truncated.onnx", NULL);
  g_autofree char *never = g_build_filename (dir, "never.onnx", NULL);
  g_assert_true (g_file_set_contents (bad, model, (gssize) len / 2, NULL));
  r = run ((const char *[]) { "symonnx", "convert", bad, never, NULL });
  g_assert_cmpint (r.status, ==, 3);
  assert_one_line_error (&r, bad);
  g_assert_false (g_file_test (never, G_FILE_TEST_EXISTS));
  run_result_clear (&r);

  /* a PyTorch trace is not ONNX: convert sends the user to export */
  g_autofree char *trace = test_source_path ("examples/mymodule.trace");
  r = run ((const char *[]) { "symonnx", "convert", trace, never, NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "use `symonnx export");
  g_assert_false (g_file_test (never, G_FILE_TEST_EXISTS));
  run_result_clear (&r);

  g_unlink (bad);
  g_unlink (data);
  g_unlink (out);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* doc/cli.md is generated from the option tables: it must be current. */
static void
test_cli_markdown_is_current (void)
{
  g_autofree char *expected = source_file ("doc/cli.md");
  RunResult r = run ((const char *[]) { "symonnx", "help", "--markdown", NULL });
  g_assert_cmpint (r.status, ==, 0);
  if (g_strcmp0 (r.out, expected) != 0)
    g_error ("doc/cli.md is out of date: regenerate it with "
             "`./build/tools/symonnx help --markdown > doc/cli.md`");
  run_result_clear (&r);
}

/* doc/aten-kernels.md is `symonnx ops --kernels --markdown`: it must be
 * current, and the plain listing agrees with it.  (That every name of
 * torch's registry either runs or says why is tools/op_coverage.py
 * --check's, in the symbolic suite: it needs torch.) */
static void
test_aten_kernels_doc_is_current (void)
{
  g_autofree char *expected = source_file ("doc/aten-kernels.md");
  RunResult r = run ((const char *[]) { "symonnx", "ops", "--kernels", "--markdown", NULL });
  g_assert_cmpint (r.status, ==, 0);
  if (g_strcmp0 (r.out, expected) != 0)
    g_error ("doc/aten-kernels.md is out of date: regenerate it with "
             "`./build/tools/symonnx ops --kernels --markdown > doc/aten-kernels.md`");
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "ops", "--kernels", NULL });
  g_assert_cmpint (r.status, ==, 0);
  /* The ops run; an op with a symbolic and no kernel is listed as such. */
  static const char *const ops[] = { "adaptive_avg_pool2d", "adaptive_max_pool2d", "affine_grid_generator",
                                     "grid_sampler", "atan2", "cumprod", "frac", "trunc" };
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autofree char *line = g_strdup_printf ("aten::%s\t", ops[i]);
      const char *at = strstr (r.out, line);
      g_assert_nonnull (at);
      const char *nl = strchr (at, '\n');
      g_autofree char *row = g_strndup (at, nl - at);
      g_assert_true (g_str_has_suffix (row, "\tkernel"));
    }
  /* The count on stderr is the listing's, over the operators `symonnx
   * ops` lists (the listing also shows in-place kernel names, whose
   * symbolic is their base operator's). */
  RunResult reg = run ((const char *[]) { "symonnx", "ops", NULL });
  g_assert_cmpint (reg.status, ==, 0);
  g_autoptr (GHashTable) registered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) reg_lines = g_strsplit (reg.out, "\n", -1);
  for (guint i = 0; reg_lines[i] && *reg_lines[i]; i++)
    if (g_str_has_prefix (reg_lines[i], "aten::"))
      g_hash_table_add (registered, g_strndup (reg_lines[i], strcspn (reg_lines[i], "\t")));
  run_result_clear (&reg);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  guint n_sym = 0, n_sym_kernel = 0, n_quantized = 0;
  for (guint i = 0; lines[i] && *lines[i]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      /* the kernels of quantized tensors (the trace run's) */
      if (g_str_has_prefix (f[0], "aten-quantized::") || g_str_has_prefix (f[0], "quantized::"))
        {
          g_assert_cmpuint (g_strv_length (f), ==, 3);
          g_assert_cmpstr (f[2], ==, "kernel");
          n_quantized++;
          continue;
        }
      /* A fourth field says why a name does not run. */
      g_assert_cmpuint (g_strv_length (f), >=, 3);
      g_assert_cmpuint (g_strv_length (f), <=, 4);
      g_assert_true (g_str_has_prefix (f[0], "aten::"));
      g_assert_true (strcmp (f[2], "kernel") == 0 || strcmp (f[2], "no kernel") == 0);
      if (f[3])
        {
          g_assert_cmpstr (f[2], ==, "no kernel");
          g_assert_cmpuint (strlen (f[3]), >, 10);
        }
      if (g_hash_table_contains (registered, f[0]))
        {
          g_assert_cmpstr (f[1], !=, "-");
          n_sym++;
          n_sym_kernel += strcmp (f[2], "kernel") == 0;
        }
    }
  g_assert_cmpuint (n_sym, ==, g_hash_table_size (registered));
  g_autofree char *count = g_strdup_printf ("%u of %u aten ops with a symbolic have an ATen kernel",
                                            n_sym_kernel, n_sym);
  g_assert_nonnull (strstr (r.err, count));
  g_autofree char *qcount = g_strdup_printf ("; %u quantized kernels", n_quantized);
  g_assert_nonnull (strstr (r.err, qcount));
  g_assert_nonnull (strstr (r.out, "\nquantized::conv2d\t-\tkernel\n"));
  g_assert_cmpuint (n_sym, >, 200);
  run_result_clear (&r);
}

static void
test_example_mutate (void)
{
  g_autofree char *expected = source_file ("examples/mutate.expected");
  RunResult r = run ((const char *[]) { g_getenv ("SYMONNX_EXAMPLE_MUTATE"), NULL });
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, expected);
  run_result_clear (&r);
}

/* doc/symbolic.md's registry calls, compiled and run: the custom elu gets
 * its alpha from the trace's constant, the custom op its user data, and
 * the custom domain its version in opset_import. */
static void
test_example_custom_symbolic (void)
{
  RunResult r = run ((const char *[]) { g_getenv ("SYMONNX_EXAMPLE_CUSTOM_SYMBOLIC"), NULL });
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "= onnx::Elu[alpha=0.5](%x)\n"));
  g_assert_nonnull (strstr (r.out, "= mylib::MyOp[tag=\"from-user-data\"]("));
  g_assert_nonnull (strstr (r.out, "opset_import mylib = 2\n"));
  run_result_clear (&r);
}

/* Every ```c block in README.md and doc/ (recursively) must appear verbatim in
 * a C file under examples/ or doc/examples/, which the build compiles and
 * these tests run: so documented code is tested code. */
static void
collect_c_sources (const char *dir, GString *all)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect_c_sources (path, all);
      else if (g_str_has_suffix (name, ".c"))
        {
          g_autofree char *text = NULL;
          g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
          g_string_append (all, text);
        }
    }
}

static void
check_doc_samples (const char *path, const char *all_sources, guint *count)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  const char *p = text;
  while ((p = strstr (p, "```c\n")))
    {
      p += 5;
      const char *end = strstr (p, "```");
      g_assert_nonnull (end);
      g_autofree char *block = g_strndup (p, (gsize) (end - p));
      if (strstr (all_sources, block) == NULL)
        g_error ("%s: this C sample is not in any compiled example:\n%s", path, block);
      (*count)++;
      p = end + 3;
    }
}

static void
collect_docs (const char *dir, GPtrArray *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          collect_docs (path, out);
          g_free (path);
        }
      else if (g_str_has_suffix (name, ".md"))
        g_ptr_array_add (out, path);
      else
        g_free (path);
    }
}

static void
test_doc_samples_are_compiled (void)
{
  g_autoptr (GString) all = g_string_new (NULL);
  g_autofree char *examples = test_source_path ("examples");
  g_autofree char *doc_examples = test_source_path ("doc/examples");
  collect_c_sources (examples, all);
  collect_c_sources (doc_examples, all);
  g_autoptr (GPtrArray) docs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (docs, test_source_path ("README.md"));
  g_autofree char *doc_dir = test_source_path ("doc");
  collect_docs (doc_dir, docs);
  guint count = 0;
  for (guint i = 0; i < docs->len; i++)
    check_doc_samples (docs->pdata[i], all->str, &count);
  g_assert_cmpuint (count, >=, 3);
}

/* Each command's usage line is its own, from --help and from `help CMD`;
 * `help` is listed; a bad --opset is a usage error (2). */
static void
test_cli_usage_lines (void)
{
  const char *cmds[] = { "print", "convert", "check", "export", "ops", "run", "test-suite",
                         "verify" };
  for (guint i = 0; i < G_N_ELEMENTS (cmds); i++)
    {
      g_autofree char *want = g_strdup_printf ("Usage:\n  symonnx %s [OPTION…]", cmds[i]);
      RunResult r = run ((const char *[]) { "symonnx", cmds[i], "--help", NULL });
      g_assert_cmpint (r.status, ==, 0);
      g_assert_true (g_str_has_prefix (r.out, want));
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "help", cmds[i], NULL });
      g_assert_cmpint (r.status, ==, 0);
      g_assert_true (g_str_has_prefix (r.out, want));
      run_result_clear (&r);
    }
  RunResult r = run ((const char *[]) { "symonnx", "--help", NULL });
  g_assert_nonnull (strstr (r.out, "\n  help "));
  run_result_clear (&r);
  r = run ((const char *[]) { "symonnx", "help", "frobnicate", NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "unknown command 'frobnicate'");
  run_result_clear (&r);
  g_autofree char *trace = test_source_path ("examples/mymodule.trace");
  const char *const *bad_opset[] = {
    (const char *[]) { "symonnx", "export", trace, "-o", "/nonexistent/x.onnx", "--opset", "99", NULL },
    (const char *[]) { "symonnx", "verify", trace, "--opset", "3", NULL },
    (const char *[]) { "symonnx", "ops", "--opset", "99", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad_opset); i++)
    {
      r = run (bad_opset[i]);
      g_assert_cmpint (r.status, ==, 2);
      assert_one_line_error (&r, "--opset");
      run_result_clear (&r);
    }
}

static char *
write_temp (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static guint
count_of (const char *hay, const char *needle)
{
  guint n = 0;
  for (const char *p = hay; (p = strstr (p, needle)); p += strlen (needle))
    n++;
  return n;
}

/* Several unconvertible ops: a header line, one line per op, the hint once. */
static void
test_export_failing_ops_lines (void)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-ops-XXXXXX", NULL);
  g_autofree char *trace = write_temp (dir, "m.trace",
                                       "graph(%x : Float(2, 3)):\n"
                                       "  %a : Float(2, 3) = aten::frobnicate(%x)\n"
                                       "  %b : Float(2, 3) = aten::gizmo(%x)\n"
                                       "  %c : Float(2, 3) = aten::add(%a, %b, %a)\n"
                                       "  return (%c)\n");
  g_autofree char *out = g_build_filename (dir, "m.onnx", NULL);
  RunResult r = run ((const char *[]) { "symonnx", "export", trace, "-o", out, NULL });
  g_assert_cmpint (r.status, ==, 4);
  g_auto (GStrv) lines = g_strsplit (r.err, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);   /* 4 lines and the final "" */
  g_assert_true (g_str_has_prefix (lines[0], "symonnx export: "));
  g_assert_nonnull (strstr (lines[0], "2 nodes could not be exported"));
  g_assert_nonnull (strstr (lines[1], "aten::frobnicate"));
  g_assert_nonnull (strstr (lines[2], "aten::gizmo"));
  g_assert_nonnull (strstr (lines[3], "--mode aten-fallback"));
  g_assert_cmpuint (count_of (r.err, "sym_register"), ==, 1);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  run_result_clear (&r);
  g_unlink (trace);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* --default-dtype: true division of integer tensors whose types scripted
 * code does not declare (the wrong-results case script_int_true_division,
 * float32 by PyTorch) divides in the type given; not a floating type, or
 * no type, is a usage error. */
static void
test_export_default_dtype (void)
{
  g_autofree char *trace = test_source_path ("tests/fixtures/wrong-results/script_int_true_division.trace");
  g_autofree char *x = test_source_path ("tests/fixtures/wrong-results/script_int_true_division.input_0.npy");
  g_autofree char *y = test_source_path ("tests/fixtures/wrong-results/script_int_true_division.input_1.npy");
  g_autofree char *dir = g_dir_make_tmp ("symonnx-default-dtype-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "m.onnx", NULL);
  g_autofree char *xin = g_strconcat ("x.1=", x, NULL);
  g_autofree char *yin = g_strconcat ("y.1=", y, NULL);
  static const char *const given[] = { NULL, "double", "float16" };
  static const char *const printed[] = { "float(4, 2, 4, 3)", "double(4, 2, 4, 3)", "float16(4, 2, 4, 3)" };
  for (guint i = 0; i < G_N_ELEMENTS (given); i++)
    {
      RunResult r = run ((const char *[]) { "symonnx", "export", trace, "-o", out, "--opset", "13",
                                            given[i] ? "--default-dtype" : NULL, given[i], NULL });
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "run", out, "--input", xin, "--input", yin, NULL });
      g_assert_cmpint (r.status, ==, 0);
      g_autofree char *line = g_strdup_printf ("output: %s", printed[i]);
      if (strstr (r.out, line) == NULL)
        g_error ("--default-dtype %s: expected '%s' in:\n%s", given[i] ? given[i] : "(none)", line, r.out);
      run_result_clear (&r);
      g_assert_cmpint (g_unlink (out), ==, 0);
    }
  RunResult r = run ((const char *[]) { "symonnx", "export", trace, "-o", out, "--default-dtype", "int64", NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "unknown --default-dtype 'int64'");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  run_result_clear (&r);
  g_rmdir (dir);
}

/* --quantized-add: quantized::add as QNNPACK's integers by default (Note
 * [QNNPACK's add in ONNX]: Sign and Abs on int64, no DequantizeLinear of
 * its inputs), torch's DequantizeLinear → Add → QuantizeLinear with
 * "float"; both run to PyTorch's outputs (the torch-refs case q_add, made
 * with the qnnpack engine, has no sum near a half step); anything else is
 * a usage error. */
static void
test_export_quantized_add (void)
{
  g_autofree char *trace = test_source_path ("tests/fixtures/symbolic/q_add.trace");
  g_autofree char *weights = test_source_path ("tests/fixtures/symbolic/q_add.safetensors");
  g_autofree char *dir = g_dir_make_tmp ("symonnx-quantized-add-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "m.onnx", NULL);
  const char *forms[] = { NULL, "qnnpack", "float" };
  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    {
      RunResult r = run ((const char *[]) { "symonnx", "export", trace, "-w", weights, "-o", out, "--opset", "13",
                                            forms[i] ? "--quantized-add" : NULL, forms[i], NULL });
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "print", out, NULL });
      g_assert_cmpint (r.status, ==, 0);
      gboolean integer = forms[i] == NULL || strcmp (forms[i], "qnnpack") == 0;
      g_assert_cmpuint (count_of (r.out, "onnx::Sign"), ==, integer ? 1 : 0);
      g_assert_cmpuint (count_of (r.out, "onnx::DequantizeLinear"), ==, integer ? 1 : 3);
      run_result_clear (&r);
      g_assert_cmpint (g_unlink (out), ==, 0);
    }
  RunResult r = run ((const char *[]) { "symonnx", "export", trace, "-w", weights, "-o", out,
                                        "--quantized-add", "fbgemm", NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "unknown --quantized-add 'fbgemm' (qnnpack, float)");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  run_result_clear (&r);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* export runs the model checker: a misspelled op or attribute from a
 * symbolic is exit 4 naming the node and the symbolic, with no file; a key
 * without a type suffix is an error naming the symbolic and the key (no
 * GLib critical, no one-input Add); --no-check and the fallback modes let
 * the checker's findings through as warnings. */
static void
test_export_checked (void)
{
  const char *plugin = g_getenv ("SYMONNX_PLUGIN_BAD_SYMBOLICS");
  g_autofree char *dir = g_dir_make_tmp ("symonnx-checked-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "m.onnx", NULL);
  static const struct
  {
    const char *op, *needle1, *needle2;
  } cases[] = {
    { "sigmoid", "onnx::Sigmiod", "made by the symbolic for aten::sigmoid" },
    { "elu", "alhpa", "made by the symbolic for aten::elu" },
    { "tanh", "the symbolic for aten::tanh", "attribute key \"alpha\" lacks a type suffix" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* a trace writes every argument: elu's alpha, scale and input_scale */
      g_autofree char *text = g_strdup_printf ("graph(%%x : Float(2, 3)):\n"
                                               "  %%one : float = prim::Constant[value=1.]()\n"
                                               "  %%y : Float(2, 3) = aten::%s(%%x%s)\n"
                                               "  return (%%y)\n", cases[i].op,
                                               strcmp (cases[i].op, "elu") == 0 ? ", %one, %one, %one" : "");
      g_autofree char *trace = write_temp (dir, "m.trace", text);
      RunResult r = run ((const char *[]) { "symonnx", "export", trace, "--plugin", plugin,
                                            "-o", out, NULL });
      if (r.status != 4 || strstr (r.err, cases[i].needle1) == NULL
          || strstr (r.err, cases[i].needle2) == NULL)
        g_error ("export with a bad %s symbolic: status %d, stderr:\n%s", cases[i].op, r.status, r.err);
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
      g_assert_null (strstr (r.err, "CRITICAL"));
      run_result_clear (&r);
      if (i == 2)
        {
          /* builder misuse fails in every mode */
          r = run ((const char *[]) { "symonnx", "export", trace, "--plugin", plugin, "--no-check",
                                      "--mode", "aten-fallback", "-o", out, NULL });
          g_assert_cmpint (r.status, ==, 4);
          g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
          run_result_clear (&r);
          continue;
        }
      r = run ((const char *[]) { "symonnx", "export", trace, "--plugin", plugin,
                                  "--mode", "aten-fallback", "-o", out, NULL });
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.err, "warning"));
      g_assert_nonnull (strstr (r.err, cases[i].needle1));
      g_assert_true (g_file_test (out, G_FILE_TEST_EXISTS));
      g_unlink (out);
      run_result_clear (&r);
      r = run ((const char *[]) { "symonnx", "export", trace, "--plugin", plugin, "--no-check",
                                  "-o", out, NULL });
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpstr (r.err, ==, "");
      run_result_clear (&r);
      /* ... and `symonnx check` finds what export let through */
      r = run ((const char *[]) { "symonnx", "check", out, NULL });
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (strstr (r.out, cases[i].needle1));
      run_result_clear (&r);
      g_unlink (out);
      g_unlink (trace);
    }
  g_autofree char *trace = g_build_filename (dir, "m.trace", NULL);
  g_unlink (trace);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* examples/handbuilt.c: build → infer → save → load → run.  The file passes
 * onnx.checker (full_check), and the output is numpy's relu(x @ w + b) with
 * w and b read from the file by onnx's numpy_helper. */
static void
test_example_handbuilt (void)
{
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("/usr/bin/python3 is not installed");
      return;
    }
  g_autofree char *dir = g_dir_make_tmp ("symonnx-handbuilt-XXXXXX", NULL);
  RunResult r = run ((const char *[]) { g_getenv ("SYMONNX_EXAMPLE_HANDBUILT"), dir, NULL });
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "onnxio_save refuses: "));
  g_assert_nonnull (strstr (r.out, "inferred: y : Float(2, 4)\n"));
  run_result_clear (&r);
  static const char script[] =
    "import sys, numpy as np, onnx\n"
    "from onnx import numpy_helper\n"
    "d = sys.argv[1]\n"
    "m = onnx.load(d + '/linear.onnx')\n"
    "onnx.checker.check_model(m, full_check=True)\n"
    "w = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}\n"
    "x = np.load(d + '/x.npy'); y = np.load(d + '/y.npy')\n"
    "ref = np.maximum(x @ w['w'] + w['b'], 0)\n"
    "assert y.shape == ref.shape, (y.shape, ref.shape)\n"
    "assert np.allclose(y, ref, rtol=1e-6, atol=1e-6), (y, ref)\n"
    "print('match')\n";
  r = run ((const char *[]) { "/usr/bin/python3", "-c", script, dir, NULL });
  if (r.status != 0)
    g_error ("numpy/onnx check of the hand-built model failed:\n%s", r.err);
  g_assert_cmpstr (r.out, ==, "match\n");
  run_result_clear (&r);
  const char *files[] = { "linear.onnx", "x.npy", "y.npy" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *f = g_build_filename (dir, files[i], NULL);
      g_unlink (f);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* symonnx info on an ONNX model: its figures are those onnx's own Python
 * package reads from the file. */
static void
test_info_model (void)
{
  if (!have_testdata () || !g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    return;
  const char *model = TESTDATA "/pytorch-converted/test_Conv2d/model.onnx";
  RunResult r = run ((const char *[]) { "symonnx", "info", model, NULL });
  g_assert_cmpint (r.status, ==, 0);
  static const char script[] =
    "import sys, onnx, numpy as np, collections\n"
    "from onnx import numpy_helper\n"
    "m = onnx.load(sys.argv[1])\n"
    "ts = [numpy_helper.to_array(t) for t in m.graph.initializer]\n"
    "print('parameters: %d initializers, %d elements, %d bytes' % (len(ts), sum(t.size for t in ts), sum(t.nbytes for t in ts)))\n"
    "c = collections.Counter(n.op_type for n in m.graph.node)\n"
    "print('ops:        %d nodes, %d kinds' % (len(m.graph.node), len(c)))\n"
    "for op, k in c.most_common(): print('  %6d  onnx::%s' % (k, op))\n"
    "print('opsets:    ' + ','.join(' %s %d' % (o.domain or 'ai.onnx (default)', o.version) for o in m.opset_import))\n";
  RunResult ref = run ((const char *[]) { "/usr/bin/python3", "-c", script, model, NULL });
  g_assert_cmpint (ref.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (ref.out, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    if (strstr (r.out, lines[i]) == NULL)
      g_error ("symonnx info lacks onnx's line\n%s\nin:\n%s", lines[i], r.out);
  g_assert_nonnull (strstr (r.out, "inputs:     0 "));
  run_result_clear (&r);
  run_result_clear (&ref);
  /* --weights is for traces */
  r = run ((const char *[]) { "symonnx", "info", model, "--weights", model, NULL });
  g_assert_cmpint (r.status, ==, 2);
  assert_one_line_error (&r, "--weights is for a trace");
  run_result_clear (&r);
}

/* Every relative link of README.md and doc/ names a file of the repository
 * (a clone has nothing outside it). */
static void
test_doc_links_resolve (void)
{
  g_autoptr (GPtrArray) docs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (docs, test_source_path ("README.md"));
  g_autofree char *doc_dir = test_source_path ("doc");
  collect_docs (doc_dir, docs);
  g_autoptr (GRegex) link = g_regex_new ("\\]\\(([^)#\\s]+)(#[^)]*)?\\)", 0, 0, NULL);
  guint checked = 0;
  for (guint i = 0; i < docs->len; i++)
    {
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (docs->pdata[i], &text, NULL, NULL));
      g_autofree char *dir = g_path_get_dirname (docs->pdata[i]);
      /* not inside code blocks or spans */
      g_autoptr (GRegex) code = g_regex_new ("```.*?```|`[^`]*`", G_REGEX_DOTALL, 0, NULL);
      g_autofree char *prose = g_regex_replace_literal (code, text, -1, 0, "", 0, NULL);
      g_autoptr (GMatchInfo) m = NULL;
      g_regex_match (link, prose, 0, &m);
      for (; g_match_info_matches (m); g_match_info_next (m, NULL))
        {
          g_autofree char *target = g_match_info_fetch (m, 1);
          if (strstr (target, "://") || g_str_has_prefix (target, "mailto:"))
            continue;
          g_autofree char *path = g_build_filename (dir, target, NULL);
          if (!g_file_test (path, G_FILE_TEST_EXISTS))
            g_error ("%s links to %s, which is not in the repository",
                     (const char *) docs->pdata[i], target);
          g_autofree char *real = realpath (path, NULL);
          g_autofree char *root = test_source_path (".");
          g_autofree char *real_root = realpath (root, NULL);
          if (!g_str_has_prefix (real, real_root))
            g_error ("%s links to %s, outside the repository", (const char *) docs->pdata[i], target);
          checked++;
        }
      /* a path written as code that climbs out of the folder */
      g_autoptr (GRegex) up = g_regex_new ("`(\\.\\./[^`\\s]*)`", 0, 0, NULL);
      g_autoptr (GMatchInfo) um = NULL;
      g_regex_match (up, text, 0, &um);
      for (; g_match_info_matches (um); g_match_info_next (um, NULL))
        {
          g_autofree char *target = g_match_info_fetch (um, 1);
          g_autofree char *path = g_build_filename (dir, target, NULL);
          g_autofree char *real = realpath (path, NULL);
          g_autofree char *root = test_source_path (".");
          g_autofree char *real_root = realpath (root, NULL);
          if (real == NULL || !g_str_has_prefix (real, real_root))
            g_error ("%s names %s, which is not in the repository",
                     (const char *) docs->pdata[i], target);
        }
    }
  g_assert_cmpuint (checked, >=, 5);
}

/* The generated tables are what their generators give from the installed
 * torch / onnx (tools/generated_file.py's --check; skipped, exit 77, when
 * the library is not installed). */
static void
check_generated (gconstpointer script_rel)
{
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  g_autofree char *script = test_source_path (script_rel);
  const char *argv[] = { "/usr/bin/python3", script, "--check", NULL };
  RunResult r = run (argv);
  if (r.status == 77)
    g_test_skip (r.out);
  else
    assert_status (&r, 0, script_rel);
  run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  hostile_tests_add ();
  g_test_add_func ("/tools/cli/version-and-help", test_cli_version_and_help);
  g_test_add_func ("/tools/cli/usage-errors", test_cli_usage_errors);
  g_test_add_func ("/tools/cli/usage-lines", test_cli_usage_lines);
  g_test_add_func ("/tools/export/failing-ops-one-per-line", test_export_failing_ops_lines);
  g_test_add_func ("/tools/export/checked", test_export_checked);
  g_test_add_func ("/tools/export/default-dtype", test_export_default_dtype);
  g_test_add_func ("/tools/export/quantized-add", test_export_quantized_add);
  g_test_add_func ("/tools/cli/markdown-is-current", test_cli_markdown_is_current);
  g_test_add_func ("/tools/cli/aten-kernels-doc-is-current", test_aten_kernels_doc_is_current);
  g_test_add_func ("/tools/cli/blas-on-demand", test_cli_blas_on_demand);
  g_test_add_func ("/tools/print/mymodule", test_print_mymodule);
  g_test_add_func ("/tools/print/dot", test_print_dot);
  g_test_add_func ("/tools/print/bad-input", test_print_bad_input);
  g_test_add_func ("/tools/print/onnx-model", test_print_onnx_model);
  g_test_add_func ("/tools/convert/round-trip-and-errors", test_convert);
  g_test_add_func ("/tools/info/model", test_info_model);
  g_test_add_func ("/tools/example/mymodule-c", test_example_mymodule_c);
  g_test_add_func ("/tools/example/mutate", test_example_mutate);
  g_test_add_func ("/tools/example/custom-symbolic", test_example_custom_symbolic);
  g_test_add_func ("/tools/example/handbuilt", test_example_handbuilt);
  g_test_add_func ("/tools/doc/c-samples-are-compiled", test_doc_samples_are_compiled);
  g_test_add_func ("/tools/doc/links-resolve", test_doc_links_resolve);
  g_test_add_data_func ("/tools/generated/aten-schemas-current", "tools/gen_aten_schemas.py", check_generated);
  g_test_add_data_func ("/tools/generated/onnx-type-params-current", "tools/gen_onnx_type_params.py",
                        check_generated);
  g_test_add_data_func ("/tools/generated/erf-coeffs-current", "tools/gen_erf_coeffs.py",
                        check_generated);
  return g_test_run ();
}
