#include <gtest/gtest.h>

#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

absl::StatusOr<Tensor> RunBC(const std::string& op, const Tensor& arr,
                             const Tensor& size, const Tensor& w,
                             bool binary = false) {
  OpTest t(op);
  if (op == "DenseBincount") t.Attr("binary_output", binary);
  auto out = t.Run({arr, size, w});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(BincountTest, CountsAndWeights) {
  const Tensor arr = T_<int32_t>({6}, {1, 1, 3, 0, 7, 3});
  auto c =
      RunBC("Bincount", arr, Tensor::Scalar<int32_t>(5), T_<float>({0}, {}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->shape(), Shape({5}));
  EXPECT_EQ(Values<float>(*c),
            (std::vector<float>{1, 2, 0, 2, 0}));  // 7 ignored
  auto w = RunBC("Bincount", arr, Tensor::Scalar<int32_t>(4),
                 T_<int32_t>({6}, {1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(*w), (std::vector<int32_t>{4, 3, 0, 9}));
  auto z =
      RunBC("Bincount", arr, Tensor::Scalar<int32_t>(0), T_<float>({0}, {}));
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->shape(), Shape({0}));
}

TEST(BincountTest, Dense1DAnd2D) {
  auto d = RunBC("DenseBincount", T_<int64_t>({4}, {2, 2, 0, 9}),
                 Tensor::Scalar<int64_t>(3), T_<double>({0}, {}));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(Values<double>(*d), (std::vector<double>{1, 0, 2}));
  auto b = RunBC("DenseBincount", T_<int32_t>({4}, {2, 2, 0, 9}),
                 Tensor::Scalar<int32_t>(3), T_<float>({0}, {}), true);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Values<float>(*b), (std::vector<float>{1, 0, 1}));
  const Tensor m = T_<int32_t>({2, 3}, {0, 1, 1, 2, 2, 2});
  auto r = RunBC("DenseBincount", m, Tensor::Scalar<int32_t>(3),
                 T_<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*r), (std::vector<float>{1, 5, 0, 0, 0, 15}));
  auto rb = RunBC("DenseBincount", m, Tensor::Scalar<int32_t>(3),
                  T_<float>({0}, {}), true);
  ASSERT_TRUE(rb.ok());
  EXPECT_EQ(Values<float>(*rb), (std::vector<float>{1, 1, 0, 0, 0, 1}));
}

TEST(BincountTest, Errors) {
  const Tensor arr = T_<int32_t>({2}, {1, -1});
  auto neg =
      RunBC("Bincount", arr, Tensor::Scalar<int32_t>(3), T_<float>({0}, {}));
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(std::string(neg.status().message()).find("non-negative"),
            std::string::npos);
  const Tensor ok = T_<int32_t>({2}, {1, 2});
  EXPECT_FALSE(
      RunBC("Bincount", ok, Tensor::Scalar<int32_t>(-1), T_<float>({0}, {}))
          .ok());
  EXPECT_FALSE(
      RunBC("Bincount", ok, T_<int32_t>({1}, {3}), T_<float>({0}, {})).ok());
  EXPECT_FALSE(RunBC("Bincount", ok, Tensor::Scalar<int32_t>(3),
                     T_<float>({3}, {1, 2, 3}))
                   .ok());
  EXPECT_FALSE(RunBC("Bincount", T_<int64_t>({1}, {1}),
                     Tensor::Scalar<int32_t>(3), T_<float>({0}, {}))
                   .ok());
  EXPECT_FALSE(RunBC("DenseBincount", T_<int32_t>({1, 1, 1}, {1}),
                     Tensor::Scalar<int32_t>(3), T_<float>({0}, {}))
                   .ok());
  EXPECT_FALSE(RunBC("DenseBincount", T_<int32_t>({2, 1}, {1, 1}),
                     Tensor::Scalar<int32_t>(3), T_<float>({2}, {1, 1}))
                   .ok());
}

}  // namespace
}  // namespace graphrt::testing
