/* symonnx — the argument counts of torch's aten operators (internal).
 *
 * The table is generated from torch 1.13's own schemas by
 * tools/gen_aten_schemas.py (aten-schemas-generated.c), sorted by name.
 * A trace records every argument of an aten call, defaults included, so a
 * node whose input count is outside [min_args, max_args] over the
 * operator's overloads is malformed: the exporter refuses it before any
 * symbolic reads its inputs. */
#pragma once

#include <glib.h>

typedef struct
{
  const char *name;       /* "aten::relu" */
  guint8      min_args;   /* arguments without a default, fewest over the overloads */
  guint8      max_args;   /* arguments, most over the overloads */
} SymAtenArity;

extern const SymAtenArity sym_aten_arities[];
extern const gsize        sym_aten_arities_len;

/* The entry for `kind`, or NULL when torch has no such operator. */
const SymAtenArity *sym_aten_arity (const char *kind);
