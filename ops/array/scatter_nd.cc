// Scatter ops writing slices at index tuples:
// * ScatterNd (indices, updates, shape): zeros of `shape` plus the sum of
//   the updates at each index tuple (duplicates add); numeric dtypes.
// * TensorScatterUpdate (tensor, indices, updates): a copy of tensor with
//   the slices assigned, in index order (a later duplicate wins); any
//   dtype.
// * SparseToDense (sparse_indices, output_shape, sparse_values,
//   default_value; validate_indices): default-filled dense tensor with the
//   values assigned; with validate_indices the indices must be
//   lexicographically increasing (no repeats). Any dtype.
// Out-of-range indices are errors. Updates are applied sequentially, so
// results are deterministic.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
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

inline int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt32 ? int64_t{t.data<int32_t>()[i]}
                                    : t.data<int64_t>()[i];
}

absl::Status CheckIndices(const Tensor& indices) {
  if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected indices of dtype int32 or int64, got ",
                     indices.DebugString()));
  }
  return absl::OkStatus();
}

// a + b, wrapping for signed integers (no overflow UB).
template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// Element offsets (in `shape`) of each index tuple of `indices` [..., K],
// plus the slice size; checks ranks, updates' shape and index ranges.
struct ScatterPlan {
  std::vector<int64_t> offsets;
  int64_t slice = 1;
};

absl::StatusOr<ScatterPlan> PlanScatter(const Tensor& indices,
                                        const Tensor& updates,
                                        const Shape& shape) {
  GRAPHRT_RETURN_IF_ERROR(CheckIndices(indices));
  if (indices.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices must be at least a vector, got ", indices.DebugString()));
  }
  const int batch = indices.rank() - 1;
  const int64_t depth = indices.dim(batch);
  if (depth > shape.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("index innermost dimension length ", depth,
                     " must be <= output rank ", shape.rank(), " (indices ",
                     indices.DebugString(), ", shape ", shape.ToString(), ")"));
  }
  const int k = static_cast<int>(depth);
  // updates.shape must be indices.shape[:-1] + shape[K:].
  Shape want;
  for (int i = 0; i < batch; ++i) want.AddDim(indices.dim(i));
  for (int i = k; i < shape.rank(); ++i) want.AddDim(shape.dim(i));
  if (updates.shape() != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates must have shape indices.shape[:-1] + shape[", k,
        ":] = ", want.ToString(), ", got ", updates.DebugString(), " (indices ",
        indices.DebugString(), ", shape ", shape.ToString(), ")"));
  }
  ScatterPlan plan;
  plan.slice = ops::DimProduct(shape, k, shape.rank());
  const int64_t n = ops::DimProduct(indices.shape(), 0, batch);
  if (n > 0 && shape.num_elements() == 0 && plan.slice != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices and updates specified for empty output shape ",
                     shape.ToString()));
  }
  plan.offsets.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int j = 0; j < k; ++j) {
      const int64_t v = IndexAt(indices, i * k + j);
      if (v < 0 || v >= shape.dim(j)) {
        std::vector<int64_t> tuple(k);
        for (int t = 0; t < k; ++t) tuple[t] = IndexAt(indices, i * k + t);
        return absl::InvalidArgumentError(
            absl::StrCat("indices[", i, "] = [", absl::StrJoin(tuple, ", "),
                         "] does not index into shape ", shape.ToString()));
      }
      off = off * shape.dim(j) + v;
    }
    plan.offsets[i] = off * plan.slice;
  }
  return plan;
}

// ------------------------------------------------------------ ScatterNd

absl::Status ScatterNdRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  const Tensor& indices = ctx.input(0);
  const Tensor& updates = ctx.input(1);
  const Tensor& shape_t = ctx.input(2);
  if (shape_t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected shape to be a vector, got ", shape_t.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector dims,
                           ops::ReadIntVector(shape_t, "shape"));
  auto shape = Shape::Make(dims);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid shape [", absl::StrJoin(dims, ","),
                     "]: ", shape.status().message()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ScatterPlan plan,
                           PlanScatter(indices, updates, *shape));
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                           ctx.allocate_output(0, updates.dtype(), *shape));
  return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                            int16_t, uint16_t, uint32_t, uint64_t, float16,
                            bfloat16, complex64, complex128>(
      updates.dtype(), "ScatterNd", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* o = out->mutable_data<T>();
        const T* u = updates.data<T>();
        for (size_t i = 0; i < plan.offsets.size(); ++i) {
          T* d = o + plan.offsets[i];
          const T* s = u + static_cast<int64_t>(i) * plan.slice;
          for (int64_t j = 0; j < plan.slice; ++j) d[j] = WrapAdd(d[j], s[j]);
        }
        return absl::OkStatus();
      });
}

