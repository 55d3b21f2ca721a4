// FuseDepthwiseBlocks (converter/passes/passes.h) and the
// _FusedDepthwiseBlock kernel it builds (ops/nn/depthwise_block.h): which
// chains it takes and leaves, and that the fused block computes the
// unfused graph's values (equal up to an ulp where a pixel falls in a tile
// tail of another length when both run graphrt's direct kernel; to a few
// ulps where the unfused graph's large layers run on oneDNN), and the same
// bits at any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "converter/graph.h"
#include "converter/passes/passes.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/builtin_ops.h"
#include "proto/graph.pb.h"
#include "runtime/executor.h"
#include "runtime/parallel.h"
#include "runtime/tensor.h"
#include "tests/converter/passes/pass_test_util.h"

namespace graphrt::passes {
namespace {

using namespace ::graphrt::passes::test_util;  // NOLINT: test helpers

// A float32 Const weight of `shape` with small values of both signs.
void Weight(GraphDef* g, WeightMap* w, const std::string& name,
            const Shape& shape, int seed) {
  ConstWeight(g, w, name, shape);
  float* v = (*w)[name].mutable_data<float>();
  for (int64_t i = 0; i < (*w)[name].num_elements(); ++i) {
    v[i] = 0.05f * static_cast<float>((i * 7 + seed * 13) % 23 - 11);
  }
}

struct BlockParams {
  int64_t k = 3;
  int64_t stride = 1;
  std::string padding = "SAME";  // or VALID / EXPLICIT (1, 2 rows and cols)
  bool expand = true;
  int64_t expand_k = 1;           // 3: a 3x3 layer, which is no expand stage
  bool dw_bias = true;            // FusedDepthwiseConv2dNative, else plain
  std::string project = "Add";    // "Add" (residual), "Bias", "Relu6", "Plain"
  int64_t c = 8, e = 20, co = 8;  // co == c for the residual
  // Prelu instead of Relu6 / Relu / nothing after each stage's bias (the
  // project's after its residual add): slopes per channel, one for the
  // project.
  bool prelu = false;
  // The block reads xn = Neg(x) rather than the fed x: a value the block
  // may overwrite (its residual addend's storage becomes its output).
  bool computed_input = false;
};

// Appends Prelu (and its slopes `alpha`, a Const of `n` values) to the
// fused_ops of `node`, or `act` when `prelu` is false.
void AddActivation(GraphDef* g, WeightMap* w, NodeDef* node, bool prelu,
                   const std::string& act, const std::string& alpha,
                   int64_t n) {
  auto* ops = (*node->mutable_attr())["fused_ops"].mutable_list();
  auto& num_args = (*node->mutable_attr())["num_args"];
  if (prelu) {
    Weight(g, w, alpha, Shape({n}), 9);
    node->add_input(alpha);
    ops->add_s("Prelu");
    num_args.set_i(num_args.i() + 1);
  } else if (!act.empty()) {
    ops->add_s(act);
  }
}

// out = Neg(project(depthwise(expand(x)))) (+ x for a residual).
struct BlockGraph {
  GraphDef g;
  WeightMap w;
  explicit BlockGraph(const BlockParams& p) {
    Add(&g, "x", "Placeholder", {});
    const std::string x = p.computed_input ? "xn" : "x";
    if (p.computed_input) Add(&g, "xn", "Neg", {"x"});
    std::string dw_in = x;
    if (p.expand) {
      Weight(&g, &w, "ef", Shape({p.expand_k, p.expand_k, p.c, p.e}), 1);
      Weight(&g, &w, "eb", Shape({p.e}), 2);
      NodeDef* ex = Add(&g, "expand", "_FusedConv2D", {x, "ef", "eb"});
      ConvAttrs(ex);
      (*ex->mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
      (*ex->mutable_attr())["num_args"].set_i(1);
      AddActivation(&g, &w, ex, p.prelu, "Relu6", "ea", p.e);
      dw_in = "expand";
    }
    Weight(&g, &w, "df", Shape({p.k, p.k, p.e, 1}), 3);
    NodeDef* dw;
    if (p.dw_bias) {
      Weight(&g, &w, "db", Shape({p.e}), 4);
      dw = Add(&g, "dw", "FusedDepthwiseConv2dNative", {dw_in, "df", "db"});
      (*dw->mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
      (*dw->mutable_attr())["num_args"].set_i(1);
      AddActivation(&g, &w, dw, p.prelu, "Relu", "da", p.e);
    } else {
      dw = Add(&g, "dw", "DepthwiseConv2dNative", {dw_in, "df"});
    }
    auto& a = *dw->mutable_attr();
    for (int64_t s : {int64_t{1}, p.stride, p.stride, int64_t{1}}) {
      a["strides"].mutable_list()->add_i(s);
    }
    a["padding"].set_s(p.padding);
    if (p.padding == "EXPLICIT") {
      for (int64_t v : {0, 0, 1, 2, 2, 1, 0, 0}) {
        a["explicit_paddings"].mutable_list()->add_i(v);
      }
    }
    Weight(&g, &w, "pf", Shape({1, 1, p.e, p.co}), 5);
    NodeDef* pj;
    if (p.project == "Plain") {
      pj = Add(&g, "project", "Conv2D", {"dw", "pf"});
    } else {
      Weight(&g, &w, "pb", Shape({p.co}), 6);
      std::vector<std::string> in = {"dw", "pf", "pb"};
      if (p.project == "Add") in.push_back(x);
      pj = Add(&g, "project", "_FusedConv2D", in);
      auto* ops = (*pj->mutable_attr())["fused_ops"].mutable_list();
      ops->add_s("BiasAdd");
      if (p.project == "Add") ops->add_s("Add");
      if (p.project == "Relu6") ops->add_s("Relu6");
      (*pj->mutable_attr())["num_args"].set_i(p.project == "Add" ? 2 : 1);
      if (p.project == "Add") AddActivation(&g, &w, pj, p.prelu, "", "pa", 1);
    }
    ConvAttrs(pj);
    Add(&g, "out", "Neg", {"project"});
  }
};

// x = [batch, h, w, c] of varied values (both signs, some beyond Relu6's
// 6).
Tensor Input(int64_t h, int64_t w, int64_t c, int64_t batch = 2) {
  Tensor x = *Tensor::Allocate(DType::kFloat32, Shape({batch, h, w, c}));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.mutable_data<float>()[i] = 0.37f * static_cast<float>((i * 31) % 41 - 20);
  }
  return x;
}

void ExpectFusedMatches(const BlockParams& p, int64_t h, int64_t w,
                        int64_t batch = 2) {
  BlockGraph m(p);
  const Tensor x = Input(h, w, p.c, batch);
  Tensor want;
  {
    ScopedSequential sequential;
    want = RunGraph(m.g, m.w, x);
  }
  ASSERT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}, /*expand_only=*/false), 1);
  const NodeDef* block = Find(m.g, "project");
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->op(), "_FusedDepthwiseBlock");
  EXPECT_EQ(Find(m.g, "dw"), nullptr);
  EXPECT_EQ(Find(m.g, "expand"), nullptr);
  Tensor got;
  {
    ScopedSequential sequential;
    got = RunGraph(m.g, m.w, x);
  }
  ASSERT_TRUE(want.valid() && got.valid());
  ASSERT_EQ(got.shape(), want.shape());
  // The unfused graph's values up to an ulp where tile tails differ. An
  // expanded tensor of more than 128k values is beyond the direct kernel's
  // depthwise bound, and a 1x1 layer of more than 64x64 output pixels
  // beyond its pixel bound unless its channels end in a half block, which
  // only AVX-512 builds have: the unfused layer then runs on oneDNN, which
  // sums in another order (an ulp or so in most values).
  const bool same_kernels =
      h * w * p.e <= 128 * 1024 && batch * h * w <= 64 * 64;
  int64_t differ = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const float a = got.data<float>()[i], b = want.data<float>()[i];
    differ += a != b;
    EXPECT_NEAR(a, b, (same_kernels ? 4e-7f : 4e-6f) * (1 + std::fabs(b))) << i;
  }
  if (same_kernels) EXPECT_LE(differ, want.num_elements() / 100);
  // Stripes on several threads: the sequential Run's bits.
  Tensor threaded;
  oneapi::tbb::task_arena arena(4);
  ExecuteInArena(arena, [&] { threaded = RunGraph(m.g, m.w, x); });
  ASSERT_TRUE(threaded.valid());
  EXPECT_TRUE(threaded.IdenticalTo(got));
}

