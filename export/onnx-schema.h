/* symonnx — ONNX operator schemas: every version of every operator in the
 * domains python3-onnx 1.12 knows ("", "ai.onnx.ml",
 * "ai.onnx.preview.training"), as a generated table (export/check/onnx-schemas-generated.c,
 * written by tools/gen_onnx_schemas.py).
 *
 * Note [Schema lookup]
 * As in ONNX, an op's schema for a model is the newest version whose
 * since_version is <= the model's opset for the op's domain:
 *   onnx_schema_lookup ("", "Clip", 9)  → Clip-6 (min/max attributes)
 *   onnx_schema_lookup ("", "Clip", 13) → Clip-13 (min/max inputs)
 * The default domain may be spelled "" or "onnx" (the IR's spelling, see
 * ir/graph.h Note [Node kinds]) or "ai.onnx".
 */
#pragma once

#include <glib.h>
#include "ir/graph.h"

G_BEGIN_DECLS

/* AttributeProto.AttributeType values. */
typedef enum
{
  ONNX_ATTR_UNDEFINED = 0,
  ONNX_ATTR_FLOAT = 1, ONNX_ATTR_INT = 2, ONNX_ATTR_STRING = 3,
  ONNX_ATTR_TENSOR = 4, ONNX_ATTR_GRAPH = 5,
  ONNX_ATTR_FLOATS = 6, ONNX_ATTR_INTS = 7, ONNX_ATTR_STRINGS = 8,
  ONNX_ATTR_TENSORS = 9, ONNX_ATTR_GRAPHS = 10,
  ONNX_ATTR_SPARSE_TENSOR = 11, ONNX_ATTR_SPARSE_TENSORS = 12,
  ONNX_ATTR_TYPE_PROTO = 13, ONNX_ATTR_TYPE_PROTOS = 14,
} OnnxAttrType;

typedef enum
{
  ONNX_PARAM_S,   /* single: exactly one, present */
  ONNX_PARAM_O,   /* optional: may be absent ("" name) */
  ONNX_PARAM_V,   /* variadic: this and every later actual */
} OnnxParamOption;

/* Allowed types of a formal parameter: bit d of a mask is element type d
 * (GraphDType / TensorProto.DataType). */
typedef struct
{
  guint32 tensor;        /* tensor(d) */
  guint32 seq;           /* seq(tensor(d)) */
  guint32 opt_tensor;    /* optional(tensor(d)) */
  guint32 opt_seq;       /* optional(seq(tensor(d))) */
  guint32 other;         /* 1: some map(...), 2: some seq(map(...)) */
} OnnxTypeSet;

typedef struct
{
  const char *name;
  guint8      type;      /* OnnxAttrType */
  guint8      required;
} OnnxSchemaAttr;

typedef struct
{
  const char *name;
  guint16     typeset;   /* index for onnx_schema_typeset() */
  guint8      type_param;/* 1-based index into the schema's type_params
                            (actuals bound to one parameter share one type);
                            0: a fixed type list, no parameter */
  guint8      option;    /* OnnxParamOption */
  guint8      homogeneous; /* variadic: all actuals share one type */
} OnnxSchemaParam;

typedef struct
{
  const char *domain;    /* "" for the default domain */
  const char *name;
  int         since_version;
  int         deprecated;
  int         min_inputs, max_inputs;    /* max: G_MAXINT32 for variadic */
  int         min_outputs, max_outputs;
  const OnnxSchemaAttr  *attrs;          /* sorted by name */
  int         n_attrs;
  const OnnxSchemaParam *params;         /* n_inputs formal inputs, then n_outputs outputs */
  int         n_inputs, n_outputs;
  const char *const *type_params;        /* "T", "T1", ... */
  int         n_type_params;
} OnnxSchema;

/* The newest schema of (domain, op) with since_version <= opset; NULL if
 * none.  (transfer none: static data) */
const OnnxSchema *onnx_schema_lookup (const char *domain, const char *op, gint64 opset);
/* The oldest schema of (domain, op) (so callers can say "exists from opset
 * N"); NULL if the op is unknown in the domain. */
const OnnxSchema *onnx_schema_first (const char *domain, const char *op);
/* TRUE for the domains the table covers. */
gboolean          onnx_schema_domain_known (const char *domain);
/* The newest default-domain opset the table knows (17 for onnx 1.12). */
int               onnx_schema_max_opset (void);
/* Every schema, sorted by (domain, name, since_version). */
guint             onnx_schema_count (void);
const OnnxSchema *onnx_schema_nth (guint i);

const OnnxSchemaAttr  *onnx_schema_find_attr (const OnnxSchema *s, const char *name);
/* The formal parameter that actual input i binds to (variadic last formal
 * takes the rest); NULL past the formals. */
const OnnxSchemaParam *onnx_schema_input_param (const OnnxSchema *s, guint i);
const OnnxSchemaParam *onnx_schema_output_param (const OnnxSchema *s, guint i);
const OnnxTypeSet     *onnx_schema_typeset (guint index);
/* "tensor(float16|float|double)" and the like.  (transfer full) */
char                  *onnx_type_set_to_string (const OnnxTypeSet *ts);

/* "float", "int", "ints", "graph", ... (ONNX's names for attribute types). */
const char  *onnx_attr_type_name (OnnxAttrType t);
/* The ONNX attribute type of an IR attribute kind. */
OnnxAttrType onnx_attr_type_from_graph (GraphAttrKind k);

G_END_DECLS
