#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

// Bool tensors (std::vector<bool> has no contiguous storage for T_).
Tensor TB(const std::vector<int64_t>& shape, const std::vector<bool>& v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i];
  return t;
}

absl::StatusOr<Tensor> Run3(const std::string& op, const Tensor& a,
                            const Tensor& b, const Tensor& c) {
  OpTest t(op);
  auto out = t.Run({a, b, c});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(SelectTest, V1SameShapeScalarAndRows) {
  const Tensor t = T_<float>({2, 2}, {1, 2, 3, 4});
  const Tensor e = T_<float>({2, 2}, {10, 20, 30, 40});
  auto same = Run3("Select", TB({2, 2}, {true, false, false, true}), t, e);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(Values<float>(*same), (std::vector<float>{1, 20, 30, 4}));
  // Rank-1 condition picks whole rows (TF semantics, not TF.js's).
  auto rows = Run3("Select", TB({2}, {false, true}), t, e);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*rows), (std::vector<float>{10, 20, 3, 4}));
  auto scalar = Run3("Select", Tensor::Scalar<bool>(false), t, e);
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(Values<float>(*scalar), (std::vector<float>{10, 20, 30, 40}));
  // Strings.
  auto s =
      Run3("Select", TB({2}, {true, false}), T_<std::string>({2}, {"a", "b"}),
           T_<std::string>({2}, {"c", "d"}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Values<std::string>(*s), (std::vector<std::string>{"a", "d"}));
  // 3-D with row condition.
  std::vector<int32_t> tv(12), ev(12);
  for (int i = 0; i < 12; ++i) {
    tv[i] = i;
    ev[i] = -i;
  }
  auto r3 = Run3("Select", TB({3}, {true, false, true}),
                 T_<int32_t>({3, 2, 2}, tv), T_<int32_t>({3, 2, 2}, ev));
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(Values<int32_t>(*r3),
            (std::vector<int32_t>{0, 1, 2, 3, -4, -5, -6, -7, 8, 9, 10, 11}));
}

TEST(SelectTest, V1Errors) {
  const Tensor t = T_<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_FALSE(Run3("Select", TB({3}, {true, true, true}), t, t).ok());
  EXPECT_FALSE(
      Run3("Select", TB({2}, {true, true}), t, T_<float>({2}, {1, 2})).ok());
  // V1 does not broadcast a [2] condition against [2,2] columns... it picks
  // rows; but a [1,2] condition is neither rows nor the same shape.
  EXPECT_FALSE(Run3("Select", TB({1, 2}, {true, false}), t, t).ok());
  EXPECT_FALSE(Run3("Select", T_<int32_t>({2, 2}, {1, 0, 1, 0}), t, t).ok());
  EXPECT_FALSE(Run3("Select", TB({2, 2}, {true, false, true, false}), t,
                    T_<int32_t>({2, 2}, {1, 2, 3, 4}))
                   .ok());
}

TEST(SelectTest, V2Broadcasts) {
  // cond [2] broadcasts over the LAST axis in SelectV2.
  auto r = Run3("SelectV2", TB({2}, {false, true}),
                T_<float>({2, 2}, {1, 2, 3, 4}), Tensor::Scalar<float>(0));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*r), (std::vector<float>{0, 2, 0, 4}));
  auto outer =
      Run3("SelectV2", TB({2, 1}, {true, false}),
           T_<int64_t>({1, 3}, {1, 2, 3}), T_<int64_t>({3}, {7, 8, 9}));
  ASSERT_TRUE(outer.ok());
  EXPECT_EQ(outer->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<int64_t>(*outer), (std::vector<int64_t>{1, 2, 3, 7, 8, 9}));
  auto bad = Run3("SelectV2", TB({3}, {true, true, true}),
                  T_<float>({2}, {1, 2}), T_<float>({2}, {1, 2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("Incompatible shapes"),
            std::string::npos);
  auto empty = Run3("SelectV2", TB({0}, {}), Tensor::Scalar<float>(1),
                    Tensor::Scalar<float>(2));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), Shape({0}));
}

TEST(SelectTest, LargeV2) {
  const int n = 1 << 16;
  std::vector<float> x(n);
  std::vector<bool> c(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    c[i] = i % 3 == 0;
  }
  Tensor cond = *Tensor::Allocate(DType::kBool, Shape({n / 64, 64}));
  for (int i = 0; i < n; ++i) cond.mutable_data<bool>()[i] = c[i];
  auto r = Run3("SelectV2", cond, T_<float>({n / 64, 64}, x),
                Tensor::Scalar<float>(-1));
  ASSERT_TRUE(r.ok());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(r->data<float>()[i], c[i] ? x[i] : -1.f) << i;
  }
}

TEST(SelectTest, ClipByValue) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto r = Run3("ClipByValue", T_<float>({4}, {-5, 0.5f, 5, nan}),
                Tensor::Scalar<float>(0), Tensor::Scalar<float>(1));
  ASSERT_TRUE(r.ok()) << r.status();
  auto v = Values<float>(*r);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 0.5f);
  EXPECT_EQ(v[2], 1);
  EXPECT_TRUE(std::isnan(v[3]));
  auto per =
      Run3("ClipByValue", T_<int32_t>({2, 2}, {1, 9, -3, 4}),
           T_<int32_t>({2, 2}, {2, 2, 0, 0}), Tensor::Scalar<int32_t>(5));
  ASSERT_TRUE(per.ok()) << per.status();
  EXPECT_EQ(Values<int32_t>(*per), (std::vector<int32_t>{2, 5, 0, 4}));
  // Broadcast bound [2] against [2,2].
  auto bc = Run3("ClipByValue", T_<float>({2, 2}, {0, 0, 9, 9}),
                 T_<float>({2}, {1, 2}), T_<float>({2}, {3, 4}));
  ASSERT_TRUE(bc.ok()) << bc.status();
  EXPECT_EQ(Values<float>(*bc), (std::vector<float>{1, 2, 3, 4}));
  // Bounds may not grow the output.
  EXPECT_FALSE(Run3("ClipByValue", T_<float>({2}, {1, 2}),
                    T_<float>({2, 2}, {0, 0, 0, 0}), Tensor::Scalar<float>(1))
                   .ok());
  EXPECT_FALSE(Run3("ClipByValue", T_<float>({2}, {1, 2}),
                    Tensor::Scalar<int32_t>(0), Tensor::Scalar<float>(1))
                   .ok());
}

}  // namespace
}  // namespace graphrt::testing
