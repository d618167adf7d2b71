/* Hostile input: the fuzzing campaign's reproducers (issue 14,
 * tests/fixtures/hostile/, copied from shared/fuzz-findings) end with a
 * clear error or a correct result: no signal, no sanitizer report (the
 * ASan+UBSan build runs these with halt_on_error), no GLib critical, and
 * within seconds.  Each failed on the code before the fix. */
#include "test-hostile.h"
#include "tests/common/test-cli.h"
#include "tests/common/test-util.h"
#include "symonnx.h"
#include "export/tensorfiles.h"
#include <glib/gstdio.h>
#include <string.h>

typedef struct
{
  const char *path;          /* test path suffix */
  const char *argv[12];      /* after "symonnx"; FILE names are under tests/fixtures/hostile */
  int         status;
  const char *message;       /* in stderr, or NULL */
} HostileCase;

#define H "tests/fixtures/hostile/"
static const HostileCase cases[] = {
  { "onnx/external-location-not-utf8", { "print", H "onnx_external_location_nonutf8.onnx" }, 3,
    "external data location is not valid UTF-8" },
  { "run/argmax-rank0", { "run", H "onnx_run_argmax_scalar_heap_overflow.onnx",
                          "-i", "data=" H "z_f_scalar.npy" }, 4, "axis 0 is out of range for rank 0" },
  { "run/split-rank0", { "run", H "onnx_run_split_scalar_heap_overflow.onnx",
                         "-i", "0=" H "z_f_scalar.npy" }, 4, "axis 0 is out of range for rank 0" },
  { "run/reshape-product-overflow", { "run", H "onnx_run_reshape_known_product_overflow_small.onnx",
                                      "-i", "0=" H "z_f_1x2.npy" }, 4, "element count overflows" },
  { "run/reducelogsum-inf-to-int", { "run", H "onnx_run_rt_convert_inf_to_int64_reducelogsum.onnx",
                                     "-i", "data=" H "z_f_3x4x5.npy" }, 0, NULL },
  { "run/mod-half-nan-to-int", { "run", H "onnx_run_rt_convert_nan_to_int64_mod_half.onnx",
                                 "-i", "x=" H "z_h_6.npy", "-i", "y=" H "z_h_6.npy" }, 0, NULL },
  { "run/reducemean-empty-nan-to-int", { "run", H "onnx_run_rt_convert_nan_to_int64_reducemean_empty.onnx",
                                         "-i", "data=" H "z_f_3x2x0.npy" }, 0, NULL },
  { "run/transpose-empty-perm", { "run", H "onnx_run_transpose_empty_perm_memcpy_null.onnx",
                                  "-i", "X=" H "z_f_2x3.npy" }, 0, NULL },
  /* onnx-run campaign, session 12 (4.3M runs on e94cfaf's runtime): a Resize to sizes
   * (32257, 0, 6e18, 7e18) summed them in int64 (UBSan) — an empty output, computed as one
   * then; refused since session 13 (Note [Extent of an empty tensor]: its other dims count) */
  { "run/resize-empty-huge-sizes", { "run", H "onnx_run_resize_empty_huge_sizes_signed_overflow.onnx" }, 4,
    "is invalid or larger than the limit" },
  /* onnx-run campaign, session 13 (a timeout after 0.37M runs of one job on 5844958): a CumSum
   * along dim 4 of an empty (3, 4563402750, 8, 1, 18, 0, 0, 8064) initializer looped over
   * 1.1e11 empty rows; an empty tensor's other dims now count against the size limit */
  { "run/cumsum-empty-huge-dims", { "run", H "onnx_run_cumsum_empty_huge_dims_hang.onnx" }, 4,
    "an empty tensor of shape (3, 4563402750, 8, 1, 18, 0, 0, 8064), whose other dims make it larger" },
  { "run/empty-output-huge-dims", { "run", H "onnx_run_empty_output_huge_dims.onnx" }, 4,
    "output 0 of shape (3, 4563402750, 8, 0, 8064) is invalid or larger than the limit" },
  { "run/loop-endless", { "run", H "onnx_run_loop_int64max_trip_hang.onnx",
                          "--max-loop-iterations", "100000" }, 4, "did not end within 100000 iterations" },
  { "run/loop-time-budget", { "run", H "onnx_run_loop_int64max_trip_hang.onnx",
                              "--max-seconds", "0.2", "--max-loop-iterations", "1000000000000" }, 4,
    "longer than its budget of 0.2 s" },
  { "export/flatten-start-dim-64", { "export", H "trace_flatten_start_dim_stack_overflow.trace",
                                     "-o", "@OUT@" }, 4, "dim 200 is out of range for a tensor of rank 3" },
  { "export/flatten-end-dim-out-of-rank", { "export", H "trace_flatten_dims_out_of_range_null_deref.trace",
                                            "-o", "@OUT@" }, 4, "is out of range for a tensor of rank 3" },
  { "export/new-full-complex-half", { "export", H "trace_new_full_dtype8_scalar_null_deref.trace",
                                      "-o", "@OUT@" }, 4, "aten::new_full" },
  { "export/new-zeros-no-arguments", { "export", H "trace_new_zeros_no_args_null_deref.trace",
                                       "-o", "@OUT@" }, 4, "has 0 inputs, but torch's schemas take 2 to 6" },
  { "export/empty-no-arguments", { "export", H "trace_aten_empty_no_args.trace", "-o", "@OUT@" }, 4,
    "has 0 inputs, but torch's schemas take 1 to 7" },
  /* trace-export fuzzing (session 14): `= aten::sub(...)` with no result reached a GLib critical
   * where sub's symbolic reads its result's type; a result count outside torch's schema is refused */
  { "export/aten-without-result", { "export", H "trace_sub_without_result.trace", "-o", "@OUT@" }, 4,
    "aten::sub (node aten::sub, at /work/main/tools/y:50:0) has 0 results, but torch's schema returns 1" },
  /* a prim::SetAttr with a result, read by another node: left unfolded, refused (no g_critical) */
  { "export/set-attr-with-result", { "export", H "trace_set_attr_with_result.trace", "--no-export-params",
                                     "-o", "@OUT@" }, 4, "a prim::SetAttr with 2 inputs and 1 results" },
  /* eye(0, 3) declared Float(2, 3): the file's types would lie (exported before) */
  { "export/declared-result-shape", { "export", H "trace_declared_result_shape_lies.trace", "-o", "@OUT@" }, 4,
    "onnx::Relu 'output' is declared (2, 3), computed (0, 3) from its inputs' shapes [made by the symbolic for "
    "aten::relu" },
  /* the fuzzed declared shapes do not broadcast (refused since the declared-shapes check); the
   * same trace with shapes that do still exports */
  { "export/fold-binary-shapes", { "export", H "trace_fold_binary_numel_mismatch.trace", "-o", "@OUT@" },
    4, "%x : Float(2, 3, strid0, device=cpu) and %8 : Float(2, 3, strides=[3, 1], requires_grad=0, "
       "device=cpu) do not broadcast" },
  { "export/fold-binary-broadcast", { "export", H "trace_fold_binary_declared_broadcast.trace", "-o",
                                      "@OUT@" }, 0, NULL },
  /* trace-export campaign, 25 Nov: a Long constant holding NaN folded through a float cast (UB) */
  { "export/fold-nan-into-long", { "export", H "trace_fold_nan_long_constant_cast.trace", "-o", "@OUT@" }, 4,
    "has no type" },
  /* the same campaign (criticals fatal): aten::var(self) read its correction from input 2 */
  { "export/var-one-argument", { "export", H "trace_var_one_argument_critical.trace", "-o", "@OUT@" }, 4,
    "aten::var" },
  /* and an in-place name torch has no schema for, with too few inputs: the exact-count check */
  { "export/slice-inplace-one-input", { "export", H "trace_slice_inplace_one_input_critical.trace", "-o", "@OUT@" },
    4, "has 1 input, but torch's schemas take 4 or 5" },
  /* onnx-run campaign, 25 Nov: an empty element of a STRINGS attribute (no data) became NULL */
  { "onnx/strings-attribute-empty-element", { "print", H "onnx_strings_attribute_empty_element_critical.onnx" },
    0, NULL },
  /* trace-export campaign: an absent input (`(None)`) reached the argument-kind check */
  { "export/absent-input", { "export", H "trace_absent_input_null_deref.trace", "-o", "@OUT@" }, 4,
    "input 0 is absent" },
  /* and a registered name no torch schema defines, with no input (aten::int()) */
  { "export/int-no-input", { "export", H "trace_int_no_input_critical.trace", "-o", "@OUT@" }, 4,
    "aten::int (node %6, at /work/m=in/tootools/gen_symbolfs.py:74:0) has 0 inputs" },
  /* aten::index() with no inputs reached the data-dependence pre-pass before the arity check */
  { "export/index-no-inputs", { "export", H "trace_index_no_inputs_critical.trace", "-o", "@OUT@" }, 4,
    "aten::index (node aten::index) has 0 inputs" },
  { "parse/declared-shape-overflow", { "export", H "declared_shape_overflow.trace", "-o", "@OUT@" }, 3,
    "declares more than 2^63 elements" },
  { "parse/declared-shape-too-large", { "export", H "declared_shape_too_large.trace", "-o", "@OUT@" }, 3,
    "declares 1000000000000000000 elements" },
  { "export/relu-three-inputs", { "export", H "relu_three_inputs.trace", "-o", "@OUT@" }, 4,
    "has 3 inputs, but torch's schema takes 1 argument" },
  { "export/matmul-inner-dims-differ", { "export", H "matmul_inner_dims_differ.trace", "-o", "@OUT@" }, 4,
    "Float(3, 4) has 4 columns but %b : Float(5, 6) has 5 rows" },
  /* argument kinds against torch's schemas */
  { "export/kind-tensor-for-int-list", { "export", H "kind_tensor_for_int_list.trace", "-o", "@OUT@" }, 4,
    "aten::view (node %y, at model.py:7:0): input 1 (%s) is a Tensor, but torch's schemas take "
    "SymInt[] `size`, ScalarType `dtype` there" },
  { "export/kind-string-for-tensor", { "export", H "kind_string_for_tensor.trace", "-o", "@OUT@" }, 4,
    "input 0 (%s) is of type str, but torch's schemas take Tensor `self` there" },
  { "export/kind-int-list-for-tensor", { "export", H "kind_int_list_for_tensor.trace", "-o", "@OUT@" }, 4,
    "input 1 (%l) is of type int[], but torch's schemas take Tensor `other`, Scalar `other` there" },
  /* a list built in the trace: its elements against the list kind's element kind */
  { "export/kind-tensor-in-int-list", { "export", H "kind_tensor_in_int_list.trace", "-o", "@OUT@" }, 4,
    "input 1 (%s) is of type int[] built from %w (a Tensor), but torch's schemas take SymInt[] `size`" },
  { "export/kind-int-in-tensor-list", { "export", H "kind_int_in_tensor_list.trace", "-o", "@OUT@" }, 4,
    "input 0 (%l) is of type Tensor[] built from %a (a Tensor), %one (of type int), but torch's schemas take "
    "Tensor[] `tensors` there" },
  /* lists changed in place that Note [List mutations] cannot fold: refused, naming why, in every
   * mode (an ATen node would leave the list's readers on the unchanged list) */
  { "export/list-runtime-index", { "export", H "list_runtime_index.trace", "-o", "@OUT@" }, 4,
    "aten::insert: a list changed in place where symonnx cannot follow it (the index %i is not a constant" },
  { "export/list-runtime-index-aten", { "export", H "list_runtime_index.trace", "--mode", "aten", "-o",
                                        "@OUT@" }, 4, "(the index %i is not a constant" },
  { "export/list-runtime-index-fallback", { "export", H "list_runtime_index.trace", "--mode", "aten-fallback",
                                            "-o", "@OUT@" }, 4, "no fallback mode exports such a change" },
  { "export/list-runtime-index-fallthrough", { "export", H "list_runtime_index.trace", "--mode",
                                               "fallthrough", "-o", "@OUT@" }, 4,
    "(the index %i is not a constant" },
  { "export/list-held-before-change", { "export", H "list_held_before_change.trace", "-o", "@OUT@" }, 4,
    "the list is held by prim::TupleConstruct (a container built from it) before it is changed" },
  { "export/list-changed-in-block", { "export", H "list_changed_in_block.trace", "-o", "@OUT@" }, 4,
    "the list %l is changed inside a block (prim::If or prim::Loop) other than the one that builds it" },
  { "export/list-pop-out-of-range", { "export", H "list_pop_out_of_range.trace", "--opset", "9", "-o",
                                      "@OUT@" }, 4,
    "index 2 is out of range for the 2 elements the list holds there (PyTorch raises IndexError)" },
  { "export/list-extend", { "export", H "list_extend.trace", "-o", "@OUT@" }, 4,
    "the list is also changed by aten::extend, which symonnx does not follow" },
  { "export/list-dict-set-item", { "export", H "list_dict_set_item.trace", "-o", "@OUT@" }, 4,
    "aten::_set_item: a dict changed in place is not supported" },
  { "verify/list-runtime-index", { "verify", H "list_runtime_index.trace", "--mode", "aten-fallback",
                                   "-i", "x=" H "z_f_2x3.npy" }, 4,
    "no fallback mode exports such a change" },
  /* dim lists (sym_parse_args "ds"/"dr") */
  { "export/sum-dim-list-out-of-range", { "export", H "sum_dim_list_out_of_range.trace", "-o", "@OUT@" },
    4, "dim 5 is out of range for a tensor of rank 2" },
  { "export/permute-repeated-dim", { "export", H "permute_repeated_dim.trace", "-o", "@OUT@" }, 4,
    "dim 0 appears more than once in the list of dims" },
  { "export/flip-dim-out-of-range", { "export", H "flip_dim_out_of_range.trace", "-o", "@OUT@" }, 4,
    "dim -3 is out of range for a tensor of rank 2" },
  { "export/amax-repeated-dim", { "export", H "amax_repeated_dim.trace", "-o", "@OUT@" }, 4,
    "dim 1 appears more than once in the list of dims" },
  { "export/roll-dim-out-of-range", { "export", H "roll_dim_out_of_range.trace", "-o", "@OUT@" }, 4,
    "dim 7 is out of range for a tensor of rank 2" },
  { "export/roll-repeated-dim", { "export", H "roll_repeated_dim_ok.trace", "-o", "@OUT@" }, 0, NULL },
  /* dims parsed as plain ints before (bench/probe-dim-args.py): exported
   * with the axis out of range, exit 0 */
  { "export/slice-dim-out-of-range", { "export", H "slice_dim_out_of_range.trace", "-o", "@OUT@" }, 4,
    "aten::slice: argument 1: dim 2 is out of range for a tensor of rank 2 (expected -2 to 1)" },
  { "export/unsqueeze-dim-out-of-range", { "export", H "unsqueeze_dim_out_of_range.trace", "-o", "@OUT@" }, 4,
    "aten::unsqueeze: argument 1: dim 3 is out of range for a tensor of rank 2 (expected -3 to 2)" },
  { "export/unsqueeze-dim-at-rank", { "export", H "unsqueeze_dim_at_rank_ok.trace", "-o", "@OUT@" }, 0, NULL },
  /* a slice step of 2^62 written through: start + step * (n - 1) overflowed
   * (UBSan; trace-export campaign at 5.78M runs on 241e69b's code) */
  { "export/view-write-step-overflow", { "export", H "trace_view_write_step_overflow.trace", "-o", "@OUT@",
                                         "--no-export-params" }, 4,
    "(a view too large or out of its parent's range)" },
  /* a lazily translated scalar node (aten::__isnot__ read as add's alpha)
   * skipped the schema check: its symbolic read input 1 of none (a
   * g_critical; trace-export campaign at 204K runs on 511435b's code) */
  { "export/lazy-node-arity", { "export", H "trace_lazy_isnot_no_inputs.trace", "-o", "@OUT@" }, 4,
    "aten::__isnot__ (node %12, at /work/main/tools/gen_symbolic_refs.py:201:0) has 0 inputs, but torch's "
    "schema takes 2 arguments" },
  /* a None (an absent input) inserted into a tensor list, read by the
   * quantized-input check (a NULL dereference: UBSan, trace-export campaign
   * at 4.69M runs on 7b485d2's code) */
  { "export/none-in-list", { "export", H "trace_none_in_list.trace", "-o", "@OUT@" }, 4,
    "Couldn't export operator prim::Constatnn at opset 14 (node %2): no symbolic function is registered for it" },
  /* arange bounds whose length is past int64: the double quotient was
   * cast to int64 (UBSan; trace-export campaign at 945K runs on 365b6a6) */
  { "export/arange-huge-count", { "export", H "trace_arange_huge_count.trace", "-o", "@OUT@" }, 4,
    "aten::arange: arange of 9223372036854775808 elements is not supported at opset 14" },
  /* a fill value past int64 for an int64 full: cast with C's undefined
   * conversion (UBSan; trace-export campaign at 2.2M runs on 5ad7eea) */
  { "export/full-value-past-int64", { "export", H "trace_full_value_past_int64.trace", "-o", "@OUT@" }, 4,
    "aten::full: a fill value 1.01818e+63 that int64 cannot hold is not supported at opset 14" },
  /* a lazily translated node (aten::IntImplicit) with no input: its input 0
   * was read at use (GLib critical; trace-export campaign at 567K runs on 9f62de5) */
  { "export/implicit-no-input", { "export", H "trace_implicit_no_input.trace", "-o", "@OUT@" }, 4,
    "aten::IntImplicit (node %6) has 0 inputs, but it takes 1 input" },
  { "export/unchecked-cast-no-input", { "export", H "trace_unchecked_cast_no_input.trace", "-o", "@OUT@" }, 4,
    "prim::unchecked_cast (node %6) has 0 inputs, but it takes 1 input" },
  /* Note [Arity of structural nodes]: one check of every node read where it
   * is used (prim::ListUnpack() read input 0 of none: a GLib critical,
   * trace-export campaign at 9.0M runs on 2a37722); a dict of three inputs
   * and a TupleUnpack of two exported before, ignoring the extra input */
  { "export/listunpack-no-input", { "export", H "trace_listunpack_no_input.trace", "-o", "@OUT@" }, 4,
    "prim::ListUnpack (node %2, at  /wad=0, devi.py:70:0) has 0 inputs, but it takes 1 input" },
  { "export/dict-construct-odd-inputs", { "export", H "trace_dict_construct_odd_inputs.trace", "-o", "@OUT@" },
    4, "prim::DictConstruct (node %d) has 3 inputs, but it takes an even number of inputs (key, value pairs)" },
  { "export/tuple-unpack-two-inputs", { "export", H "trace_tuple_unpack_two_inputs.trace", "-o", "@OUT@" }, 4,
    "prim::TupleUnpack (node %a) has 2 inputs, but it takes 1 input" },
  { "export/getattr-no-input", { "export", H "trace_getattr_no_input.trace", "-o", "@OUT@" }, 4,
    "prim::GetAttr (node %w) has 0 inputs, but it takes 1 input" },
  { "export/numtotensor-two-inputs", { "export", H "trace_numtotensor_two_inputs.trace", "-o", "@OUT@" }, 4,
    "prim::NumToTensor (node %t) has 2 inputs, but it takes 1 input" },
  { "export/cat-dim-out-of-range", { "export", H "cat_dim_out_of_range.trace", "-o", "@OUT@" }, 4,
    "aten::cat: argument 1: dim -3 is out of range for a tensor of rank 2 (expected -2 to 1)" },
  { "export/stack-dim-out-of-range", { "export", H "stack_dim_out_of_range.trace", "-o", "@OUT@" }, 4,
    "aten::stack: argument 1: dim 3 is out of range for a tensor of rank 2 (expected -3 to 2)" },
  { "export/argmax-dim-out-of-range", { "export", H "argmax_dim_out_of_range.trace", "-o", "@OUT@" }, 4,
    "dim 1099511627776 is out of range for a tensor of rank 2" },
  /* declared shapes that contradict each other (symbolic/declared-shapes.c) */
  { "export/add-shapes-do-not-broadcast", { "export", H "add_shapes_do_not_broadcast.trace", "-o", "@OUT@" },
    4, "aten::add (node %y, at model.py:4:0): the declared shapes do not fit: %a : Float(2, 3) and "
       "%b : Float(4) do not broadcast: dim -1 is 3 in one and 4 in the other" },
  { "export/where-shapes-do-not-broadcast", { "export", H "where_shapes_do_not_broadcast.trace", "-o",
                                              "@OUT@" }, 4,
    "%c : Bool(5, 1) and %b : Float(2, 3) do not broadcast: dim -2 is 5 in one and 2 in the other" },
  { "export/cat-off-dims-differ", { "export", H "cat_off_dims_differ.trace", "-o", "@OUT@" }, 4,
    "%a : Float(2, 3) and %b : Float(4, 5) differ at dim 1 (3 vs 5), which is not the cat dim 0" },
  { "export/conv-channels-differ", { "export", H "conv_channels_differ.trace", "-o", "@OUT@" }, 4,
    "%x : Float(1, 6, 8, 8) has 6 channels but the weight %w : Float(4, 2, 3, 3) takes 4 (2 per group, "
    "groups = 2)" },
  { "export/view-numel-differs", { "export", H "view_numel_differs.trace", "-o", "@OUT@" }, 4,
    "%x : Float(2, 3) has 6 elements but the result %y : Float(4, 2) has 8" },
  { "export/view-size-numel-differs", { "export", H "view_size_numel_differs.trace", "-o", "@OUT@" }, 4,
    "%x : Float(2, 3) has 6 elements, which a size of 8 elements cannot hold" },
  { "export/reshape-inferred-dim", { "export", H "reshape_inferred_dim_does_not_divide.trace", "-o",
                                     "@OUT@" }, 4,
    "%x : Float(2, 3) has 6 elements, which a size of a multiple of 4 elements cannot hold" },
  { "export/expand-size-does-not-fit", { "export", H "expand_size_does_not_fit.trace", "-o", "@OUT@" }, 4,
    "%x : Float(3, 2) cannot expand to the size's 4 at dim 1: its dim 1 is 2, neither 1 nor 4" },
  { "export/stack-shapes-differ", { "export", H "stack_shapes_differ.trace", "-o", "@OUT@" }, 4,
    "%a : Float(2, 3) and %b : Float(2, 4) differ at dim 1 (3 vs 4); stack takes one shape" },
  { "export/max-pool-window-larger-than-input", { "export", H "max_pool_kernel_larger_than_input.trace", "-o",
                                                  "@OUT@" }, 4,
    "the pooling window of 3 does not fit spatial dim 0 of %x : Float(1, 1, 2, 2) (2, padding 0): no output" },
  { "export/avg-pool-padding-over-half", { "export", H "avg_pool_padding_over_half_kernel.trace", "-o",
                                           "@OUT@" }, 4,
    "the padding 2 is more than half the kernel's 2 at spatial dim 0 of %x : Float(1, 1, 4, 4)" },
  { "export/index-mask-dims-differ", { "export", H "index_mask_dims_differ.trace", "-o", "@OUT@" }, 4,
    "the mask %m : Bool(3, 5) has 5 at its dim 1 where %x : Float(3, 4) has 4 (dim 1)" },
  /* inputs ONNX defines as scalars given as empty tensors (rt_scalar_input; rt_get_f64/i64 read 0 past the
   * end): each read past its buffer before */
  { "run/trilu-empty-k", { "run", H "onnx_run_trilu_empty_k_heap_overflow.onnx" }, 4,
    "Trilu: input 1 (k) must be a scalar; it has 0 elements in 1 dims" },
  { "run/stft-empty-frame-step", { "run", H "onnx_run_stft_empty_frame_step_heap_overflow.onnx" }, 4,
    "STFT: input 1 (frame_step) must be a scalar" },
  { "run/melweightmatrix-empty-bins", { "run", H "onnx_run_melweightmatrix_empty_bins_heap_overflow.onnx" }, 4,
    "MelWeightMatrix: input 0 (num_mel_bins) must be a scalar" },
  { "run/adagrad-empty-r", { "run", H "onnx_run_adagrad_empty_r_heap_overflow.onnx" }, 4,
    "Adagrad: input 0 (R) must be a scalar" },
  { "run/pad-int64max", { "run", H "onnx_run_pad_int64max_signed_overflow.onnx" }, 4,
    "Pad: padding gives a negative or impossible size" },
  { "run/onehot-nan-depth", { "run", H "onnx_run_onehot_nan_depth_null_error.onnx" }, 4,
    "OneHot: depth nan is negative or not a number" },
  { "run/split-sizes-overflow", { "run", H "onnx_run_split_sizes_signed_overflow.onnx" }, 4,
    "Split: split sizes do not add up to dimension 0 (6)" },
  { "run/resize-nan-roi", { "run", H "onnx_run_resize_nan_roi_signed_overflow.onnx" }, 4,
    "Resize: roi value nan is not finite or beyond 1e9" },
  /* onnx-run campaign, session 11: an int64 Range from -5.2e18 to 5.7e18 counted 1.09e19
   * elements in double and converted that to int64 (UBSan) */
  { "run/range-count-past-int64", { "run", H "onnx_run_range_count_past_int64.onnx" }, 4,
    "Range: Range(-5.18501e+18, 5.69255e+18, 1) has more elements than any tensor can hold" },
  /* --max-tensor-mib lowers the largest tensor a run may make (default 8 GiB) */
  { "run/max-tensor-mib", { "run", H "onnx_run_range_2gib.onnx", "--max-tensor-mib", "64" }, 4,
    "Range: output 0 of shape (268435456) is invalid or larger than the limit of 67108864 bytes" },
  { "run/max-tensor-mib-negative", { "run", H "onnx_run_range_2gib.onnx", "--max-tensor-mib", "-1" }, 2,
    "--max-tensor-mib must not be negative (and --max-tensor-mib at most 2^43)" },
  /* inputs sharing an ONNX type parameter with different element types (runtime/onnx-type-params.h) */
  { "run/mismatch-pad-value-int8", { "run", H "onnx_run_mismatch_pad_value_int8.onnx" }, 4,
    "Pad: input 2 is int8 but input 0 is float: Pad (opset 13) takes one element type for both (type constraint T)" },
  { "run/mismatch-clip-min-double", { "run", H "onnx_run_mismatch_clip_min_double.onnx" }, 4,
    "Clip: input 1 is double but input 0 is float" },
  { "run/mismatch-batchnorm-scale-int8", { "run", H "onnx_run_mismatch_batchnorm_scale_int8.onnx" }, 4,
    "BatchNormalization: input 1 is int8 but input 0 is float" },
  { "run/mismatch-layernorm-bias-double", { "run", H "onnx_run_mismatch_layernorm_bias_double.onnx" }, 4,
    "LayerNormalization: input 2 is double but input 0 is float" },
  { "run/mismatch-range-limit-int8", { "run", H "onnx_run_mismatch_range_limit_int8.onnx" }, 4,
    "Range: input 1 is int8 but input 0 is float" },
  { "run/mismatch-roialign-rois-int8", { "run", H "onnx_run_mismatch_roialign_rois_int8.onnx" }, 4,
    "RoiAlign: input 1 is int8 but input 0 is float: RoiAlign (opset 10) takes one element type for both (type constraint T1)" },
  { "run/mismatch-dequantize-zero-point-uint8", { "run", H "onnx_run_mismatch_dequantize_zero_point_uint8.onnx" }, 4,
    "DequantizeLinear: input 2 is uint8 but input 0 is int8" },
  { "run/mismatch-qlinearmatmul-zero-point-int8", { "run", H "onnx_run_mismatch_qlinearmatmul_zero_point_int8.onnx" }, 4,
    "QLinearMatMul: input 2 is int8 but input 0 is uint8" },
  { "run/mismatch-concat-third-int8", { "run", H "onnx_run_mismatch_concat_third_int8.onnx" }, 4,
    "Concat: input 2 is int8 but input 0 is float" },
  { "pb/raw-and-int64-data", { "run", H "onnx_run_clip_int64_no_bounds_wrong_result.onnx",
                               "-i", "x=" H "tensor_raw_and_int64_data.pb" }, 3,
    "TensorProto has both raw_data and int64_data" },
  { "print/empty-quoted-name", { "print", H "trace_lexer_empty_quoted_name.trace" }, 3, "expected" },
};

