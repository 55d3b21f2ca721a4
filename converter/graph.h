// graphrt's internal graph: nodes with resolved kernels, data edges
// (node:index) and control edges (^node), built from a GraphDef plus the
// model's decoded weights.
//
// Building a Graph (load time) does all per-node work once: resolves every
// input name, creates every kernel through the op registry (so an unknown op
// or a bad attr is a load-time error naming the node), attaches Const
// values, and checks that names are unique and every input exists. Kernels
// may then adopt the Const values they read (Kernel::CanAdoptConstInput):
// such a Const keeps only a placeholder, so packed weights are not stored
// twice. Kernels read their attrs when they are made, so a node keeps its
// NodeDef only where something reads it later (KeepsNodeDef). The Graph is
// immutable afterwards and shared by concurrent Runs.
#ifndef GRAPHRT_CONVERTER_GRAPH_H_
#define GRAPHRT_CONVERTER_GRAPH_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ops/kernel.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"
#include "runtime/tensor.h"

namespace graphrt {

struct Endpoint {
  int node = -1;
  int index = 0;
  bool operator==(const Endpoint& o) const {
    return node == o.node && index == o.index;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Endpoint& e) {
    return H::combine(std::move(h), e.node, e.index);
  }
};

struct Node {
  int id = -1;
  std::string node_name;
  std::string op_name;
  std::vector<Endpoint> inputs;     // data inputs, in order
  std::vector<int> control_inputs;  // ^inputs
  std::vector<int> consumers;  // nodes using this one (data or control), unique
  std::unique_ptr<Kernel> kernel;
  // Const nodes: the value, or ReleasedConst(value) (ops/kernel.h) when
  // every consumer adopted it at load.
  Tensor constant;
  // The NodeDef, kept after Build only for the ops whose attrs are read
  // after their kernel is made (KeepsNodeDef); null for every other node.
  // Kernels read their attrs once, at creation; dropping the rest saves
  // ~0.8 KB a node (NodeDef, attr map, input names: 1.7 MB on
  // facemesh-attention's 2,074 nodes).
  std::unique_ptr<const tensorflow::NodeDef> def;

  const std::string& name() const { return node_name; }
  const std::string& op() const { return op_name; }
};

// True for the ops whose NodeDef a Graph keeps (Node::def): Placeholder and
// PlaceholderWithDefault (a signature's dtype and shape), Enter and
// RefEnter (frame names, read when the dataflow plan is made), and the
// tf.Example parsing ops (`graphrt example` reads their feature specs).
bool KeepsNodeDef(absl::string_view op);

// Node attr the importer sets on Consts a signature names
// (model_import.cc): they stay fetchable, so no kernel adopts them
// (Graph::AdoptConstInputs).
inline constexpr char kKeepValueAttr[] = "_graphrt_keep_value";

// Weights by Const node name.
using WeightMap = absl::flat_hash_map<std::string, Tensor>;

// A Const node's value: the weight of its name (cast to the node's declared
// dtype when the weight was stored narrower), else its `value` attr.
// NotFound when it has neither; errors for a declared shape too large to
// allocate or a weight of another, uncastable dtype.
absl::StatusOr<Tensor> ConstValue(const tensorflow::NodeDef& def,
                                  const WeightMap& weights);

class Graph {
 public:
  // `what` names the graph in errors ("inference graph", "initializer").
  // `functions` (may be null) compiles the functions that If/While/
  // PartitionedCall nodes call. The nodes are taken from `def` (pass an
  // rvalue to spare copying every NodeDef).
  static absl::StatusOr<std::unique_ptr<Graph>> Build(
      tensorflow::GraphDef def, const WeightMap& weights,
      const OpRegistry& registry, const std::string& what,
      const FunctionLibrary* functions = nullptr);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int id) const { return nodes_[id]; }
  std::optional<int> FindNode(absl::string_view name) const;
  // "x", "x:0", "x:1" -> endpoint; error names the tensor.
  absl::StatusOr<Endpoint> ResolveTensor(absl::string_view tensor_name) const;
  // Nodes nothing consumes (the default outputs of a signature-less graph),
  // in graph order, NoOps excluded.
  std::vector<int> Sinks() const;
  const tensorflow::FunctionDefLibrary& library() const { return library_; }
  const std::string& what() const { return what_; }

 private:
  // Offers each Const value to the kernels that read it (Kernel::
  // CanAdoptConstInput); a Const every data consumer adopted keeps only a
  // ReleasedConst placeholder, so its storage goes once the consumers have
  // packed their own copies. `defs` are the nodes' NodeDefs, by node id.
  absl::Status AdoptConstInputs(
      const OpRegistry& registry,
      const google::protobuf::RepeatedPtrField<tensorflow::NodeDef>& defs);

  std::string what_;
  std::vector<Node> nodes_;
  // Keys view the nodes' names (nodes_ is sized once, in Build).
  absl::flat_hash_map<absl::string_view, int> by_name_;
  tensorflow::FunctionDefLibrary library_;
};

// "node 'x' (op Y)" — the context prefix used in errors.
std::string NodeContext(const Node& node);

}  // namespace graphrt

#endif  // GRAPHRT_CONVERTER_GRAPH_H_
