#include "ops/nn/dnnl/dnnl_util.h"

#include <algorithm>

// libgomp's C entry points (oneDNN's OpenMP runtime), declared here rather
// than through <omp.h>, which is GCC's and absent from clang's default
// include path (the fuzz build).
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int num_threads);
}

namespace graphrt {
namespace nn {
namespace dnnl_util {

OmpSingleThread::OmpSingleThread() : prev_(omp_get_max_threads()) {
  if (prev_ != 1) omp_set_num_threads(1);
}

OmpSingleThread::~OmpSingleThread() {
  if (prev_ != 1) omp_set_num_threads(prev_);
}

dnnl_engine_t Engine() {
  static dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success) return e = nullptr;
    return e;
  }();
  return engine;
}

dnnl_stream_t ThreadStream() {
  struct Holder {
    dnnl_stream_t s = nullptr;
    ~Holder() {
      if (s != nullptr) dnnl_stream_destroy(s);
    }
  };
  thread_local Holder holder;
  if (holder.s == nullptr &&
      dnnl_stream_create(&holder.s, Engine(), dnnl_stream_default_flags) !=
          dnnl_success) {
    holder.s = nullptr;
  }
  return holder.s;
}

AlignedBuffer AllocAligned(size_t bytes) {
  return AlignedBuffer(
      std::aligned_alloc(64, RoundUp64(std::max<size_t>(bytes, 1))));
}

void* ThreadScratchpad(size_t bytes) {
  struct Holder {
    AlignedBuffer buffer;
    size_t size = 0;
  };
  thread_local Holder holder;
  if (holder.size < bytes) {
    holder.buffer.reset();
    holder.size = 0;
    holder.buffer = AllocAligned(bytes);
    if (holder.buffer != nullptr) holder.size = bytes;
  }
  return holder.buffer.get();
}

dnnl_status_t Reorder(const dnnl_memory_desc_t& from_md, const void* from_data,
                      const dnnl_memory_desc_t& to_md, void* to_data) {
  dnnl_memory_t from = nullptr, to = nullptr;
  dnnl_primitive_desc_t reorder_pd = nullptr;
  dnnl_primitive_t reorder = nullptr;
  dnnl_status_t st = dnnl_memory_create(&from, &from_md, Engine(),
                                        const_cast<void*>(from_data));
  if (st == dnnl_success) {
    st = dnnl_memory_create(&to, &to_md, Engine(), to_data);
  }
  if (st == dnnl_success) {
    st = dnnl_reorder_primitive_desc_create(&reorder_pd, &from_md, Engine(),
                                            &to_md, Engine(), nullptr);
  }
  if (st == dnnl_success) st = dnnl_primitive_create(&reorder, reorder_pd);
  if (st == dnnl_success) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    st = dnnl_primitive_execute(reorder, ThreadStream(), 2, args);
  }
  if (reorder != nullptr) dnnl_primitive_destroy(reorder);
  if (reorder_pd != nullptr) dnnl_primitive_desc_destroy(reorder_pd);
  if (to != nullptr) dnnl_memory_destroy(to);
  if (from != nullptr) dnnl_memory_destroy(from);
  return st;
}

}  // namespace dnnl_util
}  // namespace nn
}  // namespace graphrt
