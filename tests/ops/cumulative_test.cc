#include <gtest/gtest.h>

#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

absl::StatusOr<Tensor> Cum(const std::string& op, const Tensor& x,
                           const Tensor& axis, bool exclusive = false,
                           bool reverse = false) {
  OpTest t(op);
  t.Attr("exclusive", exclusive).Attr("reverse", reverse).Attr("T", x.dtype());
  auto out = t.Run({x, axis});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

template <typename T>
std::vector<T> CumV(const std::string& op, const Tensor& x, int32_t axis,
                    bool exclusive = false, bool reverse = false) {
  auto r = Cum(op, x, Tensor::Scalar<int32_t>(axis), exclusive, reverse);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(r->shape(), x.shape());
  return Values<T>(*r);
}

TEST(CumulativeTest, CumsumModes) {
  const Tensor x = T_<float>({4}, {1, 2, 3, 4});
  EXPECT_EQ(CumV<float>("Cumsum", x, 0), (std::vector<float>{1, 3, 6, 10}));
  EXPECT_EQ(CumV<float>("Cumsum", x, 0, true),
            (std::vector<float>{0, 1, 3, 6}));
  EXPECT_EQ(CumV<float>("Cumsum", x, 0, false, true),
            (std::vector<float>{10, 9, 7, 4}));
  EXPECT_EQ(CumV<float>("Cumsum", x, -1, true, true),
            (std::vector<float>{9, 7, 4, 0}));
}

TEST(CumulativeTest, CumprodAxes) {
  const Tensor x = T_<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(CumV<int32_t>("Cumprod", x, 1),
            (std::vector<int32_t>{1, 2, 6, 4, 20, 120}));
  EXPECT_EQ(CumV<int32_t>("Cumprod", x, 0),
            (std::vector<int32_t>{1, 2, 3, 4, 10, 18}));
  EXPECT_EQ(CumV<int32_t>("Cumprod", x, 0, true),
            (std::vector<int32_t>{1, 1, 1, 1, 2, 3}));
  EXPECT_EQ(CumV<int32_t>("Cumsum", x, -2, false, true),
            (std::vector<int32_t>{5, 7, 9, 4, 5, 6}));
  // int64 axis and wrapping.
  auto w = Cum("Cumsum", T_<int32_t>({2}, {INT32_MAX, 1}),
               Tensor::Scalar<int64_t>(0));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(Values<int32_t>(*w), (std::vector<int32_t>{INT32_MAX, INT32_MIN}));
}

TEST(CumulativeTest, LargeAndEmpty) {
  const int rows = 512, n = 100;
  std::vector<double> v(rows * n, 1.0);
  auto r = CumV<double>("Cumsum", T_<double>({rows, n}, v), 1);
  ASSERT_EQ(r.size(), v.size());
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) ASSERT_EQ(r[i * n + j], j + 1);
  auto e = Cum("Cumsum", T_<float>({0, 3}, {}), Tensor::Scalar<int32_t>(1));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->shape(), Shape({0, 3}));
}

TEST(CumulativeTest, Errors) {
  const Tensor x = T_<float>({2}, {1, 2});
  EXPECT_FALSE(Cum("Cumsum", x, Tensor::Scalar<int32_t>(1)).ok());
  EXPECT_FALSE(Cum("Cumsum", x, T_<int32_t>({1}, {0})).ok());
  EXPECT_FALSE(Cum("Cumsum", x, Tensor::Scalar<float>(0)).ok());
  EXPECT_FALSE(
      Cum("Cumsum", Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)).ok());
  EXPECT_FALSE(
      Cum("Cumprod", T_<std::string>({1}, {"a"}), Tensor::Scalar<int32_t>(0))
          .ok());
}

}  // namespace
}  // namespace graphrt::testing
