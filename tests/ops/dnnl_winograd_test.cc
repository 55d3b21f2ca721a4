// oneDNN's Winograd path (ops/nn/dnnl/dnnl_winograd.h, used by DnnlConv):
// the NHWC <-> nChw16c copies, which layers take it, its outputs against a
// float64-accurate reference (padding, batches, channel counts off the
// 16-channel blocks, bias, every clamp, residuals copied and in place),
// adopted filters (Winograd weights have no reorder back, so the TF layout
// stays), and concurrent Runs.
#include "ops/nn/dnnl/dnnl_winograd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ops/kernel.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

using nn::DnnlConv;
using nn::DnnlWinogradPays;
using nn::XnnConvSpec;

// 2 images of 3 pixels, 20 channels: one full block and one of 4 lanes.
TEST(Blocked16Test, CopiesRoundTripAndZeroTheSpareLanes) {
  const int64_t n = 2, pixels = 3, c = 20;
  std::vector<float> nhwc(n * pixels * c);
  for (size_t i = 0; i < nhwc.size(); ++i) nhwc[i] = 0.5f * i - 7.0f;
  std::vector<float> blocked(n * 2 * pixels * 16, std::nanf(""));
  nn::ToBlocked16(nhwc.data(), n, pixels, c, blocked.data());
  for (int64_t img = 0; img < n; ++img) {
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t k = 0; k < 32; ++k) {
        const float got =
            blocked[((img * 2 + k / 16) * pixels + p) * 16 + k % 16];
        EXPECT_EQ(got, k < c ? nhwc[(img * pixels + p) * c + k] : 0.0f)
            << img << " " << p << " " << k;
      }
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> back(nhwc.size(), -1.0f);
  nn::FromBlocked16(blocked.data(), n, pixels, c, -inf, inf, back.data());
  EXPECT_EQ(back, nhwc);
  nn::FromBlocked16(blocked.data(), n, pixels, c, 0.0f, 6.0f, back.data());
  for (size_t i = 0; i < nhwc.size(); ++i) {
    EXPECT_EQ(back[i], std::clamp(nhwc[i], 0.0f, 6.0f)) << i;
  }
}

XnnConvSpec Conv3x3(int64_t in, int64_t out, bool same) {
  XnnConvSpec s;
  s.kh = s.kw = 3;
  if (same) s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
  s.in_channels = in;
  s.out_channels = out;
  return s;
}

bool WinogradHere() { return nn::DnnlAvailable() && nn::DnnlHasAvx512(); }

// The transforms round a few more times than a direct sum: the error
// scales with the whole output's magnitude rather than each value's. For
// inputs and weights in [-1, 1] and up to 96 input channels it stays under
// 1e-5 of max(1, max |output before any clamp|) (measured: up to ~3e-6),
// far inside the corpus's rtol 1e-3 / atol 1e-4. `scale`: that maximum
// when `want` is clamped.
void ExpectWinogradClose(const std::vector<float>& got,
                         const std::vector<float>& want, float scale = 1.0f) {
  ASSERT_EQ(got.size(), want.size());
  for (float v : want) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_LE(std::fabs(got[i] - want[i]), 1e-5f * scale)
        << "at " << i << ": " << got[i] << " vs " << want[i];
  }
}

