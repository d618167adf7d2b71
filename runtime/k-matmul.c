#include "runtime/kernel.h"
static gboolean k_stub_matmul (RtCall *c, GError **e) { (void) c; (void) e; return FALSE; }
static const RtKernelDef defs[] = { { "zz", "Stub", 1, 0, 0, 0, 0, 0, 0, k_stub_matmul, NULL, NULL } };
RT_KERNEL_TABLE (rt_kernels_matmul, defs);
