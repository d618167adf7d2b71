/* Tests of export/tensors/safetensors.c: byte-identical to the reference writer,
 * cross-checked with an independent Python reader/writer and a PyTorch
 * state_dict, zero-copy loading, and malformed files as clear errors. */
#include <glib/gstdio.h>
#include <string.h>

#include "export/tensorfiles.h"
#include "tensorfiles-testutil.h"

void test_safetensors_register (void);

/* ---- helpers -------------------------------------------------------------- */


static GHashTable *
new_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                (GDestroyNotify) tensor_unref);
}


static const char *
st_name (GraphDType dtype)
{
  switch (dtype)
    {
    case GRAPH_DTYPE_BOOL:     return "BOOL";
    case GRAPH_DTYPE_UINT8:    return "U8";
    case GRAPH_DTYPE_INT8:     return "I8";
    case GRAPH_DTYPE_INT16:    return "I16";
    case GRAPH_DTYPE_UINT16:   return "U16";
    case GRAPH_DTYPE_FLOAT16:  return "F16";
    case GRAPH_DTYPE_BFLOAT16: return "BF16";
    case GRAPH_DTYPE_INT32:    return "I32";
    case GRAPH_DTYPE_UINT32:   return "U32";
    case GRAPH_DTYPE_FLOAT:    return "F32";
    case GRAPH_DTYPE_DOUBLE:   return "F64";
    case GRAPH_DTYPE_INT64:    return "I64";
    case GRAPH_DTYPE_UINT64:   return "U64";
    default: g_assert_not_reached ();
    }
}

static const GraphDType all_dtypes[] = {
  GRAPH_DTYPE_BOOL, GRAPH_DTYPE_UINT8, GRAPH_DTYPE_INT8, GRAPH_DTYPE_INT16,
  GRAPH_DTYPE_UINT16, GRAPH_DTYPE_FLOAT16, GRAPH_DTYPE_BFLOAT16, GRAPH_DTYPE_INT32,
  GRAPH_DTYPE_UINT32, GRAPH_DTYPE_FLOAT, GRAPH_DTYPE_DOUBLE, GRAPH_DTYPE_INT64,
  GRAPH_DTYPE_UINT64,
};

static char *
write_temp (const char *dir, const char *name, gconstpointer data, gsize len)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

/* ---- the reference implementation's own test vectors ---------------------- */

/* From safetensors/src/tensor.rs (huggingface/safetensors): test_serialization,
 * test_serialization_forced_alignement and test_empty. */
static const guint8 ref_attn_0[] = {
  64, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 46, 48, 34, 58, 123, 34, 100,
  116, 121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34,
  58, 91, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102, 115,
  101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 0, 0, 0, 0, 0, 0, 128, 63,
  0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64
};
static const guint8 ref_attn0[] = {
  72, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 48, 34, 58, 123, 34, 100, 116,
  121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58,
  91, 49, 44, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102,
  115, 101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 32, 32, 32, 32, 32,
  32, 32, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0,
  160, 64
};
static const guint8 ref_empty[] = { 8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32 };
static const guint8 ref_empty_md[] = {
  40, 0, 0, 0, 0, 0, 0, 0, 123, 34, 95, 95, 109, 101, 116, 97, 100, 97, 116, 97, 95,
  95, 34, 58, 123, 34, 102, 114, 97, 109, 101, 119, 111, 114, 107, 34, 58, 34, 112,
  116, 34, 125, 125, 32, 32, 32, 32, 32
};

static void
check_saved_bytes (GHashTable *tensors, GHashTable *md, const guint8 *expect, gsize len)
{
  g_autofree char *dir = tf_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "ref.safetensors", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (export_safetensors_save (tensors, md, path, &error));
  g_assert_no_error (error);
  g_autofree char *got = NULL;
  gsize got_len;
  g_assert_true (g_file_get_contents (path, &got, &got_len, NULL));
  g_assert_cmpmem (got, got_len, expect, len);

  /* And the reference's bytes load back to the same tensors. */
  g_autoptr(GBytes) b = g_bytes_new (expect, len);
  g_autoptr(GHashTable) md_back = NULL;
  g_autoptr(GHashTable) back = export_safetensors_load_bytes (b, "ref", &md_back, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (back), ==, g_hash_table_size (tensors));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, tensors);
  while (g_hash_table_iter_next (&it, &k, &v))
    tf_test_assert_tensor_equal (v, g_hash_table_lookup (back, k));
  g_assert_cmpuint (g_hash_table_size (md_back), ==, md ? g_hash_table_size (md) : 0);
  tf_test_rmtree (dir);
}

