/* Tests of export/tensors/npy.c: files numpy writes load bit-exactly, files we write
 * are byte-identical to np.save's and load in numpy, and malformed files are
 * clear errors. */
#include <glib/gstdio.h>
#include <string.h>

#include "export/tensorfiles.h"
#include "tensorfiles-testutil.h"

void test_npy_register (void);

/* ---- helpers -------------------------------------------------------------- */



/* Loads `data` from an exact-size heap copy (ASan catches over-reads);
 * expects failure with `code` and a message naming "bad.npy" and holding
 * `needle` (if not NULL). */
static void
assert_npy_fails (const guint8 *data, gsize len, int code, const char *needle)
{
  g_autofree guint8 *copy = g_memdup2 (data, len);
  g_autoptr(GError) error = NULL;
  g_autoptr(Tensor) t = export_npy_load_from_data (copy, len, "bad.npy", &error);
  g_assert_null (t);
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "bad.npy: "));
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("message \"%s\" lacks \"%s\"", error->message, needle);
}

/* magic + version + little-endian header length + header + data bytes */
static GByteArray *
build_npy (guint major, guint minor, const char *header, gssize hlen_override,
           gsize data_len)
{
  GByteArray *a = g_byte_array_new ();
  gsize hlen = strlen (header);
  guint32 h = hlen_override >= 0 ? (guint32) hlen_override : (guint32) hlen;
  guint8 pre[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', major, minor,
                     h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, (h >> 24) & 0xff };
  g_byte_array_append (a, pre, major == 1 ? 10 : 12);
  g_byte_array_append (a, (const guint8 *) header, hlen);
  for (gsize i = 0; i < data_len; i++)
    {
      guint8 b = (guint8) (i * 7);
      g_byte_array_append (a, &b, 1);
    }
  return a;
}

static const char *
descr_for (GraphDType dtype)
{
  switch (dtype)
    {
    case GRAPH_DTYPE_FLOAT16:    return "<f2";
    case GRAPH_DTYPE_FLOAT:      return "<f4";
    case GRAPH_DTYPE_DOUBLE:     return "<f8";
    case GRAPH_DTYPE_INT8:       return "|i1";
    case GRAPH_DTYPE_INT16:      return "<i2";
    case GRAPH_DTYPE_INT32:      return "<i4";
    case GRAPH_DTYPE_INT64:      return "<i8";
    case GRAPH_DTYPE_UINT8:      return "|u1";
    case GRAPH_DTYPE_UINT16:     return "<u2";
    case GRAPH_DTYPE_UINT32:     return "<u4";
    case GRAPH_DTYPE_UINT64:     return "<u8";
    case GRAPH_DTYPE_BOOL:       return "|b1";
    case GRAPH_DTYPE_COMPLEX64:  return "<c8";
    case GRAPH_DTYPE_COMPLEX128: return "<c16";
    default: g_assert_not_reached ();
    }
}

static const GraphDType all_dtypes[] = {
  GRAPH_DTYPE_FLOAT16, GRAPH_DTYPE_FLOAT, GRAPH_DTYPE_DOUBLE, GRAPH_DTYPE_INT8,
  GRAPH_DTYPE_INT16, GRAPH_DTYPE_INT32, GRAPH_DTYPE_INT64, GRAPH_DTYPE_UINT8,
  GRAPH_DTYPE_UINT16, GRAPH_DTYPE_UINT32, GRAPH_DTYPE_UINT64, GRAPH_DTYPE_BOOL,
  GRAPH_DTYPE_COMPLEX64, GRAPH_DTYPE_COMPLEX128,
};

/* ---- numpy → us ----------------------------------------------------------- */

