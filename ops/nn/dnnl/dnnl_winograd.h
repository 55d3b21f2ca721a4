// oneDNN's Winograd convolutions as DnnlConv (dnnl_conv.h) uses them: which
// layers take them (DnnlWinogradPays, with the measured bounds), and the
// copies between graphrt's NHWC tensors and the blocked nChw16c layout
// oneDNN's Winograd kernels require (graphrt's own loops: oneDNN's reorder
// primitives allocate on every call).
#ifndef GRAPHRT_OPS_NN_DNNL_DNNL_WINOGRAD_H_
#define GRAPHRT_OPS_NN_DNNL_DNNL_WINOGRAD_H_

#include <cstdint>

#include "ops/nn/xnnpack/xnn_conv.h"

namespace graphrt {
namespace nn {

// Whether DnnlConv runs this regular convolution on oneDNN's Winograd
// kernels (F(2x2, 3x3) or F(4x4, 3x3), oneDNN's choice) rather than its
// direct ones: 3x3, stride 1, undilated, AVX-512, and within the bounds
// measured on the corpus (dnnl_winograd.cc: channels filling >= 85% of
// their 16-channel blocks, >= 30x30 output pixels, >= 20 MFLOP). The
// output differs from the direct sum by a few ulps of the layer's largest
// value (tests/ops/dnnl_winograd_test.cc bounds it). GRAPHRT_WINOGRAD=0
// turns it off; GRAPHRT_WINOGRAD=all takes every such convolution (for
// measuring the bounds). Thread-safe.
bool DnnlWinogradPays(const XnnConvSpec& spec, int64_t n, int64_t out_h,
                      int64_t out_w);

// NHWC [n, pixels, c] -> oneDNN's nChw16c [n, ceil(c / 16), pixels, 16],
// the last block's lanes past c zeroed (the Winograd kernels multiply them
// by the packed filter's zero rows: garbage there could be NaN).
void ToBlocked16(const float* in, int64_t n, int64_t pixels, int64_t c,
                 float* out);

// The inverse of ToBlocked16, clamping each value to [lo, hi] (infinite
// bounds: none).
void FromBlocked16(const float* in, int64_t n, int64_t pixels, int64_t c,
                   float lo, float hi, float* out);

}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DNNL_DNNL_WINOGRAD_H_
