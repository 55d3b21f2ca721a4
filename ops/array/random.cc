// Random ops: RandomUniform, RandomUniformInt, RandomStandardNormal,
// TruncatedNormal (shape input) and Multinomial (logits, num_samples).
//
// The values do NOT match TensorFlow's (TF uses Philox with its own
// stream layout); only the distributions and seeding behaviour do:
// * seed == seed2 == 0: a fresh random key per kernel (nondeterministic);
//   otherwise the key is derived from (seed, seed2), so the same graph
//   gives the same sequence of values run after run.
// * Like TF's stateful ops, every Run draws new values: the kernel counts
//   its runs and mixes the count into the key.
// Element i of a run is a pure function of (key, run, i) (a splitmix64
// hash), so work splits over threads without changing results.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// 64 random bits for stream position i under `key`.
inline uint64_t Bits(uint64_t key, uint64_t i) { return Mix(key ^ Mix(i)); }

// Uniform in [0, 1) with 24 (float) / 53 (double) random bits.
inline double Uniform01(uint64_t key, uint64_t i) {
  return static_cast<double>(Bits(key, i) >> 11) * 0x1.0p-53;
}
inline float Uniform01f(uint64_t key, uint64_t i) {
  return static_cast<float>(Bits(key, i) >> 40) * 0x1.0p-24f;
}

// Standard normal via Box-Muller from positions 2i and 2i+1.
inline double Normal(uint64_t key, uint64_t i) {
  const double u1 = 1.0 - Uniform01(key, 2 * i);  // (0, 1]
  const double u2 = Uniform01(key, 2 * i + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// Shared seeding and run counting.
class RandomKernel : public Kernel {
 public:
  RandomKernel(int64_t seed, int64_t seed2) {
    if (seed == 0 && seed2 == 0) {
      // Nondeterministic: clock, kernel address and a process counter
      // (std::random_device may throw, so it is not used).
      static std::atomic<uint64_t> kernels{0};
      base_ =
          Mix(static_cast<uint64_t>(std::chrono::high_resolution_clock::now()
                                        .time_since_epoch()
                                        .count()) ^
              Mix(reinterpret_cast<uintptr_t>(this)) ^
              Mix(kernels.fetch_add(1) + 0x5eed));
    } else {
      base_ =
          Mix(Mix(static_cast<uint64_t>(seed)) ^ static_cast<uint64_t>(seed2));
    }
  }

 protected:
  // A fresh key for this run.
  uint64_t NextKey() const { return Mix(base_ ^ Mix(runs_.fetch_add(1))); }

 private:
  uint64_t base_;
  mutable std::atomic<uint64_t> runs_{0};
};

absl::StatusOr<Shape> ReadShapeInput(const Tensor& t) {
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected shape to be a vector, got ", t.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector dims, ops::ReadIntVector(t, "shape"));
  auto s = Shape::Make(dims);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid shape [", absl::StrJoin(dims, ","),
                     "]: ", s.status().message()));
  }
  return *s;
}

enum class Dist { kUniform, kNormal, kTruncated };

class FloatRandomKernel : public RandomKernel {
 public:
  FloatRandomKernel(int64_t seed, int64_t seed2, DType dtype, Dist dist)
      : RandomKernel(seed, seed2), dtype_(dtype), dist_(dist) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, ReadShapeInput(ctx.input(0)));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, dtype_, shape));
    const uint64_t key = NextKey();
    return ops::DispatchDType<float, double, float16, bfloat16>(
        dtype_, "random op", [&](auto tag) {
          using T = typename decltype(tag)::type;
          T* o = out->mutable_data<T>();
          ops::ParallelFor(out->num_elements(), 1 << 14,
                           [&](int64_t b, int64_t e) {
                             for (int64_t i = b; i < e; ++i)
                               o[i] = Sample<T>(key, i);
                           });
          return absl::OkStatus();
        });
  }

 private:
  template <typename T>
  T Sample(uint64_t key, int64_t i) const {
    const uint64_t u = static_cast<uint64_t>(i);
    switch (dist_) {
      case Dist::kUniform:
        if constexpr (std::is_same_v<T, double>) {
          return Uniform01(key, u);
        } else {
          // Round-down so that low-precision dtypes stay below 1.
          T v = T(Uniform01f(key, u));
          return static_cast<float>(v) >= 1.0f ? T(0) : v;
        }
      case Dist::kNormal:
        return T(Normal(key, u));
      case Dist::kTruncated:
      default: {
        // Redraw (sub-stream `attempt`) until within 2 standard deviations
        // (each draw succeeds with p ~ 0.95; the cap only bounds the loop).
        for (uint64_t attempt = 0; attempt < 1000; ++attempt) {
          const double v = Normal(Mix(key ^ attempt), u);
          if (std::abs(v) <= 2.0) return T(v);
        }
        return T(0);
      }
    }
  }

  DType dtype_;
  Dist dist_;
};

template <Dist dist>
absl::StatusOr<std::unique_ptr<Kernel>> CreateFloatRandom(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t seed, attrs.GetInt("seed", 0));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t seed2, attrs.GetInt("seed2", 0));
  GRAPHRT_ASSIGN_OR_RETURN(DType dtype,
                           attrs.GetType("dtype", DType::kFloat32));
  if (!ops::IsOneOf<float, double, float16, bfloat16>(dtype)) {
    return attrs.Error(
        "dtype", absl::StrCat("must be a float type, got ", DTypeName(dtype)));
  }
  return std::unique_ptr<Kernel>(
      new FloatRandomKernel(seed, seed2, dtype, dist));
}

