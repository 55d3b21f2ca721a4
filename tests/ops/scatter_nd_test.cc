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


TEST(ScatterNdTest, Basic) {
  OpTest t("ScatterNd");
  Tensor o = RunOne(t, {T_<int32_t>({4, 1}, {4, 3, 1, 7}),
                        T_<float>({4}, {9, 10, 11, 12}), I32({8})});
  EXPECT_EQ(Values<float>(o), (std::vector<float>{0, 11, 0, 10, 9, 0, 0, 12}));
  OpTest dup("ScatterNd");
  Tensor od = RunOne(dup, {T_<int64_t>({3, 1}, {1, 1, 0}),
                           T_<int32_t>({3}, {1, 2, INT32_MAX}), I64({2})});
  EXPECT_EQ(Values<int32_t>(od), (std::vector<int32_t>{INT32_MAX, 3}));
  // Slices.
  OpTest sl("ScatterNd");
  Tensor os = RunOne(sl, {T_<int32_t>({1, 1}, {1}), T_<float>({1, 2}, {5, 6}),
                          I32({2, 2})});
  EXPECT_EQ(Values<float>(os), (std::vector<float>{0, 0, 5, 6}));
  // Wrapping overflow of int32 duplicates is defined.
  OpTest ov("ScatterNd");
  Tensor oo = RunOne(ov, {T_<int32_t>({2, 1}, {0, 0}),
                          T_<int32_t>({2}, {INT32_MAX, 1}), I32({1})});
  EXPECT_EQ(Values<int32_t>(oo), (std::vector<int32_t>{INT32_MIN}));
}

TEST(ScatterNdTest, Errors) {
  OpTest t("ScatterNd");
  ExpectError(t.Run({T_<int32_t>({1, 1}, {8}), T_<float>({1}, {1}), I32({8})}),
              "does not index into shape");
  OpTest t2("ScatterNd");
  ExpectError(t2.Run({T_<int32_t>({1, 1}, {0}), T_<float>({2}, {1, 2}),
                      I32({8})}),
              "updates must have shape");
  OpTest t3("ScatterNd");
  ExpectError(t3.Run({T_<int32_t>({1, 1}, {0}), Strs({1}, {"a"}), I32({8})}),
              "unsupported dtype");
  OpTest t4("ScatterNd");
  ExpectError(t4.Run({T_<int32_t>({1, 1}, {0}), T_<float>({1}, {1}),
                      I32({-8})}),
              "invalid shape");
}

TEST(TensorScatterUpdateTest, Basic) {
  OpTest t("TensorScatterUpdate");
  Tensor o = RunOne(t, {Iota<float>({8}), T_<int32_t>({4, 1}, {4, 3, 1, 7}),
                        T_<float>({4}, {9, 10, 11, 12})});
  EXPECT_EQ(Values<float>(o), (std::vector<float>{0, 11, 2, 10, 9, 5, 6, 12}));
  OpTest s("TensorScatterUpdate");
  Tensor os = RunOne(s, {Strs({2, 2}, {"a", "b", "c", "d"}),
                         T_<int64_t>({1, 1}, {1}), Strs({1, 2}, {"x", "y"})});
  EXPECT_EQ(Values<std::string>(os),
            (std::vector<std::string>{"a", "b", "x", "y"}));
  OpTest e("TensorScatterUpdate");
  ExpectError(e.Run({Iota<float>({2}), T_<int32_t>({1, 1}, {2}),
                     T_<float>({1}, {1})}),
              "does not index");
  OpTest e2("TensorScatterUpdate");
  ExpectError(e2.Run({Iota<float>({2}), T_<int32_t>({1, 1}, {0}),
                      T_<int32_t>({1}, {1})}),
              "dtype float32");
}

TEST(SparseToDenseTest, Basic) {
  OpTest t("SparseToDense");
  Tensor o = RunOne(t, {T_<int32_t>({2, 2}, {0, 1, 1, 2}), I32({2, 3}),
                        T_<float>({2}, {5, 6}), Tensor::Scalar<float>(-1)});
  EXPECT_EQ(Values<float>(o), (std::vector<float>{-1, 5, -1, -1, -1, 6}));
  OpTest t2("SparseToDense");
  Tensor o2 = RunOne(t2, {I64({0, 2}), I64({4}), Tensor::Scalar<int32_t>(7),
                          Tensor::Scalar<int32_t>(0)});
  EXPECT_EQ(Values<int32_t>(o2), (std::vector<int32_t>{7, 0, 7, 0}));
  OpTest t3("SparseToDense");
  Tensor o3 = RunOne(t3, {Tensor::Scalar<int32_t>(1), I32({2}),
                          Strs({}, {"s"}), Tensor::Scalar<std::string>("")});
  EXPECT_EQ(Values<std::string>(o3), (std::vector<std::string>{"", "s"}));
  OpTest t4("SparseToDense");
  t4.Attr("validate_indices", false);
  Tensor o4 = RunOne(t4, {I32({2, 0}), I32({3}), T_<float>({2}, {1, 2}),
                          Tensor::Scalar<float>(0)});
  EXPECT_EQ(Values<float>(o4), (std::vector<float>{2, 0, 1}));
}

TEST(SparseToDenseTest, Errors) {
  auto run = [](const Tensor& idx, bool validate) {
    OpTest t("SparseToDense");
    t.Attr("validate_indices", validate);
    return t.Run({idx, I32({3}), Tensor::Scalar<float>(1),
                  Tensor::Scalar<float>(0)});
  };
  ExpectError(run(I32({2, 0}), true), "out of order");
  ExpectError(run(I32({1, 1}), true), "repeated");
  ExpectError(run(I32({3}), false), "out of bounds");
  ExpectError(run(I32({-1}), false), "out of bounds");
  OpTest t("SparseToDense");
  ExpectError(t.Run({I32({0, 1}), I32({3}), T_<float>({3}, {1, 2, 3}),
                     Tensor::Scalar<float>(0)}),
              "sparse_values");
  OpTest t2("SparseToDense");
  ExpectError(t2.Run({I32({0}), I32({3, 3}), T_<float>({1}, {1}),
                      Tensor::Scalar<float>(0)}),
              "output_shape");
  OpTest t3("SparseToDense");
  ExpectError(t3.Run({I32({0}), I32({3}), T_<float>({1}, {1}),
                      Tensor::Scalar<int32_t>(0)}),
              "default_value");
}

}  // namespace
}  // namespace graphrt::testing
