// FoldAffineIntoConv (converter/passes/affine_folding.cc): a per-channel
// x * s + b after a convolution (Keras batch norm after the activation)
// folds into the biased convolution that reads it, through a MaxPool /
// AvgPool between them, with the unfused graph's values (up to the moved
// roundings).
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

// A float32 Const weight of `shape`: distinct values of both signs, or all
// positive with `positive`.
void Weight(GraphDef* g, WeightMap* w, const std::string& name,
            const Shape& shape, bool positive = false) {
  ConstWeight(g, w, name, shape);
  float* v = (*w)[name].mutable_data<float>();
  for (int64_t i = 0; i < (*w)[name].num_elements(); ++i) {
    v[i] = positive ? 0.5f + 0.13f * i : 0.07f * (i % 11 - 5) + 0.01f * i;
  }
}

// A _FusedConv2D (or FusedDepthwiseConv2dNative) [BiasAdd, Relu] of
// `filter` and `bias`, stride 1.
NodeDef* FusedConv(GraphDef* g, const std::string& name,
                   const std::string& input, const std::string& filter,
                   const std::string& bias, const std::string& padding,
                   bool depthwise = false) {
  NodeDef* n =
      Add(g, name, depthwise ? "FusedDepthwiseConv2dNative" : "_FusedConv2D",
          {input, filter, bias});
  ConvAttrs(n);
  auto& a = *n->mutable_attr();
  a["padding"].set_s(padding);
  a["fused_ops"].mutable_list()->add_s("BiasAdd");
  a["fused_ops"].mutable_list()->add_s("Relu");
  a["num_args"].set_i(1);
  return n;
}

NodeDef* Pool(GraphDef* g, const std::string& name, const std::string& op,
              const std::string& input) {
  NodeDef* n = Add(g, name, op, {input});
  auto& a = *n->mutable_attr();
  for (int v : {1, 2, 2, 1}) a["ksize"].mutable_list()->add_i(v);
  for (int i = 0; i < 4; ++i) a["strides"].mutable_list()->add_i(1);
  a["padding"].set_s("VALID");
  return n;
}

void ExpectNear(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const float w = want.data<float>()[i];
    EXPECT_NEAR(got.data<float>()[i], w, 1e-5f * (1 + std::fabs(w))) << i;
  }
}

struct Options {
  std::string pool = "MaxPool";  // or "AvgPool", "" (none)
  bool mul = true, add = true;
  bool positive_scale = true;
  bool swapped = false;  // constants as the first operands
  std::string padding = "VALID";
  int64_t kernel = 2;
  bool depthwise = false;  // the second convolution
  bool x_is_conv = true;   // else the affine reads the Placeholder
};

// x [1,4,5,3] -> conv1 (1x1, 3 -> 4) -> [Mul(s)] -> [Add(b)] -> [pool]
// -> conv2 (kernel x kernel, 4 -> 5; depthwise 4 x 2) -> out (Neg).
struct Net {
  GraphDef g;
  WeightMap w;
  explicit Net(const Options& o) {
    Add(&g, "x", "Placeholder", {});
    const int64_t c = o.x_is_conv ? 4 : 3;
    std::string t = "x";
    if (o.x_is_conv) {
      Weight(&g, &w, "f1", Shape({1, 1, 3, 4}));
      Weight(&g, &w, "b1", Shape({4}));
      FusedConv(&g, "conv1", "x", "f1", "b1", "VALID");
      t = "conv1";
    }
    auto binary = [&](const std::string& name, const std::string& op,
                      const std::string& k) {
      Add(&g, name, op,
          o.swapped ? std::vector<std::string>{k, t}
                    : std::vector<std::string>{t, k});
      t = name;
    };
    if (o.mul) {
      Weight(&g, &w, "s", Shape({c}), o.positive_scale);
      if (!o.positive_scale)
        (*w.find("s")).second.mutable_data<float>()[1] = -0.75f;
      binary("bn/mul", "Mul", "s");
    }
    if (o.add) {
      Weight(&g, &w, "b", Shape({1, 1, 1, c}));
      binary("bn/add", "AddV2", "b");
    }
    if (!o.pool.empty()) {
      Pool(&g, "pool", o.pool, t);
      t = "pool";
    }
    Weight(&g, &w, "f2",
           o.depthwise ? Shape({o.kernel, o.kernel, c, 2})
                       : Shape({o.kernel, o.kernel, c, 5}));
    Weight(&g, &w, "b2", Shape({o.depthwise ? c * 2 : 5}));
    FusedConv(&g, "conv2", t, "f2", "b2", o.padding, o.depthwise);
    Add(&g, "out", "Neg", {"conv2"});
  }
};

