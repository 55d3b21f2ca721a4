// Helpers shared by the ops/dynamic/ kernels: TF-style partial-shape
// algebra (merge, fully-defined checks, shape tensors with -1 wildcards),
// slicing a tensor along dim 0 and stacking slices back, and reading
// resource / variant handles.
//
// All helpers report bad input as absl::InvalidArgumentError saying what was
// expected and what came.
#ifndef GRAPHRT_OPS_DYNAMIC_DYNAMIC_UTIL_H_
#define GRAPHRT_OPS_DYNAMIC_DYNAMIC_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "runtime/shape.h"
#include "runtime/status_macros.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace dynamic {

// Upper bound on TensorArray / TensorList lengths (items are ~100-byte
// handles kept in std::vector; a larger request fails with an error
// instead of exhausting memory).
inline constexpr int64_t kMaxListLength = int64_t{1} << 24;

// Fails unless 0 <= n <= kMaxListLength; `what` names the value.
inline absl::Status CheckListLength(int64_t n, absl::string_view what) {
  if (n < 0 || n > kMaxListLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", n, " is not in [0, ", kMaxListLength,
        "] (graphrt's limit on TensorArray/TensorList lengths)"));
  }
  return absl::OkStatus();
}

// A PartialShape with every dim of `shape`.
inline PartialShape ToPartial(const Shape& shape) {
  return PartialShape(std::vector<int64_t>(shape.dims().begin(),
                                           shape.dims().end()));
}

// True when rank and every dim are known.
inline bool IsFullyDefined(const PartialShape& s) {
  if (s.unknown_rank()) return false;
  for (int64_t d : s.dims()) {
    if (d < 0) return false;
  }
  return true;
}

// The Shape of a fully defined PartialShape (caller checks IsFullyDefined).
inline Shape ToShape(const PartialShape& s) {
  return Shape(absl::MakeConstSpan(s.dims()));
}

// TF's PartialTensorShape::MergeWith: unknown rank/dims take the other's
// value; known dims must agree.
inline absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a,
                                                const PartialShape& b) {
  if (a.unknown_rank()) return b;
  if (b.unknown_rank()) return a;
  if (a.dims().size() != b.dims().size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("incompatible shapes: ", a.ToString(), " vs. ",
                     b.ToString(), " (ranks differ)"));
  }
  std::vector<int64_t> dims(a.dims().size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t x = a.dims()[i];
    const int64_t y = b.dims()[i];
    if (x >= 0 && y >= 0 && x != y) {
      return absl::InvalidArgumentError(
          absl::StrCat("incompatible shapes: ", a.ToString(), " vs. ",
                       b.ToString(), " (dim ", i, ")"));
    }
    dims[i] = x >= 0 ? x : y;
  }
  return PartialShape(std::move(dims));
}

// True if the two partial shapes could describe the same shape.
inline bool AreCompatible(const PartialShape& a, const PartialShape& b) {
  return MergeShapes(a, b).ok();
}

// TF's TensorShapeFromTensor for element_shape inputs: a scalar -1 means
// unknown rank, a vector gives dims with -1 for unknown ones (int32/int64).
inline absl::StatusOr<PartialShape> PartialShapeFromTensor(
    const Tensor& t, absl::string_view what) {
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be int32 or int64, got ", t.DebugString()));
  }
  auto at = [&t](int64_t i) {
    return t.dtype() == DType::kInt32 ? int64_t{t.data<int32_t>()[i]}
                                      : t.data<int64_t>()[i];
  };
  if (t.rank() == 0) {
    if (at(0) != -1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the only valid scalar ", what,
          " is -1 (unknown rank), got ", at(0)));
    }
    return PartialShape::UnknownRank();
  }
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be a scalar or vector, got ",
        t.DebugString()));
  }
  std::vector<int64_t> dims(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    dims[i] = at(i);
    if (dims[i] < -1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected ", what, " dims >= -1, got ", dims[i], " at ", i));
    }
  }
  return PartialShape(std::move(dims));
}

// Shape of `t` without its first dim (t.rank() >= 1).
inline Shape ShapeExcept0(const Shape& s) {
  Shape out;
  for (int i = 1; i < s.rank(); ++i) out.AddDim(s.dim(i));
  return out;
}

// Copies row `i` (along dim 0) of `t` into a new tensor of shape t.shape[1:].
inline absl::StatusOr<Tensor> SliceRow(const Tensor& t, int64_t i) {
  GRAPHRT_ASSIGN_OR_RETURN(Tensor row,
                           Tensor::Allocate(t.dtype(), ShapeExcept0(t.shape())));
  const int64_t n = row.num_elements();
  ops::CopyElements(t.dtype(), t.raw_data(), i * n, row.raw_data(), 0, n);
  return row;
}

// Copies rows [begin, begin + len) (along dim 0) of `t` into a new tensor.
inline absl::StatusOr<Tensor> SliceRows(const Tensor& t, int64_t begin,
                                        int64_t len) {
  Shape s = t.shape();
  s.set_dim(0, len);
  GRAPHRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), s));
  const int64_t row = ops::DimProduct(t.shape(), 1, t.rank());
  ops::CopyElements(t.dtype(), t.raw_data(), begin * row, out.raw_data(), 0,
                    len * row);
  return out;
}

// Reads the int32/int64 value at flat index `i`.
inline int64_t IntAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt32 ? int64_t{t.data<int32_t>()[i]}
                                    : t.data<int64_t>()[i];
}

// Fails unless `t` is an int32/int64 vector (rank 1); `what` names it.
inline absl::Status CheckIntVector(const Tensor& t, absl::string_view what) {
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be int32 or int64, got ", t.DebugString()));
  }
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be a vector, got ", t.DebugString()));
  }
  return absl::OkStatus();
}

// Fails unless `t` is a scalar of dtype `want`.
inline absl::Status CheckScalar(const Tensor& t, DType want,
                                absl::string_view what) {
  if (t.dtype() != want || t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", what, " to be a ", DTypeName(want),
                     " scalar, got ", t.DebugString()));
  }
  return absl::OkStatus();
}

}  // namespace dynamic
}  // namespace graphrt

#endif  // GRAPHRT_OPS_DYNAMIC_DYNAMIC_UTIL_H_
