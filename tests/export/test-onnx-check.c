/* Tests of the ONNX schema table (export/onnx-schema.h), the checker
 * (export/onnx-check.h) and `symonnx check`.  Expected values come from
 * python3-onnx at test time: the schemas (tests/export/onnx_schemas_dump.py)
 * and onnx.checker's verdicts (tests/export/onnx_check_verdicts.py). */
#include "symonnx.h"
#include "export/onnxio.h"
#include "export/onnx-check.h"
#include "export/onnx-schema.h"
#include <glib/gstdio.h>
#include <string.h>

#define TESTDATA "/usr/share/libonnx-testdata/data"

/* Runs /usr/bin/python3 tests/export/SCRIPT ARGS...; returns its stdout, or
 * NULL after g_test_skip when python3-onnx is missing (exit 77). */
static char *
run_python (const char *script, const char *const *args)
{
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return NULL;
    }
  const char *root = g_getenv ("SYMONNX_SOURCE_ROOT");
  g_autofree char *path = g_build_filename (root ? root : ".", "tests", "export", script, NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) "/usr/bin/python3");
  g_ptr_array_add (argv, path);
  for (guint i = 0; args && args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                     &status, &error))
    g_error ("cannot run %s: %s", path, error->message);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_free (out);
      g_test_skip ("python3-onnx is not installed");
      return NULL;
    }
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("%s failed: %s\n%s", script, error->message, err);
  return out;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static const char *
dtype_onnx_name (int d)
{
  /* ONNX's spelling in type strings equals graph_dtype_name for all but
   * none; keep the mapping explicit so the test does not trust the IR. */
  static const char *const names[] = {
    "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
    "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16",
  };
  return names[d];
}

static void
append_types (GPtrArray *types, const char *open, const char *close, guint32 mask)
{
  for (int d = 1; d < 17; d++)
    if (mask & (1u << d))
      g_ptr_array_add (types, g_strdup_printf ("%s%s%s", open, dtype_onnx_name (d), close));
}

/* The dump script's line for schema s, rebuilt from the C table. */
static char *
schema_line (const OnnxSchema *s)
{
  GString *l = g_string_new (NULL);
  g_string_append_printf (l, "%s|%s|%d|%d|%d|%d|%d|%d|", s->domain, s->name, s->since_version,
                          s->deprecated, s->min_inputs, s->max_inputs, s->min_outputs,
                          s->max_outputs);
  for (int i = 0; i < s->n_attrs; i++)
    g_string_append_printf (l, "%s%s:%d:%d", i ? "," : "", s->attrs[i].name, s->attrs[i].type,
                            s->attrs[i].required);
  g_string_append_c (l, '|');
  for (int i = 0; i < s->n_inputs + s->n_outputs; i++)
    {
      const OnnxSchemaParam *p = &s->params[i];
      const OnnxTypeSet *ts = onnx_schema_typeset (p->typeset);
      g_autoptr(GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
      append_types (types, "tensor(", ")", ts->tensor);
      append_types (types, "seq(tensor(", "))", ts->seq);
      append_types (types, "optional(tensor(", "))", ts->opt_tensor);
      append_types (types, "optional(seq(tensor(", ")))", ts->opt_seq);
      if (ts->other & 1)
        g_ptr_array_add (types, g_strdup ("map"));
      if (ts->other & 2)
        g_ptr_array_add (types, g_strdup ("seq(map)"));
      g_ptr_array_sort (types, cmp_str);
      g_string_append_printf (l, "%s%s:%d:%d:%s:", i ? ";" : "", p->name, p->option, p->homogeneous,
                              p->type_param ? s->type_params[p->type_param - 1] : "-");
      for (guint k = 0; k < types->len; k++)
        g_string_append_printf (l, "%s%s", k ? " " : "", (char *) types->pdata[k]);
    }
  return g_string_free (l, FALSE);
}

static GPtrArray *
split_lines (const char *text)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      g_ptr_array_add (a, g_strdup (lines[i]));
  return a;
}

