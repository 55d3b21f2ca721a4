#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

TEST(BatchMatMulTest, BroadcastAndAdjoint) {
  // x [2,1,2,2], y [3,2,1] -> [2,3,2,1].
  std::vector<float> xv = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> yv = {1, 0, 0, 1, 1, 1};
  OpTest t("BatchMatMulV2");
  auto r = t.Run({T_<float>({2, 1, 2, 2}, xv), T_<float>({3, 2, 1}, yv)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({2, 3, 2, 1}));
  EXPECT_EQ(Values<float>((*r)[0]),
            (std::vector<float>{1, 3, 2, 4, 3, 7, 5, 7, 6, 8, 11, 15}));
  OpTest a("BatchMatMulV2");
  a.Attr("adj_x", true).Attr("adj_y", true);
  r = a.Run({T_<double>({1, 2, 2}, {1, 2, 3, 4}),
             T_<double>({1, 1, 2}, {1, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  // x^T = [[1,3],[2,4]], y^T = [1,1]^T -> [4, 6].
  EXPECT_EQ(Values<double>((*r)[0]), (std::vector<double>{4, 6}));
  OpTest c("BatchMatMul");
  c.Attr("adj_x", true);
  r = c.Run({T_<complex64>({1, 1, 1}, {complex64(0, 1)}),
             T_<complex64>({1, 1, 1}, {complex64(0, 1)})});
  ASSERT_TRUE(r.ok()) << r.status();
  // conj(i) * i = 1.
  EXPECT_EQ(Values<complex64>((*r)[0])[0], complex64(1, 0));
  OpTest i("BatchMatMulV2");
  r = i.Run({T_<int32_t>({2, 2}, {1, 2, 3, 4}), T_<int32_t>({2, 2}, {1, 0, 0, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(BatchMatMulTest, Errors) {
  OpTest v1("BatchMatMul");
  ExpectError(v1.Run({T_<float>({2, 2, 2}, {}), T_<float>({1, 2, 2}, {})}),
              "equal batch");
  OpTest v2("BatchMatMulV2");
  ExpectError(v2.Run({T_<float>({2, 2, 3}, {}), T_<float>({2, 2, 2}, {})}),
              "size-incompatible");
  OpTest v3("BatchMatMulV2");
  ExpectError(v3.Run({T_<float>({2, 2, 2}, {}), T_<float>({3, 2, 2}, {})}),
              "broadcastable");
  OpTest v4("BatchMatMulV2");
  ExpectError(v4.Run({T_<float>({2}, {}), T_<float>({2, 2}, {})}), "rank");
  OpTest v5("BatchMatMulV2");
  ExpectError(v5.Run({T_<float>({2, 2}, {}), T_<double>({2, 2}, {})}),
              "dtype");
}

TEST(MatrixBandPartTest, Bands) {
  std::vector<float> x(9);
  for (int i = 0; i < 9; ++i) x[i] = static_cast<float>(i + 1);
  auto run = [&](int64_t lower, int64_t upper) {
    OpTest t("MatrixBandPart");
    return t.Run({T_<float>({3, 3}, x), Tensor::Scalar<int64_t>(lower),
                  Tensor::Scalar<int64_t>(upper)});
  };
  auto r = run(1, 0);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]),
            (std::vector<float>{1, 0, 0, 4, 5, 0, 0, 8, 9}));
  r = run(0, -1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]),
            (std::vector<float>{1, 2, 3, 0, 5, 6, 0, 0, 9}));
  r = run(-1, -1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), x);
  ExpectError(run(4, 0), "num_lower");
  ExpectError(run(0, 4), "num_upper");
}

}  // namespace
}  // namespace graphrt::testing
