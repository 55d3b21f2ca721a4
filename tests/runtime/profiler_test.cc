// Profiler (runtime/profiler.h): FLOP estimates, aggregation, concurrent
// recording, and the executors' hooks (nodes recorded only while enabled;
// the dataflow executor's loop bodies once per iteration).
#include "runtime/profiler.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "google/protobuf/text_format.h"
#include "ops/registry.h"
#include "runtime/executor.h"

namespace graphrt {
namespace {

Tensor Zeros(Shape shape) { return *Tensor::Allocate(DType::kFloat32, shape); }

double Flops(const std::string& op, std::vector<Tensor> inputs, Tensor out) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : inputs) ptrs.push_back(&t);
  std::vector<Tensor> outs = {out};
  return Profiler::EstimateFlops(op, ptrs, outs);
}

TEST(ProfilerTest, EstimatesMultiplyAddFlops) {
  // 3x3 conv, 8 -> 16 channels, output 1x4x4x16: 2 * 256 * 9 * 8.
  EXPECT_EQ(Flops("Conv2D", {Zeros({1, 6, 6, 8}), Zeros({3, 3, 8, 16})},
                  Zeros({1, 4, 4, 16})),
            2.0 * 256 * 9 * 8);
  EXPECT_EQ(Flops("_FusedConv2D",
                  {Zeros({1, 6, 6, 8}), Zeros({3, 3, 8, 16}), Zeros({16})},
                  Zeros({1, 4, 4, 16})),
            2.0 * 256 * 9 * 8);
  // Depthwise 5x5, 8 channels x multiplier 1: 2 * |out| * 25.
  EXPECT_EQ(
      Flops("DepthwiseConv2dNative", {Zeros({1, 4, 4, 8}), Zeros({5, 5, 8, 1})},
            Zeros({1, 4, 4, 8})),
      2.0 * 128 * 25);
  // Transposed conv: dy [1,4,4,16], filter [2,2,8,16]: 2 * |dy| * 2*2*8.
  EXPECT_EQ(Flops("Conv2DBackpropInput",
                  {Zeros({4}), Zeros({2, 2, 8, 16}), Zeros({1, 4, 4, 16})},
                  Zeros({1, 8, 8, 8})),
            2.0 * 256 * 32);
  // MatMul [3,5] x [5,7] (and transposed operands): 2 * 21 * 5.
  EXPECT_EQ(Flops("MatMul", {Zeros({3, 5}), Zeros({5, 7})}, Zeros({3, 7})),
            2.0 * 21 * 5);
  EXPECT_EQ(Flops("MatMul", {Zeros({5, 3}), Zeros({7, 5})}, Zeros({3, 7})),
            2.0 * 21 * 5);
  EXPECT_EQ(Flops("BatchMatMulV2", {Zeros({4, 3, 5}), Zeros({5, 7})},
                  Zeros({4, 3, 7})),
            2.0 * 84 * 5);
  // _FusedDepthwiseBlock, 8 -> 32 -> 3x3 depthwise -> 16 on a 1x4x4 output
  // (stride 1): expand 2 * 16 * 8 * 32, depthwise 2 * 16 * 32 * 9, project
  // 2 * 16 * 32 * 16.
  const double dw = 2.0 * 16 * 32 * 9, project = 2.0 * 16 * 32 * 16;
  EXPECT_EQ(Flops("_FusedDepthwiseBlock",
                  {Zeros({1, 4, 4, 8}), Zeros({1, 1, 8, 32}), Zeros({32}),
                   Zeros({3, 3, 32, 1}), Zeros({32}), Zeros({1, 1, 32, 16}),
                   Zeros({16})},
                  Zeros({1, 4, 4, 16})),
            2.0 * 16 * 8 * 32 + dw + project);
  // Without expand stage or biases (x, depthwise and project filters only:
  // was 0 before the profiler took blocks of three inputs).
  EXPECT_EQ(
      Flops("_FusedDepthwiseBlock",
            {Zeros({1, 4, 4, 32}), Zeros({3, 3, 32, 1}), Zeros({1, 1, 32, 16})},
            Zeros({1, 4, 4, 16})),
      dw + project);
  // Not counted, or shapes it does not expect: 0.
  EXPECT_EQ(Flops("AddV2", {Zeros({3}), Zeros({3})}, Zeros({3})), 0);
  EXPECT_EQ(Flops("Conv2D", {Zeros({1, 6, 6, 8})}, Zeros({1, 4, 4, 16})), 0);
  EXPECT_EQ(Flops("MatMul", {Zeros({3}), Zeros({3})}, Zeros({})), 0);
}

TEST(ProfilerTest, AggregatesByNodeAndOpAcrossThreads) {
  Profiler p;
  int a = 0, b = 0, c = 0;  // node identities
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        p.Record(&a, "a", "Conv2D", 0.002, 10);
        p.Record(&b, "b", "Conv2D", 0.001, 5);
        p.Record(&c, "c", "Relu", 0.0005, 0);
      }
    });
  }
  for (auto& t : threads) t.join();
  auto ops = p.ByOp();
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op, "Conv2D");
  EXPECT_EQ(ops[0].nodes, 2);
  EXPECT_EQ(ops[0].calls, 8000);
  EXPECT_NEAR(ops[0].seconds, 12.0, 1e-6);
  EXPECT_NEAR(ops[0].flops, 60000, 1e-6);
  EXPECT_EQ(ops[1].op, "Relu");
  auto top = p.TopNodes(1);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].name, "a");
  EXPECT_EQ(top[0].calls, 4000);
  EXPECT_NEAR(p.TotalSeconds(), 14.0, 1e-6);
  p.Reset();
  EXPECT_TRUE(p.ByOp().empty());
}