static void
test_numpy_read (void)
{
  g_autofree char *dir = tf_test_tmpdir ();
  if (!tf_test_run_python ("npy_gen.py", dir, NULL))
    {
      tf_test_rmtree (dir);
      return;
    }
  g_autofree char *manifest_path = g_build_filename (dir, "manifest.txt", NULL);
  g_autofree char *manifest = NULL;
  g_assert_true (g_file_get_contents (manifest_path, &manifest, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit (manifest, "\n", -1);
  guint n_ok = 0, n_refused = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] == '\0')
        continue;
      g_auto(GStrv) f = g_strsplit (lines[i], " ", -1);
      g_assert_cmpuint (g_strv_length (f), ==, 4);
      g_autofree char *npy = g_strdup_printf ("%s/%s.npy", dir, f[0]);
      g_autoptr(GError) error = NULL;
      g_autoptr(Tensor) t = export_npy_load (npy, &error);

      if (g_str_equal (f[1], "unsupported"))
        {
          g_assert_null (t);
          g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED);
          g_assert_true (g_str_has_prefix (error->message, npy));
          g_test_message ("%s: %s", f[0], error->message);
          n_refused++;
          continue;
        }
      g_assert_no_error (error);
      g_assert_cmpstr (graph_dtype_name (tensor_dtype (t)), ==, f[2]);
      if (g_str_equal (f[3], "scalar"))
        g_assert_cmpuint (tensor_rank (t), ==, 0);
      else
        {
          g_auto(GStrv) dims = g_strsplit (f[3], ",", -1);
          g_assert_cmpuint (tensor_rank (t), ==, g_strv_length (dims));
          for (guint d = 0; dims[d] != NULL; d++)
            g_assert_cmpint (tensor_dim (t, d), ==, g_ascii_strtoll (dims[d], NULL, 10));
        }
      g_autofree char *bin = g_strdup_printf ("%s/%s.bin", dir, f[0]);
      g_autofree char *expect = NULL;
      gsize expect_len;
      g_assert_true (g_file_get_contents (bin, &expect, &expect_len, NULL));
      g_assert_cmpmem (tensor_data (t), tensor_nbytes (t), expect, expect_len);

      /* The same through the in-memory entry point. */
      g_autofree char *contents = NULL;
      gsize len;
      g_assert_true (g_file_get_contents (npy, &contents, &len, NULL));
      g_autoptr(Tensor) t2 = export_npy_load_from_data ((const guint8 *) contents, len,
                                                        f[0], &error);
      g_assert_no_error (error);
      tf_test_assert_tensor_equal (t, t2);
      n_ok++;
    }
  g_assert_cmpuint (n_ok, >=, 30);
  g_assert_cmpuint (n_refused, ==, 7);
  tf_test_rmtree (dir);
}

/* ---- us → numpy ----------------------------------------------------------- */

