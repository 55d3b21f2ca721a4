// SparseFillEmptyRows and SparseReshape on COO sparse tensors
// (indices int64 [N, rank], values [N], dense_shape int64 [rank]).
//
// SparseFillEmptyRows(indices, values, dense_shape, default_value) ->
//   output_indices [N', rank], output_values [N'], empty_row_indicator
//   bool [dense_shape[0]], reverse_index_map int64 [N].
//   Every row (first coordinate) without entries gets one entry
//   (row, 0, ..., 0) = default_value. Output is ordered by row; entries of
//   one row keep their input order (as TF's CPU kernel).
// SparseReshape(input_indices, input_shape, new_shape) ->
//   output_indices [N, rank'], output_shape [rank']; one new_shape dim may
//   be -1 (inferred).
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

absl::Status CheckInt64Vector(const Tensor& t, absl::string_view what) {
  if (t.dtype() != DType::kInt64 || t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be an int64 vector, got ", t.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status CheckIndices(const Tensor& t, absl::string_view what) {
  if (t.dtype() != DType::kInt64 || t.rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be an int64 matrix [N, rank], got ",
        t.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status RunFillEmptyRows(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 4));
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(1);
  const Tensor& dense_shape = ctx.input(2);
  const Tensor& default_value = ctx.input(3);
  GRAPHRT_RETURN_IF_ERROR(CheckIndices(indices, "indices"));
  GRAPHRT_RETURN_IF_ERROR(CheckInt64Vector(dense_shape, "dense_shape"));
  const int64_t n = indices.dim(0);
  const int64_t rank = indices.dim(1);
  if (values.rank() != 1 || values.dim(0) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected values to be a vector of ", n, " elements, got ",
        values.DebugString()));
  }
  if (default_value.rank() != 0 || default_value.dtype() != values.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected default_value to be a ", DTypeName(values.dtype()),
        " scalar, got ", default_value.DebugString()));
  }
  if (dense_shape.dim(0) != rank || rank < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dense_shape ", dense_shape.DebugString(),
        " must have one entry per indices column (", rank, ", at least 1)"));
  }
  const int64_t* ind = indices.data<int64_t>();
  const int64_t dense_rows = dense_shape.data<int64_t>()[0];
  if (dense_rows < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dense_shape[0] must be >= 0, got ", dense_rows));
  }
  // Per-row scratch goes through Tensor so that a huge dense_shape[0]
  // fails with an error instead of throwing.
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor scratch,
      Tensor::Allocate(DType::kInt64, Shape({3, dense_rows})));
  int64_t* row_count = scratch.mutable_data<int64_t>();
  int64_t* offset = row_count + dense_rows;
  int64_t* filled = offset + dense_rows;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = ind[i * rank];
    if (row < 0 || row >= dense_rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices[", i, ", 0] = ", row, " is not in [0, ",
                       dense_rows, ")"));
    }
    ++row_count[row];
  }
  // Start offset of every row in the output. Outputs are allocated from the
  // highest index down, so no allocation moves a Tensor already held.
  int64_t total = 0;
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * rev,
                           ctx.allocate_output(3, DType::kInt64, Shape({n})));
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * empty,
      ctx.allocate_output(2, DType::kBool, Shape({dense_rows})));
  for (int64_t r = 0; r < dense_rows; ++r) {
    offset[r] = total;
    const bool is_empty = row_count[r] == 0;
    empty->mutable_data<bool>()[r] = is_empty;
    total += is_empty ? 1 : row_count[r];
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out_ind,
      ctx.allocate_output(0, DType::kInt64, Shape({total, rank})));
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out_val,
      ctx.allocate_output(1, values.dtype(), Shape({total})));
  int64_t* oi = out_ind->mutable_data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = ind[i * rank];
    const int64_t pos = offset[row] + filled[row]++;
    for (int64_t d = 0; d < rank; ++d) oi[pos * rank + d] = ind[i * rank + d];
    ops::CopyElements(values.dtype(), values.raw_data(), i,
                      out_val->raw_data(), pos, 1);
    rev->mutable_data<int64_t>()[i] = pos;
  }
  for (int64_t r = 0; r < dense_rows; ++r) {
    if (row_count[r] != 0) continue;
    const int64_t pos = offset[r];
    oi[pos * rank] = r;  // other coordinates stay 0
    ops::CopyElements(values.dtype(), default_value.raw_data(), 0,
                      out_val->raw_data(), pos, 1);
  }
  return absl::OkStatus();
}

