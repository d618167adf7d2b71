/* Backends (Note [Backends]): a mock device backend, defined here, with
 * kernels for Add, Mul and Relu on float tensors of equal shapes only,
 * proves that the session dispatches each node to it, falls back to the
 * CPU kernel for the others with counted copies, reports them, and gives
 * the pure CPU run's results.  Its "device memory" lives behind handles
 * in the first 64 KiB of the address space, which is never mapped, so a
 * CPU kernel handed a device pointer by mistake crashes the test instead
 * of reading stale data. */
#include "tests/runtime/test-runtime.h"
#include "runtime/backend.h"
#include <string.h>

/* ---- the mock device --------------------------------------------------------- */

static GHashTable *mock_mem;       /* handle → g_malloc'd buffer */
static guint mock_next_id;
static guint mock_live, mock_to_device, mock_to_host, mock_kernel_runs;

static gpointer
mock_handle_data (gconstpointer h)
{
  gpointer p = g_hash_table_lookup (mock_mem, h);
  g_assert_nonnull (p);            /* a host pointer passed as device memory */
  return p;
}

static gpointer
mock_alloc (gsize nbytes, GError **error)
{
  (void) error;
  if (mock_mem == NULL)
    mock_mem = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_assert_cmpuint (++mock_next_id, <, 4000);
  gpointer h = GSIZE_TO_POINTER ((gsize) mock_next_id << 4);
  g_hash_table_insert (mock_mem, h, g_malloc0 (nbytes));
  mock_live++;
  return h;
}

static void
mock_free (gpointer h)
{
  g_assert_true (g_hash_table_remove (mock_mem, h));
  mock_live--;
}

static gboolean
mock_copy_to_device (gpointer dst, gconstpointer src, gsize n, GError **error)
{
  (void) error;
  memcpy (mock_handle_data (dst), src, n);
  mock_to_device++;
  return TRUE;
}

static gboolean
mock_copy_to_host (gpointer dst, gconstpointer src, gsize n, GError **error)
{
  (void) error;
  memcpy (dst, mock_handle_data (src), n);
  mock_to_host++;
  return TRUE;
}

static gboolean
mock_supports (const GraphNode *node, gint64 opset)
{
  (void) opset;
  const char *op = graph_node_op_type (node);
  return strcmp (graph_node_domain (node), "onnx") == 0
         && (strcmp (op, "Add") == 0 || strcmp (op, "Mul") == 0 || strcmp (op, "Relu") == 0
             || strcmp (op, "Neg") == 0);
}

static RtBackendStatus
mock_run (RtCall *call, GError **error)
{
  const char *op = graph_node_op_type (call->node);
  const RtTensor *a = call->inputs[0], *b = call->n_inputs > 1 ? call->inputs[1] : NULL;
  if (strcmp (op, "Neg") == 0)
    {
      /* The mock's failing kernel: its error reaches the caller. */
      rt_call_error (call, error, RT_ERROR_FAILED, "mock device fault");
      return RT_BACKEND_FAILED;
    }
  if (a->dtype != GRAPH_DTYPE_FLOAT)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED, "mock has no %s %s",
                   graph_dtype_name (a->dtype), op);
      return RT_BACKEND_DECLINED;
    }
  if (b && (a->rank != b->rank || memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) != 0))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED, "mock does not broadcast");
      return RT_BACKEND_DECLINED;
    }
  RtTensor *o = rt_call_output_like (call, 0, a, error);
  if (o == NULL)
    return RT_BACKEND_FAILED;
  const float *x = mock_handle_data (a->data);
  const float *y = b ? mock_handle_data (b->data) : NULL;
  float *z = mock_handle_data (o->data);
  for (gint64 i = 0; i < a->numel; i++)
    z[i] = op[0] == 'A' ? x[i] + y[i] : op[0] == 'M' ? x[i] * y[i] : (x[i] > 0 ? x[i] : 0);
  mock_kernel_runs++;
  return RT_BACKEND_DONE;
}

static const RtBackend mock_backend = {
  .name = "mock",
  .alloc = mock_alloc,
  .free = mock_free,
  .copy_to_device = mock_copy_to_device,
  .copy_to_host = mock_copy_to_host,
  .supports = mock_supports,
  .run = mock_run,
};

static gboolean
mock_probe_fails (GError **error)
{
  g_set_error (error, RT_ERROR, RT_ERROR_FAILED, "mock driver not loaded");
  return FALSE;
}

