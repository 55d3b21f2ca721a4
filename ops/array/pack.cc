// Pack (values_0..N-1; axis) stacks N same-shape tensors along a new dim
// `axis` in [-(rank+1), rank]; Unpack (value; num, axis) is its inverse,
// with value.shape[axis] == num. Any dtype (strings included).
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

class PackKernel : public Kernel {
 public:
  PackKernel(int n, int64_t axis) : n_(n), axis_(axis) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, n_));
    const Tensor& first = ctx.input(0);
    for (int i = 1; i < n_; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != first.dtype() || t.shape() != first.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "shapes and dtypes of all inputs must match: values[0] is ",
            first.DebugString(), ", values[", i, "] is ", t.DebugString()));
      }
    }
    const int rank = first.rank();
    GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                             ops::NormalizeAxis(axis_, rank + 1, "axis"));
    Shape out_shape = first.shape();
    out_shape.InsertDim(axis, n_);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, first.dtype(), out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    const int64_t outer = ops::DimProduct(first.shape(), 0, axis);
    const int64_t inner = ops::DimProduct(first.shape(), axis, rank);
    const DType dtype = first.dtype();
    void* dst = out->raw_data();
    const int64_t rows = outer * n_;
    const int64_t min_rows =
        std::max<int64_t>(1, ops::kParallelMinElements / inner);
    ops::ParallelFor(rows, min_rows, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r / n_;
        const int i = static_cast<int>(r % n_);
        ops::CopyElements(dtype, ctx.input(i).raw_data(), o * inner, dst,
                          r * inner, inner);
      }
    });
    return absl::OkStatus();
  }

 private:
  int n_;
  int64_t axis_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreatePack(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t n, attrs.GetInt("N", init.num_inputs));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t axis, attrs.GetInt("axis", 0));
  if (n < 1 || n != init.num_inputs) {
    return attrs.Error("N", absl::StrCat("must be >= 1 and equal the number "
                                         "of inputs (",
                                         init.num_inputs, "), got ", n));
  }
  return std::unique_ptr<Kernel>(new PackKernel(static_cast<int>(n), axis));
}

class UnpackKernel : public Kernel {
 public:
  UnpackKernel(int64_t num, int64_t axis) : num_(num), axis_(axis) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    const int rank = x.rank();
    if (rank == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Unpack needs an input of rank >= 1, got ", x.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                             ops::NormalizeAxis(axis_, rank, "axis"));
    if (x.dim(axis) != num_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", x.DebugString(), " has ", x.dim(axis),
          " entries along axis ", axis, ", expected num = ", num_));
    }
    Shape out_shape = x.shape();
    out_shape.RemoveDim(axis);
    const int64_t outer = ops::DimProduct(x.shape(), 0, axis);
    const int64_t inner = ops::DimProduct(x.shape(), axis + 1, rank);
    const int64_t dims[2] = {outer, inner};
    const int64_t strides[2] = {num_ * inner, 1};
    for (int64_t i = 0; i < num_; ++i) {
      GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                               ctx.allocate_output_uninitialized(
                                   static_cast<int>(i), x.dtype(), out_shape));
      ops::StridedCopy(x.dtype(), x.raw_data(), i * inner, dims, strides,
                       out->raw_data());
    }
    return absl::OkStatus();
  }

 private:
  int64_t num_;
  int64_t axis_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateUnpack(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t num, attrs.GetInt("num", -1));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t axis, attrs.GetInt("axis", 0));
  if (num < 0 || num > (int64_t{1} << 20)) {
    return attrs.Error("num", absl::StrCat("must be in [0, 2^20], got ", num));
  }
  return std::unique_ptr<Kernel>(new UnpackKernel(num, axis));
}

}  // namespace

void RegisterPack(OpRegistry& r) {
  r.Register("Pack", CreatePack);
  r.Register("Unpack", CreateUnpack);
}

}  // namespace graphrt
