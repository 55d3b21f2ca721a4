// Load-time graph rewrites on a model's inference GraphDef, run by
// ImportTfjsModel (converter/model_import.cc) before the Graph is built.
//
// * ChooseNhwcLayout (layout_choice.cc): the layout choice. graphrt's
//   kernels are channels-last; a float32 NCHW Conv2D, DepthwiseConv2dNative,
//   MaxPool, AvgPool or FusedBatchNorm / V2 / V3 (and an NCHW BiasAdd of a
//   value known to be 4-D) becomes Transpose(x, [0, 2, 3, 1]) -> the op in
//   NHWC (<name>/_nhwc, strides / ksize / dilations / explicit_paddings
//   permuted) -> Transpose(., [0, 3, 1, 2]) under the node's own name, so
//   readers and fetches see the NCHW value they did. SinkTransposes, next,
//   cancels the transposes between neighbouring channels-last ops and moves
//   them through element-wise ops, so an NCHW subgraph runs channels-last
//   with one transpose where it is entered and one where it is left, and
//   the NHWC fusions below apply to its convolutions (the NCHW kernels
//   transpose around the NHWC ones on every call). Exact: the same kernels
//   on the same values. Skips graphs with v1 control flow (a new Const read
//   inside a loop frame would need an Enter). Runs first.
// * SinkTransposes (transpose_sinking.cc): a Transpose with a constant
//   perm moves below its reader when that is a layout-free element-wise op
//   (Relu, LeakyRelu, Sigmoid, ...), a Pad / PadV2 with constant paddings
//   (permuted into a new Const), a ConcatV2 all of whose inputs are
//   Transposes by the same perm (axis permuted, one Transpose after it) or
//   a binary element-wise op (Add, Mul, Maximum, ...) whose operands are
//   Transposes by the same perm or scalar Consts (a residual join); a
//   Transpose read by several such readers is first copied per reader; a
//   Transpose followed by its inverse becomes an Identity. ONNX-converted
//   models (nanodet) wrap every NHWC convolution in NHWC -> NCHW -> NHWC
//   transposes around the activation, padding and concatenation; after
//   this pass they cancel, and the Pads fold into the next convolution.
//   Runs after ChooseNhwcLayout, before RemoveIdentities.
// * RemoveIdentities: Identity / StopGradient / Snapshot nodes forward their
//   input; consumers are rewired to that input and the node is dropped.
// * FoldConstants (constant_folding.cc): a node whose every input (data and
//   control) is a Const without control inputs, or a node folded before it,
//   runs once at load through its own kernel (one thread, IEEE denormals)
//   and becomes a Const of its output 0 with the same name; its other
//   outputs that something reads become Consts named "<node>/_folded_<k>".
//   Never folded: sources, state, resources, variants, randomness, side
//   effects, control flow and function calls (an op list), nodes in `keep`,
//   nodes whose kernel fails to build or run (the error stays theirs at
//   Graph::Build or Run), and values over 64 KiB larger than their inputs
//   (a Fill of a scalar to a big shape: bytes for the model's lifetime
//   against microseconds per Run). Consts that only folded nodes read go
//   (feeding such a Const by name then changes nothing downstream, as with
//   TensorFlow's grappler for feeds it was not told of).
//   The TF.js converter folds constants itself (in the corpus only
//   nanodet's 6 SparseToDense + AddV2 pairs are left); GraphDefs and
//   SavedModels written by TensorFlow keep theirs. Runs after
//   RemoveIdentities, before the fusions (a folded value may be a filter).
//   Exact: the kernel that would have run computes the value.
// * PruneConstantBranches (constant_folding.cc): an If / StatelessIf whose
//   condition is a Const without control inputs (also one FoldConstants
//   made) becomes a StatefulPartitionedCall / PartitionedCall of the branch
//   TensorFlow's rule picks (a scalar bool as is, a numeric scalar nonzero,
//   a string scalar non-empty, another shape non-empty), with the condition
//   kept as a control input; the other branch is never compiled. v2 control
//   flow only (v1: PruneDeadSwitches). Runs right after FoldConstants.
// * PruneDeadSwitches (switch_pruning.cc): a v1 Switch whose predicate is a
//   scalar bool Const without control inputs (possibly behind Identities:
//   tf.cond's pred_id) becomes an Identity of its data input, and what
//   TensorFlow's executor would mark dead in the branch it never takes goes
//   (a node with a dead data or control input; a Merge only when all its
//   data inputs are dead; branch Consts hang off the dead branch's pivot by
//   a control edge). A live Merge drops its dead inputs, and one with one
//   input left becomes an Identity. The predicate's Identities and Const,
//   and Consts only the dead branch read, go when nothing else reads them
//   (they would be new sinks). A Switch is left alone when its dead branch
//   reaches a kept node or a loop's Enter / Exit / NextIteration /
//   LoopCond, or a Merge whose value_index output is read. TF1 frozen
//   graphs' conds on a frozen flag then lose their Switch / Merge frames;
//   once none are left the graph runs on the static plan instead of the
//   dataflow executor, and ChooseNhwcLayout, SinkTransposes and
//   RemoveIdentities (which skip graphs with v1 control flow) run again.
//   Runs after PruneConstantBranches.
// * FoldConvScale (conv_folding.cc): a Conv2D / DepthwiseConv2dNative (NHWC,
//   float32, a float32 weight as filter) whose only consumer is a Mul by a
//   float32 constant with one value or one per output channel (dims 1 but
//   the last) becomes that convolution with the product folded into a new
//   filter Const (w[..., o] * s[o]), named like the Mul. Keras' batch norm
//   after depthwise layers (faceres: DepthwiseConv2dNative -> Mul -> Add ->
//   Relu) then fuses as conv + bias + activation. The one pass that moves a
//   rounding: conv(x, w * s) instead of conv(x, w) * s, as TensorFlow's
//   grappler does (constant folding's MulConvPushDown); values differ by an
//   ulp or so per product. Runs before FuseConvBiasActivation.
// * FoldBatchNorm (conv_folding.cc): a Conv2D / DepthwiseConv2dNative (NHWC,
//   float32, a float32 weight as filter) whose only consumer is a
//   FusedBatchNorm / V2 / V3 with is_training false (explicitly: TF's
//   default is true), NHWC, float32, constant [out_channels] scale, offset,
//   mean and variance, and only its output y read, becomes that convolution
//   on a new filter w * s plus a BiasAdd of offset - mean * s named like the
//   batch norm, s = scale / sqrt(variance + epsilon): TensorFlow's frozen
//   inference graphs (the TF.js converter folds these itself), which
//   FuseConvBiasActivation then fuses. Moves roundings as FoldConvScale
//   does. Runs after FoldConvScale.
// * FuseConvBiasActivation: Conv2D / DepthwiseConv2dNative (NHWC, float32,
//   constant filter) whose only consumer is BiasAdd / Add / AddV2 with a
//   constant float32 [out_channels] operand, optionally followed by Relu /
//   Relu6 as that node's only consumer, become one _FusedConv2D /
//   FusedDepthwiseConv2dNative (fused_ops [BiasAdd] or [BiasAdd, Relu|Relu6])
//   named like the last node of the chain, so its consumers need no
//   rewiring. The fused kernels run the bias and clamp inside the GEMM /
//   depthwise epilogue (ops/nn/fused_conv.h).
// * FuseMatMulBiasActivation (matmul_fusion.cc): a float32 MatMul whose
//   only reader is a BiasAdd (NHWC / no data_format, the product its input
//   0; any bias, e.g. a variable's read: the kernel checks it is [n]) or an
//   Add / AddV2 of a float32 [n] constant (n the product's columns, known
//   from a constant B), optionally followed by Relu / Relu6 /
//   LeakyRelu as that node's only reader, becomes one _FusedMatMul
//   (fused_ops [BiasAdd(, act)], LeakyRelu's alpha as leakyrelu_alpha)
//   named like the last node: TensorFlow-written dense layers (the TF.js
//   converter fuses these itself). Exact: the kernel adds the bias and
//   clamps with the same operations.
// * FoldAffineIntoConv (affine_folding.cc): a per-channel affine x * s + b
//   (Mul and / or Add / AddV2 of float32 constants of one value or one per
//   channel, either operand order) whose x is a convolution's output (so
//   known to be [..., channels]: the constants cannot broadcast it) and
//   whose only reader is a biased _FusedConv2D / FusedDepthwiseConv2dNative
//   (fused_ops [BiasAdd(, act)], weight filter and bias) whose windows never
//   reach padding (VALID, or 1x1 at stride 1) -- directly or through a
//   spatial AvgPool, or a MaxPool when every s > 0 (both commute with such
//   an affine) -- goes into that convolution: filter w * s[in], bias +
//   sum(w * b[in]) (new Consts named after it; the sum in double). Keras
//   models that batch-normalise after the activation (gear: conv, Relu,
//   BN, MaxPool, conv) lose two passes over each activation. Moves
//   roundings as FoldConvScale does. Runs after FuseConvBiasActivation.
// * FoldPadIntoConv: a Pad (zeros) of H and W only, with constant
//   paddings, whose only consumer is a VALID NHWC float32 Conv2D /
//   _FusedConv2D / DepthwiseConv2dNative / FusedDepthwiseConv2dNative,
//   becomes that convolution's EXPLICIT padding (MediaPipe's BlazePose pads
//   before its stride-2 convolutions). XNNPACK reads the same zeros from
//   its zero buffer in the same order, so the sums are bit-identical, and
//   the padded copy of the input (a pass over it per Run) is gone.
// * FuseAddActivation: a float32 Add / AddV2 whose only consumer is Relu /
//   Relu6 becomes one Add / AddV2 node with the internal attr
//   _fused_activation "Relu" / "Relu6" (ops/math/binary_ops.cc), named like
//   the activation: one pass over the output instead of two (the residual
//   joins of BlazeFace / BlazePose blocks).
// * FuseAbsPrelu: the PReLU some converted models spell with five
//   element-wise ops, Add(Relu(x) or x, Mul(Sub(x, Abs(x)), alpha)) (either
//   operand order of Add and Mul), where x is an NHWC conv / batch norm
//   output and alpha a float32 constant with dims 1 but the last, becomes
//   one _AbsPrelu(x, alpha) (attr relu) named like the Add: one pass over x
//   instead of five (ops/math/abs_prelu.cc).
// * FuseConvAdd: an Add / AddV2 (float32, possibly with FuseAddActivation's
//   _fused_activation Relu / Relu6) one of whose operands is a
//   _FusedConv2D with fused_ops [BiasAdd] consumed by nothing else becomes
//   that convolution with fused_ops [BiasAdd, Add(, Relu|Relu6)] and the
//   other operand as a fourth input (num_args 2), named like the Add: the
//   residual joins of BlazeFace / BlazePose / MobileNetV2 blocks. oneDNN
//   adds the addend in its kernel's epilogue (ops/nn/fused_conv.h); the
//   values are the unfused graph's ((conv + bias) + addend, then clamp).
// * FuseHardSwish (activation_fusion.cc): Keras' hard-swish,
//   Mul(Mul(x, s), Relu6(Add|AddV2(x, 3))) (operands in either order,
//   float32 scalar constants, 3 exactly, s finite: 1/6, or 0.16662598 in
//   float16-quantized TF.js graphs), becomes one _HardSwish(x) with attr
//   scale s (ops/math/activation_fns.h: the same operations in the same
//   order) named like the outer Mul: one pass over x instead of four
//   (MobileNetV3 in centernet and rvm). Runs before FuseAddActivation,
//   which would otherwise take the Add + Relu6 apart from the pattern.
// * FuseConvActivation (activation_fusion.cc): a _FusedConv2D /
//   FusedDepthwiseConv2dNative with fused_ops [BiasAdd] whose only consumer
//   is a piecewise-linear activation (Relu, Relu6, LeakyRelu with its alpha
//   as leakyrelu_alpha, _HardSwish with its scale as hardswish_scale; not Elu /
//   Sigmoid / Tanh, whose vectorised and scalar evaluations differ in the last
//   bit, which would make the values depend on the row length) becomes that
//   convolution with fused_ops [BiasAdd, act], named like the activation. The
//   kernel applies it to the output rows it just wrote (no separate output
//   tensor and pass). Runs last, after FuseConvAdd has taken the residual
//   joins.
// * SwapMaxPoolActivation (activation_fusion.cc): a float32 MaxPool whose
//   only consumer is Relu / Relu6 swaps places with it (MaxPool -> Relu
//   becomes Relu -> MaxPool, each node keeping its name), so that
//   FuseConvActivation, which runs next, takes the activation into the
//   convolution before the pool (antispoof's and faceboxes' Keras
//   Conv -> MaxPooling2D -> Activation blocks: one pass over the
//   convolution's output instead of two). Exact: both activations are
//   monotone, so the largest activated value of a window is the activated
//   largest value (for NaN-free inputs; MaxPool skips NaNs, Relu keeps
//   them).
// * FuseConvPrelu (conv_folding.cc): a _FusedConv2D /
//   FusedDepthwiseConv2dNative with fused_ops [BiasAdd] (or a _FusedConv2D
//   with FuseConvAdd's [BiasAdd, Add]) whose only consumer is
//   Prelu(conv, alpha) or _AbsPrelu(conv, alpha) with attr relu (then the
//   slope is 2 * alpha, a new Const: (2x) * a and x * (2a) are the same
//   float), alpha a float32 weight of one value or one per output channel
//   on its last axis, becomes that convolution with fused_ops [BiasAdd,
//   Prelu] / [BiasAdd, Add, Prelu] and the slope as its last input
//   (num_args 2 / 3), named like the activation (facemesh, iris: the
//   residual joins of their blocks). An _AbsPrelu without relu on a convolution
//   whose last fused op is Relu / Relu6, with a finite alpha, is x itself (x >=
//   0) and is dropped (bit-identical but for x = +inf, where the graph has
//   NaN). MobileFaceNet has 17 and 16 of these. Runs after FuseConvActivation.
// * FuseReluClip (conv_folding.cc): a Relu (the op, a conv's last fused op,
//   or an Add's _fused_activation) whose only consumer is Minimum(., 6),
//   optionally followed by Maximum(., 0) as that node's only consumer (float32
//   one-value constants, 6 and 0 exactly; Keras' ReLU(max_value=6) spelled
//   with clip_by_value), becomes the same producer with Relu6 in its place,
//   named like the last node: two passes over the output fewer per layer
//   (faceres: 27 of each). Runs after the fusions above.
// * FuseResizeAdd (resize_fusion.cc): Add / AddV2 (float32) of a
//   ResizeBilinear read by nothing else, and another value, becomes one
//   _ResizeBilinearAdd (images, size, addend) named like the Add
//   (ops/nn/resize.cc: the sum is written row by row as the rows are
//   resized, into the addend's storage when nothing else reads it). Same
//   values: the resized value, then the sum, each rounded as before.
//   Runs after FuseConvAdd (an Add a convolution takes stays its residual).
// * FuseDepthwiseBlocks (block_fusion.cc): Conv2D / _FusedConv2D (1x1,
//   stride 1, fused_ops none, [BiasAdd], [BiasAdd, Add] with FuseConvAdd's
//   residual, either optionally with Relu / Relu6; a Const filter of at most
//   48k values) whose input 0 is a DepthwiseConv2dNative or a
//   FusedDepthwiseConv2dNative ([BiasAdd(, Relu|Relu6)]; 3x3 or 5x5, stride 1
//   or 2, undilated, Const filter) read by
//   nothing else, itself optionally reading such a pointwise _FusedConv2D
//   without residual (the expand stage) read by nothing else, becomes one
//   _FusedDepthwiseBlock named like the last node (ops/nn/depthwise_block.h:
//   the block runs a band of rows at a time and its inner tensors never
//   exist whole). Values: those of the unfused nodes on graphrt's direct
//   kernel (oneDNN, which large unfused layers run on, sums in another
//   order). Chains with an expand stage are taken first (in MobileNetV1's
//   dw1 -> pw1 -> dw2 -> pw2 the block is pw1 -> dw2 -> pw2), then, unless
//   `expand_only`, chains without one (BlazeFace's blocks, CenterNet's
//   heads: the kernel runs those of small images as the two layers, see
//   depthwise_block.h). GRAPHRT_FUSE_DEPTHWISE_BLOCKS=0 turns the pass
//   off, =expand fuses only chains with an expand stage (the default until
//   session 33; bench/RESULTS.md has both).
//   Runs last.
//
// All but FoldConvScale are exact (same values as the unfused graph up to float
// rounding of the same operations) and conservative: a node is only removed
// when no other node has a control edge on it, it is not named in `keep` (the
// signature's inputs and outputs), and, for identities, the graph has no v1
// control flow (Switch/Merge/Enter/Exit/NextIteration frames, where
// Identity nodes carry control dependencies). Nodes removed by a pass can no
// longer be fetched by name. Function library bodies are not touched.
//
// Errors: none for well-formed graphs (a pattern that does not match
// exactly is left alone); the passes never read outside the GraphDef and
// weights they are given. Not thread-safe on the same GraphDef.
#ifndef GRAPHRT_CONVERTER_PASSES_PASSES_H_
#define GRAPHRT_CONVERTER_PASSES_PASSES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "converter/graph.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"