static void
save_case (const char *dir, GString *manifest, const char *name, const Tensor *t)
{
  g_autofree char *npy = g_strdup_printf ("%s/%s.npy", dir, name);
  g_autofree char *bin = g_strdup_printf ("%s/%s.bin", dir, name);
  g_autoptr(GError) error = NULL;

  g_assert_true (export_npy_save (t, npy, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (bin, tensor_data (t) ? tensor_data (t) : "",
                                      tensor_nbytes (t), NULL));
  g_string_append_printf (manifest, "%s %s ", name, descr_for (tensor_dtype (t)));
  if (tensor_rank (t) == 0)
    g_string_append (manifest, "scalar");
  for (guint i = 0; i < tensor_rank (t); i++)
    g_string_append_printf (manifest, "%s%" G_GINT64_FORMAT, i ? "," : "", tensor_dim (t, i));
  g_string_append_c (manifest, '\n');

  /* Our own reader gets the tensor back, and the in-memory writer gives the
   * same bytes as the file. */
  g_autoptr(Tensor) back = export_npy_load (npy, &error);
  g_assert_no_error (error);
  tf_test_assert_tensor_equal (t, back);
  g_autoptr(GBytes) mem = export_npy_save_to_bytes (t, &error);
  g_assert_no_error (error);
  g_autofree char *file = NULL;
  gsize file_len;
  g_assert_true (g_file_get_contents (npy, &file, &file_len, NULL));
  g_assert_cmpmem (g_bytes_get_data (mem, NULL), g_bytes_get_size (mem), file, file_len);
  /* numpy's layout: data start on a 64-byte boundary. */
  g_assert_cmpuint ((file_len - tensor_nbytes (t)) % 64, ==, 0);
}

static void
test_numpy_write (void)
{
  g_autofree char *dir = tf_test_tmpdir ();
  g_autoptr(GString) manifest = g_string_new (NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  guint n = 0;

  /* Every dtype. */
  for (gsize i = 0; i < G_N_ELEMENTS (all_dtypes); i++)
    {
      gint64 dims[] = { 2, 3 };
      g_autoptr(Tensor) t = tf_test_make_tensor (all_dtypes[i], 2, dims, rand);
      g_autofree char *name = g_strdup_printf ("dtype%u", (guint) i);
      save_case (dir, manifest, name, t);
      n++;
    }
  /* Shapes: 0-d, empty, and ranks 1..32 (numpy's limit) with last dims of
   * 1-3 digits, so the header length passes every residue class of the
   * 64-byte padding (including the exactly-aligned case, where numpy pads
   * a full 64 bytes). */
  {
    gint64 d0[1] = { 0 }, d1[3] = { 2, 0, 5 }, d2[1] = { 123456 };
    g_autoptr(Tensor) s = tf_test_make_tensor (GRAPH_DTYPE_DOUBLE, 0, NULL, rand);
    g_autoptr(Tensor) e1 = tf_test_make_tensor (GRAPH_DTYPE_FLOAT, 1, d0, rand);
    g_autoptr(Tensor) e2 = tf_test_make_tensor (GRAPH_DTYPE_INT64, 3, d1, rand);
    g_autoptr(Tensor) big = tf_test_make_tensor (GRAPH_DTYPE_UINT8, 1, d2, rand);
    save_case (dir, manifest, "scalar", s);
    save_case (dir, manifest, "empty1", e1);
    save_case (dir, manifest, "empty3", e2);
    save_case (dir, manifest, "big", big);
    n += 4;
  }
  for (guint rank = 1; rank <= 32; rank++)
    for (guint v = 0; v < (rank == 1 ? 1u : 3u); v++)
      {
        static const gint64 last[] = { 1, 12, 123 };
        gint64 dims[32];
        for (guint i = 0; i < rank; i++)
          dims[i] = i == rank - 1 ? last[v] : 1 + (i == 0);
        g_autoptr(Tensor) t = tf_test_make_tensor (all_dtypes[(rank + v) % G_N_ELEMENTS (all_dtypes)],
                                           rank, dims, rand);
        g_autofree char *name = g_strdup_printf ("rank%u_%u", rank, v);
        save_case (dir, manifest, name, t);
        n++;
      }
  g_autofree char *mpath = g_build_filename (dir, "manifest.txt", NULL);
  g_assert_true (g_file_set_contents (mpath, manifest->str, manifest->len, NULL));
  g_assert_cmpuint (n, ==, 14 + 4 + 1 + 31 * 3);
  g_assert_cmpuint (tf_test_count_hidden (dir), ==, 0);
  tf_test_run_python ("npy_check.py", dir, NULL);
  tf_test_rmtree (dir);
}

/* ---- writer errors, atomic replace ---------------------------------------- */

static void
test_save_errors (void)
{
  g_autofree char *dir = tf_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "t.npy", NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autoptr(GError) error = NULL;
  gint64 dims[] = { 4 };

  /* An existing file is replaced whole. */
  g_assert_true (g_file_set_contents (path, "old contents", -1, NULL));
  g_autoptr(Tensor) ok = tf_test_make_tensor (GRAPH_DTYPE_INT32, 1, dims, rand);
  g_assert_true (export_npy_save (ok, path, &error));
  g_assert_no_error (error);
  g_autoptr(Tensor) back = export_npy_load (path, &error);
  g_assert_no_error (error);
  tf_test_assert_tensor_equal (ok, back);

  /* numpy has no bfloat16: refused, the old file stays, no temp file left. */
  g_autoptr(Tensor) bf = tf_test_make_tensor (GRAPH_DTYPE_BFLOAT16, 1, dims, rand);
  g_assert_false (export_npy_save (bf, path, &error));
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "bfloat16"));
  g_clear_error (&error);
  g_autoptr(Tensor) still = export_npy_load (path, &error);
  g_assert_no_error (error);
  tf_test_assert_tensor_equal (ok, still);

  /* More dimensions than numpy's 32. */
  gint64 dims33[33];
  for (guint i = 0; i < 33; i++)
    dims33[i] = 1;
  g_autoptr(Tensor) deep = tf_test_make_tensor (GRAPH_DTYPE_FLOAT, 33, dims33, rand);
  g_assert_false (export_npy_save (deep, path, &error));
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "32 dimensions"));
  g_clear_error (&error);

  /* A tensor without data. */
  g_autoptr(Tensor) nodata = tensor_new (GRAPH_DTYPE_FLOAT, 1, dims, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (export_npy_save (nodata, path, &error));
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID);
  g_clear_error (&error);

  /* A folder that does not exist. */
  g_autofree char *nowhere = g_build_filename (dir, "no", "such", "t.npy", NULL);
  g_assert_false (export_npy_save (ok, nowhere, &error));
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, nowhere));
  g_clear_error (&error);

  /* Loading a missing file names it. */
  g_autoptr(Tensor) none = export_npy_load (nowhere, &error);
  g_assert_null (none);
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, nowhere));
  g_clear_error (&error);

  g_assert_cmpuint (tf_test_count_hidden (dir), ==, 0);
  tf_test_rmtree (dir);
}

