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


TEST(SplitTest, EvenSplit) {
  OpTest t("Split");
  t.Attr("num_split", int64_t{2});
  auto r = t.Run({Tensor::Scalar<int32_t>(1), Iota<float>({2, 4})});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{0, 1, 4, 5}));
  EXPECT_EQ(Values<float>((*r)[1]), (std::vector<float>{2, 3, 6, 7}));
  OpTest t2("Split");
  t2.Attr("num_split", int64_t{3});
  auto r2 = t2.Run({Tensor::Scalar<int64_t>(-2),
                    Strs({3, 1}, {"a", "b", "c"})});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(Values<std::string>((*r2)[2]), (std::vector<std::string>{"c"}));
}

TEST(SplitTest, Errors) {
  OpTest t("Split");
  t.Attr("num_split", int64_t{3});
  ExpectError(t.Run({Tensor::Scalar<int32_t>(1), Iota<float>({2, 4})}),
              "evenly divide");
  OpTest t2("Split");
  t2.Attr("num_split", int64_t{2});
  ExpectError(t2.Run({Tensor::Scalar<int32_t>(2), Iota<float>({2, 4})}),
              "axis");
  OpTest t3("Split");
  EXPECT_FALSE(t3.Create(2).ok());  // num_split missing
}

TEST(SplitVTest, SizesWithMinusOne) {
  OpTest t("SplitV");
  t.Attr("num_split", int64_t{3});
  auto r = t.Run({Iota<int32_t>({6, 2}), I32({1, -1, 2}),
                  Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({1, 2}));
  EXPECT_EQ((*r)[1].shape(), Shape({3, 2}));
  EXPECT_EQ((*r)[2].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int32_t>((*r)[2]), (std::vector<int32_t>{8, 9, 10, 11}));
  // Zero-size part.
  OpTest t2("SplitV");
  t2.Attr("num_split", int64_t{2});
  auto r2 = t2.Run({Iota<int32_t>({3}), I64({0, 3}),
                    Tensor::Scalar<int32_t>(-1)});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ((*r2)[0].shape(), Shape({0}));
  EXPECT_EQ(Values<int32_t>((*r2)[1]), (std::vector<int32_t>{0, 1, 2}));
}

TEST(SplitVTest, Errors) {
  auto run = [](const Tensor& sizes, int64_t n) {
    OpTest t("SplitV");
    t.Attr("num_split", n);
    return t.Run({Iota<int32_t>({6}), sizes, Tensor::Scalar<int32_t>(0)});
  };
  ExpectError(run(I32({-1, -1}), 2), "only be one -1");
  ExpectError(run(I32({2, 2}), 2), "must sum");
  ExpectError(run(I32({4, 4, -1}), 3), "non-negative and sum");
  ExpectError(run(I32({3, 3}), 3), "num_split = 3");
  ExpectError(run(I32({-2, 8}), 2), "non-negative");
}

}  // namespace
}  // namespace graphrt::testing
