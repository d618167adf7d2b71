/* `symonnx run` and `symonnx test-suite` end to end. */
#include "tests/runtime/test-runtime.h"
#include "export/onnxio.h"
#include "export/tensorfiles.h"
#include "export/onnx-sequence.h"
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#define NODE "/usr/share/libonnx-testdata/data/node"

static gboolean
run_cli (const char *const *args, char **out, char **err, int *status)
{
  const char *cli = g_getenv ("SYMONNX_CLI");
  if (cli == NULL || !g_file_test (NODE, G_FILE_TEST_IS_DIR))
    return FALSE;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) cli);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, status, &error));
  g_assert_no_error (error);
  return TRUE;
}

static void
test_cli_run (void)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-run-XXXXXX", NULL);
  const char *args[] = {
    "run", NODE "/test_conv_with_strides_padding/model.onnx",
    "--input", "x=" NODE "/test_conv_with_strides_padding/test_data_set_0/input_0.pb",
    "--input", "W=" NODE "/test_conv_with_strides_padding/test_data_set_0/input_1.pb",
    "--output-dir", dir, "--threads", "1", NULL,
  };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  if (!run_cli (args, &out, &err, &status))
    {
      g_test_skip ("no CLI or no libonnx-testdata");
      return;
    }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autofree char *ypath = g_build_filename (dir, "y.npy", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (Tensor) y = export_npy_load (ypath, &error);
  g_assert_no_error (error);
  g_autoptr (Tensor) expected = onnxio_tensor_load (NODE "/test_conv_with_strides_padding/test_data_set_0/output_0.pb",
                                                    NULL, &error);
  g_assert_no_error (error);
  g_assert_true (rt_compare (expected, y, RT_DEFAULT_RTOL, RT_DEFAULT_ATOL, FALSE, NULL));
  g_unlink (ypath);

  /* --no-fusion and two threads: the same output. */
  const char *plain[] = {
    "run", NODE "/test_conv_with_strides_padding/model.onnx",
    "--input", "x=" NODE "/test_conv_with_strides_padding/test_data_set_0/input_0.pb",
    "--input", "W=" NODE "/test_conv_with_strides_padding/test_data_set_0/input_1.pb",
    "--output-dir", dir, "--threads", "2", "--no-fusion", NULL,
  };
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_cli (plain, &out, &err, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (Tensor) y2 = export_npy_load (ypath, &error);
  g_assert_no_error (error);
  g_assert_true (rt_compare (expected, y2, RT_DEFAULT_RTOL, RT_DEFAULT_ATOL, FALSE, NULL));
  g_unlink (ypath);
  g_rmdir (dir);

  /* A missing input is named. */
  const char *missing[] = {
    "run", NODE "/test_conv_with_strides_padding/model.onnx",
    "--input", "x=" NODE "/test_conv_with_strides_padding/test_data_set_0/input_0.pb", NULL,
  };
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_cli (missing, &out, &err, &status);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "'W'"));

  /* --repeat prints the timing line. */
  const char *repeat[] = {
    "run", NODE "/test_relu/model.onnx",
    "--input", "x=" NODE "/test_relu/test_data_set_0/input_0.pb", "--repeat", "3", NULL,
  };
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_cli (repeat, &out, &err, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_regex_match_simple ("^median [0-9.]+ ms, min [0-9.]+ ms\n$", out, 0, 0));

  /* --profile: the timed runs' total per op type and the slowest nodes. */
  const char *profile[] = {
    "run", NODE "/test_relu/model.onnx",
    "--input", "x=" NODE "/test_relu/test_data_set_0/input_0.pb", "--repeat", "3", "--profile", NULL,
  };
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_cli (profile, &out, &err, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_regex_match_simple ("^median [0-9.]+ ms, min [0-9.]+ ms\n"
                                       "profile: 3 runs, [0-9.]+ ms a run in 1 nodes .*\n"
                                       "op +nodes +ms a run +share\n"
                                       "Relu +1 +[0-9.]+ +[0-9.]+%\n"
                                       "slowest nodes:\n"
                                       "Relu +[^ ]+ +[0-9.]+ +[0-9.]+%\n$", out, 0, 0));
}

#define RELU_ARGS(cmd) cmd, NODE "/test_relu/model.onnx", \
  "--input", "x=" NODE "/test_relu/test_data_set_0/input_0.pb"

/* --device cuda where the CUDA backend or a GPU is missing: one line
 * "symonnx run: no CUDA device: <reason>", exit status 4, for run, verify
 * and test-suite alike. */
