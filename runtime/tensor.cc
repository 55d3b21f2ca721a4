#include "runtime/tensor.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/huge_pages.h"
#include "runtime/resource.h"
#include "runtime/variant.h"

namespace graphrt {
namespace {

template <typename T>
void ConstructAll(void* data, int64_t n) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) new (p + i) T();
}

template <typename T>
void DestroyAll(void* data, int64_t n) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) p[i].~T();
}

absl::StatusOr<size_t> CheckedByteSize(DType dtype, int64_t elements) {
  size_t elem = DTypeSize(dtype);
  if (elem == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a tensor of dtype ", DTypeName(dtype)));
  }
  if (elements < 0 || static_cast<uint64_t>(elements) > (SIZE_MAX / 2) / elem) {
    return absl::ResourceExhaustedError(absl::StrCat("tensor of ", elements,
                                                     " ", DTypeName(dtype),
                                                     " elements is too large"));
  }
  return static_cast<size_t>(elements) * elem;
}

size_t RoundToAlignment(size_t bytes) {
  size_t rounded =
      (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  return rounded == 0 ? kTensorAlignment : rounded;
}

// New storage is zeroed, or for Tensor::AllocateUninitialized left alone
// (poisoned with 0xff in builds with assertions, see tensor.h).
void FillNew(void* data, size_t bytes, bool zero_fill) {
#ifdef NDEBUG
  if (zero_fill) std::memset(data, 0, bytes);
#else
  std::memset(data, zero_fill ? 0 : 0xff, bytes);
#endif
}

absl::Status OutOfMemory(size_t bytes, DType dtype) {
  return absl::ResourceExhaustedError(
      absl::StrCat("out of memory allocating ", bytes, " bytes for a ",
                   DTypeName(dtype), " tensor"));
}

// The pool installed on this thread by ScopedBufferPool (or carried here
// by ParallelFor from the thread that called it).
BufferPool* CurrentPool() { return CurrentThreadContext().buffer_pool; }

// Size of the pooled control blocks (shared_ptr's count + Buffer +
// allocator); allocate_shared always asks for the same size.
constexpr size_t kControlBlockBytes = 256;

}  // namespace

// Allocator for allocate_shared: the control block (counts + Buffer) comes
// from the pool, which stays alive until the block is returned (see
// BufferPool's lifecycle).
template <typename T>
class PoolAllocator {
 public:
  using value_type = T;
  explicit PoolAllocator(BufferPool* pool) : pool_(pool) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U>& other) : pool_(other.pool_) {}
  T* allocate(size_t n) {
    if (n * sizeof(T) > kControlBlockBytes) throw std::bad_alloc();
    void* p = pool_->Take(BufferPool::kControlClass);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { pool_->Return(p, BufferPool::kControlClass); }
  template <typename U>
  bool operator==(const PoolAllocator<U>& other) const {
    return pool_ == other.pool_;
  }
  template <typename U>
  bool operator!=(const PoolAllocator<U>& other) const {
    return pool_ != other.pool_;
  }

 private:
  template <typename U>
  friend class PoolAllocator;
  BufferPool* pool_;
};

void Buffer::ConstructElements() {
  switch (dtype_) {
    case DType::kString:
      ConstructAll<std::string>(data_, elements_);
      break;
    case DType::kResource:
      ConstructAll<ResourceHandle>(data_, elements_);
      break;
    case DType::kVariant:
      ConstructAll<Variant>(data_, elements_);
      break;
    default:
      break;
  }
}

void Buffer::DestroyElements() {
  switch (dtype_) {
    case DType::kString:
      DestroyAll<std::string>(data_, elements_);
      break;
    case DType::kResource:
      DestroyAll<ResourceHandle>(data_, elements_);
      break;
    case DType::kVariant:
      DestroyAll<Variant>(data_, elements_);
      break;
    default:
      break;
  }
}

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::Allocate(DType dtype,
                                                         int64_t elements,
                                                         bool zero_fill) {
  auto bytes = CheckedByteSize(dtype, elements);
  if (!bytes.ok()) return bytes.status();
  size_t rounded = RoundToAlignment(*bytes);
  void* data = std::aligned_alloc(kTensorAlignment, rounded);
  if (data == nullptr) return OutOfMemory(*bytes, dtype);
  AdviseHugePages(data, rounded);  // before the first touch
  FillNew(data, rounded, zero_fill);
  std::shared_ptr<Buffer> buf(new (std::nothrow) Buffer(Key()));
  if (buf == nullptr) {
    std::free(data);
    return OutOfMemory(*bytes, dtype);
  }
  buf->data_ = data;
  buf->size_ = *bytes;
  buf->owned_ = true;
  buf->dtype_ = dtype;
  buf->elements_ = elements;
  buf->ConstructElements();
  return buf;
}

