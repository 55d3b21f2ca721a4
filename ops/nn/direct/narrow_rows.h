// Regular convolutions with few output channels (segmentation heads, e.g.
// BlazePose's 3x3 32 -> 1 output_segmentation at 128x128) for the direct
// convolution (ops/nn/direct/direct_conv.h). The other tiles vectorize over
// output channels, so one output channel fills one lane of 16 (oneDNN ran
// that layer (256x256 3x3 8 -> 1) at 4-7 GFLOP/s, 19% of blazepose-lite's
// Run); these rows vectorize over the window instead: per output pixel and
// channel a dot product of kh * kw * c_in values, summed lane by lane and
// then across the lanes. Eight-channel stride-1 layers on AVX-512 hold two
// neighbouring pixels per vector instead (narrow_rows.cc, NarrowPairTile:
// BlazePose's head 0.48 -> 0.1 ms). Private to //ops/nn/direct.
#ifndef GRAPHRT_OPS_NN_DIRECT_NARROW_ROWS_H_
#define GRAPHRT_OPS_NN_DIRECT_NARROW_ROWS_H_

#include <cstdint>
#include <vector>

#include "ops/nn/direct/kernel_util.h"

namespace graphrt {
namespace nn {
namespace direct_kernel {

// Output channels at most and input channels at least for the narrow
// layout, whatever the vector width (a threshold of half a vector moved a
// 2 -> 3 layer of an SSE build onto it).
inline constexpr int64_t kNarrowMaxOut = 4;
inline constexpr int64_t kNarrowMinIn = 8;

// True when a regular (not depthwise) layer takes the narrow layout: at
// most kNarrowMaxOut output channels and at least kNarrowMinIn input
// channels (fewer would leave most lanes of each FMA empty here too).
bool UsesNarrowLayout(int64_t c_in, int64_t c_out);

// The filter [kh][kw][c_in][c_out] as [c_out][kh][kw * c_in rounded up to
// kLanes], zeros in the padding: a window row of a stride-1 layer is one
// contiguous run of kw * c_in input floats, dotted with one packed row.
std::vector<float> PackNarrow(const float* filter, int64_t kh, int64_t kw,
                              int64_t c_in, int64_t c_out);

// Output row y of one image (in_n / res_n / out_n point at the image;
// `bias` (c_out values) and `res_n` may be null), every output channel.
void NarrowRow(const Geo& g, const float* in_n, const float* wp,
               const float* bias, int64_t y, const float* res_n, float* out_n);

}  // namespace direct_kernel
}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DIRECT_NARROW_ROWS_H_
