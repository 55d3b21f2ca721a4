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


Tensor Transpose(const Tensor& x, const std::vector<int32_t>& perm) {
  OpTest t("Transpose");
  return RunOne(t, {x, I32(perm)});
}

Tensor DepthSpace(const std::string& op, const Tensor& x, int64_t bs,
                  const std::string& fmt = "NHWC") {
  OpTest t(op);
  t.Attr("block_size", bs).Attr("data_format", fmt);
  return RunOne(t, {x});
}

TEST(DepthToSpaceTest, NHWCExamples) {
  Tensor o = DepthSpace("DepthToSpace", T_<float>({1, 1, 1, 4}, {1, 2, 3, 4}),
                        2);
  EXPECT_EQ(o.shape(), Shape({1, 2, 2, 1}));
  EXPECT_EQ(Values<float>(o), (std::vector<float>{1, 2, 3, 4}));
  std::vector<float> v;
  for (int i = 1; i <= 16; ++i) v.push_back(i);
  Tensor o2 = DepthSpace("DepthToSpace", T_<float>({1, 2, 2, 4}, v), 2);
  EXPECT_EQ(o2.shape(), Shape({1, 4, 4, 1}));
  EXPECT_EQ(Values<float>(o2),
            (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12,
                                15, 16}));
  // SpaceToDepth inverts it.
  Tensor back = DepthSpace("SpaceToDepth", o2, 2);
  EXPECT_EQ(back.shape(), Shape({1, 2, 2, 4}));
  EXPECT_EQ(Values<float>(back), v);
}

TEST(DepthToSpaceTest, NCHWMatchesNHWC) {
  const Tensor nhwc = Iota<float>({2, 3, 5, 18});
  const Tensor nchw = Transpose(nhwc, {0, 3, 1, 2});
  for (const std::string op : {"DepthToSpace", "SpaceToDepth"}) {
    const Tensor in_nhwc = op == "DepthToSpace" ? nhwc : Iota<float>({2, 6, 9, 2});
    const Tensor in_nchw = Transpose(in_nhwc, {0, 3, 1, 2});
    const Tensor a = DepthSpace(op, in_nhwc, 3);
    const Tensor b = Transpose(DepthSpace(op, in_nchw, 3, "NCHW"), {0, 2, 3, 1});
    EXPECT_EQ(a.shape(), b.shape()) << op;
    EXPECT_EQ(Values<float>(a), Values<float>(b)) << op;
  }
  (void)nchw;
}

TEST(DepthToSpaceTest, Errors) {
  OpTest t("DepthToSpace");
  t.Attr("block_size", int64_t{2});
  ExpectError(t.Run({Iota<float>({1, 1, 1, 3})}), "divisible");
  OpTest t2("SpaceToDepth");
  t2.Attr("block_size", int64_t{2});
  ExpectError(t2.Run({Iota<float>({1, 3, 2, 1})}), "divisible");
  OpTest t3("SpaceToDepth");
  t3.Attr("block_size", int64_t{2});
  ExpectError(t3.Run({Iota<float>({4, 4, 1})}), "4-D");
  OpTest t4("DepthToSpace");
  t4.Attr("block_size", int64_t{1});
  EXPECT_FALSE(t4.Create(1).ok());
}

absl::StatusOr<std::vector<Tensor>> SpaceBatch(const std::string& op,
                                               const Tensor& x,
                                               const Tensor& block,
                                               const Tensor& pads) {
  OpTest t(op);
  return t.Run({x, block, pads});
}

