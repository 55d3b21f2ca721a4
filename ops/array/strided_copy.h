// Strided gather of an N-d view into a contiguous buffer: the workhorse of
// the copy-only array kernels (Slice, StridedSlice, Reverse, Transpose,
// Tile, Pad's interior, Split/Unpack, the space/batch/depth reshuffles).
//
// A view is (offset, dims, strides) over a source buffer, strides in
// elements and possibly negative (reversal) or zero (broadcast). The
// destination is written row-major over dims. StridedCopy first collapses
// the view (drops size-1 dims, merges dims that are contiguous with the
// next one), so e.g. a slice of whole rows becomes one memcpy per chunk.
// When the innermost collapsed dim is not contiguous but the one before it
// is (a batched 2-D transpose, e.g. NHWC<->NCHW), it copies in cache-sized
// tiles. Work is split over oneTBB above ops::kParallelMinElements; every
// output element is written exactly once, so results do not depend on the
// thread count.
//
// Callers validate the view (every reachable source index in range).
#ifndef GRAPHRT_OPS_ARRAY_STRIDED_COPY_H_
#define GRAPHRT_OPS_ARRAY_STRIDED_COPY_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "ops/array/op_util.h"
#include "runtime/dtype.h"
#include "runtime/resource.h"
#include "runtime/variant.h"

namespace graphrt {
namespace ops {

// A 16-byte plain element (complex128) for storage dispatch.
struct alignas(8) Bytes16 {
  uint64_t lo, hi;
};

// Calls f(TypeTag<S>{}) with a storage type S that copies like dtype's
// elements: std::string / ResourceHandle / Variant for the non-trivial
// dtypes, else an unsigned integer (or Bytes16) of the element's size.
template <typename F>
void DispatchStorage(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kString:
      f(TypeTag<std::string>{});
      return;
    case DType::kResource:
      f(TypeTag<ResourceHandle>{});
      return;
    case DType::kVariant:
      f(TypeTag<Variant>{});
      return;
    default:
      break;
  }
  switch (DTypeSize(dtype)) {
    case 1:
      f(TypeTag<uint8_t>{});
      return;
    case 2:
      f(TypeTag<uint16_t>{});
      return;
    case 4:
      f(TypeTag<uint32_t>{});
      return;
    case 8:
      f(TypeTag<uint64_t>{});
      return;
    default:
      f(TypeTag<Bytes16>{});
      return;
  }
}

// dst[i0..ik] = src[offset + sum_j i_j * strides[j]] for every index of
// `dims` (row-major), for elements of `dtype`. dims.size() ==
// strides.size(); rank 0 copies one element.
void StridedCopy(DType dtype, const void* src, int64_t offset,
                 absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> strides, void* dst);

// Row-major element strides of `shape`.
DimVector RowMajorStrides(const Shape& shape);

}  // namespace ops
}  // namespace graphrt

#endif  // GRAPHRT_OPS_ARRAY_STRIDED_COPY_H_
