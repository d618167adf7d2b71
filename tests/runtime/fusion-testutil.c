/* Graphs, weights and runs for the fusion tests (fusion-testutil.h). */
#include "tests/runtime/fusion-testutil.h"
#include "runtime/session-private.h"

guint32 fz_rng_state;

float
fz_rnd (void)
{
  fz_rng_state = fz_rng_state * 1664525u + 1013904223u;
  return (float) ((fz_rng_state >> 8) / 8388608.0 - 1.0);
}

Tensor *
fz_random_tensor (guint rank, const gint64 *dims)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  g_autofree float *v = g_new (float, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    v[i] = fz_rnd ();
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, v, (gsize) n * sizeof (float), NULL);
}

GraphValue *
fz_input (Graph *g, const char *name, guint rank, const gint64 *dims)
{
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, rank, dims);
  return graph_add_input (g, name, ty);
}

GraphValue *
fz_weights (Graph *g, const char *name, guint rank, const gint64 *dims)
{
  g_autoptr (Tensor) t = fz_random_tensor (rank, dims);
  return graph_add_initializer (g, name, t);
}

GraphValue *
fz_scalar (Graph *g, const char *name, float v)
{
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 0, NULL, &v, sizeof v, NULL);
  return graph_add_initializer (g, name, t);
}

static RtSession *
session_with (Graph *g, gboolean no_fusion, int threads)
{
  RtOptions o;
  rt_options_init (&o);
  o.no_fusion = no_fusion;
  if (threads > 0)
    o.threads = threads;
  g_autoptr (GError) error = NULL;
  RtSession *s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  return s;
}

RtSession *
fz_session_new (Graph *g, int threads)
{
  return session_with (g, FALSE, threads);
}

Tensor *
fz_session_run (RtSession *s, GHashTable *in, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  gboolean ran = rt_session_run (s, in, out, &error);
  g_assert_no_error (error);
  g_assert_true (ran);
  Tensor *t = g_hash_table_lookup (out, name);
  g_assert_nonnull (t);
  return tensor_ref (t);
}

static Tensor *
run_with (Graph *g, GHashTable *in, gboolean no_fusion, int threads, const char *name,
          guint *n_nodes)
{
  g_autoptr (RtSession) s = session_with (g, no_fusion, threads);
  *n_nodes = s->n_nodes;
  return fz_session_run (s, in, name);
}

Tensor *
fz_run (Graph *g, GHashTable *in, gboolean no_fusion, const char *name, guint *n_nodes)
{
  return run_with (g, in, no_fusion, 0, name, n_nodes);
}

Tensor *
fz_run_threads (Graph *g, GHashTable *in, int threads, const char *name)
{
  guint n_nodes;
  return run_with (g, in, FALSE, threads, name, &n_nodes);
}

GHashTable *
fz_inputs_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
}

Graph *
fz_new_graph_at (gint64 opset)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", opset);
  fz_rng_state = 12345;
  return g;
}


Tensor *
fusion_check_same (Graph *g, GHashTable *in, const char *out, guint fused_nodes, guint plain_nodes)
{
  guint nf, np;
  Tensor *a = fz_run (g, in, FALSE, out, &nf);
  g_autoptr (Tensor) b = fz_run (g, in, TRUE, out, &np);
  g_assert_cmpuint (np, ==, plain_nodes);
  g_assert_cmpuint (nf, ==, fused_nodes);
  g_assert_cmpuint (tensor_rank (a), ==, tensor_rank (b));
  g_assert_cmpmem (tensor_dims (a), tensor_rank (a) * sizeof (gint64), tensor_dims (b),
                   tensor_rank (b) * sizeof (gint64));
  g_assert_cmpmem (tensor_data (a), tensor_nbytes (a), tensor_data (b), tensor_nbytes (b));
  return a;
}
