// Split (axis, value; num_split) cuts `value` into num_split equal parts
// along `axis`; SplitV (value, size_splits, axis; num_split) into parts of
// the given sizes, one of which may be -1 (the rest). Any dtype. Each
// output is one strided copy (strided_copy.h).
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Sets output i to x[..., starts[i] : starts[i] + sizes[i], ...] along axis.
absl::Status EmitParts(KernelContext& ctx, const Tensor& x, int axis,
                       absl::Span<const int64_t> sizes) {
  const int64_t outer = ops::DimProduct(x.shape(), 0, axis);
  const int64_t inner = ops::DimProduct(x.shape(), axis + 1, x.rank());
  const int64_t n = x.dim(axis);
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape shape = x.shape();
    shape.set_dim(axis, sizes[i]);
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * out, ctx.allocate_output_uninitialized(static_cast<int>(i),
                                                        x.dtype(), shape));
    const int64_t dims[2] = {outer, sizes[i] * inner};
    const int64_t strides[2] = {n * inner, 1};
    ops::StridedCopy(x.dtype(), x.raw_data(), start * inner, dims, strides,
                     out->raw_data());
    start += sizes[i];
  }
  return absl::OkStatus();
}

class SplitKernel : public Kernel {
 public:
  explicit SplitKernel(int64_t num_split) : num_split_(num_split) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    GRAPHRT_ASSIGN_OR_RETURN(int64_t axis_value,
                             ops::ReadIntScalar(ctx.input(0), "axis"));
    const Tensor& x = ctx.input(1);
    GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                             ops::NormalizeAxis(axis_value, x.rank(), "axis"));
    if (x.dim(axis) % num_split_ != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "number of ways to split should evenly divide the split dimension, "
          "but got split_dim ",
          axis, " (size = ", x.dim(axis), ") and num_split ", num_split_,
          " for input ", x.DebugString()));
    }
    return EmitParts(ctx, x, axis,
                     ops::DimVector(num_split_, x.dim(axis) / num_split_));
  }

 private:
  int64_t num_split_;
};

class SplitVKernel : public Kernel {
 public:
  explicit SplitVKernel(int64_t num_split) : num_split_(num_split) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
    const Tensor& x = ctx.input(0);
    GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector sizes,
                             ops::ReadIntVector(ctx.input(1), "size_splits"));
    GRAPHRT_ASSIGN_OR_RETURN(int64_t axis_value,
                             ops::ReadIntScalar(ctx.input(2), "axis"));
    GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                             ops::NormalizeAxis(axis_value, x.rank(), "axis"));
    if (static_cast<int64_t>(sizes.size()) != num_split_) {
      return absl::InvalidArgumentError(
          absl::StrCat("size_splits [", absl::StrJoin(sizes, ","),
                       "] must have num_split = ", num_split_, " elements"));
    }
    const int64_t n = x.dim(axis);
    int neg = -1;
    int64_t total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == -1) {
        if (neg >= 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("there can only be one -1 in size_splits [",
                           absl::StrJoin(sizes, ","), "]"));
        }
        neg = static_cast<int>(i);
      } else if (sizes[i] < 0 || sizes[i] > n || total + sizes[i] > n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "size_splits [", absl::StrJoin(sizes, ","),
            "] must be non-negative and sum to the split dimension ", axis,
            " of ", x.DebugString()));
      } else {
        total += sizes[i];
      }
    }
    if (neg >= 0) {
      sizes[neg] = n - total;
    } else if (total != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("size_splits [", absl::StrJoin(sizes, ","),
                       "] must sum to the size of split dimension ", axis, " (",
                       n, ") of ", x.DebugString()));
    }
    return EmitParts(ctx, x, axis, sizes);
  }

 private:
  int64_t num_split_;
};

absl::StatusOr<int64_t> ReadNumSplit(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t n, attrs.GetInt("num_split", -1));
  if (n < 1 || n > (int64_t{1} << 20)) {
    return attrs.Error("num_split",
                       absl::StrCat("must be in [1, 2^20], got ", n));
  }
  return n;
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateSplit(const KernelInit& init) {
  GRAPHRT_ASSIGN_OR_RETURN(int64_t n, ReadNumSplit(init));
  return std::unique_ptr<Kernel>(new SplitKernel(n));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateSplitV(const KernelInit& init) {
  GRAPHRT_ASSIGN_OR_RETURN(int64_t n, ReadNumSplit(init));
  return std::unique_ptr<Kernel>(new SplitVKernel(n));
}

}  // namespace

void RegisterSplit(OpRegistry& r) {
  r.Register("Split", CreateSplit);
  r.Register("SplitV", CreateSplitV);
}

}  // namespace graphrt
