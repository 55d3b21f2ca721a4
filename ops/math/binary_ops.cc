// Element-wise binary arithmetic with NumPy broadcasting: Add, AddV2, Sub,
// Mul, RealDiv. Numeric dtypes float32, float64 and the 8/16/32/64-bit
// signed and unsigned integers; Add/AddV2 also concatenate strings.
// Integer arithmetic wraps on overflow (as TF's does on CPU, computed here
// without UB). Integer RealDiv truncates toward zero like TF's Div and
// fails on a zero divisor ("Integer division by zero").
//
// Add / AddV2 with the internal attr _fused_activation "Relu" / "Relu6"
// (written by the load-time pass passes::FuseAddActivation, float32 only)
// compute Relu(x + y) / Relu6(x + y) in the same pass over the output,
// with Relu's semantics (NaN stays NaN, -0 stays -0).
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/activation_fns.h"
#include "ops/math/broadcast.h"
#include "ops/math/cwise_fns.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

enum class BinaryKind { kAdd, kSub, kMul, kDiv };

using ops::kIsInt;

template <typename T>
struct AddFn {
  T operator()(const T& a, const T& b) const {
    if constexpr (kIsInt<T>) {
      return ops::WrapAdd(a, b);
    } else {
      return a + b;
    }
  }
};

template <typename T>
struct SubFn {
  T operator()(T a, T b) const { return ops::WrapSub(a, b); }
};

template <typename T>
struct MulFn {
  T operator()(T a, T b) const { return ops::WrapMul(a, b); }
};

// max(a + b, 0), then min(., 6) for Relu6; written as selects so NaN and
// -0 come out as Eigen's cwiseMax / cwiseMin in ops::ApplyActivation give.
template <typename T, bool kRelu6>
struct AddReluFn {
  T operator()(T a, T b) const {
    T v = a + b;
    v = T(0) > v ? T(0) : v;
    if constexpr (kRelu6) v = v > T(6) ? T(6) : v;
    return v;
  }
};

// Integer division truncates toward zero (b != 0 is checked beforehand;
// MIN / -1 wraps to MIN); floating point divides.
template <typename T>
struct DivFn {
  T operator()(T a, T b) const { return ops::TruncDiv(a, b); }
};

template <typename T, typename Fn>
void RunBroadcast(const ops::BroadcastPlan& plan, const T* x, const T* y,
                  T* out, Fn fn) {
  ops::BroadcastApply(plan, x, y, out, ops::kParallelMinElements, fn);
}

const char* KindName(BinaryKind kind) {
  switch (kind) {
    case BinaryKind::kAdd:
      return "Add";
    case BinaryKind::kSub:
      return "Sub";
    case BinaryKind::kMul:
      return "Mul";
    case BinaryKind::kDiv:
      return "RealDiv";
  }
  return "?";
}

bool IsNumericType(DType d) {
  return ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                      uint16_t, uint32_t, uint64_t>(d);
}

bool Supports(BinaryKind kind, DType d) {
  return IsNumericType(d) || (kind == BinaryKind::kAdd && d == DType::kString);
}

class BinaryKernel : public Kernel {
 public:
  // t == kInvalid: no T attr; any supported dtype.
  // act: kNone, or kRelu / kRelu6 fused after an Add (float32 only).
  BinaryKernel(BinaryKind kind, DType t, ops::Activation act)
      : kind_(kind), t_(t), act_(act) {}

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
    if (!Supports(kind_, x.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          KindName(kind_), " does not support dtype ", DTypeName(x.dtype())));
    }
    GRAPHRT_ASSIGN_OR_RETURN(ops::BroadcastPlan plan,
                             ops::MakeBroadcastPlan(x.shape(), y.shape()));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, x.dtype(), plan.out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();

    if (x.dtype() == DType::kString) {
      RunBroadcast(plan, x.data<std::string>(), y.data<std::string>(),
                   out->mutable_data<std::string>(), AddFn<std::string>());
      return absl::OkStatus();
    }
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t>(
        x.dtype(), KindName(kind_), [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          const T* xd = x.data<T>();
          const T* yd = y.data<T>();
          T* od = out->mutable_data<T>();
          switch (kind_) {
            case BinaryKind::kAdd:
              if constexpr (std::is_floating_point_v<T>) {
                if (act_ == ops::Activation::kRelu) {
                  RunBroadcast(plan, xd, yd, od, AddReluFn<T, false>());
                  break;
                }
                if (act_ == ops::Activation::kRelu6) {
                  RunBroadcast(plan, xd, yd, od, AddReluFn<T, true>());
                  break;
                }
              }
              RunBroadcast(plan, xd, yd, od, AddFn<T>());
              break;
            case BinaryKind::kSub:
              RunBroadcast(plan, xd, yd, od, SubFn<T>());
              break;
            case BinaryKind::kMul:
              RunBroadcast(plan, xd, yd, od, MulFn<T>());
              break;
            case BinaryKind::kDiv:
              if constexpr (kIsInt<T>) {
                for (int64_t i = 0; i < y.num_elements(); ++i) {
                  if (yd[i] == T(0)) {
                    return absl::InvalidArgumentError(
                        "Integer division by zero");
                  }
                }
              }
              RunBroadcast(plan, xd, yd, od, DivFn<T>());
              break;
          }
          return absl::OkStatus();
        });
  }

 private:
  BinaryKind kind_;
  DType t_;
  ops::Activation act_;
};

template <BinaryKind kKind>
absl::StatusOr<std::unique_ptr<Kernel>> CreateBinary(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !Supports(kKind, t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  GRAPHRT_ASSIGN_OR_RETURN(std::string fused,
                           attrs.GetString("_fused_activation", ""));
  ops::Activation act = ops::Activation::kNone;
  if (!fused.empty()) {
    if (kKind != BinaryKind::kAdd || t != DType::kFloat32 ||
        (fused != "Relu" && fused != "Relu6")) {
      return attrs.Error(
          "_fused_activation",
          absl::StrCat("must be Relu or Relu6 on a float32 Add, got '", fused,
                       "' on ", init.node.op(), " of T ", DTypeName(t)));
    }
    act = fused == "Relu" ? ops::Activation::kRelu : ops::Activation::kRelu6;
  }
  return std::unique_ptr<Kernel>(new BinaryKernel(kKind, t, act));
}

}  // namespace

void RegisterBinaryOps(OpRegistry& r) {
  r.Register("Add", CreateBinary<BinaryKind::kAdd>);
  r.Register("AddV2", CreateBinary<BinaryKind::kAdd>);
  r.Register("Sub", CreateBinary<BinaryKind::kSub>);
  r.Register("Mul", CreateBinary<BinaryKind::kMul>);
  r.Register("RealDiv", CreateBinary<BinaryKind::kDiv>);
}

}  // namespace graphrt
