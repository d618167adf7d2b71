/* The CUDA backend against the CPU kernels, its oracle: every case builds
 * a small graph, runs it on the CPU and with RT_DEVICE_CUDA on the same
 * inputs (odd sizes, broadcasting, empty tensors, each element type the
 * kernel takes), checks that the node really ran on the GPU (a declined
 * node would make the comparison CPU against CPU) and compares every
 * output.  Without a GPU (or without the plugin) the run-time cases skip
 * with the reason; /cuda/build/every-cu-compiled checks, where nvcc was
 * found, that the build compiled every .cu file of cuda/.  The test
 * `cuda-emulated` runs the same cases through the host emulator of the
 * kernels (Note [The CUDA emulator] in cuda/emulator.cc), on any machine
 * where the backend is built. */
#include "tests/common/test-util.h"
#include "runtime/runtime.h"
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static gboolean
need_device (void)
{
  g_autoptr (GError) error = NULL;
  if (rt_device_available (RT_DEVICE_CUDA, &error))
    return TRUE;
  g_test_skip (error->message);   /* "no CUDA device: ..." */
  return FALSE;
}

/* ---- inputs ------------------------------------------------------------------- */

/* ANY: uniform in [-4, 4) (integers: scaled up); SMALL_INT: -3..3;
 * EXPONENT: 0..3 (integer Pow stays finite); SIGN: -1 or 1 (products
 * stay exact). */
typedef enum { VALUES_ANY, VALUES_POSITIVE, VALUES_SMALL_INT, VALUES_EXPONENT, VALUES_SIGN } Values;

static Tensor *
random_tensor (GraphDType dt, guint rank, const gint64 *dims, Values values, guint32 seed)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  gsize esz = dt == GRAPH_DTYPE_BOOL ? 1 : dt == GRAPH_DTYPE_FLOAT || dt == GRAPH_DTYPE_INT32 ? 4 : 8;
  g_autofree guint8 *buf = g_malloc0 (MAX ((gsize) n * esz, 1));
  for (gint64 i = 0; i < n; i++)
    {
      double v = values == VALUES_POSITIVE ? g_rand_double_range (r, 0.05, 4.0)
                 : values == VALUES_SMALL_INT ? (double) g_rand_int_range (r, -3, 4)
                 : values == VALUES_EXPONENT ? (double) g_rand_int_range (r, 0, 4)
                 : values == VALUES_SIGN ? (g_rand_boolean (r) ? 1.0 : -1.0)
                                         : g_rand_double_range (r, -4.0, 4.0);
      switch (dt)
        {
        case GRAPH_DTYPE_FLOAT: ((float *) buf)[i] = (float) v; break;
        case GRAPH_DTYPE_DOUBLE: ((double *) buf)[i] = v; break;
        case GRAPH_DTYPE_INT32: ((gint32 *) buf)[i] = (gint32) (values == VALUES_ANY ? v * 1000 : v); break;
        case GRAPH_DTYPE_INT64: ((gint64 *) buf)[i] = (gint64) (values == VALUES_ANY ? v * 1e6 : v); break;
        case GRAPH_DTYPE_BOOL: buf[i] = v > 0; break;
        default: g_assert_not_reached ();
        }
    }
  return tensor_new_from_data (dt, rank, dims, buf, (gsize) n * esz, NULL);
}

typedef struct
{
  Graph      *g;
  GHashTable *inputs;
} Case;

static Case
case_new (int opset)
{
  Case c = { graph_new (),
             g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify) tensor_unref) };
  graph_set_opset (c.g, "", opset);
  return c;
}

static void
case_clear (Case *c)
{
  g_hash_table_unref (c->inputs);
  graph_free (c->g);
}

static GraphValue *
case_input (Case *c, const char *name, Tensor *t)
{
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (tensor_dtype (t), tensor_rank (t),
                                                           tensor_dims (t));
  g_hash_table_insert (c->inputs, g_strdup (name), t);
  return graph_add_input (c->g, name, ty);
}

static void
case_output (Case *c, GraphValue *v)
{
  graph_value_set_name (v, "y");
  graph_add_output (c->g, v);
}

/* Runs the case on both devices: `on_device` nodes must have run on the
 * GPU; outputs within rtol/atol (0, 0: identical). */
