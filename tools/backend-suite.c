/* ONNX backend-test runner (see backend-suite.h). */
#include "tools/backend-suite.h"
#include "export/onnxio.h"
#include <string.h>

void
backend_suite_init (BackendSuite *s)
{
  memset (s, 0, sizeof *s);
  s->rtol = RT_DEFAULT_RTOL;
  s->atol = RT_DEFAULT_ATOL;
}

void
backend_suite_clear (BackendSuite *s)
{
  g_clear_pointer (&s->expectations, g_hash_table_unref);
}

gboolean
backend_suite_load_expectations (BackendSuite *s, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  if (s->expectations == NULL)
    s->expectations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      char *line = g_strstrip (lines[i]);
      if (*line == '\0' || *line == '#')
        continue;
      char *sp = line + strcspn (line, " \t");
      char *reason = *sp ? g_strstrip (sp + 1) : NULL;
      *sp = '\0';
      if (reason == NULL || *reason == '\0')
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "%s:%u: case '%s' is listed without a reason", path, i + 1, line);
          return FALSE;
        }
      g_hash_table_replace (s->expectations, g_strdup (line), g_strdup (reason));
    }
  return TRUE;
}

static void
report (BackendSuite *s, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
report (BackendSuite *s, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *line = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (s->report)
    s->report (line, s->user_data);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* Sorted entries of `dir` starting with `prefix`. */
static GPtrArray *
list_dir (const char *dir, const char *prefix)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    if (g_str_has_prefix (name, prefix))
      g_ptr_array_add (out, g_strdup (name));
  g_ptr_array_sort (out, compare_names);
  return out;
}

static GHashTable *
load_pb_set (const char *set_dir, const char *prefix, GPtrArray **order, GError **error)
{
  g_autoptr (GPtrArray) files = list_dir (set_dir, prefix);
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) tensor_unref);
  *order = g_ptr_array_new_with_free_func ((GDestroyNotify) tensor_unref);
  /* input_0.pb, input_1.pb, ... input_10.pb: by number, not name. */
  for (guint k = 0;; k++)
    {
      g_autofree char *file = g_strdup_printf ("%s/%s%u.pb", set_dir, prefix, k);
      if (!g_file_test (file, G_FILE_TEST_EXISTS))
        break;
      g_autofree char *name = NULL;
      Tensor *tensor = onnxio_tensor_load (file, &name, error);
      if (tensor == NULL)
        {
          g_hash_table_unref (t);
          g_clear_pointer (order, g_ptr_array_unref);
          return NULL;
        }
      g_ptr_array_add (*order, tensor);
      if (name)
        g_hash_table_replace (t, g_steal_pointer (&name), tensor_ref (tensor));
    }
  (void) files;
  return t;
}

