/* The ATen kernels of runtime/k-aten-{math,act,reduce,tensor,pool2}.c
 * against torch 1.13: tests/fixtures/aten-ops/cases.tsv, written by
 * tools/gen_aten_op_refs.py with the inputs and torch's outputs, and
 * cases-half.tsv, the float32 cases again in float16 where torch's CPU
 * kernels compute them (the executor matches them or refuses).  Each case
 * runs as an org.pytorch.aten::ATen node and as an aten:: node of a trace
 * graph; a case torch refuses must be refused here too (an RT_ERROR, no
 * crash), in both forms. */
#include "tests/runtime/test-runtime.h"
#include "tests/runtime/aten-testutil.h"
#include "tests/common/test-util.h"
#include <string.h>

typedef struct
{
  char   *name, *op, *args;
  guint   n_outputs;
  double  rtol, atol;
  gboolean error;
  gboolean half;   /* cases-half.tsv: torch's float16 results, or a refusal */
} OpCase;

static GPtrArray *cases;

static void
run_case (const OpCase *c, gboolean trace)
{
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  g_autoptr (Graph) g = aten_test_build ("aten-ops", c->name, c->op, c->args, c->n_outputs, trace, inputs);
  if (c->error)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
      g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                              (GDestroyNotify) tensor_unref);
      gboolean ok = s && rt_session_run (s, inputs, outputs, &error);
      if (ok)
        g_error ("%s (%s): torch refuses this call, the executor computed it", c->name,
                 trace ? "trace" : "ATen node");
      g_assert_nonnull (error);
      g_assert_true (error->domain == RT_ERROR);
      /* Not "no kernel": the kernel itself refused. */
      g_assert_null (strstr (error->message, "no kernel"));
      return;
    }
  if (c->half)
    {
      /* float16: the executor gives torch's results (checked below) or
       * refuses with its own error, never "no kernel" nor a crash. */
      g_autoptr (GError) error = NULL;
      g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
      g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                              (GDestroyNotify) tensor_unref);
      if (s == NULL || !rt_session_run (s, inputs, outputs, &error))
        {
          g_assert_nonnull (error);
          g_assert_true (error->domain == RT_ERROR);
          g_assert_null (strstr (error->message, "no kernel"));
          g_test_message ("%s: refused in float16: %s", c->name, error->message);
          return;
        }
      for (guint i = 0; i < c->n_outputs; i++)
        {
          g_autofree char *file = g_strdup_printf ("%s_out%u.npy", c->name, i);
          g_autofree char *name = g_strdup_printf ("y%u", i);
          g_autofree char *what = g_strdup_printf ("%s (aten::%s) output %u (%s, float16)", c->name, c->op, i,
                                                   trace ? "trace" : "ATen node");
          aten_test_expect_in ("aten-ops", outputs, name, file, c->rtol, c->atol, what);
        }
      return;
    }
  g_autoptr (GHashTable) outputs = aten_test_run (g, inputs);
  for (guint i = 0; i < c->n_outputs; i++)
    {
      g_autofree char *file = g_strdup_printf ("%s_out%u.npy", c->name, i);
      g_autofree char *name = g_strdup_printf ("y%u", i);
      g_autofree char *what = g_strdup_printf ("%s (aten::%s) output %u (%s)", c->name, c->op, i,
                                               trace ? "trace" : "ATen node");
      aten_test_expect_in ("aten-ops", outputs, name, file, c->rtol, c->atol, what);
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

static void
case_free (gpointer p)
{
  OpCase *c = p;
  g_free (c->name);
  g_free (c->op);
  g_free (c->args);
  g_free (c);
}

static void
register_file (const char *file, gboolean half)
{
  g_autofree char *path = test_source_path (file);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      g_assert_cmpuint (g_strv_length (f), ==, 7);
      OpCase *c = g_new0 (OpCase, 1);
      c->name = g_strdup (f[0]);
      c->op = g_strdup (f[1]);
      c->args = g_strdup (f[2]);
      c->n_outputs = (guint) g_ascii_strtoull (f[3], NULL, 10);
      c->rtol = g_ascii_strtod (f[4], NULL);
      c->atol = g_ascii_strtod (f[5], NULL);
      c->error = strcmp (f[6], "error") == 0;
      c->half = half;
      g_ptr_array_add (cases, c);
      const char *kind = half ? "half" : c->error ? "error" : "ref";
      g_autofree char *p1 = g_strdup_printf ("/runtime/aten-ops/%s/node/%s", kind, c->name);
      g_autofree char *p2 = g_strdup_printf ("/runtime/aten-ops/%s/trace/%s", kind, c->name);
      if (strstr (c->op, "::") == NULL)   /* torchvision:: ops are trace nodes only */
        g_test_add_data_func (p1, c, test_node);
      g_test_add_data_func (p2, c, test_trace);
    }
}

void
test_aten_ops_register (void)
{
  cases = g_ptr_array_new_with_free_func (case_free);
  register_file ("tests/fixtures/aten-ops/cases.tsv", FALSE);
  register_file ("tests/fixtures/aten-ops/cases-half.tsv", TRUE);
}
