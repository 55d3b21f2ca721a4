// Tensor: a dtype, a shape and a reference-counted buffer.
//
// * Buffers are 64-byte aligned when graphrt allocates them.
// * Copying a Tensor is cheap (shares the buffer); kernels never mutate an
//   input buffer, they allocate outputs (or forward inputs unchanged).
// * A Tensor may view memory it does not own (Tensor::View): a keep-alive
//   object holds that memory for as long as any Tensor refers to it.
// * Element storage: plain bytes for numeric dtypes; std::string objects for
//   kString, ResourceHandle for kResource, Variant for kVariant (constructed
//   on allocation, destroyed with the buffer).
// * Recycling: while a BufferPool is installed on a thread
//   (ScopedBufferPool), Tensor::Allocate on that thread takes its storage
//   from the pool, and the storage goes back to the pool when the last
//   Tensor referring to it is destroyed. The executor installs its pool
//   around every kernel call, so steady-state Runs reuse the same memory and
//   make no heap allocation for tensors.
#ifndef GRAPHRT_RUNTIME_TENSOR_H_
#define GRAPHRT_RUNTIME_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/dtype.h"
#include "runtime/mutex.h"
#include "runtime/shape.h"
#include "runtime/thread_context.h"

namespace graphrt {

inline constexpr size_t kTensorAlignment = 64;

class BufferPool;

// Raw storage shared by Tensors.
class Buffer {
 public:
  // Only Buffer and BufferPool can make the key (needed by allocate_shared).
  class Key {
    friend class Buffer;
    friend class BufferPool;
    Key() = default;
  };
  explicit Buffer(Key) {}

  // 64-byte aligned, zero-filled (unless `zero_fill` is false: see
  // Tensor::AllocateUninitialized), elements of non-trivial dtypes
  // default-constructed. Fails (does not throw) when memory runs out.
  static absl::StatusOr<std::shared_ptr<Buffer>> Allocate(
      DType dtype, int64_t elements, bool zero_fill = true);
  // Views `bytes` bytes at `data`; `keep_alive` owns that memory.
  static std::shared_ptr<Buffer> View(void* data, size_t bytes,
                                      std::shared_ptr<const void> keep_alive);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // Tag of the Run that allocated this buffer (see ScopedBufferPool); 0 when
  // allocated outside a Run or not owned.
  uint64_t run_tag() const { return run_tag_; }

 private:
  friend class BufferPool;
  // Constructs/destroys the elements of non-trivial dtypes.
  void ConstructElements();
  void DestroyElements();

