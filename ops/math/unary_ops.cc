// Element-wise unary math, TF formulas and dtypes (16-bit floats aside):
//   float32/float64 only: Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh
//     Erf Expm1 Floor Log1p Selu Sin Sinh Softplus Tan
//   also complex64/128: Exp Log Sqrt Rsqrt Reciprocal (= Inv)
//   also signed ints: Abs (MIN stays MIN), Sign
//   also signed ints and complex: Neg, Square (ints wrap)
//   Round: half to even for floats, identity for ints
//   IsFinite, IsInf, IsNan: float32/float64 -> bool
// Sign of a float NaN is NaN and of -0.0 is -0.0 (as numpy); of a complex
// z it is z / |z| (0 for 0). Selu uses TF's constants; Softplus uses TF's
// thresholds (x for large x, exp(x) for very negative x).
// Vectorisable functions use Eigen array expressions; the rest are scalar
// std:: loops. Work is split over oneTBB above a size threshold.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/cwise_fns.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using ops::kIsComplex;
using ops::kIsInt;

enum class Unary {
  kAbs,
  kAcos,
  kAcosh,
  kAsin,
  kAsinh,
  kAtan,
  kAtanh,
  kCeil,
  kCos,
  kCosh,
  kErf,
  kExp,
  kExpm1,
  kFloor,
  kIsFinite,
  kIsInf,
  kIsNan,
  kLog,
  kLog1p,
  kNeg,
  kReciprocal,
  kRound,
  kRsqrt,
  kSelu,
  kSign,
  kSin,
  kSinh,
  kSoftplus,
  kSqrt,
  kSquare,
  kTan,
};

bool IsPredicate(Unary op) {
  return op == Unary::kIsFinite || op == Unary::kIsInf || op == Unary::kIsNan;
}

template <typename T>
constexpr bool Accepts(Unary op) {
  if constexpr (std::is_floating_point_v<T>) {
    return true;
  } else if constexpr (kIsComplex<T>) {
    switch (op) {
      case Unary::kExp:
      case Unary::kLog:
      case Unary::kSqrt:
      case Unary::kRsqrt:
      case Unary::kReciprocal:
      case Unary::kNeg:
      case Unary::kSquare:
      case Unary::kSign:
        return true;
      default:
        return false;
    }
  } else if constexpr (kIsInt<T> && std::is_signed_v<T>) {
    return op == Unary::kAbs || op == Unary::kSign || op == Unary::kNeg ||
           op == Unary::kSquare || op == Unary::kRound;
  } else {
    return false;
  }
}

template <typename F>
absl::Status DispatchUnary(DType dtype, const char* name, F&& f) {
  return ops::DispatchDType<float, double, int8_t, int16_t, int32_t, int64_t,
                            complex64, complex128>(dtype, name,
                                                   std::forward<F>(f));
}

bool Supports(Unary op, DType dtype) {
  bool ok = false;
  DispatchUnary(dtype, "", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ok = Accepts<T>(op) && (!IsPredicate(op) || std::is_floating_point_v<T>);
    return absl::OkStatus();
  }).IgnoreError();
  return ok;
}

