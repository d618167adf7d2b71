/* verify_localize: the first traced node whose exported counterpart
 * diverges (Note [Localization] in verify.h). */
#include "verify/verify-private.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct
{
  GPtrArray *origins;     /* ExportOrigin* (owns the onnx_value names) */
} Priv;

void
verify_localization_free (VerifyLocalization *l)
{
  if (l == NULL)
    return;
  Priv *p = l->priv;
  if (p)
    g_ptr_array_unref (p->origins);
  g_free (p);
  g_array_unref (l->rows);
  g_free (l);
}

static GHashTable *
tensor_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
}

/* Whether a trace value can be compared as a tensor (an int or a list is
 * not: aten::size, prim::ListConstruct). */
static gboolean
is_tensor_value (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  return t == NULL || graph_type_kind (t) == GRAPH_TYPE_TENSOR;
}

/* Runs g asking for `names` besides its outputs; name → Tensor*. */
static GHashTable *
run_with (Graph *g, GPtrArray *names, GHashTable *inputs, const char *what, GError **error)
{
  g_ptr_array_add (names, NULL);
  RtOptions ro;
  rt_options_init (&ro);
  ro.extra_outputs = (const char *const *) names->pdata;
  g_autoptr (GError) local = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, &ro, &local);
  g_ptr_array_set_size (names, names->len - 1);
  g_autoptr (GHashTable) outs = tensor_table ();
  if (s == NULL || !rt_session_run (s, inputs, outs, &local))
    {
      g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN, "%s: %s", what, local->message);
      return NULL;
    }
  return g_steal_pointer (&outs);
}

/* The exported graph's inputs: the trace's tensor inputs in order pair
 * with the exported graph's inputs without an initializer (export keeps
 * their order; --input-names may rename them).  name → Tensor* of the
 * exported graph, refs taken.  (transfer full) */
static GHashTable *
onnx_inputs (const Graph *trace, Graph *onnx, GHashTable *inputs, GError **error)
{
  g_autoptr (GPtrArray) from = g_ptr_array_new ();
  for (guint i = 0; i < graph_n_inputs (trace); i++)
    {
      GraphValue *v = graph_input (trace, i);
      GraphType *t = graph_value_type (v);
      if (t == NULL || graph_type_kind (t) == GRAPH_TYPE_TENSOR)
        g_ptr_array_add (from, v);
    }
  g_autoptr (GHashTable) out = tensor_table ();
  guint k = 0;
  for (guint i = 0; i < graph_n_inputs (onnx); i++)
    {
      GraphValue *v = graph_input (onnx, i);
      if (graph_value_get_initializer (v))
        continue;
      const char *tname = k < from->len ? graph_value_get_name (from->pdata[k]) : NULL;
      Tensor *t = tname ? g_hash_table_lookup (inputs, tname) : NULL;
      k++;
      if (t == NULL)
        {
          g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_INPUT,
                       "no input tensor for the graph input '%s'%s", tname ? tname : graph_value_get_name (v),
                       tname ? "" : " (tuple inputs are not supported)");
          return NULL;
        }
      g_hash_table_insert (out, g_strdup (graph_value_get_name (v)), tensor_ref (t));
    }
  return g_steal_pointer (&out);
}

/* The largest finite |value| of a float tensor; 0 for other types (they
 * compare exactly). */
static double
magnitude (const Tensor *t)
{
  GraphDType dt = tensor_dtype (t);
  if (!graph_dtype_is_floating (dt))
    return 0;
  double m = 0;
  for (gint64 i = 0; i < tensor_numel (t); i++)
    {
      double v = fabs (tensor_get_double (t, i));
      if (isfinite (v) && v > m)
        m = v;
    }
  return m;
}

/* Selections whose output 1 is the indices of output 0's values. */
static gboolean
is_selection (GraphNode *n)
{
  static const char *const ops[] = {
    "aten::topk", "aten::sort", "aten::max", "aten::min", "aten::kthvalue", "aten::mode",
    "aten::median", "aten::nanmedian",
  };
  if (graph_node_n_outputs (n) != 2)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (graph_node_is (n, ops[i]))
      return TRUE;
  return FALSE;
}

