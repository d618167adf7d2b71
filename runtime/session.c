/* Sessions: checking a graph, planning buffers by liveness, running. */
#include "runtime/session-private.h"
#include "runtime/onnx-type-params.h"
#include "runtime/kernels-private.h"
#include "runtime/blas.h"
#include "runtime/concat-views.h"
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (rt-error-quark, rt_error)

void
rt_options_init (RtOptions *o)
{
  memset (o, 0, sizeof *o);
}

static void
plan_node_clear (RtNodePlan *p)
{
  if (p->state && p->def && p->def->free_state)
    p->def->free_state (p->state);
  else
    g_free (p->state);
  g_free (p->in_idx);
  g_free (p->out_idx);
  g_free (p->release);
  g_free (p->fallback);
  g_free (p->fused_in);
  g_free (p->fused_out);
  g_free (p->early);
}

void
rt_session_free (RtSession *s)
{
  if (s == NULL)
    return;
  rt_device_free (s);
  for (guint i = 0; i < s->n_nodes; i++)
    plan_node_clear (&s->nodes[i]);
  g_free (s->nodes);
  for (guint i = 0; i < s->n_values; i++)
    {
      g_clear_pointer (&s->values[i].constant, tensor_unref);
      g_free (s->values[i].own);
      rt_store_free (s->values[i].store);
    }
  g_free (s->values);
  g_free (s->rt);
  for (guint i = 0; i < s->n_slots; i++)
    {
      free (s->slots[i].mem);
      rt_store_free (s->slots[i].store);
    }
  g_free (s->slots);
  for (guint i = 0; i < RT_N_SCRATCH; i++)
    free (s->scratch[i]);
  g_hash_table_unref (s->index);
  g_ptr_array_unref (s->required);
  g_ptr_array_unref (s->returned);
  g_free (s->node_inputs);
  g_free (s->body_present);
  if (s->strings)
    g_ptr_array_unref (s->strings);
  g_free (s);
}

/* Adds to `set` the values that `g` (and the subgraphs of its nodes) reads
 * from enclosing graphs. */
static void
collect_free_values (Graph *g, GHashTable *set)
{
  graph_foreach_node (g, n)
    {
      for (guint i = 0; i < graph_node_n_inputs (n); i++)
        {
          GraphValue *v = graph_node_input (n, i);
          if (v && graph_value_graph (v) != g)
            g_hash_table_add (set, v);
        }
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *sub, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &sub, &subs);
          for (gsize k = 0; k < len; k++)
            {
              g_autoptr (GHashTable) inner = g_hash_table_new (g_direct_hash, g_direct_equal);
              collect_free_values (subs[k], inner);
              GHashTableIter it;
              gpointer v;
              g_hash_table_iter_init (&it, inner);
              while (g_hash_table_iter_next (&it, &v, NULL))
                if (graph_value_graph (v) != g)
                  g_hash_table_add (set, v);
            }
        }
    }
}

/* The values of enclosing graphs that node n's subgraphs read; NULL when
 * it has no subgraph. */
static GHashTable *
node_free_values (GraphNode *n)
{
  GHashTable *set = NULL;
  for (guint a = 0; a < graph_node_n_attrs (n); a++)
    {
      Graph *sub, *const *subs;
      gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &sub, &subs);
      for (gsize k = 0; k < len; k++)
        {
          if (set == NULL)
            set = g_hash_table_new (g_direct_hash, g_direct_equal);
          collect_free_values (subs[k], set);
        }
    }
  return set;
}

static int
value_index (RtSession *s, GraphValue *v)
{
  gpointer idx;
  if (g_hash_table_lookup_extended (s->index, v, NULL, &idx))
    return GPOINTER_TO_INT (idx);
  int i = (int) s->n_values++;
  s->values = g_renew (RtValue, s->values, s->n_values);
  memset (&s->values[i], 0, sizeof s->values[i]);
  s->values[i].v = v;
  s->values[i].slot = -1;
  s->values[i].last_use = -1;
  g_hash_table_insert (s->index, v, GINT_TO_POINTER (i));
  return i;
}

/* The ONNX Constant node's value as a tensor (transfer full). */
static Tensor *
onnx_constant_tensor (const GraphNode *n, GError **error)
{
  Tensor *t = NULL;
  double f;
  gint64 i;
  gsize len;
  const double *fs;
  const gint64 *is;
  if (graph_node_get_t (n, "value", &t))
    return tensor_ref (t);
  if (graph_node_get_f (n, "value_float", &f))
    return tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, f);
  if (graph_node_get_i (n, "value_int", &i))
    return tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, i);
  if (graph_node_get_is (n, "value_ints", &len, &is))
    return tensor_new_int64_vector (len, is);
  if (graph_node_get_fs (n, "value_floats", &len, &fs))
    {
      g_autofree float *tmp = g_new (float, len ? len : 1);
      for (gsize k = 0; k < len; k++)
        tmp[k] = (float) fs[k];
      gint64 d = (gint64) len;
      return tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, &d, tmp, len * sizeof (float), error);
    }
  rt_node_error (n, error, RT_ERROR_UNSUPPORTED,
                 "Constant without a supported value attribute (value, value_float, "
                 "value_int, value_floats, value_ints)");
  return NULL;
}

/* prim::Constant of a trace: int → int64 0-d, float → double 0-d, bool →
 * bool 0-d, str → string 0-d, tensor → itself, none → absent (*t = NULL,
 * TRUE). */
static gboolean
prim_constant_tensor (const GraphNode *n, Tensor **t, GError **error)
{
  GraphAttrKind kind;
  *t = NULL;
  if (!graph_node_attr_kind (n, "value", &kind))
    return TRUE;
  GraphType *ty = graph_value_type (graph_node_output (n, 0));
  switch (kind)
    {
    case GRAPH_ATTR_I:
      {
        gint64 v = rt_attr_i (n, "value", 0);
        gboolean is_bool = ty && graph_type_kind (ty) == GRAPH_TYPE_BOOL;
        *t = tensor_new_scalar_int64 (is_bool ? GRAPH_DTYPE_BOOL : GRAPH_DTYPE_INT64, v);
        return TRUE;
      }
    case GRAPH_ATTR_F:
      *t = tensor_new_scalar_double (GRAPH_DTYPE_DOUBLE, rt_attr_f (n, "value", 0));
      return TRUE;
    case GRAPH_ATTR_S:
      {
        /* A str argument (gelu's approximate="tanh"): a 0-d STRING tensor,
         * as an ATen node's Constant holds it. */
        const char *v = NULL;
        gsize len = 0;
        graph_node_get_s (n, "value", &v, &len);
        g_autoptr (GBytes) b = g_bytes_new (v, len);
        *t = tensor_new_strings (0, NULL, &b, error);
        return *t != NULL;
      }
    case GRAPH_ATTR_T:
      {
        Tensor *v = NULL;
        graph_node_get_t (n, "value", &v);
        if (!tensor_has_data (v))
          break;
        *t = tensor_ref (v);
        return TRUE;
      }
    default:
      break;
    }
  rt_node_error (n, error, RT_ERROR_UNSUPPORTED,
                 "prim::Constant of this kind (devices, tensors without data) "
                 "cannot be executed");
  return FALSE;
}

