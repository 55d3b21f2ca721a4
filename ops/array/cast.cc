// Cast: converts between the numeric dtypes and bool with TF's rules:
// integer -> integer wraps (two's complement), float -> integer truncates
// toward zero, x -> bool is x != 0, bool -> x is 0/1. Where C++ would have
// undefined behaviour (float -> integer out of range or NaN) the value is
// saturated instead: NaN -> 0, too large -> max, too small -> min.
// The Truncate attr (float rounding mode) is ignored.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

template <typename T>
constexpr bool kIsHalf =
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// Floating value -> integer type D: truncation toward zero, saturated.
template <typename D, typename F>
D FloatToInt(F x) {
  if (std::isnan(x)) return D(0);
  // 2^digits is exactly representable in F, unlike max().
  const F upper = std::ldexp(F(1), std::numeric_limits<D>::digits);
  if (x >= upper) return std::numeric_limits<D>::max();
  if constexpr (std::is_signed_v<D>) {
    if (x < -upper) return std::numeric_limits<D>::min();
  } else {
    if (x <= F(-1)) return D(0);
  }
  return static_cast<D>(x);
}

template <typename S, typename D>
D Convert(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    if constexpr (kIsHalf<S>) {
      return static_cast<float>(x) != 0.0f;
    } else {
      return x != S(0);
    }
  } else if constexpr (kIsHalf<S>) {
    return Convert<float, D>(static_cast<float>(x));
  } else if constexpr (kIsHalf<D>) {
    if constexpr (std::is_same_v<S, bool>) {
      return D(x ? 1.0f : 0.0f);
    } else {
      return D(static_cast<float>(x));
    }
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    return FloatToInt<D>(x);
  } else {
    return static_cast<D>(x);
  }
}

template <typename S, typename D>
void CastLoop(const S* in, D* out, int64_t n) {
  ops::ParallelFor(n, ops::kParallelMinElements,
                   [in, out](int64_t begin, int64_t end) {
                     for (int64_t i = begin; i < end; ++i) {
                       out[i] = Convert<S, D>(in[i]);
                     }
                   });
}

// Dispatches `f(TypeTag<T>)` over every dtype Cast supports.
template <typename F>
absl::Status DispatchCastType(DType dtype, F&& f) {
  return ops::DispatchDType<float, double, float16, bfloat16, int8_t, int16_t,
                            int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                            uint64_t, bool>(dtype, "Cast", f);
}

bool IsCastType(DType dtype) {
  return ops::IsOneOf<float, double, float16, bfloat16, int8_t, int16_t,
                      int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
                      bool>(dtype);
}

class CastKernel : public Kernel {
 public:
  // src == kInvalid: take the input's dtype.
  CastKernel(DType src, DType dst) : src_(src), dst_(dst) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& in = ctx.input(0);
    if (src_ != DType::kInvalid && in.dtype() != src_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(src_),
                       " (SrcT), got ", in.DebugString()));
    }
    if (!IsCastType(in.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot cast ", in.DebugString(), " to ", DTypeName(dst_)));
    }
    if (in.dtype() == dst_) {
      ctx.set_output(0, in);
      return absl::OkStatus();
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * out, ctx.allocate_output_uninitialized(0, dst_, in.shape()));
    const int64_t n = in.num_elements();
    return DispatchCastType(in.dtype(), [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      return DispatchCastType(dst_, [&](auto dst_tag) {
        using D = typename decltype(dst_tag)::type;
        CastLoop<S, D>(in.data<S>(), out->mutable_data<D>(), n);
        return absl::OkStatus();
      });
    });
  }

 private:
  DType src_;
  DType dst_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateCast(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType dst, attrs.RequireType("DstT"));
  GRAPHRT_ASSIGN_OR_RETURN(DType src, attrs.GetType("SrcT", DType::kInvalid));
  if (!IsCastType(dst)) {
    return attrs.Error("DstT",
                       absl::StrCat("has unsupported dtype ", DTypeName(dst)));
  }
  if (src != DType::kInvalid && !IsCastType(src)) {
    return attrs.Error("SrcT",
                       absl::StrCat("has unsupported dtype ", DTypeName(src)));
  }
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cast '", init.node.name(), "' needs 1 input, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new CastKernel(src, dst));
}

}  // namespace

void RegisterCast(OpRegistry& r) { r.Register("Cast", CreateCast); }

}  // namespace graphrt
