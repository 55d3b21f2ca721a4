// Mean: averages input 0 over the axes in input 1 (reduction_indices:
// int32/int64 scalar or vector; negative axes count from the end;
// duplicates allowed). keep_dims keeps reduced dims as size 1.
// Floating types accumulate in double. Integer types follow TF: the sum is
// taken in 64 bits (wrapping) and divided by the count with truncation.
// Averaging over zero elements gives NaN for floats and 0 for integers.
#include <cstdint>
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

// Accumulator type: double for floating types, uint64 (wrapping) for
// integers.
template <typename T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

// The input's dims with size-1 dims dropped and adjacent dims of the same
// kind (reduced or kept) merged, outermost first.
struct ReductionPlan {
  std::vector<int64_t> dims;
  std::vector<bool> reduced;
};

ReductionPlan Collapse(const Shape& shape, const std::vector<bool>& reduced) {
  ReductionPlan p;
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape.dim(i) == 1) continue;
    if (!p.dims.empty() && p.reduced.back() == reduced[i]) {
      p.dims.back() *= shape.dim(i);
    } else {
      p.dims.push_back(shape.dim(i));
      p.reduced.push_back(reduced[i]);
    }
  }
  if (p.dims.empty()) {  // one element
    p.dims.push_back(1);
    p.reduced.push_back(false);
  }
  return p;
}

// Sums `in` into acc[out_size] along the plan's reduced dims.
template <typename T>
void SumInto(const T* in, const ReductionPlan& p, Acc<T>* acc) {
  const int n = static_cast<int>(p.dims.size());
  // Output strides of the collapsed dims (0 for reduced ones).
  std::vector<int64_t> ostride(n, 0);
  int64_t s = 1;
  for (int i = n - 1; i >= 0; --i) {
    if (!p.reduced[i]) {
      ostride[i] = s;
      s *= p.dims[i];
    }
  }
  const int64_t inner = p.dims[n - 1];
  const bool inner_reduced = p.reduced[n - 1];
  int64_t rows = 1;
  for (int i = 0; i < n - 1; ++i) rows *= p.dims[i];
  std::vector<int64_t> idx(n > 1 ? n - 1 : 0, 0);
  int64_t out_off = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = in + r * inner;
    if (inner_reduced) {
      Acc<T> sum = 0;
      for (int64_t j = 0; j < inner; ++j) sum += static_cast<Acc<T>>(x[j]);
      acc[out_off] += sum;
    } else {
      Acc<T>* a = acc + out_off;
      for (int64_t j = 0; j < inner; ++j) a[j] += static_cast<Acc<T>>(x[j]);
    }
    for (int i = n - 2; i >= 0; --i) {
      out_off += ostride[i];
      if (++idx[i] < p.dims[i]) break;
      out_off -= ostride[i] * p.dims[i];
      idx[i] = 0;
    }
  }
}

template <typename T>
void MeanTyped(const Tensor& in, const std::vector<bool>& reduced,
               Tensor* out) {
  const int64_t out_size = out->num_elements();
  const int64_t count = in.num_elements() / out_size;
  std::vector<Acc<T>> acc(out_size, Acc<T>(0));
  if (count > 0)
    SumInto<T>(in.data<T>(), Collapse(in.shape(), reduced), acc.data());
  T* o = out->mutable_data<T>();
  for (int64_t i = 0; i < out_size; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      o[i] = static_cast<T>(acc[i] / static_cast<double>(count));
    } else if constexpr (std::is_signed_v<T>) {
      o[i] = count == 0 ? T(0)
                        : static_cast<T>(static_cast<int64_t>(acc[i]) / count);
    } else {
      o[i] = count == 0 ? T(0)
                        : static_cast<T>(acc[i] / static_cast<uint64_t>(count));
    }
  }
}

class MeanKernel : public Kernel {
 public:
  MeanKernel(bool keep_dims, DType t) : keep_dims_(keep_dims), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& in = ctx.input(0);
    if (t_ != DType::kInvalid && in.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", in.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        std::vector<int64_t> axes,
        ops::ReadIntVector(ctx.input(1), "reduction_indices"));
    const int rank = in.rank();
    std::vector<bool> reduced(rank, false);
    for (int64_t axis : axes) {
      if (axis < -rank || axis >= rank) {
        return absl::InvalidArgumentError(
            absl::StrCat("invalid reduction dimension ", axis, " for input ",
                         in.DebugString(), " with ", rank, " dimension(s)"));
      }
      reduced[axis < 0 ? axis + rank : axis] = true;
    }
    Shape out_shape;
    for (int i = 0; i < rank; ++i) {
      if (!reduced[i]) {
        out_shape.AddDim(in.dim(i));
      } else if (keep_dims_) {
        out_shape.AddDim(1);
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, in.dtype(), out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t>(
        in.dtype(), "Mean", [&](auto tag) {
          using T = typename decltype(tag)::type;
          MeanTyped<T>(in, reduced, out);
          return absl::OkStatus();
        });
  }

 private:
  bool keep_dims_;
  DType t_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateMean(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(bool keep_dims, attrs.GetBool("keep_dims", false));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid &&
      !ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                    uint16_t, uint32_t, uint64_t>(t)) {
    return attrs.Error("T",
                       absl::StrCat("has unsupported dtype ", DTypeName(t)));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType tidx, attrs.GetType("Tidx", DType::kInt32));
  if (tidx != DType::kInt32 && tidx != DType::kInt64) {
    return attrs.Error(
        "Tidx", absl::StrCat("must be int32 or int64, got ", DTypeName(tidx)));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Mean '", init.node.name(), "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new MeanKernel(keep_dims, t));
}

}  // namespace

void RegisterMean(OpRegistry& r) { r.Register("Mean", CreateMean); }

}  // namespace graphrt
