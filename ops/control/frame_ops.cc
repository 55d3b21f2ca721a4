// v1 control-flow ops. The dataflow executor (runtime/dataflow_executor.h)
// gives them their meaning — frames, iterations and dead tensors; the
// kernels only move values:
//   Switch(data, pred): data on output 1 if pred else on output 0; the
//     other output is left unset, which the executor treats as dead.
//   Merge: chosen by the executor (first live input, output 1 = its index);
//     the kernel is never run on dead inputs.
//   Enter, Exit, NextIteration, LoopCond: forward input 0.
#include "absl/strings/str_cat.h"
#include "ops/control/control_ops.h"

namespace graphrt {
namespace {

absl::StatusOr<bool> Truthy(const Tensor& pred) {
  if (pred.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "predicate must be a scalar, got ", pred.DebugString()));
  }
  switch (pred.dtype()) {
    case DType::kBool: return pred.data<bool>()[0];
    case DType::kInt32: return pred.data<int32_t>()[0] != 0;
    case DType::kInt64: return pred.data<int64_t>()[0] != 0;
    case DType::kFloat32: return pred.data<float>()[0] != 0.f;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "predicate must be bool, got ", pred.DebugString()));
  }
}

absl::Status RunSwitch(KernelContext& ctx) {
  auto pred = Truthy(ctx.input(1));
  if (!pred.ok()) return pred.status();
  ctx.set_output(*pred ? 1 : 0, ctx.input(0));
  return absl::OkStatus();
}

absl::Status RunForward(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

absl::Status RunMerge(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  ctx.set_output(1, Tensor::Scalar<int32_t>(0));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateSwitch(const KernelInit& init) {
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError("Switch needs inputs (data, pred)");
  }
  return MakeFunctionKernel(RunSwitch);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateForward(const KernelInit& init) {
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        init.node.op(), " needs exactly 1 input, has ", init.num_inputs));
  }
  return MakeFunctionKernel(RunForward);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateMerge(const KernelInit& init) {
  if (init.num_inputs < 1) {
    return absl::InvalidArgumentError("Merge needs at least 1 input");
  }
  return MakeFunctionKernel(RunMerge);
}

}  // namespace

void RegisterFrameOps(OpRegistry& r) {
  r.Register("Switch", CreateSwitch);
  r.Register("RefSwitch", CreateSwitch);
  r.Register("Merge", CreateMerge);
  r.Register("RefMerge", CreateMerge);
  for (const char* op : {"Enter", "RefEnter", "Exit", "RefExit",
                         "NextIteration", "RefNextIteration", "LoopCond"}) {
    r.Register(op, CreateForward);
  }
}

}  // namespace graphrt
