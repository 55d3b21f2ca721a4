// nn::ApplyEpilogue (ops/nn/conv_util.h): the bias / Relu / Relu6 fast path
// (internal::BiasClampRows) against a scalar reference of TF's semantics,
// bit for bit, including NaN, +-0, +-inf and channel counts that are not a
// multiple of the vector width.
#include "ops/nn/conv_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace graphrt::testing {
namespace {

using nn::EpilogueArgs;
using nn::FusedEpilogue;

template <typename T>
T RefEpilogue(T v, const T* add, ops::Activation act) {
  if (add != nullptr) v = v + *add;
  if (act == ops::Activation::kRelu || act == ops::Activation::kRelu6) {
    if (v < T(0)) v = T(0);  // NaN stays NaN, -0 stays -0
  }
  if (act == ops::Activation::kRelu6 && v > T(6)) v = T(6);
  return v;
}

template <typename T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
void CheckFastPath(int64_t rows, int64_t channels, bool bias,
                   ops::Activation act) {
  SCOPED_TRACE(::testing::Message()
               << "rows " << rows << " channels " << channels << " bias "
               << bias << " act " << static_cast<int>(act));
  std::mt19937 rng(rows * 131 + channels);
  std::uniform_real_distribution<T> dist(-10, 10);
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                        -std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        T(0),
                        -T(0),
                        T(6),
                        T(-1e-30)};
  std::vector<T> data(rows * channels);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i] = i % 7 == 3 ? specials[(i / 7) % 8] : dist(rng);
  }
  FusedEpilogue e;
  e.kind = bias ? FusedEpilogue::Kind::kBias : FusedEpilogue::Kind::kNone;
  e.act = act;
  EpilogueArgs<T> args;
  std::vector<T> bias_values;
  if (bias) {
    for (int64_t c = 0; c < channels; ++c) {
      bias_values.push_back(c % 5 == 1 ? specials[c % 8] : dist(rng));
    }
    args.add = bias_values.data();
  }
  std::vector<T> want(data.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < channels; ++c) {
      want[r * channels + c] = RefEpilogue(data[r * channels + c],
                                           bias ? &args.add[c] : nullptr, act);
    }
  }
  nn::ApplyEpilogue(e, args, data.data(), rows, channels);
  for (size_t i = 0; i < data.size(); ++i) {
    ASSERT_TRUE(SameBits(data[i], want[i]) ||
                (std::isnan(data[i]) && std::isnan(want[i])))
        << "element " << i << ": " << data[i] << " != " << want[i];
  }
}

TEST(ApplyEpilogueTest, BiasClampMatchesScalarReference) {
  const ops::Activation acts[] = {
      ops::Activation::kNone, ops::Activation::kRelu, ops::Activation::kRelu6};
  for (int64_t channels : {1, 3, 8, 15, 16, 17, 24, 28, 33, 42, 96}) {
    for (int64_t rows : {1, 5}) {
      for (bool bias : {false, true}) {
        for (ops::Activation act : acts) {
          CheckFastPath<float>(rows, channels, bias, act);
          CheckFastPath<double>(rows, channels, bias, act);
        }
      }
    }
  }
}

TEST(ApplyEpilogueTest, NothingToDoLeavesDataUnchanged) {
  std::vector<float> data = {1.5f, -2.0f, std::nanf("")};
  nn::ApplyEpilogue(FusedEpilogue{}, EpilogueArgs<float>{}, data.data(), 1, 3);
  EXPECT_EQ(data[0], 1.5f);
  EXPECT_EQ(data[1], -2.0f);
  EXPECT_TRUE(std::isnan(data[2]));
}

}  // namespace
}  // namespace graphrt::testing
