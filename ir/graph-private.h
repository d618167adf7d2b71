/* Private structures of the IR; only the ir/ sources include this. */
#pragma once

#include "ir/graph.h"

/* A slab allocator for fixed-size objects: the graph's arena for nodes and
 * values.  Objects are never freed one by one; they die with the slab.
 * graph_slab_contains() lets the builder tell a GraphValue* from a key
 * string in its varargs without dereferencing the pointer. */
typedef struct
{
  gsize      elem_size;
  GPtrArray *blocks;      /* guint8* */
  GArray    *capacities;  /* guint per block */
  guint      used_in_last;
} GraphSlab;

void      graph_slab_init (GraphSlab *s, gsize elem_size);
gpointer  graph_slab_alloc (GraphSlab *s);   /* zero-filled */
gboolean  graph_slab_contains (const GraphSlab *s, gconstpointer p);
/* Calls fn on every object ever allocated (live or not). */
void      graph_slab_foreach (const GraphSlab *s, GFunc fn, gpointer user_data);
void      graph_slab_clear (GraphSlab *s);

struct _Tensor
{
  gint        ref;
  GraphDType  dtype;
  guint       rank;
  gint64     *dims;
  gint64      numel;
  GBytes     *data;      /* NULL: unknown data, deferred, or STRING */
  GBytes    **strings;   /* STRING: numel entries */
  char       *name;      /* TensorProto.name of an attribute tensor, or NULL */
  /* Deferred tensors (ir/tensor-deferred.c): `data` is computed by `fill`
   * on first use and set atomically. */
  TensorFillFunc fill;
  gpointer       fill_data;
  GDestroyNotify fill_destroy;
};

/* The payload, computing a deferred tensor's bytes first (NULL: no data). */
GBytes   *tensor_payload (const Tensor *t);
Tensor   *tensor_alloc (GraphDType dtype, guint rank, const gint64 *dims, GError **error);

struct _GraphType
{
  gint          ref;
  GraphTypeKind kind;
  /* tensor types */
  GraphDType    dtype;
  int           rank;
  GraphDim     *dims;
  gint64       *strides;
  int           requires_grad;
  char         *device;
  gboolean      quantized;   /* QUInt8/QInt8/QInt32: dtype is the integer representation */
  /* NAMED, CLASS */
  char         *name;
  /* LIST, OPTIONAL, DICT, TUPLE */
  guint         n_elems;
  GraphType   **elems;
};

typedef struct
{
  const char   *name;    /* interned */
  GraphAttrKind kind;
  gsize         len;     /* list length, or byte length of S */
  union
  {
    double      f;
    gint64      i;
    char       *s;       /* NUL-terminated too */
    Tensor     *t;
    Graph      *g;
    GraphType  *tp;
    double     *fs;
    gint64     *is;
    char      **ss;      /* NUL-terminated strings */
    Tensor    **ts;
    Graph     **gs;
    GraphType **tps;
  } u;
  gsize        *ss_lens; /* SS: byte length of each string */
} GraphAttr;

typedef struct
{
  Graph *graph;
  guint  index;
} GraphOutputRef;

struct _GraphValue
{
  Graph       *graph;
  GraphNode   *node;        /* NULL: graph input */
  guint        offset;
  guint        id;
  gboolean     alive;
  const char  *name;        /* in graph->strings, NULL: unnamed */
  GraphType   *type;
  GraphUse    *uses;
  guint        n_uses, cap_uses;
  GArray      *output_refs;    /* GraphOutputRef: where v is a graph output */
  GraphValue  *replaced_by;    /* set by replace_all_uses (graph_value_resolve) */
  Tensor      *initializer;
  gboolean     initializer_is_input;
};

struct _GraphNode
{
  Graph       *graph;
  const char  *kind, *op_type, *domain;  /* interned */
  GraphNode   *prev, *next;
  gboolean     in_list;
  gboolean     alive;
  GraphValue **inputs;
  guint        n_inputs, cap_inputs;
  GraphValue **outputs;
  guint        n_outputs, cap_outputs;
  GraphAttr   *attrs;
  guint        n_attrs, cap_attrs;
  const char  *scope, *source, *name, *doc;   /* in graph->strings */
};

struct _Graph
{
  GraphSlab     node_slab, value_slab;
  GStringChunk *strings;
  GraphNode    *first, *last;
  guint         n_nodes;
  GraphNode    *insert_point;
  GPtrArray    *inputs, *outputs;      /* GraphValue* */
  GHashTable   *value_names, *node_names;
  guint         next_value_id;
  char         *name, *doc;
  GHashTable   *opsets;                /* char* domain → gint64* */
  GHashTable   *props;                 /* char* → char* */
  Graph        *outer;
  GraphNode    *owner;
  gboolean      tearing_down;
  /* Note [Builder errors] (graph.h): while capturing, builder misuse is
   * recorded here (the first one) instead of a g_critical. */
  gboolean      capture_builder_errors;
  GError       *builder_error;
};

/* Name of "x" with a ".N" suffix that no value (node) of g holds yet. */
const char *graph_unique_name (GHashTable *taken, GStringChunk *chunk, const char *name);
void        graph_value_add_use (GraphValue *v, GraphNode *n, guint index);
void        graph_value_remove_use (GraphValue *v, GraphNode *n, guint index);
void        graph_attr_clear (GraphAttr *a, GraphNode *owner);
void        graph_attr_copy (GraphAttr *dst, const GraphAttr *src, GraphNode *owner, GHashTable *value_map);
/* Is p a live value of g or of one of its enclosing graphs? */
gboolean    graph_owns_value (const Graph *g, gconstpointer p);
/* Drops the uses that nodes of `sub` (and its subgraphs) hold on values of
 * enclosing graphs, before `sub` is freed on its own. */
void        graph_drop_outer_uses (Graph *sub);
void        graph_attach_subgraph (Graph *sub, GraphNode *owner);
/* Copies src's nodes into dst (values mapped through value_map, which maps
 * src values → dst values and is extended). */
void        graph_copy_into (Graph *dst, const Graph *src, GHashTable *value_map);
GraphAttr  *graph_node_find_attr (const GraphNode *n, const char *name);
