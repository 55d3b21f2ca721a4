// GatherNd (params, indices): indices [..., K] (int32/int64) index the
// first K dims of params; out.shape = indices.shape[:-1] +
// params.shape[K:]. Any params dtype. Every index is checked (TF's CPU
// kernel errors on out-of-range indices rather than zero-filling).
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

inline int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt32 ? int64_t{t.data<int32_t>()[i]}
                                    : t.data<int64_t>()[i];
}

absl::Status GatherNdRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected indices of dtype int32 or int64, got ",
                     indices.DebugString()));
  }
  if (indices.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices must be at least a vector, got ", indices.DebugString()));
  }
  const int64_t depth = indices.dim(indices.rank() - 1);
  if (depth > params.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index innermost dimension length must be <= params rank; saw: ", depth,
        " vs. ", params.rank(), " (params ", params.DebugString(), ", indices ",
        indices.DebugString(), ")"));
  }
  const int k = static_cast<int>(depth);
  Shape out_shape;
  for (int i = 0; i + 1 < indices.rank(); ++i) out_shape.AddDim(indices.dim(i));
  for (int i = k; i < params.rank(); ++i) out_shape.AddDim(params.dim(i));
  const int64_t n = ops::DimProduct(indices.shape(), 0, indices.rank() - 1);
  const int64_t slice = ops::DimProduct(params.shape(), k, params.rank());
  // Offsets of every index tuple, checked before writing.
  GRAPHRT_ASSIGN_OR_RETURN(auto offsets, ops::ScratchArray<int64_t>::Make(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int j = 0; j < k; ++j) {
      const int64_t v = IndexAt(indices, i * k + j);
      if (v < 0 || v >= params.dim(j)) {
        std::vector<int64_t> tuple(k);
        for (int t = 0; t < k; ++t) tuple[t] = IndexAt(indices, i * k + t);
        return absl::InvalidArgumentError(absl::StrCat(
            "indices[", i, "] = [", absl::StrJoin(tuple, ", "),
            "] does not index into param shape ", params.shape().ToString()));
      }
      off = off * params.dim(j) + v;
    }
    offsets[i] = off * slice;
  }
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                           ctx.allocate_output(0, params.dtype(), out_shape));
  if (out->num_elements() == 0) return absl::OkStatus();
  const DType dtype = params.dtype();
  const int64_t min_rows =
      std::max<int64_t>(1, ops::kParallelMinElements / slice);
  ops::ParallelFor(n, min_rows, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      ops::CopyElements(dtype, params.raw_data(), offsets[i], out->raw_data(),
                        i * slice, slice);
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateGatherNd(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t batch_dims, attrs.GetInt("batch_dims", 0));
  if (batch_dims != 0) {
    return attrs.Error("batch_dims", "is not supported (must be 0)");
  }
  return MakeFunctionKernel(GatherNdRun);
}

}  // namespace

void RegisterGatherNd(OpRegistry& r) { r.Register("GatherNd", CreateGatherNd); }

}  // namespace graphrt
