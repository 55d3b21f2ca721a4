// Element-wise activation functions shared by the activation kernels
// (Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, _HardSwish) and the fused
// kernels (_FusedMatMul ...). Each follows TF's CPU formula:
//   Relu      max(x, 0)
//   Relu6     min(max(x, 0), 6)
//   Elu       x < 0 ? exp(x) - 1 : x
//   LeakyRelu x > 0 ? x : alpha * x
//   Sigmoid   1 / (1 + exp(-x))   (Eigen's logistic)
//   Tanh      tanh(x)
//   _HardSwish (x * scale) * min(max(x + 3, 0), 6)   (scale: 1/6)
// _HardSwish is graphrt's own op: the load-time pass FuseHardSwish
// (converter/passes/passes.h) makes it from Keras' MobileNetV3 hard-swish,
// Mul(Mul(x, scale), Relu6(Add(x, 3))), computing the same float
// operations in the same order, so its results are bit-identical to the
// four ops'. `scale` is an attr: TF.js's float16-quantized graphs store 1/6
// as 0.16662598.
// Evaluated with Eigen array expressions so the loops vectorise.
#ifndef GRAPHRT_OPS_MATH_ACTIVATION_FNS_H_
#define GRAPHRT_OPS_MATH_ACTIVATION_FNS_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "Eigen/Core"
#include "absl/strings/string_view.h"

namespace graphrt {
namespace ops {

enum class Activation {
  kNone,  // identity
  kRelu,
  kRelu6,
  kElu,
  kLeakyRelu,
  kSigmoid,
  kTanh,
  kHardSwish,
};

// kHardSwish: (x * scale) * relu6(x + kHardSwishOffset); the scale is the
// activation's parameter (default kHardSwishScale).
inline constexpr float kHardSwishScale = 1.0f / 6.0f;
inline constexpr float kHardSwishOffset = 3.0f;

// Maps an op name ("Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh",
// "_HardSwish") to its Activation; nullopt for anything else.
inline std::optional<Activation> ActivationFromName(absl::string_view name) {
  if (name == "Relu") return Activation::kRelu;
  if (name == "Relu6") return Activation::kRelu6;
  if (name == "Elu") return Activation::kElu;
  if (name == "LeakyRelu") return Activation::kLeakyRelu;
  if (name == "Sigmoid") return Activation::kSigmoid;
  if (name == "Tanh") return Activation::kTanh;
  if (name == "_HardSwish") return Activation::kHardSwish;
  return std::nullopt;
}

// True if `act` is defined for element type T: Relu / Relu6 for every
// numeric type, the others for floating point only.
template <typename T>
constexpr bool ActivationSupports(Activation act) {
  if (std::is_floating_point_v<T>) return true;
  return act == Activation::kNone || act == Activation::kRelu ||
         act == Activation::kRelu6;
}

// out[i] = act(in[i]) for i < n. `in` may equal `out` (in place).
// `alpha` is LeakyRelu's slope or _HardSwish's scale. Types for which the
// activation is not supported (see ActivationSupports) are left unchanged.
template <typename T>
void ApplyActivation(Activation act, float alpha, const T* in, T* out,
                     int64_t n) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<const Array> x(in, n);
  Eigen::Map<Array> y(out, n);
  switch (act) {
    case Activation::kNone:
      if (in != out) y = x;
      return;
    case Activation::kRelu:
      y = x.cwiseMax(T(0));
      return;
    case Activation::kRelu6:
      y = x.cwiseMax(T(0)).cwiseMin(T(6));
      return;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (act) {
      case Activation::kElu:
        y = (x < T(0)).select(x.exp() - T(1), x);
        return;
      case Activation::kLeakyRelu: {
        // A plain loop, not Eigen's select (not vectorized by Eigen 3.4):
        // with -fno-trapping-math (.bazelrc) GCC turns it into a blend.
        const T a = static_cast<T>(alpha);
        for (int64_t i = 0; i < n; ++i) {
          const T v = in[i];
          out[i] = v > T(0) ? v : v * a;
        }
        return;
      }
      case Activation::kSigmoid:
        y = x.logistic();
        return;
      case Activation::kTanh:
        y = x.tanh();
        return;
      case Activation::kHardSwish: {
        const T scale = static_cast<T>(alpha);
        const T offset = static_cast<T>(kHardSwishOffset);
        for (int64_t i = 0; i < n; ++i) {
          const T v = in[i];
          const T r = std::min(std::max(v + offset, T(0)), T(6));
          out[i] = (v * scale) * r;
        }
        return;
      }
      default:
        return;
    }
  }
}

}  // namespace ops
}  // namespace graphrt

#endif  // GRAPHRT_OPS_MATH_ACTIVATION_FNS_H_
