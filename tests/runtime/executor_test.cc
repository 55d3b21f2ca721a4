#include "runtime/executor.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "google/protobuf/text_format.h"
#include "ops/registry.h"
#include "runtime/scratch_outputs.h"

namespace graphrt {
namespace {

std::unique_ptr<Graph> BuildGraph(const std::string& text,
                                  WeightMap weights = {},
                                  const OpRegistry& ops = BuiltinOps()) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  auto g = Graph::Build(def, weights, ops, "test graph");
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(*g) : nullptr;
}

// The builtin ops plus one test kernel (made once per test, never freed).
const OpRegistry* BuiltinsPlus(absl::string_view op, KernelFactory factory) {
  auto* r = new OpRegistry;
  RegisterBuiltinOps(*r);
  r->Register(op, factory);
  return r;
}

// A diamond of width 8: x -> a_i = x + c -> sum chain.
std::string WideGraph() {
  std::string text = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "c"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  for (int i = 0; i < 8; ++i) {
    text += "node { name: \"a" + std::to_string(i) +
            "\" op: \"AddV2\" input: \"x\" input: \"c\" "
            "attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  }
  text += "node { name: \"s0\" op: \"Identity\" input: \"a0\" }\n";
  for (int i = 1; i < 8; ++i) {
    text += "node { name: \"s" + std::to_string(i) +
            "\" op: \"AddV2\" input: \"s" + std::to_string(i - 1) +
            "\" input: \"a" + std::to_string(i) +
            "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  }
  return text;
}

class ExecutorTest : public ::testing::TestWithParam<int> {};

TEST_P(ExecutorTest, RunsInDependencyOrder) {
  WeightMap w;
  w["c"] = Tensor::Scalar<float>(1.f);
  auto g = BuildGraph(WideGraph(), w);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  oneapi::tbb::task_arena arena(GetParam());
  Executor exec(g.get(), &resources, GetParam() > 1 ? &arena : nullptr);
  Endpoint x{*g->FindNode("x"), 0}, s7{*g->FindNode("s7"), 0};
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<Feed> feeds = {{x, Tensor::FromVector<float>({1.f, 2.f})}};
    auto out = exec.Run(feeds, {s7});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<float>()[0], 16.f);  // 8 * (1 + 1)
    EXPECT_EQ((*out)[0].data<float>()[1], 24.f);  // 8 * (2 + 1)
  }
}

TEST_P(ExecutorTest, ConcurrentRunsShareOneExecutor) {
  WeightMap w;
  w["c"] = Tensor::Scalar<float>(1.f);
  auto g = BuildGraph(WideGraph(), w);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  oneapi::tbb::task_arena arena(GetParam());
  Executor exec(g.get(), &resources, GetParam() > 1 ? &arena : nullptr);
  Endpoint x{*g->FindNode("x"), 0}, s7{*g->FindNode("s7"), 0};
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        float v = static_cast<float>(t * 100 + i);
        std::vector<Feed> feeds = {{x, Tensor::Scalar<float>(v)}};
        auto out = exec.Run(feeds, {s7});
        if (!out.ok() || (*out)[0].data<float>()[0] != 8 * (v + 1)) ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, ExecutorTest, ::testing::Values(1, 4));

// Runs flush denormals to zero by default, as TensorFlow does (FTZ: a
// denormal result is 0; DAZ: a denormal input reads as 0), in every chunk of
// a multi-threaded kernel; Denormals::kIeee keeps them.
TEST_P(ExecutorTest, DenormalsFlushToZeroUnlessIeeeIsAsked) {
  auto g = BuildGraph(R"pb(
                        node {
                          name: "x"
                          op: "Placeholder"
                          attr {
                            key: "dtype"
                            value { type: DT_FLOAT }
                          }
                        }
                        node {
                          name: "tiny"
                          op: "Const"
                          attr {
                            key: "dtype"
                            value { type: DT_FLOAT }
                          }
                        }
                        node {
                          name: "huge"
                          op: "Const"
                          attr {
                            key: "dtype"
                            value { type: DT_FLOAT }
                          }
                        }
                        node {
                          name: "y"
                          op: "Mul"
                          input: "x"
                          input: "tiny"
                          attr {
                            key: "T"
                            value { type: DT_FLOAT }
                          }
                        }
                        node {
                          name: "z"
                          op: "Mul"
                          input: "x"
                          input: "huge"
                          attr {
                            key: "T"
                            value { type: DT_FLOAT }
                          }
                        }
                      )pb",
                      [] {
                        WeightMap w;
                        w["tiny"] = Tensor::Scalar<float>(1e-10f);
                        w["huge"] = Tensor::Scalar<float>(1e20f);
                        return w;
                      }());
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  oneapi::tbb::task_arena arena(GetParam());
  // Large enough for the kernels to split it across the arena's threads.
  constexpr int64_t kN = 1 << 18;
  auto x = Tensor::Allocate(DType::kFloat32, Shape({kN}));
  ASSERT_TRUE(x.ok());
  float* xs = x->mutable_data<float>();
  // Even elements: 1e-30, normal; y = x * 1e-10 is a denormal (FTZ).
  // Odd elements: 1e-39, denormal; z = x * 1e20 is 1e-19 unless the input
  // reads as 0 (DAZ).
  for (int64_t i = 0; i < kN; ++i) xs[i] = i % 2 == 0 ? 1e-30f : 1e-39f;
  const Endpoint x_ep = *g->ResolveTensor("x");
  const Endpoint y_ep = *g->ResolveTensor("y");
  const Endpoint z_ep = *g->ResolveTensor("z");
  for (Denormals mode : {Denormals::kFlushToZero, Denormals::kIeee}) {
    ExecutorOptions options;
    options.denormals = mode;
    Executor exec(g.get(), &resources, GetParam() > 1 ? &arena : nullptr,
                  options);
    auto out = exec.Run({{x_ep, *x}}, {y_ep, z_ep});
    ASSERT_TRUE(out.ok()) << out.status();
    const float* ys = (*out)[0].data<float>();
    const float* zs = (*out)[1].data<float>();
    int64_t denormal_results = 0, denormal_inputs_read = 0;
    for (int64_t i = 0; i < kN; i += 2) {
      denormal_results += ys[i] != 0.f;
      denormal_inputs_read += zs[i + 1] != 0.f;
    }
    const int64_t kept = mode == Denormals::kIeee ? kN / 2 : 0;
    EXPECT_EQ(denormal_results, kept) << static_cast<int>(mode);
    EXPECT_EQ(denormal_inputs_read, kept) << static_cast<int>(mode);
  }
  // The caller's own floating-point mode is left as it was.
  EXPECT_FALSE(FlushingDenormals());
}

