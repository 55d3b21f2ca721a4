// FuseHardSwish, FuseConvActivation and SwapMaxPoolActivation
// (converter/passes/passes.h): what they rewrite, what they leave, and that
// the values stay bit-identical.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "converter/graph.h"
#include "converter/passes/passes.h"
#include "proto/graph.pb.h"
#include "runtime/tensor.h"
#include "tests/converter/passes/pass_test_util.h"

namespace graphrt::passes {
namespace {

using namespace ::graphrt::passes::test_util;  // NOLINT: test helpers

// A float32 scalar Const `name` = v, as a weight.
void ScalarWeight(GraphDef* g, WeightMap* w, const std::string& name, float v) {
  NodeDef* n = Add(g, name, "Const", {});
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  (*w)[name] = Tensor::Scalar<float>(v);
}

// A float32 Const weight of `shape` with values of both signs.
void MixedWeight(GraphDef* g, WeightMap* w, const std::string& name,
                 const Shape& shape) {
  ConstWeight(g, w, name, shape);
  float* v = (*w)[name].mutable_data<float>();
  for (int64_t i = 0; i < (*w)[name].num_elements(); ++i) {
    v[i] = 0.3f * static_cast<float>(i % 5 - 2) + 0.05f;
  }
}

// out = Neg(Mul(Relu6(AddV2(three, h)), Mul(h, sixth))) with h = x / 4
// (so that h spans the hard-swish's bend around [-3, 3]).
struct HardSwishGraph {
  GraphDef g;
  WeightMap w;
  explicit HardSwishGraph(float sixth = 1.0f / 6.0f, float three = 3.0f) {
    Add(&g, "x", "Placeholder", {});
    ScalarWeight(&g, &w, "quarter", 0.25f);
    ScalarWeight(&g, &w, "sixth", sixth);
    ScalarWeight(&g, &w, "three", three);
    Add(&g, "h", "Mul", {"x", "quarter"});
    Add(&g, "scaled", "Mul", {"h", "sixth"});
    Add(&g, "shifted", "AddV2", {"three", "h"});
    Add(&g, "clamped", "Relu6", {"shifted"});
    Add(&g, "hswish", "Mul", {"clamped", "scaled"});
    Add(&g, "out", "Neg", {"hswish"});
  }
};

// Also with 1/6 as TF.js's float16 quantization stores it (0.16662598).
TEST(FuseHardSwishTest, FusesTheKerasPatternBitIdentically) {
  for (float sixth : {1.0f / 6, 0.1666259765625f}) {
    HardSwishGraph m(sixth);
    const Tensor want = RunOnX(m.g, m.w, "out");
    EXPECT_EQ(FuseHardSwish(&m.g, m.w, {}), 1);
    const NodeDef* hs = Find(m.g, "hswish");
    ASSERT_NE(hs, nullptr);
    EXPECT_EQ(hs->op(), "_HardSwish");
    EXPECT_EQ(hs->attr().at("scale").f(), sixth);
    ASSERT_EQ(hs->input_size(), 1);
    EXPECT_EQ(hs->input(0), "h");
    EXPECT_EQ(CountOp(m.g, "Relu6"), 0);
    EXPECT_EQ(CountOp(m.g, "AddV2"), 0);
    EXPECT_EQ(CountOp(m.g, "Mul"), 1);  // h
    const Tensor got = RunOnX(m.g, m.w, "out");
    ASSERT_TRUE(got.valid() && want.valid());
    EXPECT_TRUE(got.IdenticalTo(want));
  }
}

TEST(FuseHardSwishTest, LeavesOtherPatterns) {
  {  // An offset that is not exactly 3.
    HardSwishGraph m(1.0f / 6, 2.9999998f);
    EXPECT_EQ(FuseHardSwish(&m.g, m.w, {}), 0);
  }
  {  // The Relu6 output is read elsewhere too.
    HardSwishGraph m;
    Add(&m.g, "other", "Neg", {"clamped"});
    EXPECT_EQ(FuseHardSwish(&m.g, m.w, {}), 0);
  }
  {  // Mul and Add see different tensors.
    HardSwishGraph m;
    Add(&m.g, "h2", "Neg", {"x"});
    for (NodeDef& n : *m.g.mutable_node()) {
      if (n.name() == "scaled") n.set_input(0, "h2");
    }
    EXPECT_EQ(FuseHardSwish(&m.g, m.w, {}), 0);
  }
  {  // An intermediate node must stay fetchable.
    HardSwishGraph m;
    EXPECT_EQ(FuseHardSwish(&m.g, m.w, {"shifted"}), 0);
  }
}

// x -> _FusedConv2D or FusedDepthwiseConv2dNative [BiasAdd] -> `act` -> Neg
struct BiasedConvGraph {
  GraphDef g;
  WeightMap w;
  BiasedConvGraph(const std::string& act, bool depthwise) {
    Add(&g, "x", "Placeholder", {});
    MixedWeight(&g, &w, "filter",
                depthwise ? Shape({3, 3, 3, 1}) : Shape({1, 1, 3, 4}));
    MixedWeight(&g, &w, "bias", Shape({depthwise ? 3 : 4}));
    NodeDef* conv = Add(
        &g, "conv", depthwise ? "FusedDepthwiseConv2dNative" : "_FusedConv2D",
        {"x", "filter", "bias"});
    ConvAttrs(conv);
    (*conv->mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
    (*conv->mutable_attr())["num_args"].set_i(1);
    NodeDef* a = Add(&g, "act", act, {"conv"});
    if (act == "LeakyRelu") (*a->mutable_attr())["alpha"].set_f(0.125f);
    if (act == "_HardSwish") (*a->mutable_attr())["scale"].set_f(0.15f);
    Add(&g, "out", "Neg", {"act"});
  }
};

TEST(FuseConvActivationTest, TakesTheActivationIntoTheConvolution) {
  for (bool depthwise : {false, true}) {
    for (const char* act : {"LeakyRelu", "_HardSwish", "Relu6", "Relu"}) {
      SCOPED_TRACE(std::string(act) + (depthwise ? " depthwise" : ""));
      BiasedConvGraph m(act, depthwise);
      const Tensor want = RunOnX(m.g, m.w, "out");
      EXPECT_EQ(FuseConvActivation(&m.g, {}), 1);
      EXPECT_EQ(Find(m.g, "conv"), nullptr);
      const NodeDef* fused = Find(m.g, "act");
      ASSERT_NE(fused, nullptr);
      EXPECT_EQ(fused->op(),
                depthwise ? "FusedDepthwiseConv2dNative" : "_FusedConv2D");
      EXPECT_EQ(FusedOps(*fused), (std::vector<std::string>{"BiasAdd", act}));
      if (std::string(act) == "LeakyRelu") {
        EXPECT_EQ(fused->attr().at("leakyrelu_alpha").f(), 0.125f);
      }
      if (std::string(act) == "_HardSwish") {
        EXPECT_EQ(fused->attr().at("hardswish_scale").f(), 0.15f);
      }
      const Tensor got = RunOnX(m.g, m.w, "out");
      ASSERT_TRUE(got.valid() && want.valid());
      EXPECT_TRUE(got.IdenticalTo(want));
    }
  }
}

TEST(FuseConvActivationTest, LeavesSharedOrKeptOrAlreadyFusedConvs) {
  {
    BiasedConvGraph m("Relu", false);
    Add(&m.g, "other", "Neg", {"conv"});
    EXPECT_EQ(FuseConvActivation(&m.g, {}), 0);
  }
  {
    BiasedConvGraph m("Relu", false);
    EXPECT_EQ(FuseConvActivation(&m.g, {"conv"}), 0);
  }
  {
    BiasedConvGraph m("Relu", false);
    for (NodeDef& n : *m.g.mutable_node()) {
      if (n.name() == "conv") {
        (*n.mutable_attr())["fused_ops"].mutable_list()->add_s("Relu");
      }
    }
    EXPECT_EQ(FuseConvActivation(&m.g, {}), 0);
  }
  // Not an activation, or one whose bits would depend on the row length.
  for (const char* op : {"Neg", "Sigmoid", "Tanh", "Elu"}) {
    BiasedConvGraph m(op, false);
    EXPECT_EQ(FuseConvActivation(&m.g, {}), 0) << op;
  }
}

// Regression: the pass indexed nodes by views of their names and then
// replaced the activation node, freeing the name the index still pointed
// to; looking up "act" for the later Relu read freed memory (ASan).
TEST(FuseConvActivationTest, LooksUpNodesItAlreadyReplaced) {
  BiasedConvGraph m("Relu6", false);
  Add(&m.g, "act2", "Relu", {"act"});
  for (NodeDef& n : *m.g.mutable_node()) {
    if (n.name() == "out") n.set_input(0, "act2");
  }
  const Tensor want = RunOnX(m.g, m.w, "out");
  EXPECT_EQ(FuseConvActivation(&m.g, {}), 1);
  const NodeDef* fused = Find(m.g, "act");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(FusedOps(*fused), (std::vector<std::string>{"BiasAdd", "Relu6"}));
  EXPECT_EQ(Find(m.g, "act2")->op(), "Relu");
  const Tensor got = RunOnX(m.g, m.w, "out");
  ASSERT_TRUE(got.valid() && want.valid());
  EXPECT_TRUE(got.IdenticalTo(want));
}

// Conv2D + bias, then the hard-swish pattern on its output: the whole chain
// becomes one _FusedConv2D [BiasAdd, _HardSwish] with the same values.
TEST(FuseConvActivationTest, ChainsWithFuseHardSwishInOptimizeInferenceGraph) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  MixedWeight(&g, &w, "filter", Shape({1, 1, 3, 4}));
  MixedWeight(&g, &w, "bias", Shape({4}));
  ScalarWeight(&g, &w, "sixth", 1.0f / 6.0f);
  ScalarWeight(&g, &w, "three", 3.0f);
  ConvAttrs(Add(&g, "conv", "Conv2D", {"x", "filter"}));
  Add(&g, "biased", "BiasAdd", {"conv", "bias"});
  Add(&g, "scaled", "Mul", {"sixth", "biased"});
  Add(&g, "shifted", "Add", {"biased", "three"});
  Add(&g, "clamped", "Relu6", {"shifted"});
  Add(&g, "hswish", "Mul", {"scaled", "clamped"});
  Add(&g, "out", "Neg", {"hswish"});
  const Tensor want = RunOnX(g, w, "out");
  const PassStats stats = OptimizeInferenceGraph(&g, &w, {});
  EXPECT_EQ(stats.convs_fused, 1);
  EXPECT_EQ(stats.hard_swishes_fused, 1);
  EXPECT_EQ(stats.adds_fused, 0);
  EXPECT_EQ(stats.conv_activations_fused, 1);
  const NodeDef* fused = Find(g, "hswish");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), "_FusedConv2D");
  EXPECT_EQ(FusedOps(*fused),
            (std::vector<std::string>{"BiasAdd", "_HardSwish"}));
  for (const char* op : {"Conv2D", "BiasAdd", "Mul", "Add", "Relu6"}) {
    EXPECT_EQ(CountOp(g, op), 0) << op;
  }
  const Tensor got = RunOnX(g, w, "out");
  ASSERT_TRUE(got.valid() && want.valid());
  EXPECT_TRUE(got.IdenticalTo(want));
}

