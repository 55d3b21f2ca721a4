// PruneDeadSwitches (converter/passes/passes.h): a TF1 tf.cond on a frozen
// predicate loses its Switch / Merge frame and the branch it never takes;
// the values are those the dataflow executor computes on the graph as
// written.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_replace.h"
#include "converter/passes/passes.h"
#include "google/protobuf/text_format.h"
#include "ops/builtin_ops.h"
#include "tests/converter/passes/pass_test_util.h"

namespace graphrt::passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;
using test_util::CountOp;
using test_util::Find;
using test_util::RunOnX;

// out = relu(cond(pred, x + 1, x * 2)) as TF1's tf.cond writes it: a
// Switch of the predicate on itself whose outputs' Identities are the
// branches' pivots (their Consts hang off them by control edges), one
// Switch per input the branches read (predicate through pred_id), and a
// Merge of the branches.
GraphDef CondGraph(bool pred) {
  const std::string text = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "pred"
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
            bool_val: PRED
          }
        }
      }
    }
    node { name: "cond/pred_id" op: "Identity" input: "pred" }
    node {
      name: "cond/Switch"
      op: "Switch"
      input: "pred"
      input: "pred"
      attr {
        key: "T"
        value { type: DT_BOOL }
      }
    }
    node { name: "cond/switch_t" op: "Identity" input: "cond/Switch:1" }
    node { name: "cond/switch_f" op: "Identity" input: "cond/Switch" }
    node {
      name: "cond/Switch_1"
      op: "Switch"
      input: "x"
      input: "cond/pred_id"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "cond/add/y"
      op: "Const"
      input: "^cond/switch_t"
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
            float_val: 1
          }
        }
      }
    }
    node {
      name: "cond/add"
      op: "AddV2"
      input: "cond/Switch_1:1"
      input: "cond/add/y"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "cond/mul/y"
      op: "Const"
      input: "^cond/switch_f"
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
            float_val: 2
          }
        }
      }
    }
    node {
      name: "cond/mul"
      op: "Mul"
      input: "cond/Switch_1"
      input: "cond/mul/y"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "cond/Merge"
      op: "Merge"
      input: "cond/mul"
      input: "cond/add"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "N"
        value { i: 2 }
      }
    }
    node {
      name: "out"
      op: "Relu"
      input: "cond/Merge"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrReplaceAll(text, {{"PRED", pred ? "true" : "false"}}), &g));
  return g;
}

void ExpectNoFrame(const GraphDef& g) {
  EXPECT_EQ(CountOp(g, "Switch"), 0);
  EXPECT_EQ(CountOp(g, "Merge"), 0);
}

TEST(PruneDeadSwitchesTest, FalsePredicateKeepsTheElseBranch) {
  GraphDef g = CondGraph(false);
  const Tensor before = RunOnX(g, {}, "out");
  EXPECT_EQ(PruneDeadSwitches(&g, {}, {"x", "out"}), 2);
  ExpectNoFrame(g);
  // The then branch, its pivot and Const, and pred_id (which only the
  // Switches read) go: no new sinks. The predicate stays, the data of the
  // Switch on itself, now the else pivot's input.
  for (const char* gone :
       {"cond/add", "cond/add/y", "cond/switch_t", "cond/pred_id"}) {
    EXPECT_EQ(Find(g, gone), nullptr) << gone;
  }
  ASSERT_NE(Find(g, "pred"), nullptr);
  ASSERT_NE(Find(g, "cond/mul"), nullptr);
  ASSERT_NE(Find(g, "cond/Merge"), nullptr);
  EXPECT_EQ(Find(g, "cond/Merge")->op(), "Identity");
  EXPECT_EQ(Find(g, "cond/Switch_1")->op(), "Identity");
  const Tensor after = RunOnX(g, {}, "out");
  EXPECT_TRUE(after.IdenticalTo(before));
  // relu(x * 2) on RunOnX's x.
  const float x1 = static_cast<float>(1 % 7) - 3.5f + 1;
  EXPECT_EQ(after.data<float>()[1], x1 * 2 > 0 ? x1 * 2 : 0);
}

TEST(PruneDeadSwitchesTest, TruePredicateKeepsTheThenBranch) {
  GraphDef g = CondGraph(true);
  const Tensor before = RunOnX(g, {}, "out");
  EXPECT_EQ(PruneDeadSwitches(&g, {}, {"x", "out"}), 2);
  ExpectNoFrame(g);
  for (const char* gone : {"cond/mul", "cond/mul/y", "cond/pred_id"}) {
    EXPECT_EQ(Find(g, gone), nullptr) << gone;
  }
  // switch_f read Switch:0, which is dead now.
  EXPECT_EQ(Find(g, "cond/switch_f"), nullptr);
  // Readers of the taken output 1 read the Identity's output 0.
  EXPECT_EQ(Find(g, "cond/add")->input(0), "cond/Switch_1");
  EXPECT_TRUE(RunOnX(g, {}, "out").IdenticalTo(before));
}

