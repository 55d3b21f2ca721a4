// Bincount(arr: int32, size: int32 scalar, weights: T) -> T[size]:
//   out[v] += weights[i] (or 1 when weights is empty) for each arr[i] = v;
//   values >= size are ignored, negative values are an error (as TF).
//   weights must be empty or have arr's element count.
// DenseBincount(input: Tidx rank 1 or 2, size: Tidx scalar, weights: T;
//   attr binary_output): rank 1 as above; rank 2 counts each row into
//   out[rows, size]. binary_output writes 1 for every bin hit instead of a
//   count / sum. weights must be empty or have input's shape. Negative
//   values are an error for both ranks (TF leaves rank 2 undefined).
// T: float32, float64, int32, int64. Counting is serial per output row;
// rank-2 rows are split over oneTBB.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/cwise_fns.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

bool WeightTypeOk(DType d) {
  return ops::IsOneOf<float, double, int32_t, int64_t>(d);
}

template <typename Idx, typename T>
void CountRow(const Idx* v, const T* w, int64_t n, int64_t size, bool binary,
              T* out) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = static_cast<int64_t>(v[i]);
    if (b >= size) continue;
    if (binary) {
      out[b] = T(1);
    } else {
      out[b] = ops::WrapAdd(out[b], w != nullptr ? w[i] : T(1));
    }
  }
}

class BincountKernel : public Kernel {
 public:
  BincountKernel(bool dense, bool binary, DType t)
      : dense_(dense), binary_(binary), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
    const Tensor& arr = ctx.input(0);
    const Tensor& size_t_ = ctx.input(1);
    const Tensor& weights = ctx.input(2);
    if (dense_) {
      if (arr.dtype() != DType::kInt32 && arr.dtype() != DType::kInt64) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected input of dtype int32 or int64, got ", arr.DebugString()));
      }
      if (arr.rank() > 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected input of rank 1 or 2, got ", arr.DebugString()));
      }
    } else {
      GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(arr, DType::kInt32, "arr"));
    }
    if (size_t_.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected size to be a scalar, got ", size_t_.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int64_t size, ops::ReadIntScalar(size_t_, "size"));
    if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("size (", size, ") must be non-negative"));
    }
    if (t_ != DType::kInvalid && weights.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected weights of dtype ", DTypeName(t_),
                       " (attr T), got ", weights.DebugString()));
    }
    if (!WeightTypeOk(weights.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected weights of dtype float32, float64, int32 or int64, got ",
          weights.DebugString()));
    }
    const bool has_w = weights.num_elements() > 0;
    if (has_w && (dense_ ? weights.shape() != arr.shape()
                         : weights.num_elements() != arr.num_elements())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "weights must be empty or match the input, got ",
          weights.DebugString(), " for input ", arr.DebugString()));
    }
    const bool rows = dense_ && arr.rank() == 2;
    const int64_t nrows = rows ? arr.dim(0) : 1;
    const int64_t ncols = rows ? arr.dim(1) : arr.num_elements();
    const int64_t dims2[2] = {nrows, size};
    GRAPHRT_ASSIGN_OR_RETURN(
        Shape out_shape, Shape::Make(rows ? absl::MakeConstSpan(dims2, 2)
                                          : absl::MakeConstSpan(&dims2[1], 1)));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * out, ctx.allocate_output(0, weights.dtype(), out_shape));
    return ops::DispatchDType<int32_t, int64_t>(
        arr.dtype(), "Bincount", [&](auto itag) {
          using Idx = typename decltype(itag)::type;
          const Idx* v = arr.data<Idx>();
          for (int64_t i = 0; i < arr.num_elements(); ++i) {
            if (v[i] < 0) {
              return absl::InvalidArgumentError(
                  absl::StrCat("Input arr must be non-negative, got ",
                               static_cast<int64_t>(v[i]), " at ", i));
            }
          }
          return ops::DispatchDType<float, double, int32_t, int64_t>(
              weights.dtype(), "Bincount", [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* w = has_w ? weights.data<T>() : nullptr;
                T* o = out->mutable_data<T>();
                const int64_t min_rows = std::max<int64_t>(
                    2, ops::kParallelMinElements / std::max<int64_t>(ncols, 1));
                ops::ParallelFor(nrows, min_rows, [&](int64_t b, int64_t e) {
                  for (int64_t r = b; r < e; ++r) {
                    CountRow(v + r * ncols, w ? w + r * ncols : nullptr, ncols,
                             size, binary_, o + r * size);
                  }
                });
                return absl::OkStatus();
              });
        });
  }

 private:
  bool dense_;
  bool binary_;
  DType t_;
};

template <bool kDense>
absl::StatusOr<std::unique_ptr<Kernel>> CreateBincount(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !WeightTypeOk(t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  bool binary = false;
  if (kDense) {
    GRAPHRT_ASSIGN_OR_RETURN(binary, attrs.GetBool("binary_output", false));
  }
  if (init.num_inputs != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 3 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new BincountKernel(kDense, binary, t));
}

}  // namespace

void RegisterBincount(OpRegistry& r) {
  r.Register("Bincount", CreateBincount<false>);
  r.Register("DenseBincount", CreateBincount<true>);
}

}  // namespace graphrt
