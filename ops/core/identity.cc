// Identity, StopGradient: forward input 0. IdentityN: forward every input.
// NoOp: no outputs (only orders control edges).
#include "absl/strings/str_cat.h"
#include "ops/core/core_ops.h"

namespace graphrt {
namespace {

absl::Status RunIdentityN(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
  return absl::OkStatus();
}

absl::Status RunNoOp(KernelContext&) { return absl::OkStatus(); }

absl::StatusOr<std::unique_ptr<Kernel>> CreateIdentity(const KernelInit& init) {
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs exactly 1 input, has ", init.num_inputs));
  }
  return MakeFunctionKernel(RunIdentityN);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateIdentityN(const KernelInit&) {
  return MakeFunctionKernel(RunIdentityN);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateNoOp(const KernelInit&) {
  return MakeFunctionKernel(RunNoOp);
}

}  // namespace

void RegisterIdentity(OpRegistry& r) {
  r.Register("Identity", CreateIdentity);
  r.Register("StopGradient", CreateIdentity);
  r.Register("IdentityN", CreateIdentityN);
  r.Register("NoOp", CreateNoOp);
}

}  // namespace graphrt
