/* Element types and tensors. */
#include "tests/common/test-util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The enum values must be ONNX's: check each against the onnx.proto that
 * python3-onnx ships (an independent source), by the upper-cased name. */
static void
test_dtype_matches_onnx_proto (void)
{
  const char *proto = "/usr/lib/python3/dist-packages/onnx/onnx.proto";
  g_autofree char *text = NULL;
  if (!g_file_get_contents (proto, &text, NULL, NULL))
    {
      g_test_skip ("onnx.proto (python3-onnx) is not installed");
      return;
    }
  const char *start = strstr (text, "enum DataType");
  g_assert_nonnull (start);
  for (int d = 0; d < GRAPH_DTYPE_LAST; d++)
    {
      g_autofree char *upper = g_ascii_strup (graph_dtype_name (d), -1);
      g_autofree char *pattern = g_strdup_printf ("\\b%s = ([0-9]+);", upper);
      g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
      g_autoptr (GMatchInfo) m = NULL;
      g_assert_true (g_regex_match (re, start, 0, &m));
      g_autofree char *num = g_match_info_fetch (m, 1);
      g_assert_cmpint (atoi (num), ==, d);
    }
}

static void
test_dtype_names_round_trip (void)
{
  for (int d = 0; d < GRAPH_DTYPE_LAST; d++)
    {
      GraphDType back;
      g_assert_true (graph_dtype_from_name (graph_dtype_name (d), &back));
      g_assert_cmpint (back, ==, d);
      g_assert_true (graph_dtype_from_torch_name (graph_dtype_torch_name (d), &back));
      g_assert_cmpint (back, ==, d);
    }
  GraphDType unused;
  g_assert_false (graph_dtype_from_name ("float128", &unused));
  g_assert_false (graph_dtype_is_valid (-1));
  g_assert_false (graph_dtype_is_valid (GRAPH_DTYPE_LAST));
}

static void
test_dtype_sizes (void)
{
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_FLOAT), ==, sizeof (float));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_DOUBLE), ==, sizeof (double));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_INT64), ==, sizeof (gint64));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_INT32), ==, sizeof (gint32));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_INT16), ==, sizeof (gint16));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_UINT8), ==, sizeof (guint8));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_UINT64), ==, sizeof (guint64));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_COMPLEX64), ==, 2 * sizeof (float));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_COMPLEX128), ==, 2 * sizeof (double));
  g_assert_cmpuint (graph_dtype_size (GRAPH_DTYPE_STRING), ==, 0);
}

static void
test_tensor_new_checks_size (void)
{
  gint64 dims[2] = { 2, 3 };
  float data[6] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr (GError) error = NULL;
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, dims, data, sizeof data, &error);
  g_assert_no_error (error);
  g_assert_cmpint (tensor_numel (t), ==, 6);
  g_assert_cmpuint (tensor_nbytes (t), ==, sizeof data);
  g_assert_cmpfloat (tensor_get_double (t, 5), ==, 6.0);

  Tensor *bad = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, dims, data, sizeof data - 4, &error);
  g_assert_null (bad);
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR);
  g_clear_error (&error);

  gint64 negative[1] = { -1 };
  g_assert_null (tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 1, negative, &error));
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR);
  g_clear_error (&error);

  gint64 huge[3] = { G_MAXINT64 / 2, 4, 4 };
  g_assert_null (tensor_new_zeroed (GRAPH_DTYPE_FLOAT, 3, huge, &error));
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR);
}

static void
test_tensor_scalars (void)
{
  g_autoptr (Tensor) f = tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, 2.5);
  g_assert_cmpuint (tensor_rank (f), ==, 0);
  g_assert_cmpint (tensor_numel (f), ==, 1);
  g_assert_cmpfloat (tensor_get_double (f, 0), ==, 2.5);
  g_autoptr (Tensor) l = tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, G_MININT64);
  g_assert_cmpint (tensor_get_int64 (l, 0), ==, G_MININT64);
  gint64 v[3] = { 4, -5, 6 };
  g_autoptr (Tensor) vec = tensor_new_int64_vector (3, v);
  g_assert_cmpint (tensor_dim (vec, 0), ==, 3);
  g_assert_cmpint (tensor_get_int64 (vec, 1), ==, -5);
}

