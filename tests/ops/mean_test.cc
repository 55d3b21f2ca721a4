#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                 const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

absl::StatusOr<Tensor> RunMean(const Tensor& x, const Tensor& axes,
                               bool keep_dims = false) {
  OpTest t("Mean");
  t.Attr("keep_dims", keep_dims)
      .Attr("T", x.dtype())
      .Attr("Tidx", axes.dtype());
  auto out = t.Run({x, axes});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

const Tensor X23() { return T_<float>({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(MeanTest, SingleAxes) {
  auto a0 = RunMean(X23(), Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(a0.ok()) << a0.status();
  EXPECT_EQ(a0->shape(), Shape({3}));
  EXPECT_EQ(Values<float>(*a0), (std::vector<float>{2.5f, 3.5f, 4.5f}));
  for (int32_t ax : {1, -1}) {
    auto a1 = RunMean(X23(), T_<int32_t>({1}, {ax}));
    ASSERT_TRUE(a1.ok()) << a1.status();
    EXPECT_EQ(a1->shape(), Shape({2}));
    EXPECT_EQ(Values<float>(*a1), (std::vector<float>{2, 5}));
  }
}

TEST(MeanTest, AllAxesKeepDimsAndDuplicates) {
  auto all = RunMean(X23(), T_<int64_t>({2}, {0, 1}));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->shape(), Shape());
  EXPECT_EQ(Values<float>(*all), (std::vector<float>{3.5f}));
  auto keep = RunMean(X23(), T_<int32_t>({2}, {-1, 0}), true);
  ASSERT_TRUE(keep.ok()) << keep.status();
  EXPECT_EQ(keep->shape(), Shape({1, 1}));
  auto keep1 = RunMean(X23(), T_<int32_t>({1}, {1}), true);
  ASSERT_TRUE(keep1.ok());
  EXPECT_EQ(keep1->shape(), Shape({2, 1}));
  EXPECT_EQ(Values<float>(*keep1), (std::vector<float>{2, 5}));
  auto dup = RunMean(X23(), T_<int32_t>({3}, {1, 1, -1}));
  ASSERT_TRUE(dup.ok()) << dup.status();
  EXPECT_EQ(Values<float>(*dup), (std::vector<float>{2, 5}));
  auto none = RunMean(X23(), T_<int32_t>({0}, {}));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*none), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto scalar = RunMean(Tensor::Scalar<float>(4), T_<int32_t>({0}, {}));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(Values<float>(*scalar), (std::vector<float>{4}));
}

TEST(MeanTest, GlobalPoolingNhwc) {
  // [1,2,2,3] over axes [1,2]: per-channel mean.
  std::vector<float> v = {1, 10, 100, 2, 20, 200, 3, 30, 300, 4, 40, 400};
  auto out = RunMean(T_<float>({1, 2, 2, 3}, v), T_<int32_t>({2}, {1, 2}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({1, 3}));
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{2.5f, 25, 250}));
  auto keep =
      RunMean(T_<float>({1, 2, 2, 3}, v), T_<int32_t>({2}, {1, 2}), true);
  ASSERT_TRUE(keep.ok());
  EXPECT_EQ(keep->shape(), Shape({1, 1, 1, 3}));
}

TEST(MeanTest, MiddleAndOuterAxesAgainstNaive) {
  // [3,4,5] over axis 1, and over axes {0,2}.
  std::vector<double> v(60);
  for (int i = 0; i < 60; ++i) v[i] = (i * 7 % 11) - 5;
  auto mid = RunMean(T_<double>({3, 4, 5}, v), Tensor::Scalar<int32_t>(1));
  ASSERT_TRUE(mid.ok()) << mid.status();
  ASSERT_EQ(mid->shape(), Shape({3, 5}));
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 5; ++k) {
      double s = 0;
      for (int j = 0; j < 4; ++j) s += v[(i * 4 + j) * 5 + k];
      EXPECT_NEAR(mid->data<double>()[i * 5 + k], s / 4, 1e-12);
    }
  }
  auto outer = RunMean(T_<double>({3, 4, 5}, v), T_<int32_t>({2}, {0, 2}));
  ASSERT_TRUE(outer.ok()) << outer.status();
  ASSERT_EQ(outer->shape(), Shape({4}));
  for (int j = 0; j < 4; ++j) {
    double s = 0;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) s += v[(i * 4 + j) * 5 + k];
    EXPECT_NEAR(outer->data<double>()[j], s / 15, 1e-12);
  }
}

TEST(MeanTest, IntegersTruncate) {
  auto out =
      RunMean(T_<int32_t>({2, 2}, {1, 2, -1, -2}), Tensor::Scalar<int32_t>(1));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{1, -1}));
  // Sums in 64 bits: no int8 overflow.
  auto i8 = RunMean(T_<int8_t>({2}, {100, 100}), Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(i8.ok());
  EXPECT_EQ(Values<int8_t>(*i8), (std::vector<int8_t>{100}));
  auto u8 =
      RunMean(T_<uint8_t>({3}, {255, 255, 1}), Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(Values<uint8_t>(*u8), (std::vector<uint8_t>{170}));
}

TEST(MeanTest, EmptyReduction) {
  auto f = RunMean(T_<float>({0, 2}, {}), Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->shape(), Shape({2}));
  EXPECT_TRUE(std::isnan(f->data<float>()[0]));
  auto i = RunMean(T_<int32_t>({0, 2}, {}), Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(Values<int32_t>(*i), (std::vector<int32_t>{0, 0}));
  auto e = RunMean(T_<float>({0, 2}, {}), Tensor::Scalar<int32_t>(1));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), Shape({0}));
}

TEST(MeanTest, Errors) {
  {
    OpTest t("Mean");
    ExpectError(t.Run({X23(), Tensor::Scalar<int32_t>(2)}),
                "invalid reduction dimension 2");
  }
  {
    OpTest t("Mean");
    ExpectError(t.Run({X23(), Tensor::Scalar<int32_t>(-3)}),
                "invalid reduction dimension -3");
  }
  {
    OpTest t("Mean");
    ExpectError(t.Run({Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}),
                "0 dimension(s)");
  }
  {
    OpTest t("Mean");
    ExpectError(t.Run({X23(), T_<float>({1}, {0})}), "int32 or int64");
  }
  {
    OpTest t("Mean");
    ExpectError(
        t.Run({T_<std::string>({1}, {"a"}), Tensor::Scalar<int32_t>(0)}),
        "string");
  }
}

}  // namespace
}  // namespace graphrt::testing
