// v1 control flow (frames, iterations, dead tensors) through the executor,
// on hand-built graphs shaped like TensorFlow's lowered while loops and
// conds.
#include <gtest/gtest.h>

#include "absl/strings/str_replace.h"
#include "google/protobuf/text_format.h"
#include "ops/registry.h"
#include "runtime/executor.h"

namespace graphrt {
namespace {

std::unique_ptr<Graph> BuildGraph(const std::string& text, WeightMap weights) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  auto g = Graph::Build(def, weights, BuiltinOps(), "test graph");
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(*g) : nullptr;
}

constexpr char kT[] = R"(attr { key: "T" value { type: DT_INT32 } })";

// i = 0; acc = 0; while (i < n) { i += 1; acc += i; } -> (i, acc)
std::string WhileLoop(const std::string& frame = "loop",
                      const std::string& prefix = "") {
  std::string g = R"pb(
    node { name: "P_enter_i" op: "Enter" input: "zero" attr { key: "frame_name" value { s: "FRAME" } } }
    node { name: "P_enter_acc" op: "Enter" input: "zero" attr { key: "frame_name" value { s: "FRAME" } } }
    node { name: "P_enter_n" op: "Enter" input: "n"
           attr { key: "frame_name" value { s: "FRAME" } } attr { key: "is_constant" value { b: true } } }
    node { name: "P_enter_one" op: "Enter" input: "one"
           attr { key: "frame_name" value { s: "FRAME" } } attr { key: "is_constant" value { b: true } } }
    node { name: "P_merge_i" op: "Merge" input: "P_enter_i" input: "P_next_i" }
    node { name: "P_merge_acc" op: "Merge" input: "P_enter_acc" input: "P_next_acc" }
    node { name: "P_less" op: "Less" input: "P_merge_i" input: "P_enter_n" $T }
    node { name: "P_cond" op: "LoopCond" input: "P_less" }
    node { name: "P_switch_i" op: "Switch" input: "P_merge_i" input: "P_cond" }
    node { name: "P_switch_acc" op: "Switch" input: "P_merge_acc" input: "P_cond" }
    node { name: "P_i1" op: "AddV2" input: "P_switch_i:1" input: "P_enter_one" $T }
    node { name: "P_acc1" op: "AddV2" input: "P_switch_acc:1" input: "P_i1" $T }
    node { name: "P_next_i" op: "NextIteration" input: "P_i1" }
    node { name: "P_next_acc" op: "NextIteration" input: "P_acc1" }
    node { name: "P_exit_i" op: "Exit" input: "P_switch_i" }
    node { name: "P_exit_acc" op: "Exit" input: "P_switch_acc" }
  )pb";
  return absl::StrReplaceAll(g, {{"FRAME", frame}, {"P_", prefix}, {"$T", kT}});
}

constexpr char kConsts[] = R"pb(
  node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
)pb";

WeightMap Consts() {
  WeightMap w;
  w["zero"] = Tensor::Scalar<int32_t>(0);
  w["one"] = Tensor::Scalar<int32_t>(1);
  return w;
}

class ControlFlowTest : public ::testing::TestWithParam<int> {
 protected:
  absl::StatusOr<std::vector<Tensor>> Run(const Graph& g, int32_t n,
                                          std::vector<std::string> fetches) {
    std::vector<Endpoint> eps;
    for (const auto& f : fetches) eps.push_back(*g.ResolveTensor(f));
    std::vector<Feed> feeds = {{{*g.FindNode("n"), 0}, Tensor::Scalar<int32_t>(n)}};
    oneapi::tbb::task_arena arena(GetParam());
    Executor exec(&g, &resources_, GetParam() > 1 ? &arena : nullptr);
    return exec.Run(feeds, eps);
  }
  ResourceManager resources_;
};

