/* symonnx — reading and writing ONNX models (.onnx) and TensorProto (.pb)
 * tensor files.
 *
 * Note [ONNX ↔ IR mapping]
 * - Node kinds are "domain::Op"; ONNX's default domain ("" or "ai.onnx")
 *   is spelled "onnx" in the IR and written as "" in files.
 * - ModelProto fields live on the top-level graph: opset_import entries
 *   through graph_set_opset (domain "" = default), the rest as properties
 *   "producer_name", "producer_version", "ir_version", "model_domain",
 *   "model_version", "model_doc_string" and "metadata:KEY".
 * - Initializers are graph inputs with a tensor attached; the writer lists
 *   one in graph.input only when graph_value_initializer_is_input() (always
 *   for ir_version < 4, where ONNX requires it).
 * - value_info entries become the types of intermediate values; the writer
 *   emits value_info for every intermediate value whose type it can write.
 * - Subgraphs (If/Loop/Scan bodies, g/gs attributes) are Graphs owned by
 *   the node; their nodes may use values of enclosing graphs.
 * - An empty input name is an absent optional input (NULL in the IR); an
 *   empty output name is an unnamed value, and an unnamed value that nothing
 *   uses is written back as "".
 * - Not represented (refused with ONNXIO_ERROR_UNSUPPORTED when present):
 *   sparse tensors, model-local functions, training_info, attribute
 *   references (ref_attr_name).  Dropped: TensorProto names/doc strings of
 *   attribute tensors, type/dimension denotations, quantization annotations.
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"

G_BEGIN_DECLS

#define ONNXIO_ERROR (onnxio_error_quark ())
GQuark onnxio_error_quark (void);

typedef enum
{
  ONNXIO_ERROR_IO,            /* cannot open, read, write or rename */
  ONNXIO_ERROR_PARSE,         /* malformed protobuf or inconsistent content */
  ONNXIO_ERROR_UNSUPPORTED,   /* valid ONNX that the IR cannot hold */
  ONNXIO_ERROR_EXTERNAL_DATA, /* external data missing, escaping or short */
  ONNXIO_ERROR_INVALID,       /* a graph that cannot be written */
} OnnxioErrorCode;

/* Subgraph nesting accepted by the reader (checked on the wire format
 * before protobuf-c unpacks anything). */
#define ONNXIO_MAX_GRAPH_DEPTH   64
/* Any message nesting (subgraphs, nested sequence/map types ...). */
#define ONNXIO_MAX_MESSAGE_DEPTH 256
/* Total tensor bytes above which the writer moves tensors to an external
 * data file automatically (protobuf's 2 GiB message limit). */
#define ONNXIO_EXTERNAL_DATA_AUTO ((gsize) G_MAXINT32)

/* Loads a model (the file is mapped, not read).  Initializer raw_data is
 * taken over from the unpacked message, not copied again; external data is
 * a view into the mapped data file.  (transfer full) */
Graph   *onnxio_load (const char *path, GError **error);
/* Loads from memory; `data` is copied where the Graph keeps it.  `base_dir`
 * resolves external data (NULL: external data is refused); `display_name`
 * names the source in error messages (NULL: "<memory>").  (transfer full) */
Graph   *onnxio_load_from_data (const guint8 *data, gsize len,
                                const char *base_dir, const char *display_name,
                                GError **error);

typedef struct
{
  gboolean external_data;   /* tensors of size_threshold bytes or more go to
                               "<model file name>.data" next to the model */
  gsize    size_threshold;  /* bytes; default 1024 (as onnx's helper) */
  /* default FALSE: a graph that lacks what ONNX requires of a model (a
   * default-domain opset when ONNX ops are used; an element type and shape
   * on each graph input and output) is refused (ONNXIO_ERROR_INVALID,
   * naming what is missing) rather than written as a file the checker
   * rejects.  TRUE writes it anyway (tests of checkers). */
  gboolean allow_incomplete;
} OnnxioSaveOptions;

void     onnxio_save_options_init (OnnxioSaveOptions *o);
/* Writes `g` to `path` atomically (temporary file in the same folder, then
 * rename), streaming initializer data straight from the tensors.  Tensors
 * over 2 GiB in total go to external data even without options.  NULL
 * opts: defaults.  A graph built by hand needs its types first
 * (export_infer_types) and an opset (graph_set_opset). */
gboolean onnxio_save (const Graph *g, const char *path,
                      const OnnxioSaveOptions *opts, GError **error);

/* ONNX TensorProto files (the backend-test test_data_set_N/input_N.pb
 * layout).  `name` receives the tensor's name (NULL when it has none).
 * (transfer full) */
Tensor  *onnxio_tensor_load (const char *path, char **name, GError **error);
Tensor  *onnxio_tensor_load_from_data (const guint8 *data, gsize len,
                                       const char *display_name, char **name,
                                       GError **error);
/* `name` may be NULL (no name field). */
gboolean onnxio_tensor_save (const Tensor *t, const char *name,
                             const char *path, GError **error);

/* The ONNX ir_version a model with `g`'s opset imports needs (onnx's
 * helper.VERSION_TABLE: opset 9 → 4, 13 → 7, 17 → 8 ...); at least 3. */
gint64   onnxio_ir_version_for_graph (const Graph *g);

G_END_DECLS
