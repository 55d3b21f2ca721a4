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

Tensor Params23() { return T_<float>({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(GatherV2Test, Axis0) {
  OpTest t("GatherV2");
  auto out = t.Run({T_<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                    T_<int32_t>({2}, {2, 0}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{5, 6, 1, 2}));
}

TEST(GatherV2Test, Axis1With2DIndices) {
  for (int axis : {1, -1}) {
    OpTest t("GatherV2");
    auto out = t.Run({Params23(), T_<int32_t>({2, 2}, {0, 2, 1, 1}),
                      Tensor::Scalar<int32_t>(axis)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), Shape({2, 2, 2}));
    EXPECT_EQ(Values<float>((*out)[0]),
              (std::vector<float>{1, 3, 2, 2, 4, 6, 5, 5}));
  }
}

TEST(GatherV2Test, ScalarIndexInt64) {
  OpTest t("GatherV2");
  auto out = t.Run({T_<int32_t>({3}, {10, 20, 30}), Tensor::Scalar<int64_t>(1),
                    Tensor::Scalar<int64_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape());
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{20}));
}

TEST(GatherV2Test, Strings) {
  OpTest t("GatherV2");
  auto out = t.Run({T_<std::string>({3}, {"a", "b", "c"}),
                    T_<int32_t>({3}, {2, 2, 0}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]),
            (std::vector<std::string>{"c", "c", "a"}));
}

TEST(GatherV2Test, BatchDims) {
  for (int64_t bd : {1, -1}) {
    OpTest t("GatherV2");
    t.Attr("batch_dims", bd);
    auto out = t.Run({Params23(), T_<int32_t>({2, 2}, {0, 2, 1, 1}),
                      Tensor::Scalar<int32_t>(1)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
    EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 3, 5, 5}));
  }
  // params [2,2,3], indices [2,1], batch_dims 1, axis 2 -> [2,2,1].
  std::vector<float> p(12);
  for (int i = 0; i < 12; ++i) p[i] = i;
  OpTest t("GatherV2");
  t.Attr("batch_dims", int64_t{1});
  auto out = t.Run({T_<float>({2, 2, 3}, p), T_<int32_t>({2, 1}, {2, 0}),
                    Tensor::Scalar<int32_t>(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2, 1}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2, 5, 6, 9}));
}

TEST(GatherV2Test, LargeParallel) {
  const int rows = 1000, cols = 100;
  std::vector<float> p(rows * cols);
  for (int i = 0; i < rows * cols; ++i) p[i] = i;
  std::vector<int32_t> idx(rows);
  for (int i = 0; i < rows; ++i) idx[i] = rows - 1 - i;
  OpTest t("GatherV2");
  auto out = t.Run({T_<float>({rows, cols}, p), T_<int32_t>({rows}, idx),
                    Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* o = (*out)[0].data<float>();
  for (int r = 0; r < rows; ++r) {
    ASSERT_EQ(o[r * cols + 7], (rows - 1 - r) * cols + 7);
  }
}

TEST(GatherV1Test, Axis0) {
  OpTest t("Gather");
  auto out = t.Run({T_<float>({3}, {1, 2, 3}), T_<int32_t>({2}, {1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2, 2}));
}

TEST(GatherV2Test, Errors) {
  {
    OpTest t("GatherV2");
    ExpectError(t.Run({T_<float>({3}, {1, 2, 3}), T_<int32_t>({2}, {0, 3}),
                       Tensor::Scalar<int32_t>(0)}),
                "indices[1] = 3 is not in [0, 3)");
  }
  {
    OpTest t("GatherV2");
    ExpectError(t.Run({Params23(), T_<int64_t>({2, 2}, {0, 1, -1, 0}),
                       Tensor::Scalar<int32_t>(1)}),
                "indices[1,0] = -1 is not in [0, 3)");
  }
  {
    OpTest t("GatherV2");
    ExpectError(
        t.Run({Params23(), T_<int32_t>({1}, {0}), Tensor::Scalar<int32_t>(2)}),
        "axis in [-2, 2), got 2");
  }
  {
    OpTest t("GatherV2");
    ExpectError(
        t.Run({Params23(), T_<float>({1}, {0}), Tensor::Scalar<int32_t>(0)}),
        "indices");
  }
  {
    OpTest t("GatherV2");
    ExpectError(t.Run({Tensor::Scalar<float>(1.f), T_<int32_t>({1}, {0}),
                       Tensor::Scalar<int32_t>(0)}),
                "at least 1-D");
  }
  {
    OpTest t("GatherV2");
    t.Attr("batch_dims", int64_t{1});
    ExpectError(t.Run({Params23(), T_<int32_t>({3, 1}, {0, 0, 0}),
                       Tensor::Scalar<int32_t>(1)}),
                "should be equal to indices.shape[0]");
  }
  {
    OpTest t("GatherV2");
    t.Attr("batch_dims", int64_t{1});
    ExpectError(t.Run({Params23(), T_<int32_t>({2, 1}, {0, 0}),
                       Tensor::Scalar<int32_t>(0)}),
                "less than or equal to axis");
  }
  {
    OpTest t("GatherV2");
    t.Attr("batch_dims", int64_t{3});
    ExpectError(t.Run({Params23(), T_<int32_t>({2, 1}, {0, 0}),
                       Tensor::Scalar<int32_t>(1)}),
                "batch_dims");
  }
}

}  // namespace
}  // namespace graphrt::testing