TEST(WinogradConvTest, TakesOnlyLayersWhereItPays) {
  if (!WinogradHere()) GTEST_SKIP() << "no oneDNN AVX-512 kernels here";
  EXPECT_TRUE(DnnlWinogradPays(Conv3x3(32, 64, false), 1, 196, 196));
  EXPECT_TRUE(DnnlWinogradPays(Conv3x3(16, 32, true), 1, 64, 64));
  EXPECT_TRUE(DnnlWinogradPays(Conv3x3(64, 64, true), 1, 30, 30));
  EXPECT_TRUE(DnnlWinogradPays(Conv3x3(64, 64, true), 4, 15, 15));
  // RGB stems and narrow heads fill a fraction of the 16-channel blocks.
  EXPECT_FALSE(DnnlWinogradPays(Conv3x3(3, 32, true), 1, 128, 128));
  EXPECT_FALSE(DnnlWinogradPays(Conv3x3(64, 8, true), 1, 128, 128));
  EXPECT_FALSE(DnnlWinogradPays(Conv3x3(35, 16, true), 1, 64, 64));
  // Small outputs: the packed weights outgrow the activations; few FLOPs:
  // oneDNN's fixed cost per call outweighs the gain.
  EXPECT_FALSE(DnnlWinogradPays(Conv3x3(128, 256, true), 1, 26, 26));
  EXPECT_FALSE(DnnlWinogradPays(Conv3x3(16, 16, true), 1, 32, 32));
  XnnConvSpec strided = Conv3x3(32, 32, true);
  strided.stride_h = strided.stride_w = 2;
  EXPECT_FALSE(DnnlWinogradPays(strided, 1, 64, 64));
  XnnConvSpec dilated = Conv3x3(32, 32, true);
  dilated.dilation_h = 2;
  EXPECT_FALSE(DnnlWinogradPays(dilated, 1, 64, 64));
  XnnConvSpec five = Conv3x3(32, 32, true);
  five.kh = five.kw = 5;
  EXPECT_FALSE(DnnlWinogradPays(five, 1, 64, 64));
  XnnConvSpec depthwise = Conv3x3(32, 32, true);
  depthwise.depthwise = true;
  EXPECT_FALSE(DnnlWinogradPays(depthwise, 1, 64, 64));
}

struct Case {
  int64_t n, h, w, in, out;
  bool same;
  float out_min, out_max;
  bool bias, residual;
};

TEST(WinogradConvTest, MatchesReference) {
  if (!WinogradHere()) GTEST_SKIP() << "no oneDNN AVX-512 kernels here";
  const float inf = std::numeric_limits<float>::infinity();
  const Case cases[] = {
      {1, 34, 34, 32, 64, false, -inf, inf, true, false},
      {2, 24, 23, 32, 32, true, 0.0f, inf, true, false},      // Relu
      {1, 37, 33, 30, 47, true, 0.0f, 6.0f, true, false},     // Relu6
      {1, 34, 32, 96, 48, false, -0.5f, 0.5f, false, false},  // other clamp
      {1, 48, 48, 47, 31, true, 0.0f, inf, true, true},       // residual
      {1, 32, 32, 48, 32, true, -inf, inf, false, true},
  };
  std::mt19937 rng(21);
  for (const Case& c : cases) {
    XnnConvSpec s = Conv3x3(c.in, c.out, c.same);
    s.out_min = c.out_min;
    s.out_max = c.out_max;
    const int64_t oh = c.same ? c.h : c.h - 2, ow = c.same ? c.w : c.w - 2;
    ASSERT_TRUE(DnnlWinogradPays(s, c.n, oh, ow));
    auto x = Random(c.n * c.h * c.w * c.in, &rng);
    auto f = Random(9 * c.in * c.out, &rng);
    auto bias = Random(c.out, &rng);
    for (float& b : bias) b *= 20.0f;  // folded batch norms: large biases
    auto res = Random(c.n * oh * ow * c.out, &rng);
    for (float& r : res) r *= 4.0f;
    Tensor ft = ConvFilter(s, f), bt = T_<float>({c.out}, bias);
    XnnConvSpec plain = s;
    plain.out_min = -inf;
    plain.out_max = inf;
    auto want =
        Reference(plain, x, f, c.bias ? &bias : nullptr, c.n, c.h, c.w, oh, ow);
    float scale = 1.0f;
    for (size_t i = 0; i < want.size(); ++i) {
      const float sum = want[i] + (c.residual ? res[i] : 0.0f);
      scale = std::max(scale, std::fabs(sum));
      want[i] = std::clamp(sum, c.out_min, c.out_max);
    }
    DnnlConv conv;
    std::vector<float> got(want.size(), -7.0f);
    auto done = conv.Run(s, ft, c.bias ? &bt : nullptr,
                         c.residual ? res.data() : nullptr, x.data(), c.n, c.h,
                         c.w, oh, ow, got.data());
    ASSERT_TRUE(done.ok()) << done.status();
    ASSERT_TRUE(*done) << c.in << " -> " << c.out << " declined";
    ExpectWinogradClose(got, want, scale);
    // The same again, and with the residual in place in the output.
    std::vector<float> again =
        c.residual ? res : std::vector<float>(got.size());
    ASSERT_TRUE(*conv.Run(s, ft, c.bias ? &bt : nullptr,
                          c.residual ? again.data() : nullptr, x.data(), c.n,
                          c.h, c.w, oh, ow, again.data()));
    EXPECT_EQ(again, got);
  }
}

