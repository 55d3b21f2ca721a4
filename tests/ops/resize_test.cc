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

absl::StatusOr<std::vector<Tensor>> Resize(const std::string& op,
                                           const Tensor& img, int32_t h,
                                           int32_t w, bool align,
                                           bool half_pixel) {
  OpTest t(op);
  t.Attr("align_corners", align).Attr("half_pixel_centers", half_pixel);
  return t.Run({img, T_<int32_t>({2}, {h, w})});
}

TEST(ResizeBilinearTest, ModesHandComputed) {
  const Tensor img = T_<float>({1, 2, 2, 1}, {0, 1, 2, 3});
  auto r = Resize("ResizeBilinear", img, 3, 3, false, false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({1, 3, 3, 1}));
  ExpectNear(Values<float>((*r)[0]),
             {0, 2.f / 3, 1, 4.f / 3, 2, 7.f / 3, 2, 8.f / 3, 3}, 1e-5f);
  r = Resize("ResizeBilinear", img, 3, 3, true, false);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {0, .5, 1, 1, 1.5, 2, 2, 2.5, 3}, 1e-6f);
  r = Resize("ResizeBilinear", T_<uint8_t>({1, 1, 2, 1}, {0, 100}), 1, 4, false,
             true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype(), DType::kFloat32);
  ExpectNear(Values<float>((*r)[0]), {0, 25, 75, 100}, 1e-4f);
}

// Per-pixel reference of TF's ResizeBilinear (the kernel caches
// horizontally interpolated rows; the values must be the same bits).
std::vector<float> BilinearReference(const std::vector<float>& img, int64_t n,
                                     int64_t h, int64_t w, int64_t c,
                                     int64_t oh, int64_t ow, bool align,
                                     bool half) {
  auto scale = [&](int64_t in, int64_t out) {
    return (align && out > 1)
               ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
               : static_cast<float>(in) / static_cast<float>(out);
  };
  struct L {
    int64_t lo, hi;
    float f;
  };
  auto weights = [&](int64_t out, int64_t in) {
    std::vector<L> v(out);
    const float s = scale(in, out);
    for (int64_t i = 0; i < out; ++i) {
      const float src = half ? (static_cast<float>(i) + 0.5f) * s - 0.5f
                             : static_cast<float>(i) * s;
      const float fl = std::floor(src);
      v[i].lo = std::min<int64_t>(std::max<int64_t>(fl, 0), in - 1);
      v[i].hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in - 1);
      v[i].f = src - fl;
    }
    return v;
  };
  const auto ys = weights(oh, h), xs = weights(ow, w);
  std::vector<float> out(n * oh * ow * c);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        for (int64_t ch = 0; ch < c; ++ch) {
          auto at = [&](int64_t yy, int64_t xx) {
            return img[((b * h + yy) * w + xx) * c + ch];
          };
          const float tl = at(ys[y].lo, xs[x].lo), tr = at(ys[y].lo, xs[x].hi);
          const float bl = at(ys[y].hi, xs[x].lo), br = at(ys[y].hi, xs[x].hi);
          const float t = tl + (tr - tl) * xs[x].f;
          const float bo = bl + (br - bl) * xs[x].f;
          out[((b * oh + y) * ow + x) * c + ch] = t + (bo - t) * ys[y].f;
        }
      }
    }
  }
  return out;
}

TEST(ResizeBilinearTest, MatchesPerPixelReferenceBitwise) {
  const int64_t n = 2, h = 5, w = 7;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4, 4);
  const std::pair<int32_t, int32_t> sizes[] = {{11, 13}, {3, 4}, {5, 7},
                                               {12, 3},  {1, 1}, {20, 2}};
  // 3 channels (any count), and the counts with their own row loops.
  for (int64_t c : {3, 4, 8, 16, 32}) {
    std::vector<float> img(n * h * w * c);
    for (float& v : img) v = dist(rng);
    const Tensor t = T_<float>({n, h, w, c}, img);
    for (auto [oh, ow] : sizes) {
      for (auto [align, half] :
           {std::pair{false, false}, std::pair{true, false},
            std::pair{false, true}}) {
        SCOPED_TRACE(::testing::Message()
                     << c << " channels, " << oh << "x" << ow << " align "
                     << align << " half " << half);
        auto r = Resize("ResizeBilinear", t, oh, ow, align, half);
        ASSERT_TRUE(r.ok()) << r.status();
        EXPECT_EQ(Values<float>((*r)[0]),
                  BilinearReference(img, n, h, w, c, oh, ow, align, half));
      }
    }
  }
}

