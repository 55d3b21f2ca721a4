#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

// [n, h, w, c] <-> [n, c, h, w].
std::vector<float> Nhwc2Nchw(const std::vector<float>& v, int64_t n, int64_t h,
                             int64_t w, int64_t c) {
  std::vector<float> o(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k)
          o[((b * c + k) * h + y) * w + x] = v[((b * h + y) * w + x) * c + k];
  return o;
}

struct Conv2DCase {
  int64_t n, h, w, cin, cout, kh, kw, sh, sw, dh, dw;
  std::string padding;  // SAME VALID EXPLICIT
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
};

// Naive NHWC reference; returns output dims in oh/ow.
std::vector<float> RefConv2D(const Conv2DCase& c, const std::vector<float>& x,
                             const std::vector<float>& f, int64_t* oh_out,
                             int64_t* ow_out) {
  const int64_t ekh = (c.kh - 1) * c.dh + 1, ekw = (c.kw - 1) * c.dw + 1;
  int64_t oh, ow, pt, pl;
  if (c.padding == "VALID") {
    oh = (c.h - ekh + c.sh) / c.sh;
    ow = (c.w - ekw + c.sw) / c.sw;
    pt = pl = 0;
  } else if (c.padding == "SAME") {
    oh = (c.h + c.sh - 1) / c.sh;
    ow = (c.w + c.sw - 1) / c.sw;
    pt = std::max<int64_t>(0, (oh - 1) * c.sh + ekh - c.h) / 2;
    pl = std::max<int64_t>(0, (ow - 1) * c.sw + ekw - c.w) / 2;
  } else {
    oh = (c.h + c.pt + c.pb - ekh + c.sh) / c.sh;
    ow = (c.w + c.pl + c.pr - ekw + c.sw) / c.sw;
    pt = c.pt;
    pl = c.pl;
  }
  *oh_out = oh;
  *ow_out = ow;
  std::vector<float> out(c.n * oh * ow * c.cout, 0.f);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo)
        for (int64_t co = 0; co < c.cout; ++co) {
          double acc = 0;
          for (int64_t i = 0; i < c.kh; ++i)
            for (int64_t j = 0; j < c.kw; ++j) {
              const int64_t iy = y * c.sh - pt + i * c.dh;
              const int64_t ix = xo * c.sw - pl + j * c.dw;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              for (int64_t ci = 0; ci < c.cin; ++ci) {
                acc += x[((b * c.h + iy) * c.w + ix) * c.cin + ci] *
                       f[((i * c.kw + j) * c.cin + ci) * c.cout + co];
              }
            }
          out[((b * oh + y) * ow + xo) * c.cout + co] = static_cast<float>(acc);
        }
  return out;
}

