/* Private session state (runtime/session.c). */
#pragma once

#include "runtime/kernel.h"

typedef struct
{
  GraphValue *v;
  int         slot;        /* -1: no slot (input, constant) */
  int         producer;    /* plan index */
  int         last_use;    /* plan index of the last reader; -1 none */
  gboolean    is_input;
  gboolean    keep;        /* graph output or requested: never released */
  gboolean    released;    /* planning flag */
  gboolean    absent;      /* prim::Constant None */
  Tensor     *constant;    /* initializer or Constant value */
  void       *own;         /* aligned copy of misaligned data */
  gsize       own_cap;
} RtValue;

typedef struct
{
  void *mem;
  gsize cap;
} RtSlot;

typedef struct
{
  GraphNode         *node;
  const RtKernelDef *def;
  gint64             opset;
  gpointer           state;
  guint              n_in, n_out;
  int               *in_idx;    /* value index, -1 absent */
  int               *out_idx;
  int               *release;   /* slots freed after the node (planning record) */
  guint              n_release;
} RtNodePlan;

struct _RtSession
{
  Graph          *graph;
  RtOptions       options;
  GHashTable     *index;      /* GraphValue* → value index */
  RtValue        *values;
  guint           n_values;
  RtNodePlan     *nodes;
  guint           n_nodes;
  RtSlot         *slots;
  guint           n_slots;
  RtTensor       *rt;         /* per value, during a run */
  gboolean       *present;
  const RtTensor **node_inputs;
  GPtrArray      *required;   /* GraphValue*, inputs without initializer */
  GPtrArray      *returned;   /* GraphValue*, outputs then extra outputs */
  void           *scratch[RT_N_SCRATCH];
  gsize           scratch_cap[RT_N_SCRATCH];
  RtNodePlan     *current;
  guint64         allocations;
};
