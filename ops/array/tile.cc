// Tile (input, multiples), BroadcastTo (input, shape) and BroadcastArgs
// (s0, s1). Tile and BroadcastTo are strided copies with zero strides:
// Tile views the output [m0*d0, m1*d1, ...] as [m0, d0, m1, d1, ...] with
// stride 0 on every m_i. Any dtype. Output sizes are checked for int64
// overflow before allocating.
#include <algorithm>
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

absl::Status TileRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  const Tensor& mt = ctx.input(1);
  if (mt.rank() != 1 || mt.num_elements() != x.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected multiples to be a vector of length ", x.rank(),
        " (the rank of ", x.DebugString(), "), got ", mt.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector m,
                           ops::ReadIntVector(mt, "multiples"));
  const int rank = x.rank();
  ops::DimVector out_dims(rank);
  for (int i = 0; i < rank; ++i) {
    if (m[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected multiples[", i, "] >= 0, got ", m[i]));
    }
    if (x.dim(i) != 0 && m[i] > INT64_MAX / x.dim(i)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tiling ", x.DebugString(), " by [",
                       absl::StrJoin(m, ","), "] overflows"));
    }
    out_dims[i] = x.dim(i) * m[i];
  }
  GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape, Shape::Make(out_dims));
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
  if (out->num_elements() == 0) return absl::OkStatus();
  const ops::DimVector in_strides = ops::RowMajorStrides(x.shape());
  std::vector<int64_t> dims, strides;
  for (int i = 0; i < rank; ++i) {
    dims.push_back(m[i]);
    strides.push_back(0);
    dims.push_back(x.dim(i));
    strides.push_back(in_strides[i]);
  }
  ops::StridedCopy(x.dtype(), x.raw_data(), 0, dims, strides, out->raw_data());
  return absl::OkStatus();
}

absl::Status BroadcastToRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected shape to be a vector, got ", ctx.input(1).DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector dims,
                           ops::ReadIntVector(ctx.input(1), "shape"));
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected a non-negative shape, got [",
                       absl::StrJoin(dims, ","), "]"));
    }
  }
  const int rank = static_cast<int>(dims.size());
  if (x.rank() > rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank of input ", x.DebugString(),
                     " must be no greater than the rank of the output shape [",
                     absl::StrJoin(dims, ","), "]"));
  }
  const ops::DimVector in_strides = ops::RowMajorStrides(x.shape());
  std::vector<int64_t> strides(rank, 0);
  const int lead = rank - x.rank();
  for (int i = 0; i < x.rank(); ++i) {
    const int64_t d = x.dim(i);
    const int64_t o = dims[lead + i];
    if (d == o) {
      strides[lead + i] = in_strides[i];
    } else if (d != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unable to broadcast tensor of shape ", x.shape().ToString(),
          " to tensor of shape [", absl::StrJoin(dims, ","), "]"));
    }
  }
  GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape, Shape::Make(dims));
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
  ops::StridedCopy(x.dtype(), x.raw_data(), 0, dims, strides, out->raw_data());
  return absl::OkStatus();
}

absl::Status BroadcastArgsRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.rank() != 1 || b.rank() != 1 || a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected s0 and s1 to be vectors of one dtype, got ",
                     a.DebugString(), " and ", b.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector x, ops::ReadIntVector(a, "s0"));
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector y, ops::ReadIntVector(b, "s1"));
  const size_t rank = std::max(x.size(), y.size());
  ops::DimVector out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t xd = i < rank - x.size() ? 1 : x[i - (rank - x.size())];
    const int64_t yd = i < rank - y.size() ? 1 : y[i - (rank - y.size())];
    if (xd < 0 || yd < 0 || (xd != yd && xd != 1 && yd != 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Incompatible shapes: [", absl::StrJoin(x, ","),
                       "] vs. [", absl::StrJoin(y, ","), "]"));
    }
    out[i] = xd == 1 ? yd : xd;
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * t,
      ctx.allocate_output(0, a.dtype(), Shape({static_cast<int64_t>(rank)})));
  for (size_t i = 0; i < rank; ++i) {
    if (a.dtype() == DType::kInt32) {
      t->mutable_data<int32_t>()[i] = static_cast<int32_t>(out[i]);
    } else {
      t->mutable_data<int64_t>()[i] = out[i];
    }
  }
  return absl::OkStatus();
}

template <KernelFn fn>
absl::StatusOr<std::unique_ptr<Kernel>> Create(const KernelInit&) {
  return MakeFunctionKernel(fn);
}

}  // namespace

void RegisterTile(OpRegistry& r) {
  r.Register("Tile", Create<TileRun>);
  r.Register("BroadcastTo", Create<BroadcastToRun>);
  r.Register("BroadcastArgs", Create<BroadcastArgsRun>);
}

}  // namespace graphrt
