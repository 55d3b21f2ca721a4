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


const Tensor kAbcd = T_<std::string>({2, 2}, {"a", "b", "c", "d"});

TEST(GatherNdTest, Examples) {
  OpTest t("GatherNd");
  Tensor o = RunOne(t, {kAbcd, T_<int32_t>({2, 2}, {0, 0, 1, 1})});
  EXPECT_EQ(Values<std::string>(o), (std::vector<std::string>{"a", "d"}));
  OpTest t2("GatherNd");
  Tensor o2 = RunOne(t2, {kAbcd, T_<int64_t>({2, 1}, {1, 0})});
  EXPECT_EQ(o2.shape(), Shape({2, 2}));
  EXPECT_EQ(Values<std::string>(o2),
            (std::vector<std::string>{"c", "d", "a", "b"}));
  OpTest t3("GatherNd");
  Tensor o3 = RunOne(t3, {kAbcd, T_<int32_t>({2, 1, 2}, {0, 0, 0, 1})});
  EXPECT_EQ(o3.shape(), Shape({2, 1}));
  EXPECT_EQ(Values<std::string>(o3), (std::vector<std::string>{"a", "b"}));
  // Index depth 0: the whole params per index.
  OpTest t4("GatherNd");
  Tensor o4 = RunOne(t4, {Iota<float>({2}), T_<int32_t>({3, 0}, {})});
  EXPECT_EQ(o4.shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>(o4), (std::vector<float>{0, 1, 0, 1, 0, 1}));
  // Empty indices.
  OpTest t5("GatherNd");
  Tensor o5 = RunOne(t5, {Iota<float>({2, 3}), T_<int32_t>({0, 1}, {})});
  EXPECT_EQ(o5.shape(), Shape({0, 3}));
}

TEST(GatherNdTest, Large) {
  const Tensor p = Iota<float>({100, 50, 20});
  std::vector<int32_t> idx;
  for (int i = 0; i < 4000; ++i) {
    idx.push_back(i % 100);
    idx.push_back((i * 7) % 50);
  }
  OpTest t("GatherNd");
  Tensor o = RunOne(t, {p, T_<int32_t>({4000, 2}, idx)});
  ASSERT_EQ(o.shape(), Shape({4000, 20}));
  const int i = 3999;
  EXPECT_EQ(o.data<float>()[i * 20 + 5], ((i % 100) * 50 + (i * 7) % 50) * 20 + 5);
}

TEST(GatherNdTest, Errors) {
  OpTest t("GatherNd");
  ExpectError(t.Run({kAbcd, T_<int32_t>({1, 2}, {2, 0})}),
              "does not index into param shape");
  OpTest t2("GatherNd");
  ExpectError(t2.Run({kAbcd, T_<int32_t>({1, 2}, {0, -1})}),
              "does not index");
  OpTest t3("GatherNd");
  ExpectError(t3.Run({kAbcd, T_<int32_t>({1, 3}, {0, 0, 0})}),
              "innermost dimension");
  OpTest t4("GatherNd");
  ExpectError(t4.Run({kAbcd, Tensor::Scalar<int32_t>(0)}), "at least a vector");
  OpTest t5("GatherNd");
  ExpectError(t5.Run({kAbcd, T_<float>({1}, {0})}), "int32 or int64");
  OpTest t6("GatherNd");
  ExpectError(t6.Run({Iota<float>({0, 2}), T_<int32_t>({1, 1}, {0})}),
              "does not index");
}

}  // namespace
}  // namespace graphrt::testing
