/* The translation context: maps source (trace) values to ONNX values,
 * materialises constants, weights and lists on first use, and runs the
 * symbolic for one node at a time. */
#include "symbolic/translate.h"
#include "symbolic/aten-schemas.h"
#include <string.h>

struct _SymContext
{
  SymContextSetup s;
  GHashTable *map;        /* src value → dst value */
  GHashTable *lists;      /* src value → GPtrArray of dst values */
  GHashTable *inits;      /* weight name → dst value */
  GPtrArray  *pool;       /* g_free'd at the end (parse_args results) */
  GPtrArray  *tensors;    /* tensor refs handed out by parse_args */
  GHashTable *origins;    /* src node → interned "how it was translated" */
  gpointer    user_data;
  Graph      *scratch;    /* PythonOps' scalar arguments as prim::Constants */
  GHashTable *py_args;    /* PythonOp node → GPtrArray of its arguments */
  GHashTable *dynamic;    /* src values whose shape (or int value) depends on data */
  GHashTable *quantized;  /* src value → SymQuantized* (Note [Quantized values], quantized.c) */
  GHashTable *scans;      /* src list appended to in a loop → its scan output */
  GHashTable *tracked;    /* src values an enclosing If carries out as outputs (Note [Writes in If branches]) */
};

/* Note [Data-dependent shapes]
 * A trace records the shapes of one run.  The output of nonzero (and of
 * everything computed from it: y = x[x > 0]; y.size(0); zeros(y.size(0)))
 * has another shape on other data, so its traced shape must not be folded
 * into the export: sym_static_shape() says "unknown" for such values and
 * their ONNX types get unknown dims, so Shape(y) stays a run-time Shape.
 * The set is computed once from the source graph: the outputs of the ops
 * below and the numbers read from a tensor's data (aten::Int of `d[0]`,
 * not of sizes: reads_data), then every output of a node with such an
 * input (conservatively, all its dims).  Dynamic axes are not in it: their dims reach
 * sym_static_shape through the translated values' types (Note [Dynamic
 * axes during translation] in export/pipeline/pipeline.c). */
static const char *const data_dependent_ops[] = {
  "aten::nonzero", "aten::nonzero_numpy", "aten::masked_select", "aten::unique_dim",
  "aten::_unique", "aten::_unique2", "aten::unique_consecutive", "aten::unique_dim_consecutive",
  "torchvision::nms", "aten::repeat_interleave", "aten::bincount", "aten::histc",
};

/* Whether tensor v holds only numbers computed from sizes and constants
 * (prim::NumToTensor of x.size(0), arithmetic on those), not data a model
 * input or a weight decides.  memo: value -> 1 (yes) / 2 (no). */
static gboolean
size_derived (GraphValue *v, GHashTable *memo, int depth)
{
  GraphNode *p = v ? graph_value_node (v) : NULL;
  if (p == NULL)
    return FALSE;   /* a graph (or block) input: data */
  gpointer known = g_hash_table_lookup (memo, v);
  if (known)
    return GPOINTER_TO_INT (known) == 1;
  GraphType *t = graph_value_type (v);
  gboolean r;
  if (graph_node_is (p, "prim::NumToTensor") || graph_node_is (p, "prim::Constant")
      || graph_node_is (p, "aten::_shape_as_tensor"))
    r = TRUE;
  else if (t && graph_type_kind (t) != GRAPH_TYPE_TENSOR)
    r = TRUE;   /* an int, float or list: a data-read one is marked where it is read */
  else if (depth > 32 || strcmp (graph_node_domain (p), "aten") != 0 || graph_node_n_attrs (p) > 0)
    r = FALSE;
  else
    {
      r = TRUE;
      for (guint i = 0; r && i < graph_node_n_inputs (p); i++)
        r = graph_node_input (p, i) == NULL || size_derived (graph_node_input (p, i), memo, depth + 1);
    }
  g_hash_table_insert (memo, v, GINT_TO_POINTER (r ? 1 : 2));
  return r;
}

/* A number read from a tensor's data (`int(d[0])`, `x.item()`): the trace
 * recorded the value of one run, so what is sized by it is data-dependent
 * (PyTorch's suite, test_squeeze_runtime_dim: `zeros(d1[0], d2[0])`). */
static gboolean
reads_data (GraphNode *n, GHashTable *memo)
{
  static const char *const reads[] = {
    "aten::Int", "aten::IntImplicit", "aten::ScalarImplicit", "aten::item", "aten::Float",
    "aten::FloatImplicit",
  };
  gboolean is_read = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (reads); i++)
    is_read = is_read || graph_node_is (n, reads[i]);
  if (!is_read || graph_node_n_inputs (n) != 1 || graph_node_input (n, 0) == NULL)
    return FALSE;
  GraphType *t = graph_value_type (graph_node_input (n, 0));
  return t && graph_type_kind (t) == GRAPH_TYPE_TENSOR && !size_derived (graph_node_input (n, 0), memo, 0);
}

static gboolean
starts_data_dependence (GraphNode *n)
{
  if (graph_node_is (n, "aten::where") && graph_node_n_inputs (n) == 1)
    return TRUE;   /* where(condition) is nonzero */
  if (graph_node_is (n, "aten::index") && graph_node_n_inputs (n) >= 2)
    {
      /* (this runs before the arguments are checked against the schemas) */
      /* a boolean mask among the indices */
      GraphNode *lc = graph_value_node (graph_node_input (n, 1));
      for (guint i = 0; lc && graph_node_is (lc, "prim::ListConstruct") && i < graph_node_n_inputs (lc); i++)
        {
          GraphDType dt = sym_dtype (graph_node_input (lc, i));
          if (dt == GRAPH_DTYPE_BOOL || dt == GRAPH_DTYPE_UINT8)
            return TRUE;
        }
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (data_dependent_ops); i++)
    if (graph_node_is (n, data_dependent_ops[i]))
      return TRUE;
  return FALSE;
}

/* Ops whose output has self's shape whatever the other inputs hold
 * (x[m] = x[m] * 3 keeps x's shape): in-place ops and these. */
static gboolean
keeps_self_shape (GraphNode *n)
{
  static const char *const ops[] = {
    "aten::index_put", "aten::masked_fill", "aten::masked_scatter", "aten::index_fill",
    "aten::index_copy", "aten::index_add", "aten::scatter", "aten::scatter_add", "aten::scatter_reduce",
  };
  const char *k = graph_node_kind (n);
  if (sym_kind_is_inplace (k))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (k, ops[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The blocks of scripted control flow are walked too: a value a block
 * returns makes the node's outputs data-dependent, and a prim::Loop's
 * counter, its carried values (a tensor grown by cat each iteration) and
 * so its outputs all are: they change with the trip count. */
static void
mark_data_dependent (Graph *src, GHashTable *dynamic, GHashTable *memo)
{
  graph_foreach_node (src, n)
    {
      gboolean dyn = starts_data_dependence (n) || reads_data (n, memo);
      gboolean loop = graph_node_is (n, "prim::Loop");
      if (loop || graph_node_is (n, "prim::If"))
        for (guint a = 0; a < graph_node_n_attrs (n); a++)
          {
            Graph *one, *const *subs;
            gsize len = graph_node_attr_subgraphs (n, graph_node_attr_name (n, a), &one, &subs);
            for (gsize k = 0; k < len; k++)
              {
                for (guint i = 0; loop && i < graph_n_inputs (subs[k]); i++)
                  g_hash_table_add (dynamic, graph_input (subs[k], i));
                /* a list appended to in a loop has the trip count's length */
                graph_foreach_node (subs[k], m)
                  if (loop && graph_node_is (m, "aten::append") && graph_node_n_inputs (m) > 0
                      && graph_node_input (m, 0))
                    g_hash_table_add (dynamic, graph_node_input (m, 0));
                mark_data_dependent (subs[k], dynamic, memo);
                for (guint i = 0; i < graph_n_outputs (subs[k]); i++)
                  dyn = dyn || g_hash_table_contains (dynamic, graph_output (subs[k], i));
              }
          }
      dyn = dyn || loop;
      guint nin = keeps_self_shape (n) ? MIN (1, graph_node_n_inputs (n)) : graph_node_n_inputs (n);
      for (guint i = 0; !dyn && i < nin; i++)
        dyn = graph_node_input (n, i) && g_hash_table_contains (dynamic, graph_node_input (n, i));
      for (guint i = 0; dyn && i < graph_node_n_outputs (n); i++)
        g_hash_table_add (dynamic, graph_node_output (n, i));
    }
}

/* The context of the symbolic running on this thread, for
 * sym_static_shape's Note [Data-dependent shapes] check. */
static _Thread_local SymContext *current_ctx;

gboolean
sym_context_is_data_dependent (SymContext *ctx, GraphValue *src)
{
  return ctx && src && g_hash_table_contains (ctx->dynamic, src);
}

SymContext *
sym_context_new (const SymContextSetup *setup)
{
  SymContext *ctx = g_new0 (SymContext, 1);
  ctx->s = *setup;
  sym_registry_ref (ctx->s.reg);
  if (ctx->s.weights)
    g_hash_table_ref (ctx->s.weights);
  ctx->map = g_hash_table_new (NULL, NULL);
  ctx->lists = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  ctx->inits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ctx->pool = g_ptr_array_new_with_free_func (g_free);
  ctx->tensors = g_ptr_array_new_with_free_func ((GDestroyNotify) tensor_unref);
  ctx->py_args = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  ctx->origins = g_hash_table_new (NULL, NULL);
  ctx->dynamic = g_hash_table_new (NULL, NULL);
  ctx->quantized = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ctx->scans = g_hash_table_new (NULL, NULL);
  ctx->tracked = g_hash_table_new (NULL, NULL);
  if (ctx->s.src)
    {
      g_autoptr (GHashTable) memo = g_hash_table_new (NULL, NULL);
      mark_data_dependent (ctx->s.src, ctx->dynamic, memo);
    }
  return ctx;
}

void
sym_context_free (SymContext *ctx)
{
  if (ctx == NULL)
    return;
  sym_registry_unref (ctx->s.reg);
  if (ctx->s.weights)
    g_hash_table_unref (ctx->s.weights);
  g_hash_table_unref (ctx->map);
  g_hash_table_unref (ctx->tracked);
  g_hash_table_unref (ctx->lists);
  g_hash_table_unref (ctx->inits);
  g_ptr_array_unref (ctx->pool);
  g_ptr_array_unref (ctx->tensors);
  g_hash_table_unref (ctx->py_args);
  graph_free (ctx->scratch);
  g_hash_table_unref (ctx->origins);
  g_hash_table_unref (ctx->dynamic);
  g_hash_table_unref (ctx->quantized);
  g_hash_table_unref (ctx->scans);
  g_free (ctx);
}

Graph *sym_graph (SymContext *ctx) { return ctx->s.dst; }

Graph *
sym_context_swap_graph (SymContext *ctx, Graph *dst)
{
  Graph *old = ctx->s.dst;
  ctx->s.dst = dst;
  return old;
}
int sym_opset (SymContext *ctx) { return ctx->s.opset; }
SymMode sym_mode (SymContext *ctx) { return ctx->s.mode; }
gpointer sym_user_data (SymContext *ctx) { return ctx->user_data; }

const char *
sym_op_short_name (const char *kind)
{
  if (g_str_has_prefix (kind, "aten::"))
    return kind + 6;
  return kind;
}

const char *
sym_context_node_origin (SymContext *ctx, GraphNode *n)
{
  return g_hash_table_lookup (ctx->origins, n);
}

GraphValue *
sym_context_mapped (SymContext *ctx, GraphValue *src)
{
  return g_hash_table_lookup (ctx->map, src);
}

const SymQuantized *
sym_quantized_lookup (SymContext *ctx, GraphValue *src)
{
  return src ? g_hash_table_lookup (ctx->quantized, src) : NULL;
}

void
sym_quantized_record (SymContext *ctx, GraphValue *src, const SymQuantized *q)
{
  g_hash_table_insert (ctx->quantized, src, g_memdup2 (q, sizeof *q));
}

Tensor *
sym_weight_tensor (SymContext *ctx, const char *name)
{
  return ctx->s.weights ? g_hash_table_lookup (ctx->s.weights, name) : NULL;
}

/* The graph weights go to: the top one, also while a block of an If or
 * Loop is translated (a subgraph reads them from the enclosing scope, as
 * torch writes them: an initializer made in a branch would be that
 * subgraph's, unseen by the other branch and by the graph after it). */
static Graph *
weights_graph (SymContext *ctx)
{
  Graph *g = ctx->s.dst;
  while (graph_get_outer (g))
    g = graph_get_outer (g);
  return g;
}

GraphValue *
sym_weight_initializer (SymContext *ctx, const char *name, GError **error)
{
  GraphValue *dst = g_hash_table_lookup (ctx->inits, name);
  if (dst)
    return dst;
  Tensor *t = sym_weight_tensor (ctx, name);
  if (t == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "weight '%s' is not in the weights%s",
                   name, ctx->s.weights ? "" : " (no weights file given)");
      return NULL;
    }
  dst = graph_add_initializer (weights_graph (ctx), name, t);
  g_autoptr (GraphType) ty = graph_type_new_tensor_static (tensor_dtype (t), tensor_rank (t),
                                                           tensor_dims (t));
  graph_value_set_type (dst, ty);
  g_hash_table_insert (ctx->inits, g_strdup (name), dst);
  return dst;
}

/* Note [Calling another op's symbolic]: torch's quantized symbolics call
 * opset9.conv2d(g, input, weight, ...) on values they made; here a node of
 * `kind` is built in the scratch graph, each argument a scratch input
 * mapped to the given ONNX value (typed `types[i]`, for the symbolic's
 * rank and dtype questions) or a constant made by the caller in the scratch
 * graph (sym_context_scratch), and the registry's symbolic for `kind` at
 * the target opset runs on it.  `out_type` is the output's traced type. */
gboolean
sym_call_op (SymContext *ctx, const char *kind, guint n_args, GraphValue *const *args,
             GraphType *const *types, GraphType *out_type, GraphValue **out, GError **error)
{
  Graph *scratch = sym_context_scratch (ctx);
  g_autofree GraphValue **ins = g_new0 (GraphValue *, n_args + 1);
  for (guint i = 0; i < n_args; i++)
    {
      if (args[i] && graph_value_graph (args[i]) == scratch)
        {
          ins[i] = args[i];   /* a scratch constant */
          continue;
        }
      ins[i] = graph_add_input (scratch, NULL, types[i]);
      sym_map_value (ctx, ins[i], args[i]);
    }
  GraphValue *o = graph_opv (scratch, kind, n_args, ins, NULL);
  if (o == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "cannot build a %s node", kind);
      return FALSE;
    }
  if (out_type)
    graph_value_set_type (o, out_type);
  gpointer user_data = NULL, saved = ctx->user_data;
  SymFn fn = sym_registry_lookup (ctx->s.reg, kind, ctx->s.opset, &user_data, NULL);
  if (fn == NULL)
    {
      /* torch 1.13: also refuses (UnsupportedOperatorError: no symbolic for the op at this opset) */
      g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED, "%s has no symbolic at opset %d", kind,
                   ctx->s.opset);
      return FALSE;
    }
  ctx->user_data = user_data;
  gboolean ok = fn (ctx, graph_value_node (o), out, error);
  ctx->user_data = saved;
  if (ok && out[0] == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "%s: the symbolic returned no value", kind);
      return FALSE;
    }
  return ok;
}

