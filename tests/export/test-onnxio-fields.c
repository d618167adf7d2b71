/* Writer tests: every attribute kind, every element type, every proto2
 * has_ field (Note [has_ fields] in export/onnxio-private.h), checked by
 * reading the file with python3-onnx (tests/export/onnx_fields_check.py)
 * and with our own reader; external data; atomic writes. */
#include "tests/export/onnxio-testutil.h"
#include "export/export.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <glib/gstdio.h>
#include <string.h>

/* Float → IEEE half for the small exact values used here. */
static guint16
half_bits (float f)
{
  guint32 b;
  memcpy (&b, &f, 4);
  if ((b & 0x7fffffff) == 0)
    return (guint16) (b >> 16);
  guint32 sign = b >> 31;
  int exp = (int) ((b >> 23) & 0xff) - 127 + 15;
  guint32 mant = (b >> 13) & 0x3ff;
  return (guint16) ((sign << 15) | ((guint32) exp << 10) | mant);
}

/* The pattern onnx_fields_check.py expects for element i of [2, 3]:
 * unsigned i, signed i - 2, floating (i - 2) / 2 (+ i·j for complex). */
static Tensor *
pattern_tensor (GraphDType dt)
{
  const gint64 dims[] = { 2, 3 };
  if (dt == GRAPH_DTYPE_STRING)
    {
      GBytes *s[6];
      for (int i = 0; i < 6; i++)
        {
          char buf[8];
          g_snprintf (buf, sizeof buf, "s%d", i);
          s[i] = g_bytes_new (buf, strlen (buf));
        }
      Tensor *t = tensor_new_strings (2, dims, s, NULL);
      for (int i = 0; i < 6; i++)
        g_bytes_unref (s[i]);
      return t;
    }
  gsize es = graph_dtype_size (dt);
  guint8 buf[6 * 16];
  for (int i = 0; i < 6; i++)
    {
      guint8 *p = buf + i * es;
      gint64 si = i - 2;
      float h = (float) (i - 2) * 0.5f;
      double hd = (i - 2) * 0.5;
      switch (dt)
        {
        case GRAPH_DTYPE_UINT8: *p = (guint8) i; break;
        case GRAPH_DTYPE_INT8: *(gint8 *) p = (gint8) si; break;
        case GRAPH_DTYPE_BOOL: *p = (guint8) (i % 2); break;
        case GRAPH_DTYPE_UINT16: { guint16 v = (guint16) i; memcpy (p, &v, 2); } break;
        case GRAPH_DTYPE_INT16: { gint16 v = (gint16) si; memcpy (p, &v, 2); } break;
        case GRAPH_DTYPE_INT32: { gint32 v = (gint32) si; memcpy (p, &v, 4); } break;
        case GRAPH_DTYPE_UINT32: { guint32 v = (guint32) i; memcpy (p, &v, 4); } break;
        case GRAPH_DTYPE_INT64: memcpy (p, &si, 8); break;
        case GRAPH_DTYPE_UINT64: { guint64 v = (guint64) i; memcpy (p, &v, 8); } break;
        case GRAPH_DTYPE_FLOAT: memcpy (p, &h, 4); break;
        case GRAPH_DTYPE_DOUBLE: memcpy (p, &hd, 8); break;
        case GRAPH_DTYPE_FLOAT16: { guint16 v = half_bits (h); memcpy (p, &v, 2); } break;
        case GRAPH_DTYPE_BFLOAT16: { guint32 b; memcpy (&b, &h, 4); guint16 v = (guint16) (b >> 16); memcpy (p, &v, 2); } break;
        case GRAPH_DTYPE_COMPLEX64: { float c[2] = { h, (float) i }; memcpy (p, c, 8); } break;
        case GRAPH_DTYPE_COMPLEX128: { double c[2] = { hd, (double) i }; memcpy (p, c, 16); } break;
        default: g_assert_not_reached ();
        }
    }
  return tensor_new_from_data (dt, 2, dims, buf, 6 * es, NULL);
}

static Graph *
make_sub (const char *name, GraphValue *outer_x)
{
  Graph *sub = graph_new ();
  graph_set_name (sub, name);
  (void) outer_x;
  return sub;
}

