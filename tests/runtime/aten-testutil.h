/* Shared by the ATen kernel tests (test-aten.c, test-aten-nn.c): torch's
 * reference data under tests/fixtures/runtime/ and running a case. */
#pragma once

#include "symonnx.h"

/* tests/fixtures/runtime/FILE (.npy) (transfer full). */
Tensor     *aten_test_fixture (const char *file);
/* tests/fixtures/DIR/FILE (.npy) (transfer full). */
Tensor     *aten_test_fixture_in (const char *dir, const char *file);
/* One aten op as a graph: an org.pytorch.aten::ATen node (trace FALSE:
 * scalars and lists as Constants) or an aten:: node of a trace graph
 * (prim::Constant scalars, prim::ListConstruct lists).  `args` lists the
 * inputs in schema order, ';'-separated: npy (the next
 * tests/fixtures/DIR/NAME_inK.npy, a graph input xK whose tensor goes into
 * `inputs`), npys:N (N of them: a Tensor[] flattened), none, f:X, i:N,
 * b:0|1, s:STR, is:a,b (int[]; "is:" empty), fs:a,b (float[]).  Outputs
 * are named y0, y1... (transfer full) */
Graph      *aten_test_build (const char *dir, const char *name, const char *op, const char *args,
                             guint n_outputs, gboolean trace, GHashTable *inputs);
/* Runs g on `inputs` (name → Tensor*); returns name → Tensor*. */
GHashTable *aten_test_run (Graph *g, GHashTable *inputs);
/* Output `name` of `outputs` equals the fixture within rtol/atol (numpy's
 * allclose) and has its element type; `what` names the case in failures. */
void        aten_test_expect (GHashTable *outputs, const char *name, const char *fixture,
                              double rtol, double atol, const char *what);
/* The same with a fixture of tests/fixtures/DIR (NaN matches NaN). */
void        aten_test_expect_in (const char *dir, GHashTable *outputs, const char *name,
                                 const char *fixture, double rtol, double atol, const char *what);
