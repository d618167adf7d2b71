/* Quantized models in the trace run: each quantized kernel against
 * PyTorch, the error cases, a small model in every mode. */
#pragma once

void quant_tests_add (void);