static void
test_reference_vectors (void)
{
  static const float v[] = { 0, 1, 2, 3, 4, 5 };
  g_autoptr(GError) error = NULL;

  gint64 d3[] = { 1, 2, 3 };
  g_autoptr(GHashTable) a = new_table ();
  g_hash_table_insert (a, g_strdup ("attn.0"),
                       tensor_new_from_data (GRAPH_DTYPE_FLOAT, 3, d3, v, sizeof v, &error));
  g_assert_no_error (error);
  check_saved_bytes (a, NULL, ref_attn_0, sizeof ref_attn_0);

  gint64 d4[] = { 1, 1, 2, 3 };
  g_autoptr(GHashTable) b = new_table ();
  g_hash_table_insert (b, g_strdup ("attn0"),
                       tensor_new_from_data (GRAPH_DTYPE_FLOAT, 4, d4, v, sizeof v, &error));
  g_assert_no_error (error);
  check_saved_bytes (b, NULL, ref_attn0, sizeof ref_attn0);

  g_autoptr(GHashTable) empty = new_table ();
  check_saved_bytes (empty, NULL, ref_empty, sizeof ref_empty);
  g_autoptr(GHashTable) md = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (md, "framework", "pt");
  check_saved_bytes (empty, md, ref_empty_md, sizeof ref_empty_md);
}

/* ---- round trip, zero copy ------------------------------------------------ */

static GHashTable *
make_mixed_table (GRand *rand)
{
  GHashTable *t = new_table ();
  for (gsize i = 0; i < G_N_ELEMENTS (all_dtypes); i++)
    {
      /* Odd element counts, so a layout that ignored alignment would
       * misalign the wider types that follow. */
      gint64 dims[] = { 3, (gint64) i % 3 + 1 };
      g_hash_table_insert (t, g_strdup_printf ("layer%zu.%s", i, st_name (all_dtypes[i])),
                           tf_test_make_tensor (all_dtypes[i], 2, dims, rand));
    }
  gint64 empty[] = { 0, 4 };
  g_hash_table_insert (t, g_strdup ("empty"), tf_test_make_tensor (GRAPH_DTYPE_FLOAT, 2, empty, rand));
  g_hash_table_insert (t, g_strdup ("scalar"), tf_test_make_tensor (GRAPH_DTYPE_INT64, 0, NULL, rand));
  gint64 one[] = { 1 };
  /* Names that need JSON escapes, and non-ASCII. */
  g_hash_table_insert (t, g_strdup ("quote\"back\\slash\ttab\x01"),
                       tf_test_make_tensor (GRAPH_DTYPE_INT8, 1, one, rand));
  g_hash_table_insert (t, g_strdup ("gewicht.über.Ω"),
                       tf_test_make_tensor (GRAPH_DTYPE_FLOAT16, 1, one, rand));
  return t;
}

static int
cmp_ptr (gconstpointer a, gconstpointer b)
{
  guintptr x = (guintptr) tensor_data (*(Tensor *const *) a);
  guintptr y = (guintptr) tensor_data (*(Tensor *const *) b);
  return x < y ? -1 : x > y;
}