/* The model onnx_fields_check.py knows. */
static Graph *
build_fields_model (void)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 13);
  graph_set_opset (g, GRAPH_ATEN_DOMAIN, 1);
  graph_set_opset (g, "com.example", 2);
  graph_set_property (g, "producer_name", "prod");
  graph_set_property (g, "producer_version", "9.9");
  graph_set_property (g, "model_domain", "dom.example");
  graph_set_property (g, "model_version", "0");
  graph_set_property (g, "model_doc_string", "model doc");
  graph_set_property (g, "metadata:k1", "v1");
  graph_set_property (g, "metadata:k2", "v2");
  graph_set_name (g, "g_main");
  graph_set_doc_string (g, "graph doc");

  GraphDim xd[3] = { { GRAPH_DIM_SYMBOLIC, 0, g_intern_string ("batch") },
                     { GRAPH_DIM_STATIC, 3, NULL }, { GRAPH_DIM_UNKNOWN, 0, NULL } };
  g_autoptr(GraphType) xt = graph_type_new_tensor (GRAPH_DTYPE_FLOAT, 3, xd);
  GraphValue *x = graph_add_input (g, "x", xt);
  g_autoptr(GraphType) seq = graph_type_new_list (graph_type_new_tensor (GRAPH_DTYPE_FLOAT, -1, NULL));
  graph_add_input (g, "seq", seq);
  g_autoptr(GraphType) opt = graph_type_new_optional (graph_type_new_tensor (GRAPH_DTYPE_INT64, -1, NULL));
  graph_add_input (g, "opt", opt);
  g_autoptr(GraphType) map = graph_type_new_dict (graph_type_new_tensor (GRAPH_DTYPE_INT64, -1, NULL),
                                                  graph_type_new_tensor (GRAPH_DTYPE_FLOAT, -1, NULL));
  graph_add_input (g, "map", map);

  GraphValue *init_float = NULL;
  for (int dt = 1; dt < GRAPH_DTYPE_LAST; dt++)
    {
      g_autoptr(Tensor) t = pattern_tensor ((GraphDType) dt);
      g_assert_nonnull (t);
      g_autofree char *name = g_strconcat ("init_", graph_dtype_name ((GraphDType) dt), NULL);
      GraphValue *v = graph_add_initializer (g, name, t);
      graph_value_set_initializer_is_input (v, dt == GRAPH_DTYPE_FLOAT);
      if (dt == GRAPH_DTYPE_FLOAT)
        init_float = v;
    }
  const gint64 zero = 0;
  g_autoptr(Tensor) empty = tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 1, &zero, NULL);
  graph_value_set_initializer_is_input (graph_add_initializer (g, "init_empty", empty), FALSE);

  GraphValue *ins[3] = { x, init_float, NULL };
  GraphNode *n = graph_create_node (g, "com.example::AllAttrs", 3, ins, 2);
  graph_insert_node (g, n);
  graph_node_set_name (n, "all_attrs");
  graph_node_set_doc_string (n, "node doc");
  graph_value_set_name (graph_node_output (n, 0), "all_out");
  graph_value_set_type (graph_node_output (n, 0), xt);
  graph_node_set_f (n, "f", 1.5);
  graph_node_set_f (n, "f0", 0.0);
  graph_node_set_i (n, "i", -7);
  graph_node_set_i (n, "i0", 0);
  graph_node_set_s_len (n, "s", "hello\0world", 11);
  graph_node_set_s_len (n, "s_empty", "", 0);
  const gint64 v123[] = { 1, 2, 3 };
  g_autoptr(Tensor) t123 = tensor_new_int64_vector (3, v123);
  graph_node_set_t (n, "t", t123);
  graph_node_set_g (n, "g", make_sub ("then_body", x));
  Graph *sub = NULL;
  graph_node_get_g (n, "g", &sub);
  GraphValue *idv = graph_op (sub, "Identity", x, NULL);
  graph_value_set_type (idv, xt);
  graph_value_set_name (idv, "then_out");
  graph_add_output (sub, idv);
  const gint64 two = 2;
  g_autoptr(GraphType) tp = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, &two);
  graph_node_set_tp (n, "tp", tp);
  const double fs[] = { 0.5, -1.0 };
  graph_node_set_fs (n, "fs", 2, fs);
  const gint64 is[] = { 1, -2, 3 };
  graph_node_set_is (n, "is", 3, is);
  const char *ss[] = { "a", "bc" };
  graph_node_set_ss (n, "ss", 2, ss);
  g_autoptr(Tensor) t0 = tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, 2.5);
  g_autoptr(Tensor) t1 = tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, -4);
  Tensor *ts[] = { t0, t1 };
  graph_node_set_ts (n, "ts", 2, ts);
  Graph *gs[] = { make_sub ("b0", x), make_sub ("b1", x) };
  graph_node_set_gs (n, "gs", 2, gs);
  g_autoptr(GraphType) tpa = graph_type_new_tensor (GRAPH_DTYPE_FLOAT, -1, NULL);
  g_autoptr(GraphType) tpb = graph_type_new_tensor (GRAPH_DTYPE_INT64, -1, NULL);
  GraphType *tps[] = { tpa, tpb };
  graph_node_set_tps (n, "tps", 2, tps);

  GraphValue *relu = graph_op (g, "Relu", x, NULL);
  graph_value_set_name (relu, "relu_out");
  graph_value_set_type (relu, xt);
  GraphValue *mul = graph_at (g, "mul", relu, relu, NULL);
  graph_value_set_name (mul, "mul_out");
  graph_value_set_type (mul, xt);
  graph_add_output (g, graph_node_output (n, 0));
  graph_add_output (g, mul);
  return g;
}

