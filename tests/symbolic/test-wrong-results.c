/* Exports that once ran and gave other numbers, shapes or element types
 * than PyTorch (issue 11).  Each case of tests/fixtures/wrong-results/
 * (made by tools/gen_wrong_result_refs.py from eager PyTorch) is exported
 * at opsets 11, 13 and 17, run in the executor and compared with
 * PyTorch's output: element type, shape and values. */
#include "test-wrong-results.h"
#include "symonnx.h"
#include "export/tensorfiles.h"
#include "tests/common/test-fixtures.h"
#include <math.h>
#include <string.h>

static const char *const cases[] = {
  "int_true_divide", "sum_uint8", "prod_uint8", "sum_dtype_double", "index_select_0d",
  "softplus_threshold", "clamp_tensor_bounds", "remainder_int_negative", "floor_divide_int",
  "div_floor_int", "div_trunc_int", "expand_keep_dims", "interpolate_size_of_other",
  "slice_assign", "select_zero_copy", "slice_write_computed_start", "pad_slice_computed", "pow_int_float", "dropout_p0_training",
  "index_multi", "topk_split_fill_computed", "index_put", "data_dependent_size", "script_if",
  "gpt_attention_dynamic", "class_token_dynamic", "interpolate_fixed_size_dynamic",
  "instance_norm_pixel_shuffle_dynamic", "window_mask_dynamic_batch",
  "window_mask_dynamic_hw", "view_writes_dynamic", "embedding_bag_dynamic",
  /* scripted loops (ONNX Loop), each run at two trip counts */
  "script_loop_carried", "script_loop_cat", "script_loop_append_stack", "script_loop_data_count",
  "paste_masks_loop", "keypoints_loop", "bicubic_computed_size", "script_loop_range_step",
  /* found by bench/pytorch-onnx-suite.py (PyTorch's own ONNX tests) */
  "argmax_keepdim_no_dim", "avg_pool_ceil_counted_pad", "instance_norm_running_stats",
  "prelu_channels", "prelu_0d", "repeat_more_dims", "uint8_arith_wraps", "int8_abs_max",
  "logical_and_int", "bool_mul_add", "reciprocal_int64", "relu_int32", "bool_gt_float_scalar",
  "packed_lstm", "any_all", "index_add_broadcast_source", "scatter_add_small_index", "scatter_add_duplicates",
  "scatter_add_duplicates_dynamic", "avg_pool_ceil_window_in_pad",
  /* refused before the audit of refusals (doc/refusals.md) */
  "div_trunc_float", "cumsum_dtype", "vector_norm_dtype", "layer_norm_no_weight", "pad_circular_2d",
  "pad_circular_3d", "index_add_duplicates", "quantized_io_relu_flatten", "quantized_io_cat_dequantize",
  "script_shape_items_dynamic", "script_inplace_rebind", "script_list_inplace_element", "full_computed_value",
  "softmax_dtype", "split_computed_sizes_dynamic",
  "repeat_interleave_dynamic", "repeat_interleave_scalar_dynamic", "hann_window_computed_length",
  "linspace_one_step", "linspace_computed", "script_arange_float_start_dynamic", "arange_out_dynamic",
  /* refused before: a Loop of ScatterNDs below opset 16 */
  "index_put_accumulate", "index_add_dynamic", "index_put_masks", "script_tensor_nested_list",
  /* exported with ExportOptions' training (CASE.training) */
  "batch_norm_training_stats",
  "select_write_computed_index", "detach_write", "embedding_max_norm", "set_source",
  /* writes in a run-time If's branches into a tensor of the enclosing block */
  "script_if_branch_write", "script_inplace_in_loop", "script_loop_view_write",
  /* views made before an in-place write, read after it (Note [Aliases of a written tensor]) */
  "alias_sibling_write", "alias_direct_write", "alias_disjoint_write", "alias_chunk_write",
  "script_alias_in_list", "reshape_write", "chunk_part_write", "interpolate_substituted_5d",
  "quantized_io_as_strided", "clamp_int", "clamp_min_max_int", "pad_int32", "split_sizes_of_inputs_dynamic",
  "setitem_broadcast_dynamic", "script_loop_alias_write", "large_view_write",
  /* a size read from tensor data (int(d[0])), run at two values; a squeeze of it as the output */
  "size_from_data", "squeeze_size_from_data",
  /* several index tensors with negative entries (before opset 11: a linear index, refused before) */
  "index_several_apart", "index_several_adjacent", "index_several_dynamic", "scatter_add_pairwise_dynamic",
  "upsample_bilinear_half_pixel", "upsample_bilinear_align_corners", "upsample_linear_1d", "upsample_trilinear_down",
  "embedding_bag_2d_input", "upsample_bilinear_size_of_input", "script_unbind_cat", "script_tuple_len",
  "script_dtype_device_tests", "script_list_at_run_time", "script_if_folded_condition",
  "script_shape_unpack_dynamic", "script_scalars_in", "script_int_out", "script_topk_attributes",
  "script_topk_named_tuple", "script_int_arg_promotion", "script_int_true_division",
  "script_int_true_divide", "script_set_attr", "script_trunc_div_float",
};
static const int opsets[] = { 11, 13, 17 };

