#include "ops/array/strided_copy.h"

#include <algorithm>
#include <vector>

namespace graphrt {
namespace ops {
namespace {

constexpr int64_t kTile = 32;

struct Collapsed {
  DimVector dims;
  DimVector strides;
};

// Drops size-1 dims and merges a dim into the next when they are
// contiguous (stride[i] == stride[i+1] * dim[i+1]).
Collapsed Collapse(absl::Span<const int64_t> dims,
                   absl::Span<const int64_t> strides) {
  Collapsed c;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    c.dims.push_back(dims[i]);
    c.strides.push_back(strides[i]);
  }
  // Merge from the inside out.
  Collapsed m;
  for (size_t i = 0; i < c.dims.size(); ++i) {
    if (!m.dims.empty() && m.strides.back() == c.strides[i] * c.dims[i]) {
      m.dims.back() *= c.dims[i];
      m.strides.back() = c.strides[i];
    } else {
      m.dims.push_back(c.dims[i]);
      m.strides.push_back(c.strides[i]);
    }
  }
  if (m.dims.empty()) {
    m.dims.push_back(1);
    m.strides.push_back(1);
  }
  return m;
}

// Source offset of outer row `row` (index over all dims but the last
// `inner_dims`).
int64_t RowOffset(const Collapsed& c, int outer_rank, int64_t row) {
  int64_t off = 0;
  for (int i = outer_rank - 1; i >= 0; --i) {
    const int64_t d = c.dims[i];
    off += (row % d) * c.strides[i];
    row /= d;
  }
  return off;
}

// Rows [r0, r1) of a few planes interleaved: d[r * K + j] = s[r + j *
// plane], K a compile-time count so that a row's K values are gathered in
// registers and stored together.
template <int K, typename S>
void InterleavePlanes(const S* s, int64_t plane, int64_t r0, int64_t r1, S* d) {
  const S* p[K];
  for (int j = 0; j < K; ++j) p[j] = s + j * plane;
  for (int64_t r = r0; r < r1; ++r) {
#pragma GCC unroll 4
    for (int j = 0; j < K; ++j) d[r * K + j] = p[j][r];
  }
}

// Batched 2-D copies: body(s, d, r0, r1) for rows [r0, r1) of each outer
// matrix (`s` its source, `d` its destination, `rows` x `inner` values),
// in chunks of `chunk` rows spread over the pool.
template <typename S, typename Body>
void ForRowChunks(const S* src, int64_t offset, const Collapsed& c, S* dst,
                  int64_t chunk, Body body) {
  const int rank = static_cast<int>(c.dims.size());
  const int64_t rows = c.dims[rank - 2];
  const int64_t inner = c.dims[rank - 1];
  int64_t outer = 1;
  for (int i = 0; i < rank - 2; ++i) outer *= c.dims[i];
  const int64_t matrix = rows * inner;
  const int64_t chunks = (rows + chunk - 1) / chunk;
  const int64_t min_tasks = std::max<int64_t>(
      1, kParallelMinElements / std::min(matrix, chunk * inner));
  ParallelFor(outer * chunks, min_tasks, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / chunks;
      const int64_t r0 = (t % chunks) * chunk;
      body(src + offset + RowOffset(c, rank - 2, o), dst + o * matrix, r0,
           std::min(rows, r0 + chunk));
    }
  });
}

template <typename S>
void CopyTyped(const S* src, int64_t offset, const Collapsed& c, S* dst) {
  const int rank = static_cast<int>(c.dims.size());
  const int64_t inner = c.dims[rank - 1];
  const int64_t inner_stride = c.strides[rank - 1];
  // Batched 2-D transpose: tile the last two dims (rows of 2-4 elements:
  // interleave the planes; handtrack's [4, 12804] -> [12804, 4] took 64 us
  // element by element, 26 in tiles, 10 interleaved).
  if (rank >= 2 && inner_stride != 1 && c.strides[rank - 2] == 1 &&
      c.dims[rank - 2] >= 8 && inner >= 2) {
    if (inner <= 4) {
      // A few planes interleaved (an NCHW RGB image to NHWC: [3, h * w] ->
      // [h * w, 3]): nanodet's 416x416 input 0.41 -> 0.11 ms against the
      // tiles.
      ForRowChunks(src, offset, c, dst, 4096,
                   [&](const S* s, S* d, int64_t r0, int64_t r1) {
                     switch (inner) {
                       case 2:
                         return InterleavePlanes<2>(s, inner_stride, r0, r1, d);
                       case 3:
                         return InterleavePlanes<3>(s, inner_stride, r0, r1, d);
                       default:
                         return InterleavePlanes<4>(s, inner_stride, r0, r1, d);
                     }
                   });
      return;
    }
    ForRowChunks(src, offset, c, dst, kTile,
                 [&](const S* s, S* d, int64_t r0, int64_t r1) {
                   for (int64_t j0 = 0; j0 < inner; j0 += kTile) {
                     const int64_t j1 = std::min(inner, j0 + kTile);
                     for (int64_t r = r0; r < r1; ++r) {
                       for (int64_t j = j0; j < j1; ++j) {
                         d[r * inner + j] = s[r + j * inner_stride];
                       }
                     }
                   }
                 });
    return;
  }
  int64_t rows = 1;
  for (int i = 0; i < rank - 1; ++i) rows *= c.dims[i];
  const int64_t min_rows =
      std::max<int64_t>(1, kParallelMinElements / std::max<int64_t>(inner, 1));
  ParallelFor(rows, min_rows, [&](int64_t b, int64_t e) {
    // The outer index of row b, then advanced row by row like an odometer
    // (a division and a modulo per dim and row cost more than a short
    // row's copy: handtrack's [4, 12804] -> [12804, 4] transpose).
    const int outer_rank = rank - 1;
    DimVector index(outer_rank);
    int64_t left = b;
    for (int i = outer_rank - 1; i >= 0; --i) {
      index[i] = left % c.dims[i];
      left /= c.dims[i];
    }
    const S* s = src + offset + RowOffset(c, outer_rank, b);
    for (int64_t r = b; r < e; ++r) {
      S* d = dst + r * inner;
      if (inner_stride == 1) {
        std::copy(s, s + inner, d);
      } else {
        for (int64_t j = 0; j < inner; ++j) d[j] = s[j * inner_stride];
      }
      for (int i = outer_rank - 1; i >= 0; --i) {
        s += c.strides[i];
        if (++index[i] < c.dims[i]) break;
        s -= c.strides[i] * c.dims[i];
        index[i] = 0;
      }
    }
  });
}

}  // namespace

void StridedCopy(DType dtype, const void* src, int64_t offset,
                 absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> strides, void* dst) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  const Collapsed c = Collapse(dims, strides);
  DispatchStorage(dtype, [&](auto tag) {
    using S = typename decltype(tag)::type;
    CopyTyped<S>(static_cast<const S*>(src), offset, c, static_cast<S*>(dst));
  });
}

DimVector RowMajorStrides(const Shape& shape) {
  DimVector s(shape.rank());
  int64_t acc = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= shape.dim(i);
  }
  return s;
}

}  // namespace ops
}  // namespace graphrt
