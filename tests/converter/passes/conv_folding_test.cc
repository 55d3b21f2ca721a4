// FoldConvScale, FuseConvPrelu and FuseReluClip
// (converter/passes/conv_folding.cc).
#include <gtest/gtest.h>

#include <cmath>
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

// A float32 Const weight of `shape` with distinct values of both signs.
void Weight(GraphDef* g, WeightMap* w, const std::string& name,
            const Shape& shape, float step = 0.07f) {
  ConstWeight(g, w, name, shape);
  float* v = (*w)[name].mutable_data<float>();
  for (int64_t i = 0; i < (*w)[name].num_elements(); ++i) {
    v[i] = step * static_cast<float>(i % 11 - 5) + 0.01f * i;
  }
}

void ScalarWeight(GraphDef* g, WeightMap* w, const std::string& name, float v) {
  NodeDef* n = Add(g, name, "Const", {});
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  (*w)[name] = Tensor::Scalar<float>(v);
}

void ExpectNear(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const float w = want.data<float>()[i];
    EXPECT_NEAR(got.data<float>()[i], w, 1e-5f * (1 + std::fabs(w))) << i;
  }
}

void ExpectSameBits(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    EXPECT_EQ(got.data<float>()[i], want.data<float>()[i]) << i;
  }
}

// x [1,4,5,3] -> conv(filter) -> Mul(scale) -> Neg -> out. Regular: filter
// [1,1,3,4]; depthwise: [3,3,3,2] (6 output channels).
struct ScaledConv {
  GraphDef g;
  WeightMap w;
  int64_t channels;
  ScaledConv(bool depthwise, const Shape& scale, bool swapped = false) {
    channels = depthwise ? 6 : 4;
    Add(&g, "x", "Placeholder", {});
    Weight(&g, &w, "filter",
           depthwise ? Shape({3, 3, 3, 2}) : Shape({1, 1, 3, 4}));
    if (scale.rank() == 0) {
      ScalarWeight(&g, &w, "scale", 1.5f);
    } else {
      Weight(&g, &w, "scale", scale, 0.3f);
    }
    ConvAttrs(Add(&g, "conv", depthwise ? "DepthwiseConv2dNative" : "Conv2D",
                  {"x", "filter"}));
    Add(&g, "mul", "Mul",
        swapped ? std::vector<std::string>{"scale", "conv"}
                : std::vector<std::string>{"conv", "scale"});
    Add(&g, "out", "Neg", {"mul"});
  }
};

TEST(FoldConvScaleTest, FoldsAPerChannelMulIntoANewFilter) {
  ScaledConv c(/*depthwise=*/false, Shape({4}));
  const Tensor want = RunOnX(c.g, c.w, "out");
  EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 1);
  EXPECT_EQ(Find(c.g, "conv"), nullptr);
  EXPECT_EQ(Find(c.g, "filter"), nullptr);  // read by nothing else
  const NodeDef* f = Find(c.g, "mul");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->op(), "Conv2D");
  ASSERT_EQ(f->input_size(), 2);
  EXPECT_EQ(f->input(0), "x");
  const std::string filter = f->input(1);
  ASSERT_NE(Find(c.g, filter), nullptr);
  ASSERT_TRUE(c.w.contains(filter));
  // w[..., o] * s[o].
  const Tensor& scaled = c.w.at(filter);
  const Tensor& original = c.w.at("filter");
  const Tensor& scale = c.w.at("scale");
  ASSERT_EQ(scaled.shape(), original.shape());
  for (int64_t i = 0; i < scaled.num_elements(); ++i) {
    EXPECT_EQ(scaled.data<float>()[i],
              original.data<float>()[i] * scale.data<float>()[i % 4]);
  }
  ExpectNear(RunOnX(c.g, c.w, "out"), want);
}

