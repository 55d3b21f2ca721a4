// Const: outputs the value the converter attached (weights or `value`).
#include "absl/strings/str_cat.h"
#include "ops/core/core_ops.h"

namespace graphrt {
namespace {

class ConstKernel : public Kernel {
 public:
  explicit ConstKernel(Tensor value) : value_(std::move(value)) {}
  absl::Status Run(KernelContext& ctx) const override {
    ctx.set_output(0, value_);
    return absl::OkStatus();
  }

 private:
  Tensor value_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateConst(const KernelInit& init) {
  if (init.constant == nullptr || !init.constant->valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Const node '", init.node.name(),
                     "' has no value (no weight of that name)"));
  }
  return std::make_unique<ConstKernel>(*init.constant);
}

}  // namespace

void RegisterConst(OpRegistry& r) { r.Register("Const", CreateConst); }

}  // namespace graphrt
