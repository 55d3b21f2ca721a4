// FuseResizeAdd (converter/passes/passes.h) and the _ResizeBilinearAdd
// kernel it builds (ops/nn/resize.cc): which Adds it takes and leaves, and
// that the fused node computes the unfused graph's values, in place or
// not, with an addend of the output's shape or a broadcast one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "converter/graph.h"
#include "converter/passes/passes.h"
#include "ops/builtin_ops.h"
#include "proto/graph.pb.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"
#include "tests/converter/passes/pass_test_util.h"

namespace graphrt::passes {
namespace {

using namespace ::graphrt::passes::test_util;  // NOLINT: test helpers

// out = Neg(AddV2(ResizeBilinear(x, size), y)), y = Neg(x2x) where x2x is
// x upsampled by nearest neighbour (a computed addend of the output's
// shape, which the fused node may overwrite), or a Const of `addend_shape`
// (broadcast) when given. `resize_first`: the resize is the Add's input 0.
struct ResizeAddGraph {
  GraphDef g;
  WeightMap w;
  ResizeAddGraph(bool resize_first, std::vector<int64_t> addend_shape = {}) {
    Add(&g, "x", "Placeholder", {});
    NodeDef* size = Add(&g, "size", "Const", {});
    (*size->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    w["size"] = Tensor::FromVector<int32_t>({14, 18}, Shape({2}));
    NodeDef* r = Add(&g, "resize", "ResizeBilinear", {"x", "size"});
    (*r->mutable_attr())["half_pixel_centers"].set_b(true);
    std::string y = "y";
    if (addend_shape.empty()) {
      NodeDef* near = Add(&g, "near", "ResizeNearestNeighbor", {"x", "size"});
      (*near->mutable_attr())["half_pixel_centers"].set_b(true);
      Add(&g, "y", "Neg", {"near"});
    } else {
      ConstWeight(&g, &w, "y", Shape(absl::MakeConstSpan(addend_shape)));
      float* v = w["y"].mutable_data<float>();
      for (int64_t i = 0; i < w["y"].num_elements(); ++i) {
        v[i] = 0.1f * static_cast<float>(i % 13) - 0.4f;
      }
    }
    if (resize_first) {
      Add(&g, "sum", "AddV2", {"resize", y});
    } else {
      Add(&g, "sum", "AddV2", {y, "resize"});
    }
    Add(&g, "out", "Neg", {"sum"});
  }
};

Tensor Input() {
  Tensor x = *Tensor::Allocate(DType::kFloat32, Shape({2, 7, 9, 5}));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.mutable_data<float>()[i] = 0.37f * static_cast<float>((i * 31) % 41 - 20);
  }
  return x;
}

TEST(FuseResizeAddTest, FusesAndKeepsTheValues) {
  for (const bool resize_first : {true, false}) {
    SCOPED_TRACE(testing::Message() << "resize first " << resize_first);
    ResizeAddGraph m(resize_first);
    const Tensor want = RunGraph(m.g, m.w, Input());
    ASSERT_EQ(FuseResizeAdd(&m.g, {}), 1);
    const NodeDef* sum = Find(m.g, "sum");
    ASSERT_NE(sum, nullptr);
    EXPECT_EQ(sum->op(), "_ResizeBilinearAdd");
    ASSERT_EQ(sum->input_size(), 3);
    EXPECT_EQ(sum->input(0), "x");
    EXPECT_EQ(sum->input(2), "y");
    EXPECT_TRUE(sum->attr().at("half_pixel_centers").b());
    EXPECT_EQ(Find(m.g, "resize"), nullptr);
    ExpectNearValues(RunGraph(m.g, m.w, Input()), want, 2e-7f);
  }
}

// An addend of another shape broadcasts, as the Add did.
TEST(FuseResizeAddTest, BroadcastsAnAddendOfAnotherShape) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{5}, {1, 18, 5}}) {
    ResizeAddGraph m(true, shape);
    const Tensor want = RunGraph(m.g, m.w, Input());
    ASSERT_EQ(FuseResizeAdd(&m.g, {}), 1);
    ExpectNearValues(RunGraph(m.g, m.w, Input()), want, 2e-7f);
  }
}

TEST(FuseResizeAddTest, LeavesSharedOrKeptResizes) {
  {
    ResizeAddGraph m(true);
    Add(&m.g, "other", "Neg", {"resize"});
    EXPECT_EQ(FuseResizeAdd(&m.g, {}), 0);
  }
  {
    ResizeAddGraph m(true);
    EXPECT_EQ(FuseResizeAdd(&m.g, {"resize"}), 0);
  }
  {
    // Not float32.
    ResizeAddGraph m(true);
    for (NodeDef& n : *m.g.mutable_node()) {
      if (n.name() == "sum") {
        (*n.mutable_attr())["T"].set_type(tensorflow::DT_DOUBLE);
      }
    }
    EXPECT_EQ(FuseResizeAdd(&m.g, {}), 0);
  }
}

TEST(FuseResizeAddTest, RunsInOptimizeInferenceGraph) {
  ResizeAddGraph m(true);
  const Tensor want = RunGraph(m.g, m.w, Input());
  const PassStats stats = OptimizeInferenceGraph(&m.g, &m.w, {"x", "out"});
  EXPECT_EQ(stats.resize_adds_fused, 1);
  ExpectNearValues(RunGraph(m.g, m.w, Input()), want, 2e-7f);
}

// A fed addend of the wrong dtype is an error naming it, not a crash.
TEST(FuseResizeAddTest, KernelRejectsANonFloatAddend) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  NodeDef* size = Add(&g, "size", "Const", {});
  (*size->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  w["size"] = Tensor::FromVector<int32_t>({4, 4}, Shape({2}));
  NodeDef* y = Add(&g, "y", "Const", {});
  (*y->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  w["y"] = Tensor::FromVector<int32_t>({1}, Shape({1}));
  Add(&g, "out", "_ResizeBilinearAdd", {"x", "size", "y"});
  auto graph = Graph::Build(g, w, BuiltinOps(), "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ResourceManager resources;
  Executor exec(graph->get(), &resources, nullptr);
  Tensor x = *Tensor::Allocate(DType::kFloat32, Shape({1, 2, 2, 1}));
  auto out = exec.Run({{*(*graph)->ResolveTensor("x"), x}},
                      {*(*graph)->ResolveTensor("out")});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("float32 addend"), std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace graphrt::passes
