#include "converter/passes/passes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "converter/graph.h"
#include "converter/passes/pass_util.h"
#include "proto/graph.pb.h"
#include "runtime/tensor.h"
#include "tests/converter/passes/pass_test_util.h"

namespace graphrt::passes {
namespace {

using namespace ::graphrt::passes::test_util;  // NOLINT: test helpers

// x -> Conv2D(filter [1,1,3,4]) -> Add(bias [4]) -> Relu6 -> out
struct ConvChain {
  GraphDef g;
  WeightMap w;
  explicit ConvChain(const std::string& add_op = "AddV2",
                     const Shape& bias = Shape({4}), bool depthwise = false) {
    Add(&g, "x", "Placeholder", {});
    ConstWeight(&g, &w, "filter",
                depthwise ? Shape({3, 3, 2, 2}) : Shape({1, 1, 3, 4}));
    ConstWeight(&g, &w, "bias", bias);
    ConvAttrs(Add(&g, "conv", depthwise ? "DepthwiseConv2dNative" : "Conv2D",
                  {"x", "filter"}));
    if (add_op == "AddV2-swapped") {
      Add(&g, "add", "AddV2", {"bias", "conv"});
    } else {
      Add(&g, "add", add_op, {"conv:0", "bias"});
    }
    Add(&g, "relu", "Relu6", {"add"});
    Add(&g, "out", "Neg", {"relu"});
  }
};

// OptimizeInferenceGraph's gate: an edge from a producer op to a consumer
// op (data inputs only; with first_input_only, input 0 only).
TEST(HasEdgeTest, FindsProducerToConsumerEdges) {
  GraphDef g;
  Add(&g, "x", "Placeholder", {});
  Add(&g, "pad", "Pad", {"x"});
  Add(&g, "conv", "Conv2D", {"x", "pad"});
  Add(&g, "relu", "Relu", {"conv:0", "^pad"});
  EXPECT_TRUE(HasEdge(g, {"Conv2D"}, {"Relu"}));
  EXPECT_TRUE(HasEdge(g, {"Pad", "Mul"}, {"Conv2D"}));
  EXPECT_FALSE(HasEdge(g, {"Pad"}, {"Conv2D"}, /*first_input_only=*/true));
  EXPECT_FALSE(HasEdge(g, {"Pad"}, {"Relu"}));  // a control input
  EXPECT_FALSE(HasEdge(g, {"Relu"}, {"Conv2D"}));
  EXPECT_FALSE(HasEdge(g, {"Mul"}, {"Relu"}));
}

// The pass only looks at the graph when an Identity it may remove is read.
TEST(RemoveIdentitiesTest, RemovesReadIdentitiesOnly) {
  GraphDef g;
  Add(&g, "x", "Placeholder", {});
  Add(&g, "id", "Identity", {"x"});
  Add(&g, "neg", "Neg", {"id"});
  Add(&g, "out", "Identity", {"neg"});         // a sink: stays
  EXPECT_EQ(RemoveIdentities(&g, {"id"}), 0);  // kept
  EXPECT_EQ(RemoveIdentities(&g, {}), 1);
  EXPECT_EQ(Find(g, "id"), nullptr);
  ASSERT_NE(Find(g, "neg"), nullptr);
  EXPECT_EQ(Find(g, "neg")->input(0), "x");
  EXPECT_NE(Find(g, "out"), nullptr);
  EXPECT_EQ(RemoveIdentities(&g, {}), 0);
}

TEST(FuseConvBiasActivationTest, FusesConvAddRelu6) {
  for (const std::string op : {"AddV2", "Add", "BiasAdd", "AddV2-swapped"}) {
    ConvChain c(op);
    EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {}), 1) << op;
    EXPECT_EQ(Find(c.g, "conv"), nullptr);
    EXPECT_EQ(Find(c.g, "add"), nullptr);
    const NodeDef* f = Find(c.g, "relu");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->op(), "_FusedConv2D");
    ASSERT_EQ(f->input_size(), 3);
    EXPECT_EQ(f->input(0), "x");
    EXPECT_EQ(f->input(1), "filter");
    EXPECT_EQ(f->input(2), "bias");
    EXPECT_EQ(FusedOps(*f), (std::vector<std::string>{"BiasAdd", "Relu6"}));
    EXPECT_EQ(f->attr().at("num_args").i(), 1);
    EXPECT_EQ(f->attr().at("padding").s(), "SAME");
    // The rewritten graph builds (kernels accept the fused attrs).
    auto built = Graph::Build(c.g, c.w, BuiltinOps(), "test");
    EXPECT_TRUE(built.ok()) << built.status();
  }
}

