/* The run limits shared by the commands that execute graphs (run, verify):
 * time, Loop iterations and the largest tensor. */
#include "cli.h"
#include "runtime/runtime.h"

double cli_max_seconds;
gint64 cli_max_loop_iterations;
gint64 cli_max_tensor_mib;

gboolean
cli_apply_limits (const char *command, RtOptions *o)
{
  if (cli_max_seconds < 0 || cli_max_loop_iterations < 0 || cli_max_tensor_mib < 0
      || cli_max_tensor_mib > (G_MAXINT64 >> 20))
    {
      cli_error (command, "--max-seconds, --max-loop-iterations and --max-tensor-mib must not be negative "
                 "(and --max-tensor-mib at most 2^43)");
      return FALSE;
    }
  o->max_tensor_bytes = (guint64) cli_max_tensor_mib << 20;
  o->max_seconds = cli_max_seconds;
  o->max_loop_iterations = (guint64) cli_max_loop_iterations;
  return TRUE;
}
