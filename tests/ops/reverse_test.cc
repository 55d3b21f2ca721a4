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

[[maybe_unused]] Tensor Bools(const std::vector<int64_t>& shape, const std::vector<int>& v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i] != 0;
  return t;
}


TEST(ReverseV2Test, Axes) {
  OpTest t("ReverseV2");
  Tensor o = RunOne(t, {Iota<float>({2, 3}), I32({1})});
  EXPECT_EQ(Values<float>(o), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  OpTest t2("ReverseV2");
  Tensor o2 = RunOne(t2, {Iota<float>({2, 3}), I64({-2, 1})});
  EXPECT_EQ(Values<float>(o2), (std::vector<float>{5, 4, 3, 2, 1, 0}));
  OpTest t3("ReverseV2");
  Tensor o3 = RunOne(t3, {Strs({3}, {"a", "b", "c"}), I32({0})});
  EXPECT_EQ(Values<std::string>(o3), (std::vector<std::string>{"c", "b", "a"}));
  OpTest t4("ReverseV2");
  Tensor o4 = RunOne(t4, {Iota<float>({2, 0}), I32({0, 1})});
  EXPECT_EQ(o4.shape(), Shape({2, 0}));
  OpTest t5("ReverseV2");
  Tensor o5 = RunOne(t5, {Iota<int64_t>({2, 2}), I32({})});
  EXPECT_EQ(Values<int64_t>(o5), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(ReverseV2Test, LargeMiddleAxis) {
  OpTest t("ReverseV2");
  Tensor o = RunOne(t, {Iota<int32_t>({4, 100, 100}), I32({1})});
  EXPECT_EQ(o.data<int32_t>()[(2 * 100 + 3) * 100 + 5],
            (2 * 100 + 96) * 100 + 5);
}

TEST(ReverseV2Test, Errors) {
  OpTest t("ReverseV2");
  ExpectError(t.Run({Iota<float>({2, 3}), I32({1, -1})}), "more than once");
  OpTest t2("ReverseV2");
  ExpectError(t2.Run({Iota<float>({2, 3}), I32({2})}), "axis");
}

TEST(ReverseTest, BoolDims) {
  OpTest t("Reverse");
  Tensor o = RunOne(t, {Iota<float>({2, 3}), Bools({2}, {1, 0})});
  EXPECT_EQ(Values<float>(o), (std::vector<float>{3, 4, 5, 0, 1, 2}));
  OpTest t2("Reverse");
  ExpectError(t2.Run({Iota<float>({2, 3}), Bools({1}, {1})}),
              "bool vector of length 2");
}

}  // namespace
}  // namespace graphrt::testing
