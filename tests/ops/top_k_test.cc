#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

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
  EXPECT_EQ(Values<int32_t>((*out)[1]),
            (std::vector<int32_t>{1, 2, 4, 0, 2, 1}));
}

TEST(TopKTest, KOneAndKAllInt32) {
  OpTest t("TopKV2");
  auto one =
      t.Run({T_<int32_t>({4}, {7, 9, 9, -1}), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Values<int32_t>((*one)[0]), (std::vector<int32_t>{9}));
  EXPECT_EQ(Values<int32_t>((*one)[1]), (std::vector<int32_t>{1}));
  OpTest u("TopKV2");
  auto all =
      u.Run({T_<int32_t>({4}, {7, 9, 9, -1}), Tensor::Scalar<int32_t>(4)});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Values<int32_t>((*all)[0]), (std::vector<int32_t>{9, 9, 7, -1}));
  EXPECT_EQ(Values<int32_t>((*all)[1]), (std::vector<int32_t>{1, 2, 0, 3}));
  OpTest z("TopKV2");
  auto zero =
      z.Run({T_<int32_t>({2, 2}, {1, 2, 3, 4}), Tensor::Scalar<int32_t>(0)});
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

// k <= n / 4 takes the heap scan: the same values and indices as a full
// stable sort by (NaN first, value descending, index ascending), with many
// ties, NaNs and infinities.
TEST(TopKTest, FewOfManyMatchesFullSort) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t rows = 3, n = 4000;
  std::vector<float> x(rows * n);
  for (int64_t i = 0; i < rows * n; ++i) {
    x[i] = static_cast<float>((i * 7919) % 97) / 8.0f;  // many ties
    if (i % 1013 == 5) x[i] = nan;
    if (i % 1500 == 7) x[i] = inf;
    if (i % 1700 == 9) x[i] = -inf;
  }
  for (int32_t k : {1, 2, 17, 100, 1000}) {
    SCOPED_TRACE(k);
    OpTest t("TopKV2");
    auto out = t.Run({T_<float>({rows, n}, x), Tensor::Scalar<int32_t>(k)});
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<float> v = Values<float>((*out)[0]);
    const std::vector<int32_t> idx = Values<int32_t>((*out)[1]);
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x.data() + r * n;
      std::vector<int32_t> order(n);
      for (int32_t i = 0; i < n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        const bool na = std::isnan(row[a]), nb = std::isnan(row[b]);
        if (na || nb) return na && !nb;
        return row[b] < row[a];
      });
      for (int32_t j = 0; j < k; ++j) {
        ASSERT_EQ(idx[r * k + j], order[j]) << "row " << r << " rank " << j;
        const float want = row[order[j]];
        EXPECT_TRUE(v[r * k + j] == want ||
                    (std::isnan(v[r * k + j]) && std::isnan(want)));
      }
    }
  }
}

// The heap scan compares values as `v <= worst` (a NaN never is): the same
// ranks for float16 and integer rows as for their float copies.
TEST(TopKTest, FewOfManyHalfAndIntMatchFloat) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t n = 256;
  const int32_t k = 8;
  std::vector<float> xf(n);
  std::vector<float16> xh(n);
  std::vector<int32_t> xi(n);
  for (int64_t i = 0; i < n; ++i) {
    xf[i] = static_cast<float>((i * 37) % 61) - 20.0f;  // ties
    xi[i] = static_cast<int32_t>(xf[i]);
  }
  auto run = [&](const Tensor& x) {
    OpTest t("TopKV2");
    auto out = t.Run({x, Tensor::Scalar<int32_t>(k)});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? Values<int32_t>((*out)[1]) : std::vector<int32_t>();
  };
  EXPECT_EQ(run(T_<int32_t>({n}, xi)), run(T_<float>({n}, xf)));
  xf[100] = nan;
  for (int64_t i = 0; i < n; ++i) xh[i] = float16(xf[i]);
  const std::vector<int32_t> want = run(T_<float>({n}, xf));
  ASSERT_EQ(want.size(), static_cast<size_t>(k));
  EXPECT_EQ(want[0], 100);  // NaN first
  EXPECT_EQ(run(T_<float16>({n}, xh)), want);
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