static void
test_roundtrip (void)
{
  g_autofree char *dir = tf_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "m.safetensors", NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(GHashTable) tensors = make_mixed_table (rand);
  g_autoptr(GHashTable) md = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;

  g_hash_table_insert (md, "format", "pt");
  g_hash_table_insert (md, "note", "line\nbreak \"quoted\" ü");
  g_assert_true (export_safetensors_save (tensors, md, path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tf_test_count_hidden (dir), ==, 0);

  g_autoptr(GHashTable) md_back = NULL;
  g_autoptr(GHashTable) back = export_safetensors_load_full (path, &md_back, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (back), ==, g_hash_table_size (tensors));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, tensors);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      Tensor *t = g_hash_table_lookup (back, k);
      g_assert_nonnull (t);
      tf_test_assert_tensor_equal (v, t);
    }
  g_assert_cmpuint (g_hash_table_size (md_back), ==, 2);
  g_assert_cmpstr (g_hash_table_lookup (md_back, "format"), ==, "pt");
  g_assert_cmpstr (g_hash_table_lookup (md_back, "note"), ==, "line\nbreak \"quoted\" ü");

  /* Zero copy: the non-empty tensors are adjacent slices of one buffer (the
   * mapped file) whose total is the file's data part, each aligned to its
   * element size. */
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  gsize total = 0;
  g_hash_table_iter_init (&it, back);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (tensor_nbytes (v) > 0)
      {
        g_ptr_array_add (order, v);
        total += tensor_nbytes (v);
      }
  g_ptr_array_sort (order, cmp_ptr);
  for (guint i = 0; i < order->len; i++)
    {
      Tensor *t = order->pdata[i];
      g_assert_cmpuint ((guintptr) tensor_data (t) % graph_dtype_size (tensor_dtype (t)), ==, 0);
      if (i > 0)
        {
          Tensor *p = order->pdata[i - 1];
          g_assert_true ((const guint8 *) tensor_data (p) + tensor_nbytes (p)
                         == (const guint8 *) tensor_data (t));
        }
    }
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  const guint8 *first = tensor_data (order->pdata[0]);
  guint64 hlen = 0;
  g_autofree char *contents = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  for (int i = 7; i >= 0; i--)
    hlen = hlen << 8 | (guint8) contents[i];
  g_assert_cmpuint (8 + hlen + total, ==, (guint64) st.st_size);
  g_assert_cmpuint (hlen % 8, ==, 0);
  g_assert_cmpmem (first, total, contents + 8 + hlen, total);

  /* A tensor outlives the table and the file name: the mapping stays alive
   * through the tensor's GBytes. */
  Tensor *kept = tensor_ref (g_hash_table_lookup (back, "layer9.F32"));
  g_autoptr(Tensor) expect = tensor_ref (g_hash_table_lookup (tensors, "layer9.F32"));
  g_clear_pointer (&back, g_hash_table_unref);
  g_assert_cmpint (g_unlink (path), ==, 0);
  tf_test_assert_tensor_equal (expect, kept);
  tensor_unref (kept);

  tf_test_rmtree (dir);
}

/* ---- cross-checks with Python --------------------------------------------- */

static void
test_python_check (void)
{
  g_autofree char *dir = tf_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "ours.safetensors", NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  g_autoptr(GHashTable) tensors = make_mixed_table (rand);
  g_autoptr(GHashTable) md = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) manifest = g_string_new (NULL);

  /* Tab-separated manifest: no tabs or newlines in these names/values. */
  g_hash_table_remove (tensors, "quote\"back\\slash\ttab\x01");
  g_hash_table_insert (tensors, g_strdup ("quote\"back\\slash\x01"),
                       tf_test_make_tensor (GRAPH_DTYPE_INT8, 0, NULL, rand));
  g_hash_table_insert (md, "format", "pt");
  g_hash_table_insert (md, "ünï\"code", "välue\\");
  g_assert_true (export_safetensors_save (tensors, md, path, &error));
  g_assert_no_error (error);

  GHashTableIter it;
  gpointer k, v;
  guint idx = 0;
  g_hash_table_iter_init (&it, tensors);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      g_autofree char *bin = g_strdup_printf ("%s/%u.bin", dir, idx);
      g_assert_true (g_file_set_contents (bin, tensor_nbytes (v) ? tensor_data (v) : "",
                                          tensor_nbytes (v), NULL));
      g_string_append_printf (manifest, "%s\t%s\t", (const char *) k, st_name (tensor_dtype (v)));
      if (tensor_rank (v) == 0)
        g_string_append (manifest, "scalar");
      for (guint d = 0; d < tensor_rank (v); d++)
        g_string_append_printf (manifest, "%s%" G_GINT64_FORMAT, d ? "," : "", tensor_dim (v, d));
      g_string_append_printf (manifest, "\t%u\n", idx++);
    }
  g_hash_table_iter_init (&it, md);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_string_append_printf (manifest, "__metadata__\t%s\t%s\n", (const char *) k, (const char *) v);
  g_autofree char *mpath = write_temp (dir, "manifest.txt", manifest->str, manifest->len);
  tf_test_run_python ("safetensors_check.py", path, dir, NULL);
  tf_test_rmtree (dir);
}

