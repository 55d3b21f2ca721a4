// DnnlConv (ops/nn/dnnl/dnnl_conv.h) against a naive reference, its
// primitive cache (reuse, shapes, distinct keys, declining), concurrency,
// the bias's place in the sum, and that it leaves the caller's OpenMP
// thread count alone. Its Winograd path: dnnl_winograd_test.cc. The
// kernels' use of it is fused_conv_test.cc.
#include "ops/nn/dnnl/dnnl_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
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
  ExpectConcurrentRunsAgree(12 * 12 * 24, 20, [&](float* out) {
    return conv.Run(s, f, nullptr, nullptr, x.data(), 1, 12, 12, 12, 12, out);
  });
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

}  // namespace
}  // namespace graphrt::testing
