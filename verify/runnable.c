/* A trace as the executor runs it: the reference of `symonnx verify`
 * without --expected and of verify_localize. */
#include "verify/verify-private.h"
#include "export/pipeline/view-mutation.h"
#include <string.h>

G_DEFINE_QUARK (verify-error-quark, verify_error)

char *
verify_getattr_path (GraphValue *v)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  for (GraphNode *p; (p = graph_value_node (v)) != NULL; v = graph_node_input (p, 0))
    {
      const char *name;
      if (!graph_node_is (p, "prim::GetAttr") || graph_node_n_inputs (p) != 1
          || !graph_node_get_s (p, "name", &name, NULL) || graph_node_input (p, 0) == NULL)
        return NULL;
      g_ptr_array_insert (parts, 0, (gpointer) name);
    }
  if (parts->len == 0)
    return NULL;
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (".", (char **) parts->pdata);
}

static gboolean
is_class (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  return t && graph_type_kind (t) == GRAPH_TYPE_CLASS;
}

/* A prim::ListConstruct of tensors (by its type, or by an element's). */
static gboolean
is_tensor_list (GraphNode *n)
{
  if (!graph_node_is (n, "prim::ListConstruct"))
    return FALSE;
  GraphType *t = graph_value_type (graph_node_output (n, 0));
  GraphType *e = t && graph_type_kind (t) == GRAPH_TYPE_LIST ? graph_type_elem (t, 0) : NULL;
  if (e && graph_type_kind (e) == GRAPH_TYPE_OPTIONAL)   /* Tensor?[] (index's indices) */
    e = graph_type_elem (e, 0);
  if (e)
    return graph_type_is_tensor (e);
  for (guint i = 0; i < graph_node_n_inputs (n); i++)
    {
      GraphValue *e = graph_node_input (n, i);
      if (e && graph_value_type (e) && graph_type_is_tensor (graph_value_type (e)))
        return TRUE;
    }
  return FALSE;
}

/* user's input `at` := the n values `vals`, in place. */
static void
splice_values (GraphNode *user, guint at, GraphValue *const *vals, guint n)
{
  g_autoptr (GPtrArray) ins = g_ptr_array_new ();
  for (guint i = 0; i < graph_node_n_inputs (user); i++)
    if (i != at)
      g_ptr_array_add (ins, graph_node_input (user, i));
    else
      for (guint k = 0; k < n; k++)
        g_ptr_array_add (ins, vals[k]);
  while (graph_node_n_inputs (user) > 0)
    graph_node_remove_input (user, graph_node_n_inputs (user) - 1);
  for (guint i = 0; i < ins->len; i++)
    graph_node_add_input (user, ins->pdata[i]);
}

/* user's input `at` (a tensor list) := the list's elements, in place, as
 * torch's ATen fallback passes a Tensor[] (runtime/k-aten-private.h). */
static void
splice_list (GraphNode *user, guint at, GraphNode *list)
{
  g_autofree GraphValue **vals = g_new0 (GraphValue *, graph_node_n_inputs (list) + 1);
  for (guint k = 0; k < graph_node_n_inputs (list); k++)
    vals[k] = graph_node_input (list, k);
  splice_values (user, at, vals, graph_node_n_inputs (list));
}

/* Note [Packed parameters in the trace run]
 * quantized::conv2d and quantized::linear read their weights from a
 * packed-parameters object (a prim::GetAttr of class type
 * __torch__.torch.classes.quantized.Conv2dPackedParamsBase or
 * LinearPackedParamsBase), which torch2trace stores unpacked under its
 * path P (Note [Quantized tensors in safetensors], python/symonnx/_trace.py).
 * In the run, the object becomes those fields in place, as a Tensor[] is
 * spliced: P.weight (its integers), P.weight:scale, P.weight:zero_point
 * (one value or one per output channel), P.weight:axis (None per tensor),
 * P.bias (None when absent), and for a convolution P.stride, P.padding,
 * P.dilation and P.groups: quantized::conv2d(qx, packed, scale, zero_point)
 * runs as conv2d(qx, w, w_scale, w_zero_point, w_axis, bias, stride,
 * padding, dilation, groups, scale, zero_point) (runtime/k-aten-qconv.c). */
