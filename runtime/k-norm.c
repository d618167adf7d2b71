#include "runtime/kernel.h"
static gboolean k_stub_norm (RtCall *c, GError **e) { (void) c; (void) e; return FALSE; }
static const RtKernelDef defs[] = { { "zz", "Stub", 1, 0, 0, 0, 0, 0, 0, k_stub_norm, NULL, NULL } };
RT_KERNEL_TABLE (rt_kernels_norm, defs);
