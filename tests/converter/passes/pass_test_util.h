// Helpers of the graph-pass tests: building small GraphDefs with weights
// and running them.
#ifndef GRAPHRT_TESTS_CONVERTER_PASSES_PASS_TEST_UTIL_H_
#define GRAPHRT_TESTS_CONVERTER_PASSES_PASS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "converter/graph.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"
#include "runtime/executor.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt::passes::test_util {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// Adds node `name` = op(inputs) (attr T / dtype float32 where it applies).
inline NodeDef* Add(GraphDef* g, const std::string& name, const std::string& op,
                    std::vector<std::string> inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& in : inputs) n->add_input(in);
  if (op == "Placeholder") {
    (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  } else if (op != "Const" && op != "NoOp") {
    (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  }
  return n;
}

// A float32 Const weight of `shape`, every value 0.5.
inline void ConstWeight(GraphDef* g, WeightMap* w, const std::string& name,
                        const Shape& shape) {
  NodeDef* n = Add(g, name, "Const", {});
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  Tensor t = *Tensor::Allocate(DType::kFloat32, shape);
  for (float& v : t.mutable_span<float>()) v = 0.5f;
  (*w)[name] = t;
}

// A float32 Const weight of `shape`, values uniform in [-1, 1) from `rng`.
inline void RandomWeight(GraphDef* g, WeightMap* w, const std::string& name,
                         const Shape& shape, std::mt19937* rng) {
  NodeDef* n = Add(g, name, "Const", {});
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  Tensor t = *Tensor::Allocate(DType::kFloat32, shape);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& v : t.mutable_span<float>()) v = u(*rng);
  (*w)[name] = t;
}

// Stride 1, SAME padding.
inline void ConvAttrs(NodeDef* n) {
  auto& a = *n->mutable_attr();
  for (int i = 0; i < 4; ++i) a["strides"].mutable_list()->add_i(1);
  a["padding"].set_s("SAME");
}

inline const NodeDef* Find(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

inline std::vector<std::string> FusedOps(const NodeDef& n) {
  std::vector<std::string> ops;
  for (const auto& s : n.attr().at("fused_ops").list().s()) ops.push_back(s);
  return ops;
}

// An int32 [n] (or [rows, 2] when `pairs`) weight, as TF.js stores Consts.
inline void IntWeight(GraphDef* g, WeightMap* w, const std::string& name,
                      const std::vector<int32_t>& values, bool pairs = false) {
  NodeDef* n = Add(g, name, "Const", {});
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  const int64_t size = static_cast<int64_t>(values.size());
  Tensor t = *Tensor::Allocate(DType::kInt32,
                               pairs ? Shape({size / 2, 2}) : Shape({size}));
  for (int64_t i = 0; i < size; ++i) t.mutable_data<int32_t>()[i] = values[i];
  (*w)[name] = t;
}

// Builds `g` and runs it on the Placeholder "x" = `x`; returns `fetch`.
inline Tensor RunGraph(const GraphDef& g, const WeightMap& w, const Tensor& x,
                       const std::string& fetch = "out") {
  auto graph = Graph::Build(g, w, BuiltinOps(), "test");
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return Tensor();
  ResourceManager resources;
  Executor exec(graph->get(), &resources, nullptr);
  auto out = exec.Run({{*(*graph)->ResolveTensor("x"), x}},
                      {*(*graph)->ResolveTensor(fetch)});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// Runs `g` on x = [1, 4, 5, 3] of distinct values (negatives included);
// returns `fetch`.
inline Tensor RunOnX(const GraphDef& g, const WeightMap& w,
                     const std::string& fetch) {
  Tensor x = *Tensor::Allocate(DType::kFloat32, Shape({1, 4, 5, 3}));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.mutable_data<float>()[i] = static_cast<float>(i % 7) - 3.5f + i;
  }
  return RunGraph(g, w, x, fetch);
}

// `got` has `want`'s shape and each float32 value within rel * (1 +
// |want|) of it.
inline void ExpectNearValues(const Tensor& got, const Tensor& want, float rel) {
  ASSERT_TRUE(want.valid() && got.valid());
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const float b = want.data<float>()[i];
    EXPECT_NEAR(got.data<float>()[i], b, rel * (1 + std::fabs(b))) << i;
  }
}

inline int CountOp(const GraphDef& g, const std::string& op) {
  int count = 0;
  for (const NodeDef& n : g.node()) count += n.op() == op;
  return count;
}

}  // namespace graphrt::passes::test_util

#endif  // GRAPHRT_TESTS_CONVERTER_PASSES_PASS_TEST_UTIL_H_