static gboolean
is_packed_params (GraphValue *v)
{
  GraphType *t = graph_value_type (v);
  const char *name = t && graph_type_kind (t) == GRAPH_TYPE_CLASS ? graph_type_name (t) : NULL;
  return name && g_str_has_prefix (name, "__torch__.torch.classes.quantized.");
}

static gboolean
splice_packed (Graph *g, Graph *root, GraphNode *n, GHashTable *weights, GError **error)
{
  GraphValue *out = graph_node_output (n, 0);
  const char *kind = graph_type_name (graph_value_type (out));
  g_autofree char *path = verify_getattr_path (out);
  gboolean conv = strstr (kind, "Conv2d") != NULL, linear = strstr (kind, "Linear") != NULL;
  if (path == NULL || (!conv && !linear))
    {
      g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_INPUT, "packed parameters %s of type %s: the trace's run "
                   "reads 2-D convolution and linear ones only", path ? path : "(not a module attribute)", kind);
      return FALSE;
    }
  static const char *const fields[] = { ".weight", ".weight:scale", ".weight:zero_point", ".weight:axis",
                                        ".bias", ".stride", ".padding", ".dilation", ".groups" };
  guint nf = conv ? G_N_ELEMENTS (fields) : 5;
  GraphValue *vals[G_N_ELEMENTS (fields)];
  g_autofree char *tkey = g_strconcat (path, ".transpose", NULL);
  Tensor *tr = weights ? g_hash_table_lookup (weights, tkey) : NULL;
  if (tr && tensor_numel (tr) == 1 && tensor_dtype (tr) == GRAPH_DTYPE_INT64
      && ((const gint64 *) tensor_data (tr))[0] != 0)
    {
      g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_INPUT, "packed parameters '%s': a transposed quantized "
                   "convolution has no kernel in the trace's run", path);
      return FALSE;
    }
  for (guint f = 0; f < nf; f++)
    {
      g_autofree char *key = g_strconcat (path, fields[f], NULL);
      Tensor *t = weights ? g_hash_table_lookup (weights, key) : NULL;
      gboolean optional = f == 3 || f == 4;
      if (t == NULL && optional)
        {
          GraphNode *none = graph_create_node (g, "prim::Constant", 0, NULL, 1);
          graph_node_insert_before (none, n);
          vals[f] = graph_node_output (none, 0);
          continue;
        }
      if (t == NULL)
        {
          g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_INPUT,
                       "packed parameters '%s' are not in the weights (no '%s'%s: trace the model with "
                       "tools/torch2trace.py, which stores them unpacked)", path, key,
                       weights ? "" : "; no --weights given");
          return FALSE;
        }
      vals[f] = graph_add_initializer (root, key, t);
    }
  g_autoptr (GPtrArray) users = g_ptr_array_new ();
  g_autoptr (GArray) slots = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint u = 0; u < graph_value_n_uses (out); u++)
    {
      const GraphUse *use = graph_value_use (out, u);
      g_ptr_array_add (users, use->node);
      g_array_append_val (slots, use->index);
    }
  for (guint u = users->len; u-- > 0;)
    splice_values (users->pdata[u], g_array_index (slots, guint, u), vals, nf);
  return TRUE;
}

/* v's uses by nodes after `after` in its graph, and g's outputs, read nv
 * instead; FALSE when a later use is in another graph (a block). */
