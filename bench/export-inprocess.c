/* bench/export-inprocess: the time `symonnx export` spends exporting, without
 * starting a process: R times, the weights are read, the trace parsed,
 * exported and written to OUT (removed before each run, outside the timing,
 * so every run writes a fresh file as torch.onnx.export and the floor in
 * bench/export-vs-torch.py do).  Prints the best run's total and the best
 * time of each phase, as one line of key=value pairs (milliseconds):
 *
 *   bench/export-inprocess TRACE WEIGHTS.safetensors OUT.onnx [OPSET [R]]
 *   total_ms=... weights_ms=... parse_ms=... export_ms=... save_ms=... */
#include "symonnx.h"
#include "export/export.h"

#include <glib/gstdio.h>
#include <stdlib.h>

enum { PHASE_WEIGHTS, PHASE_PARSE, PHASE_EXPORT, PHASE_SAVE, N_PHASES };

static void
check (gboolean ok, GError *error)
{
  if (!ok)
    g_error ("%s", error ? error->message : "failed");
}

int
main (int argc, char **argv)
{
  if (argc < 4)
    {
      g_printerr ("usage: %s TRACE WEIGHTS.safetensors OUT.onnx [OPSET [REPEAT]]\n", argv[0]);
      return 2;
    }
  int opset = argc > 4 ? atoi (argv[4]) : 13, repeat = argc > 5 ? atoi (argv[5]) : 5;
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  double best_total = G_MAXDOUBLE, best[N_PHASES];
  for (int p = 0; p < N_PHASES; p++)
    best[p] = G_MAXDOUBLE;
  for (int r = 0; r < MAX (repeat, 1); r++)
    {
      GError *error = NULL;
      g_unlink (argv[3]);
      gint64 t[N_PHASES + 1];
      t[0] = g_get_monotonic_time ();
      g_autoptr (GHashTable) weights = export_safetensors_load (argv[2], &error);
      check (weights != NULL, error);
      t[1] = g_get_monotonic_time ();
      g_autoptr (Graph) trace = graph_parse_file (argv[1], &error);
      check (trace != NULL, error);
      t[2] = g_get_monotonic_time ();
      ExportOptions o;
      export_options_init (&o);
      o.opset = opset;
      o.registry = reg;
      o.weights = weights;
      g_autoptr (Graph) g = export_graph (trace, &o, &error);
      check (g != NULL, error);
      t[3] = g_get_monotonic_time ();
      check (onnxio_save (g, argv[3], NULL, &error), error);
      t[4] = g_get_monotonic_time ();
      export_options_clear (&o);
      for (int p = 0; p < N_PHASES; p++)
        best[p] = MIN (best[p], (t[p + 1] - t[p]) / 1000.0);
      best_total = MIN (best_total, (t[N_PHASES] - t[0]) / 1000.0);
    }
  g_print ("total_ms=%.3f weights_ms=%.3f parse_ms=%.3f export_ms=%.3f save_ms=%.3f\n",
           best_total, best[PHASE_WEIGHTS], best[PHASE_PARSE], best[PHASE_EXPORT],
           best[PHASE_SAVE]);
  return 0;
}
