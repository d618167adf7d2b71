/* symonnx — tensor files: numpy .npy and .safetensors, read and write.
 *
 * Every reader validates the file's own description of itself (header
 * lengths, shapes, offsets) against the file size before it allocates or
 * reads, and reports a malformed file as an EXPORT_TENSOR_FILE_ERROR that
 * names the file, the place (byte offset, header field, tensor) and the
 * problem.  Every writer writes a temporary file in the target folder and
 * renames it over the target, so a failed write never leaves a truncated
 * file behind.
 *
 * Note [npy]
 * Format versions 1.0, 2.0 and 3.0 (3.0: UTF-8 header), C order only.
 * dtypes: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 <c8 <c16 (any of
 * the byte-order marks '<' '|' '=' is accepted; '>' big-endian data is
 * byte-swapped to little-endian while loading).  fortran_order True, object
 * ('O'), string, datetime, void and structured dtypes are refused with
 * EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED.  The header dict is parsed by a
 * strict hand parser (no evaluation): exactly the keys 'descr',
 * 'fortran_order' and 'shape', shape a tuple of non-negative integers whose
 * byte size must equal the data that follows the header exactly (trailing
 * bytes are an error).  The writer produces the same bytes as numpy 1.24's
 * np.save: version 1.0 (2.0 if the header would not fit a 16-bit length),
 * data aligned to 64 bytes.  BFLOAT16 and STRING tensors cannot be saved
 * (numpy has no such dtypes), nor tensors of more than 32 dimensions
 * (numpy 1.x cannot load them; the reader accepts up to TENSOR_MAX_RANK).
 * Loading a file maps it: little-endian data are a zero-copy view (byte-
 * swapped data are a copy), so the file must not be truncated while the
 * tensor is alive.
 *
 * Note [safetensors]
 * An 8-byte little-endian header length N (at most 100,000,000, as in the
 * reference implementation), N bytes of JSON, then the data buffer.  The
 * JSON is checked by a strict RFC 8259 scan (nesting depth at most 64) and
 * then parsed with json-glib.  Each entry is {"dtype", "shape",
 * "data_offsets": [begin, end]} relative to the data buffer; other members
 * of an entry are ignored, as the reference reader does.  dtypes: BOOL U8
 * I8 I16 U16 F16 BF16 I32 U32 F32 F64 I64 U64.  As in the reference reader,
 * the tensors' ranges sorted by begin must tile the data buffer exactly:
 * overlaps, gaps and trailing bytes are errors.
 * Loaded tensors are zero-copy views into the mapped file (their GBytes
 * keep the mapping alive); a tensor whose data is not aligned to its
 * element size (only possible in files not written by the reference writer)
 * is copied instead.  The file must not be truncated while tensors from it
 * are alive (that is SIGBUS, as with any mmap).
 * The writer lays the tensors out as the reference writer does, so files
 * are byte-identical to safetensors' own: ordered by dtype (the reference's
 * Dtype enum, descending: U64 I64 F64 F32 U32 I32 BF16 F16 U16 I16 I8 U8
 * BOOL), then by name, which keeps every tensor aligned to its element
 * size; "__metadata__" (keys sorted) first; header padded with spaces to a
 * multiple of 8 bytes; data contiguous in header order.
 */
#pragma once

#include <glib.h>

#include "ir/graph.h"

G_BEGIN_DECLS

#define EXPORT_TENSOR_FILE_ERROR (export_tensor_file_error_quark ())
GQuark      export_tensor_file_error_quark (void);

typedef enum
{
  EXPORT_TENSOR_FILE_ERROR_IO,          /* open, read, write or rename failed */
  EXPORT_TENSOR_FILE_ERROR_FORMAT,      /* malformed or self-contradicting file */
  EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED, /* well-formed, but a feature we refuse
                                           (fortran order, object dtype, ...) */
  EXPORT_TENSOR_FILE_ERROR_INVALID,     /* a tensor that cannot be written */
} ExportTensorFileError;

/* ---- .npy -------------------------------------------------------------- */

/* Loads one array.  Little-endian data of a file is a zero-copy view of the
 * mapped file.  (transfer full) */
Tensor     *export_npy_load (const char *path, GError **error);
/* Parses an in-memory .npy; the data are copied.  `display_name` is used in
 * error messages.  (transfer full) */
Tensor     *export_npy_load_from_data (const guint8 *data, gsize len,
                                       const char *display_name, GError **error);
/* The file's bytes as numpy's np.save writes them.  (transfer full) */
GBytes     *export_npy_save_to_bytes (const Tensor *t, GError **error);
gboolean    export_npy_save (const Tensor *t, const char *path, GError **error);

/* ---- .safetensors ------------------------------------------------------- */

/* name → Tensor* (values own a ref); data are zero-copy views into the mapped
 * file.  (transfer full) */
GHashTable *export_safetensors_load (const char *path, GError **error);
/* Same, and the "__metadata__" map (string → string; an empty table when
 * the file has none) if `metadata` is not NULL.  (transfer full) */
GHashTable *export_safetensors_load_full (const char *path, GHashTable **metadata,
                                          GError **error);
/* Parses a safetensors image held in `bytes`; tensors are views into it.
 * (transfer full) */
GHashTable *export_safetensors_load_bytes (GBytes *bytes, const char *display_name,
                                           GHashTable **metadata, GError **error);
/* Writes `tensors` (name → Tensor*) and the optional `metadata` (string →
 * string, may be NULL) as "__metadata__".  Names must be non-empty UTF-8 and
 * not "__metadata__". */
gboolean    export_safetensors_save (GHashTable *tensors, GHashTable *metadata,
                                     const char *path, GError **error);

G_END_DECLS
