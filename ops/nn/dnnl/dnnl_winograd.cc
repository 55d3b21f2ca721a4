#include "ops/nn/dnnl/dnnl_winograd.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "ops/nn/dnnl/dnnl_conv.h"

namespace graphrt {
namespace nn {

bool DnnlWinogradPays(const XnnConvSpec& spec, int64_t n, int64_t out_h,
                      int64_t out_w) {
  enum class Mode { kOff, kRule, kAll };
  static const Mode mode = [] {
    const char* v = std::getenv("GRAPHRT_WINOGRAD");
    if (v == nullptr) return Mode::kRule;
    if (v[0] == '0') return Mode::kOff;
    if (std::string(v) == "all") return Mode::kAll;
    return Mode::kRule;
  }();
  if (mode == Mode::kOff || !DnnlHasAvx512() || spec.depthwise ||
      spec.kh != 3 || spec.kw != 3 || spec.stride_h != 1 ||
      spec.stride_w != 1 || spec.dilation_h != 1 || spec.dilation_w != 1) {
    return false;
  }
  if (mode == Mode::kAll) return true;
  // Measured on the corpus models (Zen 4, one thread; bench/RESULTS.md
  // "Winograd convolutions"). Layers whose channels fill less than 85% of
  // their 16-channel blocks lose (RGB stems 3-4x slower, 2- to 8-channel
  // heads 1.5-10x, rvm's 35 -> 16 (73%) 1.25x). Under 30x30 output pixels
  // the packed weights (1.8x the filter for F(2x2, 3x3), 4x for F(4x4,
  // 3x3)) and the transforms' buffers outgrow the activations they save
  // time on: with them nanodet's peak RSS went to 1.75x its weights +
  // activations (its 13x13 and 26x26 layers; the target is 1.5x). Under 20
  // MFLOP the gain is a few microseconds against oneDNN's fixed cost per
  // primitive (JIT code, 8 heap blocks per call): liveness' and age's
  // layers gained 7-80 us and their peak RSS went to 1.6-2.3x.
  constexpr int64_t kMinPixels = 30 * 30;
  constexpr double kMinFlops = 20e6;
  auto filled = [](int64_t c) {
    return static_cast<double>(c) / ((c + 15) / 16 * 16);
  };
  return spec.in_channels >= 16 && spec.out_channels >= 16 &&
         filled(spec.in_channels) * filled(spec.out_channels) >= 0.85 &&
         n * out_h * out_w >= kMinPixels &&
         2.0 * 9 * spec.in_channels * spec.out_channels * n * out_h * out_w >=
             kMinFlops;
}

void ToBlocked16(const float* in, int64_t n, int64_t pixels, int64_t c,
                 float* out) {
  const int64_t blocks = (c + 15) / 16;
  for (int64_t img = 0; img < n; ++img) {
    const float* src = in + img * pixels * c;
    float* dst = out + img * blocks * pixels * 16;
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t lanes = std::min<int64_t>(16, c - b * 16);
        float* to = dst + (b * pixels + p) * 16;
        const float* from = src + p * c + b * 16;
        for (int64_t l = 0; l < lanes; ++l) to[l] = from[l];
        for (int64_t l = lanes; l < 16; ++l) to[l] = 0.0f;
      }
    }
  }
}

void FromBlocked16(const float* in, int64_t n, int64_t pixels, int64_t c,
                   float lo, float hi, float* out) {
  const int64_t blocks = (c + 15) / 16;
  const bool clamp = std::isfinite(lo) || std::isfinite(hi);
  for (int64_t img = 0; img < n; ++img) {
    const float* src = in + img * blocks * pixels * 16;
    float* dst = out + img * pixels * c;
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t lanes = std::min<int64_t>(16, c - b * 16);
        const float* from = src + (b * pixels + p) * 16;
        float* to = dst + p * c + b * 16;
        if (clamp) {
          for (int64_t l = 0; l < lanes; ++l) {
            to[l] = std::min(std::max(from[l], lo), hi);
          }
        } else {
          for (int64_t l = 0; l < lanes; ++l) to[l] = from[l];
        }
      }
    }
  }
}

}  // namespace nn
}  // namespace graphrt
