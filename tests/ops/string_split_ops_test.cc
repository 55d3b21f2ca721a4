// StringSplit / StringSplitV2: TF semantics (sparse indices/values/shape).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

struct Sparse {
  std::vector<int64_t> indices;
  std::vector<std::string> values;
  std::vector<int64_t> shape;
};

Sparse Split(const std::string& op, const std::vector<std::string>& in,
             const std::string& delim, bool skip_empty = true,
             int64_t maxsplit = -1) {
  OpTest t(op);
  if (op == "StringSplit") t.Attr("skip_empty", skip_empty);
  else t.Attr("maxsplit", maxsplit);
  auto out = t.Run({T_<std::string>({static_cast<int64_t>(in.size())}, in),
                    Tensor::Scalar<std::string>(delim)});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].shape(), Shape({(*out)[1].num_elements(), 2}));
  return {Values<int64_t>((*out)[0]), Values<std::string>((*out)[1]),
          Values<int64_t>((*out)[2])};
}

TEST(StringSplit, AnyCharDelimiterSkipEmpty) {
  Sparse s = Split("StringSplit", {"pigs on the wing", "animals"}, " ");
  EXPECT_EQ(s.values, (std::vector<std::string>{"pigs", "on", "the", "wing", "animals"}));
  EXPECT_EQ(s.indices, (std::vector<int64_t>{0, 0, 0, 1, 0, 2, 0, 3, 1, 0}));
  EXPECT_EQ(s.shape, (std::vector<int64_t>{2, 4}));
  s = Split("StringSplit", {"a,b;;c"}, ",;");
  EXPECT_EQ(s.values, (std::vector<std::string>{"a", "b", "c"}));
  s = Split("StringSplit", {"a,b;;c"}, ",;", false);
  EXPECT_EQ(s.values, (std::vector<std::string>{"a", "b", "", "c"}));
}

TEST(StringSplit, EmptyDelimiterSplitsBytes) {
  Sparse s = Split("StringSplit", {"hi", ""}, "");
  EXPECT_EQ(s.values, (std::vector<std::string>{"h", "i"}));
  EXPECT_EQ(s.shape, (std::vector<int64_t>{2, 2}));
}

TEST(StringSplitV2, SepAndMaxsplit) {
  Sparse s = Split("StringSplitV2", {"1<>2<>3", "<><>4<>5", "", "6"}, "<>");
  EXPECT_EQ(s.values, (std::vector<std::string>{"1", "2", "3", "", "", "4", "5", "6"}));
  EXPECT_EQ(s.shape, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(s.indices[2 * 7], 3);
  s = Split("StringSplitV2", {"1,2,3"}, ",", true, 1);
  EXPECT_EQ(s.values, (std::vector<std::string>{"1", "2,3"}));
}

TEST(StringSplitV2, Whitespace) {
  Sparse s = Split("StringSplitV2", {"  a  b\tc \n", "   "}, "");
  EXPECT_EQ(s.values, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(s.shape, (std::vector<int64_t>{2, 3}));
  s = Split("StringSplitV2", {" a b  c "}, "", true, 1);
  EXPECT_EQ(s.values, (std::vector<std::string>{"a", "b  c "}));
}

TEST(StringSplit, Errors) {
  OpTest t("StringSplit");
  EXPECT_FALSE(t.Run({T_<std::string>({1, 1}, {"a"}), Tensor::Scalar<std::string>(" ")}).ok());
  OpTest u("StringSplitV2");
  EXPECT_FALSE(u.Run({T_<std::string>({1}, {"a"}), T_<std::string>({1}, {" "})}).ok());
}

}  // namespace
}  // namespace graphrt::testing