TEST(FoldConvScaleTest, FoldsIntoDepthwiseFiltersWithEitherOperandOrder) {
  for (const Shape& scale :
       {Shape({6}), Shape({1, 1, 1, 6}), Shape({}), Shape({1})}) {
    for (bool swapped : {false, true}) {
      ScaledConv c(/*depthwise=*/true, scale, swapped);
      const Tensor want = RunOnX(c.g, c.w, "out");
      EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 1) << scale.ToString();
      ASSERT_NE(Find(c.g, "mul"), nullptr);
      EXPECT_EQ(Find(c.g, "mul")->op(), "DepthwiseConv2dNative");
      ExpectNear(RunOnX(c.g, c.w, "out"), want);
    }
  }
}

TEST(FoldConvScaleTest, LeavesOtherMuls) {
  {
    ScaledConv c(false, Shape({2}));  // not one per output channel
    EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 0);
  }
  {
    ScaledConv c(false, Shape({4, 1}));  // channels not on the last axis
    EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 0);
  }
  {
    ScaledConv c(false, Shape({1, 1, 1, 1, 4}));  // would change the rank
    EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 0);
  }
  {
    ScaledConv c(false, Shape({4}));
    c.g.mutable_node(4)->set_input(1, "x");  // not a constant
    EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 0);
  }
  {
    ScaledConv c(false, Shape({4}));
    Add(&c.g, "other", "Neg", {"conv"});  // the conv's value is read too
    EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 0);
  }
  {
    ScaledConv c(false, Shape({4}));
    EXPECT_EQ(FoldConvScale(&c.g, &c.w, {"conv"}), 0);
  }
  {
    ScaledConv c(false, Shape({4}));
    c.g.mutable_node(4)->set_op("AddV2");
    EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 0);
  }
}

TEST(FoldConvScaleTest, KeepsAFilterOtherNodesRead) {
  ScaledConv c(false, Shape({4}));
  ConvAttrs(Add(&c.g, "conv2", "Conv2D", {"x", "filter"}));
  Add(&c.g, "out2", "Neg", {"conv2"});
  const Tensor want = RunOnX(c.g, c.w, "out2");
  EXPECT_EQ(FoldConvScale(&c.g, &c.w, {}), 1);
  ASSERT_NE(Find(c.g, "filter"), nullptr);
  EXPECT_EQ(Find(c.g, "conv2")->input(1), "filter");
  ExpectSameBits(RunOnX(c.g, c.w, "out2"), want);
}

// x -> Relu -> Minimum(six) -> Maximum(zero) -> Neg -> out.
struct ClippedRelu {
  GraphDef g;
  WeightMap w;
  explicit ClippedRelu(float hi = 6.0f, float lo = 0.0f) {
    Add(&g, "x", "Placeholder", {});
    ScalarWeight(&g, &w, "hi", hi);
    ScalarWeight(&g, &w, "lo", lo);
    Add(&g, "relu", "Relu", {"x"});
    Add(&g, "min", "Minimum", {"relu", "hi"});
    Add(&g, "max", "Maximum", {"lo", "min"});
    Add(&g, "out", "Neg", {"max"});
  }
};

TEST(FuseReluClipTest, ReluMinimumMaximumIsRelu6) {
  ClippedRelu c;
  const Tensor want = RunOnX(c.g, c.w, "out");
  EXPECT_EQ(FuseReluClip(&c.g, c.w, {}), 1);
  EXPECT_EQ(Find(c.g, "relu"), nullptr);
  EXPECT_EQ(Find(c.g, "min"), nullptr);
  ASSERT_NE(Find(c.g, "max"), nullptr);
  EXPECT_EQ(Find(c.g, "max")->op(), "Relu6");
  ExpectSameBits(RunOnX(c.g, c.w, "out"), want);
}