/* Indices that differ where the selected values agree (Note [Blame]). */
static void
accept_near_ties (VerifyLocalization *l)
{
  for (guint i = 0; i + 1 < l->rows->len; i++)
    {
      VerifyNodeResult *v = &g_array_index (l->rows, VerifyNodeResult, i);
      VerifyNodeResult *x = &g_array_index (l->rows, VerifyNodeResult, i + 1);
      if (x->trace_node != v->trace_node || v->output != 0 || x->output != 1
          || !is_selection (v->trace_node) || v->skipped || x->skipped || v->diverges
          || !x->diverges || x->cmp.shape_mismatch)
        continue;
      x->diverges = FALSE;
      x->near_ties = TRUE;
    }
}

/* Marks `inherited` the divergent rows that read a value differing
 * already (Note [Blame]), walking the trace in order, blocks first. */
static void
blame_walk (Graph *g, GHashTable *row_of, GHashTable *differs)
{
  graph_foreach_node (g, n)
    {
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            blame_walk (subs[k], row_of, differs);
        }
      gboolean tainted = FALSE;
      for (guint i = 0; i < graph_node_n_inputs (n) && !tainted; i++)
        tainted = g_hash_table_contains (differs, graph_node_input (n, i));
      for (guint a = 0; a < graph_node_n_attrs (n) && !tainted; a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len && !tainted; k++)
            for (guint o = 0; o < graph_n_outputs (subs[k]) && !tainted; o++)
              tainted = g_hash_table_contains (differs, graph_output (subs[k], o));
        }
      for (guint k = 0; k < graph_node_n_outputs (n); k++)
        {
          GraphValue *v = graph_node_output (n, k);
          VerifyNodeResult *r = g_hash_table_lookup (row_of, v);
          if (r == NULL || r->skipped)
            {
              if (tainted)   /* not compared: it follows its inputs */
                g_hash_table_add (differs, v);
              continue;
            }
          if (r->diverges && tainted)
            r->inherited = TRUE;
          if (r->diverges || r->near_ties)
            g_hash_table_add (differs, v);
        }
    }
}

static void
assign_blame (const Graph *trace, GHashTable *row_of)
{
  g_autoptr (GHashTable) differs = g_hash_table_new (NULL, NULL);
  blame_walk ((Graph *) trace, row_of, differs);
}

/* Note [Isolating a node]
 * A node can diverge with inputs that agree within tolerance: an op that
 * reads coordinates (roi_align sampling a feature map where the box
 * decoder's noise moved a box by a hundredth of a pixel) or divides by a
 * near-zero difference turns its inputs' noise into a larger error of
 * its own.  Before such a node is named, it runs alone through the ATen
 * kernels on the values the exported graph gave its inputs: when that
 * reproduces the export's output, the symbolic computed what the op
 * computes and the divergence comes from upstream (`inherited`); when it
 * does not, the node is named.  A node whose inputs the export matches
 * exactly is named without this run (nothing upstream differs), and so is
 * one whose inputs cannot all be fed (a value that is not compared). */
#define MAX_ISOLATED_RUNS 32

typedef struct
{
  Graph      *g;          /* the node alone */
  GHashTable *map;        /* trace value → value of g */
  GHashTable *feeds;      /* input name → Tensor* */
  GHashTable *row_of;     /* trace value → VerifyNodeResult* */
  GHashTable *got;        /* ONNX value name → the export's Tensor* */
  GHashTable *inputs;     /* the trace's input name → Tensor* */
  GHashTable *weights;    /* state_dict name → Tensor*, may be NULL */
  gboolean    noisy;      /* an input that the export does not give exactly */
} Isolation;

static GraphValue *isolate_value (Isolation *iso, GraphValue *v);

static GraphValue *
feed (Isolation *iso, GraphValue *v, Tensor *t)
{
  g_autofree char *name = g_strdup_printf ("in%u", g_hash_table_size (iso->feeds));
  GraphValue *in = graph_add_input (iso->g, name, graph_value_type (v));
  g_hash_table_insert (iso->feeds, g_strdup (name), tensor_ref (t));
  return in;
}

