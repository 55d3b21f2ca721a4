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

TEST(SparseFillEmptyRowsTest, FillsAndOrdersByRow) {
  // Rows 1 and 4 are empty; entries given out of row order.
  OpTest t("SparseFillEmptyRows");
  auto out = t.Run({T_<int64_t>({4, 2}, {3, 1, 0, 1, 0, 3, 2, 0}),
                    T_<float>({4}, {30, 1, 3, 20}),
                    T_<int64_t>({2}, {5, 6}), Tensor::Scalar<float>(-1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({6, 2}));
  EXPECT_EQ(Values<int64_t>((*out)[0]),
            (std::vector<int64_t>{0, 1, 0, 3, 1, 0, 2, 0, 3, 1, 4, 0}));
  EXPECT_EQ(Values<float>((*out)[1]),
            (std::vector<float>{1, 3, -1, 20, 30, -1}));
  const bool* empty = (*out)[2].data<bool>();
  EXPECT_EQ(std::vector<bool>(empty, empty + 5),
            (std::vector<bool>{false, true, false, false, true}));
  EXPECT_EQ(Values<int64_t>((*out)[3]), (std::vector<int64_t>{4, 0, 1, 3}));
}

TEST(SparseFillEmptyRowsTest, EmptyInputAndErrors) {
  OpTest t("SparseFillEmptyRows");
  auto out = t.Run({T_<int64_t>({0, 2}, {}), T_<int32_t>({0}, {}),
                    T_<int64_t>({2}, {2, 3}), Tensor::Scalar<int32_t>(7)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{7, 7}));
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 0, 1, 0}));
  OpTest e("SparseFillEmptyRows");
  ExpectError(e.Run({T_<int64_t>({1, 2}, {5, 0}), T_<float>({1}, {1}),
                     T_<int64_t>({2}, {2, 3}), Tensor::Scalar<float>(0)}),
              "not in [0, 2)");
  OpTest f("SparseFillEmptyRows");
  ExpectError(f.Run({T_<int64_t>({1, 2}, {0, 0}), T_<float>({1}, {1}),
                     T_<int64_t>({2}, {2, 3}), Tensor::Scalar<int32_t>(0)}),
              "default_value");
}

TEST(SparseReshapeTest, InferredDim) {
  OpTest t("SparseReshape");
  auto out = t.Run({T_<int64_t>({3, 2}, {0, 0, 0, 5, 1, 2}),
                    T_<int64_t>({2}, {2, 6}), T_<int64_t>({3}, {3, -1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[1]), (std::vector<int64_t>{3, 2, 2}));
  // Linear 0, 5, 8 in [3,2,2].
  EXPECT_EQ(Values<int64_t>((*out)[0]),
            (std::vector<int64_t>{0, 0, 0, 1, 0, 1, 2, 0, 0}));
}

TEST(SparseReshapeTest, Errors) {
  OpTest a("SparseReshape");
  ExpectError(a.Run({T_<int64_t>({1, 2}, {0, 0}), T_<int64_t>({2}, {2, 6}),
                     T_<int64_t>({2}, {5, -1})}),
              "multiple of 5");
  OpTest b("SparseReshape");
  ExpectError(b.Run({T_<int64_t>({1, 2}, {0, 0}), T_<int64_t>({2}, {2, 6}),
                     T_<int64_t>({2}, {-1, -1})}),
              "only one");
  OpTest c("SparseReshape");
  ExpectError(c.Run({T_<int64_t>({1, 2}, {0, 0}), T_<int64_t>({2}, {2, 6}),
                     T_<int64_t>({2}, {5, 5})}),
              "25");
  OpTest d("SparseReshape");
  ExpectError(d.Run({T_<int64_t>({1, 2}, {0, 9}), T_<int64_t>({2}, {2, 6}),
                     T_<int64_t>({1}, {12})}),
              "not in [0, 6)");
}

}  // namespace
}  // namespace graphrt::testing