// A branch that passes its input through: the Merge reads the Switch's
// output itself (cond(pred, lambda: x, lambda: x * 2)).
TEST(PruneDeadSwitchesTest, PassThroughBranches) {
  for (bool pred : {false, true}) {
    SCOPED_TRACE(pred ? "true" : "false");
    GraphDef g = CondGraph(pred);
    for (auto& n : *g.mutable_node()) {
      if (n.name() == "cond/Merge") n.set_input(1, "cond/Switch_1:1");
    }
    const Tensor before = RunOnX(g, {}, "out");
    EXPECT_EQ(PruneDeadSwitches(&g, {}, {"x", "out"}), 2);
    ExpectNoFrame(g);
    const NodeDef* merge = Find(g, "cond/Merge");
    ASSERT_NE(merge, nullptr);
    EXPECT_EQ(merge->op(), "Identity");
    ASSERT_EQ(merge->input_size(), 1);
    EXPECT_EQ(merge->input(0), pred ? "cond/Switch_1" : "cond/mul");
    EXPECT_TRUE(RunOnX(g, {}, "out").IdenticalTo(before));
  }
}

TEST(PruneDeadSwitchesTest, LeavesWhatMustStay) {
  {  // A predicate that can be fed.
    GraphDef g = CondGraph(false);
    for (auto& n : *g.mutable_node()) {
      if (n.name() == "pred") {
        n.set_op("PlaceholderWithDefault");
        n.mutable_attr()->erase("value");
        n.add_input("x");  // shape only matters to TF; never run here
      }
    }
    EXPECT_EQ(PruneDeadSwitches(&g, {}, {"x", "out"}), 0);
  }
  {  // A kept node in the dead branch.
    GraphDef g = CondGraph(false);
    EXPECT_EQ(PruneDeadSwitches(&g, {}, {"x", "out", "cond/add"}), 0);
    EXPECT_EQ(CountOp(g, "Switch"), 2);
  }
  {  // The Merge's value_index is read: its numbering would change.
    GraphDef g = CondGraph(false);
    auto* index = g.add_node();
    index->set_name("which");
    index->set_op("Identity");
    index->add_input("cond/Merge:1");
    EXPECT_EQ(PruneDeadSwitches(&g, {}, {"x", "out", "which"}), 0);
  }
  {  // The predicate's Const has a control input (a Const inside a frame).
    GraphDef g = CondGraph(true);
    for (auto& n : *g.mutable_node()) {
      if (n.name() == "pred") n.add_input("^x");
    }
    EXPECT_EQ(PruneDeadSwitches(&g, {}, {"x", "out"}), 0);
  }
}

// In OptimizeInferenceGraph the graph leaves the dataflow executor's
// domain, and RemoveIdentities, which skips graphs with v1 control flow,
// then runs.
TEST(PruneDeadSwitchesTest, RunsInOptimizeInferenceGraph) {
  GraphDef g = CondGraph(false);
  const Tensor before = RunOnX(g, {}, "out");
  WeightMap w;
  const PassStats stats =
      OptimizeInferenceGraph(&g, &w, {"x", "out"}, &BuiltinOps());
  EXPECT_EQ(stats.switches_pruned, 2);
  EXPECT_GT(stats.identities_removed, 0);
  ExpectNoFrame(g);
  EXPECT_EQ(Find(g, "cond/Merge"), nullptr);  // an Identity, removed
  EXPECT_TRUE(RunOnX(g, w, "out").IdenticalTo(before));
}

// Regression: transpose sinking (which skips graphs with v1 frames) ran
// before the pruning, so a graph whose every frame was pruned kept its
// Transposes: x -> Transpose(NCHW) -> Relu -> Transpose(NHWC) -> cond.
TEST(PruneDeadSwitchesTest, SinksTransposesOnceNoFrameIsLeft) {
  GraphDef g = CondGraph(true);
  WeightMap w;
  test_util::IntWeight(&g, &w, "to_nchw", {0, 3, 1, 2});
  test_util::IntWeight(&g, &w, "to_nhwc", {0, 2, 3, 1});
  NodeDef* t1 = test_util::Add(&g, "t1", "Transpose", {"x", "to_nchw"});
  (*t1->mutable_attr())["Tperm"].set_type(tensorflow::DT_INT32);
  test_util::Add(&g, "r", "Relu", {"t1"});
  NodeDef* t2 = test_util::Add(&g, "t2", "Transpose", {"r", "to_nhwc"});
  (*t2->mutable_attr())["Tperm"].set_type(tensorflow::DT_INT32);
  for (NodeDef& n : *g.mutable_node()) {
    if (n.name() == "cond/Switch_1") n.set_input(0, "t2");
  }
  const Tensor before = RunOnX(g, w, "out");
  const PassStats stats =
      OptimizeInferenceGraph(&g, &w, {"x", "out"}, &BuiltinOps());
  EXPECT_EQ(stats.switches_pruned, 2);
  ExpectNoFrame(g);
  EXPECT_GT(stats.transposes_sunk, 0);
  EXPECT_EQ(CountOp(g, "Transpose"), 0);
  EXPECT_TRUE(RunOnX(g, w, "out").IdenticalTo(before));
}

}  // namespace
}  // namespace graphrt::passes
