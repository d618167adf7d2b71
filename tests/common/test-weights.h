/* Deterministic random weights for models whose weights are not committed. */
#pragma once

#include "symonnx.h"
#include <json-glib/json-glib.h>

/* name → Tensor* (a new table) from a layout {"name": ["F32"|"I64", [dims]]}:
 * floats uniform in [-0.1, 0.1), running_var in [0.5, 1.5), int64 zeros;
 * the same values on every run (xorshift64* over the sorted names). */
GHashTable *test_random_weights (JsonObject *layout);
