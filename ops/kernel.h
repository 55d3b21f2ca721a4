// The kernel contract. One op = one Kernel subclass behind a two-step
// lifecycle, modelled on TFLite's prepare/invoke split:
//
//   1. Create (load time, once per node): the op's KernelFactory reads and
//      checks the node's attrs (KernelInit) and returns a Kernel, or an error
//      naming the node. Unknown ops fail here, at load, not at run time.
//   2. Run (every inference, possibly from many threads at once): reads
//      inputs from the KernelContext, sets outputs. Run is const: a Kernel
//      holds only load-time state; per-run state lives in the context.
//
// Kernels report bad inputs as absl::Status; the executor prefixes the node
// name and op, so kernels only say what was wrong ("expected rank 2, got
// float32[3]").
#ifndef GRAPHRT_OPS_KERNEL_H_
#define GRAPHRT_OPS_KERNEL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/graph.pb.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {

class KernelContext;

// A compiled function of the model's library (FunctionDef), runnable from a
// kernel (If, While, PartitionedCall ...). Thread-safe.
class Function {
 public:
  virtual ~Function() = default;
  virtual int num_inputs() const = 0;
  virtual int num_outputs() const = 0;
  // Runs the function body on `args`, sharing the caller's resources.
  virtual absl::StatusOr<std::vector<Tensor>> Call(
      const KernelContext& caller, std::vector<Tensor> args) const = 0;
};

// Compiles functions by name at load time (cached; recursion is an error).
class FunctionLibrary {
 public:
  virtual ~FunctionLibrary() = default;
  virtual absl::StatusOr<std::shared_ptr<const Function>> Instantiate(
      const std::string& name) const = 0;
};

// What a factory sees at load time.
struct KernelInit {
  const tensorflow::NodeDef& node;
  int num_inputs = 0;  // data inputs (control inputs excluded)
  // For Const nodes: the value (from the weights or the `value` attr).
  const Tensor* constant = nullptr;
  // The model's function library (null when the graph has none).
  const FunctionLibrary* functions = nullptr;
};

// What a kernel sees at run time.
class KernelContext {
 public:
  // Up to kReservedOutputs outputs, pointers returned by allocate_output
  // stay valid while the kernel sets further outputs.
  static constexpr int kReservedOutputs = 16;
  KernelContext(absl::Span<const Tensor* const> inputs,
                std::vector<Tensor>* outputs, ResourceManager* resources)
      : inputs_(inputs), outputs_(outputs), resources_(resources) {
    outputs_->reserve(kReservedOutputs);
  }
  // `forwardable` bit i: the executor will not read input i again after
  // this kernel (this node is its last consumer, it is neither fed nor
  // fetched, and no other input of the node is the same value).
  // `shared` bit i: the same, except that other inputs of the node are the
  // same value (forward_shared_input_to_output).
  void set_forwardable_inputs(uint64_t mask, uint64_t shared = 0) {
    forwardable_ = mask;
    forwardable_shared_ = shared;
  }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Tensor& input(int i) const { return *inputs_[i]; }
  // Sets output `i` (outputs grow as needed).
  void set_output(int i, Tensor t) {
    if (static_cast<int>(outputs_->size()) <= i) outputs_->resize(i + 1);
    (*outputs_)[i] = std::move(t);
  }
  // Allocates output `i` with the given dtype and shape. Kernels with more
  // than kReservedOutputs outputs must re-fetch pointers with output(i)
  // after allocating a higher index.
  absl::StatusOr<Tensor*> allocate_output(int i, DType dtype,
                                          const Shape& shape) {
    auto t = Tensor::Allocate(dtype, shape);
    if (!t.ok()) return t.status();
    set_output(i, std::move(*t));
    return &(*outputs_)[i];
  }
  // Like allocate_output, without zero-filling numeric elements
  // (Tensor::AllocateUninitialized): for kernels that write every element.
  absl::StatusOr<Tensor*> allocate_output_uninitialized(int i, DType dtype,
                                                        const Shape& shape) {
    auto t = Tensor::AllocateUninitialized(dtype, shape);
    if (!t.ok()) return t.status();
    set_output(i, std::move(*t));
    return &(*outputs_)[i];
  }
  // In-place reuse: makes output `o` share input `i`'s storage and returns
  // it, when the executor allows it (set_forwardable_inputs), input `i` has
  // `dtype` and `shape` and holds its storage alone (no view or other value
  // shares it). Else null: allocate instead. The kernel then overwrites
  // input `i`: it must read every input element it needs before (or in
  // the same pass as) writing it.
  Tensor* forward_input_to_output(int i, int o, DType dtype,
                                  const Shape& shape) {
    return Forward(forwardable_, i, o, dtype, shape);
  }
  // forward_input_to_output, also when the node receives the value through
  // other inputs too (x in a block computing f(x) + x): the kernel must have
  // read every element it needs through all of them before writing it.
  Tensor* forward_shared_input_to_output(int i, int o, DType dtype,
                                         const Shape& shape) {
    return Forward(forwardable_ | forwardable_shared_, i, o, dtype, shape);
  }
  Tensor* output(int i) { return &(*outputs_)[i]; }
  int num_outputs() const { return static_cast<int>(outputs_->size()); }
  // The Model's resources (hash tables ...).
  ResourceManager* resources() const { return resources_; }