static void
case_check (Case *c, guint on_device, double rtol, double atol)
{
  g_autoptr (GError) error = NULL;
  RtOptions o;
  rt_options_init (&o);
  g_autoptr (RtSession) cpu = rt_session_new (c->g, &o, &error);
  g_assert_no_error (error);
  o.device = RT_DEVICE_CUDA;
  g_autoptr (RtSession) gpu = rt_session_new (c->g, &o, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) want = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) got = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  g_assert_true (rt_session_run (cpu, c->inputs, want, &error));
  g_assert_no_error (error);
  g_assert_true (rt_session_run (gpu, c->inputs, got, &error));
  g_assert_no_error (error);
  RtDeviceStats st;
  rt_session_device_stats (gpu, &st);
  g_autofree char *report = rt_session_fallback_report (gpu);
  if (st.n_device_runs != on_device)
    g_error ("%u node runs on the GPU, expected %u:\n%s", st.n_device_runs, on_device, report);
  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (want));
  GHashTableIter it;
  gpointer name, e;
  g_hash_table_iter_init (&it, want);
  while (g_hash_table_iter_next (&it, &name, &e))
    {
      Tensor *a = g_hash_table_lookup (got, name);
      g_assert_nonnull (a);
      RtCompareResult r;
      if (!rt_compare (e, a, rtol, atol, TRUE, &r))
        g_error ("the CUDA backend%s differs from the CPU on %s: %s",
                 g_getenv ("SYMONNX_CUDA_EMULATED") ? " (emulated)" : "", (char *) name,
                 rt_compare_result_to_string (&r, e, a));
    }
}

static double
rtol_for (GraphDType dt)
{
  return dt == GRAPH_DTYPE_FLOAT ? 1e-5 : dt == GRAPH_DTYPE_DOUBLE ? 1e-12 : 0;
}

static double
atol_for (GraphDType dt)
{
  return dt == GRAPH_DTYPE_FLOAT ? 1e-6 : dt == GRAPH_DTYPE_DOUBLE ? 1e-14 : 0;
}

/* ---- element-wise --------------------------------------------------------------- */

typedef struct
{
  const char *op;
  GraphDType  dt;
  guint       ra, rb;
  gint64      da[4], db[4];
} BinaryCase;

static void
test_binary (gconstpointer data)
{
  const BinaryCase *bc = data;
  if (!need_device ())
    return;
  Case c = case_new (17);
  gboolean is_int = bc->dt == GRAPH_DTYPE_INT32 || bc->dt == GRAPH_DTYPE_INT64;
  Values va = strcmp (bc->op, "Pow") == 0 ? (is_int ? VALUES_SMALL_INT : VALUES_POSITIVE)
                                          : VALUES_ANY;
  /* Integer Div's right side has zeros and -1s (x / 0 = 0, MIN / -1 wraps). */
  Values vb = strcmp (bc->op, "Pow") == 0 ? VALUES_EXPONENT
              : is_int && strcmp (bc->op, "Div") == 0 ? VALUES_SMALL_INT : VALUES_ANY;
  GraphValue *a = case_input (&c, "a", random_tensor (bc->dt, bc->ra, bc->da, va, 1));
  GraphValue *b = case_input (&c, "b", random_tensor (bc->dt, bc->rb, bc->db, vb, 2));
  case_output (&c, graph_op (c.g, bc->op, a, b, NULL));
  case_check (&c, 1, rtol_for (bc->dt), atol_for (bc->dt));
  case_clear (&c);
}

typedef struct
{
  const char *op;
  GraphDType  dt;
  gboolean    declined;   /* no CUDA kernel for this dtype: runs on the CPU */
} UnaryCase;

static void
test_unary (gconstpointer data)
{
  const UnaryCase *uc = data;
  if (!need_device ())
    return;
  Case c = case_new (17);
  gint64 dims[3] = { 3, 7, 49 };   /* 1029: not a multiple of a block */
  Values v = strcmp (uc->op, "Log") == 0 || strcmp (uc->op, "Sqrt") == 0 ? VALUES_POSITIVE
                                                                          : VALUES_ANY;
  GraphValue *x = case_input (&c, "x", random_tensor (uc->dt, 3, dims, v, 3));
  GraphValue *y = strcmp (uc->op, "LeakyRelu") == 0 ? graph_op (c.g, uc->op, x, "alpha_f", 0.2, NULL)
                  : strcmp (uc->op, "Elu") == 0 ? graph_op (c.g, uc->op, x, "alpha_f", 0.7, NULL)
                                                : graph_op (c.g, uc->op, x, NULL);
  case_output (&c, y);
  case_check (&c, uc->declined ? 0 : 1, rtol_for (uc->dt), atol_for (uc->dt));
  case_clear (&c);
}

