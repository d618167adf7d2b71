/* Mapped, pre-populated input files: see export/map-file.h. */
#include "export/map-file.h"

#include <sys/mman.h>

GMappedFile *
export_map_file (const char *path, GError **error)
{
  GMappedFile *mf = g_mapped_file_new (path, FALSE, error);
  if (mf == NULL)
    return NULL;
#ifdef MADV_POPULATE_READ
  gsize len = g_mapped_file_get_length (mf);
  if (len > 0)
    /* Best effort: EINVAL on older kernels, and an I/O error surfaces
     * again (as SIGBUS, as without this) only if the page is read. */
    (void) madvise (g_mapped_file_get_contents (mf), len, MADV_POPULATE_READ);
#endif
  return mf;
}
