/* symonnx — reading ONNX SequenceProto and OptionalProto .pb files (the
 * backend tests' test_data_set_N/{input,output}_N.pb of sequence and
 * optional values; onnx-data.proto).  Sequences of tensors only: nested
 * sequences, maps and sparse tensors are refused with
 * ONNXIO_ERROR_UNSUPPORTED.  An optional holding a value is read as that
 * value. */
#pragma once

#include <glib.h>
#include "ir/graph.h"

G_BEGIN_DECLS

typedef enum
{
  ONNXIO_VALUE_TENSOR,
  ONNXIO_VALUE_SEQUENCE,
  ONNXIO_VALUE_NONE,       /* an optional without value */
} OnnxioValueKind;

typedef struct
{
  OnnxioValueKind kind;
  GraphDType      elem_type;  /* SEQUENCE: the items' type (UNDEFINED when empty) */
  Tensor         *tensor;     /* TENSOR (owned) */
  GPtrArray      *items;      /* SEQUENCE: Tensor* (owned) */
} OnnxioValue;

void         onnxio_value_free (OnnxioValue *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnnxioValue, onnxio_value_free)

/* A SequenceProto / OptionalProto in memory (`display` names it in
 * errors) or in a file; *name receives its name (NULL when it has none). */
OnnxioValue *onnxio_sequence_load_from_data (const guint8 *data, gsize len, const char *display,
                                             char **name, GError **error);
OnnxioValue *onnxio_optional_load_from_data (const guint8 *data, gsize len, const char *display,
                                             char **name, GError **error);
OnnxioValue *onnxio_sequence_load (const char *path, char **name, GError **error);
OnnxioValue *onnxio_optional_load (const char *path, char **name, GError **error);

G_END_DECLS