/* Every schema of the table agrees with python3-onnx's, field by field. */
static void
test_schemas_vs_onnx (void)
{
  g_autofree char *out = run_python ("onnx_schemas_dump.py", NULL);
  if (out == NULL)
    return;
  g_autoptr(GPtrArray) want = split_lines (out);
  g_autoptr(GPtrArray) got = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < onnx_schema_count (); i++)
    g_ptr_array_add (got, schema_line (onnx_schema_nth (i)));
  g_ptr_array_sort (want, cmp_str);
  g_ptr_array_sort (got, cmp_str);
  guint shown = 0;
  for (guint i = 0; i < MAX (want->len, got->len) && shown < 5; i++)
    {
      const char *w = i < want->len ? want->pdata[i] : "(none)";
      const char *h = i < got->len ? got->pdata[i] : "(none)";
      if (strcmp (w, h) != 0)
        {
          g_test_message ("schema %u differs:\n  onnx:  %s\n  table: %s", i, w, h);
          shown++;
        }
    }
  g_assert_cmpuint (shown, ==, 0);
  g_assert_cmpuint (got->len, ==, want->len);
  g_assert_cmpuint (got->len, >, 400);
  g_test_message ("%u schemas agree with python3-onnx", got->len);
}

/* onnx_schema_lookup agrees with onnx.defs.get_schema (newest version <=
 * opset) for every default-domain op and opset; the domain may be spelled
 * "", "onnx" or "ai.onnx". */
static void
test_lookup_vs_onnx (void)
{
  const char *const args[] = { "lookup", NULL };
  g_autofree char *out = run_python ("onnx_schemas_dump.py", args);
  if (out == NULL)
    return;
  g_autoptr(GPtrArray) lines = split_lines (out);
  static const char *const spellings[] = { "", "onnx", "ai.onnx" };
  for (guint i = 0; i < lines->len; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines->pdata[i], "|", 3);
      g_assert_nonnull (f[2]);
      gint64 opset = g_ascii_strtoll (f[1], NULL, 10);
      int since = (int) g_ascii_strtoll (f[2], NULL, 10);
      const OnnxSchema *s = onnx_schema_lookup (spellings[i % 3], f[0], opset);
      if (since < 0)
        g_assert_null (s);
      else
        {
          g_assert_nonnull (s);
          g_assert_cmpint (s->since_version, ==, since);
          g_assert_cmpstr (s->name, ==, f[0]);
        }
    }
  g_assert_cmpuint (lines->len, >, 1000);
  g_assert_null (onnx_schema_lookup ("", "NoSuchOp", 17));
  g_assert_null (onnx_schema_first ("mydomain", "Relu"));
  g_assert_true (onnx_schema_domain_known ("ai.onnx.ml"));
  g_assert_false (onnx_schema_domain_known ("org.pytorch.aten"));
}

/* Every model of ONNX's backend tests that onnx.checker accepts passes our
 * check with no errors. */
static void
test_testdata_models (void)
{
  const char *const args[] = { TESTDATA "/node", TESTDATA "/pytorch-converted",
                               TESTDATA "/pytorch-operator", TESTDATA "/simple", NULL };
  if (!g_file_test (TESTDATA, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  g_autofree char *out = run_python ("onnx_check_verdicts.py", args);
  if (out == NULL)
    return;
  g_autoptr(GPtrArray) lines = split_lines (out);
  guint accepted = 0, rejected = 0, failures = 0, rejected_agree = 0, warnings = 0;
  for (guint i = 0; i < lines->len; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines->pdata[i], "\t", 3);
      g_autoptr(GError) error = NULL;
      g_autoptr(Graph) g = onnxio_load (f[0], &error);
      gboolean ok = strcmp (f[1], "ok") == 0;
      if (g == NULL)
        {
          if (ok)
            {
              g_test_message ("%s: onnx.checker accepts it, our reader does not: %s", f[0],
                              error->message);
              failures++;
            }
          continue;
        }
      g_autoptr(GPtrArray) problems = onnx_check_graph (g, NULL);
      guint errors = onnx_check_count (problems, ONNX_CHECK_ERROR);
      warnings += onnx_check_count (problems, ONNX_CHECK_WARNING);
      if (ok)
        {
          accepted++;
          for (guint k = 0; k < problems->len && errors > 0; k++)
            {
              g_autofree char *s = onnx_check_problem_to_string (problems->pdata[k]);
              g_test_message ("%s (accepted by onnx.checker): %s", f[0], s);
            }
          failures += errors > 0;
        }
      else
        {
          rejected++;
          rejected_agree += errors > 0;
          g_test_message ("%s: onnx.checker rejects it (%s); we report %u errors", f[0], f[2],
                          errors);
        }
    }
  g_test_message ("%u models accepted by onnx.checker, %u rejected (%u of those with errors "
                  "from us); %u warnings in all", accepted, rejected, rejected_agree, warnings);
  g_assert_cmpuint (failures, ==, 0);
  g_assert_cmpuint (accepted, >, 1000);
}

/* ---- hand-made broken models ---- */

typedef struct
{
  const char *where;     /* substring of the problem's where */
  const char *message;   /* substring of its message */
  OnnxCheckSeverity severity;
} Expect;

/* Each expectation matches exactly one problem, and every problem is
 * expected. */
static void
assert_problems (GPtrArray *problems, const Expect *expect, guint n)
{
  g_autofree gboolean *used = g_new0 (gboolean, problems->len + 1);
  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *s = onnx_check_problem_to_string (problems->pdata[i]);
      g_test_message ("%s", s);
    }
  for (guint e = 0; e < n; e++)
    {
      guint hits = 0;
      for (guint i = 0; i < problems->len; i++)
        {
          const OnnxCheckProblem *p = problems->pdata[i];
          if (strstr (p->where, expect[e].where) && strstr (p->message, expect[e].message)
              && p->severity == expect[e].severity)
            {
              hits++;
              used[i] = TRUE;
            }
        }
      if (hits != 1)
        g_error ("expected one problem at '%s' saying '%s', found %u", expect[e].where,
                 expect[e].message, hits);
    }
  for (guint i = 0; i < problems->len; i++)
    if (!used[i])
      {
        g_autofree char *s = onnx_check_problem_to_string (problems->pdata[i]);
        g_error ("unexpected problem: %s", s);
      }
}

