/* The ATen kernels of the seed models' traces (runtime/k-aten-*.c) against
 * torch 1.13 (fixtures from tools/gen_runtime_refs.py's nn_cases), each as
 * an org.pytorch.aten::ATen node and as an aten:: node of a trace graph
 * (prim::Constant scalars, prim::ListConstruct int lists; a Tensor[]
 * argument flattened into inputs, as `symonnx verify` splices a trace's
 * tensor lists and torch's ATen fallback export passes them). */
#include "tests/runtime/test-runtime.h"
#include "tests/runtime/aten-testutil.h"
#include "export/tensorfiles.h"
#include <string.h>

typedef struct
{
  const char *name;       /* fixture prefix */
  const char *op;         /* operator */
  /* inputs, ';'-separated: npy, npys:N (N tensors of a Tensor[]), f:X,
   * i:N, is:a,b (int[]; "is:" empty), none */
  const char *args;
  guint       n_outputs;
  double      rtol, atol;
} NnCase;

#define CONV_TAIL "i:0;i:0;i:1;i:1"
static const NnCase cases[] = {
  { "conv", "_convolution", "npy;npy;npy;is:2,1;is:1,0;is:1,2;i:0;is:0,0;i:1;" CONV_TAIL, 1, 1e-5, 1e-5 },
  { "conv_groups", "_convolution", "npy;npy;none;is:1,1;is:1,1;is:1,1;i:0;is:0,0;i:2;" CONV_TAIL, 1, 1e-5, 1e-5 },
  { "conv_transposed", "_convolution", "npy;npy;npy;is:2,2;is:1,1;is:1,1;i:1;is:1,1;i:2;" CONV_TAIL, 1, 1e-5, 1e-5 },
  { "conv1d", "_convolution", "npy;npy;npy;is:1;is:2;is:2;i:0;is:0;i:1;" CONV_TAIL, 1, 1e-5, 1e-5 },
  { "batch_norm", "batch_norm", "npy;npy;npy;npy;npy;i:0;f:0.1;f:0.001;i:1", 1, 1e-5, 1e-6 },
  { "batch_norm_plain", "batch_norm", "npy;none;none;npy;npy;i:0;f:0.1;f:1e-5;i:1", 1, 1e-5, 1e-6 },
  { "max_pool2d", "max_pool2d", "npy;is:3,3;is:2,2;is:1,1;is:1,1;i:0", 1, 0, 0 },
  { "max_pool2d_ceil", "max_pool2d", "npy;is:3,2;is:2,2;is:0,1;is:2,1;i:1", 1, 0, 0 },
  { "avg_pool2d", "avg_pool2d", "npy;is:3,3;is:2,2;is:1,1;i:1;i:0;none", 1, 1e-6, 1e-7 },
  { "avg_pool2d_pad", "avg_pool2d", "npy;is:2,2;is:;is:1,1;i:0;i:1;none", 1, 1e-6, 1e-7 },
  { "adaptive_avg_pool2d", "adaptive_avg_pool2d", "npy;is:3,4", 1, 1e-6, 1e-7 },
  { "linear", "linear", "npy;npy;npy", 1, 1e-5, 1e-6 },
  { "linear_nobias", "linear", "npy;npy;none", 1, 1e-5, 1e-6 },
  { "addmm", "addmm", "npy;npy;npy;f:0.5;f:2.0", 1, 1e-5, 1e-6 },
  { "matmul", "matmul", "npy;npy", 1, 1e-5, 1e-6 },
  { "mm", "mm", "npy;npy", 1, 1e-5, 1e-6 },
  { "t", "t", "npy", 1, 0, 0 },
  { "dropout", "dropout", "npy;f:0.5;i:0", 1, 0, 0 },
  { "view", "view", "npy;is:4,-1", 1, 0, 0 },
  { "reshape", "reshape", "npy;is:-1,2,2", 1, 0, 0 },
  { "size", "size", "npy;i:-1", 1, 0, 0 },
  { "flatten", "flatten", "npy;i:1;i:-1", 1, 0, 0 },
  { "flatten_mid", "flatten", "npy;i:1;i:2", 1, 0, 0 },
  { "cat", "cat", "npys:3;i:1", 1, 0, 0 },
  { "pixel_shuffle", "pixel_shuffle", "npy;i:2", 1, 0, 0 },
  { "embedding", "embedding", "npy;npy;i:-1;i:0;i:0", 1, 0, 0 },
  { "log_softmax", "log_softmax", "npy;i:1;none", 1, 1e-5, 1e-6 },
  { "softmax", "softmax", "npy;i:-1;none", 1, 1e-5, 1e-6 },
  { "relu_", "relu_", "npy", 1, 0, 0 },
  { "add_", "add_", "npy;npy;i:2", 1, 1e-6, 1e-7 },
  { "lstm", "lstm", "npy;npys:2;npys:16;i:1;i:2;f:0.0;i:0;i:1;i:0", 3, 1e-4, 1e-5 },
};

