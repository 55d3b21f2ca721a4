// The residual tail of a [BiasAdd, Add(, Relu|Relu6)] convolution
// (conv_util.h FusedEpilogue::residual) when no backend fused it into its
// kernel: one pass over same-shape data, or a broadcasting add for an
// addend of another shape. Float rounding is the unfused graph's: the
// convolution's biased output plus the addend, then the clamp.
#ifndef GRAPHRT_OPS_NN_RESIDUAL_ADD_H_
#define GRAPHRT_OPS_NN_RESIDUAL_ADD_H_

#include <cstdint>
#include <limits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/math/activation_fns.h"
#include "ops/math/broadcast.h"
#include "runtime/status_macros.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace nn {

// data[i] = act(data[i] + residual[i]) for i < n, act one of None / Relu /
// Relu6 (the tail of a [BiasAdd, Add, act] epilogue that no backend fused).
template <typename T>
void AddResidualActivate(const T* __restrict residual, T* __restrict data,
                         int64_t n, ops::Activation act) {
  const T hi = act == ops::Activation::kRelu6
                   ? T(6)
                   : std::numeric_limits<T>::infinity();
  if (act == ops::Activation::kNone) {
    for (int64_t i = 0; i < n; ++i) data[i] = data[i] + residual[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    T v = data[i] + residual[i];
    v = T(0) > v ? T(0) : v;
    data[i] = v > hi ? hi : v;
  }
}

// act(conv_out + addend) with NumPy broadcasting (the output takes the
// broadcast shape). Errors: dtype mismatch, incompatible shapes.
template <typename T>
absl::StatusOr<Tensor> BroadcastAddActivate(const Tensor& conv_out,
                                            const Tensor& addend,
                                            ops::Activation act) {
  if (addend.dtype() != conv_out.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the Add fused into the convolution expects an addend "
                     "of the convolution's dtype, got ",
                     addend.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      ops::BroadcastPlan plan,
      ops::MakeBroadcastPlan(conv_out.shape(), addend.shape()));
  GRAPHRT_ASSIGN_OR_RETURN(Tensor out, Tensor::AllocateUninitialized(
                                           conv_out.dtype(), plan.out_shape));
  const T hi = act == ops::Activation::kRelu6
                   ? T(6)
                   : std::numeric_limits<T>::infinity();
  const bool clamp = act != ops::Activation::kNone;
  ops::BroadcastApply(plan, conv_out.data<T>(), addend.data<T>(),
                      out.mutable_data<T>(), ops::kParallelMinElements,
                      [clamp, hi](T a, T b) {
                        T v = a + b;
                        if (!clamp) return v;
                        v = T(0) > v ? T(0) : v;
                        return v > hi ? hi : v;
                      });
  return out;
}

}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_RESIDUAL_ADD_H_
