#include "runtime/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
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

}  // namespace

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::Allocate(DType dtype,
                                                         int64_t elements) {
  size_t elem = DTypeSize(dtype);
  if (elem == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a tensor of dtype ", DTypeName(dtype)));
  }
  if (elements < 0 ||
      static_cast<uint64_t>(elements) > (SIZE_MAX / 2) / elem) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "tensor of ", elements, " ", DTypeName(dtype), " elements is too large"));
  }
  size_t bytes = static_cast<size_t>(elements) * elem;
  size_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment *
                   kTensorAlignment;
  if (rounded == 0) rounded = kTensorAlignment;
  void* data = std::aligned_alloc(kTensorAlignment, rounded);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory allocating ", bytes, " bytes for a ", DTypeName(dtype),
        " tensor"));
  }
  std::memset(data, 0, rounded);
  std::shared_ptr<Buffer> buf(new Buffer());
  buf->data_ = data;
  buf->size_ = bytes;
  buf->owned_ = true;
  buf->dtype_ = dtype;
  buf->elements_ = elements;
  switch (dtype) {
    case DType::kString:
      ConstructAll<std::string>(data, elements);
      break;
    case DType::kResource:
      ConstructAll<ResourceHandle>(data, elements);
      break;
    case DType::kVariant:
      ConstructAll<Variant>(data, elements);
      break;
    default:
      break;
  }
  return buf;
}

std::shared_ptr<Buffer> Buffer::View(void* data, size_t bytes,
                                     std::shared_ptr<const void> keep_alive) {
  std::shared_ptr<Buffer> buf(new Buffer());
  buf->data_ = data;
  buf->size_ = bytes;
  buf->owned_ = false;
  buf->keep_alive_ = std::move(keep_alive);
  return buf;
}

Buffer::~Buffer() {
  if (!owned_) return;
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
  std::free(data_);
}

absl::StatusOr<Tensor> Tensor::Allocate(DType dtype, const Shape& shape) {
  auto checked = Shape::Make(shape.dims());
  if (!checked.ok()) return checked.status();
  auto buf = Buffer::Allocate(dtype, shape.num_elements());
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
        absl::StrCat("cannot reshape ", DebugString(), " to ",
                     shape.ToString(), ": element counts differ"));
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
  return byte_size() == 0 ||
         std::memcmp(data_, other.data_, byte_size()) == 0;
}

}  // namespace graphrt