static void
mock_reset_counters (void)
{
  mock_to_device = mock_to_host = mock_kernel_runs = 0;
}

/* ---- helpers ------------------------------------------------------------------ */

static Tensor *
float_tensor (guint rank, const gint64 *dims, gint64 n, float first, float step)
{
  g_autofree float *v = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    v[i] = first + step * (float) i;
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, v, (gsize) n * sizeof (float), NULL);
}

static GHashTable *
table_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
}

/* Runs g on the CPU and with `backend` (NULL: the CPU again) and checks
 * that every output is identical. */
static void
assert_same_as_cpu (Graph *g, RtSession *s, GHashTable *in)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) cpu = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) want = table_new (), got = table_new ();
  g_assert_true (rt_session_run (cpu, in, want, &error));
  g_assert_no_error (error);
  g_assert_true (rt_session_run (s, in, got, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (want));
  GHashTableIter it;
  gpointer name, t;
  g_hash_table_iter_init (&it, want);
  while (g_hash_table_iter_next (&it, &name, &t))
    {
      RtCompareResult r;
      Tensor *other = g_hash_table_lookup (got, name);
      g_assert_nonnull (other);
      if (!rt_compare (t, other, 0, 0, FALSE, &r))
        g_error ("output %s differs from the CPU run: %s", (char *) name,
                 rt_compare_result_to_string (&r, t, other));
    }
}

/* x (2, 3), w (3, 4) and b (2, 4) initializers:
 *   h = Add (x, x)       device: x is uploaded (input copy)
 *   r = Relu (h)         device
 *   m = MatMul (r, w)    CPU (no mock kernel): r copied to the host
 *   q = Relu (m)         device: m copied to the device
 *   y = Mul (q, b)       device: b uploaded on the first run only
 *   y is copied to the host (output copy). */
static Graph *
chain_graph (void)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 17);
  gint64 xd[2] = { 2, 3 }, wd[2] = { 3, 4 }, bd[2] = { 2, 4 };
  g_autoptr (GraphType) xt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, xd);
  GraphValue *x = graph_add_input (g, "x", xt);
  g_autoptr (GraphType) wt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, wd);
  GraphValue *w = graph_add_input (g, "w", wt);
  g_autoptr (Tensor) wv = float_tensor (2, wd, 12, -1.0f, 0.25f);
  graph_value_set_initializer (w, wv);
  g_autoptr (GraphType) bt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, bd);
  GraphValue *b = graph_add_input (g, "b", bt);
  g_autoptr (Tensor) bv = float_tensor (2, bd, 8, 0.5f, 0.5f);
  graph_value_set_initializer (b, bv);
  GraphValue *h = graph_op (g, "Add", x, x, NULL);
  GraphValue *r = graph_op (g, "Relu", h, NULL);
  GraphValue *m = graph_op (g, "MatMul", r, w, NULL);
  graph_node_set_name (graph_value_node (m), "mm");
  GraphValue *q = graph_op (g, "Relu", m, NULL);
  GraphValue *y = graph_op (g, "Mul", q, b, NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  return g;
}

static GHashTable *
chain_inputs (void)
{
  GHashTable *in = table_new ();
  gint64 xd[2] = { 2, 3 };
  g_hash_table_insert (in, g_strdup ("x"), float_tensor (2, xd, 6, -1.5f, 0.75f));
  return in;
}

/* ---- cases -------------------------------------------------------------------- */