TEST(ProfilerTest, ExecutorRecordsNodesOnlyWhileEnabled) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        node {
          name: "x"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "w"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "y"
          op: "MatMul"
          input: "x"
          input: "w"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "z"
          op: "Relu"
          input: "y"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      )pb",
      &def));
  WeightMap weights;
  weights["w"] = Zeros({4, 3});
  auto g = Graph::Build(def, weights, BuiltinOps(), "test graph");
  ASSERT_TRUE(g.ok()) << g.status();
  Profiler profiler;
  ExecutorOptions options;
  options.profiler = &profiler;
  ResourceManager resources;
  Executor exec(g->get(), &resources, nullptr, options);
  Endpoint x{*(*g)->FindNode("x"), 0}, z{*(*g)->FindNode("z"), 0};
  std::vector<Feed> feeds = {{x, Zeros({2, 4})}};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(exec.Run(feeds, {z}).ok());
  auto ops = profiler.ByOp();
  // MatMul, Relu: the fed x is not run, and neither is the Const (its
  // consumers read its value in place; runtime/executor.cc).
  ASSERT_EQ(ops.size(), 2u);
  for (const auto& s : ops) {
    EXPECT_EQ(s.calls, 3) << s.op;
    if (s.op == "MatMul") {
      EXPECT_EQ(s.flops, 3 * 2.0 * 6 * 4);
    }
  }
  profiler.set_enabled(false);
  ASSERT_TRUE(exec.Run(feeds, {z}).ok());
  for (const auto& s : profiler.ByOp()) EXPECT_EQ(s.calls, 3) << s.op;
}

// Graphs with v1 control flow run on the dataflow executor
// (runtime/dataflow_executor.h); it records its kernel calls too (it
// recorded none before: `graphrt bench --profile` on handtrack showed 0 ms).
// A while loop counting i to n: AddV2 runs n times per Run.
TEST(ProfilerTest, DataflowExecutorRecordsLoopBodies) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        node {
          name: "zero"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
        }
        node {
          name: "one"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
        }
        node {
          name: "n"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
        }
        node {
          name: "enter_i"
          op: "Enter"
          input: "zero"
          attr {
            key: "frame_name"
            value { s: "loop" }
          }
        }
        node {
          name: "enter_n"
          op: "Enter"
          input: "n"
          attr {
            key: "frame_name"
            value { s: "loop" }
          }
          attr {
            key: "is_constant"
            value { b: true }
          }
        }
        node {
          name: "enter_one"
          op: "Enter"
          input: "one"
          attr {
            key: "frame_name"
            value { s: "loop" }
          }
          attr {
            key: "is_constant"
            value { b: true }
          }
        }
        node { name: "merge_i" op: "Merge" input: "enter_i" input: "next_i" }
        node {
          name: "less"
          op: "Less"
          input: "merge_i"
          input: "enter_n"
          attr {
            key: "T"
            value { type: DT_INT32 }
          }
        }
        node { name: "cond" op: "LoopCond" input: "less" }
        node { name: "switch_i" op: "Switch" input: "merge_i" input: "cond" }
        node {
          name: "i1"
          op: "AddV2"
          input: "switch_i:1"
          input: "enter_one"
          attr {
            key: "T"
            value { type: DT_INT32 }
          }
        }
        node { name: "next_i" op: "NextIteration" input: "i1" }
        node { name: "exit_i" op: "Exit" input: "switch_i" }
      )pb",
      &def));
  WeightMap weights;
  weights["zero"] = Tensor::Scalar<int32_t>(0);
  weights["one"] = Tensor::Scalar<int32_t>(1);
  auto g = Graph::Build(def, weights, BuiltinOps(), "test graph");
  ASSERT_TRUE(g.ok()) << g.status();
  Profiler profiler;
  ExecutorOptions options;
  options.profiler = &profiler;
  ResourceManager resources;
  Executor exec(g->get(), &resources, nullptr, options);
  std::vector<Feed> feeds = {
      {{*(*g)->FindNode("n"), 0}, Tensor::Scalar<int32_t>(5)}};
  const Endpoint exit_i{*(*g)->FindNode("exit_i"), 0};
  for (int i = 0; i < 2; ++i) {
    auto out = exec.Run(feeds, {exit_i});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int32_t>()[0], 5);
  }
  bool saw_add = false;
  for (const auto& s : profiler.ByOp()) {
    if (s.op == "AddV2") {
      saw_add = true;
      EXPECT_EQ(s.calls, 2 * 5);
      EXPECT_EQ(s.nodes, 1);
    }
  }
  EXPECT_TRUE(saw_add);
  EXPECT_GT(profiler.TotalSeconds(), 0);
}

}  // namespace
}  // namespace graphrt
