// Shape: the shape of input 0 as a vector of dtype out_type (int32, the
// default, or int64).
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/array/array_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

class ShapeKernel : public Kernel {
 public:
  explicit ShapeKernel(DType out_type) : out_type_(out_type) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Shape& in = ctx.input(0).shape();
    const int rank = in.rank();
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, out_type_, Shape({rank})));
    for (int i = 0; i < rank; ++i) {
      const int64_t d = in.dim(i);
      if (out_type_ == DType::kInt32) {
        if (d > std::numeric_limits<int32_t>::max()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "shape ", in.ToString(), " does not fit in int32 (dim ", i,
              " is ", d, "); use out_type int64"));
        }
        out->mutable_data<int32_t>()[i] = static_cast<int32_t>(d);
      } else {
        out->mutable_data<int64_t>()[i] = d;
      }
    }
    return absl::OkStatus();
  }

 private:
  DType out_type_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateShape(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType out_type,
                           attrs.GetType("out_type", DType::kInt32));
  if (out_type != DType::kInt32 && out_type != DType::kInt64) {
    return attrs.Error("out_type", absl::StrCat("must be int32 or int64, got ",
                                                DTypeName(out_type)));
  }
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shape '", init.node.name(), "' needs 1 input, has ", init.num_inputs));
  }
  return std::make_unique<ShapeKernel>(out_type);
}

}  // namespace

void RegisterShape(OpRegistry& r) { r.Register("Shape", CreateShape); }

}  // namespace graphrt
