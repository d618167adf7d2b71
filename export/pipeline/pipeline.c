/* The export pipeline driver: inputs, the symbolic pass, outputs, passes. */
#include "export/export.h"
#include "symbolic/translate.h"
#include "export/onnx-check.h"
#include "export/pipeline/view-mutation.h"
#include "export/pipeline/shapes-private.h"
#include <string.h>

G_DEFINE_QUARK (export-error-quark, export_error)

void
export_options_init (ExportOptions *o)
{
  memset (o, 0, sizeof *o);
  o->opset = SYM_OPSET_DEFAULT;
  o->mode = SYM_MODE_ONNX;
  o->do_constant_folding = TRUE;
  o->export_params = TRUE;
  o->check = TRUE;
  o->default_dtype = GRAPH_DTYPE_FLOAT;
}

void
export_options_clear (ExportOptions *o)
{
  if (o->dynamic_axes)
    {
      for (guint i = 0; i < o->dynamic_axes->len; i++)
        {
          ExportDynamicAxis *a = &g_array_index (o->dynamic_axes, ExportDynamicAxis, i);
          g_free ((char *) a->name);
          g_free ((char *) a->symbol);
        }
      g_array_unref (o->dynamic_axes);
      o->dynamic_axes = NULL;
    }
}

void
export_options_add_dynamic_axis (ExportOptions *o, const char *name, gint64 axis, const char *symbol)
{
  if (o->dynamic_axes == NULL)
    o->dynamic_axes = g_array_new (FALSE, FALSE, sizeof (ExportDynamicAxis));
  ExportDynamicAxis a = { g_strdup (name), axis,
                          symbol ? g_strdup (symbol)
                                 : g_strdup_printf ("%s_dynamic_axes_%u", name,
                                                    o->dynamic_axes->len + 1) };
  g_array_append_val (o->dynamic_axes, a);
}

gboolean
export_options_parse_dynamic_axes (ExportOptions *o, const char *spec, GError **error)
{
  g_auto (GStrv) items = g_strsplit (spec, ",", -1);
  for (guint i = 0; items[i]; i++)
    {
      char *item = g_strstrip (items[i]);
      if (*item == '\0')
        continue;
      char *colon = strrchr (item, ':');
      char *eq = colon ? strchr (colon, '=') : NULL;
      if (colon == NULL || colon == item)
        {
          g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS,
                       "dynamic axes '%s': expected NAME:AXIS=SYMBOL", item);
          return FALSE;
        }
      *colon = '\0';
      if (eq)
        *eq = '\0';
      char *end = NULL;
      gint64 axis = g_ascii_strtoll (colon + 1, &end, 10);
      if (end == colon + 1 || *end != '\0' || axis < 0 || axis >= TENSOR_MAX_RANK)
        {
          g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS,
                       "dynamic axes for '%s': axis '%s' is not an integer in 0..%d", item,
                       colon + 1, TENSOR_MAX_RANK - 1);
          return FALSE;
        }
      if (eq && eq[1] == '\0')
        {
          g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS,
                       "dynamic axes for '%s': empty symbol after '='", item);
          return FALSE;
        }
      export_options_add_dynamic_axis (o, item, axis, eq ? eq + 1 : NULL);
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */

static gboolean
is_module_input (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  return t && graph_type_kind (t) == GRAPH_TYPE_CLASS;
}


/* Whether v depends on a node that failed (through lazily lowered nodes). */
static gboolean
poisoned (GHashTable *bad, GraphValue *v, guint depth)
{
  if (v == NULL || depth > 64)
    return FALSE;
  if (g_hash_table_contains (bad, v))
    return TRUE;
  GraphNode *p = graph_value_node (v);
  if (p == NULL || !sym_context_is_lazy (p))
    return FALSE;
  for (guint i = 0; i < graph_node_n_inputs (p); i++)
    if (poisoned (bad, graph_node_input (p, i), depth + 1))
      return TRUE;
  return FALSE;
}

/* The ONNX type of a trace input (or of one tuple element type `elem`). */
static GraphType *
input_type (GraphValue *v, GraphType *elem)
{
  GraphType *t = elem ? elem : graph_value_type (v);
  if (t == NULL || graph_type_kind (t) != GRAPH_TYPE_TENSOR)
    return NULL;
  int rank = graph_type_rank (t);
  GraphDim dims[TENSOR_MAX_RANK];
  for (int i = 0; i < rank && i < TENSOR_MAX_RANK; i++)
    dims[i] = *graph_type_dim (t, (guint) i);
  return graph_type_new_tensor (graph_type_dtype (t), rank, rank > 0 ? dims : NULL);
}

/* input_names[i], or NULL past the end of the list. */
static const char *
input_name_at (const char *const *names, guint i)
{
  for (guint k = 0; names[k]; k++)
    if (k == i)
      return names[k];
  return NULL;
}

