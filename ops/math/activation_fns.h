// Element-wise activation functions shared by the activation kernels
// (Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh) and the fused kernels
// (_FusedMatMul ...). Each follows TF's CPU formula:
//   Relu      max(x, 0)
//   Relu6     min(max(x, 0), 6)
//   Elu       x < 0 ? exp(x) - 1 : x
//   LeakyRelu x > 0 ? x : alpha * x
//   Sigmoid   1 / (1 + exp(-x))   (Eigen's logistic)
//   Tanh      tanh(x)
// Evaluated with Eigen array expressions so the loops vectorise.
#ifndef GRAPHRT_OPS_MATH_ACTIVATION_FNS_H_
#define GRAPHRT_OPS_MATH_ACTIVATION_FNS_H_

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
};

// Maps a TF op name ("Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid",
// "Tanh") to its Activation; nullopt for anything else.
inline std::optional<Activation> ActivationFromName(absl::string_view name) {
  if (name == "Relu") return Activation::kRelu;
  if (name == "Relu6") return Activation::kRelu6;
  if (name == "Elu") return Activation::kElu;
  if (name == "LeakyRelu") return Activation::kLeakyRelu;
  if (name == "Sigmoid") return Activation::kSigmoid;
  if (name == "Tanh") return Activation::kTanh;
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
// `alpha` is LeakyRelu's slope. Types for which the activation is not
// supported (see ActivationSupports) are left unchanged.
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
      default:
        return;
    }
  }
}

}  // namespace ops
}  // namespace graphrt

#endif  // GRAPHRT_OPS_MATH_ACTIVATION_FNS_H_