TEST(FuseReluClipTest, StopsAtAMinimumReadTwiceAndLeavesOtherBounds) {
  {
    ClippedRelu c;
    Add(&c.g, "also", "Neg", {"min"});
    const Tensor want = RunOnX(c.g, c.w, "out");
    EXPECT_EQ(FuseReluClip(&c.g, c.w, {}), 1);
    ASSERT_NE(Find(c.g, "min"), nullptr);
    EXPECT_EQ(Find(c.g, "min")->op(), "Relu6");
    EXPECT_EQ(Find(c.g, "max")->op(), "Maximum");
    ExpectSameBits(RunOnX(c.g, c.w, "out"), want);
  }
  {
    ClippedRelu c(6.0f, -1.0f);  // max(., -1) stays (harmless, not matched)
    EXPECT_EQ(FuseReluClip(&c.g, c.w, {}), 1);
    EXPECT_EQ(Find(c.g, "max")->op(), "Maximum");
  }
  {
    ClippedRelu c(5.0f);
    EXPECT_EQ(FuseReluClip(&c.g, c.w, {}), 0);
  }
  {
    ClippedRelu c;
    EXPECT_EQ(FuseReluClip(&c.g, c.w, {"relu"}), 0);
  }
}

// The faceres layer: depthwise -> Mul -> Add (batch norm) -> Relu ->
// Minimum(6) -> Maximum(0) becomes one FusedDepthwiseConv2dNative
// [BiasAdd, Relu6] named like the Maximum.
TEST(FoldConvScaleTest, KerasBatchNormAndClipBecomeOneFusedDepthwise) {
  ScaledConv c(/*depthwise=*/true, Shape({6}));
  Weight(&c.g, &c.w, "offset", Shape({6}), 0.9f);
  ScalarWeight(&c.g, &c.w, "six", 6.0f);
  ScalarWeight(&c.g, &c.w, "zero", 0.0f);
  for (NodeDef& n : *c.g.mutable_node()) {
    if (n.name() == "out") n.set_input(0, "max");
  }
  Add(&c.g, "add", "Add", {"mul", "offset"});
  Add(&c.g, "relu", "Relu", {"add"});
  Add(&c.g, "min", "Minimum", {"relu", "six"});
  Add(&c.g, "max", "Maximum", {"min", "zero"});
  const Tensor want = RunOnX(c.g, c.w, "out");
  const PassStats stats = OptimizeInferenceGraph(&c.g, &c.w, {});
  EXPECT_EQ(stats.conv_scales_folded, 1);
  EXPECT_EQ(stats.convs_fused, 1);
  EXPECT_EQ(stats.relu_clips_fused, 1);
  const NodeDef* f = Find(c.g, "max");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->op(), "FusedDepthwiseConv2dNative");
  EXPECT_EQ(FusedOps(*f), (std::vector<std::string>{"BiasAdd", "Relu6"}));
  EXPECT_EQ(CountOp(c.g, "Mul") + CountOp(c.g, "Add") + CountOp(c.g, "Relu") +
                CountOp(c.g, "Minimum") + CountOp(c.g, "Maximum"),
            0);
  ExpectNear(RunOnX(c.g, c.w, "out"), want);
}

// x -> Conv2D(filter [1,1,3,4]) -> BiasAdd(bias) (-> Relu) -> act(alpha)
// -> Neg -> out, after FuseConvBiasActivation (which takes the Relu too);
// act is Prelu or _AbsPrelu.
struct PreluConv {
  GraphDef g;
  WeightMap w;
  PreluConv(const std::string& act, bool relu_attr, const Shape& alpha,
            bool conv_relu = false) {
    Add(&g, "x", "Placeholder", {});
    Weight(&g, &w, "filter", Shape({1, 1, 3, 4}));
    Weight(&g, &w, "bias", Shape({4}), 0.5f);
    Weight(&g, &w, "alpha", alpha, 0.11f);
    ConvAttrs(Add(&g, "conv", "Conv2D", {"x", "filter"}));
    Add(&g, "add", "BiasAdd", {"conv", "bias"});
    std::string last = "add";
    if (conv_relu) {
      Add(&g, "relu", "Relu", {"add"});
      last = "relu";
    }
    NodeDef* a = Add(&g, "act", act, {last, "alpha"});
    if (act == "_AbsPrelu") (*a->mutable_attr())["relu"].set_b(relu_attr);
    Add(&g, "out", "Neg", {"act"});
    EXPECT_EQ(FuseConvBiasActivation(&g, w, {}), 1);
  }
};