Graph *
sym_context_scratch (SymContext *ctx)
{
  if (ctx->scratch == NULL)
    ctx->scratch = graph_new ();
  return ctx->scratch;
}

void
sym_map_value (SymContext *ctx, GraphValue *src, GraphValue *dst)
{
  g_hash_table_insert (ctx->map, src, dst);
}

/* ------------------------------------------------------------------------ */
/* Source constants                                                          */

/* Note [Static scalars in scripted code]
 * Scripted helpers inlined into a trace (F.interpolate's argument checks
 * inside torchvision's paste-masks loop) test what the export knows: a
 * tensor's rank (aten::dim), whether a constant string is in a constant
 * list, `x is None`, and int arithmetic on those (and, without dynamic
 * axes, comparisons of the trace's static sizes).  Such a condition is
 * evaluated here, so its prim::If keeps one branch inline (the other may
 * raise, or read prim::Uninitialized), and an output of such an If (or a
 * prim::unchecked_cast of one) is seen through to the value its branch
 * returns: a constant there is a constant here (align_corners).  Anything
 * else is not static, and the If stays an ONNX If. */
#define STATIC_DEPTH 64
/* Steps one evaluation may take (a hostile trace's a + a chains would
 * otherwise be explored exponentially). */
#define STATIC_BUDGET 4096

static _Thread_local int static_active;
static _Thread_local guint static_steps;

static gboolean
static_step (void)
{
  return ++static_steps <= STATIC_BUDGET;
}

static void
static_begin (void)
{
  if (static_active++ == 0)
    static_steps = 0;
}

static void
static_end (void)
{
  static_active--;
}

static GraphValue *see_through_r (GraphValue *src, int depth);
static gboolean static_int_r (GraphValue *src, gboolean traced, gint64 *v, int depth);

static gboolean static_bool_r (GraphValue *src, gboolean *v, int depth);

static GraphValue *
see_through (GraphValue *src, int depth)
{
  static_begin ();
  GraphValue *r = see_through_r (src, depth);
  static_end ();
  return r;
}

static gboolean
static_bool (GraphValue *src, gboolean *v, int depth)
{
  static_begin ();
  gboolean r = static_bool_r (src, v, depth);
  static_end ();
  return r;
}

static gboolean
static_int (GraphValue *src, gint64 *v, int depth)
{
  static_begin ();
  gboolean r = static_int_r (src, FALSE, v, depth);
  static_end ();
  return r;
}

/* The value src stands for once static prim::Ifs and unchecked casts are
 * seen through. */
static GraphValue *
see_through_r (GraphValue *src, int depth)
{
  if (!static_step ())
    return src;
  for (int k = 0; src && k < STATIC_DEPTH && depth < STATIC_DEPTH; k++)
    {
      GraphNode *p = graph_value_node (src);
      if (p && graph_node_is (p, "prim::unchecked_cast") && graph_node_n_inputs (p) == 1)
        {
          src = graph_node_input (p, 0);
          continue;
        }
      /* list(l): a copy of list l, the same elements (not list(str)) */
      GraphType *lt = p && graph_node_is (p, "aten::list") && graph_node_n_inputs (p) == 1
                        && graph_node_input (p, 0) ? graph_value_type (graph_node_input (p, 0)) : NULL;
      if (lt && graph_type_kind (lt) == GRAPH_TYPE_LIST)
        {
          src = graph_node_input (p, 0);
          continue;
        }
      Graph *b[2];
      gboolean c;
      if (p && graph_node_is (p, "prim::If") && graph_node_n_inputs (p) == 1
          && graph_node_get_g (p, "block0", &b[0]) && graph_node_get_g (p, "block1", &b[1])
          && static_bool_r (graph_node_input (p, 0), &c, depth + 1))
        {
          guint i = 0;
          while (i < graph_node_n_outputs (p) && graph_node_output (p, i) != src)
            i++;
          Graph *chosen = b[c ? 0 : 1];
          if (i >= graph_n_outputs (chosen))
            return src;
          src = graph_output (chosen, i);
          continue;
        }
      break;
    }
  return src;
}

static GraphNode *
const_node_at (GraphValue *src, int depth)
{
  src = see_through (src, depth);
  GraphNode *p = src ? graph_value_node (src) : NULL;
  /* prim::NumToTensor(c) is the constant c as a tensor. */
  while (p && graph_node_is (p, "prim::NumToTensor") && graph_node_n_inputs (p) == 1)
    p = graph_node_input (p, 0) ? graph_value_node (graph_node_input (p, 0)) : NULL;
  return p && graph_node_is (p, "prim::Constant") ? p : NULL;
}

static GraphNode *
const_node (GraphValue *src)
{
  return const_node_at (src, 0);
}

gboolean
sym_is_none (GraphValue *src)
{
  if (src == NULL)
    return TRUE;
  src = see_through (src, 0);
  GraphNode *p = graph_value_node (src);
  if (p == NULL || !graph_node_is (p, "prim::Constant"))
    return FALSE;
  GraphType *t = graph_value_type (src);
  if (t && graph_type_kind (t) == GRAPH_TYPE_NONE)
    return TRUE;
  return graph_node_n_attrs (p) == 0;
}

gboolean
sym_is_constant (GraphValue *src)
{
  return const_node (src) != NULL;
}

gboolean
sym_get_const_double (GraphValue *src, double *v)
{
  GraphNode *p = const_node (src);
  gint64 i;
  Tensor *t;
  if (p == NULL)
    return FALSE;
  if (graph_node_get_f (p, "value", v))
    return TRUE;
  if (graph_node_get_i (p, "value", &i))
    {
      *v = (double) i;
      return TRUE;
    }
  if (graph_node_get_t (p, "value", &t) && tensor_has_data (t) && tensor_numel (t) == 1
      && tensor_dtype (t) != GRAPH_DTYPE_STRING)
    {
      *v = tensor_get_double (t, 0);
      return TRUE;
    }
  return FALSE;
}

/* torch's ScalarType codes (c10/core/ScalarType.h) 0..11 as element types;
 * 8 (ComplexHalf) has none here. */
static const GraphDType scalar_types[] = {
  GRAPH_DTYPE_UINT8, GRAPH_DTYPE_INT8, GRAPH_DTYPE_INT16, GRAPH_DTYPE_INT32, GRAPH_DTYPE_INT64,
  GRAPH_DTYPE_FLOAT16, GRAPH_DTYPE_FLOAT, GRAPH_DTYPE_DOUBLE, GRAPH_DTYPE_UNDEFINED,
  GRAPH_DTYPE_COMPLEX64, GRAPH_DTYPE_COMPLEX128, GRAPH_DTYPE_BOOL,
};

gboolean
sym_scalar_type_dtype (gint64 code, GraphDType *dt)
{
  if (code < 0 || code >= (gint64) G_N_ELEMENTS (scalar_types))
    return FALSE;
  *dt = scalar_types[code];
  return TRUE;
}

/* prim::dtype(x) (x.dtype in scripted code) is a constant: the torch
 * ScalarType code of x's element type when the trace (or the value x
 * reads) declares it. */
static gboolean
prim_dtype_code (GraphValue *src, gint64 *v)
{
  GraphNode *p = src ? graph_value_node (src) : NULL;
  if (p == NULL || !graph_node_is (p, "prim::dtype") || graph_node_n_inputs (p) != 1)
    return FALSE;
  GraphDType dt = sym_dtype (graph_node_input (p, 0));
  for (guint i = 0; dt != GRAPH_DTYPE_UNDEFINED && i < G_N_ELEMENTS (scalar_types); i++)
    if (scalar_types[i] == dt)
      {
        *v = i;
        return TRUE;
      }
  return FALSE;
}

