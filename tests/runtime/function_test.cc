// v2 control flow: While / If / PartitionedCall over a function library,
// including "node:out_arg:index" inputs inside function bodies.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/text_format.h"
#include "ops/registry.h"
#include "runtime/executor.h"
#include "runtime/function_library.h"

namespace graphrt {
namespace {

constexpr char kGraph[] = R"pb(
  library {
    function {
      signature {
        name: "cond_fn"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        output_arg { name: "out" type: DT_BOOL }
      }
      node_def { name: "less" op: "Less" input: "i" input: "n" $T }
      ret { key: "out" value: "less:z:0" }
    }
    function {
      signature {
        name: "body_fn"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        output_arg { name: "i_out" type: DT_INT32 }
        output_arg { name: "acc_out" type: DT_INT32 }
        output_arg { name: "n_out" type: DT_INT32 }
      }
      node_def { name: "one" op: "Const"
                 attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
      node_def { name: "i1" op: "AddV2" input: "i" input: "one:output:0" $T }
      node_def { name: "acc1" op: "AddV2" input: "acc" input: "i1:z:0" $T }
      node_def { name: "n_id" op: "Identity" input: "n" }
      ret { key: "i_out" value: "i1:z:0" }
      ret { key: "acc_out" value: "acc1:z:0" }
      ret { key: "n_out" value: "n_id:output:0" }
    }
    function {
      signature {
        name: "double_fn"
        input_arg { name: "x" type: DT_INT32 }
        output_arg { name: "y" type: DT_INT32 }
      }
      node_def { name: "y" op: "AddV2" input: "x" input: "x" $T }
      ret { key: "y" value: "y:z:0" }
    }
    function {
      signature {
        name: "negate_fn"
        input_arg { name: "x" type: DT_INT32 }
        output_arg { name: "y" type: DT_INT32 }
      }
      node_def { name: "zero" op: "Const"
                 attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
      node_def { name: "y" op: "Sub" input: "zero:output:0" input: "x" $T }
      ret { key: "y" value: "y:z:0" }
    }
    function {
      signature {
        name: "recursive_fn"
        input_arg { name: "x" type: DT_INT32 }
        output_arg { name: "y" type: DT_INT32 }
      }
      node_def { name: "call" op: "PartitionedCall" input: "x"
                 attr { key: "f" value { func { name: "recursive_fn" } } } }
      ret { key: "y" value: "call:output:0" }
    }
  }
  node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "loop" op: "StatelessWhile" input: "zero" input: "zero" input: "n"
         attr { key: "cond" value { func { name: "cond_fn" } } }
         attr { key: "body" value { func { name: "body_fn" } } } }
  node { name: "pred" op: "Less" input: "n" input: "zero" $T }
  node { name: "branch" op: "StatelessIf" input: "pred" input: "n"
         attr { key: "then_branch" value { func { name: "double_fn" } } }
         attr { key: "else_branch" value { func { name: "negate_fn" } } } }
  node { name: "call" op: "StatefulPartitionedCall" input: "loop:1"
         attr { key: "f" value { func { name: "double_fn" } } } }
)pb";

constexpr char kT[] = R"(attr { key: "T" value { type: DT_INT32 } })";

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrReplaceAll(text, {{"$T", kT}}), &def));
  return def;
}

// The nodes around a call of an int32-variable-assigning function `$F`:
// `var` (an int32 resource variable), the Placeholder `x`, `call` =
// StatefulPartitionedCall $F(var, x), and `read` of the variable after the
// call.
constexpr char kAssignCallerNodes[] = R"pb(
    node {
      name: "var"
      op: "VarHandleOp"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
      attr {
        key: "shape"
        value { shape {} }
      }
      attr {
        key: "shared_name"
        value { s: "v" }
      }
    }
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "call"
      op: "StatefulPartitionedCall"
      input: "var"
      input: "x"
      attr {
        key: "f"
        value { func { name: "$F" } }
      }
    }
    node {
      name: "read"
      op: "ReadVariableOp"
      input: "var"
      input: "^call"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
    }
  )pb";

// kAssignCallerNodes calling the FunctionDef `function` (text), named `name`.
tensorflow::GraphDef AssignCallerGraph(const std::string& name,
                                       const std::string& function) {
  return Parse(absl::StrCat(
      "library { function {", function, "} }",
      absl::StrReplaceAll(kAssignCallerNodes, {{"$F", name}})));
}

