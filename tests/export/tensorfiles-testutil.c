#include "tensorfiles-testutil.h"

#include <glib/gstdio.h>

char *
tf_test_tmpdir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("symonnx-tensorfiles-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

void
tf_test_rmtree (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        tf_test_rmtree (p);
      else
        g_unlink (p);
    }
  g_dir_close (d);
  g_rmdir (dir);
}

gboolean
tf_test_run_python (const char *script, ...)
{
  const char *python = "/usr/bin/python3";
  const char *root = g_getenv ("SYMONNX_SOURCE_ROOT");

  if (!g_file_test (python, G_FILE_TEST_IS_EXECUTABLE) || root == NULL)
    {
      g_test_skip ("needs /usr/bin/python3 and SYMONNX_SOURCE_ROOT");
      return FALSE;
    }
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (python));
  g_ptr_array_add (argv, g_build_filename (root, "tests", "export", script, NULL));
  va_list ap;
  va_start (ap, script);
  for (const char *a = va_arg (ap, const char *); a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, g_strdup (a));
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_printerr ("%s failed:\n%s%s", script, out, err);
  else
    g_test_message ("%s: %s", script, out);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return TRUE;
}

guint8 *
tf_test_random_bytes (GRand *rand, gsize n)
{
  guint8 *p = g_malloc (MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    p[i] = g_rand_int_range (rand, 0, 256);
  return p;
}

guint
tf_test_count_hidden (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    n += name[0] == '.';
  g_dir_close (d);
  return n;
}

Tensor *
tf_test_make_tensor (GraphDType dtype, guint rank, const gint64 *dims, GRand *rand)
{
  gsize nbytes;
  g_assert_true (tensor_shape_nbytes (dtype, rank, dims, &nbytes));
  guint8 *data = tf_test_random_bytes (rand, nbytes);
  if (dtype == GRAPH_DTYPE_BOOL)
    for (gsize i = 0; i < nbytes; i++)
      data[i] &= 1;
  g_autoptr(GBytes) bytes = g_bytes_new_take (data, nbytes);
  g_autoptr(GError) error = NULL;
  Tensor *t = tensor_new (dtype, rank, dims, bytes, &error);
  g_assert_no_error (error);
  return t;
}


void
tf_test_assert_tensor_equal (const Tensor *a, const Tensor *b)
{
  g_assert_cmpint (tensor_dtype (a), ==, tensor_dtype (b));
  g_assert_cmpuint (tensor_rank (a), ==, tensor_rank (b));
  for (guint i = 0; i < tensor_rank (a); i++)
    g_assert_cmpint (tensor_dim (a, i), ==, tensor_dim (b, i));
  g_assert_cmpmem (tensor_data (a), tensor_nbytes (a), tensor_data (b), tensor_nbytes (b));
  g_assert_true (tensor_equal (a, b));
}

