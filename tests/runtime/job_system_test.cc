// A host's job system (runtime/job_system.h): ParallelFor hands its chunks
// to it, nested loops and concurrent Runs work, and a Model given one
// computes bit for bit what threads = 1 and the oneTBB arena compute.
#include "runtime/job_system.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/graph.pb.h"
#include "runtime/model.h"
#include "runtime/parallel.h"
#include "tests/runtime/host_job_pool.h"
#include "tests/value_const.h"

namespace graphrt {
namespace {

namespace fs = std::filesystem;

TEST(JobSystemTest, ParallelForHandsEveryChunkToTheHost) {
  HostJobPool pool(3);
  std::vector<std::atomic<int>> hits(10000);
  {
    ScopedThreadContext scope(ThreadContext{.job_system = &pool});
    ParallelFor(0, 10000, 100, [&](int64_t b, int64_t e) {
      // Each chunk runs under the caller's context, job system included.
      EXPECT_EQ(CurrentThreadContext().job_system, &pool);
      EXPECT_GE(e - b, 1);
      for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
  }
  for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_EQ(pool.calls(), 1);
  // 4 chunks per thread of the pool's 4 (3 workers + the caller).
  EXPECT_EQ(pool.jobs_on_workers() + pool.jobs_on_callers(), 16);
}

// Chunk sizes for (range, grain) on a host of `workers` + 1 threads.
std::vector<int64_t> Chunks(int workers, int64_t n, int64_t grain) {
  HostJobPool pool(workers);
  std::mutex mu;
  std::vector<int64_t> sizes;
  ScopedThreadContext scope(ThreadContext{.job_system = &pool});
  ParallelFor(0, n, grain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    sizes.push_back(e - b);
  });
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

TEST(JobSystemTest, CutsWholeRoundsOfAtLeastHalfAGrain) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(Chunks(1, 100, 100), V({100}));  // one grain: inline
  EXPECT_EQ(Chunks(1, 150, 100), V({75, 75}));
  // 3 grains on 2 threads: 4 chunks (2 rounds of 2), not 3.
  EXPECT_EQ(Chunks(1, 300, 100), V({75, 75, 75, 75}));
  // 2 grains on 8 threads: 4 chunks of half a grain, not 8 of a quarter.
  EXPECT_EQ(Chunks(7, 200, 100), V({50, 50, 50, 50}));
  // Many grains: 4 chunks per thread.
  EXPECT_EQ(Chunks(1, 10000, 100).size(), 8u);
}

TEST(JobSystemTest, SmallLoopsAndOneThreadStayOnTheCaller) {
  HostJobPool pool(2);
  HostJobPool alone(0);  // concurrency 1
  int calls = 0;
  auto count = [&](int64_t b, int64_t e) {
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 1000);
    ++calls;
  };
  {
    ScopedThreadContext scope(ThreadContext{.job_system = &pool});
    ParallelFor(0, 1000, 1000, count);  // one grain: one chunk
    EXPECT_FALSE(RunsSequentially());
    ScopedSequential sequential;  // wins over the job system
    ParallelFor(0, 1000, 1, count);
    EXPECT_TRUE(RunsSequentially());
  }
  {
    ScopedThreadContext scope(ThreadContext{.job_system = &alone});
    ParallelFor(0, 1000, 1, count);
    EXPECT_TRUE(RunsSequentially());
  }
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(pool.calls() + alone.calls(), 0);
}

TEST(JobSystemTest, NestedLoopsFromManyThreads) {
  HostJobPool pool(2);
  std::atomic<int64_t> sum{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      ScopedThreadContext scope(ThreadContext{.job_system = &pool});
      ParallelFor(0, 64, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          ParallelFor(0, 100, 1,
                      [&](int64_t ib, int64_t ie) { sum.fetch_add(ie - ib); });
        }
      });
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(sum.load(), 4 * 64 * 100);
}

// ---- A Model given a job system ---------------------------------------

tensorflow::NodeDef* AddNode(tensorflow::GraphDef* g, const std::string& name,
                             const std::string& op,
                             std::vector<std::string> inputs = {}) {
  tensorflow::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

void SetFloat(tensorflow::NodeDef* n) {
  (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
}

void SetInts(tensorflow::NodeDef* n, const std::string& attr,
             std::vector<int64_t> v) {
  auto* list = (*n->mutable_attr())[attr].mutable_list();
  for (int64_t x : v) list->add_i(x);
}

void AddConv(tensorflow::GraphDef* g, const std::string& name,
             const std::string& op, const std::string& in,
             const std::string& filter, int stride) {
  tensorflow::NodeDef* n = AddNode(g, name, op, {in, filter});
  SetFloat(n);
  SetInts(n, "strides", {1, stride, stride, 1});
  (*n->mutable_attr())["padding"].set_s("SAME");
}

// x [1, 96, 96, 16] -> 3x3 conv 32 + bias, Relu -> 3x3 depthwise stride 2
// -> 1x1 conv 48 -> 2x2 max pool -> Sigmoid -> Mean over H, W: large enough
// that every stage splits its loop (the direct convolutions in pieces of
// 256k multiply-adds).
std::string WriteConvModel() {
  std::mt19937 rng(7);
  tensorflow::GraphDef g;
  tensorflow::NodeDef* x = AddNode(&g, "x", "Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  test_util::AddRandomValueConst(&g, "f1", {3, 3, 16, 32}, 0.2f, &rng);
  test_util::AddRandomValueConst(&g, "b1", {32}, 0.1f, &rng);
  test_util::AddRandomValueConst(&g, "dw", {3, 3, 32, 1}, 0.5f, &rng);
  test_util::AddRandomValueConst(&g, "f2", {1, 1, 32, 48}, 0.3f, &rng);
  AddConv(&g, "conv1", "Conv2D", "x", "f1", 1);
  SetFloat(AddNode(&g, "bias1", "BiasAdd", {"conv1", "b1"}));
  SetFloat(AddNode(&g, "relu1", "Relu", {"bias1"}));
  AddConv(&g, "depthwise", "DepthwiseConv2dNative", "relu1", "dw", 2);
  AddConv(&g, "conv2", "Conv2D", "depthwise", "f2", 1);
  tensorflow::NodeDef* pool = AddNode(&g, "pool", "MaxPool", {"conv2"});
  SetFloat(pool);
  SetInts(pool, "ksize", {1, 2, 2, 1});
  SetInts(pool, "strides", {1, 2, 2, 1});
  (*pool->mutable_attr())["padding"].set_s("VALID");
  SetFloat(AddNode(&g, "sigmoid", "Sigmoid", {"pool"}));
  tensorflow::NodeDef* axes = AddNode(&g, "axes", "Const");
  (*axes->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  auto* at = (*axes->mutable_attr())["value"].mutable_tensor();
  at->set_dtype(tensorflow::DT_INT32);
  at->mutable_tensor_shape()->add_dim()->set_size(2);
  at->add_int_val(1);
  at->add_int_val(2);
  tensorflow::NodeDef* mean = AddNode(&g, "mean", "Mean", {"sigmoid", "axes"});
  SetFloat(mean);
  (*mean->mutable_attr())["Tidx"].set_type(tensorflow::DT_INT32);
  const std::string dir = absl::StrCat(::testing::TempDir(), "/job_system");
  fs::create_directories(dir);
  const std::string path = dir + "/conv.pb";
  std::ofstream(path, std::ios::binary) << g.SerializeAsString();
  return path;
}

Tensor RandomInput(uint32_t seed) {
  Tensor t = *Tensor::Allocate(DType::kFloat32, Shape({1, 96, 96, 16}));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = u(rng);
  return t;
}

bool SameBits(const Tensor& a, const Tensor& b) { return a.IdenticalTo(b); }

TEST(JobSystemTest, ModelRunsOnTheHostsThreadsWithTheSameBits) {
  const std::string path = WriteConvModel();
  ModelOptions one;
  one.threads = 1;
  ModelOptions arena;
  arena.threads = 2;
  HostJobPool pool(2);
  ModelOptions host;
  host.threads = 5;  // ignored: the job system decides
  host.job_system = &pool;
  auto reference = Model::Load(path, one);
  auto on_arena = Model::Load(path, arena);
  auto on_host = Model::Load(path, host);
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_TRUE(on_arena.ok()) << on_arena.status();
  ASSERT_TRUE(on_host.ok()) << on_host.status();
  EXPECT_EQ((*on_host)->threads(), 3);
  for (const char* out : {"mean", "relu1", "conv2"}) {
    const Tensor in = RandomInput(11);
    auto a = (*reference)->Run({{"x", in}}, {out});
    auto b = (*on_arena)->Run({{"x", in}}, {out});
    auto c = (*on_host)->Run({{"x", in}}, {out});
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << out;
    EXPECT_TRUE(SameBits((*a)[0], (*b)[0])) << out << ": arena vs threads 1";
    EXPECT_TRUE(SameBits((*a)[0], (*c)[0])) << out << ": host vs threads 1";
  }
  EXPECT_GT(pool.calls(), 0);
  EXPECT_GT(pool.jobs_on_workers() + pool.jobs_on_callers(), pool.calls());
}

TEST(JobSystemTest, ConcurrentRunsShareOneHostPool) {
  const std::string path = WriteConvModel();
  HostJobPool pool(2);
  ModelOptions host;
  host.job_system = &pool;
  ModelOptions one;
  one.threads = 1;
  auto model = Model::Load(path, host);
  auto reference = Model::Load(path, one);
  ASSERT_TRUE(model.ok() && reference.ok());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) {
        const Tensor in = RandomInput(100 * t + i);
        auto a = (*model)->Run({{"x", in}});
        auto b = (*reference)->Run({{"x", in}});
        if (!a.ok() || !b.ok() || !SameBits((*a)[0], (*b)[0])) ++mismatches;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_GT(pool.calls(), 0);
}

}  // namespace
}  // namespace graphrt