static void
test_torch_state_dict (void)
{
  g_autofree char *dir = tf_test_tmpdir ();
  if (!tf_test_run_python ("safetensors_torch.py", dir, NULL))
    {
      tf_test_rmtree (dir);
      return;
    }
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) md = NULL;
  g_autoptr(GHashTable) tensors = export_safetensors_load_full (path, &md, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_hash_table_lookup (md, "format"), ==, "pt");

  g_autofree char *mpath = g_build_filename (dir, "manifest.txt", NULL);
  g_autofree char *manifest = NULL;
  g_assert_true (g_file_get_contents (mpath, &manifest, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit (manifest, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] == '\0')
        continue;
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      g_assert_cmpuint (g_strv_length (f), ==, 4);
      Tensor *t = g_hash_table_lookup (tensors, f[0]);
      g_assert_nonnull (t);
      g_assert_cmpstr (st_name (tensor_dtype (t)), ==, f[1]);
      if (g_str_equal (f[2], "scalar"))
        g_assert_cmpuint (tensor_rank (t), ==, 0);
      else
        {
          g_auto(GStrv) dims = g_strsplit (f[2], ",", -1);
          g_assert_cmpuint (tensor_rank (t), ==, g_strv_length (dims));
          for (guint d = 0; dims[d] != NULL; d++)
            g_assert_cmpint (tensor_dim (t, d), ==, g_ascii_strtoll (dims[d], NULL, 10));
        }
      g_autofree char *bin = g_strdup_printf ("%s/%s.bin", dir, f[3]);
      g_autofree char *expect = NULL;
      gsize expect_len;
      g_assert_true (g_file_get_contents (bin, &expect, &expect_len, NULL));
      g_assert_cmpmem (tensor_data (t), tensor_nbytes (t), expect, expect_len);
      n++;
    }
  g_assert_cmpuint (n, ==, g_hash_table_size (tensors));
  g_assert_cmpuint (n, ==, 19);
  g_assert_nonnull (g_hash_table_lookup (tensors, "1.num_batches_tracked"));

  /* What we write back is byte-identical to the reference writer's file. */
  g_autofree char *again = g_build_filename (dir, "again.safetensors", NULL);
  g_assert_true (export_safetensors_save (tensors, md, again, &error));
  g_assert_no_error (error);
  g_autofree char *a = NULL, *b = NULL;
  gsize alen, blen;
  g_assert_true (g_file_get_contents (path, &a, &alen, NULL));
  g_assert_true (g_file_get_contents (again, &b, &blen, NULL));
  g_assert_cmpmem (a, alen, b, blen);
  tf_test_rmtree (dir);
}

/* ---- writer errors ---------------------------------------------------------- */

static void
test_save_errors (void)
{
  g_autofree char *dir = tf_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "w.safetensors", NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (2);
  g_autoptr(GError) error = NULL;
  gint64 dims[] = { 2 };

  g_assert_true (g_file_set_contents (path, "old", -1, NULL));
  struct { const char *name; GraphDType dtype; gboolean data; const char *needle; } cases[] = {
    { "c", GRAPH_DTYPE_COMPLEX64, TRUE, "no complex64 dtype" },
    { "c", GRAPH_DTYPE_COMPLEX128, TRUE, "no complex128 dtype" },
    { "nodata", GRAPH_DTYPE_FLOAT, FALSE, "has no data" },
    { "", GRAPH_DTYPE_FLOAT, TRUE, "empty" },
    { "__metadata__", GRAPH_DTYPE_FLOAT, TRUE, "reserved" },
    { "bad\xff", GRAPH_DTYPE_FLOAT, TRUE, "not UTF-8" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GHashTable) t = new_table ();
      g_hash_table_insert (t, g_strdup ("fine"), tf_test_make_tensor (GRAPH_DTYPE_FLOAT, 1, dims, rand));
      Tensor *bad = cases[i].data ? tf_test_make_tensor (cases[i].dtype, 1, dims, rand)
                                  : tensor_new (cases[i].dtype, 1, dims, NULL, &error);
      g_assert_no_error (error);
      g_hash_table_insert (t, g_strdup (cases[i].name), bad);
      g_assert_false (export_safetensors_save (t, NULL, path, &error));
      g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID);
      g_assert_true (g_str_has_prefix (error->message, path));
      g_assert_nonnull (strstr (error->message, cases[i].needle));
      g_clear_error (&error);
    }
  /* Metadata that is not UTF-8. */
  g_autoptr(GHashTable) t = new_table ();
  g_autoptr(GHashTable) md = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (md, "k", "\xc3");
  g_assert_false (export_safetensors_save (t, md, path, &error));
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_INVALID);
  g_clear_error (&error);

  /* None of that touched the old file or left a temporary file. */
  g_autofree char *old = NULL;
  g_assert_true (g_file_get_contents (path, &old, NULL, NULL));
  g_assert_cmpstr (old, ==, "old");
  g_assert_cmpuint (tf_test_count_hidden (dir), ==, 0);

  /* A folder that does not exist; a file that does not exist. */
  g_autofree char *nowhere = g_build_filename (dir, "no", "such.safetensors", NULL);
  g_assert_false (export_safetensors_save (t, NULL, nowhere, &error));
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, nowhere));
  g_clear_error (&error);
  g_autoptr(GHashTable) none = export_safetensors_load (nowhere, &error);
  g_assert_null (none);
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, nowhere));
  tf_test_rmtree (dir);
}