/* IEEE half: 0x3c00 = 1.0, 0xc000 = -2.0, 0x0001 = 2^-24, 0x7c00 = inf. */
static void
test_tensor_half (void)
{
  guint16 h[4] = { 0x3c00, 0xc000, 0x0001, 0x7c00 };
  gint64 dim = 4;
  g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_FLOAT16, 1, &dim, h, sizeof h, NULL);
  g_assert_cmpfloat (tensor_get_double (t, 0), ==, 1.0);
  g_assert_cmpfloat (tensor_get_double (t, 1), ==, -2.0);
  g_assert_cmpfloat (tensor_get_double (t, 2), ==, ldexp (1.0, -24));
  g_assert_true (isinf (tensor_get_double (t, 3)));
}

static void
test_tensor_strings_and_equal (void)
{
  g_autoptr (GBytes) a = g_bytes_new ("a\0b", 3);
  g_autoptr (GBytes) b = g_bytes_new ("", 0);
  GBytes *strs[2] = { a, b };
  gint64 dim = 2;
  g_autoptr (Tensor) t = tensor_new_strings (1, &dim, strs, NULL);
  g_autoptr (Tensor) u = tensor_new_strings (1, &dim, strs, NULL);
  g_assert_cmpuint (g_bytes_get_size (tensor_string (t, 0)), ==, 3);
  g_assert_true (tensor_equal (t, u));
  g_autoptr (Tensor) z = tensor_new_zeroed (GRAPH_DTYPE_STRING, 1, &dim, NULL);
  g_assert_false (tensor_equal (t, z));
}

/* A deferred tensor whose element i is 0.5 * i + base, counting calls. */
typedef struct
{
  float base;
  guint fills;
  gboolean destroyed;
} RampData;

static void
ramp_fill (gconstpointer data, gint64 first, gint64 count, gpointer dst)
{
  RampData *r = (RampData *) data;
  r->fills++;
  for (gint64 i = 0; i < count; i++)
    ((float *) dst)[i] = r->base + 0.5f * (float) (first + i);
}

static void
ramp_destroy (gpointer data)
{
  ((RampData *) data)->destroyed = TRUE;
}

static void
test_tensor_deferred (void)
{
  RampData r = { .base = 1.0f };
  gint64 dims[2] = { 3, 5 };
  Tensor *t = tensor_new_deferred (GRAPH_DTYPE_FLOAT, 2, dims, ramp_fill, &r, ramp_destroy, NULL);
  g_assert_nonnull (t);
  g_assert_true (tensor_has_data (t));
  g_assert_true (tensor_is_deferred (t));
  g_assert_cmpuint (tensor_nbytes (t), ==, 15 * sizeof (float));

  /* A piece is computed without keeping anything. */
  float piece[4];
  tensor_fill (t, 6, 4, piece);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (piece[i], ==, 1.0f + 0.5f * (float) (6 + i));
  g_assert_true (tensor_is_deferred (t));
  g_assert_cmpuint (r.fills, ==, 1);

  /* Whole-data accessors compute it once and keep it. */
  const float *d = tensor_data (t);
  g_assert_nonnull (d);
  g_assert_false (tensor_is_deferred (t));
  g_assert_cmpuint (r.fills, ==, 2);
  g_assert_cmpfloat (d[14], ==, 8.0f);
  g_assert_cmpfloat (tensor_get_double (t, 3), ==, 2.5);
  g_assert_true (tensor_bytes (t) != NULL);
  tensor_fill (t, 0, 4, piece);
  g_assert_cmpfloat (piece[3], ==, 2.5f);
  g_assert_cmpuint (r.fills, ==, 2);

  /* Equal to the same values held plainly; compared by value. */
  float plain[15];
  for (int i = 0; i < 15; i++)
    plain[i] = 1.0f + 0.5f * (float) i;
  g_autoptr (Tensor) p = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, dims, plain, sizeof plain, NULL);
  RampData r2 = { .base = 1.0f };
  g_autoptr (Tensor) u = tensor_new_deferred (GRAPH_DTYPE_FLOAT, 2, dims, ramp_fill, &r2, NULL, NULL);
  g_assert_true (tensor_equal (u, p));
  g_assert_true (tensor_equal (t, u));

  g_assert_false (r.destroyed);
  tensor_unref (t);
  g_assert_true (r.destroyed);

  /* Refused: string element type, negative dims.  user_data is released. */
  g_autoptr (GError) error = NULL;
  RampData bad = { 0 };
  g_assert_null (tensor_new_deferred (GRAPH_DTYPE_STRING, 2, dims, ramp_fill, &bad, ramp_destroy,
                                      &error));
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR);
  g_assert_true (bad.destroyed);
  g_clear_error (&error);
  gint64 negative[1] = { -1 };
  bad.destroyed = FALSE;
  g_assert_null (tensor_new_deferred (GRAPH_DTYPE_FLOAT, 1, negative, ramp_fill, &bad, ramp_destroy,
                                      &error));
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR);
  g_assert_true (bad.destroyed);
}

