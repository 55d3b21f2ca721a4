// ArgMax / ArgMin: index of the largest / smallest value along the axis in
// input 1 (int32/int64 scalar; negative counts from the end), as
// output_type int32 or int64 (the default). Ties give the smallest index.
// NaN counts as larger (ArgMax) / smaller (ArgMin) than any number, so the
// first NaN wins, as in NumPy. Real numeric dtypes and bool.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

template <typename T>
inline bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// True if `v` should replace the current best `best` (strictly better, so
// ties keep the earlier index).
template <typename T, bool kMax>
inline bool Better(T v, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (IsNan(best)) return false;
    if (IsNan(v)) return true;
  }
  if constexpr (kMax) {
    return v > best;
  } else {
    return v < best;
  }
}

// in viewed as [outer, n, inner]; out[o, i] = arg-best over n.
template <typename T, typename Index, bool kMax>
void ArgReduce(const T* in, Index* out, int64_t outer, int64_t n,
               int64_t inner) {
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) {
      const T* x = in + o * n;
      int64_t best = 0;
      for (int64_t j = 1; j < n; ++j) {
        if (Better<T, kMax>(x[j], x[best])) best = j;
      }
      out[o] = static_cast<Index>(best);
    }
    return;
  }
  std::vector<T> best_val(inner);
  for (int64_t o = 0; o < outer; ++o) {
    const T* x = in + o * n * inner;
    Index* y = out + o * inner;
    for (int64_t i = 0; i < inner; ++i) {
      best_val[i] = x[i];
      y[i] = 0;
    }
    for (int64_t j = 1; j < n; ++j) {
      const T* row = x + j * inner;
      for (int64_t i = 0; i < inner; ++i) {
        if (Better<T, kMax>(row[i], best_val[i])) {
          best_val[i] = row[i];
          y[i] = static_cast<Index>(j);
        }
      }
    }
  }
}

template <bool kMax>
class ArgKernel : public Kernel {
 public:
  ArgKernel(DType output_type, DType t) : output_type_(output_type), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& in = ctx.input(0);
    if (t_ != DType::kInvalid && in.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", in.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int64_t dim,
                             ops::ReadIntScalar(ctx.input(1), "dimension"));
    if (in.rank() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must have at least 1 dimension, got ", in.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                             ops::NormalizeAxis(dim, in.rank(), "dimension"));
    const int64_t n = in.dim(axis);
    if (n == 0) {
      return absl::InvalidArgumentError(absl::StrCat("reduction axis ", dim,
                                                     " is empty in shape ",
                                                     in.shape().ToString()));
    }
    if (output_type_ == DType::kInt32 &&
        n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", axis, " of ", in.DebugString(),
                       " is too long for output_type int32"));
    }
    Shape out_shape = in.shape();
    out_shape.RemoveDim(axis);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, output_type_, out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    const int64_t outer = ops::DimProduct(in.shape(), 0, axis);
    const int64_t inner = ops::DimProduct(in.shape(), axis + 1, in.rank());
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t, bool>(
        in.dtype(), kMax ? "ArgMax" : "ArgMin", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if (output_type_ == DType::kInt32) {
            ArgReduce<T, int32_t, kMax>(
                in.data<T>(), out->mutable_data<int32_t>(), outer, n, inner);
          } else {
            ArgReduce<T, int64_t, kMax>(
                in.data<T>(), out->mutable_data<int64_t>(), outer, n, inner);
          }
          return absl::OkStatus();
        });
  }

 private:
  DType output_type_;
  DType t_;
};

template <bool kMax>
absl::StatusOr<std::unique_ptr<Kernel>> CreateArg(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType output_type,
                           attrs.GetType("output_type", DType::kInt64));
  if (output_type != DType::kInt32 && output_type != DType::kInt64) {
    return attrs.Error(
        "output_type",
        absl::StrCat("must be int32 or int64, got ", DTypeName(output_type)));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid &&
      !ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                    uint16_t, uint32_t, uint64_t, bool>(t)) {
    return attrs.Error("T",
                       absl::StrCat("has unsupported dtype ", DTypeName(t)));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new ArgKernel<kMax>(output_type, t));
}

}  // namespace

void RegisterArgMax(OpRegistry& r) {
  r.Register("ArgMax", CreateArg<true>);
  r.Register("ArgMin", CreateArg<false>);
}

}  // namespace graphrt