static gboolean
replace_uses_after (Graph *g, GraphValue *v, GraphNode *after, GraphValue *nv)
{
  g_autoptr (GHashTable) later = g_hash_table_new (NULL, NULL);
  for (GraphNode *m = graph_node_next (after); m; m = graph_node_next (m))
    g_hash_table_add (later, m);
  g_autoptr (GArray) uses = g_array_new (FALSE, FALSE, sizeof (GraphUse));
  for (guint u = 0; u < graph_value_n_uses (v); u++)
    g_array_append_val (uses, *graph_value_use (v, u));
  for (guint u = 0; u < uses->len; u++)
    {
      const GraphUse *use = &g_array_index (uses, GraphUse, u);
      if (g_hash_table_contains (later, use->node))
        graph_node_set_input (use->node, use->index, nv);
      else if (graph_node_graph (use->node) != g)
        return FALSE;
    }
  for (guint i = 0; i < graph_n_outputs (g); i++)
    if (graph_output (g, i) == v)
      graph_set_output (g, i, nv);
  return TRUE;
}

/* An in-place write into a chain of slice/select views of a tensor read
 * later (`m[0:2, 1:3] = 5`: aten::slice, aten::slice, aten::fill_; detach
 * and alias pass the whole value): each
 * level written back into its base with aten::slice_scatter /
 * aten::select_scatter after n, and the base's later reads read that, as
 * PyTorch's tensors share storage (the export does the same with
 * ScatterElements); a view made before n and read after it is made again
 * from the written values (Note [Aliases of a written tensor]).  What the
 * export refuses is refused. */
static gboolean
write_back_view (Graph *g, GraphNode *n, const ExportViewWrite *plan, GError **error)
{
  const char *src = graph_node_get_source (n);
  if (plan->why)
    {
      g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN,
                   "%s%s%s writes in place into a view of a tensor read afterwards (%s): the trace's run "
                   "cannot reproduce it (give the expected outputs)",
                   graph_node_kind (n), src ? " at " : "", src ? src : "", plan->why);
      return FALSE;
    }
  GraphValue *child = graph_node_output (n, 0);
  GraphNode *after = n;
  GraphValue *self = graph_node_input (n, 0);
  /* old value -> written value, for the views made again */
  g_autoptr (GHashTable) now = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (now, self, child);
  if (graph_value_get_name (self) && plan->levels->len > 0)
    {
      /* the view's name to a copy of its written value, for --localize
       * (the result keeps its own name) */
      GraphNode *al = graph_create_node (g, "aten::alias", 1, &child, 1);
      graph_node_insert_after (al, after);
      after = al;
      g_autofree char *name = g_strdup (graph_value_get_name (self));
      graph_value_set_name (self, NULL);
      graph_value_set_name (graph_node_output (al, 0), name);
      if (graph_value_type (self))
        graph_value_set_type (graph_node_output (al, 0), graph_value_type (self));
    }
  for (guint l = 0; l < plan->levels->len; l++)
    {
      GraphNode *q = plan->levels->pdata[l];
      gboolean sel = graph_node_is (q, "aten::select"), same = export_view_is_identity (q);
      GraphValue *base = graph_node_input (q, 0);
      g_autoptr (GPtrArray) ins = g_ptr_array_new ();
      if (!same)
        g_ptr_array_add (ins, base);
      g_ptr_array_add (ins, child);
      for (guint k = 1; !same && k < graph_node_n_inputs (q); k++)
        g_ptr_array_add (ins, graph_node_input (q, k));
      /* an identity view's base takes the written value itself */
      GraphNode *sc = graph_create_node (g, same ? "aten::alias" : sel ? "aten::select_scatter" : "aten::slice_scatter",
                                         ins->len, (GraphValue *const *) ins->pdata, 1);
      graph_node_insert_after (sc, after);
      graph_node_set_scope (sc, graph_node_get_scope (n));
      graph_node_set_source (sc, src);
      GraphValue *nb = graph_node_output (sc, 0);
      if (graph_value_type (base))
        graph_value_set_type (nb, graph_value_type (base));
      /* (its later reads are replaced below, with the views made again) */
      /* The base's name goes to its written value: --localize compares a
       * trace value with what the export made of it after every write. */
      if (graph_value_node (base) && graph_value_get_name (base))
        {
          g_autofree char *name = g_strdup (graph_value_get_name (base));
          graph_value_set_name (base, NULL);
          graph_value_set_name (nb, name);
        }
      child = nb;
      after = sc;
      g_hash_table_insert (now, base, nb);
    }
  for (guint r = 0; r < plan->rederive->len; r++)
    {
      GraphNode *p = plan->rederive->pdata[r];
      guint n_in = graph_node_n_inputs (p), n_out = graph_node_n_outputs (p);
      g_autofree GraphValue **ins = g_new0 (GraphValue *, n_in + 1);
      for (guint k = 0; k < n_in; k++)
        {
          GraphValue *v = graph_node_input (p, k);
          GraphValue *w = v ? g_hash_table_lookup (now, v) : NULL;
          ins[k] = w ? w : v;
        }
      GraphNode *c = graph_create_node (g, graph_node_kind (p), n_in, ins, n_out);
      graph_node_copy_attrs (c, p);
      graph_node_insert_after (c, after);
      graph_node_set_scope (c, graph_node_get_scope (p));
      graph_node_set_source (c, graph_node_get_source (p));
      after = c;
      for (guint k = 0; k < n_out; k++)
        {
          GraphValue *old = graph_node_output (p, k), *nv = graph_node_output (c, k);
          if (graph_value_type (old))
            graph_value_set_type (nv, graph_value_type (old));
          g_hash_table_insert (now, old, nv);
        }
    }
  /* later reads of every old value read the new one */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, now);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (key != self && !replace_uses_after (g, key, after, value))
      {
        g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN,
                     "%s%s%s writes in place into a view of a tensor that scripted code reads "
                     "afterwards: the trace's run cannot reproduce it (give the expected outputs)",
                     graph_node_kind (n), src ? " at " : "", src ? src : "");
        return FALSE;
      }
  return TRUE;
}

