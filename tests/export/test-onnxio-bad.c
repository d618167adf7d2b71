/* Bad input for the ONNX reader: each case is a clear GError naming the
 * source and the place, never a crash (run these under the ASan build). */
#include "tests/export/onnxio-testutil.h"
#include "export/onnx/onnxio-private.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* ---- a tiny protobuf encoder, for files protobuf-c would refuse to make */

static void
put_varint (GByteArray *b, guint64 v)
{
  do
    {
      guint8 c = (guint8) (v & 0x7f);
      v >>= 7;
      if (v)
        c |= 0x80;
      g_byte_array_append (b, &c, 1);
    }
  while (v);
}

static void
put_tag (GByteArray *b, guint field, guint wt)
{
  put_varint (b, (guint64) field << 3 | wt);
}

static void
put_bytes (GByteArray *b, guint field, const void *data, gsize len)
{
  put_tag (b, field, 2);
  put_varint (b, len);
  g_byte_array_append (b, data, (guint) len);
}

static void
put_str (GByteArray *b, guint field, const char *s)
{
  put_bytes (b, field, s, strlen (s));
}

static void
put_int (GByteArray *b, guint field, guint64 v)
{
  put_tag (b, field, 0);
  put_varint (b, v);
}

/* ModelProto{ir_version 8, opset_import {"" 13}, graph = <graph bytes>} */
static GByteArray *
model_around (const guint8 *graph, gsize len)
{
  GByteArray *m = g_byte_array_new ();
  put_int (m, 1, 8);
  g_autoptr(GByteArray) op = g_byte_array_new ();
  put_int (op, 2, 13);
  put_bytes (m, 8, op->data, op->len);
  put_bytes (m, 7, graph, len);
  return m;
}

static void
assert_load_fails (const guint8 *data, gsize len, OnnxioErrorCode code, const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(Graph) g = onnxio_load_from_data (data, len, NULL, "bad.onnx", &error);
  g_assert_null (g);
  g_assert_error (error, ONNXIO_ERROR, (gint) code);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "bad.onnx: "));
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, error->message);
}

/* A load that may succeed (a cut at a field boundary is still a valid
 * message) but must never crash; errors name the source. */
static gboolean
load_survives (const guint8 *data, gsize len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(Graph) g = onnxio_load_from_data (len ? data : (const guint8 *) "", len, NULL,
                                              "fuzz.onnx", &error);
  if (g == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == ONNXIO_ERROR);
      g_assert_true (g_str_has_prefix (error->message, "fuzz.onnx: "));
      return FALSE;
    }
  g_assert_true (graph_lint (g, NULL));
  return TRUE;
}

static const char *const sample_models[] = {
  ONNXIO_TESTDATA "/node/test_if_seq/model.onnx",
  ONNXIO_TESTDATA "/node/test_loop11/model.onnx",
  ONNXIO_TESTDATA "/pytorch-converted/test_ConvTranspose2d/model.onnx",
  ONNXIO_TESTDATA "/node/test_optional_get_element_sequence/model.onnx",
};

static void
test_truncated (void)
{
  guint errors = 0, total = 0;
  for (guint m = 0; m < G_N_ELEMENTS (sample_models); m++)
    {
      g_autofree guint8 *data = NULL;
      gsize len;
      if (!g_file_get_contents (sample_models[m], (char **) &data, &len, NULL))
        {
          g_test_skip ("libonnx-testdata is not installed");
          return;
        }
      gsize step = MAX (len / 2000, 1);
      for (gsize cut = 0; cut < len; cut += step, total++)
        {
          /* A copy of exactly `cut` bytes, so ASan sees any over-read. */
          g_autofree guint8 *part = g_memdup2 (data, cut);
          if (!load_survives (part, cut))
            errors++;
        }
    }
  g_test_message ("%u truncations, %u errors", total, errors);
  g_assert_cmpuint (errors, >, total / 2);
}

