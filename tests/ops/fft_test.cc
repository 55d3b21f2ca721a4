#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

using C = std::complex<double>;

std::vector<C> NaiveDft(const std::vector<C>& x, bool inverse) {
  const size_t n = x.size();
  std::vector<C> out(n);
  for (size_t k = 0; k < n; ++k) {
    C s(0, 0);
    for (size_t j = 0; j < n; ++j) {
      const double a = (inverse ? 2 : -2) * M_PI * double(j * k % n) / n;
      s += x[j] * C(std::cos(a), std::sin(a));
    }
    out[k] = inverse ? s / double(n) : s;
  }
  return out;
}

absl::StatusOr<Tensor> Run1(const std::string& op, const Tensor& x) {
  OpTest t(op);
  auto out = t.Run({x});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

absl::StatusOr<Tensor> Run2(const std::string& op, const Tensor& x,
                            int32_t len) {
  OpTest t(op);
  auto out = t.Run({x, T_<int32_t>({1}, {len})});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(FftTest, FftMatchesNaiveForManyLengths) {
  for (int n : {1, 2, 3, 5, 8, 12, 16, 63, 64, 100, 128, 257}) {
    std::vector<complex64> xv(2 * n);
    std::vector<C> row0(n), row1(n);
    for (int i = 0; i < 2 * n; ++i) {
      xv[i] = complex64(std::sin(0.3f * i), std::cos(0.7f * i) - 0.2f);
      (i < n ? row0[i] : row1[i - n]) = C(xv[i]);
    }
    const Tensor x = T_<complex64>({2, n}, xv);
    for (bool inverse : {false, true}) {
      auto r = Run1(inverse ? "IFFT" : "FFT", x);
      ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_EQ(r->shape(), Shape({2, n}));
      auto w0 = NaiveDft(row0, inverse), w1 = NaiveDft(row1, inverse);
      const complex64* o = r->data<complex64>();
      const double tol = 1e-4 * std::max(1, n) / (inverse ? n : 1);
      for (int k = 0; k < n; ++k) {
        ASSERT_NEAR(o[k].real(), w0[k].real(), tol) << n << " " << k;
        ASSERT_NEAR(o[k].imag(), w0[k].imag(), tol) << n << " " << k;
        ASSERT_NEAR(o[n + k].real(), w1[k].real(), tol) << n << " " << k;
        ASSERT_NEAR(o[n + k].imag(), w1[k].imag(), tol) << n << " " << k;
      }
    }
  }
}

TEST(FftTest, RfftCropPadAndIrfftRoundTrip) {
  const Tensor x = T_<float>({1, 6}, {1, 2, 3, 4, 5, 6});
  for (int len : {6, 4, 8, 5}) {
    auto r = Run2("RFFT", x, len);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->shape(), Shape({1, len / 2 + 1}));
    EXPECT_EQ(r->dtype(), DType::kComplex64);
    std::vector<C> in(len);
    for (int i = 0; i < len; ++i) in[i] = i < 6 ? C(i + 1, 0) : C(0, 0);
    auto want = NaiveDft(in, false);
    for (int k = 0; k <= len / 2; ++k) {
      EXPECT_NEAR(r->data<complex64>()[k].real(), want[k].real(), 1e-4);
      EXPECT_NEAR(r->data<complex64>()[k].imag(), want[k].imag(), 1e-4);
    }
    auto back = Run2("IRFFT", *r, len);
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(back->shape(), Shape({1, len}));
    EXPECT_EQ(back->dtype(), DType::kFloat32);
    for (int i = 0; i < len; ++i) {
      EXPECT_NEAR(back->data<float>()[i], in[i].real(), 1e-4) << len;
    }
  }
}

TEST(FftTest, IrfftIgnoresDcImagAndPads) {
  // Spectrum [4+9i] with fft_length 4: only DC set, others padded to 0.
  auto r = Run2("IRFFT", T_<complex64>({1}, {complex64(4, 9)}), 4);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), (std::vector<float>{1, 1, 1, 1}));
}

TEST(FftTest, EmptyAndErrors) {
  auto e = Run1("FFT", T_<complex64>({0, 4}, {}));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->shape(), Shape({0, 4}));
  EXPECT_FALSE(Run1("FFT", T_<float>({2}, {1, 2})).ok());
  EXPECT_FALSE(Run1("FFT", Tensor::Scalar<complex64>(complex64(1, 0))).ok());
  EXPECT_FALSE(Run2("RFFT", T_<complex64>({2}, {1, 2}), 2).ok());
  EXPECT_FALSE(Run2("RFFT", T_<float>({2}, {1, 2}), -1).ok());
  OpTest t("RFFT");
  EXPECT_FALSE(t.Run({T_<float>({2}, {1, 2}), T_<int32_t>({2}, {2, 2})}).ok());
  OpTest t2("IRFFT");
  EXPECT_FALSE(t2.Create(1).ok());
}

}  // namespace
}  // namespace graphrt::testing
