// BufferPool / ScopedBufferPool, and the executor's use of them (buffer
// reuse across Runs, the live-memory limit).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "google/protobuf/text_format.h"
#include "ops/registry.h"
#include "runtime/executor.h"
#include "runtime/parallel.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace {

TEST(BufferPoolTest, ReusesReleasedStorage) {
  auto pool = BufferPool::Create();
  const void* first = nullptr;
  {
    ScopedBufferPool scope(pool.get(), 7);
    Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({10}));
    ASSERT_NE(t.buffer(), nullptr);
    EXPECT_EQ(t.buffer()->run_tag(), 7u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment, 0u);
    t.mutable_data<float>()[3] = 5.f;
    first = t.raw_data();
  }
  const int64_t heap_calls = pool->heap_allocations();
  EXPECT_EQ(heap_calls, 2);  // one data block, one control block
  {
    ScopedBufferPool scope(pool.get(), 8);
    // 12 floats fall in the same 64-byte size class.
    Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({12}));
    EXPECT_EQ(t.raw_data(), first);
    for (float v : t.span<float>()) EXPECT_EQ(v, 0.f);  // zeroed on reuse
    EXPECT_EQ(t.buffer()->run_tag(), 8u);
  }
  EXPECT_EQ(pool->heap_allocations(), heap_calls);
  EXPECT_EQ(pool->held_bytes(), 64);
}

// A kernel's parallel loop allocates from the Run's pool on every thread
// (ParallelFor carries the pool to its workers): before, chunks on oneTBB
// workers went to the heap (run_tag 0).
TEST(BufferPoolTest, ParallelChunksAllocateFromTheInstalledPool) {
  auto pool = BufferPool::Create();
  std::atomic<int> elements{0}, untagged{0};
  {
    ScopedBufferPool scope(pool.get(), 9);
    ParallelFor(0, 64, 1, [&](int64_t begin, int64_t end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      absl::StatusOr<Tensor> t =
          Tensor::Allocate(DType::kFloat32, Shape({100}));
      if (!t.ok() || t->buffer()->run_tag() != 9u) ++untagged;
      elements += static_cast<int>(end - begin);
    });
  }
  EXPECT_EQ(elements.load(), 64);
  EXPECT_EQ(untagged.load(), 0);
  EXPECT_GT(pool->heap_allocations(), 0);
}

TEST(BufferPoolTest, LiveBuffersAreNotShared) {
  auto pool = BufferPool::Create();
  ScopedBufferPool scope(pool.get(), 1);
  Tensor a = *Tensor::Allocate(DType::kInt32, Shape({4}));
  Tensor b = *Tensor::Allocate(DType::kInt32, Shape({4}));
  EXPECT_NE(a.raw_data(), b.raw_data());
  Tensor big = *Tensor::Allocate(DType::kInt32, Shape({1000}));
  EXPECT_EQ(big.buffer()->size(), 4000u);
}

// The pool's free lists are sharded by thread. A thread whose own shard
// has no free block takes one from another shard before it calls the heap,
// and a block released on another thread goes to that thread's shard,
// where later allocations anywhere still find it.
TEST(BufferPoolTest, ShardsLendBlocksAcrossThreads) {
  auto pool = BufferPool::Create();
  const void* warmed = nullptr;
  std::thread([&] {
    ScopedBufferPool scope(pool.get(), 1);
    Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({1000}));
    warmed = t.raw_data();
  }).join();
  const int64_t warm = pool->heap_allocations();
  EXPECT_EQ(warm, 2);  // one data block, one control block
  // A new thread (its own, empty shard) reuses the first thread's block.
  Tensor handed;
  std::thread([&] {
    ScopedBufferPool scope(pool.get(), 2);
    handed = *Tensor::Allocate(DType::kFloat32, Shape({1000}));
  }).join();
  EXPECT_EQ(handed.raw_data(), warmed);
  EXPECT_EQ(pool->heap_allocations(), warm);
  // Released here (a third thread); the next allocation anywhere finds it.
  handed = Tensor();
  std::thread([&] {
    ScopedBufferPool scope(pool.get(), 3);
    Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({1000}));
    EXPECT_EQ(t.raw_data(), warmed);
  }).join();
  EXPECT_EQ(pool->heap_allocations(), warm);
  EXPECT_EQ(pool->held_bytes(), 4096);
}