/* ---- reductions ------------------------------------------------------------------ */

typedef struct
{
  const char *op;
  GraphDType  dt;
  int         opset;
  guint       n_axes;      /* 0: all */
  gint64      axes[3];
  gint64      keepdims;
  gint64      dims[3];
} ReduceCase;

static void
test_reduce (gconstpointer data)
{
  const ReduceCase *rc = data;
  if (!need_device ())
    return;
  Case c = case_new (rc->opset);
  gboolean is_int = rc->dt == GRAPH_DTYPE_INT32 || rc->dt == GRAPH_DTYPE_INT64;
  /* Integer sums exact in double (the accumulator of both kernels). */
  Values v = strcmp (rc->op, "ReduceProd") == 0 ? VALUES_SIGN
             : is_int ? VALUES_SMALL_INT : VALUES_ANY;
  GraphValue *x = case_input (&c, "x", random_tensor (rc->dt, 3, rc->dims, v, 4));
  gboolean axes_input = rc->opset >= (strcmp (rc->op, "ReduceSum") == 0 ? 13 : 18);
  GraphValue *y;
  if (rc->n_axes && axes_input)
    {
      GraphValue *axes = case_input (&c, "axes", tensor_new_int64_vector (rc->n_axes, rc->axes));
      y = graph_op (c.g, rc->op, x, axes, "keepdims_i", rc->keepdims, NULL);
    }
  else if (rc->n_axes)
    y = graph_op (c.g, rc->op, x, "axes_is", (gsize) rc->n_axes, rc->axes, "keepdims_i",
                  rc->keepdims, NULL);
  else
    y = graph_op (c.g, rc->op, x, "keepdims_i", rc->keepdims, NULL);
  case_output (&c, y);
  case_check (&c, 1, rc->dt == GRAPH_DTYPE_FLOAT ? 1e-5 : rtol_for (rc->dt),
              rc->dt == GRAPH_DTYPE_FLOAT ? 1e-5 : atol_for (rc->dt));
  case_clear (&c);
}

/* ---- softmax ------------------------------------------------------------------------ */

typedef struct
{
  const char *op;
  GraphDType  dt;
  int         opset;
  gint64      axis;
} SoftmaxCase;

static void
test_softmax (gconstpointer data)
{
  const SoftmaxCase *sc = data;
  if (!need_device ())
    return;
  Case c = case_new (sc->opset);
  gint64 dims[3] = { 5, 301, 3 };
  GraphValue *x = case_input (&c, "x", random_tensor (sc->dt, 3, dims, VALUES_ANY, 5));
  case_output (&c, graph_op (c.g, sc->op, x, "axis_i", sc->axis, NULL));
  case_check (&c, 1, rtol_for (sc->dt), atol_for (sc->dt));
  case_clear (&c);
}

/* ---- MatMul and Gemm ----------------------------------------------------------------- */

typedef struct
{
  GraphDType dt;
  guint      ra, rb;
  gint64     da[4], db[4];
} MatMulCase;

static void
test_matmul (gconstpointer data)
{
  const MatMulCase *mc = data;
  if (!need_device ())
    return;
  Case c = case_new (17);
  GraphValue *a = case_input (&c, "a", random_tensor (mc->dt, mc->ra, mc->da, VALUES_ANY, 6));
  GraphValue *b = case_input (&c, "b", random_tensor (mc->dt, mc->rb, mc->db, VALUES_ANY, 7));
  case_output (&c, graph_op (c.g, "MatMul", a, b, NULL));
  /* cuBLAS sums in another order than OpenBLAS. */
  case_check (&c, 1, mc->dt == GRAPH_DTYPE_FLOAT ? 1e-4 : 1e-10,
              mc->dt == GRAPH_DTYPE_FLOAT ? 1e-4 : 1e-10);
  case_clear (&c);
}

