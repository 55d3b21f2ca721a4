// GatherV2 (params, indices, axis) and Gather (params, indices; axis 0):
// gathers slices of params along `axis` at int32/int64 `indices`, for any
// params dtype (strings included). Supports TF's batch_dims attr: the
// first batch_dims dims of params and indices are batch dims walked in
// lockstep. An index outside [0, params.shape[axis]) is an error, as on
// TF's CPU kernel.
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// "[1,0]": the multi-index of flat position `flat` in `shape`.
std::string MultiIndex(const Shape& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.rank());
  for (int i = shape.rank() - 1; i >= 0; --i) {
    const int64_t d = shape.dim(i);
    idx[i] = d == 0 ? 0 : flat % d;
    flat = d == 0 ? 0 : flat / d;
  }
  if (idx.empty()) return "";
  return absl::StrCat("[", absl::StrJoin(idx, ","), "]");
}

// Reads index `i` of an int32/int64 tensor.
inline int64_t IndexAt(const Tensor& indices, int64_t i) {
  return indices.dtype() == DType::kInt32 ? int64_t{indices.data<int32_t>()[i]}
                                          : indices.data<int64_t>()[i];
}

class GatherKernel : public Kernel {
 public:
  GatherKernel(bool has_axis_input, int64_t batch_dims)
      : has_axis_input_(has_axis_input), batch_dims_(batch_dims) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, has_axis_input_ ? 3 : 2));
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected indices of dtype int32 or int64, got ",
                       indices.DebugString()));
    }
    if (params.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "params must be at least 1-D, got ", params.DebugString()));
    }
    int64_t batch_dims = batch_dims_;
    const int indices_rank = indices.rank();
    if (batch_dims < -indices_rank || batch_dims > indices_rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected batch_dims in [", -indices_rank, ", ", indices_rank,
          "] for indices ", indices.DebugString(), ", got ", batch_dims));
    }
    if (batch_dims < 0) batch_dims += indices_rank;
    int64_t axis_value = batch_dims;
    if (has_axis_input_) {
      GRAPHRT_ASSIGN_OR_RETURN(axis_value,
                               ops::ReadIntScalar(ctx.input(2), "axis"));
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        const int axis, ops::NormalizeAxis(axis_value, params.rank(), "axis"));
    const int bd = static_cast<int>(batch_dims);
    if (bd > 0) {
      if (bd >= params.rank()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "batch_dims (", bd, ") must be less than rank(params) (",
            params.rank(), ")"));
      }
      if (axis < bd) {
        return absl::InvalidArgumentError(
            absl::StrCat("batch_dims (", bd,
                         ") must be less than or equal to axis (", axis, ")"));
      }
      for (int i = 0; i < bd; ++i) {
        if (params.dim(i) != indices.dim(i)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "params.shape[", i, "]: ", params.dim(i),
              " should be equal to indices.shape[", i, "]: ", indices.dim(i),
              " (params ", params.shape().ToString(), ", indices ",
              indices.shape().ToString(), ")"));
        }
      }
    }

    const Shape& ps = params.shape();
    const int64_t batch = ops::DimProduct(ps, 0, bd);
    const int64_t outer = ops::DimProduct(ps, bd, axis);
    const int64_t n = ps.dim(axis);
    const int64_t inner = ops::DimProduct(ps, axis + 1, ps.rank());
    const int64_t per_batch =
        ops::DimProduct(indices.shape(), bd, indices_rank);

    // Validate every index before writing anything.
    const int64_t num_indices = indices.num_elements();
    for (int64_t i = 0; i < num_indices; ++i) {
      const int64_t v = IndexAt(indices, i);
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("indices", MultiIndex(indices.shape(), i), " = ", v,
                         " is not in [0, ", n, ")"));
      }
    }

    Shape out_shape;
    for (int i = 0; i < axis; ++i) out_shape.AddDim(ps.dim(i));
    for (int i = bd; i < indices_rank; ++i) out_shape.AddDim(indices.dim(i));
    for (int i = axis + 1; i < ps.rank(); ++i) out_shape.AddDim(ps.dim(i));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, params.dtype(), out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();

    const DType dtype = params.dtype();
    const void* src = params.raw_data();
    void* dst = out->raw_data();
    const int64_t rows = batch * outer * per_batch;
    auto copy_rows = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % per_batch;
        const int64_t bo = r / per_batch;  // b * outer + o
        const int64_t b = bo / outer;
        const int64_t idx = IndexAt(indices, b * per_batch + i);
        ops::CopyElements(dtype, src, (bo * n + idx) * inner, dst, r * inner,
                          inner);
      }
    };
    const int64_t min_rows =
        inner >= ops::kParallelMinElements
            ? 2
            : ops::kParallelMinElements / (inner > 0 ? inner : 1);
    ops::ParallelFor(rows, min_rows, copy_rows);
    return absl::OkStatus();
  }

 private:
  bool has_axis_input_;
  int64_t batch_dims_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateGatherImpl(const KernelInit& init,
                                                         bool has_axis_input) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t batch_dims, attrs.GetInt("batch_dims", 0));
  if (batch_dims != 0 && !has_axis_input) {
    return attrs.Error("batch_dims", "is not supported by Gather (v1)");
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType tindices,
                           attrs.GetType("Tindices", DType::kInt32));
  if (tindices != DType::kInt32 && tindices != DType::kInt64) {
    return attrs.Error("Tindices", absl::StrCat("must be int32 or int64, got ",
                                                DTypeName(tindices)));
  }
  const int want = has_axis_input ? 3 : 2;
  if (init.num_inputs != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(), "' needs ", want,
                     " inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new GatherKernel(has_axis_input, batch_dims));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateGatherV2(const KernelInit& init) {
  return CreateGatherImpl(init, /*has_axis_input=*/true);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateGatherV1(const KernelInit& init) {
  return CreateGatherImpl(init, /*has_axis_input=*/false);
}

}  // namespace

void RegisterGather(OpRegistry& r) {
  r.Register("GatherV2", CreateGatherV2);
  r.Register("Gather", CreateGatherV1);
}

}  // namespace graphrt
