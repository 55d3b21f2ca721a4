// ConcatV2 (values..., axis) and Concat (axis, values...): concatenates
// tensors of any one dtype (strings included) along `axis`, which may be
// negative. All inputs need the same rank (>= 1) and equal dims except
// along `axis`.
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

class ConcatKernel : public Kernel {
 public:
  // axis_first: Concat (v1) takes the axis as input 0, ConcatV2 last.
  explicit ConcatKernel(bool axis_first) : axis_first_(axis_first) {}

  absl::Status Run(KernelContext& ctx) const override {
    const int num_values = ctx.num_inputs() - 1;
    if (num_values < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected at least 2 inputs (values and axis), got ",
                       ctx.num_inputs()));
    }
    const int first = axis_first_ ? 1 : 0;
    const Tensor& axis_t = ctx.input(axis_first_ ? 0 : num_values);
    GRAPHRT_ASSIGN_OR_RETURN(int64_t axis_value,
                             ops::ReadIntScalar(axis_t, "axis"));
    const Tensor& in0 = ctx.input(first);
    const int rank = in0.rank();
    if (rank == 0) {
      return absl::InvalidArgumentError(
          "cannot concatenate scalars (use Pack / tf.stack instead)");
    }
    GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                             ops::NormalizeAxis(axis_value, rank, "axis"));
    Shape out_shape = in0.shape();
    int64_t axis_total = 0;
    for (int k = 0; k < num_values; ++k) {
      const Tensor& in = ctx.input(first + k);
      if (in.dtype() != in0.dtype()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "all values must have the same dtype: values[0] is ",
            in0.DebugString(), ", values[", k, "] is ", in.DebugString()));
      }
      if (in.rank() != rank) {
        return absl::InvalidArgumentError(
            absl::StrCat("ranks of all values must match: shape[0] = ",
                         in0.shape().ToString(), " vs. shape[", k,
                         "] = ", in.shape().ToString()));
      }
      for (int d = 0; d < rank; ++d) {
        if (d != axis && in.dim(d) != in0.dim(d)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "dimension ", d, " in both shapes must be equal: shape[0] = ",
              in0.shape().ToString(), " vs. shape[", k, "] = ",
              in.shape().ToString(), " (concatenating on axis ", axis, ")"));
        }
      }
      axis_total += in.dim(axis);
    }
    out_shape.set_dim(axis, axis_total);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, in0.dtype(), out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();

    // View every tensor as [outer, dim(axis) * inner]; each output row is
    // the inputs' rows one after another.
    const int64_t outer = ops::DimProduct(out_shape, 0, axis);
    const int64_t inner = ops::DimProduct(out_shape, axis + 1, rank);
    const int64_t out_row = axis_total * inner;
    absl::InlinedVector<int64_t, 32> in_rows(num_values);
    for (int k = 0; k < num_values; ++k) {
      in_rows[k] = ctx.input(first + k).dim(axis) * inner;
    }
    const DType dtype = in0.dtype();
    void* dst = out->raw_data();
    auto copy_rows = [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        int64_t offset = o * out_row;
        for (int k = 0; k < num_values; ++k) {
          ops::CopyElements(dtype, ctx.input(first + k).raw_data(),
                            o * in_rows[k], dst, offset, in_rows[k]);
          offset += in_rows[k];
        }
      }
    };
    const int64_t min_rows = out_row >= ops::kParallelMinElements
                                 ? 2
                                 : ops::kParallelMinElements / out_row;
    ops::ParallelFor(outer, min_rows, copy_rows);
    return absl::OkStatus();
  }

 private:
  bool axis_first_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateConcatImpl(const KernelInit& init,
                                                         bool axis_first) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t n, attrs.GetInt("N", init.num_inputs - 1));
  if (n < 1) return attrs.Error("N", absl::StrCat("must be >= 1, got ", n));
  if (init.num_inputs != n + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        init.node.op(), " '", init.node.name(), "' has N = ", n,
        " values so needs ", n + 1, " inputs, has ", init.num_inputs));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType tidx, attrs.GetType("Tidx", DType::kInt32));
  if (tidx != DType::kInt32 && tidx != DType::kInt64) {
    return attrs.Error(
        "Tidx", absl::StrCat("must be int32 or int64, got ", DTypeName(tidx)));
  }
  return std::unique_ptr<Kernel>(new ConcatKernel(axis_first));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateConcatV2(const KernelInit& init) {
  return CreateConcatImpl(init, /*axis_first=*/false);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateConcatV1(const KernelInit& init) {
  return CreateConcatImpl(init, /*axis_first=*/true);
}

}  // namespace

void RegisterConcat(OpRegistry& r) {
  r.Register("ConcatV2", CreateConcatV2);
  r.Register("Concat", CreateConcatV1);
}

}  // namespace graphrt