/* Note [Quantized graph inputs and outputs]
 * torch.onnx passes a quantized tensor in and out of the model as three
 * ONNX values (torch.onnx.utils.unpack_quantized_tensor): its integers
 * (NAME_value, uint8/int8/int32 of the tensor's shape), its scale
 * (NAME_scale, a double scalar) and its zero point (NAME_zero_point, an
 * int64 scalar); input_names and output_names name each of the three.  An
 * input is Cast to the float scale and the integers' zero-point type that
 * DequantizeLinear takes, as torch's first use of it does, and recorded as
 * a quantized value (Note [Quantized values]); a quantized output gives its
 * integers, its float scale and its zero point.  Only per-tensor
 * quantization can be passed so (a per-channel tensor has no q_scale()):
 * the Python front end refuses a per-channel input, as torch does. */
static void
add_quantized_input (SymContext *ctx, Graph *dst, GraphValue *in, const char *const *input_names,
                     guint *named)
{
  static const char *const suffix[3] = { "value", "scale", "zero_point" };
  GraphType *t = graph_value_type (in);
  g_autoptr (GraphType) vt = input_type (in, NULL);
  g_autoptr (GraphType) st = graph_type_new_tensor (GRAPH_DTYPE_DOUBLE, 0, NULL);
  g_autoptr (GraphType) zt = graph_type_new_tensor (GRAPH_DTYPE_INT64, 0, NULL);
  GraphType *types[3] = { vt, st, zt };
  GraphValue *v[3];
  for (guint k = 0; k < 3; k++)
    {
      const char *name = input_names ? input_name_at (input_names, *named) : NULL;
      (*named)++;
      g_autofree char *owned = NULL;
      if (name == NULL)
        {
          const char *base = graph_value_get_name (in);
          name = owned = base ? g_strdup_printf ("%s_%s", base, suffix[k])
                              : g_strdup_printf ("input.%u_%s", graph_value_id (in), suffix[k]);
        }
      v[k] = graph_add_input (dst, name, types[k]);
    }
  SymQuantized q = {
    .value = v[0],
    .scale = sym_cast (ctx, v[1], GRAPH_DTYPE_FLOAT),
    .zero_point = sym_cast (ctx, v[2], graph_type_dtype (t)),
    .axis = -1,
  };
  sym_map_value (ctx, in, v[0]);
  sym_quantized_record (ctx, in, &q);
}

/* Flattens tuple, list and dict outputs into dst values, as torch does: a
 * dict gives its values in insertion order (a segmentation model's "out"
 * and "aux"; a detection model's list of {boxes, labels, scores}). */
static gboolean
collect_outputs (SymContext *ctx, GraphValue *src, GPtrArray *out, GError **error)
{
  GraphNode *p = graph_value_node (src);
  if (p && graph_node_is (p, "prim::DictConstruct"))
    {
      for (guint i = 1; i < graph_node_n_inputs (p); i += 2)
        if (!collect_outputs (ctx, graph_node_input (p, i), out, error))
          return FALSE;
      return TRUE;
    }
  if (p && (graph_node_is (p, "prim::TupleConstruct") || graph_node_is (p, "prim::ListConstruct")))
    {
      GraphType *t = graph_value_type (src);
      GraphType *et = t && graph_type_n_elems (t) == 1 ? graph_type_elem (t, 0) : NULL;
      gboolean tensor_list = graph_node_is (p, "prim::TupleConstruct")
                             || (et && (graph_type_is_tensor (et) || graph_type_kind (et) == GRAPH_TYPE_DICT));
      if (tensor_list)
        {
          for (guint i = 0; i < graph_node_n_inputs (p); i++)
            if (!collect_outputs (ctx, graph_node_input (p, i), out, error))
              return FALSE;
          return TRUE;
        }
    }
  GPtrArray *elems = sym_context_list_elements (ctx, src);
  if (elems)
    {
      for (guint i = 0; i < elems->len; i++)
        g_ptr_array_add (out, elems->pdata[i]);
      return TRUE;
    }
  const SymQuantized *q = sym_quantized_lookup (ctx, src);
  if (q)
    {
      /* Note [Quantized graph inputs and outputs] */
      g_ptr_array_add (out, q->value);
      g_ptr_array_add (out, sym_dtype (q->scale) == GRAPH_DTYPE_FLOAT
                              ? q->scale : sym_cast (ctx, q->scale, GRAPH_DTYPE_FLOAT));
      g_ptr_array_add (out, q->zero_point);
      return TRUE;
    }
  GError *local = NULL;
  GraphValue *v = sym_value (ctx, src, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (v == NULL)
    {
      g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH, "a graph output is None");
      return FALSE;
    }
  g_ptr_array_add (out, v);
  return TRUE;
}

/* One failing node: its message and what to do, on one line.  Several: a
 * header line, one line per node, then each distinct hint once. */