typedef struct
{
  GraphDType dt;
  gint64     trans_a, trans_b;
  guint      rc;           /* C's rank; 3: no C */
  gint64     dc[2];
  double     alpha, beta;
} GemmCase;

static void
test_gemm (gconstpointer data)
{
  const GemmCase *gc = data;
  if (!need_device ())
    return;
  Case c = case_new (17);
  const gint64 m = 19, k = 33, n = 7;
  gint64 da[2] = { gc->trans_a ? k : m, gc->trans_a ? m : k };
  gint64 db[2] = { gc->trans_b ? n : k, gc->trans_b ? k : n };
  GraphValue *a = case_input (&c, "a", random_tensor (gc->dt, 2, da, VALUES_ANY, 8));
  GraphValue *b = case_input (&c, "b", random_tensor (gc->dt, 2, db, VALUES_ANY, 9));
  GraphValue *y;
  if (gc->rc == 3)
    y = graph_op (c.g, "Gemm", a, b, "transA_i", gc->trans_a, "transB_i", gc->trans_b,
                  "alpha_f", gc->alpha, NULL);
  else
    {
      GraphValue *cc = case_input (&c, "c", random_tensor (gc->dt, gc->rc, gc->dc, VALUES_ANY, 10));
      y = graph_op (c.g, "Gemm", a, b, cc, "transA_i", gc->trans_a, "transB_i", gc->trans_b,
                    "alpha_f", gc->alpha, "beta_f", gc->beta, NULL);
    }
  case_output (&c, y);
  case_check (&c, 1, gc->dt == GRAPH_DTYPE_FLOAT ? 1e-4 : 1e-10,
              gc->dt == GRAPH_DTYPE_FLOAT ? 1e-4 : 1e-10);
  case_clear (&c);
}

/* ---- shape ops: data movement, any element type ------------------------------------ */

typedef struct
{
  const char *name;
  GraphDType  dt;
} ShapeCase;