static void
test_random_bytes (void)
{
  g_autoptr(GRand) r = g_rand_new_with_seed (1234);
  for (guint i = 0; i < 2000; i++)
    {
      gsize len = (gsize) g_rand_int_range (r, 1, 2048);
      g_autofree guint8 *buf = g_malloc (len);
      for (gsize k = 0; k < len; k++)
        buf[k] = (guint8) g_rand_int (r);
      load_survives (buf, len);
      g_autoptr(GError) error = NULL;
      g_autoptr(Tensor) t = onnxio_tensor_load_from_data (buf, len, "fuzz.pb", NULL, &error);
      g_assert_true (t != NULL || error != NULL);
    }
  /* Real models with bytes flipped. */
  g_autofree guint8 *data = NULL;
  gsize len;
  if (!g_file_get_contents (sample_models[2], (char **) &data, &len, NULL))
    return;
  for (guint i = 0; i < 2000; i++)
    {
      g_autofree guint8 *copy = g_memdup2 (data, len);
      for (int k = 0; k < 4; k++)
        copy[g_rand_int_range (r, 0, (gint32) len)] = (guint8) g_rand_int (r);
      load_survives (copy, len);
    }
}

static void
test_wire_types (void)
{
  /* ir_version (a varint) sent as length-delimited */
  const guint8 a[] = { 0x0a, 0x01, 0x00 };
  assert_load_fails (a, sizeof a, ONNXIO_ERROR_PARSE, "ModelProto.ir_version");
  assert_load_fails (a, sizeof a, ONNXIO_ERROR_PARSE, "wire type 2, expected 0");
  /* graph (a message) as a varint */
  const guint8 b[] = { 0x38, 0x01 };
  assert_load_fails (b, sizeof b, ONNXIO_ERROR_PARSE, "ModelProto.graph");
  /* a length running past the end */
  const guint8 c[] = { 0x3a, 0x7f, 0x00 };
  assert_load_fails (c, sizeof c, ONNXIO_ERROR_PARSE, "runs past the end");
  /* a varint that never ends */
  const guint8 d[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
  assert_load_fails (d, sizeof d, ONNXIO_ERROR_PARSE, "malformed varint");
  /* groups (wire type 3) */
  const guint8 e[] = { 0x0b };
  assert_load_fails (e, sizeof e, ONNXIO_ERROR_PARSE, "wire type 3");
  /* packed dims that do not end cleanly, inside a TensorProto .pb */
  const guint8 f[] = { 0x0a, 0x02, 0x01, 0x80 };
  g_autoptr(GError) error = NULL;
  g_assert_null (onnxio_tensor_load_from_data (f, sizeof f, "t.pb", NULL, &error));
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "TensorProto.dims"));
  /* empty and no graph */
  assert_load_fails ((const guint8 *) "", 0, ONNXIO_ERROR_PARSE, "empty");
  const guint8 g[] = { 0x08, 0x07 };
  assert_load_fails (g, sizeof g, ONNXIO_ERROR_PARSE, "ModelProto.graph is missing");
}

/* TensorProto bytes: dims, data_type, raw_data (raw NULL: none). */
static GByteArray *
tensor_msg (const char *name, const gint64 *dims, guint rank, int dtype,
              const void *raw, gsize raw_len)
{
  GByteArray *t = g_byte_array_new ();
  for (guint i = 0; i < rank; i++)
    put_int (t, 1, (guint64) dims[i]);
  put_int (t, 2, (guint64) dtype);
  if (name)
    put_str (t, 8, name);
  if (raw)
    put_bytes (t, 9, raw, raw_len);
  return t;
}

static void
assert_tensor_fails (GByteArray *t, const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(Tensor) x = onnxio_tensor_load_from_data (t->data, t->len, "t.pb", NULL, &error);
  g_assert_null (x);
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE);
  g_test_message ("%s", error->message);
  if (strstr (error->message, needle) == NULL || !g_str_has_prefix (error->message, "t.pb: "))
    g_error ("\"%s\" not in \"%s\"", needle, error->message);
}