TEST(FuseDepthwiseBlocksTest, MatchesTheUnfusedChain) {
  for (int64_t k : {3, 5}) {
    for (int64_t stride : {1, 2}) {
      for (const char* padding : {"SAME", "VALID", "EXPLICIT"}) {
        BlockParams p;
        p.k = k;
        p.stride = stride;
        p.padding = padding;
        // A residual only where the shapes allow it.
        p.project =
            stride == 1 && std::string(padding) == "SAME" ? "Add" : "Bias";
        SCOPED_TRACE(testing::Message()
                     << k << "x" << k << " /" << stride << " " << padding);
        // Large enough for bands and stripes (an expanded tensor of more
        // than 128k values; the ring's reuse), a width not a multiple of any
        // tile.
        ExpectFusedMatches(p, 61, 113);
      }
    }
  }
}

TEST(FuseDepthwiseBlocksTest, MatchesEveryStageForm) {
  for (const char* project : {"Add", "Bias", "Relu6", "Plain"}) {
    for (bool expand : {true, false}) {
      for (bool dw_bias : {true, false}) {
        BlockParams p;
        p.project = project;
        p.expand = expand;
        p.dw_bias = dw_bias;
        if (!expand) p.c = p.e;
        if (std::string(project) == "Add") p.co = p.c;
        SCOPED_TRACE(testing::Message() << project << " expand " << expand
                                        << " dw_bias " << dw_bias);
        ExpectFusedMatches(p, 23, 9);
      }
    }
  }
}

