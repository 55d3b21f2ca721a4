// Depthwise rows of the direct convolution (ops/nn/direct/direct_conv.h):
// multiplier 1, NHWC, the packed filter [kh][kw][c rounded up to kLanes].
// Private to //ops/nn/direct.
#ifndef GRAPHRT_OPS_NN_DIRECT_DEPTHWISE_ROWS_H_
#define GRAPHRT_OPS_NN_DIRECT_DEPTHWISE_ROWS_H_

#include <cstdint>

#include "ops/nn/direct/kernel_util.h"

namespace graphrt {
namespace nn {
namespace direct_kernel {

// Output row y of one image: in_n / res_n / out_n point at the image,
// `wp` at the packed filter, `bias` (c values) and `res_n` may be null.
// 3x3 and 5x5 windows of stride 1 or 2 load each input column of a
// window row once for all the pixels that use it and run every channel
// block of a tile in one call; other shapes go one block at a time.
void DepthwiseRow(const Geo& g, const float* in_n, const float* wp,
                  const float* bias, int64_t y, const float* res_n,
                  float* out_n);

// Output rows [y0, y1) of one image, as DepthwiseRow row by row (the same
// values). Stride-1 3x3 and 5x5 layers (KH = KW, undilated) on AVX-512
// compute two rows at a time where both rows' windows stay inside the
// input's height: the rows share all but two of their input rows, each
// loaded once for both.
void DepthwiseRows(const Geo& g, const float* in_n, const float* wp,
                   const float* bias, int64_t y0, int64_t y1,
                   const float* res_n, float* out_n);

}  // namespace direct_kernel
}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DIRECT_DEPTHWISE_ROWS_H_