static gboolean
is_domain_without_opset (const char *domain)
{
  /* a trace's namespaces (torchvision:: as a detection model's trace
   * records it) import no opset */
  return strcmp (domain, "aten") == 0 || strcmp (domain, "prim") == 0
         || strcmp (domain, GRAPH_ATEN_DOMAIN) == 0 || strcmp (domain, "torchvision") == 0
         || strcmp (domain, "quantized") == 0 || strcmp (domain, RT_ATEN_QUANTIZED) == 0;
}

/* Whether an input of trace node n is declared quantized (QUInt8 ...):
 * its aten kernel is then the RT_ATEN_QUANTIZED one (Note [Quantized
 * tensors]). */
static gboolean
reads_quantized (const GraphNode *n)
{
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *v = graph_node_input (n, i);
      if (v && graph_type_is_quantized (graph_value_type (v)))
        return TRUE;
    }
  return FALSE;
}

/* Resolves the kernel of `n`; on failure appends a line to `missing`. */
static const RtKernelDef *
resolve_kernel (const Graph *g, const GraphNode *n, gint64 *opset, GString *missing,
                GHashTable *seen)
{
  const char *domain = graph_node_domain (n);
  const char *op = graph_node_op_type (n);
  const char *kdomain = domain;
  *opset = 0;
  if (strcmp (domain, GRAPH_ATEN_DOMAIN) == 0 && strcmp (op, "ATen") == 0)
    {
      const char *operator = rt_attr_s (n, "operator", NULL);
      kdomain = "aten";
      op = operator ? operator : "<no operator attribute>";
    }
  else if (strcmp (domain, "aten") == 0 && reads_quantized (n))
    kdomain = RT_ATEN_QUANTIZED;
  else if (!is_domain_without_opset (domain))
    {
      /* Subgraphs use the opsets of the model's main graph. */
      const Graph *root = g;
      while (graph_get_outer (root))
        root = graph_get_outer (root);
      *opset = graph_get_opset (root, strcmp (domain, GRAPH_ONNX_DOMAIN) == 0 ? "" : domain);
      if (*opset < 0)
        *opset = graph_get_opset (root, domain);
    }
  const RtKernelDef *k = NULL;
  if (is_domain_without_opset (kdomain) || *opset >= 0)
    k = rt_registry_lookup (kdomain, op, *opset);
  gsize len = strlen (op);
  if (k == NULL && (strcmp (kdomain, "aten") == 0 || strcmp (kdomain, RT_ATEN_QUANTIZED) == 0) && len > 1
      && op[len - 1] == '_' && op[len - 2] != '_')
    {
      /* an in-place form (mul_): a trace names its result, which the
       * out-of-place kernel computes (writes into views are carried back
       * by the trace run, verify/runnable.c) */
      g_autofree char *base = g_strndup (op, len - 1);
      k = rt_registry_lookup (kdomain, base, *opset);
    }
  if (k)
    return k;
  g_autofree char *key = g_strdup_printf ("%s::%s@%" G_GINT64_FORMAT, kdomain, op, *opset);
  if (g_hash_table_contains (seen, key))
    return NULL;
  g_hash_table_add (seen, g_steal_pointer (&key));
  if (missing->len)
    g_string_append (missing, "; ");
  if (*opset < 0)
    g_string_append_printf (missing, "%s::%s (the model imports no opset for domain '%s')",
                            domain, op, domain);
  else if (strcmp (kdomain, RT_ATEN_QUANTIZED) == 0)
    g_string_append_printf (missing, "aten::%s on quantized tensors", op);
  else if (is_domain_without_opset (kdomain))
    g_string_append_printf (missing, "%s::%s", kdomain, op);
  else if (rt_registry_has_op (kdomain, op))
    g_string_append_printf (missing, "%s::%s at opset %" G_GINT64_FORMAT
                            " (implemented for other opsets only)", domain, op, *opset);
  else
    g_string_append_printf (missing, "%s::%s (opset %" G_GINT64_FORMAT ")", domain, op, *opset);
  const char *name = graph_node_get_name (n);
  if (name && *name)
    g_string_append_printf (missing, ", first at node '%s'", name);
  return NULL;
}

static const char *
value_label (const GraphValue *v)
{
  const char *name = graph_value_get_name (v);
  static char buf[32];
  if (name)
    return name;
  g_snprintf (buf, sizeof buf, "%%%u", graph_value_id (v));
  return buf;
}

static gboolean
plan_nodes (RtSession *s, GError **error)
{
  Graph *g = s->graph;
  g_autoptr (GString) missing = g_string_new (NULL);
  g_autoptr (GString) bad_dtype = g_string_new (NULL);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_missing = 0;

  s->nodes = g_new0 (RtNodePlan, graph_n_nodes (g));
  graph_foreach_node (g, n)
    {
      const char *kind = graph_node_kind (n);
      /* Constants become session values: no kernel runs for them. */
      if (strcmp (kind, "onnx::Constant") == 0 || strcmp (kind, "prim::Constant") == 0)
        {
          Tensor *t = NULL;
          if (graph_node_n_outputs (n) != 1)
            {
              rt_node_error (n, error, RT_ERROR_INVALID_GRAPH, "a Constant has one output");
              return FALSE;
            }
          if (kind[0] == 'o' ? (t = onnx_constant_tensor (n, error)) == NULL
                             : !prim_constant_tensor (n, &t, error))
            return FALSE;
          int vi = value_index (s, graph_node_output (n, 0));
          s->values[vi].constant = t;
          s->values[vi].absent = (t == NULL);
          continue;
        }
      gint64 opset;
      const RtKernelDef *k = resolve_kernel (g, n, &opset, missing, seen);
      if (k == NULL)
        {
          n_missing++;
          continue;
        }
      guint nin = graph_node_n_inputs (n), nout = graph_node_n_outputs (n);
      if (nin < k->min_in || (k->max_in != RT_VARIADIC && nin > k->max_in)
          || nout < k->min_out || (k->max_out != RT_VARIADIC && nout > k->max_out))
        {
          char maxi[16] = "any", maxo[16] = "any";
          if (k->max_in != RT_VARIADIC)
            g_snprintf (maxi, sizeof maxi, "%u", k->max_in);
          if (k->max_out != RT_VARIADIC)
            g_snprintf (maxo, sizeof maxo, "%u", k->max_out);
          rt_node_error (n, error, RT_ERROR_INVALID_GRAPH,
                         "%u inputs and %u outputs; the op takes %u to %s inputs and "
                         "%u to %s outputs", nin, nout, k->min_in, maxi, k->min_out, maxo);
          return FALSE;
        }
      for (guint i = 0; i < MIN (nin, k->min_in); i++)
        if (graph_node_input (n, i) == NULL)
          {
            rt_node_error (n, error, RT_ERROR_INVALID_GRAPH, "required input %u is absent", i);
            return FALSE;
          }
      /* Statically known element type of input 0 the kernel cannot take. */
      GraphValue *in0 = nin ? graph_node_input (n, 0) : NULL;
      GraphType *ty = in0 ? graph_value_type (in0) : NULL;
      if (k->dtypes && ty && graph_type_kind (ty) == GRAPH_TYPE_TENSOR
          && graph_type_dtype (ty) != GRAPH_DTYPE_UNDEFINED
          && !rt_kernel_takes_dtype (k, graph_type_dtype (ty)))
        {
          n_missing++;
          if (missing->len)
            g_string_append (missing, "; ");
          g_string_append_printf (missing, "%s for element type %s, first at %s", kind,
                                  graph_dtype_name (graph_type_dtype (ty)), rt_node_label (n));
          continue;
        }
      RtNodePlan *p = &s->nodes[s->n_nodes++];
      p->node = n;
      p->def = k;
      p->opset = opset;
      p->n_in = nin;
      p->n_out = nout;
    }
  if (n_missing)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED,
                   "no kernel for %u operator%s: %s", n_missing, n_missing == 1 ? "" : "s",
                   missing->str);
      return FALSE;
    }
  /* prepare() only once everything is known to be runnable. */
  for (guint i = 0; i < s->n_nodes; i++)
    {
      RtNodePlan *p = &s->nodes[i];
      if (p->def->prepare && !p->def->prepare (p->node, p->opset, &p->state, error))
        return FALSE;
    }
  return TRUE;
}