static void
test_shape (gconstpointer data)
{
  const ShapeCase *sc = data;
  if (!need_device ())
    return;
  const char *n = sc->name;
  Case c = case_new (strstr (n, "opset11") ? 11 : 17);
  GraphValue *y = NULL;
  if (strcmp (n, "reshape-zero-infer") == 0)
    {
      gint64 d[3] = { 2, 3, 4 }, shape[2] = { 0, -1 };
      GraphValue *x = case_input (&c, "x", random_tensor (sc->dt, 3, d, VALUES_ANY, 20));
      y = graph_op (c.g, "Reshape", x, case_input (&c, "s", tensor_new_int64_vector (2, shape)), NULL);
    }
  else if (strcmp (n, "flatten-axis2") == 0)
    {
      gint64 d[4] = { 2, 3, 4, 5 };
      GraphValue *x = case_input (&c, "x", random_tensor (sc->dt, 4, d, VALUES_ANY, 21));
      y = graph_op (c.g, "Flatten", x, "axis_i", (gint64) 2, NULL);
    }
  else if (strcmp (n, "squeeze-input") == 0)
    {
      gint64 d[3] = { 3, 1, 5 }, axes[1] = { 1 };
      GraphValue *x = case_input (&c, "x", random_tensor (sc->dt, 3, d, VALUES_ANY, 22));
      y = graph_op (c.g, "Squeeze", x, case_input (&c, "a", tensor_new_int64_vector (1, axes)), NULL);
    }
  else if (strcmp (n, "squeeze-all-opset11") == 0)
    {
      gint64 d[4] = { 1, 3, 1, 5 };
      y = graph_op (c.g, "Squeeze", case_input (&c, "x", random_tensor (sc->dt, 4, d, VALUES_ANY, 23)),
                    NULL);
    }
  else if (strcmp (n, "unsqueeze-input") == 0)
    {
      gint64 d[2] = { 3, 5 }, axes[2] = { 0, -1 };
      GraphValue *x = case_input (&c, "x", random_tensor (sc->dt, 2, d, VALUES_ANY, 24));
      y = graph_op (c.g, "Unsqueeze", x, case_input (&c, "a", tensor_new_int64_vector (2, axes)), NULL);
    }
  else if (strcmp (n, "unsqueeze-opset11") == 0)
    {
      gint64 d[2] = { 3, 5 }, axes[1] = { 1 };
      y = graph_op (c.g, "Unsqueeze", case_input (&c, "x", random_tensor (sc->dt, 2, d, VALUES_ANY, 25)),
                    "axes_is", (gsize) 1, axes, NULL);
    }
  else if (strcmp (n, "transpose-perm") == 0)
    {
      gint64 d[4] = { 3, 5, 7, 2 }, perm[4] = { 2, 0, 3, 1 };
      y = graph_op (c.g, "Transpose", case_input (&c, "x", random_tensor (sc->dt, 4, d, VALUES_ANY, 26)),
                    "perm_is", (gsize) 4, perm, NULL);
    }
  else if (strcmp (n, "transpose-default") == 0)
    {
      gint64 d[3] = { 3, 5, 7 };
      y = graph_op (c.g, "Transpose", case_input (&c, "x", random_tensor (sc->dt, 3, d, VALUES_ANY, 27)),
                    NULL);
    }
  else if (strcmp (n, "expand") == 0)
    {
      gint64 d[2] = { 3, 1 }, shape[3] = { 2, 1, 4 };
      GraphValue *x = case_input (&c, "x", random_tensor (sc->dt, 2, d, VALUES_ANY, 28));
      y = graph_op (c.g, "Expand", x, case_input (&c, "s", tensor_new_int64_vector (3, shape)), NULL);
    }
  else if (g_str_has_prefix (n, "split-"))
    {
      /* 3 outputs along axis 1 of (2, 7, 3): equal parts (3, 3, 1) at opset 18, sizes from
       * the input at 13, from the attribute at 11. */
      Case split = case_new (strstr (n, "opset11") ? 11 : strstr (n, "equal") ? 18 : 13);
      case_clear (&c);
      c = split;
      gint64 d[3] = { 2, 7, 3 }, sizes[3] = { 2, 4, 1 };
      GraphValue *x = case_input (&c, "x", random_tensor (sc->dt, 3, d, VALUES_ANY, 29));
      GraphValue *in[2] = { x, NULL };
      guint nin = 1;
      if (strstr (n, "input"))
        in[nin++] = case_input (&c, "s", tensor_new_int64_vector (3, sizes));
      GraphNode *node = graph_create_node (c.g, "onnx::Split", nin, in, 3);
      graph_node_set_i (node, "axis", 1);
      if (strstr (n, "opset11"))
        graph_node_set_is (node, "split", 3, sizes);
      graph_insert_node (c.g, node);
      for (guint i = 0; i < 3; i++)
        {
          g_autofree char *oname = g_strdup_printf ("y%u", i);
          graph_value_set_name (graph_node_output (node, i), oname);
          graph_add_output (c.g, graph_node_output (node, i));
        }
      case_check (&c, 1, 0, 0);
      case_clear (&c);
      return;
    }
  g_assert_nonnull (y);
  case_output (&c, y);
  case_check (&c, 1, 0, 0);   /* data movement: identical */
  case_clear (&c);
}

/* ---- a graph with a fallback in the middle ------------------------------------------ */

/* MatMul → Add (bias) → Relu → TopK (no CUDA kernel) → Softmax: the TopK
 * runs on the CPU between GPU nodes, and the result is the CPU's. */
static void
test_graph_with_fallback (void)
{
  if (!need_device ())
    return;
  Case c = case_new (17);
  gint64 dx[2] = { 4, 64 }, dw[2] = { 64, 33 }, db[1] = { 33 };
  GraphValue *x = case_input (&c, "x", random_tensor (GRAPH_DTYPE_FLOAT, 2, dx, VALUES_ANY, 11));
  GraphValue *w = case_input (&c, "w", random_tensor (GRAPH_DTYPE_FLOAT, 2, dw, VALUES_ANY, 12));
  GraphValue *b = case_input (&c, "b", random_tensor (GRAPH_DTYPE_FLOAT, 1, db, VALUES_ANY, 13));
  GraphValue *h = graph_op (c.g, "Relu", graph_op (c.g, "Add", graph_op (c.g, "MatMul", x, w, NULL),
                                                   b, NULL), NULL);
  gint64 five = 5;
  GraphValue *kv = case_input (&c, "k", tensor_new_int64_vector (1, &five));
  GraphNode *topk = graph_create_node (c.g, "onnx::TopK", 2, (GraphValue *[]) { h, kv }, 2);
  graph_insert_node (c.g, topk);
  case_output (&c, graph_op (c.g, "Softmax", graph_node_output (topk, 0), NULL));
  case_check (&c, 4, 1e-4, 1e-5);
  case_clear (&c);
}

