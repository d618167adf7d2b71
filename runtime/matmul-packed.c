/* MatMul with a constant B (a Linear layer's weights) on the packed GEMM
 * of conv-packed.c: Y^T = B^T · A^T, B^T packed once when the session is
 * made (no repacking of the weights per run, as sgemm does), A's rows
 * packed as B columns per block, Y^T's block transposed into Y's rows.
 *
 * Each element of Y is the same sum whichever block or thread computes
 * it (the K slices depend on K alone), so 1 and N threads give the same
 * bits, and so do the fused (bias, activation in the store) and unfused
 * (Add and activation nodes after) runs: the kernel's store adds the bias
 * to the finished sum, as the Add node does. */
#include "runtime/matmul-packed.h"
#include "runtime/kernels-private.h"
#include <string.h>

RtPackedW *
rt_matmul_pack_b (const Tensor *b)
{
  if (tensor_dtype (b) != GRAPH_DTYPE_FLOAT || tensor_rank (b) != 2 || !tensor_has_data (b))
    return NULL;
  gint64 K = tensor_dim (b, 0), N = tensor_dim (b, 1);
  /* element (n, k) of B^T is b[k * N + n] */
  return rt_packed_a_new (tensor_data (b), N, K, 1, N);
}

typedef struct
{
  const RtPackedW  *p;
  const float      *a, *bias;
  float            *y, *work;
  gint64            rows, K, N, nb, nblocks, tasks, work_floats;
  const RtEpilogue *ep;
  RtRowsFn          rows_fn;
  gconstpointer     rows_data;
} Job;

/* Task t: blocks t, t + tasks, ... each packed, multiplied, transposed. */
static void
tasks_range (gint64 begin, gint64 end, gpointer data)
{
  const Job *j = data;
  for (gint64 t = begin; t < end; t++)
    {
      float *bp = j->work + t * j->work_floats;
      float *c = bp + rt_conv_packed_b_floats (j->p, j->nb);
      for (gint64 blk = t; blk < j->nblocks; blk += j->tasks)
        {
          gint64 r0 = blk * j->nb, n = MIN (j->nb, j->rows - r0);
          rt_conv_pack_b_cols (j->p, j->a + r0 * j->K, j->K, n, bp);
          rt_conv_packed_gemm (j->p, 0, bp, n, c, j->nb, j->bias, NULL, j->ep);
          float *y = j->y + r0 * j->N;
          for (gint64 r = 0; r < n; r++)
            for (gint64 i = 0; i < j->N; i++)
              y[r * j->N + i] = c[i * j->nb + r];
          if (j->rows_fn)
            j->rows_fn (y, n, j->N, j->rows_data);
        }
    }
}

gboolean
rt_matmul_packed (RtCall *call, const RtPackedW *p, const RtTensor *a, const RtTensor *b,
                  const float *bias, const RtEpilogue *ep, RtRowsFn rows_fn,
                  gconstpointer rows_data, gboolean *done, GError **error)
{
  *done = FALSE;
  if (p == NULL || a->dtype != GRAPH_DTYPE_FLOAT || b->dtype != GRAPH_DTYPE_FLOAT || a->rank < 2
      || b->rank != 2 || !rt_packed_a_is (p, b->data, b->dims[1], b->dims[0])
      || a->dims[a->rank - 1] != b->dims[0])
    return TRUE;
  /* A's rows are the kernel's columns, in panels of nr: where they would
   * fill less than 3/4 of the panels (35 rows in 64 columns), sgemm is the
   * faster (bench/runtime-packed-gemm: 0.58x at 35 rows, 1.1x at 128).  The
   * choice depends on the shapes alone, so fused and unfused runs agree. */
  gint64 nr = rt_packed_nr (p), rows = b->dims[0] ? a->numel / b->dims[0] : 0;
  if (rows * 4 < ((rows + nr - 1) / nr * nr) * 3)
    return TRUE;
  Job j = { .p = p, .a = a->data, .bias = bias, .ep = ep, .rows_fn = rows_fn,
            .rows_data = rows_data, .K = b->dims[0], .N = b->dims[1] };
  gint64 dims[RT_MAX_RANK];
  memcpy (dims, a->dims, a->rank * sizeof (gint64));
  dims[a->rank - 1] = j.N;
  RtTensor *y = rt_call_output (call, 0, GRAPH_DTYPE_FLOAT, a->rank, dims, error);
  if (y == NULL)
    return FALSE;
  *done = TRUE;
  j.y = y->data;
  j.rows = rows;
  if (j.rows == 0 || j.N == 0)
    return TRUE;
  /* Blocks of rows whose packed A^T is about 256 KiB (in L2 with the
   * weights streaming past), a multiple of the panel width; at least one
   * block per thread. */
  gint64 threads = rt_call_threads (call);
  j.nb = MAX ((65536 / j.K) / nr * nr, nr);
  if (threads > 1)
    j.nb = MIN (j.nb, ((j.rows + threads - 1) / threads + nr - 1) / nr * nr);
  j.nb = MIN (j.nb, (j.rows + nr - 1) / nr * nr);
  j.nblocks = (j.rows + j.nb - 1) / j.nb;
  j.tasks = MIN (threads, j.nblocks);
  j.work_floats = (rt_conv_packed_b_floats (p, j.nb) + j.N * j.nb + 15) / 16 * 16;
  j.work = rt_call_scratch (call, (gsize) (j.tasks * j.work_floats) * sizeof (float), error);
  if (j.work == NULL)
    return FALSE;
  rt_parallel_for (call, j.tasks, 1, tasks_range, &j);
  return TRUE;
}
