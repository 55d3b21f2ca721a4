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

absl::StatusOr<std::vector<Tensor>> Einsum(const std::string& eq,
                                           std::vector<Tensor> in) {
  OpTest t("Einsum");
  t.Attr("equation", eq).Attr("N", static_cast<int64_t>(in.size()));
  return t.Run(in);
}

TEST(EinsumTest, CommonEquations) {
  const Tensor a = T_<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = T_<float>({3, 2}, {1, 0, 0, 1, 1, 1});
  auto r = Einsum("ij,jk->ik", {a, b});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{4, 5, 10, 11}));
  r = Einsum("ij->ji", {a});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  r = Einsum("ij->", {a});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{21}));
  r = Einsum("ij->j", {a});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{5, 7, 9}));
  // Diagonal / trace.
  r = Einsum("ii->i", {T_<int32_t>({2, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{1, 4}));
  // Implicit output: "ij,jk" -> "ik".
  r = Einsum("ij,jk", {a, b});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{4, 5, 10, 11}));
  // Batch matmul with broadcast ellipsis.
  r = Einsum("...ij,...jk->...ik",
             {T_<float>({2, 1, 2}, {1, 2, 3, 4}), T_<float>({2, 1}, {1, 1})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({2, 1, 1}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{3, 7}));
  // Outer product.
  r = Einsum("i,j->ij", {T_<float>({2}, {1, 2}), T_<float>({2}, {3, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{3, 4, 6, 8}));
}

TEST(EinsumTest, Errors) {
  const Tensor a = T_<float>({2, 3}, {});
  ExpectError(Einsum("ij,jk->ik", {a, T_<float>({2, 2}, {})}), "size");
  ExpectError(Einsum("ijk->i", {a}), "rank");
  ExpectError(Einsum("ij->iz", {a}), "output label");
  ExpectError(Einsum("i1->i", {a}), "equation");
  ExpectError(Einsum("ij,jk->ik", {a}), "inputs");
}

}  // namespace
}  // namespace graphrt::testing