/* %l : Tensor[] = aten::chunk(...); %a, %b = prim::ListUnpack(%l) becomes
 * %a, %b = aten::chunk(...): the executor's kernels give a list's
 * elements as outputs (split, chunk, unbind, meshgrid...).  Only when
 * the list has no other use. */
static void
fuse_list_unpack (GraphNode *unpack)
{
  GraphValue *list = graph_node_n_inputs (unpack) == 1 ? graph_node_input (unpack, 0) : NULL;
  GraphNode *p = list ? graph_value_node (list) : NULL;
  if (p == NULL || strcmp (graph_node_domain (p), "aten") != 0 || graph_node_n_outputs (p) != 1
      || graph_value_n_uses (list) != 1 || graph_value_is_graph_output (list))
    return;
  guint n = graph_node_n_outputs (unpack);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < n; k++)
    {
      GraphValue *old = graph_node_output (unpack, k), *nv = graph_node_add_output (p);
      GraphType *t = graph_value_type (old);
      if (t)
        graph_value_set_type (nv, t);
      g_ptr_array_add (names, g_strdup (graph_value_get_name (old)));
      graph_value_replace_all_uses (old, nv);
    }
  graph_node_destroy (unpack);
  graph_node_remove_output (p, 0);
  for (guint k = 0; k < n; k++)
    if (names->pdata[k])
      graph_value_set_name (graph_node_output (p, k), names->pdata[k]);
}

/* %t = prim::TupleConstruct(%a, %b); %c, %d = prim::TupleUnpack(%t): %c
 * and %d are %a and %b (a submodule's tuple result, inlined). */
static void
bypass_tuple_unpack (GraphNode *unpack)
{
  GraphValue *tuple = graph_node_n_inputs (unpack) == 1 ? graph_node_input (unpack, 0) : NULL;
  GraphNode *p = tuple ? graph_value_node (tuple) : NULL;
  if (p == NULL || !graph_node_is (p, "prim::TupleConstruct")
      || graph_node_n_inputs (p) != graph_node_n_outputs (unpack))
    return;
  for (guint k = 0; k < graph_node_n_outputs (unpack); k++)
    if (graph_node_input (p, k))
      graph_value_replace_all_uses (graph_node_output (unpack, k), graph_node_input (p, k));
}