/* ---- the build -------------------------------------------------------------------------- */

/* Where nvcc was found, the build compiled every cuda/X.cu into X.o (a
 * .cu file left out of cuda/meson.build would go unchecked). */
static void
test_every_cu_compiled (void)
{
  if (g_strcmp0 (g_getenv ("SYMONNX_CUDA_BUILT"), "1") != 0)
    {
      g_test_skip ("the CUDA backend is not built here (no nvcc, or -Dcuda=disabled)");
      return;
    }
  g_autofree char *src = test_source_path ("cuda");
  const char *build = g_getenv ("SYMONNX_BUILD_ROOT");
  g_assert_nonnull (build);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) dir = g_dir_open (src, 0, &error);
  g_assert_no_error (error);
  guint n = 0;
  for (const char *name; (name = g_dir_read_name (dir));)
    {
      if (!g_str_has_suffix (name, ".cu"))
        continue;
      g_autofree char *base = g_strndup (name, strlen (name) - 3);
      g_autofree char *obj = g_strdup_printf ("%s/cuda/%s.o", build, base);
      if (!g_file_test (obj, G_FILE_TEST_IS_REGULAR))
        g_error ("cuda/%s was not compiled by the build (no %s): list it in cuda/meson.build",
                 name, obj);
      n++;
    }
  g_assert_cmpuint (n, >=, 5);
}

/* ---- doc/cuda.md's example ------------------------------------------------------------ */

#define RELU_DIR "/usr/share/libonnx-testdata/data/node/test_relu"

/* doc/examples/device-run.c on ONNX's test_relu: on the GPU when there is
 * one, else the probe's message and the CPU report. */
