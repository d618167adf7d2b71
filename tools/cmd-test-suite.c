/* symonnx test-suite: run ONNX backend-test folders with the executor. */
#include "tools/cli.h"
#include "tools/backend-suite.h"
#include <stdio.h>

static char *opt_expectations;
static int opt_threads;
static gboolean opt_quiet;

static const GOptionEntry suite_entries[] = {
  { "expectations", 'e', 0, G_OPTION_ARG_FILENAME, &opt_expectations,
    "Cases listed in FILE (one a line: name and reason) that fail are counted as skipped", "FILE" },
  { "threads", 't', 0, G_OPTION_ARG_INT, &opt_threads, "Number of threads (OpenBLAS)", "N" },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Print only failures and the summary", NULL },
  CLI_DEVICE_ENTRY,
  { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const GOptionEntry *
suite_options (void)
{
  return suite_entries;
}

static void
print_line (const char *line, gpointer user_data)
{
  (void) user_data;
  if (!opt_quiet || g_str_has_prefix (line, "FAIL"))
    printf ("%s\n", line);
  fflush (stdout);
}

static int
suite_run (int argc, char **argv)
{
  if (argc < 1)
    {
      cli_error ("test-suite", "expected at least one DIR (run 'symonnx test-suite --help')");
      return CLI_EXIT_USAGE;
    }
  RtOptions device;
  rt_options_init (&device);
  CliExit code = cli_apply_device ("test-suite", &device);
  if (code != CLI_EXIT_OK)
    return code;
  BackendSuite s;
  backend_suite_init (&s);
  s.threads = opt_threads;
  s.device = device.device;
  s.report = print_line;
  g_autoptr (GError) error = NULL;
  if (opt_expectations && !backend_suite_load_expectations (&s, opt_expectations, &error))
    {
      cli_error ("test-suite", "%s", error->message);
      backend_suite_clear (&s);
      return CLI_EXIT_INPUT;
    }
  for (int i = 0; i < argc; i++)
    {
      if (!g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          cli_error ("test-suite", "%s: not a folder", argv[i]);
          backend_suite_clear (&s);
          return CLI_EXIT_INPUT;
        }
      backend_suite_run_dir (&s, argv[i]);
    }
  printf ("%u passed, %u failed, %u skipped\n", s.passed, s.failed, s.skipped);
  if (s.device != RT_DEVICE_CPU)
    printf ("device %s: %" G_GUINT64_FORMAT " node runs on the device, %" G_GUINT64_FORMAT
            " on the CPU\n", rt_device_name (s.device), s.device_runs, s.fallback_runs);
  guint failed = s.failed;
  backend_suite_clear (&s);
  return failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

const CliCommand cli_cmd_test_suite = {
  .name = "test-suite",
  .parameters = "DIR…",
  .summary = "Run ONNX backend-test folders (model.onnx + test_data_set_N) with the executor",
  .description = "Each DIR is a test case (holding model.onnx and test_data_set_N/{input,output}_N.pb) "
                 "or a folder of cases. Prints `PASS`, `FAIL` or `SKIP` and the case name on one line "
                 "per case, then `N passed, N failed, N skipped`. Outputs are compared with rtol 1e-3 "
                 "and atol 1e-7. A failing case is a skip only if --expectations lists it; the exit "
                 "status is 1 when any case failed. With --device cuda the cases run on the GPU (nodes "
                 "without a CUDA kernel on the CPU) and a last line counts the node runs on each.",
  .options = suite_options,
  .run = suite_run,
};
