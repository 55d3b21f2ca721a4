#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

absl::StatusOr<Tensor> Un(const std::string& op, const Tensor& x) {
  OpTest t(op);
  t.Attr("T", x.dtype());
  auto out = t.Run({x});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

template <typename T>
std::vector<T> UnV(const std::string& op, const Tensor& x) {
  auto r = Un(op, x);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(r->shape(), x.shape());
  return Values<T>(*r);
}

TEST(UnaryOpsTest, FloatFunctionsMatchStd) {
  const std::vector<float> xs = {-0.9f, -0.3f, 0.f, 0.25f, 0.7f};
  struct Case {
    const char* op;
    float (*f)(float);
  };
  const Case cases[] = {
      {"Acos", [](float v) { return std::acos(v); }},
      {"Asin", [](float v) { return std::asin(v); }},
      {"Asinh", [](float v) { return std::asinh(v); }},
      {"Atan", [](float v) { return std::atan(v); }},
      {"Atanh", [](float v) { return std::atanh(v); }},
      {"Ceil", [](float v) { return std::ceil(v); }},
      {"Cos", [](float v) { return std::cos(v); }},
      {"Cosh", [](float v) { return std::cosh(v); }},
      {"Erf", [](float v) { return std::erf(v); }},
      {"Exp", [](float v) { return std::exp(v); }},
      {"Expm1", [](float v) { return std::expm1(v); }},
      {"Floor", [](float v) { return std::floor(v); }},
      {"Log1p", [](float v) { return std::log1p(v); }},
      {"Neg", [](float v) { return -v; }},
      {"Sin", [](float v) { return std::sin(v); }},
      {"Sinh", [](float v) { return std::sinh(v); }},
      {"Square", [](float v) { return v * v; }},
      {"Tan", [](float v) { return std::tan(v); }},
      {"Abs", [](float v) { return std::fabs(v); }},
  };
  for (const Case& c : cases) {
    auto got = UnV<float>(c.op, T_<float>({5}, xs));
    ASSERT_EQ(got.size(), xs.size()) << c.op;
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_NEAR(got[i], c.f(xs[i]), 1e-6f) << c.op << " at " << xs[i];
    }
  }
  auto lg = UnV<double>("Log", T_<double>({2}, {1, M_E}));
  EXPECT_NEAR(lg[0], 0, 1e-12);
  EXPECT_NEAR(lg[1], 1, 1e-12);
  auto sq = UnV<float>("Sqrt", T_<float>({3}, {4, 0, -1}));
  EXPECT_EQ(sq[0], 2);
  EXPECT_EQ(sq[1], 0);
  EXPECT_TRUE(std::isnan(sq[2]));
  auto rs = UnV<float>("Rsqrt", T_<float>({2}, {4, 0}));
  EXPECT_NEAR(rs[0], 0.5f, 1e-6f);
  EXPECT_EQ(rs[1], kInf);
  EXPECT_EQ(UnV<float>("Reciprocal", T_<float>({2}, {4, -0.5f})),
            (std::vector<float>{0.25f, -2}));
  EXPECT_EQ(UnV<float>("Inv", T_<float>({1}, {2})), (std::vector<float>{0.5f}));
  auto ac = UnV<float>("Acosh", T_<float>({2}, {1, 2}));
  EXPECT_NEAR(ac[1], std::acosh(2.f), 1e-6f);
}

TEST(UnaryOpsTest, RoundHalfToEven) {
  EXPECT_EQ(UnV<float>("Round",
                       T_<float>({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.6f})),
            (std::vector<float>{0, 2, 2, -0, -2, 3}));
  EXPECT_EQ(UnV<int32_t>("Round", T_<int32_t>({2}, {3, -4})),
            (std::vector<int32_t>{3, -4}));
}

