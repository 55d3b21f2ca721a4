// ChooseNhwcLayout (passes.h): NCHW convolutions, pools, batch norms and
// bias adds run channels-last between transposes that SinkTransposes then
// cancels.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

bool IsNchw(const NodeDef& n) {
  auto it = n.attr().find("data_format");
  return it != n.attr().end() && it->second.s() == "NCHW";
}

bool IsBatchNorm(const std::string& op) {
  return op == "FusedBatchNorm" || op == "FusedBatchNormV2" ||
         op == "FusedBatchNormV3";
}

// Ops whose input 0 and output 0 are 4-D in `data_format` and whose other
// inputs and outputs do not depend on it.
bool IsLayoutOp(const std::string& op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "MaxPool" ||
         op == "AvgPool" || IsBatchNorm(op);
}

// A 4-element NCHW-ordered list attr (strides, ksize, dilations) in NHWC
// order; false when it is not 4 long.
bool PermuteQuad(NodeDef* n, const char* name) {
  auto it = n->mutable_attr()->find(name);
  if (it == n->mutable_attr()->end()) return true;
  auto* list = it->second.mutable_list();
  if (list->i_size() != 4) return false;
  const int64_t c = list->i(1);
  list->set_i(1, list->i(2));
  list->set_i(2, list->i(3));
  list->set_i(3, c);
  return true;
}

class LayoutRewrite {
 public:
  explicit LayoutRewrite(GraphDef* graph)
      : graph_(*graph), index_(IndexByName(*graph)) {}

  int Run() {
    const int n = graph_.node_size();
    int converted = 0;
    for (int i = 0; i < n; ++i) converted += Convert(i) ? 1 : 0;
    for (NodeDef& node : added_) *graph_.add_node() = std::move(node);
    // Readers of a batch norm's statistics outputs read the new node.
    if (!renamed_.empty()) {
      for (NodeDef& node : *graph_.mutable_node()) {
        for (std::string& in : *node.mutable_input()) {
          if (IsControl(in) || OutputIndexOf(in) == 0) continue;
          auto it = renamed_.find(NameView(in));
          if (it != renamed_.end()) {
            in = absl::StrCat(it->second, ":", OutputIndexOf(in));
          }
        }
      }
    }
    return converted;
  }

 private:
  // Whether `input` is known to be 4-D: a layout op's output 0, a
  // Transpose by a 4-element permutation (what this pass leaves under a
  // converted node's name), a rank-4 Placeholder, or a layout-free unary op
  // or NCHW BiasAdd of such a value.
  bool Known4D(const std::string& input, int depth = 0) const {
    if (depth > 32 || IsControl(input)) return false;
    auto it = index_.find(NameView(input));
    if (it == index_.end()) return false;
    const NodeDef& p = graph_.node(it->second);
    if (IsLayoutOp(p.op())) return OutputIndexOf(input) == 0;
    if (p.op() == "Transpose") {
      return transposes_.contains(p.name());
    }
    if (p.op() == "Placeholder") {
      auto shape = p.attr().find("shape");
      return shape != p.attr().end() && !shape->second.shape().unknown_rank() &&
             shape->second.shape().dim_size() == 4;
    }
    if ((IsLayoutFreeUnary(p.op()) || p.op() == "Identity" ||
         (p.op() == "BiasAdd" && IsNchw(p))) &&
        p.input_size() >= 1) {
      return Known4D(p.input(0), depth + 1);
    }
    return false;
  }

  std::string NewName(const std::string& base) {
    std::string name = base;
    while (index_.contains(name) || added_names_.contains(name)) name += "_";
    added_names_.insert(name);
    return name;
  }

  // The shared int32 permutation Const [0, 2, 3, 1] or [0, 3, 1, 2].
  const std::string& PermConst(bool to_nhwc) {
    std::string& name = to_nhwc ? to_nhwc_ : to_nchw_;
    if (!name.empty()) return name;
    name = NewName(to_nhwc ? "graphrt/_nchw_to_nhwc" : "graphrt/_nhwc_to_nchw");
    added_.push_back(Int32ConstNode(name, {4},
                                    to_nhwc
                                        ? std::vector<int64_t>{0, 2, 3, 1}
                                        : std::vector<int64_t>{0, 3, 1, 2}));
    return name;
  }