static void
name_node (GraphValue *v, const char *name)
{
  g_assert_nonnull (v);
  graph_node_set_name (graph_value_node (v), name);
}

/* An opset-9 model with one broken node per kind of problem (and good
 * nodes around them); `with_order` adds a use before definition. */
static Graph *
make_broken (gboolean with_order)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 9);
  graph_set_opset (g, "mydomain", 1);
  graph_set_opset (g, GRAPH_ATEN_DOMAIN, 1);
  g_autoptr(GraphType) f23 = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, (gint64[]) { 2, 3 });
  g_autoptr(GraphType) l23 = graph_type_new_tensor_static (GRAPH_DTYPE_INT64, 2, (gint64[]) { 2, 3 });
  g_autoptr(GraphType) b0 = graph_type_new_tensor_static (GRAPH_DTYPE_BOOL, 0, NULL);
  GraphValue *x = graph_add_input (g, "x", f23);
  GraphValue *l = graph_add_input (g, "l", l23);
  GraphValue *cond = graph_add_input (g, "cond", b0);

  GraphValue *ok = graph_op (g, "Relu", x, NULL);
  name_node (ok, "fine");
  name_node (graph_op (g, "Foo", x, NULL), "unknown_op");
  name_node (graph_op (g, "GreaterOrEqual", x, x, NULL), "too_new");
  name_node (graph_op (g, "Concat", x, x, NULL), "no_axis");
  name_node (graph_op (g, "Elu", x, "alpha_i", (gint64) 1, NULL), "int_alpha");
  name_node (graph_op (g, "Relu", x, "foo_i", (gint64) 1, NULL), "foo_attr");
  name_node (graph_op (g, "Relu", x, x, NULL), "two_inputs");
  name_node (graph_op (g, "Add", x, NULL), "one_input");
  name_node (graph_op (g, "Add", x, l, NULL), "float_plus_long");
  name_node (graph_op (g, "Relu", l, NULL), "relu_long");
  name_node (graph_op (g, "Add", x, GRAPH_ABSENT, NULL), "absent_b");
  name_node (graph_op (g, "mydomain::MyOp", x, NULL), "custom1");
  name_node (graph_op (g, "mydomain::MyOp", x, NULL), "custom2");
  name_node (graph_at (g, "mul", x, x, NULL), "aten_ok");
  GraphNode *aten = graph_create_node (g, GRAPH_KIND_ATEN, 1, &x, 1);
  graph_insert_node (g, aten);
  graph_node_set_name (aten, "aten_no_operator");

  /* If with a good then-branch (using an outer value) and a bad else. */
  Graph *then_g = graph_new_subgraph (g);
  graph_add_output (then_g, graph_op (then_g, "Relu", x, NULL));
  Graph *else_g = graph_new_subgraph (g);
  GraphValue *bogus = graph_op (else_g, "Bogus", x, NULL);
  name_node (bogus, "inner");
  graph_add_output (else_g, bogus);
  name_node (graph_op (g, "If", cond, "then_branch_g", then_g, "else_branch_g", else_g, NULL),
             "branch");

  if (with_order)
    {
      GraphValue *a = graph_op (g, "Relu", x, NULL);
      name_node (a, "producer");
      GraphValue *b = graph_op (g, "Neg", a, "bar_i", (gint64) 1, NULL);
      name_node (b, "consumer");
      graph_node_insert_before (graph_value_node (b), graph_value_node (a));
    }
  graph_add_output (g, ok);
  return g;
}

