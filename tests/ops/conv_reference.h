// Naive float64-accumulating NHWC convolution for the fast-backend tests
// (xnn_conv_test.cc, dnnl_conv_test.cc).
#ifndef GRAPHRT_TESTS_OPS_CONV_REFERENCE_H_
#define GRAPHRT_TESTS_OPS_CONV_REFERENCE_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/nn/xnnpack/xnn_conv.h"
#include "runtime/tensor.h"
#include "tests/ops/op_test_util.h"

namespace graphrt::testing {

// Naive NHWC convolution; depthwise filters are [kh, kw, c, mult].
inline std::vector<float> Reference(const nn::XnnConvSpec& s,
                                    const std::vector<float>& x,
                                    const std::vector<float>& f,
                                    const std::vector<float>* bias, int64_t n,
                                    int64_t h, int64_t w, int64_t oh,
                                    int64_t ow) {
  const int64_t ci = s.in_channels, co = s.out_channels;
  std::vector<float> out(n * oh * ow * co);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo)
        for (int64_t o = 0; o < co; ++o) {
          double acc = bias ? (*bias)[o] : 0.0;
          for (int64_t i = 0; i < s.kh; ++i)
            for (int64_t j = 0; j < s.kw; ++j) {
              const int64_t iy = y * s.stride_h - s.pad_top + i * s.dilation_h;
              const int64_t ix =
                  xo * s.stride_w - s.pad_left + j * s.dilation_w;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              const float* px = &x[((b * h + iy) * w + ix) * ci];
              if (s.depthwise) {
                const int64_t mult = co / ci;
                acc += px[o / mult] * f[(i * s.kw + j) * co + o];
              } else {
                for (int64_t c = 0; c < ci; ++c) {
                  acc += px[c] * f[((i * s.kw + j) * ci + c) * co + o];
                }
              }
            }
          out[((b * oh + y) * ow + xo) * co + o] =
              std::clamp(static_cast<float>(acc), s.out_min, s.out_max);
        }
  return out;
}

inline int64_t OutSize(int64_t in, int64_t pb, int64_t pa, int64_t k, int64_t d,
                       int64_t s) {
  return (in + pb + pa - (k - 1) * d - 1) / s + 1;
}

// A filter tensor in TF's layout for `s`: [kh, kw, in, out], or for a
// depthwise spec [kh, kw, in, multiplier].
inline Tensor ConvFilter(const nn::XnnConvSpec& s,
                         const std::vector<float>& values) {
  return s.depthwise
             ? T_<float>(
                   {s.kh, s.kw, s.in_channels, s.out_channels / s.in_channels},
                   values)
             : T_<float>({s.kh, s.kw, s.in_channels, s.out_channels}, values);
}

}  // namespace graphrt::testing

#endif  // GRAPHRT_TESTS_OPS_CONV_REFERENCE_H_
