// runtime/parallel.h: ParallelFor, TaskGroup and ExecuteInArena do the work
// they promise, and (run under --config=tsan) the happens-before edges they
// announce make plain, non-atomic data handed to and from oneTBB tasks
// race-free in TSan's eyes. Without the annotations each test here is a
// TSan report: Debian's libtbb is not TSan-instrumented.
#include "runtime/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "oneapi/tbb/task_arena.h"

namespace graphrt {
namespace {

TEST(ParallelForTest, EveryIndexOnceWithPlainData) {
  for (int64_t n : {0, 1, 7, 1000, 100000}) {
    // Written by this thread before the loop, read by the chunks.
    std::vector<int64_t> input(n);
    for (int64_t i = 0; i < n; ++i) input[i] = i * 3;
    // Written by the chunks, read by this thread after the loop.
    std::vector<int64_t> output(n, -1);
    ParallelFor(0, n, 64, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) output[i] = input[i] + 1;
    });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(output[i], i * 3 + 1) << i;
  }
}

TEST(ParallelForTest, SubrangeAndBadGrain) {
  std::vector<int> hits(100, 0);
  ParallelFor(10, 90, 0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) ++hits[i];
  });
  for (int i = 0; i < 100; ++i) EXPECT_EQ(hits[i], i >= 10 && i < 90) << i;
  ParallelFor(5, 5, 1, [&](int64_t, int64_t) { hits[0] = 7; });
  ParallelFor(9, 3, 1, [&](int64_t, int64_t) { hits[0] = 7; });
  EXPECT_EQ(hits[0], 0);
}

TEST(ParallelForTest, NestedLoopsFromManyThreads) {
  std::vector<std::thread> threads;
  std::vector<int64_t> sums(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<int64_t> rows(64, 0);
      ParallelFor(0, 64, 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          std::vector<int64_t> cols(256, 0);
          ParallelFor(0, 256, 16, [&](int64_t b, int64_t e) {
            for (int64_t c = b; c < e; ++c) cols[c] = r + c + t;
          });
          for (int64_t v : cols) rows[r] += v;
        }
      });
      for (int64_t v : rows) sums[t] += v;
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    // sum over r < 64, c < 256 of (r + c + t)
    EXPECT_EQ(sums[t], 256 * (63 * 64 / 2) + 64 * (255 * 256 / 2) +
                           int64_t{64} * 256 * t);
  }
}

// A binary tree of tasks, each spawning its children from inside the group:
// every node writes its own plain slot; Wait makes all of them visible.
struct TreeSpawner {
  TaskGroup* group;
  std::vector<int>* slots;
  void Visit(int node) const {
    (*slots)[node] = node * 2;
    for (int child : {2 * node + 1, 2 * node + 2}) {
      if (child < static_cast<int>(slots->size())) {
        group->Run([this, child] { Visit(child); });
      }
    }
  }
};

// threads = 1 means one thread: inside ScopedSequential a loop far above its
// grain is one call on the calling thread (it used to go to oneTBB's global
// pool, so `graphrt bench --threads 1` used every core in some kernels).
TEST(ParallelForTest, ScopedSequentialRunsOneChunkOnTheCaller) {
  int calls = 0;
  bool other_thread = false;
  const std::thread::id caller = std::this_thread::get_id();
  {
    ScopedSequential sequential;
    { ScopedSequential nested; }
    ParallelFor(0, 1 << 20, 1, [&](int64_t b, int64_t e) {
      ++calls;  // plain int: a second thread would be a race
      other_thread |= std::this_thread::get_id() != caller;
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, 1 << 20);
    });
  }
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(other_thread);
}

// Every chunk runs under the caller's ThreadContext, also on a worker
// thread, and a worker's own context is back to empty afterwards.
TEST(ParallelForTest, ChunksRunUnderTheCallersThreadContext) {
  // Only the address is used (the context never dereferences its pool).
  alignas(64) static char fake_pool[64];
  ThreadContext mine;
  mine.buffer_pool = reinterpret_cast<BufferPool*>(fake_pool);
  mine.run_tag = 42;
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elements{0}, on_workers{0}, wrong{0};
  {
    ScopedThreadContext scope(mine);
    ParallelFor(0, 64, 1, [&](int64_t begin, int64_t end) {
      // Slow chunks, so that the other core's worker takes some.
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const ThreadContext& seen = CurrentThreadContext();
      if (seen.buffer_pool != mine.buffer_pool || seen.run_tag != 42) ++wrong;
      if (std::this_thread::get_id() != caller) ++on_workers;
      elements += static_cast<int>(end - begin);
    });
  }
  EXPECT_EQ(elements.load(), 64);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(on_workers.load(), 0) << "no chunk ran on a worker thread";
  EXPECT_EQ(CurrentThreadContext().buffer_pool, nullptr);
  ParallelFor(0, 64, 1, [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (CurrentThreadContext().buffer_pool != nullptr) ++wrong;
  });
  EXPECT_EQ(wrong.load(), 0);
}

