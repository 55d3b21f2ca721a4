#include <gtest/gtest.h>

#include <cmath>
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

Tensor Data() { return T_<float>({3, 2}, {1, 2, 3, 4, 5, 6}); }

TEST(SparseSegmentTest, SumAndMean) {
  OpTest s("SparseSegmentSum");
  auto sum = s.Run({Data(), T_<int32_t>({3}, {0, 2, 1}),
                    T_<int32_t>({3}, {0, 0, 2})});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ((*sum)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>((*sum)[0]), (std::vector<float>{6, 8, 0, 0, 3, 4}));
  OpTest m("SparseSegmentMean");
  auto mean = m.Run({Data(), T_<int64_t>({3}, {0, 2, 1}),
                     T_<int64_t>({3}, {0, 0, 2})});
  ASSERT_TRUE(mean.ok());
  EXPECT_EQ(Values<float>((*mean)[0]), (std::vector<float>{3, 4, 0, 0, 3, 4}));
  OpTest q("SparseSegmentSqrtN");
  auto sq = q.Run({Data(), T_<int32_t>({2}, {0, 2}), T_<int32_t>({2}, {0, 0})});
  ASSERT_TRUE(sq.ok());
  EXPECT_FLOAT_EQ(Values<float>((*sq)[0])[0], 6 / std::sqrt(2.0f));
}

TEST(SparseSegmentTest, WithNumSegmentsAndInt) {
  OpTest s("SparseSegmentSumWithNumSegments");
  auto sum = s.Run({T_<int32_t>({3}, {1, 2, 3}), T_<int32_t>({2}, {2, 2}),
                    T_<int32_t>({2}, {1, 1}), Tensor::Scalar<int32_t>(4)});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(Values<int32_t>((*sum)[0]), (std::vector<int32_t>{0, 6, 0, 0}));
  OpTest m("SparseSegmentMeanWithNumSegments");
  auto mean = m.Run({Data(), T_<int32_t>({0}, {}), T_<int32_t>({0}, {}),
                     Tensor::Scalar<int64_t>(2)});
  ASSERT_TRUE(mean.ok());
  EXPECT_EQ((*mean)[0].shape(), Shape({2, 2}));
}

TEST(SparseSegmentTest, Errors) {
  OpTest a("SparseSegmentSumWithNumSegments");
  ExpectError(a.Run({Data(), T_<int32_t>({2}, {0, 1}),
                     T_<int32_t>({2}, {1, 0}), Tensor::Scalar<int32_t>(3)}),
              "not increasing");
  OpTest b("SparseSegmentSum");
  ExpectError(b.Run({Data(), T_<int32_t>({2}, {0, 3}),
                     T_<int32_t>({2}, {0, 0})}),
              "not in [0, 3)");
  OpTest c("SparseSegmentSumWithNumSegments");
  ExpectError(c.Run({Data(), T_<int32_t>({1}, {0}), T_<int32_t>({1}, {3}),
                     Tensor::Scalar<int32_t>(2)}),
              "out of range");
  OpTest d("SparseSegmentMean");
  ExpectError(d.Run({T_<int32_t>({1}, {1}), T_<int32_t>({1}, {0}),
                     T_<int32_t>({1}, {0})}),
              "unsupported dtype");
  OpTest e("SparseSegmentSum");
  ExpectError(e.Run({Data(), T_<int32_t>({2}, {0, 1}),
                     T_<int32_t>({1}, {0})}),
              "same size");
}

}  // namespace
}  // namespace graphrt::testing