static void
test_case (gconstpointer data)
{
  const HostileCase *c = data;
  g_autofree char *dir = g_dir_make_tmp ("symonnx-hostile-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "out.onnx", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup ("symonnx"));
  for (guint i = 0; c->argv[i]; i++)
    {
      const char *a = c->argv[i];
      if (strcmp (a, "@OUT@") == 0)
        g_ptr_array_add (argv, g_strdup (out));
      else if (g_str_has_prefix (a, H))
        g_ptr_array_add (argv, test_source_path (a));
      else if (strstr (a, "=" H))
        {
          const char *eq = strchr (a, '=');
          g_autofree char *name = g_strndup (a, eq - a);
          g_autofree char *p = test_source_path (eq + 1);
          g_ptr_array_add (argv, g_strconcat (name, "=", p, NULL));
        }
      else
        g_ptr_array_add (argv, g_strdup (a));
    }
  g_ptr_array_add (argv, NULL);
  RunResult r = run ((const char *const *) argv->pdata);
  assert_status (&r, c->status, c->path);
  if (c->message && strstr (r.err, c->message) == NULL)
    g_error ("%s: stderr lacks \"%s\":\n%s", c->path, c->message, r.err);
  g_assert_null (strstr (r.err, "CRITICAL"));
  g_assert_null (strstr (r.err, "runtime error"));
  run_result_clear (&r);
  g_unlink (out);
  g_rmdir (dir);
}

/* Runs MODEL with the inputs and returns output NAME read back as npy. */
static Tensor *
run_output (const char *model, const char *const *inputs, const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("symonnx-hostile-XXXXXX", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup ("symonnx"));
  g_ptr_array_add (argv, g_strdup ("run"));
  g_ptr_array_add (argv, test_source_path (model));
  for (guint i = 0; inputs[i]; i++)
    {
      const char *eq = strchr (inputs[i], '=');
      g_autofree char *p = test_source_path (eq + 1);
      g_autofree char *name_part = g_strndup (inputs[i], eq - inputs[i]);
      g_ptr_array_add (argv, g_strdup ("-i"));
      g_ptr_array_add (argv, g_strconcat (name_part, "=", p, NULL));
    }
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup (dir));
  g_ptr_array_add (argv, NULL);
  RunResult r = run ((const char *const *) argv->pdata);
  assert_status (&r, 0, model);
  run_result_clear (&r);
  g_autofree char *file = g_strconcat (name, ".npy", NULL);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autoptr (GError) error = NULL;
  Tensor *t = export_npy_load (path, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);
  return t;
}