/* Liveness: each value's last reader; slots assigned greedily in order. */
static gboolean
plan_values (RtSession *s, GError **error)
{
  Graph *g = s->graph;
  guint max_in = 0;
  for (guint i = 0; i < graph_n_inputs (g); i++)
    {
      GraphValue *v = graph_input (g, i);
      int vi = value_index (s, v);
      s->values[vi].is_input = TRUE;
      Tensor *init = graph_value_get_initializer (v);
      if (init && tensor_has_data (init))
        s->values[vi].constant = tensor_ref (init);
      else
        g_ptr_array_add (s->required, v);
    }
  for (guint ni = 0; ni < s->n_nodes; ni++)
    {
      RtNodePlan *p = &s->nodes[ni];
      p->in_idx = g_new (int, MAX (p->n_in, 1));
      p->out_idx = g_new (int, MAX (p->n_out, 1));
      max_in = MAX (max_in, p->n_in);
      for (guint i = 0; i < p->n_in; i++)
        {
          GraphValue *v = p->fused_in ? p->fused_in[i] : graph_node_input (p->node, i);
          if (v == NULL)
            {
              p->in_idx[i] = -1;
              continue;
            }
          gpointer idx;
          if (!g_hash_table_lookup_extended (s->index, v, NULL, &idx))
            {
              rt_node_error (p->node, error, RT_ERROR_INVALID_GRAPH,
                             "input %u (%s) is not defined before the node", i, value_label (v));
              return FALSE;
            }
          int vi = GPOINTER_TO_INT (idx);
          p->in_idx[i] = s->values[vi].absent ? -1 : vi;
          s->values[vi].last_use = (int) ni;
        }
      /* Values the node's subgraphs read stay alive up to the node. */
      g_autoptr (GHashTable) captured = node_free_values (p->node);
      if (captured)
        {
          GHashTableIter it;
          gpointer v, idx;
          g_hash_table_iter_init (&it, captured);
          while (g_hash_table_iter_next (&it, &v, NULL))
            if (g_hash_table_lookup_extended (s->index, v, NULL, &idx))
              s->values[GPOINTER_TO_INT (idx)].last_use = (int) ni;
        }
      for (guint i = 0; i < p->n_out; i++)
        {
          int vi = value_index (s, p->fused_out ? p->fused_out[i]
                                                : graph_node_output (p->node, i));
          s->values[vi].producer = (int) ni;
          p->out_idx[i] = vi;
        }
    }
  /* Graph outputs and requested extra outputs are kept to the end. */
  for (guint i = 0; i < graph_n_outputs (g); i++)
    g_ptr_array_add (s->returned, graph_output (g, i));
  for (guint i = 0; i < s->returned->len; i++)
    {
      GraphValue *v = g_ptr_array_index (s->returned, i);
      gpointer idx;
      if (!g_hash_table_lookup_extended (s->index, v, NULL, &idx))
        {
          g_set_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH,
                       "output '%s' is not produced by any node nor a graph input",
                       value_label (v));
          return FALSE;
        }
      s->values[GPOINTER_TO_INT (idx)].keep = TRUE;
    }
  rt_concat_views_plan (s);
  /* Slots: a Concat's output in place (p->early) from its first input's
   * producer on, then each node's outputs. */
  g_autoptr (GArray) free_slots = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint ni = 0; ni < s->n_nodes; ni++)
    {
      RtNodePlan *p = &s->nodes[ni];
      for (guint i = 0; i < p->n_early + p->n_out; i++)
        {
          RtValue *val = &s->values[i < p->n_early ? p->early[i] : p->out_idx[i - p->n_early]];
          if (val->slot >= 0)
            continue;
          if (free_slots->len)
            {
              val->slot = g_array_index (free_slots, int, free_slots->len - 1);
              g_array_set_size (free_slots, free_slots->len - 1);
            }
          else
            val->slot = (int) s->n_slots++;
        }
      g_autoptr (GArray) rel = g_array_new (FALSE, FALSE, sizeof (int));
      for (guint i = 0; i < p->n_in + p->n_out; i++)
        {
          int vi = i < p->n_in ? p->in_idx[i] : p->out_idx[i - p->n_in];
          if (vi < 0)
            continue;
          RtValue *val = &s->values[vi];
          if (val->slot < 0 || val->keep || val->released)
            continue;
          gboolean dead = i < p->n_in ? val->last_use == (int) ni : val->last_use < 0;
          if (!dead)
            continue;
          val->released = TRUE;
          g_array_append_val (free_slots, val->slot);
          g_array_append_val (rel, val->slot);
        }
      p->n_release = rel->len;
      p->release = (int *) g_array_free (g_steal_pointer (&rel), FALSE);
    }
  s->slots = g_new0 (RtSlot, MAX (s->n_slots, 1));
  s->rt = g_new0 (RtTensor, MAX (s->n_values, 1));
  s->node_inputs = g_new0 (const RtTensor *, MAX (max_in, 1));
  return TRUE;
}

RtSession *
rt_session_new (Graph *graph, const RtOptions *options, GError **error)
{
  g_return_val_if_fail (graph != NULL, NULL);
  g_autoptr (GError) lint_error = NULL;
  if (!graph_lint (graph, &lint_error))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH, "invalid graph: %s",
                   lint_error->message);
      return NULL;
    }
  if (!rt_blas_load (error))
    return NULL;
  g_autoptr (RtSession) s = g_new0 (RtSession, 1);
  s->graph = graph;
  if (options)
    s->options = *options;
  if (s->options.max_tensor_bytes == 0)
    s->options.max_tensor_bytes = RT_DEFAULT_MAX_TENSOR_BYTES;
  if (s->options.max_loop_iterations == 0)
    s->options.max_loop_iterations = RT_DEFAULT_MAX_LOOP_ITERATIONS;
  s->index = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->required = g_ptr_array_new ();
  s->returned = g_ptr_array_new ();
  if (!plan_nodes (s, error))
    return NULL;
  if (s->options.extra_outputs)
    for (const char *const *name = s->options.extra_outputs; *name; name++)
      {
        GraphValue *v = graph_find_value (graph, *name);
        if (v == NULL)
          {
            g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                         "requested output '%s' is not a value of the graph", *name);
            return NULL;
          }
        g_ptr_array_add (s->returned, v);
      }
  s->n_graph_nodes = s->n_nodes;
  /* Fusion makes CPU kernels: only when every node runs on the CPU. */
  if (!s->options.no_fusion && s->options.device == RT_DEVICE_CPU && s->options.backend == NULL)
    rt_fuse_plan (s);
  if (!plan_values (s, error) || !rt_device_plan (s, error))
    return NULL;
  return g_steal_pointer (&s);
}

