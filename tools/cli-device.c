/* --device and --verbose, for the commands that run graphs (run, verify). */
#include "cli.h"
#include "runtime/runtime.h"
#include <stdio.h>

char *cli_device;
gboolean cli_device_verbose;

CliExit
cli_apply_device (const char *command, RtOptions *o)
{
  g_autoptr (GError) error = NULL;
  RtDevice d = RT_DEVICE_CPU;
  if (cli_device && !rt_device_parse (cli_device, &d, &error))
    {
      cli_error (command, "--device: %s", error->message);
      return CLI_EXIT_USAGE;
    }
  /* Checked before a session is made, so the error is this one line. */
  if (!rt_device_available (d, &error))
    {
      cli_error (command, "%s", error->message);
      return CLI_EXIT_PROCESS;
    }
  o->device = d;
  return CLI_EXIT_OK;
}

void
cli_device_report (const RtSession *s)
{
  if (!cli_device_verbose)
    return;
  g_autofree char *report = rt_session_fallback_report (s);
  fputs (report, stderr);
}