gboolean
sym_get_const_int (GraphValue *src, gint64 *v)
{
  GraphNode *p = const_node (src);
  double d;
  Tensor *t;
  if (p == NULL)
    return prim_dtype_code (src, v);
  if (graph_node_get_i (p, "value", v))
    return TRUE;
  if (graph_node_get_t (p, "value", &t) && tensor_has_data (t) && tensor_numel (t) == 1
      && graph_dtype_is_integer (tensor_dtype (t)))
    {
      *v = tensor_get_int64 (t, 0);
      return TRUE;
    }
  /* torch's 'i' accepts an integral float constant (a traced 2.0 used as dim). */
  if (graph_node_get_f (p, "value", &d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0
      && d == (double) (gint64) d)   /* range first: the cast of a huge or NaN value is undefined */
    {
      *v = (gint64) d;
      return TRUE;
    }
  return FALSE;
}

gboolean
sym_get_const_bool (GraphValue *src, gboolean *v)
{
  gint64 i;
  if (!sym_get_const_int (src, &i))
    return FALSE;
  *v = i != 0;
  return TRUE;
}

int
sym_known_rank (SymContext *ctx, GraphValue *src)
{
  int r = sym_rank (src);
  if (r >= 0)
    return r;
  GraphValue *seen = see_through (src, 0);
  GraphValue *d = ctx ? sym_context_mapped (ctx, seen) : NULL;
  if (d && sym_rank (d) >= 0)
    return sym_rank (d);
  return sym_trace_rank (ctx, seen);   /* an ATen node's, from its op (trace-rank.c) */
}

static gboolean
const_string (GraphValue *src, const char **s, gsize *len)
{
  GraphNode *p = const_node (src);
  return p && graph_node_get_s (p, "value", s, len);
}

/* The device src names: prim::device(x) of an x whose type records it
 * (the trace's device=cpu), or a device constant. */
static gboolean
static_device (GraphValue *src, const char **s, gsize *len)
{
  GraphNode *p = src ? graph_value_node (src) : NULL;
  if (p && graph_node_is (p, "prim::device") && graph_node_n_inputs (p) == 1)
    {
      GraphType *t = graph_value_type (graph_node_input (p, 0));
      *s = t ? graph_type_device (t) : NULL;
      *len = *s ? strlen (*s) : 0;
      return *s != NULL;
    }
  GraphType *t = src ? graph_value_type (src) : NULL;
  return t && graph_type_kind (t) == GRAPH_TYPE_DEVICE && const_string (src, s, len);
}

/* An int list of x's sizes (x.shape, x.shape[1:] of scripted code):
 * aten::size(x) and Python slices of it with constant bounds; *x the
 * tensor, dims[0..*n) the dims in order.  FALSE for anything else. */
static gboolean
size_list_dims (GraphValue *list, GraphValue **x, gint64 *dims, guint *n, int depth)
{
  GraphNode *p = list ? graph_value_node (list) : NULL;
  if (p == NULL || depth > 8)
    return FALSE;
  guint nin = graph_node_n_inputs (p);
  if (graph_node_is (p, "aten::size") && nin == 1)
    {
      *x = graph_node_input (p, 0);
      int r = sym_rank (*x);
      if (r < 0 || r > TENSOR_MAX_RANK)
        return FALSE;
      for (int i = 0; i < r; i++)
        dims[i] = i;
      *n = (guint) r;
      return TRUE;
    }
  GraphType *lt = nin == 4 ? graph_value_type (graph_node_input (p, 0)) : NULL;
  if (!graph_node_is (p, "aten::slice") || lt == NULL || graph_type_kind (lt) != GRAPH_TYPE_LIST)
    return FALSE;
  gint64 base[TENSOR_MAX_RANK];
  guint len;
  if (!size_list_dims (graph_node_input (p, 0), x, base, &len, depth + 1))
    return FALSE;
  gint64 b[3] = { 0, len, 1 };   /* start, end, step: None keeps these */
  for (int k = 0; k < 3; k++)
    if (!sym_is_none (graph_node_input (p, (guint) k + 1)) && !sym_get_const_int (graph_node_input (p, (guint) k + 1), &b[k]))
      return FALSE;
  if (b[2] <= 0)
    return FALSE;
  for (int k = 0; k < 2; k++)   /* Python's clamping of a slice's bounds */
    b[k] = b[k] < 0 ? MAX (b[k] + (gint64) len, 0) : MIN (b[k], (gint64) len);
  *n = 0;
  for (gint64 i = b[0]; i < b[1]; i = b[2] >= b[1] - i ? b[1] : i + b[2])
    dims[(*n)++] = base[i];
  return TRUE;
}

/* One evaluator for both kinds of static int.  Without traced: int
 * arithmetic of constants, ranks and list lengths (Note [Static scalars in
 * scripted code]).  With traced, also sizes read from the trace's declared
 * static shapes and the 0-d tensor arithmetic on them (Note [Traced sizes
 * folded]); the caller decides whether that is allowed.  Arithmetic that
 * overflows is not folded. */
static gboolean
static_int_r (GraphValue *src, gboolean traced, gint64 *v, int depth)
{
  if (src == NULL || depth > STATIC_DEPTH || !static_step ())
    return FALSE;
  src = see_through_r (src, depth);
  if (sym_get_const_int (src, v))
    return TRUE;
  GraphNode *p = graph_value_node (src);
  GraphType *t = graph_value_type (src);
  if (p == NULL || t == NULL || (!traced && graph_type_kind (t) != GRAPH_TYPE_INT))
    return FALSE;
  guint nin = graph_node_n_inputs (p);
  if (graph_node_is (p, "aten::dim") && nin == 1)
    {
      int r = sym_known_rank (current_ctx, graph_node_input (p, 0));
      *v = r;
      return r >= 0;
    }
  if (graph_node_is (p, "aten::len") && nin == 1 && graph_node_input (p, 0))
    {
      GraphNode *l = graph_value_node (graph_node_input (p, 0));
      *v = l && graph_node_is (l, "prim::ListConstruct") ? (gint64) graph_node_n_inputs (l) : -1;
      return *v >= 0;
    }
  gint64 d;
  if (traced && nin == 1
      && (graph_node_is (p, "prim::NumToTensor") || graph_node_is (p, "aten::Int")
          || graph_node_is (p, "aten::ScalarImplicit")))
    return static_int_r (graph_node_input (p, 0), traced, v, depth + 1);
  if (traced && graph_node_is (p, "aten::size") && nin == 2 && sym_get_const_int (graph_node_input (p, 1), &d))
    {
      *v = sym_static_dim_size (graph_node_input (p, 0), d);
      return *v >= 0;
    }
  GraphValue *sx;
  gint64 sdims[TENSOR_MAX_RANK];
  guint sn;
  if (traced && graph_node_is (p, "prim::ListUnpack") && nin == 1
      && size_list_dims (graph_node_input (p, 0), &sx, sdims, &sn, 0))
    {
      /* `a, b = x.shape[1:]`: output i of the unpack is one of x's sizes */
      for (guint i = 0; i < graph_node_n_outputs (p) && i < sn; i++)
        if (graph_node_output (p, i) == src)
          {
            *v = sym_static_dim_size (sx, sdims[i]);
            return *v >= 0;
          }
      return FALSE;
    }
  /* add/sub of ints, or of 0-d tensors with a constant alpha */
  gint64 a, b, alpha = 1, r;
  if (nin < 2 || nin > 3 || !static_int_r (graph_node_input (p, 0), traced, &a, depth + 1)
      || !static_int_r (graph_node_input (p, 1), traced, &b, depth + 1)
      || (nin == 3 && !sym_get_const_int (graph_node_input (p, 2), &alpha)))
    return FALSE;
  gboolean ok;
  if (graph_node_is (p, "aten::add") || graph_node_is (p, "aten::sub"))
    ok = !__builtin_mul_overflow (alpha, b, &b)
         && !(graph_node_is (p, "aten::add") ? __builtin_add_overflow (a, b, &r) : __builtin_sub_overflow (a, b, &r));
  else if (graph_node_is (p, "aten::mul") && nin == 2)
    ok = !__builtin_mul_overflow (a, b, &r);
  else if ((graph_node_is (p, "aten::floordiv") || (traced && graph_node_is (p, "aten::floor_divide")))
           && nin == 2 && b != 0 && !(a == G_MININT64 && b == -1))
    {
      r = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));   /* Python's //: toward -inf */
      ok = TRUE;
    }
  else
    ok = FALSE;
  if (ok)
    *v = r;
  return ok;
}

/* Whether src is None (*v TRUE) or surely not None (*v FALSE). */
static gboolean
static_is_none_r (GraphValue *src, gboolean *v, int depth)
{
  src = see_through_r (src, depth);
  GraphNode *p = src ? graph_value_node (src) : NULL;
  GraphType *t = src ? graph_value_type (src) : NULL;
  if (p && graph_node_is (p, "prim::Constant"))
    *v = sym_is_none (src);
  else if (p && graph_node_is (p, "prim::Uninitialized"))
    return FALSE;
  else if (t && graph_type_kind (t) != GRAPH_TYPE_OPTIONAL && graph_type_kind (t) != GRAPH_TYPE_NONE)
    *v = FALSE;
  else
    return FALSE;
  return TRUE;
}

static gboolean
static_bool_r (GraphValue *src, gboolean *v, int depth)
{
  if (src == NULL || depth > STATIC_DEPTH || !static_step ())
    return FALSE;
  src = see_through_r (src, depth);
  if (sym_get_const_bool (src, v))
    return TRUE;
  GraphNode *p = graph_value_node (src);
  GraphType *t = graph_value_type (src);
  if (p == NULL || t == NULL || graph_type_kind (t) != GRAPH_TYPE_BOOL)
    return FALSE;
  guint nin = graph_node_n_inputs (p);
  GraphValue *x = nin > 0 ? graph_node_input (p, 0) : NULL;
  GraphValue *y = nin > 1 ? graph_node_input (p, 1) : NULL;
  gboolean a, b;
  if (graph_node_is (p, "aten::__not__") && nin == 1)
    {
      if (!static_bool_r (x, &a, depth + 1))
        return FALSE;
      *v = !a;
      return TRUE;
    }
  if (graph_node_is (p, "aten::is_floating_point") && nin == 1)
    {
      /* the traced element type */
      GraphDType dt = sym_dtype (x);
      if (dt == GRAPH_DTYPE_UNDEFINED)
        return FALSE;
      *v = graph_dtype_is_floating (dt);
      return TRUE;
    }
  if (nin != 2)
    return FALSE;
  if (graph_node_is (p, "aten::__and__") || graph_node_is (p, "aten::__or__"))
    {
      if (!static_bool_r (x, &a, depth + 1) || !static_bool_r (y, &b, depth + 1))
        return FALSE;
      *v = graph_node_is (p, "aten::__and__") ? a && b : a || b;
      return TRUE;
    }
  if (graph_node_is (p, "aten::__is__") || graph_node_is (p, "aten::__isnot__"))
    {
      /* x is None / x is not None */
      if (!sym_is_none (y) || !static_is_none_r (x, &a, depth + 1))
        return FALSE;
      *v = graph_node_is (p, "aten::__is__") ? a : !a;
      return TRUE;
    }
  if (graph_node_is (p, "aten::__contains__"))
    {
      /* a constant string in a list of constant strings */
      GraphNode *l = x ? graph_value_node (x) : NULL;
      const char *s, *e;
      gsize slen, elen;
      if (l == NULL || !graph_node_is (l, "prim::ListConstruct") || !const_string (y, &s, &slen))
        return FALSE;
      *v = FALSE;
      for (guint i = 0; i < graph_node_n_inputs (l); i++)
        {
          if (!const_string (graph_node_input (l, i), &e, &elen))
            return FALSE;
          *v = *v || (elen == slen && memcmp (e, s, slen) == 0);
        }
      return TRUE;
    }
  const char *ds, *es;
  gsize dlen, elen;
  if ((graph_node_is (p, "aten::eq") || graph_node_is (p, "aten::ne")) && static_device (x, &ds, &dlen)
      && static_device (y, &es, &elen))
    {
      /* x.device != torch.device("cpu"): the devices as the trace records them */
      gboolean same = dlen == elen && memcmp (ds, es, dlen) == 0;
      *v = graph_node_is (p, "aten::eq") ? same : !same;
      return TRUE;
    }
  static const char *const cmp[] = { "aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge" };
  guint k = 0;
  while (k < G_N_ELEMENTS (cmp) && !graph_node_is (p, cmp[k]))
    k++;
  /* sizes of the trace's static dims too when nothing is dynamic (Note
   * [Traced sizes folded]): `if prev_state.size(0) == 0` of a static input
   * keeps one branch, as torch folds it (ONNX Runtime type-checks the other
   * branch, whose shapes may not fit: PyTorch's suite, test_index_put_if_2) */
  gboolean traced = current_ctx && !sym_has_dynamic_axes (current_ctx);
  gint64 i, j;
  if (k == G_N_ELEMENTS (cmp) || !static_int_r (x, traced, &i, depth + 1) || !static_int_r (y, traced, &j, depth + 1))
    return FALSE;
  gboolean r[] = { i == j, i != j, i < j, i <= j, i > j, i >= j };
  *v = r[k];
  return TRUE;
}

gboolean
sym_static_bool (GraphValue *src, gboolean *v)
{
  return static_bool (src, v, 0);
}

gboolean
sym_static_int (GraphValue *src, gint64 *v)
{
  return static_int (src, v, 0);
}

static GArray *const_ints (SymContext *ctx, GraphValue *src);

GArray *
sym_get_const_ints (GraphValue *src)
{
  return const_ints (NULL, src);
}

GArray *
sym_traced_ints (SymContext *ctx, GraphValue *src)
{
  return const_ints (ctx, src);
}

/* An int list of constants, or with ctx of ints sym_traced_int folds
 * (each element of a prim::ListConstruct, Note [Traced sizes folded]). */
static GArray *
const_ints (SymContext *ctx, GraphValue *src)
{
  if (src == NULL)
    return NULL;
  GraphNode *p = graph_value_node (src);
  if (p && graph_node_is (p, "prim::ListConstruct"))
    {
      GArray *out = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (guint i = 0; i < graph_node_n_inputs (p); i++)
        {
          gint64 v;
          if (!(ctx ? sym_traced_int (ctx, graph_node_input (p, i), &v)
                    : sym_get_const_int (graph_node_input (p, i), &v)))
            {
              g_array_unref (out);
              return NULL;
            }
          g_array_append_val (out, v);
        }
      return out;
    }
  /* Note [Traced sizes folded], for whole lists: x.size() of an x whose
   * declared shape is static, and slices of it (x.shape[1:]) */
  GraphValue *sx;
  gint64 sdims[TENSOR_MAX_RANK];
  guint sn;
  if (ctx && !sym_has_dynamic_axes (ctx) && size_list_dims (src, &sx, sdims, &sn, 0))
    {
      GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (gint64), sn);
      for (guint i = 0; i < sn; i++)
        {
          gint64 d = sym_static_dim_size (sx, sdims[i]);
          if (d < 0)
            {
              g_array_unref (out);
              return NULL;
            }
          g_array_append_val (out, d);
        }
      return out;
    }
  p = const_node (src);
  if (p == NULL)
    return NULL;
  gsize len;
  const gint64 *vals;
  gint64 one;
  Tensor *t;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (graph_node_get_is (p, "value", &len, &vals))
    g_array_append_vals (out, vals, len);
  else if (graph_node_get_i (p, "value", &one))
    g_array_append_val (out, one);
  else if (graph_node_get_t (p, "value", &t) && tensor_has_data (t) && tensor_rank (t) <= 1
           && graph_dtype_is_integer (tensor_dtype (t)))
    for (gint64 i = 0; i < tensor_numel (t); i++)
      {
        gint64 v = tensor_get_int64 (t, i);
        g_array_append_val (out, v);
      }
  else
    {
      g_array_unref (out);
      return NULL;
    }
  return out;
}

static GArray *
get_const_doubles (GraphValue *src)
{
  GraphNode *p = src ? graph_value_node (src) : NULL;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));
  if (p && graph_node_is (p, "prim::ListConstruct"))
    {
      for (guint i = 0; i < graph_node_n_inputs (p); i++)
        {
          double v;
          if (!sym_get_const_double (graph_node_input (p, i), &v))
            goto fail;
          g_array_append_val (out, v);
        }
      return out;
    }
  p = const_node (src);
  if (p == NULL)
    goto fail;
  gsize len;
  const double *fv;
  const gint64 *iv;
  double one;
  if (graph_node_get_fs (p, "value", &len, &fv))
    g_array_append_vals (out, fv, len);
  else if (graph_node_get_is (p, "value", &len, &iv))
    for (gsize i = 0; i < len; i++)
      {
        double d = (double) iv[i];
        g_array_append_val (out, d);
      }
  else if (sym_get_const_double (src, &one))
    g_array_append_val (out, one);
  else
    goto fail;
  return out;