TEST(Conv2DTest, RandomAgainstReference) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> small(1, 4);
  const char* paddings[3] = {"SAME", "VALID", "EXPLICIT"};
  int ran = 0;
  for (int iter = 0; iter < 120; ++iter) {
    Conv2DCase c;
    c.n = small(rng) % 2 + 1;
    c.h = small(rng) + small(rng) * 2;
    c.w = small(rng) + small(rng) * 2;
    c.cin = small(rng);
    c.cout = small(rng);
    c.kh = small(rng) % 3 + 1;
    c.kw = small(rng) % 3 + 1;
    c.sh = small(rng);
    c.sw = small(rng);
    c.dh = iter % 3 == 0 ? small(rng) % 2 + 1 : 1;
    c.dw = iter % 4 == 0 ? small(rng) % 3 + 1 : 1;
    c.padding = paddings[iter % 3];
    if (c.padding == "EXPLICIT") {
      c.pt = small(rng) - 1;
      c.pb = small(rng) - 1;
      c.pl = small(rng) - 1;
      c.pr = small(rng) - 1;
    }
    if (c.padding == "VALID" &&
        (c.h < (c.kh - 1) * c.dh + 1 || c.w < (c.kw - 1) * c.dw + 1)) {
      continue;
    }
    const bool nchw = iter % 2 == 1;
    auto x = Random(c.n * c.h * c.w * c.cin, &rng);
    auto f = Random(c.kh * c.kw * c.cin * c.cout, &rng);
    int64_t oh, ow;
    auto want = RefConv2D(c, x, f, &oh, &ow);
    OpTest t("Conv2D");
    t.Attr("T", DType::kFloat32).Attr("padding", c.padding);
    if (nchw) {
      t.Attr("data_format", "NCHW");
      t.Attr("strides", std::vector<int64_t>{1, 1, c.sh, c.sw});
      t.Attr("dilations", std::vector<int64_t>{1, 1, c.dh, c.dw});
      if (c.padding == "EXPLICIT") {
        t.Attr("explicit_paddings",
               std::vector<int64_t>{0, 0, 0, 0, c.pt, c.pb, c.pl, c.pr});
      }
    } else {
      t.Attr("strides", std::vector<int64_t>{1, c.sh, c.sw, 1});
      t.Attr("dilations", std::vector<int64_t>{1, c.dh, c.dw, 1});
      if (c.padding == "EXPLICIT") {
        t.Attr("explicit_paddings",
               std::vector<int64_t>{0, 0, c.pt, c.pb, c.pl, c.pr, 0, 0});
      }
    }
    Tensor xt = nchw ? T_<float>({c.n, c.cin, c.h, c.w},
                                 Nhwc2Nchw(x, c.n, c.h, c.w, c.cin))
                     : T_<float>({c.n, c.h, c.w, c.cin}, x);
    auto out = t.Run({xt, T_<float>({c.kh, c.kw, c.cin, c.cout}, f)});
    ASSERT_TRUE(out.ok()) << out.status() << " iter " << iter;
    const Tensor& o = (*out)[0];
    if (nchw) {
      ASSERT_EQ(o.shape(), Shape({c.n, c.cout, oh, ow})) << iter;
      ExpectNear(Values<float>(o), Nhwc2Nchw(want, c.n, oh, ow, c.cout));
    } else {
      ASSERT_EQ(o.shape(), Shape({c.n, oh, ow, c.cout})) << iter;
      ExpectNear(Values<float>(o), want);
    }
    ++ran;
  }
  EXPECT_GT(ran, 80);
}