TEST(FuseConvPreluTest, TakesPreluIntoTheConvolutionBitIdentically) {
  for (const Shape& alpha : {Shape({4}), Shape({1, 1, 4}), Shape({1})}) {
    PreluConv c("Prelu", false, alpha);
    const Tensor want = RunOnX(c.g, c.w, "out");
    EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 1) << alpha.ToString();
    const NodeDef* f = Find(c.g, "act");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->op(), "_FusedConv2D");
    EXPECT_EQ(FusedOps(*f), (std::vector<std::string>{"BiasAdd", "Prelu"}));
    ASSERT_EQ(f->input_size(), 4);
    EXPECT_EQ(f->input(3), "alpha");
    EXPECT_EQ(f->attr().at("num_args").i(), 2);
    ExpectSameBits(RunOnX(c.g, c.w, "out"), want);
  }
}

// (x - |x|) * a below zero is (2x) * a: the fused slope is 2a, exactly.
TEST(FuseConvPreluTest, AbsPreluWithReluBecomesPreluOfTwiceAlpha) {
  PreluConv c("_AbsPrelu", true, Shape({4}));
  const Tensor want = RunOnX(c.g, c.w, "out");
  EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 1);
  const NodeDef* f = Find(c.g, "act");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FusedOps(*f), (std::vector<std::string>{"BiasAdd", "Prelu"}));
  const Tensor& doubled = c.w.at(f->input(3));
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(doubled.data<float>()[i], 2 * c.w.at("alpha").data<float>()[i]);
  }
  ExpectSameBits(RunOnX(c.g, c.w, "out"), want);
}

// On a Relu'd conv (x >= 0) the relu-less _AbsPrelu is x: it goes.
TEST(FuseConvPreluTest, DropsAnAbsPreluWithoutReluAfterARelu) {
  PreluConv c("_AbsPrelu", false, Shape({4}), /*conv_relu=*/true);
  const Tensor want = RunOnX(c.g, c.w, "out");
  EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 1);
  EXPECT_EQ(CountOp(c.g, "_AbsPrelu"), 0);
  const NodeDef* f = Find(c.g, "act");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FusedOps(*f), (std::vector<std::string>{"BiasAdd", "Relu"}));
  ExpectSameBits(RunOnX(c.g, c.w, "out"), want);
}

// facemesh's blocks: Prelu(AddV2(x, conv + bias)) after FuseConvAdd.
TEST(FuseConvPreluTest, TakesPreluAfterAResidualJoin) {
  PreluConv c("Prelu", false, Shape({4}));
  // conv + bias -> AddV2(residual) -> Prelu, the residual a second
  // convolution of x ([1,4,5,4] like the first).
  ConvAttrs(Add(&c.g, "conv2", "Conv2D", {"x", "filter"}));
  Add(&c.g, "join", "AddV2", {"conv2", "add"});
  for (NodeDef& n : *c.g.mutable_node()) {
    if (n.name() == "act") n.set_input(0, "join");
  }
  ASSERT_EQ(FuseConvAdd(&c.g, {}), 1);
  const Tensor want = RunOnX(c.g, c.w, "out");
  EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 1);
  const NodeDef* f = Find(c.g, "act");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FusedOps(*f),
            (std::vector<std::string>{"BiasAdd", "Add", "Prelu"}));
  ASSERT_EQ(f->input_size(), 5);
  EXPECT_EQ(f->input(3), "conv2");
  EXPECT_EQ(f->input(4), "alpha");
  EXPECT_EQ(f->attr().at("num_args").i(), 3);
  ExpectSameBits(RunOnX(c.g, c.w, "out"), want);
}

