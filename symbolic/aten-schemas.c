/* symonnx — lookup in the generated aten argument-count table. */
#include "symbolic/aten-schemas.h"
#include <stdlib.h>
#include <string.h>

static int
compare_entry (const void *key, const void *entry)
{
  return strcmp (key, ((const SymAtenArity *) entry)->name);
}

const SymAtenArity *
sym_aten_arity (const char *kind)
{
  return bsearch (kind, sym_aten_arities, sym_aten_arities_len, sizeof (SymAtenArity),
                  compare_entry);
}
