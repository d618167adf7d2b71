/* tensorfiles.c — the error domain and the atomic file writer shared by the
 * .npy and .safetensors code. */
#include "export/tensors/tensorfiles-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (export-tensor-file-error-quark, export_tensor_file_error)

struct _ExportTensorFileWriter
{
  char *path;
  char *tmp_path;
  int   fd;
};

static void
writer_free (ExportTensorFileWriter *w)
{
  if (w->fd >= 0)
    close (w->fd);
  if (w->tmp_path != NULL)
    g_unlink (w->tmp_path);
  g_free (w->tmp_path);
  g_free (w->path);
  g_free (w);
}

ExportTensorFileWriter *
export_tensor_file_writer_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  ExportTensorFileWriter *w = g_new0 (ExportTensorFileWriter, 1);
  w->path = g_strdup (path);
  w->tmp_path = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  /* 0666 & ~umask, as a plain creat() would give the final file. */
  w->fd = g_mkstemp_full (w->tmp_path, O_WRONLY | O_CLOEXEC, 0666);
  if (w->fd < 0)
    {
      int saved = errno;
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO,
                   "%s: cannot create a temporary file in %s: %s",
                   path, dir, g_strerror (saved));
      g_clear_pointer (&w->tmp_path, g_free);
      writer_free (w);
      return NULL;
    }
  return w;
}

gboolean
export_tensor_file_writer_write (ExportTensorFileWriter *w, gconstpointer data,
                                 gsize len, GError **error)
{
  const guint8 *p = data;

  while (len > 0)
    {
      /* Linux writes at most 0x7ffff000 bytes per call anyway. */
      ssize_t n = write (w->fd, p, MIN (len, (gsize) 1 << 30));
      if (n < 0)
        {
          int saved = errno;
          if (saved == EINTR)
            continue;
          g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO,
                       "%s: write failed: %s", w->path, g_strerror (saved));
          writer_free (w);
          return FALSE;
        }
      p += n;
      len -= (gsize) n;
    }
  return TRUE;
}

gboolean
export_tensor_file_writer_commit (ExportTensorFileWriter *w, GError **error)
{
  int saved;

  /* fsync before rename: after a crash the target is the old or the new
   * file, never an empty one. */
  if (fsync (w->fd) != 0 && errno != EINVAL)
    {
      saved = errno;
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO,
                   "%s: fsync failed: %s", w->path, g_strerror (saved));
      writer_free (w);
      return FALSE;
    }
  if (close (w->fd) != 0)
    {
      saved = errno;
      w->fd = -1;
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO,
                   "%s: close failed: %s", w->path, g_strerror (saved));
      writer_free (w);
      return FALSE;
    }
  w->fd = -1;
  if (g_rename (w->tmp_path, w->path) != 0)
    {
      saved = errno;
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO,
                   "%s: cannot rename %s into place: %s", w->path, w->tmp_path,
                   g_strerror (saved));
      writer_free (w);
      return FALSE;
    }
  g_clear_pointer (&w->tmp_path, g_free);
  writer_free (w);
  return TRUE;
}

void
export_tensor_file_writer_abort (ExportTensorFileWriter *w)
{
  if (w != NULL)
    writer_free (w);
}

GBytes *
export_tensor_file_map (const char *path, GError **error)
{
  g_autoptr(GError) local = NULL;
  GMappedFile *mf = g_mapped_file_new (path, FALSE, &local);

  if (mf == NULL)
    {
      g_set_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO,
                   "%s: cannot read: %s", path, local->message);
      return NULL;
    }
  GBytes *bytes = g_mapped_file_get_bytes (mf);
  g_mapped_file_unref (mf);
  return bytes;
}
