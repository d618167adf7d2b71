/* The text printer and parser: exact output for known graphs, and round
 * trips (print → parse → print byte-identical, parse → print → parse equal)
 * over every attribute kind, type, dtype, name and subgraph shape. */
#include "tests/ir/text-test-util.h"
#include <locale.h>
#include <math.h>
#include <string.h>

static GraphType *
ftype (guint rank, const gint64 *dims)
{
  return graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, rank, dims);
}

/* The seed's MyModule: x = ReLU(x); return x * x + y, with the products as
 * ATen nodes (graph.at("mul", ...)).  The expected text follows torch's
 * Graph::print: inputs joined by ",\n      ", two-space body indent, a
 * value without a type prints "Tensor", attributes in name order. */
static void
test_text_mymodule (void)
{
  g_autoptr (Graph) g = graph_new ();
  gint64 d[2] = { 3, 4 };
  g_autoptr (GraphType) t = ftype (2, d);
  GraphValue *x = graph_add_input (g, "x", t);
  GraphValue *y = graph_add_input (g, "y", t);
  GraphValue *r = graph_op (g, "Relu", x, NULL);
  graph_value_set_type (r, t);
  GraphValue *m = graph_at (g, "mul", r, r, NULL);
  GraphValue *a = graph_at (g, "add", m, y, NULL);
  graph_value_set_type (a, t);
  graph_add_output (g, a);
  assert_lint (g);
  g_autofree char *expected = g_strdup_printf (
    "graph(%%x : Float(3, 4),\n"
    "      %%y : Float(3, 4)):\n"
    "  %%%u : Float(3, 4) = onnx::Relu(%%x)\n"
    "  %%%u : Tensor = org.pytorch.aten::ATen[operator=\"mul\", overload_name=\"\"](%%%u, %%%u)\n"
    "  %%%u : Float(3, 4) = org.pytorch.aten::ATen[operator=\"add\", overload_name=\"\"](%%%u, %%y)\n"
    "  return (%%%u)\n",
    graph_value_id (r), graph_value_id (m), graph_value_id (r), graph_value_id (r),
    graph_value_id (a), graph_value_id (m), graph_value_id (a));
  g_autofree char *s = graph_to_string (g);
  g_assert_cmpstr (s, ==, expected);
  g_autoptr (Graph) back = text_test_round_trip (g);
  g_assert_cmpuint (graph_n_nodes (back), ==, 3);
}

/* The Conv line of issue 2, and BatchNormalization's float attributes as
 * torch.onnx.export(..., verbose=True) prints them with torch 1.13:
 * "epsilon=1.0000000000000001e-05, momentum=0.90000000000000002". */
static void
test_text_conv_scope (void)
{
  g_autoptr (Graph) g = graph_new ();
  gint64 dx[4] = { 1, 3, 8, 8 }, dw[4] = { 4, 3, 3, 3 }, dy[4] = { 1, 4, 6, 6 }, c4 = 4;
  g_autoptr (GraphType) tx = ftype (4, dx);
  g_autoptr (GraphType) tw = ftype (4, dw);
  g_autoptr (GraphType) ty = ftype (4, dy);
  g_autoptr (GraphType) tc = ftype (1, &c4);
  GraphValue *x = graph_add_input (g, "x", tx);
  GraphValue *w = graph_add_input (g, "w", tw);
  GraphValue *s = graph_add_input (g, "s", tc);
  gint64 ones[2] = { 1, 1 }, k[2] = { 3, 3 }, pads[4] = { 0, 0, 0, 0 };
  GraphValue *y = graph_op (g, "Conv", x, w, "dilations_is", 2, ones, "group_i", (gint64) 1,
                            "kernel_shape_is", 2, k, "pads_is", 4, pads, "strides_is", 2, ones,
                            NULL);
  graph_value_set_name (y, "y");
  graph_value_set_type (y, ty);
  graph_node_set_scope (graph_value_node (y), "M::/Conv2d::conv");
  GraphNode *bn = graph_op_outputs (g, "BatchNormalization", 3, y, s, s, s, s,
                                    "epsilon_f", 1e-5, "momentum_f", 0.9,
                                    "training_mode_i", (gint64) 1, NULL);
  graph_value_set_name (graph_node_output (bn, 0), "z");
  graph_value_set_type (graph_node_output (bn, 0), ty);
  graph_value_set_name (graph_node_output (bn, 1), "mean");
  graph_value_set_type (graph_node_output (bn, 1), tc);
  graph_value_set_name (graph_node_output (bn, 2), "var");
  graph_value_set_type (graph_node_output (bn, 2), tc);
  graph_node_set_source (bn, "/usr/lib/python3/dist-packages/torch/nn/functional.py:2450:0");
  graph_add_output (g, graph_node_output (bn, 0));
  assert_lint (g);
  const char *expected =
    "graph(%x : Float(1, 3, 8, 8),\n"
    "      %w : Float(4, 3, 3, 3),\n"
    "      %s : Float(4)):\n"
    "  %y : Float(1, 4, 6, 6) = onnx::Conv[dilations=[1, 1], group=1, kernel_shape=[3, 3], "
    "pads=[0, 0, 0, 0], strides=[1, 1]](%x, %w), scope: M::/Conv2d::conv\n"
    "  %z : Float(1, 4, 6, 6), %mean : Float(4), %var : Float(4) = "
    "onnx::BatchNormalization[epsilon=1.0000000000000001e-05, momentum=0.90000000000000002, "
    "training_mode=1](%y, %s, %s, %s, %s) # /usr/lib/python3/dist-packages/torch/nn/functional.py:2450:0\n"
    "  return (%z)\n";
  g_autofree char *text = graph_to_string (g);
  g_assert_cmpstr (text, ==, expected);
  g_autoptr (Graph) back = text_test_round_trip (g);
  g_assert_cmpstr (graph_node_get_scope (graph_first_node (back)), ==, "M::/Conv2d::conv");
}