guint
rt_session_n_required_inputs (const RtSession *s)
{
  return s->required->len;
}

GraphValue *
rt_session_required_input (const RtSession *s, guint i)
{
  g_return_val_if_fail (i < s->required->len, NULL);
  return g_ptr_array_index (s->required, i);
}

guint64
rt_session_last_run_allocations (const RtSession *s)
{
  return s->allocations;
}

static void
rt_from_tensor (RtTensor *r, const Tensor *t, void *data)
{
  r->dtype = tensor_dtype (t);
  r->rank = tensor_rank (t);
  if (r->rank)
    memcpy (r->dims, tensor_dims (t), r->rank * sizeof (gint64));
  r->numel = tensor_numel (t);
  r->data = data;
  r->kind = RT_KIND_TENSOR;
  rt_set_quantized (r, 0, 0);
}

/* Binds a caller's or a constant tensor, copying only when misaligned. */
static gboolean
bind_tensor (RtSession *s, int vi, const Tensor *t, const char *what, GError **error)
{
  RtTensor *r = &s->rt[vi];
  if (tensor_dtype (t) != GRAPH_DTYPE_STRING && !tensor_has_data (t))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED,
                   "%s '%s': data-less tensors cannot be executed", what,
                   value_label (s->values[vi].v));
      return FALSE;
    }
  if (tensor_rank (t) > RT_MAX_RANK)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED, "%s '%s': rank %u above %d",
                   what, value_label (s->values[vi].v), tensor_rank (t), RT_MAX_RANK);
      return FALSE;
    }
  gsize nbytes;
  /* an empty one's other dims within the limit (Note [Extent of an empty
   * tensor], util.c); a full one is already in memory, whatever its size */
  if (tensor_numel (t) == 0
      && !rt_shape_admissible (tensor_dtype (t), tensor_rank (t), tensor_dims (t),
                               s->options.max_tensor_bytes, &nbytes))
    {
      g_autoptr (GString) shape = g_string_new (NULL);
      rt_append_shape (shape, tensor_rank (t), tensor_dims (t));
      g_set_error (error, RT_ERROR, RT_ERROR_TOO_LARGE,
                   "%s '%s': an empty tensor of shape %s, whose other dims make it larger than the "
                   "limit of %" G_GUINT64_FORMAT " bytes", what, value_label (s->values[vi].v),
                   shape->str, s->options.max_tensor_bytes);
      return FALSE;
    }
  if (tensor_dtype (t) == GRAPH_DTYPE_STRING)
    {
      /* An array of the tensor's GBytes, borrowed: `t` outlives the run. */
      RtValue *val = &s->values[vi];
      gsize n = (gsize) tensor_numel (t) * sizeof (GBytes *);
      if (val->own_cap < n || val->own == NULL)
        {
          g_free (val->own);
          val->own = g_malloc (MAX (n, 1));
          val->own_cap = n;
          s->allocations++;
        }
      GBytes **p = val->own;
      for (gint64 i = 0; i < tensor_numel (t); i++)
        p[i] = tensor_string (t, i);
      rt_from_tensor (r, t, val->own);
      return TRUE;
    }
  void *data = (void *) tensor_data (t);
  gsize align = MAX (rt_dtype_size (tensor_dtype (t)), 1);
  if (data == NULL || ((guintptr) data) % align != 0)
    {
      /* Misaligned (or empty) data: copy into the value's own buffer. */
      RtValue *val = &s->values[vi];
      gsize n = tensor_nbytes (t);
      if (val->own_cap < n || val->own == NULL)
        {
          g_free (val->own);
          val->own = g_malloc (MAX (n, 1));
          val->own_cap = n;
          s->allocations++;
        }
      if (n)
        memcpy (val->own, tensor_data (t), n);
      data = val->own;
    }
  rt_from_tensor (r, t, data);
  return TRUE;
}

/* The graph's type of a value with optional(...) unwrapped. */
static GraphType *
value_type_unwrapped (GraphValue *v)
{
  GraphType *ty = graph_value_type (v);
  while (ty && graph_type_kind (ty) == GRAPH_TYPE_OPTIONAL && graph_type_n_elems (ty) == 1)
    ty = graph_type_elem (ty, 0);
  return ty;
}

static gboolean
check_input (RtSession *s, GraphValue *v, const Tensor *t, GError **error)
{
  GraphType *ty = value_type_unwrapped (v);
  const char *name = value_label (v);
  if (ty && graph_type_kind (ty) == GRAPH_TYPE_LIST)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                   "input '%s': a tensor where the graph expects a sequence", name);
      return FALSE;
    }
  if (ty == NULL || !graph_type_is_tensor (ty))
    return TRUE;
  GraphDType want = graph_type_dtype (ty);
  if (want != GRAPH_DTYPE_UNDEFINED && want != tensor_dtype (t))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                   "input '%s': element type %s, the graph expects %s", name,
                   graph_dtype_name (tensor_dtype (t)), graph_dtype_name (want));
      return FALSE;
    }
  int rank = graph_type_rank (ty);
  if (rank >= 0 && (guint) rank != tensor_rank (t))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                   "input '%s': rank %u, the graph expects rank %d", name, tensor_rank (t), rank);
      return FALSE;
    }
  for (int i = 0; rank > 0 && i < rank; i++)
    {
      const GraphDim *d = graph_type_dim (ty, i);
      if (d && d->kind == GRAPH_DIM_STATIC && d->value != tensor_dim (t, i))
        {
          g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                       "input '%s': dimension %d is %" G_GINT64_FORMAT
                       ", the graph expects %" G_GINT64_FORMAT, name, i, tensor_dim (t, i),
                       d->value);
          return FALSE;
        }
    }
  (void) s;
  return TRUE;
}

/* An outer value (Note [Subgraphs]) from the nearest enclosing session
 * that holds it. */
static gboolean
bind_outer (RtSession *s, int vi, GError **error)
{
  GraphValue *v = s->values[vi].v;
  for (RtSession *p = s->parent; p; p = p->parent)
    {
      gpointer idx;
      if (!g_hash_table_lookup_extended (p->index, v, NULL, &idx))
        continue;
      int pi = GPOINTER_TO_INT (idx);
      if (p->present == NULL || !p->present[pi])
        continue;
      if (p->device && !rt_device_to_host (p, pi, FALSE, error))
        return FALSE;
      s->rt[vi] = p->rt[pi];
      s->present[vi] = TRUE;
      return TRUE;
    }
  g_set_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH,
               "subgraph value '%s' of an enclosing graph has no value", value_label (v));
  return FALSE;
}

