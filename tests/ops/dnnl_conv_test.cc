// DnnlConv (ops/nn/dnnl/dnnl_conv.h) against a naive reference, its
// primitive cache (reuse, shapes, distinct keys, declining), concurrency,
// the bias's place in the sum, that it leaves the caller's OpenMP thread
// count alone, and its Winograd path (WinogradConvTest: which layers take
// it, outputs against the reference with every epilogue, adopted filters,
// concurrency). The kernels' use of it is fused_conv_test.cc.
#include "ops/nn/dnnl/dnnl_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "ops/kernel.h"
#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int num_threads);
}

namespace graphrt::testing {
namespace {

using nn::DnnlConv;
using nn::DnnlWinogradPays;
using nn::XnnConvSpec;

TEST(DnnlConvTest, RandomGeometriesMatchReference) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(1, 4);
  int accepted_plain = 0, plain = 0;
  for (int iter = 0; iter < 60; ++iter) {
    XnnConvSpec s;
    s.depthwise = iter % 3 == 0;
    s.kh = small(rng) % 3 + 1;
    s.kw = small(rng) % 3 + 1;
    s.stride_h = small(rng) % 2 + 1;
    s.stride_w = small(rng) % 2 + 1;
    s.dilation_h = iter % 4 == 0 ? 2 : 1;
    s.dilation_w = iter % 5 == 0 ? 2 : 1;
    s.pad_top = small(rng) - 1;
    s.pad_bottom = small(rng) - 1;
    s.pad_left = small(rng) - 1;
    s.pad_right = small(rng) - 1;
    s.in_channels = small(rng) * (iter % 2 ? 5 : 1);
    s.out_channels = s.depthwise ? s.in_channels * (small(rng) % 2 + 1)
                                 : small(rng) * (iter % 2 ? 7 : 1);
    if (iter % 4 == 1) s.out_min = 0.0f;
    if (iter % 8 == 1) s.out_max = 0.5f;
    const int64_t n = iter % 5 == 0 ? 2 : 1, h = small(rng) + 4,
                  w = small(rng) + 5;
    const int64_t oh =
        OutSize(h, s.pad_top, s.pad_bottom, s.kh, s.dilation_h, s.stride_h);
    const int64_t ow =
        OutSize(w, s.pad_left, s.pad_right, s.kw, s.dilation_w, s.stride_w);
    ASSERT_GT(oh, 0);
    ASSERT_GT(ow, 0);
    auto x = Random(n * h * w * s.in_channels, &rng);
    auto f = Random(s.depthwise ? s.kh * s.kw * s.out_channels
                                : s.kh * s.kw * s.in_channels * s.out_channels,
                    &rng);
    auto bias = Random(s.out_channels, &rng);
    const bool with_bias = iter % 2 == 0;
    Tensor ft = ConvFilter(s, f);
    Tensor bt = T_<float>({s.out_channels}, bias);
    std::vector<float> got(n * oh * ow * s.out_channels, -7.0f);
    DnnlConv conv;
    auto done = conv.Run(s, ft, with_bias ? &bt : nullptr, nullptr, x.data(), n,
                         h, w, oh, ow, got.data());
    ASSERT_TRUE(done.ok()) << done.status();
    const bool is_plain =
        !s.depthwise && s.dilation_h == 1 && s.dilation_w == 1;
    plain += is_plain;
    if (!*done) {
      // Declined (no JIT kernel for this geometry): nothing written.
      EXPECT_EQ(got, std::vector<float>(got.size(), -7.0f));
      continue;
    }
    accepted_plain += is_plain;
    ExpectNear(
        got, Reference(s, x, f, with_bias ? &bias : nullptr, n, h, w, oh, ow));
  }
  // With AVX-512, undilated regular convolutions always have a JIT kernel
  // (brgemm); oneDNN's AVX2 kernels decline many of these geometries.
  if (nn::DnnlHasAvx512()) {
    EXPECT_EQ(accepted_plain, plain);
  } else {
    EXPECT_GT(accepted_plain, 0);
  }
}

TEST(DnnlConvTest, ReusesPrimitivesPerShapeAndDeclinesChangingFilters) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  XnnConvSpec s;
  s.in_channels = 3;
  s.out_channels = 4;
  std::mt19937 rng(1);
  auto x = Random(2 * 2 * 2 * 3, &rng);
  auto fv = Random(12, &rng);
  Tensor f = T_<float>({1, 1, 3, 4}, fv);
  DnnlConv conv;
  std::vector<float> first(16), again(16), batch2(32);
  ASSERT_TRUE(
      *conv.Run(s, f, nullptr, nullptr, x.data(), 1, 2, 2, 2, 2, first.data()));
  ASSERT_TRUE(
      *conv.Run(s, f, nullptr, nullptr, x.data(), 1, 2, 2, 2, 2, again.data()));
  EXPECT_EQ(first, again);
  // Another input shape is another primitive over the same filter.
  ASSERT_TRUE(*conv.Run(s, f, nullptr, nullptr, x.data(), 2, 2, 2, 2, 2,
                        batch2.data()));
  ExpectNear(batch2, Reference(s, x, fv, nullptr, 2, 2, 2, 2, 2));
  // New filter buffers: built until kMaxDistinctKeys keys, then declined.
  int accepted = 0;
  for (int i = 0; i < DnnlConv::kMaxDistinctKeys + 3; ++i) {
    Tensor g = T_<float>({1, 1, 3, 4}, Random(12, &rng));
    std::vector<float> out(16, -1.0f);
    auto done =
        conv.Run(s, g, nullptr, nullptr, x.data(), 1, 2, 2, 2, 2, out.data());
    ASSERT_TRUE(done.ok()) << done.status();
    if (*done) {
      ++accepted;
    } else {
      EXPECT_EQ(out, std::vector<float>(16, -1.0f));  // untouched
    }
  }
  EXPECT_EQ(accepted, DnnlConv::kMaxDistinctKeys - 2);
  ASSERT_TRUE(
      *conv.Run(s, f, nullptr, nullptr, x.data(), 1, 2, 2, 2, 2, again.data()));
  EXPECT_EQ(first, again);
}