static const Expect broken_expect[] = {
  { "graph", "output 0 ", ONNX_CHECK_ERROR },
  { "'unknown_op' (onnx::Foo)", "unknown operator 'Foo' in domain ''", ONNX_CHECK_ERROR },
  { "'too_new' (onnx::GreaterOrEqual)", "does not exist at opset 9 of domain ''", ONNX_CHECK_ERROR },
  { "'too_new'", "it exists from opset 12", ONNX_CHECK_ERROR },
  { "'no_axis' (onnx::Concat)", "required attribute 'axis' (int) of Concat-4 is missing", ONNX_CHECK_ERROR },
  { "'int_alpha' (onnx::Elu)", "attribute 'alpha' is of kind int; Elu-6 expects float", ONNX_CHECK_ERROR },
  { "'foo_attr' (onnx::Relu)", "unknown attribute 'foo' for Relu-6", ONNX_CHECK_ERROR },
  { "'two_inputs' (onnx::Relu)", "has 2 inputs; Relu-6 takes 1", ONNX_CHECK_ERROR },
  { "'one_input' (onnx::Add)", "has 1 inputs; Add-7 takes 2", ONNX_CHECK_ERROR },
  { "'float_plus_long' (onnx::Add)", "input 1 'l' is tensor(int64) but input 0 'x' is tensor(float)",
    ONNX_CHECK_ERROR },
  { "'relu_long' (onnx::Relu)", "input 0 'l' is tensor(int64); Relu-6 allows tensor(float|float16|double)",
    ONNX_CHECK_ERROR },
  { "'absent_b' (onnx::Add)", "input 1 ('B' of Add-7) is absent but not optional", ONNX_CHECK_ERROR },
  { "'custom1' (mydomain::MyOp)", "domain 'mydomain' is not an ONNX domain", ONNX_CHECK_WARNING },
  { "'aten_no_operator' (org.pytorch.aten::ATen)", "ATen node has no 'operator' attribute",
    ONNX_CHECK_ERROR },
  { "'branch' (onnx::If): attribute 'else_branch': node 0 'inner' (onnx::Bogus)",
    "unknown operator 'Bogus'", ONNX_CHECK_ERROR },
};

/* make_broken's graph output has no type: "graph: output 0 ... has no type
 * (ONNX requires one on graph inputs and outputs)". */

/* What make_broken (TRUE) adds; node indices are the file's. */
static const Expect order_expect[] = {
  { "node 16 'consumer' (onnx::Neg)",
    "is used before it is defined (it is output 0 of node 17 'producer' (onnx::Relu), later in the graph)",
    ONNX_CHECK_ERROR },
  { "node 16 'consumer' (onnx::Neg)", "unknown attribute 'bar' for Neg-6", ONNX_CHECK_ERROR },
};

static void
test_broken (void)
{
  g_autoptr(Graph) g = make_broken (TRUE);
  g_autoptr(GPtrArray) problems = onnx_check_graph (g, NULL);
  Expect e[G_N_ELEMENTS (broken_expect) + G_N_ELEMENTS (order_expect)];
  memcpy (e, broken_expect, sizeof broken_expect);
  memcpy (e + G_N_ELEMENTS (broken_expect), order_expect, sizeof order_expect);
  assert_problems (problems, e, G_N_ELEMENTS (e));
  g_assert_cmpuint (onnx_check_count (problems, ONNX_CHECK_WARNING), ==, 1);

  /* --strict: the custom domain is an error. */
  OnnxCheckOptions opts;
  onnx_check_options_init (&opts);
  opts.strict = TRUE;
  g_autoptr(GPtrArray) strict = onnx_check_graph (g, &opts);
  g_assert_cmpuint (onnx_check_count (strict, ONNX_CHECK_WARNING), ==, 0);
  g_assert_cmpuint (onnx_check_count (strict, ONNX_CHECK_ERROR), ==,
                    onnx_check_count (problems, ONNX_CHECK_ERROR) + 1);
}

