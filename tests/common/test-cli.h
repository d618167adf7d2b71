/* Running the built CLI (and other programs) from the g_test executables. */
#pragma once

#include <glib.h>

typedef struct
{
  int   status;   /* exit status */
  char *out;
  char *err;
} RunResult;

/* Runs argv (NULL-terminated) and waits; argv[0] "symonnx" means the CLI
 * named by $SYMONNX_CLI.  `env`: extra NAME=VALUE pairs, or NULL.  Fails
 * the test if the program cannot be started or does not exit normally. */
RunResult run_env (const char *const *argv, const char *const *env);
RunResult run (const char *const *argv);
void      run_result_clear (RunResult *r);

/* Fails the test, showing the command's output, unless it exited with
 * `want`. */
void      assert_status (const RunResult *r, int want, const char *what);
