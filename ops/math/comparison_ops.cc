// Comparisons and logical / bitwise ops, with NumPy broadcasting:
//   Equal, NotEqual        any numeric dtype, bool, string, complex;
//                          attr incompatible_shape_error (default true):
//                          when false, shapes that do not broadcast give a
//                          scalar false (Equal) / true (NotEqual) as in TF
//   Greater, GreaterEqual, Less, LessEqual   real numeric dtypes -> bool
//   LogicalAnd, LogicalOr (bool, broadcasting), LogicalNot (bool)
//   BitwiseAnd, BitwiseOr, BitwiseXor        8..64-bit (un)signed ints
// Float comparisons follow IEEE: NaN compares unequal to everything.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/broadcast.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

enum class Cmp {
  kEqual,
  kNotEqual,
  kGreater,
  kGreaterEqual,
  kLess,
  kLessEqual,
  kLogicalAnd,
  kLogicalOr,
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
};

bool IsRealNumeric(DType d) {
  return ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                      uint16_t, uint32_t, uint64_t>(d);
}
bool IsInteger(DType d) {
  return ops::IsOneOf<int32_t, int64_t, uint8_t, int8_t, int16_t, uint16_t,
                      uint32_t, uint64_t>(d);
}

bool Supports(Cmp op, DType d) {
  switch (op) {
    case Cmp::kEqual:
    case Cmp::kNotEqual:
      return IsRealNumeric(d) || d == DType::kBool || d == DType::kString ||
             d == DType::kComplex64 || d == DType::kComplex128;
    case Cmp::kGreater:
    case Cmp::kGreaterEqual:
    case Cmp::kLess:
    case Cmp::kLessEqual:
      return IsRealNumeric(d);
    case Cmp::kLogicalAnd:
    case Cmp::kLogicalOr:
      return d == DType::kBool;
    case Cmp::kBitwiseAnd:
    case Cmp::kBitwiseOr:
    case Cmp::kBitwiseXor:
      return IsInteger(d);
  }
  return false;
}

bool IsBitwise(Cmp op) {
  return op == Cmp::kBitwiseAnd || op == Cmp::kBitwiseOr ||
         op == Cmp::kBitwiseXor;
}

template <typename T>
void Compare(Cmp op, const ops::BroadcastPlan& plan, const T* a, const T* b,
             bool* o) {
  constexpr int64_t kMin = ops::kParallelMinElements;
  switch (op) {
    case Cmp::kEqual:
      return ops::BroadcastApply(plan, a, b, o, kMin,
                                 [](const T& p, const T& q) { return p == q; });
    case Cmp::kNotEqual:
      return ops::BroadcastApply(plan, a, b, o, kMin,
                                 [](const T& p, const T& q) { return p != q; });
    default:
      break;
  }
  if constexpr (std::is_arithmetic_v<T>) {
    switch (op) {
      case Cmp::kGreater:
        return ops::BroadcastApply(plan, a, b, o, kMin,
                                   [](T p, T q) { return p > q; });
      case Cmp::kGreaterEqual:
        return ops::BroadcastApply(plan, a, b, o, kMin,
                                   [](T p, T q) { return p >= q; });
      case Cmp::kLess:
        return ops::BroadcastApply(plan, a, b, o, kMin,
                                   [](T p, T q) { return p < q; });
      case Cmp::kLessEqual:
        return ops::BroadcastApply(plan, a, b, o, kMin,
                                   [](T p, T q) { return p <= q; });
      case Cmp::kLogicalAnd:
        return ops::BroadcastApply(plan, a, b, o, kMin,
                                   [](T p, T q) { return p && q; });
      case Cmp::kLogicalOr:
        return ops::BroadcastApply(plan, a, b, o, kMin,
                                   [](T p, T q) { return p || q; });
      default:
        return;
    }
  }
}

