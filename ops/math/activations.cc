// Element-wise activations: Relu, Relu6 (float32, float64, int32, int64),
// Elu, LeakyRelu (attr alpha, default 0.2), Sigmoid, Tanh, _HardSwish (attr
// scale, default 1/6) (float32, float64). Formulas in
// ops/math/activation_fns.h.
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/activation_fns.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using ops::Activation;

bool Supports(Activation act, DType d) {
  if (d == DType::kFloat32 || d == DType::kFloat64) return true;
  return (d == DType::kInt32 || d == DType::kInt64) &&
         (act == Activation::kRelu || act == Activation::kRelu6);
}

class ActivationKernel : public Kernel {
 public:
  ActivationKernel(Activation act, float alpha, DType t, const char* name)
      : act_(act), alpha_(alpha), t_(t), name_(name) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    if (t_ != DType::kInvalid && x.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", x.DebugString()));
    }
    if (!Supports(act_, x.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, " does not support dtype ", DTypeName(x.dtype())));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, x.dtype(), x.shape()));
    const int64_t n = x.num_elements();
    return ops::DispatchDType<float, double, int32_t, int64_t>(
        x.dtype(), name_, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const T* in = x.data<T>();
          T* o = out->mutable_data<T>();
          // Transcendental functions cost more: split smaller arrays.
          const int64_t min_parallel =
              act_ == Activation::kRelu || act_ == Activation::kRelu6
                  ? ops::kParallelMinElements
                  : ops::kParallelMinElements / 4;
          ops::ParallelForElements(
              n, min_parallel, [&](int64_t begin, int64_t end) {
                ops::ApplyActivation<T>(act_, alpha_, in + begin, o + begin,
                                        end - begin);
              });
          return absl::OkStatus();
        });
  }

 private:
  Activation act_;
  float alpha_;
  DType t_;
  const char* name_;
};

template <Activation kAct>
absl::StatusOr<std::unique_ptr<Kernel>> CreateActivation(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !Supports(kAct, t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  float alpha = 0.0f;
  if (kAct == Activation::kLeakyRelu) {
    GRAPHRT_ASSIGN_OR_RETURN(alpha, attrs.GetFloat("alpha", 0.2f));
  } else if (kAct == Activation::kHardSwish) {
    GRAPHRT_ASSIGN_OR_RETURN(alpha,
                             attrs.GetFloat("scale", ops::kHardSwishScale));
  }
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 1 input, has ", init.num_inputs));
  }
  const char* name = "Activation";
  switch (kAct) {
    case Activation::kRelu:
      name = "Relu";
      break;
    case Activation::kRelu6:
      name = "Relu6";
      break;
    case Activation::kElu:
      name = "Elu";
      break;
    case Activation::kLeakyRelu:
      name = "LeakyRelu";
      break;
    case Activation::kSigmoid:
      name = "Sigmoid";
      break;
    case Activation::kTanh:
      name = "Tanh";
      break;
    case Activation::kHardSwish:
      name = "_HardSwish";
      break;
    case Activation::kNone:
      break;
  }
  return std::unique_ptr<Kernel>(new ActivationKernel(kAct, alpha, t, name));
}

}  // namespace

void RegisterActivations(OpRegistry& r) {
  r.Register("Relu", CreateActivation<Activation::kRelu>);
  r.Register("Relu6", CreateActivation<Activation::kRelu6>);
  r.Register("Elu", CreateActivation<Activation::kElu>);
  r.Register("LeakyRelu", CreateActivation<Activation::kLeakyRelu>);
  r.Register("Sigmoid", CreateActivation<Activation::kSigmoid>);
  r.Register("Tanh", CreateActivation<Activation::kTanh>);
  r.Register("_HardSwish", CreateActivation<Activation::kHardSwish>);
}

}  // namespace graphrt
