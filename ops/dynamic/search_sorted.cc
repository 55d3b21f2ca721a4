// LowerBound / UpperBound (sorted_inputs [B, ...], values [B, ...]) ->
// int32/int64 (`out_type`) with the shape of values: for every value, the
// first position in its row of sorted_inputs whose element is >= (Lower) or
// > (Upper) the value. As TF's kernel, both inputs must be at least 2-D and
// share dim 0 (= B); each row of sorted_inputs holds N/B elements and each
// row of values M/B elements. Rows are assumed sorted (not checked, as TF).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

class SearchSortedKernel : public Kernel {
 public:
  SearchSortedKernel(bool upper, DType out_type)
      : upper_(upper), out_type_(out_type) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& sorted = ctx.input(0);
    const Tensor& values = ctx.input(1);
    if (sorted.rank() < 2 || values.rank() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sorted_inputs and values must be at least 2-D, got ",
          sorted.DebugString(), " and ", values.DebugString()));
    }
    if (sorted.dim(0) != values.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "leading dims of sorted_inputs and values must match, got ",
          sorted.DebugString(), " and ", values.DebugString()));
    }
    if (sorted.dtype() != values.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sorted_inputs and values must have the same dtype, got ",
          sorted.DebugString(), " and ", values.DebugString()));
    }
    const int64_t batch = sorted.dim(0);
    const int64_t per_row =
        batch == 0 ? 0 : sorted.num_elements() / batch;
    const int64_t values_per_row =
        batch == 0 ? 0 : values.num_elements() / batch;
    if (out_type_ == DType::kInt32 &&
        per_row > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          "sorted_inputs rows are too long for out_type int32");
    }
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t, float16,
                              bfloat16>(
        sorted.dtype(), upper_ ? "UpperBound" : "LowerBound",
        [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor * out,
              ctx.allocate_output(0, out_type_, values.shape()));
          const T* s = sorted.data<T>();
          const T* v = values.data<T>();
          const bool upper = upper_;
          const bool i32 = out_type_ == DType::kInt32;
          void* o = out->raw_data();
          auto run = [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) {
              const T* row = s + (i / values_per_row) * per_row;
              const T* pos = upper ? std::upper_bound(row, row + per_row, v[i])
                                   : std::lower_bound(row, row + per_row, v[i]);
              const int64_t r = pos - row;
              if (i32) {
                static_cast<int32_t*>(o)[i] = static_cast<int32_t>(r);
              } else {
                static_cast<int64_t*>(o)[i] = r;
              }
            }
          };
          ops::ParallelFor(values.num_elements(), 4096, run);
          return absl::OkStatus();
        });
  }

 private:
  bool upper_;
  DType out_type_;
};

template <bool kUpper>
absl::StatusOr<std::unique_ptr<Kernel>> CreateSearchSorted(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("out_type", DType::kInt32));
  if (t != DType::kInt32 && t != DType::kInt64) {
    return attrs.Error("out_type", absl::StrCat("must be int32 or int64, got ",
                                                DTypeName(t)));
  }
  return std::unique_ptr<Kernel>(new SearchSortedKernel(kUpper, t));
}

}  // namespace

void RegisterSearchSorted(OpRegistry& r) {
  r.Register("LowerBound", CreateSearchSorted<false>);
  r.Register("UpperBound", CreateSearchSorted<true>);
}

}  // namespace graphrt
