// FakeQuantWithMinMaxVars (inputs, min, max), ...PerChannel (min/max of
// shape [last dim]) and FakeQuantWithMinMaxArgs (min/max attrs), float32,
// with TF's math (not TF.js's identity): quant range [narrow_range ? 1 :
// 0, 2^num_bits - 1]; scale = (max - min) / (qmax - qmin); the zero point
// qmin - min / scale is clamped to [qmin, qmax] and rounded, which nudges
// min/max so that 0 is exactly representable; then
//   out = floor((clamp(x, nmin, nmax) - nmin) * inv_scale + 0.5) * scale + nmin
// with inv_scale = (qmax - qmin) / (max - min).
// TF only debug-asserts min < max; here min >= max or non-finite bounds
// are an InvalidArgument error (they would give NaN / undefined zero points).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

struct Nudged {
  float min, max, scale, inv_scale;
};

absl::StatusOr<Nudged> Nudge(float min, float max, int qmin, int qmax) {
  if (!std::isfinite(min) || !std::isfinite(max) || !(min < max)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fake quantization needs finite min < max, got min ", min, ", max ",
        max));
  }
  const float qminf = static_cast<float>(qmin);
  const float qmaxf = static_cast<float>(qmax);
  Nudged n;
  n.scale = (max - min) / (qmaxf - qminf);
  n.inv_scale = (qmaxf - qminf) / (max - min);
  const float zp_from_min = qminf - min / n.scale;
  float zp;
  if (!(zp_from_min >= qminf)) {  // also NaN
    zp = qminf;
  } else if (zp_from_min > qmaxf) {
    zp = qmaxf;
  } else {
    zp = std::round(zp_from_min);
  }
  n.min = (qminf - zp) * n.scale;
  n.max = (qmaxf - zp) * n.scale;
  return n;
}

// Quantizes x[i * stride + offset] for i in [0, count) ... generic over a
// contiguous range with one nudged range.
inline void Quantize(const float* x, float* out, int64_t n, const Nudged& q) {
  for (int64_t i = 0; i < n; ++i) {
    const float c = std::min(std::max(x[i], q.min), q.max) - q.min;
    out[i] = std::floor(c * q.inv_scale + 0.5f) * q.scale + q.min;
  }
}

struct QuantAttrs {
  int qmin = 0, qmax = 255;
};

absl::StatusOr<QuantAttrs> ReadQuantAttrs(const AttrReader& attrs) {
  GRAPHRT_ASSIGN_OR_RETURN(int64_t bits, attrs.GetInt("num_bits", 8));
  GRAPHRT_ASSIGN_OR_RETURN(bool narrow, attrs.GetBool("narrow_range", false));
  if (bits < 2 || bits > 16) {
    return attrs.Error("num_bits",
                       absl::StrCat("must be in [2, 16], got ", bits));
  }
  QuantAttrs q;
  q.qmin = narrow ? 1 : 0;
  q.qmax = (1 << bits) - 1;
  return q;
}

absl::Status CheckFloatInput(const Tensor& t, absl::string_view what) {
  return ops::CheckDType(t, DType::kFloat32, what);
}

class FakeQuantKernel : public Kernel {
 public:
  // kind: 0 = Vars, 1 = VarsPerChannel, 2 = Args.
  FakeQuantKernel(QuantAttrs q, int kind, float min, float max)
      : q_(q), kind_(kind), min_(min), max_(max) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, kind_ == 2 ? 1 : 3));
    const Tensor& x = ctx.input(0);
    GRAPHRT_RETURN_IF_ERROR(CheckFloatInput(x, "inputs"));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), x.shape()));
    const float* in = x.data<float>();
    float* o = out->mutable_data<float>();
    const int64_t n = x.num_elements();
    if (kind_ != 1) {
      float lo = min_, hi = max_;
      if (kind_ == 0) {
        for (int i = 1; i <= 2; ++i) {
          GRAPHRT_RETURN_IF_ERROR(
              CheckFloatInput(ctx.input(i), i == 1 ? "min" : "max"));
          if (ctx.input(i).rank() != 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                i == 1 ? "min" : "max", " must be a scalar, got ",
                ctx.input(i).DebugString()));
          }
        }
        lo = *ctx.input(1).data<float>();
        hi = *ctx.input(2).data<float>();
      }
      GRAPHRT_ASSIGN_OR_RETURN(Nudged q, Nudge(lo, hi, q_.qmin, q_.qmax));
      ops::ParallelFor(n, ops::kParallelMinElements,
                       [&](int64_t b, int64_t e) {
                         Quantize(in + b, o + b, e - b, q);
                       });
      return absl::OkStatus();
    }
    // Per channel over the last dim.
    if (x.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inputs must be at least 1-D, got ", x.DebugString()));
    }
    const int64_t d = x.dim(x.rank() - 1);
    for (int i = 1; i <= 2; ++i) {
      const Tensor& t = ctx.input(i);
      GRAPHRT_RETURN_IF_ERROR(CheckFloatInput(t, i == 1 ? "min" : "max"));
      if (t.rank() != 1 || t.dim(0) != d) {
        return absl::InvalidArgumentError(absl::StrCat(
            i == 1 ? "min" : "max", " must be a vector of ", d,
            " elements (the last dim of inputs ", x.DebugString(), "), got ",
            t.DebugString()));
      }
    }
    std::vector<Nudged> qs(d);
    for (int64_t c = 0; c < d; ++c) {
      GRAPHRT_ASSIGN_OR_RETURN(
          qs[c], Nudge(ctx.input(1).data<float>()[c],
                       ctx.input(2).data<float>()[c], q_.qmin, q_.qmax));
    }
    if (n == 0) return absl::OkStatus();
    const int64_t rows = n / d;
    ops::ParallelFor(rows, std::max<int64_t>(1, ops::kParallelMinElements / d),
                     [&](int64_t b, int64_t e) {
                       for (int64_t r = b; r < e; ++r) {
                         for (int64_t c = 0; c < d; ++c) {
                           Quantize(in + r * d + c, o + r * d + c, 1, qs[c]);
                         }
                       }
                     });
    return absl::OkStatus();
  }

 private:
  QuantAttrs q_;
  int kind_;
  float min_, max_;
};

template <int kKind>
absl::StatusOr<std::unique_ptr<Kernel>> CreateFakeQuant(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(QuantAttrs q, ReadQuantAttrs(attrs));
  float min = 0, max = 0;
  if (kKind == 2) {
    GRAPHRT_ASSIGN_OR_RETURN(min, attrs.GetFloat("min", -6.0f));
    GRAPHRT_ASSIGN_OR_RETURN(max, attrs.GetFloat("max", 6.0f));
    if (!(min < max)) {
      return attrs.Error("min", absl::StrCat("must be < max (", max,
                                             "), got ", min));
    }
  }
  return std::unique_ptr<Kernel>(new FakeQuantKernel(q, kKind, min, max));
}

}  // namespace

void RegisterFakeQuant(OpRegistry& r) {
  r.Register("FakeQuantWithMinMaxVars", CreateFakeQuant<0>);
  r.Register("FakeQuantWithMinMaxVarsPerChannel", CreateFakeQuant<1>);
  r.Register("FakeQuantWithMinMaxArgs", CreateFakeQuant<2>);
}

}  // namespace graphrt