/* ---- bad input -------------------------------------------------------------- */

static void
test_bad_truncated (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  gint64 dims[] = { 2, 3 };
  g_autoptr(Tensor) t = tf_test_make_tensor (GRAPH_DTYPE_FLOAT, 2, dims, rand);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) good = export_npy_save_to_bytes (t, &error);
  g_assert_no_error (error);
  gsize len;
  const guint8 *data = g_bytes_get_data (good, &len);
  g_assert_cmpuint (len, ==, 128 + 24);

  for (gsize n = 0; n < len; n++)
    assert_npy_fails (data, n, EXPORT_TENSOR_FILE_ERROR_FORMAT, NULL);

  /* Also versions 2.0 and 3.0 (a different preamble length). */
  for (guint major = 2; major <= 3; major++)
    {
      g_autoptr(GByteArray) a = build_npy (major, 0,
          "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }\n", -1, 6);
      g_autofree guint8 *copy = g_memdup2 (a->data, a->len);
      g_autoptr(Tensor) whole = export_npy_load_from_data (copy, a->len, "v.npy", &error);
      g_assert_no_error (error);
      g_assert_cmpint (tensor_numel (whole), ==, 3);
      for (gsize n = 0; n < a->len; n++)
        assert_npy_fails (a->data, n, EXPORT_TENSOR_FILE_ERROR_FORMAT, NULL);
    }
}