/* ---- bad input -------------------------------------------------------------- */

/* Loads `len` bytes from an exact-size heap copy; expects `code` and a
 * message naming "bad.safetensors" that holds `needle` (if not NULL). */
static void
assert_st_fails (const guint8 *data, gsize len, int code, const char *needle)
{
  g_autoptr(GBytes) b = g_bytes_new_take (g_memdup2 (data, len), len);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) t = export_safetensors_load_bytes (b, "bad.safetensors", NULL, &error);
  g_assert_null (t);
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "bad.safetensors: "));
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("message \"%s\" lacks \"%s\"", error->message, needle);
}

/* u64 LE length (n_override if >= 0), the header text, then data_len bytes. */
static GByteArray *
build_st (const char *header, gint64 n_override, gsize data_len)
{
  GByteArray *a = g_byte_array_new ();
  guint64 n = n_override >= 0 ? (guint64) n_override : strlen (header);
  for (int i = 0; i < 8; i++)
    {
      guint8 b = (n >> (8 * i)) & 0xff;
      g_byte_array_append (a, &b, 1);
    }
  g_byte_array_append (a, (const guint8 *) header, strlen (header));
  for (gsize i = 0; i < data_len; i++)
    {
      guint8 b = (guint8) (i * 13 + 1);
      g_byte_array_append (a, &b, 1);
    }
  return a;
}

static void
test_bad_truncated (void)
{
  /* A small valid file: every proper prefix is an error. */
  g_autoptr(GByteArray) a = build_st ("{\"__metadata__\":{\"a\":\"b\"},"
                                      "\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                                      "\"y\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[8,11]}}",
                                      -1, 11);
  g_autoptr(GBytes) whole = g_bytes_new (a->data, a->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) ok = export_safetensors_load_bytes (whole, "ok", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (ok), ==, 2);
  for (gsize n = 0; n < a->len; n++)
    assert_st_fails (a->data, n, EXPORT_TENSOR_FILE_ERROR_FORMAT, NULL);
}

static void
test_bad_random (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  g_autoptr(GByteArray) good = build_st ("{\"x\":{\"dtype\":\"I16\",\"shape\":[2,2],"
                                         "\"data_offsets\":[0,8]}}   ", -1, 8);
  g_autoptr(GError) error = NULL;
  guint n_loaded = 0;

  for (guint i = 0; i < 2000; i++)
    {
      gsize n = g_rand_int_range (rand, 0, 200);
      g_autofree guint8 *buf = tf_test_random_bytes (rand, n);
      assert_st_fails (buf, n, EXPORT_TENSOR_FILE_ERROR_FORMAT, NULL);
    }
  /* A plausible length and random JSON-ish text. */
  static const char alphabet[] = "{}[]\":,0123456789-.eE \"xdtypeshapeF32I64data_offsets\\u";
  for (guint i = 0; i < 3000; i++)
    {
      gsize n = g_rand_int_range (rand, 1, 120);
      g_autofree char *text = g_malloc (n + 1);
      for (gsize k = 0; k < n; k++)
        text[k] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      text[0] = '{';
      text[n] = 0;
      g_autoptr(GByteArray) a = build_st (text, -1, g_rand_int_range (rand, 0, 16));
      g_autoptr(GBytes) b = g_bytes_new (a->data, a->len);
      g_autoptr(GHashTable) t = export_safetensors_load_bytes (b, "r", NULL, &error);
      g_assert_true ((t == NULL) == (error != NULL));
      g_clear_error (&error);
    }
  /* Mutations of a valid file. */
  for (guint i = 0; i < 3000; i++)
    {
      g_autofree guint8 *buf = g_memdup2 (good->data, good->len);
      guint flips = g_rand_int_range (rand, 1, 3);
      for (guint k = 0; k < flips; k++)
        buf[g_rand_int_range (rand, 0, good->len)] = g_rand_int_range (rand, 0, 256);
      g_autoptr(GBytes) b = g_bytes_new_take (g_steal_pointer (&buf), good->len);
      g_autoptr(GHashTable) t = export_safetensors_load_bytes (b, "m", NULL, &error);
      g_assert_true ((t == NULL) == (error != NULL));
      if (t != NULL)
        n_loaded++;
      else
        g_assert_true (g_str_has_prefix (error->message, "m: "));
      g_clear_error (&error);
    }
  g_assert_cmpuint (n_loaded, >, 0);
}