// The value slots a RunState keeps between Runs hold what each node
// produced, not KernelContext::kReservedOutputs Tensors per node (that was
// 1.4 KB a node: 1.4 MB on facemesh-attention). Measured with glibc's
// counters; under ASan/TSan their allocator leaves them at zero and the
// test checks nothing.
TEST(ExecutorMemory, FirstRunKeepsLittlePerNode) {
  constexpr int kNodes = 2000;
  std::string text = R"pb(node {
                            name: "x"
                            op: "Placeholder"
                            attr {
                              key: "dtype"
                              value { type: DT_FLOAT }
                            }
                          })pb";
  for (int i = 0; i < kNodes; ++i) {
    text += "node { name: \"n" + std::to_string(i) +
            "\" op: \"Identity\" input: \"" +
            (i == 0 ? std::string("x") : "n" + std::to_string(i - 1)) +
            "\" }\n";
  }
  auto g = BuildGraph(text);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  const Endpoint x{*g->FindNode("x"), 0};
  const Endpoint last{*g->FindNode("n" + std::to_string(kNodes - 1)), 0};
  std::vector<Feed> feeds = {{x, Tensor::Scalar<float>(3.f)}};
  const size_t before = mallinfo2().uordblks;
  auto out = exec.Run(feeds, {last});
  const size_t after = mallinfo2().uordblks;
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<float>()[0], 3.f);
  // The plan and the RunState the first Run creates stay (both cached).
  EXPECT_LT(after > before ? after - before : 0, size_t{512} * kNodes);
}