static void
check_with_python (const char *path, const char *threshold)
{
  const char *args[] = { "check", path, threshold ? "--external" : NULL, threshold, NULL };
  gboolean skipped;
  gboolean ok = onnxio_test_run_python ("onnx_fields_check.py", args, &skipped);
  if (skipped)
    g_test_skip ("python3-onnx is not available");
  else
    g_assert_true (ok);
}

static void
test_fields_python (void)
{
  g_autoptr(Graph) g = build_fields_model ();
  g_autoptr(GError) error = NULL;
  g_assert_true (graph_lint (g, &error));
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *path = g_build_filename (tmp, "fields.onnx", NULL);
  g_assert_true (onnxio_save (g, path, NULL, &error));
  g_assert_no_error (error);
  check_with_python (path, NULL);

  /* Our own reader gives back the same graph (ir_version is computed on
   * save and kept as a property on load). */
  g_autoptr(Graph) back = onnxio_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (graph_get_property (back, "ir_version"), ==, "7");
  graph_set_property (back, "ir_version", NULL);
  g_autoptr(GString) why = g_string_new (NULL);
  if (!onnxio_test_graph_equal (g, back, why))
    g_error ("%s", why->str);
  GraphValue *mo = graph_find_value (back, "all_out");
  GraphNode *n = graph_value_node (mo);
  g_assert_null (graph_node_input (n, 2));
  g_assert_null (graph_value_get_name (graph_node_output (n, 1)));
  onnxio_test_rmtree (tmp);
}

static void
test_fields_external (void)
{
  g_autoptr(Graph) g = build_fields_model ();
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *path = g_build_filename (tmp, "fields.onnx", NULL);
  OnnxioSaveOptions opts;
  onnxio_save_options_init (&opts);
  opts.external_data = TRUE;
  opts.size_threshold = 48;   /* the 8- and 16-byte element tensors */
  g_assert_true (onnxio_save (g, path, &opts, &error));
  g_assert_no_error (error);
  g_autofree char *data = g_build_filename (tmp, "fields.onnx.data", NULL);
  g_assert_true (g_file_test (data, G_FILE_TEST_IS_REGULAR));
  check_with_python (path, "48");

  g_autoptr(Graph) back = onnxio_load (path, &error);
  g_assert_no_error (error);
  graph_set_property (back, "ir_version", NULL);
  g_autoptr(GString) why = g_string_new (NULL);
  if (!onnxio_test_graph_equal (g, back, why))
    g_error ("%s", why->str);

  /* From memory with no base directory, external data is refused. */
  g_autofree char *bytes = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  g_autoptr(Graph) none = onnxio_load_from_data ((const guint8 *) bytes, len, NULL, "mem.onnx", &error);
  g_assert_null (none);
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_EXTERNAL_DATA);
  g_assert_nonnull (strstr (error->message, "mem.onnx"));
  onnxio_test_rmtree (tmp);
}