TEST(FoldAffineIntoConvTest, BatchNormThroughMaxPoolFoldsIntoTheNextConv) {
  Net n{Options{}};
  const Tensor want = RunOnX(n.g, n.w, "out");
  EXPECT_EQ(FoldAffineIntoConv(&n.g, &n.w, {}), 1);
  EXPECT_EQ(Find(n.g, "bn/mul"), nullptr);
  EXPECT_EQ(Find(n.g, "bn/add"), nullptr);
  EXPECT_EQ(Find(n.g, "s"), nullptr);  // read by nothing now
  EXPECT_EQ(Find(n.g, "f2"), nullptr);
  ASSERT_NE(Find(n.g, "pool"), nullptr);
  EXPECT_EQ(Find(n.g, "pool")->input(0), "conv1");
  const NodeDef* conv2 = Find(n.g, "conv2");
  ASSERT_NE(conv2, nullptr);
  ASSERT_NE(Find(n.g, conv2->input(1)), nullptr);
  ASSERT_NE(Find(n.g, conv2->input(2)), nullptr);
  EXPECT_TRUE(n.w.contains(conv2->input(1)));
  EXPECT_EQ(FusedOps(*conv2), (std::vector<std::string>{"BiasAdd", "Relu"}));
  ExpectNear(RunOnX(n.g, n.w, "out"), want);
}

TEST(FoldAffineIntoConvTest, FoldsEveryFormOfTheAffine) {
  std::vector<Options> cases;
  Options avg_negative;  // an AvgPool commutes with any affine
  avg_negative.pool = "AvgPool";
  avg_negative.positive_scale = false;
  cases.push_back(avg_negative);
  Options no_pool;
  no_pool.pool = "";
  no_pool.positive_scale = false;
  cases.push_back(no_pool);
  Options mul_only;
  mul_only.add = false;
  mul_only.swapped = true;
  cases.push_back(mul_only);
  Options add_only;
  add_only.mul = false;
  add_only.swapped = true;
  cases.push_back(add_only);
  Options depthwise;
  depthwise.depthwise = true;
  depthwise.kernel = 3;
  depthwise.pool = "";
  cases.push_back(depthwise);
  Options pointwise_same;  // a 1x1 window at stride 1 never reads padding
  pointwise_same.kernel = 1;
  pointwise_same.padding = "SAME";
  cases.push_back(pointwise_same);
  for (size_t i = 0; i < cases.size(); ++i) {
    Net n(cases[i]);
    const Tensor want = RunOnX(n.g, n.w, "out");
    EXPECT_EQ(FoldAffineIntoConv(&n.g, &n.w, {}), 1) << "case " << i;
    EXPECT_EQ(CountOp(n.g, "Mul") + CountOp(n.g, "AddV2"), 0) << "case " << i;
    ExpectNear(RunOnX(n.g, n.w, "out"), want);
  }
}

// Regression: the second fold of a chain read its x's filter, which the
// first fold had just replaced by a Const not yet in the graph, and gave up
// (gear folded 2 of its 4 batch norms).
TEST(FoldAffineIntoConvTest, FoldsAChainOfBatchNorms) {
  Net n{Options{}};
  // conv2 -> bn2 (Mul, AddV2) -> conv3 (1x1, 5 -> 3) -> out2.
  Weight(&n.g, &n.w, "s2", Shape({5}), /*positive=*/false);
  Weight(&n.g, &n.w, "b2b", Shape({5}));
  Add(&n.g, "bn2/mul", "Mul", {"conv2", "s2"});
  Add(&n.g, "bn2/add", "AddV2", {"bn2/mul", "b2b"});
  Weight(&n.g, &n.w, "f3", Shape({1, 1, 5, 3}));
  Weight(&n.g, &n.w, "b3", Shape({3}));
  FusedConv(&n.g, "conv3", "bn2/add", "f3", "b3", "VALID");
  Add(&n.g, "out2", "Neg", {"conv3"});
  const Tensor want = RunOnX(n.g, n.w, "out2");
  const Tensor want_out = RunOnX(n.g, n.w, "out");
  EXPECT_EQ(FoldAffineIntoConv(&n.g, &n.w, {}), 2);
  EXPECT_EQ(CountOp(n.g, "Mul") + CountOp(n.g, "AddV2"), 0);
  ExpectNear(RunOnX(n.g, n.w, "out2"), want);
  ExpectNear(RunOnX(n.g, n.w, "out"), want_out);
}

TEST(FoldAffineIntoConvTest, LeavesWhatDoesNotCommute) {
  std::vector<Options> cases;
  Options max_negative;  // a MaxPool of a decreasing channel
  max_negative.positive_scale = false;
  cases.push_back(max_negative);
  Options same;  // a 2x2 window reads padded zeros, which lack the + b
  same.padding = "SAME";
  cases.push_back(same);
  Options unknown_shape;  // x's shape unknown: [3] might broadcast it
  unknown_shape.x_is_conv = false;
  cases.push_back(unknown_shape);
  for (size_t i = 0; i < cases.size(); ++i) {
    Net n(cases[i]);
    EXPECT_EQ(FoldAffineIntoConv(&n.g, &n.w, {}), 0) << "case " << i;
  }
  // The affine read twice, or kept by name.
  Net twice{Options{}};
  Add(&twice.g, "other", "Neg", {"bn/add"});
  EXPECT_EQ(FoldAffineIntoConv(&twice.g, &twice.w, {}), 0);
  Net kept{Options{}};
  EXPECT_EQ(FoldAffineIntoConv(&kept.g, &kept.w, {"bn/mul"}), 0);
}

}  // namespace
}  // namespace graphrt::passes