  void* data_ = nullptr;
  size_t size_ = 0;
  bool owned_ = false;
  BufferPool* pool_ = nullptr;  // storage goes back here when set
  int size_class_ = 0;          // the pool's size class of data_
  uint64_t run_tag_ = 0;
  DType dtype_ = DType::kInvalid;  // for destroying non-trivial elements
  int64_t elements_ = 0;
  std::shared_ptr<const void> keep_alive_;
};

// Recycles tensor storage: 64-byte aligned blocks in power-of-two size
// classes, plus the shared_ptr control blocks of the Buffers themselves, so a
// Tensor::Allocate served from a warm pool calls neither malloc nor new.
//
// Lifecycle and ownership: create with BufferPool::Create (shared); every
// Buffer it hands out keeps the pool alive, so Tensors may outlive the
// owner that created the pool (e.g. outputs returned to a caller). Blocks
// are kept for reuse until the pool itself is destroyed; the pool retains
// at most the peak number of simultaneously live blocks per size class.
// Buffers do not hold a shared_ptr to the pool (whose one reference count
// every thread would write twice per tensor, bouncing its cache line
// between concurrent Runs): each shard counts the Buffers taken and
// released on it, under the lock it already holds. When the last owner
// drops the pool, it sums those counts under all shard locks; the pool is
// deleted then if no Buffer is live, otherwise by the release that brings
// the sum (from then on one atomic) to zero.
//
// Thread-safety: all methods are thread-safe; Buffers from one pool may be
// released on any thread.
//
// Concurrency: the free lists are split into kShards shards, each with its
// own lock; threads are assigned shards round-robin on first use. A thread
// takes blocks from its own shard and puts every block it releases on its
// own shard too, wherever the block came from, so blocks follow the thread
// that uses them: two concurrent Runs on different threads neither contend
// on one lock nor hand each other blocks that are hot in another core's
// cache. (Returning a block to the shard it came from instead let every
// block drift to the shards of threads long gone, which all later threads
// then shared: two callers of the age model got 1.28x one caller's
// throughput, 1.67x after this change; bench/RESULTS.md.) When its own shard
// has no free block of a size class, a thread takes one from another shard
// before it asks the heap, so a warm pool still stops calling the heap. The
// free lists are intrusive (a free block's first bytes link to the next),
// so releasing a block never allocates.
class BufferPool {
 public:
  static std::shared_ptr<BufferPool> Create();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Like Buffer::Allocate (zero-filled unless `zero_fill` is false,
  // elements constructed), tagged with `run_tag`.
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(DType dtype,
                                                   int64_t elements,
                                                   uint64_t run_tag,
                                                   bool zero_fill = true);

  // Bytes held by the pool (free and in use).
  int64_t held_bytes() const;
  // Heap calls made so far (data blocks and control blocks); a warm pool
  // stops growing this.
  int64_t heap_allocations() const;

 private:
  template <typename T>
  friend class PoolAllocator;
  friend class Buffer;
  BufferPool() = default;
  ~BufferPool();  // only through Orphan() / the last Return()
  static constexpr int kNumClasses = 48;
  static constexpr int kShards = 8;

  // One lock's worth of free lists, on its own cache lines. Each list is a
  // singly linked stack threaded through the free blocks themselves.
  struct alignas(64) Shard {
    mutable Mutex mu;
    void* free_blocks[kNumClasses] ABSL_GUARDED_BY(mu) = {};
    void* free_control_blocks ABSL_GUARDED_BY(mu) = nullptr;
    // Counted where the heap call was made (only the sums mean anything).
    int64_t held_bytes ABSL_GUARDED_BY(mu) = 0;
    int64_t heap_allocations ABSL_GUARDED_BY(mu) = 0;
    // Buffers (control blocks) taken minus returned here; a Buffer may be
    // returned on another shard, so only the sum is the number live.
    int64_t live_buffers ABSL_GUARDED_BY(mu) = 0;
    // Set (under every shard's lock) once the last owner dropped the pool.
    bool orphaned ABSL_GUARDED_BY(mu) = false;
  };

  // The calling thread's shard.
  static int CurrentShard();
  // A block of `size_class` (a control block when size_class is
  // kControlClass) for the calling thread; null when out of memory.
  void* Take(int size_class);
  // Puts a block on the calling thread's shard.
  void Return(void* block, int size_class);
  // Pops a free block of `size_class` from `shard`; null when it has none.
  static void* PopFree(Shard& shard, int size_class);
  static constexpr int kControlClass = -1;
  // The last owner dropped the pool (BufferPool::Create's deleter): deletes
  // it now if no Buffer is live, otherwise leaves that to the last release.
  void Orphan();

  Shard shards_[kShards];
  // Buffers still live once orphaned (valid only then).
  std::atomic<int64_t> orphan_live_buffers_{0};
};

// Routes Tensor::Allocate on the current thread to `pool` (tagging buffers
// with `run_tag`) for the lifetime of this object; nests (restores the
// previous pool on destruction). `pool` may be null (plain allocation).
// ParallelFor carries the installed pool into the chunks it runs on other
// threads (runtime/thread_context.h), so a kernel's parallel loops take
// their tensors and scratch from the same pool.
class ScopedBufferPool {
 public:
  ScopedBufferPool(BufferPool* pool, uint64_t run_tag)
      : scope_(WithPool(pool, run_tag)) {}
  ScopedBufferPool(const ScopedBufferPool&) = delete;
  ScopedBufferPool& operator=(const ScopedBufferPool&) = delete;