/* A deferred initializer (as Conv+BN fusion makes) is streamed into the
 * file a buffer at a time: the file is byte-identical to the one written
 * from the same values held in memory, and the tensor's bytes are never
 * computed whole.  Its 3 MiB + 28 bytes cross the writer's 1 MiB buffer
 * at odd offsets (a small tensor is written before it). */
static void
offset_fill (gconstpointer data, gint64 first, gint64 count, gpointer dst)
{
  (void) data;
  g_assert_cmpuint ((guintptr) dst % sizeof (float), ==, 0);   /* as tensor_fill promises */
  for (gint64 i = 0; i < count; i++)
    ((float *) dst)[i] = (float) ((first + i) % 1000) - 0.25f;
}

/* Two deferred (or held) tensors: `big` and `tiny`.  `pad` (0-3) lengthens
 * their names ("b_big", "b_bigx", ...), so their bytes start at each offset
 * modulo 4 in the writer's buffer (the tiny one fits in what is left). */
static Graph *
deferred_model (Tensor *big, Tensor *tiny, int pad)
{
  g_autofree char *tiny_name = g_strdup_printf ("c_tiny%.*s", pad, "xyz");
  Graph *g = graph_new ();
  g_autofree char *big_name = g_strdup_printf ("b_big%.*s", pad, "xyz");
  gint64 one = 3;
  float small_data[3] = { 1, 2, 3 };
  g_autoptr (Tensor) small = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, &one, small_data,
                                                   sizeof small_data, NULL);
  GraphValue *sv = graph_add_initializer (g, "a_small", small);
  GraphValue *bv = graph_add_initializer (g, big_name, big);
  graph_add_output (g, graph_op (g, "Identity", sv, NULL));
  graph_add_output (g, graph_op (g, "Identity", bv, NULL));
  graph_add_output (g, graph_op (g, "Identity", graph_add_initializer (g, tiny_name, tiny), NULL));
  graph_set_opset (g, "", 13);
  g_autoptr (GError) error = NULL;
  g_assert_true (export_infer_types (g, &error));
  return g;
}

