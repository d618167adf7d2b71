#include "tests/export/onnxio-testutil.h"

#include <glib/gstdio.h>
#include <sys/wait.h>
#include <string.h>

#define DIFF(...) (g_string_append_printf (why, __VA_ARGS__), FALSE)

static gboolean
str_eq (const char *a, const char *b)
{
  return g_strcmp0 (a, b) == 0;
}

static gboolean
type_eq (const GraphType *a, const GraphType *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return graph_type_equal (a, b);
}

static char *
type_str (const GraphType *t)
{
  return t != NULL ? graph_type_to_string (t) : g_strdup ("(none)");
}

static gboolean
value_eq (const GraphValue *a, const GraphValue *b, const char *where, GString *why)
{
  if (a == NULL || b == NULL)
    return a == b ? TRUE : DIFF ("%s: one value absent\n", where);
  if (!str_eq (graph_value_get_name (a), graph_value_get_name (b)))
    return DIFF ("%s: value name %s vs %s\n", where, graph_value_get_name (a),
                 graph_value_get_name (b));
  if (!type_eq (graph_value_type (a), graph_value_type (b)))
    {
      g_autofree char *ta = type_str (graph_value_type (a));
      g_autofree char *tb = type_str (graph_value_type (b));
      return DIFF ("%s: value %s type %s vs %s\n", where, graph_value_get_name (a), ta, tb);
    }
  Tensor *ia = graph_value_get_initializer (a), *ib = graph_value_get_initializer (b);
  if ((ia == NULL) != (ib == NULL) || (ia != NULL && !tensor_equal (ia, ib)))
    return DIFF ("%s: value %s initializer differs\n", where, graph_value_get_name (a));
  if (ia != NULL && graph_value_initializer_is_input (a) != graph_value_initializer_is_input (b))
    return DIFF ("%s: value %s initializer_is_input differs\n", where, graph_value_get_name (a));
  return TRUE;
}

static gboolean attrs_eq (const GraphNode *a, const GraphNode *b, const char *where, GString *why);

static gboolean
graph_eq (const Graph *a, const Graph *b, const char *where, GString *why)
{
  if (!str_eq (graph_get_name (a), graph_get_name (b)))
    return DIFF ("%s: graph name %s vs %s\n", where, graph_get_name (a), graph_get_name (b));
  if (!str_eq (graph_get_doc_string (a), graph_get_doc_string (b)))
    return DIFF ("%s: graph doc string differs\n", where);
  if (graph_n_inputs (a) != graph_n_inputs (b))
    return DIFF ("%s: %u vs %u inputs\n", where, graph_n_inputs (a), graph_n_inputs (b));
  for (guint i = 0; i < graph_n_inputs (a); i++)
    if (!value_eq (graph_input (a, i), graph_input (b, i), where, why))
      return FALSE;
  if (graph_n_nodes (a) != graph_n_nodes (b))
    return DIFF ("%s: %u vs %u nodes\n", where, graph_n_nodes (a), graph_n_nodes (b));
  for (GraphNode *na = graph_first_node (a), *nb = graph_first_node (b); na != NULL;
       na = graph_node_next (na), nb = graph_node_next (nb))
    {
      g_autofree char *w = g_strdup_printf ("%s: node %s (%s)", where,
                                            graph_node_get_name (na), graph_node_kind (na));
      if (graph_node_kind (na) != graph_node_kind (nb))
        return DIFF ("%s: kind vs %s\n", w, graph_node_kind (nb));
      if (!str_eq (graph_node_get_name (na), graph_node_get_name (nb))
          || !str_eq (graph_node_get_doc_string (na), graph_node_get_doc_string (nb)))
        return DIFF ("%s: name/doc string differ\n", w);
      if (graph_node_n_inputs (na) != graph_node_n_inputs (nb)
          || graph_node_n_outputs (na) != graph_node_n_outputs (nb))
        return DIFF ("%s: input/output counts differ\n", w);
      for (guint i = 0; i < graph_node_n_inputs (na); i++)
        {
          GraphValue *va = graph_node_input (na, i), *vb = graph_node_input (nb, i);
          if ((va == NULL) != (vb == NULL)
              || (va != NULL && !str_eq (graph_value_get_name (va), graph_value_get_name (vb))))
            return DIFF ("%s: input %u differs\n", w, i);
        }
      for (guint i = 0; i < graph_node_n_outputs (na); i++)
        if (!value_eq (graph_node_output (na, i), graph_node_output (nb, i), w, why))
          return FALSE;
      if (!attrs_eq (na, nb, w, why))
        return FALSE;
    }
  if (graph_n_outputs (a) != graph_n_outputs (b))
    return DIFF ("%s: %u vs %u outputs\n", where, graph_n_outputs (a), graph_n_outputs (b));
  for (guint i = 0; i < graph_n_outputs (a); i++)
    if (!value_eq (graph_output (a, i), graph_output (b, i), where, why))
      return FALSE;
  return TRUE;
}

