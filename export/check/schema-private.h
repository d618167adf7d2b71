/* The generated schema table (export/check/onnx-schemas-generated.c); use the lookup API of
 * export/onnx-schema.h. */
#pragma once

#include "export/onnx-schema.h"

extern const OnnxTypeSet onnx_schema_typesets[];
extern const OnnxSchema onnx_schemas[];
extern const guint onnx_schemas_count;
extern const int onnx_schema_max_default_opset;