static void
test_deferred_streams (void)
{
  /* 5 MiB + 28 bytes: written through the writer thread (4 MiB and up). */
  gint64 dims[2] = { 5 * 262144 + 7, 1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (Tensor) lazy = tensor_new_deferred (GRAPH_DTYPE_FLOAT, 2, dims, offset_fill, NULL,
                                                 NULL, &error);
  g_assert_no_error (error);
  gsize nbytes = tensor_nbytes (lazy);
  float *plain = g_malloc (nbytes);
  for (gint64 i = 0; i < dims[0]; i++)
    plain[i] = (float) (i % 1000) - 0.25f;
  g_autoptr (GBytes) pb = g_bytes_new_take (plain, nbytes);
  g_autoptr (Tensor) held = tensor_new (GRAPH_DTYPE_FLOAT, 2, dims, pb, &error);
  g_assert_no_error (error);
  gint64 tiny_dim = 13;
  g_autoptr (Tensor) tiny_lazy = tensor_new_deferred (GRAPH_DTYPE_FLOAT, 1, &tiny_dim, offset_fill,
                                                      NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (Tensor) tiny_held = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, &tiny_dim, plain,
                                                       13 * sizeof (float), &error);
  g_assert_no_error (error);

  g_autofree char *tmp = onnxio_test_mkdtemp ();
  for (int external = 0; external < 2; external++)
    for (int pad = 0; pad < 4; pad++)
    {
      OnnxioSaveOptions opts;
      onnxio_save_options_init (&opts);
      opts.external_data = external;
      g_autofree char *dl = g_build_filename (tmp, "lazy", NULL);
      g_autofree char *dh = g_build_filename (tmp, "held", NULL);
      g_assert_cmpint (g_mkdir_with_parents (dl, 0700), ==, 0);
      g_assert_cmpint (g_mkdir_with_parents (dh, 0700), ==, 0);
      g_autofree char *pl = g_build_filename (dl, "m.onnx", NULL);
      g_autofree char *ph = g_build_filename (dh, "m.onnx", NULL);
      g_autoptr (Graph) gl = deferred_model (lazy, tiny_lazy, pad);
      g_autoptr (Graph) gh = deferred_model (held, tiny_held, pad);
      g_assert_true (onnxio_save (gl, pl, &opts, &error));
      g_assert_no_error (error);
      g_assert_true (onnxio_save (gh, ph, &opts, &error));
      g_assert_no_error (error);
      g_assert_true (tensor_is_deferred (lazy));
      g_assert_true (tensor_is_deferred (tiny_lazy));
      const char *files[] = { "m.onnx", external ? "m.onnx.data" : NULL };
      for (guint f = 0; f < G_N_ELEMENTS (files) && files[f]; f++)
        {
          g_autofree char *fl = g_build_filename (dl, files[f], NULL);
          g_autofree char *fh = g_build_filename (dh, files[f], NULL);
          g_autofree char *cl = NULL, *ch = NULL;
          gsize nl, nh;
          g_assert_true (g_file_get_contents (fl, &cl, &nl, NULL));
          g_assert_true (g_file_get_contents (fh, &ch, &nh, NULL));
          g_assert_cmpuint (nl, ==, nh);
          /* The big tensor's bytes are in exactly one of the files. */
          if (f == 1)
            g_assert_cmpuint (nl, ==, nbytes);
          else if (external)
            g_assert_cmpuint (nl, <, 4096 + 13 * sizeof (float));
          else
            g_assert_cmpuint (nl, >, nbytes);
          g_assert_true (memcmp (cl, ch, nl) == 0);
        }
      g_autoptr (Graph) back = onnxio_load (pl, &error);
      g_assert_no_error (error);
      g_autofree char *big_name = g_strdup_printf ("b_big%.*s", pad, "xyz");
      g_assert_true (tensor_equal (graph_value_get_initializer (graph_find_value (back, big_name)),
                                   held));
    }
  g_assert_true (tensor_is_deferred (lazy));
  onnxio_test_rmtree (tmp);
}

/* Reading the typed repeated fields (float_data, int32_data for the small
 * types, int64_data, double_data, uint64_data, string_data) against raw_data
 * twins that numpy wrote. */
static void
test_fields_typed_read (void)
{
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *path = g_build_filename (tmp, "typed.onnx", NULL);
  const char *args[] = { "make-typed", path, NULL };
  gboolean skipped;
  gboolean ok = onnxio_test_run_python ("onnx_fields_check.py", args, &skipped);
  if (skipped)
    {
      g_test_skip ("python3-onnx is not available");
      onnxio_test_rmtree (tmp);
      return;
    }
  g_assert_true (ok);
  g_autoptr(GError) error = NULL;
  g_autoptr(Graph) g = onnxio_load (path, &error);
  g_assert_no_error (error);
  guint n = 0;
  for (int dt = 1; dt < GRAPH_DTYPE_LAST; dt++)
    {
      if (dt == GRAPH_DTYPE_STRING)
        continue;
      const char *name = graph_dtype_name ((GraphDType) dt);
      g_autofree char *tn = g_strconcat ("typed_", name, NULL);
      g_autofree char *rn = g_strconcat ("raw_", name, NULL);
      Tensor *typed = graph_value_get_initializer (graph_find_value (g, tn));
      Tensor *raw = graph_value_get_initializer (graph_find_value (g, rn));
      g_assert_nonnull (typed);
      g_assert_nonnull (raw);
      g_assert_true (tensor_equal (typed, raw));
      g_autoptr(Tensor) mine = pattern_tensor ((GraphDType) dt);
      g_assert_true (tensor_equal (raw, mine));
      n++;
    }
  g_assert_cmpuint (n, ==, 15);
  onnxio_test_rmtree (tmp);
}

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* A failed save leaves the old file untouched and no temporary behind. */
static void
test_atomic (void)
{
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *path = g_build_filename (tmp, "m.onnx", NULL);
  g_assert_true (g_file_set_contents (path, "old", 3, NULL));

  g_autoptr(Graph) g = graph_new ();
  graph_set_opset (g, "", 13);
  const gint64 d = 4;
  g_autoptr(Tensor) unknown = tensor_new (GRAPH_DTYPE_FLOAT, 1, &d, NULL, NULL);
  g_assert_nonnull (unknown);
  GraphValue *w = graph_add_initializer (g, "w", unknown);
  GraphValue *y = graph_op (g, "Relu", w, NULL);
  g_autoptr(GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, &d);
  graph_value_set_type (y, ty);
  graph_add_output (g, y);
  g_autoptr(GError) error = NULL;
  g_assert_false (onnxio_save (g, path, NULL, &error));
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'w'"));
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  g_autofree char *content = NULL;
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "old");
  g_assert_cmpuint (count_entries (tmp), ==, 1);

  /* Unwritable target folder: an error naming the path. */
  g_autoptr(Graph) ok = graph_new ();
  graph_set_opset (ok, "", 13);
  graph_add_output (ok, graph_add_input (ok, "x", ty));
  g_assert_false (onnxio_save (ok, "/nonexistent-dir/m.onnx", NULL, &error));
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/m.onnx"));
  onnxio_test_rmtree (tmp);
}