/* Problems about opset imports and versions. */
static void
test_opsets (void)
{
  g_autoptr(GraphType) f4 = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 4, (gint64[]) { 1, 1, 2, 2 });
  {
    /* No opset import at all: one error for the domain, not one per node. */
    g_autoptr(Graph) g = graph_new ();
    GraphValue *x = graph_add_input (g, "x", f4);
    graph_add_output (g, graph_op (g, "Relu", graph_op (g, "Relu", x, NULL), NULL));
    g_autoptr(GPtrArray) p = onnx_check_graph (g, NULL);
    const Expect e[] = {
      { "node 0 (onnx::Relu)", "imports no opset for domain ''", ONNX_CHECK_ERROR },
      { "graph", "output 0 %", ONNX_CHECK_ERROR },   /* untyped */
    };
    assert_problems (p, e, G_N_ELEMENTS (e));
  }
  {
    /* Upsample is deprecated from opset 10; Clip's min/max became inputs at 11. */
    g_autoptr(Graph) g = graph_new ();
    graph_set_opset (g, "", 11);
    GraphValue *x = graph_add_input (g, "x", f4);
    GraphValue *scales = graph_add_input (g, "scales", NULL);
    graph_op (g, "Upsample", x, scales, NULL);
    graph_op (g, "Clip", x, "min_f", 0.0, "max_f", 6.0, NULL);
    g_autoptr(GPtrArray) p = onnx_check_graph (g, NULL);
    const Expect e[] = {
      { "graph", "input 1 'scales' has no type (ONNX requires one on graph inputs and outputs)",
        ONNX_CHECK_ERROR },
      { "node 0 (onnx::Upsample)", "Upsample is deprecated at opset 11 (since opset 10)", ONNX_CHECK_ERROR },
      { "node 1 (onnx::Clip)", "unknown attribute 'max' for Clip-11", ONNX_CHECK_ERROR },
      { "node 1 (onnx::Clip)", "unknown attribute 'min' for Clip-11", ONNX_CHECK_ERROR },
    };
    assert_problems (p, e, G_N_ELEMENTS (e));
  }
  {
    /* The same Clip is right at opset 9, and an opset newer than the table
     * is a warning. */
    g_autoptr(Graph) g = graph_new ();
    graph_set_opset (g, "", 9);
    GraphValue *x = graph_add_input (g, "x", f4);
    graph_op (g, "Clip", x, "min_f", 0.0, "max_f", 6.0, NULL);
    g_autoptr(GPtrArray) p = onnx_check_graph (g, NULL);
    g_assert_cmpuint (p->len, ==, 0);
    graph_set_opset (g, "", 99);
    g_autoptr(GPtrArray) p2 = onnx_check_graph (g, NULL);
    const Expect e[] = {
      { "model", "opset 99 is newer than the schemas", ONNX_CHECK_WARNING },
      { "node 0 (onnx::Clip)", "unknown attribute 'max' for Clip-13", ONNX_CHECK_ERROR },
      { "node 0 (onnx::Clip)", "unknown attribute 'min' for Clip-13", ONNX_CHECK_ERROR },
    };
    assert_problems (p2, e, G_N_ELEMENTS (e));
  }
}

/* ---- the CLI ---- */

static char *
cli_path (void)
{
  const char *build = g_getenv ("SYMONNX_BUILD_ROOT");
  return g_build_filename (build ? build : ".", "tools", "symonnx", NULL);
}