TEST(FuseConvBiasActivationTest, FusesDepthwise) {
  ConvChain c("AddV2", Shape({4}), /*depthwise=*/true);
  EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {}), 1);
  const NodeDef* f = Find(c.g, "relu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->op(), "FusedDepthwiseConv2dNative");
  EXPECT_TRUE(Graph::Build(c.g, c.w, BuiltinOps(), "test").ok());
}

TEST(FuseConvBiasActivationTest, LeavesNonMatchingChains) {
  {
    ConvChain c("AddV2", Shape({1}));  // broadcast bias, not [out_channels]
    EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {}), 0);
    EXPECT_NE(Find(c.g, "conv"), nullptr);
  }
  {
    ConvChain c;
    Add(&c.g, "other", "Neg", {"conv"});  // conv has two consumers
    EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {}), 0);
  }
  {
    ConvChain c;
    Add(&c.g, "after", "NoOp", {"^conv"});  // control edge on conv
    EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {}), 0);
  }
  {
    ConvChain c;
    (*c.g.mutable_node(3)->mutable_attr())["data_format"].set_s("NCHW");
    EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {}), 0);
  }
  {
    ConvChain c;  // a non-constant bias
    c.g.mutable_node(4)->set_input(1, "x");
    EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {}), 0);
  }
  {
    ConvChain c;
    EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {"conv"}), 0);
  }
}

TEST(FuseConvBiasActivationTest, KeptBiasNodeStopsBeforeActivation) {
  ConvChain c;
  Add(&c.g, "gate", "NoOp", {});
  c.g.mutable_node(3)->add_input("^gate");  // control input on conv moves
  EXPECT_EQ(FuseConvBiasActivation(&c.g, c.w, {"add"}), 1);
  const NodeDef* f = Find(c.g, "add");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FusedOps(*f), (std::vector<std::string>{"BiasAdd"}));
  ASSERT_EQ(f->input_size(), 4);
  EXPECT_EQ(f->input(3), "^gate");
  ASSERT_NE(Find(c.g, "relu"), nullptr);
  EXPECT_EQ(Find(c.g, "relu")->op(), "Relu6");
}

// x -> Conv2D -> {Relu, Abs, Sub} ; Add(Relu(conv), Mul(Sub(conv,
// Abs(conv)), alpha)) -> out: the PReLU spelling FuseAbsPrelu looks for.
struct PreluChain {
  GraphDef g;
  WeightMap w;
  explicit PreluChain(bool relu = true, bool swapped = false,
                      const Shape& alpha = Shape({4})) {
    Add(&g, "x", "Placeholder", {});
    ConstWeight(&g, &w, "filter", Shape({1, 1, 3, 4}));
    ConstWeight(&g, &w, "alpha", alpha);
    ConvAttrs(Add(&g, "conv", "Conv2D", {"x", "filter"}));
    if (relu) Add(&g, "relu", "Relu", {"conv"});
    Add(&g, "abs", "Abs", {"conv"});
    Add(&g, "sub", "Sub", {"conv", "abs"});
    if (swapped) {
      Add(&g, "mul", "Mul", {"alpha", "sub"});
      Add(&g, "add", "Add", {"mul", relu ? "relu" : "conv"});
    } else {
      Add(&g, "mul", "Mul", {"sub", "alpha"});
      Add(&g, "add", "AddV2", {relu ? "relu" : "conv", "mul"});
    }
    Add(&g, "out", "Neg", {"add"});
  }
};

