/* TfIdfVectorizer over integer tokens (pool_int64s; string pools need
 * string tensors, which the runtime does not have). */
#include "runtime/kernel.h"
#include <string.h>

static gboolean
k_tfidf (RtCall *call, GError **error)
{
  const RtTensor *x = call->inputs[0];
  const GraphNode *n = call->node;
  const char *mode = rt_attr_s (n, "mode", "TF");
  gint64 minn = rt_attr_i (n, "min_gram_length", 1), maxn = rt_attr_i (n, "max_gram_length", 1);
  gint64 maxskip = rt_attr_i (n, "max_skip_count", 0);
  gsize npool, ncounts, nidx, nw = 0;
  const gint64 *pool, *counts, *idx;
  const double *weights = NULL;
  if (!rt_attr_ints (n, "pool_int64s", &npool, &pool) || !rt_attr_ints (n, "ngram_counts", &ncounts, &counts)
      || !rt_attr_ints (n, "ngram_indexes", &nidx, &idx))
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED,
                     "needs pool_int64s, ngram_counts and ngram_indexes (string pools are not supported)");
      return FALSE;
    }
  if (graph_node_has_attr (n, "weights"))
    graph_node_get_fs (n, "weights", &nw, &weights);
  int m = strcmp (mode, "TF") == 0 ? 0 : strcmp (mode, "IDF") == 0 ? 1 : strcmp (mode, "TFIDF") == 0 ? 2 : -1;
  if (m < 0 || minn < 1 || maxn < minn || maxskip < 0 || (gsize) maxn > ncounts || x->rank < 1 || x->rank > 2)
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad mode, gram lengths, ngram_counts or input rank");
      return FALSE;
    }
  /* The k-grams are pool[counts[k-1] .. counts[k]) (or the pool's end);
   * gram number g (over all lengths, in pool order) is output idx[g]. */
  gint64 ngrams = 0, width = 0;
  for (gsize k = 0; k < ncounts; k++)
    {
      gint64 end = k + 1 < ncounts ? counts[k + 1] : (gint64) npool;
      if (counts[k] < 0 || end < counts[k] || end > (gint64) npool || (end - counts[k]) % (gint64) (k + 1))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "ngram_counts do not split pool_int64s");
          return FALSE;
        }
      ngrams += (end - counts[k]) / (gint64) (k + 1);
    }
  if ((gint64) nidx != ngrams || (weights && (gint64) nw != ngrams))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "ngram_indexes / weights do not match the pool");
      return FALSE;
    }
  for (gsize g = 0; g < nidx; g++)
    {
      if (idx[g] < 0 || idx[g] > (1 << 24))
        {
          rt_call_error (call, error, RT_ERROR_INVALID_GRAPH, "bad ngram index");
          return FALSE;
        }
      width = MAX (width, idx[g] + 1);
    }
  gint64 rows = x->rank == 2 ? x->dims[0] : 1, len = x->dims[x->rank - 1];
  gint64 dims[2] = { rows, width };
  RtTensor *o = x->rank == 2 ? rt_call_output (call, 0, GRAPH_DTYPE_FLOAT, 2, dims, error)
                             : rt_call_output (call, 0, GRAPH_DTYPE_FLOAT, 1, &width, error);
  if (o == NULL)
    return FALSE;
  float *y = o->data;
  memset (y, 0, (gsize) o->numel * sizeof (float));
  for (gint64 r = 0; r < rows; r++)
    {
      float *yr = y + r * width;
      gint64 startn = minn;
      /* Skip distances 1 .. maxskip + 1; unigrams are counted once. */
      for (gint64 d = 1; d <= maxskip + 1 && startn <= maxn; d++)
        {
          for (gint64 i = 0; i < len; i++)
            for (gint64 k = startn; k <= maxn; k++)
              {
                if (i + d * (k - 1) >= len)
                  break;
                gint64 base = counts[k - 1];
                gint64 end = (gsize) k < ncounts ? counts[k] : (gint64) npool;
                gint64 gnum = 0;
                for (gint64 kk = 0; kk < k - 1; kk++)
                  {
                    gint64 e = kk + 1 < (gint64) ncounts ? counts[kk + 1] : (gint64) npool;
                    gnum += (e - counts[kk]) / (kk + 1);
                  }
                for (gint64 p = base; p < end; p += k, gnum++)
                  {
                    gboolean hit = TRUE;
                    for (gint64 t = 0; t < k && hit; t++)
                      hit = pool[p + t] == rt_get_i64 (x, r * len + i + t * d);
                    if (hit)
                      {
                        yr[idx[gnum]] += 1;
                        break;
                      }
                  }
              }
          if (startn == 1)
            startn = 2;
        }
      for (gint64 g = 0; g < ngrams; g++)
        {
          float *c = &yr[idx[g]];
          double w = weights ? weights[g] : 1;
          if (m == 1)
            *c = *c > 0 ? (float) w : 0;
          else if (m == 2)
            *c = (float) (*c * w);
        }
    }
  return TRUE;
}

static const RtKernelDef defs[] = {
  { RT_ONNX ("TfIdfVectorizer", 9), RT_IN (1, 1), RT_OUT (1, 1), .dtypes = RT_DT (INT32) | RT_DT (INT64), .run = k_tfidf },
};

RT_KERNEL_TABLE (rt_kernels_text, defs);