// Regression: oneDNN names its depthwise kernel brdgmm_dw, which the
// JIT-only filter once declined, sending every depthwise convolution to
// XNNPACK (2x slower on 5x5).
TEST(DnnlConvTest, DepthwiseTakesTheJitKernel) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  for (int64_t k : {3, 5}) {
    XnnConvSpec s;
    s.depthwise = true;
    s.kh = s.kw = k;
    s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = k / 2;
    s.in_channels = s.out_channels = 24;
    s.out_min = 0.0f;
    s.out_max = 6.0f;
    std::mt19937 rng(9);
    auto x = Random(16 * 16 * 24, &rng);
    auto f = Random(k * k * 24, &rng);
    auto bias = Random(24, &rng);
    Tensor bt = T_<float>({24}, bias);
    std::vector<float> got(16 * 16 * 24);
    DnnlConv conv;
    auto done = conv.Run(s, ConvFilter(s, f), &bt, nullptr, x.data(), 1, 16, 16,
                         16, 16, got.data());
    ASSERT_TRUE(done.ok()) << done.status();
    ASSERT_TRUE(*done) << k << "x" << k << " depthwise declined";
    ExpectNear(got, Reference(s, x, f, &bias, 1, 16, 16, 16, 16));
  }
}

// The residual addend goes into the epilogue after the bias and before the
// clamp, whether it is copied into the output first or already is the
// output (in-place, as when the executor forwards its storage).
TEST(DnnlConvTest, ResidualIsAddedBeforeTheClamp) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  XnnConvSpec s;
  s.in_channels = 16;
  s.out_channels = 24;
  s.out_min = 0.0f;
  s.out_max = 6.0f;
  std::mt19937 rng(4);
  auto x = Random(8 * 8 * 16, &rng);
  auto f = Random(16 * 24, &rng);
  auto bias = Random(24, &rng);
  auto res = Random(8 * 8 * 24, &rng);
  for (auto& v : res) v = 8.0f * v - 4.0f;  // some sums leave [0, 6]
  Tensor ft = ConvFilter(s, f), bt = T_<float>({24}, bias);
  // Reference: the unfused order, (conv + bias) + residual, then clamp.
  XnnConvSpec plain = s;
  plain.out_min = -std::numeric_limits<float>::infinity();
  plain.out_max = std::numeric_limits<float>::infinity();
  auto want = Reference(plain, x, f, &bias, 1, 8, 8, 8, 8);
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = std::clamp(want[i] + res[i], 0.0f, 6.0f);
  }
  DnnlConv conv;
  std::vector<float> copied(want.size(), -1.0f);
  ASSERT_TRUE(*conv.Run(s, ft, &bt, res.data(), x.data(), 1, 8, 8, 8, 8,
                        copied.data()));
  ExpectNear(copied, want);
  std::vector<float> in_place = res;
  ASSERT_TRUE(*conv.Run(s, ft, &bt, in_place.data(), x.data(), 1, 8, 8, 8, 8,
                        in_place.data()));
  EXPECT_EQ(in_place, copied);
}

