/* symonnx — the argument counts and kinds of torch's aten operators
 * (internal).
 *
 * The table is generated from torch 1.13's own schemas by
 * tools/gen_aten_schemas.py (aten-schemas-generated.c), sorted by name.
 * A trace records every argument of an aten call, defaults included, so a
 * node whose input count is outside [min_args, max_args] over the
 * operator's overloads is malformed, as is one whose output count is
 * outside [min_returns, max_returns]: the exporter refuses it before any
 * symbolic reads its inputs or outputs.  So is a node with an input whose declared
 * type no overload takes at that position (a Tensor where every overload
 * wants int[], a string where a Tensor is required). */
#pragma once

#include "ir/graph.h"

typedef struct
{
  const char *name;       /* "aten::relu" */
  guint8      min_args;   /* arguments without a default, fewest over the overloads */
  guint8      max_args;   /* arguments, most over the overloads */
  /* Each overload's arguments: overloads separated by '|', arguments by
   * ';', each "CODE NAME TYPE" (TYPE as the schema spells it).  CODE, after
   * a '?' for an Optional argument: T Tensor, i int (also ScalarType,
   * Layout, MemoryFormat), b bool, f float, n Scalar, c complex, s str
   * (also Dimname), D Device, L Tensor[] (or Tensor?[]), l int[], B bool[],
   * F float[], S str[], N Scalar[]; '*' any other type (not judged).  A
   * schema with "..." ends with "* ... ...". */
  const char *overloads;
  /* results, fewest and most over the overloads: a trace node has as many
   * outputs as its call returned (symbolics read output 0's type) */
  guint8      min_returns, max_returns;
} SymAtenArity;

extern const SymAtenArity sym_aten_arities[];
extern const gsize        sym_aten_arities_len;

/* The entry for `kind`, or NULL when torch has no such operator. */
const SymAtenArity *sym_aten_arity (const char *kind);

/* Checks aten node n's input count and each input's declared kind against
 * torch's schemas; an error naming the node, its location, the argument
 * and the kinds otherwise.  TRUE for names torch lacks. */
gboolean sym_aten_check_arguments (GraphNode *n, GError **error);

/* Refuses an aten node whose inputs' declared shapes contradict each other
 * (declared-shapes.c): matmul/mm/bmm/linear's contracted dims, element-wise
 * operands that cannot broadcast, cat's dims off the cat dim, a
 * convolution's channels against its weight and groups, view/reshape's
 * element count; the error names both values.  Static dims only. */
gboolean sym_check_declared_shapes (GraphNode *n, GError **error);