static char *
summarise (GPtrArray *messages, GPtrArray *kinds, GPtrArray *hints, SymMode mode, int opset)
{
  GString *s = g_string_new (NULL);
  if (messages->len == 1)
    g_string_append (s, messages->pdata[0]);
  else
    {
      g_string_append_printf (s, "%s export failed at opset %d: %u nodes could not be exported (",
                              mode == SYM_MODE_ONNX ? "ONNX" : sym_mode_name (mode), opset,
                              messages->len);
      for (guint i = 0; i < kinds->len; i++)
        g_string_append_printf (s, "%s%s", i ? ", " : "", (const char *) kinds->pdata[i]);
      g_string_append (s, "):");
      for (guint i = 0; i < messages->len; i++)
        {
          const char *m = messages->pdata[i];
          if (g_str_has_prefix (m, "ONNX export failed: "))
            m += strlen ("ONNX export failed: ");
          g_string_append_printf (s, "\n  %s", m);
        }
    }
  for (guint i = 0; i < hints->len; i++)
    g_string_append_printf (s, "%s%s", messages->len == 1 && i == 0 ? "; " : "\n", (const char *) hints->pdata[i]);
  return g_string_free (s, FALSE);
}

void
export_origin_free (ExportOrigin *origin)
{
  if (origin == NULL)
    return;
  g_ptr_array_unref (origin->onnx_values);
  g_free (origin);
}

/* An origin whose onnx_values still hold GraphValue pointers of the graph
 * being built (resolved to names at the end: see origins_to_names). */
static GraphNode *trace_node_of (GHashTable *back, GraphNode *n);

static void
record_origins (SymContext *ctx, const Graph *trace, GHashTable *back, GPtrArray *origins)
{
  graph_foreach_node ((Graph *) trace, n)
    {
      const char *sym = sym_context_node_origin (ctx, n);
      if (sym == NULL || trace_node_of (back, n) == NULL)
        continue;
      ExportOrigin *o = g_new0 (ExportOrigin, 1);
      o->trace_node = trace_node_of (back, n);
      o->symbolic = sym;
      o->onnx_values = g_ptr_array_new ();
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        g_ptr_array_add (o->onnx_values, sym_context_mapped (ctx, graph_node_output (n, i)));
      g_ptr_array_add (origins, o);
    }
}

/* Each kept GraphValue pointer → the name of the live value standing for
 * it after the passes (NULL when gone). */
static void
origins_to_names (GPtrArray *origins)
{
  for (guint i = 0; i < origins->len; i++)
    {
      ExportOrigin *o = origins->pdata[i];
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < o->onnx_values->len; k++)
        {
          GraphValue *v = o->onnx_values->pdata[k];
          v = v ? graph_value_resolve (v) : NULL;
          g_ptr_array_add (names, v && graph_value_get_name (v) ? g_strdup (graph_value_get_name (v)) : NULL);
        }
      g_ptr_array_unref (o->onnx_values);
      o->onnx_values = names;
    }
}

/* ---- dynamic axes -------------------------------------------------------- */

static GraphType *
type_with_dim (GraphType *t, gint64 axis, const char *symbol)
{
  int rank = graph_type_rank (t);
  GraphDim dims[TENSOR_MAX_RANK];
  for (int i = 0; i < rank; i++)
    dims[i] = *graph_type_dim (t, (guint) i);
  dims[axis].kind = GRAPH_DIM_SYMBOLIC;
  dims[axis].symbol = symbol;
  dims[axis].value = 0;
  return graph_type_new_tensor (graph_type_dtype (t), rank, dims);
}

static GraphValue *
find_io (Graph *g, const char *name, gboolean inputs)
{
  guint n = inputs ? graph_n_inputs (g) : graph_n_outputs (g);
  for (guint i = 0; i < n; i++)
    {
      GraphValue *v = inputs ? graph_input (g, i) : graph_output (g, i);
      if (g_strcmp0 (graph_value_get_name (v), name) == 0)
        return v;
    }
  return NULL;
}

/* Writes each dynamic axis of g's inputs (or outputs) as its symbol, and
 * adds the values changed to `changed`.  A name that is neither an input
 * nor an output, and an output's axis past its rank, are ignored with a
 * warning, as torch.onnx.export does (PyTorch's suite,
 * test_slice_dynamic_to_end). */