static void
test_dispatch_and_fallback (void)
{
  g_autoptr (Graph) g = chain_graph ();
  g_autoptr (GHashTable) in = chain_inputs ();
  RtOptions o;
  rt_options_init (&o);
  o.backend = &mock_backend;
  g_autoptr (GError) error = NULL;
  guint live_before = mock_live;
  RtSession *s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);

  /* Planned before any run: MatMul is the one fallback. */
  g_assert_cmpuint (rt_session_n_fallbacks (s), ==, 1);
  const char *reason = NULL;
  const GraphNode *fb = rt_session_fallback (s, 0, &reason);
  g_assert_cmpstr (graph_node_get_name (fb), ==, "mm");
  g_assert_cmpstr (reason, ==, "no mock kernel for onnx::MatMul");

  for (int run = 0; run < 2; run++)
    {
      mock_reset_counters ();
      assert_same_as_cpu (g, s, in);
      RtDeviceStats st;
      rt_session_device_stats (s, &st);
      g_assert_cmpstr (st.backend, ==, "mock");
      g_assert_cmpuint (st.n_nodes, ==, 5);
      g_assert_cmpuint (st.n_planned_fallbacks, ==, 1);
      g_assert_cmpuint (st.n_device_runs, ==, 4);
      g_assert_cmpuint (st.n_fallback_runs, ==, 1);
      g_assert_cmpuint (mock_kernel_runs, ==, 4);
      /* x every run; b (an initializer) on the first run only. */
      g_assert_cmpuint (st.input_copies, ==, run == 0 ? 2 : 1);
      g_assert_cmpuint (st.input_bytes, ==, run == 0 ? 6 * 4 + 8 * 4 : 6 * 4);
      g_assert_cmpuint (st.fallback_to_host, ==, 1);            /* r for MatMul */
      g_assert_cmpuint (st.fallback_to_host_bytes, ==, 6 * 4);
      g_assert_cmpuint (st.fallback_to_device, ==, 1);          /* m for Relu */
      g_assert_cmpuint (st.fallback_to_device_bytes, ==, 8 * 4);
      g_assert_cmpuint (st.output_copies, ==, 1);               /* y */
      g_assert_cmpuint (st.output_bytes, ==, 8 * 4);
      /* The counted copies are the backend's copies, no more, no fewer. */
      g_assert_cmpuint (mock_to_device, ==, st.input_copies + st.fallback_to_device);
      g_assert_cmpuint (mock_to_host, ==, st.output_copies + st.fallback_to_host);
      if (run == 1)
        g_assert_cmpuint (rt_session_last_run_allocations (s), ==, 0);
    }
  g_autofree char *report = rt_session_fallback_report (s);
  g_assert_nonnull (strstr (report, "device mock: 5 nodes, 1 planned on the CPU; last run: 4 "
                                    "node runs on the device, 1 on the CPU\n"));
  g_assert_nonnull (strstr (report, "copies to the device: 1 input (24 bytes), "
                                    "1 fallback result (32 bytes)\n"));
  g_assert_nonnull (strstr (report, "copies to the host: 1 output (32 bytes), "
                                    "1 fallback input (24 bytes)\n"));
  g_assert_nonnull (strstr (report, "fallback: MatMul node 'mm' (no mock kernel for onnx::MatMul)\n"));
  rt_session_free (s);
  g_assert_cmpuint (mock_live, ==, live_before);   /* every device buffer freed */
}

/* An int64 Add: the mock declines it at run time, the CPU kernel runs it,
 * and the report says why. */
static void
test_declined_at_run_time (void)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 17);
  gint64 d = 4;
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_INT64, 1, &d);
  GraphValue *a = graph_add_input (g, "a", ty);
  GraphValue *sum = graph_op (g, "Add", a, a, NULL);
  graph_node_set_name (graph_value_node (sum), "add_i64");
  graph_value_set_name (sum, "sum");
  graph_add_output (g, sum);
  RtOptions o;
  rt_options_init (&o);
  o.backend = &mock_backend;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rt_session_n_fallbacks (s), ==, 0);   /* supported op: planned on the device */
  gint64 v[4] = { 1, -2, 3, 1 << 20 };
  g_autoptr (GHashTable) in = table_new ();
  g_hash_table_insert (in, g_strdup ("a"), tensor_new_int64_vector (4, v));
  mock_reset_counters ();
  assert_same_as_cpu (g, s, in);
  RtDeviceStats st;
  rt_session_device_stats (s, &st);
  g_assert_cmpuint (st.n_device_runs, ==, 0);
  g_assert_cmpuint (st.n_fallback_runs, ==, 1);
  /* The upload for the declined try counts; the result stays on the host. */
  g_assert_cmpuint (st.input_copies, ==, 1);
  g_assert_cmpuint (st.output_copies, ==, 0);
  g_assert_cmpuint (mock_kernel_runs, ==, 0);
  const char *reason = NULL;
  g_assert_cmpuint (rt_session_n_fallbacks (s), ==, 1);
  rt_session_fallback (s, 0, &reason);
  g_assert_cmpstr (reason, ==, "declined at run time: mock has no int64 Add");
}

