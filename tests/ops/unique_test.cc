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

TEST(UniqueTest, FirstOccurrenceOrder) {
  OpTest t("Unique");
  auto out = t.Run({T_<int32_t>({9}, {1, 1, 2, 4, 4, 4, 7, 8, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1, 2, 4, 7, 8}));
  EXPECT_EQ(Values<int32_t>((*out)[1]),
            (std::vector<int32_t>{0, 0, 1, 2, 2, 2, 3, 4, 4}));
}

TEST(UniqueTest, FloatsStringsAndInt64Idx) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest t("Unique");
  t.Attr("out_idx", DType::kInt64);
  auto out = t.Run({T_<float>({5}, {0.0f, -0.0f, nan, nan, 1.0f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].num_elements(), 4);  // 0, NaN, NaN, 1
  EXPECT_EQ(Values<int64_t>((*out)[1]), (std::vector<int64_t>{0, 0, 1, 2, 3}));
  OpTest s("UniqueWithCounts");
  auto str = s.Run({T_<std::string>({4}, {"b", "a", "b", "b"})});
  ASSERT_TRUE(str.ok());
  EXPECT_EQ(Values<std::string>((*str)[0]), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(Values<int32_t>((*str)[2]), (std::vector<int32_t>{3, 1}));
}

TEST(UniqueTest, V2Axis) {
  // Unique rows of [[1,2],[3,4],[1,2]] and unique columns.
  Tensor x = T_<int32_t>({3, 2}, {1, 2, 3, 4, 1, 2});
  OpTest t("UniqueV2");
  auto rows = t.Run({x, T_<int64_t>({1}, {0})});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int32_t>((*rows)[0]), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(Values<int32_t>((*rows)[1]), (std::vector<int32_t>{0, 1, 0}));
  Tensor y = T_<int32_t>({2, 3}, {1, 5, 1, 2, 6, 2});
  OpTest u("UniqueV2");
  auto cols = u.Run({y, T_<int32_t>({1}, {-1})});
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_EQ((*cols)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int32_t>((*cols)[0]), (std::vector<int32_t>{1, 5, 2, 6}));
  EXPECT_EQ(Values<int32_t>((*cols)[1]), (std::vector<int32_t>{0, 1, 0}));
  OpTest v("UniqueV2");
  auto flat = v.Run({T_<int32_t>({3}, {3, 3, 1}), T_<int32_t>({0}, {})});
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(Values<int32_t>((*flat)[0]), (std::vector<int32_t>{3, 1}));
}

TEST(UniqueTest, Errors) {
  OpTest t("Unique");
  ExpectError(t.Run({T_<int32_t>({2, 2}, {1, 2, 3, 4})}), "1-D");
  OpTest u("UniqueV2");
  ExpectError(u.Run({T_<int32_t>({2, 2}, {1, 2, 3, 4}), T_<int32_t>({1}, {2})}),
              "axis");
  OpTest v("UniqueV2");
  ExpectError(v.Run({T_<int32_t>({2}, {1, 2}), T_<int32_t>({2}, {0, 0})}),
              "at most 1 element");
}

TEST(ListDiffTest, Basic) {
  OpTest t("ListDiff");
  auto out = t.Run({T_<int32_t>({6}, {1, 2, 3, 4, 5, 6}),
                    T_<int32_t>({3}, {1, 3, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{2, 4, 6}));
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{1, 3, 5}));
  OpTest u("ListDiff");
  u.Attr("out_idx", DType::kInt64);
  auto dup = u.Run({T_<std::string>({3}, {"a", "b", "a"}),
                    T_<std::string>({1}, {"b"})});
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(Values<std::string>((*dup)[0]), (std::vector<std::string>{"a", "a"}));
  EXPECT_EQ(Values<int64_t>((*dup)[1]), (std::vector<int64_t>{0, 2}));
  OpTest e("ListDiff");
  ExpectError(e.Run({T_<int32_t>({1}, {1}), T_<int64_t>({1}, {1})}),
              "same dtype");
}

}  // namespace
}  // namespace graphrt::testing
