// ImportGraphDef: a GraphDef that carries its constants in `value` attrs (as
// TensorFlow writes them) gets the same load-time passes as a TF.js model,
// whose constants are weights: its convolution + BiasAdd + Relu fuse, its
// batch of constant-only nodes folds, and the values stay those of the
// graph as written.
#include "converter/graphdef_import.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ops/registry.h"
#include "proto/graph.pb.h"
#include "runtime/executor.h"
#include "runtime/resource.h"
#include "tests/value_const.h"

namespace graphrt {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& in : inputs) n->add_input(in);
  if (op != "Const" && op != "Placeholder") {
    (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  }
  return n;
}

// x [1, 8, 8, 4] -> Conv2D 3x3 (4 -> 8) -> Mul(scale [8]) -> BiasAdd(b0 +
// b1) -> Relu (Keras' unfused batch norm).
GraphDef ConvGraph() {
  std::mt19937 rng(3);
  GraphDef g;
  NodeDef* x = AddNode(&g, "x", "Placeholder", {});
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  test_util::AddRandomValueConst(&g, "w", {3, 3, 4, 8}, 1.0f, &rng);
  test_util::AddRandomValueConst(&g, "b0", {8}, 1.0f, &rng);
  test_util::AddRandomValueConst(&g, "b1", {8}, 1.0f, &rng);
  test_util::AddRandomValueConst(&g, "scale", {8}, 1.0f, &rng);
  AddNode(&g, "bias", "AddV2", {"b0", "b1"});
  NodeDef* conv = AddNode(&g, "conv", "Conv2D", {"x", "w"});
  for (int i = 0; i < 4; ++i) {
    (*conv->mutable_attr())["strides"].mutable_list()->add_i(1);
  }
  (*conv->mutable_attr())["padding"].set_s("SAME");
  AddNode(&g, "scaled", "Mul", {"conv", "scale"});
  AddNode(&g, "biased", "BiasAdd", {"scaled", "bias"});
  AddNode(&g, "out", "Relu", {"biased"});
  return g;
}

int CountOp(const Graph& g, const std::string& op) {
  int count = 0;
  for (int i = 0; i < g.num_nodes(); ++i) count += g.node(i).op() == op;
  return count;
}

Tensor RunOut(const Graph& g) {
  Tensor x = *Tensor::Allocate(DType::kFloat32, Shape({1, 8, 8, 4}));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.mutable_data<float>()[i] = static_cast<float>(i % 13) / 7 - 0.9f;
  }
  ResourceManager resources;
  Executor exec(&g, &resources, nullptr);
  auto out = exec.Run({{*g.ResolveTensor("x"), x}}, {*g.ResolveTensor("out")});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

TEST(GraphDefImportTest, ValueAttrConstantsGetThePasses) {
  auto fused = ImportGraphDef(ConvGraph(), "conv.pb", BuiltinOps());
  ASSERT_TRUE(fused.ok()) << fused.status();
  // Before value-attr constants joined the weights, FoldConvScale (which
  // reads filters and scales from the weights) left the Mul, and the bias
  // and Relu then had no convolution to join.
  EXPECT_EQ(CountOp(*fused->graph, "_FusedConv2D"), 1);
  EXPECT_EQ(CountOp(*fused->graph, "Mul"), 0);
  EXPECT_EQ(CountOp(*fused->graph, "BiasAdd"), 0);
  EXPECT_EQ(CountOp(*fused->graph, "Relu"), 0);
  EXPECT_EQ(CountOp(*fused->graph, "AddV2"), 0);
  ASSERT_EQ(setenv("GRAPHRT_DISABLE_GRAPH_PASSES", "1", 1), 0);
  auto plain = ImportGraphDef(ConvGraph(), "conv.pb", BuiltinOps());
  ASSERT_EQ(unsetenv("GRAPHRT_DISABLE_GRAPH_PASSES"), 0);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(CountOp(*plain->graph, "Conv2D"), 1);
  const Tensor a = RunOut(*fused->graph);
  const Tensor b = RunOut(*plain->graph);
  ASSERT_TRUE(a.valid() && b.valid());
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    EXPECT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-5f) << i;
  }
}

}  // namespace
}  // namespace graphrt