/* Clip on int64 with no bounds is the identity (numpy.clip(x, None, None)
 * is x); it gave INT64_MIN everywhere. */
static void
test_clip_int64_no_bounds (void)
{
  static const char *const inputs[] = { "x=" H "x123.npy", NULL };
  g_autoptr (Tensor) y = run_output (H "onnx_run_clip_int64_no_bounds_wrong_result.onnx", inputs, "y");
  g_autofree char *xp = test_source_path (H "x123.npy");
  g_autoptr (Tensor) x = export_npy_load (xp, NULL);
  g_assert_nonnull (x);
  g_assert_cmpint (tensor_dtype (y), ==, GRAPH_DTYPE_INT64);
  g_assert_cmpint (tensor_numel (y), ==, tensor_numel (x));
  for (gint64 i = 0; i < tensor_numel (x); i++)
    g_assert_cmpint (tensor_get_int64 (y, i), ==, tensor_get_int64 (x, i));
}

/* QuantizeLinear with y_scale 0 and x 0: 0/0 is NaN, which saturates to
 * the low end as ONNX Runtime's conversion gives (uint8: 0); it was UB. */
static void
test_quantize_scale_zero (void)
{
  static const char *const inputs[] = { "x=" H "z_f_6.npy", "y_scale=" H "z_f_scalar.npy",
                                        "y_zero_point=" H "z_u8_scalar.npy", NULL };
  g_autoptr (Tensor) y = run_output (H "onnx_run_store_sat_nan_quantizelinear_scale0.onnx", inputs, "y");
  g_assert_cmpint (tensor_dtype (y), ==, GRAPH_DTYPE_UINT8);
  for (gint64 i = 0; i < tensor_numel (y); i++)
    g_assert_cmpint (tensor_get_int64 (y, i), ==, 0);
}

