/* The quantized Add chains' fusion (runtime/fuse-qadd.c, Note [Quantized
 * Add chains]) against PyTorch: tests/fixtures/quant/qdq_add, written by
 * `tools/gen_quant_refs.py qdq_add`, holds uint8 inputs, PyTorch's
 * quantized::add / add_relu of them (QNNPACK) and the ONNX float form
 * computed in numpy.  The fused chain gives PyTorch's integers exactly;
 * with SYMONNX_NO_QNNPACK_ADD, or without fusion, the chain runs unfused
 * and gives the float form exactly; the cases where the two forms differ
 * make the first check fail without the fusion.  Chains the fusion must
 * not take keep their nodes and the float form's numbers. */
#include "tests/runtime/test-runtime.h"
#include "tests/runtime/fusion-testutil.h"
#include "tests/runtime/aten-testutil.h"
#include "tests/common/test-util.h"
#include <stdlib.h>
#include <string.h>

typedef struct
{
  char    name[64];
  gboolean relu;
  float   sa, sb, ys;
  gint64  za, zb, yz;
  guint   differ;   /* elements where PyTorch and the float form differ */
} QCase;

static GPtrArray *
load_cases (void)
{
  g_autofree char *path = test_source_path ("tests/fixtures/quant/qdq_add/cases.txt");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  GPtrArray *cases = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      if (**l == '#' || **l == '\0')
        continue;
      g_auto (GStrv) f = g_strsplit (*l, " ", -1);
      g_assert_cmpuint (g_strv_length (f), ==, 9);
      QCase *c = g_new0 (QCase, 1);
      g_strlcpy (c->name, f[0], sizeof c->name);
      c->relu = strcmp (f[1], "add_relu") == 0;
      c->sa = (float) g_ascii_strtod (f[2], NULL);
      c->za = g_ascii_strtoll (f[3], NULL, 10);
      c->sb = (float) g_ascii_strtod (f[4], NULL);
      c->zb = g_ascii_strtoll (f[5], NULL, 10);
      c->ys = (float) g_ascii_strtod (f[6], NULL);
      c->yz = g_ascii_strtoll (f[7], NULL, 10);
      c->differ = (guint) g_ascii_strtoull (f[8], NULL, 10);
      g_ptr_array_add (cases, c);
    }
  g_assert_cmpuint (cases->len, >=, 5);
  return cases;
}

static Tensor *
fixture (const QCase *c, const char *suffix)
{
  g_autofree char *file = g_strdup_printf ("%s_%s.npy", c->name, suffix);
  return aten_test_fixture_in ("quant/qdq_add", file);
}

static GraphValue *
init (Graph *g, const char *name, Tensor *t /* transfer full */)
{
  GraphValue *v = graph_add_initializer (g, name, t);
  tensor_unref (t);
  return v;
}

/* A scalar as a weight, or (as torch's and symonnx's exports write them) a
 * Constant node's output. */
static GraphValue *
scalar (Graph *g, const char *name, Tensor *t /* transfer full */, gboolean as_node)
{
  if (!as_node)
    return init (g, name, t);
  GraphValue *v = graph_op (g, "Constant", "value_t", t, NULL);
  tensor_unref (t);
  return v;
}

typedef struct
{
  guint    rank_a, rank_b;        /* the inputs' types: rank (static dims from dims_*), */
  gint64   dims_a[2], dims_b[2];
  gboolean unknown_shapes;        /* or rank unknown */
  GraphDType zp_type;             /* UINT8, or INT8 (inputs of that type) */
  gboolean scale_input;           /* a's scale a graph input, not a constant */
  gboolean const_nodes;           /* constants as Constant nodes, not weights */
  gboolean add_is_output;         /* the Add's output also a graph output */
  gboolean dq_is_output;          /* a's DequantizeLinear output also a graph output */
} Shape;

/* DequantizeLinear (a), DequantizeLinear (b) → Add [→ Relu] →
 * QuantizeLinear "y", with case c's constants. */
