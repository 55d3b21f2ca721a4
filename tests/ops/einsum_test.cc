#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                 const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

std::vector<float> Random(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(*rng);
  return v;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

// [n, h, w, c] -> [n, c, h, w].
std::vector<float> Nhwc2Nchw(const std::vector<float>& v, int64_t n, int64_t h,
                             int64_t w, int64_t c) {
  std::vector<float> o(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k)
          o[((b * c + k) * h + y) * w + x] = v[((b * h + y) * w + x) * c + k];
  return o;
}

// TF window geometry: output size and pad_before.
void Window(int64_t in, int64_t k, int64_t s, int64_t d,
            const std::string& padding, int64_t pb, int64_t pa, int64_t* out,
            int64_t* before) {
  const int64_t e = (k - 1) * d + 1;
  if (padding == "VALID") {
    *out = (in - e + s) / s;
    *before = 0;
  } else if (padding == "SAME") {
    *out = (in + s - 1) / s;
    *before = std::max<int64_t>(0, (*out - 1) * s + e - in) / 2;
  } else {
    *out = (in + pb + pa - e + s) / s;
    *before = pb;
  }
}
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
