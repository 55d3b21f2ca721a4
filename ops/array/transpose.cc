// Transpose (x, perm): out.shape[i] = x.shape[perm[i]], any dtype, perm
// int32/int64 and a permutation of [0, rank). The copy is a strided view
// (strided_copy.h): perms that keep dims adjacent collapse, and batched
// 2-D transposes (NHWC<->NCHW, [1,0]) copy in tiles.
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

absl::Status TransposeRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  const Tensor& perm_t = ctx.input(1);
  if (perm_t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected perm to be a vector, got ", perm_t.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector perm,
                           ops::ReadIntVector(perm_t, "perm"));
  const int rank = x.rank();
  if (static_cast<int>(perm.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "transpose expects a vector of size ", rank, " (the rank of x ",
        x.DebugString(), "), got perm [", absl::StrJoin(perm, ","), "]"));
  }
  absl::InlinedVector<bool, 8> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("perm value ", p, " is out of range [0, ", rank,
                       ") in [", absl::StrJoin(perm, ","), "]"));
    }
    if (seen[p]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "perm [", absl::StrJoin(perm, ","), "] has ", p, " twice"));
    }
    seen[p] = true;
  }
  const ops::DimVector in_strides = ops::RowMajorStrides(x.shape());
  Shape out_shape;
  ops::DimVector strides(rank);
  for (int i = 0; i < rank; ++i) {
    out_shape.AddDim(x.dim(static_cast<int>(perm[i])));
    strides[i] = in_strides[perm[i]];
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
  ops::StridedCopy(x.dtype(), x.raw_data(), 0, out_shape.dims(), strides,
                   out->raw_data());
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateTranspose(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType tperm, attrs.GetType("Tperm", DType::kInt32));
  if (tperm != DType::kInt32 && tperm != DType::kInt64) {
    return attrs.Error("Tperm", absl::StrCat("must be int32 or int64, got ",
                                             DTypeName(tperm)));
  }
  return MakeFunctionKernel(TransposeRun);
}

}  // namespace

void RegisterTranspose(OpRegistry& r) {
  r.Register("Transpose", CreateTranspose);
}

}  // namespace graphrt