 private:
  // This thread's context with the pool and tag replaced.
  static ThreadContext WithPool(BufferPool* pool, uint64_t run_tag);
  ScopedThreadContext scope_;
};

class Tensor {
 public:
  Tensor() = default;  // invalid (no dtype)

  // New zero-filled tensor. Errors name the dtype and shape.
  static absl::StatusOr<Tensor> Allocate(DType dtype, const Shape& shape);
  // Like Allocate, for a kernel that writes every element itself: numeric
  // and bool elements are left as the memory held them (a pooled buffer
  // holds an earlier Run's values), which saves a memset of the whole
  // output per node. String, resource and variant elements are still
  // constructed. Builds without NDEBUG (tests, sanitizers) fill the memory
  // with 0xff bytes instead (NaN for floats), so a kernel that leaves an
  // element unwritten shows up as a test failure, not as a flaky value.
  static absl::StatusOr<Tensor> AllocateUninitialized(DType dtype,
                                                      const Shape& shape);
  // A tensor over memory owned by `keep_alive` (numeric dtypes only; `data`
  // must hold shape.num_elements() elements).
  static Tensor View(DType dtype, const Shape& shape, void* data,
                     std::shared_ptr<const void> keep_alive);
  // Scalars and vectors for tests and small constants.
  template <typename T>
  static Tensor Scalar(T value);
  template <typename T>
  static Tensor FromVector(absl::Span<const T> values, Shape shape = {});

  bool valid() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t byte_size() const { return num_elements() * DTypeSize(dtype_); }

  const void* raw_data() const { return data_; }
  void* raw_data() { return data_; }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  absl::Span<const T> span() const {
    return {data<T>(), static_cast<size_t>(num_elements())};
  }
  template <typename T>
  absl::Span<T> mutable_span() {
    return {mutable_data<T>(), static_cast<size_t>(num_elements())};
  }

  // Same buffer, another shape with the same element count.
  absl::StatusOr<Tensor> Reshaped(const Shape& shape) const;
  // A deep copy in a new buffer.
  absl::StatusOr<Tensor> Clone() const;
  // "float32[1,2]".
  std::string DebugString() const;
  // Element-wise equality of dtype, shape and values (bitwise for floats).
  bool IdenticalTo(const Tensor& other) const;
  // The storage (null for an invalid tensor). Two tensors share storage iff
  // their buffers are the same object.
  const Buffer* buffer() const { return buffer_.get(); }
  // True when this tensor is the only holder of its storage (no other
  // tensor, view or slice shares it): then its owner may let a kernel
  // overwrite it (KernelContext::forward_input_to_output).
  bool HasExclusiveBuffer() const {
    return buffer_ != nullptr && buffer_.use_count() == 1;
  }

 private:
  static absl::StatusOr<Tensor> AllocateImpl(DType dtype, const Shape& shape,
                                             bool zero_fill);

  DType dtype_ = DType::kInvalid;
  Shape shape_;
  std::shared_ptr<Buffer> buffer_;
  void* data_ = nullptr;
};

template <typename T>
Tensor Tensor::Scalar(T value) {
  Tensor t = *Allocate(DTypeOf<T>::value, Shape());
  *t.mutable_data<T>() = std::move(value);
  return t;
}

template <typename T>
Tensor Tensor::FromVector(absl::Span<const T> values, Shape shape) {
  if (shape.rank() == 0 && values.size() != 1) {
    shape = Shape({static_cast<int64_t>(values.size())});
  }
  Tensor t = *Allocate(DTypeOf<T>::value, shape);
  T* out = t.mutable_data<T>();
  for (size_t i = 0;
       i < values.size() && i < static_cast<size_t>(t.num_elements()); ++i) {
    out[i] = values[i];
  }
  return t;
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_TENSOR_H_