TEST(FuseAbsPreluTest, FusesBothSpellingsAndOperandOrders) {
  for (bool relu : {true, false}) {
    for (bool swapped : {false, true}) {
      PreluChain c(relu, swapped);
      EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {}), 1) << relu << swapped;
      for (const char* gone : {"relu", "abs", "sub", "mul"}) {
        EXPECT_EQ(Find(c.g, gone), nullptr) << gone;
      }
      const NodeDef* f = Find(c.g, "add");
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(f->op(), "_AbsPrelu");
      ASSERT_EQ(f->input_size(), 2);
      EXPECT_EQ(f->input(0), "conv");
      EXPECT_EQ(f->input(1), "alpha");
      EXPECT_EQ(f->attr().at("relu").b(), relu);
      EXPECT_EQ(Find(c.g, "out")->input(0), "add");
      auto built = Graph::Build(c.g, c.w, BuiltinOps(), "test");
      EXPECT_TRUE(built.ok()) << built.status();
    }
  }
  PreluChain scalar(true, false, Shape({}));
  EXPECT_EQ(FuseAbsPrelu(&scalar.g, scalar.w, {}), 1);
  PreluChain ones(true, false, Shape({1, 1, 4}));
  EXPECT_EQ(FuseAbsPrelu(&ones.g, ones.w, {}), 1);
}

TEST(FuseAbsPreluTest, LeavesNonMatchingGraphs) {
  {
    PreluChain c(true, false, Shape({2, 4}));  // alpha varies along dim 0
    EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {}), 0);
  }
  {
    PreluChain c;
    Add(&c.g, "other", "Neg", {"abs"});  // Abs has a second consumer
    EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {}), 0);
  }
  {
    PreluChain c;
    Add(&c.g, "after", "NoOp", {"^mul"});  // control edge on Mul
    EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {}), 0);
  }
  {
    PreluChain c;  // a non-constant alpha
    for (NodeDef& n : *c.g.mutable_node()) {
      if (n.name() == "mul") n.set_input(1, "x");
    }
    EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {}), 0);
  }
  {
    PreluChain c;  // Abs of another tensor than the one subtracted from
    for (NodeDef& n : *c.g.mutable_node()) {
      if (n.name() == "abs") n.set_input(0, "x");
    }
    EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {}), 0);
  }
  {
    PreluChain c;  // x's rank is unknown: not a conv / batch norm output
    for (NodeDef& n : *c.g.mutable_node()) {
      if (n.name() == "conv") n.set_op("Neg");
    }
    EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {}), 0);
  }
  {
    PreluChain c;
    EXPECT_EQ(FuseAbsPrelu(&c.g, c.w, {"sub"}), 0);  // a kept node
  }
}

// x -> Pad(paddings) -> conv (VALID) -> out
struct PadConv {
  GraphDef g;
  WeightMap w;
  PadConv(const std::string& conv_op, std::vector<int32_t> paddings,
          const std::string& conv_padding = "VALID") {
    Add(&g, "x", "Placeholder", {});
    NodeDef* p = Add(&g, "paddings", "Const", {});
    (*p->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    Tensor t = *Tensor::Allocate(DType::kInt32, Shape({4, 2}));
    for (int i = 0; i < 8; ++i) t.mutable_span<int32_t>()[i] = paddings[i];
    w["paddings"] = t;
    Add(&g, "pad", "Pad", {"x", "paddings"});
    const bool depthwise = absl::StrContains(conv_op, "Depthwise");
    ConstWeight(&g, &w, "filter",
                depthwise ? Shape({3, 3, 2, 1}) : Shape({3, 3, 2, 4}));
    NodeDef* conv = Add(&g, "conv", conv_op, {"pad", "filter"});
    ConvAttrs(conv);
    auto& a = *conv->mutable_attr();
    a["padding"].set_s(conv_padding);
    a["explicit_paddings"].mutable_list();  // empty, as TF.js writes it
    Add(&g, "out", "Neg", {"conv"});
  }
};

TEST(FoldPadIntoConvTest, FoldsSpatialZeroPad) {
  for (const std::string op : {"Conv2D", "DepthwiseConv2dNative"}) {
    PadConv c(op, {0, 0, 0, 1, 1, 2, 0, 0});
    EXPECT_EQ(FoldPadIntoConv(&c.g, c.w, {}), 1) << op;
    EXPECT_EQ(Find(c.g, "pad"), nullptr);
    const NodeDef* conv = Find(c.g, "conv");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->input(0), "x");
    EXPECT_EQ(conv->attr().at("padding").s(), "EXPLICIT");
    std::vector<int64_t> pads;
    for (int64_t v : conv->attr().at("explicit_paddings").list().i()) {
      pads.push_back(v);
    }
    EXPECT_EQ(pads, (std::vector<int64_t>{0, 0, 0, 1, 1, 2, 0, 0}));
    auto built = Graph::Build(c.g, c.w, BuiltinOps(), "test");
    EXPECT_TRUE(built.ok()) << built.status();
  }
}

