/* ONNX backend-test runner (see backend-suite.h). */
#include "tools/backend-suite.h"
#include "export/onnxio.h"
#include "export/onnx-sequence.h"
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

/* The graph value that input / output file k stands for (inputs: by
 * position among the inputs without initializer); NULL when none. */
static GraphValue *
value_at (Graph *g, RtSession *session, gboolean input, guint k)
{
  if (!input)
    return k < graph_n_outputs (g) ? graph_output (g, k) : NULL;
  if (k < rt_session_n_required_inputs (session))
    return rt_session_required_input (session, k);
  return k < graph_n_inputs (g) ? graph_input (g, k) : NULL;
}

/* t's bits as another element type of the same size (transfer full). */
static Tensor *
retype (const Tensor *t, GraphDType dt, GError **error)
{
  return tensor_new_from_data (dt, tensor_rank (t), tensor_dims (t), tensor_data (t),
                               tensor_nbytes (t), error);
}

/* One .pb file, read as a TensorProto, SequenceProto or OptionalProto as
 * the graph's type of `v` says (as ONNX's backend runner does). */
static RtAny *
load_pb (const char *file, GraphValue *v, GError **error)
{
  GraphType *ty = v ? graph_value_type (v) : NULL;
  GraphTypeKind kind = ty ? graph_type_kind (ty) : GRAPH_TYPE_TENSOR;
  if (kind != GRAPH_TYPE_LIST && kind != GRAPH_TYPE_OPTIONAL)
    {
      g_autoptr (Tensor) t = onnxio_tensor_load (file, NULL, error);
      if (t && ty && graph_type_is_tensor (ty) && graph_type_dtype (ty) == GRAPH_DTYPE_BFLOAT16
          && tensor_dtype (t) == GRAPH_DTYPE_UINT16)
        {
          /* ONNX 1.12 stores bfloat16 test data as numpy uint16 (its
           * mapping of BFLOAT16): the same bits. */
          Tensor *bf = retype (t, GRAPH_DTYPE_BFLOAT16, error);
          tensor_unref (t);
          t = bf;
        }
      return t ? rt_any_new_tensor (t) : NULL;
    }
  g_autoptr (OnnxioValue) ov = kind == GRAPH_TYPE_LIST ? onnxio_sequence_load (file, NULL, error)
                                                       : onnxio_optional_load (file, NULL, error);
  if (ov == NULL)
    return NULL;
  switch (ov->kind)
    {
    case ONNXIO_VALUE_TENSOR:
      return rt_any_new_tensor (ov->tensor);
    case ONNXIO_VALUE_NONE:
      return rt_any_new_none (ov->elem_type);
    case ONNXIO_VALUE_SEQUENCE:
    default:
      {
        RtAny *a = rt_any_new_sequence (ov->elem_type);
        for (guint i = 0; i < ov->items->len; i++)
          g_ptr_array_add (a->items, tensor_ref (g_ptr_array_index (ov->items, i)));
        return a;
      }
    }
}

/* prefix0.pb, prefix1.pb, ... by number, not name (input_10 after
 * input_9); NULL on a file that cannot be read. */
static GPtrArray *
load_pb_set (Graph *g, RtSession *session, const char *set_dir, gboolean input, GError **error)
{
  const char *prefix = input ? "input_" : "output_";
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_any_free);
  for (guint k = 0;; k++)
    {
      g_autofree char *file = g_strdup_printf ("%s/%s%u.pb", set_dir, prefix, k);
      if (!g_file_test (file, G_FILE_TEST_EXISTS))
        break;
      RtAny *a = load_pb (file, value_at (g, session, input, k), error);
      if (a == NULL)
        return NULL;
      g_ptr_array_add (order, a);
    }
  return g_steal_pointer (&order);
}

static const char *
any_kind_name (const RtAny *a)
{
  return a->kind == RT_ANY_TENSOR ? "a tensor"
         : a->kind == RT_ANY_SEQUENCE ? "a sequence" : "an optional without value";
}

