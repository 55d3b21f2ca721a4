// FuseMatMulBiasActivation (converter/passes/passes.h): TensorFlow-written
// dense layers, MatMul + BiasAdd / Add (+ Relu, Relu6, LeakyRelu), become
// one _FusedMatMul with the unfused graph's values.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>

#include "converter/passes/passes.h"
#include "ops/builtin_ops.h"
#include "tests/converter/passes/pass_test_util.h"

namespace graphrt::passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;
using test_util::Add;
using test_util::CountOp;
using test_util::Find;
using test_util::FusedOps;
using test_util::RandomWeight;

// x [3, 6] -> MatMul(w1 [6, 5]) -> BiasAdd(Identity(b1)) -> Relu -> MatMul(w2
// transposed, w2 [4, 5], transpose_b) -> AddV2(b2 [4], product second) ->
// LeakyRelu (alpha 0.1) -> out.
struct Dense {
  GraphDef g;
  WeightMap w;
};

Dense MakeDense() {
  Dense d;
  std::mt19937 rng(7);
  Add(&d.g, "x", "Placeholder", {});
  RandomWeight(&d.g, &d.w, "w1", Shape({6, 5}), &rng);
  RandomWeight(&d.g, &d.w, "b1", Shape({5}), &rng);
  RandomWeight(&d.g, &d.w, "w2", Shape({4, 5}), &rng);
  RandomWeight(&d.g, &d.w, "b2", Shape({4}), &rng);
  Add(&d.g, "mm1", "MatMul", {"x", "w1"});
  // A dense layer's bias as a SavedModel reads it: not a Const.
  Add(&d.g, "b1/read", "Identity", {"b1"});
  Add(&d.g, "bias1", "BiasAdd", {"mm1", "b1/read"});
  Add(&d.g, "relu1", "Relu", {"bias1"});
  NodeDef* mm2 = Add(&d.g, "mm2", "MatMul", {"relu1", "w2"});
  (*mm2->mutable_attr())["transpose_b"].set_b(true);
  Add(&d.g, "bias2", "AddV2", {"b2", "mm2"});
  NodeDef* leaky = Add(&d.g, "out", "LeakyRelu", {"bias2"});
  (*leaky->mutable_attr())["alpha"].set_f(0.1f);
  return d;
}

Tensor RunDense(const GraphDef& g, const WeightMap& w) {
  Tensor x = *Tensor::Allocate(DType::kFloat32, Shape({3, 6}));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.mutable_data<float>()[i] = static_cast<float>(i % 5) - 2.25f + 0.1f * i;
  }
  return test_util::RunGraph(g, w, x);
}

TEST(FuseMatMulBiasActivationTest, DenseLayersBecomeOneNodeEach) {
  Dense d = MakeDense();
  const Tensor before = RunDense(d.g, d.w);
  EXPECT_EQ(FuseMatMulBiasActivation(&d.g, d.w, {"x", "out"}), 2);
  EXPECT_EQ(CountOp(d.g, "MatMul"), 0);
  EXPECT_EQ(CountOp(d.g, "_FusedMatMul"), 2);
  const NodeDef* first = Find(d.g, "relu1");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(FusedOps(*first), (std::vector<std::string>{"BiasAdd", "Relu"}));
  const NodeDef* second = Find(d.g, "out");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(FusedOps(*second),
            (std::vector<std::string>{"BiasAdd", "LeakyRelu"}));
  EXPECT_FLOAT_EQ(second->attr().at("leakyrelu_alpha").f(), 0.1f);
  EXPECT_TRUE(second->attr().at("transpose_b").b());
  EXPECT_EQ(second->input(2), "b2");
  EXPECT_EQ(first->input(2), "b1/read");
  EXPECT_TRUE(RunDense(d.g, d.w).IdenticalTo(before));
}

TEST(FuseMatMulBiasActivationTest, LeavesWhatItCannotFuse) {
  {  // A product read twice.
    Dense d = MakeDense();
    Add(&d.g, "also", "Neg", {"mm1"});
    EXPECT_EQ(FuseMatMulBiasActivation(&d.g, d.w, {"x", "out", "also"}), 1);
    EXPECT_EQ(Find(d.g, "mm1")->op(), "MatMul");
  }
  {  // An Add of a one-element operand broadcasts: not a bias.
    Dense d = MakeDense();
    std::mt19937 rng(1);
    d.g.mutable_node()->erase(d.g.mutable_node()->begin() + 4);  // b2
    d.w.erase("b2");
    RandomWeight(&d.g, &d.w, "b2", Shape({1}), &rng);
    EXPECT_EQ(FuseMatMulBiasActivation(&d.g, d.w, {"x", "out"}), 1);
    EXPECT_EQ(Find(d.g, "mm2")->op(), "MatMul");
  }
  {  // Sigmoid stays its own node; the bias still fuses.
    Dense d = MakeDense();
    for (NodeDef& n : *d.g.mutable_node()) {
      if (n.name() == "relu1") n.set_op("Sigmoid");
    }
    const Tensor before = RunDense(d.g, d.w);
    EXPECT_EQ(FuseMatMulBiasActivation(&d.g, d.w, {"x", "out"}), 2);
    EXPECT_EQ(Find(d.g, "relu1")->op(), "Sigmoid");
    EXPECT_EQ(FusedOps(*Find(d.g, "bias1")),
              (std::vector<std::string>{"BiasAdd"}));
    EXPECT_TRUE(RunDense(d.g, d.w).IdenticalTo(before));
  }
}

TEST(FuseMatMulBiasActivationTest, RunsInOptimizeInferenceGraph) {
  Dense d = MakeDense();
  const Tensor before = RunDense(d.g, d.w);
  const PassStats stats =
      OptimizeInferenceGraph(&d.g, &d.w, {"x", "out"}, &BuiltinOps());
  EXPECT_EQ(stats.matmuls_fused, 2);
  // What `graphrt info` lists: nonzero counts, named.
  const auto rewrites = stats.Rewrites();
  EXPECT_NE(std::find(rewrites.begin(), rewrites.end(),
                      std::pair<std::string, int>("MatMul chains fused", 2)),
            rewrites.end());
  for (const auto& [what, count] : rewrites) EXPECT_NE(count, 0) << what;
  EXPECT_TRUE(RunDense(d.g, d.w).IdenticalTo(before));
}

}  // namespace
}  // namespace graphrt::passes
