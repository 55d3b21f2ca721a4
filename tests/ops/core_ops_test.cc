#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

TEST(IdentityTest, ForwardsInput) {
  OpTest t("Identity");
  auto out = t.Run({T_<float>({2}, {1.5f, -2.f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1.5f, -2.f}));
}

TEST(IdentityTest, WrongArityFailsAtCreate) {
  OpTest t("Identity");
  EXPECT_FALSE(t.Create(2).ok());
}

TEST(ConstTest, NeedsValue) {
  OpTest t("Const");
  EXPECT_FALSE(t.Create(0).ok());
  Tensor v = Tensor::Scalar<int32_t>(7);
  OpTest t2("Const");
  ASSERT_TRUE(t2.Create(0, &v).ok());
  auto out = t2.Run({});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*(*out)[0].data<int32_t>(), 7);
}

TEST(PlaceholderTest, UnfedIsError) {
  OpTest t("Placeholder");
  EXPECT_FALSE(t.Run({}).ok());
}

}  // namespace
}  // namespace graphrt::testing
