// Complex-number ops (complex64 <-> float32, complex128 <-> float64):
//   Complex(real, imag)  builds complex numbers, broadcasting real/imag;
//                        attr Tout (default complex64) must match T
//   Real, Imag, ComplexAbs (|z|, hypot-based), Angle (atan2(imag, real))
//                        complex -> real; attr Tout must match the input
//   Conj                 complex conjugate
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/broadcast.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

DType RealOf(DType complex) {
  return complex == DType::kComplex128 ? DType::kFloat64 : DType::kFloat32;
}
DType ComplexOf(DType real) {
  return real == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
}
bool IsComplex(DType d) {
  return d == DType::kComplex64 || d == DType::kComplex128;
}
bool IsReal(DType d) { return d == DType::kFloat32 || d == DType::kFloat64; }

absl::Status CheckT(DType t, const Tensor& x) {
  if (t != DType::kInvalid && x.dtype() != t) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected input of dtype ", DTypeName(t),
                     " (attr T), got ", x.DebugString()));
  }
  return absl::OkStatus();
}

class ComplexKernel : public Kernel {
 public:
  explicit ComplexKernel(DType t) : t_(t) {}
  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& re = ctx.input(0);
    const Tensor& im = ctx.input(1);
    GRAPHRT_RETURN_IF_ERROR(CheckT(t_, re));
    if (!IsReal(re.dtype()) || re.dtype() != im.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected real and imag of the same dtype float32 or float64, got ",
          re.DebugString(), " and ", im.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(ops::BroadcastPlan plan,
                             ops::MakeBroadcastPlan(re.shape(), im.shape()));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * out,
        ctx.allocate_output(0, ComplexOf(re.dtype()), plan.out_shape));
    return ops::DispatchDType<float, double>(
        re.dtype(), "Complex", [&](auto tag) {
          using T = typename decltype(tag)::type;
          ops::BroadcastApply(plan, re.data<T>(), im.data<T>(),
                              out->mutable_data<std::complex<T>>(),
                              ops::kParallelMinElements,
                              [](T a, T b) { return std::complex<T>(a, b); });
          return absl::OkStatus();
        });
  }

 private:
  DType t_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateComplex(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  GRAPHRT_ASSIGN_OR_RETURN(DType tout,
                           attrs.GetType("Tout", DType::kComplex64));
  if (t != DType::kInvalid && !IsReal(t)) {
    return attrs.Error(
        "T", absl::StrCat("must be float32 or float64, got ", DTypeName(t)));
  }
  const DType want = ComplexOf(t == DType::kInvalid ? DType::kFloat32 : t);
  if (tout != want) {
    return attrs.Error("Tout", absl::StrCat("must be ", DTypeName(want),
                                            ", got ", DTypeName(tout)));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Complex '", init.node.name(), "' needs 2 inputs, has ",
                     init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new ComplexKernel(t));
}

enum class Part { kReal, kImag, kAbs, kAngle, kConj };

class PartKernel : public Kernel {
 public:
  PartKernel(Part part, DType t, std::string name)
      : part_(part), t_(t), name_(std::move(name)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    GRAPHRT_RETURN_IF_ERROR(CheckT(t_, x));
    if (!IsComplex(x.dtype())) {
      return absl::InvalidArgumentError(
          absl::StrCat(name_, " expects a complex64 or complex128 input, got ",
                       x.DebugString()));
    }
    const DType out_dtype =
        part_ == Part::kConj ? x.dtype() : RealOf(x.dtype());
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, out_dtype, x.shape()));
    const int64_t n = x.num_elements();
    return ops::DispatchDType<float, double>(
        RealOf(x.dtype()), name_, [&](auto tag) {
          using R = typename decltype(tag)::type;
          using C = std::complex<R>;
          const C* in = x.data<C>();
          ops::ParallelFor(
              n, ops::kParallelMinElements / 4,
              [&](int64_t begin, int64_t end) {
                if (part_ == Part::kConj) {
                  C* o = out->mutable_data<C>();
                  for (int64_t i = begin; i < end; ++i) o[i] = std::conj(in[i]);
                  return;
                }
                R* o = out->mutable_data<R>();
                for (int64_t i = begin; i < end; ++i) {
                  switch (part_) {
                    case Part::kReal:
                      o[i] = in[i].real();
                      break;
                    case Part::kImag:
                      o[i] = in[i].imag();
                      break;
                    case Part::kAbs:
                      o[i] = std::hypot(in[i].real(), in[i].imag());
                      break;
                    case Part::kAngle:
                      o[i] = std::atan2(in[i].imag(), in[i].real());
                      break;
                    case Part::kConj:
                      break;
                  }
                }
              });
          return absl::OkStatus();
        });
  }

 private:
  Part part_;
  DType t_;
  std::string name_;
};

template <Part kPart>
absl::StatusOr<std::unique_ptr<Kernel>> CreatePart(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !IsComplex(t)) {
    return attrs.Error(
        "T",
        absl::StrCat("must be complex64 or complex128, got ", DTypeName(t)));
  }
  if (kPart != Part::kConj) {
    const DType want = RealOf(t == DType::kInvalid ? DType::kComplex64 : t);
    GRAPHRT_ASSIGN_OR_RETURN(DType tout, attrs.GetType("Tout", want));
    if (tout != want) {
      return attrs.Error("Tout", absl::StrCat("must be ", DTypeName(want),
                                              ", got ", DTypeName(tout)));
    }
  }
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 1 input, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new PartKernel(kPart, t, init.node.op()));
}

}  // namespace

void RegisterComplexOps(OpRegistry& r) {
  r.Register("Complex", CreateComplex);
  r.Register("Real", CreatePart<Part::kReal>);
  r.Register("Imag", CreatePart<Part::kImag>);
  r.Register("ComplexAbs", CreatePart<Part::kAbs>);
  r.Register("Angle", CreatePart<Part::kAngle>);
  r.Register("Conj", CreatePart<Part::kConj>);
}

}  // namespace graphrt