// ------------------------------------------------------ RandomUniformInt

class RandomUniformIntKernel : public RandomKernel {
 public:
  using RandomKernel::RandomKernel;

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, ReadShapeInput(ctx.input(0)));
    const Tensor& lo_t = ctx.input(1);
    const Tensor& hi_t = ctx.input(2);
    if (lo_t.rank() != 0 || hi_t.rank() != 0 || lo_t.dtype() != hi_t.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected minval and maxval to be scalars of one dtype, got ",
          lo_t.DebugString(), " and ", hi_t.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int64_t lo, ops::ReadIntScalar(lo_t, "minval"));
    GRAPHRT_ASSIGN_OR_RETURN(int64_t hi, ops::ReadIntScalar(hi_t, "maxval"));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, lo_t.dtype(), shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    if (lo >= hi) {
      return absl::InvalidArgumentError(
          absl::StrCat("need minval < maxval, got ", lo, " >= ", hi));
    }
    const uint64_t range =
        static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    const uint64_t key = NextKey();
    const bool is32 = lo_t.dtype() == DType::kInt32;
    void* o = out->raw_data();
    ops::ParallelFor(out->num_elements(), 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        // 128-bit multiply-shift: unbiased enough for any range < 2^64.
        const unsigned __int128 m =
            static_cast<unsigned __int128>(Bits(key, i)) * range;
        const uint64_t v =
            static_cast<uint64_t>(lo) + static_cast<uint64_t>(m >> 64);
        if (is32) {
          static_cast<int32_t*>(o)[i] = static_cast<int32_t>(v);
        } else {
          static_cast<int64_t*>(o)[i] = static_cast<int64_t>(v);
        }
      }
    });
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateRandomUniformInt(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t seed, attrs.GetInt("seed", 0));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t seed2, attrs.GetInt("seed2", 0));
  return std::unique_ptr<Kernel>(new RandomUniformIntKernel(seed, seed2));
}

// ----------------------------------------------------------- Multinomial

class MultinomialKernel : public RandomKernel {
 public:
  MultinomialKernel(int64_t seed, int64_t seed2, DType out_type)
      : RandomKernel(seed, seed2), out_type_(out_type) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& logits = ctx.input(0);
    if (logits.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected logits to be 2-D [batch, classes], got ",
                       logits.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int64_t num_samples,
                             ops::ReadIntScalar(ctx.input(1), "num_samples"));
    if (num_samples < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "num_samples should be non-negative, got ", num_samples));
    }
    const int64_t batch = logits.dim(0);
    const int64_t classes = logits.dim(1);
    if (classes <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "num_classes should be positive, got ", logits.DebugString()));
    }
    if (out_type_ == DType::kInt32 && classes > INT32_MAX) {
      return absl::InvalidArgumentError("num_classes does not fit in int32");
    }
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make({batch, num_samples}));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, out_type_, shape));
    const uint64_t key = NextKey();
    return ops::DispatchDType<float, double>(
        logits.dtype(), "Multinomial", [&](auto tag) {
          using T = typename decltype(tag)::type;
          const T* l = logits.data<T>();
          std::vector<double> cdf(classes);
          for (int64_t b = 0; b < batch; ++b) {
            const T* row = l + b * classes;
            // Non-finite logits get probability 0, as in TF's CPU kernel.
            double mx = -INFINITY;
            for (int64_t j = 0; j < classes; ++j) {
              if (std::isfinite(row[j])) mx = std::max<double>(mx, row[j]);
            }
            double total = 0;
            for (int64_t j = 0; j < classes; ++j) {
              if (std::isfinite(row[j])) total += std::exp(row[j] - mx);
              cdf[j] = total;
            }
            for (int64_t s = 0; s < num_samples; ++s) {
              const uint64_t pos = static_cast<uint64_t>(b * num_samples + s);
              const double u = Uniform01(key, pos) * total;
              int64_t k =
                  std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
              if (k >= classes) k = classes - 1;
              if (out_type_ == DType::kInt32) {
                out->mutable_data<int32_t>()[pos] = static_cast<int32_t>(k);
              } else {
                out->mutable_data<int64_t>()[pos] = k;
              }
            }
          }
          return absl::OkStatus();
        });
  }

 private:
  DType out_type_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateMultinomial(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t seed, attrs.GetInt("seed", 0));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t seed2, attrs.GetInt("seed2", 0));
  GRAPHRT_ASSIGN_OR_RETURN(DType out,
                           attrs.GetType("output_dtype", DType::kInt64));
  if (out != DType::kInt32 && out != DType::kInt64) {
    return attrs.Error(
        "output_dtype",
        absl::StrCat("must be int32 or int64, got ", DTypeName(out)));
  }
  return std::unique_ptr<Kernel>(new MultinomialKernel(seed, seed2, out));
}

}  // namespace

void RegisterRandom(OpRegistry& r) {
  r.Register("RandomUniform", CreateFloatRandom<Dist::kUniform>);
  r.Register("RandomStandardNormal", CreateFloatRandom<Dist::kNormal>);
  r.Register("TruncatedNormal", CreateFloatRandom<Dist::kTruncated>);
  r.Register("RandomUniformInt", CreateRandomUniformInt);
  r.Register("Multinomial", CreateMultinomial);
}

}  // namespace graphrt
