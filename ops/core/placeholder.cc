// Placeholder: the executor feeds it; running it means it was not fed.
// PlaceholderWithDefault: forwards its input when not fed.
#include "absl/strings/str_cat.h"
#include "ops/core/core_ops.h"

namespace graphrt {
namespace {

absl::Status RunPlaceholder(KernelContext&) {
  return absl::InvalidArgumentError("input was not fed");
}

absl::Status RunPlaceholderWithDefault(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreatePlaceholder(
    const KernelInit&) {
  return MakeFunctionKernel(RunPlaceholder);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreatePlaceholderWithDefault(
    const KernelInit& init) {
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PlaceholderWithDefault '", init.node.name(), "' needs 1 input"));
  }
  return MakeFunctionKernel(RunPlaceholderWithDefault);
}

}  // namespace

void RegisterPlaceholder(OpRegistry& r) {
  r.Register("Placeholder", CreatePlaceholder);
  r.Register("PlaceholderWithDefault", CreatePlaceholderWithDefault);
}

}  // namespace graphrt