static Graph *
chain (const QCase *c, const Shape *sh)
{
  Graph *g = fz_new_graph_at (13);
  GraphDType dt = sh->zp_type;
  g_autoptr (GraphType) ta = sh->unknown_shapes ? graph_type_new_tensor (dt, -1, NULL)
                                                : graph_type_new_tensor_static (dt, sh->rank_a, sh->dims_a);
  g_autoptr (GraphType) tb = sh->unknown_shapes ? graph_type_new_tensor (dt, -1, NULL)
                                                : graph_type_new_tensor_static (dt, sh->rank_b, sh->dims_b);
  GraphValue *a = graph_add_input (g, "a", ta), *b = graph_add_input (g, "b", tb);
  GraphValue *sa;
  if (sh->scale_input)
    {
      g_autoptr (GraphType) ts = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 0, NULL);
      sa = graph_add_input (g, "sa", ts);
    }
  else
    sa = scalar (g, "sa", tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, c->sa), sh->const_nodes);
  GraphValue *za = scalar (g, "za", tensor_new_scalar_int64 (dt, c->za - (dt == GRAPH_DTYPE_INT8) * 128),
                           sh->const_nodes);
  GraphValue *sb = scalar (g, "sb", tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, c->sb), sh->const_nodes);
  GraphValue *zb = scalar (g, "zb", tensor_new_scalar_int64 (dt, c->zb - (dt == GRAPH_DTYPE_INT8) * 128),
                           sh->const_nodes);
  GraphValue *ys = scalar (g, "ys", tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, c->ys), sh->const_nodes);
  GraphValue *yz = scalar (g, "yz", tensor_new_scalar_int64 (dt, c->yz - (dt == GRAPH_DTYPE_INT8) * 128),
                           sh->const_nodes);
  GraphValue *da = graph_op (g, "DequantizeLinear", a, sa, za, NULL);
  GraphValue *s = graph_op (g, "Add", da, graph_op (g, "DequantizeLinear", b, sb, zb, NULL), NULL);
  if (sh->add_is_output)
    {
      graph_value_set_name (s, "sum");
      graph_add_output (g, s);
    }
  if (sh->dq_is_output)
    {
      graph_value_set_name (da, "da");
      graph_add_output (g, da);
    }
  if (c->relu)
    s = graph_op (g, "Relu", s, NULL);
  graph_value_set_name (graph_op (g, "QuantizeLinear", s, ys, yz, NULL), "y");
  graph_add_output (g, graph_find_value (g, "y"));
  return g;
}

static const Shape plain = { 2, 2, { 8, 256 }, { 8, 256 }, .zp_type = GRAPH_DTYPE_UINT8 };

static guint
n_nodes_unfused (const QCase *c)
{
  return c->relu ? 5 : 4;
}

/* Runs g on in (a, b) with fusion (env: with that variable set) or none;
 * *nodes: the plan's node count. */
static Tensor *
run (Graph *g, GHashTable *in, gboolean no_fusion, const char *env, guint *nodes)
{
  if (env)
    g_setenv (env, "1", TRUE);
  Tensor *t = fz_run (g, in, no_fusion, "y", nodes);
  if (env)
    g_unsetenv (env);
  return t;
}

static GHashTable *
inputs (const QCase *c)
{
  GHashTable *in = fz_inputs_new ();
  g_hash_table_insert (in, g_strdup ("a"), fixture (c, "a"));
  g_hash_table_insert (in, g_strdup ("b"), fixture (c, "b"));
  return in;
}

static void
assert_equal (Tensor *got, Tensor *want)
{
  g_assert_cmpint (tensor_dtype (got), ==, tensor_dtype (want));
  g_assert_cmpuint (tensor_rank (got), ==, tensor_rank (want));
  g_assert_cmpmem (tensor_dims (got), tensor_rank (got) * sizeof (gint64), tensor_dims (want),
                   tensor_rank (want) * sizeof (gint64));
  g_assert_cmpmem (tensor_data (got), tensor_nbytes (got), tensor_data (want), tensor_nbytes (want));
}