TEST(Conv2DTest, HandComputed) {
  // 1x3x3x1 input 1..9, 2x2 filter of ones, VALID, stride 1.
  OpTest t("Conv2D");
  t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "VALID");
  auto out = t.Run({T_<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                    T_<float>({2, 2, 1, 1}, {1, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2, 2, 1}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{12, 16, 24, 28}));
  // SAME with stride 2: output 2x2, pad_before 0 (needed 1 -> 0 before).
  OpTest s("Conv2D");
  s.Attr("strides", std::vector<int64_t>{1, 2, 2, 1}).Attr("padding", "SAME");
  out = s.Run({T_<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
               T_<float>({2, 2, 1, 1}, {1, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{12, 9, 15, 9}));
}

TEST(Conv2DTest, OneByOneAndDouble) {
  OpTest t("Conv2D");
  t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "SAME");
  auto out = t.Run({T_<double>({1, 1, 2, 2}, {1, 2, 3, 4}),
                    T_<double>({1, 1, 2, 3}, {1, 0, 1, 0, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<double>((*out)[0]), (std::vector<double>{1, 2, 3, 3, 4, 7}));
}

TEST(FusedConv2DTest, BiasActivationsAndBatchNorm) {
  const Tensor x = T_<float>({1, 1, 2, 2}, {1, -2, 3, -4});
  const Tensor f = T_<float>({1, 1, 2, 2}, {1, 0, 0, 1});
  const Tensor bias = T_<float>({2}, {0.5f, -0.5f});
  auto run = [&](std::vector<std::string> ops, std::vector<Tensor> args,
                 int64_t num_args) {
    OpTest t("_FusedConv2D");
    t.Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", "VALID")
        .Attr("fused_ops", ops)
        .Attr("num_args", num_args)
        .Attr("epsilon", 0.f)
        .Attr("leakyrelu_alpha", 0.5f);
    std::vector<Tensor> in = {x, f};
    for (auto& a : args) in.push_back(a);
    return t.Run(in);
  };
  auto r = run({"BiasAdd"}, {bias}, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1.5, -2.5, 3.5, -4.5}));
  r = run({"BiasAdd", "Relu"}, {bias}, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1.5, 0, 3.5, 0}));
  r = run({"BiasAdd", "LeakyRelu"}, {bias}, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]),
            (std::vector<float>{1.5, -1.25, 3.5, -2.25}));
  r = run({"BiasAdd", "Prelu"}, {bias, T_<float>({2}, {0.1f, 0.2f})}, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {1.5f, -0.5f, 3.5f, -0.9f}, 1e-6f);
  // BatchNorm: (x - mean) / sqrt(var) * scale + offset.
  r = run({"FusedBatchNorm", "Relu6"},
          {T_<float>({2}, {2, 1}), T_<float>({2}, {1, 0}),
           T_<float>({2}, {0, -10}), T_<float>({2}, {4, 1})},
          4);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {2, 6, 4, 6}, 1e-6f);
  // [BiasAdd, Add(, act)] (graphrt's FuseConvAdd): + addend, then act. A
  // same-shape addend, then one that broadcasts ([2] against [1,1,2,2]).
  const Tensor addend = T_<float>({1, 1, 2, 2}, {-2, 1, 0.25f, 10});
  r = run({"BiasAdd", "Add"}, {bias, addend}, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]),
            (std::vector<float>{-0.5, -1.5, 3.75, 5.5}));
  r = run({"BiasAdd", "Add", "Relu6"}, {bias, addend}, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{0, 0, 3.75, 5.5}));
  r = run({"BiasAdd", "Add", "Relu"}, {bias, bias}, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{2, 0, 4, 0}));
  // [BiasAdd, Add, Prelu] (FuseConvPrelu after FuseConvAdd): the slope
  // applies after the addend, same-shape or broadcast.
  const Tensor slope = T_<float>({2}, {0.1f, 0.2f});
  r = run({"BiasAdd", "Add", "Prelu"}, {bias, addend, slope}, 3);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {-0.05f, -0.3f, 3.75f, 5.5f}, 1e-6f);
  r = run({"BiasAdd", "Add", "Prelu"}, {bias, bias, slope}, 3);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {2, -0.6f, 4, -1}, 1e-6f);
  {
    // float64: the portable kernel, then the residual and the slope.
    auto d = [](const Tensor& t) {
      const std::vector<float> v = Values<float>(t);
      std::vector<int64_t> dims;
      for (int i = 0; i < t.rank(); ++i) dims.push_back(t.dim(i));
      return T_<double>(dims, std::vector<double>(v.begin(), v.end()));
    };
    OpTest t("_FusedConv2D");
    t.Attr("T", DType::kFloat64)
        .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", "VALID")
        .Attr("fused_ops", std::vector<std::string>{"BiasAdd", "Add", "Prelu"})
        .Attr("num_args", int64_t{3});
    auto rd = t.Run({d(x), d(f), d(bias), d(addend), d(slope)});
    ASSERT_TRUE(rd.ok()) << rd.status();
    const std::vector<double> got = Values<double>((*rd)[0]);
    const std::vector<double> want = {-0.05, -0.3, 3.75, 5.5};
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-7);
  }
  ExpectError(run({"BiasAdd", "Add", "Prelu"}, {bias, addend}, 2), "num_args");
  // Bad configurations fail at load.
  ExpectError(run({"BiasAdd", "Add", "Elu"}, {bias, bias}, 2), "fused_ops");
  ExpectError(run({"BiasAdd", "Add"}, {bias}, 1), "num_args");
  ExpectError(run({"BiasAdd"}, {bias, bias}, 2), "num_args");
  ExpectError(run({"BiasAdd"}, {T_<float>({3}, {1, 2, 3})}, 1), "bias");
}

