// FoldConstants (converter/passes/passes.h): nodes of constant inputs run
// once at load and become Consts; what must stay a node stays one.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "google/protobuf/text_format.h"
#include "ops/builtin_ops.h"
#include "runtime/function_library.h"
#include "tests/converter/passes/pass_test_util.h"

namespace graphrt::passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;
using test_util::Add;
using test_util::ConstWeight;
using test_util::CountOp;
using test_util::Find;
using test_util::IntWeight;
using test_util::RunOnX;

// x + relu(a * b + c) for a, b [3] and a scalar c (0.5 each): the Mul, the
// Add and the Relu fold, a, b and c go; x's Add stays.
TEST(FoldConstantsTest, FoldsChainsAndDropsTheirConsts) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  ConstWeight(&g, &w, "a", Shape({3}));
  ConstWeight(&g, &w, "b", Shape({3}));
  ConstWeight(&g, &w, "one", Shape({}));
  Add(&g, "mul", "Mul", {"a", "b"});
  Add(&g, "plus", "AddV2", {"mul", "one"});
  Add(&g, "relu", "Relu", {"plus"});
  Add(&g, "out", "AddV2", {"x", "relu"});
  const Tensor before = RunOnX(g, w, "out");
  EXPECT_EQ(FoldConstants(&g, &w, {}, BuiltinOps()), 3);
  EXPECT_EQ(Find(g, "relu")->op(), "Const");
  EXPECT_EQ(Find(g, "out")->op(), "AddV2");
  for (const char* gone : {"a", "b", "one", "mul", "plus"}) {
    EXPECT_EQ(Find(g, gone), nullptr) << gone;
    EXPECT_FALSE(w.contains(gone)) << gone;
  }
  ASSERT_TRUE(w.contains("relu"));
  EXPECT_EQ(w["relu"].shape(), Shape({3}));
  EXPECT_EQ(w["relu"].data<float>()[0], 0.75f);
  EXPECT_TRUE(RunOnX(g, w, "out").IdenticalTo(before));
}

// Outputs above 0: Unpack of a [2, 3] Const read at :1 becomes a Const of its
// own, and the reader is rewired to it. Shape / Cast / Reshape fold too.
TEST(FoldConstantsTest, OtherOutputsBecomeTheirOwnConsts) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  ConstWeight(&g, &w, "pair", Shape({2, 3}));
  NodeDef* unpack = Add(&g, "unpack", "Unpack", {"pair"});
  (*unpack->mutable_attr())["num"].set_i(2);
  (*unpack->mutable_attr())["axis"].set_i(0);
  Add(&g, "second", "Neg", {"unpack:1"});
  NodeDef* shape = Add(&g, "shape", "Shape", {"pair"});
  (*shape->mutable_attr())["out_type"].set_type(tensorflow::DT_INT32);
  NodeDef* cast = Add(&g, "cast", "Cast", {"shape"});
  cast->mutable_attr()->erase("T");
  (*cast->mutable_attr())["SrcT"].set_type(tensorflow::DT_INT32);
  (*cast->mutable_attr())["DstT"].set_type(tensorflow::DT_FLOAT);
  // sum = cast - 0.5 (a scalar Const): [2, 3] - 0.5.
  ConstWeight(&g, &w, "minus", Shape({}));
  Add(&g, "sum", "Sub", {"cast", "minus"});
  const Tensor second_before = RunOnX(g, w, "second");
  // unpack, second, shape, cast, sum.
  EXPECT_EQ(FoldConstants(&g, &w, {}, BuiltinOps()), 5);
  EXPECT_EQ(Find(g, "pair"), nullptr);    // only folded nodes read it
  EXPECT_EQ(Find(g, "unpack"), nullptr);  // its output 0 had no reader
  const NodeDef* split_out = Find(g, "unpack/_folded_1");
  ASSERT_NE(split_out, nullptr);
  EXPECT_EQ(split_out->op(), "Const");
  EXPECT_EQ(Find(g, "second")->op(), "Const");
  EXPECT_TRUE(RunOnX(g, w, "second").IdenticalTo(second_before));
  ASSERT_TRUE(w.contains("sum"));
  EXPECT_EQ(w["sum"].shape(), Shape({2}));
  EXPECT_EQ(w["sum"].data<float>()[0], 1.5f);  // 2 - 0.5
  EXPECT_EQ(w["sum"].data<float>()[1], 2.5f);  // 3 - 0.5
}

