/* TorchScript's scalar and list ops, as scripted helpers inlined into a
 * trace record them (issue 12): item, `not`, `is`/`is not`,
 * is_floating_point, `//`, list(), F.interpolate's builtin form,
 * aten::scan, which torch block-lists, and the list mutations that
 * Note [List mutations] does not fold.
 *
 * aten::__not__, __is__ and __isnot__ are translated on use (Note [Static
 * scalars in scripted code], context.c): sym_value runs their symbolic
 * here when a consumer reads them, so a prim::If on a condition known at
 * export time keeps one branch inline. */
#include "symbolic/opset-tables.h"
#include <math.h>
#include <string.h>

#define G (sym_graph (ctx))

static GraphValue *
const_bool (SymContext *ctx, gboolean b)
{
  g_autoptr (Tensor) t = tensor_new_scalar_int64 (GRAPH_DTYPE_BOOL, b);
  return sym_constant (ctx, t);
}

/* aten::item(self) -> Scalar: torch 1.13 returns self.  A 1-element tensor
 * of rank > 0 becomes 0-d here (a Python scalar has no dims, and
 * broadcasting with a 0-d operand keeps that operand's rank). */
static gboolean
sym_item (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  if (self == NULL)
    /* torch 1.13: also refuses (item() of None is not a tensor) */
    return sym_unimplemented (ctx, n, error, "item() of None");
  gint64 d[TENSOR_MAX_RANK];
  int r = sym_static_dims (self, d);
  gint64 numel = 1;
  for (int i = 0; i < r; i++)
    numel = d[i] >= 0 ? numel * d[i] : -1;
  if (r > 0 && numel >= 0 && numel != 1)
    /* torch 1.13: returns self; refused here because PyTorch's item() raises on a tensor of
     * more than one element */
    return sym_unimplemented (ctx, n, error, "item() of a tensor of %" G_GINT64_FORMAT " elements",
                              numel);
  if (r > 0 && numel == 1)
    {
      gint64 axes[TENSOR_MAX_RANK];
      for (int i = 0; i < r; i++)
        axes[i] = i;
      out[0] = sym_squeeze (ctx, self, (gsize) r, axes);
      sym_set_type (out[0], sym_dtype (self), 0, NULL);
    }
  else
    out[0] = self;
  return TRUE;
}

/* aten::__not__(bool) -> bool: the constant when the export knows it,
 * else Not (torch 1.13's form). */
static gboolean
sym_not (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gboolean b;
  if (sym_static_bool (graph_node_output (n, 0), &b))
    {
      out[0] = const_bool (ctx, b);
      return TRUE;
    }
  GraphValue *x;
  if (!sym_parse_args (ctx, n, "v", &x, error))
    return FALSE;
  if (x == NULL || sym_dtype (x) != GRAPH_DTYPE_BOOL)
    /* torch 1.13: also refuses ("bitwise Not for non-boolean input values") */
    return sym_unimplemented (ctx, n, error, "`not` of a value that is not a bool");
  out[0] = graph_op (G, "Not", x, NULL);
  return TRUE;
}

/* aten::__is__ / __isnot__(a, b) -> bool: `x is None`, known at export
 * time (as torch 1.13, which compares with None statically). */
static gboolean
sym_is (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gboolean b;
  if (sym_static_bool (graph_node_output (n, 0), &b))
    {
      out[0] = const_bool (ctx, b);
      return TRUE;
    }
  if (!sym_is_none (graph_node_input (n, 1)))
    /* torch 1.13: exports Equal of the two (elementwise equality, not identity); refused here
     * because `is` compares objects */
    return sym_unimplemented (ctx, n, error, "`is` between two values that are not None");
  /* torch 1.13: a False constant for anything but a None constant; refused here because an
   * Optional that is None only at run time would get the wrong answer */
  return sym_unimplemented (ctx, n, error, "`is None` of a value that may be None only at run time");
}

/* aten::is_floating_point(self) -> bool: a constant of self's element type. */
static gboolean
sym_is_floating_point (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gboolean b;
  if (sym_static_bool (graph_node_output (n, 0), &b))
    {
      out[0] = const_bool (ctx, b);
      return TRUE;
    }
  GraphValue *self;
  if (!sym_parse_args (ctx, n, "v", &self, error))
    return FALSE;
  GraphDType dt = self ? sym_dtype (self) : GRAPH_DTYPE_UNDEFINED;
  if (dt == GRAPH_DTYPE_UNDEFINED)
    /* torch 1.13: a False constant when the element type is unknown; refused here because it
     * may be a floating type */
    return sym_unimplemented (ctx, n, error, "is_floating_point() of a tensor of unknown element type");
  out[0] = const_bool (ctx, graph_dtype_is_floating (dt));
  return TRUE;
}