static void
test_bad_random (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  g_autoptr(GError) error = NULL;
  gint64 dims[] = { 5 };
  g_autoptr(Tensor) t = tf_test_make_tensor (GRAPH_DTYPE_INT16, 1, dims, rand);
  g_autoptr(GBytes) good = export_npy_save_to_bytes (t, &error);
  g_assert_no_error (error);
  gsize good_len;
  const guint8 *good_data = g_bytes_get_data (good, &good_len);
  guint n_loaded = 0;

  /* Random bytes never carry the magic: always an error. */
  for (guint i = 0; i < 2000; i++)
    {
      gsize n = g_rand_int_range (rand, 0, 300);
      g_autofree guint8 *buf = tf_test_random_bytes (rand, n);
      assert_npy_fails (buf, n, EXPORT_TENSOR_FILE_ERROR_FORMAT, NULL);
    }
  /* Random mutations of a valid file: a tensor or an error, never a crash. */
  for (guint i = 0; i < 3000; i++)
    {
      g_autofree guint8 *buf = g_memdup2 (good_data, good_len);
      guint flips = g_rand_int_range (rand, 1, 4);
      for (guint k = 0; k < flips; k++)
        buf[g_rand_int_range (rand, 0, good_len)] = g_rand_int_range (rand, 0, 256);
      g_autoptr(Tensor) m = export_npy_load_from_data (buf, good_len, "m.npy", &error);
      g_assert_true ((m == NULL) == (error != NULL));
      if (m != NULL)
        {
          g_assert_cmpuint (tensor_nbytes (m), <=, good_len);
          n_loaded++;
        }
      else
        g_assert_true (g_str_has_prefix (error->message, "m.npy: "));
      g_clear_error (&error);
    }
  /* Some mutations only touch data bytes and padding. */
  g_assert_cmpuint (n_loaded, >, 0);
}

typedef struct
{
  const char *what;
  guint       major, minor;
  const char *header;
  gssize      hlen;       /* -1: the header's length */
  gsize       data_len;
  int         code;       /* -1: must load */
  const char *needle;
} BadHeader;

#define F EXPORT_TENSOR_FILE_ERROR_FORMAT
#define U EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED
#define H(shape) "{'descr': '<f4', 'fortran_order': False, 'shape': " shape ", }\n"

