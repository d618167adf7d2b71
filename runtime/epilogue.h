/* What a fused kernel does to its result before storing it (Note [Fusion],
 * session-private.h): add another tensor of the same shape, then an
 * activation.  Conv (k-conv.c, conv-depthwise.c) applies it to each block
 * of output rows while the block is still in cache. */
#pragma once

#include "runtime/kernel.h"

typedef enum
{
  RT_ACT_NONE,
  RT_ACT_RELU,   /* x > 0 ? x : 0, as Relu (NaN → 0) */
  RT_ACT_CLIP,   /* Clip's comparisons with lo and hi in the element type */
} RtActKind;

typedef struct
{
  const RtTensor *sum;    /* added first, same shape and type as the result; NULL: none */
  RtActKind       act;
  double          lo, hi; /* RT_ACT_CLIP: bounds, -inf / inf where absent */
} RtEpilogue;

/* Whether ep does anything (NULL: nothing). */
static inline gboolean
rt_epilogue_active (const RtEpilogue *ep)
{
  return ep && (ep->sum || ep->act != RT_ACT_NONE);
}

/* y[r * ld + i] for r < rows, i < n (float or double `dt`, bias too):
 * y += bias[r] when bias is not NULL (a Conv's bias, after its GEMM), then
 * y += z[... same offset from z0 ...] when ep->sum, then the activation.
 * z0 is the element offset of y[0] in the result (and so in ep->sum). */
void rt_epilogue_rows (GraphDType dt, void *y, const void *bias, gint64 z0, gint64 rows,
                       gint64 n, gint64 ld, const RtEpilogue *ep);
/* ep alone over n contiguous elements starting at element offset z0. */
static inline void
rt_epilogue_apply (GraphDType dt, void *y, gint64 z0, gint64 n, const RtEpilogue *ep)
{
  rt_epilogue_rows (dt, y, NULL, z0, 1, n, n, ep);
}