/* Rewrites a copy of a trace into what the executor runs: prim::GetAttr
 * chains become initializers from the weights; tensor constants take their
 * exact value torch2trace stored as "__constant__.<name>"; Device constants
 * become None (the CPU is the only device); a prim::ListConstruct of tensors
 * read by an aten:: node is spliced into its inputs; an aten:: node's
 * Tensor[] result unpacked by prim::ListUnpack gives the elements as its
 * outputs; a prim::TupleUnpack of a prim::TupleConstruct is bypassed; then
 * dead nodes and the
 * unused module input (%self) go. */
/* A graph output made by prim::TupleConstruct, or by prim::ListConstruct
 * of tensors, becomes its elements, in order (nested ones too), and one
 * made by prim::DictConstruct its values, as export flattens them. */
static void
flatten_tuple_outputs (Graph *g)
{
  g_autoptr (GPtrArray) outs = g_ptr_array_new ();
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  gboolean any = FALSE;
  for (guint i = 0; i < graph_n_outputs (g); i++)
    {
      g_ptr_array_set_size (stack, 0);
      g_ptr_array_add (stack, graph_output (g, i));
      while (stack->len)
        {
          GraphValue *v = g_ptr_array_steal_index (stack, stack->len - 1);
          GraphNode *p = graph_value_node (v);
          GraphType *t = graph_value_type (v);
          GraphType *et = t && graph_type_kind (t) == GRAPH_TYPE_LIST && graph_type_n_elems (t) == 1
                          ? graph_type_elem (t, 0) : NULL;
          /* a list of tensors or dicts too (RAFT returns its list of flow
           * predictions), as export's collect_outputs */
          gboolean tensor_list = p && graph_node_is (p, "prim::ListConstruct") && et
                                 && (graph_type_is_tensor (et) || graph_type_kind (et) == GRAPH_TYPE_DICT);
          if (p && (graph_node_is (p, "prim::TupleConstruct") || tensor_list))
            {
              any = TRUE;
              for (guint k = graph_node_n_inputs (p); k-- > 0;)
                g_ptr_array_add (stack, graph_node_input (p, k));
            }
          else if (p && graph_node_is (p, "prim::DictConstruct") && graph_node_n_inputs (p) % 2 == 0)
            {
              /* (key0, value0, key1, value1...): the values, in order. */
              any = TRUE;
              for (guint k = graph_node_n_inputs (p); k >= 2; k -= 2)
                g_ptr_array_add (stack, graph_node_input (p, k - 1));
            }
          else
            g_ptr_array_add (outs, v);
        }
    }
  if (!any)
    return;
  while (graph_n_outputs (g) > 0)
    graph_remove_output (g, graph_n_outputs (g) - 1);
  for (guint i = 0; i < outs->len; i++)
    graph_add_output (g, outs->pdata[i]);
}

/* A list change left in g or its blocks after the fold (Note [List
 * mutations]), or NULL: the later nodes would read the list unchanged. */
static GraphNode *
find_list_mutation (Graph *g)
{
  graph_foreach_node (g, n)
    {
      if (sym_is_list_mutation (n))
        return n;
      for (guint a = 0; a < graph_node_n_attrs (n); a++)
        {
          Graph *one, *const *subs;
          gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
          for (gsize k = 0; k < len; k++)
            {
              GraphNode *m = find_list_mutation (subs[k]);
              if (m)
                return m;
            }
        }
    }
  return NULL;
}

/* The rewrites of verify_runnable_trace over g's nodes, and over the
 * blocks of its prim::If and prim::Loop nodes (scripted code inside a trace), whose
 * initializers go to `root`. */
