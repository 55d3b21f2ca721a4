// StringLower, StringUpper, StringJoin, Substr.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

using S = std::vector<std::string>;

TEST(StringCase, LowerUpperAscii) {
  OpTest lo("StringLower");
  auto out = lo.Run({T_<std::string>({2}, {"HeLLo", "ÄB"})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"hello", "Äb"}));
  OpTest up("StringUpper");
  up.Attr("encoding", "utf-8");
  out = up.Run({T_<std::string>({1, 1}, {"abc1"})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].shape(), Shape({1, 1}));
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"ABC1"}));
  OpTest bad("StringLower");
  bad.Attr("encoding", "latin1");
  EXPECT_FALSE(bad.Create(1).ok());
}

TEST(StringJoin, BroadcastsScalars) {
  OpTest t("StringJoin");
  t.Attr("separator", "-");
  auto out = t.Run({T_<std::string>({2}, {"a", "b"}), Tensor::Scalar<std::string>("x"),
                    T_<std::string>({2}, {"1", "2"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"a-x-1", "b-x-2"}));
  OpTest s("StringJoin");
  out = s.Run({Tensor::Scalar<std::string>("p"), Tensor::Scalar<std::string>("q")});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].rank(), 0);
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"pq"}));
  OpTest bad("StringJoin");
  EXPECT_FALSE(bad.Run({T_<std::string>({2}, {"a", "b"}), T_<std::string>({3}, {"a", "b", "c"})}).ok());
}

TEST(Substr, BytesScalarAndElementwise) {
  OpTest t("Substr");
  auto out = t.Run({T_<std::string>({3}, {"Hello", "World", "ab"}),
                    Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"ell", "orl", "b"}));
  OpTest e("Substr");
  out = e.Run({T_<std::string>({2}, {"Hello", "World"}), T_<int64_t>({2}, {-2, 0}),
               T_<int64_t>({2}, {5, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"lo", "Wo"}));
  // Broadcast input [2,1] against pos [3] -> [2,3].
  OpTest b("Substr");
  out = b.Run({T_<std::string>({2, 1}, {"abcd", "wxyz"}), T_<int32_t>({3}, {0, 1, 2}),
               T_<int32_t>({3}, {1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"a", "b", "c", "w", "x", "y"}));
  OpTest r("Substr");
  auto bad = r.Run({T_<std::string>({1}, {"ab"}), Tensor::Scalar<int32_t>(3),
                    Tensor::Scalar<int32_t>(1)});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("pos 3 out of range"), std::string::npos);
}

TEST(Substr, Utf8Chars) {
  OpTest t("Substr");
  t.Attr("unit", "UTF8_CHAR");
  auto out = t.Run({T_<std::string>({1}, {"h\xC3\xA9llo"}), Tensor::Scalar<int32_t>(1),
                    Tensor::Scalar<int32_t>(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (S{"\xC3\xA9l"}));
}

}  // namespace
}  // namespace graphrt::testing
