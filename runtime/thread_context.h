// ThreadContext: the per-thread state a kernel call runs under, which
// ParallelFor (runtime/parallel.h) carries from the calling thread into
// every chunk it hands to a oneTBB worker.
//
// Why: the executor installs the Run's BufferPool around each kernel call
// (ScopedBufferPool, runtime/tensor.h), so tensors and ops::ScratchArray
// scratch allocated by the kernel come from the pool. A kernel's parallel
// loop runs its chunks on oneTBB's worker threads, which have no pool
// installed: without the carried context every allocation in a chunk
// (ResizeBilinear's row caches, per-chunk scratch) went to the heap on each
// multi-threaded Run.
//
// Cost: two thread-local stores per chunk (and two to restore them); no
// allocation, no lock.
//
// Thread-safety: each thread reads and writes only its own context.
#ifndef GRAPHRT_RUNTIME_THREAD_CONTEXT_H_
#define GRAPHRT_RUNTIME_THREAD_CONTEXT_H_

#include <cstdint>

namespace graphrt {

class BufferPool;

struct ThreadContext {
  BufferPool* buffer_pool = nullptr;  // null: Tensor::Allocate uses the heap
  uint64_t run_tag = 0;               // tags buffers taken from the pool
};

namespace thread_context_internal {
inline thread_local ThreadContext current;
}  // namespace thread_context_internal

// This thread's context.
inline const ThreadContext& CurrentThreadContext() {
  return thread_context_internal::current;
}

// Installs `context` on this thread for the lifetime of the object and
// restores the previous one on destruction; nests.
class ScopedThreadContext {
 public:
  explicit ScopedThreadContext(const ThreadContext& context)
      : previous_(thread_context_internal::current) {
    thread_context_internal::current = context;
  }
  ~ScopedThreadContext() { thread_context_internal::current = previous_; }
  ScopedThreadContext(const ScopedThreadContext&) = delete;
  ScopedThreadContext& operator=(const ScopedThreadContext&) = delete;

 private:
  ThreadContext previous_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_THREAD_CONTEXT_H_