TEST(FoldPadIntoConvTest, LeavesOtherPads) {
  // Channel padding, batch padding, a SAME convolution, a kept Pad, and a
  // Pad with a second consumer stay as they are.
  {
    PadConv c("Conv2D", {0, 0, 1, 1, 1, 1, 0, 2});
    EXPECT_EQ(FoldPadIntoConv(&c.g, c.w, {}), 0);
  }
  {
    PadConv c("Conv2D", {1, 0, 1, 1, 1, 1, 0, 0});
    EXPECT_EQ(FoldPadIntoConv(&c.g, c.w, {}), 0);
  }
  {
    PadConv c("Conv2D", {0, 0, 1, 1, 1, 1, 0, 0}, "SAME");
    EXPECT_EQ(FoldPadIntoConv(&c.g, c.w, {}), 0);
  }
  {
    PadConv c("Conv2D", {0, 0, 1, 1, 1, 1, 0, 0});
    EXPECT_EQ(FoldPadIntoConv(&c.g, c.w, {"pad"}), 0);
  }
  {
    PadConv c("Conv2D", {0, 0, 1, 1, 1, 1, 0, 0});
    Add(&c.g, "other", "Neg", {"pad"});
    EXPECT_EQ(FoldPadIntoConv(&c.g, c.w, {}), 0);
    EXPECT_NE(Find(c.g, "pad"), nullptr);
  }
}

TEST(FuseAddActivationTest, FusesAddRelu) {
  for (const std::string act : {"Relu", "Relu6"}) {
    GraphDef g;
    Add(&g, "x", "Placeholder", {});
    Add(&g, "y", "Placeholder", {});
    Add(&g, "c", "NoOp", {});
    Add(&g, "add", "AddV2", {"x", "y:0", "^c"});
    Add(&g, "act", act, {"add"});
    Add(&g, "out", "Neg", {"act"});
    EXPECT_EQ(FuseAddActivation(&g, {}), 1) << act;
    EXPECT_EQ(Find(g, "add"), nullptr);
    const NodeDef* f = Find(g, "act");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->op(), "AddV2");
    ASSERT_EQ(f->input_size(), 3);
    EXPECT_EQ(f->input(0), "x");
    EXPECT_EQ(f->input(1), "y:0");
    EXPECT_EQ(f->input(2), "^c");
    EXPECT_EQ(f->attr().at("_fused_activation").s(), act);
    auto built = Graph::Build(g, {}, BuiltinOps(), "test");
    EXPECT_TRUE(built.ok()) << built.status();
  }
}

TEST(FuseAddActivationTest, LeavesOtherAdds) {
  // Two consumers, a kept Add, a non-float Add, a Relu on output 1 (none),
  // and an Add followed by Tanh stay.
  auto chain = [](GraphDef* g, const std::string& act) {
    Add(g, "x", "Placeholder", {});
    Add(g, "add", "AddV2", {"x", "x"});
    Add(g, "act", act, {"add"});
  };
  {
    GraphDef g;
    chain(&g, "Relu");
    Add(&g, "other", "Neg", {"add"});
    EXPECT_EQ(FuseAddActivation(&g, {}), 0);
  }
  {
    GraphDef g;
    chain(&g, "Relu");
    EXPECT_EQ(FuseAddActivation(&g, {"add"}), 0);
  }
  {
    GraphDef g;
    chain(&g, "Relu");
    (*g.mutable_node(1)->mutable_attr())["T"].set_type(tensorflow::DT_INT32);
    EXPECT_EQ(FuseAddActivation(&g, {}), 0);
  }
  {
    GraphDef g;
    chain(&g, "Tanh");
    EXPECT_EQ(FuseAddActivation(&g, {}), 0);
  }
}