/* A caller's sequence or none value for input vi. */
static gboolean
bind_any (RtSession *s, int vi, const RtAny *a, GError **error)
{
  RtValue *val = &s->values[vi];
  const char *name = value_label (val->v);
  GraphType *ty = value_type_unwrapped (val->v);
  if (a->kind == RT_ANY_NONE)
    {
      if (graph_value_type (val->v)
          && graph_type_kind (graph_value_type (val->v)) != GRAPH_TYPE_OPTIONAL)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                       "input '%s': an optional without value where the graph expects no "
                       "optional", name);
          return FALSE;
        }
      memset (&s->rt[vi], 0, sizeof s->rt[vi]);
      s->rt[vi].kind = RT_KIND_NONE;
      s->rt[vi].dtype = a->elem_type;
      return TRUE;
    }
  if (ty && graph_type_kind (ty) != GRAPH_TYPE_LIST)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                   "input '%s': a sequence where the graph expects no sequence", name);
      return FALSE;
    }
  if (val->store == NULL)
    val->store = rt_store_new ();
  rt_store_reset (val->store, RT_KIND_SEQUENCE, a->elem_type);
  for (guint i = 0; i < a->items->len; i++)
    {
      const Tensor *t = g_ptr_array_index (a->items, i);
      if (tensor_dtype (t) != GRAPH_DTYPE_STRING && !tensor_has_data (t))
        {
          g_set_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED,
                       "input '%s': item %u is a data-less tensor", name, i);
          return FALSE;
        }
      if (a->elem_type != GRAPH_DTYPE_UNDEFINED && tensor_dtype (t) != a->elem_type)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_INPUT,
                       "input '%s': item %u is %s in a sequence of %s", name, i,
                       graph_dtype_name (tensor_dtype (t)), graph_dtype_name (a->elem_type));
          return FALSE;
        }
      RtTensor *o = rt_store_append (val->store, tensor_dtype (t), tensor_rank (t),
                                     tensor_dims (t), s->options.max_tensor_bytes, error);
      if (o == NULL)
        {
          g_prefix_error (error, "input '%s': ", name);
          return FALSE;
        }
      if (tensor_dtype (t) == GRAPH_DTYPE_STRING)
        for (gint64 k = 0; k < o->numel; k++)
          ((GBytes **) o->data)[k] = tensor_string (t, k);
      else if (o->numel)
        memcpy (o->data, tensor_data (t), tensor_nbytes (t));
    }
  s->rt[vi] = val->store->value;
  return TRUE;
}

/* With `body`, graph inputs are left unbound (rt_body_run binds them).
 * With `any`, `inputs` holds RtAny* values, otherwise Tensor*. */
static gboolean
bind_inputs (RtSession *s, GHashTable *inputs, gboolean any, gboolean body, GError **error)
{
  for (guint vi = 0; vi < s->n_values; vi++)
    {
      RtValue *val = &s->values[vi];
      s->present[vi] = FALSE;
      if (val->absent)
        continue;
      const char *name = graph_value_get_name (val->v);
      gpointer found = (val->is_input && name && inputs) ? g_hash_table_lookup (inputs, name) : NULL;
      Tensor *given = any ? NULL : found;
      if (any && found)
        {
          const RtAny *a = found;
          if (a->kind == RT_ANY_TENSOR)
            given = a->tensor;
          else
            {
              if (!bind_any (s, (int) vi, a, error))
                return FALSE;
              s->present[vi] = TRUE;
              if (s->device)
                rt_device_bound (s, (int) vi, FALSE);
              continue;
            }
        }
      if (given)
        {
          if (!check_input (s, val->v, given, error) || !bind_tensor (s, vi, given, "input", error))
            return FALSE;
          s->present[vi] = TRUE;
          if (s->device)
            rt_device_bound (s, (int) vi, FALSE);
        }
      else if (val->constant)
        {
          if (!bind_tensor (s, vi, val->constant, "constant", error))
            return FALSE;
          s->present[vi] = TRUE;
          if (s->device)
            rt_device_bound (s, (int) vi, TRUE);
        }
      else if (val->outer)
        {
          if (!bind_outer (s, vi, error))
            return FALSE;
        }
      else if (val->is_input && !body)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_INPUT, "missing input '%s'", value_label (val->v));
          return FALSE;
        }
    }
  return TRUE;
}

/* The run's time budget (RtOptions.max_seconds), held by the outermost
 * session: checked before every node, bodies' nodes included. */
static gboolean
within_budget (RtSession *s, RtNodePlan *p, GError **error)
{
  RtSession *root = s;
  while (root->parent)
    root = root->parent;
  if (root->deadline == 0 || g_get_monotonic_time () < root->deadline)
    return TRUE;
  rt_node_error (p->node, error, RT_ERROR_TOO_LARGE,
                 "the run took longer than its budget of %g s (RtOptions.max_seconds, "
                 "--max-seconds)", root->options.max_seconds);
  return FALSE;
}