std::shared_ptr<Buffer> Buffer::View(void* data, size_t bytes,
                                     std::shared_ptr<const void> keep_alive) {
  // Inside a Run the control block comes from the Run's pool, like an
  // allocated Buffer's: kernels that return views make no heap call.
  std::shared_ptr<Buffer> buf;
  if (BufferPool* pool = CurrentPool(); pool != nullptr) {
    try {
      buf = std::allocate_shared<Buffer>(PoolAllocator<Buffer>(pool), Key());
    } catch (const std::bad_alloc&) {
      // Falls back to the heap below.
    }
  }
  if (buf == nullptr) buf.reset(new Buffer(Key()));
  buf->data_ = data;
  buf->size_ = bytes;
  buf->owned_ = false;
  buf->keep_alive_ = std::move(keep_alive);
  return buf;
}

Buffer::~Buffer() {
  if (!owned_) return;
  DestroyElements();
  if (pool_ != nullptr) {
    pool_->Return(data_, size_class_);
  } else {
    std::free(data_);
  }
}

std::shared_ptr<BufferPool> BufferPool::Create() {
  return std::shared_ptr<BufferPool>(new BufferPool(),
                                     [](BufferPool* pool) { pool->Orphan(); });
}

void BufferPool::Orphan() {
  int64_t live = 0;
  for (Shard& shard : shards_) shard.mu.Lock();
  for (Shard& shard : shards_) {
    live += shard.live_buffers;
    shard.orphaned = true;
  }
  orphan_live_buffers_.store(live, std::memory_order_relaxed);
  for (Shard& shard : shards_) shard.mu.Unlock();
  if (live == 0) delete this;
}

namespace {

// A free block's first bytes hold the next free block of its list.
void* NextFree(void* block) {
  void* next;
  std::memcpy(&next, block, sizeof(next));
  return next;
}
void SetNextFree(void* block, void* next) {
  std::memcpy(block, &next, sizeof(next));
}

}  // namespace

BufferPool::~BufferPool() {
  for (Shard& shard : shards_) {
    MutexLock lock(&shard.mu);
    for (void*& head : shard.free_blocks) {
      while (head != nullptr) std::free(std::exchange(head, NextFree(head)));
    }
    void*& head = shard.free_control_blocks;
    while (head != nullptr) std::free(std::exchange(head, NextFree(head)));
  }
}

int BufferPool::CurrentShard() {
  static std::atomic<int> next{0};
  thread_local const int shard =
      next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return shard;
}

void* BufferPool::PopFree(Shard& shard, int size_class) {
  MutexLock lock(&shard.mu);
  void*& head = size_class == kControlClass ? shard.free_control_blocks
                                            : shard.free_blocks[size_class];
  if (head == nullptr) return nullptr;
  if (size_class == kControlClass) ++shard.live_buffers;
  return std::exchange(head, NextFree(head));
}

void* BufferPool::Take(int size_class) {
  const int own = CurrentShard();
  for (int i = 0; i < kShards; ++i) {
    if (void* p = PopFree(shards_[(own + i) % kShards], size_class)) return p;
  }
  const size_t bytes = size_class == kControlClass
                           ? kControlBlockBytes
                           : kTensorAlignment << size_class;
  void* p = std::aligned_alloc(kTensorAlignment, bytes);
  if (p == nullptr) return nullptr;
  Shard& home = shards_[own];
  MutexLock lock(&home.mu);
  ++home.heap_allocations;
  if (size_class == kControlClass) {
    ++home.live_buffers;
  } else {
    home.held_bytes += static_cast<int64_t>(bytes);
  }
  return p;
}

void BufferPool::Return(void* block, int size_class) {
  Shard& home = shards_[CurrentShard()];
  bool orphaned;
  {
    MutexLock lock(&home.mu);
    void*& head = size_class == kControlClass ? home.free_control_blocks
                                              : home.free_blocks[size_class];
    SetNextFree(block, head);
    head = block;
    if (size_class != kControlClass) return;
    --home.live_buffers;
    orphaned = home.orphaned;
  }
  // Orphan() counted this Buffer as live; the last one deletes the pool.
  if (orphaned &&
      orphan_live_buffers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete this;
  }
}

int64_t BufferPool::held_bytes() const {
  int64_t sum = 0;
  for (const Shard& shard : shards_) {
    MutexLock lock(&shard.mu);
    sum += shard.held_bytes;
  }
  return sum;
}

int64_t BufferPool::heap_allocations() const {
  int64_t sum = 0;
  for (const Shard& shard : shards_) {
    MutexLock lock(&shard.mu);
    sum += shard.heap_allocations;
  }
  return sum;
}

