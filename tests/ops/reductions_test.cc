#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

Tensor TB(const std::vector<int64_t>& shape, const std::vector<bool>& v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i];
  return t;
}

absl::StatusOr<Tensor> Red(const std::string& op, const Tensor& x,
                           const Tensor& axes, bool keep_dims = false) {
  OpTest t(op);
  t.Attr("keep_dims", keep_dims)
      .Attr("T", x.dtype())
      .Attr("Tidx", axes.dtype());
  auto out = t.Run({x, axes});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

template <typename T>
std::vector<T> RedV(const std::string& op, const Tensor& x, const Tensor& axes,
                    bool keep_dims = false) {
  auto r = Red(op, x, axes, keep_dims);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status();
  if (!r.ok()) return {};
  return Values<T>(*r);
}

Tensor I32(std::vector<int32_t> v) {
  return T_<int32_t>({static_cast<int64_t>(v.size())}, v);
}

const Tensor X23() { return T_<float>({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(ReductionsTest, SumProdMaxMinAxes) {
  EXPECT_EQ(RedV<float>("Sum", X23(), Tensor::Scalar<int32_t>(0)),
            (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(RedV<float>("Sum", X23(), I32({-1})), (std::vector<float>{6, 15}));
  EXPECT_EQ(RedV<float>("Sum", X23(), I32({0, 1})), (std::vector<float>{21}));
  EXPECT_EQ(RedV<float>("Prod", X23(), I32({1})), (std::vector<float>{6, 120}));
  EXPECT_EQ(RedV<float>("Max", X23(), I32({0})), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(RedV<float>("Min", X23(), I32({1})), (std::vector<float>{1, 4}));
  // Duplicate and negative axes, int64 axes, keep_dims.
  auto k = Red("Sum", X23(), T_<int64_t>({3}, {1, -1, 0}), true);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->shape(), Shape({1, 1}));
  EXPECT_EQ(Values<float>(*k), (std::vector<float>{21}));
  // No axes: identity (copy).
  auto none = Red("Max", X23(), I32({}));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*none), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ReductionsTest, ThreeDimMixedAxes) {
  // [2,3,4], reduce axes 0 and 2 -> [3].
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  const Tensor x = T_<int32_t>({2, 3, 4}, v);
  std::vector<int32_t> want(3, 0);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) want[b] += v[a * 12 + b * 4 + c];
  EXPECT_EQ(RedV<int32_t>("Sum", x, I32({0, 2})), want);
  // Reduce axis 1 -> [2,4].
  std::vector<int32_t> want1(8, std::numeric_limits<int32_t>::lowest());
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        want1[a * 4 + c] = std::max(want1[a * 4 + c], v[a * 12 + b * 4 + c]);
  EXPECT_EQ(RedV<int32_t>("Max", x, I32({1})), want1);
}

TEST(ReductionsTest, EmptyReductionIdentities) {
  const Tensor e = T_<float>({0, 2}, {});
  EXPECT_EQ(RedV<float>("Sum", e, I32({0})), (std::vector<float>{0, 0}));
  EXPECT_EQ(RedV<float>("Prod", e, I32({0})), (std::vector<float>{1, 1}));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(RedV<float>("Max", e, I32({0})), (std::vector<float>{-inf, -inf}));
  EXPECT_EQ(RedV<float>("Min", e, I32({0})), (std::vector<float>{inf, inf}));
  const Tensor ei = T_<int32_t>({2, 0}, {});
  EXPECT_EQ(RedV<int32_t>("Max", ei, I32({1})),
            (std::vector<int32_t>(2, std::numeric_limits<int32_t>::lowest())));
  EXPECT_EQ(RedV<int32_t>("Min", ei, I32({1})),
            (std::vector<int32_t>(2, std::numeric_limits<int32_t>::max())));
  auto mean = RedV<float>("Mean", e, I32({0}));
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_TRUE(std::isnan(mean[0]));
  EXPECT_EQ(RedV<bool>("All", TB({0}, {}), I32({0})),
            (std::vector<bool>{true}));
  EXPECT_EQ(RedV<bool>("Any", TB({0}, {}), I32({0})),
            (std::vector<bool>{false}));
  // Reducing a kept zero dim gives an empty output.
  auto z = Red("Sum", e, I32({1}));
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->shape(), Shape({0}));
}

TEST(ReductionsTest, NaNPropagatesInMaxMin) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = T_<float>({2, 2}, {1, nan, nan, 3});
  auto mx = RedV<float>("Max", x, I32({1}));
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_TRUE(std::isnan(mx[1]));
  auto mn = RedV<float>("Min", T_<float>({3}, {nan, 1, 2}), I32({0}));
  EXPECT_TRUE(std::isnan(mn[0]));
}

TEST(ReductionsTest, AllAnyIntWrapEuclideanNorm) {
  const Tensor b = TB({2, 2}, {true, false, true, true});
  EXPECT_EQ(RedV<bool>("All", b, I32({1})), (std::vector<bool>{false, true}));
  EXPECT_EQ(RedV<bool>("Any", b, I32({0})), (std::vector<bool>{true, true}));
  const int32_t mx = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(RedV<int32_t>("Sum", T_<int32_t>({2}, {mx, 1}), I32({0})),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(RedV<uint8_t>("Prod", T_<uint8_t>({2}, {16, 17}), I32({0})),
            (std::vector<uint8_t>{16}));  // 272 mod 256
  auto n =
      RedV<float>("EuclideanNorm", T_<float>({2, 2}, {3, 4, 6, 8}), I32({1}));
  EXPECT_EQ(n, (std::vector<float>{5, 10}));
  auto mi = RedV<int32_t>("Mean", T_<int32_t>({3}, {-7, 0, 0}), I32({0}));
  EXPECT_EQ(mi, (std::vector<int32_t>{-2}));  // truncation
  auto c = RedV<complex64>(
      "Sum", T_<complex64>({2}, {complex64(1, 2), complex64(3, -1)}), I32({0}));
  EXPECT_EQ(c, (std::vector<complex64>{complex64(4, 1)}));
}

TEST(ReductionsTest, LargeMatchesSerial) {
  // [256, 300]: reduce rows (inner) and columns (outer) in parallel.
  const int r = 256, c = 300;
  std::vector<int64_t> v(r * c);
  for (int i = 0; i < r * c; ++i) v[i] = (i * 7919) % 1000 - 500;
  const Tensor x = T_<int64_t>({r, c}, v);
  auto rows = RedV<int64_t>("Sum", x, I32({1}));
  auto cols = RedV<int64_t>("Sum", x, I32({0}));
  ASSERT_EQ(rows.size(), static_cast<size_t>(r));
  ASSERT_EQ(cols.size(), static_cast<size_t>(c));
  for (int i = 0; i < r; ++i) {
    int64_t s = 0;
    for (int j = 0; j < c; ++j) s += v[i * c + j];
    ASSERT_EQ(rows[i], s);
  }
  for (int j = 0; j < c; ++j) {
    int64_t s = 0;
    for (int i = 0; i < r; ++i) s += v[i * c + j];
    ASSERT_EQ(cols[j], s);
  }
  auto all = RedV<int64_t>("Sum", x, I32({0, 1}));
  int64_t total = 0;
  for (int64_t e : v) total += e;
  EXPECT_EQ(all, (std::vector<int64_t>{total}));
}

TEST(ReductionsTest, Errors) {
  auto bad = Red("Sum", X23(), I32({2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("invalid reduction"),
            std::string::npos);
  EXPECT_FALSE(Red("Sum", X23(), T_<float>({1}, {0})).ok());
  EXPECT_FALSE(Red("Sum", X23(), T_<int32_t>({1, 1}, {0})).ok());
  EXPECT_FALSE(Red("All", X23(), I32({0})).ok());
  EXPECT_FALSE(Red("Max", TB({1}, {true}), I32({0})).ok());
  OpTest t("Sum");
  t.Attr("T", DType::kString);
  EXPECT_FALSE(t.Create(2).ok());
  OpTest t2("Prod");
  EXPECT_FALSE(t2.Create(1).ok());
}

}  // namespace
}  // namespace graphrt::testing