static void
test_bad_sizes (void)
{
  const float four[4] = { 1, 2, 3, 4 };
  const gint64 neg[] = { -1 };
  g_autoptr(GByteArray) t1 = tensor_msg ("x", neg, 1, 1, four, 0);
  assert_tensor_fails (t1, "dims[0] is negative");
  const gint64 huge[] = { G_GINT64_CONSTANT (1) << 40, G_GINT64_CONSTANT (1) << 40 };
  g_autoptr(GByteArray) t2 = tensor_msg ("x", huge, 2, 1, four, 16);
  assert_tensor_fails (t2, "overflows");
  const gint64 big[] = { 1000000, 1000000 };   /* 4 TB claimed by a 30-byte file */
  g_autoptr(GByteArray) t3 = tensor_msg ("x", big, 2, 1, four, 16);
  assert_tensor_fails (t3, "raw_data has 16 bytes");
  const gint64 d5[] = { 5 };
  g_autoptr(GByteArray) t4 = tensor_msg ("x", d5, 1, 1, four, 16);
  assert_tensor_fails (t4, "needs 20");
  g_autoptr(GByteArray) t5 = tensor_msg ("x", d5, 1, 1, NULL, 0);
  assert_tensor_fails (t5, "no data");
  g_autoptr(GByteArray) t6 = tensor_msg ("x", d5, 1, 99, four, 16);
  {
    g_autoptr(GError) error = NULL;
    g_assert_null (onnxio_tensor_load_from_data (t6->data, t6->len, "t.pb", NULL, &error));
    g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_UNSUPPORTED);
  }
  gint64 many[70];
  for (int i = 0; i < 70; i++)
    many[i] = 1;
  g_autoptr(GByteArray) t7 = tensor_msg ("x", many, 70, 1, four, 4);
  assert_tensor_fails (t7, "at most");

  /* In a model: the error names the initializer. */
  const gint64 d4[] = { 4 };
  g_autoptr(GByteArray) init = tensor_msg ("w", d4, 1, 1, four, 12);
  g_autoptr(GByteArray) graph = g_byte_array_new ();
  put_str (graph, 2, "g");
  put_bytes (graph, 5, init->data, init->len);
  g_autoptr(GByteArray) m = model_around (graph->data, graph->len);
  assert_load_fails (m->data, m->len, ONNXIO_ERROR_PARSE, "initializer 'w': TensorProto.raw_data has 12 bytes");

  /* A negative dim_value in a type. */
  g_autoptr(GByteArray) dim = g_byte_array_new ();
  put_int (dim, 1, (guint64) -5);
  g_autoptr(GByteArray) shape = g_byte_array_new ();
  put_bytes (shape, 1, dim->data, dim->len);
  g_autoptr(GByteArray) tt = g_byte_array_new ();
  put_int (tt, 1, 1);
  put_bytes (tt, 2, shape->data, shape->len);
  g_autoptr(GByteArray) type = g_byte_array_new ();
  put_bytes (type, 1, tt->data, tt->len);
  g_autoptr(GByteArray) vi = g_byte_array_new ();
  put_str (vi, 1, "x");
  put_bytes (vi, 2, type->data, type->len);
  g_autoptr(GByteArray) g2 = g_byte_array_new ();
  put_bytes (g2, 11, vi->data, vi->len);
  g_autoptr(GByteArray) m2 = model_around (g2->data, g2->len);
  assert_load_fails (m2->data, m2->len, ONNXIO_ERROR_PARSE, "input 'x': TensorShapeProto.dim[0].dim_value is negative");

  /* A node reading a value nobody defined. */
  g_autoptr(GByteArray) node = g_byte_array_new ();
  put_str (node, 1, "ghost");
  put_str (node, 2, "y");
  put_str (node, 4, "Relu");
  g_autoptr(GByteArray) g3 = g_byte_array_new ();
  put_bytes (g3, 1, node->data, node->len);
  g_autoptr(GByteArray) m3 = model_around (g3->data, g3->len);
  assert_load_fails (m3->data, m3->len, ONNXIO_ERROR_PARSE, "input 'ghost' is not defined");
}