 private:
  Tensor* Forward(uint64_t mask, int i, int o, DType dtype,
                  const Shape& shape) {
    if (i < 0 || i >= 64 || i >= num_inputs() || ((mask >> i) & 1) == 0) {
      return nullptr;
    }
    const Tensor& in = *inputs_[i];
    if (in.dtype() != dtype || !(in.shape() == shape) ||
        !in.HasExclusiveBuffer()) {
      return nullptr;
    }
    set_output(o, in);
    return &(*outputs_)[o];
  }

  absl::Span<const Tensor* const> inputs_;
  std::vector<Tensor>* outputs_;
  ResourceManager* resources_;
  uint64_t forwardable_ = 0;
  uint64_t forwardable_shared_ = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual absl::Status Run(KernelContext& ctx) const = 0;

  // Const adoption (load time, optional). After every kernel of a graph
  // exists, Graph::Build offers each Const value to the kernels that read
  // it: `value` feeds this kernel's data input `index`. A kernel that keeps
  // its own form of the value (a convolution's filter, which oneDNN packs
  // into its blocked layout) says yes in CanAdoptConstInput and is then
  // handed the value in AdoptConstInput, before any Run. When every data
  // consumer of a Const adopts it, the Const's own reference is dropped: it
  // holds ReleasedConst(value) instead, Runs pass that placeholder (same
  // dtype and shape, no storage) as the input, and the kernel must
  // recognise it (IsReleasedConst) and use its own copy. A fed value for
  // that input still arrives as an ordinary tensor. Fetching a released
  // Const is an error (the executor says so). The point is memory: the
  // decoded weights are freed once the kernel's packed copy exists.
  virtual bool CanAdoptConstInput(int index, const Tensor& value) const {
    return false;
  }
  virtual void AdoptConstInput(int index, Tensor value) {}
};

// The stand-in of a Const value its consumers adopted: the value's dtype and
// shape without storage (raw_data() is null). Never read its elements.
inline Tensor ReleasedConst(const Tensor& value) {
  return Tensor::View(value.dtype(), value.shape(), nullptr, nullptr);
}
// True for ReleasedConst placeholders (a real tensor with elements always
// has storage).
inline bool IsReleasedConst(const Tensor& t) {
  return t.valid() && t.num_elements() > 0 && t.raw_data() == nullptr;
}

using KernelFactory =
    absl::StatusOr<std::unique_ptr<Kernel>> (*)(const KernelInit& init);

// Convenience for kernels with no load-time state: wraps a function.
using KernelFn = absl::Status (*)(KernelContext& ctx);
std::unique_ptr<Kernel> MakeFunctionKernel(KernelFn fn);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_KERNEL_H_