static const BadHeader bad_headers[] = {
  { "good", 1, 0, H ("(2,)"), -1, 8, -1, NULL },
  { "good v2", 2, 0, H ("(2,)"), -1, 8, -1, NULL },
  { "good v3", 3, 0, H ("(2,)"), -1, 8, -1, NULL },
  { "python2 long", 1, 0, H ("(2L, 1L)"), -1, 8, -1, NULL },
  { "double quotes, no trailing comma", 1, 0,
    "{\"descr\": \"<f4\", \"shape\": (1,), \"fortran_order\": False}", -1, 4, -1, NULL },
  { "spaces and newlines", 1, 0,
    " {\n'descr' :'<f4' ,'fortran_order':False,'shape':( 2 , ) } \n\n", -1, 8, -1, NULL },
  { "0-d", 1, 0, H ("()"), -1, 4, -1, NULL },
  { "v1 header length past EOF", 1, 0, H ("(2,)"), 1000, 8, F, "runs past the end" },
  { "v2 header length 2^32-1", 2, 0, H ("(2,)"), 0xffffffff, 8, F, "runs past the end" },
  { "version 0.0", 0, 0, H ("(2,)"), -1, 8, F, "version 0.0" },
  { "version 4.0", 4, 0, H ("(2,)"), -1, 8, F, "version 4.0" },
  { "version 1.1", 1, 1, H ("(2,)"), -1, 8, F, "version 1.1" },
  { "empty header", 1, 0, "", -1, 8, F, "expected '{'" },
  { "shape bigger than data", 1, 0, H ("(100,)"), -1, 8, F, "needs 400 data bytes, but the file has 8" },
  { "data bigger than shape", 1, 0, H ("(1,)"), -1, 8, F, "needs 4 data bytes, but the file has 8" },
  { "huge dim", 1, 0, H ("(99999999999999999999999,)"), -1, 8, F, "does not fit in 64 bits" },
  { "2^63 dim", 1, 0, H ("(9223372036854775808,)"), -1, 8, F, "does not fit in 64 bits" },
  { "negative dim", 1, 0, H ("(-1,)"), -1, 8, F, "negative dimension" },
  { "overflowing product", 1, 0, H ("(4294967296, 4294967296)"), -1, 8, F, "overflows" },
  { "product overflow by itemsize", 1, 0, H ("(4611686018427387904,)"), -1, 8, F, "overflows" },
  { "big product, small file", 1, 0, H ("(1000000, 1000000)"), -1, 8, F, "needs 4000000000000 data bytes" },
  { "too many dims", 1, 0, H ("(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                               "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)"),
    -1, 4, F, "more than 64 dimensions" },
  { "leading zero", 1, 0, H ("(02,)"), -1, 8, F, "leading zero" },
  { "shape (3) not a tuple", 1, 0, H ("(2)"), -1, 8, F, "not a tuple" },
  { "shape as list", 1, 0, H ("[2]"), -1, 8, F, "list" },
  { "shape garbage", 1, 0, H ("(2,,)"), -1, 8, F, "expected a dimension" },
  { "shape float", 1, 0, H ("(2.0,)"), -1, 8, F, "expected ',' or ')' after a dimension" },
  { "shape unterminated", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3", -1, 8, F, "end of header" },
  { "unterminated dict", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", -1, 8, F, "end of header" },
  { "unterminated string", 1, 0, "{'descr': '<f4", -1, 8, F, "unterminated string" },
  { "nested garbage", 1, 0, "{'descr': ((((((((((((((((((((((((((((((((", -1, 8, F, "expected a quoted string" },
  { "nested shape", 1, 0, H ("((((2,),),)"), -1, 8, F, "expected a dimension" },
  { "missing shape", 1, 0, "{'descr': '<f4', 'fortran_order': False}", -1, 8, F, "lacks 'shape'" },
  { "missing descr", 1, 0, "{'fortran_order': False, 'shape': (2,)}", -1, 8, F, "lacks 'descr'" },
  { "extra key", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", -1, 8, F, "unexpected key 'x'" },
  { "duplicate key", 1, 0, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", -1, 8, F, "duplicate key 'descr'" },
  { "lower-case bool", 1, 0, "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", -1, 8, F, "True or False" },
  { "bool prefix", 1, 0, "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}", -1, 8, F, "True or False" },
  { "escape in string", 1, 0, "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,)}", -1, 8, F, "escape" },
  { "trailing garbage", 1, 0, H ("(2,)") "xyz", -1, 8, F, "only spaces" },
  { "two dicts", 1, 0, H ("(2,)") "{}", -1, 8, F, "only spaces" },
  { "missing colon", 1, 0, "{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", -1, 8, F, "expected ':'" },
  { "not a dict", 1, 0, "['descr', '<f4']", -1, 8, F, "expected '{'" },
  { "no byte order", 1, 0, "{'descr': 'f4', 'fortran_order': False, 'shape': (2,)}", -1, 8, F, "byte-order" },
  { "fortran order", 1, 0, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", -1, 8, U, "fortran_order" },
  { "object dtype", 1, 0, "{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", -1, 8, U, "object arrays" },
  { "unknown dtype", 1, 0, "{'descr': '<f3', 'fortran_order': False, 'shape': (2,)}", -1, 8, U, "unsupported dtype '<f3'" },
  { "empty descr", 1, 0, "{'descr': '', 'fortran_order': False, 'shape': (2,)}", -1, 8, F, "byte-order" },
  { "structured", 1, 0, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", -1, 8, U, "structured" },
  { "v3 not utf-8", 3, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\xff\xfe", -1, 8, F, "UTF-8" },
  { "v1 non-ascii", 1, 0, "{'descr': '<f4\xe9', 'fortran_order': False, 'shape': (2,)}", -1, 8, F, "non-ASCII" },
  { "v3 non-ascii", 3, 0, "{'descr': '<f4\xc3\xa9', 'fortran_order': False, 'shape': (2,)}", -1, 8, F, "non-ASCII" },
};

#undef F
#undef U
#undef H

static void
test_bad_headers (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (bad_headers); i++)
    {
      const BadHeader *b = &bad_headers[i];
      g_autoptr(GByteArray) a = build_npy (b->major, b->minor, b->header, b->hlen, b->data_len);
      g_test_message ("case: %s", b->what);
      if (b->code < 0)
        {
          g_autofree guint8 *copy = g_memdup2 (a->data, a->len);
          g_autoptr(GError) error = NULL;
          g_autoptr(Tensor) t = export_npy_load_from_data (copy, a->len, "good.npy", &error);
          g_assert_no_error (error);
          g_assert_cmpuint (tensor_nbytes (t), ==, b->data_len);
          g_assert_cmpmem (tensor_data (t), b->data_len, a->data + a->len - b->data_len,
                           b->data_len);
        }
      else
        assert_npy_fails (a->data, a->len, b->code, b->needle);
    }

  /* A NUL inside the header. */
  static const char nul[] = "{'descr': '<f4'\0, 'fortran_order': False, 'shape': (2,)}";
  g_autoptr(GByteArray) a = build_npy (1, 0, "", sizeof nul - 1, 0);
  g_byte_array_append (a, (const guint8 *) nul, sizeof nul - 1);
  g_byte_array_append (a, (const guint8 *) "12345678", 8);
  assert_npy_fails (a->data, a->len, EXPORT_TENSOR_FILE_ERROR_FORMAT, "expected ',' or '}'");

  /* Magic errors and an error from a real file path names that path. */
  assert_npy_fails ((const guint8 *) "\x93NUMPZ\x01\x00\x00\x00", 10,
                    EXPORT_TENSOR_FILE_ERROR_FORMAT, "no \\x93NUMPY magic");
  assert_npy_fails ((const guint8 *) "", 0, EXPORT_TENSOR_FILE_ERROR_FORMAT, "0 bytes");
  g_autofree char *dir = tf_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "lying.npy", NULL);
  g_autoptr(GByteArray) lying = build_npy (1, 0, "{'descr': '<f8', 'fortran_order': False, "
                                                 "'shape': (1000000000,)}\n", -1, 16);
  g_assert_true (g_file_set_contents (path, (const char *) lying->data, lying->len, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(Tensor) t = export_npy_load (path, &error);
  g_assert_null (t);
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_FORMAT);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "needs 8000000000 data bytes, but the file has 16"));
  g_test_message ("%s", error->message);
  tf_test_rmtree (dir);
}

/* Big-endian data is byte-swapped, and a hand-made big-endian file with
 * known values gives those values. */
static void
test_big_endian (void)
{
  static const guint8 be_data[] = { 0x3f, 0x80, 0x00, 0x00,     /* 1.0f */
                                    0xc0, 0x00, 0x00, 0x00 };   /* -2.0f */
  g_autoptr(GByteArray) a = build_npy (1, 0, "{'descr': '>f4', 'fortran_order': False, "
                                             "'shape': (2,), }\n", -1, 0);
  g_byte_array_append (a, be_data, sizeof be_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(Tensor) t = export_npy_load_from_data (a->data, a->len, "be.npy", &error);
  g_assert_no_error (error);
  const float *v = tensor_data (t);
  g_assert_cmpfloat (v[0], ==, 1.0f);
  g_assert_cmpfloat (v[1], ==, -2.0f);
}

void
test_npy_register (void)
{
  g_test_add_func ("/export/npy/numpy-read", test_numpy_read);
  g_test_add_func ("/export/npy/numpy-write", test_numpy_write);
  g_test_add_func ("/export/npy/save-errors", test_save_errors);
  g_test_add_func ("/export/npy/big-endian", test_big_endian);
  g_test_add_func ("/export/npy/bad/truncated", test_bad_truncated);
  g_test_add_func ("/export/npy/bad/random", test_bad_random);
  g_test_add_func ("/export/npy/bad/headers", test_bad_headers);
}