/* Doubles as PyTorch prints them (IValue repr: %.17g, "." on integral
 * values), read back to the same bits. */
static void
test_text_floats (void)
{
  static const struct { double v; const char *text; } cases[] = {
    { 1.0, "1." }, { 0.1, "0.10000000000000001" }, { 1e-5, "1.0000000000000001e-05" },
    { -0.0, "-0." }, { 100.0, "100." }, { 1e30, "1e+30" },
    { 1e10, "10000000000." }, { 2.5, "2.5" }, { -3.0, "-3." }, { 5e-324, "4.9406564584124654e-324" },
    { 1.7976931348623157e308, "1.7976931348623157e+308" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (Graph) g = graph_new ();
      GraphValue *v = graph_op (g, "Foo", "alpha_f", cases[i].v, NULL);
      graph_add_output (g, v);
      g_autofree char *s = graph_to_string (g);
      g_autofree char *want = g_strdup_printf ("[alpha=%s]()", cases[i].text);
      if (strstr (s, want) == NULL)
        g_error ("%.17g printed as\n%s\nnot %s", cases[i].v, s, want);
      g_autoptr (Graph) back = text_test_round_trip (g);
      double got;
      g_assert_true (graph_node_get_f (graph_first_node (back), "alpha", &got));
      g_assert_true (memcmp (&got, &cases[i].v, sizeof got) == 0);
    }
  /* inf, -inf and nan print as PyTorch does */
  g_autoptr (Graph) g = graph_new ();
  double fs[3] = { INFINITY, -INFINITY, NAN };
  graph_add_output (g, graph_op (g, "Foo", "v_fs", 3, fs, NULL));
  g_autofree char *s = graph_to_string (g);
  g_assert_nonnull (strstr (s, "[v=[inf, -inf, nan]]"));
  g_autoptr (Graph) back = text_test_round_trip (g);
}

/* The build compiles de_DE.UTF-8 into its own folder and the test command
 * sets LOCPATH and SYMONNX_TEST_LOCALE (tests/ir/meson.build): then the
 * locale must load (no skip); run by hand, a system locale will do. */
static void
test_text_locale (void)
{
  char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  const char *built = g_getenv ("SYMONNX_TEST_LOCALE");
  if (built && setlocale (LC_NUMERIC, built) == NULL)
    g_error ("the locale %s compiled into LOCPATH=%s does not load", built, g_getenv ("LOCPATH"));
  if (built)
    g_assert_cmpstr (localeconv ()->decimal_point, ==, ",");
  if (built == NULL && setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL
      && setlocale (LC_NUMERIC, "fr_FR.UTF-8") == NULL)
    {
      g_free (old);
      g_test_skip ("no locale with a decimal comma is installed");
      return;
    }
  g_autoptr (Graph) g = graph_new ();
  graph_add_output (g, graph_op (g, "Foo", "alpha_f", 0.5, NULL));
  g_autofree char *s = graph_to_string (g);
  setlocale (LC_NUMERIC, old);
  g_free (old);
  g_assert_nonnull (strstr (s, "alpha=0.5]"));
}

static Tensor *
scalar_tensor (GraphDType dtype, const void *bytes, guint rank, const gint64 *dims)
{
  g_autoptr (GError) error = NULL;
  Tensor *t = tensor_new_from_data (dtype, rank, dims, bytes, graph_dtype_size (dtype), &error);
  g_assert_no_error (error);
  return t;
}

/* Every attribute kind, with values that are hard to spell. */
static void
test_text_attr_kinds (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  static const char bytes[] = "q\"uote \\ back\nnew\ttab\x01\x7f\xff\xc3\xa9 nul:\0end'";
  const double fs[] = { 0.5, -1e-300, 3.0 };
  const gint64 is[] = { G_MININT64, -1, 0, G_MAXINT64 };
  const char *ss[] = { "", "a b", "\xe2\x82\xac", "\\\"" };
  gint64 d2[2] = { 2, 3 };
  float f6[6] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr (Tensor) big = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, d2, f6, sizeof f6, NULL);
  double dv = 0.1;
  gint64 one = 1;
  g_autoptr (Tensor) d1 = scalar_tensor (GRAPH_DTYPE_DOUBLE, &dv, 1, &one);
  gint64 lv = -7;
  g_autoptr (Tensor) l0 = scalar_tensor (GRAPH_DTYPE_INT64, &lv, 0, NULL);
  GBytes *sb = g_bytes_new_static ("hi\n", 3);
  g_autoptr (Tensor) st = tensor_new_strings (0, NULL, &sb, NULL);
  g_bytes_unref (sb);
  Tensor *ts[4] = { big, d1, l0, st };
  g_autoptr (GraphType) tp = graph_type_new_list (graph_type_new_optional (
                                                  graph_type_new_tensor (GRAPH_DTYPE_INT64, 1,
                                                                         &(GraphDim) { GRAPH_DIM_SYMBOLIC, -1, "n" })));
  g_autoptr (GraphType) tp2 = graph_type_new_simple (GRAPH_TYPE_INT);
  GraphType *tps[2] = { tp, tp2 };
  GraphNode *n = graph_op_outputs (g, "dom::Everything", 1, x, GRAPH_ABSENT, x,
                                   "f_f", 2.0, "i_i", (gint64) -42, "t_t", d1, "tp_tp", tp,
                                   "fs_fs", 3, fs, "is_is", 4, is, "ss_ss", 4, ss,
                                   "ts_ts", 4, ts, "tps_tps", 2, tps,
                                   "efs_fs", 0, fs, "eis_is", 0, is, "ess_ss", 0, ss,
                                   "ets_ts", 0, ts, "etps_tps", 0, tps, NULL);
  g_assert_nonnull (n);
  graph_node_set_s_len (n, "s", bytes, sizeof bytes - 1);
  graph_node_set_t (n, "big", big);
  graph_node_set_gs (n, "egs", 0, NULL);
  graph_add_output (g, graph_node_output (n, 0));
  assert_lint (g);
  g_autofree char *text = graph_to_string (g);
  /* spot checks of the spelling */
  g_assert_nonnull (strstr (text, "(%x, None, %x)"));
  g_assert_nonnull (strstr (text, "eis=annotate(List[int], [])"));
  g_assert_nonnull (strstr (text, "efs=annotate(List[float], [])"));
  g_assert_nonnull (strstr (text, "s=\"q\\\"uote \\\\ back\\nnew\\ttab\\x01\\x7f\\xff\xc3\xa9 nul:\\x00end\\'\""));
  g_assert_nonnull (strstr (text, "is=[-9223372036854775808, -1, 0, 9223372036854775807]"));
  g_assert_nonnull (strstr (text, "ts=[<Tensor : Float(2, 3)>, {0.1 : Double(1)}, {-7}, {\"hi\\n\"}]"));
  g_assert_nonnull (strstr (text, "tp=Long(n)?[]"));
  g_autoptr (Graph) back = text_test_round_trip (g);
  const char *s;
  gsize len;
  g_assert_true (graph_node_get_s (graph_first_node (back), "s", &s, &len));
  g_assert_cmpmem (s, len, bytes, sizeof bytes - 1);
}