// A block goes to the free list of the thread that releases it, not back
// to the shard it came from: blocks follow the thread using them. (When
// they went back to where they came from, blocks drifted to the shards of
// threads long gone, and every later thread took from and returned to
// those same shards: two concurrent Runs then contended on one lock.)
TEST(BufferPoolTest, ReleasedBlocksStayWithTheReleasingThread) {
  auto pool = BufferPool::Create();
  // Thread A and thread B each keep their shard (round-robin, so two
  // threads started one after the other get different shards).
  std::promise<void> a_released, b_done;
  std::shared_future<void> b_done_future = b_done.get_future().share();
  const void* x = nullptr;
  const void* y = nullptr;
  const void* a_again = nullptr;
  const void* b_took = nullptr;
  std::thread a([&] {
    {
      auto first = *pool->Allocate(DType::kFloat32, 16, 1);
      auto second = *pool->Allocate(DType::kFloat32, 16, 1);
      x = first->data();
      y = second->data();
      first.reset();   // A's list: x
      second.reset();  // A's list: y, x
    }
    a_released.set_value();
    b_done_future.wait();
    // B took y (the top of A's list) and released it on its own list, so
    // A's own list still starts at x.
    a_again = (*pool->Allocate(DType::kFloat32, 16, 1))->data();
  });
  std::thread b([&] {
    a_released.get_future().wait();
    {
      auto taken = *pool->Allocate(DType::kFloat32, 16, 2);  // from A's list
      b_took = taken->data();
    }  // released: onto B's list
    b_done.set_value();
  });
  a.join();
  b.join();
  EXPECT_EQ(b_took, y);
  EXPECT_EQ(a_again, x);
  EXPECT_EQ(pool->heap_allocations(), 4);  // 2 data + 2 control blocks
}

// Many threads allocating and releasing at once (run under TSan too):
// live blocks are never shared, values stay put, and the pool holds about
// what the threads hold at most at once.
TEST(BufferPoolTest, ConcurrentThreadsAllocateAndRelease) {
  auto pool = BufferPool::Create();
  constexpr int kThreads = 4;
  constexpr int kRounds = 300;
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id) {
    threads.emplace_back([&, id] {
      ScopedBufferPool scope(pool.get(), static_cast<uint64_t>(id + 1));
      for (int round = 0; round < kRounds; ++round) {
        Tensor a = *Tensor::Allocate(DType::kFloat32, Shape({100}));
        Tensor b = *Tensor::Allocate(DType::kFloat32, Shape({1000}));
        ASSERT_NE(a.raw_data(), b.raw_data());
        a.mutable_data<float>()[99] = static_cast<float>(id);
        b.mutable_data<float>()[999] = static_cast<float>(round);
        EXPECT_EQ(a.data<float>()[99], static_cast<float>(id));
        EXPECT_EQ(b.data<float>()[999], static_cast<float>(round));
      }
    });
  }
  for (auto& t : threads) t.join();
  // At most 2 data + 2 control blocks per thread are held at once; a block
  // released while another thread scans may be missed once, hence the slack.
  EXPECT_LE(pool->heap_allocations(), 2 * 4 * kThreads);
}

TEST(BufferPoolTest, StringElementsConstructedAndDestroyed) {
  auto pool = BufferPool::Create();
  ScopedBufferPool scope(pool.get(), 1);
  for (int round = 0; round < 3; ++round) {
    Tensor t = *Tensor::Allocate(DType::kString, Shape({3}));
    for (const std::string& s : t.span<std::string>()) EXPECT_TRUE(s.empty());
    t.mutable_data<std::string>()[1] =
        "a string long enough to live on the heap, not inline";
  }
}

TEST(BufferPoolTest, TensorsOutliveThePoolOwner) {
  Tensor kept;
  {
    auto pool = BufferPool::Create();
    ScopedBufferPool scope(pool.get(), 1);
    kept = *Tensor::Allocate(DType::kFloat64, Shape({2}));
  }
  // The buffer holds the pool alive; using and dropping it is fine.
  kept.mutable_data<double>()[1] = 2.0;
  EXPECT_EQ(kept.data<double>()[1], 2.0);
  kept = Tensor();
}

// Live Buffers do not hold references to the pool's shared_ptr: that one
// reference count, written twice per tensor by every thread, was a cache
// line two concurrent Runs kept taking from each other (age, 2 callers:
// bench/RESULTS.md). The shards count live Buffers instead.
TEST(BufferPoolTest, LiveBuffersDoNotShareThePoolsReferenceCount) {
  auto pool = BufferPool::Create();
  ScopedBufferPool scope(pool.get(), 1);
  Tensor a = *Tensor::Allocate(DType::kFloat32, Shape({4}));
  Tensor b = *Tensor::Allocate(DType::kFloat32, Shape({4}));
  EXPECT_EQ(pool.use_count(), 1);
}

// The owner drops the pool while other threads still hold its Buffers; they
// release them at once (ASan / TSan see a use after free or a leak, if any).
TEST(BufferPoolTest, BuffersReleasedOnManyThreadsAfterTheOwnerLeft) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<Tensor>> held(kThreads);
    {
      auto pool = BufferPool::Create();
      ScopedBufferPool scope(pool.get(), 1);
      for (auto& tensors : held) {
        for (int i = 0; i < kPerThread; ++i) {
          tensors.push_back(*Tensor::Allocate(DType::kString, Shape({2})));
        }
      }
    }
    std::vector<std::thread> threads;
    for (auto& tensors : held) {
      threads.emplace_back([&tensors] {
        for (Tensor& t : tensors) t = Tensor();
      });
    }
    for (auto& t : threads) t.join();
  }
  // Orphaned with nothing live: deleted at once (LeakSanitizer checks).
  auto pool = BufferPool::Create();
  {
    ScopedBufferPool scope(pool.get(), 1);
    Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({4}));
  }
  pool.reset();
}

