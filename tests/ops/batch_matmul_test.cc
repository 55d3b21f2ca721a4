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