/* A float16 fill value is kept (aten::full's 2.5 became 0). */
static void
test_half_fill_value (void)
{
  g_autofree char *src = test_source_path (H "trace_full_half_value_lost.trace");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  g_autofree char *dir = g_dir_make_tmp ("symonnx-hostile-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "half.trace", NULL);
  g_autofree char *model = g_build_filename (dir, "half.onnx", NULL);
  g_autoptr (GString) typed = g_string_new (text);
  g_assert_cmpint (g_string_replace (typed, "%y : Tensor = aten::full", "%y : Half() = aten::full", 1),
                   ==, 1);
  g_assert_true (g_file_set_contents (trace, typed->str, -1, NULL));
  const char *argv[] = { "symonnx", "export", trace, "-o", model, NULL };
  RunResult r = run (argv);
  assert_status (&r, 0, "export");
  run_result_clear (&r);
  g_autoptr (GError) error = NULL;
  g_autoptr (Graph) g = onnxio_load (model, &error);
  g_assert_no_error (error);
  gboolean seen = FALSE;
  graph_foreach_node (g, n)
    {
      Tensor *v;
      if (graph_node_is (n, "onnx::ConstantOfShape") && graph_node_get_t (n, "value", &v))
        {
          g_assert_cmpint (tensor_dtype (v), ==, GRAPH_DTYPE_FLOAT16);
          g_assert_cmpfloat (tensor_get_double (v, 0), ==, 2.5);
          seen = TRUE;
        }
    }
  g_assert_true (seen);
  g_unlink (trace);
  g_unlink (model);
  g_rmdir (dir);
}

void
hostile_tests_add (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strconcat ("/tools/hostile/", cases[i].path, NULL);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/tools/hostile/run/clip-int64-no-bounds", test_clip_int64_no_bounds);
  g_test_add_func ("/tools/hostile/run/quantize-scale-zero", test_quantize_scale_zero);
  g_test_add_func ("/tools/hostile/export/half-fill-value", test_half_fill_value);
}
