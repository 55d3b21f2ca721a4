// Element-wise binary arithmetic beyond Add/Sub/Mul/RealDiv, all with
// NumPy broadcasting, plus AddN:
//   Div               ints truncate toward zero, floats/complex divide
//   DivNoNan          a / b, or 0 where b == 0 (float, double, complex)
//   FloorDiv          floor(a / b); ints round toward -inf
//   FloorMod          remainder with the divisor's sign (Python's %)
//   Mod               truncated remainder (C's % / fmod), as TF's Mod
//   Maximum, Minimum  NaN if either operand is NaN
//   Pow               ints by squaring (wrapping; negative exponents are
//                     an error, as in TF), floats/complex std::pow
//   SquaredDifference (a - b) * conj(a - b)
//   Atan2             atan2(y = input 0, x = input 1)
//   Prelu             x >= 0 ? x : alpha * x (converter op, alpha
//                     broadcast against x)
//   AddN              sum of N same-shape tensors (no broadcasting)
// Integer division-like ops fail with "Integer division by zero" on a zero
// divisor; MIN / -1 wraps to MIN and MIN mod -1 is 0 (ops/math/cwise_fns.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/broadcast.h"
#include "ops/math/cwise_fns.h"
#include "ops/math/math_ops.h"
#include "runtime/parallel.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using ops::kIsComplex;
using ops::kIsInt;

enum class Arith {
  kDiv,
  kDivNoNan,
  kFloorDiv,
  kFloorMod,
  kMod,
  kMaximum,
  kMinimum,
  kPow,
  kSquaredDifference,
  kAtan2,
  kPrelu,
};

const char* ArithName(Arith op) {
  switch (op) {
    case Arith::kDiv:
      return "Div";
    case Arith::kDivNoNan:
      return "DivNoNan";
    case Arith::kFloorDiv:
      return "FloorDiv";
    case Arith::kFloorMod:
      return "FloorMod";
    case Arith::kMod:
      return "Mod";
    case Arith::kMaximum:
      return "Maximum";
    case Arith::kMinimum:
      return "Minimum";
    case Arith::kPow:
      return "Pow";
    case Arith::kSquaredDifference:
      return "SquaredDifference";
    case Arith::kAtan2:
      return "Atan2";
    case Arith::kPrelu:
      return "Prelu";
  }
  return "?";
}

// Which element types each op accepts (TF's CPU registrations, minus the
// 16-bit floats).
template <typename T>
constexpr bool Accepts(Arith op) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  constexpr bool kSignedInt = kIsInt<T> && std::is_signed_v<T>;
  switch (op) {
    case Arith::kDiv:
      return kFloat || kIsInt<T> || kIsComplex<T>;
    case Arith::kDivNoNan:
      return kFloat || kIsComplex<T>;
    case Arith::kFloorDiv:
    case Arith::kFloorMod:
    case Arith::kMod:
    case Arith::kMaximum:
    case Arith::kMinimum:
      return kFloat || kIsInt<T>;
    case Arith::kPow:
      return kFloat || kSignedInt || kIsComplex<T>;
    case Arith::kSquaredDifference:
      return kFloat || kSignedInt || kIsComplex<T>;
    case Arith::kAtan2:
    case Arith::kPrelu:
      return kFloat;
  }
  return false;
}

// Runs f(TypeTag<T>) for every dtype any of these ops accepts.
template <typename F>
absl::Status DispatchArith(DType dtype, const char* name, F&& f) {
  return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                            int16_t, uint16_t, uint32_t, uint64_t, complex64,
                            complex128>(dtype, name, std::forward<F>(f));
}

bool Supports(Arith op, DType dtype) {
  bool ok = false;
  DispatchArith(dtype, "", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ok = Accepts<T>(op);
    return absl::OkStatus();
  }).IgnoreError();
  return ok;
}