/* Copies v's producer p (a constant or a list of such values) into g. */
static GraphValue *
copy_producer (Isolation *iso, GraphNode *p, GraphValue *v)
{
  guint n = graph_node_n_inputs (p);
  g_autofree GraphValue **ins = g_new0 (GraphValue *, n + 1);
  for (guint i = 0; i < n; i++)
    if (graph_node_input (p, i) && (ins[i] = isolate_value (iso, graph_node_input (p, i))) == NULL)
      return NULL;
  GraphNode *c = graph_create_node (iso->g, graph_node_kind (p), n, ins, 1);
  graph_node_copy_attrs (c, p);
  graph_insert_node (iso->g, c);
  GraphValue *o = graph_node_output (c, 0);
  if (graph_value_type (v))
    graph_value_set_type (o, graph_value_type (v));
  return o;
}

/* v as a value of the isolated graph: a constant (or list) copied, the
 * model's input or a weight fed as is, a compared value fed with the
 * export's tensor; NULL when it cannot be fed. */
static GraphValue *
isolate_value (Isolation *iso, GraphValue *v)
{
  GraphValue *done = g_hash_table_lookup (iso->map, v);
  if (done)
    return done;
  GraphNode *p = graph_value_node (v);
  GraphValue *r = NULL;
  VerifyNodeResult *row = g_hash_table_lookup (iso->row_of, v);
  GraphNode *packed = p && graph_node_n_inputs (p) == 1 && graph_node_input (p, 0)
                        ? graph_value_node (graph_node_input (p, 0)) : NULL;
  if (packed && ((graph_node_is (p, "prim::TupleUnpack") && graph_node_is (packed, "prim::TupleConstruct"))
                 || (graph_node_is (p, "prim::ListUnpack") && graph_node_is (packed, "prim::ListConstruct")))
      && graph_node_n_inputs (packed) == graph_node_n_outputs (p))
    {
      /* an element of a submodule's tuple: the value packed */
      guint k = 0;
      while (graph_node_output (p, k) != v)
        k++;
      return graph_node_input (packed, k) ? isolate_value (iso, graph_node_input (packed, k)) : NULL;
    }
  if (p && (graph_node_is (p, "prim::Constant") || graph_node_is (p, "prim::ListConstruct")))
    r = copy_producer (iso, p, v);
  else if (p && graph_node_is (p, "prim::GetAttr"))
    {
      g_autofree char *path = verify_getattr_path (v);
      Tensor *t = path && iso->weights ? g_hash_table_lookup (iso->weights, path) : NULL;
      r = t ? feed (iso, v, t) : NULL;
    }
  else if (p == NULL)
    {
      Tensor *t = graph_value_get_name (v) ? g_hash_table_lookup (iso->inputs, graph_value_get_name (v)) : NULL;
      r = t ? feed (iso, v, t) : NULL;
    }
  else if (row && !row->skipped && !row->cmp.shape_mismatch)
    {
      Tensor *t = g_hash_table_lookup (iso->got, row->onnx_value);
      r = t ? feed (iso, v, t) : NULL;
      iso->noisy = iso->noisy || row->cmp.max_abs_error > 0;
    }
  if (r)
    g_hash_table_insert (iso->map, v, r);
  return r;
}

/* Whether r's node, run alone on the export's input values, gives the
 * export's output (Note [Isolating a node]).  FALSE when it cannot be
 * isolated or its inputs are exact. */
