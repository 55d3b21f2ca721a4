// ops::StridedCopy (ops/array/strided_copy.h) against a per-element
// reference: views of rank 1-5 with positive, negative and zero strides,
// size-1 dims, rows of one to a few elements (transposes with a short
// inner dim), on one thread and split over four (each piece of rows starts
// its outer index mid-way).
#include "ops/array/strided_copy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "oneapi/tbb/task_arena.h"
#include "runtime/parallel.h"

namespace graphrt::testing {
namespace {

std::vector<uint32_t> Reference(const std::vector<uint32_t>& src,
                                int64_t offset,
                                const std::vector<int64_t>& dims,
                                const std::vector<int64_t>& strides) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<uint32_t> out(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t left = i, at = offset;
    for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
      at += (left % dims[k]) * strides[k];
      left /= dims[k];
    }
    out[i] = src[at];
  }
  return out;
}

TEST(StridedCopyTest, MatchesPerElementReference) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  oneapi::tbb::task_arena four(4);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 1 + iter % 5;
    std::vector<int64_t> dims(rank), strides(rank);
    // Large enough every few iterations to be split over threads.
    const bool large = iter % 4 == 0;
    for (int k = 0; k < rank; ++k) {
      const int r = pick(rng);
      // At most ~250k elements: 40^3, 12^5.
      const int most = large ? (rank <= 3 ? 40 : 12) : 7;
      dims[k] = r % 9 == 0 ? 1 : 1 + r % most;
    }
    if (iter % 3 == 0) dims[rank - 1] = 1 + pick(rng) % 4;  // short rows
    // A permuted row-major layout (a transpose), then some strides
    // negated (reversal) or zeroed (broadcast).
    std::vector<int> order(rank);
    for (int k = 0; k < rank; ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    int64_t acc = 1;
    for (int k = rank - 1; k >= 0; --k) {
      strides[order[k]] = acc;
      acc *= dims[order[k]];
    }
    int64_t offset = 0;
    for (int k = 0; k < rank; ++k) {
      const int r = pick(rng) % 7;
      if (r == 0) {
        offset += (dims[k] - 1) * strides[k];
        strides[k] = -strides[k];
      } else if (r == 1) {
        strides[k] = 0;
      }
    }
    std::vector<uint32_t> src(acc);
    for (uint32_t& v : src) v = static_cast<uint32_t>(pick(rng));
    const std::vector<uint32_t> want = Reference(src, offset, dims, strides);
    SCOPED_TRACE(::testing::Message() << "iter " << iter << ", rank " << rank);
    std::vector<uint32_t> one(want.size()), split(want.size());
    {
      ScopedSequential sequential;
      ops::StridedCopy(DType::kFloat32, src.data(), offset, dims, strides,
                       one.data());
    }
    ExecuteInArena(four, [&] {
      ops::StridedCopy(DType::kFloat32, src.data(), offset, dims, strides,
                       split.data());
    });
    EXPECT_EQ(one, want);
    EXPECT_EQ(split, want);
  }
}

}  // namespace
}  // namespace graphrt::testing