template <typename T>
void Bitwise(Cmp op, const ops::BroadcastPlan& plan, const T* a, const T* b,
             T* o) {
  constexpr int64_t kMin = ops::kParallelMinElements;
  switch (op) {
    case Cmp::kBitwiseAnd:
      return ops::BroadcastApply(plan, a, b, o, kMin,
                                 [](T p, T q) { return T(p & q); });
    case Cmp::kBitwiseOr:
      return ops::BroadcastApply(plan, a, b, o, kMin,
                                 [](T p, T q) { return T(p | q); });
    case Cmp::kBitwiseXor:
      return ops::BroadcastApply(plan, a, b, o, kMin,
                                 [](T p, T q) { return T(p ^ q); });
    default:
      return;
  }
}

class CmpKernel : public Kernel {
 public:
  CmpKernel(Cmp op, DType t, bool incompatible_shape_error, std::string name)
      : op_(op),
        t_(t),
        incompatible_shape_error_(incompatible_shape_error),
        name_(std::move(name)) {}

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
          name_, " does not support dtype ", DTypeName(x.dtype())));
    }
    auto plan_or = ops::MakeBroadcastPlan(x.shape(), y.shape());
    if (!plan_or.ok()) {
      if (!incompatible_shape_error_ &&
          (op_ == Cmp::kEqual || op_ == Cmp::kNotEqual)) {
        GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                                 ctx.allocate_output(0, DType::kBool, Shape()));
        *out->mutable_data<bool>() = op_ == Cmp::kNotEqual;
        return absl::OkStatus();
      }
      return plan_or.status();
    }
    const ops::BroadcastPlan& plan = *plan_or;
    const DType out_dtype = IsBitwise(op_) ? x.dtype() : DType::kBool;
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, out_dtype, plan.out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t, bool,
                              std::string, complex64, complex128>(
        x.dtype(), name_, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (IsBitwise(op_)) {
              Bitwise<T>(op_, plan, x.data<T>(), y.data<T>(),
                         out->mutable_data<T>());
              return absl::OkStatus();
            }
          }
          Compare<T>(op_, plan, x.data<T>(), y.data<T>(),
                     out->mutable_data<bool>());
          return absl::OkStatus();
        });
  }

 private:
  Cmp op_;
  DType t_;
  bool incompatible_shape_error_;
  std::string name_;
};

template <Cmp kOp>
absl::StatusOr<std::unique_ptr<Kernel>> CreateCmp(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !Supports(kOp, t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(bool ise,
                           attrs.GetBool("incompatible_shape_error", true));
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new CmpKernel(kOp, t, ise, init.node.op()));
}

absl::Status LogicalNot(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(x, DType::kBool, "input"));
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                             0, DType::kBool, x.shape()));
  const bool* in = x.data<bool>();
  bool* o = out->mutable_data<bool>();
  ops::ParallelFor(x.num_elements(), ops::kParallelMinElements,
                   [&](int64_t begin, int64_t end) {
                     for (int64_t i = begin; i < end; ++i) o[i] = !in[i];
                   });
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateLogicalNot(
    const KernelInit& init) {
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("LogicalNot '", init.node.name(), "' needs 1 input, has ",
                     init.num_inputs));
  }
  return MakeFunctionKernel(LogicalNot);
}

}  // namespace

void RegisterComparisonOps(OpRegistry& r) {
  r.Register("Equal", CreateCmp<Cmp::kEqual>);
  r.Register("NotEqual", CreateCmp<Cmp::kNotEqual>);
  r.Register("Greater", CreateCmp<Cmp::kGreater>);
  r.Register("GreaterEqual", CreateCmp<Cmp::kGreaterEqual>);
  r.Register("Less", CreateCmp<Cmp::kLess>);
  r.Register("LessEqual", CreateCmp<Cmp::kLessEqual>);
  r.Register("LogicalAnd", CreateCmp<Cmp::kLogicalAnd>);
  r.Register("LogicalOr", CreateCmp<Cmp::kLogicalOr>);
  r.Register("LogicalNot", CreateLogicalNot);
  r.Register("BitwiseAnd", CreateCmp<Cmp::kBitwiseAnd>);
  r.Register("BitwiseOr", CreateCmp<Cmp::kBitwiseOr>);
  r.Register("BitwiseXor", CreateCmp<Cmp::kBitwiseXor>);
}

}  // namespace graphrt
