/* Shared by the ATen kernel tests (test-aten.c, test-aten-nn.c): torch's
 * reference data under tests/fixtures/runtime/ and running a case. */
#pragma once

#include "symonnx.h"

/* tests/fixtures/runtime/FILE (.npy) (transfer full). */
Tensor     *aten_test_fixture (const char *file);
/* Runs g on `inputs` (name → Tensor*); returns name → Tensor*. */
GHashTable *aten_test_run (Graph *g, GHashTable *inputs);
/* Output `name` of `outputs` equals the fixture within rtol/atol (numpy's
 * allclose) and has its element type; `what` names the case in failures. */
void        aten_test_expect (GHashTable *outputs, const char *name, const char *fixture,
                              double rtol, double atol, const char *what);
