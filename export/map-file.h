/* Reading input files by mapping them (private to export/). */
#pragma once

#include <glib.h>

/* g_mapped_file_new (read-only) whose pages are mapped up front
 * (MADV_POPULATE_READ): export writes nearly every byte of a weights file
 * back out, and write() from a fresh mapping faults each page in on the
 * way, which made writing AlexNet's 233 MiB 2.5x slower than writing it
 * from memory; populating the mapping at once costs ~1 ms for a file in
 * the page cache.  On kernels without it (before 5.14) pages fault in as
 * before.  NULL with the message of g_mapped_file_new's error. */
GMappedFile *export_map_file (const char *path, GError **error);
