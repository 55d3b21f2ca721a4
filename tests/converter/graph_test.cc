#include "converter/graph.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "google/protobuf/text_format.h"
#include "ops/registry.h"

namespace graphrt {
namespace {

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

TEST(GraphTest, ResolvesEdgesAndConsumers) {
  auto def = Parse(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "c" op: "Const" input: "^x"
           attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "IdentityN" input: "x" input: "c:0" }
  )pb");
  WeightMap weights;
  weights["c"] = Tensor::Scalar<float>(2.f);
  auto g = Graph::Build(def, weights, BuiltinOps(), "test graph");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node& y = (*g)->node(2);
  ASSERT_EQ(y.inputs.size(), 2u);
  EXPECT_EQ(y.inputs[1].node, 1);
  EXPECT_EQ((*g)->node(1).control_inputs, std::vector<int>{0});
  EXPECT_EQ((*g)->Sinks(), std::vector<int>{2});
  auto ep = (*g)->ResolveTensor("y:1");
  ASSERT_TRUE(ep.ok());
  EXPECT_EQ(ep->node, 2);
  EXPECT_EQ(ep->index, 1);
  EXPECT_FALSE((*g)->ResolveTensor("nope:0").ok());
}

TEST(GraphTest, ConstWeightCastToDeclaredDtype) {
  // TF.js stores int64 Consts as int32 weights; TF semantics keep int64.
  auto def = Parse(R"pb(
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } }
  )pb");
  WeightMap weights;
  weights["c"] = Tensor::FromVector<int32_t>({1, -2});
  auto g = Graph::Build(def, weights, BuiltinOps(), "test graph");
  ASSERT_TRUE(g.ok()) << g.status();
  const Tensor& v = (*g)->node(0).constant;
  EXPECT_EQ(v.dtype(), DType::kInt64);
  EXPECT_EQ(v.data<int64_t>()[1], -2);
}

TEST(GraphTest, ConstFromValueAttr) {
  auto def = Parse(R"pb(
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT
             tensor_shape { dim { size: 3 } } float_val: 1.5 } } } }
  )pb");
  auto g = Graph::Build(def, {}, BuiltinOps(), "test graph");
  ASSERT_TRUE(g.ok()) << g.status();
  const Tensor& v = (*g)->node(0).constant;
  EXPECT_EQ(v.shape(), Shape({3}));
  EXPECT_EQ(v.data<float>()[2], 1.5f);  // splat of the last value
}

// Kernels read their attrs when they are made; after Build a node keeps
// its NodeDef only where something reads it later (KeepsNodeDef). A
// Const's value is then held once, in Node::constant: its `value`
// TensorProto (for a GraphDef that embeds its weights, the whole weight)
// goes with the NodeDef.
TEST(GraphTest, NodeDefsKeptOnlyWhereReadLater) {
  auto def = Parse(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } } } } }
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT
             tensor_shape { dim { size: 2 } } float_val: 1.5 float_val: 2.5 } } } }
    node { name: "y" op: "AddV2" input: "x" input: "c"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  auto g = Graph::Build(def, {}, BuiltinOps(), "test graph");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node& x = (*g)->node(0);
  const Node& c = (*g)->node(1);
  const Node& y = (*g)->node(2);
  ASSERT_NE(x.def, nullptr);
  EXPECT_TRUE(x.def->attr().contains("shape"));
  EXPECT_EQ(c.def, nullptr);
  EXPECT_EQ(y.def, nullptr);
  EXPECT_EQ(c.name(), "c");
  EXPECT_EQ(y.op(), "AddV2");
  EXPECT_EQ(c.constant.data<float>()[1], 2.5f);
  EXPECT_TRUE(KeepsNodeDef("Enter"));
  EXPECT_FALSE(KeepsNodeDef("Const"));
}

TEST(GraphTest, Errors) {
  struct Case {
    const char* name;
    const char* text;
    const char* expect;
  } cases[] = {
      {"unknown op", R"pb(node { name: "a" op: "FancyOp" })pb",
       "unknown op 'FancyOp'"},
      {"duplicate", R"pb(node { name: "a" op: "NoOp" } node { name: "a" op: "NoOp" })pb",
       "duplicate node name 'a'"},
      {"dangling", R"pb(node { name: "a" op: "Identity" input: "zzz" })pb",
       "no node 'zzz'"},
      {"missing weight",
       R"pb(node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
            attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } } } } })pb",
       "no weight"},
      {"unnamed", R"pb(node { op: "NoOp" })pb", "has no name"},
  };
  for (const auto& c : cases) {
    auto g = Graph::Build(Parse(c.text), {}, BuiltinOps(), "test graph");
    ASSERT_FALSE(g.ok()) << c.name;
    EXPECT_NE(g.status().message().find(c.expect), std::string::npos)
        << c.name << ": " << g.status();
  }
}

// A kernel's attr error names its node once: the graph adds its own
// context ("test graph: ") before the node AttrReader already names (it
// was "test graph: node 'b' (op ...): node 'b' (op ...): attr ...").
TEST(GraphTest, AttrErrorsNameTheNodeOnce) {
  // clang-format off
  auto g = Graph::Build(Parse(R"pb(
    node { name: "b" op: "_FusedDepthwiseBlock"
           attr { key: "T" value { type: DT_INT32 } } }
  )pb"), {}, BuiltinOps(), "test graph");
  // clang-format on
  ASSERT_FALSE(g.ok());
  const std::string message(g.status().message());
  EXPECT_TRUE(absl::StartsWith(
      message, "test graph: node 'b' (op _FusedDepthwiseBlock): attr 'T'"))
      << message;
  EXPECT_EQ(message.find("node 'b'", message.find("node 'b'") + 1),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace graphrt