// y[i] = f(x[i]) for a scalar function.
template <typename T, typename U, typename F>
void Scalar(const T* x, U* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

template <typename T>
void ApplyFloat(Unary op, const T* in, T* out, int64_t n) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<const Array> x(in, n);
  Eigen::Map<Array> y(out, n);
  switch (op) {
    case Unary::kAbs:
      y = x.abs();
      return;
    case Unary::kAcos:
      return Scalar(in, out, n, [](T v) { return std::acos(v); });
    case Unary::kAcosh:
      return Scalar(in, out, n, [](T v) { return std::acosh(v); });
    case Unary::kAsin:
      return Scalar(in, out, n, [](T v) { return std::asin(v); });
    case Unary::kAsinh:
      return Scalar(in, out, n, [](T v) { return std::asinh(v); });
    case Unary::kAtan:
      return Scalar(in, out, n, [](T v) { return std::atan(v); });
    case Unary::kAtanh:
      return Scalar(in, out, n, [](T v) { return std::atanh(v); });
    case Unary::kCeil:
      y = x.ceil();
      return;
    case Unary::kCos:
      y = x.cos();
      return;
    case Unary::kCosh:
      return Scalar(in, out, n, [](T v) { return std::cosh(v); });
    case Unary::kErf:
      return Scalar(in, out, n, [](T v) { return std::erf(v); });
    case Unary::kExp:
      y = x.exp();
      return;
    case Unary::kExpm1:
      return Scalar(in, out, n, [](T v) { return std::expm1(v); });
    case Unary::kFloor:
      y = x.floor();
      return;
    case Unary::kLog:
      y = x.log();
      return;
    case Unary::kLog1p:
      return Scalar(in, out, n, [](T v) { return std::log1p(v); });
    case Unary::kNeg:
      y = -x;
      return;
    case Unary::kReciprocal:
      y = x.inverse();
      return;
    case Unary::kRound:
      y = x.rint();
      return;
    case Unary::kRsqrt:
      y = x.sqrt().inverse();
      return;
    case Unary::kSelu: {
      const T scale = T(1.0507009873554804934193349852946);
      const T scale_alpha = T(1.0507009873554804934193349852946 *
                              1.6732632423543772848170429916717);
      y = (x < T(0)).select(scale_alpha * (x.exp() - T(1)), scale * x);
      return;
    }
    case Unary::kSign:
      return Scalar(in, out, n, [](T v) {
        return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v);
      });
    case Unary::kSin:
      y = x.sin();
      return;
    case Unary::kSinh:
      return Scalar(in, out, n, [](T v) { return std::sinh(v); });
    case Unary::kSoftplus: {
      const T threshold = std::log(std::numeric_limits<T>::epsilon()) + T(2);
      return Scalar(in, out, n, [threshold](T v) {
        if (v > -threshold) return v;
        if (v < threshold) return std::exp(v);
        return std::log1p(std::exp(v));
      });
    }
    case Unary::kSqrt:
      y = x.sqrt();
      return;
    case Unary::kSquare:
      y = x.square();
      return;
    case Unary::kTan:
      return Scalar(in, out, n, [](T v) { return std::tan(v); });
    default:
      return;
  }
}

template <typename T>
void ApplyComplex(Unary op, const T* in, T* out, int64_t n) {
  switch (op) {
    case Unary::kExp:
      return Scalar(in, out, n, [](T v) { return std::exp(v); });
    case Unary::kLog:
      return Scalar(in, out, n, [](T v) { return std::log(v); });
    case Unary::kSqrt:
      return Scalar(in, out, n, [](T v) { return std::sqrt(v); });
    case Unary::kRsqrt:
      return Scalar(in, out, n, [](T v) { return T(1) / std::sqrt(v); });
    case Unary::kReciprocal:
      return Scalar(in, out, n, [](T v) { return T(1) / v; });
    case Unary::kNeg:
      return Scalar(in, out, n, [](T v) { return -v; });
    case Unary::kSquare:
      return Scalar(in, out, n, [](T v) { return v * v; });
    case Unary::kSign:
      return Scalar(in, out, n, [](T v) {
        const auto a = std::abs(v);
        return a == 0 ? T(0) : v / a;
      });
    default:
      return;
  }
}

template <typename T>
void ApplyInt(Unary op, const T* in, T* out, int64_t n) {
  switch (op) {
    case Unary::kAbs:
      return Scalar(in, out, n,
                    [](T v) { return v < T(0) ? ops::WrapNeg(v) : v; });
    case Unary::kSign:
      return Scalar(in, out, n, [](T v) { return T((v > T(0)) - (v < T(0))); });
    case Unary::kNeg:
      return Scalar(in, out, n, [](T v) { return ops::WrapNeg(v); });
    case Unary::kSquare:
      return Scalar(in, out, n, [](T v) { return ops::WrapMul(v, v); });
    case Unary::kRound:
      return Scalar(in, out, n, [](T v) { return v; });
    default:
      return;
  }
}

template <typename T>
void ApplyPredicate(Unary op, const T* in, bool* out, int64_t n) {
  switch (op) {
    case Unary::kIsFinite:
      return Scalar(in, out, n, [](T v) { return std::isfinite(v); });
    case Unary::kIsInf:
      return Scalar(in, out, n, [](T v) { return std::isinf(v); });
    case Unary::kIsNan:
      return Scalar(in, out, n, [](T v) { return std::isnan(v); });
    default:
      return;
  }
}