static void
run_case (const NnCase *c, gboolean trace)
{
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  g_autoptr (Graph) g = aten_test_build ("runtime", c->name, c->op, c->args, c->n_outputs, trace, inputs);
  g_autoptr (GHashTable) outputs = aten_test_run (g, inputs);
  for (guint i = 0; i < c->n_outputs; i++)
    {
      g_autofree char *file = i ? g_strdup_printf ("%s_out%u.npy", c->name, i)
                                : g_strdup_printf ("%s_out.npy", c->name);
      g_autofree char *name = g_strdup_printf ("y%u", i);
      g_autofree char *what = g_strdup_printf ("%s output %u (%s)", c->name, i,
                                               trace ? "trace" : "ATen node");
      aten_test_expect (outputs, name, file, c->rtol, c->atol, what);
    }
}

static void
test_node (gconstpointer data)
{
  run_case (data, FALSE);
}

static void
test_trace (gconstpointer data)
{
  run_case (data, TRUE);
}

/* Bad arguments are errors, not crashes: a weight of another rank, a
 * transposed convolution with an absurd stride or a negative padding, a
 * training-mode batch_norm, a view of the wrong size. */
static void
test_errors (void)
{
  static const NnCase bad[] = {
    { "conv", "_convolution", "npy;npy;npy;is:2,1;is:1,0;is:1,2;i:0;is:0,0;i:5;" CONV_TAIL, 1, 0, 0 },
    { "conv_transposed", "_convolution",
      "npy;npy;npy;is:4611686018427387904,2;is:1,1;is:1,1;i:1;is:1,1;i:2;" CONV_TAIL, 1, 0, 0 },
    { "conv_transposed", "_convolution", "npy;npy;npy;is:2,2;is:-3,1;is:1,1;i:1;is:1,1;i:2;" CONV_TAIL,
      1, 0, 0 },
    { "batch_norm", "batch_norm", "npy;npy;npy;npy;npy;i:1;f:0.1;f:0.001;i:1", 1, 0, 0 },
    { "view", "view", "npy;is:5,-1", 1, 0, 0 },
    { "cat", "cat", "npys:3;i:2", 1, 0, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             (GDestroyNotify) tensor_unref);
      g_autoptr (Graph) g = aten_test_build ("runtime", bad[i].name, bad[i].op, bad[i].args, bad[i].n_outputs, TRUE, inputs);
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                              (GDestroyNotify) tensor_unref);
      g_assert_false (rt_session_run (s, inputs, outputs, &error));
      g_assert_nonnull (error);
      g_assert_true (error->domain == RT_ERROR);
    }
}

void
test_aten_nn_register (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/runtime/aten-nn/node/%s", cases[i].name);
      g_autofree char *p2 = g_strdup_printf ("/runtime/aten-nn/trace/%s", cases[i].name);
      g_test_add_data_func (p1, &cases[i], test_node);
      g_test_add_data_func (p2, &cases[i], test_trace);
    }
  g_test_add_func ("/runtime/aten-nn/errors", test_errors);
}
