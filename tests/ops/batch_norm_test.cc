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

TEST(FusedBatchNormTest, InferenceNhwcAndNchw) {
  const Tensor x = T_<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor scale = T_<float>({2}, {1, 2});
  const Tensor offset = T_<float>({2}, {0, 1});
  const Tensor mean = T_<float>({2}, {1, 2});
  const Tensor var = T_<float>({2}, {4, 1});
  OpTest t("FusedBatchNormV3");
  t.Attr("epsilon", 0.f).Attr("is_training", false);
  auto r = t.Run({x, scale, offset, mean, var});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 6u);
  // ch0: (x - 1) / 2; ch1: (x - 2) * 2 + 1.
  ExpectNear(Values<float>((*r)[0]), {0, 1, 1, 5}, 1e-6f);
  EXPECT_EQ(Values<float>((*r)[1]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<float>((*r)[2]), (std::vector<float>{4, 1}));
  EXPECT_EQ((*r)[5].num_elements(), 0);
  OpTest n("FusedBatchNorm");
  n.Attr("epsilon", 0.f).Attr("is_training", false).Attr("data_format", "NCHW");
  r = n.Run({T_<float>({1, 2, 1, 2}, {1, 3, 2, 4}), scale, offset, mean, var});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->size(), 5u);
  ExpectNear(Values<float>((*r)[0]), {0, 1, 1, 5}, 1e-6f);
}

TEST(FusedBatchNormTest, Training) {
  OpTest t("FusedBatchNormV2");
  t.Attr("epsilon", 0.f);
  auto r = t.Run({T_<float>({1, 2, 1, 1}, {1, 3}), T_<float>({1}, {1}),
                  T_<float>({1}, {0}), T_<float>({0}, {}),
                  T_<float>({0}, {})});
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {-1, 1}, 1e-6f);
  EXPECT_EQ(Values<float>((*r)[1]), (std::vector<float>{2}));
  EXPECT_EQ(Values<float>((*r)[2]), (std::vector<float>{2}));  // unbiased
  EXPECT_EQ(Values<float>((*r)[4]), (std::vector<float>{1}));  // biased
}

TEST(FusedBatchNormTest, Errors) {
  OpTest t("FusedBatchNormV3");
  t.Attr("is_training", false);
  const Tensor v = T_<float>({2}, {1, 1});
  ExpectError(t.Run({T_<float>({1, 1, 1, 3}, {}), v, v, v, v}), "scale");
  OpTest u("FusedBatchNormV3");
  u.Attr("is_training", false);
  ExpectError(u.Run({T_<float>({1, 2}, {}), v, v, v, v}), "rank");
  OpTest w("FusedBatchNorm");
  w.Attr("data_format", "NWHC");
  ExpectError(w.Run({T_<float>({1, 1, 1, 2}, {}), v, v, v, v}), "data_format");
}

TEST(LrnTest, HandComputed) {
  OpTest t("LRN");
  t.Attr("depth_radius", int64_t{1}).Attr("bias", 1.f).Attr("alpha", 1.f)
      .Attr("beta", 1.f);
  auto r = t.Run({T_<float>({1, 1, 1, 3}, {1, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  // sums: 1+4=5, 1+4+9=14, 4+9=13.
  ExpectNear(Values<float>((*r)[0]), {1.f / 6, 2.f / 15, 3.f / 14}, 1e-6f);
  OpTest d("LRN");
  auto r2 = d.Run({T_<float>({1, 1, 1, 1}, {3})});
  ASSERT_TRUE(r2.ok()) << r2.status();
  // defaults: 3 / sqrt(1 + 9).
  ExpectNear(Values<float>((*r2)[0]), {3.f / std::sqrt(10.f)}, 1e-6f);
  OpTest e("LRN");
  ExpectError(e.Run({T_<float>({1, 3}, {})}), "rank 4");
}

}  // namespace
}  // namespace graphrt::testing