typedef struct
{
  const char *what;
  const char *header;
  gint64      n;          /* -1: the header's length */
  gsize       data_len;
  int         code;       /* -1: must load */
  const char *needle;
} BadSt;

#define F EXPORT_TENSOR_FILE_ERROR_FORMAT
#define U EXPORT_TENSOR_FILE_ERROR_UNSUPPORTED
#define E(name, dtype, shape, b, e) \
  "\"" name "\":{\"dtype\":\"" dtype "\",\"shape\":" shape ",\"data_offsets\":[" b "," e "]}"

static const BadSt bad_st[] = {
  { "good", "{" E ("a", "F32", "[2]", "0", "8") "}", -1, 8, -1, NULL },
  { "good, name order != data order", "{" E ("a", "U8", "[1]", "4", "5") "," E ("b", "F32", "[1]", "0", "4") "}", -1, 5, -1, NULL },
  { "good, empty tensors share an offset", "{" E ("a", "F32", "[0]", "0", "0") "," E ("b", "F32", "[0,3]", "0", "0") "," E ("c", "U8", "[]", "0", "1") "}", -1, 1, -1, NULL },
  { "good, unknown entry member ignored", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":[1]}}", -1, 1, -1, NULL },
  { "leading whitespace", " \n", -1, 0, F, "does not start with '{'" },
  { "header length 2^63", "{}", G_GINT64_CONSTANT (0x7fffffffffffffff), 0, F, "over the 100000000 byte limit" },
  { "header length 100MB+1", "{}", 100000001, 0, F, "over the 100000000 byte limit" },
  { "header length past EOF", "{}", 100, 0, F, "runs past the end of the file" },
  { "header length 0", "", 0, 0, F, "does not start with '{'" },
  { "invalid JSON", "{\"a\":}", -1, 0, F, "line 1, column 6" },
  { "JSON array", "[1,2]", -1, 0, F, "does not start with '{'" },
  { "JSON comment", "{/* c */}", -1, 0, F, "expected a member name" },
  { "single quotes", "{'a':1}", -1, 0, F, "expected a member name" },
  { "trailing comma", "{\"a\":1,}", -1, 0, F, "expected a member name" },
  { "two objects", "{}{}", -1, 0, F, "data after the JSON object" },
  { "hex number", "{\"a\":0x10}", -1, 0, F, "expected ',' or '}'" },
  { "bare word", "{\"a\":nope}", -1, 0, F, "invalid JSON value" },
  { "unterminated string", "{\"a", -1, 0, F, "unterminated string" },
  { "control char in string", "{\"a\x01\":1}", -1, 0, F, "control character" },
  { "NUL escape", "{\"a\\u0000\":1}", -1, 0, F, "NUL" },
  { "lone surrogate", "{\"a\\ud800\":1}", -1, 0, F, "surrogate" },
  { "bad escape", "{\"a\\q\":1}", -1, 0, F, "bad escape" },
  { "deep nesting", NULL, -1, 0, F, "nested too deeply" },
  { "duplicate name", "{" E ("a", "U8", "[1]", "0", "1") "," E ("a", "U8", "[1]", "1", "2") "}", -1, 2, F, "duplicate tensor name" },
  { "duplicate name via escape", "{" E ("a", "U8", "[1]", "0", "1") "," E ("\\u0061", "U8", "[1]", "1", "2") "}", -1, 2, F, "duplicate tensor name (after decoding" },
  { "good, escaped names", "{" E ("\\u00e9\\ud83d\\ude00", "U8", "[1]", "0", "1") "," E ("", "U8", "[1]", "1", "2") "}", -1, 2, -1, NULL },
  { "entry not an object", "{\"a\":[1]}", -1, 0, F, "tensor 'a': entry is not a JSON object" },
  { "missing dtype", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,1]}}", -1, 1, F, "\"dtype\" is missing" },
  { "dtype not a string", "{\"a\":{\"dtype\":1,\"shape\":[1],\"data_offsets\":[0,1]}}", -1, 1, F, "\"dtype\" is missing or not a string" },
  { "unknown dtype", "{" E ("a", "F7", "[1]", "0", "1") "}", -1, 1, F, "unknown dtype \"F7\"" },
  { "lower-case dtype", "{" E ("a", "f32", "[1]", "0", "4") "}", -1, 4, F, "unknown dtype \"f32\"" },
  { "fp8 dtype", "{" E ("a", "F8_E4M3", "[1]", "0", "1") "}", -1, 1, U, "unsupported dtype \"F8_E4M3\"" },
  { "missing shape", "{\"a\":{\"dtype\":\"U8\",\"data_offsets\":[0,1]}}", -1, 1, F, "\"shape\" is missing" },
  { "negative dim", "{" E ("a", "U8", "[-1]", "0", "1") "}", -1, 1, F, "shape[0] is not a non-negative integer" },
  { "float dim", "{" E ("a", "U8", "[1.0]", "0", "1") "}", -1, 1, F, "shape[0] is not a non-negative integer" },
  { "string dim", "{" E ("a", "U8", "[\"1\"]", "0", "1") "}", -1, 1, F, "shape[0]" },
  { "dim past int64", "{" E ("a", "U8", "[9223372036854775808]", "0", "1") "}", -1, 1, F, "integer does not fit in 64 bits" },
  { "huge dim", "{" E ("a", "U8", "[99999999999999999999999999]", "0", "1") "}", -1, 1, F, "integer does not fit in 64 bits" },
  { "overflowing product", "{" E ("a", "F32", "[4294967296,4294967296]", "0", "4") "}", -1, 4, F, "overflows 64 bits" },
  { "product over int64", "{" E ("a", "F64", "[2305843009213693952]", "0", "8") "}", -1, 8, F, "overflows 64 bits" },
  { "too many dims", "{" E ("a", "U8", "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                                          "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", "0", "1") "}",
    -1, 1, F, "65 dimensions" },
  { "offsets missing", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1]}}", -1, 1, F, "\"data_offsets\" is missing" },
  { "offsets of 3", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]}}", -1, 1, F, "not two non-negative integers" },
  { "negative offset", "{" E ("a", "U8", "[1]", "-1", "0") "}", -1, 1, F, "not two non-negative integers" },
  { "reversed offsets", "{" E ("a", "U8", "[0]", "5", "4") "}", -1, 5, F, "[5, 4] are reversed" },
  { "offsets past the buffer", "{" E ("a", "U8", "[4]", "0", "4") "}", -1, 2, F, "run past the data buffer (2 bytes)" },
  { "huge end offset", "{" E ("a", "U8", "[1]", "9223372036854775806", "9223372036854775807") "}", -1, 2, F, "run past the data buffer" },
  { "shape/offset mismatch", "{" E ("a", "F32", "[3]", "0", "8") "}", -1, 8, F, "hold 8 bytes, but F32 of this shape needs 12" },
  { "overlap", "{" E ("a", "U8", "[4]", "0", "4") "," E ("b", "U8", "[4]", "2", "6") "}", -1, 6, F, "overlap tensor 'a'" },
  { "same range twice", "{" E ("a", "U8", "[4]", "0", "4") "," E ("b", "U8", "[4]", "0", "4") "}", -1, 4, F, "overlap" },
  { "gap", "{" E ("a", "U8", "[2]", "0", "2") "," E ("b", "U8", "[2]", "4", "6") "}", -1, 6, F, "gap of 2 unused bytes" },
  { "gap at start", "{" E ("a", "U8", "[2]", "2", "4") "}", -1, 4, F, "gap of 2" },
  { "trailing bytes", "{" E ("a", "U8", "[2]", "0", "2") "}", -1, 5, F, "3 bytes after the last tensor" },
  { "no tensors, some data", "{}", -1, 3, F, "3 bytes after the last tensor" },
  { "metadata not an object", "{\"__metadata__\":[\"a\"]}", -1, 0, F, "\"__metadata__\" is not an object" },
  { "metadata value not a string", "{\"__metadata__\":{\"a\":1}}", -1, 0, F, "value of \"a\" is not a string" },
  { "header not UTF-8", "{\"a\xff\":1}", -1, 0, F, "not valid UTF-8" },
};

