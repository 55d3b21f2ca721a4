#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

Tensor Bools(const std::vector<int64_t>& shape, std::vector<int> v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i] != 0;
  return t;
}

TEST(WhereTest, BoolMatrix) {
  OpTest t("Where");
  auto out = t.Run({Bools({2, 3}, {1, 0, 1, 0, 0, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt64);
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values<int64_t>((*out)[0]),
            (std::vector<int64_t>{0, 0, 0, 2, 1, 2}));
}

TEST(WhereTest, NumericIncludingNanAndNegZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest t("Where");
  auto out = t.Run({T_<float>({4}, {0.0f, -0.0f, nan, 2.5f})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].shape(), Shape({2, 1}));
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{2, 3}));
}

TEST(WhereTest, EmptyAndAllFalse) {
  OpTest t("Where");
  auto empty = t.Run({T_<int32_t>({0, 3}, {})});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)[0].shape(), Shape({0, 2}));
  OpTest u("Where");
  auto none = u.Run({Bools({2, 2}, {0, 0, 0, 0})});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)[0].shape(), Shape({0, 2}));
}

TEST(WhereTest, AllTrue3D) {
  OpTest t("Where");
  auto out = t.Run({T_<int64_t>({2, 1, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].shape(), Shape({4, 3}));
  EXPECT_EQ(Values<int64_t>((*out)[0]),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1}));
}

TEST(WhereTest, Scalar) {
  OpTest t("Where");
  auto out = t.Run({Tensor::Scalar<bool>(true)});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].shape(), Shape({1, 0}));
}

TEST(WhereTest, ThreeInputsRejected) {
  OpTest t("Where");
  EXPECT_FALSE(t.Create(3).ok());
  OpTest s("Where");
  auto r = s.Run({T_<std::string>({1}, {"a"})});
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace graphrt::testing
