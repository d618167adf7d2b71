/* Malformed text gives a GRAPH_ERROR_PARSE error "FILE:LINE:COL: ..." and
 * never crashes (run these under the ASan build too). */
#include "tests/ir/text-test-util.h"
#include <string.h>

static void
expect_error_len (const char *text, gsize len, const char *where, const char *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = graph_parse (text, len, "bad.trace", &error);
  if (g != NULL)
    g_error ("parsed, but should fail with %s: %s\n%s", where, message, text);
  g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_PARSE);
  g_autofree char *prefix = g_strdup_printf ("bad.trace:%s: ", where);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, message) == NULL)
    g_error ("expected \"%s...%s\", got \"%s\"", prefix, message, error->message);
}

static void
expect_error (const char *text, const char *where, const char *message)
{
  expect_error_len (text, strlen (text), where, message);
}

static void
test_errors_table (void)
{
  static const struct { const char *text, *where, *message; } cases[] = {
    /* unbalanced brackets */
    { "graph(%x : Float(2):\n  return (%x)\n", "1:20", "expected ',' or ')' after a graph input, found ':'" },
    { "graph(%x : Float(2, 3)):\n  %y : Tensor = aten::relu(%x\n  return (%y)\n", "2:30",
      "expected ',' or ')', found end of line" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=[1, 2](%x)\n  return (%y)\n", "2:35",
      "expected ',' or ']' after an attribute, found '('" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=1(%x)\n  return (%y)\n", "2:30",
      "expected ',' or ']' after an attribute, found '('" },
    { "graph(%x : (int, Tensor):\n  return (%x)\n", "1:25", "expected ',' or ')'" },
    /* undefined and redefined values */
    { "graph(%x):\n  %y : Tensor = aten::relu(%z)\n  return (%y)\n", "2:28", "undefined value %z" },
    { "graph(%x):\n  %x : Tensor = aten::relu(%x)\n  return (%x)\n", "2:3",
      "value %x is already defined (at 1:7)" },
    { "graph(%x,\n      %x):\n  return (%x)\n", "2:7", "value %x is already defined (at 1:7)" },
    { "graph(%x):\n  %y : Tensor = aten::relu(%y)\n  return (%y)\n", "2:28", "undefined value %y" },
    { "graph(%x):\n  return (%y)\n", "2:11", "undefined value %y" },
    /* a value of a sibling subgraph is not visible */
    { "graph(%c):\n  %o : Tensor = onnx::If[a=<Graph>, b=<Graph>](%c)\n    a():\n      %t : Tensor = onnx::Neg(%c)\n      -> (%t)\n    b():\n      -> (%t)\n  return (%o)\n",
      "7:11", "belongs to another subgraph" },
    { "graph(%c):\n  %o : Tensor = onnx::If[a=<Graph>](%c)\n  return (%o)\n", "2:3",
      "no block follows for the node's <Graph> attribute 'a'" },
    /* unknown types and malformed types */
    { "graph(%x : Flaot(2)):\n  return (%x)\n", "1:12", "unknown type 'Flaot'" },
    { "graph(%x : NamedTuple(a Tensor)):\n  return (%x)\n", "1:25",
      "expected ':' after a NamedTuple field's name" },
    { "graph(%x : NamedTuple):\n  return (%x)\n", "1:22", "expected '(' after NamedTuple" },
    /* autograd Function calls (PythonOp) */
    { "graph(%x):\n  %y : Tensor = ^MyFunction(1, (2)(%x)\n  return (%y)\n", "2:39",
      "expected ')' closing the autograd Function's scalar arguments" },
    /* the scalar arguments are not optional: "(%x)" is read as them */
    { "graph(%x):\n  %y : Tensor = ^MyFunction[inplace=0](%x)\n  return (%y)\n", "2:43",
      "expected '(', found end of line" },
    { "graph(%x):\n  %y : Tensor = ^(%x)\n  return (%y)\n", "2:18", "expected an autograd Function name" },
    { "graph(%x : Float(2, strides=[1, 1])):\n  return (%x)\n", "1:21", "2 strides for a tensor type of rank 1" },
    { "graph(%x : Float(-2)):\n  return (%x)\n", "1:18", "negative dim" },
    { "graph(%x : Float(2, device=)):\n  return (%x)\n", "1:28", "expected a device name" },
    /* numbers out of range */
    { "graph():\n  %y : int = prim::Constant[value=99999999999999999999]()\n  return (%y)\n", "2:35",
      "integer out of range" },
    { "graph():\n  %y : int = prim::Constant[value=-9223372036854775809]()\n  return (%y)\n", "2:35",
      "integer out of the 64-bit range" },
    { "graph():\n  %y : float = prim::Constant[value=1e999]()\n  return (%y)\n", "2:37",
      "out of the range of a double" },
    { "graph():\n  %y : Byte() = prim::Constant[value={256}]()\n  return (%y)\n", "2:39",
      "value out of the range of Byte" },
    { "graph():\n  %y : Half() = prim::Constant[value={1e6}]()\n  return (%y)\n", "2:39",
      "value out of the range of Half" },
    { "graph():\n  %y : Long() = prim::Constant[value={1.5}]()\n  return (%y)\n", "2:39",
      "expected an integer for a Long tensor, found '1.5'" },
    { "graph(%x : Float(99999999999999999999)):\n  return (%x)\n", "1:18", "integer out of range" },
    /* strings */
    { "graph():\n  %y : str = prim::Constant[value=\"abc]()\n  return (%y)\n", "2:35", "unterminated string (expected '\"' before end of line)" },
    { "graph():\n  %y : str = prim::Constant[value=\"a\\qb\"]()\n  return (%y)\n", "2:37", "unknown escape" },
    { "graph():\n  %y : str = prim::Constant[value=\"\\x4\"]()\n  return (%y)\n", "2:36", "expected two hex digits after \\x" },
    /* structure */
    { "", "1:1", "expected 'graph(', found end of input" },
    { "graf(%x):\n", "1:1", "expected 'graph(', found 'graf'" },
    { "graph(%x):\n  %y : Tensor = aten::relu(%x)\n", "3:1", "or 'return', found end of input" },
    { "graph(%x):\n  return (%x)\ngraph(%y):\n", "3:1", "expected end of input" },
    { "graph(%x):\n  %y : Tensor = (%x)\n  return (%y)\n", "2:17", "expected a node kind, found '('" },
    { "graph(%x):\n  %y : Tensor = ::relu(%x)\n  return (%y)\n", "2:17", "is not a valid node kind" },
    { "graph(%x):\n  %y : Tensor = aten::relu(%x) junk\n  return (%y)\n", "2:32", "expected end of line, found 'junk'" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=1, a=2](%x)\n  return (%y)\n", "2:32", "attribute 'a' given twice" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=None](%x)\n  return (%y)\n", "2:29", "None is not an attribute value" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=[1, \"s\"]](%x)\n  return (%y)\n", "2:33", "list elements of different kinds" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a={1 : Float(2)}](%x)\n  return (%y)\n", "2:29", "exactly one element" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=<Tensor : Float(*)>](%x)\n  return (%y)\n", "2:39", "a dtype and a static shape" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=[ CPUWeirdType{2} ]](%x)\n  return (%y)\n", "2:31", "unknown tensor type 'CPUWeirdType'" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo[a=@](%x)\n  return (%y)\n", "2:29",
      "expected an attribute value (number, string, {tensor}, <Tensor>, <Graph>, list or type), found '@'" },
    { "graph(%x):\n  %y : Tensor = onnx::Foo(%x), scape: a\n  return (%y)\n", "2:32", "expected 'scope:', found 'scape:'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    expect_error (cases[i].text, cases[i].where, cases[i].message);
}

