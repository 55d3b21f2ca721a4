#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

TEST(ComplexOpsTest, ComplexBroadcastsAndParts) {
  OpTest c("Complex");
  c.Attr("T", DType::kFloat32).Attr("Tout", DType::kComplex64);
  auto z = c.Run({T_<float>({2}, {1, 3}), Tensor::Scalar<float>(-2)});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dtype(), DType::kComplex64);
  EXPECT_EQ(Values<complex64>((*z)[0]),
            (std::vector<complex64>{complex64(1, -2), complex64(3, -2)}));
  const Tensor x = (*z)[0];
  for (const char* op : {"Real", "Imag", "ComplexAbs", "Angle"}) {
    OpTest t(op);
    t.Attr("T", DType::kComplex64).Attr("Tout", DType::kFloat32);
    auto r = t.Run({x});
    ASSERT_TRUE(r.ok()) << op << r.status();
    EXPECT_EQ((*r)[0].dtype(), DType::kFloat32);
    auto v = Values<float>((*r)[0]);
    const std::string name = op;
    if (name == "Real") EXPECT_EQ(v, (std::vector<float>{1, 3}));
    if (name == "Imag") EXPECT_EQ(v, (std::vector<float>{-2, -2}));
    if (name == "ComplexAbs") {
      EXPECT_NEAR(v[0], std::sqrt(5.f), 1e-6f);
      EXPECT_NEAR(v[1], std::sqrt(13.f), 1e-6f);
    }
    if (name == "Angle") EXPECT_NEAR(v[0], std::atan2(-2.f, 1.f), 1e-6f);
  }
  OpTest conj("Conj");
  auto cj = conj.Run({x});
  ASSERT_TRUE(cj.ok());
  EXPECT_EQ(Values<complex64>((*cj)[0])[0], complex64(1, 2));
}

TEST(ComplexOpsTest, Complex128) {
  OpTest c("Complex");
  c.Attr("T", DType::kFloat64).Attr("Tout", DType::kComplex128);
  auto z = c.Run({T_<double>({1}, {1}), T_<double>({1}, {2})});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dtype(), DType::kComplex128);
  OpTest r("Real");
  r.Attr("T", DType::kComplex128).Attr("Tout", DType::kFloat64);
  auto re = r.Run({(*z)[0]});
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(Values<double>((*re)[0]), (std::vector<double>{1}));
}

TEST(ComplexOpsTest, Errors) {
  OpTest c("Complex");
  c.Attr("T", DType::kFloat32).Attr("Tout", DType::kComplex128);
  EXPECT_FALSE(c.Create(2).ok());
  OpTest c2("Complex");
  EXPECT_FALSE(
      c2.Run({T_<float>({2}, {1, 2}), T_<float>({3}, {1, 2, 3})}).ok());
  OpTest c3("Complex");
  EXPECT_FALSE(c3.Run({T_<float>({1}, {1}), T_<double>({1}, {1})}).ok());
  OpTest r("Real");
  EXPECT_FALSE(r.Run({T_<float>({1}, {1})}).ok());
  OpTest r2("Imag");
  r2.Attr("T", DType::kComplex64).Attr("Tout", DType::kFloat64);
  EXPECT_FALSE(r2.Create(1).ok());
}

}  // namespace
}  // namespace graphrt::testing