TEST(FuseConvPreluTest, LeavesOtherPrelus) {
  {
    PreluConv c("_AbsPrelu", false, Shape({4}));  // x + 2ax: not a PReLU
    EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 0);
  }
  {
    PreluConv c("_AbsPrelu", false, Shape({4}), /*conv_relu=*/true);
    c.w.at("alpha").mutable_data<float>()[1] = INFINITY;  // 0 * inf is NaN
    EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 0);
  }
  {
    PreluConv c("Prelu", false, Shape({2}));  // not one per channel
    EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 0);
  }
  {
    PreluConv c("Prelu", false, Shape({4, 1}));
    EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 0);
  }
  {
    PreluConv c("Prelu", false, Shape({4}));
    Add(&c.g, "other", "Neg", {"add"});  // the conv is read twice
    EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {}), 0);
  }
  {
    PreluConv c("Prelu", false, Shape({4}));
    EXPECT_EQ(FuseConvPrelu(&c.g, &c.w, {"add"}), 0);
  }
}

}  // namespace
}  // namespace graphrt::passes

namespace graphrt::passes {
namespace {

using namespace ::graphrt::passes::test_util;  // NOLINT: test helpers

// x [1,4,5,3] -> conv -> FusedBatchNormV3(scale, offset, mean, variance)
// -> Relu -> out, inference mode; regular ([3,3,3,4]) or depthwise
// ([3,3,3,2], 6 channels).
struct BatchNormedConv {
  GraphDef g;
  WeightMap w;
  NodeDef* bn;
  explicit BatchNormedConv(bool depthwise) {
    const int64_t channels = depthwise ? 6 : 4;
    Add(&g, "x", "Placeholder", {});
    Weight(&g, &w, "filter",
           depthwise ? Shape({3, 3, 3, 2}) : Shape({3, 3, 3, 4}));
    Weight(&g, &w, "gamma", Shape({channels}), 0.3f);
    Weight(&g, &w, "beta", Shape({channels}), 0.2f);
    Weight(&g, &w, "mean", Shape({channels}), 0.1f);
    Weight(&g, &w, "variance", Shape({channels}), 0.05f);
    for (float& v : w["variance"].mutable_span<float>())
      v = std::fabs(v) + 0.2f;
    ConvAttrs(Add(&g, "conv", depthwise ? "DepthwiseConv2dNative" : "Conv2D",
                  {"x", "filter"}));
    bn = Add(&g, "bn", "FusedBatchNormV3",
             {"conv", "gamma", "beta", "mean", "variance"});
    (*bn->mutable_attr())["U"].set_type(tensorflow::DT_FLOAT);
    (*bn->mutable_attr())["epsilon"].set_f(0.001f);
    (*bn->mutable_attr())["is_training"].set_b(false);
    (*bn->mutable_attr())["data_format"].set_s("NHWC");
    Add(&g, "out", "Relu", {"bn"});
  }
};

TEST(FoldBatchNormTest, BecomesOneFusedConvolution) {
  for (bool depthwise : {false, true}) {
    BatchNormedConv m(depthwise);
    const Tensor before = RunOnX(m.g, m.w, "out");
    const PassStats stats = OptimizeInferenceGraph(&m.g, &m.w, {"out"});
    EXPECT_EQ(stats.batch_norms_folded, 1) << depthwise;
    EXPECT_EQ(CountOp(m.g, "FusedBatchNormV3"), 0);
    EXPECT_EQ(
        CountOp(m.g, depthwise ? "FusedDepthwiseConv2dNative" : "_FusedConv2D"),
        1);
    for (const char* gone : {"filter", "gamma", "beta", "mean", "variance"}) {
      EXPECT_EQ(Find(m.g, gone), nullptr) << gone;  // no new sinks
    }
    ExpectNear(RunOnX(m.g, m.w, "out"), before);
  }
}

TEST(FoldBatchNormTest, LeavesTrainingModeAndReadStatistics) {
  BatchNormedConv training(false);
  training.bn->mutable_attr()->erase("is_training");  // TF's default: true
  EXPECT_EQ(FoldBatchNorm(&training.g, &training.w, {}), 0);
  BatchNormedConv statistics(false);
  Add(&statistics.g, "mean_out", "Neg", {"bn:1"});
  EXPECT_EQ(FoldBatchNorm(&statistics.g, &statistics.w, {}), 0);
  BatchNormedConv kept(false);
  EXPECT_EQ(FoldBatchNorm(&kept.g, &kept.w, {"conv"}), 0);
}

}  // namespace
}  // namespace graphrt::passes