TEST(DnnlConvTest, DeclinesOutputSizeMismatch) {
  XnnConvSpec s;
  s.in_channels = 1;
  s.out_channels = 1;
  Tensor f = T_<float>({1, 1, 1, 1}, {2});
  std::vector<float> x(4, 1.0f), out(9, -1.0f);
  DnnlConv conv;
  auto done =
      conv.Run(s, f, nullptr, nullptr, x.data(), 1, 2, 2, 3, 3, out.data());
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done);
  EXPECT_EQ(out, std::vector<float>(9, -1.0f));
}

TEST(DnnlConvTest, ConcurrentRunsAgree) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  XnnConvSpec s;
  s.kh = s.kw = 3;
  s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
  s.in_channels = 16;
  s.out_channels = 24;
  std::mt19937 rng(5);
  auto x = Random(12 * 12 * 16, &rng);
  Tensor f = T_<float>({3, 3, 16, 24}, Random(3 * 3 * 16 * 24, &rng));
  DnnlConv conv;
  std::vector<float> want(12 * 12 * 24);
  ASSERT_TRUE(*conv.Run(s, f, nullptr, nullptr, x.data(), 1, 12, 12, 12, 12,
                        want.data()));
  std::vector<std::vector<float>> got(4, std::vector<float>(want.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 20; ++r) {
        auto done = conv.Run(s, f, nullptr, nullptr, x.data(), 1, 12, 12, 12,
                             12, got[t].data());
        if (!done.ok() || !*done) return;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(got[t], want) << "thread " << t;
}

TEST(DnnlConvTest, LeavesTheCallersOpenMpThreadCountAlone) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  omp_set_num_threads(3);
  XnnConvSpec s;
  s.in_channels = 8;
  s.out_channels = 8;
  std::mt19937 rng(3);
  auto x = Random(4 * 4 * 8, &rng);
  Tensor f = T_<float>({1, 1, 8, 8}, Random(64, &rng));
  std::vector<float> out(4 * 4 * 8);
  DnnlConv conv;
  ASSERT_TRUE(
      *conv.Run(s, f, nullptr, nullptr, x.data(), 1, 4, 4, 4, 4, out.data()));
  EXPECT_EQ(omp_get_max_threads(), 3);
}

// oneDNN adds the bias after the dot product (unlike XNNPACK, which starts
// its accumulators at the bias): the error against float64 of a 1024-term
// dot product plus a bias of 20 stays a plain float sum's (~4e-6).
TEST(DnnlConvTest, LargeBiasIsAddedAfterTheDotProduct) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  std::mt19937 rng(5);
  XnnConvSpec s;
  s.in_channels = 1024;
  s.out_channels = 64;
  const int64_t hw = 16;
  auto x = Random(hw * hw * s.in_channels, &rng);
  auto f = Random(s.in_channels * s.out_channels, &rng);
  const std::vector<float> bias(s.out_channels, 20.0f);
  Tensor ft = T_<float>({1, 1, s.in_channels, s.out_channels}, f);
  Tensor bt = T_<float>({s.out_channels}, bias);
  std::vector<float> got(hw * hw * s.out_channels);
  DnnlConv conv;
  ASSERT_TRUE(
      *conv.Run(s, ft, &bt, nullptr, x.data(), 1, hw, hw, hw, hw, got.data()));
  const auto want = Reference(s, x, f, &bias, 1, hw, hw, hw, hw);
  double total_error = 0;
  for (size_t i = 0; i < got.size(); ++i)
    total_error += std::fabs(got[i] - want[i]);
  EXPECT_LT(total_error / got.size(), 7e-6);
}

