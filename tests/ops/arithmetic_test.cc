#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                 const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

absl::StatusOr<Tensor> Bin(const std::string& op, const Tensor& x,
                           const Tensor& y) {
  OpTest t(op);
  t.Attr("T", x.dtype());
  auto out = t.Run({x, y});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

template <typename T>
std::vector<T> BinV(const std::string& op, const Tensor& x, const Tensor& y) {
  auto r = Bin(op, x, y);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status();
  if (!r.ok()) return {};
  return Values<T>(*r);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(ArithmeticTest, DivTruncatesIntsAndDividesFloats) {
  const Tensor a = T_<int32_t>({4}, {7, -7, 7, -7});
  const Tensor b = T_<int32_t>({4}, {2, 2, -2, -2});
  EXPECT_EQ(BinV<int32_t>("Div", a, b), (std::vector<int32_t>{3, -3, -3, 3}));
  EXPECT_EQ(BinV<float>("Div", T_<float>({2}, {1, -3}), T_<float>({1}, {2})),
            (std::vector<float>{0.5f, -1.5f}));
  const int32_t mn = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(
      BinV<int32_t>("Div", T_<int32_t>({1}, {mn}), Tensor::Scalar<int32_t>(-1)),
      (std::vector<int32_t>{mn}));
  OpTest t("Div");
  ExpectError(t.Run({T_<int64_t>({2}, {1, 2}), T_<int64_t>({2}, {1, 0})}),
              "Integer division by zero");
}

TEST(ArithmeticTest, DivNoNan) {
  EXPECT_EQ(BinV<float>("DivNoNan", T_<float>({3}, {1, 0, 6}),
                        T_<float>({3}, {0, 0, 3})),
            (std::vector<float>{0, 0, 2}));
  OpTest t("DivNoNan");
  t.Attr("T", DType::kInt32);
  EXPECT_FALSE(t.Create(2).ok());
}

TEST(ArithmeticTest, FloorDivAndFloorMod) {
  const Tensor a = T_<int32_t>({4}, {7, -7, 7, -7});
  const Tensor b = T_<int32_t>({4}, {2, 2, -2, -2});
  EXPECT_EQ(BinV<int32_t>("FloorDiv", a, b),
            (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(BinV<int32_t>("FloorMod", a, b),
            (std::vector<int32_t>{1, 1, -1, -1}));
  EXPECT_EQ(BinV<float>("FloorDiv", T_<float>({2}, {7, -7}),
                        Tensor::Scalar<float>(2)),
            (std::vector<float>{3, -4}));
  EXPECT_EQ(BinV<float>("FloorMod", T_<float>({3}, {7, -7, 7.5f}),
                        T_<float>({3}, {2, 2, -2})),
            (std::vector<float>{1, 1, -0.5f}));
  // Overflow corner cases are defined (no trap, no UB).
  const int32_t mn = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(
      BinV<int32_t>("FloorDiv", T_<int32_t>({1}, {mn}), T_<int32_t>({1}, {-1})),
      (std::vector<int32_t>{mn}));
  EXPECT_EQ(
      BinV<int32_t>("FloorMod", T_<int32_t>({1}, {mn}), T_<int32_t>({1}, {-1})),
      (std::vector<int32_t>{0}));
  const int64_t mn64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(
      BinV<int64_t>("FloorMod", T_<int64_t>({2}, {mn64, mn64}),
                    T_<int64_t>({2}, {-1, 3})),
      (std::vector<int64_t>{0, 1}));  // -2^63 = 3 * -3074457345618258603 + 1
  OpTest t("FloorMod");
  ExpectError(t.Run({T_<int32_t>({1}, {1}), T_<int32_t>({1}, {0})}),
              "Integer division by zero");
  OpTest t2("FloorDiv");
  ExpectError(t2.Run({T_<uint8_t>({1}, {1}), T_<uint8_t>({1}, {0})}),
              "Integer division by zero");
  EXPECT_EQ(
      BinV<uint8_t>("FloorDiv", T_<uint8_t>({1}, {200}), T_<uint8_t>({1}, {3})),
      (std::vector<uint8_t>{66}));
}

TEST(ArithmeticTest, ModIsTruncated) {
  EXPECT_EQ(BinV<int32_t>("Mod", T_<int32_t>({4}, {7, -7, 7, -7}),
                          T_<int32_t>({4}, {2, 2, -2, -2})),
            (std::vector<int32_t>{1, -1, 1, -1}));
  EXPECT_EQ(
      BinV<float>("Mod", T_<float>({2}, {-3, 3}), Tensor::Scalar<float>(2)),
      (std::vector<float>{-1, 1}));
  EXPECT_EQ(BinV<int32_t>("Mod", T_<int32_t>({1}, {INT32_MIN}),
                          Tensor::Scalar<int32_t>(-1)),
            (std::vector<int32_t>{0}));
  OpTest t("Mod");
  ExpectError(t.Run({T_<int32_t>({1}, {1}), T_<int32_t>({1}, {0})}),
              "Integer division by zero");
}

TEST(ArithmeticTest, MaximumMinimumPropagateNaN) {
  const Tensor a = T_<float>({4}, {1, kNaN, 3, kNaN});
  const Tensor b = T_<float>({4}, {kNaN, 2, 1, kNaN});
  for (const char* op : {"Maximum", "Minimum"}) {
    auto v = BinV<float>(op, a, b);
    ASSERT_EQ(v.size(), 4u);
    EXPECT_TRUE(std::isnan(v[0])) << op;
    EXPECT_TRUE(std::isnan(v[1])) << op;
    EXPECT_TRUE(std::isnan(v[3])) << op;
    EXPECT_EQ(v[2], std::string(op) == "Maximum" ? 3 : 1);
  }
  // Broadcasting: [2,2] vs [2].
  EXPECT_EQ(BinV<int32_t>("Maximum", T_<int32_t>({2, 2}, {1, 5, 3, -2}),
                          T_<int32_t>({2}, {2, 0})),
            (std::vector<int32_t>{2, 5, 3, 0}));
  EXPECT_EQ(BinV<int64_t>("Minimum", T_<int64_t>({2, 1}, {1, 5}),
                          T_<int64_t>({1, 2}, {2, 4})),
            (std::vector<int64_t>{1, 1, 2, 4}));
}

TEST(ArithmeticTest, Pow) {
  EXPECT_EQ(BinV<int32_t>("Pow", T_<int32_t>({4}, {2, -3, 0, 7}),
                          T_<int32_t>({4}, {10, 3, 0, 1})),
            (std::vector<int32_t>{1024, -27, 1, 7}));
  // Wraps on overflow: 2^40 mod 2^32 == 0.
  EXPECT_EQ(BinV<int32_t>("Pow", T_<int32_t>({1}, {2}), T_<int32_t>({1}, {40})),
            (std::vector<int32_t>{0}));
  auto f = BinV<float>("Pow", T_<float>({3}, {2, 4, -8}),
                       T_<float>({3}, {0.5f, -1, 2}));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_FLOAT_EQ(f[0], std::sqrt(2.f));
  EXPECT_FLOAT_EQ(f[1], 0.25f);
  EXPECT_FLOAT_EQ(f[2], 64.f);
  OpTest t("Pow");
  ExpectError(t.Run({T_<int32_t>({2}, {2, 2}), T_<int32_t>({2}, {1, -1})}),
              "negative integer powers");
}

TEST(ArithmeticTest, SquaredDifferenceAtan2Prelu) {
  EXPECT_EQ(BinV<float>("SquaredDifference", T_<float>({3}, {1, 2, 3}),
                        Tensor::Scalar<float>(4)),
            (std::vector<float>{9, 4, 1}));
  EXPECT_EQ(BinV<int32_t>("SquaredDifference", T_<int32_t>({1}, {-3}),
                          T_<int32_t>({1}, {2})),
            (std::vector<int32_t>{25}));
  auto c = BinV<complex64>("SquaredDifference",
                           T_<complex64>({1}, {complex64(1, 2)}),
                           T_<complex64>({1}, {complex64(0, 0)}));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], complex64(5, 0));
  auto at =
      BinV<float>("Atan2", T_<float>({2}, {1, -1}), T_<float>({2}, {0, -1}));
  ASSERT_EQ(at.size(), 2u);
  EXPECT_FLOAT_EQ(at[0], static_cast<float>(M_PI / 2));
  EXPECT_FLOAT_EQ(at[1], static_cast<float>(-3 * M_PI / 4));
  // Prelu: per-channel alpha broadcast over [2,2].
  EXPECT_EQ(BinV<float>("Prelu", T_<float>({2, 2}, {-1, 2, -4, 0}),
                        T_<float>({2}, {0.5f, 0.1f})),
            (std::vector<float>{-0.5f, 2, -2, 0}));
}

TEST(ArithmeticTest, EmptyAndBroadcastErrors) {
  auto e =
      Bin("FloorDiv", T_<int32_t>({0, 3}, {}), T_<int32_t>({3}, {1, 2, 3}));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), Shape({0, 3}));
  OpTest t("Maximum");
  ExpectError(t.Run({T_<float>({2}, {1, 2}), T_<float>({3}, {1, 2, 3})}),
              "Incompatible shapes");
  OpTest t2("Minimum");
  ExpectError(t2.Run({T_<float>({1}, {1}), T_<int32_t>({1}, {1})}),
              "same dtype");
  OpTest t3("Atan2");
  ExpectError(t3.Run({T_<int32_t>({1}, {1}), T_<int32_t>({1}, {1})}),
              "does not support");
  OpTest t4("Pow");
  EXPECT_FALSE(t4.Create(3).ok());
}

