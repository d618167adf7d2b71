/* Opset 17: LayerNormalization (the opset 9 function picks it at 17; the
 * entry records the change for the coverage table). */
#include "symbolic/sym-private.h"

const SymEntry sym_opset17_table[] = {
  { "aten::layer_norm", sym_layer_norm_any },
};
const gsize sym_opset17_table_len = G_N_ELEMENTS (sym_opset17_table);
