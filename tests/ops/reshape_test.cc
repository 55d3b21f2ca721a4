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

TEST(ReshapeTest, ForwardsBuffer) {
  OpTest t("Reshape");
  Tensor in = T_<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = t.Run({in, T_<int32_t>({2}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
  EXPECT_EQ((*out)[0].raw_data(), in.raw_data());
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ReshapeTest, InfersMinusOne) {
  OpTest t("Reshape");
  t.Attr("Tshape", DType::kInt64);
  auto out = t.Run({T_<float>({2, 3, 4}, std::vector<float>(24, 1.f)),
                    T_<int64_t>({2}, {-1, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({6, 4}));
}

TEST(ReshapeTest, ScalarAndEmptyShapes) {
  OpTest t("Reshape");
  auto out = t.Run({T_<int32_t>({1, 1}, {7}), T_<int32_t>({0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape());
  OpTest t2("Reshape");
  auto out2 = t2.Run({Tensor::Scalar<int32_t>(7), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_EQ((*out2)[0].shape(), Shape({1}));
}

TEST(ReshapeTest, ZeroSizedWithMinusOne) {
  // TF: tf.reshape(tf.zeros([0, 3]), [-1, 0]).shape == (3, 0).
  OpTest t("Reshape");
  auto out = t.Run({T_<float>({0, 3}, {}), T_<int32_t>({2}, {-1, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 0}));
}

TEST(ReshapeTest, Strings) {
  OpTest t("Reshape");
  auto out = t.Run(
      {T_<std::string>({2, 2}, {"a", "b", "c", "d"}), T_<int32_t>({1}, {-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({4}));
  EXPECT_EQ(Values<std::string>((*out)[0]),
            (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(ReshapeTest, Errors) {
  Tensor in = T_<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  {
    OpTest t("Reshape");
    ExpectError(t.Run({in, T_<int32_t>({2}, {-1, -1})}),
                "only one input size may be -1");
  }
  {
    OpTest t("Reshape");
    ExpectError(t.Run({in, T_<int32_t>({2}, {4, 2})}), "6 values");
  }
  {
    OpTest t("Reshape");
    ExpectError(t.Run({in, T_<int32_t>({2}, {-1, 4})}),
                "requires a multiple of 4");
  }
  {
    OpTest t("Reshape");
    ExpectError(t.Run({in, T_<int32_t>({2}, {-2, 3})}), "must be non-negative");
  }
  {
    OpTest t("Reshape");
    ExpectError(t.Run({in, T_<int32_t>({1, 2}, {3, 2})}), "1-D");
  }
  {
    OpTest t("Reshape");
    ExpectError(t.Run({in, T_<float>({2}, {3, 2})}), "int32 or int64");
  }
  {
    OpTest t("Reshape");
    EXPECT_FALSE(t.Create(1).ok());
  }
}

}  // namespace
}  // namespace graphrt::testing