/* aten::floordiv(a, b): Python's `//` on ints and floats, rounding toward
 * -inf (torch 1.13 writes floor_divide's truncating division: a wrong
 * number where the operands' signs differ).  Known at export time it is a
 * constant; ints at run time go through floor_divide's integer form; a
 * float operand makes both doubles (TorchScript's float) and Floor(Div). */
/* The value of int src when the export knows it: static, or x.size(d) of
 * a dim the translated x has static (not a dynamic axis, not data-dependent). */
static gboolean
known_int (SymContext *ctx, GraphValue *src, gint64 *v)
{
  if (sym_static_int (src, v))
    return TRUE;
  GraphNode *p = src ? graph_value_node (src) : NULL;
  GraphType *t = graph_value_type (src);
  gint64 d;
  if (p == NULL || t == NULL || graph_type_kind (t) != GRAPH_TYPE_INT || !graph_node_is (p, "aten::size")
      || graph_node_n_inputs (p) != 2 || !sym_get_const_int (graph_node_input (p, 1), &d))
    return FALSE;
  GraphValue *x = sym_value (ctx, graph_node_input (p, 0), NULL);
  *v = x ? sym_static_dim_size (x, d) : -1;
  return *v >= 0;
}

static gboolean
sym_floordiv (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  gint64 k, a0, b0;
  if (sym_static_int (graph_node_output (n, 0), &k))
    {
      out[0] = sym_const_i64 (ctx, k);
      return TRUE;
    }
  if (known_int (ctx, graph_node_input (n, 0), &a0) && known_int (ctx, graph_node_input (n, 1), &b0)
      && b0 != 0 && !(a0 == G_MININT64 && b0 == -1))
    {
      out[0] = sym_const_i64 (ctx, a0 / b0 - ((a0 % b0 != 0) && ((a0 < 0) != (b0 < 0))));
      return TRUE;
    }
  GraphValue *a, *b;
  if (!sym_parse_args (ctx, n, "vv", &a, &b, error))
    return FALSE;
  if (a == NULL || b == NULL || sym_dtype (a) == GRAPH_DTYPE_UNDEFINED
      || sym_dtype (b) == GRAPH_DTYPE_UNDEFINED || sym_dtype (a) == GRAPH_DTYPE_BOOL
      || sym_dtype (b) == GRAPH_DTYPE_BOOL)
    /* torch 1.13: truncates the division of the operands as they are; refused here because
     * their element types are unknown (or bool) */
    return sym_unimplemented (ctx, n, error, "`//` of operands of unknown or bool element types");
  gboolean fp = graph_dtype_is_floating (sym_dtype (a)) || graph_dtype_is_floating (sym_dtype (b));
  GraphDType to = fp ? GRAPH_DTYPE_DOUBLE : GRAPH_DTYPE_INT64;
  if (sym_dtype (a) != to)
    a = sym_cast (ctx, a, to);
  if (sym_dtype (b) != to)
    b = sym_cast (ctx, b, to);
  out[0] = sym_floor_div_values (ctx, a, b);
  return TRUE;
}

/* aten::list(l): a copy of list l — its value (ints, floats, bools) or its
 * elements (tensors); torch 1.13 returns l. */
static gboolean
sym_list (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *l = graph_node_input (n, 0);
  GraphType *t = l ? graph_value_type (l) : NULL;
  GraphType *et = t && graph_type_kind (t) == GRAPH_TYPE_LIST ? graph_type_elem (t, 0) : NULL;
  if (et == NULL)
    /* torch 1.13: returns the string itself; refused here because a list of characters has no
     * ONNX value */
    return sym_unimplemented (ctx, n, error, "list() of something other than a list");
  if (graph_type_kind (et) == GRAPH_TYPE_TENSOR)
    {
      g_autoptr (GPtrArray) items = sym_list_values (ctx, l, error);
      if (items == NULL)
        return FALSE;
      sym_set_list_output (ctx, n, 0, items->len, (GraphValue *const *) items->pdata);
      out[0] = NULL;
      return TRUE;
    }
  out[0] = sym_value (ctx, l, error);
  return out[0] != NULL;
}

/* aten::__interpolate(input, size, scale_factor, mode, align_corners,
 * recompute_scale_factor, antialias): F.interpolate as TorchScript's
 * builtin, exported as the upsample ops are (sym_upsample_at): Upsample at
 * 9, Resize with scales at 10, Resize with sizes or scales from 11. */
