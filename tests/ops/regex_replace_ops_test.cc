// StaticRegexReplace with RE2-style rewrites.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

using S = std::vector<std::string>;

S Replace(const std::string& pattern, const std::string& rewrite, bool global,
          const S& in) {
  OpTest t("StaticRegexReplace");
  t.Attr("pattern", pattern).Attr("rewrite", rewrite).Attr("replace_global", global);
  auto out = t.Run({T_<std::string>({static_cast<int64_t>(in.size())}, in)});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? Values<std::string>((*out)[0]) : S{};
}

TEST(StaticRegexReplace, GlobalAndFirst) {
  EXPECT_EQ(Replace("[^a-z0-9 ]", "", true, {"Hello, World!", "a.b"}),
            (S{"ello orld", "ab"}));
  EXPECT_EQ(Replace("o", "0", false, {"foo"}), (S{"f0o"}));
}

TEST(StaticRegexReplace, GroupsAndDollars) {
  EXPECT_EQ(Replace("(\\w+)@(\\w+)", "\\2 at \\1 ($)", true, {"me@host"}),
            (S{"host at me ($)"}));
  EXPECT_EQ(Replace("(?i)HELLO", "<\\0>", true, {"hello Hello"}),
            (S{"<hello> <Hello>"}));
}

TEST(StaticRegexReplace, BadPatternFailsAtLoad) {
  OpTest t("StaticRegexReplace");
  t.Attr("pattern", "(unclosed").Attr("rewrite", "");
  EXPECT_FALSE(t.Create(1).ok());
}

}  // namespace
}  // namespace graphrt::testing