TEST_P(ControlFlowTest, WhileLoopAnyTripCount) {
  auto g = BuildGraph(std::string(kConsts) + WhileLoop(), Consts());
  ASSERT_NE(g, nullptr);
  for (int32_t n : {0, 1, 5, 1000, 20000}) {
    auto out = Run(*g, n, {"exit_i", "exit_acc"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int32_t>()[0], n);
    int64_t sum = static_cast<int64_t>(n) * (n + 1) / 2;
    EXPECT_EQ((*out)[1].data<int32_t>()[0], static_cast<int32_t>(sum)) << n;
  }
}

TEST_P(ControlFlowTest, NestedLoops) {
  // Outer loop runs j = 0..n-1; its body runs an inner loop to n (constant
  // Enter of the outer frame's n) and adds its acc to the outer acc.
  std::string inner = absl::StrReplaceAll(WhileLoop("inner", "in_"), {
      {"input: \"zero\"", "input: \"o_zero_in\""},
      {"input: \"n\"", "input: \"o_enter_n\""},
      {"input: \"one\"", "input: \"o_enter_one\""}});
  std::string outer = absl::StrReplaceAll(WhileLoop("outer", "o_"), {
      {"input: \"o_switch_acc:1\" input: \"o_i1\"",
       "input: \"o_switch_acc:1\" input: \"in_exit_acc\""}});
  std::string extra = R"pb(
    node { name: "o_gate" op: "Identity" input: "o_switch_i:1" }
    node { name: "o_zero_in" op: "Identity" input: "o_enter_zero" input: "^o_gate" }
    node { name: "o_enter_zero" op: "Enter" input: "zero"
           attr { key: "frame_name" value { s: "outer" } } attr { key: "is_constant" value { b: true } } }
  )pb";
  auto g = BuildGraph(std::string(kConsts) + outer + inner + extra, Consts());
  ASSERT_NE(g, nullptr);
  auto out = Run(*g, 4, {"o_exit_i", "o_exit_acc"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 4);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 4 * 10);  // 4 outer x (1+2+3+4)
}

TEST_P(ControlFlowTest, LoweredCondTakesOneBranch) {
  // y = pred ? n * 2 : -n, as TF lowers tf.cond (Switch ... Merge).
  std::string g = std::string(kConsts) + R"pb(
    node { name: "pred" op: "Less" input: "n" input: "one" $T }
    node { name: "sw" op: "Switch" input: "n" input: "pred" }
    node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "t" op: "Mul" input: "sw:1" input: "two" $T }
    node { name: "f" op: "Sub" input: "zero" input: "sw:0" $T }
    node { name: "m" op: "Merge" input: "f" input: "t" }
    node { name: "only_true" op: "Identity" input: "t" }
  )pb";
  WeightMap w = Consts();
  w["two"] = Tensor::Scalar<int32_t>(2);
  auto graph = BuildGraph(absl::StrReplaceAll(g, {{"$T", kT}}), w);
  ASSERT_NE(graph, nullptr);
  auto neg = Run(*graph, 7, {"m", "m:1"});
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_EQ((*neg)[0].data<int32_t>()[0], -7);
  EXPECT_EQ((*neg)[1].data<int32_t>()[0], 0);  // value_index
  auto pos = Run(*graph, -3, {"m", "m:1"});
  ASSERT_TRUE(pos.ok()) << pos.status();
  EXPECT_EQ((*pos)[0].data<int32_t>()[0], -6);
  EXPECT_EQ((*pos)[1].data<int32_t>()[0], 1);
  auto dead = Run(*graph, 7, {"only_true"});
  ASSERT_FALSE(dead.ok());
  EXPECT_NE(dead.status().message().find("not computed"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Threads, ControlFlowTest, ::testing::Values(1, 2));

TEST(ControlFlowErrors, ExitOutsideLoop) {
  auto g = BuildGraph(std::string(kConsts) +
                          R"pb(node { name: "x" op: "Exit" input: "n" })pb",
                      Consts());
  ASSERT_NE(g, nullptr);
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  std::vector<Feed> feeds = {{{*g->FindNode("n"), 0}, Tensor::Scalar<int32_t>(1)}};
  auto out = exec.Run(feeds, {{*g->FindNode("x"), 0}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("outside any loop"), std::string::npos);
}

}  // namespace
}  // namespace graphrt
