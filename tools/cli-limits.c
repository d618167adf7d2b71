/* The run limits shared by the commands that execute graphs (run, verify). */
#include "cli.h"
#include "runtime/runtime.h"

double cli_max_seconds;
gint64 cli_max_loop_iterations;

gboolean
cli_apply_limits (const char *command, RtOptions *o)
{
  if (cli_max_seconds < 0 || cli_max_loop_iterations < 0)
    {
      cli_error (command, "--max-seconds and --max-loop-iterations must not be negative");
      return FALSE;
    }
  o->max_seconds = cli_max_seconds;
  o->max_loop_iterations = (guint64) cli_max_loop_iterations;
  return TRUE;
}
