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

TEST(PadTest, ConstantPad) {
  OpTest t("Pad");
  Tensor o = RunOne(
      t, {T_<float>({2, 2}, {1, 2, 3, 4}), T_<int32_t>({2, 2}, {1, 1, 2, 0})});
  EXPECT_EQ(o.shape(), Shape({4, 4}));
  EXPECT_EQ(Values<float>(o), (std::vector<float>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0,
                                                  3, 4, 0, 0, 0, 0}));
  OpTest t2("PadV2");
  Tensor o2 = RunOne(t2, {T_<int32_t>({2}, {1, 2}), T_<int64_t>({1, 2}, {1, 2}),
                          Tensor::Scalar<int32_t>(-1)});
  EXPECT_EQ(Values<int32_t>(o2), (std::vector<int32_t>{-1, 1, 2, -1, -1}));
  OpTest t3("PadV2");
  Tensor o3 = RunOne(t3, {Strs({1}, {"a"}), T_<int32_t>({1, 2}, {1, 0}),
                          Tensor::Scalar<std::string>("_")});
  EXPECT_EQ(Values<std::string>(o3), (std::vector<std::string>{"_", "a"}));
  OpTest t4("Pad");
  Tensor o4 =
      RunOne(t4, {Iota<float>({0, 2}), T_<int32_t>({2, 2}, {1, 0, 0, 0})});
  EXPECT_EQ(o4.shape(), Shape({1, 2}));
  EXPECT_EQ(Values<float>(o4), (std::vector<float>{0, 0}));
  OpTest t5("Pad");
  Tensor o5 = RunOne(t5, {Tensor::Scalar<float>(3), T_<int32_t>({0, 2}, {})});
  EXPECT_EQ(Values<float>(o5), (std::vector<float>{3}));
}

TEST(PadTest, LargeNHWC) {
  OpTest t("Pad");
  Tensor o = RunOne(t, {Iota<float>({1, 64, 64, 8}),
                        T_<int32_t>({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0})});
  ASSERT_EQ(o.shape(), Shape({1, 66, 66, 8}));
  EXPECT_EQ(o.data<float>()[(1 * 66 + 1) * 8 + 3], 3);
  EXPECT_EQ(o.data<float>()[(65 * 66 + 65) * 8 + 3], 0);
  EXPECT_EQ(o.data<float>()[(64 * 66 + 64) * 8 + 7], 63 * 64 * 8 + 63 * 8 + 7);
}

// Every (mode, paddings) on [2, 3, 4, 3] against a per-element reference,
// incl. trailing unpadded dims that the kernel copies as whole blocks, a
// fully unpadded tensor and paddings of the innermost padded dim only
// (the constant mode's row-to-row path).
TEST(PadTest, BlocksOfUnpaddedTrailingDimsMatchReference) {
  const std::vector<int64_t> dims = {2, 3, 4, 3};
  const Tensor x = Iota<float>(dims);
  const std::vector<std::vector<int32_t>> cases = {{0, 0, 1, 2, 2, 1, 0, 0},
                                                   {0, 0, 2, 0, 0, 0, 0, 0},
                                                   {1, 0, 0, 0, 0, 0, 0, 0},
                                                   {0, 0, 0, 0, 0, 0, 0, 0},
                                                   {0, 1, 1, 1, 1, 1, 1, 1},
                                                   // Only the innermost
                                                   // padded dim: rows map
                                                   // one to one.
                                                   {0, 0, 0, 0, 0, 0, 1, 2},
                                                   {0, 0, 0, 0, 2, 1, 0, 0}};
  for (const std::string mode : {"CONSTANT", "REFLECT", "SYMMETRIC"}) {
    for (const auto& p : cases) {
      if (mode == "REFLECT" && p[0] + p[1] > 0) continue;  // dim 2: max 1
      std::vector<int64_t> od(4);
      for (int i = 0; i < 4; ++i) od[i] = dims[i] + p[2 * i] + p[2 * i + 1];
      auto src = [&](int i, int64_t j) -> int64_t {
        const int64_t d = dims[i], k = j - p[2 * i];
        if (k >= 0 && k < d) return k;
        if (mode == "CONSTANT") return -1;
        const int64_t off = mode == "REFLECT" ? 0 : 1;
        return k < 0 ? -k - off : 2 * d - k - 2 + off;
      };
      std::vector<float> want;
      for (int64_t a = 0; a < od[0]; ++a)
        for (int64_t b = 0; b < od[1]; ++b)
          for (int64_t c = 0; c < od[2]; ++c)
            for (int64_t e = 0; e < od[3]; ++e) {
              const int64_t sa = src(0, a), sb = src(1, b), sc = src(2, c),
                            se = src(3, e);
              want.push_back(
                  sa < 0 || sb < 0 || sc < 0 || se < 0
                      ? 0.0f
                      : static_cast<float>(((sa * 3 + sb) * 4 + sc) * 3 + se));
            }
      OpTest t(mode == "CONSTANT" ? "Pad" : "MirrorPad");
      if (mode != "CONSTANT") t.Attr("mode", mode);
      Tensor o = RunOne(t, {x, T_<int32_t>({4, 2}, p)});
      EXPECT_EQ(o.shape(), Shape(absl::MakeConstSpan(od))) << mode;
      EXPECT_EQ(Values<float>(o), want)
          << mode << " " << p[0] << p[1] << p[2] << p[3] << p[4] << p[5];
    }
  }
}

