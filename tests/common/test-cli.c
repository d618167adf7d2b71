/* Running the built CLI from the tests: see tests/common/test-cli.h. */
#include "tests/common/test-cli.h"
#include <string.h>
#include <sys/wait.h>

RunResult
run_env (const char *const *argv, const char *const *env)
{
  RunResult r = { 0 };
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (guint i = 0; argv[i]; i++)
    g_ptr_array_add (args, (gpointer) (i == 0 && strcmp (argv[0], "symonnx") == 0
                                           ? g_getenv ("SYMONNX_CLI") : argv[i]));
  g_ptr_array_add (args, NULL);
  g_auto (GStrv) envp = g_get_environ ();
  for (guint i = 0; env && env[i]; i++)
    {
      const char *eq = strchr (env[i], '=');
      g_assert_nonnull (eq);
      g_autofree char *name = g_strndup (env[i], eq - env[i]);
      envp = g_environ_setenv (envp, name, eq + 1, TRUE);
    }
  g_autoptr (GError) error = NULL;
  int wait_status;
  g_assert_true (g_spawn_sync (NULL, (char **) args->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                               &r.out, &r.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  return r;
}

RunResult
run (const char *const *argv)
{
  return run_env (argv, NULL);
}

void
run_result_clear (RunResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

void
assert_status (const RunResult *r, int want, const char *what)
{
  if (r->status != want)
    g_error ("%s: exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s", what, r->status, want,
             r->out, r->err);
}