#undef F
#undef U
#undef E

static void
test_bad_headers (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (bad_st); i++)
    {
      const BadSt *b = &bad_st[i];
      g_autofree char *deep = NULL;
      const char *header = b->header;
      if (header == NULL)
        {
          /* {"a": [[[[...]]]]} a million deep: json-glib alone would
           * overflow the stack. */
          GString *s = g_string_new ("{\"a\":");
          for (int k = 0; k < 1000000; k++)
            g_string_append_c (s, '[');
          for (int k = 0; k < 1000000; k++)
            g_string_append_c (s, ']');
          g_string_append_c (s, '}');
          header = deep = g_string_free (s, FALSE);
        }
      g_autoptr(GByteArray) a = build_st (header, b->n, b->data_len);
      g_test_message ("case: %s", b->what);
      if (b->code < 0)
        {
          g_autoptr(GBytes) bytes = g_bytes_new (a->data, a->len);
          g_autoptr(GError) error = NULL;
          g_autoptr(GHashTable) t = export_safetensors_load_bytes (bytes, "good", NULL, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (g_hash_table_size (t), >, 0);
        }
      else
        assert_st_fails (a->data, a->len, b->code, b->needle);
    }

  /* The exact-size heap copy above is where ASan looks; a real file on
   * disk also names its path. */
  g_autofree char *dir = tf_test_tmpdir ();
  g_autoptr(GByteArray) a = build_st ("{" "\"w\":{\"dtype\":\"F32\",\"shape\":[1000,1000],"
                                      "\"data_offsets\":[0,4000000]}}", -1, 16);
  g_autofree char *path = write_temp (dir, "lying.safetensors", a->data, a->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) t = export_safetensors_load (path, &error);
  g_assert_null (t);
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_FORMAT);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "tensor 'w'"));
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_autofree char *empty = write_temp (dir, "empty.safetensors", "", 0);
  g_autoptr(GHashTable) t2 = export_safetensors_load (empty, &error);
  g_assert_null (t2);
  g_assert_error (error, EXPORT_TENSOR_FILE_ERROR, EXPORT_TENSOR_FILE_ERROR_FORMAT);
  g_assert_true (g_str_has_prefix (error->message, empty));
  tf_test_rmtree (dir);
}