TEST(Conv2DTest, Errors) {
  auto conv = [](std::vector<int64_t> strides, std::string padding,
                 const Tensor& x, const Tensor& f) {
    OpTest t("Conv2D");
    t.Attr("strides", strides).Attr("padding", padding);
    return t.Run({x, f});
  };
  const Tensor x = T_<float>({1, 3, 3, 2}, std::vector<float>(18, 1));
  const Tensor f = T_<float>({2, 2, 2, 1}, std::vector<float>(8, 1));
  ExpectError(conv({1, 1, 1, 1}, "VALID", T_<float>({3, 3, 2}, {}), f),
              "rank 4");
  ExpectError(conv({1, 1, 1, 1}, "VALID", x, T_<float>({2, 2, 3, 1}, {})),
              "filter depth");
  ExpectError(conv({1, 1, 1, 1}, "FULL", x, f), "padding");
  ExpectError(conv({1, 1, 1}, "VALID", x, f), "strides");
  ExpectError(conv({2, 1, 1, 1}, "VALID", x, f), "batch");
  ExpectError(conv({1, 1, 1, 1}, "EXPLICIT", x, f), "explicit_paddings");
  ExpectError(conv({1, 1, 1, 1}, "VALID", x, T_<float>({5, 5, 2, 1}, {})),
              "negative");
  ExpectError(conv({1, 1, 1, 1}, "VALID", T_<int32_t>({1, 3, 3, 2}, {}),
                   T_<int32_t>({2, 2, 2, 1}, {})),
              "float32");
}

TEST(Conv1DAnd3DTest, MatchConv2D) {
  // Conv1D NWC == Conv2D with h = 1.
  std::mt19937 rng(7);
  auto x = Random(2 * 7 * 3, &rng);
  auto f = Random(3 * 3 * 2, &rng);
  OpTest c1("Conv1D");
  c1.Attr("stride", int64_t{2})
      .Attr("dilation", int64_t{1})
      .Attr("padding", "SAME");
  auto r1 = c1.Run({T_<float>({2, 7, 3}, x), T_<float>({3, 3, 2}, f)});
  ASSERT_TRUE(r1.ok()) << r1.status();
  OpTest c2("Conv2D");
  c2.Attr("strides", std::vector<int64_t>{1, 1, 2, 1}).Attr("padding", "SAME");
  auto r2 = c2.Run({T_<float>({2, 1, 7, 3}, x), T_<float>({1, 3, 3, 2}, f)});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ((*r1)[0].shape(), Shape({2, 4, 2}));
  ExpectNear(Values<float>((*r1)[0]), Values<float>((*r2)[0]), 1e-6f);
  // Conv3D with depth 1 == Conv2D.
  OpTest c3("Conv3D");
  c3.Attr("strides", std::vector<int64_t>{1, 1, 1, 2, 1})
      .Attr("padding", "SAME");
  auto r3 =
      c3.Run({T_<float>({2, 1, 1, 7, 3}, x), T_<float>({1, 1, 3, 3, 2}, f)});
  ASSERT_TRUE(r3.ok()) << r3.status();
  ExpectNear(Values<float>((*r3)[0]), Values<float>((*r2)[0]), 1e-6f);
  // A real 3-d case: 2x2x2 input of ones, 2x2x2 filter of ones, VALID -> 8.
  OpTest c4("Conv3D");
  c4.Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1})
      .Attr("padding", "VALID");
  auto r4 = c4.Run({T_<float>({1, 2, 2, 2, 1}, std::vector<float>(8, 1)),
                    T_<float>({2, 2, 2, 1, 1}, std::vector<float>(8, 1))});
  ASSERT_TRUE(r4.ok()) << r4.status();
  EXPECT_EQ(Values<float>((*r4)[0]), (std::vector<float>{8}));
}

}  // namespace
}  // namespace graphrt::testing