absl::StatusOr<std::shared_ptr<Buffer>> BufferPool::Allocate(DType dtype,
                                                             int64_t elements,
                                                             uint64_t run_tag,
                                                             bool zero_fill) {
  auto bytes = CheckedByteSize(dtype, elements);
  if (!bytes.ok()) return bytes.status();
  size_t rounded = RoundToAlignment(*bytes);
  int size_class = 0;
  while (size_class < kNumClasses &&
         (kTensorAlignment << size_class) < rounded) {
    ++size_class;
  }
  if (size_class == kNumClasses) return OutOfMemory(*bytes, dtype);
  void* data = Take(size_class);
  if (data == nullptr) return OutOfMemory(*bytes, dtype);
  FillNew(data, rounded, zero_fill);
  std::shared_ptr<Buffer> buf;
  try {
    buf = std::allocate_shared<Buffer>(PoolAllocator<Buffer>(this),
                                       Buffer::Key());
  } catch (const std::bad_alloc&) {
    Return(data, size_class);
    return OutOfMemory(*bytes, dtype);
  }
  buf->data_ = data;
  buf->size_ = *bytes;
  buf->owned_ = true;
  buf->pool_ = this;
  buf->size_class_ = size_class;
  buf->run_tag_ = run_tag;
  buf->dtype_ = dtype;
  buf->elements_ = elements;
  buf->ConstructElements();
  return buf;
}

ThreadContext ScopedBufferPool::WithPool(BufferPool* pool, uint64_t run_tag) {
  ThreadContext context = CurrentThreadContext();
  context.buffer_pool = pool;
  context.run_tag = run_tag;
  return context;
}

absl::StatusOr<Tensor> Tensor::Allocate(DType dtype, const Shape& shape) {
  return AllocateImpl(dtype, shape, /*zero_fill=*/true);
}

absl::StatusOr<Tensor> Tensor::AllocateUninitialized(DType dtype,
                                                     const Shape& shape) {
  return AllocateImpl(dtype, shape, /*zero_fill=*/false);
}

absl::StatusOr<Tensor> Tensor::AllocateImpl(DType dtype, const Shape& shape,
                                            bool zero_fill) {
  absl::Status checked = Shape::Make(shape.dims()).status();
  if (!checked.ok()) return checked;
  BufferPool* pool = CurrentPool();
  auto buf = pool != nullptr
                 ? pool->Allocate(dtype, shape.num_elements(),
                                  CurrentThreadContext().run_tag, zero_fill)
                 : Buffer::Allocate(dtype, shape.num_elements(), zero_fill);
  if (!buf.ok()) {
    return absl::Status(buf.status().code(),
                        absl::StrCat(buf.status().message(), " (shape ",
                                     shape.ToString(), ")"));
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.buffer_ = std::move(*buf);
  t.data_ = t.buffer_->data();
  return t;
}

Tensor Tensor::View(DType dtype, const Shape& shape, void* data,
                    std::shared_ptr<const void> keep_alive) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.buffer_ = Buffer::View(data, shape.num_elements() * DTypeSize(dtype),
                           std::move(keep_alive));
  t.data_ = data;
  return t;
}

absl::StatusOr<Tensor> Tensor::Reshaped(const Shape& shape) const {
  if (shape.num_elements() != num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape ", DebugString(), " to ", shape.ToString(),
                     ": element counts differ"));
  }
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

absl::StatusOr<Tensor> Tensor::Clone() const {
  auto out = Allocate(dtype_, shape_);
  if (!out.ok()) return out.status();
  switch (dtype_) {
    case DType::kString:
      for (int64_t i = 0; i < num_elements(); ++i)
        out->mutable_data<std::string>()[i] = data<std::string>()[i];
      break;
    case DType::kResource:
      for (int64_t i = 0; i < num_elements(); ++i)
        out->mutable_data<ResourceHandle>()[i] = data<ResourceHandle>()[i];
      break;
    case DType::kVariant:
      for (int64_t i = 0; i < num_elements(); ++i)
        out->mutable_data<Variant>()[i] = data<Variant>()[i];
      break;
    default:
      if (byte_size() > 0) std::memcpy(out->raw_data(), data_, byte_size());
  }
  return out;
}

std::string Tensor::DebugString() const {
  return absl::StrCat(DTypeName(dtype_), shape_.ToString());
}

bool Tensor::IdenticalTo(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (dtype_ == DType::kString) {
    for (int64_t i = 0; i < num_elements(); ++i) {
      if (data<std::string>()[i] != other.data<std::string>()[i]) return false;
    }
    return true;
  }
  if (!IsTriviallyCopyable(dtype_)) return false;
  return byte_size() == 0 || std::memcmp(data_, other.data_, byte_size()) == 0;
}

}  // namespace graphrt
