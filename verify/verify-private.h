/* Helpers shared by verify/'s files (not installed). */
#pragma once

#include "verify/verify.h"

/* The state_dict name a prim::GetAttr chain resolves to
 * ("layer1.0.conv1.weight"), or NULL when v is not such a chain.
 * (transfer full) */
char *verify_getattr_path (GraphValue *v);
