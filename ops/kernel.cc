#include "ops/kernel.h"

namespace graphrt {
namespace {

class FunctionKernel : public Kernel {
 public:
  explicit FunctionKernel(KernelFn fn) : fn_(fn) {}
  absl::Status Run(KernelContext& ctx) const override { return fn_(ctx); }

 private:
  KernelFn fn_;
};

}  // namespace

std::unique_ptr<Kernel> MakeFunctionKernel(KernelFn fn) {
  return std::make_unique<FunctionKernel>(fn);
}

}  // namespace graphrt
