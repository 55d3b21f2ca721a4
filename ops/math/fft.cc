// 1-D discrete Fourier transforms over the innermost dimension:
//   FFT, IFFT    complex64/complex128 -> same; IFFT scales by 1/n
//   RFFT         float32/float64 x, int32 fft_length [1] -> complex
//                [..., fft_length / 2 + 1]; x's inner dim is cropped or
//                zero-padded to fft_length
//   IRFFT        complex x, fft_length [1] -> real [..., fft_length]; uses
//                the first fft_length / 2 + 1 inner values (zero-padded),
//                assumes Hermitian symmetry (imaginary parts of the DC and
//                Nyquist terms are ignored), scales by 1/fft_length
// All arithmetic is in complex<double>. Power-of-two lengths use an
// iterative radix-2 FFT, other lengths a direct DFT (n <= 64) or
// Bluestein's algorithm, so every length is O(n log n). Lengths above 2^22
// are rejected. Rows are split over oneTBB.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using C = std::complex<double>;

// Largest transform length accepted (keeps tables and scratch bounded).
constexpr int64_t kMaxFftLength = int64_t{1} << 22;

// Iterative radix-2 FFT of a power-of-two length (unscaled).
class Radix2 {
 public:
  Radix2(int64_t n, bool inverse) : n_(n) {
    const double sign = inverse ? 1.0 : -1.0;
    twiddle_.resize(static_cast<size_t>(n / 2 + 1));
    for (int64_t k = 0; k <= n / 2; ++k) {
      const double a =
          sign * 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      twiddle_[k] = C(std::cos(a), std::sin(a));
    }
    rev_.resize(static_cast<size_t>(n));
    int bits = 0;
    while ((int64_t{1} << bits) < n) ++bits;
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
      rev_[i] = r;
    }
  }

  // In place; `tmp` has n elements.
  void Run(C* data, C* tmp) const {
    const int64_t n = n_;
    for (int64_t i = 0; i < n; ++i) tmp[rev_[i]] = data[i];
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t half = len >> 1;
      const int64_t step = n / len;
      for (int64_t s = 0; s < n; s += len) {
        for (int64_t j = 0; j < half; ++j) {
          const C u = tmp[s + j];
          const C v = tmp[s + j + half] * twiddle_[j * step];
          tmp[s + j] = u + v;
          tmp[s + j + half] = u - v;
        }
      }
    }
    for (int64_t i = 0; i < n; ++i) data[i] = tmp[i];
  }

 private:
  int64_t n_;
  std::vector<C> twiddle_;
  std::vector<int64_t> rev_;
};