/* {v} of every dtype: the short form when the output's type says the dtype
 * and shape, the explicit " : T" form otherwise; values exact. */
static void
test_text_tensor_dtypes (void)
{
  for (int dt = 1; dt < GRAPH_DTYPE_LAST; dt++)
    {
      if (dt == GRAPH_DTYPE_STRING)
        continue;
      guint8 buf[16] = { 0 };
      /* a value with bits in the mantissa / high bytes */
      switch (dt)
        {
        case GRAPH_DTYPE_FLOAT: { float v = 0.1f; memcpy (buf, &v, 4); break; }
        case GRAPH_DTYPE_DOUBLE: { double v = 1.0 / 3; memcpy (buf, &v, 8); break; }
        case GRAPH_DTYPE_FLOAT16: buf[0] = 0x66; buf[1] = 0x2e; break;   /* 0.0999755859375 */
        case GRAPH_DTYPE_BFLOAT16: buf[0] = 0xcd; buf[1] = 0x3d; break;  /* 0.10009765625 */
        case GRAPH_DTYPE_COMPLEX64: { float v[2] = { 1.5f, -0.1f }; memcpy (buf, v, 8); break; }
        case GRAPH_DTYPE_COMPLEX128: { double v[2] = { -2, 1e-300 }; memcpy (buf, v, 16); break; }
        case GRAPH_DTYPE_BOOL: buf[0] = 1; break;
        default: memset (buf, 0xff, graph_dtype_size (dt)); buf[graph_dtype_size (dt) - 1] = 0x80; break;
        }
      for (int with_type = 0; with_type < 2; with_type++)
        {
          g_autoptr (Graph) g = graph_new ();
          gint64 one[2] = { 1, 1 };
          g_autoptr (Tensor) t = scalar_tensor (dt, buf, 2, one);
          GraphValue *c = graph_op (g, "Constant", "value_t", t, NULL);
          g_autoptr (GraphType) ct = graph_type_new_tensor_static (dt, 2, one);
          if (with_type)
            graph_value_set_type (c, ct);
          graph_add_output (g, c);
          g_autofree char *text = graph_to_string (g);
          /* the type is spelled out exactly when the output's type does not give it */
          const char *value = strstr (text, "[value=");
          g_assert_nonnull (value);
          g_autofree char *lit = g_strndup (value, (gsize) (strstr (value, "]()") - value));
          g_assert_true ((strstr (lit, " : ") == NULL) == (with_type != 0));
          g_autoptr (Graph) back = text_test_round_trip (g);
          Tensor *bt;
          g_assert_true (graph_node_get_t (graph_first_node (back), "value", &bt));
          g_assert_true (tensor_equal (bt, t));
        }
    }
}

