// Small helpers shared by the array/ and math/ kernels: dtype dispatch,
// reading int32/int64 index tensors (axes, shapes), axis normalisation,
// dtype-generic element copies and a size-thresholded parallel loop.
//
// Every helper reports bad input as absl::InvalidArgumentError with a
// message saying what was expected and what came; the executor adds the
// node name and op.
#ifndef GRAPHRT_OPS_ARRAY_OP_UTIL_H_
#define GRAPHRT_OPS_ARRAY_OP_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/kernel.h"
#include "runtime/dtype.h"
#include "runtime/parallel.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"

namespace graphrt {
namespace ops {

// Per-dimension values of one kernel call (shapes, strides, begin/end/perm
// lists, loop indices). Up to 8 entries live inline, so a kernel on tensors
// of rank <= 8 keeps them off the heap: steady-state Runs make no heap call
// for shape bookkeeping (tests/runtime/steady_state_alloc_test.cc).
using DimVector = absl::InlinedVector<int64_t, 8>;

// Carries a C++ element type into a generic lambda:
//   [&](auto tag) { using T = typename decltype(tag)::type; ... }
template <typename T>
struct TypeTag {
  using type = T;
};

// Calls `f(TypeTag<T>{})` for the C++ type T of `dtype` if T is one of Ts,
// and returns its status; otherwise an "unsupported dtype" error that
// starts with `what` (e.g. "Relu").
template <typename... Ts, typename F>
absl::Status DispatchDType(DType dtype, absl::string_view what, F&& f) {
  absl::Status result;
  const bool found =
      ((dtype == DTypeOf<Ts>::value && (result = f(TypeTag<Ts>{}), true)) ||
       ...);
  if (!found) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": unsupported dtype ", DTypeName(dtype)));
  }
  return result;
}

// True if `dtype` is one of Ts.
template <typename... Ts>
bool IsOneOf(DType dtype) {
  return ((dtype == DTypeOf<Ts>::value) || ...);
}

// Fails unless the kernel got exactly `n` inputs.
inline absl::Status CheckNumInputs(const KernelContext& ctx, int n) {
  if (ctx.num_inputs() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", n, " inputs, got ", ctx.num_inputs()));
  }
  return absl::OkStatus();
}

// Kernel creation's counterpart: fails unless the node has exactly `n`
// data inputs ("Op 'name' needs n inputs, has m").
inline absl::Status CheckNumInputs(const KernelInit& init, int n) {
  if (init.num_inputs != n) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(), "' needs ", n,
                     " inputs, has ", init.num_inputs));
  }
  return absl::OkStatus();
}

// Fails unless `t` has dtype `want`; `what` names the input ("bias").
inline absl::Status CheckDType(const Tensor& t, DType want,
                               absl::string_view what) {
  if (t.dtype() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", what, " of dtype ", DTypeName(want), ", got ",
                     t.DebugString()));
  }
  return absl::OkStatus();
}

// Reads the single value of an int32/int64 tensor with one element (a
// scalar, or TF-style also a [1] vector) as int64.
inline absl::StatusOr<int64_t> ReadIntScalar(const Tensor& t,
                                             absl::string_view what) {
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be int32 or int64, got ", t.DebugString()));
  }
  if (t.num_elements() != 1 || t.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be a scalar, got ", t.DebugString()));
  }
  return t.dtype() == DType::kInt32 ? int64_t{*t.data<int32_t>()}
                                    : *t.data<int64_t>();
}

// Reads an int32/int64 scalar or vector as int64 values (a scalar gives
// one value).
inline absl::StatusOr<DimVector> ReadIntVector(const Tensor& t,
                                               absl::string_view what) {
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be int32 or int64, got ", t.DebugString()));
  }
  if (t.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be a scalar or vector, got ", t.DebugString()));
  }
  DimVector out(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    out[i] = t.dtype() == DType::kInt32 ? int64_t{t.data<int32_t>()[i]}
                                        : t.data<int64_t>()[i];
  }
  return out;
}

// Maps `axis` in [-rank, rank) to [0, rank); `what` names it in errors
// ("axis"), e.g. "expected axis in [-2, 2), got 3".
inline absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank,
                                         absl::string_view what) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " in [", -rank, ", ", rank, "), got ", axis));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// `size` uninitialized values of a trivially copyable T that a kernel needs
// only during its call (lookup tables, row caches). Inside a Run the storage
// comes from the Run's BufferPool (Tensor::AllocateUninitialized), so a
// steady-state Run makes no heap call for it, also in the chunks of a
// parallel loop (ParallelFor carries the pool to its workers); outside a
// Run (tests, load time) it falls back to the heap.
template <typename T>
class ScratchArray {
 public:
  static_assert(std::is_trivially_copyable_v<T> &&
                alignof(T) <= kTensorAlignment);