// a * b for non-negative a, b; false on int64 overflow.
bool MulOk(int64_t a, int64_t b, int64_t* out) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return false;
  *out = a * b;
  return true;
}

absl::Status RunSparseReshape(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  const Tensor& indices = ctx.input(0);
  const Tensor& in_shape = ctx.input(1);
  const Tensor& new_shape = ctx.input(2);
  GRAPHRT_RETURN_IF_ERROR(CheckIndices(indices, "input_indices"));
  GRAPHRT_RETURN_IF_ERROR(CheckInt64Vector(in_shape, "input_shape"));
  GRAPHRT_RETURN_IF_ERROR(CheckInt64Vector(new_shape, "new_shape"));
  const int64_t n = indices.dim(0);
  const int64_t in_rank = in_shape.dim(0);
  const int64_t out_rank = new_shape.dim(0);
  if (indices.dim(1) != in_rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input_indices ", indices.DebugString(), " must have ", in_rank,
        " columns to match input_shape"));
  }
  int64_t dense_size = 1;
  for (int64_t d = 0; d < in_rank; ++d) {
    const int64_t v = in_shape.data<int64_t>()[d];
    if (v < 0 || !MulOk(dense_size, v, &dense_size)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input_shape has a negative dim or too many elements at dim ", d));
    }
  }
  std::vector<int64_t> out_dims(static_cast<size_t>(out_rank));
  int64_t product = 1;
  int unknown = -1;
  for (int64_t d = 0; d < out_rank; ++d) {
    const int64_t v = new_shape.data<int64_t>()[d];
    out_dims[d] = v;
    if (v == -1) {
      if (unknown != -1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "only one new_shape dim may be -1, got -1 at ", unknown, " and ",
            d));
      }
      unknown = static_cast<int>(d);
    } else if (v < 0 || !MulOk(product, v, &product)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "new_shape dim ", d, " = ", v, " is invalid (or too large)"));
    }
  }
  if (unknown != -1) {
    if (product == 0) {
      return absl::InvalidArgumentError(
          "reshape cannot infer the missing input size for an empty tensor "
          "unless all specified input sizes are non-zero");
    }
    if (dense_size % product != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input to reshape is a tensor with ", dense_size,
          " dense values, but the requested shape requires a multiple of ",
          product));
    }
    out_dims[unknown] = dense_size / product;
    product = dense_size;
  }
  if (product != dense_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input to reshape is a tensor with ", dense_size,
        " dense values, but the requested shape has ", product, " ([",
        absl::StrJoin(out_dims, ","), "])"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out_shape_t,
      ctx.allocate_output(1, DType::kInt64, Shape({out_rank})));
  for (int64_t d = 0; d < out_rank; ++d) {
    out_shape_t->mutable_data<int64_t>()[d] = out_dims[d];
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out_ind,
      ctx.allocate_output(0, DType::kInt64, Shape({n, out_rank})));
  const int64_t* in = indices.data<int64_t>();
  const int64_t* ishape = in_shape.data<int64_t>();
  int64_t* o = out_ind->mutable_data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = 0;
    for (int64_t d = 0; d < in_rank; ++d) {
      const int64_t c = in[i * in_rank + d];
      if (c < 0 || c >= ishape[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_indices[", i, ", ", d, "] = ", c, " is not in [0, ",
            ishape[d], ")"));
      }
      linear = linear * ishape[d] + c;  // < dense_size, no overflow
    }
    for (int64_t d = out_rank - 1; d >= 0; --d) {
      const int64_t dim = out_dims[d];
      o[i * out_rank + d] = dim == 0 ? 0 : linear % dim;
      linear = dim == 0 ? 0 : linear / dim;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateFillEmptyRows(
    const KernelInit&) {
  return MakeFunctionKernel(RunFillEmptyRows);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateSparseReshape(
    const KernelInit&) {
  return MakeFunctionKernel(RunSparseReshape);
}

}  // namespace

void RegisterSparseOps(OpRegistry& r) {
  r.Register("SparseFillEmptyRows", CreateFillEmptyRows);
  r.Register("SparseReshape", CreateSparseReshape);
}

}  // namespace graphrt
