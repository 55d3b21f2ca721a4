#include <gtest/gtest.h>

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

TEST(ConcatV2Test, Axis0) {
  OpTest t("ConcatV2");
  t.Attr("N", int64_t{2});
  auto out = t.Run({T_<float>({1, 2}, {1, 2}), T_<float>({2, 2}, {3, 4, 5, 6}),
                    Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ConcatV2Test, LastAxisPositiveAndNegative) {
  for (int64_t axis : {1, -1}) {
    OpTest t("ConcatV2");
    auto out =
        t.Run({T_<int32_t>({2, 1}, {1, 2}), T_<int32_t>({2, 2}, {3, 4, 5, 6}),
               Tensor::Scalar<int64_t>(axis)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
    EXPECT_EQ(Values<int32_t>((*out)[0]),
              (std::vector<int32_t>{1, 3, 4, 2, 5, 6}));
  }
}

TEST(ConcatV2Test, ThreeInputsOneEmpty) {
  OpTest t("ConcatV2");
  t.Attr("N", int64_t{3});
  auto out = t.Run({T_<float>({2, 0}, {}), T_<float>({2, 1}, {1, 2}),
                    T_<float>({2, 1}, {3, 4}), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 3, 2, 4}));
}

TEST(ConcatV2Test, MiddleAxis3D) {
  // [2,1,2] ++ [2,2,2] on axis 1.
  OpTest t("ConcatV2");
  auto out = t.Run({T_<float>({2, 1, 2}, {1, 2, 3, 4}),
                    T_<float>({2, 2, 2}, {10, 11, 12, 13, 14, 15, 16, 17}),
                    Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3, 2}));
  EXPECT_EQ(Values<float>((*out)[0]),
            (std::vector<float>{1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17}));
}

TEST(ConcatV2Test, Strings) {
  OpTest t("ConcatV2");
  auto out =
      t.Run({T_<std::string>({1}, {"a"}), T_<std::string>({2}, {"b", "c"}),
             Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]),
            (std::vector<std::string>{"a", "b", "c"}));
}

TEST(ConcatV1Test, AxisFirst) {
  OpTest t("Concat");
  auto out = t.Run(
      {Tensor::Scalar<int32_t>(0), T_<float>({1}, {1}), T_<float>({1}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2}));
}

TEST(ConcatV2Test, Errors) {
  const Tensor a = T_<float>({2, 2}, {1, 2, 3, 4});
  {
    OpTest t("ConcatV2");
    ExpectError(t.Run({a, T_<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                       Tensor::Scalar<int32_t>(0)}),
                "dimension 1 in both shapes must be equal");
  }
  {
    OpTest t("ConcatV2");
    ExpectError(
        t.Run({a, T_<float>({4}, {1, 2, 3, 4}), Tensor::Scalar<int32_t>(0)}),
        "ranks of all values must match");
  }
  {
    OpTest t("ConcatV2");
    ExpectError(t.Run({a, a, Tensor::Scalar<int32_t>(2)}),
                "axis in [-2, 2), got 2");
  }
  {
    OpTest t("ConcatV2");
    ExpectError(t.Run({a, T_<int32_t>({2, 2}, {1, 2, 3, 4}),
                       Tensor::Scalar<int32_t>(0)}),
                "same dtype");
  }
  {
    OpTest t("ConcatV2");
    ExpectError(t.Run({Tensor::Scalar<float>(1), Tensor::Scalar<float>(2),
                       Tensor::Scalar<int32_t>(0)}),
                "scalars");
  }
  {
    OpTest t("ConcatV2");
    ExpectError(t.Run({a, a, Tensor::Scalar<float>(0)}), "int32 or int64");
  }
  {
    OpTest t("ConcatV2");
    t.Attr("N", int64_t{3});
    EXPECT_FALSE(t.Create(3).ok());
  }
}

}  // namespace
}  // namespace graphrt::testing
