// Cumsum, Cumprod: running sum / product along `axis` (input 1, int32 or
// int64 scalar; negative counts from the end). Attrs: exclusive (output i
// folds elements before i, the first output is 0 / 1) and reverse (fold
// from the end). Numeric and complex dtypes; integers wrap; floats
// accumulate in T, in order, like TF's scan. The input is viewed as
// [outer, n, inner]; outer slices are split over oneTBB.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/cwise_fns.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

bool Supports(DType d) {
  return ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                      uint16_t, uint32_t, uint64_t, complex64, complex128>(d);
}

template <typename T, bool kProd>
void Scan(const T* in, T* out, int64_t outer, int64_t n, int64_t inner,
          bool exclusive, bool reverse) {
  const int64_t slice = n * inner;
  const int64_t min_outer =
      slice >= ops::kParallelMinElements
          ? 2
          : (ops::kParallelMinElements + slice - 1) / slice;
  ops::ParallelFor(outer, min_outer, [&](int64_t begin, int64_t end) {
    std::vector<T> acc(static_cast<size_t>(inner));
    for (int64_t o = begin; o < end; ++o) {
      const T* x = in + o * slice;
      T* y = out + o * slice;
      std::fill(acc.begin(), acc.end(), kProd ? T(1) : T(0));
      for (int64_t s = 0; s < n; ++s) {
        const int64_t k = reverse ? n - 1 - s : s;
        const T* xr = x + k * inner;
        T* yr = y + k * inner;
        for (int64_t j = 0; j < inner; ++j) {
          const T next =
              kProd ? ops::WrapMul(acc[j], xr[j]) : ops::WrapAdd(acc[j], xr[j]);
          yr[j] = exclusive ? acc[j] : next;
          acc[j] = next;
        }
      }
    }
  });
}

class CumKernel : public Kernel {
 public:
  CumKernel(bool prod, bool exclusive, bool reverse, DType t)
      : prod_(prod), exclusive_(exclusive), reverse_(reverse), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    if (t_ != DType::kInvalid && x.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", x.DebugString()));
    }
    const char* name = prod_ ? "Cumprod" : "Cumsum";
    if (!Supports(x.dtype())) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " does not support dtype ", DTypeName(x.dtype())));
    }
    if (ctx.input(1).rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected axis to be a scalar, got ", ctx.input(1).DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int64_t axis_raw,
                             ops::ReadIntScalar(ctx.input(1), "axis"));
    if (x.rank() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " expects an input of rank >= 1, got ", x.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int axis,
                             ops::NormalizeAxis(axis_raw, x.rank(), "axis"));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), x.shape()));
    if (x.num_elements() == 0) return absl::OkStatus();
    const int64_t outer = ops::DimProduct(x.shape(), 0, axis);
    const int64_t n = x.dim(axis);
    const int64_t inner = ops::DimProduct(x.shape(), axis + 1, x.rank());
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t, complex64,
                              complex128>(x.dtype(), name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (prod_) {
        Scan<T, true>(x.data<T>(), out->mutable_data<T>(), outer, n, inner,
                      exclusive_, reverse_);
      } else {
        Scan<T, false>(x.data<T>(), out->mutable_data<T>(), outer, n, inner,
                       exclusive_, reverse_);
      }
      return absl::OkStatus();
    });
  }

 private:
  bool prod_, exclusive_, reverse_;
  DType t_;
};

template <bool kProd>
absl::StatusOr<std::unique_ptr<Kernel>> CreateCum(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(bool exclusive, attrs.GetBool("exclusive", false));
  GRAPHRT_ASSIGN_OR_RETURN(bool reverse, attrs.GetBool("reverse", false));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !Supports(t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType tidx, attrs.GetType("Tidx", DType::kInt32));
  if (tidx != DType::kInt32 && tidx != DType::kInt64) {
    return attrs.Error(
        "Tidx", absl::StrCat("must be int32 or int64, got ", DTypeName(tidx)));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new CumKernel(kProd, exclusive, reverse, t));
}

}  // namespace

void RegisterCumulative(OpRegistry& r) {
  r.Register("Cumsum", CreateCum<false>);
  r.Register("Cumprod", CreateCum<true>);
}

}  // namespace graphrt