typedef struct
{
  const char *cas;
  int         opset;
} Case;

/* CASE.training: the trace was recorded in training mode on purpose. */
static gboolean
training_case (const char *cas)
{
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/wrong-results/%s.training", cas);
  g_autofree char *path = test_source_path (rel);
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Runs g on CASE[TAG].input_N.npy and compares output 0 with
 * CASE[TAG].expected.npy: element type, shape, values. */
static void run_and_compare (Graph *g, const Case *c, const char *tag);

static Tensor *
fixture_npy (const char *cas, const char *suffix)
{
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/wrong-results/%s.%s.npy", cas, suffix);
  return test_npy_or_null (rel);
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/wrong-results/%s.trace", c->cas);
  g_autofree char *path = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) trace = graph_parse_file (path, &error);
  g_assert_no_error (error);
  ExportOptions o;
  export_options_init (&o);
  o.opset = c->opset;
  o.training = training_case (c->cas);
  /* CASE.axes: dynamic axes; then the export also runs at a second size. */
  g_autofree char *arel = g_strdup_printf ("tests/fixtures/wrong-results/%s.axes", c->cas);
  g_autofree char *apath = test_source_path (arel);
  g_autofree char *axes = NULL;
  if (g_file_get_contents (apath, &axes, NULL, NULL))
    {
      g_strstrip (axes);
      g_assert_true (export_options_parse_dynamic_axes (&o, axes, &error));
      g_assert_no_error (error);
    }
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  export_options_clear (&o);
  g_assert_no_error (error);
  run_and_compare (g, c, "");
  /* CASE.size2.*: the same export on a second input (another size with
   * dynamic axes, or other data where a shape depends on it) */
  g_autoptr (Tensor) second = fixture_npy (c->cas, "size2.input_0");
  if (axes || second)
    run_and_compare (g, c, ".size2");
}

static void
run_and_compare (Graph *g, const Case *c, const char *tag)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtSession) s = rt_session_new (g, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) tensor_unref);
  for (guint i = 0; i < rt_session_n_required_inputs (s); i++)
    {
      g_autofree char *suffix = g_strdup_printf ("%s%sinput_%u", tag + (*tag == '.'),
                                                 *tag ? "." : "", i);
      Tensor *t = fixture_npy (c->cas, suffix);
      g_assert_nonnull (t);
      g_hash_table_insert (inputs, g_strdup (graph_value_get_name (rt_session_required_input (s, i))),
                           t);
    }
  g_autoptr (GHashTable) outputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) tensor_unref);
  if (!rt_session_run (s, inputs, outputs, &error))
    g_error ("%s at opset %d: the export does not run: %s", c->cas, c->opset, error->message);
  Tensor *got = g_hash_table_lookup (outputs, graph_value_get_name (graph_output (g, 0)));
  g_autofree char *esuffix = g_strdup_printf ("%s%sexpected", tag + (*tag == '.'), *tag ? "." : "");
  g_autoptr (Tensor) want = fixture_npy (c->cas, esuffix);
  g_assert_nonnull (got);
  g_assert_nonnull (want);
  g_assert_cmpstr (graph_dtype_name (tensor_dtype (got)), ==, graph_dtype_name (tensor_dtype (want)));
  g_assert_cmpuint (tensor_rank (got), ==, tensor_rank (want));
  for (guint k = 0; k < tensor_rank (want); k++)
    g_assert_cmpint (tensor_dims (got)[k], ==, tensor_dims (want)[k]);
  for (gint64 i = 0; i < tensor_numel (want); i++)
    {
      double a = tensor_get_double (got, i), e = tensor_get_double (want, i);
      /* NaN where PyTorch has NaN, the same infinity, else within tolerance
       * (a NaN on either side failed no comparison before) */
      gboolean ok = isnan (e) ? isnan (a) : isinf (e) ? a == e : fabs (a - e) <= 1e-5 + 1e-4 * fabs (e);
      if (!ok)
        g_error ("%s at opset %d: element %" G_GINT64_FORMAT " is %.9g, PyTorch gives %.9g",
                 c->cas, c->opset, i, a, e);
    }
}

/* Traces an export must refuse (exporting them would compute other
 * numbers), with the words the refusal must say. */
static const struct { const char *cas, *says; } refusals[] = {
  /* batch statistics, not the running ones */
  { "batch_norm_training", "batch_norm in training mode" },
  /* a write through view() would be dropped */
  { "view_write", "in-place write into a view" },
  /* a squeeze of a dim sized by tensor data: the rank would depend on the data */
  { "squeeze_size_from_data_read", "squeeze of a dim whose size is known only at run time, read by other nodes" },
  /* ... and through reshape(), whose input is read afterwards */
  { "reshape_write_base_read", "in-place write into a view of a tensor that is read afterwards (aten::reshape)" },
  /* ONNX Loop keeps a carried value's element type */
  { "loop_changes_dtype", "loop-carried value 0 starts as int64 and the loop body makes it float" },
  /* ONNX has no packed sequences: only RNNs and pad_packed_sequence may read one */
  { "packed_data_read", "a packed sequence read by something other than an RNN" },
  /* PyTorch's unsorted order is its hash table's (torch 1.13 exports first-occurrence order) */
  { "unique_unsorted", "unique with sorted=False" },
  /* in training mode (CASE.training): the running statistics read again after their update */
  { "batch_norm_training_stats_read", "running statistics are read again" },
};