static void
test_doc_example (void)
{
  const char *example = g_getenv ("SYMONNX_DEVICE_EXAMPLE");
  if (example == NULL || !g_file_test (RELU_DIR, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no example binary or no libonnx-testdata");
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (Tensor) x = onnxio_tensor_load (RELU_DIR "/test_data_set_0/input_0.pb", NULL, &error);
  g_assert_no_error (error);
  g_autofree char *dir = g_dir_make_tmp ("symonnx-device-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *npy = g_build_filename (dir, "x.npy", NULL);
  g_assert_true (export_npy_save (x, npy, &error));
  g_assert_no_error (error);
  const char *argv[] = { example, RELU_DIR "/model.onnx", "x", npy, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_remove (npy);
  g_rmdir (dir);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("device-run failed: %s", err);
  g_autoptr (GError) probe = NULL;
  gsize bytes = (gsize) tensor_numel (x) * sizeof (float);
  g_autofree char *want = NULL;
  if (rt_device_available (RT_DEVICE_CUDA, &probe))
    want = g_strdup_printf ("device cuda: 1 node, 0 planned on the CPU; last run: 1 node run on "
                            "the device, 0 on the CPU\n"
                            "copies to the device: 1 input (%zu bytes), 0 fallback results (0 bytes)\n"
                            "copies to the host: 1 output (%zu bytes), 0 fallback inputs (0 bytes)\n"
                            "bytes copied: %zu to the device, %zu back\n", bytes, bytes, bytes, bytes);
  else
    want = g_strdup_printf ("%s; running on the CPU\ndevice cpu: 1 node, all on the CPU\n"
                            "bytes copied: 0 to the device, 0 back\n", probe->message);
  g_assert_cmpstr (out, ==, want);
}

/* ---- registration ------------------------------------------------------------------------ */

static const GraphDType all_dtypes[] = { GRAPH_DTYPE_FLOAT, GRAPH_DTYPE_DOUBLE, GRAPH_DTYPE_INT32,
                                         GRAPH_DTYPE_INT64 };

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cuda/build/every-cu-compiled", test_every_cu_compiled);

  static const char *binary_ops[] = { "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min" };
  static const struct { const char *name; guint ra, rb; gint64 da[4], db[4]; } shapes[] = {
    { "same-odd", 2, 2, { 7, 13 }, { 7, 13 } },
    { "broadcast", 3, 2, { 3, 1, 5 }, { 4, 5 } },
    { "scalar", 1, 0, { 1031 }, { 0 } },
    { "empty", 2, 1, { 0, 3 }, { 3 } },
  };
  static BinaryCase bcs[G_N_ELEMENTS (binary_ops) * 4 * G_N_ELEMENTS (shapes)];
  guint nb = 0;
  for (guint o = 0; o < G_N_ELEMENTS (binary_ops); o++)
    for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
      for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
        {
          BinaryCase *bc = &bcs[nb++];
          *bc = (BinaryCase) { binary_ops[o], all_dtypes[d], shapes[s].ra, shapes[s].rb,
                               { 0 }, { 0 } };
          memcpy (bc->da, shapes[s].da, sizeof bc->da);
          memcpy (bc->db, shapes[s].db, sizeof bc->db);
          g_autofree char *path = g_strdup_printf ("/cuda/binary/%s/%s/%s", binary_ops[o],
                                                   graph_dtype_name (all_dtypes[d]), shapes[s].name);
          g_test_add_data_func (path, bc, test_binary);
        }

  static const char *int_unary[] = { "Neg", "Abs", "Relu", "Identity" };
  static const char *float_unary[] = { "Sqrt", "Exp", "Log", "Tanh", "Sigmoid", "Erf",
                                       "Reciprocal", "Floor", "Ceil", "Softplus", "LeakyRelu",
                                       "Elu" };
  static UnaryCase ucs[(G_N_ELEMENTS (int_unary) + G_N_ELEMENTS (float_unary)) * 4];
  guint nu = 0;
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      gboolean is_float = d < 2;
      for (guint o = 0; o < G_N_ELEMENTS (int_unary); o++)
        ucs[nu++] = (UnaryCase) { int_unary[o], all_dtypes[d], FALSE };
      /* The CPU kernels of the float ops take floats only, except these. */
      for (guint o = 0; is_float && o < G_N_ELEMENTS (float_unary); o++)
        ucs[nu++] = (UnaryCase) { float_unary[o], all_dtypes[d], FALSE };
    }
  for (guint i = 0; i < nu; i++)
    {
      g_autofree char *path = g_strdup_printf ("/cuda/unary/%s/%s", ucs[i].op,
                                               graph_dtype_name (ucs[i].dt));
      g_test_add_data_func (path, &ucs[i], test_unary);
    }

  static const char *reduce_ops[] = { "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                      "ReduceProd", "ReduceSumSquare" };
  static const struct { const char *name; int opset; guint n; gint64 axes[3]; gint64 keep; } axes[] = {
    { "all", 11, 0, { 0 }, 1 },
    { "axis1-keep", 11, 1, { 1 }, 1 },
    { "axes0-2-drop", 11, 2, { 0, 2 }, 0 },
    { "last-negative-input", 18, 1, { -1 }, 0 },
    { "axes1-2-input", 18, 2, { 1, 2 }, 1 },
  };
  static ReduceCase rcs[G_N_ELEMENTS (reduce_ops) * 4 * G_N_ELEMENTS (axes)];
  guint nr = 0;
  for (guint o = 0; o < G_N_ELEMENTS (reduce_ops); o++)
    for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
      for (guint a = 0; a < G_N_ELEMENTS (axes); a++)
        {
          ReduceCase *rc = &rcs[nr++];
          *rc = (ReduceCase) { reduce_ops[o], all_dtypes[d], axes[a].opset, axes[a].n,
                               { axes[a].axes[0], axes[a].axes[1], axes[a].axes[2] },
                               axes[a].keep, { 5, 17, 9 } };
          g_autofree char *path = g_strdup_printf ("/cuda/reduce/%s/%s/%s", reduce_ops[o],
                                                   graph_dtype_name (all_dtypes[d]), axes[a].name);
          g_test_add_data_func (path, rc, test_reduce);
        }

  static SoftmaxCase scs[] = {
    { "Softmax", GRAPH_DTYPE_FLOAT, 13, -1 }, { "Softmax", GRAPH_DTYPE_FLOAT, 13, 1 },
    { "Softmax", GRAPH_DTYPE_DOUBLE, 13, 0 }, { "Softmax", GRAPH_DTYPE_FLOAT, 11, 1 },
    { "LogSoftmax", GRAPH_DTYPE_FLOAT, 13, 1 }, { "LogSoftmax", GRAPH_DTYPE_DOUBLE, 11, 2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (scs); i++)
    {
      g_autofree char *path = g_strdup_printf ("/cuda/softmax/%s/%s/opset%d-axis%" G_GINT64_FORMAT,
                                               scs[i].op, graph_dtype_name (scs[i].dt),
                                               scs[i].opset, scs[i].axis);
      g_test_add_data_func (path, &scs[i], test_softmax);
    }

  static const struct { const char *name; MatMulCase c; } mms[] = {
    { "2d-odd/float", { GRAPH_DTYPE_FLOAT, 2, 2, { 33, 17 }, { 17, 29 } } },
    { "2d-odd/double", { GRAPH_DTYPE_DOUBLE, 2, 2, { 33, 17 }, { 17, 29 } } },
    { "batched-shared-b/float", { GRAPH_DTYPE_FLOAT, 4, 2, { 2, 3, 5, 7 }, { 7, 4 } } },
    { "batched-both/float", { GRAPH_DTYPE_FLOAT, 3, 3, { 3, 5, 7 }, { 3, 7, 2 } } },
    { "batched-broadcast-a/double", { GRAPH_DTYPE_DOUBLE, 3, 4, { 1, 5, 7 }, { 2, 3, 7, 6 } } },
    { "vector-matrix/float", { GRAPH_DTYPE_FLOAT, 1, 2, { 9 }, { 9, 4 } } },
    { "matrix-vector/float", { GRAPH_DTYPE_FLOAT, 2, 1, { 4, 9 }, { 9 } } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (mms); i++)
    {
      g_autofree char *path = g_strdup_printf ("/cuda/matmul/%s", mms[i].name);
      g_test_add_data_func (path, &mms[i].c, test_matmul);
    }

  static const struct { const char *name; GemmCase c; } gemms[] = {
    { "nn-no-c/float", { GRAPH_DTYPE_FLOAT, 0, 0, 3, { 0 }, 1.0, 1.0 } },
    { "tn-full-c/float", { GRAPH_DTYPE_FLOAT, 1, 0, 2, { 19, 7 }, 0.5, 2.0 } },
    { "nt-row-c/float", { GRAPH_DTYPE_FLOAT, 0, 1, 1, { 7 }, 1.0, 1.0 } },
    { "tt-column-c/double", { GRAPH_DTYPE_DOUBLE, 1, 1, 2, { 19, 1 }, -1.5, 0.25 } },
    { "nn-scalar-c/double", { GRAPH_DTYPE_DOUBLE, 0, 0, 0, { 0 }, 1.0, 3.0 } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (gemms); i++)
    {
      g_autofree char *path = g_strdup_printf ("/cuda/gemm/%s", gemms[i].name);
      g_test_add_data_func (path, &gemms[i].c, test_gemm);
    }

  static const char *shape_names[] = { "reshape-zero-infer", "flatten-axis2", "squeeze-input",
                                       "squeeze-all-opset11", "unsqueeze-input", "unsqueeze-opset11",
                                       "transpose-perm", "transpose-default", "expand",
                                       "split-equal", "split-input", "split-opset11" };
  static const GraphDType shape_dtypes[] = { GRAPH_DTYPE_FLOAT, GRAPH_DTYPE_INT64, GRAPH_DTYPE_BOOL };
  static ShapeCase shcs[G_N_ELEMENTS (shape_names) * G_N_ELEMENTS (shape_dtypes)];
  guint nsh = 0;
  for (guint i = 0; i < G_N_ELEMENTS (shape_names); i++)
    for (guint d = 0; d < G_N_ELEMENTS (shape_dtypes); d++)
      {
        shcs[nsh] = (ShapeCase) { shape_names[i], shape_dtypes[d] };
        g_autofree char *path = g_strdup_printf ("/cuda/shape/%s/%s", shape_names[i],
                                                 graph_dtype_name (shape_dtypes[d]));
        g_test_add_data_func (path, &shcs[nsh++], test_shape);
      }

  g_test_add_func ("/cuda/graph/with-fallback", test_graph_with_fallback);
  g_test_add_func ("/cuda/doc/example", test_doc_example);
  return g_test_run ();
}