fail:
  g_array_unref (out);
  return NULL;
}

/* The constant as a tensor, as torch lowers prim::Constant: int → int64,
 * float → double, bool → bool, int[] → 1-D int64, float[] → 1-D double.
 * (transfer full) NULL for None, strings and non-constants. */
Tensor *
sym_const_as_tensor (GraphValue *src)
{
  GraphNode *p = const_node (src);
  if (p == NULL)
    return NULL;
  Tensor *t;
  gint64 i;
  double f;
  gsize len;
  const gint64 *iv;
  const double *fv;
  if (graph_node_get_t (p, "value", &t))
    return tensor_ref (t);
  if (graph_node_get_i (p, "value", &i))
    {
      GraphType *ty = graph_value_type (src);
      if (ty == NULL || graph_type_kind (ty) == GRAPH_TYPE_OPTIONAL)
        ty = graph_value_type (graph_node_output (p, 0));   /* a static If's bool? */
      if (ty && graph_type_kind (ty) == GRAPH_TYPE_BOOL)
        return tensor_new_scalar_int64 (GRAPH_DTYPE_BOOL, i != 0);
      return tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, i);
    }
  if (graph_node_get_f (p, "value", &f))
    return tensor_new_scalar_double (GRAPH_DTYPE_DOUBLE, f);
  if (graph_node_get_is (p, "value", &len, &iv))
    return tensor_new_int64_vector (len, iv);
  if (graph_node_get_fs (p, "value", &len, &fv))
    {
      gint64 d = (gint64) len;
      return tensor_new_from_data (GRAPH_DTYPE_DOUBLE, 1, &d, fv, len * sizeof (double), NULL);
    }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Types                                                                     */

GraphType *
sym_type (GraphValue *v)
{
  return v ? graph_value_type (v) : NULL;
}

int
sym_rank (GraphValue *v)
{
  GraphType *t = sym_type (v);
  if (t == NULL)
    return -1;
  if (graph_type_is_tensor (t))
    return graph_type_rank (t);
  if (graph_type_kind (t) == GRAPH_TYPE_INT || graph_type_kind (t) == GRAPH_TYPE_FLOAT
      || graph_type_kind (t) == GRAPH_TYPE_BOOL || graph_type_kind (t) == GRAPH_TYPE_NUMBER)
    return 0;
  return -1;
}

GraphDType
sym_dtype (GraphValue *v)
{
  GraphType *t = sym_type (v);
  if (t == NULL)
    return GRAPH_DTYPE_UNDEFINED;
  switch (graph_type_kind (t))
    {
    case GRAPH_TYPE_TENSOR:
      /* a quantized tensor is its dequantized float value to the symbolics
       * (Note [Quantized values], quantized.c) */
      return graph_type_is_quantized (t) ? GRAPH_DTYPE_FLOAT : graph_type_dtype (t);
    case GRAPH_TYPE_INT: return GRAPH_DTYPE_INT64;
    case GRAPH_TYPE_FLOAT: return GRAPH_DTYPE_DOUBLE;
    case GRAPH_TYPE_BOOL: return GRAPH_DTYPE_BOOL;
    default: return GRAPH_DTYPE_UNDEFINED;
    }
}

/* A weight the trace types only as "Tensor" (a prim::GetAttr of a
 * buffer): its initializer's dims, which no input changes (PyTorch's
 * suite, test_gather_constant_fold: a pad list of self.weight.shape[0]).
 * -1 when v is no such weight. */
static int
weight_dims (GraphValue *v, gint64 *dims)
{
  GraphNode *p = v ? graph_value_node (v) : NULL;
  if (current_ctx == NULL || p == NULL || !graph_node_is (p, "prim::GetAttr"))
    return -1;
  GError *local = NULL;
  GraphValue *w = sym_value (current_ctx, v, &local);
  g_clear_error (&local);
  Tensor *t = w ? graph_value_get_initializer (w) : NULL;
  if (t == NULL || tensor_rank (t) > TENSOR_MAX_RANK)
    return -1;
  for (guint i = 0; i < tensor_rank (t); i++)
    dims[i] = tensor_dim (t, i);
  return (int) tensor_rank (t);
}

int
sym_static_dims (GraphValue *v, gint64 *dims)
{
  GraphType *t = sym_type (v);
  if (t == NULL || !graph_type_is_tensor (t) || graph_type_rank (t) < 0)
    return weight_dims (v, dims);
  if (graph_type_rank (t) > TENSOR_MAX_RANK)
    return -1;
  int r = graph_type_rank (t);
  gboolean dependent = sym_context_is_data_dependent (current_ctx, v);   /* Note [Data-dependent shapes] */
  /* A source value's translation has the dims computed from dynamic axes
   * (Note [Dynamic axes during translation] in export/pipeline/pipeline.c):
   * its dim that is not static is not static here either. */
  GraphValue *mapped = current_ctx ? g_hash_table_lookup (current_ctx->map, v) : NULL;
  GraphType *mt = mapped && mapped != v ? sym_type (mapped) : NULL;
  if (mt && (!graph_type_is_tensor (mt) || graph_type_rank (mt) != r))
    mt = NULL;
  for (int i = 0; i < r; i++)
    {
      const GraphDim *d = graph_type_dim (t, (guint) i);
      const GraphDim *md = mt ? graph_type_dim (mt, (guint) i) : NULL;
      gboolean known = !dependent && d->kind == GRAPH_DIM_STATIC
                       && (md == NULL || md->kind == GRAPH_DIM_STATIC);
      dims[i] = known ? d->value : -1;
    }
  return r;
}

/* Note [Writes in If branches]: an in-place write inside a branch of a
 * run-time If to a tensor of an enclosing block (x.add_(1), x[0] = v) is
 * carried out of the If as an extra output, as torch 1.13's remove-inplace
 * pass does: sym_lower_if (control-flow.c) tracks each such base value
 * while it translates the branches, rebind_inplace and the view write-back
 * then map the base to its new value inside the branch, each branch's
 * final value becomes an output, and after the If the base maps to it.
 * A loop body does the same with extra loop-carried values (sym_lower_loop:
 * inside the body the tensor is the carried input). */
void
sym_context_track (SymContext *ctx, GraphValue *src, gboolean on)
{
  if (on)
    g_hash_table_add (ctx->tracked, src);
  else
    g_hash_table_remove (ctx->tracked, src);
}

GHashTable *
sym_context_swap_tracked (SymContext *ctx, GHashTable *set)
{
  GHashTable *old = ctx->tracked;
  ctx->tracked = set;
  return old;
}

gboolean
sym_context_tracks (SymContext *ctx, GraphValue *src)
{
  return ctx && src && g_hash_table_contains (ctx->tracked, src);
}

gboolean
sym_has_dynamic_axes (SymContext *ctx)
{
  return ctx && ctx->s.dynamic_axes;
}

gboolean
sym_training (SymContext *ctx)
{
  return ctx && ctx->s.training;
}

gboolean
sym_float_quantized_add (SymContext *ctx)
{
  return ctx && ctx->s.float_quantized_add;
}

GraphDType
sym_default_dtype (SymContext *ctx)
{
  GraphDType d = ctx ? ctx->s.default_dtype : GRAPH_DTYPE_UNDEFINED;
  return graph_dtype_is_floating (d) ? d : GRAPH_DTYPE_FLOAT;
}

/* Note [Traced sizes folded]: torch 1.13 folds x.size(0) - 1 of a trace
 * to a constant when the shapes are static (its per-node ONNX shape
 * inference), so symbolics that need a constant (Slice's attributes before
 * opset 10) get one.  The same here, only without dynamic axes (a dim the
 * user declared dynamic is never folded): aten::size of a declared static
 * dim, through prim::NumToTensor / aten::Int and add/sub/mul/floor_divide
 * with constants, evaluated by static_int_r with traced set. */
gboolean
sym_traced_int (SymContext *ctx, GraphValue *src, gint64 *v)
{
  static_begin ();
  gboolean r = static_int_r (src, !sym_has_dynamic_axes (ctx), v, 0);
  static_end ();
  return r;
}

gint64
sym_static_dim_size (GraphValue *v, gint64 dim)
{
  gint64 dims[TENSOR_MAX_RANK];
  int r = sym_static_dims (v, dims);
  if (dim < 0)
    dim += r;
  return r > 0 && dim >= 0 && dim < r ? dims[dim] : -1;
}

gboolean
sym_static_shape (GraphValue *v, gint64 *dims)
{
  int r = sym_static_dims (v, dims);
  for (int i = 0; i < r; i++)
    if (dims[i] < 0)
      return FALSE;
  return r >= 0;
}

void
sym_set_type (GraphValue *v, GraphDType dtype, int rank, const gint64 *dims)
{
  g_autoptr (GraphType) t = NULL;
  if (dims && rank >= 0)
    t = graph_type_new_tensor_static (dtype, (guint) rank, dims);
  else if (rank > 0)
    {
      GraphDim unknown[TENSOR_MAX_RANK] = { { 0 } };
      for (int i = 0; i < rank && i < TENSOR_MAX_RANK; i++)
        unknown[i].kind = GRAPH_DIM_UNKNOWN;
      t = graph_type_new_tensor (dtype, MIN (rank, TENSOR_MAX_RANK), unknown);
    }
  else
    t = graph_type_new_tensor (dtype, rank, NULL);
  graph_value_set_type (v, t);
}

gint64
sym_dim (GraphValue *v, gint64 dim)
{
  if (dim >= 0)
    return dim;
  int r = sym_rank (v);
  return r < 0 ? -1 : dim + r;
}

/* A trace type as the ONNX graph holds it: tensors without strides and
 * devices; scalars as 0-d tensors.  (transfer full) NULL when unknown. */
static GraphType *
onnx_type_of (GraphType *t)
{
  if (t == NULL)
    return NULL;
  switch (graph_type_kind (t))
    {
    case GRAPH_TYPE_TENSOR:
      {
        int rank = graph_type_rank (t);
        if (graph_type_dtype (t) == GRAPH_DTYPE_UNDEFINED)
          return NULL;
        GraphDim dims[TENSOR_MAX_RANK];
        for (int i = 0; i < rank && i < TENSOR_MAX_RANK; i++)
          dims[i] = *graph_type_dim (t, (guint) i);
        return graph_type_new_tensor (graph_type_dtype (t), rank, rank > 0 ? dims : NULL);
      }
    case GRAPH_TYPE_INT: return graph_type_new_tensor_static (GRAPH_DTYPE_INT64, 0, NULL);
    case GRAPH_TYPE_FLOAT: return graph_type_new_tensor_static (GRAPH_DTYPE_DOUBLE, 0, NULL);
    case GRAPH_TYPE_BOOL: return graph_type_new_tensor_static (GRAPH_DTYPE_BOOL, 0, NULL);
    default: return NULL;
    }
}

static void unknown_dims (GraphValue *v, GraphType *traced);

/* ------------------------------------------------------------------------ */
/* New constants                                                             */

GraphValue *
sym_constant (SymContext *ctx, Tensor *t)
{
  GraphValue *v = graph_op (ctx->s.dst, "Constant", "value_t", t, NULL);
  if (v)
    sym_set_type (v, tensor_dtype (t), (int) tensor_rank (t), tensor_dims (t));
  return v;
}

GraphValue *
sym_const_i64 (SymContext *ctx, gint64 v)
{
  g_autoptr (Tensor) t = tensor_new_scalar_int64 (GRAPH_DTYPE_INT64, v);
  return sym_constant (ctx, t);
}

GraphValue *
sym_const_ints (SymContext *ctx, gsize n, const gint64 *v)
{
  g_autoptr (Tensor) t = tensor_new_int64_vector (n, v);
  return sym_constant (ctx, t);
}

GraphValue *
sym_const_scalar (SymContext *ctx, GraphDType dtype, double v)
{
  /* the total conversion into every type (tensor_new_scalar_double) */
  g_autoptr (Tensor) t = tensor_new_scalar_double (dtype, v);
  return sym_constant (ctx, t);
}

GraphValue *
sym_scalar_like (SymContext *ctx, double v, GraphValue *like)
{
  GraphDType dt = sym_dtype (like);
  if (dt == GRAPH_DTYPE_UNDEFINED)
    dt = GRAPH_DTYPE_FLOAT;
  return sym_const_scalar (ctx, dt, v);
}

/* ------------------------------------------------------------------------ */
/* Source → ONNX values                                                      */

char *
sym_getattr_path (GraphValue *src)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  GraphValue *v = src;
  for (;;)
    {
      GraphNode *p = graph_value_node (v);
      if (p == NULL)
        break;   /* reached a graph input: the module */
      const char *name;
      if (!graph_node_is (p, "prim::GetAttr") || !graph_node_get_s (p, "name", &name, NULL)
          || graph_node_n_inputs (p) != 1)
        return NULL;
      g_ptr_array_insert (parts, 0, (gpointer) name);
      v = graph_node_input (p, 0);
      if (v == NULL)
        return NULL;
    }
  if (parts->len == 0)
    return NULL;
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (".", (char **) parts->pdata);
}

static const char *
value_label (GraphValue *v, char buf[32])
{
  const char *name = graph_value_get_name (v);
  if (name)
    return name;
  g_snprintf (buf, 32, "%u", graph_value_id (v));
  return buf;
}