/* A model whose initializer "w" (float[4]) lives in external data. */
static GByteArray *
external_model (const char *location, const char *offset, const char *length)
{
  const gint64 d4[] = { 4 };
  g_autoptr(GByteArray) t = tensor_msg ("w", d4, 1, 1, NULL, 0);
  const char *kv[][2] = { { "location", location }, { "offset", offset }, { "length", length } };
  for (guint i = 0; i < G_N_ELEMENTS (kv); i++)
    {
      if (kv[i][1] == NULL)
        continue;
      g_autoptr(GByteArray) e = g_byte_array_new ();
      put_str (e, 1, kv[i][0]);
      put_str (e, 2, kv[i][1]);
      put_bytes (t, 13, e->data, e->len);
    }
  put_int (t, 14, 1);   /* data_location EXTERNAL */
  g_autoptr(GByteArray) graph = g_byte_array_new ();
  put_str (graph, 2, "g");
  put_bytes (graph, 5, t->data, t->len);
  return model_around (graph->data, graph->len);
}

static void
assert_external (const char *dir, GByteArray *m, gboolean ok, const char *needle)
{
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_assert_true (g_file_set_contents (path, (const char *) m->data, m->len, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(Graph) g = onnxio_load (path, &error);
  if (ok)
    {
      g_assert_no_error (error);
      Tensor *w = graph_value_get_initializer (graph_find_value (g, "w"));
      g_assert_nonnull (w);
      g_assert_cmpfloat (tensor_get_double (w, 3), ==, 4.0);
      return;
    }
  g_assert_null (g);
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_EXTERNAL_DATA);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, path));
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, error->message);
}

static void
test_external_confined (void)
{
  g_autofree char *tmp = onnxio_test_mkdtemp ();
  g_autofree char *dir = g_build_filename (tmp, "model", NULL);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  const float four[4] = { 1, 2, 3, 4 };
  g_autofree char *secret = g_build_filename (tmp, "secret.bin", NULL);
  g_autofree char *inside = g_build_filename (dir, "w.bin", NULL);
  g_assert_true (g_file_set_contents (secret, (const char *) four, sizeof four, NULL));
  g_assert_true (g_file_set_contents (inside, (const char *) four, sizeof four, NULL));
  g_autofree char *link = g_build_filename (dir, "link.bin", NULL);
  g_assert_cmpint (symlink ("../secret.bin", link), ==, 0);
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_autofree char *sublink = g_build_filename (sub, "up", NULL);
  g_assert_cmpint (symlink ("..", sublink), ==, 0);   /* stays inside: fine */

  g_autoptr(GByteArray) good = external_model ("w.bin", "0", "16");
  assert_external (dir, good, TRUE, NULL);
  g_autoptr(GByteArray) good2 = external_model ("sub/up/w.bin", NULL, NULL);
  assert_external (dir, good2, TRUE, NULL);
  g_autoptr(GByteArray) dotdot = external_model ("../secret.bin", "0", "16");
  assert_external (dir, dotdot, FALSE, "outside the model's folder");
  g_autoptr(GByteArray) dotdot2 = external_model ("sub/../../secret.bin", NULL, NULL);
  assert_external (dir, dotdot2, FALSE, "outside the model's folder");
  g_autoptr(GByteArray) abs = external_model (secret, "0", "16");
  assert_external (dir, abs, FALSE, "outside the model's folder");
  g_autoptr(GByteArray) sym = external_model ("link.bin", "0", "16");
  assert_external (dir, sym, FALSE, "symbolic link");
  g_autoptr(GByteArray) past = external_model ("w.bin", "8", "16");
  assert_external (dir, past, FALSE, "runs past the end");
  g_autoptr(GByteArray) len = external_model ("w.bin", "0", "12");
  assert_external (dir, len, FALSE, "does not match");
  g_autoptr(GByteArray) off = external_model ("w.bin", "-1", NULL);
  assert_external (dir, off, FALSE, "not a valid size");
  g_autoptr(GByteArray) missing = external_model ("nope.bin", NULL, NULL);
  assert_external (dir, missing, FALSE, "nope.bin");
  onnxio_test_rmtree (tmp);
}

/* `depth` If bodies nested in each other, built from the inside out with
 * the subgraph last in every message so each level is one header. */