  // Error: ResourceExhausted when `size` values do not fit in memory.
  static absl::StatusOr<ScratchArray> Make(int64_t size) {
    if (size < 0 || size > INT64_MAX / static_cast<int64_t>(sizeof(T))) {
      return absl::ResourceExhaustedError(
          absl::StrCat("scratch of ", size, " values of ", sizeof(T),
                       " bytes does not fit in memory"));
    }
    absl::StatusOr<Tensor> storage = Tensor::AllocateUninitialized(
        DType::kUInt8, Shape({size * static_cast<int64_t>(sizeof(T))}));
    if (!storage.ok()) return storage.status();
    return ScratchArray(*std::move(storage), size);
  }

  T* data() { return reinterpret_cast<T*>(storage_.raw_data()); }
  const T* data() const {
    return reinterpret_cast<const T*>(storage_.raw_data());
  }
  int64_t size() const { return size_; }
  T& operator[](int64_t i) { return data()[i]; }
  const T& operator[](int64_t i) const { return data()[i]; }

 private:
  ScratchArray(Tensor storage, int64_t size)
      : storage_(std::move(storage)), size_(size) {}
  Tensor storage_;
  int64_t size_;
};

// Product of dims [begin, end) of `shape`.
inline int64_t DimProduct(const Shape& shape, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= shape.dim(i);
  return n;
}

// Copies `n` elements of `dtype` from src[src_index...] to
// dst[dst_index...] (indices in elements). Handles strings, resources and
// variants by assignment, everything else by memcpy.
inline void CopyElements(DType dtype, const void* src, int64_t src_index,
                         void* dst, int64_t dst_index, int64_t n) {
  if (n <= 0) return;
  switch (dtype) {
    case DType::kString: {
      const auto* s = static_cast<const std::string*>(src) + src_index;
      auto* d = static_cast<std::string*>(dst) + dst_index;
      for (int64_t i = 0; i < n; ++i) d[i] = s[i];
      return;
    }
    case DType::kResource: {
      const auto* s = static_cast<const ResourceHandle*>(src) + src_index;
      auto* d = static_cast<ResourceHandle*>(dst) + dst_index;
      for (int64_t i = 0; i < n; ++i) d[i] = s[i];
      return;
    }
    case DType::kVariant: {
      const auto* s = static_cast<const Variant*>(src) + src_index;
      auto* d = static_cast<Variant*>(dst) + dst_index;
      for (int64_t i = 0; i < n; ++i) d[i] = s[i];
      return;
    }
    default: {
      const size_t size = DTypeSize(dtype);
      std::memcpy(static_cast<char*>(dst) + dst_index * size,
                  static_cast<const char*>(src) + src_index * size,
                  static_cast<size_t>(n) * size);
      return;
    }
  }
}

// Element counts from which element-wise kernels split work over oneTBB.
inline constexpr int64_t kParallelMinElements = 1 << 15;

// Runs f(begin, end) over [0, n): inline when n < min_parallel, else in
// chunks of at least min_parallel / 2 on oneTBB. `f` must only write
// outputs for its own range, so results do not depend on thread count.
template <typename F>
void ParallelFor(int64_t n, int64_t min_parallel, const F& f) {
  if (n <= 0) return;
  if (n < min_parallel) {
    f(int64_t{0}, n);
    return;
  }
  const int64_t grain = min_parallel / 2 > 0 ? min_parallel / 2 : 1;
  graphrt::ParallelFor(0, n, grain, f);
}

// Chunk boundaries of ParallelForElements: a multiple of every SIMD width
// (64 elements = 64 bytes of int8 up to 512 bytes of double).
inline constexpr int64_t kElementBlock = 64;

// Like ParallelFor over the n elements of a flat array, but every chunk
// starts at a multiple of kElementBlock elements. Use it where `f` runs a
// vectorized loop over its stretch: a vector loop leaves the last
// `len % width` elements to a scalar tail, and where the vector and scalar
// forms of a function differ (Eigen's exp, log, sqrt, rsqrt, pow differ
// from libm's by an ulp), chunk boundaries at arbitrary elements would
// make results depend on the thread count. With block-aligned boundaries
// every element takes the path it takes in one sequential call over
// [0, n) (output buffers are 64-byte aligned, so alignment peeling does
// not move either).
template <typename F>
void ParallelForElements(int64_t n, int64_t min_parallel, const F& f) {
  if (n <= 0) return;
  if (n < min_parallel) {
    f(int64_t{0}, n);
    return;
  }
  const int64_t blocks = (n + kElementBlock - 1) / kElementBlock;
  const int64_t min_blocks = (min_parallel + kElementBlock - 1) / kElementBlock;
  ParallelFor(blocks, min_blocks, [&](int64_t b0, int64_t b1) {
    f(b0 * kElementBlock, std::min(b1 * kElementBlock, n));
  });
}

}  // namespace ops
}  // namespace graphrt

#endif  // GRAPHRT_OPS_ARRAY_OP_UTIL_H_
