/* Private helpers shared by npy.c and safetensors.c. */
#pragma once

#include "export/tensorfiles.h"

G_BEGIN_DECLS

/* A file written under a temporary name in the target's folder and renamed
 * over the target by _commit (atomic replace).  _abort (or a failed write
 * or commit) removes the temporary file; every function frees `w` when it
 * fails, and _commit/_abort always free it. */
typedef struct _ExportTensorFileWriter ExportTensorFileWriter;

ExportTensorFileWriter *export_tensor_file_writer_open (const char *path, GError **error);
gboolean    export_tensor_file_writer_write (ExportTensorFileWriter *w, gconstpointer data,
                                             gsize len, GError **error);
gboolean    export_tensor_file_writer_commit (ExportTensorFileWriter *w, GError **error);
void        export_tensor_file_writer_abort (ExportTensorFileWriter *w);

/* Maps `path` read-only; an empty file gives an empty GBytes. */
GBytes     *export_tensor_file_map (const char *path, GError **error);

G_END_DECLS
