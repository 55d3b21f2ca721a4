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

Tensor SS(const Tensor& x, const std::vector<int32_t>& b,
          const std::vector<int32_t>& e, const std::vector<int32_t>& s,
          int64_t begin_mask = 0, int64_t end_mask = 0, int64_t ellipsis = 0,
          int64_t new_axis = 0, int64_t shrink = 0) {
  OpTest t("StridedSlice");
  t.Attr("T", x.dtype()).Attr("Index", DType::kInt32);
  t.Attr("begin_mask", begin_mask).Attr("end_mask", end_mask);
  t.Attr("ellipsis_mask", ellipsis).Attr("new_axis_mask", new_axis);
  t.Attr("shrink_axis_mask", shrink);
  return RunOne(t, {x, I32(b), I32(e), I32(s)});
}

absl::StatusOr<std::vector<Tensor>> SSStatus(
    const Tensor& x, const std::vector<int32_t>& b,
    const std::vector<int32_t>& e, const std::vector<int32_t>& s,
    int64_t begin_mask = 0, int64_t end_mask = 0, int64_t ellipsis = 0,
    int64_t new_axis = 0, int64_t shrink = 0) {
  OpTest t("StridedSlice");
  t.Attr("begin_mask", begin_mask).Attr("end_mask", end_mask);
  t.Attr("ellipsis_mask", ellipsis).Attr("new_axis_mask", new_axis);
  t.Attr("shrink_axis_mask", shrink);
  return t.Run({x, I32(b), I32(e), I32(s)});
}

TEST(StridedSliceTest, ShrinkFirstDim) {
  Tensor out = SS(Iota<float>({2, 3, 4}), {1}, {2}, {1}, 0, 0, 0, 0, 1);
  EXPECT_EQ(out.shape(), Shape({3, 4}));
  std::vector<float> want;
  for (int i = 12; i < 24; ++i) want.push_back(i);
  EXPECT_EQ(Values<float>(out), want);
}

TEST(StridedSliceTest, MasksAndStrides) {
  // x[:, 1:3, ::2]
  Tensor out =
      SS(Iota<int32_t>({2, 3, 4}), {0, 1, 0}, {0, 3, 0}, {1, 1, 2}, 5, 5);
  EXPECT_EQ(out.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(Values<int32_t>(out),
            (std::vector<int32_t>{4, 6, 8, 10, 16, 18, 20, 22}));
}

TEST(StridedSliceTest, EllipsisThenShrink) {
  // x[..., 1]
  Tensor out =
      SS(Iota<int32_t>({2, 3, 4}), {0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2);
  EXPECT_EQ(out.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{1, 5, 9, 13, 17, 21}));
}

TEST(StridedSliceTest, EllipsisInMiddle) {
  // x[1, ..., 2]
  Tensor out = SS(Iota<int32_t>({2, 3, 4}), {1, 0, 2}, {2, 0, 3}, {1, 1, 1}, 0,
                  0, 2, 0, 5);
  EXPECT_EQ(out.shape(), Shape({3}));
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{14, 18, 22}));
}

TEST(StridedSliceTest, EllipsisExpandsToNothing) {
  // x[0, 1, ...] on [2,3] -> scalar.
  Tensor out =
      SS(Iota<int32_t>({2, 3}), {0, 1, 0}, {1, 2, 0}, {1, 1, 1}, 0, 0, 4, 0, 3);
  EXPECT_EQ(out.shape(), Shape({}));
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{1}));
}

TEST(StridedSliceTest, NewAxisAndNegativeShrink) {
  // x[:, tf.newaxis, -1]
  Tensor out = SS(Iota<int32_t>({2, 3, 4}), {0, 0, -1}, {0, 0, 0}, {1, 1, 1}, 1,
                  1, 0, 2, 4);
  EXPECT_EQ(out.shape(), Shape({2, 1, 4}));
  EXPECT_EQ(Values<int32_t>(out),
            (std::vector<int32_t>{8, 9, 10, 11, 20, 21, 22, 23}));
}

TEST(StridedSliceTest, NewAxisOnly) {
  Tensor out = SS(Iota<int32_t>({5}), {0}, {0}, {1}, 0, 0, 0, 1);
  EXPECT_EQ(out.shape(), Shape({1, 5}));
  // x[..., tf.newaxis]
  Tensor out2 =
      SS(Iota<int32_t>({2, 3, 4}), {0, 0}, {0, 0}, {1, 1}, 0, 0, 1, 2);
  EXPECT_EQ(out2.shape(), Shape({2, 3, 4, 1}));
  EXPECT_EQ(Values<int32_t>(out2), Values<int32_t>(Iota<int32_t>({24})));
  // Scalar input.
  Tensor out3 = SS(Tensor::Scalar<float>(7), {0}, {0}, {1}, 0, 0, 0, 1);
  EXPECT_EQ(out3.shape(), Shape({1}));
  EXPECT_EQ(Values<float>(out3), (std::vector<float>{7}));
  Tensor out4 = SS(Tensor::Scalar<float>(7), {}, {}, {});
  EXPECT_EQ(out4.shape(), Shape({}));
}