namespace graphrt {
namespace passes {

struct PassStats {
  int identities_removed = 0;
  int convs_fused = 0;  // conv + bias (+ activation) chains fused
  int pads_folded = 0;  // Pad nodes folded into convolutions
  int adds_fused = 0;   // Add + Relu / Relu6 pairs fused
  int abs_prelus_fused = 0;
  int conv_adds_fused = 0;           // residual Add (+Relu / Relu6) into a conv
  int transposes_sunk = 0;           // Transpose moves and cancellations
  int hard_swishes_fused = 0;        // Mul/Mul/Relu6/Add into one _HardSwish
  int conv_activations_fused = 0;    // activation into a biased conv
  int conv_scales_folded = 0;        // Mul by a constant into a conv filter
  int relu_clips_fused = 0;          // Relu + Minimum(6) (+ Maximum(0))
  int conv_prelus_fused = 0;         // Prelu / _AbsPrelu into a biased conv
  int pool_activations_swapped = 0;  // MaxPool -> Relu as Relu -> MaxPool
  int depthwise_blocks_fused = 0;    // [1x1 ->] depthwise -> 1x1 chains
  int constants_folded = 0;          // nodes of constant inputs -> Consts
  int branches_pruned = 0;           // If of a constant condition -> call
  int switches_pruned = 0;           // v1 Switch of a constant predicate
  int nchw_nodes_converted = 0;      // NCHW layout ops run channels-last
  int matmuls_fused = 0;             // MatMul + bias (+ activation)
  int batch_norms_folded = 0;        // inference FusedBatchNorm into a conv
  int affines_folded = 0;            // x * s + b into the next conv
  int resize_adds_fused = 0;         // Add(ResizeBilinear(x), y) as one

