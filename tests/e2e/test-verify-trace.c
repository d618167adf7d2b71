/* `symonnx verify TRACE -w W --input FILE` WITHOUT --expected on the small
 * seed models: the executor runs the trace's aten:: nodes (prim::GetAttr
 * chains read from the weights, tensor lists spliced) as the reference for
 * the exported model, and exits 0.  So that the check is not only us
 * against us, the trace run's outputs (--save-reference) are compared with
 * PyTorch's (torch2trace's expected_N.npy) by numpy.allclose, rtol 1e-3,
 * atol 1e-5.  The larger seed models (alexnet, densenet121, inception_v3,
 * resnet50, vgg16) pass the same way but take too long to trace here. */
#include "tests/common/test-util.h"
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

static char *tmp_root;
static const char *python = "/usr/bin/python3";

typedef struct
{
  int   status;
  char *out;
  char *err;
} RunResult;

/* Runs argv (NULL-terminated; "symonnx" means the built CLI). */
static RunResult
run (const char *const *argv)
{
  RunResult r = { 0 };
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (guint i = 0; argv[i]; i++)
    g_ptr_array_add (args, (gpointer) (i == 0 && strcmp (argv[0], "symonnx") == 0
                                           ? g_getenv ("SYMONNX_CLI") : argv[i]));
  g_ptr_array_add (args, NULL);
  g_autoptr (GError) error = NULL;
  int wait_status;
  g_assert_true (g_spawn_sync (NULL, (char **) args->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &r.out, &r.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  return r;
}

static void
run_result_clear (RunResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

static void
assert_status (const RunResult *r, int want, const char *what)
{
  if (r->status != want)
    g_error ("%s: exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s", what, r->status, want,
             r->out, r->err);
}

typedef struct
{
  const char *name;     /* torch2trace --model */
  const char *input;    /* --input spec, NULL: the model's default */
} SeedModel;

static const SeedModel models[] = {
  { "dcgan", "1,100,1,1" },
  { "resnet18", "1,3,32,32" },
  { "superres", "1,1,32,32" },
  { "word_language_model", NULL },
};

/* torch2trace.py into tmp_root/<name>. */
static char *
torch2trace (const SeedModel *m)
{
  g_autofree char *t2t = test_source_path ("tools/torch2trace.py");
  char *out = g_build_filename (tmp_root, m->name, NULL);
  RunResult r = run ((const char *[]) { python, t2t, "--model", m->name, m->input ? "--input" : "-o",
                                        m->input ? m->input : out, m->input ? "-o" : NULL, out, NULL });
  assert_status (&r, 0, "torch2trace.py");
  run_result_clear (&r);
  return out;
}

static void
test_verify_without_expected (gconstpointer data)
{
  const SeedModel *m = data;
  g_autofree char *dir = torch2trace (m);
  g_autofree char *trace = g_build_filename (dir, "model.trace", NULL);
  g_autofree char *weights = g_build_filename (dir, "weights.safetensors", NULL);
  g_autofree char *input = g_build_filename (dir, "input_0.npy", NULL);
  g_autofree char *expected = g_build_filename (dir, "expected_0.npy", NULL);
  g_autofree char *refdir = g_build_filename (dir, "reference", NULL);
  g_autofree char *reference = g_build_filename (refdir, "reference_0.npy", NULL);

  RunResult r = run ((const char *[]) { "symonnx", "verify", trace, "-w", weights, "--input", input,
                                        "--save-reference", refdir, NULL });
  assert_status (&r, 0, "symonnx verify without --expected");
  g_assert_nonnull (strstr (r.out, "PASS: 1 of 1 output within rtol 0.001, atol 1e-05 of the "
                                   "executor's run of the trace's aten nodes"));
  run_result_clear (&r);

  /* The trace run is PyTorch's result. */
  g_autofree char *check = test_source_path ("tests/e2e/e2e_check.py");
  r = run ((const char *[]) { python, check, "compare", "1e-3", "1e-5", expected, reference, NULL });
  assert_status (&r, 0, "trace run against PyTorch (e2e_check.py compare)");
  g_test_message ("%s", r.out);
  run_result_clear (&r);
}

static void
rm_rf (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autoptr (GError) error = NULL;
  tmp_root = g_dir_make_tmp ("symonnx-verify-trace-XXXXXX", &error);
  g_assert_no_error (error);
  if (!g_file_test (python, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_message ("%s is missing", python);
      return 77;
    }
  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    {
      g_autofree char *p = g_strdup_printf ("/verify-trace/%s", models[i].name);
      g_test_add_data_func (p, &models[i], test_verify_without_expected);
    }
  int rc = g_test_run ();
  rm_rf (tmp_root);
  g_free (tmp_root);
  return rc;
}
