// Three-operand element-wise ops:
//   Select(cond, t, e)   TF v1 semantics: t and e have the same shape; cond
//                        is a scalar, has t's shape, or (t of rank >= 2) is
//                        a vector of t.dim(0) bools picking whole rows
//   SelectV2(cond, t, e) NumPy broadcasting of all three
//   ClipByValue(t, lo, hi) max(min(t, hi), lo) (NaN in t stays NaN); lo/hi
//                        broadcast against t (TF allows scalars or t's
//                        shape; any broadcast that keeps t's shape is
//                        accepted here); the output has t's shape
// Select/SelectV2 take any dtype; ClipByValue real numeric dtypes.
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

template <typename F>
absl::Status DispatchAny(DType dtype, absl::string_view what, F&& f) {
  return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                            int16_t, uint16_t, uint32_t, uint64_t, bool,
                            std::string, complex64, complex128, bfloat16,
                            float16>(dtype, what, std::forward<F>(f));
}

absl::Status RunSelect(const ops::Broadcast3Plan& plan, const Tensor& cond,
                       const Tensor& t, const Tensor& e, Tensor* out,
                       absl::string_view name) {
  if (out->num_elements() == 0) return absl::OkStatus();
  return DispatchAny(t.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ops::Broadcast3Apply(
        plan, cond.data<bool>(), t.data<T>(), e.data<T>(),
        out->mutable_data<T>(), ops::kParallelMinElements,
        [](bool c, const T& a, const T& b) -> const T& { return c ? a : b; });
    return absl::OkStatus();
  });
}

absl::Status CheckCommon(const KernelContext& ctx, DType t_attr) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  GRAPHRT_RETURN_IF_ERROR(
      ops::CheckDType(ctx.input(0), DType::kBool, "condition"));
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  if (t.dtype() != e.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected 'then' and 'else' of the same dtype, got ",
                     t.DebugString(), " and ", e.DebugString()));
  }
  if (t_attr != DType::kInvalid && t.dtype() != t_attr) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected 'then' of dtype ", DTypeName(t_attr),
                     " (attr T), got ", t.DebugString()));
  }
  return absl::OkStatus();
}

class SelectKernel : public Kernel {
 public:
  SelectKernel(bool v2, DType t) : v2_(v2), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(CheckCommon(ctx, t_));
    const Tensor& cond = ctx.input(0);
    const Tensor& t = ctx.input(1);
    const Tensor& e = ctx.input(2);
    Shape cond_shape = cond.shape();
    if (!v2_) {
      if (t.shape() != e.shape()) {
        return absl::InvalidArgumentError(
            absl::StrCat("'then' and 'else' must have the same size, got ",
                         t.shape().ToString(), " and ", e.shape().ToString()));
      }
      if (cond.rank() == 1 && t.rank() >= 2) {
        if (cond.dim(0) != t.dim(0)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "vector condition must have as many elements as the first "
              "dimension of 'then', got ",
              cond.shape().ToString(), " and ", t.shape().ToString()));
        }
        // Row selection: cond as [n, 1, ..., 1].
        for (int i = 1; i < t.rank(); ++i) cond_shape.AddDim(1);
      } else if (cond.rank() != 0 && cond.shape() != t.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "'condition' and 'then' must have the same shape (or condition "
            "must be a scalar or a vector over the first dimension), got ",
            cond.shape().ToString(), " and ", t.shape().ToString()));
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        ops::Broadcast3Plan plan,
        ops::MakeBroadcast3Plan(cond_shape, t.shape(), e.shape()));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, t.dtype(), plan.out_shape));
    return RunSelect(plan, cond, t, e, out, v2_ ? "SelectV2" : "Select");
  }

 private:
  bool v2_;
  DType t_;
};

template <bool kV2>
absl::StatusOr<std::unique_ptr<Kernel>> CreateSelect(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (init.num_inputs != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 3 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new SelectKernel(kV2, t));
}

bool ClipSupports(DType d) {
  return ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                      uint16_t, uint32_t, uint64_t>(d);
}

class ClipKernel : public Kernel {
 public:
  explicit ClipKernel(DType t) : t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
    const Tensor& x = ctx.input(0);
    const Tensor& lo = ctx.input(1);
    const Tensor& hi = ctx.input(2);
    if (lo.dtype() != x.dtype() || hi.dtype() != x.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected t, clip_value_min and clip_value_max of the same dtype, "
          "got ",
          x.DebugString(), ", ", lo.DebugString(), " and ", hi.DebugString()));
    }
    if (t_ != DType::kInvalid && x.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected t of dtype ", DTypeName(t_), " (attr T), got ",
                       x.DebugString()));
    }
    if (!ClipSupports(x.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ClipByValue does not support dtype ", DTypeName(x.dtype())));
    }
    auto plan = ops::MakeBroadcast3Plan(x.shape(), lo.shape(), hi.shape());
    if (!plan.ok() || plan->out_shape != x.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "clip_value_min and clip_value_max must be scalars or broadcast to "
          "the input shape ",
          x.shape().ToString(), ", got ", lo.shape().ToString(), " and ",
          hi.shape().ToString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, x.dtype(), x.shape()));
    if (out->num_elements() == 0) return absl::OkStatus();
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t>(
        x.dtype(), "ClipByValue", [&](auto tag) {
          using T = typename decltype(tag)::type;
          ops::Broadcast3Apply(*plan, x.data<T>(), lo.data<T>(), hi.data<T>(),
                               out->mutable_data<T>(),
                               ops::kParallelMinElements, [](T v, T l, T h) {
                                 const T m = h < v ? h : v;
                                 return m < l ? l : m;
                               });
          return absl::OkStatus();
        });
  }

 private:
  DType t_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateClip(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !ClipSupports(t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ClipByValue"));
  }
  if (init.num_inputs != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("ClipByValue '", init.node.name(),
                     "' needs 3 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new ClipKernel(t));
}

}  // namespace

void RegisterSelect(OpRegistry& r) {
  r.Register("Select", CreateSelect<false>);
  r.Register("SelectV2", CreateSelect<true>);
  r.Register("ClipByValue", CreateClip);
}

}  // namespace graphrt