/* Names: quoted when they hold other characters, ids of unnamed values
 * avoid names in the text, duplicates across subgraphs are renamed. */
static void
test_text_names (void)
{
  static const char *const odd[] = { "a b", "q\"t", "%", "\xc3\xa9t\xc3\xa9", "x,y", "-1",
                                     "onnx::Conv_5", "/layer1/Relu_output_0", "self.1", "(" };
  g_autoptr (Graph) g = graph_new ();
  GraphValue *prev = graph_add_input (g, NULL, NULL);          /* unnamed input */
  for (guint i = 0; i < G_N_ELEMENTS (odd); i++)
    {
      prev = graph_op (g, "Neg", prev, NULL);
      graph_value_set_name (prev, odd[i]);
    }
  GraphValue *u = graph_op (g, "Neg", prev, NULL);               /* unnamed */
  /* a value explicitly named like u's id: u must print as something else */
  g_autofree char *id = g_strdup_printf ("%u", graph_value_id (u));
  GraphValue *named = graph_op (g, "Neg", u, NULL);
  graph_value_set_name (named, id);
  graph_add_output (g, named);
  assert_lint (g);
  g_autofree char *text = graph_to_string (g);
  g_assert_nonnull (strstr (text, "%\"a b\""));
  g_assert_nonnull (strstr (text, "%onnx::Conv_5 : Tensor"));
  g_autofree char *dup = g_strdup_printf ("%%%s : Tensor = onnx::Neg", id);
  /* exactly one definition prints as %<id> */
  const char *first = strstr (text, dup);
  g_assert_nonnull (first);
  g_assert_null (strstr (first + 1, dup));
  g_autoptr (Graph) back = text_test_round_trip (g);
  g_assert_nonnull (graph_find_value (back, "a b"));
}

/* Subgraphs: g and gs attributes, bodies using outer values, two levels,
 * a name used both outside and inside. */
static Graph *
make_body (Graph *outer, GraphValue *captured, const char *in_name, const char *out_name)
{
  Graph *b = graph_new_subgraph (outer);
  gint64 two = 2;
  g_autoptr (GraphType) t = ftype (1, &two);
  GraphValue *a = graph_add_input (b, in_name, t);
  GraphValue *s = graph_op (b, "Add", a, captured, NULL);
  graph_value_set_name (s, out_name);
  graph_add_output (b, s);
  graph_add_output (b, captured);
  return b;
}