// Prelu after every stage: slopes appended in stage order, the unfused
// values in one band (small) and in bands (large).
TEST(FuseDepthwiseBlocksTest, MatchesPreluStages) {
  for (const int64_t w : {9, 113}) {
    BlockParams p;
    p.prelu = true;
    SCOPED_TRACE(testing::Message() << "width " << w);
    ExpectFusedMatches(p, 61, w);
    BlockGraph m(p);
    ASSERT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 1);
    const NodeDef* block = Find(m.g, "project");
    ASSERT_NE(block, nullptr);
    ASSERT_EQ(block->input_size(), 11);
    EXPECT_EQ(block->input(7), "x");  // the residual
    EXPECT_EQ(block->input(8), "ea");
    EXPECT_EQ(block->input(9), "da");
    EXPECT_EQ(block->input(10), "pa");
    EXPECT_EQ(block->attr().at("expand_activation").s(), "Prelu");
    EXPECT_EQ(block->attr().at("project_activation").s(), "Prelu");
  }
}

TEST(FuseDepthwiseBlocksTest, ExpandOnlyLeavesBlocksWithoutExpand) {
  BlockParams p;
  p.expand = false;
  p.c = p.co = p.e;
  BlockGraph m(p);
  EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 0);
  p.expand = true;
  p.c = p.co = 8;
  BlockGraph with(p);
  EXPECT_EQ(FuseDepthwiseBlocks(&with.g, with.w, {}), 1);
}

// Blocks without expand stage: an input of at most 640k values runs as
// one band (the two layers one after the other), a larger one in bands.
TEST(FuseDepthwiseBlocksTest, MatchesWithoutExpandInOneBandAndInBands) {
  BlockParams p;
  p.expand = false;
  p.c = p.co = p.e = 24;
  for (const int64_t hw : {61, 171}) {
    SCOPED_TRACE(testing::Message() << hw << "x" << hw);
    ExpectFusedMatches(p, hw, hw, /*batch=*/1);
  }
}

