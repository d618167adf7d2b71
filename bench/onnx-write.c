/* bench/onnx-write: writing a model with 1 GiB of initializers through
 * onnxio_save versus writing the same bytes with a plain write() loop, in
 * the same run; prints both times, their ratio (target ≤ 1.3) and the peak
 * RSS against the weight bytes (target < weights + 10%).
 *
 *   bench/onnx-write [DIR [MIB]]      (default: $TMPDIR, 1024 MiB) */
#include "symonnx.h"
#include "export/onnxio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define N_TENSORS 16

static double
plain_write (const char *path, GBytes *const *chunks, guint n)
{
  gint64 t0 = g_get_monotonic_time ();
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    g_error ("open %s: %s", path, g_strerror (errno));
  for (guint i = 0; i < n; i++)
    {
      gsize len;
      const guint8 *p = g_bytes_get_data (chunks[i], &len);
      while (len > 0)
        {
          ssize_t w = write (fd, p, MIN (len, (gsize) 1 << 30));
          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            g_error ("write %s: %s", path, g_strerror (errno));
          p += w;
          len -= (gsize) w;
        }
    }
  close (fd);
  return (g_get_monotonic_time () - t0) / 1e6;
}

static double
onnx_write (const Graph *g, const char *path)
{
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  if (!onnxio_save (g, path, NULL, &error))
    g_error ("%s", error->message);
  return (g_get_monotonic_time () - t0) / 1e6;
}

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : g_get_tmp_dir ();
  gsize mib = argc > 2 ? (gsize) g_ascii_strtoull (argv[2], NULL, 10) : 1024;
  gsize per = mib * 1024 * 1024 / N_TENSORS / 4;   /* floats per tensor */
  g_autofree char *model = g_build_filename (dir, "bench-onnx-write.onnx", NULL);
  g_autofree char *raw = g_build_filename (dir, "bench-onnx-write.raw", NULL);

  g_autoptr(Graph) g = graph_new ();
  graph_set_opset (g, "", 13);
  GBytes *chunks[N_TENSORS];
  GraphValue *inputs[N_TENSORS];
  for (guint i = 0; i < N_TENSORS; i++)
    {
      float *data = g_malloc (per * 4);
      for (gsize k = 0; k < per; k++)
        data[k] = (float) (k % 1000) * 0.001f + (float) i;
      chunks[i] = g_bytes_new_take (data, per * 4);
      const gint64 dims[] = { (gint64) per };
      g_autoptr(GError) error = NULL;
      g_autoptr(Tensor) t = tensor_new (GRAPH_DTYPE_FLOAT, 1, dims, chunks[i], &error);
      g_assert_no_error (error);
      g_autofree char *name = g_strdup_printf ("w%u", i);
      inputs[i] = graph_add_initializer (g, name, t);
      graph_value_set_initializer_is_input (inputs[i], FALSE);
    }
  graph_add_output (g, graph_opv (g, "Sum", N_TENSORS, inputs, NULL));
  gsize weights = (gsize) N_TENSORS * per * 4;

  /* Alternate, keep the best of three each (the first runs warm the page
   * cache and the allocator for both). */
  double best_plain = G_MAXDOUBLE, best_onnx = G_MAXDOUBLE;
  for (int r = 0; r < 3; r++)
    {
      best_plain = MIN (best_plain, plain_write (raw, chunks, N_TENSORS));
      unlink (raw);
      best_onnx = MIN (best_onnx, onnx_write (g, model));
      unlink (model);
      g_autofree char *data = g_strconcat (model, ".data", NULL);
      unlink (data);   /* only if it went external */
    }
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  double rss = (double) ru.ru_maxrss * 1024.0;

  printf ("weights:         %.1f MiB in %d initializers\n", weights / 1048576.0, N_TENSORS);
  printf ("plain write():   %.3f s  (%.0f MiB/s)\n", best_plain, weights / 1048576.0 / best_plain);
  printf ("onnxio_save:     %.3f s  (%.0f MiB/s)\n", best_onnx, weights / 1048576.0 / best_onnx);
  printf ("ratio:           %.3f  (target <= 1.3)\n", best_onnx / best_plain);
  printf ("peak RSS:        %.1f MiB = %.3f x weights  (target < 1.10)\n", rss / 1048576.0,
          rss / (double) weights);
  for (guint i = 0; i < N_TENSORS; i++)
    g_bytes_unref (chunks[i]);
  return best_onnx / best_plain <= 1.3 && rss < weights * 1.1 ? 0 : 1;
}