static void
test_text_subgraphs (void)
{
  g_autoptr (Graph) g = graph_new ();
  g_autoptr (GraphType) bt = graph_type_new_tensor_static (GRAPH_DTYPE_BOOL, 0, NULL);
  GraphValue *cond = graph_add_input (g, "cond", bt);
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphValue *k = graph_op (g, "Neg", x, NULL);
  Graph *then_b = make_body (g, k, "a", "t");
  Graph *else_b = make_body (g, x, "b", "e");
  /* nested: the else branch holds a Loop whose body uses the outermost x */
  GraphNode *inner = graph_op_outputs (else_b, "Loop", 1, graph_input (else_b, 0), NULL);
  Graph *loop_body = make_body (else_b, x, "i", "y");
  graph_node_set_g (inner, "body", loop_body);
  Graph *scan_bodies[2] = { make_body (g, k, "s0", "r0"), make_body (g, x, "s1", "x") };
  /* a graph attribute named like the keyword */
  graph_node_set_g (graph_value_node (k), "return", make_body (g, x, "r", "rr"));
  GraphNode *n = graph_op_outputs (g, "If", 2, cond, "then_branch_g", then_b,
                                   "else_branch_g", else_b, "branches_gs", 2, scan_bodies, NULL);
  graph_add_output (g, graph_node_output (n, 0));
  graph_add_output (g, graph_node_output (n, 1));
  assert_lint (g);
  g_autofree char *text = graph_to_string (g);
  g_assert_nonnull (strstr (text, "[branches=[<Graph>, <Graph>], else_branch=<Graph>, then_branch=<Graph>](%cond)\n"
                                  "    branches[0](%s0 : Float(2)):\n"));
  g_assert_nonnull (strstr (text, "      -> (%r0, %"));
  g_assert_nonnull (strstr (text, "        body(%i : Float(2)):\n          %y : Tensor = onnx::Add(%i, %x)\n"));
  /* the branch's own "x" output would clash with the graph input %x */
  g_assert_nonnull (strstr (text, "%x.1 : Tensor = onnx::Add(%s1, %x)"));
  g_assert_nonnull (strstr (text, "onnx::Neg[return=<Graph>](%x)\n    \"return\"(%r : Float(2)):\n"));
  g_autoptr (Graph) back = graph_parse (text, strlen (text), "subgraphs", NULL);
  g_assert_nonnull (back);
  assert_lint (back);
  g_autofree char *again = graph_to_string (back);
  g_assert_cmpstr (text, ==, again);
  g_autofree char *why = NULL;
  /* equal but for the renamed x.1 */
  g_assert_false (text_test_graphs_equal (g, back, FALSE, &why));
  g_assert_nonnull (strstr (why, "name x vs x.1"));
  g_autoptr (Graph) back2 = text_test_round_trip (back);
}