static gboolean
reproduced_alone (const VerifyNodeResult *r, Isolation *base, double rtol)
{
  GraphNode *n = r->trace_node;
  if (graph_node_n_attrs (n) > 0 && (graph_node_is (n, "prim::If") || graph_node_is (n, "prim::Loop")))
    return FALSE;
  g_autoptr (Graph) g = graph_new ();
  g_autoptr (GHashTable) map = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) feeds = tensor_table ();
  Isolation iso = *base;
  iso.g = g;
  iso.map = map;
  iso.feeds = feeds;
  iso.noisy = FALSE;
  guint nin = graph_node_n_inputs (n);
  g_autofree GraphValue **ins = g_new0 (GraphValue *, nin + 1);
  for (guint i = 0; i < nin; i++)
    if (graph_node_input (n, i) && (ins[i] = isolate_value (&iso, graph_node_input (n, i))) == NULL)
      return FALSE;
  if (!iso.noisy)
    return FALSE;
  GraphNode *c = graph_create_node (g, graph_node_kind (n), nin, ins, graph_node_n_outputs (n));
  graph_node_copy_attrs (c, n);
  graph_insert_node (g, c);
  for (guint k = 0; k < graph_node_n_outputs (n); k++)
    {
      GraphValue *o = graph_node_output (c, k);
      g_autofree char *name = g_strdup_printf ("out%u", k);
      graph_value_set_name (o, name);
      if (graph_value_type (graph_node_output (n, k)))
        graph_value_set_type (o, graph_value_type (graph_node_output (n, k)));
      graph_add_output (g, o);
    }
  g_autoptr (GError) local = NULL;
  g_autoptr (Graph) runnable = verify_runnable_trace (g, NULL, &local);
  if (runnable == NULL)
    return FALSE;
  g_autoptr (GPtrArray) none = g_ptr_array_new ();
  g_autoptr (GHashTable) outs = run_with (runnable, none, feeds, "isolated", &local);
  g_autofree char *oname = g_strdup_printf ("out%u", r->output);
  Tensor *alone = outs ? g_hash_table_lookup (outs, oname) : NULL;
  Tensor *exported = g_hash_table_lookup (base->got, r->onnx_value);
  RtCompareResult cmp;
  return alone && exported && rt_compare (alone, exported, rtol, r->node_atol, TRUE, &cmp);
}

VerifyLocalization *
verify_localize (const Graph *trace, const ExportOptions *options, GHashTable *inputs,
                 double rtol, double atol, GError **error)
{
  return verify_localize_full (trace, options, inputs, rtol, atol, VERIFY_DEFAULT_NODE_RTOL, error);
}