static GraphValue *
weight_value (SymContext *ctx, GraphValue *src, GError **error)
{
  g_autofree char *path = sym_getattr_path (src);
  if (path == NULL)
    {
      char buf[32];
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "value %%%s: a prim::GetAttr chain that does not start at the module input",
                   value_label (src, buf));
      return NULL;
    }
  GraphValue *dst = g_hash_table_lookup (ctx->inits, path);
  if (dst)
    return dst;
  Tensor *t = ctx->s.weights ? g_hash_table_lookup (ctx->s.weights, path) : NULL;
  if (t)
    dst = graph_add_initializer (weights_graph (ctx), path, t);
  else if (ctx->s.require_weights)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "weight '%s' (prim::GetAttr chain of %%%s) is not in the weights%s", path,
                   graph_value_get_name (src) ? graph_value_get_name (src) : "?",
                   ctx->s.weights ? "" : " (no weights file given)");
      return NULL;
    }
  else
    {
      /* export_params = False: weights become plain graph inputs. */
      g_autoptr (GraphType) ty = onnx_type_of (graph_value_type (src));
      dst = graph_add_input (weights_graph (ctx), path, ty);
    }
  if (t)
    {
      g_autoptr (GraphType) ty = graph_type_new_tensor_static (tensor_dtype (t), tensor_rank (t),
                                                               tensor_dims (t));
      graph_value_set_type (dst, ty);
    }
  g_hash_table_insert (ctx->inits, g_strdup (path), dst);
  return dst;
}

/* A ListConstruct of ints, some of them computed: Concat of 1-D pieces. */
static GraphValue *
dynamic_int_list (SymContext *ctx, GraphNode *p, GError **error)
{
  guint n = graph_node_n_inputs (p);
  g_autofree GraphValue **parts = g_new0 (GraphValue *, n);
  for (guint i = 0; i < n; i++)
    {
      GraphValue *e = graph_node_input (p, i);
      gint64 c;
      if (sym_get_const_int (e, &c))
        {
          parts[i] = sym_const_ints (ctx, 1, &c);
          continue;
        }
      GraphValue *v = sym_value (ctx, e, error);
      if (v == NULL)
        return NULL;
      if (sym_dtype (v) != GRAPH_DTYPE_INT64 && sym_dtype (v) != GRAPH_DTYPE_UNDEFINED)
        v = sym_cast (ctx, v, GRAPH_DTYPE_INT64);
      int r = sym_rank (v);
      if (r != 1)
        {
          gint64 zero = 0;
          v = sym_unsqueeze (ctx, v, 1, &zero);
        }
      parts[i] = v;
    }
  GraphValue *out = graph_opv (ctx->s.dst, "Concat", n, parts, "axis_i", (gint64) 0, NULL);
  gint64 dn = n;
  sym_set_type (out, GRAPH_DTYPE_INT64, 1, &dn);
  return out;
}

/* Scripted code's tests on what the export knows (Note [Static scalars in
 * scripted code]): translated on use, as the constant they evaluate to. */
static gboolean
is_static_scalar_node (GraphNode *n)
{
  return graph_node_is (n, "aten::__contains__") || graph_node_is (n, "aten::__is__")
         || graph_node_is (n, "aten::__isnot__") || graph_node_is (n, "aten::__not__")
         || graph_node_is (n, "prim::Uninitialized");
}

/* An aten node's arguments against torch's schemas and its declared
 * shapes against each other, before any symbolic reads its inputs (both
 * where nodes are translated in order and where a lazy one is translated
 * on use). */
static gboolean
check_aten_node (GraphNode *n, GError **error)
{
  return strcmp (graph_node_domain (n), "aten") != 0
         || (sym_aten_check_arguments (n, error) && sym_check_declared_shapes (n, error));
}

GraphValue *
sym_value (SymContext *ctx, GraphValue *src, GError **error)
{
  if (src == NULL)
    return NULL;
  gpointer found;
  if (g_hash_table_lookup_extended (ctx->map, src, NULL, &found))
    return found;
  GraphNode *p = graph_value_node (src);
  char buf[32];
  GraphValue *dst = NULL;
  if (p == NULL)
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "graph input %%%s has no ONNX counterpart (a module or non-tensor input)",
                   value_label (src, buf));
      return NULL;
    }
  if (graph_node_is (p, "prim::Constant"))
    {
      if (sym_is_none (src))
        return NULL;
      g_autoptr (Tensor) t = sym_const_as_tensor (src);
      /* torch2trace.py stores tensor constants exactly (the trace text
       * prints them lossily) as "__constant__.<value name>". */
      const char *vname = graph_value_get_name (src);
      g_autofree char *key = vname ? g_strconcat ("__constant__.", vname, NULL) : NULL;
      Tensor *exact = key && ctx->s.weights ? g_hash_table_lookup (ctx->s.weights, key) : NULL;
      if (exact)
        {
          g_clear_pointer (&t, tensor_unref);
          t = tensor_ref (exact);
        }
      if (t == NULL)
        {
          /* torch 1.13: writes a Constant with a string attribute or drops a device (no ONNX
           * tensor); refused here because a string is not an ONNX tensor value */
          g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                       "constant %%%s cannot be an ONNX tensor (a string or device constant)",
                       value_label (src, buf));
          return NULL;
        }
      dst = sym_constant (ctx, t);
    }
  else if (graph_node_is (p, "prim::GetAttr"))
    dst = weight_value (ctx, src, error);
  else if (graph_node_is (p, "prim::unchecked_cast"))   /* Note [Arity of structural nodes] */
    dst = sym_value (ctx, graph_node_input (p, 0), error);
  else if (is_static_scalar_node (p)
           && sym_registry_lookup (ctx->s.reg, graph_node_kind (p), ctx->s.opset, NULL, NULL))
    {
      /* Note [Static scalars in scripted code]: translated on use by the
       * symbolic registered for it (symbolic/script-ops.c), which folds the
       * value known at export time and writes the run-time form otherwise. */
      gpointer ud = NULL, saved = ctx->user_data;
      if (!check_aten_node (p, error))   /* translated here, not by translate_node */
        return NULL;
      SymFn fn = sym_registry_lookup (ctx->s.reg, graph_node_kind (p), ctx->s.opset, &ud, NULL);
      guint n_out = graph_node_n_outputs (p);
      g_autofree GraphValue **o = g_new0 (GraphValue *, n_out + 1);
      ctx->user_data = ud;
      gboolean ok = fn (ctx, p, o, error);
      ctx->user_data = saved;
      if (!ok)
        return NULL;
      for (guint i = 0; i < n_out; i++)
        if (o[i] && graph_node_output (p, i) != src)
          g_hash_table_insert (ctx->map, graph_node_output (p, i), o[i]);
      for (guint i = 0; i < n_out; i++)
        if (graph_node_output (p, i) == src)
          dst = o[i];
      if (dst == NULL)
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "the symbolic for %s gave no value for %%%s",
                       graph_node_kind (p), value_label (src, buf));
          return NULL;
        }
    }
  else if (is_static_scalar_node (p))
    {
      /* Note [Static scalars in scripted code] */
      gboolean b;
      if (static_bool (src, &b, 0))
        {
          g_autoptr (Tensor) t = tensor_new_scalar_int64 (GRAPH_DTYPE_BOOL, b);
          dst = sym_constant (ctx, t);
        }
      else
        {
          /* torch 1.13: also refuses (scripted scalar ops on run-time values fail in its symbolics
           * or the ONNX checker) */
          g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                       "value %%%s (an output of %s) is exported only where its value is known "
                       "at export time (a rank, a constant, None), and here it is not",
                       value_label (src, buf), graph_node_kind (p));
          return NULL;
        }
    }
  else if (graph_node_is (p, "prim::NumToTensor") || graph_node_is (p, "aten::ScalarImplicit"))
    dst = sym_value (ctx, graph_node_input (p, 0), error);
  else if (graph_node_is (p, "aten::Int") || graph_node_is (p, "aten::Float")
           || graph_node_is (p, "aten::IntImplicit") || graph_node_is (p, "aten::FloatImplicit"))
    {
      /* Int(tensor) / Float(tensor) (and scripted code's implicit forms): a
       * cast when the element type differs. */
      GraphDType want = graph_node_is (p, "aten::Int") || graph_node_is (p, "aten::IntImplicit")
                          ? GRAPH_DTYPE_INT64 : GRAPH_DTYPE_DOUBLE;
      dst = sym_value (ctx, graph_node_input (p, 0), error);
      if (dst && sym_dtype (dst) != want)
        dst = sym_cast (ctx, dst, want);
    }
  else if (graph_node_is (p, "prim::ListConstruct"))
    {
      g_autoptr (GArray) ints = sym_get_const_ints (src);
      g_autoptr (GArray) dbls = ints ? NULL : get_const_doubles (src);
      if (ints)
        dst = sym_const_ints (ctx, ints->len, (const gint64 *) ints->data);
      else if (dbls)
        {
          gint64 d = dbls->len;
          g_autoptr (Tensor) t = tensor_new_from_data (GRAPH_DTYPE_DOUBLE, 1, &d, dbls->data,
                                                       dbls->len * sizeof (double), NULL);
          dst = sym_constant (ctx, t);
        }
      else
        {
          GraphType *lt = graph_value_type (src);
          GraphType *et = lt && graph_type_kind (lt) == GRAPH_TYPE_LIST ? graph_type_elem (lt, 0) : NULL;
          if (et && graph_type_kind (et) != GRAPH_TYPE_INT)
            {
              /* torch 1.13: also refuses (a Tensor[] where a tensor is needed raises
               * SymbolicValueError) */
              g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                           "list %%%s of tensors used where a single tensor is needed",
                           value_label (src, buf));
              return NULL;
            }
          dst = dynamic_int_list (ctx, p, error);
        }
    }
  else
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "value %%%s (an output of %s) has no ONNX value: its producer was not translated",
                   value_label (src, buf), graph_node_kind (p));
      return NULL;
    }
  if (dst)
    g_hash_table_insert (ctx->map, src, dst);
  return dst;
}

void
sym_context_set_scan_list (SymContext *ctx, GraphValue *list_src, GraphValue *scan)
{
  g_hash_table_insert (ctx->scans, list_src, scan);
}

GraphValue *
sym_context_scan_list (SymContext *ctx, GraphValue *list_src)
{
  return list_src ? g_hash_table_lookup (ctx->scans, list_src) : NULL;
}

GPtrArray *
sym_context_list_elements (SymContext *ctx, GraphValue *src)
{
  return g_hash_table_lookup (ctx->lists, src);
}

/* The ONNX values of a Tensor[] source value.  (transfer container) */
GPtrArray *
sym_list_values (SymContext *ctx, GraphValue *src, GError **error)
{
  GPtrArray *known = g_hash_table_lookup (ctx->lists, src);
  if (known)
    return g_ptr_array_ref (known);
  GraphNode *p = src ? graph_value_node (src) : NULL;
  char buf[32];
  if (sym_context_scan_list (ctx, src))
    {
      /* torch 1.13: exports such a list as an ONNX sequence (SequenceInsert in the Loop); not yet
       * here (only stack of it) */
      g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                   "tensor list %%%s is filled by append in a loop: only torch.stack of it is "
                   "exported", value_label (src, buf));
      return NULL;
    }
  if (p == NULL || !graph_node_is (p, "prim::ListConstruct"))
    {
      /* torch 1.13: exports a non-ListConstruct list as an ONNX sequence value; not yet here */
      g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                   "tensor list %%%s is not a prim::ListConstruct (a dynamic list)",
                   src ? value_label (src, buf) : "?");
      return NULL;
    }
  GPtrArray *out = g_ptr_array_new ();
  for (guint i = 0; i < graph_node_n_inputs (p); i++)
    {
      GraphValue *v = sym_value (ctx, graph_node_input (p, i), error);
      if (v == NULL)
        {
          if (error && *error == NULL)
            /* torch 1.13: also refuses (a None element of a Tensor[] has no ONNX value) */
            g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED, "None inside a tensor list");
          g_ptr_array_unref (out);
          return NULL;
        }
      g_ptr_array_add (out, v);
    }
  return out;
}

int
sym_list_unpack_size (SymContext *ctx, GraphNode *n, guint output)
{
  (void) ctx;
  GraphValue *v = graph_node_output (n, output);
  for (guint i = 0; i < graph_value_n_uses (v); i++)
    {
      GraphNode *u = graph_value_use (v, i)->node;
      if (graph_node_is (u, "prim::ListUnpack"))
        return (int) graph_node_n_outputs (u);
    }
  return -1;
}

void
sym_set_list_output (SymContext *ctx, GraphNode *n, guint output, guint n_values,
                     GraphValue *const *values)
{
  GPtrArray *arr = g_ptr_array_sized_new (n_values);
  for (guint i = 0; i < n_values; i++)
    g_ptr_array_add (arr, values[i]);
  g_hash_table_insert (ctx->lists, graph_node_output (n, output), arr);
}

/* ------------------------------------------------------------------------ */
/* parse_args                                                                */

static gboolean
arg_error (GraphNode *n, guint i, const char *what, GError **error)
{
  g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
               "%s: argument %u must be %s", graph_node_kind (n), i, what);
  return FALSE;
}

/* A dim argument checked as torch's maybe_wrap_dim does: in [-r, r-1] (a
 * 0-d tensor takes [-1, 0]).  With an unknown rank it passes unchecked.
 * `new_axis` (unsqueeze, stack): the rank the result has, one more. */
