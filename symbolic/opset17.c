/* Opset 17: LayerNormalization (the opset 9 function picks it at 17; the
 * entry records the change for the coverage table). */
#include "symbolic/opset-tables.h"

static const SymEntry entries[] = {
  SYM_FN ("aten::layer_norm", sym_layer_norm_any),
};
const SymTable sym_opset17 = SYM_TABLE (17, entries);
