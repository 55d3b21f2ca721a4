// Scalar helpers for element-wise kernels: integer arithmetic that wraps
// on overflow (TF's CPU behaviour) without signed-overflow UB, and the
// division / modulo / power variants TF defines (Div, FloorDiv, FloorMod,
// Mod, Pow). Integer callers check divisors for zero (and Pow exponents
// for negatives) before calling; the helpers themselves never trap:
// MIN / -1 wraps to MIN and MIN % -1 is 0.
#ifndef GRAPHRT_OPS_MATH_CWISE_FNS_H_
#define GRAPHRT_OPS_MATH_CWISE_FNS_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

namespace graphrt {
namespace ops {

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
struct IsComplexType : std::false_type {};
template <typename T>
struct IsComplexType<std::complex<T>> : std::true_type {};
template <typename T>
constexpr bool kIsComplex = IsComplexType<T>::value;

// Unsigned type wide enough that arithmetic on it wraps without promotion
// to (signed) int.
template <typename T, bool = kIsInt<T>>
struct WrapType {
  using type = T;
};
template <typename T>
struct WrapType<T, true> {
  using type =
      std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
};
template <typename T>
using Wrap = typename WrapType<T>::type;

template <typename T>
inline T WrapAdd(T a, T b) {
  if constexpr (kIsInt<T>) {
    return static_cast<T>(static_cast<Wrap<T>>(a) + static_cast<Wrap<T>>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T WrapSub(T a, T b) {
  if constexpr (kIsInt<T>) {
    return static_cast<T>(static_cast<Wrap<T>>(a) - static_cast<Wrap<T>>(b));
  } else {
    return a - b;
  }
}
template <typename T>
inline T WrapMul(T a, T b) {
  if constexpr (kIsInt<T>) {
    return static_cast<T>(static_cast<Wrap<T>>(a) * static_cast<Wrap<T>>(b));
  } else {
    return a * b;
  }
}
template <typename T>
inline T WrapNeg(T a) {
  if constexpr (kIsInt<T>) {
    return static_cast<T>(Wrap<T>(0) - static_cast<Wrap<T>>(a));
  } else {
    return -a;
  }
}

// Truncating integer division (b != 0); true division otherwise.
template <typename T>
inline T TruncDiv(T a, T b) {
  if constexpr (kIsInt<T> && std::is_signed_v<T>) {
    if (b == T(-1)) return WrapNeg(a);
  }
  return static_cast<T>(a / b);
}

// Truncated remainder (sign of the dividend), C's % / fmod.
template <typename T>
inline T TruncMod(T a, T b) {
  if constexpr (kIsInt<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return T(0);
    }
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

// Division rounded toward -inf; floor(a / b) for floating point.
template <typename T>
inline T FloorDiv(T a, T b) {
  if constexpr (kIsInt<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return WrapNeg(a);
      const T q = static_cast<T>(a / b);
      const T r = static_cast<T>(a % b);
      return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
    } else {
      return static_cast<T>(a / b);
    }
  } else {
    return std::floor(a / b);
  }
}

// Remainder with the sign of the divisor (Python's %).
template <typename T>
inline T FloorMod(T a, T b) {
  const T r = TruncMod(a, b);
  if constexpr (std::is_unsigned_v<T>) {
    return r;
  } else {
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? static_cast<T>(r + b)
                                                     : r;
  }
}

// Integer power by squaring (e >= 0), wrapping on overflow.
template <typename T>
inline T IntPow(T base, T e) {
  Wrap<T> result = 1;
  Wrap<T> b = static_cast<Wrap<T>>(base);
  while (e > T(0)) {
    if (e & T(1)) result = static_cast<Wrap<T>>(result * b);
    b = static_cast<Wrap<T>>(b * b);
    e = static_cast<T>(e >> 1);
  }
  return static_cast<T>(result);
}

// NaN-propagating max / min (TF's Maximum / Minimum): NaN if either
// operand is NaN.
template <typename T>
inline T NanMax(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return (a > b || a != a) ? a : b;
  } else {
    return a > b ? a : b;
  }
}
template <typename T>
inline T NanMin(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return (a < b || a != a) ? a : b;
  } else {
    return a < b ? a : b;
  }
}

}  // namespace ops
}  // namespace graphrt

#endif  // GRAPHRT_OPS_MATH_CWISE_FNS_H_
