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

TEST(RaggedRangeTest, VectorsAndScalars) {
  OpTest t("RaggedRange");
  auto out = t.Run({T_<int32_t>({3}, {2, 5, 8}), T_<int32_t>({3}, {3, 5, 12}),
                    Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 1, 1, 5}));
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{2, 8, 9, 10, 11}));
  OpTest n("RaggedRange");
  n.Attr("Tsplits", DType::kInt32);
  auto neg = n.Run({Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(0),
                    Tensor::Scalar<int64_t>(-2)});
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_EQ(Values<int32_t>((*neg)[0]), (std::vector<int32_t>{0, 3}));
  EXPECT_EQ(Values<int64_t>((*neg)[1]), (std::vector<int64_t>{5, 3, 1}));
  OpTest f("RaggedRange");
  auto fl = f.Run({T_<float>({2}, {0, 1}), Tensor::Scalar<float>(1),
                   Tensor::Scalar<float>(0.25f)});
  ASSERT_TRUE(fl.ok());
  EXPECT_EQ(Values<int64_t>((*fl)[0]), (std::vector<int64_t>{0, 4, 4}));
  EXPECT_EQ(Values<float>((*fl)[1]),
            (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
}

TEST(RaggedRangeTest, Errors) {
  OpTest a("RaggedRange");
  ExpectError(a.Run({Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(3),
                     Tensor::Scalar<int32_t>(0)}),
              "delta != 0");
  OpTest b("RaggedRange");
  ExpectError(b.Run({T_<int32_t>({2}, {0, 1}), T_<int32_t>({3}, {1, 2, 3}),
                     Tensor::Scalar<int32_t>(1)}),
              "same shape");
}

TEST(RaggedGatherTest, OneRaggedDim) {
  // params = [[a, b], [], [c, d, e]]; indices [2, 0, 2]
  OpTest t("RaggedGather");
  t.Attr("PARAMS_RAGGED_RANK", int64_t{1}).Attr("OUTPUT_RAGGED_RANK", int64_t{1});
  auto out = t.Run({T_<int64_t>({4}, {0, 2, 2, 5}),
                    T_<std::string>({5}, {"a", "b", "c", "d", "e"}),
                    T_<int32_t>({3}, {2, 0, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 3, 5, 5}));
  EXPECT_EQ(Values<std::string>((*out)[1]),
            (std::vector<std::string>{"c", "d", "e", "a", "b"}));
}

TEST(RaggedGatherTest, TwoDimIndicesAndNested) {
  // params = [[[1], [2, 3]], [[4]]] (ragged rank 2); indices [[1, 0]].
  OpTest t("RaggedGather");
  t.Attr("PARAMS_RAGGED_RANK", int64_t{2}).Attr("OUTPUT_RAGGED_RANK", int64_t{3});
  auto out = t.Run({T_<int64_t>({3}, {0, 2, 3}), T_<int64_t>({4}, {0, 1, 3, 4}),
                    T_<float>({4}, {1, 2, 3, 4}),
                    T_<int64_t>({1, 2}, {1, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 4u);
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(Values<int64_t>((*out)[1]), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(Values<int64_t>((*out)[2]), (std::vector<int64_t>{0, 1, 2, 4}));
  EXPECT_EQ(Values<float>((*out)[3]), (std::vector<float>{4, 1, 2, 3}));
}

TEST(RaggedGatherTest, Errors) {
  OpTest t("RaggedGather");
  ExpectError(t.Run({T_<int64_t>({3}, {0, 1, 2}), T_<float>({2}, {1, 2}),
                     T_<int32_t>({1}, {2})}),
              "not in [0, 2)");
  OpTest u("RaggedGather");
  ExpectError(u.Run({T_<int64_t>({3}, {0, 1, 3}), T_<float>({2}, {1, 2}),
                     T_<int32_t>({1}, {0})}),
              "ends at 3");
  OpTest v("RaggedGather");
  ExpectError(v.Run({T_<int64_t>({3}, {0, 2, 1}), T_<float>({1}, {1}),
                     T_<int32_t>({1}, {0})}),
              "non-decreasing");
}

TEST(RaggedTensorToTensorTest, NaturalShapeAndDefault) {
  // [[1, 2], [], [3, 4, 5]]
  OpTest t("RaggedTensorToTensor");
  t.Attr("row_partition_types", std::vector<std::string>{"ROW_SPLITS"});
  auto out = t.Run({Tensor::Scalar<int64_t>(-1), T_<float>({5}, {1, 2, 3, 4, 5}),
                    Tensor::Scalar<float>(9), T_<int64_t>({4}, {0, 2, 2, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 3}));
  EXPECT_EQ(Values<float>((*out)[0]),
            (std::vector<float>{1, 2, 9, 9, 9, 9, 3, 4, 5}));
}

TEST(RaggedTensorToTensorTest, TruncateAndPadWithInnerDims) {
  // values [5, 2] rows; splits [0, 3, 5]; shape [3, 2, -1]; default [7, 8].
  OpTest t("RaggedTensorToTensor");
  t.Attr("row_partition_types", std::vector<std::string>{"ROW_SPLITS"});
  auto out = t.Run({T_<int64_t>({3}, {3, 2, -1}),
                    T_<int32_t>({5, 2}, {1, 1, 2, 2, 3, 3, 4, 4, 5, 5}),
                    T_<int32_t>({2}, {7, 8}), T_<int32_t>({3}, {0, 3, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2, 2}));
  EXPECT_EQ(Values<int32_t>((*out)[0]),
            (std::vector<int32_t>{1, 1, 2, 2, 4, 4, 5, 5, 7, 8, 7, 8}));
}

TEST(RaggedTensorToTensorTest, TwoRaggedDims) {
  // [[[1], [2, 3]], [[4]]]
  OpTest t("RaggedTensorToTensor");
  t.Attr("row_partition_types",
         std::vector<std::string>{"ROW_SPLITS", "ROW_SPLITS"});
  auto out = t.Run({T_<int32_t>({0}, {}), T_<float>({4}, {1, 2, 3, 4}),
                    Tensor::Scalar<float>(0), T_<int64_t>({3}, {0, 2, 3}),
                    T_<int64_t>({4}, {0, 1, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2, 2}));
  EXPECT_EQ(Values<float>((*out)[0]),
            (std::vector<float>{1, 0, 2, 3, 4, 0, 0, 0}));
}

TEST(RaggedTensorToTensorTest, Errors) {
  OpTest t("RaggedTensorToTensor");
  t.Attr("row_partition_types",
         std::vector<std::string>{"FIRST_DIM_SIZE", "VALUE_ROWIDS"});
  EXPECT_FALSE(t.Create(5).ok());
  OpTest u("RaggedTensorToTensor");
  u.Attr("row_partition_types", std::vector<std::string>{"ROW_SPLITS"});
  ExpectError(u.Run({Tensor::Scalar<int64_t>(-1), T_<float>({2}, {1, 2}),
                     Tensor::Scalar<float>(0), T_<int64_t>({2}, {0, 3})}),
              "ends at 3");
  OpTest v("RaggedTensorToTensor");
  v.Attr("row_partition_types", std::vector<std::string>{"ROW_SPLITS"});
  ExpectError(v.Run({Tensor::Scalar<int64_t>(-1), T_<float>({2}, {1, 2}),
                     T_<float>({2}, {0, 0}), T_<int64_t>({2}, {0, 2})}),
              "higher rank");
}

}  // namespace
}  // namespace graphrt::testing
