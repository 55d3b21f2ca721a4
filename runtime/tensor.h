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
#ifndef GRAPHRT_RUNTIME_TENSOR_H_
#define GRAPHRT_RUNTIME_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/dtype.h"
#include "runtime/shape.h"

namespace graphrt {

inline constexpr size_t kTensorAlignment = 64;

// Raw storage shared by Tensors.
class Buffer {
 public:
  // 64-byte aligned, zero-filled, elements of non-trivial dtypes
  // default-constructed. Fails (does not throw) when memory runs out.
  static absl::StatusOr<std::shared_ptr<Buffer>> Allocate(DType dtype,
                                                          int64_t elements);
  // Views `bytes` bytes at `data`; `keep_alive` owns that memory.
  static std::shared_ptr<Buffer> View(void* data, size_t bytes,
                                      std::shared_ptr<const void> keep_alive);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  Buffer() = default;
  void* data_ = nullptr;
  size_t size_ = 0;
  bool owned_ = false;
  DType dtype_ = DType::kInvalid;  // for destroying non-trivial elements
  int64_t elements_ = 0;
  std::shared_ptr<const void> keep_alive_;
};

class Tensor {
 public:
  Tensor() = default;  // invalid (no dtype)

  // New zero-filled tensor. Errors name the dtype and shape.
  static absl::StatusOr<Tensor> Allocate(DType dtype, const Shape& shape);
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

 private:
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
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.num_elements()); ++i) {
    out[i] = values[i];
  }
  return t;
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_TENSOR_H_