  NodeDef Transpose(const std::string& name, const std::string& input,
                    bool to_nhwc, const tensorflow::AttrValue* dtype) {
    NodeDef t;
    t.set_name(name);
    t.set_op("Transpose");
    t.add_input(input);
    t.add_input(PermConst(to_nhwc));
    if (dtype != nullptr) (*t.mutable_attr())["T"] = *dtype;
    (*t.mutable_attr())["Tperm"].set_type(tensorflow::DT_INT32);
    return t;
  }

  // Node i, NCHW, becomes Transpose(<name>/_to_nhwc) -> the op in NHWC
  // (<name>/_nhwc) -> Transpose back under the node's own name, so its
  // readers (and fetches by name) see the same NCHW value.
  bool Convert(int i) {
    const NodeDef& node = graph_.node(i);
    if (!IsNchw(node) || !TypeIsOrAbsent(node, "T", tensorflow::DT_FLOAT) ||
        node.input_size() < 1 || IsControl(node.input(0))) {
      return false;
    }
    const bool bias_add = node.op() == "BiasAdd";
    if (!IsLayoutOp(node.op()) && !bias_add) return false;
    if (bias_add && !Known4D(node.input(0))) return false;
    if (IsBatchNorm(node.op()) && node.op() != "FusedBatchNorm" &&
        !TypeIsOrAbsent(node, "U", tensorflow::DT_FLOAT)) {
      return false;
    }
    NodeDef nhwc = node;
    if (!PermuteQuad(&nhwc, "strides") || !PermuteQuad(&nhwc, "ksize") ||
        !PermuteQuad(&nhwc, "dilations")) {
      return false;
    }
    if (auto ep = nhwc.mutable_attr()->find("explicit_paddings");
        ep != nhwc.mutable_attr()->end() && ep->second.list().i_size() > 0) {
      auto* list = ep->second.mutable_list();
      if (list->i_size() != 8) return false;
      // Pairs per dimension, N C H W -> N H W C.
      const int64_t c0 = list->i(2), c1 = list->i(3);
      for (int k = 2; k < 6; ++k) list->set_i(k, list->i(k + 2));
      list->set_i(6, c0);
      list->set_i(7, c1);
    }
    const std::string name = node.name();
    const tensorflow::AttrValue* dtype =
        node.attr().contains("T") ? &node.attr().at("T") : nullptr;
    const std::string in_name = NewName(absl::StrCat(name, "/_to_nhwc"));
    added_.push_back(Transpose(in_name, node.input(0), true, dtype));
    nhwc.set_name(NewName(absl::StrCat(name, "/_nhwc")));
    nhwc.set_input(0, in_name);
    (*nhwc.mutable_attr())["data_format"].set_s("NHWC");
    NodeDef back = Transpose(name, nhwc.name(), false, dtype);
    if (IsBatchNorm(node.op())) renamed_[name] = nhwc.name();
    added_.push_back(std::move(nhwc));
    *graph_.mutable_node(i) = std::move(back);
    transposes_.insert(name);
    return true;
  }

  GraphDef& graph_;
  const absl::flat_hash_map<std::string, int> index_;
  std::vector<NodeDef> added_;
  absl::flat_hash_set<std::string> added_names_;
  absl::flat_hash_set<std::string> transposes_;  // converted nodes' names
  absl::flat_hash_map<std::string, std::string> renamed_;  // batch norms
  std::string to_nhwc_, to_nchw_;
};

}  // namespace

int ChooseNhwcLayout(GraphDef* graph) {
  if (HasV1ControlFlow(*graph)) return 0;
  return LayoutRewrite(graph).Run();
}

}  // namespace passes
}  // namespace graphrt
