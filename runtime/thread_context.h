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
// It carries the host's job system when the Model was given one
// (runtime/job_system.h), so a chunk's own loops go there too.
//
// It also carries the Run's floating-point mode. With flush_denormals set
// (ModelOptions::flush_denormals, on by default as in TensorFlow's
// executor), the thread computes with FTZ + DAZ: denormal results and
// inputs are zero. Intel cores take a microcode assist (order of 100
// cycles) for a multiply with a denormal operand or result, which slows
// models whose activations decay towards zero; AMD Zen cores mostly do not.
// Carrying the mode into every chunk keeps a Run's results identical at any
// thread count. Values differ from IEEE only below 1.2e-38 (float32's
// smallest normal). On CPUs other than x86 the mode is not changed (the
// flag is carried, not applied).
//
// Cost: two thread-local stores per chunk (and two to restore them), one
// MXCSR read, and an MXCSR write only when the mode changes; no
// allocation, no lock.
//
// Thread-safety: each thread reads and writes only its own context.
#ifndef GRAPHRT_RUNTIME_THREAD_CONTEXT_H_
#define GRAPHRT_RUNTIME_THREAD_CONTEXT_H_

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace graphrt {

class BufferPool;
class JobSystem;

struct ThreadContext {
  BufferPool* buffer_pool = nullptr;  // null: Tensor::Allocate uses the heap
  uint64_t run_tag = 0;               // tags buffers taken from the pool
  bool flush_denormals = false;       // FTZ + DAZ while installed (x86)
  // The host's job system ParallelFor hands its chunks to
  // (runtime/job_system.h); null: oneTBB's current arena.
  JobSystem* job_system = nullptr;
};

namespace thread_context_internal {
inline thread_local ThreadContext current;
}  // namespace thread_context_internal

// This thread's context.
inline const ThreadContext& CurrentThreadContext() {
  return thread_context_internal::current;
}

namespace thread_context_internal {
#if defined(__x86_64__) || defined(__i386__)
// MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6).
inline constexpr unsigned kFlushDenormalBits = 0x8040;
inline unsigned ReadFpMode() { return _mm_getcsr(); }
inline void WriteFpMode(unsigned mode) { _mm_setcsr(mode); }
#else
inline constexpr unsigned kFlushDenormalBits = 0;
inline unsigned ReadFpMode() { return 0; }
inline void WriteFpMode(unsigned) {}
#endif
}  // namespace thread_context_internal

// Whether this thread computes with denormals flushed to zero right now
// (always false off x86).
inline bool FlushingDenormals() {
  constexpr unsigned kBits = thread_context_internal::kFlushDenormalBits;
  return kBits != 0 && (thread_context_internal::ReadFpMode() & kBits) == kBits;
}

// Installs `context` on this thread for the lifetime of the object and
// restores the previous one on destruction; nests. The thread's
// floating-point mode is set to context.flush_denormals either way (a
// oneTBB worker waiting inside one Run's chunk may steal a chunk of another
// Run with the other mode) and restored on destruction.
class ScopedThreadContext {
 public:
  explicit ScopedThreadContext(const ThreadContext& context)
      : previous_(thread_context_internal::current),
        previous_fp_mode_(thread_context_internal::ReadFpMode()) {
    constexpr unsigned kBits = thread_context_internal::kFlushDenormalBits;
    thread_context_internal::current = context;
    const unsigned mode = context.flush_denormals
                              ? (previous_fp_mode_ | kBits)
                              : (previous_fp_mode_ & ~kBits);
    if (mode != previous_fp_mode_) thread_context_internal::WriteFpMode(mode);
  }
  ~ScopedThreadContext() {
    constexpr unsigned kBits = thread_context_internal::kFlushDenormalBits;
    thread_context_internal::current = previous_;
    // Only the flush bits are restored: the status flags the kernels raised
    // (inexact, overflow, ...) stay, as they would without the scope.
    const unsigned now = thread_context_internal::ReadFpMode();
    if (((now ^ previous_fp_mode_) & kBits) != 0) {
      thread_context_internal::WriteFpMode((now & ~kBits) |
                                           (previous_fp_mode_ & kBits));
    }
  }
  ScopedThreadContext(const ScopedThreadContext&) = delete;
  ScopedThreadContext& operator=(const ScopedThreadContext&) = delete;

 private:
  ThreadContext previous_;
  unsigned previous_fp_mode_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_THREAD_CONTEXT_H_