template <typename T>
absl::Status CheckNoZero(const Tensor& y) {
  const T* d = y.data<T>();
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    if (d[i] == T(0)) {
      return absl::InvalidArgumentError("Integer division by zero");
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status RunTyped(Arith op, const ops::BroadcastPlan& plan, const Tensor& x,
                      const Tensor& y, Tensor* out) {
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  T* o = out->mutable_data<T>();
  constexpr int64_t kMin = ops::kParallelMinElements;
  if constexpr (!Accepts<T>(Arith::kDiv)) {
    return absl::InternalError("unreachable");
  } else {
    switch (op) {
      case Arith::kDiv:
        if constexpr (kIsInt<T>) GRAPHRT_RETURN_IF_ERROR(CheckNoZero<T>(y));
        ops::BroadcastApply(plan, a, b, o, kMin,
                            [](T p, T q) { return ops::TruncDiv(p, q); });
        return absl::OkStatus();
      case Arith::kDivNoNan:
        if constexpr (Accepts<T>(Arith::kDivNoNan)) {
          ops::BroadcastApply(plan, a, b, o, kMin, [](T p, T q) {
            return q == T(0) ? T(0) : p / q;
          });
        }
        return absl::OkStatus();
      case Arith::kPow:
        if constexpr (kIsInt<T>) {
          for (int64_t i = 0; i < y.num_elements(); ++i) {
            if (b[i] < T(0)) {
              return absl::InvalidArgumentError(
                  "Integers to negative integer powers are not allowed");
            }
          }
          ops::BroadcastApply(plan, a, b, o, kMin / 4,
                              [](T p, T q) { return ops::IntPow(p, q); });
        } else if constexpr (Accepts<T>(Arith::kPow)) {
          ops::BroadcastApply(plan, a, b, o, kMin / 4,
                              [](T p, T q) { return T(std::pow(p, q)); });
        }
        return absl::OkStatus();
      case Arith::kSquaredDifference:
        if constexpr (kIsComplex<T>) {
          ops::BroadcastApply(plan, a, b, o, kMin, [](T p, T q) {
            const T d = p - q;
            return d * std::conj(d);
          });
        } else if constexpr (Accepts<T>(Arith::kSquaredDifference)) {
          ops::BroadcastApply(plan, a, b, o, kMin, [](T p, T q) {
            const T d = ops::WrapSub(p, q);
            return ops::WrapMul(d, d);
          });
        }
        return absl::OkStatus();
      default:
        break;
    }
    // Real-only ops.
    if constexpr (!kIsComplex<T>) {
      switch (op) {
        case Arith::kFloorDiv:
          if constexpr (kIsInt<T>) GRAPHRT_RETURN_IF_ERROR(CheckNoZero<T>(y));
          ops::BroadcastApply(plan, a, b, o, kMin,
                              [](T p, T q) { return ops::FloorDiv(p, q); });
          return absl::OkStatus();
        case Arith::kFloorMod:
          if constexpr (kIsInt<T>) GRAPHRT_RETURN_IF_ERROR(CheckNoZero<T>(y));
          ops::BroadcastApply(plan, a, b, o, kMin,
                              [](T p, T q) { return ops::FloorMod(p, q); });
          return absl::OkStatus();
        case Arith::kMod:
          if constexpr (kIsInt<T>) GRAPHRT_RETURN_IF_ERROR(CheckNoZero<T>(y));
          ops::BroadcastApply(plan, a, b, o, kMin,
                              [](T p, T q) { return ops::TruncMod(p, q); });
          return absl::OkStatus();
        case Arith::kMaximum:
          ops::BroadcastApply(plan, a, b, o, kMin,
                              [](T p, T q) { return ops::NanMax(p, q); });
          return absl::OkStatus();
        case Arith::kMinimum:
          ops::BroadcastApply(plan, a, b, o, kMin,
                              [](T p, T q) { return ops::NanMin(p, q); });
          return absl::OkStatus();
        case Arith::kAtan2:
          if constexpr (std::is_floating_point_v<T>) {
            ops::BroadcastApply(plan, a, b, o, kMin / 4,
                                [](T p, T q) { return std::atan2(p, q); });
          }
          return absl::OkStatus();
        case Arith::kPrelu:
          if constexpr (std::is_floating_point_v<T>) {
            if (plan.dims.size() == 2 && plan.x_strides[1] == 1 &&
                plan.y_strides[0] == 0 && plan.y_strides[1] == 1) {
              // The converters' case: alpha per channel (the last dim).
              // Whole rows per chunk, no broadcast odometer per row.
              const int64_t channels = plan.dims[1];
              const int64_t min_rows = std::max<int64_t>(1, kMin / channels);
              ParallelFor(0, plan.dims[0], min_rows,
                          [&](int64_t begin, int64_t end) {
                            for (int64_t r = begin; r < end; ++r) {
                              const T* __restrict xr = a + r * channels;
                              const T* __restrict alpha = b;
                              T* __restrict orow = o + r * channels;
                              // Both sides computed, then chosen: a blend
                              // (a load or multiply under the condition
                              // would stay a branch).
                              for (int64_t c = 0; c < channels; ++c) {
                                const T v = xr[c];
                                const T scaled = alpha[c] * v;
                                orow[c] = v >= T(0) ? v : scaled;
                              }
                            }
                          });
              return absl::OkStatus();
            }
            ops::BroadcastApply(plan, a, b, o, kMin, [](T p, T alpha) {
              return p >= T(0) ? p : alpha * p;
            });
          }
          return absl::OkStatus();
        default:
          break;
      }
    }
    return absl::InternalError("unreachable");
  }
}

class ArithKernel : public Kernel {
 public:
  ArithKernel(Arith op, DType t) : op_(op), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.dtype() != y.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected inputs of the same dtype, got ",
                       x.DebugString(), " and ", y.DebugString()));
    }
    if (t_ != DType::kInvalid && x.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected inputs of dtype ", DTypeName(t_),
                       " (attr T), got ", x.DebugString()));
    }
    if (!Supports(op_, x.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          ArithName(op_), " does not support dtype ", DTypeName(x.dtype())));
    }
    GRAPHRT_ASSIGN_OR_RETURN(ops::BroadcastPlan plan,
                             ops::MakeBroadcastPlan(x.shape(), y.shape()));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, x.dtype(), plan.out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    return DispatchArith(x.dtype(), ArithName(op_), [&](auto tag) {
      using T = typename decltype(tag)::type;
      return RunTyped<T>(op_, plan, x, y, out);
    });
  }

 private:
  Arith op_;
  DType t_;
};