static gboolean
sym_interpolate (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *input;
  const char *mode;
  if (!sym_parse_args (ctx, n, "v,none,none,s", &input, &mode, error))
    return FALSE;
  GraphValue *size_src = graph_node_input (n, 1), *scale_src = graph_node_input (n, 2);
  GraphValue *align_src = graph_node_n_inputs (n) > 4 ? graph_node_input (n, 4) : NULL;
  GraphValue *rsf_src = graph_node_n_inputs (n) > 5 ? graph_node_input (n, 5) : NULL;
  GraphValue *aa_src = graph_node_n_inputs (n) > 6 ? graph_node_input (n, 6) : NULL;
  gboolean align = FALSE, recompute = FALSE, antialias = FALSE;
  if ((!sym_is_none (align_src) && !sym_get_const_bool (align_src, &align))
      || (!sym_is_none (rsf_src) && !sym_get_const_bool (rsf_src, &recompute))
      || (!sym_is_none (aa_src) && !sym_get_const_bool (aa_src, &antialias)))
    /* torch 1.13: reads align_corners as False when it is not a constant (and ignores the
     * others); refused here because the value decides the result */
    return sym_unimplemented (ctx, n, error, "interpolate with align_corners, "
                              "recompute_scale_factor or antialias known only at run time");
  const char *onnx_mode;
  if (strstr (mode, "linear"))
    onnx_mode = "linear";
  else if (strstr (mode, "cubic"))
    onnx_mode = "cubic";
  else if (strcmp (mode, "nearest") == 0)
    onnx_mode = "nearest";
  else
    /* torch 1.13: writes Upsample/Resize with the mode as given ("area", "nearest-exact"), which
     * ONNX does not define; refused here because the model would not load */
    return sym_unimplemented (ctx, n, error, "interpolate mode \"%s\"", mode);
  if (strcmp (onnx_mode, "cubic") == 0 && sym_opset (ctx) < 11)
    /* torch 1.13: writes Upsample/Resize with mode "cubic", which opsets 9-10 do not define;
     * refused here because the model would not load (upsample_bicubic2d starts at 11) */
    return sym_unimplemented (ctx, n, error, "bicubic interpolate (supported from opset 11)");
  if (antialias)
    /* torch 1.13: ignores antialias; refused here because the result would be a wrong number */
    return sym_unimplemented (ctx, n, error, "interpolate with antialias=True");
  gboolean has_size = !sym_is_none (size_src), has_scale = !sym_is_none (scale_src);
  if (has_size == has_scale)
    /* torch 1.13: also refuses (both None); PyTorch raises when both are given */
    return sym_unimplemented (ctx, n, error, "interpolate needs exactly one of size and scale_factor");
  int r = sym_rank (input);
  if (r < 3 || r > 5)
    /* torch 1.13: refuses an unknown rank and exports other ranks; refused here because PyTorch
     * rejects those ranks */
    return sym_unimplemented (ctx, n, error, "interpolate of an input of unknown rank or a rank "
                              "other than 3, 4 or 5");
  GraphType *st = has_size ? graph_value_type (size_src) : NULL;
  if (st && graph_type_kind (st) != GRAPH_TYPE_LIST && !sym_is_constant (size_src))
    /* torch 1.13: repeats a run-time int size per spatial dim (Unsqueeze, Concat); not yet here */
    return sym_unimplemented (ctx, n, error, "interpolate to an int size known only at run time");
  g_autoptr (GArray) sizes = has_size ? sym_get_const_ints (size_src) : NULL;
  if (sizes && sizes->len != 1 && sizes->len != (guint) r - 2)
    /* torch 1.13: exports it (Resize fails at run time); refused here because PyTorch raises */
    return sym_unimplemented (ctx, n, error, "interpolate to %u sizes of a rank-%d input",
                              sizes->len, r);
  if (has_scale && recompute)
    {
      /* PyTorch then resizes to floor(in · scale) with the scale that size
       * gives: the same as the scale itself only where in · scale is whole. */
      gsize ns;
      const double *sv;
      gint64 d[TENSOR_MAX_RANK];
      gboolean whole = sym_parse_args (ctx, n, "none,none,fs", &ns, &sv, NULL)
                       && sym_static_dims (input, d) == r && (ns == 1 || ns == (gsize) r - 2);
      for (int i = 2; whole && i < r; i++)
        {
          double o = (double) d[i] * sv[ns == 1 ? 0 : i - 2];
          whole = d[i] >= 0 && o == floor (o);
        }
      if (!whole)
        /* torch 1.13: ignores recompute_scale_factor; refused here because that is a wrong
         * number where in·scale is not whole */
        return sym_unimplemented (ctx, n, error, "interpolate with recompute_scale_factor=True "
                                  "where input size × scale is not a whole number");
    }
  return sym_upsample_at (ctx, n, out, error, onnx_mode, 1, has_scale ? 2 : -1,
                          strcmp (onnx_mode, "nearest") != 0 && align);
}