// Winograd weights (oneDNN's wino format) cannot be reordered back to TF's
// layout: an adopted filter packed only that way keeps its TF-layout copy,
// so AdoptedFilter, another input shape on the direct kernels and a
// release to another backend still work.
TEST(WinogradConvTest, AdoptedFilterKeepsItsTfLayout) {
  if (!WinogradHere()) GTEST_SKIP() << "no oneDNN AVX-512 kernels here";
  XnnConvSpec s = Conv3x3(32, 48, true);
  std::mt19937 rng(22);
  auto fv = Random(9 * 32 * 48, &rng);
  Tensor f = ConvFilter(s, fv);
  const Tensor placeholder = ReleasedConst(f);
  DnnlConv conv;
  conv.AdoptFilter(f);
  auto big = Random(32 * 32 * 32, &rng);
  ASSERT_TRUE(DnnlWinogradPays(s, 1, 32, 32));
  std::vector<float> got(32 * 32 * 48);
  ASSERT_TRUE(*conv.Run(s, placeholder, nullptr, nullptr, big.data(), 1, 32, 32,
                        32, 32, got.data()));
  ExpectWinogradClose(got, Reference(s, big, fv, nullptr, 1, 32, 32, 32, 32));
  EXPECT_FALSE(f.HasExclusiveBuffer()) << "TF layout released after Winograd";
  // 4x4: the direct kernels, packed from the TF layout.
  ASSERT_FALSE(DnnlWinogradPays(s, 1, 4, 4));
  auto small = Random(4 * 4 * 32, &rng);
  std::vector<float> small_out(4 * 4 * 48);
  ASSERT_TRUE(*conv.Run(s, placeholder, nullptr, nullptr, small.data(), 1, 4, 4,
                        4, 4, small_out.data()));
  ExpectNear(small_out, Reference(s, small, fv, nullptr, 1, 4, 4, 4, 4));
  auto rebuilt = conv.AdoptedFilter();
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_TRUE(rebuilt->IdenticalTo(f));
  // Another Winograd shape after the direct entry released the TF layout:
  // packed from the direct entry's blocked copy through TF's layout.
  auto batch2 = Random(2 * 32 * 32 * 32, &rng);
  std::vector<float> got2(2 * 32 * 32 * 48);
  ASSERT_TRUE(*conv.Run(s, placeholder, nullptr, nullptr, batch2.data(), 2, 32,
                        32, 32, 32, got2.data()));
  ExpectWinogradClose(got2,
                      Reference(s, batch2, fv, nullptr, 2, 32, 32, 32, 32));
  auto released = conv.ReleaseAdoptedFilter();
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_TRUE(released->IdenticalTo(f));
}

TEST(WinogradConvTest, ConcurrentRunsAgree) {
  if (!WinogradHere()) GTEST_SKIP() << "no oneDNN AVX-512 kernels here";
  XnnConvSpec s = Conv3x3(32, 48, true);
  s.out_min = 0.0f;
  std::mt19937 rng(23);
  auto x = Random(32 * 32 * 32, &rng);
  Tensor f = ConvFilter(s, Random(9 * 32 * 48, &rng));
  DnnlConv conv;
  ExpectConcurrentRunsAgree(32 * 32 * 48, 10, [&](float* out) {
    return conv.Run(s, f, nullptr, nullptr, x.data(), 1, 32, 32, 32, 32, out);
  });
}

}  // namespace
}  // namespace graphrt::testing