static gboolean
run_node (RtSession *s, RtNodePlan *p, GError **error)
{
  if (!within_budget (s, p, error))
    return FALSE;
  for (guint i = 0; i < p->n_in; i++)
    {
      int vi = p->in_idx[i];
      s->node_inputs[i] = (vi >= 0 && s->present[vi]) ? &s->rt[vi] : NULL;
      if (vi >= 0 && !s->present[vi])
        {
          rt_node_error (p->node, error, RT_ERROR_INVALID_GRAPH,
                         "input %u (%s) has no value", i, value_label (s->values[vi].v));
          return FALSE;
        }
    }
  RtCall call = {
    .ctx = s, .node = p->node, .opset = p->opset, .state = p->state, .data = p->def->data,
    .n_inputs = p->n_in, .inputs = s->node_inputs, .n_outputs = p->n_out,
  };
  s->current = p;
  const RtTensor *in0 = p->n_in ? s->node_inputs[0] : NULL;
  /* A trace's kernels (aten::, prim::) read None as an absent input. */
  gboolean trace_kernel = strcmp (p->def->domain, "aten") == 0 || strcmp (p->def->domain, "prim") == 0
                          || strcmp (p->def->domain, "quantized") == 0
                          || strcmp (p->def->domain, RT_ATEN_QUANTIZED) == 0;
  for (guint i = 0; trace_kernel && i < p->n_in; i++)
    if (s->node_inputs[i] && s->node_inputs[i]->kind == RT_KIND_NONE)
      s->node_inputs[i] = NULL;
  /* An ordinary kernel would take a quantized tensor's integers for its
   * values (Note [Quantized tensors]): only the quantized ones read them. */
  gboolean quantized_kernel = strcmp (p->def->domain, "quantized") == 0
                              || strcmp (p->def->domain, RT_ATEN_QUANTIZED) == 0;
  for (guint i = 0; !quantized_kernel && i < p->n_in; i++)
    if (rt_is_quantized (s->node_inputs[i]))
      {
        rt_call_error (&call, error, RT_ERROR_UNSUPPORTED, "input %u is a quantized tensor, which this "
                       "kernel does not take (its type was not declared quantized in the trace)", i);
        return FALSE;
      }
  for (guint i = 0; i < p->n_in; i++)
    if (s->node_inputs[i] && s->node_inputs[i]->kind != RT_KIND_TENSOR
        && !rt_kernel_takes_values (p->def))
      {
        rt_call_error (&call, error, RT_ERROR_UNSUPPORTED, "input %u is a %s, not a tensor", i,
                       s->node_inputs[i]->kind == RT_KIND_SEQUENCE ? "sequence"
                                                                   : "optional without value");
        return FALSE;
      }
  if (p->def->dtypes && in0 && in0->kind == RT_KIND_TENSOR
      && !rt_kernel_takes_dtype (p->def, in0->dtype))
    {
      rt_call_error (&call, error, RT_ERROR_UNSUPPORTED, "element type %s is not supported",
                     graph_dtype_name (in0->dtype));
      return FALSE;
    }
  /* inputs that share a type parameter (MatMul's A and B) have one element
   * type: a kernel checks input 0's only, and would read the other's bytes
   * in its type (runtime/onnx-type-params.h) */
  guint ta, tb;
  const char *param;
  int param_len;
  if (strcmp (p->def->domain, "onnx") == 0 && !rt_fuse_is_fused_def (p->def)
      && !rt_onnx_type_params_check (p->def->op, p->opset, p->n_in, s->node_inputs, &ta, &tb,
                                     &param, &param_len))
    {
      rt_call_error (&call, error, RT_ERROR_INVALID_GRAPH,
                     "input %u is %s but input %u is %s: %s (opset %" G_GINT64_FORMAT ") takes one "
                     "element type for both (type constraint %.*s)", tb,
                     graph_dtype_name (s->node_inputs[tb]->dtype), ta,
                     graph_dtype_name (s->node_inputs[ta]->dtype), p->def->op, p->opset, param_len,
                     param);
      return FALSE;
    }
  /* float16 into a kernel written for float: on float copies (half.c) */
  gboolean as_float = p->def->dtypes && in0 && in0->kind == RT_KIND_TENSOR
                      && in0->dtype == GRAPH_DTYPE_FLOAT16
                      && !(p->def->dtypes & RT_DT (FLOAT16));
  gboolean ran = FALSE;
  if (s->device && !rt_device_run_node (s, p, &call, &ran, error))
    return FALSE;
  if (!ran)
    {
      if (s->device && !rt_device_inputs_to_host (s, p, error))
        return FALSE;
      if (!rt_concat_views_before (s, p, error))
        return FALSE;
      GError *kerr = NULL;
      if (!(as_float ? rt_run_as_float (&call, p->def->run, &kerr) : p->def->run (&call, &kerr)))
        {
          /* a kernel that fails must say why; one that does not is our bug
           * (OneHot's NaN depth), reported as such, not a NULL error */
          if (kerr == NULL)
            rt_call_error (&call, &kerr, RT_ERROR_INVALID_GRAPH,
                           "the kernel failed without saying why (a symonnx bug; please report it)");
          g_propagate_error (error, kerr);
          return FALSE;
        }
      if (s->device)
        rt_device_outputs_on_host (s, p);
      rt_concat_views_after (s, p);
    }
  for (guint i = 0; i < p->n_out; i++)
    if (!s->present[p->out_idx[i]])
      {
        /* An optional output the kernel did not produce (e.g. Dropout's mask). */
        if (graph_value_n_uses (graph_node_output (p->node, i)) > 0
            || s->values[p->out_idx[i]].keep)
          {
            rt_call_error (&call, error, RT_ERROR_UNSUPPORTED, "output %u is not computed", i);
            return FALSE;
          }
      }
  return TRUE;
}

/* The plan's nodes in order; with RtOptions.profile each one's time. */
static gboolean
run_nodes (RtSession *s, GError **error)
{
  gboolean ok = TRUE;
  if (s->options.profile)
    {
      for (guint ni = 0; ok && ni < s->n_nodes; ni++)
        {
          gint64 t0 = rt_profile_clock_ns ();
          ok = run_node (s, &s->nodes[ni], error);
          s->nodes[ni].prof_ns += rt_profile_clock_ns () - t0;
        }
      s->profiled_runs += ok;
    }
  else
    for (guint ni = 0; ok && ni < s->n_nodes; ni++)
      ok = run_node (s, &s->nodes[ni], error);
  return ok;
}

/* A STRING RtTensor as an IR tensor (NULL entries: empty strings). */
static Tensor *
strings_to_tensor (const RtTensor *r, GError **error)
{
  GBytes *const *p = r->data;
  g_autoptr (GBytes) empty = g_bytes_new_static ("", 0);
  g_autofree GBytes **v = g_new (GBytes *, MAX (r->numel, 1));
  for (gint64 i = 0; i < r->numel; i++)
    v[i] = p[i] ? p[i] : empty;
  return tensor_new_strings (r->rank, r->dims, v, error);
}

static Tensor *
rt_to_tensor (const RtTensor *r, GError **error)
{
  return r->dtype == GRAPH_DTYPE_STRING
         ? strings_to_tensor (r, error)
         : tensor_new_from_data (r->dtype, r->rank, r->dims, r->data,
                                 r->numel * rt_dtype_size (r->dtype), error);
}

RtAny *
rt_any_new_tensor (Tensor *t)
{
  RtAny *a = g_new0 (RtAny, 1);
  a->kind = RT_ANY_TENSOR;
  a->elem_type = tensor_dtype (t);
  a->tensor = tensor_ref (t);
  return a;
}

RtAny *
rt_any_new_sequence (GraphDType elem_type)
{
  RtAny *a = g_new0 (RtAny, 1);
  a->kind = RT_ANY_SEQUENCE;
  a->elem_type = elem_type;
  a->items = g_ptr_array_new_with_free_func ((GDestroyNotify) tensor_unref);
  return a;
}

RtAny *
rt_any_new_none (GraphDType elem_type)
{
  RtAny *a = g_new0 (RtAny, 1);
  a->kind = RT_ANY_NONE;
  a->elem_type = elem_type;
  return a;
}

void
rt_any_free (RtAny *a)
{
  if (a == NULL)
    return;
  g_clear_pointer (&a->tensor, tensor_unref);
  g_clear_pointer (&a->items, g_ptr_array_unref);
  g_free (a);
}

static RtAny *
rt_to_any (const RtTensor *r, GError **error)
{
  if (r->kind == RT_KIND_NONE)
    return rt_any_new_none (r->dtype);
  if (r->kind == RT_KIND_TENSOR)
    {
      g_autoptr (Tensor) t = rt_to_tensor (r, error);
      return t ? rt_any_new_tensor (t) : NULL;
    }
  g_autoptr (RtAny) a = rt_any_new_sequence (r->dtype);
  const RtSequence *seq = r->data;
  for (guint i = 0; i < seq->n; i++)
    {
      Tensor *t = rt_to_tensor (&seq->items[i], error);
      if (t == NULL)
        return NULL;
      g_ptr_array_add (a->items, t);
    }
  return g_steal_pointer (&a);
}

