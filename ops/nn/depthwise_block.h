// _FusedDepthwiseBlock: a MobileNet-style block run one band of output
// rows at a time, so that its intermediate tensors never exist whole.
//
//   [expand: 1x1 conv c -> e, + bias, act]     (optional)
//   depthwise k x k (3 or 5), stride 1 or 2, + bias, act
//   project: 1x1 conv e -> co (+ bias) (+ residual) (act)
//
// act is none, Relu, Relu6 or Prelu. The load-time pass FuseDepthwiseBlocks
// (converter/passes/passes.h) builds the node from a _FusedConv2D ->
// FusedDepthwiseConv2dNative -> Conv2D / _FusedConv2D chain whose inner
// tensors have no other reader: MobileNetV2 / EfficientNet-lite inverted
// residuals with the expand stage, BlazeFace / BlazePose blocks without it.
//
// Inputs, in order: x [n, h, w, c]; with attr expand: expand filter
// [1, 1, c, e], expand bias [e]; depthwise filter [k, k, e, 1]; with attr
// depthwise_bias: its bias [e]; project filter [1, 1, e, co]; with attr
// project_bias: its bias [co]; with attr project_residual: the addend
// [n, oh, ow, co]; then the Prelu slopes of each stage whose activation
// is Prelu, in stage order (1 value, or one per output channel of the
// stage). Attrs: T (float32), strides / padding /
// explicit_paddings / dilations (the depthwise stage's; NHWC, dilations 1),
// expand, depthwise_bias, project_bias, project_residual (bools),
// expand_activation, depthwise_activation,
// project_activation ("", "Relu", "Relu6" or "Prelu"; Prelu comes after the
// residual add, as in a [BiasAdd, Add, Prelu] epilogue).
//
// Why: in a large block the expanded tensor (handlandmark-lite's
// 112x112x64, 3.2 MB) is written by one layer and read back by the next,
// through L3 or DRAM; on this VM's shared L3 the depthwise layer then ran
// 2.5x slower inside the model than on a warm tensor. Per band, each
// expanded row is computed once into a circular ring of rows kept in L2
// (row r in slot r % ring rows; the rows the next band's windows share
// stay where they are, and the depthwise stage reads the band's rows
// through pointers), the depthwise rows of the band go to an L1/L2 buffer
// and the projection reads them from there.
// bench/RESULTS.md ("Depthwise blocks fused") has the per-model times.
//
// How: each stage is graphrt's direct kernel (ops/nn/direct/direct_conv.h),
// its filter packed once, on the node's first Run (the three Consts are
// adopted: no other copy stays after it). Bias, residual and clamp are added in the kernels'
// epilogues, as the unfused nodes on the direct kernel do, so the values
// are those of the unfused graph on that kernel up to an ulp in the few
// pixels that fall in a tile tail of another length (pixels are grouped in
// tiles per band here, per tensor there); oneDNN, which the unfused graph
// uses for large layers, sums in another order (an ulp or so per dot
// product).
//
// An image whose expanded tensor has at most 128k values runs as one band
// (stage after stage over the whole image, intermediates in scratch); in a
// block without expand stage, one whose input has at most 640k values
// (2.5 MB): its bands only save the depthwise output's round trip through
// memory, which pays beyond the caches (CenterNet's and MoveNet-Thunder's
// 128x128 heads) and costs their per-band calls below (PoseNet's 49x49x192
// block ran 1.09x the two layers' time in bands).
//
// Threads: the output rows of each image are split into about four
// stripes of whole bands, fixed by the shapes; each stripe runs its bands
// in order with its own ring, starting empty (it recomputes the expanded
// rows its neighbour above also computed). A stripe's values do not
// depend on which thread runs it, so results are identical for any thread
// count. Within a stripe the stages' direct-kernel calls run on its thread
// (ScopedSequential), unless the node has a single stripe (a small image
// in one band): then they split their own rows. Scratch (ring and
// band buffer) comes from the Run's BufferPool: no heap call in steady
// state.
//
// Memory: the output takes the residual addend's storage when nothing else
// reads it (the executor's in-place reuse): always when the addend is
// another value, and in one band when it is the block's input x too
// (f(x) + x: x has been read whole before the project stage writes). The
// unfused graph's residual 1x1 does the same; without it the fused blocks
// of small images ran 2-4% slower than the unfused nodes.
//
// Errors: InvalidArgument naming the input on a dtype or shape that does
// not fit the block (the node's own filters were checked when the pass
// built it, fed ones are checked per Run and packed for that Run only).
#ifndef GRAPHRT_OPS_NN_DEPTHWISE_BLOCK_H_
#define GRAPHRT_OPS_NN_DEPTHWISE_BLOCK_H_

#include "ops/registry.h"

namespace graphrt {

// _FusedDepthwiseBlock.
void RegisterDepthwiseBlock(OpRegistry& r);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DEPTHWISE_BLOCK_H_
