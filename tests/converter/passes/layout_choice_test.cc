// ChooseNhwcLayout (converter/passes/passes.h): an NCHW subgraph runs
// channels-last with one transpose in and one out, its convolutions fused
// as NHWC ones are; and SinkTransposes' binary element-wise step, which
// carries the transposes through residual joins.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

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
using test_util::IntWeight;
using test_util::RandomWeight;
using test_util::RunOnX;

void Nchw(NodeDef* n) { (*n->mutable_attr())["data_format"].set_s("NCHW"); }

void Quad(NodeDef* n, const char* attr, std::vector<int64_t> v) {
  auto* list = (*n->mutable_attr())[attr].mutable_list();
  for (int64_t x : v) list->add_i(x);
}

NodeDef* NchwConv(GraphDef* g, const std::string& name, const std::string& in,
                  const std::string& filter) {
  NodeDef* c = Add(g, name, "Conv2D", {in, filter});
  Nchw(c);
  Quad(c, "strides", {1, 1, 1, 1});
  (*c->mutable_attr())["padding"].set_s("SAME");
  return c;
}

// x read as NCHW [1, 4, 5, 3] (RunOnX's x): conv 3x3 (4 -> 8) -> BiasAdd ->
// Relu -> MaxPool 2x2 stride 2 -> pool; conv 1x1 (8 -> 8) on pool -> Add
// pool (a residual join) -> conv 1x1 (8 -> 6) -> out, all NCHW. With
// `batch_norm`, the 1x1 conv's output goes through an inference
// FusedBatchNormV3 before the join.
struct NchwModel {
  GraphDef g;
  WeightMap w;
};

NchwModel MakeNchwModel(bool batch_norm) {
  NchwModel m;
  std::mt19937 rng(5);
  Add(&m.g, "x", "Placeholder", {});
  RandomWeight(&m.g, &m.w, "f1", Shape({3, 3, 4, 8}), &rng);
  RandomWeight(&m.g, &m.w, "b1", Shape({8}), &rng);
  RandomWeight(&m.g, &m.w, "f2", Shape({1, 1, 8, 8}), &rng);
  RandomWeight(&m.g, &m.w, "f3", Shape({1, 1, 8, 6}), &rng);
  NchwConv(&m.g, "conv1", "x", "f1");
  Nchw(Add(&m.g, "bias1", "BiasAdd", {"conv1", "b1"}));
  Add(&m.g, "relu1", "Relu", {"bias1"});
  NodeDef* pool = Add(&m.g, "pool", "MaxPool", {"relu1"});
  Nchw(pool);
  Quad(pool, "ksize", {1, 1, 2, 2});
  Quad(pool, "strides", {1, 1, 2, 2});
  (*pool->mutable_attr())["padding"].set_s("SAME");
  NchwConv(&m.g, "conv2", "pool", "f2");
  std::string branch = "conv2";
  if (batch_norm) {
    for (const char* p : {"scale", "offset", "mean"}) {
      RandomWeight(&m.g, &m.w, p, Shape({8}), &rng);
    }
    RandomWeight(&m.g, &m.w, "var", Shape({8}), &rng);
    for (float& v : m.w["var"].mutable_span<float>()) v = std::abs(v) + 0.1f;
    NodeDef* bn = Add(&m.g, "bn", "FusedBatchNormV3",
                      {"conv2", "scale", "offset", "mean", "var"});
    Nchw(bn);
    (*bn->mutable_attr())["U"].set_type(tensorflow::DT_FLOAT);
    (*bn->mutable_attr())["is_training"].set_b(false);
    (*bn->mutable_attr())["epsilon"].set_f(0.001f);
    branch = "bn";
  }
  Add(&m.g, "join", "AddV2", {branch, "pool"});
  NchwConv(&m.g, "out", "join", "f3");
  return m;
}

TEST(ChooseNhwcLayoutTest, WrapsEachNchwNodeUnderItsOwnName) {
  NchwModel m = MakeNchwModel(/*batch_norm=*/true);
  const Tensor before = RunOnX(m.g, m.w, "out");
  EXPECT_EQ(ChooseNhwcLayout(&m.g), 6);
  for (const char* name : {"conv1", "bias1", "pool", "conv2", "bn", "out"}) {
    ASSERT_NE(Find(m.g, name), nullptr) << name;
    EXPECT_EQ(Find(m.g, name)->op(), "Transpose") << name;
    const NodeDef* nhwc = Find(m.g, std::string(name) + "/_nhwc");
    ASSERT_NE(nhwc, nullptr) << name;
    EXPECT_EQ(nhwc->attr().at("data_format").s(), "NHWC");
  }
  const NodeDef* pool = Find(m.g, "pool/_nhwc");
  EXPECT_EQ(pool->attr().at("ksize").list().i(1), 2);
  EXPECT_EQ(pool->attr().at("ksize").list().i(3), 1);
  EXPECT_TRUE(RunOnX(m.g, m.w, "out").IdenticalTo(before));
}

