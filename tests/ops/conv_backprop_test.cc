#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ops/array/op_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

TEST(Conv2DBackpropInputTest, HandComputed) {
  OpTest t("Conv2DBackpropInput");
  t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "VALID");
  auto r = t.Run({T_<int32_t>({4}, {1, 3, 3, 1}),
                  T_<float>({2, 2, 1, 1}, {1, 1, 1, 1}),
                  T_<float>({1, 2, 2, 1}, {1, 1, 1, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({1, 3, 3, 1}));
  EXPECT_EQ(Values<float>((*r)[0]),
            (std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

// <conv(x, f), dy> == <x, backprop(dy, f)> for random geometries.
TEST(Conv2DBackpropInputTest, AdjointOfConv2D) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> small(1, 4);
  const char* paddings[3] = {"SAME", "VALID", "EXPLICIT"};
  int ran = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const int64_t n = small(rng) % 2 + 1, h = small(rng) + 4,
                  w = small(rng) + 4, cin = small(rng), cout = small(rng),
                  kh = small(rng) % 3 + 1, kw = small(rng) % 3 + 1,
                  sh = small(rng), sw = small(rng), dh = iter % 3 ? 1 : 2,
                  dw = iter % 4 ? 1 : 2;
    const std::string padding = paddings[iter % 3];
    const int64_t pt = small(rng) - 1, pb = small(rng) - 1;
    const int64_t pl = small(rng) - 1, pr = small(rng) - 1;
    const bool nchw = iter % 2 == 1;
    std::vector<int64_t> strides = nchw ? std::vector<int64_t>{1, 1, sh, sw}
                                        : std::vector<int64_t>{1, sh, sw, 1};
    std::vector<int64_t> dil = nchw ? std::vector<int64_t>{1, 1, dh, dw}
                                    : std::vector<int64_t>{1, dh, dw, 1};
    std::vector<int64_t> pads =
        nchw ? std::vector<int64_t>{0, 0, 0, 0, pt, pb, pl, pr}
             : std::vector<int64_t>{0, 0, pt, pb, pl, pr, 0, 0};
    auto configure = [&](OpTest& t) {
      t.Attr("strides", strides)
          .Attr("dilations", dil)
          .Attr("padding", padding)
          .Attr("data_format", nchw ? "NCHW" : "NHWC");
      if (padding == std::string("EXPLICIT")) {
        t.Attr("explicit_paddings", pads);
      }
    };
    std::vector<int64_t> xshape = nchw ? std::vector<int64_t>{n, cin, h, w}
                                       : std::vector<int64_t>{n, h, w, cin};
    auto x = Random(n * h * w * cin, &rng);
    auto f = Random(kh * kw * cin * cout, &rng);
    OpTest conv("Conv2D");
    configure(conv);
    auto y =
        conv.Run({T_<float>(xshape, x), T_<float>({kh, kw, cin, cout}, f)});
    if (!y.ok()) continue;  // negative output size
    const Tensor& yt = (*y)[0];
    auto dy = Random(yt.num_elements(), &rng);
    std::vector<int64_t> ydims(yt.shape().dims().begin(),
                               yt.shape().dims().end());
    OpTest bp("Conv2DBackpropInput");
    configure(bp);
    std::vector<int32_t> sizes(xshape.begin(), xshape.end());
    auto dx = bp.Run({T_<int32_t>({4}, sizes),
                      T_<float>({kh, kw, cin, cout}, f), T_<float>(ydims, dy)});
    ASSERT_TRUE(dx.ok()) << dx.status();
    ASSERT_EQ((*dx)[0].shape(), Shape(absl::MakeConstSpan(xshape)));
    double lhs = 0, rhs = 0;
    auto yv = Values<float>(yt);
    for (size_t i = 0; i < yv.size(); ++i) lhs += yv[i] * dy[i];
    auto dxv = Values<float>((*dx)[0]);
    for (size_t i = 0; i < dxv.size(); ++i) rhs += x[i] * dxv[i];
    EXPECT_NEAR(lhs, rhs, 1e-3 * (1 + std::abs(lhs))) << "iter " << iter;
    ++ran;
  }
  EXPECT_GT(ran, 40);
}

// float32 (oneDNN's transposed convolution when it takes the geometry)
// against float64 (the portable GEMM + col2im), element by element, on the
// corpus's upsampling shapes: 2x2/2 (selfie), 4x4/2 SAME (efficientpose),
// 3x3/2 SAME (a trailing pad row), with more than 16 channels; 2x2/2 to 1
// or 2 channels (selfie's and meet's layers, the pixel-shuffle path).
TEST(Conv2DBackpropInputTest, Float32MatchesFloat64) {
  std::mt19937 rng(3);
  struct Case {
    int64_t k, h, cin, cout;
  };
  for (const Case& c :
       {Case{2, 16, 16, 1}, Case{4, 12, 16, 16}, Case{3, 11, 24, 20},
        Case{2, 8, 3, 40}, Case{2, 16, 1, 16}, Case{2, 12, 2, 16}}) {
    const int64_t oh = (c.h + 1) / 2;  // SAME, stride 2
    auto f = Random(c.k * c.k * c.cin * c.cout, &rng);
    auto dy = Random(2 * oh * oh * c.cout, &rng);
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      OpTest t("Conv2DBackpropInput");
      t.Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
          .Attr("padding", "SAME");
      auto r = t.Run(
          {T_<int32_t>({4},
                       {2, static_cast<int32_t>(c.h), static_cast<int32_t>(c.h),
                        static_cast<int32_t>(c.cin)}),
           T_<T>({c.k, c.k, c.cin, c.cout}, std::vector<T>(f.begin(), f.end())),
           T_<T>({2, oh, oh, c.cout}, std::vector<T>(dy.begin(), dy.end()))});
      EXPECT_TRUE(r.ok()) << r.status();
      std::vector<float> out;
      if (r.ok()) {
        for (T v : Values<T>((*r)[0])) out.push_back(static_cast<float>(v));
      }
      return out;
    };
    auto f32 = run(ops::TypeTag<float>{});
    auto f64 = run(ops::TypeTag<double>{});
    ASSERT_EQ(f32.size(), static_cast<size_t>(2 * c.h * c.h * c.cin));
    ExpectNear(f32, f64);
  }
}

TEST(Conv2DBackpropInputTest, Errors) {
  auto run = [](const Tensor& sizes, const Tensor& dy) {
    OpTest t("Conv2DBackpropInput");
    t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", "VALID");
    return t.Run({sizes, T_<float>({2, 2, 1, 1}, {1, 1, 1, 1}), dy});
  };
  ExpectError(run(T_<int32_t>({4}, {1, 3, 3, 1}), T_<float>({1, 3, 3, 1}, {})),
              "does not match");
  ExpectError(run(T_<int32_t>({3}, {1, 3, 3}), T_<float>({1, 2, 2, 1}, {})),
              "input_sizes");
  ExpectError(run(T_<int32_t>({4}, {1, 3, 3, 2}), T_<float>({1, 2, 2, 1}, {})),
              "depth");
  // 2-entry input_sizes [h, w] works.
  auto ok =
      run(T_<int32_t>({2}, {3, 3}), T_<float>({1, 2, 2, 1}, {1, 1, 1, 1}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[0].shape(), Shape({1, 3, 3, 1}));
}

}  // namespace
}  // namespace graphrt::testing
