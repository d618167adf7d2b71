/* Opset 11: Clip takes min/max as inputs; GatherElements, CumSum. */
#include "symbolic/opset-tables.h"

#define G sym_graph (ctx)

static gboolean
clip_inputs (SymContext *ctx, GraphValue *self, GraphValue *lo, GraphValue *hi, GraphValue **out)
{
  GraphDType dt = sym_dtype (self);
  if (lo && dt != GRAPH_DTYPE_UNDEFINED && sym_dtype (lo) != dt)
    lo = sym_cast (ctx, lo, dt);
  if (hi && dt != GRAPH_DTYPE_UNDEFINED && sym_dtype (hi) != dt)
    hi = sym_cast (ctx, hi, dt);
  /* Clip, Max and Min take integers from opset 12 only */
  if (dt != GRAPH_DTYPE_UNDEFINED && !graph_dtype_is_floating (dt) && sym_opset (ctx) < 12)
    return (*out = sym_clamp_int_where (ctx, self, lo, hi)) != NULL;
  /* Clip takes scalar bounds only: tensor bounds (clamp(x, min_t, max_t))
   * are Max then Min, which broadcast, as torch 1.13 does. */
  if ((lo && sym_rank (lo) != 0) || (hi && sym_rank (hi) != 0))
    {
      GraphValue *v = self;
      if (lo)
        v = graph_op (G, "Max", v, lo, NULL);
      if (hi)
        v = graph_op (G, "Min", v, hi, NULL);
      *out = v;
    }
  else if (lo == NULL && hi == NULL)
    *out = self;
  else
    *out = graph_op (G, "Clip", self, lo ? lo : GRAPH_ABSENT, hi ? hi : GRAPH_ABSENT, NULL);
  return TRUE;
}

/* A 0-d constant of self's type for a constant bound, else the value. */
static GraphValue *
bound (SymContext *ctx, GraphValue *src, GraphValue *self, GError **error)
{
  double v;
  if (sym_is_none (src))
    return NULL;
  if (sym_get_const_double (src, &v))
    return sym_scalar_like (ctx, v, self);
  return sym_value (ctx, src, error);
}

/* aten::clamp(self, min, max) */
static gboolean
sym_clamp11 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GError *local = NULL;
  GraphValue *lo = graph_node_n_inputs (n) > 1 ? bound (ctx, graph_node_input (n, 1), self, &local) : NULL;
  GraphValue *hi = !local && graph_node_n_inputs (n) > 2 ? bound (ctx, graph_node_input (n, 2), self, &local) : NULL;
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return clip_inputs (ctx, self, lo, hi, out);
}

static gboolean
sym_clamp_min11 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GError *local = NULL;
  GraphValue *lo = bound (ctx, graph_node_input (n, 1), self, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return clip_inputs (ctx, self, lo, NULL, out);
}

static gboolean
sym_clamp_max11 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GError *local = NULL;
  GraphValue *hi = bound (ctx, graph_node_input (n, 1), self, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return clip_inputs (ctx, self, NULL, hi, out);
}

/* aten::hardtanh(self, min, max) / relu6 */
static gboolean
sym_hardtanh11 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  double lo = -1.0, hi = 1.0;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_parse_args (ctx, n, "none,f,f", &lo, &hi, error))
    return FALSE;
  return clip_inputs (ctx, self, sym_scalar_like (ctx, lo, self), sym_scalar_like (ctx, hi, self), out);
}

static gboolean
sym_relu6_11 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  return clip_inputs (ctx, self, sym_scalar_like (ctx, 0.0, self), sym_scalar_like (ctx, 6.0, self), out);
}

/* aten::gather(self, dim, index, sparse_grad) */
static gboolean
sym_gather (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self, *index;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vdv", &self, &dim, &index, error))
    return FALSE;
  out[0] = graph_op (G, "GatherElements", self, index, "axis_i", dim, NULL);
  return TRUE;
}

/* aten::cumsum(self, dim, dtype) */
static gboolean
sym_cumsum (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 dim;
  if (!sym_parse_args (ctx, n, "vd", &self, &dim, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 2 && !sym_is_none (graph_node_input (n, 2)))
    {
      /* cumsum(x, dim, dtype=d) sums x cast to d, as torch writes it */
      GraphDType dt = sym_scalar_type (graph_node_input (n, 2), GRAPH_DTYPE_UNDEFINED);
      if (dt == GRAPH_DTYPE_UNDEFINED)
        /* torch 1.13: also refuses (its Cast needs the dtype as a constant) */
        return sym_unimplemented (ctx, n, error, "cumsum with a dtype that is not a constant");
      self = sym_cast (ctx, self, dt);
    }
  out[0] = graph_op (G, "CumSum", self, sym_const_i64 (ctx, dim), NULL);
  return TRUE;
}

/* aten::pixel_shuffle(self, upscale_factor): DepthToSpace CRD (mode
 * attribute from 11). */
static gboolean
sym_pixel_shuffle11 (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  gint64 r;
  if (!sym_parse_args (ctx, n, "vi", &self, &r, error))
    return FALSE;
  if (sym_rank (self) != 4)
    /* torch 1.13: also refuses (_unimplemented "pixel_shuffle: only support 4d input") */
    return sym_unimplemented (ctx, n, error, "pixel_shuffle of a non-4-D input");
  out[0] = graph_op (G, "DepthToSpace", self, "blocksize_i", r, "mode_s", "CRD", NULL);
  return TRUE;
}

/* aten::round (Round exists from 11) */
static gboolean
sym_round (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (graph_node_n_inputs (n) > 1)
    {
      gint64 dec = 0;
      if (!sym_parse_args (ctx, n, "none,i", &dec, error))
        return FALSE;
      if (dec != 0)
        /* torch 1.13: also refuses (its round symbolic takes no decimals argument) */
        return sym_unimplemented (ctx, n, error, "round with decimals");
    }
  out[0] = graph_op (G, "Round", self, NULL);
  return TRUE;
}

static const SymEntry entries[] = {
  SYM_FN ("aten::scatter", sym_scatter_any),   /* Scatter becomes ScatterElements */
  SYM_FN ("aten::round", sym_round),
  SYM_FN ("aten::pixel_shuffle", sym_pixel_shuffle11),
  SYM_FN ("aten::clamp", sym_clamp11),
  SYM_FN ("aten::clip", sym_clamp11),
  SYM_FN ("aten::clamp_min", sym_clamp_min11),
  SYM_FN ("aten::clamp_max", sym_clamp_max11),
  SYM_FN ("aten::hardtanh", sym_hardtanh11),
  SYM_FN ("aten::relu6", sym_relu6_11),
  SYM_FN ("aten::gather", sym_gather),
  SYM_FN ("aten::cumsum", sym_cumsum),
};
const SymTable sym_opset11 = SYM_TABLE (11, entries);