// x -> _FusedConv2D[BiasAdd](x, filter, bias) -> AddV2(conv, r) (with
// FuseAddActivation's _fused_activation when `act` is set) -> out.
struct ResidualChain {
  GraphDef g;
  WeightMap w;
  explicit ResidualChain(const std::string& act, bool conv_first = true) {
    Add(&g, "x", "Placeholder", {});
    Add(&g, "r", "Neg", {"x"});
    ConstWeight(&g, &w, "filter", Shape({1, 1, 4, 4}));
    ConstWeight(&g, &w, "bias", Shape({4}));
    NodeDef* conv = Add(&g, "conv", "_FusedConv2D", {"x", "filter", "bias"});
    ConvAttrs(conv);
    (*conv->mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
    (*conv->mutable_attr())["num_args"].set_i(1);
    NodeDef* add = Add(&g, "add", "AddV2",
                       conv_first ? std::vector<std::string>{"conv", "r"}
                                  : std::vector<std::string>{"r", "conv:0"});
    if (!act.empty()) (*add->mutable_attr())["_fused_activation"].set_s(act);
    Add(&g, "out", "Neg", {"add"});
  }
};

TEST(FuseConvAddTest, FusesTheResidualAddIntoTheConv) {
  for (const std::string act : {"", "Relu", "Relu6"}) {
    for (bool conv_first : {true, false}) {
      ResidualChain c(act, conv_first);
      EXPECT_EQ(FuseConvAdd(&c.g, {}), 1) << act;
      EXPECT_EQ(Find(c.g, "conv"), nullptr);
      const NodeDef* f = Find(c.g, "add");
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(f->op(), "_FusedConv2D");
      ASSERT_EQ(f->input_size(), 4);
      EXPECT_EQ(f->input(0), "x");
      EXPECT_EQ(f->input(1), "filter");
      EXPECT_EQ(f->input(2), "bias");
      EXPECT_EQ(f->input(3), "r");
      std::vector<std::string> want = {"BiasAdd", "Add"};
      if (!act.empty()) want.push_back(act);
      EXPECT_EQ(FusedOps(*f), want);
      EXPECT_EQ(f->attr().at("num_args").i(), 2);
      EXPECT_FALSE(f->attr().contains("_fused_activation"));
      auto built = Graph::Build(c.g, c.w, BuiltinOps(), "test");
      EXPECT_TRUE(built.ok()) << built.status();
    }
  }
}

TEST(FuseConvAddTest, LeavesOtherAdds) {
  {  // The conv has a second consumer.
    ResidualChain c("Relu");
    Add(&c.g, "other", "Neg", {"conv"});
    EXPECT_EQ(FuseConvAdd(&c.g, {}), 0);
  }
  {  // The conv must stay fetchable.
    ResidualChain c("Relu");
    EXPECT_EQ(FuseConvAdd(&c.g, {"conv"}), 0);
  }
  {  // The conv already has an activation.
    ResidualChain c("");
    (*c.g.mutable_node(4)->mutable_attr())["fused_ops"].mutable_list()->add_s(
        "Relu");
    EXPECT_EQ(FuseConvAdd(&c.g, {}), 0);
  }
  {  // An activation the fused kernel does not take.
    ResidualChain c("Tanh");
    EXPECT_EQ(FuseConvAdd(&c.g, {}), 0);
  }
  {  // Not float32.
    ResidualChain c("");
    (*c.g.mutable_node(5)->mutable_attr())["T"].set_type(tensorflow::DT_HALF);
    EXPECT_EQ(FuseConvAdd(&c.g, {}), 0);
  }
}

// The whole pipeline: Conv2D + BiasAdd becomes a _FusedConv2D that the
// later FuseConvAdd then takes (the graph had no _FusedConv2D before: the
// pipeline's op scan must not skip it); a graph without the anchor ops of
// a pass goes through unchanged.
TEST(OptimizeInferenceGraphTest, ChainsPassesAndSkipsUnmatchable) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  Add(&g, "r", "Neg", {"x"});
  ConstWeight(&g, &w, "filter", Shape({1, 1, 4, 4}));
  ConstWeight(&g, &w, "bias", Shape({4}));
  ConvAttrs(Add(&g, "conv", "Conv2D", {"x", "filter"}));
  Add(&g, "biased", "BiasAdd", {"conv", "bias"});
  Add(&g, "add", "AddV2", {"biased", "r"});
  Add(&g, "relu", "Relu", {"add"});
  Add(&g, "out", "Neg", {"relu"});
  PassStats stats = OptimizeInferenceGraph(&g, &w, {"x", "out"});
  EXPECT_EQ(stats.convs_fused, 1);
  EXPECT_EQ(stats.adds_fused, 1);
  EXPECT_EQ(stats.conv_adds_fused, 1);
  const NodeDef* f = Find(g, "relu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->op(), "_FusedConv2D");
  EXPECT_EQ(FusedOps(*f), (std::vector<std::string>{"BiasAdd", "Add", "Relu"}));
  EXPECT_TRUE(Graph::Build(g, w, BuiltinOps(), "test").ok());

  GraphDef plain;
  Add(&plain, "x", "Placeholder", {});
  Add(&plain, "y", "Neg", {"x"});
  const std::string before = plain.SerializeAsString();
  WeightMap no_weights;
  stats = OptimizeInferenceGraph(&plain, &no_weights, {"x", "y"});
  EXPECT_EQ(plain.SerializeAsString(), before);
  EXPECT_EQ(stats.identities_removed + stats.convs_fused + stats.adds_fused +
                stats.conv_adds_fused + stats.pads_folded +
                stats.abs_prelus_fused,
            0);
}

// The ONNX-converted pattern (nanodet): x (NHWC) -> Transpose to NCHW ->
// LeakyRelu -> Pad of H and W (NCHW paddings) -> Transpose to NHWC -> out
// (a Mul: not layout-free unary, so the last Transpose stays above it).
struct OnnxWrapped {
  GraphDef g;
  WeightMap w;
  OnnxWrapped() {
    Add(&g, "x", "Placeholder", {});
    IntWeight(&g, &w, "to_nchw", {0, 3, 1, 2});
    IntWeight(&g, &w, "to_nhwc", {0, 2, 3, 1});
    IntWeight(&g, &w, "paddings", {0, 0, 0, 0, 1, 2, 0, 1}, true);
    Add(&g, "t1", "Transpose", {"x", "to_nchw"});
    (*Add(&g, "leaky", "LeakyRelu", {"t1"})->mutable_attr())["alpha"].set_f(
        0.1f);
    Add(&g, "pad", "Pad", {"leaky", "paddings"});
    Add(&g, "t2", "Transpose", {"pad", "to_nhwc"});
    Add(&g, "out", "Mul", {"t2", "t2"});
  }
};

TEST(SinkTransposesTest, CancelsTheWrappingAroundLeakyReluAndPad) {
  OnnxWrapped m;
  const Tensor want = RunOnX(m.g, m.w, "out");
  // t1 moves below leaky, then below pad, then cancels against t2.
  EXPECT_EQ(SinkTransposes(&m.g, m.w, {}), 3);
  EXPECT_EQ(CountOp(m.g, "Transpose"), 0);
  const NodeDef* t2 = Find(m.g, "t2");
  ASSERT_NE(t2, nullptr);
  EXPECT_EQ(t2->op(), "Identity");
  const NodeDef* pad = Find(m.g, NodeNameOf(t2->input(0)));
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->op(), "Pad");
  const Tensor got = RunOnX(m.g, m.w, "out");
  ASSERT_TRUE(got.valid() && want.valid());
  EXPECT_EQ(got.shape(), Shape({1, 7, 6, 3}));
  EXPECT_TRUE(got.IdenticalTo(want));
}