static void
test_cli_device_cuda_unavailable (void)
{
  g_autoptr (GError) probe = NULL;
  if (rt_device_available (RT_DEVICE_CUDA, &probe))
    {
      g_test_skip ("a CUDA device is present");
      return;
    }
  const char *run_args[] = { RELU_ARGS ("run"), "--device", "cuda", "--verbose", NULL };
  const char *verify_args[] = {
    RELU_ARGS ("verify"), "--expected", NODE "/test_relu/test_data_set_0/output_0.pb",
    "--device", "cuda", NULL,
  };
  const char *suite_args[] = { "test-suite", "--device", "cuda", NODE "/test_relu", NULL };
  const char *const *cases[] = { run_args, verify_args, suite_args };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status;
      if (!run_cli (cases[i], &out, &err, &status))
        {
          g_test_skip ("no CLI or no libonnx-testdata");
          return;
        }
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 4);
      g_autofree char *want = g_strdup_printf ("symonnx %s: %s\n", cases[i][0], probe->message);
      g_assert_cmpstr (err, ==, want);
      g_assert_cmpstr (out, ==, "");
    }
}

/* $SYMONNX_CUDA_PLUGIN names the plugin to load; a wrong one is the
 * "no CUDA device" error naming it. */
static void
test_cli_device_plugin_env (void)
{
  const char *cli = g_getenv ("SYMONNX_CLI");
  if (cli == NULL || !g_file_test (NODE, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no CLI or no libonnx-testdata");
      return;
    }
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SYMONNX_CUDA_PLUGIN",
                                         "/nonexistent/libsymonnx-cuda.so", TRUE);
  const char *argv[] = { cli, RELU_ARGS ("run"), "--device", "cuda", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 4);
  g_assert_cmpstr (err, ==, "symonnx run: no CUDA device: the CUDA backend libsymonnx-cuda.so is "
                            "not installed (looked for /nonexistent/libsymonnx-cuda.so)\n");
}

/* --device cpu --verbose: the run as before, and where it ran; an unknown
 * device is a usage error. */
