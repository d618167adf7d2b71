/* Replays saved inputs through a harness in any build (no libFuzzer):
 *   fuzz-replay-NAME [--suffix .onnx] PATH...
 * A PATH that is a folder is walked (files ending in --suffix, if given).
 * Prints how many inputs ran; a crash or sanitizer report fails the run. */
#include "fuzz.h"
#include <glib.h>
#include <stdio.h>
#include <string.h>

static guint n_run;

static void
replay_file (const char *path)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *error = NULL;
  if (!g_file_get_contents (path, &data, &len, &error))
    {
      fprintf (stderr, "replay: %s\n", error->message);
      g_clear_error (&error);
      return;
    }
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  g_free (data);
  n_run++;
}

static void
replay_path (const char *path, const char *suffix)
{
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        replay_file (path);
      return;
    }
  GDir *dir = g_dir_open (path, 0, NULL);
  if (dir == NULL)
    return;
  /* Sorted, so a replay is the same run every time. */
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (dir);
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      char *child = g_build_filename (path, (const char *) names->pdata[i], NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        replay_path (child, suffix);
      else if (suffix == NULL || g_str_has_suffix (child, suffix))
        replay_file (child);
      g_free (child);
    }
  g_ptr_array_unref (names);
}

int
main (int argc, char **argv)
{
  const char *suffix = NULL;
  int i = 1;
  if (argc > 2 && strcmp (argv[1], "--suffix") == 0)
    {
      suffix = argv[2];
      i = 3;
    }
  for (; i < argc; i++)
    replay_path (argv[i], suffix);
  printf ("replayed %u inputs\n", n_run);
  return n_run > 0 ? 0 : 1;
}