static gboolean
rewrite (Graph *g, Graph *root, GHashTable *weights, GError **error)
{
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  for (GraphNode *n = graph_first_node (g); n; n = graph_node_next (n))
    g_ptr_array_add (nodes, n);
  for (guint i = 0; i < nodes->len; i++)
    {
      GraphNode *n = nodes->pdata[i];
      GraphValue *out = graph_node_n_outputs (n) == 1 ? graph_node_output (n, 0) : NULL;
      if (g != root)
        for (guint k = 0; k < graph_node_n_inputs (n); k++)
          {
            /* A block reading an enclosing None (or a Device constant, None
             * now): its own None, as an enclosing absent value is no value. */
            GraphValue *v = graph_node_input (n, k);
            GraphNode *p = v && graph_value_graph (v) != g ? graph_value_node (v) : NULL;
            if (p && graph_node_is (p, "prim::Constant") && graph_node_n_attrs (p) == 0)
              {
                GraphNode *none = graph_create_node (g, "prim::Constant", 0, NULL, 1);
                graph_node_insert_before (none, n);
                graph_node_set_input (n, k, graph_node_output (none, 0));
              }
          }
      /* The kernels compute a new value; the base the view shares
       * storage with would keep its old one (a wrong reference) unless
       * written back. */
      g_auto (ExportViewWrite) plan;
      if (export_view_write_plan (n, &plan)
          && (plan.why || plan.rederive->len > 0 || (plan.read_later && plan.levels->len > 0))
          && !write_back_view (g, n, &plan, error))
        return FALSE;
      if (out && graph_node_is (n, "prim::GetAttr") && is_packed_params (out) && graph_value_n_uses (out) > 0)
        {
          if (!splice_packed (g, root, n, weights, error))
            return FALSE;
        }
      else if (out && graph_node_is (n, "prim::GetAttr") && !is_class (out) && graph_value_n_uses (out) > 0)
        {
          g_autofree char *path = verify_getattr_path (out);
          Tensor *t = path && weights ? g_hash_table_lookup (weights, path) : NULL;
          if (t == NULL)
            {
              if (path)
                g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_INPUT,
                             "weight '%s' (a prim::GetAttr chain) is not in the weights%s", path,
                             weights ? "" : " (no --weights given)");
              else
                g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_INPUT,
                             "a prim::GetAttr chain does not start at the module input");
              return FALSE;
            }
          graph_value_replace_all_uses (out, graph_add_initializer (root, path, t));
        }
      else if (out && graph_node_is (n, "prim::device"))
        {
          /* tensor.device: None (the CPU is the only device) */
          GraphNode *none = graph_create_node (g, "prim::Constant", 0, NULL, 1);
          graph_node_insert_before (none, n);
          graph_value_replace_all_uses (out, graph_node_output (none, 0));
          graph_node_destroy (n);   /* (a block's dead nodes stay: its own kernel-less ones too) */
          continue;
        }
      else if (out && graph_node_is (n, "prim::Constant"))
        {
          GraphType *ty = graph_value_type (out);
          const char *name = graph_value_get_name (out);
          g_autofree char *key = name ? g_strconcat ("__constant__.", name, NULL) : NULL;
          Tensor *exact = key && weights ? g_hash_table_lookup (weights, key) : NULL;
          if (exact)
            graph_node_set_t (n, "value", exact);
          else if (ty && graph_type_kind (ty) == GRAPH_TYPE_DEVICE)
            graph_node_remove_attr (n, "value");
        }
      else if (out && graph_node_is (n, "prim::Uninitialized"))
        {
          /* scripted code's placeholder for a branch that raises: never
           * read, None here */
          GraphNode *none = graph_create_node (g, "prim::Constant", 0, NULL, 1);
          graph_node_insert_before (none, n);
          graph_value_replace_all_uses (out, graph_node_output (none, 0));
          graph_node_destroy (n);
          continue;
        }
      else if (out && graph_node_is (n, "prim::unchecked_cast") && graph_node_n_inputs (n) == 1)
        {
          /* a refinement of Optional[T] to T: the value itself */
          graph_value_replace_all_uses (out, graph_node_input (n, 0));
          continue;
        }
      else if (graph_node_is (n, "prim::ListUnpack"))
        fuse_list_unpack (n);
      else if (graph_node_is (n, "prim::TupleUnpack"))
        bypass_tuple_unpack (n);
      else if (out && is_tensor_list (n))
        {
          /* Users first collected: splicing edits the use list. */
          g_autoptr (GPtrArray) users = g_ptr_array_new ();
          g_autoptr (GArray) slots = g_array_new (FALSE, FALSE, sizeof (guint));
          for (guint u = 0; u < graph_value_n_uses (out); u++)
            {
              const GraphUse *use = graph_value_use (out, u);
              if (strcmp (graph_node_domain (use->node), "aten") == 0
                  || strcmp (graph_node_domain (use->node), "quantized") == 0)
                {
                  g_ptr_array_add (users, use->node);
                  g_array_append_val (slots, use->index);
                }
            }
          /* Later slots first, so earlier indices stay valid. */
          for (guint u = users->len; u-- > 0;)
            splice_list (users->pdata[u], g_array_index (slots, guint, u), n);
        }
      if (graph_node_is (n, "prim::If") || graph_node_is (n, "prim::Loop"))
        for (guint a = 0; a < graph_node_n_attrs (n); a++)
          {
            Graph *one, *const *subs;
            gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
            for (gsize k = 0; k < len; k++)
              if (!rewrite (subs[k], root, weights, error))
                return FALSE;
          }
    }
  /* A block returning a value of an enclosing graph (`-> (%x)`, a None of
   * a branch that raises): a body's outputs are its own values, so a copy
   * made inside it, or its own None. */
  for (guint i = 0; g != root && i < graph_n_outputs (g); i++)
    {
      GraphValue *v = graph_output (g, i);
      if (v == NULL || graph_value_graph (v) == g)
        continue;
      GraphNode *p = graph_value_node (v);
      gboolean none = p && graph_node_is (p, "prim::Constant") && graph_node_n_attrs (p) == 0;
      GraphNode *c = none ? graph_create_node (g, "prim::Constant", 0, NULL, 1)
                          : graph_create_node (g, "aten::alias", 1, &v, 1);
      graph_insert_node (g, c);
      if (graph_value_type (v))
        graph_value_set_type (graph_node_output (c, 0), graph_value_type (v));
      graph_set_output (g, i, graph_node_output (c, 0));
    }
  return TRUE;
}

