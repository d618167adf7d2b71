/* symonnx — which inputs of an ONNX operator share a type parameter
 * (internal).  The table is generated from python3-onnx's schemas by
 * tools/gen_onnx_type_params.py (onnx-type-params-generated.c), sorted by
 * (op, since).  A kernel row's `dtypes` checks input 0 only; inputs that
 * share input 0's (or each other's) parameter must have one element type,
 * or a kernel would read one input's bytes as another's type: the session
 * checks them for every ONNX node before its kernel runs. */
#pragma once

#include "runtime/kernel.h"

typedef struct
{
  const char *op;        /* "MatMul" (default ONNX domain) */
  int         since;     /* opset version of this schema */
  const char *params;    /* per formal input: "T,.,T" ("*": the last repeats) */
} RtOnnxTypeParams;

extern const RtOnnxTypeParams rt_onnx_type_params[];
extern const gsize            rt_onnx_type_params_len;

/* Checks the present tensor inputs of ONNX op `op` at `opset`: TRUE when
 * every two that share a type parameter have one element type, else FALSE
 * with the first such pair (*a < *b) and the parameter's name (a static
 * string, the length in *param_len). */
gboolean rt_onnx_type_params_check (const char *op, gint64 opset, guint n_inputs,
                                    const RtTensor *const *inputs, guint *a, guint *b,
                                    const char **param, int *param_len);