TEST(SinkTransposesTest, ThenThePadFoldsIntoTheConvolution) {
  OnnxWrapped m;
  // out = Conv2D(t2) instead of Neg: the whole chain ends as
  // Conv2D(EXPLICIT padding)(LeakyRelu(x)).
  for (NodeDef& n : *m.g.mutable_node()) {
    if (n.name() == "out") {
      n.set_op("Conv2D");
      n.set_input(1, "filter");
      ConvAttrs(&n);
      (*n.mutable_attr())["padding"].set_s("VALID");
    }
  }
  ConstWeight(&m.g, &m.w, "filter", Shape({1, 1, 3, 2}));
  const Tensor want = RunOnX(m.g, m.w, "out");
  const PassStats stats = OptimizeInferenceGraph(&m.g, &m.w, {});
  EXPECT_EQ(stats.transposes_sunk, 3);
  EXPECT_EQ(stats.pads_folded, 1);
  EXPECT_EQ(CountOp(m.g, "Transpose"), 0);
  EXPECT_EQ(CountOp(m.g, "Pad"), 0);
  EXPECT_EQ(CountOp(m.g, "Identity"), 0);
  const Tensor got = RunOnX(m.g, m.w, "out");
  ASSERT_TRUE(got.valid() && want.valid());
  EXPECT_TRUE(got.IdenticalTo(want));
}