VerifyLocalization *
verify_localize_full (const Graph *trace, const ExportOptions *options, GHashTable *inputs,
                      double rtol, double atol, double node_rtol, GError **error)
{
  g_return_val_if_fail (trace != NULL && options != NULL && inputs != NULL, NULL);
  g_return_val_if_fail (node_rtol >= 0, NULL);
  GPtrArray *origins = NULL;
  g_autoptr (Graph) onnx = export_graph_with_origins (trace, options, &origins, error);
  if (onnx == NULL)
    return NULL;
  g_autoptr (VerifyLocalization) l = g_new0 (VerifyLocalization, 1);
  Priv *priv = g_new0 (Priv, 1);
  priv->origins = origins;
  l->priv = priv;
  l->opset = options->opset;
  l->mode = options->mode;
  l->rtol = rtol;
  l->atol = atol;
  l->node_rtol = node_rtol;
  l->first = -1;
  l->rows = g_array_new (FALSE, TRUE, sizeof (VerifyNodeResult));
  g_autoptr (GHashTable) oinputs = onnx_inputs (trace, onnx, inputs, error);
  if (oinputs == NULL)
    return NULL;
  g_autoptr (Graph) runnable = verify_runnable_trace (trace, options->weights, error);
  if (runnable == NULL)
    return NULL;

  /* The rows, and the values each run must return. */
  g_autoptr (GPtrArray) trace_names = g_ptr_array_new ();
  g_autoptr (GPtrArray) onnx_names = g_ptr_array_new ();
  g_autoptr (GHashTable) asked_trace = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) asked_onnx = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < origins->len; i++)
    {
      ExportOrigin *o = origins->pdata[i];
      for (guint k = 0; k < o->onnx_values->len; k++)
        {
          GraphValue *tv = graph_node_output (o->trace_node, k);
          VerifyNodeResult r = { 0 };
          r.trace_node = o->trace_node;
          r.kind = graph_node_kind (o->trace_node);
          r.scope = graph_node_get_scope (o->trace_node);
          r.source = graph_node_get_source (o->trace_node);
          r.symbolic = o->symbolic;
          r.output = k;
          r.trace_value = graph_value_get_name (tv);
          r.onnx_value = o->onnx_values->pdata[k];
          if (!is_tensor_value (tv))
            r.skipped = "not a tensor";
          else if (r.onnx_value == NULL)
            r.skipped = "no ONNX value computes it any more (fused, folded or unused)";
          else if (r.trace_value == NULL || graph_find_value (runnable, r.trace_value) == NULL)
            r.skipped = "the trace run does not compute it (unused)";
          else
            {
              if (g_hash_table_add (asked_trace, (gpointer) r.trace_value))
                g_ptr_array_add (trace_names, (gpointer) r.trace_value);
              if (g_hash_table_add (asked_onnx, (gpointer) r.onnx_value))
                g_ptr_array_add (onnx_names, (gpointer) r.onnx_value);
            }
          g_array_append_val (l->rows, r);
        }
    }
  g_autoptr (GHashTable) ref = run_with (runnable, trace_names, inputs,
                                         "running the trace's aten nodes", error);
  if (ref == NULL)
    return NULL;
  g_autoptr (GHashTable) got = run_with (onnx, onnx_names, oinputs, "running the exported graph", error);
  if (got == NULL)
    return NULL;
  for (guint i = 0; i < l->rows->len; i++)
    {
      VerifyNodeResult *r = &g_array_index (l->rows, VerifyNodeResult, i);
      if (r->skipped)
        continue;
      Tensor *e = g_hash_table_lookup (ref, r->trace_value);
      Tensor *a = g_hash_table_lookup (got, r->onnx_value);
      if (e == NULL || a == NULL)
        {
          r->skipped = "a run gave no tensor for it";
          continue;
        }
      r->scale = magnitude (e);
      r->node_atol = atol + node_rtol * r->scale;   /* Note [Node tolerance] */
      /* Note [Quantized nodes]: a quantized value is compared as its
       * integers (the trace run's quantized tensor, the export's
       * QuantizeLinear output) within one quantization step, the
       * tolerance the corpus gives a quantized model's output: the export
       * requantizes in float where torch's integer kernels round
       * otherwise (QNNPACK's add rounds half away from zero, the
       * averages of a GlobalAveragePool sum in float), which moves a
       * value on a half step by one. */
      g_autoptr (Tensor) ed = NULL, ad = NULL;
      if (graph_type_is_quantized (graph_value_type (graph_node_output (r->trace_node, r->output)))
          && tensor_dtype (e) == tensor_dtype (a) && (ed = tensor_cast (e, GRAPH_DTYPE_DOUBLE, NULL))
          && (ad = tensor_cast (a, GRAPH_DTYPE_DOUBLE, NULL)))
        {
          e = ed;
          a = ad;
          r->node_atol = MAX (r->node_atol, 1.0);
        }
      r->diverges = !rt_compare (e, a, rtol, r->node_atol, TRUE, &r->cmp);
      l->compared++;
    }
  accept_near_ties (l);
  g_autoptr (GHashTable) row_of = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < l->rows->len; i++)
    {
      VerifyNodeResult *r = &g_array_index (l->rows, VerifyNodeResult, i);
      g_hash_table_insert (row_of, graph_node_output (r->trace_node, r->output), r);
    }
  assign_blame (trace, row_of);
  Isolation iso = { .row_of = row_of, .got = got, .inputs = inputs, .weights = options->weights };
  guint isolated = 0;
  for (guint i = 0; i < l->rows->len && l->first < 0; i++)
    {
      VerifyNodeResult *r = &g_array_index (l->rows, VerifyNodeResult, i);
      if (!r->diverges || r->inherited)
        continue;
      if (isolated < MAX_ISOLATED_RUNS && (isolated++, reproduced_alone (r, &iso, rtol)))
        r->inherited = r->upstream_noise = TRUE;   /* Note [Isolating a node] */
      else
        l->first = (gint) i;
    }
  return g_steal_pointer (&l);
}

