#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {


[[maybe_unused]] void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                        const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

// Runs `t` and returns output 0 (fails the test on error).
[[maybe_unused]] Tensor RunOne(OpTest& t, const std::vector<Tensor>& inputs) {
  auto r = t.Run(inputs);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || r->empty()) return Tensor();
  return (*r)[0];
}

// 0, 1, 2, ... as a tensor of `shape`.
template <typename T>
[[maybe_unused]] Tensor Iota(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(i);
  return T_<T>(shape, v);
}

[[maybe_unused]] Tensor I32(const std::vector<int32_t>& v) {
  return T_<int32_t>({static_cast<int64_t>(v.size())}, v);
}
[[maybe_unused]] Tensor I64(const std::vector<int64_t>& v) {
  return T_<int64_t>({static_cast<int64_t>(v.size())}, v);
}
[[maybe_unused]] Tensor Strs(const std::vector<int64_t>& shape,
                   const std::vector<std::string>& v) {
  return T_<std::string>(shape, v);
}


TEST(PackTest, Axis0And1AndNegative) {
  const Tensor a = T_<float>({2}, {1, 2});
  const Tensor b = T_<float>({2}, {3, 4});
  OpTest t0("Pack");
  t0.Attr("N", int64_t{2}).Attr("axis", int64_t{0});
  Tensor o0 = RunOne(t0, {a, b});
  EXPECT_EQ(o0.shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(o0), (std::vector<float>{1, 2, 3, 4}));
  OpTest t1("Pack");
  t1.Attr("N", int64_t{2}).Attr("axis", int64_t{-1});
  Tensor o1 = RunOne(t1, {a, b});
  EXPECT_EQ(o1.shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(o1), (std::vector<float>{1, 3, 2, 4}));
}

TEST(PackTest, ScalarsStringsAndEmpty) {
  OpTest t("Pack");
  t.Attr("N", int64_t{3});
  Tensor o = RunOne(t, {Tensor::Scalar<std::string>("a"),
                        Tensor::Scalar<std::string>("b"),
                        Tensor::Scalar<std::string>("c")});
  EXPECT_EQ(o.shape(), Shape({3}));
  EXPECT_EQ(Values<std::string>(o), (std::vector<std::string>{"a", "b", "c"}));
  OpTest e("Pack");
  e.Attr("N", int64_t{2}).Attr("axis", int64_t{1});
  Tensor oe = RunOne(e, {Iota<int32_t>({0, 3}), Iota<int32_t>({0, 3})});
  EXPECT_EQ(oe.shape(), Shape({0, 2, 3}));
}

TEST(PackTest, LargeMiddleAxis) {
  const Tensor a = Iota<int32_t>({64, 300});
  const Tensor b = Iota<int32_t>({64, 300});
  OpTest t("Pack");
  t.Attr("N", int64_t{2}).Attr("axis", int64_t{1});
  Tensor o = RunOne(t, {a, b});
  ASSERT_EQ(o.shape(), Shape({64, 2, 300}));
  EXPECT_EQ(o.data<int32_t>()[(5 * 2 + 1) * 300 + 7], 5 * 300 + 7);
}

TEST(PackTest, Errors) {
  OpTest t("Pack");
  t.Attr("N", int64_t{2});
  ExpectError(t.Run({T_<float>({2}, {1, 2}), T_<float>({3}, {1, 2, 3})}),
              "must match");
  OpTest t2("Pack");
  t2.Attr("N", int64_t{2}).Attr("axis", int64_t{2});
  ExpectError(t2.Run({T_<float>({2}, {1, 2}), T_<float>({2}, {1, 2})}),
              "axis");
  OpTest t3("Pack");
  t3.Attr("N", int64_t{3});
  EXPECT_FALSE(t3.Create(2).ok());
  OpTest t4("Pack");
  t4.Attr("N", int64_t{2});
  ExpectError(t4.Run({T_<float>({1}, {1}), T_<int32_t>({1}, {1})}),
              "must match");
}

TEST(UnpackTest, Axes) {
  OpTest t("Unpack");
  t.Attr("num", int64_t{3}).Attr("axis", int64_t{1});
  auto r = t.Run({Iota<float>({2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].shape(), Shape({2}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{0, 3}));
  EXPECT_EQ(Values<float>((*r)[2]), (std::vector<float>{2, 5}));
  OpTest t2("Unpack");
  t2.Attr("num", int64_t{2}).Attr("axis", int64_t{-2});
  auto r2 = t2.Run({Strs({2, 1}, {"x", "y"})});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(Values<std::string>((*r2)[1]), (std::vector<std::string>{"y"}));
  // Many outputs (more than the context's reserved 16).
  OpTest t3("Unpack");
  t3.Attr("num", int64_t{40});
  auto r3 = t3.Run({Iota<int32_t>({40, 2})});
  ASSERT_TRUE(r3.ok()) << r3.status();
  ASSERT_EQ(r3->size(), 40u);
  EXPECT_EQ(Values<int32_t>((*r3)[39]), (std::vector<int32_t>{78, 79}));
}

TEST(UnpackTest, Errors) {
  OpTest t("Unpack");
  t.Attr("num", int64_t{2});
  ExpectError(t.Run({Iota<float>({3, 2})}), "expected num = 2");
  OpTest t2("Unpack");
  t2.Attr("num", int64_t{1});
  ExpectError(t2.Run({Tensor::Scalar<float>(1)}), "rank >= 1");
  OpTest t3("Unpack");
  t3.Attr("num", int64_t{2}).Attr("axis", int64_t{3});
  ExpectError(t3.Run({Iota<float>({2, 2})}), "axis");
}

}  // namespace
}  // namespace graphrt::testing