// A transform of one length and direction (unscaled); Run is const, so
// one plan serves all threads. Power-of-two lengths: radix-2. Small other
// lengths: direct O(n^2) DFT. Larger other lengths: Bluestein's chirp-z
// algorithm on a power-of-two radix-2 transform of size >= 2n - 1.
class FftPlan {
 public:
  FftPlan(int64_t n, bool inverse) : n_(n) {
    const double sign = inverse ? 1.0 : -1.0;
    if (n <= 1) {
      mode_ = Mode::kTrivial;
    } else if ((n & (n - 1)) == 0) {
      mode_ = Mode::kRadix2;
      fwd_ = std::make_unique<Radix2>(n, inverse);
    } else if (n <= 64) {
      mode_ = Mode::kDft;
      table_.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) {
        const double a =
            sign * 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
        table_[k] = C(std::cos(a), std::sin(a));
      }
    } else {
      mode_ = Mode::kBluestein;
      m_ = 1;
      while (m_ < 2 * n - 1) m_ <<= 1;
      // chirp[k] = exp(sign * i * pi * k^2 / n), k^2 taken mod 2n.
      table_.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) {
        const int64_t k2 = (k * k) % (2 * n);
        const double a =
            sign * M_PI * static_cast<double>(k2) / static_cast<double>(n);
        table_[k] = C(std::cos(a), std::sin(a));
      }
      fwd_ = std::make_unique<Radix2>(m_, false);
      inv_ = std::make_unique<Radix2>(m_, true);
      bfft_.assign(static_cast<size_t>(m_), C(0, 0));
      bfft_[0] = std::conj(table_[0]);
      for (int64_t k = 1; k < n; ++k) {
        bfft_[k] = bfft_[m_ - k] = std::conj(table_[k]);
      }
      std::vector<C> tmp(static_cast<size_t>(m_));
      fwd_->Run(bfft_.data(), tmp.data());
    }
  }

  // Scratch elements Run needs.
  int64_t scratch_size() const {
    return mode_ == Mode::kBluestein ? 2 * m_ : n_;
  }

  // Transforms data[0..n) in place.
  void Run(C* data, C* scratch) const {
    const int64_t n = n_;
    switch (mode_) {
      case Mode::kTrivial:
        return;
      case Mode::kRadix2:
        fwd_->Run(data, scratch);
        return;
      case Mode::kDft:
        for (int64_t k = 0; k < n; ++k) {
          C sum(0, 0);
          int64_t idx = 0;  // (j * k) mod n
          for (int64_t j = 0; j < n; ++j) {
            sum += data[j] * table_[idx];
            idx += k;
            if (idx >= n) idx -= n;
          }
          scratch[k] = sum;
        }
        for (int64_t i = 0; i < n; ++i) data[i] = scratch[i];
        return;
      case Mode::kBluestein: {
        C* a = scratch;
        C* tmp = scratch + m_;
        for (int64_t k = 0; k < m_; ++k) {
          a[k] = k < n ? data[k] * table_[k] : C(0, 0);
        }
        fwd_->Run(a, tmp);
        for (int64_t k = 0; k < m_; ++k) a[k] *= bfft_[k];
        inv_->Run(a, tmp);
        const double inv_m = 1.0 / static_cast<double>(m_);
        for (int64_t k = 0; k < n; ++k) data[k] = a[k] * inv_m * table_[k];
        return;
      }
    }
  }

 private:
  enum class Mode { kTrivial, kRadix2, kDft, kBluestein };
  int64_t n_;
  int64_t m_ = 0;
  Mode mode_ = Mode::kTrivial;
  std::vector<C> table_;  // DFT twiddles or Bluestein chirp
  std::vector<C> bfft_;   // FFT of the Bluestein filter
  std::unique_ptr<Radix2> fwd_, inv_;
};

enum class Fft { kFft, kIfft, kRfft, kIrfft };

bool IsComplex(DType d) {
  return d == DType::kComplex64 || d == DType::kComplex128;
}
bool IsReal(DType d) { return d == DType::kFloat32 || d == DType::kFloat64; }

// Runs f(begin_row, end_row) over `rows` rows of cost ~ n log n each.
template <typename F>
void ForRows(int64_t rows, int64_t n, const F& f) {
  const int64_t cost = std::max<int64_t>(n, 1) * 8;
  const int64_t min_rows =
      std::max<int64_t>(2, ops::kParallelMinElements / cost);
  ops::ParallelFor(rows, min_rows, f);
}

class FftKernel : public Kernel {
 public:
  explicit FftKernel(Fft kind) : kind_(kind) {}