/* A broadcasting Mul, declined by the mock, between device nodes. */
static void
test_declined_between_device_nodes (void)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 17);
  gint64 xd[2] = { 3, 5 }, rd[1] = { 5 };
  g_autoptr (GraphType) xt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, xd);
  g_autoptr (GraphType) rt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, rd);
  GraphValue *x = graph_add_input (g, "x", xt), *row = graph_add_input (g, "row", rt);
  GraphValue *y = graph_op (g, "Relu", graph_op (g, "Mul", graph_op (g, "Relu", x, NULL), row,
                                                 NULL), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  RtOptions o;
  rt_options_init (&o);
  o.backend = &mock_backend;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = table_new ();
  g_hash_table_insert (in, g_strdup ("x"), float_tensor (2, xd, 15, -7, 1));
  g_hash_table_insert (in, g_strdup ("row"), float_tensor (1, rd, 5, 2, -1));
  assert_same_as_cpu (g, s, in);
  RtDeviceStats st;
  rt_session_device_stats (s, &st);
  g_assert_cmpuint (st.n_device_runs, ==, 2);
  g_assert_cmpuint (st.n_fallback_runs, ==, 1);
  /* x and (for the declined try) the Relu's output is already there; row
   * is uploaded for the try: 2 input copies.  Back: the Relu's result for
   * the CPU Mul; forth: the Mul's result for the last Relu. */
  g_assert_cmpuint (st.input_copies, ==, 2);
  g_assert_cmpuint (st.fallback_to_host, ==, 1);
  g_assert_cmpuint (st.fallback_to_device, ==, 1);
  g_assert_cmpuint (st.output_copies, ==, 1);
}

/* If reads h, which is on the device, from its branch: the branch's CPU
 * session gets it through a counted copy. */
static void
test_subgraph_reads_device_value (void)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 17);
  gint64 xd[1] = { 6 };
  g_autoptr (GraphType) xt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, xd);
  g_autoptr (GraphType) ct = graph_type_new_tensor_static (GRAPH_DTYPE_BOOL, 0, NULL);
  GraphValue *x = graph_add_input (g, "x", xt), *cond = graph_add_input (g, "cond", ct);
  GraphValue *h = graph_op (g, "Add", x, x, NULL);
  Graph *then_g = graph_new_subgraph (g);
  graph_add_output (then_g, graph_op (then_g, "Relu", h, NULL));
  Graph *else_g = graph_new_subgraph (g);
  graph_add_output (else_g, graph_op (else_g, "Abs", h, NULL));
  GraphValue *y = graph_op (g, "If", cond, "then_branch_g", then_g, "else_branch_g", else_g, NULL);
  graph_node_set_name (graph_value_node (y), "branch");
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  RtOptions o;
  rt_options_init (&o);
  o.backend = &mock_backend;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  const char *reason = NULL;
  g_assert_cmpuint (rt_session_n_fallbacks (s), ==, 1);
  rt_session_fallback (s, 0, &reason);
  g_assert_cmpstr (reason, ==, "a node with a subgraph: its body runs on the CPU");
  for (int branch = 0; branch < 2; branch++)
    {
      g_autoptr (GHashTable) in = table_new ();
      g_hash_table_insert (in, g_strdup ("x"), float_tensor (1, xd, 6, -2.5f, 1));
      guint8 c = (guint8) branch;
      g_hash_table_insert (in, g_strdup ("cond"),
                           tensor_new_from_data (GRAPH_DTYPE_BOOL, 0, NULL, &c, 1, NULL));
      assert_same_as_cpu (g, s, in);
      RtDeviceStats st;
      rt_session_device_stats (s, &st);
      g_assert_cmpuint (st.n_device_runs, ==, 1);
      g_assert_cmpuint (st.fallback_to_host, ==, 1);   /* h, for the branch */
      g_assert_cmpuint (st.output_copies, ==, 0);      /* y is made on the host */
    }
}

/* A device kernel's error is the run's error. */
static void
test_device_kernel_error (void)
{
  g_autoptr (Graph) g = graph_new ();
  graph_set_opset (g, "", 17);
  gint64 d = 3;
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, &d);
  GraphValue *y = graph_op (g, "Neg", graph_add_input (g, "x", ty), NULL);
  graph_node_set_name (graph_value_node (y), "neg1");
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  RtOptions o;
  rt_options_init (&o);
  o.backend = &mock_backend;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = table_new (), out = table_new ();
  g_hash_table_insert (in, g_strdup ("x"), float_tensor (1, &d, 3, 1, 1));
  g_assert_false (rt_session_run (s, in, out, &error));
  g_assert_error (error, RT_ERROR, RT_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "Neg node 'neg1': mock device fault");
}