static gboolean
set_dynamic_dims (Graph *g, const ExportOptions *o, gboolean inputs, GHashTable *changed,
                  GPtrArray *warnings, GError **error)
{
  for (guint i = 0; o->dynamic_axes && i < o->dynamic_axes->len; i++)
    {
      ExportDynamicAxis *a = &g_array_index (o->dynamic_axes, ExportDynamicAxis, i);
      GraphValue *v = find_io (g, a->name, inputs);
      if (v == NULL)
        {
          /* Outputs are named after the passes: checked in the output phase. */
          if (inputs || find_io (g, a->name, TRUE))
            continue;
          gboolean said = FALSE;   /* once per name */
          for (guint j = 0; j < i; j++)
            said = said || strcmp (g_array_index (o->dynamic_axes, ExportDynamicAxis, j).name, a->name) == 0;
          if (!said && warnings)
            g_ptr_array_add (warnings, g_strdup_printf ("dynamic axes name '%s' is neither an input nor an "
                                                        "output: ignored, as torch.onnx.export does", a->name));
          continue;
        }
      GraphType *t = graph_value_type (v);
      if (!inputs && warnings && t && graph_type_is_tensor (t) && graph_type_rank (t) >= 0
          && a->axis >= graph_type_rank (t))
        {
          /* an output's axis past its rank: ignored, as torch.onnx.export
           * does (an input's is an error: its dims are the model's contract) */
          g_ptr_array_add (warnings, g_strdup_printf ("dynamic axis %" G_GINT64_FORMAT " of the output '%s' is "
                                                      "out of its rank (%d): ignored, as torch.onnx.export does",
                                                      a->axis, a->name, graph_type_rank (t)));
          continue;
        }
      if (t == NULL || !graph_type_is_tensor (t) || a->axis >= graph_type_rank (t))
        {
          g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS,
                       "dynamic axis %" G_GINT64_FORMAT " of '%s' is out of its rank (%d)",
                       a->axis, a->name, t ? graph_type_rank (t) : -1);
          return FALSE;
        }
      g_autoptr (GraphType) nt = type_with_dim (t, a->axis, g_intern_string (a->symbol));
      graph_value_set_type (v, nt);
      g_hash_table_add (changed, v);
    }
  return TRUE;
}

static gboolean
apply_dynamic_axes (Graph *g, const ExportOptions *o, gboolean inputs, GPtrArray *warnings, GError **error)
{
  if (o->dynamic_axes == NULL)
    return TRUE;
  g_autoptr (GHashTable) tainted = g_hash_table_new (NULL, NULL);
  if (!set_dynamic_dims (g, o, inputs, tainted, warnings, error))
    return FALSE;
  if (!inputs || g_hash_table_size (tainted) == 0)
    return TRUE;
  /* Downstream of a dynamic input the traced dims no longer hold: shapes
   * are computed again from the symbolic input dims (after the passes that
   * follow translation; see Note [Dynamic axes during translation]). */
  export_infer_shapes (g, tainted);
  return TRUE;
}

/* Each node of copy (graph_copy of orig, not yet rewritten) → orig's node
 * in the same place, blocks included. */
static void
map_copied_nodes (Graph *copy, const Graph *orig, GHashTable *back)
{
  GraphNode *o = graph_first_node (orig);
  for (GraphNode *c = graph_first_node (copy); c && o; c = graph_node_next (c), o = graph_node_next (o))
    {
      g_hash_table_insert (back, c, o);
      for (guint a = 0; a < graph_node_n_attrs (c); a++)
        {
          const char *name = graph_node_attr_name (c, a);
          Graph *one, *const *subs, *oone, *const *osubs;
          gsize len = graph_node_attr_subgraphs (c, name, &one, &subs);
          gsize olen = graph_node_attr_subgraphs (o, name, &oone, &osubs);
          for (gsize k = 0; k < len && k < olen; k++)
            map_copied_nodes (subs[k], osubs[k], back);
        }
    }
}

/* The trace node a node of the translated graph stands for. */
static GraphNode *
trace_node_of (GHashTable *back, GraphNode *n)
{
  return back ? g_hash_table_lookup (back, n) : n;
}

/* Runs the symbolic pass into a new graph; failing nodes are collected in
 * kinds/messages (and what to do about them, each once, in hints) and the
 * result is NULL when there are any.  `origin` (may be NULL) maps each new
 * node to the trace node whose symbolic made it; with `origins`, records
 * where each translated node went (for verify --localize). */