/* aten::scan: torch 1.13 block-lists it (PyTorch has no such operator). */
static gboolean
sym_scan (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  /* torch 1.13: also refuses (block-listed at every opset: "not implemented for opset") */
  return sym_unimplemented (ctx, n, error, "aten::scan is not an exportable operator");
}

/* aten::append, insert, pop, Delete (`del l[i]`) and _set_item (`l[i] =
 * v`): the translation only meets those the fold pass (Note [List
 * mutations], list-mutations.c) could not follow; every one is refused, in
 * every mode (no ATen fallback: the list's readers would read it unchanged). */
static gboolean
sym_list_mutation (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  GraphType *t = graph_node_n_inputs (n) ? graph_value_type (graph_node_input (n, 0)) : NULL;
  if (t && graph_type_kind (t) == GRAPH_TYPE_DICT)
    /* torch 1.13: also refuses (a scripted dict: prim::DictConstruct has no symbolic) */
    return sym_unimplemented (ctx, n, error, "a dict changed in place");
  const char *known = sym_context_list_why (ctx, n);
  g_autofree char *why = known ? g_strdup (known) : sym_list_mutation_why (n);
  if (sym_opset (ctx) < 11)
    /* torch 1.13: also refuses before opset 11 where its pass does not fold the change (no
     * symbolic there) */
    return sym_unimplemented (ctx, n, error, "a list changed in place where symonnx cannot follow "
                              "it (%s)", why);
  /* torch 1.13: exports the list as an ONNX sequence (SequenceInsert, SequenceErase, SequenceAt);
   * not yet here */
  return sym_unimplemented (ctx, n, error, "a list changed in place where symonnx cannot follow it "
                            "(%s; torch 1.13 writes an ONNX sequence there, which symonnx does not "
                            "yet)", why);
}

/* prim::SetAttr left by Note [Module attributes written in forward]
 * (module-attrs.c): in a Loop body or a branch chosen at run time, or
 * assigning a module. */
static gboolean
sym_set_attr (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  (void) out;
  const char *name = NULL;
  graph_node_get_s (n, "name", &name, NULL);
  if (graph_node_n_inputs (n) != 2 || graph_node_n_outputs (n) > 0)
    /* torch 1.13: also refuses (prim::SetAttr takes an object and a value and has no result) */
    return sym_unimplemented (ctx, n, error, "a prim::SetAttr with %u inputs and %u results (a "
                              "malformed trace)", graph_node_n_inputs (n), graph_node_n_outputs (n));
  GraphType *t = graph_value_type (graph_node_input (n, 1));
  if (t == NULL || graph_type_kind (t) == GRAPH_TYPE_CLASS)
    /* torch 1.13: also refuses (a module assigned in forward has no ONNX value) */
    return sym_unimplemented (ctx, n, error, "assigning a module to attribute '%s' in forward",
                              name ? name : "?");
  /* torch 1.13: carries the attribute through the Loop or If as a block output; not yet here */
  return sym_unimplemented (ctx, n, error, "assigning attribute '%s' inside a loop or a branch "
                            "taken at run time (symonnx follows such an assignment only in the "
                            "forward's own block or a branch fixed at export time)",
                            name ? name : "?");
}

static const SymEntry entries9[] = {
  SYM_FN ("prim::SetAttr", sym_set_attr),
  SYM_FN ("aten::item", sym_item),
  SYM_FN ("aten::__not__", sym_not),
  SYM_FN ("aten::__is__", sym_is),
  SYM_FN ("aten::__isnot__", sym_is),
  SYM_FN ("aten::is_floating_point", sym_is_floating_point),
  SYM_FN ("aten::floordiv", sym_floordiv),
  SYM_FN ("aten::list", sym_list),
  SYM_FN ("aten::__interpolate", sym_interpolate),
  SYM_REFUSED ("aten::scan", sym_scan),
  SYM_FN ("aten::append", sym_list_mutation),
  SYM_FN ("aten::insert", sym_list_mutation),
  SYM_FN ("aten::pop", sym_list_mutation),
  SYM_FN ("aten::Delete", sym_list_mutation),
  SYM_FN ("aten::_set_item", sym_list_mutation),
};
const SymTable sym_opset9_script = SYM_TABLE (9, entries9);

/* torch 1.13 registers its floor-rounding helper as aten::_floor_divide
 * from opset 10: floor_divide's symbolic here. */
static const SymEntry entries10[] = {
  SYM_FN ("aten::_floor_divide", sym_floor_divide),
};
const SymTable sym_opset10_script = SYM_TABLE (10, entries10);