static int
run_cli (const char *const *args, char **out)
{
  g_autofree char *cli = cli_path ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, cli);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, &err,
                     &status, &error))
    g_error ("cannot run %s: %s", cli, error->message);
  if (err && *err)
    g_test_message ("stderr: %s", err);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_cli (void)
{
  g_autofree char *cli = cli_path ();
  if (!g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("tools/symonnx is not built");
      return;
    }
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("symonnx-check-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *bad_dir = g_build_filename (dir, "bad", NULL);
  g_autofree char *bad = g_build_filename (bad_dir, "model.onnx", NULL);
  g_autofree char *good = g_build_filename (dir, "good.onnx", NULL);
  g_assert_cmpint (g_mkdir (bad_dir, 0700), ==, 0);

  /* Written with a use before definition, which onnxio_load refuses: the
   * command still lists everything. */
  g_autoptr(Graph) g = make_broken (TRUE);
  OnnxioSaveOptions as_is;
  onnxio_save_options_init (&as_is);
  as_is.allow_incomplete = TRUE;
  g_assert_true (onnxio_save (g, bad, &as_is, &error));
  g_assert_no_error (error);
  g_autoptr(Graph) refused = onnxio_load (bad, &error);
  g_assert_null (refused);
  g_assert_error (error, ONNXIO_ERROR, ONNXIO_ERROR_PARSE);
  g_clear_error (&error);
  g_autofree char *out = NULL;
  g_assert_cmpint (run_cli ((const char *const[]) { "check", bad, NULL }, &out), ==, 1);
  g_test_message ("%s", out);
  Expect e[G_N_ELEMENTS (broken_expect) + G_N_ELEMENTS (order_expect)];
  memcpy (e, broken_expect, sizeof broken_expect);
  memcpy (e + G_N_ELEMENTS (broken_expect), order_expect, sizeof order_expect);
  for (guint i = 0; i < G_N_ELEMENTS (e); i++)
    {
      g_autofree char *line = g_strdup_printf ("%s: %s: ", bad,
                                               e[i].severity == ONNX_CHECK_ERROR ? "error" : "warning");
      const char *at = strstr (out, line);
      gboolean found = FALSE;
      for (; at && !found; at = strstr (at + 1, line))
        {
          const char *eol = strchr (at, '\n');
          g_autofree char *l = g_strndup (at, eol ? (gsize) (eol - at) : strlen (at));
          found = strstr (l, e[i].where) && strstr (l, e[i].message);
        }
      if (!found)
        g_error ("CLI output lacks '%s' ... '%s'", e[i].where, e[i].message);
    }
  /* less the warning and the second line about 'too_new' */
  g_autofree char *summary = g_strdup_printf ("%s: %u errors, 1 warning (18 nodes)", bad,
                                              (guint) G_N_ELEMENTS (e) - 2);
  g_assert_nonnull (strstr (out, summary));

  /* onnx.checker rejects that model too. */
  const char *const vargs[] = { dir, NULL };
  g_autofree char *verdict = run_python ("onnx_check_verdicts.py", vargs);
  if (verdict != NULL)
    {
      g_test_message ("onnx.checker: %s", verdict);
      g_autofree char *want = g_strdup_printf ("%s\tbad\t", bad);
      g_assert_true (g_str_has_prefix (verdict, want));
    }

  /* The warning alone does not fail; --strict makes it an error. */
  g_autoptr(Graph) ok = graph_new ();
  graph_set_opset (ok, "", 13);
  graph_set_opset (ok, "mydomain", 1);
  g_autoptr(GraphType) f2 = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 1, (gint64[]) { 2 });
  GraphValue *x = graph_add_input (ok, "x", f2);
  GraphValue *y = graph_op (ok, "mydomain::MyOp", graph_op (ok, "Relu", x, NULL), NULL);
  graph_value_set_type (y, f2);
  graph_add_output (ok, y);
  g_assert_true (onnxio_save (ok, good, NULL, &error));
  g_autofree char *out2 = NULL, *out3 = NULL, *out4 = NULL;
  g_assert_cmpint (run_cli ((const char *const[]) { "check", good, NULL }, &out2), ==, 0);
  g_assert_nonnull (strstr (out2, "0 errors, 1 warning"));
  g_assert_cmpint (run_cli ((const char *const[]) { "check", "--strict", good, NULL }, &out3), ==, 1);
  g_assert_nonnull (strstr (out3, "1 error, 0 warnings"));
  /* Unreadable input: exit 3; no file: usage, exit 2. */
  g_autofree char *missing = g_build_filename (dir, "missing.onnx", NULL);
  g_assert_cmpint (run_cli ((const char *const[]) { "check", missing, NULL }, &out4), ==, 3);
  g_autofree char *out5 = NULL;
  g_assert_cmpint (run_cli ((const char *const[]) { "check", NULL }, &out5), ==, 2);

  g_unlink (bad);
  g_rmdir (bad_dir);
  g_unlink (good);
  g_rmdir (dir);
}

void test_onnx_check_register (void);

void
test_onnx_check_register (void)
{
  g_test_add_func ("/export/onnx-check/schemas-vs-onnx", test_schemas_vs_onnx);
  g_test_add_func ("/export/onnx-check/lookup-vs-onnx", test_lookup_vs_onnx);
  g_test_add_func ("/export/onnx-check/testdata-models", test_testdata_models);
  g_test_add_func ("/export/onnx-check/broken", test_broken);
  g_test_add_func ("/export/onnx-check/opsets", test_opsets);
  g_test_add_func ("/export/onnx-check/cli", test_cli);
}