static void
test_errors_bytes (void)
{
  /* NUL byte */
  static const char nul[] = "graph(%x):\n  return (%\0x)\n";
  expect_error_len (nul, sizeof nul - 1, "2:12", "NUL byte in the input");
  /* invalid UTF-8: a lone continuation byte, a truncated sequence, an overlong form */
  expect_error ("graph(%x):\n  %\xc3\xa9 : Tensor = aten::relu(%x) # \x80\n  return (%x)\n", "2:34", "invalid UTF-8 (byte 0x80)");
  expect_error ("graph(%x \xe2\x82):\n  return (%x)\n", "1:10", "invalid UTF-8");
  expect_error ("graph(%x):\n  return (%\xc0\xafx)\n", "2:12", "invalid UTF-8");
  /* a huge identifier */
  GString *s = g_string_new ("graph(%");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (s, 'a');
  g_string_append (s, "):\n  return ()\n");
  expect_error (s->str, "1:8", "a value name is longer than 4096 bytes");
  g_string_free (s, TRUE);
  /* a huge node kind */
  s = g_string_new ("graph():\n   = a::");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (s, 'b');
  g_string_append (s, "()\n  return ()\n");
  expect_error (s->str, "2:6", "a node kind is longer than 4096 bytes");
  g_string_free (s, TRUE);
}