static gboolean
attrs_eq (const GraphNode *a, const GraphNode *b, const char *where, GString *why)
{
  if (graph_node_n_attrs (a) != graph_node_n_attrs (b))
    return DIFF ("%s: %u vs %u attributes\n", where, graph_node_n_attrs (a), graph_node_n_attrs (b));
  for (guint i = 0; i < graph_node_n_attrs (a); i++)
    {
      const char *name = graph_node_attr_name (a, i);
      GraphAttrKind ka, kb;
      if (graph_node_attr_name (b, i) != name || !graph_node_attr_kind (a, name, &ka)
          || !graph_node_attr_kind (b, name, &kb) || ka != kb)
        return DIFF ("%s: attribute %s name/kind differs\n", where, name);
      gboolean eq = TRUE;
      gsize la = 0, lb = 0;
      switch (ka)
        {
        case GRAPH_ATTR_F:
          { double x, y; graph_node_get_f (a, name, &x); graph_node_get_f (b, name, &y);
            eq = memcmp (&x, &y, sizeof x) == 0; break; }
        case GRAPH_ATTR_I:
          { gint64 x, y; graph_node_get_i (a, name, &x); graph_node_get_i (b, name, &y);
            eq = x == y; break; }
        case GRAPH_ATTR_S:
          { const char *x, *y; graph_node_get_s (a, name, &x, &la); graph_node_get_s (b, name, &y, &lb);
            eq = la == lb && memcmp (x, y, la) == 0; break; }
        case GRAPH_ATTR_T:
          { Tensor *x, *y; graph_node_get_t (a, name, &x); graph_node_get_t (b, name, &y);
            eq = tensor_equal (x, y); break; }
        case GRAPH_ATTR_G:
          { Graph *x, *y; graph_node_get_g (a, name, &x); graph_node_get_g (b, name, &y);
            g_autofree char *w = g_strdup_printf ("%s.%s", where, name);
            if (!graph_eq (x, y, w, why))
              return FALSE;
            break; }
        case GRAPH_ATTR_TP:
          { GraphType *x, *y; graph_node_get_tp (a, name, &x); graph_node_get_tp (b, name, &y);
            eq = type_eq (x, y); break; }
        case GRAPH_ATTR_FS:
          { const double *x, *y; graph_node_get_fs (a, name, &la, &x); graph_node_get_fs (b, name, &lb, &y);
            eq = la == lb && memcmp (x, y, la * sizeof *x) == 0; break; }
        case GRAPH_ATTR_IS:
          { const gint64 *x, *y; graph_node_get_is (a, name, &la, &x); graph_node_get_is (b, name, &lb, &y);
            eq = la == lb && memcmp (x, y, la * sizeof *x) == 0; break; }
        case GRAPH_ATTR_SS:
          { const char *const *x, *const *y; graph_node_get_ss (a, name, &la, &x); graph_node_get_ss (b, name, &lb, &y);
            eq = la == lb; for (gsize k = 0; eq && k < la; k++) eq = str_eq (x[k], y[k]); break; }
        case GRAPH_ATTR_TS:
          { Tensor *const *x, *const *y; graph_node_get_ts (a, name, &la, &x); graph_node_get_ts (b, name, &lb, &y);
            eq = la == lb; for (gsize k = 0; eq && k < la; k++) eq = tensor_equal (x[k], y[k]); break; }
        case GRAPH_ATTR_GS:
          { Graph *const *x, *const *y; graph_node_get_gs (a, name, &la, &x); graph_node_get_gs (b, name, &lb, &y);
            if (la != lb) return DIFF ("%s: attribute %s length differs\n", where, name);
            for (gsize k = 0; k < la; k++)
              { g_autofree char *w = g_strdup_printf ("%s.%s[%" G_GSIZE_FORMAT "]", where, name, k);
                if (!graph_eq (x[k], y[k], w, why)) return FALSE; }
            break; }
        case GRAPH_ATTR_TPS:
          { GraphType *const *x, *const *y; graph_node_get_tps (a, name, &la, &x); graph_node_get_tps (b, name, &lb, &y);
            eq = la == lb; for (gsize k = 0; eq && k < la; k++) eq = type_eq (x[k], y[k]); break; }
        }
      if (!eq)
        return DIFF ("%s: attribute %s value differs\n", where, name);
    }
  return TRUE;
}