TEST(FunctionTest, WhileIfAndCalls) {
  tensorflow::GraphDef def = Parse(kGraph);
  // The recursive function is only compiled when something calls it.
  WeightMap weights;
  ModelFunctionLibrary library(def.library(), &weights, &BuiltinOps());
  auto g = Graph::Build(def, weights, BuiltinOps(), "graph", &library);
  ASSERT_TRUE(g.ok()) << g.status();
  ResourceManager resources;
  Executor exec(g->get(), &resources, nullptr);
  auto ep = [&](const char* name) { return *(*g)->ResolveTensor(name); };
  for (int32_t n : {0, 3, 10, -4}) {
    std::vector<Feed> feeds = {{ep("n"), Tensor::Scalar<int32_t>(n)}};
    auto out = exec.Run(feeds, {ep("loop:0"), ep("loop:1"), ep("branch"),
                                ep("call")});
    ASSERT_TRUE(out.ok()) << out.status();
    int32_t m = n > 0 ? n : 0;
    EXPECT_EQ((*out)[0].data<int32_t>()[0], m);
    EXPECT_EQ((*out)[1].data<int32_t>()[0], m * (m + 1) / 2);
    EXPECT_EQ((*out)[2].data<int32_t>()[0], n < 0 ? 2 * n : -n);
    EXPECT_EQ((*out)[3].data<int32_t>()[0], m * (m + 1));
  }
}

// The stateful forms While and If share the stateless kernels (TF only
// differs in what its own optimizer may prune); PlaceholderWithDefault
// yields its default unless fed.
TEST(FunctionTest, StatefulWhileIfAndPlaceholderWithDefault) {
  std::string text = absl::StrReplaceAll(
      kGraph, {{"op: \"StatelessWhile\"", "op: \"While\""},
               {"op: \"StatelessIf\"", "op: \"If\""},
               {R"(node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } })",
                R"(node { name: "n_default" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                          attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 4 } } } }
                   node { name: "n" op: "PlaceholderWithDefault" input: "n_default"
                          attr { key: "dtype" value { type: DT_INT32 } }
                          attr { key: "shape" value { shape {} } } })"}});
  ASSERT_EQ(text.find("StatelessWhile"), std::string::npos);
  ASSERT_EQ(text.find("StatelessIf"), std::string::npos);
  ASSERT_NE(text.find("PlaceholderWithDefault"), std::string::npos);
  tensorflow::GraphDef def = Parse(text);
  WeightMap weights;
  ModelFunctionLibrary library(def.library(), &weights, &BuiltinOps());
  auto g = Graph::Build(def, weights, BuiltinOps(), "graph", &library);
  ASSERT_TRUE(g.ok()) << g.status();
  ResourceManager resources;
  Executor exec(g->get(), &resources, nullptr);
  auto ep = [&](const char* name) { return *(*g)->ResolveTensor(name); };
  const std::vector<Endpoint> fetches = {ep("loop:0"), ep("loop:1"),
                                         ep("branch")};
  // Not fed: n = 4 from the default.
  auto out = exec.Run({}, fetches);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 4);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 10);
  EXPECT_EQ((*out)[2].data<int32_t>()[0], -4);
  // Fed: the feed wins.
  out = exec.Run({{ep("n"), Tensor::Scalar<int32_t>(-3)}}, fetches);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 0);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 0);
  EXPECT_EQ((*out)[2].data<int32_t>()[0], -6);
}

TEST(FunctionTest, RecursionIsALoadError) {
  tensorflow::GraphDef def = Parse(std::string(kGraph) + R"pb(
    node { name: "rec" op: "PartitionedCall" input: "n"
           attr { key: "f" value { func { name: "recursive_fn" } } } }
  )pb");
  WeightMap weights;
  ModelFunctionLibrary library(def.library(), &weights, &BuiltinOps());
  auto g = Graph::Build(def, weights, BuiltinOps(), "graph", &library);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("calls itself"), std::string::npos)
      << g.status();
}

TEST(FunctionTest, UnknownFunctionIsALoadError) {
  tensorflow::GraphDef def = Parse(R"pb(
    node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "c" op: "PartitionedCall" input: "n"
           attr { key: "f" value { func { name: "nope" } } } }
  )pb");
  auto g = Graph::Build(def, {}, BuiltinOps(), "graph", nullptr);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("no function library"), std::string::npos)
      << g.status();
}

TEST(FunctionTest, OutputArgIndices) {
  tensorflow::FunctionDef fn;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    signature { name: "f" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "idx" type: DT_INT32 } }
    node_def { name: "top" op: "TopKV2" input: "x" input: "x" }
    ret { key: "idx" value: "top:indices:0" }
  )pb", &fn));
  std::vector<std::string> args, rets;
  auto def = FunctionToGraphDef(fn, &args, &rets);
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(rets, std::vector<std::string>{"top:1"});
  EXPECT_EQ(args, std::vector<std::string>{"x"});
}