TEST(StridedSliceTest, NegativeStrides) {
  const Tensor x = Iota<int32_t>({5});
  EXPECT_EQ(Values<int32_t>(SS(x, {0}, {0}, {-1}, 1, 1)),
            (std::vector<int32_t>{4, 3, 2, 1, 0}));
  EXPECT_EQ(Values<int32_t>(SS(x, {3}, {0}, {-2})),
            (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(Values<int32_t>(SS(x, {-1}, {-6}, {-1})),
            (std::vector<int32_t>{4, 3, 2, 1, 0}));
  EXPECT_EQ(Values<int32_t>(SS(x, {10}, {-10}, {-3})),
            (std::vector<int32_t>{4, 1}));
  // x[:2:-1] -> [4, 3]
  EXPECT_EQ(Values<int32_t>(SS(x, {0}, {2}, {-1}, 1, 0)),
            (std::vector<int32_t>{4, 3}));
  // x[2::-1] -> [2, 1, 0]
  EXPECT_EQ(Values<int32_t>(SS(x, {2}, {0}, {-1}, 0, 1)),
            (std::vector<int32_t>{2, 1, 0}));
  // Wrong direction -> empty.
  EXPECT_EQ(SS(x, {1}, {3}, {-1}).shape(), Shape({0}));
}

TEST(StridedSliceTest, ClampsOutOfRange) {
  const Tensor x = Iota<int32_t>({5});
  EXPECT_EQ(Values<int32_t>(SS(x, {1}, {100}, {1})),
            (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(Values<int32_t>(SS(x, {-100}, {2}, {1})),
            (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(SS(x, {4}, {2}, {1}).shape(), Shape({0}));
  EXPECT_EQ(Values<int32_t>(SS(x, {-2}, {100}, {100})),
            (std::vector<int32_t>{3}));
  // Big strides on a 2-D input.
  EXPECT_EQ(Values<int32_t>(
                SS(Iota<int32_t>({3, 3}), {0, 2}, {3, -4}, {2, -2147483647})),
            (std::vector<int32_t>{2, 8}));
}

TEST(StridedSliceTest, EmptyInput) {
  Tensor out = SS(Iota<float>({0, 3}), {0, 1}, {0, 2}, {1, 1}, 1, 0, 0, 0, 2);
  EXPECT_EQ(out.shape(), Shape({0}));
}

TEST(StridedSliceTest, StringsAndInt64Indices) {
  OpTest t("StridedSlice");
  t.Attr("T", DType::kString).Attr("Index", DType::kInt64);
  Tensor out = RunOne(t, {Strs({2, 2}, {"a", "b", "c", "d"}), I64({0, 0}),
                          I64({2, 2}), I64({1, -1})});
  ASSERT_TRUE(out.valid());
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{}));
  OpTest t2("StridedSlice");
  t2.Attr("end_mask", int64_t{2}).Attr("begin_mask", int64_t{2});
  Tensor out2 = RunOne(t2, {Strs({2, 2}, {"a", "b", "c", "d"}), I64({0, 0}),
                            I64({2, 0}), I64({1, -1})});
  EXPECT_EQ(Values<std::string>(out2),
            (std::vector<std::string>{"b", "a", "d", "c"}));
}

TEST(StridedSliceTest, LargeMatchesNaive) {
  const int n = 300;
  const Tensor x = Iota<float>({n, n});
  // x[::2, ::-1]
  Tensor out = SS(x, {0, 0}, {0, 0}, {2, -1}, 3, 3);
  ASSERT_EQ(out.shape(), Shape({n / 2, n}));
  const float* o = out.data<float>();
  bool ok = true;
  for (int i = 0; i < n / 2; ++i) {
    for (int j = 0; j < n; ++j) ok &= o[i * n + j] == (2 * i) * n + (n - 1 - j);
  }
  EXPECT_TRUE(ok);
  // x[1:-1, 3] on a big tensor (column gather).
  Tensor col = SS(x, {1, 3}, {-1, 4}, {1, 1}, 0, 0, 0, 0, 2);
  ASSERT_EQ(col.shape(), Shape({n - 2}));
  EXPECT_EQ(col.data<float>()[0], n + 3);
  EXPECT_EQ(col.data<float>()[n - 3], (n - 2) * n + 3);
}

// A slice that takes the whole input in order (x[0] of a batch of one,
// x[:, :] with a new axis) shares the input's buffer instead of copying;
// any other slice gets its own.
TEST(StridedSliceTest, WholeInputSharesTheBuffer) {
  const Tensor x = Iota<float>({1, 3, 4});
  Tensor first = SS(x, {0}, {1}, {1}, 0, 0, 0, 0, 1);
  EXPECT_EQ(first.shape(), Shape({3, 4}));
  EXPECT_EQ(first.buffer(), x.buffer());
  EXPECT_EQ(Values<float>(first), Values<float>(x));
  Tensor all = SS(x, {0, 0}, {0, 0}, {1, 1}, 3, 3, 0, 1);
  EXPECT_EQ(all.shape(), Shape({1, 1, 3, 4}));
  EXPECT_EQ(all.buffer(), x.buffer());
  Tensor part = SS(x, {0, 1}, {1, 3}, {1, 1});
  EXPECT_NE(part.buffer(), x.buffer());
  EXPECT_EQ(part.shape(), Shape({1, 2, 4}));
  Tensor reversed = SS(x, {0, -1}, {1, -4}, {1, -1}, 0, 2);
  EXPECT_NE(reversed.buffer(), x.buffer());
  EXPECT_EQ(Values<float>(reversed)[0], 8.0f);
}

TEST(StridedSliceTest, Errors) {
  const Tensor x = Iota<int32_t>({5});
  ExpectError(SSStatus(x, {5}, {6}, {1}, 0, 0, 0, 0, 1), "out of bounds");
  ExpectError(SSStatus(x, {-6}, {0}, {1}, 0, 0, 0, 0, 1), "out of bounds");
  ExpectError(SSStatus(x, {1}, {2}, {-1}, 0, 0, 0, 0, 1), "only stride 1");
  ExpectError(SSStatus(x, {0}, {2}, {0}), "must be non-zero");
  ExpectError(SSStatus(x, {0, 0}, {1, 1}, {1, 1}), "index out of range");
  ExpectError(SSStatus(x, {0, 0}, {1}, {1}), "1-D equal size");
  OpTest t("StridedSlice");
  t.Attr("ellipsis_mask", int64_t{3});
  ExpectError(t.Run({x, I32({0, 0}), I32({0, 0}), I32({1, 1})}),
              "multiple ellipses");
  OpTest t2("StridedSlice");
  ExpectError(t2.Run({x, I32({0}), I64({1}), I32({1})}), "one dtype");
}

// ------------------------------------------------------------------ Slice

absl::StatusOr<std::vector<Tensor>> SliceStatus(const Tensor& x,
                                                const Tensor& begin,
                                                const Tensor& size) {
  OpTest t("Slice");
  return t.Run({x, begin, size});
}

TEST(SliceTest, Basic) {
  auto out = SliceStatus(Iota<float>({3, 4}), I32({1, 1}), I32({2, -1}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{5, 6, 7, 9, 10, 11}));
  auto out64 = SliceStatus(Iota<int64_t>({3, 4}), I64({2, 0}), I64({1, 4}));
  ASSERT_TRUE(out64.ok()) << out64.status();
  EXPECT_EQ(Values<int64_t>((*out64)[0]), (std::vector<int64_t>{8, 9, 10, 11}));
}

TEST(SliceTest, WholeInputSharesTheBuffer) {
  const Tensor x = Iota<int32_t>({2, 3});
  OpTest t("Slice");
  Tensor whole = RunOne(t, {x, I32({0, 0}), I32({-1, 3})});
  EXPECT_EQ(whole.buffer(), x.buffer());
  EXPECT_EQ(Values<int32_t>(whole), Values<int32_t>(x));
  OpTest t2("Slice");
  Tensor part = RunOne(t2, {x, I32({1, 0}), I32({1, 3})});
  EXPECT_NE(part.buffer(), x.buffer());
  EXPECT_EQ(Values<int32_t>(part), (std::vector<int32_t>{3, 4, 5}));
}

TEST(SliceTest, EmptyAndScalar) {
  auto e = SliceStatus(Iota<float>({3, 4}), I32({3, 0}), I32({0, 4}));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)[0].shape(), Shape({0, 4}));
  auto s = SliceStatus(Tensor::Scalar<float>(3), I32({}), I32({}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Values<float>((*s)[0]), (std::vector<float>{3}));
}

TEST(SliceTest, Strings) {
  auto out = SliceStatus(Strs({3}, {"x", "y", "z"}), I32({1}), I32({-1}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]),
            (std::vector<std::string>{"y", "z"}));
}

TEST(SliceTest, Errors) {
  const Tensor x = Iota<float>({3, 4});
  ExpectError(SliceStatus(x, I32({4, 0}), I32({1, 1})), "begin[0]");
  ExpectError(SliceStatus(x, I32({-1, 0}), I32({1, 1})), "begin[0]");
  ExpectError(SliceStatus(x, I32({1, 0}), I32({3, 1})), "size[0]");
  ExpectError(SliceStatus(x, I32({1, 0}), I32({1, -2})), "size[1]");
  ExpectError(SliceStatus(x, I32({1}), I32({1})), "2 elements");
  ExpectError(SliceStatus(x, T_<float>({2}, {0, 0}), I32({1, 1})),
              "int32 or int64");
}

}  // namespace
}  // namespace graphrt::testing
