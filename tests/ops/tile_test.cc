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


TEST(TileTest, Basic) {
  OpTest t("Tile");
  Tensor o = RunOne(t, {Iota<float>({2, 2}), I32({2, 3})});
  EXPECT_EQ(o.shape(), Shape({4, 6}));
  EXPECT_EQ(Values<float>(o),
            (std::vector<float>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3,
                                0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3}));
  OpTest t2("Tile");
  Tensor o2 = RunOne(t2, {Strs({2}, {"a", "b"}), I64({2})});
  EXPECT_EQ(Values<std::string>(o2),
            (std::vector<std::string>{"a", "b", "a", "b"}));
  OpTest t3("Tile");
  Tensor o3 = RunOne(t3, {Iota<float>({2, 2}), I32({0, 2})});
  EXPECT_EQ(o3.shape(), Shape({0, 4}));
  OpTest t4("Tile");
  Tensor o4 = RunOne(t4, {Tensor::Scalar<int32_t>(3), I32({})});
  EXPECT_EQ(Values<int32_t>(o4), (std::vector<int32_t>{3}));
}

TEST(TileTest, Errors) {
  OpTest t("Tile");
  ExpectError(t.Run({Iota<float>({2, 2}), I32({2})}), "length 2");
  OpTest t2("Tile");
  ExpectError(t2.Run({Iota<float>({2, 2}), I32({2, -1})}), ">= 0");
  OpTest t3("Tile");
  ExpectError(t3.Run({Iota<float>({2, 2}),
                      I64({int64_t{1} << 62, int64_t{1} << 62})}),
              "overflow");
}

TEST(BroadcastToTest, Basic) {
  OpTest t("BroadcastTo");
  Tensor o = RunOne(t, {T_<float>({3}, {1, 2, 3}), I32({2, 3})});
  EXPECT_EQ(o.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(o), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  OpTest t2("BroadcastTo");
  Tensor o2 = RunOne(t2, {T_<int32_t>({2, 1}, {1, 2}), I64({2, 2})});
  EXPECT_EQ(Values<int32_t>(o2), (std::vector<int32_t>{1, 1, 2, 2}));
  OpTest t3("BroadcastTo");
  Tensor o3 = RunOne(t3, {Tensor::Scalar<std::string>("s"), I32({2})});
  EXPECT_EQ(Values<std::string>(o3), (std::vector<std::string>{"s", "s"}));
  OpTest t4("BroadcastTo");
  Tensor o4 = RunOne(t4, {T_<float>({1}, {1}), I32({0})});
  EXPECT_EQ(o4.shape(), Shape({0}));
}

TEST(BroadcastToTest, Errors) {
  OpTest t("BroadcastTo");
  ExpectError(t.Run({T_<float>({3}, {1, 2, 3}), I32({2, 2})}),
              "unable to broadcast");
  OpTest t2("BroadcastTo");
  ExpectError(t2.Run({Iota<float>({2, 2}), I32({4})}), "rank of input");
  OpTest t3("BroadcastTo");
  ExpectError(t3.Run({Iota<float>({2}), I32({-1, 2})}), "non-negative");
}

TEST(BroadcastArgsTest, Basic) {
  OpTest t("BroadcastArgs");
  Tensor o = RunOne(t, {I32({2, 1, 3}), I32({4, 1})});
  EXPECT_EQ(Values<int32_t>(o), (std::vector<int32_t>{2, 4, 3}));
  OpTest t2("BroadcastArgs");
  Tensor o2 = RunOne(t2, {I64({}), I64({5})});
  EXPECT_EQ(Values<int64_t>(o2), (std::vector<int64_t>{5}));
  OpTest t3("BroadcastArgs");
  ExpectError(t3.Run({I32({2}), I32({3})}), "Incompatible shapes");
}

}  // namespace
}  // namespace graphrt::testing