/* Types: symbolic and unknown dims, trace annotations, containers. */
static void
test_text_types (void)
{
  GraphDim dims[3] = { { GRAPH_DIM_SYMBOLIC, -1, "batch" }, { GRAPH_DIM_STATIC, 3, NULL },
                       { GRAPH_DIM_UNKNOWN, -1, NULL } };
  gint64 strides[3] = { 3, 1, 1 };
  g_autoptr (GraphType) sym = graph_type_new_tensor (GRAPH_DTYPE_BFLOAT16, 3, dims);
  g_autoptr (GraphType) u8 = graph_type_new_tensor (GRAPH_DTYPE_UINT8, 3, dims);
  g_autoptr (GraphType) u8_trace = graph_type_with_trace_info (u8, strides, 0, "cpu");
  g_autoptr (GraphType) i8 = graph_type_new_tensor (GRAPH_DTYPE_INT8, -1, NULL);
  g_autoptr (GraphType) i32 = graph_type_new_tensor (GRAPH_DTYPE_INT32, 0, NULL);
  GraphType *types[] = {
    /* PyTorch's quantized types: Note [Quantized tensor types] */
    graph_type_with_quantized (u8_trace),
    graph_type_with_quantized (i8),
    graph_type_with_quantized (i32),
    graph_type_ref (sym),
    graph_type_with_trace_info (sym, strides, 0, "cpu"),
    graph_type_with_trace_info (sym, NULL, 1, "cuda:0"),
    graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL),
    graph_type_new_tensor (GRAPH_DTYPE_INT8, -1, NULL),
    graph_type_new_tensor (GRAPH_DTYPE_FLOAT, 0, NULL),
    graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, 2, dims + 1),
    graph_type_new_sparse_tensor (GRAPH_DTYPE_DOUBLE, 2, dims),
    graph_type_new_list (graph_type_new_simple (GRAPH_TYPE_INT)),
    graph_type_new_optional (graph_type_new_tensor (GRAPH_DTYPE_UNDEFINED, -1, NULL)),
    graph_type_new_dict (graph_type_new_simple (GRAPH_TYPE_STR),
                         graph_type_new_list (graph_type_new_tensor (GRAPH_DTYPE_FLOAT, -1, NULL))),
    graph_type_new_tuple (3, (GraphType *[]) { graph_type_new_simple (GRAPH_TYPE_FLOAT),
                                               graph_type_new_simple (GRAPH_TYPE_BOOL),
                                               graph_type_new_tuple (0, NULL) }),
    graph_type_new_simple (GRAPH_TYPE_NONE),
    graph_type_new_simple (GRAPH_TYPE_DEVICE),
    graph_type_new_simple (GRAPH_TYPE_NUMBER),
    graph_type_new_named ("Layout"),
    graph_type_new_named ("Function"),   /* a scripted function's constant in a trace */
    graph_type_new_class ("__torch__.torchvision.models.resnet.ResNet"),
  };
  g_autoptr (Graph) g = graph_new ();
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      GraphValue *v = graph_add_input (g, NULL, types[i]);
      GraphValue *o = graph_op (g, "Identity", v, NULL);
      graph_value_set_type (o, types[i]);
      graph_add_output (g, o);
    }
  /* every dtype as a value type */
  for (int dt = 0; dt < GRAPH_DTYPE_LAST; dt++)
    {
      g_autoptr (GraphType) t = graph_type_new_tensor (dt, 1, dims + 1);
      graph_add_input (g, graph_dtype_name (dt), t);
    }
  assert_lint (g);
  g_autofree char *text = graph_to_string (g);
  g_assert_nonnull (strstr (text, "BFloat16(batch, 3, *, strides=[3, 1, 1], requires_grad=0, device=cpu)"));
  g_assert_nonnull (strstr (text, "Dict(str, Float[])"));
  g_assert_nonnull (strstr (text, "QUInt8(batch, 3, *, strides=[3, 1, 1], requires_grad=0, device=cpu)"));
  g_assert_nonnull (strstr (text, ": QInt8 ="));
  g_assert_nonnull (strstr (text, ": QInt32() ="));
  g_autoptr (Graph) back = text_test_round_trip (g);
  for (guint i = 0; i < 3; i++)
    {
      GraphType *t = graph_value_type (graph_input (back, i));
      g_assert_true (graph_type_is_quantized (t));
      g_assert_true (graph_type_equal (t, types[i]));
      g_assert_cmpint (graph_type_dtype (t), ==, i == 0 ? GRAPH_DTYPE_UINT8 : i == 1 ? GRAPH_DTYPE_INT8 : GRAPH_DTYPE_INT32);
    }
  g_assert_false (graph_type_is_quantized (u8));
  g_assert_false (graph_type_equal (u8_trace, types[0]));
  g_assert_null (graph_type_quantized_name (GRAPH_DTYPE_FLOAT));
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    graph_type_unref (types[i]);
}

/* Scopes and sources that cannot be printed bare are quoted. */
static void
test_text_scope_source (void)
{
  static const char *const texts[] = { "__module.conv1", "a # b", " lead", "trail ", "two\nlines",
                                       "\"quoted\"", "", "tab\there", "M::/Conv2d::conv" };
  g_autoptr (Graph) g = graph_new ();
  GraphValue *v = graph_add_input (g, "x", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      v = graph_op (g, "Relu", v, NULL);
      graph_node_set_scope (graph_value_node (v), texts[i]);
      graph_node_set_source (graph_value_node (v), texts[G_N_ELEMENTS (texts) - 1 - i]);
    }
  GraphValue *w = graph_op (g, "Relu", v, NULL);
  graph_node_set_source (graph_value_node (w), "file.py:1:0");
  graph_add_output (g, w);
  /* a node with no outputs prints " = kind(...)" as PyTorch does */
  GraphNode *sink = graph_create_node (g, "prim::Sink", 1, &w, 0);
  graph_insert_node (g, sink);
  assert_lint (g);
  g_autofree char *text = graph_to_string (g);
  g_assert_nonnull (strstr (text, ", scope: __module.conv1 # M::/Conv2d::conv\n"));
  g_assert_nonnull (strstr (text, ", scope: \"a # b\" # "));
  g_assert_nonnull (strstr (text, ") # file.py:1:0\n"));
  g_assert_nonnull (strstr (text, "\n   = prim::Sink(%"));
  g_autoptr (Graph) back = text_test_round_trip (g);
}

