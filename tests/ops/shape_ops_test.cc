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


TEST(ExpandDimsTest, Axes) {
  for (auto [axis, want] : std::vector<std::pair<int, Shape>>{
           {0, Shape({1, 2, 3})}, {2, Shape({2, 3, 1})},
           {-1, Shape({2, 3, 1})}, {-3, Shape({1, 2, 3})}}) {
    OpTest t("ExpandDims");
    Tensor o = RunOne(t, {Iota<float>({2, 3}), Tensor::Scalar<int32_t>(axis)});
    EXPECT_EQ(o.shape(), want) << axis;
  }
  OpTest t("ExpandDims");
  Tensor o = RunOne(t, {Tensor::Scalar<std::string>("a"), I64({0})});
  EXPECT_EQ(o.shape(), Shape({1}));
  OpTest bad("ExpandDims");
  ExpectError(bad.Run({Iota<float>({2, 3}), Tensor::Scalar<int32_t>(3)}),
              "axis");
  OpTest bad2("ExpandDims");
  ExpectError(bad2.Run({Iota<float>({2, 3}), Tensor::Scalar<int32_t>(-4)}),
              "axis");
}

TEST(SqueezeTest, AllAndListed) {
  OpTest t("Squeeze");
  Tensor o = RunOne(t, {Iota<float>({1, 2, 1, 3, 1})});
  EXPECT_EQ(o.shape(), Shape({2, 3}));
  OpTest t2("Squeeze");
  t2.Attr("squeeze_dims", std::vector<int64_t>{0, -1});
  Tensor o2 = RunOne(t2, {Iota<float>({1, 2, 1, 3, 1})});
  EXPECT_EQ(o2.shape(), Shape({2, 1, 3}));
  EXPECT_EQ(Values<float>(o2), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  OpTest t3("Squeeze");
  t3.Attr("squeeze_dims", std::vector<int64_t>{1});
  ExpectError(t3.Run({Iota<float>({1, 2})}), "can not squeeze dim[1]");
  OpTest t4("Squeeze");
  t4.Attr("squeeze_dims", std::vector<int64_t>{2});
  ExpectError(t4.Run({Iota<float>({1, 2})}), "squeeze_dims");
}

TEST(EnsureShapeTest, Checks) {
  OpTest t("EnsureShape");
  t.AttrShape("shape", {-1, 3});
  Tensor o = RunOne(t, {Iota<float>({2, 3})});
  EXPECT_EQ(o.shape(), Shape({2, 3}));
  OpTest t2("EnsureShape");
  t2.AttrShape("shape", {2, 2});
  ExpectError(t2.Run({Iota<float>({2, 3})}), "not compatible");
  OpTest t3("EnsureShape");
  t3.AttrShape("shape", {6});
  ExpectError(t3.Run({Iota<float>({2, 3})}), "not compatible");
}

TEST(RankSizeShapeNTest, Values) {
  OpTest r("Rank");
  EXPECT_EQ(Values<int32_t>(RunOne(r, {Iota<float>({2, 3, 4})})),
            (std::vector<int32_t>{3}));
  OpTest s("Size");
  EXPECT_EQ(Values<int32_t>(RunOne(s, {Iota<float>({2, 3, 4})})),
            (std::vector<int32_t>{24}));
  OpTest s64("Size");
  s64.Attr("out_type", DType::kInt64);
  Tensor o64 = RunOne(s64, {Iota<float>({0, 3})});
  EXPECT_EQ(o64.dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>(o64), (std::vector<int64_t>{0}));
  OpTest sn("ShapeN");
  sn.Attr("N", int64_t{2}).Attr("out_type", DType::kInt64);
  auto out = sn.Run({Iota<float>({2, 3}), Tensor::Scalar<std::string>("x")});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ((*out)[1].shape(), Shape({0}));
  OpTest bad("Size");
  bad.Attr("out_type", DType::kFloat32);
  EXPECT_FALSE(bad.Create(1).ok());
}

TEST(SnapshotPrintTest, PassThrough) {
  OpTest s("Snapshot");
  Tensor o = RunOne(s, {Strs({2}, {"a", "b"})});
  EXPECT_EQ(Values<std::string>(o), (std::vector<std::string>{"a", "b"}));
  OpTest p("Print");
  p.Attr("message", "value: ").Attr("summarize", int64_t{2});
  p.Attr("first_n", int64_t{1});
  for (int i = 0; i < 2; ++i) {
    Tensor po = RunOne(p, {Iota<float>({3}), Iota<int32_t>({5}),
                           Strs({1}, {"s"})});
    EXPECT_EQ(Values<float>(po), (std::vector<float>{0, 1, 2}));
  }
}

}  // namespace
}  // namespace graphrt::testing