// ShuffleNet blocks as nanodet's ONNX export has them: two NCHW branches
// (x and y transposed from NHWC, each through an activation) joined on the
// channel axis, one of them also padded on its own. Every Transpose goes:
// the shared one is split per reader, the ConcatV2 takes its inputs'
// transposes below itself, and each path then cancels.
TEST(SinkTransposesTest, SplitsSharedTransposesAndSinksThroughConcat) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  Add(&g, "y", "Placeholder", {});
  IntWeight(&g, &w, "to_nchw", {0, 3, 1, 2});
  IntWeight(&g, &w, "to_nhwc", {0, 2, 3, 1});
  IntWeight(&g, &w, "channels", {1});
  w["channels"] = Tensor::Scalar<int32_t>(1);
  IntWeight(&g, &w, "paddings", {0, 0, 0, 0, 1, 1, 2, 0}, true);
  Add(&g, "ta", "Transpose", {"x", "to_nchw"});
  Add(&g, "tb", "Transpose", {"y", "to_nchw"});
  Add(&g, "la", "LeakyRelu", {"ta"});
  Add(&g, "lb", "Relu", {"tb"});
  NodeDef* cat = Add(&g, "cat", "ConcatV2", {"la", "lb", "channels"});
  (*cat->mutable_attr())["N"].set_i(2);
  (*cat->mutable_attr())["Tidx"].set_type(tensorflow::DT_INT32);
  Add(&g, "cat_pad", "Pad", {"cat", "paddings"});
  Add(&g, "cat_nhwc", "Transpose", {"cat_pad", "to_nhwc"});
  Add(&g, "out", "Mul", {"cat_nhwc", "cat_nhwc"});
  Add(&g, "la_pad", "Pad", {"la", "paddings"});
  Add(&g, "la_nhwc", "Transpose", {"la_pad", "to_nhwc"});
  Add(&g, "out_a", "Mul", {"la_nhwc", "la_nhwc"});
  auto run = [&](const GraphDef& def) {
    std::vector<Tensor> results;
    auto graph = Graph::Build(def, w, BuiltinOps(), "test");
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return results;
    Tensor x = *Tensor::Allocate(DType::kFloat32, Shape({1, 4, 5, 3}));
    Tensor y = *Tensor::Allocate(DType::kFloat32, Shape({1, 4, 5, 2}));
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      x.mutable_data<float>()[i] = static_cast<float>(i % 7) - 3.5f;
    }
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      y.mutable_data<float>()[i] = static_cast<float>(i % 5) - 2.5f;
    }
    ResourceManager resources;
    Executor exec(graph->get(), &resources, nullptr);
    auto out = exec.Run(
        {{*(*graph)->ResolveTensor("x"), x},
         {*(*graph)->ResolveTensor("y"), y}},
        {*(*graph)->ResolveTensor("out"), *(*graph)->ResolveTensor("out_a")});
    EXPECT_TRUE(out.ok()) << out.status();
    if (out.ok()) results = *out;
    return results;
  };
  const std::vector<Tensor> want = run(g);
  EXPECT_GT(SinkTransposes(&g, w, {}), 0);
  EXPECT_EQ(CountOp(g, "Transpose"), 0) << g.DebugString();
  const std::vector<Tensor> got = run(g);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 2u);
  EXPECT_EQ(got[0].shape(), Shape({1, 6, 7, 5}));
  EXPECT_TRUE(got[0].IdenticalTo(want[0]));
  EXPECT_TRUE(got[1].IdenticalTo(want[1]));
}