/* PyTorch's own spellings that we read but print differently. */
static void
test_text_pytorch_spellings (void)
{
  const char *text =
    "graph(%self : __torch__.M,\n"
    "      %x.1 : Float(2, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %2 : Float(2, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value= 1.5000  2.0000 [ CPUFloatType{2} ]]() # t.py:4:0\n"
    "  %3 : Float(2, 2, 2, strides=[4, 2, 1], requires_grad=0, device=cpu) = prim::Constant[value=(1,.,.) =    0  1   2  3  (2,.,.) =    4  5   6  7 [ CPUFloatType{2,2,2} ]]()\n"
    "  %4 : Tensor = prim::Constant[value=[ CPUFloatType{0} ]]()\n"
    "  %5 : Float(requires_grad=0, device=cpu) = prim::Constant[value={2}]()\n"
    "  %6 : Double(requires_grad=0, device=cpu) = prim::Constant[value={0.1}]()\n"
    "  %7 : ComplexFloat(1, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value={(1,2)}]()\n"
    "  %8 : Tensor = onnx::Foo[a=10000000000, fs=[1., 2.5], e=annotate(List[float], []), ts=[<Tensors>], gs=[<Graphs>], s=\"\\101\\t\\'\"]()\n"
    "  %9 : NoneType = prim::Constant(), scope: __module.conv1\n"
    "  %10 : Float(12, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value=<Tensor>]()\n"
    "  %11 : Tensor?, %12 : int[] = prim::Foo(%x.1, %9)\n"
    "  return (%2)\n";
  g_autoptr (Graph) g = text_test_parse (text, "pytorch");
  GraphNode *n = graph_first_node (g);
  Tensor *t;
  g_assert_true (graph_node_get_t (n, "value", &t));
  g_assert_cmpint (tensor_dtype (t), ==, GRAPH_DTYPE_FLOAT);
  g_assert_cmpuint (tensor_rank (t), ==, 1);
  g_assert_cmpint (tensor_dim (t, 0), ==, 2);
  g_assert_false (tensor_has_data (t));
  g_assert_cmpstr (graph_node_get_source (n), ==, "t.py:4:0");
  n = graph_node_next (n);
  g_assert_true (graph_node_get_t (n, "value", &t));
  g_assert_cmpuint (tensor_rank (t), ==, 3);
  n = graph_node_next (n);
  g_assert_true (graph_node_get_t (n, "value", &t));
  g_assert_cmpint (tensor_numel (t), ==, 0);
  n = graph_node_next (n);
  g_assert_true (graph_node_get_t (n, "value", &t));
  g_assert_cmpint (tensor_dtype (t), ==, GRAPH_DTYPE_FLOAT);
  g_assert_cmpuint (tensor_rank (t), ==, 0);
  g_assert_cmpfloat (tensor_get_double (t, 0), ==, 2.0);
  n = graph_node_next (n);
  g_assert_true (graph_node_get_t (n, "value", &t));
  g_assert_cmpint (tensor_dtype (t), ==, GRAPH_DTYPE_DOUBLE);
  g_assert_cmpfloat (tensor_get_double (t, 0), ==, 0.1);
  n = graph_node_next (n);
  g_assert_true (graph_node_get_t (n, "value", &t));
  g_assert_cmpint (tensor_dtype (t), ==, GRAPH_DTYPE_COMPLEX64);
  const float *c = tensor_data (t);
  g_assert_cmpfloat (c[0], ==, 1.0f);
  g_assert_cmpfloat (c[1], ==, 2.0f);
  n = graph_node_next (n);
  gint64 i;
  g_assert_true (graph_node_get_i (n, "a", &i));   /* PyTorch's "10000000000" for 1e10 */
  g_assert_cmpint (i, ==, G_GINT64_CONSTANT (10000000000));
  gsize len;
  const double *fs;
  g_assert_true (graph_node_get_fs (n, "e", &len, &fs));
  g_assert_cmpuint (len, ==, 0);
  Tensor *const *ts;
  g_assert_true (graph_node_get_ts (n, "ts", &len, &ts));
  Graph *const *gs;
  g_assert_true (graph_node_get_gs (n, "gs", &len, &gs));
  const char *s;
  g_assert_true (graph_node_get_s (n, "s", &s, &len));
  g_assert_cmpmem (s, len, "A\t'", 3);
  n = graph_node_next (n);
  g_assert_cmpstr (graph_node_get_scope (n), ==, "__module.conv1");
  g_assert_true (graph_type_kind (graph_value_type (graph_input (g, 0))) == GRAPH_TYPE_CLASS);
  g_autoptr (Graph) back = text_test_round_trip (g);
}

/* The example in doc/ir-text-grammar.md is valid text that prints back
 * unchanged. */