// The residual addend is the block's input, which nothing else reads: in
// one band the output takes its storage (the first stage has read all of
// it by then), in bands it must not (the project stage would overwrite
// rows the next band reads). Both with the unfused values.
TEST(FuseDepthwiseBlocksTest, MatchesWithTheInputAsOutputStorage) {
  for (const bool expand : {true, false}) {
    BlockParams p;
    p.computed_input = true;
    p.expand = expand;
    if (!expand) p.c = p.co = p.e = 24;
    // Expand: 512 KB of expanded rows in one band; no expand: 2.5 MB of
    // input.
    for (const int64_t hw : {int64_t{expand ? 23 : 61}, int64_t{171}}) {
      SCOPED_TRACE(testing::Message()
                   << "expand " << expand << " " << hw << "x" << hw);
      ExpectFusedMatches(p, hw, hw, /*batch=*/1);
      ExpectFusedMatches(p, hw, hw, /*batch=*/2);
    }
  }
}

// MobileNetV1's layers alternate depthwise and pointwise ones: in dw1 ->
// pw1 -> dw2 -> pw2 the block is pw1 -> dw2 -> pw2, with pw1 as its expand
// stage. One sweep in graph order that also took blocks without expand
// fused dw1 -> pw1 first, and then dw2 -> pw2 without expand (PoseNet lost
// its two expand blocks to five without).
TEST(FuseDepthwiseBlocksTest, PrefersBlocksWithAnExpandStage) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  std::string in = "x";
  for (const std::string i : {"1", "2"}) {
    Weight(&g, &w, "df" + i, Shape({3, 3, 8, 1}), 1);
    NodeDef* dw = Add(&g, "dw" + i, "DepthwiseConv2dNative", {in, "df" + i});
    ConvAttrs(dw);
    Weight(&g, &w, "pf" + i, Shape({1, 1, 8, 8}), 2);
    Weight(&g, &w, "pb" + i, Shape({8}), 3);
    NodeDef* pw =
        Add(&g, "pw" + i, "_FusedConv2D", {"dw" + i, "pf" + i, "pb" + i});
    ConvAttrs(pw);
    for (const char* op : {"BiasAdd", "Relu"}) {
      (*pw->mutable_attr())["fused_ops"].mutable_list()->add_s(op);
    }
    (*pw->mutable_attr())["num_args"].set_i(1);
    in = "pw" + i;
  }
  Add(&g, "out", "Neg", {in});
  const Tensor x = Input(9, 10, 8);
  const Tensor want = RunGraph(g, w, x);
  ASSERT_EQ(FuseDepthwiseBlocks(&g, w, {}, /*expand_only=*/false), 1);
  const NodeDef* block = Find(g, "pw2");
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->op(), "_FusedDepthwiseBlock");
  EXPECT_TRUE(block->attr().at("expand").b());
  EXPECT_EQ(Find(g, "pw1"), nullptr);
  EXPECT_NE(Find(g, "dw1"), nullptr);
  ExpectNearValues(RunGraph(g, w, x), want, 4e-6f);
}

// Two Runs of one fused graph at once, each the node's first: one packs
// the adopted filters (DirectConv::Adopt, under its mutex), the other waits
// for it; both get the values of a Run alone (TSan stage).
TEST(FuseDepthwiseBlocksTest, ConcurrentFirstRunsPackOnce) {
  BlockGraph m({});
  ASSERT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 1);
  const Tensor x = Input(23, 9, 8);
  const Tensor want = RunGraph(m.g, m.w, x);
  ASSERT_TRUE(want.valid());
  auto graph = Graph::Build(m.g, m.w, BuiltinOps(), "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ResourceManager resources;
  Executor exec(graph->get(), &resources, nullptr);
  const Endpoint in = *(*graph)->ResolveTensor("x");
  const Endpoint out = *(*graph)->ResolveTensor("out");
  std::vector<absl::StatusOr<std::vector<Tensor>>> got(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] { got[t] = exec.Run({{in, x}}, {out}); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& r : got) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE((*r)[0].IdenticalTo(want));
  }
}