static guint
count_differ (Tensor *x, Tensor *y)
{
  guint n = 0;
  for (gint64 i = 0; i < tensor_numel (x); i++)
    n += tensor_get_double (x, i) != tensor_get_double (y, i);
  return n;
}

/* Each case: fused == PyTorch (one plan node); switched off or unfused ==
 * the float form (every node); both forms as the generator counted. */
static void
test_cases (void)
{
  g_autoptr (GPtrArray) cases = load_cases ();
  guint with_diffs = 0;
  for (guint k = 0; k < cases->len; k++)
    {
      const QCase *c = g_ptr_array_index (cases, k);
      g_test_message ("case %s", c->name);
      g_autoptr (GHashTable) in = inputs (c);
      g_autoptr (Tensor) want = fixture (c, "torch");
      g_autoptr (Tensor) flt = fixture (c, "float");
      g_assert_cmpuint (count_differ (want, flt), ==, c->differ);
      with_diffs += c->differ > 0;
      for (int as_nodes = 0; as_nodes < 2; as_nodes++)
        {
          Shape sh = plain;
          sh.const_nodes = as_nodes;
          g_autoptr (Graph) g = chain (c, &sh);
          guint nf, noff, np;
          g_autoptr (Tensor) fused = run (g, in, FALSE, NULL, &nf);
          g_autoptr (Tensor) off = run (g, in, FALSE, "SYMONNX_NO_QNNPACK_ADD", &noff);
          g_autoptr (Tensor) unfused = run (g, in, TRUE, NULL, &np);
          g_assert_cmpuint (nf, ==, 1);
          g_assert_cmpuint (noff, ==, 4);   /* Add + Relu: the plain fusion, same numbers */
          g_assert_cmpuint (np, ==, n_nodes_unfused (c));
          assert_equal (fused, want);
          assert_equal (off, flt);
          assert_equal (unfused, flt);
        }
    }
  g_assert_cmpuint (with_diffs, >=, 3);
}

static const QCase *
find_case (GPtrArray *cases, const char *name)
{
  for (guint k = 0; k < cases->len; k++)
    if (strcmp (((QCase *) g_ptr_array_index (cases, k))->name, name) == 0)
      return g_ptr_array_index (cases, k);
  g_assert_not_reached ();
}

/* Inputs whose types do not give their shapes: fused; one shape at run
 * time, PyTorch's integers; shapes that broadcast, the float form (the
 * unfused run's numbers). */
static void
test_unknown_shapes (void)
{
  g_autoptr (GPtrArray) cases = load_cases ();
  const QCase *c = find_case (cases, "add_ties");
  Shape sh = plain;
  sh.unknown_shapes = TRUE;
  g_autoptr (Graph) g = chain (c, &sh);
  g_autoptr (GHashTable) in = inputs (c);
  guint nf, np;
  g_autoptr (Tensor) fused = run (g, in, FALSE, NULL, &nf);
  g_assert_cmpuint (nf, ==, 1);
  g_autoptr (Tensor) want = fixture (c, "torch");
  assert_equal (fused, want);
  /* b: its first row only, (1, 256): broadcasts over a's 8 rows */
  g_autoptr (Tensor) b = fixture (c, "b");
  static const gint64 row[2] = { 1, 256 };
  g_hash_table_insert (in, g_strdup ("b"), tensor_new_from_data (GRAPH_DTYPE_UINT8, 2, row, tensor_data (b), 256,
                                                                  NULL));
  g_autoptr (Tensor) bf = run (g, in, FALSE, NULL, &nf);
  g_autoptr (Tensor) bu = run (g, in, TRUE, NULL, &np);
  g_assert_cmpuint (nf, ==, 1);
  g_assert_cmpuint (np, ==, 4);
  g_assert_cmpuint (tensor_numel (bf), ==, 8 * 256);
  assert_equal (bf, bu);
}