// -------------------------------------------------- TensorScatterUpdate

absl::Status TensorScatterUpdateRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  const Tensor& tensor = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  if (updates.dtype() != tensor.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected updates of dtype ", DTypeName(tensor.dtype()),
                     ", got ", updates.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ScatterPlan plan,
                           PlanScatter(indices, updates, tensor.shape()));
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out, ctx.allocate_output(0, tensor.dtype(), tensor.shape()));
  const DType dtype = tensor.dtype();
  ops::CopyElements(dtype, tensor.raw_data(), 0, out->raw_data(), 0,
                    tensor.num_elements());
  for (size_t i = 0; i < plan.offsets.size(); ++i) {
    ops::CopyElements(dtype, updates.raw_data(),
                      static_cast<int64_t>(i) * plan.slice, out->raw_data(),
                      plan.offsets[i], plan.slice);
  }
  return absl::OkStatus();
}

// -------------------------------------------------------- SparseToDense

class SparseToDenseKernel : public Kernel {
 public:
  explicit SparseToDenseKernel(bool validate) : validate_(validate) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 4));
    const Tensor& indices = ctx.input(0);
    const Tensor& shape_t = ctx.input(1);
    const Tensor& values = ctx.input(2);
    const Tensor& def = ctx.input(3);
    GRAPHRT_RETURN_IF_ERROR(CheckIndices(indices));
    if (indices.rank() > 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sparse_indices should be a scalar, vector, or matrix, got ",
          indices.DebugString()));
    }
    const int64_t num = indices.rank() > 0 ? indices.dim(0) : 1;
    const int64_t ndims = indices.rank() > 1 ? indices.dim(1) : 1;
    if (shape_t.rank() != 1 || shape_t.num_elements() != ndims) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output_shape must be a vector of ", ndims,
          " elements (one per index column), got ", shape_t.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector dims,
                             ops::ReadIntVector(shape_t, "output_shape"));
    auto shape = Shape::Make(dims);
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid output_shape [", absl::StrJoin(dims, ","),
                       "]: ", shape.status().message()));
    }
    if (!(values.rank() == 0 ||
          (values.rank() == 1 && values.num_elements() == num))) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_values must be a scalar or a vector of ", num,
                       " elements, got ", values.DebugString()));
    }
    if (def.rank() != 0 || def.dtype() != values.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("default_value must be a scalar of dtype ",
                       DTypeName(values.dtype()), ", got ", def.DebugString()));
    }
    // Offsets, with bounds (always) and order (validate_indices) checks.
    std::vector<int64_t> offsets(num);
    auto tuple_str = [&](int64_t i) {
      std::vector<int64_t> t(ndims);
      for (int64_t j = 0; j < ndims; ++j)
        t[j] = IndexAt(indices, i * ndims + j);
      return absl::StrCat("[", absl::StrJoin(t, ","), "]");
    };
    for (int64_t i = 0; i < num; ++i) {
      int64_t off = 0;
      for (int64_t j = 0; j < ndims; ++j) {
        const int64_t v = IndexAt(indices, i * ndims + j);
        if (v < 0 || v >= dims[j]) {
          return absl::InvalidArgumentError(
              absl::StrCat("sparse_indices[", i, "] = ", tuple_str(i),
                           " is out of bounds: need 0 <= index < [",
                           absl::StrJoin(dims, ","), "]"));
        }
        off = off * dims[j] + v;
      }
      offsets[i] = off;
      if (validate_ && i > 0 && offsets[i] <= offsets[i - 1]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "sparse_indices[", i, "] = ", tuple_str(i), " is ",
            offsets[i] == offsets[i - 1] ? "repeated" : "out of order"));
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, values.dtype(), *shape));
    ops::DispatchStorage(values.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      S* o = out->mutable_data<S>();
      std::fill(o, o + out->num_elements(), *def.data<S>());
      const S* v = values.data<S>();
      for (int64_t i = 0; i < num; ++i) {
        o[offsets[i]] = values.rank() == 0 ? v[0] : v[i];
      }
    });
    return absl::OkStatus();
  }

 private:
  bool validate_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateSparseToDense(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(bool validate,
                           attrs.GetBool("validate_indices", true));
  return std::unique_ptr<Kernel>(new SparseToDenseKernel(validate));
}

template <KernelFn fn>
absl::StatusOr<std::unique_ptr<Kernel>> Create(const KernelInit&) {
  return MakeFunctionKernel(fn);
}

}  // namespace

void RegisterScatterNd(OpRegistry& r) {
  r.Register("ScatterNd", Create<ScatterNdRun>);
  r.Register("TensorScatterUpdate", Create<TensorScatterUpdateRun>);
  r.Register("SparseToDense", CreateSparseToDense);
}

}  // namespace graphrt