// One image whose expanded tensor fits one band: the node is a single
// stripe, and its stages split their rows and pixel chunks over the
// arena's threads (the depthwise stage's 32 rows in pieces of 7, the
// expand stage's 1056 pixels in 17 chunks), with the sequential bits.
TEST(FuseDepthwiseBlocksTest, OneStripeSplitsItsStages) {
  BlockParams p;
  p.c = p.co = 32;
  p.e = 120;
  ExpectFusedMatches(p, 32, 33, /*batch=*/1);
}

// A 3x3 layer with Prelu before the depthwise one is no expand stage: the
// block is fused without one and keeps no expand activation. It used to
// keep the 3x3 layer's Prelu, which the kernel then refused (mobilefacenet
// failed to load with GRAPHRT_FUSE_DEPTHWISE_BLOCKS=all).
TEST(FuseDepthwiseBlocksTest, ANonPointwiseProducerIsNoExpandStage) {
  BlockParams p;
  p.expand_k = 3;
  p.prelu = true;
  p.project = "Bias";
  BlockGraph m(p);
  const Tensor x = Input(6, 7, p.c);
  const Tensor want = RunGraph(m.g, m.w, x);
  ASSERT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}, /*expand_only=*/false), 1);
  const NodeDef* block = Find(m.g, "project");
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->op(), "_FusedDepthwiseBlock");
  EXPECT_FALSE(block->attr().at("expand").b());
  EXPECT_EQ(block->attr().at("expand_activation").s(), "");
  EXPECT_NE(Find(m.g, "expand"), nullptr);
  ExpectNearValues(RunGraph(m.g, m.w, x), want, 4e-6f);
}

TEST(FuseDepthwiseBlocksTest, LeavesSharedKeptOrUnsupportedChains) {
  {
    // The depthwise output has a second reader.
    BlockGraph m({});
    Add(&m.g, "other", "Neg", {"dw"});
    EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 0);
  }
  {
    // The expanded tensor has a second reader: fused without expand only.
    BlockGraph m({});
    Add(&m.g, "other", "Neg", {"expand"});
    EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 0);
    EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}, /*expand_only=*/false), 1);
    EXPECT_NE(Find(m.g, "expand"), nullptr);
  }
  {
    BlockGraph m({});
    EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {"dw"}), 0);
  }
  {
    BlockParams p;
    p.k = 7;
    BlockGraph m(p);
    EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 0);
  }
  {
    BlockGraph m({});
    for (NodeDef& n : *m.g.mutable_node()) {
      if (n.name() == "dw") {
        auto& l = *(*n.mutable_attr())["dilations"].mutable_list();
        for (int64_t v : {1, 2, 2, 1}) l.add_i(v);
      }
    }
    EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 0);
  }
  {
    // A 1x1 filter above the direct kernel's bound stays unfused.
    BlockParams p;
    p.e = 1024;
    p.c = p.co = 64;
    BlockGraph m(p);
    EXPECT_EQ(FuseDepthwiseBlocks(&m.g, m.w, {}), 0);
  }
}

TEST(FuseDepthwiseBlocksTest, RunsInOptimizeInferenceGraph) {
  BlockGraph m({});
  const Tensor x = Input(17, 11, 8);
  const Tensor want = RunGraph(m.g, m.w, x);
  const PassStats stats = OptimizeInferenceGraph(&m.g, &m.w, {"x", "out"});
  EXPECT_EQ(stats.depthwise_blocks_fused, 1);
  EXPECT_EQ(CountOp(m.g, "_FusedDepthwiseBlock"), 1);
  const Tensor got = RunGraph(m.g, m.w, x);
  ASSERT_TRUE(got.valid() && want.valid());
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const float b = want.data<float>()[i];
    EXPECT_NEAR(got.data<float>()[i], b, 4e-7f * (1 + std::fabs(b))) << i;
  }
}

}  // namespace
}  // namespace graphrt::passes