/* tensor_cast against numpy's astype: [1.5, -2.7, 0, 300] as int64 is
 * [1, -2, 0, 300], as bool [1, 1, 0, 1]; the promotion order is torch's. */
static void
test_tensor_cast (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 four = 4;
  g_autoptr (Tensor) f = tensor_new_zeroed (GRAPH_DTYPE_DOUBLE, 1, &four, &error);
  g_assert_no_error (error);
  const double v[] = { 1.5, -2.7, 0.0, 300.0 };
  memcpy ((void *) tensor_data (f), v, sizeof v);
  g_autoptr (Tensor) i = tensor_cast (f, GRAPH_DTYPE_INT64, &error);
  g_assert_no_error (error);
  const gint64 want_i[] = { 1, -2, 0, 300 };
  for (int k = 0; k < 4; k++)
    g_assert_cmpint (tensor_get_int64 (i, k), ==, want_i[k]);
  g_autoptr (Tensor) b = tensor_cast (f, GRAPH_DTYPE_BOOL, &error);
  g_assert_no_error (error);
  const gint64 want_b[] = { 1, 1, 0, 1 };
  for (int k = 0; k < 4; k++)
    g_assert_cmpint (tensor_get_int64 (b, k), ==, want_b[k]);
  g_assert_cmpuint (tensor_rank (b), ==, 1);
  g_assert_null (tensor_cast (f, GRAPH_DTYPE_STRING, &error));
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR);
  g_assert_cmpint (graph_dtype_promotion_rank (GRAPH_DTYPE_BOOL), <, graph_dtype_promotion_rank (GRAPH_DTYPE_UINT8));
  g_assert_cmpint (graph_dtype_promotion_rank (GRAPH_DTYPE_INT64), <, graph_dtype_promotion_rank (GRAPH_DTYPE_FLOAT16));
  g_assert_cmpint (graph_dtype_promotion_rank (GRAPH_DTYPE_FLOAT), <, graph_dtype_promotion_rank (GRAPH_DTYPE_DOUBLE));
  g_assert_cmpint (graph_dtype_promotion_rank (GRAPH_DTYPE_STRING), ==, -1);
}

/* tensor_cast to float16 (constant folding of a Cast to it): the bits
 * numpy's astype(float16) gives for [1, 65504, 1e6, 0.1, -2.5, 1e-8]
 * (overflow to inf, rounding to nearest even, an underflow to 0).  Not to
 * bfloat16, where ONNX 1.12's Cast (truncation) and torch (rounding) differ:
 * that Cast is left to the executor. */
static void
test_tensor_cast_half (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 six = 6;
  const double v[] = { 1.0, 65504.0, 1e6, 0.1, -2.5, 1e-8 };
  g_autoptr (Tensor) d = tensor_new_from_data (GRAPH_DTYPE_DOUBLE, 1, &six, v, sizeof v, &error);
  g_assert_no_error (error);
  static const guint16 want_h[] = { 0x3c00, 0x7bff, 0x7c00, 0x2e66, 0xc100, 0x0000 };
  g_autoptr (Tensor) h = tensor_cast (d, GRAPH_DTYPE_FLOAT16, &error);
  g_assert_no_error (error);
  for (int k = 0; k < 6; k++)
    g_assert_cmphex (((const guint16 *) tensor_data (h))[k], ==, want_h[k]);
  g_assert_null (tensor_cast (d, GRAPH_DTYPE_BFLOAT16, &error));
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_TENSOR);
}

void
test_dtype_register (void)
{
  g_test_add_func ("/ir/tensor/cast", test_tensor_cast);
  g_test_add_func ("/ir/tensor/cast-half", test_tensor_cast_half);
  g_test_add_func ("/ir/dtype/matches-onnx-proto", test_dtype_matches_onnx_proto);
  g_test_add_func ("/ir/dtype/names-round-trip", test_dtype_names_round_trip);
  g_test_add_func ("/ir/dtype/sizes", test_dtype_sizes);
  g_test_add_func ("/ir/tensor/new-checks-size", test_tensor_new_checks_size);
  g_test_add_func ("/ir/tensor/scalars", test_tensor_scalars);
  g_test_add_func ("/ir/tensor/half", test_tensor_half);
  g_test_add_func ("/ir/tensor/strings-and-equal", test_tensor_strings_and_equal);
  g_test_add_func ("/ir/tensor/deferred", test_tensor_deferred);
}