TEST(ResizeNearestTest, ModesHandComputed) {
  const Tensor img = T_<int32_t>({1, 1, 4, 1}, {10, 20, 30, 40});
  auto r = Resize("ResizeNearestNeighbor", img, 1, 3, false, false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{10, 20, 30}));
  r = Resize("ResizeNearestNeighbor", img, 1, 3, false, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{10, 30, 40}));
  r = Resize("ResizeNearestNeighbor", img, 1, 3, true, false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{10, 30, 40}));
  // Upsampling 2 -> 4 with half-pixel centers: 0, 0, 1, 1.
  r = Resize("ResizeNearestNeighbor", T_<float>({1, 1, 2, 1}, {1, 2}), 1, 4,
             false, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, 1, 2, 2}));
}

TEST(ResizeTest, Errors) {
  const Tensor img = T_<float>({1, 2, 2, 1}, {0, 1, 2, 3});
  ExpectError(Resize("ResizeBilinear", img, 2, 2, true, true), "align_corners");
  ExpectError(Resize("ResizeBilinear", img, 0, 2, false, false), "positive");
  ExpectError(
      Resize("ResizeBilinear", T_<float>({2, 2, 1}, {}), 2, 2, false, false),
      "rank 4");
  OpTest t("ResizeBilinear");
  ExpectError(t.Run({img, T_<int32_t>({3}, {1, 2, 3})}), "size");
}

absl::StatusOr<std::vector<Tensor>> Crop(const Tensor& img,
                                         std::vector<float> boxes,
                                         std::vector<int32_t> ind, int32_t h,
                                         int32_t w, const std::string& method) {
  OpTest t("CropAndResize");
  t.Attr("method", method).Attr("extrapolation_value", -1.f);
  const int64_t n = static_cast<int64_t>(ind.size());
  return t.Run({img, T_<float>({n, 4}, boxes), T_<int32_t>({n}, ind),
                T_<int32_t>({2}, {h, w})});
}

TEST(CropAndResizeTest, HandComputed) {
  const Tensor img = T_<float>({1, 3, 3, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  auto r = Crop(img, {0, 0, 1, 1, 0, 0, 0.5, 0.5}, {0, 0}, 2, 2, "bilinear");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({2, 2, 2, 1}));
  ExpectNear(Values<float>((*r)[0]), {0, 2, 6, 8, 0, 1, 3, 4}, 1e-6f);
  // Centre of a box with crop size 1; a box outside the image extrapolates.
  r = Crop(img, {0.25, 0.25, 0.75, 0.75, -1, -1, -0.5, -0.5}, {0, 0}, 1, 1,
           "bilinear");
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {4, -1}, 1e-6f);
  r = Crop(T_<uint8_t>({1, 2, 2, 1}, {0, 10, 20, 30}), {0, 0, 1, 0.4f}, {0}, 2,
           2, "nearest");
  ASSERT_TRUE(r.ok()) << r.status();
  // x: 0 and 0.4 -> round 0, 0; y: 0, 1.
  ExpectNear(Values<float>((*r)[0]), {0, 0, 20, 20}, 1e-6f);
  ExpectError(Crop(img, {0, 0, 1, 1}, {1}, 2, 2, "bilinear"), "box_ind");
  ExpectError(Crop(img, {0, 0, 1, 1}, {0}, 2, 2, "cubic"), "method");
}

}  // namespace
}  // namespace graphrt::testing