TEST(SinkTransposesTest, LeavesWhatItCannotMove) {
  // A kept Transpose, a Transpose shared with a reader that cannot take it
  // (Mean over an axis), one followed by such a reader only, and two
  // transposes that do not compose to the identity stay.
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  IntWeight(&g, &w, "to_nchw", {0, 3, 1, 2});
  IntWeight(&g, &w, "axis", {1});
  Add(&g, "kept", "Transpose", {"x", "to_nchw"});
  Add(&g, "kept_relu", "Relu", {"kept"});
  Add(&g, "shared", "Transpose", {"x", "to_nchw"});
  Add(&g, "shared_relu", "Relu", {"shared"});
  Add(&g, "shared_mean", "Mean", {"shared", "axis"});
  Add(&g, "before_mean", "Transpose", {"x", "to_nchw"});
  Add(&g, "mean", "Mean", {"before_mean", "axis"});
  Add(&g, "twice_a", "Transpose", {"x", "to_nchw"});
  Add(&g, "twice_b", "Transpose", {"twice_a", "to_nchw"});
  const GraphDef before = g;
  EXPECT_EQ(SinkTransposes(&g, w, {"kept"}), 0);
  EXPECT_EQ(g.DebugString(), before.DebugString());
}

TEST(RemoveIdentitiesTest, RewiresConsumersThroughChains) {
  GraphDef g;
  Add(&g, "x", "Placeholder", {});
  Add(&g, "split", "Unpack", {"x"});
  Add(&g, "a", "Identity", {"split:1"});
  Add(&g, "b", "StopGradient", {"a"});
  Add(&g, "y", "Neg", {"b:0"});
  Add(&g, "sink", "Identity", {"y"});  // a default output: kept
  Add(&g, "kept", "Identity", {"y"});
  Add(&g, "z", "Neg", {"kept"});
  Add(&g, "gated", "Identity", {"y"});
  Add(&g, "w", "Neg", {"gated", "^gated"});
  EXPECT_EQ(RemoveIdentities(&g, {"kept"}), 2);
  EXPECT_EQ(Find(g, "a"), nullptr);
  EXPECT_EQ(Find(g, "b"), nullptr);
  EXPECT_EQ(Find(g, "y")->input(0), "split:1");
  EXPECT_NE(Find(g, "sink"), nullptr);
  EXPECT_NE(Find(g, "kept"), nullptr);
  EXPECT_NE(Find(g, "gated"), nullptr);
}

TEST(RemoveIdentitiesTest, SkipsV1ControlFlowGraphs) {
  GraphDef g;
  Add(&g, "x", "Placeholder", {});
  Add(&g, "p", "Placeholder", {});
  Add(&g, "sw", "Switch", {"x", "p"});
  Add(&g, "id", "Identity", {"sw:1"});
  Add(&g, "y", "Neg", {"id"});
  EXPECT_EQ(RemoveIdentities(&g, {}), 0);
  EXPECT_EQ(g.node_size(), 5);
}

TEST(NodeNameOfTest, StripsIndexAndCaret) {
  EXPECT_EQ(NodeNameOf("a:1"), "a");
  EXPECT_EQ(NodeNameOf("^a"), "a");
  EXPECT_EQ(NodeNameOf("a/b"), "a/b");
}

}  // namespace
}  // namespace graphrt::passes