// The context's floating-point mode (flush denormals or not) holds in every
// chunk, also on workers, and each thread's mode is restored afterwards
// without clearing the status flags the chunks raised.
TEST(ParallelForTest, ChunksRunInTheCallersDenormalMode) {
  if (thread_context_internal::kFlushDenormalBits == 0) {
    GTEST_SKIP() << "the floating-point mode is x86-only";
  }
  ASSERT_FALSE(FlushingDenormals());
  for (bool flush : {true, false}) {
    ThreadContext mine;
    mine.flush_denormals = flush;
    std::atomic<int> elements{0}, wrong{0};
    {
      ScopedThreadContext scope(mine);
      EXPECT_EQ(FlushingDenormals(), flush);
      ParallelFor(0, 64, 1, [&](int64_t begin, int64_t end) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (FlushingDenormals() != flush) ++wrong;
        volatile float tiny = 1e-30f;
        volatile float product = tiny * 1e-10f;  // underflow
        if ((product == 0.f) != flush) ++wrong;
        elements += static_cast<int>(end - begin);
      });
    }
    EXPECT_EQ(elements.load(), 64);
    EXPECT_EQ(wrong.load(), 0) << "flush=" << flush;
    EXPECT_FALSE(FlushingDenormals());
  }
  // Workers are back in the default mode too.
  std::atomic<int> flushing{0};
  ParallelFor(0, 64, 1, [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (FlushingDenormals()) ++flushing;
  });
  EXPECT_EQ(flushing.load(), 0);
#if defined(__x86_64__) || defined(__i386__)
  // A flag raised inside the scope (inexact, bit 5) survives the restore.
  _mm_setcsr(_mm_getcsr() & ~0x3Fu);
  {
    ThreadContext flushing_context;
    flushing_context.flush_denormals = true;
    ScopedThreadContext scope(flushing_context);
    volatile float third = 1.f;
    third = third / 3.f;
  }
  EXPECT_NE(_mm_getcsr() & 0x20u, 0u);
#endif
}

TEST(TaskGroupTest, TasksSpawnedFromTasksAreAllWaitedFor) {
  std::vector<int> slots(4095, -1);
  TaskGroup group;
  const TreeSpawner spawner{&group, &slots};
  group.Run([&spawner] { spawner.Visit(0); });
  group.Wait();
  for (int i = 0; i < static_cast<int>(slots.size()); ++i) {
    ASSERT_EQ(slots[i], i * 2) << i;
  }
}

TEST(TaskGroupTest, MoveOnlyTasksAndReuseAfterWait) {
  TaskGroup group;
  std::vector<int> out(3, 0);
  for (int round = 1; round <= 3; ++round) {
    for (int i = 0; i < 3; ++i) {
      auto value = std::make_unique<int>(round * 10 + i);
      group.Run([&out, i, v = std::move(value)] { out[i] = *v; });
    }
    group.Wait();
    EXPECT_EQ(out,
              (std::vector<int>{round * 10, round * 10 + 1, round * 10 + 2}));
  }
}

TEST(ExecuteInArenaTest, MoreCallersThanSlots) {
  // Two slots and eight callers: most calls are handed to an arena thread,
  // which reads the caller's plain locals and writes its result.
  oneapi::tbb::task_arena arena(2);
  std::vector<std::thread> threads;
  std::vector<int64_t> results(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int iter = 0; iter < 50; ++iter) {
        std::vector<int64_t> data(100);
        for (int i = 0; i < 100; ++i) data[i] = t + i + iter;
        int64_t sum = 0;
        ExecuteInArena(arena, [&] {
          for (int64_t v : data) sum += v;
        });
        results[t] += sum;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) {
    // sum over iter < 50, i < 100 of (t + i + iter)
    EXPECT_EQ(results[t], 50 * (100 * t + 4950) + 100 * (49 * 50 / 2)) << t;
  }
}

TEST(TsanTest, AnnotationsAreHarmlessInEveryBuild) {
  int x = 0;
  TsanRelease(&x);
  TsanAcquire(&x);
  EXPECT_EQ(x, 0);
#if defined(GRAPHRT_TSAN)
  EXPECT_TRUE(kUnderTsan);
#else
  EXPECT_FALSE(kUnderTsan);
#endif
}

}  // namespace
}  // namespace graphrt