static Graph *
translate (const Graph *trace, const ExportOptions *o, GPtrArray *kinds, GPtrArray *messages,
           GPtrArray *hints, GHashTable *origin, GPtrArray *origins, GError **error)
{
  /* Lists changed in place (Note [List mutations], symbolic/list-mutations.c)
   * and module attributes written in forward (Note [Module attributes written
   * in forward], symbolic/module-attrs.c):
   * translated from a copy of the trace with the changes folded in; origins
   * still name the caller's trace nodes. */
  g_autoptr (Graph) folded = NULL;
  g_autoptr (GHashTable) back = NULL;
  g_autoptr (GHashTable) whys = NULL;
  if (!sym_check_structural_arity (trace, error))   /* Note [Arity of structural nodes] */
    return NULL;
  gboolean lists = sym_graph_has_list_mutations (trace), attrs = sym_graph_has_set_attrs (trace);
  if (lists || attrs)
    {
      folded = graph_copy (trace);
      back = g_hash_table_new (NULL, NULL);
      whys = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      map_copied_nodes (folded, trace, back);
      /* attributes first: a list may be built from what one holds */
      if (attrs)
        sym_fold_set_attrs (folded, back, o->weights);   /* Note [Module attributes written in forward] */
      if (lists)
        sym_fold_list_mutations (folded, whys);
      trace = folded;
    }
  g_autoptr (Graph) dst = graph_new ();
  g_autoptr (SymRegistry) reg = o->registry ? sym_registry_ref (o->registry) : sym_registry_new ();
  SymContextSetup setup = {
    .reg = reg, .src = (Graph *) trace, .dst = dst, .opset = o->opset, .mode = o->mode,
    .weights = o->weights, .require_weights = o->export_params,
    .infer_node = export_infer_node_types,
    .after_node = export_view_mutation,
    .dynamic_axes = o->dynamic_axes && o->dynamic_axes->len > 0,
    .training = o->training,
    .list_whys = whys,
    .default_dtype = o->default_dtype,
    .float_quantized_add = o->float_quantized_add,
  };
  g_autoptr (SymContext) ctx = sym_context_new (&setup);
  graph_set_opset (dst, "", o->opset);

  /* Graph inputs: names from input_names, else the trace's.  A tuple of
   * tensors is flattened into one input per element (as torch does), named
   * NAME_0, NAME_1... unless input_names says otherwise. */
  guint named = 0;
  for (guint i = 0; i < graph_n_inputs (trace); i++)
    {
      GraphValue *in = graph_input (trace, i);
      if (is_module_input (in))
        continue;
      GraphType *t = graph_value_type (in);
      gboolean tuple = t && graph_type_kind (t) == GRAPH_TYPE_TUPLE;
      for (guint k = 0; tuple && k < graph_type_n_elems (t); k++)
        tuple = graph_type_elem (t, k) && graph_type_kind (graph_type_elem (t, k)) == GRAPH_TYPE_TENSOR;
      if (t && graph_type_kind (t) != GRAPH_TYPE_TENSOR && !tuple)
        {
          g_autofree char *ts = graph_type_to_string (t);
          g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH,
                       "graph input %%%s is not a tensor (%s); only tensor inputs and tuples "
                       "of tensors can be exported%s",
                       graph_value_get_name (in) ? graph_value_get_name (in) : "?", ts,
                       graph_type_kind (t) == GRAPH_TYPE_FLOAT
                         ? " (a scripted forward's float argument: PyTorch computes with it in the "
                           "precision of the tensor it meets, which a float64 input cannot give)"
                         : "");
          return NULL;
        }
      if (graph_type_is_quantized (t))
        {
          add_quantized_input (ctx, dst, in, o->input_names, &named);
          continue;
        }
      guint n_elems = tuple ? graph_type_n_elems (t) : 1;
      g_autoptr (GPtrArray) elems = g_ptr_array_new ();
      for (guint k = 0; k < n_elems; k++)
        {
          GraphValue *src = tuple ? NULL : in;
          const char *name = o->input_names ? input_name_at (o->input_names, named) : NULL;
          named++;
          g_autofree char *owned = NULL;
          if (name == NULL)
            {
              const char *base = graph_value_get_name (in);
              if (base == NULL)
                base = owned = g_strdup_printf ("input.%u", graph_value_id (in));
              name = base;
              if (tuple)
                name = owned = g_strdup_printf ("%s_%u", base, k);
            }
          g_autoptr (GraphType) ty = input_type (tuple ? NULL : in, tuple ? graph_type_elem (t, k) : NULL);
          GraphValue *v = graph_add_input (dst, name, ty);
          if (src)
            sym_map_value (ctx, src, v);
          g_ptr_array_add (elems, v);
        }
      if (tuple)
        sym_context_set_list_elements (ctx, in, elems->len, (GraphValue *const *) elems->pdata);
    }

  /* Note [Dynamic axes during translation]
   * A dim the user declared dynamic must not reach a symbolic as the
   * traced size: the graph inputs get their symbols first, and after each
   * source node the shapes of the nodes it became are propagated (as
   * torch's ONNX shape inference runs node by node during its pass), so
   * sym_static_shape() says "not static" for every value computed from a
   * dynamic dim, and the symbolic emits the run-time form or refuses. */
  g_autoptr (GHashTable) dyn_inputs = g_hash_table_new (NULL, NULL);
  if (!set_dynamic_dims (dst, o, TRUE, dyn_inputs, NULL, error))
    return NULL;
  g_autoptr (ExportShapeProp) prop = g_hash_table_size (dyn_inputs) > 0
                                       ? export_shape_prop_new (dst, dyn_inputs, FALSE) : NULL;

  g_autoptr (GHashTable) bad = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) seen_kinds = g_hash_table_new (NULL, NULL);
  graph_foreach_node ((Graph *) trace, n)
    {
      gboolean skip = FALSE;
      for (guint i = 0; i < graph_node_n_inputs (n) && !skip; i++)
        skip = poisoned (bad, graph_node_input (n, i), 0);
      g_autoptr (GError) local = NULL;
      GraphNode *mark = graph_last_node (dst);
      if (!skip && sym_context_translate (ctx, n, &local))
        {
          if (prop)
            export_shape_prop_nodes (prop, mark ? graph_node_next (mark) : graph_first_node (dst));
          for (GraphNode *m = mark ? graph_node_next (mark) : graph_first_node (dst);
               origin && trace_node_of (back, n) && m; m = graph_node_next (m))
            g_hash_table_insert (origin, m, trace_node_of (back, n));
          continue;
        }
      for (guint i = 0; i < graph_node_n_outputs (n); i++)
        g_hash_table_add (bad, graph_node_output (n, i));
      if (skip)
        continue;
      /* A Python operator is listed under its Function's name, the key a
       * symbolic for it is registered as. */
      const char *kind = graph_node_kind (n);
      const char *py;
      gsize py_len;
      if (graph_node_is (n, GRAPH_KIND_PYTHON_OP)
          && graph_node_get_s (n, GRAPH_PYTHON_OP_NAME_ATTR, &py, &py_len))
        {
          g_autofree char *key = g_strdup_printf ("%s::%.*s", GRAPH_KIND_PYTHON_OP, (int) py_len, py);
          kind = g_intern_string (key);
        }
      if (!g_hash_table_contains (seen_kinds, kind))
        {
          g_hash_table_add (seen_kinds, (gpointer) kind);
          g_ptr_array_add (kinds, (gpointer) kind);
        }
      g_ptr_array_add (messages, g_strdup (local->message));
      const char *h = sym_unsupported_hint (kind);
      if (g_error_matches (local, SYM_ERROR, SYM_ERROR_UNSUPPORTED)
          && !g_ptr_array_find (hints, h, NULL))
        g_ptr_array_add (hints, (gpointer) h);
    }
  if (messages->len > 0)
    return NULL;
  if (origins)
    record_origins (ctx, trace, back, origins);

  /* Graph outputs, tuples flattened. */
  g_autoptr (GPtrArray) outs = g_ptr_array_new ();
  for (guint i = 0; i < graph_n_outputs (trace); i++)
    if (!collect_outputs (ctx, graph_output (trace, i), outs, error))
      return NULL;
  g_autoptr (GHashTable) used = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < outs->len; i++)
    {
      GraphValue *v = outs->pdata[i];
      /* An input, a weight or a value already returned gets an Identity so
       * every output has its own name (as torch does). */
      if (graph_value_node (v) == NULL || g_hash_table_contains (used, v)
          || graph_node_is (graph_value_node (v), "onnx::Constant"))
        {
          GraphValue *id = graph_op (dst, "Identity", v, NULL);
          if (graph_value_type (v))
            graph_value_set_type (id, graph_value_type (v));
          v = id;
        }
      g_hash_table_add (used, v);
      graph_add_output (dst, v);
    }
  return g_steal_pointer (&dst);
}

