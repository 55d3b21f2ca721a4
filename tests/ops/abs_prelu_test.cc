// _AbsPrelu (the FuseAbsPrelu pass's output) against the five ops it
// replaces, run one by one through their own kernels: bit for bit equal.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

Tensor RunOne(const std::string& op, std::vector<Tensor> inputs) {
  OpTest t(op);
  t.Attr("T", DType::kFloat32);
  auto out = t.Run(inputs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// base(x) + (x - |x|) * alpha through Relu, Abs, Sub, Mul, AddV2.
Tensor Unfused(const Tensor& x, const Tensor& alpha, bool relu) {
  Tensor sub = RunOne("Sub", {x, RunOne("Abs", {x})});
  Tensor mul = RunOne("Mul", {sub, alpha});
  return RunOne("AddV2", {relu ? RunOne("Relu", {x}) : x, mul});
}

std::vector<uint32_t> Bits(const Tensor& t) {
  std::vector<uint32_t> bits;
  for (float v : t.span<float>()) bits.push_back(std::bit_cast<uint32_t>(v));
  return bits;
}

std::vector<float> Values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 3.f);
  std::vector<float> v(n);
  for (float& f : v) f = normal(rng);
  // Edge values: zeros of both signs, infinities, a subnormal, NaN.
  const float edges[] = {0.f,
                         -0.f,
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         -1e-40f,
                         std::numeric_limits<float>::quiet_NaN()};
  for (size_t i = 0; i < std::size(edges) && i < v.size(); ++i) {
    v[i * 7 % v.size()] = edges[i];
  }
  return v;
}

TEST(AbsPreluTest, MatchesTheUnfusedOpsBitForBit) {
  struct Case {
    std::vector<int64_t> x_dims, alpha_dims;
  };
  const Case cases[] = {
      {{1, 5, 7, 16}, {16}}, {{2, 3, 3, 16}, {1, 1, 16}},
      {{1, 40, 40, 8}, {}},  {{1, 4, 4, 1}, {6}},
      {{3, 33}, {33}},       {{1, 2, 2, 0}, {}},
  };
  for (bool relu : {true, false}) {
    for (const Case& c : cases) {
      int64_t nx = 1, na = 1;
      for (int64_t d : c.x_dims) nx *= d;
      for (int64_t d : c.alpha_dims) na *= d;
      Tensor x = T_<float>(c.x_dims, Values(nx, 1));
      std::vector<float> a = Values(na, 2);
      for (float& f : a) f = std::isfinite(f) ? f * 0.1f : 0.25f;
      Tensor alpha = T_<float>(c.alpha_dims, a);
      OpTest t("_AbsPrelu");
      t.Attr("T", DType::kFloat32).Attr("relu", relu);
      auto fused = t.Run({x, alpha});
      ASSERT_TRUE(fused.ok()) << fused.status();
      Tensor want = Unfused(x, alpha, relu);
      EXPECT_EQ((*fused)[0].shape(), want.shape());
      EXPECT_EQ(Bits((*fused)[0]), Bits(want))
          << "relu " << relu << " x " << x.shape().ToString();
    }
  }
}

TEST(AbsPreluTest, Errors) {
  OpTest t("_AbsPrelu");
  auto wrong_dtype = t.Run({T_<int32_t>({2}, {1, 2}), T_<float>({2}, {1, 2})});
  EXPECT_EQ(wrong_dtype.status().code(), absl::StatusCode::kInvalidArgument);
  OpTest t2("_AbsPrelu");
  auto mismatch =
      t2.Run({T_<float>({1, 3}, {1, 2, 3}), T_<float>({2}, {1, 2})});
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  OpTest t3("_AbsPrelu");
  auto not_last =
      t3.Run({T_<float>({2, 2}, {1, 2, 3, 4}), T_<float>({2, 1}, {1, 2})});
  EXPECT_EQ(not_last.status().code(), absl::StatusCode::kInvalidArgument);
  OpTest t4("_AbsPrelu");
  t4.Attr("T", DType::kInt32);
  EXPECT_FALSE(t4.Run({T_<int32_t>({1}, {1}), T_<int32_t>({1}, {1})}).ok());
}

}  // namespace
}  // namespace graphrt::testing