static gboolean
check_dim (GraphNode *n, guint i, int rank, gint64 dim, gboolean new_axis, GError **error)
{
  gint64 r = new_axis ? rank + 1 : MAX (rank, 1);
  if (rank < 0 || (dim >= -r && dim < r))
    return TRUE;
  g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
               "%s: argument %u: dim %" G_GINT64_FORMAT " is out of range for a tensor of rank %d "
               "(expected %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT ")",
               graph_node_kind (n), i, dim, rank, -r, r - 1);
  return FALSE;
}

/* Every dim of a dim list checked as check_dim does and, when `distinct`,
 * no dim named twice after wrapping (torch's dim lists of reductions,
 * permute, flip, movedim; roll's may repeat). */
static gboolean
check_dim_list (GraphNode *n, guint i, int rank, GArray *dims, gboolean distinct, GError **error)
{
  guint64 seen = 0;
  for (guint k = 0; k < dims->len; k++)
    {
      gint64 d = g_array_index (dims, gint64, k);
      if (!check_dim (n, i, rank, d, FALSE, error))
        return FALSE;
      if (!distinct || rank < 0)
        continue;
      gint64 w = d < 0 ? d + MAX (rank, 1) : d;
      if (w < 64 && (seen & (G_GUINT64_CONSTANT (1) << w)))
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                       "%s: argument %u: dim %" G_GINT64_FORMAT " appears more than once in the "
                       "list of dims", graph_node_kind (n), i, w);
          return FALSE;
        }
      if (w < 64)
        seen |= G_GUINT64_CONSTANT (1) << w;
    }
  return TRUE;
}

static gboolean
is_list_code (const char *c)
{
  return strcmp (c, "is") == 0 || strcmp (c, "fs") == 0 || strcmp (c, "ds") == 0
         || strcmp (c, "dr") == 0;
}

/* The rank of a node's first argument (for 'd' codes with no 'v' before
 * them: "none,ds"), -1 when unknown.  A Tensor[] built in the trace (cat,
 * stack) gives its elements' rank when they all have the same known one. */
static int
first_arg_rank (SymContext *ctx, GraphNode *n, GPtrArray *py)
{
  GraphValue *src = py ? (py->len ? py->pdata[0] : NULL)
                       : graph_node_n_inputs (n) ? graph_node_input (n, 0) : NULL;
  GraphNode *lc = src ? graph_value_node (src) : NULL;
  if (lc == NULL || !graph_node_is (lc, "prim::ListConstruct"))
    return src ? sym_known_rank (ctx, src) : -1;
  int rank = -1;
  for (guint k = 0; k < graph_node_n_inputs (lc); k++)
    {
      int r = sym_known_rank (ctx, graph_node_input (lc, k));
      if (r < 0 || (k > 0 && r != rank))
        return -1;
      rank = r;
    }
  return rank;
}

/* The arguments sym_parse_args reads: a node's inputs, or for a
 * prim::PythonOp its arguments in call order, scalars included (Note
 * [PythonOp arguments]).  NULL with an error when a PythonOp's cannot be
 * made out.  (transfer none) */
static GPtrArray *
python_op_args (SymContext *ctx, GraphNode *n, GError **error)
{
  GPtrArray *args = g_hash_table_lookup (ctx->py_args, n);
  if (args)
    return args;
  args = sym_python_op_arguments (sym_context_scratch (ctx), n, error);
  if (args)
    g_hash_table_insert (ctx->py_args, n, args);
  return args;
}

gboolean
sym_parse_args (SymContext *ctx, GraphNode *n, const char *spec, ...)
{
  va_list ap;
  GError **error = NULL;
  g_auto (GStrv) codes = NULL;
  gboolean ok = TRUE;

  /* The GError** is the last argument; find it first. */
  if (strchr (spec, ','))
    codes = g_strsplit (spec, ",", -1);
  else
    {
      gsize len = strlen (spec);
      codes = g_new0 (char *, len + 1);
      for (gsize i = 0; i < len; i++)
        codes[i] = g_strndup (spec + i, 1);
    }
  guint n_codes = g_strv_length (codes);
  va_start (ap, spec);
  for (guint i = 0; i < n_codes; i++)
    {
      const char *c = g_strstrip (codes[i]);
      if (is_list_code (c))
        (void) va_arg (ap, gpointer);
      if (strcmp (c, "none") != 0)
        (void) va_arg (ap, gpointer);
    }
  error = va_arg (ap, GError **);
  va_end (ap);

  GPtrArray *py = NULL;
  if (graph_node_is (n, GRAPH_KIND_PYTHON_OP) && (py = python_op_args (ctx, n, error)) == NULL)
    return FALSE;
  guint n_args = py ? py->len : graph_node_n_inputs (n);
  int dim_rank = -1;   /* rank of the first 'v' argument, for 'd' codes */
  gboolean have_v = FALSE;
  va_start (ap, spec);
  for (guint i = 0; i < n_codes && ok; i++)
    {
      const char *c = codes[i];
      GraphValue *src = i >= n_args ? NULL : py ? py->pdata[i] : graph_node_input (n, i);
      if (strcmp (c, "none") == 0)
        continue;
      if (strcmp (c, "v") == 0)
        {
          GraphValue **out = va_arg (ap, GraphValue **);
          GError *local = NULL;
          *out = sym_value (ctx, src, &local);
          if (local)
            {
              g_propagate_error (error, local);
              ok = FALSE;
            }
          else if (!have_v)
            {
              have_v = TRUE;
              dim_rank = *out ? sym_rank (*out) : -1;
            }
        }
      else if (strcmp (c, "d") == 0 || strcmp (c, "dn") == 0)
        {
          gint64 *out = va_arg (ap, gint64 *);
          if (!have_v && dim_rank < 0)
            dim_rank = first_arg_rank (ctx, n, py);
          if (!sym_get_const_int (src, out))
            /* torch 1.13: also refuses (parse_args 'i' on a non-constant raises "not constant") */
            ok = arg_error (n, i, "a constant int (a dim)", error);
          else
            ok = check_dim (n, i, dim_rank, *out, c[1] == 'n', error);
        }
      else if (strcmp (c, "ds") == 0 || strcmp (c, "dr") == 0)
        {
          gsize *len = va_arg (ap, gsize *);
          const gint64 **vals = va_arg (ap, const gint64 **);
          if (!have_v && dim_rank < 0)
            dim_rank = first_arg_rank (ctx, n, py);
          GArray *arr = sym_get_const_ints (src);
          if (arr == NULL)
            /* torch 1.13: also refuses (parse_args 'is' on a list that is not constant raises) */
            ok = arg_error (n, i, "a constant int list (dims)", error);
          else
            {
              ok = check_dim_list (n, i, dim_rank, arr, c[1] == 's', error);
              *len = arr->len;
              *vals = (const gint64 *) (gpointer) g_array_free (arr, FALSE);
              g_ptr_array_add (ctx->pool, (gpointer) *vals);
            }
        }
      else if (strcmp (c, "i") == 0)
        {
          gint64 *out = va_arg (ap, gint64 *);
          if (!sym_get_const_int (src, out))
            /* torch 1.13: also refuses (parse_args 'i' on a non-constant raises "not constant") */
            ok = arg_error (n, i, "a constant int", error);
        }
      else if (strcmp (c, "f") == 0)
        {
          double *out = va_arg (ap, double *);
          if (!sym_get_const_double (src, out))
            /* torch 1.13: also refuses (parse_args 'f' on a non-constant raises "not constant") */
            ok = arg_error (n, i, "a constant number", error);
        }
      else if (strcmp (c, "b") == 0)
        {
          gboolean *out = va_arg (ap, gboolean *);
          if (!sym_get_const_bool (src, out))
            /* torch 1.13: also refuses (parse_args 'b' on a non-constant raises "not constant") */
            ok = arg_error (n, i, "a constant bool", error);
        }
      else if (strcmp (c, "s") == 0)
        {
          const char **out = va_arg (ap, const char **);
          GraphNode *p = const_node (src);
          const char *s;
          if (p && graph_node_get_s (p, "value", &s, NULL))
            {
              *out = g_strdup (s);
              g_ptr_array_add (ctx->pool, (gpointer) *out);
            }
          else
            /* torch 1.13: also refuses (parse_args 's' on a non-constant raises "not constant") */
            ok = arg_error (n, i, "a constant string", error);
        }
      else if (strcmp (c, "t") == 0)
        {
          Tensor **out = va_arg (ap, Tensor **);
          Tensor *t = sym_const_as_tensor (src);
          if (t)
            {
              g_ptr_array_add (ctx->tensors, t);
              *out = t;
            }
          else
            /* torch 1.13: also refuses (parse_args 't' on a non-constant raises "not constant") */
            ok = arg_error (n, i, "a constant tensor", error);
        }
      else if (strcmp (c, "is") == 0 || strcmp (c, "fs") == 0)
        {
          gsize *len = va_arg (ap, gsize *);
          gconstpointer *vals = va_arg (ap, gconstpointer *);
          GArray *arr = c[0] == 'i' ? sym_get_const_ints (src) : get_const_doubles (src);
          if (arr)
            {
              *len = arr->len;
              *vals = g_array_free (arr, FALSE);
              g_ptr_array_add (ctx->pool, (gpointer) *vals);
            }
          else
            /* torch 1.13: also refuses (parse_args 'is'/'fs' on a list that is not constant raises) */
            ok = arg_error (n, i, c[0] == 'i' ? "a constant int list" : "a constant float list",
                            error);
        }
      else
        {
          g_critical ("sym_parse_args(%s): unknown code '%s' in \"%s\"", graph_node_kind (n), c, spec);
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID, "bad parse_args spec \"%s\"", spec);
          ok = FALSE;
        }
    }
  va_end (ap);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

gboolean
sym_unimplemented (SymContext *ctx, GraphNode *n, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED, "%s: %s is not supported at opset %d",
               graph_node_kind (n), what, ctx->s.opset);
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Translating one node                                                      */

gboolean
sym_context_is_lazy (GraphNode *n)
{
  if (is_static_scalar_node (n) || graph_node_is (n, "prim::unchecked_cast")
      || graph_node_is (n, "aten::format"))
    return TRUE;
  return graph_node_is (n, "prim::Constant") || graph_node_is (n, "prim::GetAttr")
         || graph_node_is (n, "prim::device") || graph_node_is (n, "prim::dtype")
         || graph_node_is (n, "prim::ListConstruct") || graph_node_is (n, "prim::NumToTensor")
         || graph_node_is (n, "prim::TupleConstruct") || graph_node_is (n, "prim::DictConstruct")
         || graph_node_is (n, "aten::Int") || graph_node_is (n, "aten::Float")
         || graph_node_is (n, "aten::IntImplicit") || graph_node_is (n, "aten::FloatImplicit")
         || graph_node_is (n, "aten::ScalarImplicit");
}

void
sym_context_set_list_elements (SymContext *ctx, GraphValue *src, guint n_values,
                               GraphValue *const *values)
{
  GPtrArray *arr = g_ptr_array_sized_new (n_values);
  for (guint i = 0; i < n_values; i++)
    g_ptr_array_add (arr, values[i]);
  g_hash_table_insert (ctx->lists, src, arr);
}

static gboolean
translate_unpack (SymContext *ctx, GraphNode *n, GError **error)
{
  GraphValue *in = graph_node_input (n, 0);   /* Note [Arity of structural nodes] */
  GraphNode *p = in ? graph_value_node (in) : NULL;
  guint n_out = graph_node_n_outputs (n);
  if (p && (graph_node_is (p, "prim::ListConstruct") || graph_node_is (p, "prim::TupleConstruct")))
    {
      if (graph_node_n_inputs (p) != n_out)
        goto bad;
      for (guint i = 0; i < n_out; i++)
        {
          GError *local = NULL;
          GraphValue *v = sym_value (ctx, graph_node_input (p, i), &local);
          if (local)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          sym_map_value (ctx, graph_node_output (n, i), v);
        }
      return TRUE;
    }
  GraphValue *sx;
  gint64 sdims[TENSOR_MAX_RANK];
  guint sn;
  if (in && size_list_dims (in, &sx, sdims, &sn, 0) && sn == n_out)
    {
      /* `a, b = x.shape[1:]` of scripted code: each size, folded where the
       * trace's is static and nothing is dynamic (Note [Traced sizes
       * folded]), else read at run time */
      GraphValue *x = sym_value (ctx, sx, error);
      if (x == NULL)
        return FALSE;
      for (guint i = 0; i < n_out; i++)
        {
          gint64 d = sym_has_dynamic_axes (ctx) ? -1 : sym_static_dim_size (sx, sdims[i]);
          sym_map_value (ctx, graph_node_output (n, i), d >= 0 ? sym_const_i64 (ctx, d) : sym_size (ctx, x, sdims[i]));
        }
      return TRUE;
    }
  if (p && graph_node_is (p, "prim::Constant"))
    {
      /* a constant tuple or list of numbers (scripted code's (2, 3)) */
      g_autoptr (GArray) ints = sym_get_const_ints (in);
      g_autoptr (GArray) dbls = ints ? NULL : get_const_doubles (in);
      guint len = ints ? ints->len : dbls ? dbls->len : 0;
      if ((ints || dbls) && len == n_out)
        {
          for (guint i = 0; i < n_out; i++)
            sym_map_value (ctx, graph_node_output (n, i),
                           ints ? sym_const_i64 (ctx, g_array_index (ints, gint64, i))
                                : sym_const_scalar (ctx, GRAPH_DTYPE_DOUBLE, g_array_index (dbls, double, i)));
          return TRUE;
        }
    }
  GPtrArray *elems = in ? g_hash_table_lookup (ctx->lists, in) : NULL;
  if (elems && elems->len == n_out)
    {
      for (guint i = 0; i < n_out; i++)
        {
          GraphValue *dv = elems->pdata[i];
          if (sym_context_is_data_dependent (ctx, graph_node_output (n, i)))
            unknown_dims (dv, graph_value_type (graph_node_output (n, i)));
          else if (graph_value_type (dv) == NULL)
            {
              g_autoptr (GraphType) t = onnx_type_of (graph_value_type (graph_node_output (n, i)));
              if (t)
                graph_value_set_type (dv, t);
            }
          sym_map_value (ctx, graph_node_output (n, i), dv);
          /* the elements of a quantized list (chunk of a quantized tensor)
           * share its parameters (Note [Quantized values]) */
          const SymQuantized *q = sym_quantized_lookup (ctx, in);
          if (q)
            {
              SymQuantized e = *q;
              e.value = dv;
              sym_quantized_record (ctx, graph_node_output (n, i), &e);
            }
        }
      return TRUE;
    }
bad:
  /* torch 1.13: exports such an unpack from an ONNX sequence (SequenceAt); not yet here */
  g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
               "%s: cannot unpack %u elements from a list whose elements are not known",
               graph_node_kind (n), n_out);
  return FALSE;
}