/* ---- custom domains ------------------------------------------------------ */

static void
import_domains (Graph *g, SymRegistry *reg)
{
  graph_foreach_node (g, n)
    {
      const char *dom = graph_node_domain (n);
      if (strcmp (dom, GRAPH_ONNX_DOMAIN) == 0)
        continue;
      if (graph_get_opset (g, dom) >= 0)
        continue;
      gint64 v = strcmp (dom, GRAPH_ATEN_DOMAIN) == 0 ? 1 : reg ? sym_registry_get_domain_version (reg, dom) : 1;
      graph_set_opset (g, dom, v);
    }
}

static void
name_outputs (Graph *g, const ExportOptions *o)
{
  guint k = 0;
  for (guint i = 0; i < graph_n_outputs (g); i++)
    {
      const char *name = NULL;
      if (o->output_names)
        {
          k = 0;
          while (o->output_names[k] && k < i)
            k++;
          if (k == i)
            name = o->output_names[k];
        }
      g_autofree char *dflt = i == 0 ? g_strdup ("output") : g_strdup_printf ("output_%u", i);
      graph_value_set_name (graph_output (g, i), name ? name : dflt);
    }
}

/* "made by the symbolic for aten::sigmoid (node %3, at f.py:7:0)" */
static char *
origin_desc (GHashTable *origin, const GraphNode *n)
{
  GraphNode *src = n ? g_hash_table_lookup (origin, n) : NULL;
  if (src == NULL)
    return g_strdup ("");
  const char *kind = graph_node_kind (src);
  const char *name;
  gsize len;
  g_autofree char *py = NULL;
  if (graph_node_is (src, GRAPH_KIND_PYTHON_OP)
      && graph_node_get_s (src, GRAPH_PYTHON_OP_NAME_ATTR, &name, &len))
    kind = py = g_strdup_printf ("%s::%.*s", GRAPH_KIND_PYTHON_OP, (int) len, name);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, " [made by the symbolic for %s", kind);
  GraphValue *o = graph_node_n_outputs (src) ? graph_node_output (src, 0) : NULL;
  if (o && graph_value_get_name (o))
    g_string_append_printf (s, ", node %%%s", graph_value_get_name (o));
  if (graph_node_get_source (src))
    g_string_append_printf (s, ", at %s", graph_node_get_source (src));
  g_string_append (s, "]");
  return g_string_free (s, FALSE);
}

