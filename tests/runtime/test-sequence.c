/* Sequence and optional values: the sequence kernels, SequenceMap and Loop
 * over sequences, optionals at the session boundary (rt_session_run_any),
 * their errors, bfloat16 Cast, and the SequenceProto/OptionalProto reader.
 * Expected values are worked out by hand in the comments. */
#include "tests/runtime/test-runtime.h"
#include "export/onnx-sequence.h"
#include "export/onnxio.h"
#include <math.h>
#include <string.h>

static Graph *
new_graph (void)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 17);
  return g;
}

static Tensor *
floats (guint rank, const gint64 *dims, const float *v)
{
  gint64 n = 1;
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  return tensor_new_from_data (GRAPH_DTYPE_FLOAT, rank, dims, v, (gsize) n * sizeof (float), NULL);
}

static GraphValue *
const_i64 (Graph *g, gint64 v)
{
  g_autoptr (Tensor) t = tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, v);
  return graph_op (g, "Constant", "value_t", t, NULL);
}

static GHashTable *
any_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) rt_any_free);
}

static void
assert_floats (const Tensor *t, guint rank, const gint64 *dims, const float *v)
{
  g_assert_nonnull (t);
  g_assert_cmpint (tensor_dtype (t), ==, GRAPH_DTYPE_FLOAT);
  g_assert_cmpuint (tensor_rank (t), ==, rank);
  for (guint i = 0; i < rank; i++)
    g_assert_cmpint (tensor_dim (t, i), ==, dims[i]);
  for (gint64 i = 0; i < tensor_numel (t); i++)
    g_assert_cmpfloat (tensor_get_double (t, i), ==, v[i]);
}

static GraphValue *
named_output (Graph *g, GraphValue *v, const char *name)
{
  graph_value_set_name (v, name);
  graph_add_output (g, v);
  return v;
}

