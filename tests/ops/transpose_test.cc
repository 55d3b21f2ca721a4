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

[[maybe_unused]] Tensor Bools(const std::vector<int64_t>& shape,
                              const std::vector<int>& v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i] != 0;
  return t;
}

Tensor Transpose(const Tensor& x, const Tensor& perm) {
  OpTest t("Transpose");
  t.Attr("T", x.dtype()).Attr("Tperm", perm.dtype());
  return RunOne(t, {x, perm});
}

// Naive reference for float tensors.
std::vector<float> NaiveTranspose(const Tensor& x,
                                  const std::vector<int>& perm) {
  const int rank = x.rank();
  std::vector<int64_t> in_strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) {
    in_strides[i] = in_strides[i + 1] * x.dim(i + 1);
  }
  std::vector<int64_t> out_dims(rank);
  for (int i = 0; i < rank; ++i) out_dims[i] = x.dim(perm[i]);
  std::vector<float> out(x.num_elements());
  std::vector<int64_t> idx(rank, 0);
  for (int64_t o = 0; o < x.num_elements(); ++o) {
    int64_t rem = o, src = 0;
    for (int i = rank - 1; i >= 0; --i) {
      src += (rem % out_dims[i]) * in_strides[perm[i]];
      rem /= out_dims[i];
    }
    out[o] = x.data<float>()[src];
  }
  return out;
}

TEST(TransposeTest, TwoD) {
  Tensor out = Transpose(Iota<float>({2, 3}), I32({1, 0}));
  EXPECT_EQ(out.shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TransposeTest, FourDPermsMatchNaive) {
  const std::vector<std::vector<int>> perms = {{0, 3, 1, 2}, {0, 2, 3, 1},
                                               {3, 2, 1, 0}, {1, 0, 2, 3},
                                               {0, 1, 2, 3}, {2, 0, 3, 1}};
  for (const auto& shape : std::vector<std::vector<int64_t>>{
           {2, 3, 4, 5}, {1, 64, 64, 32}, {2, 9, 17, 40}}) {
    const Tensor x = Iota<float>(shape);
    for (const auto& p : perms) {
      Tensor out = Transpose(x, I64(std::vector<int64_t>(p.begin(), p.end())));
      for (int i = 0; i < 4; ++i) EXPECT_EQ(out.dim(i), shape[p[i]]);
      EXPECT_EQ(Values<float>(out), NaiveTranspose(x, p))
          << "perm " << p[0] << p[1] << p[2] << p[3];
    }
  }
}

// Two to four planes interleaved (NCHW RGB images to NHWC, [k, n] -> [n,
// k]) take their own path: every element size, batches, and plane lengths
// that are not a multiple of its chunks.
TEST(TransposeTest, FewPlanesInterleaveLikeNaive) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{
           {1, 3, 37, 41}, {2, 4, 65, 67}, {2, 2, 3, 1500}, {1, 3, 70, 70}}) {
    const Tensor x = Iota<float>(shape);
    Tensor out = Transpose(x, I32({0, 2, 3, 1}));
    EXPECT_EQ(Values<float>(out), NaiveTranspose(x, {0, 2, 3, 1}))
        << shape[1] << " planes of " << shape[2] << "x" << shape[3];
  }
  const Tensor x = Iota<float>({3, 5000});
  EXPECT_EQ(Values<float>(Transpose(x, I32({1, 0}))),
            NaiveTranspose(x, {1, 0}));
  Tensor bytes = *Tensor::Allocate(DType::kUInt8, Shape({1, 3, 9, 10}));
  Tensor wide = *Tensor::Allocate(DType::kInt64, Shape({1, 3, 9, 10}));
  for (int64_t i = 0; i < 270; ++i) {
    bytes.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(i);
    wide.mutable_data<int64_t>()[i] = i << 33;
  }
  const Tensor b = Transpose(bytes, I32({0, 2, 3, 1}));
  const Tensor w = Transpose(wide, I32({0, 2, 3, 1}));
  for (int64_t p = 0; p < 90; ++p) {
    for (int64_t c = 0; c < 3; ++c) {
      EXPECT_EQ(b.data<uint8_t>()[p * 3 + c], static_cast<uint8_t>(c * 90 + p));
      EXPECT_EQ(w.data<int64_t>()[p * 3 + c], (c * 90 + p) << 33);
    }
  }
}

TEST(TransposeTest, StringsEmptyScalar) {
  Tensor s = Transpose(Strs({2, 2}, {"a", "b", "c", "d"}), I32({1, 0}));
  EXPECT_EQ(Values<std::string>(s),
            (std::vector<std::string>{"a", "c", "b", "d"}));
  Tensor e = Transpose(Iota<float>({0, 3}), I32({1, 0}));
  EXPECT_EQ(e.shape(), Shape({3, 0}));
  Tensor sc = Transpose(Tensor::Scalar<int32_t>(5), I32({}));
  EXPECT_EQ(Values<int32_t>(sc), (std::vector<int32_t>{5}));
  Tensor b = Transpose(Bools({1, 2}, {1, 0}), I32({1, 0}));
  EXPECT_EQ(b.shape(), Shape({2, 1}));
}

TEST(TransposeTest, Errors) {
  OpTest t("Transpose");
  ExpectError(t.Run({Iota<float>({2, 3}), I32({0, 0})}), "twice");
  OpTest t2("Transpose");
  ExpectError(t2.Run({Iota<float>({2, 3}), I32({0, 2})}), "out of range");
  OpTest t3("Transpose");
  ExpectError(t3.Run({Iota<float>({2, 3}), I32({0})}), "size 2");
  OpTest t4("Transpose");
  ExpectError(t4.Run({Iota<float>({2, 3}), I32({-1, 0})}), "out of range");
}

}  // namespace
}  // namespace graphrt::testing