TEST(PadTest, Errors) {
  OpTest t("Pad");
  ExpectError(t.Run({Iota<float>({2}), T_<int32_t>({1, 2}, {-1, 0})}),
              "non-negative");
  OpTest t2("Pad");
  ExpectError(t2.Run({Iota<float>({2}), T_<int32_t>({2, 2}, {0, 0, 0, 0})}),
              "paddings of shape [1,2]");
  OpTest t3("PadV2");
  ExpectError(t3.Run({Iota<float>({2}), T_<int32_t>({1, 2}, {0, 0}),
                      Tensor::Scalar<int32_t>(0)}),
              "constant_values");
}

TEST(MirrorPadTest, ReflectAndSymmetric) {
  const Tensor x = T_<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor p = T_<int32_t>({2, 2}, {1, 1, 2, 2});
  OpTest r("MirrorPad");
  r.Attr("mode", "REFLECT");
  Tensor o = RunOne(r, {x, p});
  EXPECT_EQ(o.shape(), Shape({4, 7}));
  EXPECT_EQ(Values<int32_t>(o),
            (std::vector<int32_t>{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                                  6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1}));
  OpTest s("MirrorPad");
  s.Attr("mode", "SYMMETRIC");
  Tensor o2 = RunOne(s, {x, p});
  EXPECT_EQ(Values<int32_t>(o2),
            (std::vector<int32_t>{2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2,
                                  5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5}));
  OpTest s2("MirrorPad");
  s2.Attr("mode", "SYMMETRIC");
  Tensor o3 = RunOne(s2, {Strs({2}, {"a", "b"}), T_<int64_t>({1, 2}, {2, 1})});
  EXPECT_EQ(Values<std::string>(o3),
            (std::vector<std::string>{"b", "a", "a", "b", "b"}));
}

TEST(MirrorPadTest, Errors) {
  OpTest r("MirrorPad");
  r.Attr("mode", "REFLECT");
  ExpectError(r.Run({Iota<float>({2}), T_<int32_t>({1, 2}, {2, 0})}),
              "REFLECT paddings");
  OpTest s("MirrorPad");
  s.Attr("mode", "SYMMETRIC");
  ExpectError(s.Run({Iota<float>({2}), T_<int32_t>({1, 2}, {0, 3})}),
              "SYMMETRIC paddings");
  OpTest bad("MirrorPad");
  bad.Attr("mode", "EDGE");
  EXPECT_FALSE(bad.Create(2).ok());
}

}  // namespace
}  // namespace graphrt::testing
