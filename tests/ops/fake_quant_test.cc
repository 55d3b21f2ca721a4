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


std::vector<float> RunVars(const std::vector<float>& x, float min, float max,
                           int64_t bits = 8, bool narrow = false) {
  OpTest t("FakeQuantWithMinMaxVars");
  t.Attr("num_bits", bits).Attr("narrow_range", narrow);
  Tensor o = RunOne(t, {T_<float>({static_cast<int64_t>(x.size())}, x),
                        Tensor::Scalar<float>(min), Tensor::Scalar<float>(max)});
  return o.valid() ? Values<float>(o) : std::vector<float>{};
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  }
}

TEST(FakeQuantTest, NoNudging) {
  ExpectNear(RunVars({-10.1f, -10.0f, -9.9f, -9.75f, 53.75f, 53.8f}, -10.0f,
                     53.75f),
             {-10.0f, -10.0f, -10.0f, -9.75f, 53.75f, 53.75f});
}

TEST(FakeQuantTest, NudgedZeroPoint) {
  // zero_point_from_min 0.4 rounds to 0: range nudged to [0, 63.75].
  ExpectNear(RunVars({-0.1f, 0.0f, 0.1f, 0.25f, 63.75f, 63.8f}, -0.1f, 63.65f),
             {0.0f, 0.0f, 0.0f, 0.25f, 63.75f, 63.75f});
}

TEST(FakeQuantTest, NarrowRangeAndBits) {
  ExpectNear(RunVars({-0.1f, 0.0f, 0.1f, 0.25f, 63.5f, 63.6f}, 0.0f, 63.5f, 8,
                     true),
             {0.0f, 0.0f, 0.0f, 0.25f, 63.5f, 63.5f});
  ExpectNear(RunVars({0.2f, 0.3f, 7.6f}, 0.0f, 7.5f, 4),
             {0.0f, 0.5f, 7.5f});
}

TEST(FakeQuantTest, ArgsAndPerChannel) {
  OpTest a("FakeQuantWithMinMaxArgs");
  a.Attr("min", -10.0f).Attr("max", 53.75f);
  ExpectNear(Values<float>(RunOne(a, {T_<float>({2}, {-9.9f, 60.0f})})),
             {-10.0f, 53.75f});
  OpTest p("FakeQuantWithMinMaxVarsPerChannel");
  Tensor o = RunOne(p, {T_<float>({2, 2}, {-9.9f, 0.1f, 60.0f, 63.8f}),
                        T_<float>({2}, {-10.0f, -0.1f}),
                        T_<float>({2}, {53.75f, 63.65f})});
  ExpectNear(Values<float>(o), {-10.0f, 0.0f, 53.75f, 63.75f});
}

TEST(FakeQuantTest, Errors) {
  OpTest t("FakeQuantWithMinMaxVars");
  ExpectError(t.Run({T_<float>({1}, {1}), Tensor::Scalar<float>(1),
                     Tensor::Scalar<float>(1)}),
              "min < max");
  OpTest t2("FakeQuantWithMinMaxVars");
  ExpectError(t2.Run({T_<float>({1}, {1}), Tensor::Scalar<float>(NAN),
                      Tensor::Scalar<float>(1)}),
              "min < max");
  OpTest t3("FakeQuantWithMinMaxVars");
  t3.Attr("num_bits", int64_t{17});
  EXPECT_FALSE(t3.Create(3).ok());
  OpTest t4("FakeQuantWithMinMaxVarsPerChannel");
  ExpectError(t4.Run({T_<float>({2, 2}, {0, 0, 0, 0}), T_<float>({1}, {0}),
                      T_<float>({1}, {1})}),
              "vector of 2");
  OpTest t5("FakeQuantWithMinMaxVars");
  ExpectError(t5.Run({T_<int32_t>({1}, {1}), Tensor::Scalar<float>(0),
                      Tensor::Scalar<float>(1)}),
              "float32");
}

}  // namespace
}  // namespace graphrt::testing
