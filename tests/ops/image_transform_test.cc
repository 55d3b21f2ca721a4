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
absl::StatusOr<std::vector<Tensor>> Transform(const Tensor& img,
                                              std::vector<float> t,
                                              const std::string& interp,
                                              const std::string& mode,
                                              float fill) {
  OpTest op("ImageProjectiveTransformV3");
  op.Attr("interpolation", interp).Attr("fill_mode", mode)
      .Attr("dtype", img.dtype());
  return op.Run({img, T_<float>({1, 8}, t), T_<int32_t>({2}, {1, 3}),
                 Tensor::Scalar<float>(fill)});
}

TEST(ImageProjectiveTransformTest, FillModes) {
  const Tensor img = T_<float>({1, 1, 3, 1}, {1, 2, 3});
  const std::vector<float> shift = {1, 0, -1, 0, 1, 0, 0, 0};  // in_x = x - 1
  auto r = Transform(img, {1, 0, 0, 0, 1, 0, 0, 0}, "NEAREST", "CONSTANT", 7);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, 2, 3}));
  r = Transform(img, shift, "NEAREST", "CONSTANT", 7);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{7, 1, 2}));
  r = Transform(img, shift, "NEAREST", "WRAP", 7);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{3, 1, 2}));
  r = Transform(img, shift, "NEAREST", "REFLECT", 7);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, 1, 2}));
  r = Transform(img, shift, "BILINEAR", "NEAREST", 7);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, 1, 2}));
  r = Transform(img, {1, 0, 0.5f, 0, 1, 0, 0, 0}, "BILINEAR", "CONSTANT", 0);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {1.5f, 2.5f, 0}, 1e-6f);
  // uint8 keeps its dtype; projection 0 gives the fill value.
  r = Transform(T_<uint8_t>({1, 1, 3, 1}, {10, 20, 30}),
                {1, 0, 0, 0, 1, 0, -1, 0}, "NEAREST", "CONSTANT", 5);
  ASSERT_TRUE(r.ok()) << r.status();
  // x = 1: k = 0 -> fill.
  EXPECT_EQ(Values<uint8_t>((*r)[0])[1], 5);
}

TEST(ImageProjectiveTransformTest, Errors) {
  const Tensor img = T_<float>({1, 1, 3, 1}, {1, 2, 3});
  ExpectError(Transform(img, {1, 0, 0, 0, 1, 0, 0, 0}, "CUBIC", "CONSTANT", 0),
              "interpolation");
  ExpectError(Transform(img, {1, 0, 0, 0, 1, 0, 0, 0}, "NEAREST", "MIRROR", 0),
              "fill_mode");
  OpTest op("ImageProjectiveTransformV3");
  op.Attr("interpolation", "NEAREST");
  ExpectError(op.Run({img, T_<float>({1, 6}, {}), T_<int32_t>({2}, {1, 3}),
                      Tensor::Scalar<float>(0)}),
              "transforms");
}

}  // namespace
}  // namespace graphrt::testing