/* x = [[0 1 2] [3 4 5]], y = [[10 11 12]]. */
static void
test_ops (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 dx[2] = { 2, 3 }, dy[2] = { 1, 3 };
  g_autoptr (GraphType) tx = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, dx);
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, dy);
  GraphValue *x = graph_add_input (g, "x", tx), *y = graph_add_input (g, "y", ty);
  GraphValue *s1 = graph_op (g, "SequenceConstruct", x, y, NULL);           /* [x, y] */
  GraphValue *s2 = graph_op (g, "SequenceInsert", s1, y, const_i64 (g, 0), NULL); /* [y, x, y] */
  GraphValue *s3 = graph_op (g, "SequenceErase", s2, NULL);                 /* [y, x] */
  named_output (g, s3, "s3");
  named_output (g, graph_op (g, "SequenceLength", s3, NULL), "len");
  named_output (g, graph_op (g, "SequenceAt", s3, const_i64 (g, -1), NULL), "at");
  named_output (g, graph_op (g, "ConcatFromSequence", s3, "axis_i", (gint64) 0, NULL), "cat");
  g_autoptr (Tensor) two = tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, 2);
  GraphValue *split = graph_op (g, "SplitToSequence", x, graph_op (g, "Constant", "value_t", two, NULL),
                                "axis_i", (gint64) 1, NULL);
  named_output (g, split, "split");
  GraphValue *rows = graph_op (g, "SplitToSequence", x, "keepdims_i", (gint64) 0, NULL);
  named_output (g, graph_op (g, "ConcatFromSequence", rows, "axis_i", (gint64) 1,
                             "new_axis_i", (gint64) 1, NULL), "stacked");
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  float xv[6] = { 0, 1, 2, 3, 4, 5 }, yv[3] = { 10, 11, 12 };
  g_autoptr (Tensor) xt = floats (2, dx, xv);
  g_autoptr (Tensor) yt = floats (2, dy, yv);
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                     (GDestroyNotify) rt_any_free);
  g_hash_table_insert (in, "x", rt_any_new_tensor (xt));
  g_hash_table_insert (in, "y", rt_any_new_tensor (yt));
  for (int run = 0; run < 2; run++)   /* the second run reuses the stores */
    {
      g_autoptr (GHashTable) out = any_table ();
      g_assert_true (rt_session_run_any (s, in, out, &error));
      g_assert_no_error (error);
      RtAny *a = g_hash_table_lookup (out, "s3");
      g_assert_cmpint (a->kind, ==, RT_ANY_SEQUENCE);
      g_assert_cmpint (a->elem_type, ==, GRAPH_DTYPE_FLOAT);
      g_assert_cmpuint (a->items->len, ==, 2);
      assert_floats (g_ptr_array_index (a->items, 0), 2, dy, yv);
      assert_floats (g_ptr_array_index (a->items, 1), 2, dx, xv);
      a = g_hash_table_lookup (out, "len");
      g_assert_cmpint (a->kind, ==, RT_ANY_TENSOR);
      g_assert_cmpint (tensor_get_int64 (a->tensor, 0), ==, 2);
      assert_floats (((RtAny *) g_hash_table_lookup (out, "at"))->tensor, 2, dx, xv);
      gint64 dcat[2] = { 3, 3 };
      float cat[9] = { 10, 11, 12, 0, 1, 2, 3, 4, 5 };
      assert_floats (((RtAny *) g_hash_table_lookup (out, "cat"))->tensor, 2, dcat, cat);
      /* Chunks of 2 columns: [[0 1] [3 4]], then the rest [[2] [5]]. */
      a = g_hash_table_lookup (out, "split");
      g_assert_cmpuint (a->items->len, ==, 2);
      gint64 d22[2] = { 2, 2 }, d21[2] = { 2, 1 };
      float c0[4] = { 0, 1, 3, 4 }, c1[2] = { 2, 5 };
      assert_floats (g_ptr_array_index (a->items, 0), 2, d22, c0);
      assert_floats (g_ptr_array_index (a->items, 1), 2, d21, c1);
      /* Rows [0 1 2], [3 4 5] stacked on a new axis 1: x transposed. */
      gint64 d32[2] = { 3, 2 };
      float xt_v[6] = { 0, 3, 1, 4, 2, 5 };
      assert_floats (((RtAny *) g_hash_table_lookup (out, "stacked"))->tensor, 2, d32, xt_v);
    }
  /* The Tensor-only entry point refuses sequence outputs by name. */
  g_autoptr (GHashTable) tin = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (tin, "x", xt);
  g_hash_table_insert (tin, "y", yt);
  g_autoptr (GHashTable) tout = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) tensor_unref);
  g_assert_false (rt_session_run (s, tin, tout, &error));
  g_assert_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "output 's3' is a sequence"));
  g_assert_nonnull (strstr (error->message, "rt_session_run_any"));
}

static GraphType *
optional_float_sequence (void)
{
  return graph_type_new_optional (graph_type_new_list (
    graph_type_new_tensor (GRAPH_DTYPE_FLOAT, -1, NULL)));
}

