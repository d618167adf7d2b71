/* doc/guide.md, "Finding where an export goes wrong", in C: register a
 * symbolic with a bug (aten::dropout scaled as in training, though the
 * trace is in eval mode), export the trace with it and let
 * verify_localize name the first node whose ONNX counterpart diverges.
 *   guide-localize TRACE WEIGHTS.safetensors INPUT_NAME INPUT.npy
 * Exit status 1 when a divergent node is found, 0 when all match. */
#include <symonnx.h>
#include <stdio.h>

/* aten::dropout(Tensor input, float p, bool train): in eval mode the
 * identity.  The bug: it scales by 1 / (1 - p) as training does. */
static gboolean
dropout_as_training (SymContext *ctx, GraphNode *n, GraphValue **out, GError **error)
{
  GraphValue *x;
  double p;
  if (!sym_parse_args (ctx, n, "vf", &x, &p, error))
    return FALSE;
  Graph *g = sym_graph (ctx);
  out[0] = graph_op (g, "Mul", x, sym_scalar_like (ctx, 1.0 / (1.0 - p), x), NULL);
  return TRUE;
}

static int
localize (const char *trace_path, const char *weights_path, const char *input_name,
          const char *input_path, GError **error)
{
  g_autoptr (Graph) trace = graph_parse_file (trace_path, error);
  if (trace == NULL)
    return 2;
  g_autoptr (GHashTable) weights = export_safetensors_load (weights_path, error);
  g_autoptr (Tensor) input = weights ? export_npy_load (input_path, error) : NULL;
  if (input == NULL)
    return 2;
  g_autoptr (SymRegistry) reg = sym_registry_new ();
  sym_register (reg, "aten::dropout", 9, dropout_as_training, NULL);

  ExportOptions o;
  export_options_init (&o);
  o.opset = 14;
  o.registry = reg;
  o.weights = weights;
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  g_hash_table_insert (inputs, g_strdup (input_name), tensor_ref (input));
  g_autoptr (VerifyLocalization) l = verify_localize (trace, &o, inputs, 1e-3, 1e-5, error);
  export_options_clear (&o);
  if (l == NULL)
    return 2;
  g_autofree char *report = verify_localization_format (l, FALSE);
  fputs (report, stdout);
  if (l->first >= 0)
    {
      const VerifyNodeResult *r = &g_array_index (l->rows, VerifyNodeResult, l->first);
      printf ("first divergent: %s at %s\n", r->kind, r->source ? r->source : "?");
      return 1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: guide-localize TRACE WEIGHTS.safetensors INPUT_NAME INPUT.npy\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  int status = localize (argv[1], argv[2], argv[3], argv[4], &error);
  if (error)
    fprintf (stderr, "guide-localize: %s\n", error->message);
  return status;
}