/* The model checker on the result (export/onnx-check.h): in ONNX mode an
 * error fails the export, naming each bad node and the symbolic that made
 * it; in the other modes (whose ATen and copied nodes are the user's
 * choice) the problems become warnings. */
static gboolean
check_result (const Graph *g, const ExportOptions *o, GHashTable *origin, GPtrArray *warnings,
              GError **error)
{
  g_autoptr (GPtrArray) problems = onnx_check_graph (g, NULL);
  g_autoptr (GString) msg = g_string_new (NULL);
  guint n_errors = 0;
  for (guint i = 0; i < problems->len; i++)
    {
      const OnnxCheckProblem *p = problems->pdata[i];
      if (p->severity != ONNX_CHECK_ERROR)
        continue;   /* custom domains: the user registered them */
      g_autofree char *text = onnx_check_problem_to_string (p);
      g_autofree char *from = origin_desc (origin, p->node);
      if (o->mode != SYM_MODE_ONNX)
        {
          if (warnings)
            g_ptr_array_add (warnings, g_strdup_printf ("%s%s", text, from));
          continue;
        }
      g_string_append_printf (msg, "\n  %s%s", text, from);
      n_errors++;
    }
  if (n_errors == 0)
    return TRUE;
  g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_CHECK,
               "the exported model fails the ONNX checker (%u error%s; a symbolic function "
               "built a node ONNX does not define):%s", n_errors, n_errors == 1 ? "" : "s",
               msg->str);
  return FALSE;
}

/* ONNX declares every graph output's element type and rank: an output the
 * export could not type (scripted code whose If branches return tensors of
 * different ranks, PyTorch's test_floating_point_infer_dtype) is refused
 * here, naming the node that made it, not later by the file writer.  torch
 * 1.13 declares the rank of the output its example run gave, which does
 * not hold for inputs that take the other branch.  (ONNX mode: in the ATen
 * modes an ATen node's output has no type, and the graph may still run in
 * memory; the file writer refuses such an output.) */
static gboolean
check_output_types (const Graph *g, GHashTable *origin, GError **error)
{
  for (guint i = 0; i < graph_n_outputs (g); i++)
    {
      GraphValue *v = graph_output (g, i);
      GraphType *t = graph_value_type (v);
      if (t && (!graph_type_is_tensor (t)
                || (graph_type_dtype (t) != GRAPH_DTYPE_UNDEFINED && graph_type_rank (t) >= 0)))
        continue;
      GraphNode *p = graph_value_node (v);
      g_autofree char *from = origin_desc (origin, p);
      const char *name = graph_value_get_name (v);
      gboolean branches = p && graph_node_is (p, "onnx::If");
      g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED,
                   "graph output %u '%s' has no known %s%s: ONNX declares the element type and "
                   "rank of every graph output%s", i, name ? name : "?",
                   t && graph_type_dtype (t) != GRAPH_DTYPE_UNDEFINED ? "rank" : "element type or rank",
                   from, branches ? " (this If's branches return tensors of different ranks or "
                   "types; torch 1.13 declares its example run's, which the other branch breaks)" : "");
      return FALSE;
    }
  return TRUE;
}

/* The pipeline behind export_graph, export_graph_report and
 * export_graph_with_origins (each argument but trace/o may be NULL). */
static Graph *
export_impl (const Graph *trace, const ExportOptions *o, GPtrArray *origins,
             GPtrArray **warnings, GError **error);

Graph *
export_graph (const Graph *trace, const ExportOptions *o, GError **error)
{
  return export_impl (trace, o, NULL, NULL, error);
}

Graph *
export_graph_report (const Graph *trace, const ExportOptions *o, GPtrArray **warnings,
                     GError **error)
{
  return export_impl (trace, o, NULL, warnings, error);
}

