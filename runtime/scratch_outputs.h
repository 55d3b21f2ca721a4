// ScratchOutputs: the vector a kernel writes its outputs into, borrowed
// from the calling thread for one node execution (both executors).
//
// Why: KernelContext reserves kReservedOutputs (16) slots so that output
// pointers stay valid while a kernel sets further outputs. Reserving that
// in every node's own value slot cost 1.4 KB per node for the life of a
// RunState (1.4 MB on facemesh-attention's 1,012 run nodes); a fresh vector
// per execution (the dataflow executor) cost a malloc per node per loop
// iteration. Instead the kernel writes here, and MoveTo hands the outputs
// to the node's slot, which grows only to what the node produced.
//
// Nesting: a kernel that runs a nested graph (If, While, PartitionedCall)
// finds the thread's vector lent out and gets a fresh one for its inner
// nodes, which the inner nodes then share.
#ifndef GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_
#define GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_

#include <utility>
#include <vector>

#include "runtime/tensor.h"

namespace graphrt {

class ScratchOutputs {
 public:
  ScratchOutputs() : outputs_(std::move(Cached())) { outputs_.clear(); }
  ~ScratchOutputs() {
    outputs_.clear();
    Cached() = std::move(outputs_);
  }
  ScratchOutputs(const ScratchOutputs&) = delete;
  ScratchOutputs& operator=(const ScratchOutputs&) = delete;

  // Pass to KernelContext.
  std::vector<Tensor>& outputs() { return outputs_; }

  // Moves the outputs into `slot` (cleared first; its capacity grows only
  // when short of the output count) and leaves the scratch empty.
  void MoveTo(std::vector<Tensor>& slot) {
    slot.clear();
    slot.reserve(outputs_.size());
    for (Tensor& t : outputs_) slot.push_back(std::move(t));
    outputs_.clear();
  }

 private:
  static std::vector<Tensor>& Cached() {
    thread_local std::vector<Tensor> cached;
    return cached;
  }
  std::vector<Tensor> outputs_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_
