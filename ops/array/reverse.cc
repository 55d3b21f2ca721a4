// Reverse (tensor, dims: bool[rank]) and ReverseV2 (tensor, axis: int32 or
// int64 vector, negative allowed, no repeats) flip the selected dims. Any
// dtype. The copy is a strided view with negated strides.
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

absl::Status EmitReversed(KernelContext& ctx, const Tensor& x,
                          const std::vector<bool>& flip) {
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                           ctx.allocate_output(0, x.dtype(), x.shape()));
  if (out->num_elements() == 0) return absl::OkStatus();
  ops::DimVector strides = ops::RowMajorStrides(x.shape());
  int64_t offset = 0;
  for (int i = 0; i < x.rank(); ++i) {
    if (!flip[i]) continue;
    offset += (x.dim(i) - 1) * strides[i];
    strides[i] = -strides[i];
  }
  ops::StridedCopy(x.dtype(), x.raw_data(), offset, x.shape().dims(), strides,
                   out->raw_data());
  return absl::OkStatus();
}

absl::Status ReverseRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  const Tensor& dims = ctx.input(1);
  if (dims.dtype() != DType::kBool || dims.rank() != 1 ||
      dims.num_elements() != x.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected dims to be a bool vector of length ", x.rank(),
        " (the rank of ", x.DebugString(), "), got ", dims.DebugString()));
  }
  std::vector<bool> flip(x.rank());
  for (int i = 0; i < x.rank(); ++i) flip[i] = dims.data<bool>()[i];
  return EmitReversed(ctx, x, flip);
}

absl::Status ReverseV2Run(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected axis to be a vector, got ", ctx.input(1).DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector axes,
                           ops::ReadIntVector(ctx.input(1), "axis"));
  std::vector<bool> flip(x.rank(), false);
  for (int64_t a : axes) {
    GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                             ops::NormalizeAxis(a, x.rank(), "axis"));
    if (flip[axis]) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", axis, " specified more than once in [",
                       absl::StrJoin(axes, ","), "]"));
    }
    flip[axis] = true;
  }
  return EmitReversed(ctx, x, flip);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateReverse(const KernelInit&) {
  return MakeFunctionKernel(ReverseRun);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateReverseV2(const KernelInit&) {
  return MakeFunctionKernel(ReverseV2Run);
}

}  // namespace

void RegisterReverse(OpRegistry& r) {
  r.Register("Reverse", CreateReverse);
  r.Register("ReverseV2", CreateReverseV2);
}

}  // namespace graphrt
