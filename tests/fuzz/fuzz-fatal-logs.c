/* Linked into the libFuzzer builds only: a GLib critical or warning
 * reached from input aborts, so libFuzzer saves the input as a crash.
 * (G_DEBUG=fatal-warnings raises SIGTRAP, which libFuzzer does not
 * catch: the process died with no artifact.) */
#include <glib.h>
#include <stdlib.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);

static void
abort_on_log (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if (!(level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)))
    {
      g_log_default_handler (domain, level, message, data);
      return;
    }
  g_printerr ("%s-%s: %s\n", domain ? domain : "", (level & G_LOG_LEVEL_CRITICAL) ? "CRITICAL" : "WARNING",
              message);
  abort ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  g_log_set_default_handler (abort_on_log, NULL);
  g_log_set_always_fatal (0);
  return 0;
}