/* Compares two values of any kind, sequences item by item; *why says how
 * they differ. */
static gboolean
compare_any (BackendSuite *s, const RtAny *expected, const RtAny *actual, char **why)
{
  RtCompareResult r;
  if (expected->kind != actual->kind)
    {
      *why = g_strdup_printf ("expected %s, got %s", any_kind_name (expected),
                              any_kind_name (actual));
      return FALSE;
    }
  if (expected->kind == RT_ANY_NONE)
    return TRUE;
  if (expected->kind == RT_ANY_TENSOR && tensor_dtype (expected->tensor) == GRAPH_DTYPE_BFLOAT16
      && tensor_dtype (actual->tensor) == GRAPH_DTYPE_BFLOAT16)
    {
      /* Bit for bit, as ONNX's runner compares them (numpy uint16). */
      g_autoptr (Tensor) e = retype (expected->tensor, GRAPH_DTYPE_UINT16, NULL);
      g_autoptr (Tensor) a = retype (actual->tensor, GRAPH_DTYPE_UINT16, NULL);
      if (e && a && rt_compare (e, a, s->rtol, s->atol, TRUE, &r))
        return TRUE;
      *why = e && a ? rt_compare_result_to_string (&r, e, a) : g_strdup ("bfloat16 data missing");
      return FALSE;
    }
  if (expected->kind == RT_ANY_TENSOR)
    {
      if (rt_compare (expected->tensor, actual->tensor, s->rtol, s->atol, TRUE, &r))
        return TRUE;
      *why = rt_compare_result_to_string (&r, expected->tensor, actual->tensor);
      return FALSE;
    }
  if (expected->items->len != actual->items->len)
    {
      *why = g_strdup_printf ("expected a sequence of %u, got %u", expected->items->len,
                              actual->items->len);
      return FALSE;
    }
  for (guint i = 0; i < expected->items->len; i++)
    {
      Tensor *e = g_ptr_array_index (expected->items, i), *a = g_ptr_array_index (actual->items, i);
      if (!rt_compare (e, a, s->rtol, s->atol, TRUE, &r))
        {
          g_autofree char *what = rt_compare_result_to_string (&r, e, a);
          *why = g_strdup_printf ("item %u: %s", i, what);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
run_set (BackendSuite *s, Graph *g, RtSession *session, const char *set_dir, char **reason)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) in_order = load_pb_set (g, session, set_dir, TRUE, &error);
  if (in_order == NULL)
    {
      *reason = g_strdup_printf ("cannot load inputs: %s", error->message);
      return FALSE;
    }
  g_autoptr (GPtrArray) out_order = load_pb_set (g, session, set_dir, FALSE, &error);
  if (out_order == NULL)
    {
      *reason = g_strdup_printf ("cannot load expected outputs: %s", error->message);
      return FALSE;
    }
  g_autoptr (GHashTable) inputs = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < in_order->len; i++)
    {
      GraphValue *v = value_at (g, session, TRUE, i);
      if (v == NULL || graph_value_get_name (v) == NULL)
        continue;
      g_hash_table_insert (inputs, (gpointer) graph_value_get_name (v),
                           g_ptr_array_index (in_order, i));
    }
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) rt_any_free);
  if (!rt_session_run_any (session, inputs, outputs, &error))
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
      RtAny *actual = name ? g_hash_table_lookup (outputs, name) : NULL;
      g_autofree char *why = NULL;
      if (actual == NULL)
        {
          *reason = g_strdup_printf ("output %u was not produced", i);
          return FALSE;
        }
      if (!compare_any (s, g_ptr_array_index (out_order, i), actual, &why))
        {
          *reason = g_strdup_printf ("output '%s': %s", name, why);
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
  opts.device = s->device;
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
      gboolean ok = run_set (s, g, session, set_dir, &why);
      RtDeviceStats st;
      rt_session_device_stats (session, &st);
      s->device_runs += st.n_device_runs;
      s->fallback_runs += st.n_fallback_runs;
      if (!ok)
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
