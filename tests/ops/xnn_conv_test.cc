// XnnConv (ops/nn/xnnpack/xnn_conv.h) against a naive reference, its
// operator cache (reuse, distinct keys, declining) and concurrency. The
// kernels' use of it is fused_conv_test.cc (target fused_conv_xnnpack_test).
#include "ops/nn/xnnpack/xnn_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ops/array/op_util.h"
#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

using nn::XnnConv;
using nn::XnnConvSpec;

TEST(XnnConvTest, RandomGeometriesMatchReference) {
  if (!nn::XnnpackAvailable()) GTEST_SKIP() << "XNNPACK unavailable";
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(1, 4);
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
    const int64_t mult = s.depthwise ? s.out_channels / s.in_channels : 0;
    auto x = Random(n * h * w * s.in_channels, &rng);
    auto f = Random(s.depthwise ? s.kh * s.kw * s.out_channels
                                : s.kh * s.kw * s.in_channels * s.out_channels,
                    &rng);
    auto bias = Random(s.out_channels, &rng);
    const bool with_bias = iter % 2 == 0;
    Tensor ft = s.depthwise
                    ? T_<float>({s.kh, s.kw, s.in_channels, mult}, f)
                    : T_<float>({s.kh, s.kw, s.in_channels, s.out_channels}, f);
    Tensor bt = T_<float>({s.out_channels}, bias);
    std::vector<float> got(n * oh * ow * s.out_channels, -7.0f);
    XnnConv conv;
    auto done = conv.Run(s, ft, with_bias ? &bt : nullptr, x.data(), n, h, w,
                         oh, ow, got.data());
    ASSERT_TRUE(done.ok()) << done.status();
    ASSERT_TRUE(*done) << "iteration " << iter;
    ExpectNear(
        got, Reference(s, x, f, with_bias ? &bias : nullptr, n, h, w, oh, ow));
  }
}

TEST(XnnConvTest, ReusesOperatorAndDeclinesChangingFilters) {
  if (!nn::XnnpackAvailable()) GTEST_SKIP() << "XNNPACK unavailable";
  XnnConvSpec s;
  s.in_channels = 3;
  s.out_channels = 4;
  std::mt19937 rng(1);
  auto x = Random(2 * 2 * 3, &rng);
  Tensor f = T_<float>({1, 1, 3, 4}, Random(12, &rng));
  XnnConv conv;
  std::vector<float> first(16), again(16);
  ASSERT_TRUE(*conv.Run(s, f, nullptr, x.data(), 1, 2, 2, 2, 2, first.data()));
  ASSERT_TRUE(*conv.Run(s, f, nullptr, x.data(), 1, 2, 2, 2, 2, again.data()));
  EXPECT_EQ(first, again);
  // A new filter buffer each Run: packed up to kMaxDistinctKeys times, then
  // declined (the caller's portable kernel takes over).
  int accepted = 0;
  for (int i = 0; i < XnnConv::kMaxDistinctKeys + 3; ++i) {
    Tensor g = T_<float>({1, 1, 3, 4}, Random(12, &rng));
    std::vector<float> out(16, -1.0f);
    auto done = conv.Run(s, g, nullptr, x.data(), 1, 2, 2, 2, 2, out.data());
    ASSERT_TRUE(done.ok()) << done.status();
    if (*done) {
      ++accepted;
    } else {
      EXPECT_EQ(out, std::vector<float>(16, -1.0f));  // untouched
    }
  }
  EXPECT_EQ(accepted, XnnConv::kMaxDistinctKeys - 1);
  // The cached filter still runs.
  ASSERT_TRUE(*conv.Run(s, f, nullptr, x.data(), 1, 2, 2, 2, 2, again.data()));
  EXPECT_EQ(first, again);
}

TEST(XnnConvTest, DeclinesOutputSizeMismatch) {
  XnnConvSpec s;
  s.in_channels = 1;
  s.out_channels = 1;
  Tensor f = T_<float>({1, 1, 1, 1}, {2});
  std::vector<float> x(4, 1.0f), out(9, -1.0f);
  XnnConv conv;
  auto done = conv.Run(s, f, nullptr, x.data(), 1, 2, 2, 3, 3, out.data());
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done);
  EXPECT_EQ(out, std::vector<float>(9, -1.0f));
}

TEST(XnnConvTest, ConcurrentRunsAgree) {
  if (!nn::XnnpackAvailable()) GTEST_SKIP() << "XNNPACK unavailable";
  XnnConvSpec s;
  s.kh = s.kw = 3;
  s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
  s.in_channels = 16;
  s.out_channels = 24;
  std::mt19937 rng(5);
  auto x = Random(12 * 12 * 16, &rng);
  Tensor f = T_<float>({3, 3, 16, 24}, Random(3 * 3 * 16 * 24, &rng));
  XnnConv conv;
  std::vector<float> want(12 * 12 * 24);
  ASSERT_TRUE(
      *conv.Run(s, f, nullptr, x.data(), 1, 12, 12, 12, 12, want.data()));
  std::vector<std::vector<float>> got(4, std::vector<float>(want.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 20; ++r) {
        auto done =
            conv.Run(s, f, nullptr, x.data(), 1, 12, 12, 12, 12, got[t].data());
        if (!done.ok() || !*done) return;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(got[t], want) << "thread " << t;
}

}  // namespace
}  // namespace graphrt::testing