  absl::Status Run(KernelContext& ctx) const override {
    const bool real_io = kind_ == Fft::kRfft || kind_ == Fft::kIrfft;
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, real_io ? 2 : 1));
    const Tensor& x = ctx.input(0);
    const char* name = kind_ == Fft::kFft    ? "FFT"
                       : kind_ == Fft::kIfft ? "IFFT"
                       : kind_ == Fft::kRfft ? "RFFT"
                                             : "IRFFT";
    const bool want_real_in = kind_ == Fft::kRfft;
    if (want_real_in ? !IsReal(x.dtype()) : !IsComplex(x.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " expects a ",
          want_real_in ? "float32 or float64" : "complex64 or complex128",
          " input, got ", x.DebugString()));
    }
    if (x.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " expects an input of rank >= 1, got ", x.DebugString()));
    }
    const int64_t inner = x.dim(x.rank() - 1);
    int64_t n = inner;  // transform length
    if (real_io) {
      const Tensor& fl = ctx.input(1);
      if (fl.dtype() != DType::kInt32 || fl.rank() != 1 || fl.dim(0) != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected fft_length to be int32[1], got ", fl.DebugString()));
      }
      n = *fl.data<int32_t>();
      if (n < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("fft_length must be non-negative, got ", n));
      }
    }
    if (n > kMaxFftLength) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": transform length ", n,
                       " exceeds the supported maximum ", kMaxFftLength));
    }
    Shape out_shape = x.shape();
    DType out_dtype = x.dtype();
    int64_t out_inner = n;
    if (kind_ == Fft::kRfft) {
      out_inner = n == 0 ? 0 : n / 2 + 1;
      out_dtype =
          x.dtype() == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
    } else if (kind_ == Fft::kIrfft) {
      out_dtype =
          x.dtype() == DType::kComplex128 ? DType::kFloat64 : DType::kFloat32;
    }
    out_shape.set_dim(x.rank() - 1, out_inner);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, out_dtype, out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    const int64_t rows = ops::DimProduct(x.shape(), 0, x.rank() - 1);
    const bool inverse = kind_ == Fft::kIfft || kind_ == Fft::kIrfft;
    const FftPlan plan(n, inverse);
    const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    const DType real_dtype =
        (x.dtype() == DType::kFloat64 || x.dtype() == DType::kComplex128)
            ? DType::kFloat64
            : DType::kFloat32;
    return ops::DispatchDType<float, double>(real_dtype, name, [&](auto tag) {
      using R = typename decltype(tag)::type;
      using Cx = std::complex<R>;
      ForRows(rows, n, [&](int64_t begin, int64_t end) {
        std::vector<C> buf(static_cast<size_t>(n));
        std::vector<C> tmp(static_cast<size_t>(plan.scratch_size()));
        for (int64_t r = begin; r < end; ++r) {
          // Load.
          if (kind_ == Fft::kRfft) {
            const R* in = x.data<R>() + r * inner;
            for (int64_t j = 0; j < n; ++j) {
              buf[j] = j < inner ? C(in[j], 0.0) : C(0, 0);
            }
          } else if (kind_ == Fft::kIrfft) {
            const Cx* in = x.data<Cx>() + r * inner;
            const int64_t half = n / 2 + 1;
            for (int64_t k = 0; k < half && k < n; ++k) {
              buf[k] = k < inner ? C(in[k]) : C(0, 0);
            }
            for (int64_t k = half; k < n; ++k) buf[k] = std::conj(buf[n - k]);
          } else {
            const Cx* in = x.data<Cx>() + r * inner;
            for (int64_t j = 0; j < n; ++j) buf[j] = C(in[j]);
          }
          plan.Run(buf.data(), tmp.data());
          // Store.
          if (kind_ == Fft::kIrfft) {
            R* o = out->mutable_data<R>() + r * n;
            for (int64_t j = 0; j < n; ++j) {
              o[j] = static_cast<R>(buf[j].real() * scale);
            }
          } else {
            Cx* o = out->mutable_data<Cx>() + r * out_inner;
            for (int64_t j = 0; j < out_inner; ++j) {
              o[j] = Cx(static_cast<R>(buf[j].real() * scale),
                        static_cast<R>(buf[j].imag() * scale));
            }
          }
        }
      });
      return absl::OkStatus();
    });
  }

 private:
  Fft kind_;
};

template <Fft kKind>
absl::StatusOr<std::unique_ptr<Kernel>> CreateFft(const KernelInit& init) {
  AttrReader attrs(init.node);
  const bool real_io = kKind == Fft::kRfft || kKind == Fft::kIrfft;
  GRAPHRT_ASSIGN_OR_RETURN(DType tc,
                           attrs.GetType("Tcomplex", DType::kComplex64));
  if (!IsComplex(tc)) {
    return attrs.Error("Tcomplex", absl::StrCat("must be complex64 or "
                                                "complex128, got ",
                                                DTypeName(tc)));
  }
  if (real_io) {
    GRAPHRT_ASSIGN_OR_RETURN(DType tr, attrs.GetType("Treal", DType::kFloat32));
    if (!IsReal(tr)) {
      return attrs.Error("Treal", absl::StrCat("must be float32 or float64, "
                                               "got ",
                                               DTypeName(tr)));
    }
  }
  const int want = real_io ? 2 : 1;
  if (init.num_inputs != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(), "' needs ", want,
                     " input(s), has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new FftKernel(kKind));
}

}  // namespace

void RegisterFft(OpRegistry& r) {
  r.Register("FFT", CreateFft<Fft::kFft>);
  r.Register("IFFT", CreateFft<Fft::kIfft>);
  r.Register("RFFT", CreateFft<Fft::kRfft>);
  r.Register("IRFFT", CreateFft<Fft::kIrfft>);
}

}  // namespace graphrt