/* NamedTuple(values : Tensor, indices : Tensor), the type scripted topk
 * gives its tuple: a tuple, the field names dropped. */
static void
test_text_named_tuple (void)
{
  static const char text[] =
    "graph(%x : Float(5), %k : int):\n"
    "  %m : int = prim::Constant[value=-1]()\n"
    "  %b : bool = prim::Constant[value=1]()\n"
    "  %v : Tensor, %i : Tensor = aten::topk(%x, %k, %m, %b, %b)\n"
    "  %t : NamedTuple(values : Tensor, indices : Long(*)) = prim::TupleConstruct(%v, %i)\n"
    "  return (%t)\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = graph_parse (text, strlen (text), "t", &error);
  g_assert_no_error (error);
  GraphType *t = graph_value_type (graph_output (g, 0));
  g_assert_cmpint (graph_type_kind (t), ==, GRAPH_TYPE_TUPLE);
  g_autofree char *s = graph_type_to_string (t);
  g_assert_cmpstr (s, ==, "(Tensor, Long(*))");
}

static void
test_text_doc_example (void)
{
  g_autofree char *path = test_source_path ("doc/ir-text-grammar.md");
  g_autofree char *doc = NULL;
  g_assert_true (g_file_get_contents (path, &doc, NULL, NULL));
  const char *start = strstr (doc, "```\ngraph(");
  g_assert_nonnull (start);
  start += 4;
  const char *end = strstr (start, "```");
  g_assert_nonnull (end);
  g_autofree char *example = g_strndup (start, (gsize) (end - start));
  g_autoptr (Graph) g = text_test_parse (example, "doc example");
  g_autofree char *printed = graph_to_string (g);
  g_assert_cmpstr (printed, ==, example);
}

/* An autograd Function call prints as PyTorch prints a PythonOp; its empty
 * body prints no block, and the text reads back to the same graph. */
static void
test_text_python_op (void)
{
  g_autoptr (Graph) g = graph_new ();
  GraphValue *x = graph_add_input (g, "x", NULL);
  GraphNode *n = graph_create_node (g, GRAPH_KIND_PYTHON_OP, 1, &x, 1);
  graph_insert_node (g, n);
  graph_node_set_s (n, GRAPH_PYTHON_OP_NAME_ATTR, "Scale");
  graph_node_set_s (n, GRAPH_PYTHON_OP_ARGS_ATTR, "2.5, \"a)b\"");
  graph_node_set_i (n, "inplace", 0);
  graph_node_set_g (n, "Subgraph", graph_new_subgraph (g));
  graph_value_set_name (graph_node_output (n, 0), "y");
  graph_add_output (g, graph_node_output (n, 0));
  assert_lint (g);
  g_autofree char *text = graph_to_string (g);
  g_assert_cmpstr (text, ==,
                   "graph(%x : Tensor):\n"
                   "  %y : Tensor = ^Scale[Subgraph=<Graph>, inplace=0](2.5, \"a)b\")(%x)\n"
                   "  return (%y)\n");
  g_autoptr (Graph) back = text_test_round_trip (g);
  const char *args;
  g_assert_true (graph_node_get_s (graph_first_node (back), GRAPH_PYTHON_OP_ARGS_ATTR, &args, NULL));
  g_assert_cmpstr (args, ==, "2.5, \"a)b\"");
}

void
test_text_register (void)
{
  g_test_add_func ("/ir/text/parse/doc-example", test_text_doc_example);
  g_test_add_func ("/ir/text/parse/named-tuple", test_text_named_tuple);
  g_test_add_func ("/ir/text/print/mymodule", test_text_mymodule);
  g_test_add_func ("/ir/text/print/python-op", test_text_python_op);
  g_test_add_func ("/ir/text/print/conv-scope", test_text_conv_scope);
  g_test_add_func ("/ir/text/print/floats", test_text_floats);
  g_test_add_func ("/ir/text/print/locale", test_text_locale);
  g_test_add_func ("/ir/text/roundtrip/attr-kinds", test_text_attr_kinds);
  g_test_add_func ("/ir/text/roundtrip/tensor-dtypes", test_text_tensor_dtypes);
  g_test_add_func ("/ir/text/roundtrip/names", test_text_names);
  g_test_add_func ("/ir/text/roundtrip/subgraphs", test_text_subgraphs);
  g_test_add_func ("/ir/text/roundtrip/types", test_text_types);
  g_test_add_func ("/ir/text/roundtrip/scope-source", test_text_scope_source);
  g_test_add_func ("/ir/text/parse/pytorch-spellings", test_text_pytorch_spellings);
}
