// The oneDNN plumbing shared by graphrt's oneDNN kernels (dnnl_conv.h,
// dnnl_winograd.h): one CPU engine, a stream and a scratchpad per thread,
// one-shot reorders, and a guard that keeps oneDNN's OpenMP runtime on the
// calling thread.
//
// Threading: everything here runs on the calling thread. Engine() is
// created once (thread-safe static); ThreadStream() and ThreadScratchpad()
// are the calling thread's own.
#ifndef GRAPHRT_OPS_NN_DNNL_DNNL_UTIL_H_
#define GRAPHRT_OPS_NN_DNNL_DNNL_UTIL_H_

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "oneapi/dnnl/dnnl.h"

namespace graphrt {
namespace nn {
namespace dnnl_util {

// Keeps oneDNN on the calling thread: its OpenMP runtime would otherwise
// start a team of all cores for every primitive. Sets the calling thread's
// OpenMP thread count to 1 for the guard's lifetime.
class OmpSingleThread {
 public:
  OmpSingleThread();
  ~OmpSingleThread();
  OmpSingleThread(const OmpSingleThread&) = delete;
  OmpSingleThread& operator=(const OmpSingleThread&) = delete;

 private:
  int prev_;
};

// The process's CPU engine, or null when oneDNN cannot create one.
dnnl_engine_t Engine();

// The calling thread's stream (CPU streams execute synchronously on the
// caller), or null when it cannot be created.
dnnl_stream_t ThreadStream();

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<void, AlignedFree>;

// `bytes` (at least 1) rounded up to 64 and 64-byte aligned; null when out
// of memory.
AlignedBuffer AllocAligned(size_t bytes);

// `bytes` rounded up to a multiple of 64 (offsets inside one scratchpad).
inline size_t RoundUp64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// The calling thread's scratchpad, at least `bytes` long (null when out of
// memory). Shared by every primitive the thread runs: a thread runs one at
// a time, so the largest need is enough, where a buffer per primitive
// summed them (every convolution of a model; several MB).
void* ThreadScratchpad(size_t bytes);

// Copies data from one layout into another (dims equal) on the calling
// thread, through a reorder primitive made for this one call.
dnnl_status_t Reorder(const dnnl_memory_desc_t& from_md, const void* from_data,
                      const dnnl_memory_desc_t& to_md, void* to_data);

}  // namespace dnnl_util
}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DNNL_DNNL_UTIL_H_
