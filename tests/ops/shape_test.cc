#include <gtest/gtest.h>

#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

TEST(ShapeTest, DefaultInt32) {
  OpTest t("Shape");
  auto out = t.Run({T_<float>({2, 3, 0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& s = (*out)[0];
  EXPECT_EQ(s.dtype(), DType::kInt32);
  EXPECT_EQ(s.shape(), Shape({3}));
  EXPECT_EQ(Values<int32_t>(s), (std::vector<int32_t>{2, 3, 0}));
}

TEST(ShapeTest, Int64AndStrings) {
  OpTest t("Shape");
  t.Attr("out_type", DType::kInt64);
  auto out = t.Run({T_<std::string>({1, 2}, {"a", "b"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1, 2}));
}

TEST(ShapeTest, ScalarGivesEmptyVector) {
  OpTest t("Shape");
  auto out = t.Run({Tensor::Scalar<float>(1.f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({0}));
}

TEST(ShapeTest, BadOutTypeFailsAtCreate) {
  OpTest t("Shape");
  t.Attr("out_type", DType::kFloat32);
  absl::Status s = t.Create(1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("out_type"), std::string::npos) << s;
  EXPECT_NE(std::string(s.message()).find("test_node"), std::string::npos) << s;
}

}  // namespace
}  // namespace graphrt::testing
