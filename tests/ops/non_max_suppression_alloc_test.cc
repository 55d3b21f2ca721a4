// NonMaxSuppression's working memory comes from the installed BufferPool:
// with a warm pool, the heap calls a Run makes do not depend on how many
// boxes come in. (The kernel used to keep its candidates, normalized boxes
// and selection in per-Run std::vectors: ~3 heap calls of 128 KiB or more
// for each of handtrack's seven NMS calls on 12,804 boxes, each an mmap +
// page faults + munmap once glibc's mmap threshold is fixed, which tripled
// handtrack's latency in `graphrt bench`.)
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/tensor.h"
#include "tests/counting_new.h"
#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

// `n` boxes on a grid (disjoint: IoU 0 between neighbours) with distinct
// scores, the upper half above the 0.5 score threshold.
std::vector<Tensor> Inputs(int64_t n) {
  std::vector<float> boxes(4 * n), scores(n);
  for (int64_t i = 0; i < n; ++i) {
    const float y = static_cast<float>(i / 256) * 2;
    const float x = static_cast<float>(i % 256) * 2;
    boxes[4 * i + 0] = y;
    boxes[4 * i + 1] = x;
    boxes[4 * i + 2] = y + 1;
    boxes[4 * i + 3] = x + 1;
    scores[i] = static_cast<float>(i) / static_cast<float>(n);
  }
  return {T_<float>({n, 4}, boxes),     T_<float>({n}, scores),
          Tensor::Scalar<int32_t>(100), Tensor::Scalar<float>(0.5f),
          Tensor::Scalar<float>(0.5f),  Tensor::Scalar<float>(0.0f)};
}

// Operator-new calls of one NonMaxSuppressionV5 Run on `n` boxes, after a
// warm-up Run on the same shapes under the same pool.
int64_t NewsPerRun(int64_t n) {
  std::shared_ptr<BufferPool> pool = BufferPool::Create();
  ScopedBufferPool scope(pool.get(), /*run_tag=*/1);
  const std::vector<Tensor> inputs = Inputs(n);
  OpTest t("NonMaxSuppressionV5");
  auto warm = t.Run(inputs);
  EXPECT_TRUE(warm.ok()) << warm.status();
  NewCounter counter;
  auto out = t.Run(inputs);
  const int64_t news = counter.Stop();
  EXPECT_TRUE(out.ok()) << out.status();
  if (out.ok()) {
    // The 100 best, highest score first.
    EXPECT_EQ((*out)[0].num_elements(), 100);
    EXPECT_EQ((*out)[0].data<int32_t>()[0], n - 1);
  }
  return news;
}

TEST(NmsAllocTest, HeapCallsDoNotGrowWithTheBoxCount) {
  const int64_t small = NewsPerRun(256);
  const int64_t large = NewsPerRun(64 * 1024);
  EXPECT_GT(small, 0);  // the counter sees OpTest's own allocations
  EXPECT_EQ(large, small);
}

}  // namespace
}  // namespace graphrt::testing