  // Each nonzero count, named for what it counts ("conv chains fused",
  // ...), in the order the passes run: what `graphrt info` reports.
  std::vector<std::pair<std::string, int>> Rewrites() const;
};

// Node names the passes must keep (fetchable / feedable by name).
using KeepSet = absl::flat_hash_set<std::string>;

int RemoveIdentities(tensorflow::GraphDef* graph, const KeepSet& keep);
int FoldConstants(tensorflow::GraphDef* graph, WeightMap* weights,
                  const KeepSet& keep, const OpRegistry& registry);
int PruneConstantBranches(tensorflow::GraphDef* graph, const WeightMap& weights,
                          const KeepSet& keep);
int PruneDeadSwitches(tensorflow::GraphDef* graph, const WeightMap& weights,
                      const KeepSet& keep);
int ChooseNhwcLayout(tensorflow::GraphDef* graph);
int SinkTransposes(tensorflow::GraphDef* graph, const WeightMap& weights,
                   const KeepSet& keep);
int FoldConvScale(tensorflow::GraphDef* graph, WeightMap* weights,
                  const KeepSet& keep);
int FoldBatchNorm(tensorflow::GraphDef* graph, WeightMap* weights,
                  const KeepSet& keep);
int FuseConvPrelu(tensorflow::GraphDef* graph, WeightMap* weights,
                  const KeepSet& keep);
int FuseReluClip(tensorflow::GraphDef* graph, const WeightMap& weights,
                 const KeepSet& keep);
int FuseConvBiasActivation(tensorflow::GraphDef* graph,
                           const WeightMap& weights, const KeepSet& keep);
int FoldPadIntoConv(tensorflow::GraphDef* graph, const WeightMap& weights,
                    const KeepSet& keep);
int FuseAddActivation(tensorflow::GraphDef* graph, const KeepSet& keep);
int FuseConvAdd(tensorflow::GraphDef* graph, const KeepSet& keep);
int FuseMatMulBiasActivation(tensorflow::GraphDef* graph,
                             const WeightMap& weights, const KeepSet& keep);
int FoldAffineIntoConv(tensorflow::GraphDef* graph, WeightMap* weights,
                       const KeepSet& keep);
int FuseAbsPrelu(tensorflow::GraphDef* graph, const WeightMap& weights,
                 const KeepSet& keep);
int FuseHardSwish(tensorflow::GraphDef* graph, const WeightMap& weights,
                  const KeepSet& keep);
int FuseConvActivation(tensorflow::GraphDef* graph, const KeepSet& keep);
int FuseResizeAdd(tensorflow::GraphDef* graph, const KeepSet& keep);
int SwapMaxPoolActivation(tensorflow::GraphDef* graph, const KeepSet& keep);
// `expand_only`: only chains with an expand stage (OptimizeInferenceGraph
// takes both unless GRAPHRT_FUSE_DEPTHWISE_BLOCKS=expand).
int FuseDepthwiseBlocks(tensorflow::GraphDef* graph, const WeightMap& weights,
                        const KeepSet& keep, bool expand_only = true);

// Runs every pass in order. Setting the environment variable
// GRAPHRT_DISABLE_GRAPH_PASSES (non-empty, not "0") skips them all.
// `weights` gains the filters FoldConvScale makes and the values
// FoldConstants computes (which runs only when a `registry` is given).
PassStats OptimizeInferenceGraph(tensorflow::GraphDef* graph,
                                 WeightMap* weights, const KeepSet& keep,
                                 const OpRegistry* registry = nullptr);

// "name:1" / "^name" / "name" -> "name".
std::string NodeNameOf(const std::string& input);

}  // namespace passes
}  // namespace graphrt

#endif  // GRAPHRT_CONVERTER_PASSES_PASSES_H_