static gboolean
run_set (BackendSuite *s, Graph *g, RtSession *session, const char *set_dir, char **reason)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) in_order = NULL, out_order = NULL;
  g_autoptr (GHashTable) in_named = load_pb_set (set_dir, "input_", &in_order, &error);
  if (in_named == NULL)
    {
      *reason = g_strdup_printf ("cannot load inputs: %s", error->message);
      return FALSE;
    }
  g_autoptr (GHashTable) out_named = load_pb_set (set_dir, "output_", &out_order, &error);
  if (out_named == NULL)
    {
      *reason = g_strdup_printf ("cannot load expected outputs: %s", error->message);
      return FALSE;
    }
  /* Inputs by position among the inputs without initializer. */
  g_autoptr (GHashTable) inputs = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_req = rt_session_n_required_inputs (session);
  for (guint i = 0; i < in_order->len; i++)
    {
      GraphValue *v = NULL;
      if (i < n_req)
        v = rt_session_required_input (session, i);
      else if (i < graph_n_inputs (g))
        v = graph_input (g, i);
      if (v == NULL || graph_value_get_name (v) == NULL)
        continue;
      g_hash_table_insert (inputs, (gpointer) graph_value_get_name (v),
                           g_ptr_array_index (in_order, i));
    }
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  if (!rt_session_run (session, inputs, outputs, &error))
    {
      *reason = g_strdup (error->message);
      return FALSE;
    }
  if (out_order->len != graph_n_outputs (g))
    {
      *reason = g_strdup_printf ("%u expected outputs for %u graph outputs", out_order->len,
                                 graph_n_outputs (g));
      return FALSE;
    }
  for (guint i = 0; i < out_order->len; i++)
    {
      const char *name = graph_value_get_name (graph_output (g, i));
      Tensor *actual = name ? g_hash_table_lookup (outputs, name) : NULL;
      Tensor *expected = g_ptr_array_index (out_order, i);
      RtCompareResult r;
      if (actual == NULL)
        {
          *reason = g_strdup_printf ("output %u was not produced", i);
          return FALSE;
        }
      if (!rt_compare (expected, actual, s->rtol, s->atol, TRUE, &r))
        {
          g_autofree char *what = rt_compare_result_to_string (&r, expected, actual);
          *reason = g_strdup_printf ("output '%s': %s", name, what);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
backend_suite_run_case (BackendSuite *s, const char *case_dir, char **reason)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *model = g_build_filename (case_dir, "model.onnx", NULL);
  g_autoptr (Graph) g = onnxio_load (model, &error);
  if (g == NULL)
    {
      *reason = g_strdup (error->message);
      return FALSE;
    }
  RtOptions opts;
  rt_options_init (&opts);
  opts.threads = s->threads;
  g_autoptr (RtSession) session = rt_session_new (g, &opts, &error);
  if (session == NULL)
    {
      *reason = g_strdup (error->message);
      return FALSE;
    }
  g_autoptr (GPtrArray) sets = list_dir (case_dir, "test_data_set_");
  if (sets->len == 0)
    {
      *reason = g_strdup ("no test_data_set_N folder");
      return FALSE;
    }
  for (guint i = 0; i < sets->len; i++)
    {
      g_autofree char *set_dir = g_build_filename (case_dir, g_ptr_array_index (sets, i), NULL);
      g_autofree char *why = NULL;
      if (!run_set (s, g, session, set_dir, &why))
        {
          *reason = g_strdup_printf ("%s: %s", (char *) g_ptr_array_index (sets, i), why);
          return FALSE;
        }
    }
  return TRUE;
}

static void
run_one (BackendSuite *s, const char *case_dir)
{
  g_autofree char *name = g_path_get_basename (case_dir);
  g_autofree char *reason = NULL;
  const char *expected = s->expectations ? g_hash_table_lookup (s->expectations, name) : NULL;
  if (backend_suite_run_case (s, case_dir, &reason))
    {
      s->passed++;
      report (s, "PASS %s%s", name, expected ? " (listed in the expectations file: remove it)" : "");
    }
  else if (expected)
    {
      s->skipped++;
      report (s, "SKIP %s: %s", name, expected);
    }
  else
    {
      s->failed++;
      report (s, "FAIL %s: %s", name, reason);
    }
}

void
backend_suite_run_dir (BackendSuite *s, const char *dir)
{
  g_autofree char *model = g_build_filename (dir, "model.onnx", NULL);
  if (g_file_test (model, G_FILE_TEST_EXISTS))
    {
      run_one (s, dir);
      return;
    }
  g_autoptr (GPtrArray) cases = list_dir (dir, "");
  guint n = 0;
  for (guint i = 0; i < cases->len; i++)
    {
      g_autofree char *sub = g_build_filename (dir, g_ptr_array_index (cases, i), NULL);
      g_autofree char *m = g_build_filename (sub, "model.onnx", NULL);
      if (!g_file_test (m, G_FILE_TEST_EXISTS))
        continue;
      run_one (s, sub);
      n++;
    }
  if (n == 0)
    {
      s->failed++;
      report (s, "FAIL %s: no model.onnx in the folder or its subfolders", dir);
    }
}
