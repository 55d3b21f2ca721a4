#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

// Naive NHWC depthwise reference.
std::vector<float> RefDepthwise(const std::vector<float>& x,
                                const std::vector<float>& f, int64_t n,
                                int64_t h, int64_t w, int64_t c, int64_t kh,
                                int64_t kw, int64_t m, int64_t sh, int64_t sw,
                                int64_t dh, int64_t dw, int64_t oh, int64_t ow,
                                int64_t pt, int64_t pl) {
  std::vector<float> out(n * oh * ow * c * m);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t q = 0; q < m; ++q) {
            double acc = 0;
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t iy = y * sh - pt + i * dh;
                const int64_t ix = xo * sw - pl + j * dw;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                acc += x[((b * h + iy) * w + ix) * c + ch] *
                       f[((i * kw + j) * c + ch) * m + q];
              }
            out[((b * oh + y) * ow + xo) * c * m + ch * m + q] =
                static_cast<float>(acc);
          }
  return out;
}

TEST(DepthwiseConvTest, RandomAgainstReference) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(1, 4);
  const char* paddings[3] = {"SAME", "VALID", "EXPLICIT"};
  int ran = 0;
  for (int iter = 0; iter < 100; ++iter) {
    const int64_t n = small(rng) % 2 + 1, h = small(rng) + 4,
                  w = small(rng) + 3, c = small(rng), m = small(rng) % 3 + 1,
                  kh = small(rng) % 3 + 1, kw = small(rng) % 3 + 1,
                  sh = small(rng), sw = small(rng),
                  dh = iter % 3 == 0 ? 2 : 1, dw = iter % 5 == 0 ? 2 : 1;
    const std::string padding = paddings[iter % 3];
    const int64_t pt = small(rng) - 1, pb = small(rng) - 1,
                  pl = small(rng) - 1, pr = small(rng) - 1;
    int64_t oh, ow, bt, bl;
    Window(h, kh, sh, dh, padding, pt, pb, &oh, &bt);
    Window(w, kw, sw, dw, padding, pl, pr, &ow, &bl);
    if (oh < 0 || ow < 0) continue;
    const bool nchw = iter % 2 == 1;
    auto x = Random(n * h * w * c, &rng);
    auto f = Random(kh * kw * c * m, &rng);
    auto want =
        RefDepthwise(x, f, n, h, w, c, kh, kw, m, sh, sw, dh, dw, oh, ow, bt, bl);
    OpTest t(iter % 4 == 0 ? "DepthwiseConv2d" : "DepthwiseConv2dNative");
    t.Attr("padding", padding);
    if (nchw) {
      t.Attr("data_format", "NCHW")
          .Attr("strides", std::vector<int64_t>{1, 1, sh, sw})
          .Attr("dilations", std::vector<int64_t>{1, 1, dh, dw});
      if (padding == "EXPLICIT") {
        t.Attr("explicit_paddings",
               std::vector<int64_t>{0, 0, 0, 0, pt, pb, pl, pr});
      }
    } else {
      t.Attr("strides", std::vector<int64_t>{1, sh, sw, 1})
          .Attr("dilations", std::vector<int64_t>{1, dh, dw, 1});
      if (padding == "EXPLICIT") {
        t.Attr("explicit_paddings",
               std::vector<int64_t>{0, 0, pt, pb, pl, pr, 0, 0});
      }
    }
    Tensor xt = nchw ? T_<float>({n, c, h, w}, Nhwc2Nchw(x, n, h, w, c))
                     : T_<float>({n, h, w, c}, x);
    auto out = t.Run({xt, T_<float>({kh, kw, c, m}, f)});
    ASSERT_TRUE(out.ok()) << out.status();
    if (nchw) {
      ASSERT_EQ((*out)[0].shape(), Shape({n, c * m, oh, ow}));
      ExpectNear(Values<float>((*out)[0]), Nhwc2Nchw(want, n, oh, ow, c * m));
    } else {
      ASSERT_EQ((*out)[0].shape(), Shape({n, oh, ow, c * m}));
      ExpectNear(Values<float>((*out)[0]), want);
    }
    ++ran;
  }
  EXPECT_GT(ran, 60);
}

TEST(DepthwiseConvTest, FusedVariants) {
  const Tensor x = T_<float>({1, 1, 1, 2}, {1, -3});
  const Tensor f = T_<float>({1, 1, 2, 1}, {2, 1});
  auto run = [&](std::vector<std::string> ops, std::vector<Tensor> args,
                 int64_t num_args) {
    OpTest t("FusedDepthwiseConv2dNative");
    t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", "SAME")
        .Attr("fused_ops", ops)
        .Attr("num_args", num_args);
    std::vector<Tensor> in = {x, f};
    for (auto& a : args) in.push_back(a);
    return t.Run(in);
  };
  auto r = run({"BiasAdd"}, {T_<float>({2}, {1, 1})}, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{3, -2}));
  r = run({"BiasAdd", "Relu6"}, {T_<float>({2}, {5, 1})}, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{6, 0}));
  r = run({"NoOp", "Relu"}, {}, 0);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{2, 0}));
  ExpectError(run({"FusedBatchNorm"}, {x, x, x, x}, 4), "fused_ops");
  ExpectError(run({"BiasAdd", "Relu"}, {}, 0), "num_args");
}

TEST(DepthwiseConvTest, Errors) {
  OpTest t("DepthwiseConv2dNative");
  t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "SAME");
  ExpectError(t.Run({T_<float>({1, 2, 2, 3}, {}), T_<float>({1, 1, 2, 1}, {})}),
              "filter depth");
  OpTest u("DepthwiseConv2dNative");
  u.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "SAME");
  ExpectError(u.Run({T_<float>({2, 2, 3}, {}), T_<float>({1, 1, 3, 1}, {})}),
              "rank 4");
  OpTest v("DepthwiseConv2dNative");
  v.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "XX");
  ExpectError(v.Run({T_<float>({1, 2, 2, 3}, {}), T_<float>({1, 1, 3, 1}, {})}),
              "padding");
}

TEST(Dilation2DTest, HandComputed) {
  // 1x3x3x1 input 1..9, 2x2 filter {0, 1, 2, 3}, VALID, rate 1.
  OpTest t("Dilation2D");
  t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("rates", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "VALID");
  auto out = t.Run({T_<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                    T_<float>({2, 2, 1}, {0, 1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2, 2, 1}));
  // max(x00+0, x01+1, x10+2, x11+3) = x11 + 3.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{8, 9, 11, 12}));
  // SAME, rate 2: window taps at +0 and +2.
  OpTest s("Dilation2D");
  s.Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("rates", std::vector<int64_t>{1, 1, 2, 1})
      .Attr("padding", "SAME");
  out = s.Run({T_<float>({1, 1, 3, 1}, {1, 5, 2}),
               T_<float>({1, 2, 1}, {0, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  // effective width 3, pad_left 1: x0 taps {-1, 1} -> 5; x1 {0, 2} -> 2;
  // x2 {1, 3} -> 5.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{5, 2, 5}));
}

}  // namespace
}  // namespace graphrt::testing