static void
test_cli_device_cpu (void)
{
  const char *args[] = { RELU_ARGS ("run"), "--device", "cpu", "--verbose", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  if (!run_cli (args, &out, &err, &status))
    {
      g_test_skip ("no CLI or no libonnx-testdata");
      return;
    }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (out, ==, "y: float(3, 4, 5)\n");
  g_assert_cmpstr (err, ==, "device cpu: 1 node, all on the CPU\n");

  const char *bad[] = { RELU_ARGS ("run"), "--device", "gpu", NULL };
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_cli (bad, &out, &err, &status);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  g_assert_cmpstr (err, ==, "symonnx run: --device: unknown device 'gpu' (expected cpu or cuda)\n");
}

/* Output names with characters outside [A-Za-z0-9._-] become '_'. */
static void
test_cli_output_names (void)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 13);
  gint64 d = 2;
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, &d);
  GraphValue *x = graph_add_input (g, "x", ty);
  GraphValue *y = graph_op (g, "Relu", x, NULL);
  graph_value_set_name (y, "out/put:0");
  graph_add_output (g, y);
  g_autofree char *dir = g_dir_make_tmp ("symonnx-names-XXXXXX", NULL);
  g_autofree char *model = g_build_filename (dir, "m.onnx", NULL);
  g_autofree char *xin = g_build_filename (dir, "x.npy", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (export_infer_types (g, &error));   /* ONNX wants the output's type */
  g_assert_true (onnxio_save (g, model, NULL, &error));
  float v[2] = { -1, 2 };
  g_autoptr (Tensor) xt = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, &d, v, sizeof v, NULL);
  g_assert_true (export_npy_save (xt, xin, &error));
  g_autofree char *xarg = g_strconcat ("x=", xin, NULL);
  const char *args[] = { "run", model, "--input", xarg, "--output-dir", dir, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  if (!run_cli (args, &out, &err, &status))
    {
      g_test_skip ("no CLI");
      return;
    }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autofree char *ypath = g_build_filename (dir, "out_put_0.npy", NULL);
  g_autoptr (Tensor) yt = export_npy_load (ypath, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (tensor_get_double (yt, 0), ==, 0);
  g_assert_cmpfloat (tensor_get_double (yt, 1), ==, 2);
  g_unlink (ypath);
  g_unlink (model);
  g_unlink (xin);
  g_rmdir (dir);
}

/* ONNX's test_if_seq returns a sequence: `run --output-dir` writes it as
 * res_0.npy..., equal to the backend test's expected SequenceProto; and an
 * --input naming no graph input is reported by that name. */
static void
test_cli_sequence_output (void)
{
  const char *dir = "/usr/share/libonnx-testdata/data/node/test_if_seq";
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  g_autofree char *model = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *cond = g_build_filename (dir, "test_data_set_0", "input_0.pb", NULL);
  g_autofree char *expected_pb = g_build_filename (dir, "test_data_set_0", "output_0.pb", NULL);
  g_autofree char *outdir = g_dir_make_tmp ("symonnx-seq-XXXXXX", NULL);
  g_autofree char *arg = g_strconcat ("cond=", cond, NULL);
  const char *args[] = { "run", model, "--input", arg, "--output-dir", outdir, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  if (!run_cli (args, &out, &err, &status))
    {
      g_test_skip ("no CLI");
      return;
    }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (OnnxioValue) expected = onnxio_sequence_load (expected_pb, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (expected->kind, ==, ONNXIO_VALUE_SEQUENCE);
  g_assert_cmpuint (expected->items->len, >, 0);
  for (guint i = 0; i < expected->items->len; i++)
    {
      g_autofree char *base = g_strdup_printf ("res_%u.npy", i);
      g_autofree char *path = g_build_filename (outdir, base, NULL);
      g_autoptr (Tensor) got = export_npy_load (path, &error);
      g_assert_no_error (error);
      g_assert_true (tensor_equal (got, expected->items->pdata[i]));
      g_unlink (path);
    }
  g_autofree char *extra = g_build_filename (outdir, "res.npy", NULL);
  g_assert_false (g_file_test (extra, G_FILE_TEST_EXISTS));
  g_rmdir (outdir);

  g_autofree char *bad = g_strconcat ("nope=", cond, NULL);
  const char *wrong[] = { "run", model, "--input", bad, NULL };
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_cli (wrong, &out, &err, &status);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "no input named 'nope'"));
}

/* A passing and a failing case: the summary line and exit status 1. */
static void
test_cli_test_suite (void)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-suite-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "test_relu_wrong", NULL);
  g_autofree char *set = g_build_filename (bad, "test_data_set_0", NULL);
  g_assert_cmpint (g_mkdir_with_parents (set, 0755), ==, 0);
  /* Relu's model and input with Abs's expected output: must fail. */
  struct { const char *from, *to; } files[] = {
    { NODE "/test_relu/model.onnx", "model.onnx" },
    { NODE "/test_relu/test_data_set_0/input_0.pb", "test_data_set_0/input_0.pb" },
    { NODE "/test_abs/test_data_set_0/output_0.pb", "test_data_set_0/output_0.pb" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *data = NULL;
      gsize len;
      if (!g_file_get_contents (files[i].from, &data, &len, NULL))
        {
          g_test_skip ("no libonnx-testdata");
          return;
        }
      g_autofree char *to = g_build_filename (bad, files[i].to, NULL);
      g_assert_true (g_file_set_contents (to, data, len, NULL));
    }
  const char *args[] = { "test-suite", NODE "/test_relu", bad, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  if (!run_cli (args, &out, &err, &status))
    {
      g_test_skip ("no CLI");
      return;
    }
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 1);
  g_assert_nonnull (strstr (out, "PASS test_relu\n"));
  g_assert_nonnull (strstr (out, "FAIL test_relu_wrong: "));
  g_assert_true (g_str_has_suffix (out, "\n1 passed, 1 failed, 0 skipped\n"));
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *to = g_build_filename (bad, files[i].to, NULL);
      g_unlink (to);
    }
  g_rmdir (set);
  g_rmdir (bad);
  g_rmdir (dir);
}

void
test_cli_register (void)
{
  g_test_add_func ("/runtime/cli/run", test_cli_run);
  g_test_add_func ("/runtime/cli/device-cuda-unavailable", test_cli_device_cuda_unavailable);
  g_test_add_func ("/runtime/cli/device-cpu", test_cli_device_cpu);
  g_test_add_func ("/runtime/cli/device-plugin-env", test_cli_device_plugin_env);
  g_test_add_func ("/runtime/cli/output-names", test_cli_output_names);
  g_test_add_func ("/runtime/cli/sequence-output", test_cli_sequence_output);
  g_test_add_func ("/runtime/cli/test-suite", test_cli_test_suite);
}