/* An optional(seq(float)) input: none, then a sequence of two. */
static void
test_optional (void)
{
  g_autoptr (Graph) g = new_graph ();
  g_autoptr (GraphType) ot = optional_float_sequence ();
  GraphValue *o = graph_add_input (g, "o", ot);
  named_output (g, graph_op (g, "OptionalHasElement", o, NULL), "has");
  named_output (g, graph_op (g, "Identity", o, NULL), "same");
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);

  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                     (GDestroyNotify) rt_any_free);
  g_hash_table_insert (in, "o", rt_any_new_none (GRAPH_DTYPE_FLOAT));
  g_autoptr (GHashTable) out = any_table ();
  g_assert_true (rt_session_run_any (s, in, out, &error));
  g_assert_no_error (error);
  g_assert_cmpint (tensor_get_int64 (((RtAny *) g_hash_table_lookup (out, "has"))->tensor, 0), ==, 0);
  g_assert_cmpint (((RtAny *) g_hash_table_lookup (out, "same"))->kind, ==, RT_ANY_NONE);

  RtAny *seq = rt_any_new_sequence (GRAPH_DTYPE_FLOAT);
  gint64 d1 = 2, d2 = 1;
  float a[2] = { 1.5f, -2 }, b[1] = { 7 };
  g_ptr_array_add (seq->items, floats (1, &d1, a));
  g_ptr_array_add (seq->items, floats (1, &d2, b));
  g_hash_table_insert (in, "o", seq);
  g_autoptr (GHashTable) out2 = any_table ();
  g_assert_true (rt_session_run_any (s, in, out2, &error));
  g_assert_no_error (error);
  g_assert_cmpint (tensor_get_int64 (((RtAny *) g_hash_table_lookup (out2, "has"))->tensor, 0), ==, 1);
  RtAny *same = g_hash_table_lookup (out2, "same");
  g_assert_cmpint (same->kind, ==, RT_ANY_SEQUENCE);
  g_assert_cmpuint (same->items->len, ==, 2);
  assert_floats (g_ptr_array_index (same->items, 0), 1, &d1, a);
  assert_floats (g_ptr_array_index (same->items, 1), 1, &d2, b);

  /* A plain tensor where the graph wants a sequence, through either API. */
  g_hash_table_insert (in, "o", rt_any_new_tensor (g_ptr_array_index (seq->items, 0)));
  g_autoptr (GHashTable) out3 = any_table ();
  g_assert_false (rt_session_run_any (s, in, out3, &error));
  g_assert_error (error, RT_ERROR, RT_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "input 'o'"));
  g_clear_error (&error);

  /* OptionalGetElement of none is an error naming the node. */
  g_autoptr (Graph) g2 = new_graph ();
  g_autoptr (GraphType) ot2 = optional_float_sequence ();
  GraphValue *o2 = graph_add_input (g2, "o", ot2);
  GraphValue *e = graph_op (g2, "OptionalGetElement", o2, NULL);
  graph_node_set_name (graph_value_node (e), "get");
  named_output (g2, e, "e");
  g_autoptr (RtSession) s2 = rt_session_new (g2, NULL, &error);
  g_assert_no_error (error);
  g_hash_table_insert (in, "o", rt_any_new_none (GRAPH_DTYPE_FLOAT));
  g_autoptr (GHashTable) out4 = any_table ();
  g_assert_false (rt_session_run_any (s2, in, out4, &error));
  g_assert_error (error, RT_ERROR, RT_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "'get'"));
  g_assert_nonnull (strstr (error->message, "has no value"));
}

/* SequenceMap adds t to each item; a Loop of 3 appends iter_num to an
 * empty int64 sequence: [0, 1, 2]. */
static void
test_map_and_loop (void)
{
  g_autoptr (Graph) g = new_graph ();
  g_autoptr (GraphType) st = graph_type_new_list (graph_type_new_tensor (GRAPH_DTYPE_FLOAT, -1, NULL));
  gint64 d1 = 1;
  g_autoptr (GraphType) tt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, &d1);
  GraphValue *sq = graph_add_input (g, "s", st), *t = graph_add_input (g, "t", tt);
  Graph *body = graph_new_subgraph (g);
  GraphValue *be = graph_add_input (body, "e", NULL), *bt = graph_add_input (body, "bt", NULL);
  graph_add_output (body, graph_op (body, "Add", be, bt, NULL));
  named_output (g, graph_op (g, "SequenceMap", sq, t, "body_g", body, NULL), "mapped");

  Graph *lb = graph_new_subgraph (g);
  GraphValue *it = graph_add_input (lb, "it", NULL), *c = graph_add_input (lb, "c", NULL);
  GraphValue *acc = graph_add_input (lb, "acc", NULL);
  graph_add_output (lb, graph_op (lb, "Identity", c, NULL));
  graph_add_output (lb, graph_op (lb, "SequenceInsert", acc, it, NULL));
  GraphValue *empty = graph_op (g, "SequenceEmpty", "dtype_i", (gint64) GRAPH_DTYPE_INT64, NULL);
  named_output (g, graph_op (g, "Loop", const_i64 (g, 3), GRAPH_ABSENT, empty, "body_g", lb, NULL),
                "looped");

  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                     (GDestroyNotify) rt_any_free);
  RtAny *seq = rt_any_new_sequence (GRAPH_DTYPE_FLOAT);
  gint64 d2 = 2;
  float a[2] = { 1, 2 }, b[1] = { -1 }, tv[1] = { 100 };
  g_ptr_array_add (seq->items, floats (1, &d2, a));
  g_ptr_array_add (seq->items, floats (1, &d1, b));
  g_hash_table_insert (in, "s", seq);
  g_autoptr (Tensor) tt_v = floats (1, &d1, tv);
  g_hash_table_insert (in, "t", rt_any_new_tensor (tt_v));
  g_autoptr (GHashTable) out = any_table ();
  g_assert_true (rt_session_run_any (s, in, out, &error));
  g_assert_no_error (error);
  RtAny *m = g_hash_table_lookup (out, "mapped");
  g_assert_cmpint (m->kind, ==, RT_ANY_SEQUENCE);
  g_assert_cmpint (m->elem_type, ==, GRAPH_DTYPE_FLOAT);   /* untyped output: from its items */
  g_assert_cmpuint (m->items->len, ==, 2);
  float m0[2] = { 101, 102 }, m1[1] = { 99 };
  assert_floats (g_ptr_array_index (m->items, 0), 1, &d2, m0);
  assert_floats (g_ptr_array_index (m->items, 1), 1, &d1, m1);
  RtAny *l = g_hash_table_lookup (out, "looped");
  g_assert_cmpint (l->kind, ==, RT_ANY_SEQUENCE);
  g_assert_cmpint (l->elem_type, ==, GRAPH_DTYPE_INT64);
  g_assert_cmpuint (l->items->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      Tensor *e = g_ptr_array_index (l->items, i);
      g_assert_cmpint (tensor_dtype (e), ==, GRAPH_DTYPE_INT64);
      g_assert_cmpuint (tensor_rank (e), ==, 0);
      g_assert_cmpint (tensor_get_int64 (e, 0), ==, i);
    }
}