// Through the whole pipeline: two transposes are left (x in, out back),
// the convolutions fuse their bias, Relu and batch norm, and the residual
// join runs between channels-last values.
TEST(ChooseNhwcLayoutTest, LeavesOneTransposeInAndOneOut) {
  for (bool batch_norm : {false, true}) {
    SCOPED_TRACE(batch_norm ? "batch norm" : "plain");
    NchwModel m = MakeNchwModel(batch_norm);
    const Tensor before = RunOnX(m.g, m.w, "out");
    const PassStats stats =
        OptimizeInferenceGraph(&m.g, &m.w, {"x", "out"}, &BuiltinOps());
    EXPECT_EQ(stats.nchw_nodes_converted, batch_norm ? 6 : 5);
    EXPECT_EQ(CountOp(m.g, "Transpose"), 2);
    EXPECT_EQ(CountOp(m.g, "BiasAdd"), 0);
    EXPECT_EQ(CountOp(m.g, "Relu"), 0);
    EXPECT_EQ(CountOp(m.g, "FusedBatchNormV3"), 0);
    // Without a bias: out, and conv2 unless its batch norm became one.
    EXPECT_EQ(CountOp(m.g, "Conv2D"), batch_norm ? 1 : 2);
    for (const NodeDef& n : m.g.node()) {
      auto f = n.attr().find("data_format");
      EXPECT_TRUE(f == n.attr().end() || f->second.s() != "NCHW") << n.name();
    }
    const Tensor after = RunOnX(m.g, m.w, "out");
    ASSERT_EQ(after.shape(), before.shape());
    if (!batch_norm) {
      EXPECT_TRUE(after.IdenticalTo(before));
    } else {  // FoldBatchNorm moves roundings
      for (int64_t i = 0; i < after.num_elements(); ++i) {
        EXPECT_NEAR(after.data<float>()[i], before.data<float>()[i],
                    1e-4f * (1 + std::abs(before.data<float>()[i])))
            << i;
      }
    }
  }
}

TEST(ChooseNhwcLayoutTest, LeavesWhatItCannotProve4D) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  std::mt19937 rng(1);
  RandomWeight(&g, &w, "b", Shape({4}), &rng);
  Nchw(Add(&g, "bias", "BiasAdd", {"x", "b"}));  // x of unknown rank
  EXPECT_EQ(ChooseNhwcLayout(&g), 0);
  EXPECT_EQ(Find(g, "bias")->op(), "BiasAdd");
}

// Add(Transpose(a), Transpose(b)) by one perm and Mul(Transpose(c), 2):
// the transposes move below the joins.
TEST(SinkTransposesTest, MovesThroughBinaryElementwiseOps) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  IntWeight(&g, &w, "perm", {0, 3, 1, 2});
  IntWeight(&g, &w, "inverse", {0, 2, 3, 1});
  Add(&g, "a", "Relu", {"x"});
  Add(&g, "b", "Neg", {"x"});
  Add(&g, "ta", "Transpose", {"a", "perm"});
  Add(&g, "tb", "Transpose", {"b", "perm"});
  Add(&g, "sum", "AddV2", {"ta", "tb"});
  NodeDef* two = Add(&g, "two", "Const", {});
  (*two->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  Tensor t2 = *Tensor::Allocate(DType::kFloat32, Shape({}));
  t2.mutable_data<float>()[0] = 2;
  w["two"] = t2;
  Add(&g, "scaled", "Mul", {"two", "sum"});
  Add(&g, "out", "Transpose", {"scaled", "inverse"});
  const Tensor before = RunOnX(g, w, "out");
  EXPECT_GE(SinkTransposes(&g, w, {"x", "out"}), 3);
  // What is left of the four transposes: the cancelled pair's Identity.
  EXPECT_EQ(CountOp(g, "Transpose"), 0);
  EXPECT_TRUE(RunOnX(g, w, "out").IdenticalTo(before));
}

}  // namespace
}  // namespace graphrt::passes
