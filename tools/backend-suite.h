/* Running ONNX backend-test folders (model.onnx + test_data_set_N/
 * {input,output}_N.pb) with the bundled executor: shared by
 * `symonnx test-suite` and the conformance tests. */
#pragma once

#include "symonnx.h"
#include "runtime/runtime.h"

typedef struct
{
  guint passed, failed, skipped;
  GHashTable *expectations;   /* case name → reason (may be NULL) */
  double rtol, atol;
  int threads;
  RtDevice device;            /* where the cases run (RT_DEVICE_CPU) */
  /* Node runs on the device and on the CPU over every case's runs
   * (under RT_DEVICE_CPU: all on the CPU, not counted). */
  guint64 device_runs, fallback_runs;
  /* Called with one line per case ("PASS name", "FAIL name: why",
   * "SKIP name: why"). */
  void (*report) (const char *line, gpointer user_data);
  gpointer user_data;
} BackendSuite;

void     backend_suite_init (BackendSuite *s);
void     backend_suite_clear (BackendSuite *s);
/* Expectations file: one case a line, "case_name  reason", '#' comments. */
gboolean backend_suite_load_expectations (BackendSuite *s, const char *path, GError **error);
/* `dir` is either one case folder (holding model.onnx) or a folder of
 * case folders. */
void     backend_suite_run_dir (BackendSuite *s, const char *dir);
/* One case; returns TRUE when it passed, and the reason otherwise. */
gboolean backend_suite_run_case (BackendSuite *s, const char *case_dir, char **reason);