/* Runs a one-output graph with no inputs; returns the error. */
static GError *
run_failing (Graph *g)
{
  GError *error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) out = any_table ();
  g_assert_false (rt_session_run_any (s, NULL, out, &error));
  g_assert_nonnull (error);
  return error;
}

static void
test_errors (void)
{
  gint64 dx = 3;
  float xv[3] = { 1, 2, 3 };
  g_autoptr (Tensor) x = floats (1, &dx, xv);
  struct { const char *what; int code; const char *message; } cases[] = {
    { "at", RT_ERROR_INPUT, "position 5 is out of range for a sequence of 1" },
    { "concat", RT_ERROR_INPUT, "empty sequence" },
    { "neg", RT_ERROR_UNSUPPORTED, "input 0 is a sequence, not a tensor" },
    { "split", RT_ERROR_INPUT, "split sizes add up to 2, the axis has 3" },
    { "erase", RT_ERROR_INPUT, "erasing from an empty sequence" },
    { "insert", RT_ERROR_INPUT, "inserting a int64 tensor into a sequence of float" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (Graph) g = new_graph ();
      GraphValue *c = graph_op (g, "Constant", "value_t", x, NULL);
      GraphValue *one = graph_op (g, "SequenceConstruct", c, NULL);
      GraphValue *empty = graph_op (g, "SequenceEmpty", NULL);
      GraphValue *out = NULL;
      if (i == 0)
        out = graph_op (g, "SequenceAt", one, const_i64 (g, 5), NULL);
      else if (i == 1)
        out = graph_op (g, "ConcatFromSequence", empty, "axis_i", (gint64) 0, NULL);
      else if (i == 2)
        out = graph_op (g, "Neg", empty, NULL);
      else if (i == 3)
        {
          gint64 sizes[2] = { 1, 1 };
          g_autoptr (Tensor) sp = tensor_new_int64_vector (2, sizes);
          out = graph_op (g, "SplitToSequence", c, graph_op (g, "Constant", "value_t", sp, NULL),
                          NULL);
        }
      else if (i == 4)
        out = graph_op (g, "SequenceErase", empty, NULL);
      else
        out = graph_op (g, "SequenceInsert", one, const_i64 (g, 1), NULL);
      graph_node_set_name (graph_value_node (out), cases[i].what);
      named_output (g, out, "out");
      g_autoptr (GError) error = run_failing (g);
      g_test_message ("%s: %s", cases[i].what, error->message);
      g_assert_error (error, RT_ERROR, cases[i].code);
      g_assert_nonnull (strstr (error->message, cases[i].message));
      g_autofree char *label = g_strdup_printf ("'%s'", cases[i].what);
      g_assert_nonnull (strstr (error->message, label));
    }
}

/* Cast float → bfloat16 → float truncates to the upper 16 bits (numpy:
 * (a.view(uint32) & 0xffff0000).view(float32)); NaN and inf survive. */
static void
test_bfloat16 (void)
{
  g_autoptr (Graph) g = new_graph ();
  gint64 n = 6;
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, &n);
  GraphValue *x = graph_add_input (g, "x", ty);
  GraphValue *b = graph_op (g, "Cast", x, "to_i", (gint64) GRAPH_DTYPE_BFLOAT16, NULL);
  named_output (g, b, "b");
  named_output (g, graph_op (g, "Cast", b, "to_i", (gint64) GRAPH_DTYPE_FLOAT, NULL), "f");
  float xv[6] = { 0.47892547f, 1.0f, -3.14159f, 65504.0f, NAN, -INFINITY };
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                     (GDestroyNotify) tensor_unref);
  g_hash_table_insert (in, "x", floats (1, &n, xv));
  g_autoptr (GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) tensor_unref);
  gboolean ok = rt_session_run (s, in, out, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  Tensor *bt = g_hash_table_lookup (out, "b"), *ft = g_hash_table_lookup (out, "f");
  g_assert_cmpint (tensor_dtype (bt), ==, GRAPH_DTYPE_BFLOAT16);
  const guint16 *bits = tensor_data (bt);
  guint16 want_bits[4] = { 16117, 16256, 49225, 18303 };  /* numpy: a.view(uint32) >> 16 */
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (bits[i], ==, want_bits[i]);
  double want[4] = { 0.478515625, 1.0, -3.140625, 65280.0 };
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat (tensor_get_double (ft, i), ==, want[i]);
  g_assert_true (isnan (tensor_get_double (ft, 4)));
  g_assert_true (isinf (tensor_get_double (ft, 5)) && tensor_get_double (ft, 5) < 0);
}