TEST(BufferPoolTest, ScopesNestAndRestore) {
  auto outer = BufferPool::Create();
  auto inner = BufferPool::Create();
  ScopedBufferPool a(outer.get(), 1);
  {
    ScopedBufferPool b(inner.get(), 2);
    Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({1}));
    EXPECT_EQ(t.buffer()->run_tag(), 2u);
  }
  Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({1}));
  EXPECT_EQ(t.buffer()->run_tag(), 1u);
  EXPECT_EQ(inner->heap_allocations(), 2);
  {
    ScopedBufferPool none(nullptr, 0);
    Tensor plain = *Tensor::Allocate(DType::kFloat32, Shape({1}));
    EXPECT_EQ(plain.buffer()->run_tag(), 0u);
  }
}

TEST(BufferPoolTest, ErrorsDoNotAllocate) {
  auto pool = BufferPool::Create();
  ScopedBufferPool scope(pool.get(), 1);
  EXPECT_FALSE(Tensor::Allocate(DType::kInvalid, Shape({1})).ok());
  EXPECT_FALSE(
      Tensor::Allocate(DType::kFloat32, Shape({int64_t{1} << 62, 8})).ok());
  EXPECT_EQ(pool->heap_allocations(), 0);
}

std::unique_ptr<Graph> BuildGraph(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  auto g = Graph::Build(def, {}, BuiltinOps(), "test graph");
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(*g) : nullptr;
}

// x -> a = x + x -> b = a * a -> c = b + a
constexpr char kChain[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "a"
    op: "AddV2"
    input: "x"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "b"
    op: "Mul"
    input: "a"
    input: "a"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "c"
    op: "AddV2"
    input: "b"
    input: "a"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

class ExecutorPoolTest : public ::testing::TestWithParam<int> {};

TEST_P(ExecutorPoolTest, SteadyStateRunsReuseBuffers) {
  auto g = BuildGraph(kChain);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  oneapi::tbb::task_arena arena(2);
  Executor exec(g.get(), &resources, GetParam() > 1 ? &arena : nullptr);
  std::vector<float> in(256, 1.5f);
  Feed feed{{*g->FindNode("x"), 0},
            Tensor::FromVector<float>(in, Shape({256}))};
  const Endpoint fetch{*g->FindNode("c"), 0};
  Tensor result;
  ASSERT_TRUE(exec.RunInto({feed}, {fetch}, absl::MakeSpan(&result, 1)).ok());
  EXPECT_EQ(result.data<float>()[0], 3.f * 3.f + 3.f);
  result = Tensor();  // give the output back to the pool
  const int64_t warm = exec.buffer_pool().heap_allocations();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(exec.RunInto({feed}, {fetch}, absl::MakeSpan(&result, 1)).ok());
    EXPECT_EQ(result.data<float>()[255], 12.f);
    result = Tensor();
  }
  EXPECT_EQ(exec.buffer_pool().heap_allocations(), warm);
  // A held output is not recycled under the caller.
  Tensor held;
  ASSERT_TRUE(exec.RunInto({feed}, {fetch}, absl::MakeSpan(&held, 1)).ok());
  ASSERT_TRUE(exec.RunInto({feed}, {fetch}, absl::MakeSpan(&result, 1)).ok());
  EXPECT_NE(held.raw_data(), result.raw_data());
  EXPECT_EQ(held.data<float>()[0], 12.f);
}

TEST_P(ExecutorPoolTest, MemoryLimitNamesTheNode) {
  auto g = BuildGraph(kChain);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  oneapi::tbb::task_arena arena(2);
  ExecutorOptions options;
  // a (1 KiB) and b (1 KiB) are live together when b runs: 2 KiB > 1.5 KiB.
  options.max_live_bytes = 1536;
  Executor exec(g.get(), &resources, GetParam() > 1 ? &arena : nullptr,
                options);
  std::vector<float> in(256, 1.f);
  Feed feed{{*g->FindNode("x"), 0},
            Tensor::FromVector<float>(in, Shape({256}))};
  auto out = exec.Run({feed}, {{*g->FindNode("c"), 0}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(out.status().message().find("'b'"), std::string::npos)
      << out.status();
  // A smaller input fits.
  Feed small{{*g->FindNode("x"), 0}, Tensor::FromVector<float>({1.f, 2.f})};
  EXPECT_TRUE(exec.Run({small}, {{*g->FindNode("c"), 0}}).ok());
}

INSTANTIATE_TEST_SUITE_P(Threads, ExecutorPoolTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace graphrt