/* A write that fails (here: the file size limit, RLIMIT_FSIZE, with
 * SIGXFSZ ignored, so write() returns EFBIG) is reported by onnxio_save
 * with the path and the system's reason, with or without the writer
 * thread, whether it hits a deferred tensor streamed through the buffers
 * or a payload written in place; the old file stays and no temporary file
 * is left.
 * Runs in a subprocess: the limit is per process. */
static void
test_write_error (void)
{
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *path = g_build_filename (tmp, "m.onnx", NULL);
  g_assert_true (g_file_set_contents (path, "old", 3, NULL));
  signal (SIGXFSZ, SIG_IGN);
  struct rlimit lim = { 1 << 20, 1 << 20 };
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &lim), ==, 0);
  gint64 tiny_dim = 1;
  g_autoptr (Tensor) tiny = tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 1, &tiny_dim, NULL);
  /* 3 MiB: written in the caller's thread; 5 MiB: by the writer thread. */
  for (guint i = 0; i < 4; i++)
    {
      gint64 dims[2] = { (i < 2 ? 3 : 5) * 262144 + 7, 1 };
      g_autoptr (Tensor) big = i % 2 == 0
        ? tensor_new_deferred (GRAPH_DTYPE_FLOAT, 2, dims, offset_fill, NULL, NULL, NULL)
        : tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 2, dims, NULL);
      g_autoptr (Graph) g = deferred_model (big, tiny, 0);
      g_autoptr (GError) error = NULL;
      g_assert_false (onnxio_save (g, path, NULL, &error));
      g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO);
      g_assert_nonnull (strstr (error->message, path));
      g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));
      g_autofree char *content = NULL;
      g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
      g_assert_cmpstr (content, ==, "old");
      g_assert_cmpuint (count_entries (tmp), ==, 1);
    }
  onnxio_test_rmtree (tmp);
}

/* TensorProto .pb files for every dtype, read back by python3-onnx's
 * numpy_helper is covered by the testdata round trip; here: the name is
 * optional and the file is replaced atomically. */
static void
test_pb_name (void)
{
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *path = g_build_filename (tmp, "t.pb", NULL);
  g_autoptr(Tensor) t = pattern_tensor (GRAPH_DTYPE_INT64);
  g_autoptr(GError) error = NULL;
  g_assert_true (onnxio_tensor_save (t, NULL, path, &error));
  char *name = (char *) "unset";
  g_autoptr(Tensor) back = onnxio_tensor_load (path, &name, &error);
  g_assert_no_error (error);
  g_assert_null (name);
  g_assert_true (tensor_equal (t, back));
  onnxio_test_rmtree (tmp);
}

void test_onnxio_fields_register (void);

void
test_onnxio_fields_register (void)
{
  g_test_add_func ("/export/onnx/write/fields-python", test_fields_python);
  g_test_add_func ("/export/onnx/write/external-data", test_fields_external);
  g_test_add_func ("/export/onnx/read/typed-fields", test_fields_typed_read);
  g_test_add_func ("/export/onnx/write/atomic", test_atomic);
  g_test_add_func ("/export/onnx/write/deferred-streams", test_deferred_streams);
  g_test_add_func ("/export/onnx/write/write-error", test_write_error);
  g_test_add_func ("/export/onnx/pb/no-name", test_pb_name);
}