static void
test_probe_fails (void)
{
  RtBackend absent = mock_backend;
  absent.probe = mock_probe_fails;
  g_autoptr (Graph) g = chain_graph ();
  RtOptions o;
  rt_options_init (&o);
  o.backend = &absent;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_null (s);
  g_assert_error (error, RT_ERROR, RT_ERROR_NO_DEVICE);
  g_assert_cmpstr (error->message, ==, "no mock device: mock driver not loaded");
}

/* On the CPU backend nothing is copied and nothing falls back. */
static void
test_cpu_backend_report (void)
{
  g_autoptr (Graph) g = chain_graph ();
  g_autoptr (GHashTable) in = chain_inputs ();
  RtOptions o;
  rt_options_init (&o);
  o.device = RT_DEVICE_CPU;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  assert_same_as_cpu (g, s, in);
  RtDeviceStats st;
  rt_session_device_stats (s, &st);
  g_assert_cmpstr (st.backend, ==, "cpu");
  g_assert_cmpuint (st.n_nodes, ==, 5);
  g_assert_cmpuint (st.input_copies + st.output_copies + st.fallback_to_host
                    + st.fallback_to_device + st.n_planned_fallbacks, ==, 0);
  g_assert_cmpuint (rt_session_n_fallbacks (s), ==, 0);
  g_autofree char *report = rt_session_fallback_report (s);
  g_assert_cmpstr (report, ==, "device cpu: 5 nodes, all on the CPU\n");
}

/* RT_DEVICE_CUDA where the backend or a GPU is missing: a clear error, no
 * session.  (On a machine with a GPU the CUDA tests cover the other way.) */
static void
test_no_cuda_device (void)
{
  g_autoptr (GError) probe = NULL;
  if (rt_device_available (RT_DEVICE_CUDA, &probe))
    {
      g_test_skip ("a CUDA device is present");
      return;
    }
  g_assert_error (probe, RT_ERROR, RT_ERROR_NO_DEVICE);
  g_autoptr (Graph) g = chain_graph ();
  RtOptions o;
  rt_options_init (&o);
  o.device = RT_DEVICE_CUDA;
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &o, &error);
  g_assert_null (s);
  g_assert_error (error, RT_ERROR, RT_ERROR_NO_DEVICE);
  g_assert_true (g_str_has_prefix (error->message, "no CUDA device: "));
  g_assert_cmpstr (error->message, ==, probe->message);
  g_test_message ("%s", error->message);
}

static void
test_device_names (void)
{
  RtDevice d = RT_DEVICE_CUDA;
  g_autoptr (GError) error = NULL;
  g_assert_true (rt_device_parse ("cpu", &d, &error));
  g_assert_cmpint (d, ==, RT_DEVICE_CPU);
  g_assert_true (rt_device_parse ("cuda", &d, &error));
  g_assert_cmpint (d, ==, RT_DEVICE_CUDA);
  g_assert_cmpstr (rt_device_name (RT_DEVICE_CPU), ==, "cpu");
  g_assert_cmpstr (rt_device_name (RT_DEVICE_CUDA), ==, "cuda");
  g_assert_false (rt_device_parse ("gpu", &d, &error));
  g_assert_error (error, RT_ERROR, RT_ERROR_INPUT);
  g_assert_cmpstr (error->message, ==, "unknown device 'gpu' (expected cpu or cuda)");
}

void
test_backend_register (void)
{
  g_test_add_func ("/runtime/backend/dispatch-and-fallback", test_dispatch_and_fallback);
  g_test_add_func ("/runtime/backend/declined-at-run-time", test_declined_at_run_time);
  g_test_add_func ("/runtime/backend/declined-between-device-nodes",
                   test_declined_between_device_nodes);
  g_test_add_func ("/runtime/backend/subgraph-reads-device-value", test_subgraph_reads_device_value);
  g_test_add_func ("/runtime/backend/device-kernel-error", test_device_kernel_error);
  g_test_add_func ("/runtime/backend/probe-fails", test_probe_fails);
  g_test_add_func ("/runtime/backend/cpu-report", test_cpu_backend_report);
  g_test_add_func ("/runtime/backend/no-cuda-device", test_no_cuda_device);
  g_test_add_func ("/runtime/backend/device-names", test_device_names);
}