// A stateful op listed only in control_ret (TF's automatic control
// dependencies) runs whenever the function is called, though no output
// needs it. It was skipped before: the executor runs what outputs need.
TEST(FunctionTest, ControlRetNodesRun) {
  tensorflow::GraphDef def = AssignCallerGraph("assign_fn", R"pb(
        signature {
          name: "assign_fn"
          input_arg { name: "v" type: DT_RESOURCE }
          input_arg { name: "x" type: DT_INT32 }
          output_arg { name: "y" type: DT_INT32 }
          control_output: "assign"
        }
        node_def {
          name: "assign"
          op: "AssignVariableOp"
          input: "v"
          input: "x"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
        }
        node_def { name: "y" op: "AddV2" input: "x" input: "x" $T }
        ret { key: "y" value: "y:z:0" }
        control_ret { key: "assign" value: "assign" }
  )pb");
  WeightMap weights;
  ModelFunctionLibrary library(def.library(), &weights, &BuiltinOps());
  auto g = Graph::Build(def, weights, BuiltinOps(), "graph", &library);
  ASSERT_TRUE(g.ok()) << g.status();
  ResourceManager resources;
  Executor exec(g->get(), &resources, nullptr);
  auto ep = [&](const char* name) { return *(*g)->ResolveTensor(name); };
  auto out = exec.Run({{ep("x"), Tensor::Scalar<int32_t>(21)}},
                      {ep("call"), ep("read")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 42);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 21);

  // The rewritten body returns y through an Identity on ^assign.
  std::vector<std::string> args, rets;
  auto body = FunctionToGraphDef(def.library().function(0), &args, &rets);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(rets, std::vector<std::string>{"_control_ret_y:0"});

  // A control_ret naming no node is a load error.
  tensorflow::FunctionDef bad = def.library().function(0);
  (*bad.mutable_control_ret())["assign"] = "nope";
  EXPECT_FALSE(FunctionToGraphDef(bad, &args, &rets).ok());
}

// A function with control outputs and no outputs at all (a call made only
// for its side effects, ordered by control edges) runs them too. Before,
// its call fetched nothing, so the assignment never ran and the read below
// failed on an uninitialized variable.
TEST(FunctionTest, ControlOutputsRunWithoutOutputs) {
  tensorflow::GraphDef def = AssignCallerGraph("assign_only", R"pb(
        signature {
          name: "assign_only"
          input_arg { name: "v" type: DT_RESOURCE }
          input_arg { name: "x" type: DT_INT32 }
          control_output: "assign"
        }
        node_def {
          name: "assign"
          op: "AssignVariableOp"
          input: "v"
          input: "x"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
        }
        control_ret { key: "assign" value: "assign" }
  )pb");
  WeightMap weights;
  ModelFunctionLibrary library(def.library(), &weights, &BuiltinOps());
  auto g = Graph::Build(def, weights, BuiltinOps(), "graph", &library);
  ASSERT_TRUE(g.ok()) << g.status();
  ResourceManager resources;
  Executor exec(g->get(), &resources, nullptr);
  auto ep = [&](const char* name) { return *(*g)->ResolveTensor(name); };
  auto out = exec.Run({{ep("x"), Tensor::Scalar<int32_t>(7)}}, {ep("read")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 7);
  // The function still has no outputs.
  auto fn = library.Instantiate("assign_only");
  ASSERT_TRUE(fn.ok()) << fn.status();
  EXPECT_EQ((*fn)->num_outputs(), 0);
}

// A function body computes in its caller's floating-point mode
// (Denormals::kAsCaller): 1e-30 * 1e-10 is a denormal, flushed to zero
// when the calling Run flushes denormals.
TEST(FunctionTest, BodiesFollowTheCallersDenormalMode) {
  tensorflow::GraphDef def = Parse(R"pb(
    library {
      function {
        signature {
          name: "scale_fn"
          input_arg { name: "x" type: DT_FLOAT }
          output_arg { name: "y" type: DT_FLOAT }
        }
        node_def { name: "tiny" op: "Const"
                   attr { key: "dtype" value { type: DT_FLOAT } }
                   attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1e-10 } } } }
        node_def { name: "y" op: "Mul" input: "x" input: "tiny:output:0"
                   attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "y" value: "y:z:0" }
      }
    }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "call" op: "StatefulPartitionedCall" input: "x"
           attr { key: "f" value { func { name: "scale_fn" } } } }
  )pb");
  WeightMap weights;
  ModelFunctionLibrary library(def.library(), &weights, &BuiltinOps());
  auto g = Graph::Build(def, weights, BuiltinOps(), "graph", &library);
  ASSERT_TRUE(g.ok()) << g.status();
  ResourceManager resources;
  auto ep = [&](const char* name) { return *(*g)->ResolveTensor(name); };
  for (Denormals mode : {Denormals::kFlushToZero, Denormals::kIeee}) {
    ExecutorOptions options;
    options.denormals = mode;
    Executor exec(g->get(), &resources, nullptr, options);
    auto out =
        exec.Run({{ep("x"), Tensor::Scalar<float>(1e-30f)}}, {ep("call")});
    ASSERT_TRUE(out.ok()) << out.status();
    const float y = (*out)[0].data<float>()[0];
    if (mode == Denormals::kFlushToZero) {
      EXPECT_EQ(y, 0.f);
    } else {
      EXPECT_GT(y, 0.f);  // 1e-40, a denormal
    }
  }
}

}  // namespace
}  // namespace graphrt
