#include <gtest/gtest.h>

#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

TEST(SearchSortedTest, LowerAndUpper) {
  Tensor sorted = T_<float>({2, 4}, {1, 2, 2, 5, 0, 10, 20, 30});
  Tensor values = T_<float>({2, 3}, {2, 0, 6, 10, 35, -1});
  OpTest lo("LowerBound");
  auto l = lo.Run({sorted, values});
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(Values<int32_t>((*l)[0]), (std::vector<int32_t>{1, 0, 4, 1, 4, 0}));
  OpTest up("UpperBound");
  up.Attr("out_type", DType::kInt64);
  auto u = up.Run({sorted, values});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(Values<int64_t>((*u)[0]), (std::vector<int64_t>{3, 0, 4, 2, 4, 0}));
}

TEST(SearchSortedTest, Errors) {
  OpTest a("LowerBound");
  EXPECT_FALSE(a.Run({T_<float>({3}, {1, 2, 3}), T_<float>({1}, {1})}).ok());
  OpTest b("LowerBound");
  EXPECT_FALSE(
      b.Run({T_<float>({2, 2}, {1, 2, 3, 4}), T_<float>({1, 1}, {1})}).ok());
  OpTest c("LowerBound");
  EXPECT_FALSE(
      c.Run({T_<float>({1, 2}, {1, 2}), T_<int32_t>({1, 1}, {1})}).ok());
}

}  // namespace
}  // namespace graphrt::testing