/* Copies the node as it is (ONNX_FALLTHROUGH). */
static gboolean
fallthrough (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  guint n_in = graph_node_n_inputs (n);
  g_autofree GraphValue **ins = g_new0 (GraphValue *, n_in + 1);
  for (guint i = 0; i < n_in; i++)
    {
      GError *local = NULL;
      ins[i] = sym_value (ctx, graph_node_input (n, i), &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }
  GraphNode *copy = graph_create_node (ctx->s.dst, graph_node_kind (n), n_in, ins,
                                       graph_node_n_outputs (n));
  if (copy == NULL)
    return FALSE;
  graph_node_copy_attrs (copy, n);
  graph_insert_node (ctx->s.dst, copy);
  for (guint i = 0; i < graph_node_n_outputs (n); i++)
    out[i] = graph_node_output (copy, i);
  return TRUE;
}

char *
sym_node_location (GraphNode *n)
{
  const char *src = graph_node_get_source (n);
  const char *scope = graph_node_get_scope (n);
  GraphValue *o = graph_node_n_outputs (n) ? graph_node_output (n, 0) : NULL;
  char buf[32];
  GString *s = g_string_new ("node ");
  if (o)
    g_string_append_printf (s, "%%%s", value_label (o, buf));
  else
    g_string_append (s, graph_node_kind (n));
  if (scope)
    g_string_append_printf (s, ", scope %s", scope);
  if (src)
    g_string_append_printf (s, ", at %s", src);
  return g_string_free (s, FALSE);
}

/* Note [PythonOp symbolics]
 * A torch.autograd.Function call is a prim::PythonOp node whose body is not
 * in the trace.  Its symbolic is looked up as "prim::PythonOp::<python_name>"
 * (prim::PythonOp::MyFunction: the Function's `symbolic` staticmethod, in C,
 * registered by a plugin), then as plain "prim::PythonOp" (one symbolic for
 * every Function, which can read the python_name attribute itself).
 * Returns the interned key, or NULL for other nodes. */
static const char *
python_op_key (GraphNode *n)
{
  const char *name;
  gsize len;
  if (!graph_node_is (n, GRAPH_KIND_PYTHON_OP)
      || !graph_node_get_s (n, GRAPH_PYTHON_OP_NAME_ATTR, &name, &len))
    return NULL;
  g_autofree char *key = g_strdup_printf ("%s::%.*s", GRAPH_KIND_PYTHON_OP, (int) len, name);
  return graph_symbol (key, NULL);
}

const char *
sym_context_list_why (SymContext *ctx, GraphNode *n)
{
  return ctx->s.list_whys ? g_hash_table_lookup (ctx->s.list_whys, n) : NULL;
}

const char *
sym_unsupported_hint (const char *kind)
{
  if (g_str_has_prefix (kind, GRAPH_KIND_PYTHON_OP))
    return "give each Python operator a symbolic: sym_register (reg, \"prim::PythonOp::NAME\", 1, "
           "fn, NULL) from a --plugin (see doc/guide.md, \"Python operators\")";
  static const char *const list_ops[] = {
    "aten::append", "aten::insert", "aten::pop", "aten::Delete", "aten::_set_item",
  };
  for (guint i = 0; i < G_N_ELEMENTS (list_ops); i++)
    if (strcmp (kind, list_ops[i]) == 0)
      return "change a list in the scripted code only in the block that builds it, at constant "
             "indices, before anything else holds it (see doc/symbolic.md, \"Lists changed in "
             "place\"); no fallback mode exports such a change";
  return "register a symbolic with sym_register() or a --plugin, or export with "
         "ONNX_ATEN_FALLBACK (--mode aten-fallback)";
}

/* The message names the node and why; the hint (what to do about it) is
 * added once by the caller, however many nodes fail (sym_unsupported_hint). */
static gboolean
unsupported_error (SymContext *ctx, GraphNode *n, GError *cause, GError **error)
{
  const char *kind = graph_node_kind (n);
  g_autofree char *where = sym_node_location (n);
  const char *py_key = python_op_key (n);
  if (py_key && cause == NULL)
    {
      /* torch 1.13: also refuses (UnsupportedOperatorError for a prim::PythonOp without a symbolic) */
      g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
                   "ONNX export failed: Couldn't export Python operator %s (a "
                   "torch.autograd.Function, %s) at opset %d (%s): its body is not in the "
                   "trace (tools/torch2trace.py records it, for symonnx to inline) and no "
                   "symbolic is registered as \"%s\"",
                   py_key + strlen (GRAPH_KIND_PYTHON_OP) + 2, kind, ctx->s.opset, where, py_key);
      return FALSE;
    }
  int first = sym_registry_first_opset (ctx->s.reg, kind);
  g_autofree char *hint = NULL;
  if (cause)
    hint = g_strdup_printf ("its symbolic declined: %s", cause->message);
  else if (first > ctx->s.opset)
    hint = g_strdup_printf ("it is supported from opset %d: export with opset %d or later", first,
                            first);
  else
    hint = g_strdup ("no symbolic function is registered for it");
  /* torch 1.13: also refuses (UnsupportedOperatorError: no symbolic, or its symbolic declines) */
  g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
               "ONNX export failed: Couldn't export operator %s at opset %d (%s): %s",
               kind, ctx->s.opset, where, hint);
  return FALSE;
}

/* A data-dependent value's type: its element type and rank (from the value
 * or the trace), every dim unknown. */
static void
unknown_dims (GraphValue *v, GraphType *traced)
{
  GraphType *t = graph_value_type (v) ? graph_value_type (v) : traced;
  if (t == NULL || !graph_type_is_tensor (t))
    {
      g_autoptr (GraphType) ot = onnx_type_of (traced);
      if (ot == NULL || graph_type_rank (ot) <= 0)
        {
          if (ot && graph_value_type (v) == NULL)
            graph_value_set_type (v, ot);
          return;
        }
      sym_set_type (v, graph_type_dtype (ot), graph_type_rank (ot), NULL);
      return;
    }
  if (graph_type_rank (t) > 0)
    sym_set_type (v, graph_type_dtype (t), graph_type_rank (t), NULL);
  else if (graph_value_type (v) == NULL)
    {
      g_autoptr (GraphType) ot = onnx_type_of (traced);
      if (ot)
        graph_value_set_type (v, ot);
    }
}

/* Whether v's type is a tensor of v's element type (or none) and unknown
 * rank where the trace declares the rank (a Cast of an untyped value): the
 * declared type is the better one. */
static gboolean
rank_unknown_of (GraphValue *v, GraphType *declared)
{
  GraphType *t = graph_value_type (v);
  if (!graph_type_is_tensor (t) || graph_type_rank (t) >= 0 || !graph_type_is_tensor (declared)
      || graph_type_rank (declared) < 0 || graph_type_is_quantized (declared))
    return FALSE;
  GraphDType dt = graph_type_dtype (t);
  return dt == GRAPH_DTYPE_UNDEFINED || dt == graph_type_dtype (declared);
}

static void
finish_outputs (SymContext *ctx, GraphNode *n, GraphValue **out)
{
  for (guint i = 0; i < graph_node_n_outputs (n); i++)
    {
      GraphValue *src = graph_node_output (n, i);
      if (out[i] == NULL)
        continue;
      if (sym_context_is_data_dependent (ctx, src))
        unknown_dims (out[i], graph_value_type (src));
      else if (graph_value_type (out[i]) == NULL || rank_unknown_of (out[i], graph_value_type (src)))
        {
          g_autoptr (GraphType) t = onnx_type_of (graph_value_type (src));
          if (t)
            graph_value_set_type (out[i], t);
        }
      sym_map_value (ctx, src, out[i]);
    }
}

static gboolean
check_outputs (GraphNode *n, GraphValue **out, SymContext *ctx, GError **error)
{
  for (guint i = 0; i < graph_node_n_outputs (n); i++)
    {
      GraphValue *src = graph_node_output (n, i);
      /* an enclosing graph's value is one a block reads (a no-op slice
       * inside a branch returns its outer input) */
      if (out[i] && !graph_is_within (ctx->s.dst, graph_value_graph (out[i])))
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                       "%s: the symbolic returned a value of another graph for output %u",
                       graph_node_kind (n), i);
          return FALSE;
        }
      if (out[i] == NULL && g_hash_table_lookup (ctx->lists, src) == NULL
          && (graph_value_n_uses (src) > 0 || graph_value_is_graph_output (src)))
        {
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                       "%s: the symbolic returned no value for output %u, which is used",
                       graph_node_kind (n), i);
          return FALSE;
        }
    }
  return TRUE;
}

/* Note [Inlining autograd Functions]
 * As torch 1.13 does for a Function without a symbolic: the body the trace
 * recorded (the PythonOp's Subgraph attribute, which tools/torch2trace.py
 * writes as a block) is translated node by node in its place, its inputs
 * being the call's tensor arguments.  A registered symbolic still wins. */
