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


Tensor RunRandom(const std::string& op, int64_t seed, int64_t seed2,
                 std::vector<Tensor> inputs, DType dtype = DType::kFloat32) {
  OpTest t(op);
  t.Attr("seed", seed).Attr("seed2", seed2);
  if (op != "RandomUniformInt" && op != "Multinomial") t.Attr("dtype", dtype);
  return RunOne(t, inputs);
}

TEST(RandomTest, UniformRangeAndSeeding) {
  Tensor a = RunRandom("RandomUniform", 1, 2, {I32({100, 100})});
  ASSERT_EQ(a.shape(), Shape({100, 100}));
  double sum = 0;
  for (float v : Values<float>(a)) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
  // Same seeds -> same values in a fresh kernel; other seeds differ.
  Tensor b = RunRandom("RandomUniform", 1, 2, {I32({100, 100})});
  EXPECT_EQ(Values<float>(a), Values<float>(b));
  Tensor c = RunRandom("RandomUniform", 1, 3, {I32({100, 100})});
  EXPECT_NE(Values<float>(a), Values<float>(c));
  // Successive runs of one kernel differ.
  OpTest t("RandomUniform");
  t.Attr("seed", int64_t{5}).Attr("dtype", DType::kFloat64);
  Tensor r1 = RunOne(t, {I32({10})});
  Tensor r2 = RunOne(t, {I32({10})});
  EXPECT_NE(Values<double>(r1), Values<double>(r2));
}

TEST(RandomTest, NormalAndTruncated) {
  Tensor n = RunRandom("RandomStandardNormal", 7, 0, {I64({20000})});
  double sum = 0, sq = 0;
  for (float v : Values<float>(n)) {
    sum += v;
    sq += v * v;
  }
  EXPECT_NEAR(sum / 20000, 0.0, 0.05);
  EXPECT_NEAR(sq / 20000, 1.0, 0.05);
  Tensor tn = RunRandom("TruncatedNormal", 7, 0, {I32({20000})},
                        DType::kFloat64);
  for (double v : Values<double>(tn)) ASSERT_LE(std::abs(v), 2.0);
  Tensor e = RunRandom("RandomStandardNormal", 0, 0, {I32({0, 3})});
  EXPECT_EQ(e.shape(), Shape({0, 3}));
}

TEST(RandomTest, UniformInt) {
  Tensor a = RunRandom("RandomUniformInt", 3, 4,
                       {I32({1000}), Tensor::Scalar<int32_t>(-5),
                        Tensor::Scalar<int32_t>(5)});
  std::vector<int> seen(10, 0);
  for (int32_t v : Values<int32_t>(a)) {
    ASSERT_GE(v, -5);
    ASSERT_LT(v, 5);
    seen[v + 5]++;
  }
  for (int s : seen) EXPECT_GT(s, 50);
  Tensor b = RunRandom("RandomUniformInt", 3, 4,
                       {I32({10}), Tensor::Scalar<int64_t>(INT64_MIN),
                        Tensor::Scalar<int64_t>(INT64_MAX)});
  EXPECT_EQ(b.dtype(), DType::kInt64);
  OpTest bad("RandomUniformInt");
  ExpectError(bad.Run({I32({2}), Tensor::Scalar<int32_t>(5),
                       Tensor::Scalar<int32_t>(5)}),
              "minval < maxval");
}

TEST(RandomTest, Multinomial) {
  OpTest t("Multinomial");
  t.Attr("seed", int64_t{1});
  Tensor o = RunOne(t, {T_<float>({2, 3}, {0, -INFINITY, 0, -100, 100, -100}),
                        Tensor::Scalar<int32_t>(500)});
  ASSERT_EQ(o.shape(), Shape({2, 500}));
  EXPECT_EQ(o.dtype(), DType::kInt64);
  int zeros = 0;
  for (int i = 0; i < 500; ++i) {
    const int64_t v = o.data<int64_t>()[i];
    ASSERT_TRUE(v == 0 || v == 2) << v;
    zeros += v == 0;
    ASSERT_EQ(o.data<int64_t>()[500 + i], 1);
  }
  EXPECT_GT(zeros, 180);
  EXPECT_LT(zeros, 320);
  OpTest t32("Multinomial");
  t32.Attr("output_dtype", DType::kInt32);
  Tensor o32 = RunOne(t32, {T_<double>({1, 2}, {0, 0}),
                            Tensor::Scalar<int32_t>(0)});
  EXPECT_EQ(o32.shape(), Shape({1, 0}));
  OpTest bad("Multinomial");
  ExpectError(bad.Run({T_<float>({1, 0}, {}), Tensor::Scalar<int32_t>(1)}),
              "num_classes");
  OpTest bad2("Multinomial");
  ExpectError(bad2.Run({T_<float>({2}, {0, 0}), Tensor::Scalar<int32_t>(1)}),
              "2-D");
}

TEST(RandomTest, BadAttrsAndShapes) {
  OpTest t("RandomUniform");
  t.Attr("dtype", DType::kInt32);
  EXPECT_FALSE(t.Create(1).ok());
  OpTest t2("RandomUniform");
  ExpectError(t2.Run({I32({-1})}), "invalid shape");
}

}  // namespace
}  // namespace graphrt::testing