static void
append_figures (GString *s, const VerifyNodeResult *r)
{
  if (r->cmp.shape_mismatch)
    g_string_append (s, "another dtype or shape");
  else
    {
      g_string_append_printf (s, "max abs err %.3g, max rel err %.3g, %" G_GINT64_FORMAT
                              " mismatches", r->cmp.max_abs_error, r->cmp.max_rel_error,
                              r->cmp.mismatches);
      if (r->cmp.first_mismatch >= 0)
        g_string_append_printf (s, " (first at flat index %" G_GINT64_FORMAT ")", r->cmp.first_mismatch);
    }
}

char *
verify_localization_format (const VerifyLocalization *l, gboolean all)
{
  GString *s = g_string_new (NULL);
  if (all)
    {
      g_string_append_printf (s, "%-4s %-30s %-22s %-34s %11s %11s %11s %11s  %s\n", "#", "node",
                              "trace value", "onnx value", "max abs", "max rel", "scale", "mismatches",
                              "status");
      for (guint i = 0; i < l->rows->len; i++)
        {
          const VerifyNodeResult *r = &g_array_index (l->rows, VerifyNodeResult, i);
          g_autofree char *tv = g_strdup_printf ("%%%s", r->trace_value ? r->trace_value : "?");
          const char *ov = r->onnx_value ? r->onnx_value : "-";
          if (r->skipped)
            g_string_append_printf (s, "%-4u %-30s %-22s %-34s %11s %11s %11s %11s  not compared: %s\n",
                                    i, r->kind, tv, ov, "-", "-", "-", "-", r->skipped);
          else if (r->cmp.shape_mismatch)
            g_string_append_printf (s, "%-4u %-30s %-22s %-34s %11s %11s %11s %11s  %s\n", i, r->kind,
                                    tv, ov, "-", "-", "-", "-", "DIVERGES (another dtype or shape)");
          else
            g_string_append_printf (s, "%-4u %-30s %-22s %-34s %11.3g %11.3g %11.3g %11" G_GINT64_FORMAT
                                    "  %s\n", i, r->kind, tv, ov, r->cmp.max_abs_error,
                                    r->cmp.max_rel_error, r->scale, r->cmp.mismatches,
                                    r->upstream_noise ? "DIVERGES (alone on the export's inputs it agrees)"
                                    : r->inherited ? "DIVERGES (an input differs already)"
                                    : r->diverges ? "DIVERGES"
                                    : r->near_ties ? "ok (indices of near-equal values)" : "ok");
        }
    }
  if (l->first < 0)
    {
      g_string_append_printf (s, "localize: all %u compared node outputs match within rtol %g, "
                              "atol %g + %g of each node's scale (opset %d, mode %s; %u not "
                              "compared)\n", l->compared, l->rtol, l->atol, l->node_rtol, l->opset,
                              sym_mode_name (l->mode), l->rows->len - l->compared);
      return g_string_free (s, FALSE);
    }
  const VerifyNodeResult *r = &g_array_index (l->rows, VerifyNodeResult, l->first);
  g_string_append_printf (s, "localize: first divergent node: %s, output %u (%%%s, ONNX value %s)\n",
                          r->kind, r->output, r->trace_value, r->onnx_value);
  g_string_append_printf (s, "  scope:    %s\n", r->scope ? r->scope : "(none)");
  g_string_append_printf (s, "  source:   # %s\n", r->source ? r->source : "(unknown)");
  g_string_append_printf (s, "  symbolic: %s\n", r->symbolic);
  g_string_append_printf (s, "  opset:    %d (mode %s)\n", l->opset, sym_mode_name (l->mode));
  g_string_append (s, "  error:    ");
  append_figures (s, r);
  g_string_append_printf (s, " past rtol %g, atol %g + %g of the node's scale %.3g (%.3g)\n",
                          l->rtol, l->atol, l->node_rtol, r->scale, r->node_atol);
  return g_string_free (s, FALSE);
}