static gboolean
inline_body (SymContext *ctx, GraphNode *n, Graph *body, GraphValue **out, GError **error)
{
  if (graph_n_inputs (body) != graph_node_n_inputs (n)
      || graph_n_outputs (body) != graph_node_n_outputs (n))
    {
      g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                   "its recorded body has %u inputs and %u outputs for a call with %u tensor "
                   "arguments and %u outputs", graph_n_inputs (body), graph_n_outputs (body),
                   graph_node_n_inputs (n), graph_node_n_outputs (n));
      return FALSE;
    }
  for (guint i = 0; i < graph_n_inputs (body); i++)
    {
      GError *local = NULL;
      GraphValue *v = sym_value (ctx, graph_node_input (n, i), &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (v)
        sym_map_value (ctx, graph_input (body, i), v);
    }
  graph_foreach_node (body, m)
    if (!sym_context_translate (ctx, m, error))
      return FALSE;
  for (guint i = 0; i < graph_n_outputs (body); i++)
    {
      GError *local = NULL;
      out[i] = sym_value (ctx, graph_output (body, i), &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean translate_node (SymContext *ctx, GraphNode *n, GError **error);

/* Scripted code: a tensor output the trace declares only as "Tensor". */
static gboolean
has_untyped_output (GraphNode *n)
{
  for (guint i = 0; i < graph_node_n_outputs (n); i++)
    {
      GraphType *t = graph_value_type (graph_node_output (n, i));
      /* a Tensor[] of scripted code (unbind's pieces, read by cat) */
      if (t && graph_type_kind (t) == GRAPH_TYPE_LIST && graph_type_n_elems (t) == 1)
        t = graph_type_elem (t, 0);
      if (t && graph_type_is_tensor (t)
          && (graph_type_dtype (t) == GRAPH_DTYPE_UNDEFINED || graph_type_rank (t) < 0))
        return TRUE;
    }
  return FALSE;
}

static gboolean read_in_blocks (GraphNode *owner, GraphValue *v, GraphNode *except);

/* Whether a node other than `except` reads v, in g or in its blocks. */
static gboolean
read_in (Graph *g, GraphValue *v, GraphNode *except)
{
  for (guint i = 0; i < graph_n_outputs (g); i++)
    if (graph_output (g, i) == v)
      return TRUE;
  graph_foreach_node (g, m)
    {
      for (guint i = 0; m != except && i < graph_node_n_inputs (m); i++)
        if (graph_node_input (m, i) == v)
          return TRUE;
      if (read_in_blocks (m, v, except))
        return TRUE;
    }
  return FALSE;
}

/* Whether a node other than `except` reads v in owner's blocks. */
static gboolean
read_in_blocks (GraphNode *owner, GraphValue *v, GraphNode *except)
{
  for (guint a = 0; a < graph_node_n_attrs (owner); a++)
    {
      Graph *one, *const *subs;
      gsize len = graph_node_attr_subgraphs (owner, graph_node_attr_name (owner, a), &one, &subs);
      for (gsize k = 0; k < len; k++)
        if (read_in (subs[k], v, except))
          return TRUE;
    }
  return FALSE;
}

/* Whether v is read after n: by a later node of n's graph (or its
 * blocks), or by the graph's outputs. */
static gboolean
read_after (GraphNode *n, GraphValue *v)
{
  Graph *g = graph_node_graph (n);
  for (guint i = 0; i < graph_n_outputs (g); i++)
    if (graph_output (g, i) == v)
      return TRUE;
  for (GraphNode *m = graph_node_next (n); m; m = graph_node_next (m))
    {
      for (guint i = 0; i < graph_node_n_inputs (m); i++)
        if (graph_node_input (m, i) == v)
          return TRUE;
      if (read_in_blocks (m, v, NULL))
        return TRUE;
    }
  return FALSE;
}

/* Whether a list or tuple holding v (built before n or after) is read
 * after n: the read sees v's new value, as the container holds the tensor
 * itself (`l = [y, x]; y.add_(1); torch.cat(l)`).  Past 8 levels of
 * nesting it answers yes (rebinding is then at worst unneeded). */
static gboolean
held_read_after (GraphNode *n, GraphValue *v, int depth)
{
  if (depth > 8)
    return TRUE;
  for (guint i = 0; i < graph_value_n_uses (v); i++)
    {
      GraphNode *u = graph_value_use (v, i)->node;
      if ((!graph_node_is (u, "prim::ListConstruct") && !graph_node_is (u, "prim::TupleConstruct"))
          || graph_node_n_outputs (u) != 1)
        continue;
      GraphValue *c = graph_node_output (u, 0);
      if (read_after (n, c) || held_read_after (n, c, depth + 1))
        return TRUE;
    }
  return FALSE;
}

/* Note [In-place ops in scripted code]
 * A trace names each in-place op's result and reads that afterwards; a
 * scripted graph goes on reading the operand (x.add_(3); return x).  Such
 * a later read must see the new value (torch.onnx's remove-inplace pass):
 * the operand is rebound to the op's result.  That is exact in the block
 * that defines the operand (a read through a list or tuple holding it
 * included); a write inside a loop or an if to a value of
 * an enclosing block that is read anywhere else (the next iteration, after
 * the block) would need a loop-carried value or an If output (torch makes
 * one) and is refused.  A write through a view is export_view_mutation's
 * (export/pipeline/view-mutation.c). */
static gboolean
rebind_inplace (SymContext *ctx, GraphNode *n, GError **error)
{
  if (!sym_kind_is_inplace (graph_node_kind (n)) || graph_node_n_inputs (n) == 0
      || graph_node_n_outputs (n) != 1)
    return TRUE;
  GraphValue *self = graph_node_input (n, 0);
  Graph *home = self ? graph_value_graph (self) : NULL;
  if (home == NULL || graph_node_graph (n) == home)
    {
      if (self && (read_after (n, self) || held_read_after (n, self, 0)))
        {
          GraphValue *now = sym_context_mapped (ctx, graph_node_output (n, 0));
          if (now)
            sym_map_value (ctx, self, now);
        }
      return TRUE;
    }
  if (sym_context_tracks (ctx, self))
    {
      /* Note [Writes in If branches]: the enclosing If carries it out */
      GraphValue *now = sym_context_mapped (ctx, graph_node_output (n, 0));
      if (now)
        sym_map_value (ctx, self, now);
      return TRUE;
    }
  GraphNode *owner = NULL;
  for (Graph *g = graph_node_graph (n); g && g != home; g = graph_get_outer (g))
    owner = graph_get_owner_node (g);
  if (owner == NULL || graph_node_graph (owner) != home
      || (!read_after (owner, self) && !read_in_blocks (owner, self, n)))
    return TRUE;
  char buf[32];
  /* torch 1.13: its remove-inplace pass makes the operand a loop-carried value or an If output;
   * not yet here */
  g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED,
               "%s: an in-place write inside scripted control flow to %%%s, a value of an "
               "enclosing block that is read elsewhere (it would need a loop-carried value or an "
               "If output)", graph_node_kind (n), value_label (self, buf));
  return FALSE;
}

gboolean
sym_context_translate (SymContext *ctx, GraphNode *n, GError **error)
{
  SymContext *saved = sym_context_make_current (ctx);
  gboolean ok = translate_node (ctx, n, error) && rebind_inplace (ctx, n, error)
                && (ctx->s.after_node == NULL || ctx->s.after_node (ctx, n, error));
  sym_context_make_current (saved);
  return ok;
}

SymContext *
sym_context_make_current (SymContext *ctx)
{
  SymContext *saved = current_ctx;
  current_ctx = ctx;
  return saved;
}

/* Whether an output of n is declared quantized (QUInt8 ...). */
static gboolean
makes_quantized (GraphNode *n)
{
  for (guint i = 0; i < graph_node_n_outputs (n); i++)
    if (graph_type_is_quantized (graph_value_type (graph_node_output (n, i))))
      return TRUE;
  return FALSE;
}

/* Note [Static scalars in scripted code]: an aten op whose one output is
 * an int or bool the export knows (`input.dtype == other.dtype`, a rank or
 * a list length compared) is that constant, whichever symbolic the op has,
 * as torch's constant folding leaves it (PyTorch's suite, scripted
 * test_dtype_eq: aten::eq's symbolic read the prim::dtype as a tensor). */
static gboolean
fold_static_scalar (SymContext *ctx, GraphNode *n)
{
  if (graph_node_n_outputs (n) != 1)
    return FALSE;
  GraphValue *o = graph_node_output (n, 0);
  GraphType *t = graph_value_type (o);
  GraphTypeKind kind = t ? graph_type_kind (t) : GRAPH_TYPE_TENSOR;
  gboolean b;
  gint64 i;
  GraphValue *c = NULL;
  if (kind == GRAPH_TYPE_BOOL && static_bool (o, &b, 0))
    {
      g_autoptr (Tensor) v = tensor_new_scalar_int64 (GRAPH_DTYPE_BOOL, b);
      c = sym_constant (ctx, v);
    }
  else if (kind == GRAPH_TYPE_INT && static_int (o, &i, 0))
    c = sym_const_i64 (ctx, i);
  if (c)
    sym_map_value (ctx, o, c);
  return c != NULL;
}

static gboolean
translate_node (SymContext *ctx, GraphNode *n, GError **error)
{
  if (sym_context_is_lazy (n))
    return TRUE;
  if (graph_node_is (n, "prim::ListUnpack") || graph_node_is (n, "prim::TupleUnpack"))
    return translate_unpack (ctx, n, error);

  const char *kind = graph_node_kind (n);
  gboolean is_aten = strcmp (graph_node_domain (n), "aten") == 0;
  if (!check_aten_node (n, error))
    return FALSE;
  if (is_aten && fold_static_scalar (ctx, n))
    return TRUE;
  guint n_out = graph_node_n_outputs (n);
  g_autofree GraphValue **out = g_new0 (GraphValue *, n_out + 1);
  GraphNode *mark = graph_last_node (ctx->s.dst);
  g_autoptr (GError) local = NULL;
  gboolean ok;

  gpointer user_data = NULL;
  Graph *body = NULL;
  const char *py_key = python_op_key (n);
  SymFn fn = py_key ? sym_registry_lookup (ctx->s.reg, py_key, ctx->s.opset, &user_data, NULL)
                    : NULL;
  const char *fn_key = py_key;
  if (fn == NULL)
    {
      fn = sym_registry_lookup (ctx->s.reg, kind, ctx->s.opset, &user_data, NULL);
      fn_key = kind;
    }
  /* ONNX_ATEN: every aten op with no custom symbolic becomes ATen, except
   * torch.stack of a list a loop appended to: the Loop's scan output is
   * that stack already (Note [Loops]), and the list has no elements to
   * give an ATen node. */
  /* A list or dict changed in place never becomes an ATen node or a
   * fallthrough copy (Note [List mutations], list-mutations.c): the nodes
   * reading the list would read it unchanged. */
  gboolean mutation = is_aten && sym_is_list_mutation (n);
  /* Nor does an op reading or making a quantized tensor: an ONNX value
   * cannot carry one (its scale and zero point), so it goes through its
   * quantized symbolic in every ATen mode (torch 1.13's ONNX_ATEN export
   * of a quantized model fails instead: the quantized symbolics find an
   * ATen node where they expect a quantized tuple). */
  gboolean quantized = is_aten && (sym_has_quantized_input (ctx, n) || makes_quantized (n));
  if (ctx->s.mode == SYM_MODE_ONNX_ATEN && is_aten && !sym_registry_is_custom (ctx->s.reg, kind)
      && !mutation && !quantized
      && !(graph_node_is (n, "aten::stack") && graph_node_n_inputs (n) > 0
           && sym_context_scan_list (ctx, graph_node_input (n, 0))))
    fn = NULL;
  const char *origin = NULL;
  if (fn)
    {
      origin = sym_registry_origin (ctx->s.reg, fn_key, ctx->s.opset);
      ctx->user_data = user_data;
      graph_builder_capture_errors (ctx->s.dst, TRUE);
      ok = is_aten && sym_has_quantized_input (ctx, n)
             ? sym_quantized_call (ctx, n, fn, out, &local)
             : fn (ctx, n, out, &local);
      graph_builder_capture_errors (ctx->s.dst, FALSE);
      ctx->user_data = NULL;
      g_autoptr (GError) misuse = graph_builder_take_error (ctx->s.dst);
      if (misuse)
        {
          /* What it built is not used: the export fails (every mode). */
          g_autofree char *where = sym_node_location (n);
          g_set_error (error, SYM_ERROR, SYM_ERROR_INVALID,
                       "the symbolic for %s at opset %d (%s) misused the builder: %s", py_key && sym_registry_lookup (ctx->s.reg, py_key, ctx->s.opset, NULL, NULL) ? py_key : kind,
                       ctx->s.opset, where, misuse->message);
          return FALSE;
        }
      if (ok)
        ok = check_outputs (n, out, ctx, &local);
      if (!ok && local == NULL)
        g_set_error (&local, SYM_ERROR, SYM_ERROR_INVALID,
                     "%s: the symbolic failed without saying why", kind);
    }
  else if (py_key && graph_node_get_g (n, GRAPH_PYTHON_OP_BODY_ATTR, &body)
           && graph_n_outputs (body) > 0)   /* PyTorch's own print has <Graph> but no body */
    {
      if (!inline_body (ctx, n, body, out, &local))
        {
          g_autofree char *where = sym_node_location (n);
          g_set_error (error, SYM_ERROR, local->code,
                       "in the body of Python operator %s (%s), inlined as it has no symbolic: %s",
                       py_key + strlen (GRAPH_KIND_PYTHON_OP) + 2, where, local->message);
          return FALSE;
        }
      ok = TRUE;
    }
  else
    ok = FALSE;

  if (!ok && fn == NULL && is_aten && sym_has_quantized_input (ctx, n))
    sym_quantized_refuse (ctx, n, &local);   /* no ATen fallback on integer data */
  if (!ok)
    {
      gboolean declined = local == NULL || g_error_matches (local, SYM_ERROR, SYM_ERROR_UNSUPPORTED);
      if (!declined)
        {
          g_autofree char *where = sym_node_location (n);
          g_set_error (error, SYM_ERROR, local->code, "%s at opset %d (%s): %s", kind,
                       ctx->s.opset, where, local->message);
          return FALSE;
        }
      memset (out, 0, sizeof (GraphValue *) * n_out);
      g_autoptr (GError) local2 = NULL;
      if (mutation)
        return unsupported_error (ctx, n, local, error);
      if (is_aten && (ctx->s.mode == SYM_MODE_ONNX_ATEN
                      || ctx->s.mode == SYM_MODE_ONNX_ATEN_FALLBACK))
        {
          ok = sym_emit_aten (ctx, n, out, &local2);
          origin = g_intern_static_string ("ATen fallback");
        }
      else if (ctx->s.mode == SYM_MODE_ONNX_FALLTHROUGH)
        {
          ok = fallthrough (ctx, n, out, &local2);
          origin = g_intern_static_string ("fallthrough");
        }
      else
        return unsupported_error (ctx, n, local, error);
      if (!ok)
        {
          g_autofree char *where = sym_node_location (n);
          /* torch 1.13: also refuses (the op has no symbolic and no ATen fallback could be written) */
          g_set_error (error, SYM_ERROR, SYM_ERROR_UNSUPPORTED, "%s at opset %d (%s): %s", kind,
                       ctx->s.opset, where, local2 ? local2->message : "fallback failed");
          return FALSE;
        }
    }
  if (ctx->s.infer_node && has_untyped_output (n))
    for (GraphNode *m = mark ? graph_node_next (mark) : graph_first_node (ctx->s.dst); m;
         m = graph_node_next (m))
      ctx->s.infer_node (m, sym_default_dtype (ctx));
  finish_outputs (ctx, n, out);
  if (origin)
    g_hash_table_insert (ctx->origins, n, (gpointer) origin);
  /* New nodes inherit the trace node's scope and source location. */
  for (GraphNode *m = mark ? graph_node_next (mark) : graph_first_node (ctx->s.dst); m;
       m = graph_node_next (m))
    {
      if (graph_node_get_scope (m) == NULL && graph_node_get_scope (n))
        graph_node_set_scope (m, graph_node_get_scope (n));
      if (graph_node_get_source (m) == NULL && graph_node_get_source (n))
        graph_node_set_source (m, graph_node_get_source (n));
    }
  return TRUE;
}