static void
test_errors_nesting (void)
{
  /* types nested 10000 deep */
  GString *s = g_string_new ("graph(%x : ");
  for (int i = 0; i < 10000; i++)
    g_string_append_c (s, '(');
  g_string_append (s, "int");
  for (int i = 0; i < 10000; i++)
    g_string_append_c (s, ')');
  g_string_append (s, "):\n  return ()\n");
  expect_error (s->str, "1:76", "types nested deeper than 64 levels");
  g_string_free (s, TRUE);
  /* subgraphs nested 200 deep */
  s = g_string_new ("graph(%c):\n");
  int depth = 200;
  for (int i = 0; i < depth; i++)
    g_string_append_printf (s, "%*s%%o%d : Tensor = onnx::If[b=<Graph>](%%c)\n%*sb():\n",
                            2 * i + 2, "", i, 2 * i + 4, "");
  expect_error (s->str, "129:131", "subgraphs nested deeper than 64 levels");
  g_string_free (s, TRUE);
}

/* A text with most features, to cut and mutate. */
static const char *sample =
  "graph(%x : Float(1, 3, strides=[3, 1], requires_grad=0, device=cpu),\n"
  "      %\"odd name\" : (int, Tensor?)):\n"
  "  %2 : Float(1, 3) = onnx::Conv[a=1., b=[1, 2], c=\"s\\n\", d={2}, e=<Tensor : Long(2)>, f=int[], "
  "g=annotate(List[float], []), h=<Graph>](%x, None), scope: __module.conv1 # file.py:1:0\n"
  "    h(%i : Float(2)):\n"
  "      %j : Tensor = onnx::Add(%i, %x)\n"
  "      -> (%j)\n"
  "  %k : Tensor, %l : int[] = prim::Foo[v=[ CPUFloatType{2} ]](%2, %\"odd name\")\n"
  "  return (%k, %l)\n";

static void
check_no_crash (const char *text, gsize len)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = graph_parse (text, len, "cut.trace", &error);
  if (g == NULL)
    {
      g_assert_error (error, GRAPH_ERROR, GRAPH_ERROR_PARSE);
      g_assert_true (g_str_has_prefix (error->message, "cut.trace:"));
      return;
    }
  /* whatever parses is a valid graph that prints and reads back */
  assert_lint (g);
  g_autofree char *s1 = graph_to_string (g);
  g_autoptr (Graph) g2 = text_test_parse (s1, "mutant");
  g_autofree char *s2 = graph_to_string (g2);
  g_assert_cmpstr (s1, ==, s2);
}

static void
test_errors_truncated (void)
{
  g_autoptr (Graph) whole = text_test_parse (sample, "sample");
  g_assert_nonnull (whole);   /* the whole text parses; its prefixes below must not crash */
  gsize len = strlen (sample);
  guint parsed = 0;
  for (gsize cut = 0; cut < len; cut++)
    {
      /* a copy of exactly `cut` bytes, so ASan sees reads past the end */
      g_autofree char *copy = g_memdup2 (sample, cut ? cut : 1);
      g_autoptr (Graph) g = graph_parse (copy, cut, "cut.trace", NULL);
      parsed += g != NULL;
      check_no_crash (copy, cut);
    }
  /* only the cut of the final newline still parses */
  g_assert_cmpuint (parsed, ==, 1);
}

static void
test_errors_mutations (void)
{
  GRand *rand = g_rand_new_with_seed (1234);
  gsize len = strlen (sample);
  static const char alphabet[] = "%()[]{}<>,:=\"\\#.-0123456789aeinfx \n\t\x80\xff";
  for (int round = 0; round < 4000; round++)
    {
      g_autofree char *copy = g_strdup (sample);
      gsize n = len;
      int edits = g_rand_int_range (rand, 1, 4);
      for (int e = 0; e < edits && n > 0; e++)
        {
          gsize at = (gsize) g_rand_int_range (rand, 0, (gint32) n);
          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0:
              copy[at] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
              break;
            case 1:
              memmove (copy + at, copy + at + 1, n - at);
              n--;
              break;
            default:
              copy[at] = copy[g_rand_int_range (rand, 0, (gint32) n)];
              break;
            }
        }
      check_no_crash (copy, n);
    }
  g_rand_free (rand);
}

void
test_text_errors_register (void)
{
  g_test_add_func ("/ir/text/errors/table", test_errors_table);
  g_test_add_func ("/ir/text/errors/bytes", test_errors_bytes);
  g_test_add_func ("/ir/text/errors/nesting", test_errors_nesting);
  g_test_add_func ("/ir/text/errors/truncated", test_errors_truncated);
  g_test_add_func ("/ir/text/errors/mutations", test_errors_mutations);
}