/* ---- SequenceProto / OptionalProto files ----------------------------------- */

#define TESTDATA "/usr/share/libonnx-testdata/data/node"

/* Values from python3-onnx: SequenceProto.ParseFromString and
 * numpy_helper.to_array. */
static void
test_pb_file (void)
{
  const char *path = TESTDATA "/test_sequence_insert_at_back/test_data_set_0/input_0.pb";
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_autoptr (OnnxioValue) v = onnxio_sequence_load (path, &name, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "sequence");
  g_assert_cmpint (v->kind, ==, ONNXIO_VALUE_SEQUENCE);
  g_assert_cmpint (v->elem_type, ==, GRAPH_DTYPE_INT64);
  g_assert_cmpuint (v->items->len, ==, 3);
  gint64 lens[3] = { 4, 3, 2 }, next = 1;
  for (guint i = 0; i < 3; i++)
    {
      Tensor *t = g_ptr_array_index (v->items, i);
      g_assert_cmpuint (tensor_rank (t), ==, 1);
      g_assert_cmpint (tensor_dim (t, 0), ==, lens[i]);
      for (gint64 k = 0; k < lens[i]; k++)
        g_assert_cmpint (tensor_get_int64 (t, k), ==, next++);
    }
}

/* Hand-encoded messages: field 1 name, 2 elem_type, 3 tensor(s), 5 sequence. */
static void
test_pb_bytes (void)
{
  g_autoptr (GError) error = NULL;
  /* OptionalProto { elem_type: TENSOR, tensor_value { dims: 2, data_type:
   * FLOAT, raw_data: 1.0f 2.0f } } */
  const guint8 opt_tensor[] = {
    0x10, 0x01, 0x1a, 0x0e, 0x08, 0x02, 0x10, 0x01, 0x4a, 0x08,
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40,
  };
  g_autoptr (OnnxioValue) v = onnxio_optional_load_from_data (opt_tensor, sizeof opt_tensor,
                                                              "opt", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (v->kind, ==, ONNXIO_VALUE_TENSOR);
  g_assert_cmpint (tensor_dim (v->tensor, 0), ==, 2);
  g_assert_cmpfloat (tensor_get_double (v->tensor, 1), ==, 2.0);
  /* OptionalProto { name: "o", elem_type: TENSOR }: no value. */
  const guint8 opt_none[] = { 0x0a, 0x01, 'o', 0x10, 0x01 };
  g_autofree char *name = NULL;
  g_autoptr (OnnxioValue) none = onnxio_optional_load_from_data (opt_none, sizeof opt_none,
                                                                 "none", &name, &error);
  g_assert_no_error (error);
  g_assert_cmpint (none->kind, ==, ONNXIO_VALUE_NONE);
  g_assert_cmpstr (name, ==, "o");
  /* OptionalProto { sequence_value { tensor_values { dims: 0, data_type: INT64 } } } */
  const guint8 opt_seq[] = { 0x2a, 0x06, 0x1a, 0x04, 0x08, 0x00, 0x10, 0x07 };
  g_autoptr (OnnxioValue) os = onnxio_optional_load_from_data (opt_seq, sizeof opt_seq, "os",
                                                               NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (os->kind, ==, ONNXIO_VALUE_SEQUENCE);
  g_assert_cmpuint (os->items->len, ==, 1);
  g_assert_cmpint (os->elem_type, ==, GRAPH_DTYPE_INT64);

  struct { const guint8 *data; gsize len; gboolean sequence; int code; const char *message; } bad[] = {
    { (const guint8 *) "\x1a\x05\x08", 3, TRUE, ONNXIO_ERROR_PARSE,
      "bad: SequenceProto: field 3 at offset 0 runs past the end of the data (3 bytes)" },
    { (const guint8 *) "\x10\x01\x0b", 3, FALSE, ONNXIO_ERROR_PARSE,
      "bad: OptionalProto: field 1 at offset 2 has wire type 3" },
    { (const guint8 *) "\x10\xff\xff", 3, TRUE, ONNXIO_ERROR_PARSE, "truncated or overlong varint" },
    { (const guint8 *) "\x32\x00", 2, TRUE, ONNXIO_ERROR_UNSUPPORTED, "map values are not supported" },
    { (const guint8 *) "\x2a\x00", 2, TRUE, ONNXIO_ERROR_UNSUPPORTED, "nested sequences" },
    { (const guint8 *) "\x10\x04", 2, FALSE, ONNXIO_ERROR_UNSUPPORTED, "elem_type 4 does not fit" },
    /* Two tensors: float then int64. */
    { (const guint8 *) "\x1a\x04\x08\x00\x10\x01\x1a\x04\x08\x00\x10\x07", 12, TRUE,
      ONNXIO_ERROR_PARSE, "tensor 1 is int64 in a sequence of float" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (OnnxioValue) r = bad[i].sequence
        ? onnxio_sequence_load_from_data (bad[i].data, bad[i].len, "bad", NULL, &e)
        : onnxio_optional_load_from_data (bad[i].data, bad[i].len, "bad", NULL, &e);
      g_assert_null (r);
      g_test_message ("%u: %s", i, e->message);
      g_assert_error (e, ONNXIO_ERROR, bad[i].code);
      g_assert_nonnull (strstr (e->message, bad[i].message));
    }
  g_autoptr (OnnxioValue) missing = onnxio_sequence_load ("/nonexistent/x.pb", NULL, &error);
  g_assert_null (missing);
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_IO);
}

void
test_sequence_register (void)
{
  g_test_add_func ("/runtime/sequence/ops", test_ops);
  g_test_add_func ("/runtime/sequence/optional", test_optional);
  g_test_add_func ("/runtime/sequence/map-and-loop", test_map_and_loop);
  g_test_add_func ("/runtime/sequence/errors", test_errors);
  g_test_add_func ("/runtime/sequence/bfloat16-cast", test_bfloat16);
  g_test_add_func ("/runtime/sequence/pb-file", test_pb_file);
  g_test_add_func ("/runtime/sequence/pb-bytes", test_pb_bytes);
}
