/* symonnx — umbrella header: include this one.
 *
 *   ir/        the graph IR, builder, text and DOT        (graph_, tensor_)
 *   export/    .onnx, .npy, .safetensors files; ONNX schemas and the
 *              structural checker; the export pipeline     (onnxio_, export_, onnx_)
 *   symbolic/  symbolic functions and their registry       (sym_)
 *   runtime/   the executor and numerical verification     (rt_)
 *   verify/    the trace's reference run; localizing the first
 *              divergent node of an export                  (verify_)
 */
#pragma once

#include "ir/graph.h"
#include "export/onnxio.h"
#include "export/tensorfiles.h"
#include "export/onnx-schema.h"
#include "export/onnx-check.h"
#include "symbolic/symbolic.h"
#include "export/export.h"
#include "runtime/runtime.h"
#include "verify/verify.h"
