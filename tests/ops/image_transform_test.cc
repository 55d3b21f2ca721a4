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