/* Chains the fusion leaves alone keep every node and the unfused run's
 * numbers: broadcasting by their types, int8, a scale that is not a
 * constant, a ratio QNNPACK refuses, the Add's value also an output (the
 * Add + Relu fusion of runtime/fuse.c still applies, with the unfused
 * numbers).  A
 * DequantizeLinear that is also an output stays for it, the rest fuses. */
static void
test_not_fused (void)
{
  g_autoptr (GPtrArray) cases = load_cases ();
  const QCase *c = find_case (cases, "add_relu_ties");
  for (int v = 0; v < 6; v++)
    {
      Shape sh = plain;
      QCase cc = *c;
      g_autoptr (GHashTable) in = fz_inputs_new ();
      g_autoptr (Tensor) a0 = fixture (c, "a");
      g_autoptr (Tensor) b0 = fixture (c, "b");
      Tensor *a = tensor_ref (a0), *b = tensor_ref (b0);   /* into `in` */
      const char *out = "y";
      guint expect = 4;   /* add_relu_ties: Add + Relu fused as float (same numbers) */
      switch (v)
        {
        case 0:   /* (8, 256) + (1, 256) by the types */
          sh.dims_b[0] = 1;
          tensor_unref (b);
          b = tensor_new_from_data (GRAPH_DTYPE_UINT8, 2, sh.dims_b, tensor_data (b0), 256, NULL);
          break;
        case 1:   /* int8 (torch runs qint8 adds elsewhere) */
          sh.zp_type = GRAPH_DTYPE_INT8;
          tensor_unref (a);
          tensor_unref (b);
          a = tensor_new_from_data (GRAPH_DTYPE_INT8, 2, plain.dims_a, tensor_data (a0), tensor_nbytes (a0), NULL);
          b = tensor_new_from_data (GRAPH_DTYPE_INT8, 2, plain.dims_b, tensor_data (b0), tensor_nbytes (b0), NULL);
          break;
        case 2:   /* a's scale a graph input */
          sh.scale_input = TRUE;
          g_hash_table_insert (in, g_strdup ("sa"), tensor_new_scalar_double (GRAPH_DTYPE_FLOAT, c->sa));
          break;
        case 3:   /* output scale 2^11 times the inputs': QNNPACK's shift would reach 32 */
          cc.ys = c->sa * 2048.0f;
          break;
        case 4:
          sh.add_is_output = TRUE;
          expect = 5;
          break;
        default:
          sh.dq_is_output = TRUE;
          expect = 2;   /* the DequantizeLinear, the fused chain */
          break;
        }
      g_test_message ("variant %d", v);
      g_assert_nonnull (a);
      g_assert_nonnull (b);
      g_hash_table_insert (in, g_strdup ("a"), a);
      g_hash_table_insert (in, g_strdup ("b"), b);
      g_autoptr (Graph) g = chain (&cc, &sh);
      guint nf, np;
      g_autoptr (Tensor) fused = fz_run (g, in, FALSE, out, &nf);
      g_autoptr (Tensor) unfused = fz_run (g, in, TRUE, out, &np);
      g_assert_cmpuint (nf, ==, expect);
      g_assert_cmpuint (np, ==, n_nodes_unfused (c));
      if (v == 5)
        {
          g_autoptr (Tensor) want = fixture (c, "torch");
          assert_equal (fused, want);
          g_autoptr (Tensor) da = fz_run (g, in, FALSE, "da", &nf);
          g_autoptr (Tensor) dau = fz_run (g, in, TRUE, "da", &np);
          assert_equal (da, dau);
        }
      else
        assert_equal (fused, unfused);
    }
}

void
test_fusion_qadd_register (void)
{
  g_test_add_func ("/runtime/fusion/qdq-add/cases", test_cases);
  g_test_add_func ("/runtime/fusion/qdq-add/unknown-shapes", test_unknown_shapes);
  g_test_add_func ("/runtime/fusion/qdq-add/not-fused", test_not_fused);
}