static Graph *
export_impl (const Graph *trace, const ExportOptions *o, GPtrArray *origins,
             GPtrArray **warnings, GError **error)
{
  g_return_val_if_fail (trace != NULL && o != NULL, NULL);
  if (warnings)
    *warnings = NULL;
  if (o->opset < SYM_OPSET_MIN || o->opset > SYM_OPSET_MAX)
    {
      g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_OPTIONS,
                   "opset %d is not supported: choose an opset from %d to %d", o->opset,
                   SYM_OPSET_MIN, SYM_OPSET_MAX);
      return NULL;
    }
  g_autoptr (GPtrArray) kinds = g_ptr_array_new ();
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) hints = g_ptr_array_new ();
  g_autoptr (GHashTable) origin = g_hash_table_new (NULL, NULL);
  g_autoptr (GError) local = NULL;
  g_autoptr (Graph) g = translate (trace, o, kinds, messages, hints, origin, origins, &local);
  if (g == NULL)
    {
      if (local)
        g_propagate_error (error, g_steal_pointer (&local));
      else
        {
          g_autofree char *msg = summarise (messages, kinds, hints, o->mode, o->opset);
          g_set_error_literal (error, EXPORT_ERROR, EXPORT_ERROR_UNSUPPORTED, msg);
        }
      return NULL;
    }
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  if (!apply_dynamic_axes (g, o, TRUE, found, error))
    return NULL;
  /* Eval mode (the only one): torch runs this peephole with or without
   * constant folding. */
  export_fuse_conv_batchnorm (g);
  export_flatten_concats (g);
  export_scalar_type_analysis (g, o->default_dtype);
  export_legalize_element_types (g, o->opset);
  if (o->do_constant_folding && export_fold_constants (g, error) == G_MAXUINT)
    return NULL;
  graph_eliminate_dead_code (g);
  /* Unused graph inputs that are initializers (weights nothing reads any
   * more after folding) are dropped. */
  for (guint i = graph_n_inputs (g); i-- > 0;)
    {
      GraphValue *v = graph_input (g, i);
      if (graph_value_get_initializer (v) && graph_value_n_uses (v) == 0
          && !graph_value_is_graph_output (v))
        graph_remove_input (g, i);
    }
  name_outputs (g, o);
  if (!apply_dynamic_axes (g, o, FALSE, found, error))
    return NULL;
  export_assign_scoped_names (g);
  /* Torch deduplicates right before naming, but its naming pass leaves the
   * scope-less Identity nodes alone while ours names every node: running
   * after it gives the same names. */
  export_deduplicate_initializers (g);
  if (o->keep_initializers_as_inputs)
    for (guint i = 0; i < graph_n_inputs (g); i++)
      if (graph_value_get_initializer (graph_input (g, i)))
        graph_value_set_initializer_is_input (graph_input (g, i), TRUE);
  import_domains (g, o->registry);
  graph_set_property (g, "producer_name", "symonnx");
  graph_set_property (g, "producer_version", SYMONNX_VERSION);
  graph_set_name (g, "main_graph");
  g_autoptr (GError) lint = NULL;
  if (!graph_lint (g, &lint))
    {
      g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH, "the exported graph is malformed: %s",
                   lint->message);
      return NULL;
    }
  /* A trace whose declared shapes contradict its ops (hand-edited or
   * corrupt text) would give a file whose types lie: refused. */
  g_autofree char *conflict = NULL;
  GraphNode *liar = export_find_declared_shape_conflict (g, &conflict);
  if (liar)
    {
      g_autofree char *from = origin_desc (origin, liar);
      const char *name = graph_value_get_name (graph_node_output (liar, 0));
      g_set_error (error, EXPORT_ERROR, EXPORT_ERROR_GRAPH,
                   "the trace's declared shapes contradict its operators: %s '%s' is %s from its "
                   "inputs' shapes%s", graph_node_kind (liar), name ? name : "?", conflict, from);
      return NULL;
    }
  if (o->mode == SYM_MODE_ONNX && !check_output_types (g, origin, error))
    return NULL;
  if (o->check && !check_result (g, o, origin, found, error))
    return NULL;
  if (warnings)
    *warnings = g_steal_pointer (&found);
  if (origins)
    origins_to_names (origins);
  return g_steal_pointer (&g);
}

Graph *
export_graph_with_origins (const Graph *trace, const ExportOptions *o, GPtrArray **origins,
                           GError **error)
{
  g_return_val_if_fail (origins != NULL, NULL);
  g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func ((GDestroyNotify) export_origin_free);
  Graph *g = export_impl (trace, o, list, NULL, error);
  if (g)
    *origins = g_steal_pointer (&list);
  return g;
}

GPtrArray *
export_find_unsupported (const Graph *trace, const ExportOptions *o, GPtrArray **messages,
                         GError **error)
{
  GPtrArray *kinds = g_ptr_array_new ();
  g_autoptr (GPtrArray) msgs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) local = NULL;
  g_autoptr (GPtrArray) hints = g_ptr_array_new ();
  g_autoptr (Graph) g = translate (trace, o, kinds, msgs, hints, NULL, NULL, &local);
  if (g == NULL && local)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      g_ptr_array_unref (kinds);
      return NULL;
    }
  if (messages)
    *messages = g_steal_pointer (&msgs);
  return kinds;
}