// Output pointers stay valid while a kernel sets up to kReservedOutputs
// outputs, also when the kernel runs nested nodes on its thread in between
// (If / While / PartitionedCall do): the nested nodes write into a scratch
// vector of their own.
absl::Status HoldFirstOutput(KernelContext& ctx) {
  auto first = ctx.allocate_output(0, DType::kFloat32, Shape());
  if (!first.ok()) return first.status();
  {
    // What a nested graph's node does on this thread.
    ScratchOutputs inner;
    KernelContext inner_ctx({}, &inner.outputs(), nullptr);
    inner_ctx.set_output(0, Tensor::Scalar<float>(-1.f));
    std::vector<Tensor> slot;
    inner.MoveTo(slot);
    if (slot.size() != 1 || slot.capacity() != 1) {
      return absl::InternalError("the slot is not sized to the outputs");
    }
  }
  for (int i = KernelContext::kReservedOutputs - 1; i >= 1; --i) {
    ctx.set_output(i, Tensor::Scalar<float>(static_cast<float>(i)));
  }
  (*first)->mutable_data<float>()[0] = ctx.input(0).data<float>()[0];
  return absl::OkStatus();
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateHoldFirstOutput(
    const KernelInit&) {
  return MakeFunctionKernel(HoldFirstOutput);
}

TEST_P(ExecutorTest, OutputPointersStayValidWhileLaterOutputsAreSet) {
  static const OpRegistry* ops =
      BuiltinsPlus("HoldFirstOutput", CreateHoldFirstOutput);
  auto g = BuildGraph(
      R"(node { name: "x" op: "Placeholder"
               attr { key: "dtype" value { type: DT_FLOAT } } }
         node { name: "h" op: "HoldFirstOutput" input: "x" }
         node { name: "h2" op: "HoldFirstOutput" input: "h:15" })",
      {}, *ops);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  oneapi::tbb::task_arena arena(GetParam());
  Executor exec(g.get(), &resources, GetParam() > 1 ? &arena : nullptr);
  const int h = *g->FindNode("h"), h2 = *g->FindNode("h2");
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<Feed> feeds = {
        {Endpoint{*g->FindNode("x"), 0}, Tensor::Scalar<float>(7.f)}};
    auto out = exec.Run(feeds, {Endpoint{h, 0}, Endpoint{h, 3}, Endpoint{h2, 0},
                                Endpoint{h2, 15}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<float>()[0], 7.f);
    EXPECT_EQ((*out)[1].data<float>()[0], 3.f);
    EXPECT_EQ((*out)[2].data<float>()[0], 15.f);
    EXPECT_EQ((*out)[3].data<float>()[0], 15.f);
  }
}

// Records where its input 0 lives, and outputs it.
std::atomic<const Tensor*> g_seen_input{nullptr};
absl::Status RecordInput(KernelContext& ctx) {
  g_seen_input.store(&ctx.input(0));
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateRecordInput(const KernelInit&) {
  return MakeFunctionKernel(RecordInput);
}

// A Const that is neither fed nor fetched is read in place: its consumers
// get the graph's own value (Node::constant), no per-Run copy whose
// reference count concurrent Runs would share. Fetched or fed, it behaves
// as before.
TEST(ExecutorConsts, UnfetchedConstsAreReadInPlace) {
  static const OpRegistry* ops = BuiltinsPlus("RecordInput", CreateRecordInput);
  WeightMap w;
  w["c"] = Tensor::FromVector<float>({1.f, 2.f});
  auto g = BuildGraph(
      R"(node { name: "c" op: "Const"
               attr { key: "dtype" value { type: DT_FLOAT } } }
         node { name: "y" op: "RecordInput" input: "c" })",
      w, *ops);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  const int c = *g->FindNode("c");
  const Endpoint y{*g->FindNode("y"), 0};
  auto out = exec.Run({}, {y});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(g_seen_input.load(), &g->node(c).constant);
  EXPECT_EQ((*out)[0].data<float>()[1], 2.f);
  // Fetched too: still a value of its own in the Run's outputs.
  out = exec.Run({}, {y, Endpoint{c, 0}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[1].data<float>()[0], 1.f);
  EXPECT_EQ((*out)[0].data<float>()[0], 1.f);
  // Fed: the fed value wins.
  std::vector<Feed> feeds = {
      {Endpoint{c, 0}, Tensor::FromVector<float>({5.f})}};
  out = exec.Run(feeds, {y});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<float>()[0], 5.f);
  EXPECT_EQ(g_seen_input.load(), &feeds[0].value);
}