static gboolean
session_run (RtSession *s, GHashTable *inputs, gboolean any, GHashTable *outputs,
             GError **error)
{
  g_return_val_if_fail (s != NULL, FALSE);
  s->allocations = 0;
  if (s->strings)
    g_ptr_array_set_size (s->strings, 0);
  if (s->options.threads > 0 && rt_blas.set_num_threads != NULL)
    rt_blas.set_num_threads (s->options.threads);
  g_autofree gboolean *present = g_new0 (gboolean, MAX (s->n_values, 1));
  s->present = present;
  s->deadline = s->options.max_seconds > 0
                  ? g_get_monotonic_time () + (gint64) (s->options.max_seconds * G_USEC_PER_SEC)
                  : 0;
  if (s->device)
    rt_device_begin_run (s);
  gboolean ok = bind_inputs (s, inputs, any, FALSE, error) && run_nodes (s, error);
  for (guint i = 0; ok && i < s->returned->len; i++)
    {
      GraphValue *v = g_ptr_array_index (s->returned, i);
      int vi = GPOINTER_TO_INT (g_hash_table_lookup (s->index, v));
      const char *name = graph_value_get_name (v);
      g_autofree char *fallback = name ? NULL : g_strdup (value_label (v));
      if (!s->present[vi])
        {
          g_set_error (error, RT_ERROR, RT_ERROR_FAILED, "output '%s' was not computed",
                       value_label (v));
          ok = FALSE;
          break;
        }
      if (s->device && !rt_device_to_host (s, vi, TRUE, error))
        {
          ok = FALSE;
          break;
        }
      RtTensor *r = &s->rt[vi];
      if (!any && r->kind != RT_KIND_TENSOR)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_UNSUPPORTED,
                       "output '%s' is a %s: use rt_session_run_any()", value_label (v),
                       r->kind == RT_KIND_SEQUENCE ? "sequence" : "optional without value");
          ok = FALSE;
          break;
        }
      gpointer t = any ? (gpointer) rt_to_any (r, error) : (gpointer) rt_to_tensor (r, error);
      if (t == NULL)
        {
          ok = FALSE;
          break;
        }
      if (outputs)
        g_hash_table_replace (outputs, g_strdup (name ? name : fallback), t);
      else if (any)
        rt_any_free (t);
      else
        tensor_unref (t);
    }
  s->present = NULL;
  s->current = NULL;
  return ok;
}

gboolean
rt_session_run (RtSession *s, GHashTable *inputs, GHashTable *outputs, GError **error)
{
  return session_run (s, inputs, FALSE, outputs, error);
}

gboolean
rt_session_run_any (RtSession *s, GHashTable *inputs, GHashTable *outputs, GError **error)
{
  return session_run (s, inputs, TRUE, outputs, error);
}

/* ---- kernel services -------------------------------------------------------- */

gboolean
rt_slot_reserve (RtSession *s, RtSlot *slot, gsize nbytes)
{
  if (slot->cap >= nbytes && slot->mem != NULL)
    return TRUE;
  free (slot->mem);
  gsize cap = MAX (nbytes, 64);
  slot->mem = NULL;
  if (posix_memalign (&slot->mem, 64, (cap + 63) & ~(gsize) 63) != 0)
    {
      slot->cap = 0;
      slot->mem = NULL;
      return FALSE;
    }
  slot->cap = cap;
  s->allocations++;
  return TRUE;
}

RtTensor *
rt_call_output (RtCall *call, guint i, GraphDType dtype, guint rank, const gint64 *dims,
                GError **error)
{
  RtSession *s = call->ctx;
  RtNodePlan *p = s->current;
  g_return_val_if_fail (i < p->n_out, NULL);
  gsize nbytes;
  if (rank > RT_MAX_RANK)
    {
      rt_call_error (call, error, RT_ERROR_UNSUPPORTED, "output rank %u above %d", rank,
                     RT_MAX_RANK);
      return NULL;
    }
  if (!rt_shape_admissible (dtype, rank, dims, s->options.max_tensor_bytes, &nbytes))
    {
      g_autoptr (GString) shape = g_string_new (NULL);
      rt_append_shape (shape, rank, dims);
      rt_call_error (call, error, RT_ERROR_TOO_LARGE,
                     "output %u of shape %s is invalid or larger than the limit of %"
                     G_GUINT64_FORMAT " bytes (an empty tensor's other dims count too)", i,
                     shape->str, s->options.max_tensor_bytes);
      return NULL;
    }
  int vi = p->out_idx[i];
  RtSlot *slot = &s->slots[s->values[vi].slot];
  if (s->device_node_running)
    {
      /* A device kernel's output (Note [Backends]): the host view has no data. */
      gpointer dmem = rt_device_slot_mem (s, slot, nbytes, error);
      if (dmem == NULL)
        {
          g_prefix_error (error, "%s: output %u: ", rt_node_label (call->node), i);
          return NULL;
        }
      RtTensor *r = &s->rt[vi];
      memset (r, 0, sizeof *r);
      r->dtype = dtype;
      r->rank = rank;
      if (rank)
        memcpy (r->dims, dims, rank * sizeof (gint64));
      r->numel = rt_shape_numel (rank, dims);
      s->drt[vi] = *r;
      s->drt[vi].data = dmem;
      s->present[vi] = TRUE;
      return &s->drt[vi];
    }
  void *data = dtype != GRAPH_DTYPE_STRING ? rt_concat_view (s, vi, nbytes) : NULL;
  if (data == NULL && !rt_slot_reserve (s, slot, nbytes))
    {
      rt_call_error (call, error, RT_ERROR_TOO_LARGE, "cannot allocate %zu bytes", nbytes);
      return NULL;
    }
  RtTensor *r = &s->rt[vi];
  r->kind = RT_KIND_TENSOR;
  r->dtype = dtype;
  r->rank = rank;
  if (rank)
    memcpy (r->dims, dims, rank * sizeof (gint64));
  r->numel = rt_shape_numel (rank, dims);
  r->data = data ? data : slot->mem;
  rt_set_quantized (r, 0, 0);   /* Note [Quantized tensors] */
  if (dtype == GRAPH_DTYPE_STRING && nbytes)
    memset (r->data, 0, nbytes);
  s->present[vi] = TRUE;
  return r;
}

/* The store of output i's slot, made empty of `kind`. */
static RtStore *
output_store (RtCall *call, guint i, RtKind kind, GraphDType elem)
{
  RtSession *s = call->ctx;
  RtNodePlan *p = s->current;
  g_return_val_if_fail (i < p->n_out, NULL);
  int vi = p->out_idx[i];
  RtSlot *slot = &s->slots[s->values[vi].slot];
  if (slot->store == NULL)
    slot->store = rt_store_new ();
  rt_store_reset (slot->store, kind, elem);
  s->rt[vi] = slot->store->value;
  s->present[vi] = TRUE;
  return slot->store;
}

gboolean
rt_call_output_sequence (RtCall *call, guint i, GraphDType elem, GError **error)
{
  (void) error;
  return output_store (call, i, RT_KIND_SEQUENCE, elem) != NULL;
}

gboolean
rt_call_output_none (RtCall *call, guint i, GraphDType elem, GError **error)
{
  (void) error;
  return output_store (call, i, RT_KIND_NONE, elem) != NULL;
}

RtTensor *
rt_call_sequence_append (RtCall *call, guint i, GraphDType dtype, guint rank,
                         const gint64 *dims, GError **error)
{
  RtSession *s = call->ctx;
  RtNodePlan *p = s->current;
  g_return_val_if_fail (i < p->n_out, NULL);
  int vi = p->out_idx[i];
  RtSlot *slot = &s->slots[s->values[vi].slot];
  if (!s->present[vi] || s->rt[vi].kind != RT_KIND_SEQUENCE || slot->store == NULL)
    output_store (call, i, RT_KIND_SEQUENCE, dtype);
  RtTensor *t = rt_store_append (slot->store, dtype, rank, dims, s->options.max_tensor_bytes,
                                 error);
  if (t == NULL)
    g_prefix_error (error, "%s: output %u: ", rt_node_label (call->node), i);
  else if (s->rt[vi].dtype == GRAPH_DTYPE_UNDEFINED)
    s->rt[vi].dtype = slot->store->value.dtype = dtype;   /* the first item tells */
  return t;
}