TEST(FoldConstantsTest, LeavesWhatMustRun) {
  GraphDef g;
  WeightMap w;
  Add(&g, "x", "Placeholder", {});
  IntWeight(&g, &w, "dims", {2, 2});
  // Random: its value is not a function of its inputs.
  NodeDef* random = Add(&g, "random", "RandomUniform", {"dims"});
  random->mutable_attr()->erase("T");
  (*random->mutable_attr())["T"].set_type(tensorflow::DT_INT32);
  (*random->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  // Named in keep (a signature output).
  ConstWeight(&g, &w, "c", Shape({3}));
  Add(&g, "kept", "Neg", {"c"});
  // A big value from small inputs: Fill [512, 512] of a scalar (1 MiB).
  IntWeight(&g, &w, "big_dims", {512, 512});
  ConstWeight(&g, &w, "half", Shape({}));
  NodeDef* fill = Add(&g, "fill", "Fill", {"big_dims", "half"});
  (*fill->mutable_attr())["index_type"].set_type(tensorflow::DT_INT32);
  // A Const with a control input (it may sit in a loop frame).
  ConstWeight(&g, &w, "framed", Shape({3}));
  g.mutable_node(g.node_size() - 1)->add_input("^x");
  Add(&g, "from_framed", "Neg", {"framed"});
  // A kernel that fails: Reshape of 3 values to [2, 2].
  IntWeight(&g, &w, "bad_shape", {2, 2});
  NodeDef* reshape = Add(&g, "bad", "Reshape", {"c", "bad_shape"});
  (*reshape->mutable_attr())["Tshape"].set_type(tensorflow::DT_INT32);
  const int nodes = g.node_size();
  EXPECT_EQ(FoldConstants(&g, &w, {"kept"}, BuiltinOps()), 0);
  EXPECT_EQ(g.node_size(), nodes);
  EXPECT_EQ(CountOp(g, "RandomUniform"), 1);
  EXPECT_EQ(Find(g, "kept")->op(), "Neg");
  EXPECT_EQ(Find(g, "fill")->op(), "Fill");
  EXPECT_EQ(Find(g, "from_framed")->op(), "Neg");
  EXPECT_EQ(Find(g, "bad")->op(), "Reshape");
}

// Through OptimizeInferenceGraph: only with a registry, and a folded bias
// still fuses into the convolution after it.
TEST(FoldConstantsTest, RunsInOptimizeInferenceGraphBeforeTheFusions) {
  auto build = [](GraphDef* g, WeightMap* w) {
    Add(g, "x", "Placeholder", {});
    ConstWeight(g, w, "filter", Shape({1, 1, 3, 4}));
    ConstWeight(g, w, "b0", Shape({4}));
    ConstWeight(g, w, "b1", Shape({4}));
    Add(g, "bias", "AddV2", {"b0", "b1"});
    test_util::ConvAttrs(Add(g, "conv", "Conv2D", {"x", "filter"}));
    Add(g, "out", "BiasAdd", {"conv", "bias"});
  };
  GraphDef g;
  WeightMap w;
  build(&g, &w);
  const Tensor before = RunOnX(g, w, "out");
  GraphDef plain = g;
  WeightMap plain_w = w;
  EXPECT_EQ(OptimizeInferenceGraph(&plain, &plain_w, {"out"}).constants_folded,
            0);
  const PassStats stats =
      OptimizeInferenceGraph(&g, &w, {"out"}, &BuiltinOps());
  EXPECT_EQ(stats.constants_folded, 1);
  EXPECT_EQ(stats.convs_fused, 1);
  EXPECT_EQ(CountOp(g, "_FusedConv2D"), 1);
  EXPECT_EQ(CountOp(g, "AddV2"), 0);
  EXPECT_TRUE(RunOnX(g, w, "out").IdenticalTo(before));
}

// If / StatelessIf of a constant condition: a call of the taken branch.
constexpr char kBranches[] = R"pb(
  library {
    function {
      signature {
        name: "double_fn"
        input_arg { name: "x" type: DT_INT32 }
        output_arg { name: "y" type: DT_INT32 }
      }
      node_def {
        name: "y"
        op: "AddV2"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "y" value: "y:z:0" }
    }
    function {
      signature {
        name: "negate_fn"
        input_arg { name: "x" type: DT_INT32 }
        output_arg { name: "y" type: DT_INT32 }
      }
      node_def {
        name: "y"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "y" value: "y:y:0" }
    }
  }
  node {
    name: "n"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "yes"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_BOOL
          tensor_shape {}
          bool_val: true
        }
      }
    }
  }
  node {
    name: "zero"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 0
        }
      }
    }
  }
  node {
    name: "a"
    op: "StatelessIf"
    input: "yes"
    input: "n"
    attr {
      key: "then_branch"
      value { func { name: "double_fn" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "negate_fn" } }
    }
  }
  node {
    name: "b"
    op: "If"
    input: "zero"
    input: "n"
    attr {
      key: "then_branch"
      value { func { name: "double_fn" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "negate_fn" } }
    }
  }
  node {
    name: "c"
    op: "If"
    input: "n"
    input: "n"
    attr {
      key: "then_branch"
      value { func { name: "double_fn" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "negate_fn" } }
    }
  }
)pb";

