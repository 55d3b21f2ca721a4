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

// Naive NHWC pooling reference (max or avg over in-range cells).
std::vector<float> RefPool(bool is_max, const std::vector<float>& x, int64_t n,
                           int64_t h, int64_t w, int64_t c, int64_t kh,
                           int64_t kw, int64_t sh, int64_t sw, int64_t oh,
                           int64_t ow, int64_t pt, int64_t pl) {
  std::vector<float> out(n * oh * ow * c);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo)
        for (int64_t ch = 0; ch < c; ++ch) {
          float best = -std::numeric_limits<float>::max();
          double sum = 0;
          int cnt = 0;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t iy = y * sh - pt + i, ix = xo * sw - pl + j;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              const float v = x[((b * h + iy) * w + ix) * c + ch];
              best = std::max(best, v);
              sum += v;
              ++cnt;
            }
          out[((b * oh + y) * ow + xo) * c + ch] =
              is_max ? best : static_cast<float>(sum / cnt);
        }
  return out;
}

TEST(PoolingTest, RandomAgainstReference) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(1, 4);
  int ran = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const bool is_max = iter % 2 == 0;
    const bool nchw = (iter / 2) % 2 == 1;
    std::string padding = (iter / 4) % 2 ? "SAME" : "VALID";
    if (is_max && iter % 3 == 0) padding = "EXPLICIT";
    const int64_t n = small(rng) % 2 + 1, h = small(rng) + 3,
                  w = small(rng) + 3, kh = small(rng) % 3 + 1,
                  kw = small(rng) % 3 + 1, sh = small(rng), sw = small(rng);
    // Every third case has enough channels for the kernel's 64-, 16-, 8-
    // and 4-wide channel blocks (and a remainder after them).
    constexpr int64_t kWideChannels[] = {16, 19, 28, 64, 83, 95};
    const int64_t c =
        iter % 3 == 1 ? kWideChannels[(iter / 3) % 6] : small(rng);
    const int64_t pt = small(rng) % kh, pb = small(rng) % kh,
                  pl = small(rng) % kw, pr = small(rng) % kw;
    int64_t oh, ow, bt, bl;
    Window(h, kh, sh, 1, padding, pt, pb, &oh, &bt);
    Window(w, kw, sw, 1, padding, pl, pr, &ow, &bl);
    auto x = Random(n * h * w * c, &rng);
    auto want = RefPool(is_max, x, n, h, w, c, kh, kw, sh, sw, oh, ow, bt, bl);
    OpTest t(is_max ? "MaxPool" : "AvgPool");
    t.Attr("padding", padding);
    if (nchw) {
      t.Attr("data_format", "NCHW")
          .Attr("ksize", std::vector<int64_t>{1, 1, kh, kw})
          .Attr("strides", std::vector<int64_t>{1, 1, sh, sw});
      if (padding == "EXPLICIT") {
        t.Attr("explicit_paddings",
               std::vector<int64_t>{0, 0, 0, 0, pt, pb, pl, pr});
      }
    } else {
      t.Attr("ksize", std::vector<int64_t>{1, kh, kw, 1})
          .Attr("strides", std::vector<int64_t>{1, sh, sw, 1});
      if (padding == "EXPLICIT") {
        t.Attr("explicit_paddings",
               std::vector<int64_t>{0, 0, pt, pb, pl, pr, 0, 0});
      }
    }
    Tensor xt = nchw ? T_<float>({n, c, h, w}, Nhwc2Nchw(x, n, h, w, c))
                     : T_<float>({n, h, w, c}, x);
    auto out = t.Run({xt});
    ASSERT_TRUE(out.ok()) << out.status();
    if (nchw) {
      ASSERT_EQ((*out)[0].shape(), Shape({n, c, oh, ow}));
      ExpectNear(Values<float>((*out)[0]), Nhwc2Nchw(want, n, oh, ow, c));
    } else {
      ASSERT_EQ((*out)[0].shape(), Shape({n, oh, ow, c}));
      ExpectNear(Values<float>((*out)[0]), want);
    }
    ++ran;
  }
  EXPECT_EQ(ran, 120);
}

TEST(PoolingTest, HandComputedAndIntegers) {
  // AvgPool SAME 2x2 stride 2 on 3x3: corners divide by the valid count.
  OpTest a("AvgPool");
  a.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("padding", "SAME");
  auto r = a.Run({T_<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{3, 4.5, 7.5, 9}));
  OpTest m("MaxPool");
  m.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "VALID");
  r = m.Run({T_<int32_t>({1, 2, 3, 1}, {-5, -1, -7, -2, -9, -3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{-1, -1}));
}

TEST(PoolingTest, Pool3D) {
  OpTest m("MaxPool3D");
  m.Attr("ksize", std::vector<int64_t>{1, 2, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 2, 2, 2, 1})
      .Attr("padding", "VALID");
  std::vector<float> x(8);
  for (int i = 0; i < 8; ++i) x[i] = static_cast<float>((i * 5) % 8);
  auto r = m.Run({T_<float>({1, 2, 2, 2, 1}, x)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({1, 1, 1, 1, 1}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{7}));
  OpTest a("AvgPool3D");
  a.Attr("ksize", std::vector<int64_t>{1, 1, 2, 2, 2})
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1})
      .Attr("padding", "SAME")
      .Attr("data_format", "NCDHW");
  r = a.Run({T_<float>({1, 1, 2, 2, 2}, x)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({1, 1, 2, 2, 2}));
  EXPECT_FLOAT_EQ(Values<float>((*r)[0])[0], 3.5f);
  EXPECT_FLOAT_EQ(Values<float>((*r)[0])[7], x[7]);
}

TEST(PoolingTest, MaxPoolWithArgmax) {
  auto run = [](bool include_batch) {
    OpTest t("MaxPoolWithArgmax");
    t.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
        .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
        .Attr("padding", "VALID")
        .Attr("include_batch_in_index", include_batch);
    return t.Run({T_<float>({2, 2, 2, 1}, {1, 4, 3, 2, 5, 5, 0, 1})});
  };
  auto r = run(false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{4, 5}));
  EXPECT_EQ((*r)[1].dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>((*r)[1]), (std::vector<int64_t>{1, 0}));
  r = run(true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int64_t>((*r)[1]), (std::vector<int64_t>{1, 4}));
}

TEST(PoolingTest, Errors) {
  OpTest a("MaxPool");
  a.Attr("ksize", std::vector<int64_t>{2, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "VALID");
  ExpectError(a.Run({T_<float>({1, 3, 3, 1}, {})}), "batch");
  OpTest b("AvgPool");
  b.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "EXPLICIT");
  ExpectError(b.Run({T_<float>({1, 3, 3, 1}, {})}), "padding");
  OpTest c("MaxPool");
  c.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "VALID");
  ExpectError(c.Run({T_<float>({3, 3, 1}, {})}), "rank 4");
  OpTest d("AvgPool");
  d.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "VALID");
  ExpectError(d.Run({T_<int32_t>({1, 3, 3, 1}, {})}), "dtype");
}

}  // namespace
}  // namespace graphrt::testing
