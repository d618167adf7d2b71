/* A graph built by hand with the C API, made a valid ONNX model and run:
 * build → infer types → save → load → run.
 *
 *   y = Relu (MatMul (x, w) + b)      x: float[2, 3], w: [3, 4], b: [4]
 *
 * Usage: handbuilt DIR — writes DIR/linear.onnx, DIR/x.npy and DIR/y.npy
 * (the run's output), and prints each step.  Exit status 0 on success. */
#include "symonnx.h"
#include <stdio.h>

/* Step 1: the graph.  Only the input's type is given; every other value is
 * untyped, as a builder leaves it. */
static Graph *
build_linear (void)
{
  Graph *g = graph_new ();
  graph_set_opset (g, "", 14);
  gint64 x_dims[2] = { 2, 3 }, w_dims[2] = { 3, 4 }, b_dims[1] = { 4 };
  g_autoptr (GraphType) xt = graph_type_new_tensor_static (GRAPH_DTYPE_FLOAT, 2, x_dims);
  float w_data[12], b_data[4] = { 0.5f, -0.5f, 1.0f, -2.0f };
  for (int i = 0; i < 12; i++)
    w_data[i] = (float) (i % 5) * 0.25f - 0.5f;
  g_autoptr (Tensor) w = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, w_dims, w_data,
                                               sizeof w_data, NULL);
  g_autoptr (Tensor) b = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 1, b_dims, b_data,
                                               sizeof b_data, NULL);
  GraphValue *x = graph_add_input (g, "x", xt);
  GraphValue *mm = graph_op (g, "MatMul", x, graph_add_initializer (g, "w", w), NULL);
  GraphValue *y = graph_op (g, "Relu", graph_op (g, "Add", mm, graph_add_initializer (g, "b", b),
                                                 NULL), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  return g;
}

static gboolean
save_infer_load_run (const char *dir, GError **error)
{
  g_autoptr (Graph) g = build_linear ();
  g_autofree char *model = g_build_filename (dir, "linear.onnx", NULL);

  /* Saving now is refused: ONNX wants the output's type and shape. */
  g_autoptr (GError) refused = NULL;
  if (onnxio_save (g, model, NULL, &refused))
    {
      g_set_error (error, ONNXIO_ERROR, ONNXIO_ERROR_INVALID, "an untyped output was written");
      return FALSE;
    }
  printf ("before inference, onnxio_save refuses: %s\n", refused->message);

  /* Step 2: types from the shape rules (MatMul, Add's broadcast, Relu). */
  if (!export_infer_types (g, error))
    return FALSE;
  g_autofree char *type = graph_type_to_string (graph_value_type (graph_output (g, 0)));
  printf ("inferred: y : %s\n", type);

  /* Step 3: save, then load it back: what runs is what the file holds. */
  if (!onnxio_save (g, model, NULL, error))
    return FALSE;
  g_autoptr (Graph) loaded = onnxio_load (model, error);
  if (loaded == NULL)
    return FALSE;
  printf ("saved and loaded %s\n", model);

  /* Step 4: run it with the bundled executor. */
  gint64 x_dims[2] = { 2, 3 };
  float x_data[6] = { 1, -2, 3, 0.5f, 4, -1 };
  g_autoptr (Tensor) x = tensor_new_from_data (GRAPH_DTYPE_FLOAT, 2, x_dims, x_data,
                                               sizeof x_data, error);
  if (x == NULL)
    return FALSE;
  RtOptions opts;
  rt_options_init (&opts);
  g_autoptr (RtSession) s = rt_session_new (loaded, &opts, error);
  if (s == NULL)
    return FALSE;
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  g_hash_table_insert (inputs, g_strdup ("x"), tensor_ref (x));
  if (!rt_session_run (s, inputs, outputs, error))
    return FALSE;
  Tensor *y = g_hash_table_lookup (outputs, "y");
  const float *v = tensor_data (y);
  printf ("y =");
  for (int i = 0; i < 8; i++)
    printf (" %g", v[i]);
  printf ("\n");

  g_autofree char *x_npy = g_build_filename (dir, "x.npy", NULL);
  g_autofree char *y_npy = g_build_filename (dir, "y.npy", NULL);
  return export_npy_save (x, x_npy, error) && export_npy_save (y, y_npy, error);
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: handbuilt DIR\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  if (!save_infer_load_run (argv[1], &error))
    {
      fprintf (stderr, "handbuilt: %s\n", error->message);
      return 1;
    }
  return 0;
}