TEST(SpaceToBatchNDTest, DocExamples) {
  auto r = SpaceBatch("SpaceToBatchND", T_<float>({1, 2, 2, 1}, {1, 2, 3, 4}),
                      I32({2, 2}), T_<int32_t>({2, 2}, {0, 0, 0, 0}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({4, 1, 1, 1}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, 2, 3, 4}));
  std::vector<float> v;
  for (int i = 1; i <= 16; ++i) v.push_back(i);
  auto r2 = SpaceBatch("SpaceToBatchND", T_<float>({1, 4, 4, 1}, v),
                       I32({2, 2}), T_<int32_t>({2, 2}, {0, 0, 0, 0}));
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ((*r2)[0].shape(), Shape({4, 2, 2, 1}));
  EXPECT_EQ(Values<float>((*r2)[0]),
            (std::vector<float>{1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8,
                                14, 16}));
  // Batch 2 with padding.
  auto r3 = SpaceBatch("SpaceToBatchND", T_<float>({2, 2, 4, 1}, v),
                       I64({2, 2}), T_<int64_t>({2, 2}, {0, 0, 2, 0}));
  ASSERT_TRUE(r3.ok()) << r3.status();
  EXPECT_EQ((*r3)[0].shape(), Shape({8, 1, 3, 1}));
  const std::vector<float> want = {0, 1, 3, 0, 9,  11, 0, 2, 4, 0, 10, 12,
                                   0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16};
  EXPECT_EQ(Values<float>((*r3)[0]), want);
  // BatchToSpaceND with the same crops inverts it.
  auto back = SpaceBatch("BatchToSpaceND", (*r3)[0], I32({2, 2}),
                         T_<int32_t>({2, 2}, {0, 0, 2, 0}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)[0].shape(), Shape({2, 2, 4, 1}));
  EXPECT_EQ(Values<float>((*back)[0]), v);
}

TEST(SpaceToBatchNDTest, RoundTripDilatedConvShape) {
  // The dilated-conv pattern: [1, 13, 11, 3] with block [2, 2].
  const Tensor x = Iota<float>({1, 13, 11, 3});
  auto s2b = SpaceBatch("SpaceToBatchND", x, I32({2, 2}),
                        T_<int32_t>({2, 2}, {2, 3, 2, 1}));
  ASSERT_TRUE(s2b.ok()) << s2b.status();
  EXPECT_EQ((*s2b)[0].shape(), Shape({4, 9, 7, 3}));
  auto b2s = SpaceBatch("BatchToSpaceND", (*s2b)[0], I32({2, 2}),
                        T_<int32_t>({2, 2}, {2, 3, 2, 1}));
  ASSERT_TRUE(b2s.ok()) << b2s.status();
  EXPECT_EQ((*b2s)[0].shape(), x.shape());
  EXPECT_EQ(Values<float>((*b2s)[0]), Values<float>(x));
  // 1 spatial dim, strings.
  auto s = SpaceBatch("SpaceToBatchND", Strs({1, 2}, {"a", "b"}), I32({2}),
                      T_<int32_t>({1, 2}, {0, 0}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Values<std::string>((*s)[0]), (std::vector<std::string>{"a", "b"}));
}

TEST(SpaceToBatchNDTest, Errors) {
  ExpectError(SpaceBatch("SpaceToBatchND", Iota<float>({1, 3, 2, 1}),
                         I32({2, 2}), T_<int32_t>({2, 2}, {0, 0, 0, 0})),
              "divisible");
  ExpectError(SpaceBatch("SpaceToBatchND", Iota<float>({1, 2, 2, 1}),
                         I32({0, 2}), T_<int32_t>({2, 2}, {0, 0, 0, 0})),
              "positive");
  ExpectError(SpaceBatch("SpaceToBatchND", Iota<float>({1, 2, 2, 1}),
                         I32({2, 2}), T_<int32_t>({2, 2}, {0, -1, 0, 0})),
              "non-negative");
  ExpectError(SpaceBatch("BatchToSpaceND", Iota<float>({3, 2, 2, 1}),
                         I32({2, 2}), T_<int32_t>({2, 2}, {0, 0, 0, 0})),
              "divisible");
  ExpectError(SpaceBatch("BatchToSpaceND", Iota<float>({4, 1, 1, 1}),
                         I32({2, 2}), T_<int32_t>({2, 2}, {2, 1, 0, 0})),
              "exceed");
  ExpectError(SpaceBatch("BatchToSpaceND", Iota<float>({4, 1}), I32({2, 2}),
                         T_<int32_t>({2, 2}, {0, 0, 0, 0})),
              "rank");
}

}  // namespace
}  // namespace graphrt::testing
