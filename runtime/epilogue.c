/* Fused epilogues: sum and activation over rows of a result (epilogue.h).
 * Each comparison is the one of the unfused kernel (Relu's x > 0 ? x : 0,
 * Clip's v < lo, v > hi in the element type), so a fused run gives the
 * same bits as the unfused one. */
#include "runtime/epilogue.h"

#define GEN_EPILOGUE(E, T)                                                            \
  static void epilogue_##E (T *y, const T *bias, const T *z, gint64 rows, gint64 n,    \
                            gint64 ld, RtActKind act, T lo, T hi)                    \
  {                                                                                  \
    for (gint64 r = 0; r < rows; r++)                                                \
      {                                                                              \
        T *p = y + r * ld;                                                           \
        if (bias)                                                                    \
          {                                                                          \
            T b = bias[r];                                                           \
            for (gint64 i = 0; i < n; i++)                                           \
              p[i] = p[i] + b;                                                       \
          }                                                                          \
        if (z)                                                                       \
          {                                                                          \
            const T *q = z + r * ld;                                                 \
            for (gint64 i = 0; i < n; i++)                                           \
              p[i] = p[i] + q[i];                                                    \
          }                                                                          \
        if (act == RT_ACT_RELU)                                                      \
          for (gint64 i = 0; i < n; i++)                                             \
            p[i] = p[i] > 0 ? p[i] : 0;                                              \
        else if (act == RT_ACT_CLIP)                                                 \
          for (gint64 i = 0; i < n; i++)                                             \
            {                                                                        \
              T v = p[i];                                                            \
              v = v < lo ? lo : v;                                                   \
              p[i] = v > hi ? hi : v;                                                \
            }                                                                        \
      }                                                                              \
  }
RT_FOREACH_FLOAT (GEN_EPILOGUE)

void
rt_epilogue_rows (GraphDType dt, void *y, const void *bias, gint64 z0, gint64 rows, gint64 n,
                  gint64 ld, const RtEpilogue *ep)
{
  gboolean active = rt_epilogue_active (ep);
  if ((!active && bias == NULL) || rows <= 0 || n <= 0)
    return;
  const RtTensor *sum = active ? ep->sum : NULL;
  RtActKind act = active ? ep->act : RT_ACT_NONE;
  if (dt == GRAPH_DTYPE_FLOAT)
    epilogue_FLOAT (y, bias, sum ? (const float *) sum->data + z0 : NULL, rows, n, ld, act,
                    active ? (float) ep->lo : 0, active ? (float) ep->hi : 0);
  else if (dt == GRAPH_DTYPE_DOUBLE)
    epilogue_DOUBLE (y, bias, sum ? (const double *) sum->data + z0 : NULL, rows, n, ld, act,
                     active ? ep->lo : 0, active ? ep->hi : 0);
}
