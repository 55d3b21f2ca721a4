#include <gtest/gtest.h>

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

const Tensor X23() { return T_<float>({2, 3}, {1, 5, 5, 7, 2, 7}); }

TEST(ArgMaxTest, LastAxisTiesPickFirst) {
  for (int32_t dim : {1, -1}) {
    OpTest t("ArgMax");
    auto out = t.Run({X23(), Tensor::Scalar<int32_t>(dim)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].dtype(), DType::kInt64);
    EXPECT_EQ((*out)[0].shape(), Shape({2}));
    EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1, 0}));
  }
}

TEST(ArgMaxTest, Axis0Int32Output) {
  OpTest t("ArgMax");
  t.Attr("output_type", DType::kInt32);
  auto out = t.Run({X23(), Tensor::Scalar<int64_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1, 0, 1}));
}

TEST(ArgMaxTest, MiddleAxis) {
  // [2,3,2]: argmax over axis 1.
  OpTest t("ArgMax");
  auto out = t.Run({T_<int32_t>({2, 3, 2}, {1, 9, 3, 9, 2, 0,  //
                                            4, 4, 4, 5, 6, 5}),
                    Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1, 0, 2, 1}));
}

TEST(ArgMinTest, Basic) {
  OpTest t("ArgMin");
  auto out = t.Run({X23(), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 1}));
  OpTest t2("ArgMin");
  auto out2 = t2.Run({X23(), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_EQ(Values<int64_t>((*out2)[0]), (std::vector<int64_t>{0, 1, 0}));
}

TEST(ArgMaxTest, NanWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest t("ArgMax");
  auto out =
      t.Run({T_<float>({4}, {1, nan, 3, nan}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1}));
}

TEST(ArgMaxTest, Errors) {
  {
    OpTest t("ArgMax");
    ExpectError(t.Run({X23(), Tensor::Scalar<int32_t>(2)}),
                "dimension in [-2, 2), got 2");
  }
  {
    OpTest t("ArgMax");
    ExpectError(t.Run({T_<float>({2, 0}, {}), Tensor::Scalar<int32_t>(1)}),
                "reduction axis 1 is empty in shape [2,0]");
  }
  {
    OpTest t("ArgMax");
    ExpectError(t.Run({Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}),
                "at least 1 dimension");
  }
  {
    OpTest t("ArgMax");
    ExpectError(t.Run({X23(), T_<int32_t>({2}, {0, 1})}), "scalar");
  }
  {
    OpTest t("ArgMax");
    t.Attr("output_type", DType::kFloat32);
    EXPECT_FALSE(t.Create(2).ok());
  }
}

}  // namespace
}  // namespace graphrt::testing