static GByteArray *
nested_ifs (guint depth)
{
  g_autoptr(GByteArray) inner = g_byte_array_new ();
  put_str (inner, 2, "g");
  gsize size = inner->len;
  g_autoptr(GPtrArray) headers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  for (guint k = 0; k < depth; k++)
    {
      GByteArray *attr = g_byte_array_new ();
      put_str (attr, 1, "then_branch");
      put_int (attr, 20, 5);
      put_tag (attr, 6, 2);
      put_varint (attr, size);
      size += attr->len;
      GByteArray *node = g_byte_array_new ();
      put_str (node, 4, "If");
      put_tag (node, 5, 2);
      put_varint (node, size);
      size += node->len;
      GByteArray *graph = g_byte_array_new ();
      put_str (graph, 2, "g");
      put_tag (graph, 1, 2);
      put_varint (graph, size);
      size += graph->len;
      g_ptr_array_add (headers, attr);
      g_ptr_array_add (headers, node);
      g_ptr_array_add (headers, graph);
    }
  GByteArray *m = g_byte_array_new ();
  put_int (m, 1, 8);
  g_autoptr(GByteArray) op = g_byte_array_new ();
  put_int (op, 2, 13);
  put_bytes (m, 8, op->data, op->len);
  put_tag (m, 7, 2);
  put_varint (m, size);
  for (guint i = headers->len; i-- > 0;)
    {
      GByteArray *h = g_ptr_array_index (headers, i);
      g_byte_array_append (m, h->data, h->len);
    }
  g_byte_array_append (m, inner->data, inner->len);
  return m;
}

static void
test_deep_nesting (void)
{
  /* At the limit (the top graph counts): loads. */
  g_autoptr(GByteArray) ok = nested_ifs (ONNXIO_MAX_GRAPH_DEPTH - 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(Graph) g = onnxio_load_from_data (ok->data, ok->len, NULL, "deep.onnx", &error);
  g_assert_no_error (error);
  guint levels = 0;
  for (Graph *cur = g; graph_first_node (cur) != NULL; levels++)
    g_assert_true (graph_node_get_g (graph_first_node (cur), "then_branch", &cur));
  g_assert_cmpuint (levels, ==, ONNXIO_MAX_GRAPH_DEPTH - 1);

  g_autoptr(GByteArray) over = nested_ifs (ONNXIO_MAX_GRAPH_DEPTH);
  assert_load_fails (over->data, over->len, ONNXIO_ERROR_PARSE, "subgraphs nested deeper than 64");
  g_autoptr(GByteArray) deep = nested_ifs (5000);
  assert_load_fails (deep->data, deep->len, ONNXIO_ERROR_PARSE, "subgraphs nested deeper than 64");

  /* Types nested thousands deep (sequence of sequence of ...). */
  g_autoptr(GByteArray) t = g_byte_array_new ();
  for (guint k = 0; k < 3000; k++)
    {
      g_autoptr(GByteArray) seq = g_byte_array_new ();
      if (t->len)
        put_bytes (seq, 1, t->data, t->len);
      g_byte_array_set_size (t, 0);
      put_bytes (t, 4, seq->data, seq->len);
    }
  g_autoptr(GByteArray) vi = g_byte_array_new ();
  put_str (vi, 1, "x");
  put_bytes (vi, 2, t->data, t->len);
  g_autoptr(GByteArray) graph = g_byte_array_new ();
  put_bytes (graph, 11, vi->data, vi->len);
  g_autoptr(GByteArray) m = model_around (graph->data, graph->len);
  assert_load_fails (m->data, m->len, ONNXIO_ERROR_PARSE, "messages nested deeper than 256");
}

void test_onnxio_bad_register (void);

void
test_onnxio_bad_register (void)
{
  g_test_add_func ("/export/onnx/bad/truncated", test_truncated);
  g_test_add_func ("/export/onnx/bad/random-bytes", test_random_bytes);
  g_test_add_func ("/export/onnx/bad/wire-types", test_wire_types);
  g_test_add_func ("/export/onnx/bad/sizes", test_bad_sizes);
  g_test_add_func ("/export/onnx/bad/external-data", test_external_confined);
  g_test_add_func ("/export/onnx/bad/deep-nesting", test_deep_nesting);
}