Graph *
verify_runnable_trace (const Graph *trace, GHashTable *weights, GError **error)
{
  if (!sym_check_structural_arity (trace, error))   /* Note [Arity of structural nodes] */
    return NULL;
  g_autoptr (Graph) g = graph_copy (trace);
  sym_fold_set_attrs (g, NULL, weights);        /* Note [Module attributes written in forward] */
  sym_fold_list_mutations (g, NULL);   /* Note [List mutations] */
  GraphNode *change = find_list_mutation (g);
  if (change)
    {
      const char *src = graph_node_get_source (change);
      g_autofree char *why = sym_list_mutation_why (change);
      g_set_error (error, VERIFY_ERROR, VERIFY_ERROR_RUN,
                   "%s%s%s changes a list in place (%s): the trace's run does not execute that "
                   "(give the expected outputs)", graph_node_kind (change), src ? " at " : "",
                   src ? src : "", why);
      return NULL;
    }
  if (!rewrite (g, g, weights, error))
    return NULL;
  flatten_tuple_outputs (g);
  graph_eliminate_dead_code (g);
  for (guint i = graph_n_inputs (g); i-- > 0;)
    {
      GraphType *t = graph_value_type (graph_input (g, i));
      if (t && graph_type_kind (t) != GRAPH_TYPE_TENSOR)
        graph_remove_input (g, i);
    }
  return g_steal_pointer (&g);
}