TEST(ExecutorErrors, MissingInputNamesIt) {
  auto g = BuildGraph(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node { name: "y" op: "Identity" input: "x" }
  )pb");
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  auto out = exec.Run({}, {{1, 0}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("missing input 'x'"), std::string::npos)
      << out.status();
}

TEST(ExecutorErrors, CycleIsAnError) {
  auto g = BuildGraph(R"pb(
    node { name: "a" op: "Identity" input: "b" }
    node { name: "b" op: "Identity" input: "a" }
  )pb");
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  auto out = exec.Run({}, {{1, 0}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("cycle"), std::string::npos);
}

TEST(ExecutorErrors, KernelErrorNamesNode) {
  WeightMap w;
  w["c"] = Tensor::FromVector<float>({1.f, 2.f, 3.f});
  auto g = BuildGraph(R"pb(
                        node {
                          name: "x"
                          op: "Placeholder"
                          attr {
                            key: "dtype"
                            value { type: DT_FLOAT }
                          }
                        }
                        node {
                          name: "c"
                          op: "Const"
                          attr {
                            key: "dtype"
                            value { type: DT_FLOAT }
                          }
                        }
                        node {
                          name: "bad_add"
                          op: "AddV2"
                          input: "x"
                          input: "c"
                          attr {
                            key: "T"
                            value { type: DT_FLOAT }
                          }
                        }
                      )pb",
                      w);
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  std::vector<Feed> feeds = {{{0, 0}, Tensor::FromVector<float>({1.f, 2.f})}};
  auto out = exec.Run(feeds, {{2, 0}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("node 'bad_add' (op AddV2)"),
            std::string::npos)
      << out.status();
}

TEST(ExecutorErrors, MissingOutputIndex) {
  auto g = BuildGraph(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node { name: "y" op: "Identity" input: "x" }
  )pb");
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  std::vector<Feed> feeds = {{{0, 0}, Tensor::Scalar<float>(1.f)}};
  auto out = exec.Run(feeds, {{1, 3}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("no output 3"), std::string::npos);
}

}  // namespace
}  // namespace graphrt

namespace graphrt {
namespace {

// x -> r = Neg(x) -> conv = _FusedConv2D[BiasAdd, Add, Relu](x, f, b, r):
// the residual r is an intermediate value whose only consumer is the conv,
// so the executor lets the kernel take r's storage as its output (in-place
// residual add). Fetching r too forbids that; both runs must give the same
// conv output, and the fetched r must keep its values.
std::unique_ptr<Graph> ResidualConvGraph(WeightMap* w) {
  (*w)["f"] = Tensor::FromVector<float>(
      {0.5f, -1.f, 0.25f, 2.f, 1.f, 0.f, -0.5f, 0.75f, 1.5f},
      Shape({1, 1, 3, 3}));
  (*w)["b"] = Tensor::FromVector<float>({0.1f, -0.2f, 0.3f});
  return BuildGraph(R"pb(
                      node {
                        name: "x"
                        op: "Placeholder"
                        attr {
                          key: "dtype"
                          value { type: DT_FLOAT }
                        }
                      }
                      node {
                        name: "f"
                        op: "Const"
                        attr {
                          key: "dtype"
                          value { type: DT_FLOAT }
                        }
                      }
                      node {
                        name: "b"
                        op: "Const"
                        attr {
                          key: "dtype"
                          value { type: DT_FLOAT }
                        }
                      }
                      node {
                        name: "r"
                        op: "Neg"
                        input: "x"
                        attr {
                          key: "T"
                          value { type: DT_FLOAT }
                        }
                      }
                      node {
                        name: "conv"
                        op: "_FusedConv2D"
                        input: "x"
                        input: "f"
                        input: "b"
                        input: "r"
                        attr {
                          key: "T"
                          value { type: DT_FLOAT }
                        }
                        attr {
                          key: "strides"
                          value { list { i: 1 i: 1 i: 1 i: 1 } }
                        }
                        attr {
                          key: "padding"
                          value { s: "VALID" }
                        }
                        attr {
                          key: "fused_ops"
                          value { list { s: "BiasAdd" s: "Add" s: "Relu" } }
                        }
                        attr {
                          key: "num_args"
                          value { i: 2 }
                        }
                      }
                    )pb",
                    *w);
}

TEST(ExecutorInPlace, ForwardedResidualGivesTheSameValues) {
  WeightMap w;
  auto g = ResidualConvGraph(&w);
  ASSERT_NE(g, nullptr);
  std::vector<float> xv(2 * 4 * 4 * 3);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.37f * (i % 11) - 1.5f;
  const Tensor x = Tensor::FromVector<float>(xv, Shape({2, 4, 4, 3}));
  // Reference: the same arithmetic, unfused.
  std::vector<float> want(xv.size());
  const float* f = w["f"].data<float>();
  const float* b = w["b"].data<float>();
  for (size_t p = 0; p < xv.size() / 3; ++p) {
    for (int o = 0; o < 3; ++o) {
      float acc = 0;
      for (int c = 0; c < 3; ++c) acc += xv[p * 3 + c] * f[c * 3 + o];
      want[p * 3 + o] = std::max(0.f, (acc + b[o]) + -xv[p * 3 + o]);
    }
  }
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  std::vector<Feed> feeds = {{{0, 0}, x}};
  for (int run = 0; run < 3; ++run) {
    auto only_conv = exec.Run(feeds, {{4, 0}});
    ASSERT_TRUE(only_conv.ok()) << only_conv.status();
    auto both = exec.Run(feeds, {{4, 0}, {3, 0}});
    ASSERT_TRUE(both.ok()) << both.status();
    EXPECT_TRUE((*only_conv)[0].IdenticalTo((*both)[0]));
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR((*both)[0].data<float>()[i], want[i], 1e-5f) << i;
      EXPECT_EQ((*both)[1].data<float>()[i], -xv[i]) << i;  // r intact
    }
  }
}

// How ProbeForward's last call could take its input 0's storage: 1 by
// forward_input_to_output, 2 only by forward_shared_input_to_output, 0 not.
std::atomic<int> g_forwarded{-1};
absl::Status ProbeForward(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  int how = 0;
  if (ctx.forward_input_to_output(0, 0, in.dtype(), in.shape()) != nullptr) {
    how = 1;
  } else if (ctx.forward_shared_input_to_output(0, 0, in.dtype(), in.shape()) !=
             nullptr) {
    how = 2;
  } else {
    ctx.set_output(0, in);
  }
  g_forwarded.store(how);
  return absl::OkStatus();
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateProbeForward(const KernelInit&) {
  return MakeFunctionKernel(ProbeForward);
}

// A value a node receives twice (x in a fused block computing f(x) + x) is
// forwardable only through forward_shared_input_to_output; once, through
// both; fetched, through neither.
TEST(ExecutorInPlace, ValueReceivedTwiceIsForwardableAsShared) {
  static const OpRegistry* ops =
      BuiltinsPlus("ProbeForward", CreateProbeForward);
  auto g = BuildGraph(
      R"(node { name: "x" op: "Placeholder"
               attr { key: "dtype" value { type: DT_FLOAT } } }
         node { name: "r" op: "Neg" input: "x"
               attr { key: "T" value { type: DT_FLOAT } } }
         node { name: "twice" op: "ProbeForward" input: "r" input: "r" }
         node { name: "s" op: "Neg" input: "x"
               attr { key: "T" value { type: DT_FLOAT } } }
         node { name: "once" op: "ProbeForward" input: "s" input: "x" })",
      {}, *ops);
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  const std::vector<Feed> feeds = {
      {Endpoint{*g->FindNode("x"), 0}, Tensor::FromVector<float>({1.f, 2.f})}};
  const Endpoint twice{*g->FindNode("twice"), 0};
  const Endpoint once{*g->FindNode("once"), 0};
  const Endpoint r{*g->FindNode("r"), 0};
  auto out = exec.Run(feeds, {twice});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(g_forwarded.load(), 2);
  EXPECT_EQ((*out)[0].data<float>()[1], -2.f);
  out = exec.Run(feeds, {once});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(g_forwarded.load(), 1);
  out = exec.Run(feeds, {twice, r});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(g_forwarded.load(), 0);
  EXPECT_EQ((*out)[1].data<float>()[0], -1.f);
}

}  // namespace
}  // namespace graphrt