TEST(UnaryOpsTest, SignAndIntegerOps) {
  auto s = UnV<float>("Sign", T_<float>({4}, {-2, 0, 3, kNaN}));
  EXPECT_EQ(s[0], -1);
  EXPECT_EQ(s[1], 0);
  EXPECT_EQ(s[2], 1);
  EXPECT_TRUE(std::isnan(s[3]));
  EXPECT_EQ(UnV<int32_t>("Sign", T_<int32_t>({3}, {-5, 0, 9})),
            (std::vector<int32_t>{-1, 0, 1}));
  const int32_t mn = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(UnV<int32_t>("Abs", T_<int32_t>({3}, {-5, 4, mn})),
            (std::vector<int32_t>{5, 4, mn}));
  EXPECT_EQ(UnV<int32_t>("Neg", T_<int32_t>({2}, {5, mn})),
            (std::vector<int32_t>{-5, mn}));
  EXPECT_EQ(UnV<int64_t>("Square", T_<int64_t>({1}, {-3})),
            (std::vector<int64_t>{9}));
  EXPECT_EQ(UnV<int8_t>("Square", T_<int8_t>({1}, {16})),
            (std::vector<int8_t>{0}));  // 256 wraps
  auto c = UnV<complex64>("Neg", T_<complex64>({1}, {complex64(1, -2)}));
  EXPECT_EQ(c[0], complex64(-1, 2));
  auto cs = UnV<complex64>("Sign", T_<complex64>({2}, {complex64(3, 4), 0}));
  EXPECT_NEAR(cs[0].real(), 0.6f, 1e-6f);
  EXPECT_NEAR(cs[0].imag(), 0.8f, 1e-6f);
  EXPECT_EQ(cs[1], complex64(0, 0));
}

TEST(UnaryOpsTest, SeluSoftplus) {
  auto s = UnV<float>("Selu", T_<float>({2}, {1, -1}));
  EXPECT_NEAR(s[0], 1.0507009873554805f, 1e-6f);
  EXPECT_NEAR(s[1],
              1.0507009873554805f * 1.6732632423543772f * (std::exp(-1.f) - 1),
              1e-6f);
  auto sp = UnV<float>("Softplus", T_<float>({4}, {0, 100, -100, 2}));
  EXPECT_NEAR(sp[0], std::log(2.f), 1e-6f);
  EXPECT_EQ(sp[1], 100);
  EXPECT_NEAR(sp[2], std::exp(-100.f), 1e-40f);
  EXPECT_NEAR(sp[3], std::log1p(std::exp(2.f)), 1e-6f);
}

TEST(UnaryOpsTest, Predicates) {
  const Tensor x = T_<float>({4}, {1, kNaN, kInf, -kInf});
  auto fin = Un("IsFinite", x);
  ASSERT_TRUE(fin.ok());
  EXPECT_EQ(fin->dtype(), DType::kBool);
  EXPECT_EQ(Values<bool>(*fin), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(Values<bool>(*Un("IsNan", x)),
            (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(Values<bool>(*Un("IsInf", x)),
            (std::vector<bool>{false, false, true, true}));
}

TEST(UnaryOpsTest, LargeAndEmpty) {
  const int n = 100000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 100) / 10.f;
  auto e = UnV<float>("Floor", T_<float>({n}, x));
  for (int i = 0; i < n; ++i) ASSERT_EQ(e[i], std::floor(x[i]));
  auto empty = Un("Exp", T_<float>({0, 2}, {}));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), Shape({0, 2}));
}

TEST(UnaryOpsTest, Errors) {
  OpTest t("Sqrt");
  auto r = t.Run({T_<int32_t>({1}, {4})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("does not support"),
            std::string::npos);
  OpTest t2("Floor");
  t2.Attr("T", DType::kInt32);
  EXPECT_FALSE(t2.Create(1).ok());
  OpTest t3("Exp");
  EXPECT_FALSE(t3.Create(2).ok());
  OpTest t4("Exp");
  t4.Attr("T", DType::kFloat64);
  EXPECT_FALSE(t4.Run({T_<float>({1}, {1})}).ok());
  OpTest t5("IsNan");
  EXPECT_FALSE(t5.Run({T_<int32_t>({1}, {1})}).ok());
}

}  // namespace
}  // namespace graphrt::testing