gboolean
rt_call_output_value (RtCall *call, guint i, const RtTensor *v, GError **error)
{
  if (v->kind == RT_KIND_TENSOR)
    {
      RtTensor *o = rt_call_output (call, i, v->dtype, v->rank, v->dims, error);
      if (o == NULL)
        return FALSE;
      if (o->numel)
        memmove (o->data, v->data, (gsize) v->numel * rt_dtype_size (v->dtype));
      return TRUE;
    }
  if (v->kind == RT_KIND_NONE)
    return rt_call_output_none (call, i, v->dtype, error);
  const RtSequence *seq = v->data;
  if (!rt_call_output_sequence (call, i, v->dtype, error))
    return FALSE;
  for (guint k = 0; k < seq->n; k++)
    {
      const RtTensor *t = &seq->items[k];
      RtTensor *o = rt_call_sequence_append (call, i, t->dtype, t->rank, t->dims, error);
      if (o == NULL)
        return FALSE;
      if (o->numel)
        memcpy (o->data, t->data, (gsize) t->numel * rt_dtype_size (t->dtype));
    }
  return TRUE;
}

GBytes *
rt_call_keep_string (RtCall *call, GBytes *b)
{
  RtSession *s = call->ctx;
  while (s->parent)
    s = s->parent;
  if (s->strings == NULL)
    s->strings = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (s->strings, b);
  return b;
}

RtTensor *
rt_call_output_tensor (RtCall *call, guint i)
{
  RtSession *s = call->ctx;
  RtNodePlan *p = s->current;
  g_return_val_if_fail (i < p->n_out, NULL);
  int vi = p->out_idx[i];
  return s->present[vi] ? &s->rt[vi] : NULL;
}

RtTensor *
rt_call_output_like (RtCall *call, guint i, const RtTensor *like, GError **error)
{
  return rt_call_output (call, i, like->dtype, like->rank, like->dims, error);
}

gpointer
rt_call_scratch_n (RtCall *call, guint which, gsize nbytes, GError **error)
{
  RtSession *s = call->ctx;
  g_return_val_if_fail (which < RT_N_SCRATCH, NULL);
  if (nbytes > s->options.max_tensor_bytes)
    {
      rt_call_error (call, error, RT_ERROR_TOO_LARGE, "needs %zu bytes of scratch memory", nbytes);
      return NULL;
    }
  if (s->scratch_cap[which] < nbytes || s->scratch[which] == NULL)
    {
      free (s->scratch[which]);
      s->scratch[which] = NULL;
      gsize cap = (MAX (nbytes, 64) + 63) & ~(gsize) 63;
      if (posix_memalign (&s->scratch[which], 64, cap) != 0)
        {
          s->scratch_cap[which] = 0;
          s->scratch[which] = NULL;
          rt_call_error (call, error, RT_ERROR_TOO_LARGE, "cannot allocate %zu bytes", nbytes);
          return NULL;
        }
      s->scratch_cap[which] = cap;
      s->allocations++;
    }
  return s->scratch[which];
}

gpointer
rt_call_scratch (RtCall *call, gsize nbytes, GError **error)
{
  return rt_call_scratch_n (call, 0, nbytes, error);
}

int
rt_call_threads (const RtCall *call)
{
  return MAX (call->ctx->options.threads, 1);
}

/* ---- subgraph bodies (Note [Subgraphs]) ------------------------------------ */

RtSession *
rt_body_new (Graph *body, GError **error)
{
  g_autoptr (GError) lint_error = NULL;
  if (!graph_lint (body, &lint_error))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_INVALID_GRAPH, "invalid subgraph: %s",
                   lint_error->message);
      return NULL;
    }
  g_autoptr (RtSession) s = g_new0 (RtSession, 1);
  s->graph = body;
  s->options.max_tensor_bytes = RT_DEFAULT_MAX_TENSOR_BYTES;
  s->options.max_loop_iterations = RT_DEFAULT_MAX_LOOP_ITERATIONS;
  s->index = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->required = g_ptr_array_new ();
  s->returned = g_ptr_array_new ();
  /* Outer values first, so the plan sees them defined. */
  g_autoptr (GHashTable) outer = g_hash_table_new (g_direct_hash, g_direct_equal);
  collect_free_values (body, outer);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, outer);
  while (g_hash_table_iter_next (&it, &v, NULL))
    {
      int vi = value_index (s, v);   /* may move s->values */
      s->values[vi].outer = TRUE;
    }
  if (!plan_nodes (s, error) || !plan_values (s, error))
    return NULL;
  s->body_present = g_new0 (gboolean, MAX (s->n_values, 1));
  return g_steal_pointer (&s);
}

gboolean
rt_body_run (RtSession *s, RtCall *call, guint n_inputs, const RtTensor *const *inputs,
             guint n_outputs, const RtTensor **outputs, GError **error)
{
  Graph *g = s->graph;
  if (n_inputs != graph_n_inputs (g) || n_outputs != graph_n_outputs (g))
    {
      rt_call_error (call, error, RT_ERROR_INVALID_GRAPH,
                     "the subgraph has %u inputs and %u outputs; the op needs %u and %u",
                     graph_n_inputs (g), graph_n_outputs (g), n_inputs, n_outputs);
      return FALSE;
    }
  s->parent = call->ctx;
  s->options.threads = call->ctx->options.threads;
  s->options.max_tensor_bytes = call->ctx->options.max_tensor_bytes;
  s->options.max_loop_iterations = call->ctx->options.max_loop_iterations;
  s->options.max_seconds = call->ctx->options.max_seconds;
  s->present = s->body_present;
  gboolean ok = bind_inputs (s, NULL, FALSE, TRUE, error);
  for (guint i = 0; ok && i < n_inputs; i++)
    {
      int vi = GPOINTER_TO_INT (g_hash_table_lookup (s->index, graph_input (g, i)));
      if (inputs[i] == NULL)
        continue;
      s->rt[vi] = *inputs[i];
      s->present[vi] = TRUE;
    }
  ok = ok && run_nodes (s, error);
  for (guint i = 0; ok && i < n_outputs; i++)
    {
      int vi = GPOINTER_TO_INT (g_hash_table_lookup (s->index, graph_output (g, i)));
      if (s->values[vi].absent)
        {
          /* a trace block's None (prim::If of scripted code): an
           * optional without value, which aten kernels read as None */
          static const RtTensor none = { .kind = RT_KIND_NONE };
          outputs[i] = &none;
          continue;
        }
      if (!s->present[vi])
        {
          rt_call_error (call, error, RT_ERROR_FAILED, "subgraph output %u was not computed", i);
          ok = FALSE;
        }
      outputs[i] = &s->rt[vi];
    }
  s->present = NULL;
  s->current = NULL;
  s->parent = NULL;
  if (!ok && error && *error)
    g_prefix_error (error, "%s: in its subgraph: ", rt_node_label (call->node));
  return ok;
}