class UnaryKernel : public Kernel {
 public:
  UnaryKernel(Unary op, DType t, std::string name)
      : op_(op), t_(t), name_(std::move(name)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    if (t_ != DType::kInvalid && x.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", x.DebugString()));
    }
    if (!Supports(op_, x.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, " does not support dtype ", DTypeName(x.dtype())));
    }
    const DType out_dtype = IsPredicate(op_) ? DType::kBool : x.dtype();
    // Every element is written below (Supports() admits only the dtypes
    // each Apply* handles), so the output is not zero-filled first.
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, out_dtype, x.shape()));
    const int64_t n = x.num_elements();
    return DispatchUnary(x.dtype(), name_.c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x.data<T>();
      const int64_t min_parallel = ops::kParallelMinElements / 4;
      ops::ParallelForElements(
          n, min_parallel, [&](int64_t begin, int64_t end) {
            const int64_t len = end - begin;
            if (IsPredicate(op_)) {
              if constexpr (std::is_floating_point_v<T>) {
                ApplyPredicate<T>(op_, in + begin,
                                  out->mutable_data<bool>() + begin, len);
              }
              return;
            }
            T* o = out->mutable_data<T>() + begin;
            if constexpr (std::is_floating_point_v<T>) {
              ApplyFloat<T>(op_, in + begin, o, len);
            } else if constexpr (kIsComplex<T>) {
              ApplyComplex<T>(op_, in + begin, o, len);
            } else {
              ApplyInt<T>(op_, in + begin, o, len);
            }
          });
      return absl::OkStatus();
    });
  }

 private:
  Unary op_;
  DType t_;
  std::string name_;
};

template <Unary kOp>
absl::StatusOr<std::unique_ptr<Kernel>> CreateUnary(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !Supports(kOp, t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 1 input, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new UnaryKernel(kOp, t, init.node.op()));
}

}  // namespace

void RegisterUnaryOps(OpRegistry& r) {
  r.Register("Abs", CreateUnary<Unary::kAbs>);
  r.Register("Acos", CreateUnary<Unary::kAcos>);
  r.Register("Acosh", CreateUnary<Unary::kAcosh>);
  r.Register("Asin", CreateUnary<Unary::kAsin>);
  r.Register("Asinh", CreateUnary<Unary::kAsinh>);
  r.Register("Atan", CreateUnary<Unary::kAtan>);
  r.Register("Atanh", CreateUnary<Unary::kAtanh>);
  r.Register("Ceil", CreateUnary<Unary::kCeil>);
  r.Register("Cos", CreateUnary<Unary::kCos>);
  r.Register("Cosh", CreateUnary<Unary::kCosh>);
  r.Register("Erf", CreateUnary<Unary::kErf>);
  r.Register("Exp", CreateUnary<Unary::kExp>);
  r.Register("Expm1", CreateUnary<Unary::kExpm1>);
  r.Register("Floor", CreateUnary<Unary::kFloor>);
  r.Register("IsFinite", CreateUnary<Unary::kIsFinite>);
  r.Register("IsInf", CreateUnary<Unary::kIsInf>);
  r.Register("IsNan", CreateUnary<Unary::kIsNan>);
  r.Register("Log", CreateUnary<Unary::kLog>);
  r.Register("Log1p", CreateUnary<Unary::kLog1p>);
  r.Register("Neg", CreateUnary<Unary::kNeg>);
  r.Register("Reciprocal", CreateUnary<Unary::kReciprocal>);
  r.Register("Inv", CreateUnary<Unary::kReciprocal>);
  r.Register("Round", CreateUnary<Unary::kRound>);
  r.Register("Rint", CreateUnary<Unary::kRound>);
  r.Register("Rsqrt", CreateUnary<Unary::kRsqrt>);
  r.Register("Selu", CreateUnary<Unary::kSelu>);
  r.Register("Sign", CreateUnary<Unary::kSign>);
  r.Register("Sin", CreateUnary<Unary::kSin>);
  r.Register("Sinh", CreateUnary<Unary::kSinh>);
  r.Register("Softplus", CreateUnary<Unary::kSoftplus>);
  r.Register("Sqrt", CreateUnary<Unary::kSqrt>);
  r.Register("Square", CreateUnary<Unary::kSquare>);
  r.Register("Tan", CreateUnary<Unary::kTan>);
}

}  // namespace graphrt