static void
test_refusal (gconstpointer data)
{
  const char *cas = refusals[GPOINTER_TO_UINT (data)].cas;
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/wrong-results/%s.trace", cas);
  g_autofree char *path = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) trace = graph_parse_file (path, &error);
  g_assert_no_error (error);
  ExportOptions o;
  export_options_init (&o);
  o.opset = 13;
  o.export_params = FALSE;
  o.training = training_case (cas);
  g_autoptr (Graph) g = export_graph (trace, &o, &error);
  export_options_clear (&o);
  g_assert_null (g);
  g_assert_nonnull (error);
  if (strstr (error->message, refusals[GPOINTER_TO_UINT (data)].says) == NULL)
    g_error ("%s: refused, but not for the reason expected: %s", cas, error->message);
}

void
wrong_results_tests_add (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (refusals); i++)
    {
      g_autofree char *p = g_strdup_printf ("/symbolic/wrong-results/%s", refusals[i].cas);
      g_test_add_data_func (p, GUINT_TO_POINTER (i), test_refusal);
    }
  static Case all[G_N_ELEMENTS (cases) * G_N_ELEMENTS (opsets)];
  guint k = 0;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint j = 0; j < G_N_ELEMENTS (opsets); j++, k++)
      {
        all[k] = (Case) { cases[i], opsets[j] };
        g_autofree char *p = g_strdup_printf ("/symbolic/wrong-results/%s/%d", cases[i], opsets[j]);
        g_test_add_data_func (p, &all[k], test_case);
      }
  /* Loop exists from opset 1: the loops at 9 too, where Loop-1 needs a
   * carried value even when the loop has only scan outputs; cases of ops
   * that start later at their opsets only */
  static const Case extra[] = {
    { "script_loop_carried", 9 }, { "script_loop_cat", 9 }, { "script_loop_append_stack", 9 },
    /* diagonal (from opset 13, as torch) of run-time sizes, refused before */
    { "diagonal_dynamic", 13 }, { "diagonal_dynamic", 17 },
    /* computed arange, linspace and window lengths before Range (opset 9:
     * NonZero of ConstantOfShape, sym_iota), refused at 9 before */
    { "arange_out_dynamic", 9 }, { "script_arange_float_start_dynamic", 9 }, { "linspace_computed", 9 },
    { "linspace_one_step", 9 }, { "hann_window_computed_length", 9 }, { "arange_int_dtype_float_bounds", 9 },
    { "arange_int_dtype_float_bounds", 11 }, { "arange_int_dtype_float_bounds", 17 },
    /* integer clamp and pad before Clip-12 and Pad-11 take integers (the checker refused them at 9) */
    { "clamp_int", 9 }, { "clamp_min_max_int", 9 }, { "pad_int32", 9 },
    /* several index tensors before GatherND: torch's linear index, with negative indices normalised */
    { "index_several_apart", 9 }, { "index_several_adjacent", 9 }, { "index_several_dynamic", 9 },
    { "index_several_apart", 10 }, { "index_several_dynamic", 10 },
    /* index_add into a self of run-time sizes before ScatterND: the mask form of run-time size */
    { "index_add_dynamic", 9 }, { "index_add_dynamic", 10 },
    /* scatter_add of run-time shapes before Range and a run-time Pad: pairwise totals, Scatter */
    { "scatter_add_pairwise_dynamic", 9 }, { "scatter_add_pairwise_dynamic", 10 },
    /* linear upsampling before Resize-11's half_pixel and align_corners: one MatMul per spatial
     * dim (Note [Linear upsampling before opset 11]; torch's Upsample gave other numbers) */
    { "upsample_bilinear_half_pixel", 9 }, { "upsample_bilinear_half_pixel", 10 },
    { "upsample_bilinear_align_corners", 9 }, { "upsample_bilinear_align_corners", 10 },
    { "upsample_bilinear_inf", 9 }, { "upsample_bilinear_inf", 10 }, { "upsample_bilinear_size_of_input", 9 }, { "upsample_bilinear_size_of_input", 10 }, { "upsample_linear_1d", 9 }, { "upsample_trilinear_down", 9 }, { "upsample_trilinear_down", 10 },
    /* a 2-D input's bags, whose count the trace does not declare, at 10 (refused there before) */
    { "embedding_bag_2d_input", 9 }, { "embedding_bag_2d_input", 10 }, { "script_unbind_cat", 9 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (extra); i++)
    {
      g_autofree char *p = g_strdup_printf ("/symbolic/wrong-results/%s/%d", extra[i].cas, extra[i].opset);
      g_test_add_data_func (p, &extra[i], test_case);
    }
}