TEST(ArithmeticTest, LargeBroadcastMatchesSerial) {
  const int n = 64 * 1024;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>((i % 211) - 100);
  auto v = BinV<float>("FloorMod", T_<float>({n / 16, 16}, x),
                       T_<float>({16}, std::vector<float>(16, 7.f)));
  ASSERT_EQ(v.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    float r = std::fmod(x[i], 7.f);
    if (r != 0 && r < 0) r += 7.f;
    ASSERT_EQ(v[i], r) << i;
  }
}

// Prelu with alpha per channel (the last dim; its own loop) and per row
// (the general broadcast) on a tensor large enough to be split across
// threads, against an element-by-element reference; NaN stays NaN.
TEST(ArithmeticTest, PreluPerChannelAndPerRow) {
  const int64_t h = 64, w = 64, c = 16;
  std::vector<float> x(h * w * c);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(static_cast<int>(i % 23) - 11) * 0.25f;
  }
  x[5] = kNaN;
  std::vector<float> per_channel(c), per_row(h);
  for (int64_t i = 0; i < c; ++i) per_channel[i] = 0.01f * (i + 1);
  for (int64_t i = 0; i < h; ++i) per_row[i] = -0.5f + 0.02f * i;
  auto channel_out = BinV<float>("Prelu", T_<float>({1, h, w, c}, x),
                                 T_<float>({1, 1, c}, per_channel));
  auto row_out = BinV<float>("Prelu", T_<float>({1, h, w, c}, x),
                             T_<float>({h, 1, 1}, per_row));
  ASSERT_EQ(channel_out.size(), x.size());
  ASSERT_EQ(row_out.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float a = per_channel[i % c];
    const float b = per_row[i / (w * c)];
    const float want_c = x[i] >= 0 ? x[i] : a * x[i];
    const float want_r = x[i] >= 0 ? x[i] : b * x[i];
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(channel_out[i]) && std::isnan(row_out[i]));
      continue;
    }
    ASSERT_EQ(channel_out[i], want_c) << i;
    ASSERT_EQ(row_out[i], want_r) << i;
  }
}

TEST(ArithmeticTest, AddN) {
  OpTest t("AddN");
  t.Attr("N", int64_t{3}).Attr("T", DType::kFloat32);
  auto out = t.Run({T_<float>({2}, {1, 2}), T_<float>({2}, {10, 20}),
                    T_<float>({2}, {100, 200})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{111, 222}));
  OpTest one("AddN");
  auto o1 = one.Run({T_<int32_t>({1}, {INT32_MAX})});
  ASSERT_TRUE(o1.ok());
  EXPECT_EQ(Values<int32_t>((*o1)[0]), (std::vector<int32_t>{INT32_MAX}));
  OpTest wrap("AddN");
  auto w = wrap.Run({T_<int32_t>({1}, {INT32_MAX}), T_<int32_t>({1}, {1})});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Values<int32_t>((*w)[0]), (std::vector<int32_t>{INT32_MIN}));
  OpTest bad("AddN");
  ExpectError(bad.Run({T_<float>({2}, {1, 2}), T_<float>({1}, {1})}),
              "same dtype and shape");
  OpTest badn("AddN");
  badn.Attr("N", int64_t{2});
  EXPECT_FALSE(badn.Create(3).ok());
}

}  // namespace
}  // namespace graphrt::testing
