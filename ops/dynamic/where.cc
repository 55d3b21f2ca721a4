// Where (single input): the coordinates of the true / non-zero elements of
// `condition` as int64 [num_true, rank], in row-major order. Numeric inputs
// count an element as true when it is != 0 (NaN counts as true, -0 as
// false, as TF). A scalar input gives [0 or 1, 0].
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

absl::Status RunWhere(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  return ops::DispatchDType<bool, float, double, int32_t, int64_t, uint8_t,
                            int8_t, int16_t, uint16_t, uint32_t, uint64_t,
                            float16, bfloat16, complex64, complex128>(
      x.dtype(), "Where", [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        const T* in = x.data<T>();
        const int64_t n = x.num_elements();
        const T zero = T();
        int64_t count = 0;
        for (int64_t i = 0; i < n; ++i) count += (in[i] != zero) ? 1 : 0;
        const int rank = x.rank();
        GRAPHRT_ASSIGN_OR_RETURN(
            Tensor * out,
            ctx.allocate_output(0, DType::kInt64, Shape({count, rank})));
        if (count == 0 || rank == 0) return absl::OkStatus();
        int64_t* o = out->mutable_data<int64_t>();
        std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
        const Shape& s = x.shape();
        for (int64_t i = 0; i < n; ++i) {
          if (in[i] != zero) {
            for (int d = 0; d < rank; ++d) *o++ = coord[d];
          }
          // Advance the row-major coordinate.
          for (int d = rank - 1; d >= 0; --d) {
            if (++coord[d] < s.dim(d)) break;
            coord[d] = 0;
          }
        }
        return absl::OkStatus();
      });
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateWhere(const KernelInit& init) {
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Where '", init.node.name(),
        "' supports only the single-input form, got ", init.num_inputs,
        " inputs (use Select/SelectV2 for the 3-input form)"));
  }
  return MakeFunctionKernel(RunWhere);
}

}  // namespace

void RegisterWhere(OpRegistry& r) { r.Register("Where", CreateWhere); }

}  // namespace graphrt