// x -> _FusedConv2D [BiasAdd] -> MaxPool `pool_op` 2x2 / 1 (SAME) -> `act`
// -> Neg (Keras' Conv2D -> MaxPooling2D -> Activation, as in antispoof).
struct PooledConvGraph {
  GraphDef g;
  WeightMap w;
  explicit PooledConvGraph(const std::string& act,
                           const std::string& pool_op = "MaxPool") {
    Add(&g, "x", "Placeholder", {});
    MixedWeight(&g, &w, "filter", Shape({1, 1, 3, 4}));
    MixedWeight(&g, &w, "bias", Shape({4}));
    NodeDef* conv = Add(&g, "conv", "_FusedConv2D", {"x", "filter", "bias"});
    ConvAttrs(conv);
    (*conv->mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
    (*conv->mutable_attr())["num_args"].set_i(1);
    NodeDef* pool = Add(&g, "pool", pool_op, {"conv"});
    auto& a = *pool->mutable_attr();
    for (int k : {1, 2, 2, 1}) a["ksize"].mutable_list()->add_i(k);
    for (int i = 0; i < 4; ++i) a["strides"].mutable_list()->add_i(1);
    a["padding"].set_s("SAME");
    Add(&g, "act", act, {"pool"});
    Add(&g, "out", "Neg", {"act"});
  }
};

TEST(SwapMaxPoolActivationTest, MovesTheActivationBeforeThePool) {
  for (const char* act : {"Relu", "Relu6"}) {
    SCOPED_TRACE(act);
    PooledConvGraph m(act);
    const Tensor want = RunOnX(m.g, m.w, "out");
    EXPECT_EQ(SwapMaxPoolActivation(&m.g, {}), 1);
    const NodeDef* pool = Find(m.g, "act");
    const NodeDef* relu = Find(m.g, "pool");
    ASSERT_NE(pool, nullptr);
    ASSERT_NE(relu, nullptr);
    EXPECT_EQ(pool->op(), "MaxPool");
    EXPECT_EQ(pool->input(0), "pool");
    EXPECT_EQ(pool->attr().at("padding").s(), "SAME");
    EXPECT_EQ(relu->op(), act);
    EXPECT_EQ(relu->input(0), "conv");
    EXPECT_EQ(relu->attr().count("ksize"), 0);
    const Tensor got = RunOnX(m.g, m.w, "out");
    ASSERT_TRUE(got.valid() && want.valid());
    EXPECT_TRUE(got.IdenticalTo(want));
  }
}

TEST(SwapMaxPoolActivationTest, LeavesOtherPoolsAndSharedOrKeptPools) {
  {  // An average of activated values is not the activated average.
    PooledConvGraph m("Relu", "AvgPool");
    EXPECT_EQ(SwapMaxPoolActivation(&m.g, {}), 0);
  }
  {  // Not an activation that commutes with max.
    PooledConvGraph m("Neg");
    EXPECT_EQ(SwapMaxPoolActivation(&m.g, {}), 0);
  }
  {
    PooledConvGraph m("Relu");
    Add(&m.g, "other", "Neg", {"pool"});
    EXPECT_EQ(SwapMaxPoolActivation(&m.g, {}), 0);
  }
  {
    PooledConvGraph m("Relu");
    EXPECT_EQ(SwapMaxPoolActivation(&m.g, {"pool"}), 0);
  }
}

// In OptimizeInferenceGraph the swapped Relu then goes into the conv.
TEST(SwapMaxPoolActivationTest, LetsTheConvTakeTheActivation) {
  PooledConvGraph m("Relu");
  const Tensor want = RunOnX(m.g, m.w, "out");
  const PassStats stats = OptimizeInferenceGraph(&m.g, &m.w, {});
  EXPECT_EQ(stats.pool_activations_swapped, 1);
  EXPECT_EQ(stats.conv_activations_fused, 1);
  EXPECT_EQ(CountOp(m.g, "Relu"), 0);
  const NodeDef* fused = Find(m.g, "pool");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op(), "_FusedConv2D");
  EXPECT_EQ(FusedOps(*fused), (std::vector<std::string>{"BiasAdd", "Relu"}));
  const Tensor got = RunOnX(m.g, m.w, "out");
  ASSERT_TRUE(got.valid() && want.valid());
  EXPECT_TRUE(got.IdenticalTo(want));
}

}  // namespace
}  // namespace graphrt::passes
