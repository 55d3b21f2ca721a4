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
  r = Resize("ResizeBilinear", T_<uint8_t>({1, 1, 2, 1}, {0, 100}), 1, 4,
             false, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype(), DType::kFloat32);
  ExpectNear(Values<float>((*r)[0]), {0, 25, 75, 100}, 1e-4f);
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
  ExpectError(Resize("ResizeBilinear", img, 2, 2, true, true),
              "align_corners");
  ExpectError(Resize("ResizeBilinear", img, 0, 2, false, false), "positive");
  ExpectError(Resize("ResizeBilinear", T_<float>({2, 2, 1}, {}), 2, 2, false,
                     false),
              "rank 4");
  OpTest t("ResizeBilinear");
  ExpectError(t.Run({img, T_<int32_t>({3}, {1, 2, 3})}), "size");
}

absl::StatusOr<std::vector<Tensor>> Crop(const Tensor& img,
                                         std::vector<float> boxes,
                                         std::vector<int32_t> ind, int32_t h,
                                         int32_t w,
                                         const std::string& method) {
  OpTest t("CropAndResize");
  t.Attr("method", method).Attr("extrapolation_value", -1.f);
  const int64_t n = static_cast<int64_t>(ind.size());
  return t.Run({img, T_<float>({n, 4}, boxes), T_<int32_t>({n}, ind),
                T_<int32_t>({2}, {h, w})});
}

TEST(CropAndResizeTest, HandComputed) {
  const Tensor img =
      T_<float>({1, 3, 3, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  auto r = Crop(img, {0, 0, 1, 1, 0, 0, 0.5, 0.5}, {0, 0}, 2, 2, "bilinear");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({2, 2, 2, 1}));
  ExpectNear(Values<float>((*r)[0]), {0, 2, 6, 8, 0, 1, 3, 4}, 1e-6f);
  // Centre of a box with crop size 1; a box outside the image extrapolates.
  r = Crop(img, {0.25, 0.25, 0.75, 0.75, -1, -1, -0.5, -0.5}, {0, 0}, 1, 1,
           "bilinear");
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(Values<float>((*r)[0]), {4, -1}, 1e-6f);
  r = Crop(T_<uint8_t>({1, 2, 2, 1}, {0, 10, 20, 30}), {0, 0, 1, 0.4f}, {0},
           2, 2, "nearest");
  ASSERT_TRUE(r.ok()) << r.status();
  // x: 0 and 0.4 -> round 0, 0; y: 0, 1.
  ExpectNear(Values<float>((*r)[0]), {0, 0, 20, 20}, 1e-6f);
  ExpectError(Crop(img, {0, 0, 1, 1}, {1}, 2, 2, "bilinear"), "box_ind");
  ExpectError(Crop(img, {0, 0, 1, 1}, {0}, 2, 2, "cubic"), "method");
}

}  // namespace
}  // namespace graphrt::testing