template <Arith kOp>
absl::StatusOr<std::unique_ptr<Kernel>> CreateArith(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !Supports(kOp, t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new ArithKernel(kOp, t));
}

// AddN: every input has the same dtype and shape; sums in T (integers
// wrap), left to right, split over oneTBB by element ranges.
class AddNKernel : public Kernel {
 public:
  explicit AddNKernel(DType t) : t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    const int n = ctx.num_inputs();
    if (n < 1) {
      return absl::InvalidArgumentError("AddN expects at least 1 input, got 0");
    }
    const Tensor& first = ctx.input(0);
    if (t_ != DType::kInvalid && first.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected inputs of dtype ", DTypeName(t_),
                       " (attr T), got ", first.DebugString()));
    }
    for (int i = 1; i < n; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != first.dtype() || t.shape() != first.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AddN expects all inputs to have the same dtype and shape; input 0 "
            "is ",
            first.DebugString(), ", input ", i, " is ", t.DebugString()));
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * out,
        ctx.allocate_output_uninitialized(0, first.dtype(), first.shape()));
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t, complex64,
                              complex128>(first.dtype(), "AddN", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* o = out->mutable_data<T>();
      ops::ParallelFor(first.num_elements(), ops::kParallelMinElements,
                       [&](int64_t begin, int64_t end) {
                         const T* s0 = ctx.input(0).data<T>();
                         for (int64_t j = begin; j < end; ++j) o[j] = s0[j];
                         for (int i = 1; i < n; ++i) {
                           const T* s = ctx.input(i).data<T>();
                           for (int64_t j = begin; j < end; ++j) {
                             o[j] = ops::WrapAdd(o[j], s[j]);
                           }
                         }
                       });
      return absl::OkStatus();
    });
  }

 private:
  DType t_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateAddN(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t n, attrs.GetInt("N", init.num_inputs));
  if (n != init.num_inputs || n < 1) {
    return attrs.Error(
        "N", absl::StrCat("is ", n, " but the node has ", init.num_inputs,
                          " inputs (need at least 1)"));
  }
  if (t != DType::kInvalid &&
      !ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                    uint16_t, uint32_t, uint64_t, complex64, complex128>(t)) {
    return attrs.Error(
        "T", absl::StrCat("has unsupported dtype ", DTypeName(t), " for AddN"));
  }
  return std::unique_ptr<Kernel>(new AddNKernel(t));
}

}  // namespace

void RegisterArithmetic(OpRegistry& r) {
  r.Register("Div", CreateArith<Arith::kDiv>);
  r.Register("DivNoNan", CreateArith<Arith::kDivNoNan>);
  r.Register("FloorDiv", CreateArith<Arith::kFloorDiv>);
  r.Register("FloorMod", CreateArith<Arith::kFloorMod>);
  r.Register("Mod", CreateArith<Arith::kMod>);
  r.Register("TruncateMod", CreateArith<Arith::kMod>);
  r.Register("Maximum", CreateArith<Arith::kMaximum>);
  r.Register("Minimum", CreateArith<Arith::kMinimum>);
  r.Register("Pow", CreateArith<Arith::kPow>);
  r.Register("SquaredDifference", CreateArith<Arith::kSquaredDifference>);
  r.Register("Atan2", CreateArith<Arith::kAtan2>);
  r.Register("Prelu", CreateArith<Arith::kPrelu>);
  r.Register("AddN", CreateAddN);
}

}  // namespace graphrt
