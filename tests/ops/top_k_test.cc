#include <gtest/gtest.h>

#include <cmath>
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

TEST(TopKTest, RowsWithTies) {
  OpTest t("TopKV2");
  auto out = t.Run({T_<float>({2, 5}, {1, 3, 3, 2, 3, 5, 4, 5, 1, 0}),
                    Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{3, 3, 3, 5, 5, 4}));
  EXPECT_EQ((*out)[1].dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{1, 2, 4, 0, 2, 1}));
}

TEST(TopKTest, KOneAndKAllInt32) {
  OpTest t("TopKV2");
  auto one = t.Run({T_<int32_t>({4}, {7, 9, 9, -1}), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Values<int32_t>((*one)[0]), (std::vector<int32_t>{9}));
  EXPECT_EQ(Values<int32_t>((*one)[1]), (std::vector<int32_t>{1}));
  OpTest u("TopKV2");
  auto all = u.Run({T_<int32_t>({4}, {7, 9, 9, -1}), Tensor::Scalar<int32_t>(4)});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Values<int32_t>((*all)[0]), (std::vector<int32_t>{9, 9, 7, -1}));
  EXPECT_EQ(Values<int32_t>((*all)[1]), (std::vector<int32_t>{1, 2, 0, 3}));
  OpTest z("TopKV2");
  auto zero = z.Run({T_<int32_t>({2, 2}, {1, 2, 3, 4}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ((*zero)[0].shape(), Shape({2, 0}));
}

TEST(TopKTest, NanRanksFirstAndInt64Indices) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest t("TopKV2");
  t.Attr("index_type", DType::kInt64);
  auto out = t.Run({T_<float>({3}, {1, nan, 2}), Tensor::Scalar<int32_t>(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(std::isnan(Values<float>((*out)[0])[0]));
  EXPECT_EQ(Values<int64_t>((*out)[1]), (std::vector<int64_t>{1, 2}));
}

TEST(TopKTest, LargeRowsParallel) {
  const int rows = 64, n = 1000;
  std::vector<float> v(rows * n);
  for (int i = 0; i < rows * n; ++i) v[i] = static_cast<float>((i * 7919) % n);
  OpTest t("TopKV2");
  auto out = t.Run({T_<float>({rows, n}, v), Tensor::Scalar<int32_t>(2)});
  ASSERT_TRUE(out.ok());
  auto vals = Values<float>((*out)[0]);
  for (int r = 0; r < rows; ++r) {
    EXPECT_EQ(vals[r * 2], n - 1);
    EXPECT_EQ(vals[r * 2 + 1], n - 2);
  }
}

TEST(TopKTest, Errors) {
  OpTest a("TopKV2");
  ExpectError(a.Run({T_<float>({2}, {1, 2}), Tensor::Scalar<int32_t>(3)}),
              "at least k = 3");
  OpTest b("TopKV2");
  ExpectError(b.Run({T_<float>({2}, {1, 2}), Tensor::Scalar<int32_t>(-1)}),
              "k >= 0");
  OpTest c("TopKV2");
  ExpectError(c.Run({Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(1)}),
              "at least 1-D");
  OpTest d("TopKV2");
  ExpectError(d.Run({T_<float>({2}, {1, 2}), T_<int32_t>({1}, {1})}),
              "k must be 0-D");
}

}  // namespace
}  // namespace graphrt::testing
