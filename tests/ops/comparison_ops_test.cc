#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

// Bool tensors (std::vector<bool> has no contiguous storage for T_).
Tensor TB(const std::vector<int64_t>& shape, const std::vector<bool>& v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i];
  return t;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<Tensor> Bin(const std::string& op, const Tensor& x,
                           const Tensor& y) {
  OpTest t(op);
  auto out = t.Run({x, y});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

std::vector<bool> B(const std::string& op, const Tensor& x, const Tensor& y) {
  auto r = Bin(op, x, y);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(r->dtype(), DType::kBool);
  return Values<bool>(*r);
}

TEST(ComparisonOpsTest, NumericWithBroadcast) {
  const Tensor x = T_<float>({2, 3}, {1, 2, 3, 4, 5, kNaN});
  const Tensor y = T_<float>({3}, {2, 2, 2});
  EXPECT_EQ(B("Equal", x, y),
            (std::vector<bool>{false, true, false, false, false, false}));
  EXPECT_EQ(B("NotEqual", x, y),
            (std::vector<bool>{true, false, true, true, true, true}));
  EXPECT_EQ(B("Greater", x, y),
            (std::vector<bool>{false, false, true, true, true, false}));
  EXPECT_EQ(B("GreaterEqual", x, y),
            (std::vector<bool>{false, true, true, true, true, false}));
  EXPECT_EQ(B("Less", x, y),
            (std::vector<bool>{true, false, false, false, false, false}));
  EXPECT_EQ(B("LessEqual", x, y),
            (std::vector<bool>{true, true, false, false, false, false}));
  auto r =
      Bin("Less", T_<int64_t>({2, 1}, {1, 5}), T_<int64_t>({1, 2}, {3, 4}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<bool>(*r), (std::vector<bool>{true, true, false, false}));
}

TEST(ComparisonOpsTest, EqualStringsBoolsComplex) {
  EXPECT_EQ(B("Equal", T_<std::string>({3}, {"a", "b", ""}),
              Tensor::Scalar<std::string>("b")),
            (std::vector<bool>{false, true, false}));
  EXPECT_EQ(B("NotEqual", TB({2}, {true, false}), TB({1}, {true})),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(B("Equal", T_<complex64>({2}, {complex64(1, 2), complex64(1, 0)}),
              T_<complex64>({1}, {complex64(1, 2)})),
            (std::vector<bool>{true, false}));
  OpTest t("Greater");
  EXPECT_FALSE(
      t.Run({T_<std::string>({1}, {"a"}), T_<std::string>({1}, {"b"})}).ok());
}

TEST(ComparisonOpsTest, IncompatibleShapeError) {
  OpTest strict("Equal");
  auto e = strict.Run({T_<int32_t>({2}, {1, 2}), T_<int32_t>({3}, {1, 2, 3})});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(std::string(e.status().message()).find("Incompatible shapes"),
            std::string::npos);
  OpTest eq("Equal");
  eq.Attr("incompatible_shape_error", false);
  auto r = eq.Run({T_<int32_t>({2}, {1, 2}), T_<int32_t>({3}, {1, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape());
  EXPECT_EQ(Values<bool>((*r)[0]), (std::vector<bool>{false}));
  OpTest ne("NotEqual");
  ne.Attr("incompatible_shape_error", false);
  auto r2 = ne.Run({T_<int32_t>({2}, {1, 2}), T_<int32_t>({3}, {1, 2, 3})});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(Values<bool>((*r2)[0]), (std::vector<bool>{true}));
  // Compatible shapes still compare element-wise.
  OpTest eq2("Equal");
  eq2.Attr("incompatible_shape_error", false);
  auto r3 = eq2.Run({T_<int32_t>({2}, {1, 2}), T_<int32_t>({1}, {2})});
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(Values<bool>((*r3)[0]), (std::vector<bool>{false, true}));
}

TEST(ComparisonOpsTest, Logical) {
  const Tensor a = TB({4}, {true, true, false, false});
  const Tensor b = TB({4}, {true, false, true, false});
  EXPECT_EQ(B("LogicalAnd", a, b),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(B("LogicalOr", a, b), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(B("LogicalAnd", a, Tensor::Scalar<bool>(true)),
            (std::vector<bool>{true, true, false, false}));
  OpTest n("LogicalNot");
  auto r = n.Run({a});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values<bool>((*r)[0]),
            (std::vector<bool>{false, false, true, true}));
  OpTest bad("LogicalAnd");
  EXPECT_FALSE(bad.Run({T_<int32_t>({1}, {1}), T_<int32_t>({1}, {1})}).ok());
  OpTest bad2("LogicalNot");
  EXPECT_FALSE(bad2.Run({T_<float>({1}, {1})}).ok());
}

TEST(ComparisonOpsTest, Bitwise) {
  auto r = Bin("BitwiseAnd", T_<int32_t>({3}, {12, -1, 7}),
               Tensor::Scalar<int32_t>(10));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(*r), (std::vector<int32_t>{8, 10, 2}));
  auto o = Bin("BitwiseOr", T_<uint8_t>({1}, {0xF0}), T_<uint8_t>({1}, {0x0F}));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(Values<uint8_t>(*o), (std::vector<uint8_t>{0xFF}));
  OpTest bad("BitwiseAnd");
  EXPECT_FALSE(bad.Run({T_<float>({1}, {1}), T_<float>({1}, {1})}).ok());
}

TEST(ComparisonOpsTest, EmptyAndDtypeMismatch) {
  auto r = Bin("Less", T_<float>({0}, {}), Tensor::Scalar<float>(1));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), Shape({0}));
  OpTest t("Equal");
  EXPECT_FALSE(t.Run({T_<float>({1}, {1}), T_<int32_t>({1}, {1})}).ok());
}

}  // namespace
}  // namespace graphrt::testing