// An adopted filter (Kernel::AdoptConstInput): Runs pass its placeholder,
// DnnlConv drops its TF-layout reference once packed (the caller's tensor
// is then its only holder), packs other input shapes from the packed copy,
// and AdoptedFilter rebuilds the TF layout bit for bit.
TEST(DnnlConvTest, AdoptedFilterIsPackedOnceAndReleased) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  for (const bool depthwise : {false, true}) {
    XnnConvSpec s;
    s.depthwise = depthwise;
    s.kh = s.kw = 3;
    s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
    s.in_channels = 16;
    // Multiplier 2 where brgemm takes it; AVX2's depthwise kernel takes 1.
    s.out_channels = depthwise ? (nn::DnnlHasAvx512() ? 32 : 16) : 24;
    std::mt19937 rng(depthwise ? 12 : 11);
    auto x = Random(2 * 6 * 6 * s.in_channels, &rng);
    auto fv = Random(
        depthwise ? 9 * s.out_channels : 9 * s.in_channels * s.out_channels,
        &rng);
    Tensor f = ConvFilter(s, fv);
    const Tensor placeholder = ReleasedConst(f);
    ASSERT_TRUE(IsReleasedConst(placeholder));
    ASSERT_FALSE(IsReleasedConst(f));
    DnnlConv conv;
    conv.AdoptFilter(f);
    EXPECT_FALSE(f.HasExclusiveBuffer());  // DnnlConv holds it until packed
    std::vector<float> got(6 * 6 * s.out_channels);
    ASSERT_TRUE(*conv.Run(s, placeholder, nullptr, nullptr, x.data(), 1, 6, 6,
                          6, 6, got.data()));
    ExpectNear(got, Reference(s, x, fv, nullptr, 1, 6, 6, 6, 6));
    EXPECT_TRUE(f.HasExclusiveBuffer()) << "packed: TF layout not released";
    // A second input shape is packed from the packed copy.
    std::vector<float> batch2(2 * 6 * 6 * s.out_channels);
    ASSERT_TRUE(*conv.Run(s, placeholder, nullptr, nullptr, x.data(), 2, 6, 6,
                          6, 6, batch2.data()));
    ExpectNear(batch2, Reference(s, x, fv, nullptr, 2, 6, 6, 6, 6));
    auto rebuilt = conv.AdoptedFilter();
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
    EXPECT_TRUE(rebuilt->IdenticalTo(f));
    // A caller's own filter tensor still works next to the adopted one.
    std::vector<float> own(6 * 6 * s.out_channels);
    ASSERT_TRUE(
        *conv.Run(s, f, nullptr, nullptr, x.data(), 1, 6, 6, 6, 6, own.data()));
    EXPECT_EQ(own, got);
  }
}

// A placeholder the DnnlConv never adopted is an error, not a read of null.
TEST(DnnlConvTest, PlaceholderWithoutAdoptionIsAnError) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  XnnConvSpec s;
  s.in_channels = 3;
  s.out_channels = 4;
  std::vector<float> x(12), out(16);
  DnnlConv conv;
  auto done = conv.Run(
      s, ReleasedConst(T_<float>({1, 1, 3, 4}, std::vector<float>(12, 1.0f))),
      nullptr, nullptr, x.data(), 1, 2, 2, 2, 2, out.data());
  EXPECT_EQ(done.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(conv.AdoptedFilter().status().code(), absl::StatusCode::kInternal);
}

// Winograd (DnnlWinogradPays).

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
  std::vector<float> want(32 * 32 * 48);
  ASSERT_TRUE(*conv.Run(s, f, nullptr, nullptr, x.data(), 1, 32, 32, 32, 32,
                        want.data()));
  std::vector<std::vector<float>> got(4, std::vector<float>(want.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 10; ++r) {
        auto done = conv.Run(s, f, nullptr, nullptr, x.data(), 1, 32, 32, 32,
                             32, got[t].data());
        if (!done.ok() || !*done) return;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(got[t], want) << "thread " << t;
}

}  // namespace
}  // namespace graphrt::testing