/* Misaligned data (possible only in files from other writers) are copied,
 * aligned, and still equal. */
static void
test_misaligned (void)
{
  g_autoptr(GString) h = g_string_new ("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                                       "\"b\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[1,9]}}");
  while (h->len % 8 != 0)
    g_string_append_c (h, ' ');
  g_autoptr(GByteArray) a = build_st (h->str, -1, 9);
  g_assert_cmpuint ((a->len - 9) % 8, ==, 0);
  g_autoptr(GBytes) bytes = g_bytes_new (a->data, a->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) t = export_safetensors_load_bytes (bytes, "mis", NULL, &error);
  g_assert_no_error (error);
  Tensor *b = g_hash_table_lookup (t, "b");
  g_assert_cmpuint ((guintptr) tensor_data (b) % 8, ==, 0);
  g_assert_cmpmem (tensor_data (b), 8, a->data + a->len - 8, 8);
}

void
test_safetensors_register (void)
{
  g_test_add_func ("/export/safetensors/reference-vectors", test_reference_vectors);
  g_test_add_func ("/export/safetensors/roundtrip", test_roundtrip);
  g_test_add_func ("/export/safetensors/python-check", test_python_check);
  g_test_add_func ("/export/safetensors/torch-state-dict", test_torch_state_dict);
  g_test_add_func ("/export/safetensors/save-errors", test_save_errors);
  g_test_add_func ("/export/safetensors/misaligned", test_misaligned);
  g_test_add_func ("/export/safetensors/bad/truncated", test_bad_truncated);
  g_test_add_func ("/export/safetensors/bad/random", test_bad_random);
  g_test_add_func ("/export/safetensors/bad/headers", test_bad_headers);
}
