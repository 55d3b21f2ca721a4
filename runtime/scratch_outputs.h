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
// Nesting: a kernel that runs nested nodes on its thread (If, While,
// PartitionedCall; or a oneTBB thread that takes another node's task while
// it waits inside a kernel's parallel loop) finds the vector lent out and
// gets a fresh one (an allocation) for the nested nodes.
#ifndef GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_
#define GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_

#include <utility>
#include <vector>

#include "runtime/tensor.h"

namespace graphrt {

class ScratchOutputs {
 public:
  // Borrows the calling thread's own vector (thread_local).
  ScratchOutputs() : ScratchOutputs(ThreadHome()) {}
  // Borrows `home`, a vector that no other thread uses while this one
  // runs: the executor keeps one per arena thread in each RunState, made
  // with it, so that later Runs allocate nothing (tests/c_api:
  // zero_alloc_test); a thread-local one would be allocated by each worker
  // thread the first time it runs a node, which may be in any Run.
  explicit ScratchOutputs(std::vector<Tensor>& home)
      : home_(home), outputs_(std::move(home)) {
    outputs_.clear();
  }
  ~ScratchOutputs() {
    outputs_.clear();
    // A nested borrower may have left its own vector there: keep one.
    if (home_.capacity() < outputs_.capacity()) home_ = std::move(outputs_);
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

  static std::vector<Tensor>& ThreadHome() {
    thread_local std::vector<Tensor> home;
    return home;
  }

 private:
  std::vector<Tensor>& home_;
  std::vector<Tensor> outputs_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_