std::vector<int32_t> RunBranches(const GraphDef& def, int32_t n) {
  WeightMap weights;
  ModelFunctionLibrary library(def.library(), &weights, &BuiltinOps());
  auto g = Graph::Build(def, weights, BuiltinOps(), "graph", &library);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  ResourceManager resources;
  Executor exec(g->get(), &resources, nullptr);
  auto ep = [&](const char* name) { return *(*g)->ResolveTensor(name); };
  auto out = exec.Run({{ep("n"), Tensor::Scalar<int32_t>(n)}},
                      {ep("a"), ep("b"), ep("c")});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  return {(*out)[0].data<int32_t>()[0], (*out)[1].data<int32_t>()[0],
          (*out)[2].data<int32_t>()[0]};
}

TEST(PruneConstantBranchesTest, ConstantConditionsCallTheirBranch) {
  GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kBranches, &def));
  EXPECT_EQ(RunBranches(def, 5), (std::vector<int32_t>{10, -5, 10}));
  EXPECT_EQ(PruneConstantBranches(&def, {}, {}), 2);
  const NodeDef& a = *Find(def, "a");
  EXPECT_EQ(a.op(), "PartitionedCall");
  EXPECT_EQ(a.attr().at("f").func().name(), "double_fn");
  EXPECT_EQ(a.input_size(), 2);
  EXPECT_EQ(a.input(0), "n");
  EXPECT_EQ(a.input(1), "^yes");
  EXPECT_FALSE(a.attr().contains("then_branch"));
  const NodeDef& b = *Find(def, "b");
  EXPECT_EQ(b.op(), "StatefulPartitionedCall");            // If is stateful
  EXPECT_EQ(b.attr().at("f").func().name(), "negate_fn");  // 0.0 is false
  EXPECT_EQ(Find(def, "c")->op(), "If");  // a fed condition stays
  EXPECT_EQ(RunBranches(def, 5), (std::vector<int32_t>{10, -5, 10}));
  EXPECT_EQ(RunBranches(def, 0), (std::vector<int32_t>{0, 0, 0}));
}

}  // namespace
}  // namespace graphrt::passes
