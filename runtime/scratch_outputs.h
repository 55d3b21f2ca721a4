// ScratchOutputs: the vector a kernel writes its outputs into, borrowed
// for one node execution (both executors) from a ScratchSlot.
//
// Why: KernelContext reserves kReservedOutputs (16) slots so that output
// pointers stay valid while a kernel sets further outputs. Reserving that
// in every node's own value slot cost 1.4 KB per node for the life of a
// RunState (1.4 MB on facemesh-attention's 1,012 run nodes); a fresh vector
// per execution (the dataflow executor) cost a malloc per node per loop
// iteration. Instead the kernel writes here, and MoveTo hands the outputs
// to the node's slot, which grows only to what the node produced.
//
// Where the vectors live: the executor keeps one ScratchSlot per arena
// thread index in each RunState, each holding a vector made with the
// RunState, so later Runs allocate nothing (tests/c_api:zero_alloc_test; a
// thread_local vector would be allocated by each oneTBB worker the first
// time it runs a node, which may be in any Run). The dataflow executor and
// threads outside the arena use a thread_local slot (ThreadSlot).
//
// Threads: a slot is borrowed and given back with atomic exchanges
// (acquire / release), so a slot whose arena index passes from one thread
// to another (external callers entering and leaving a shared arena) hands
// its vector over with a happens-before edge that ThreadSanitizer sees.
// Nesting: a kernel that runs nested nodes on its thread (If, While,
// PartitionedCall; or a oneTBB thread that takes another node's task while
// it waits inside a kernel's parallel loop) finds the slot empty and gets
// a fresh vector (an allocation) for the nested nodes.
#ifndef GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_
#define GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_

#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/tensor.h"

namespace graphrt {

// A parked scratch vector (or none).
class ScratchSlot {
 public:
  ScratchSlot() = default;
  ~ScratchSlot() { delete parked_.load(std::memory_order_acquire); }
  ScratchSlot(const ScratchSlot&) = delete;
  ScratchSlot& operator=(const ScratchSlot&) = delete;

  // Parks a vector with `capacity` reserved (replacing any parked one).
  void Fill(size_t capacity) {
    auto v = std::make_unique<std::vector<Tensor>>();
    v->reserve(capacity);
    Park(std::move(v));
  }
  // The parked vector, or null when it is lent out.
  std::unique_ptr<std::vector<Tensor>> Take() {
    return std::unique_ptr<std::vector<Tensor>>(
        parked_.exchange(nullptr, std::memory_order_acquire));
  }
  // Parks `v`; a vector a nested borrower parked meanwhile is freed.
  void Park(std::unique_ptr<std::vector<Tensor>> v) {
    delete parked_.exchange(v.release(), std::memory_order_acq_rel);
  }

 private:
  std::atomic<std::vector<Tensor>*> parked_{nullptr};
};

class ScratchOutputs {
 public:
  // Borrows from the calling thread's own slot (thread_local).
  ScratchOutputs() : ScratchOutputs(ThreadSlot()) {}
  // Borrows from `slot` (a fresh vector when it is lent out).
  explicit ScratchOutputs(ScratchSlot& slot)
      : slot_(slot), owned_(slot.Take()) {
    if (owned_ == nullptr) owned_ = std::make_unique<std::vector<Tensor>>();
    owned_->clear();
  }
  ~ScratchOutputs() {
    owned_->clear();
    slot_.Park(std::move(owned_));
  }
  ScratchOutputs(const ScratchOutputs&) = delete;
  ScratchOutputs& operator=(const ScratchOutputs&) = delete;

  // Pass to KernelContext.
  std::vector<Tensor>& outputs() { return *owned_; }

  // Moves the outputs into `slot` (cleared first; its capacity grows only
  // when short of the output count) and leaves the scratch empty.
  void MoveTo(std::vector<Tensor>& slot) {
    slot.clear();
    slot.reserve(owned_->size());
    for (Tensor& t : *owned_) slot.push_back(std::move(t));
    owned_->clear();
  }

  static ScratchSlot& ThreadSlot() {
    thread_local ScratchSlot slot;
    return slot;
  }

 private:
  ScratchSlot& slot_;
  std::unique_ptr<std::vector<Tensor>> owned_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_SCRATCH_OUTPUTS_H_