gboolean
onnxio_test_graph_equal (const Graph *a, const Graph *b, GString *why)
{
  g_autoptr(GPtrArray) pa = graph_list_properties (a);
  g_autoptr(GPtrArray) pb = graph_list_properties (b);
  if (pa->len != pb->len)
    return DIFF ("model: %u vs %u properties\n", pa->len, pb->len);
  for (guint i = 0; i < pa->len; i++)
    {
      const char *k = g_ptr_array_index (pa, i);
      if (!str_eq (k, g_ptr_array_index (pb, i))
          || !str_eq (graph_get_property (a, k), graph_get_property (b, k)))
        return DIFF ("model: property %s differs (%s vs %s)\n", k, graph_get_property (a, k),
                     graph_get_property (b, k));
    }
  g_autoptr(GPtrArray) da = graph_list_opset_domains (a);
  g_autoptr(GPtrArray) db = graph_list_opset_domains (b);
  if (da->len != db->len)
    return DIFF ("model: %u vs %u opset imports\n", da->len, db->len);
  for (guint i = 0; i < da->len; i++)
    {
      const char *d = g_ptr_array_index (da, i);
      if (!str_eq (d, g_ptr_array_index (db, i)) || graph_get_opset (a, d) != graph_get_opset (b, d))
        return DIFF ("model: opset import \"%s\" differs\n", d);
    }
  return graph_eq (a, b, "main", why);
}

gboolean
onnxio_test_run_python (const char *script, const char *const *args, gboolean *skipped)
{
  *skipped = FALSE;
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      *skipped = TRUE;
      return FALSE;
    }
  const char *root = g_getenv ("SYMONNX_SOURCE_ROOT");
  g_autofree char *path = g_build_filename (root ? root : ".", "tests", "export", script, NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) "/usr/bin/python3");
  g_ptr_array_add (argv, path);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, &err, &status, &error))
    {
      g_test_message ("cannot run %s: %s", path, error->message);
      return FALSE;
    }
  if (out != NULL && *out)
    g_test_message ("%s stdout:\n%s", script, out);
  if (err != NULL && *err)
    g_test_message ("%s stderr:\n%s", script, err);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      *skipped = TRUE;   /* the script's "python3-onnx is missing" */
      return FALSE;
    }
  return g_spawn_check_wait_status (status, NULL);
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
onnxio_test_list_models (void)
{
  static const char *const dirs[] = { "node", "pytorch-converted", "pytorch-operator", "simple" };
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autofree char *top = g_build_filename (ONNXIO_TESTDATA, dirs[d], NULL);
      g_autoptr(GDir) dir = g_dir_open (top, 0, NULL);
      if (dir == NULL)
        continue;
      const char *e;
      while ((e = g_dir_read_name (dir)) != NULL)
        {
          char *m = g_build_filename (top, e, "model.onnx", NULL);
          if (g_file_test (m, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add (out, m);
          else
            g_free (m);
        }
    }
  g_ptr_array_sort (out, cmp_str);
  return out;
}

char *
onnxio_test_mkdtemp (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("symonnx-onnxio-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

void
onnxio_test_rmtree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  if (d != NULL)
    {
      const char *e;
      while ((e = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (dir, e, NULL);
          if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
            onnxio_test_rmtree (p);
          else
            g_unlink (p);
        }
    }
  g_rmdir (dir);
}
