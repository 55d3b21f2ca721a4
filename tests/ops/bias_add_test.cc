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

TEST(BiasAddTest, Nhwc2D) {
  OpTest t("BiasAdd");
  t.Attr("T", DType::kFloat32).Attr("data_format", "NHWC");
  auto out = t.Run(
      {T_<float>({2, 3}, {1, 2, 3, 4, 5, 6}), T_<float>({3}, {10, 20, 30})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]),
            (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(BiasAddTest, Nhwc4DAndNchw4D) {
  std::vector<float> v = {0, 1, 2, 3, 4, 5, 6, 7};  // [1,2,2,2]
  OpTest t("BiasAdd");
  auto out = t.Run({T_<float>({1, 2, 2, 2}, v), T_<float>({2}, {100, 200})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]),
            (std::vector<float>{100, 201, 102, 203, 104, 205, 106, 207}));
  OpTest t2("BiasAdd");
  t2.Attr("data_format", "NCHW");
  auto out2 = t2.Run({T_<float>({1, 2, 2, 2}, v), T_<float>({2}, {100, 200})});
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_EQ(Values<float>((*out2)[0]),
            (std::vector<float>{100, 101, 102, 103, 204, 205, 206, 207}));
}

TEST(BiasAddTest, V1AndInt) {
  OpTest t("BiasAddV1");
  auto out =
      t.Run({T_<int32_t>({2, 2}, {1, 2, 3, 4}), T_<int32_t>({2}, {-1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 3, 2, 5}));
}

TEST(BiasAddTest, LargeNchwParallel) {
  const int n = 4, c = 8, hw = 64 * 64;
  std::vector<float> v(n * c * hw, 1.f);
  std::vector<float> b(c);
  for (int i = 0; i < c; ++i) b[i] = i;
  OpTest t("BiasAdd");
  t.Attr("data_format", "NCHW");
  auto out = t.Run({T_<float>({n, c, 64, 64}, v), T_<float>({c}, b)});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* o = (*out)[0].data<float>();
  for (int i = 0; i < n * c * hw; ++i) {
    ASSERT_EQ(o[i], 1.f + (i / hw) % c) << i;
  }
}

TEST(BiasAddTest, Errors) {
  {
    OpTest t("BiasAdd");
    ExpectError(t.Run({T_<float>({3}, {1, 2, 3}), T_<float>({3}, {1, 2, 3})}),
                "at least 2-D");
  }
  {
    OpTest t("BiasAdd");
    ExpectError(
        t.Run({T_<float>({1, 3}, {1, 2, 3}), T_<float>({1, 3}, {1, 2, 3})}),
        "1-D");
  }
  {
    OpTest t("BiasAdd");
    ExpectError(t.Run({T_<float>({2, 4}, std::vector<float>(8, 0)),
                       T_<float>({3}, {1, 2, 3})}),
                "[3] vs. [2,4]");
  }
  {
    OpTest t("BiasAdd");
    ExpectError(t.Run({T_<float>({1, 2}, {1, 2}), T_<double>({2}, {1, 2})}),
                "dtype");
  }
  {
    OpTest t("BiasAdd");
    t.Attr("data_format", "NDHWC?");
    EXPECT_FALSE(t.Create(2).ok());
  }
}

}  // namespace
}  // namespace graphrt::testing
