#include "converter/passes/pass_util.h"

#include <algorithm>
#include <utility>

#include "converter/tensor_proto.h"

namespace graphrt {
namespace passes {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

bool IsControl(const std::string& input) {
  return !input.empty() && input[0] == '^';
}

int OutputIndexOf(const std::string& input) {
  const size_t colon = input.rfind(':');
  if (colon == std::string::npos) return 0;
  int index = 0;
  for (size_t i = colon + 1; i < input.size(); ++i) {
    if (input[i] < '0' || input[i] > '9' || index > (1 << 20)) return -1;
    index = index * 10 + (input[i] - '0');
  }
  return colon + 1 == input.size() ? -1 : index;
}

absl::string_view NameView(absl::string_view input) {
  const size_t begin = !input.empty() && input[0] == '^' ? 1 : 0;
  size_t colon = input.rfind(':');
  if (colon == absl::string_view::npos || colon < begin) colon = input.size();
  return input.substr(begin, colon - begin);
}

absl::flat_hash_map<std::string, Uses> CountUses(const GraphDef& g) {
  absl::flat_hash_map<std::string, Uses> uses;
  uses.reserve(g.node_size());
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string& in : g.node(i).input()) {
      Uses& u = uses[NameView(in)];
      if (IsControl(in)) {
        ++u.control;
      } else {
        ++u.data;
        u.consumers.push_back(i);
      }
    }
  }
  return uses;
}

int NumDataInputs(const NodeDef& n) {
  int count = 0;
  for (const std::string& in : n.input()) count += IsControl(in) ? 0 : 1;
  return count;
}

bool HasV1ControlFlow(const GraphDef& g) {
  for (const NodeDef& n : g.node()) {
    const std::string& op = n.op();
    if (op == "Switch" || op == "RefSwitch" || op == "Merge" ||
        op == "RefMerge" || op == "Enter" || op == "RefEnter" || op == "Exit" ||
        op == "RefExit" || op == "NextIteration" || op == "RefNextIteration" ||
        op == "LoopCond") {
      return true;
    }
  }
  return false;
}

bool TypeIsOrAbsent(const NodeDef& n, const char* name,
                    tensorflow::DataType dtype) {
  auto it = n.attr().find(name);
  return it == n.attr().end() || it->second.type() == dtype;
}

bool IsNhwc(const NodeDef& n) {
  auto it = n.attr().find("data_format");
  return it == n.attr().end() || it->second.s() == "NHWC";
}

std::optional<std::vector<int64_t>> FloatConstDims(const NodeDef& n,
                                                   const WeightMap& weights) {
  if (n.op() != "Const" || !TypeIsOrAbsent(n, "dtype", tensorflow::DT_FLOAT)) {
    return std::nullopt;
  }
  auto w = weights.find(n.name());
  if (w != weights.end()) {
    if (w->second.dtype() != DType::kFloat32 && !n.attr().contains("dtype")) {
      return std::nullopt;
    }
    std::vector<int64_t> dims;
    for (int i = 0; i < w->second.rank(); ++i) dims.push_back(w->second.dim(i));
    return dims;
  }
  auto v = n.attr().find("value");
  if (v == n.attr().end() || !v->second.has_tensor() ||
      v->second.tensor().dtype() != tensorflow::DT_FLOAT ||
      v->second.tensor().tensor_shape().unknown_rank()) {
    return std::nullopt;
  }
  std::vector<int64_t> dims;
  for (const auto& d : v->second.tensor().tensor_shape().dim()) {
    dims.push_back(d.size());
  }
  return dims;
}

bool HasEdge(const GraphDef& g,
             std::initializer_list<absl::string_view> producers,
             std::initializer_list<absl::string_view> consumers,
             bool first_input_only) {
  auto is_one_of = [](absl::string_view op,
                      std::initializer_list<absl::string_view> ops) {
    for (absl::string_view o : ops) {
      if (op == o) return true;
    }
    return false;
  };
  absl::flat_hash_set<absl::string_view> names;
  for (const NodeDef& n : g.node()) {
    if (is_one_of(n.op(), producers)) names.insert(n.name());
  }
  if (names.empty()) return false;
  for (const NodeDef& n : g.node()) {
    if (!is_one_of(n.op(), consumers)) continue;
    const int inputs =
        first_input_only ? std::min(1, n.input_size()) : n.input_size();
    for (int i = 0; i < inputs; ++i) {
      const std::string& in = n.input(i);
      if (!IsControl(in) && names.contains(NameView(in))) return true;
    }
  }
  return false;
}

absl::flat_hash_map<std::string, int> IndexByName(const GraphDef& g) {
  absl::flat_hash_map<std::string, int> index;
  index.reserve(g.node_size());
  for (int i = 0; i < g.node_size(); ++i) index[g.node(i).name()] = i;
  return index;
}

absl::flat_hash_set<std::string> ControlInputsOf(const NodeDef& n) {
  absl::flat_hash_set<std::string> controls;
  for (const std::string& in : n.input()) {
    if (IsControl(in)) controls.insert(in);
  }
  return controls;
}

void CopyControlInputs(const NodeDef& from, NodeDef* to,
                       absl::flat_hash_set<std::string>* seen) {
  for (const std::string& in : from.input()) {
    if (IsControl(in) && seen->insert(in).second) to->add_input(in);
  }
}

bool HasControlInputs(const NodeDef& n) {
  for (const std::string& in : n.input()) {
    if (IsControl(in)) return true;
  }
  return false;
}

bool IsLayoutFreeUnary(const std::string& op) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "Abs",     "Elu",      "Exp",   "LeakyRelu", "Log",
      "Neg",     "Relu",     "Relu6", "Rsqrt",     "Selu",
      "Sigmoid", "Softplus", "Sqrt",  "Square",    "Tanh"};
  return ops->contains(op);
}

int DropConstsNoLongerRead(
    GraphDef* g, const absl::flat_hash_map<std::string, Uses>& uses_before,
    const absl::flat_hash_set<std::string>& keep, WeightMap* weights) {
  const auto uses_after = CountUses(*g);
  std::vector<bool> dead(g->node_size(), false);
  int dropped = 0;
  for (int i = 0; i < g->node_size(); ++i) {
    const NodeDef& n = g->node(i);
    if (n.op() != "Const" || keep.contains(n.name()) ||
        !uses_before.contains(n.name()) || uses_after.contains(n.name())) {
      continue;
    }
    dead[i] = true;
    ++dropped;
    if (weights != nullptr) weights->erase(n.name());
  }
  if (dropped > 0) DropDead(g, dead);
  return dropped;
}

int OnlyReader(const absl::flat_hash_map<std::string, Uses>& uses,
               const std::string& name,
               const absl::flat_hash_set<std::string>& keep) {
  auto u = uses.find(name);
  if (u == uses.end() || u->second.data != 1 || u->second.control != 0 ||
      keep.contains(name)) {
    return -1;
  }
  return u->second.consumers[0];
}

NodeDef FusedChainNode(const GraphDef& g, const std::string& name,
                       const std::string& op, const std::string& device,
                       std::initializer_list<std::string> inputs,
                       std::initializer_list<int> chain) {
  NodeDef node;
  node.set_name(name);
  node.set_op(op);
  node.set_device(device);
  for (const std::string& in : inputs) node.add_input(in);
  absl::flat_hash_set<std::string> controls;
  for (int i : chain) CopyControlInputs(g.node(i), &node, &controls);
  return node;
}

NodeDef Int32ConstNode(const std::string& name,
                       const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& values) {
  NodeDef c;
  c.set_name(name);
  c.set_op("Const");
  (*c.mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  tensorflow::TensorProto* value =
      (*c.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(tensorflow::DT_INT32);
  for (int64_t d : dims) value->mutable_tensor_shape()->add_dim()->set_size(d);
  for (int64_t v : values) value->add_int_val(static_cast<int32_t>(v));
  return c;
}

const Tensor* FloatWeight(const NodeDef& n, const WeightMap& weights) {
  if (n.op() != "Const" || !TypeIsOrAbsent(n, "dtype", tensorflow::DT_FLOAT)) {
    return nullptr;
  }
  auto w = weights.find(n.name());
  if (w == weights.end() || w->second.dtype() != DType::kFloat32) {
    return nullptr;
  }
  return &w->second;
}

std::optional<float> OneFloat(const NodeDef& n, const WeightMap& weights) {
  if (std::optional<float> v = FloatScalarConstValue(n, weights)) return v;
  const Tensor* w = FloatWeight(n, weights);
  if (w != nullptr && w->rank() == 1 && w->dim(0) == 1) {
    return w->data<float>()[0];
  }
  return std::nullopt;
}

std::string AddWeightConst(std::string name, const std::string& device,
                           Tensor value,
                           absl::flat_hash_map<std::string, int>* index,
                           WeightMap* weights, std::vector<NodeDef>* added) {
  while (index->contains(name)) name += "_";
  NodeDef& c = added->emplace_back();
  c.set_name(name);
  c.set_op("Const");
  c.set_device(device);
  (*c.mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  (*weights)[name] = std::move(value);
  (*index)[name] = -1;
  return name;
}

void DropDead(GraphDef* g, const std::vector<bool>& dead) {
  GraphDef kept_nodes;
  for (int i = 0; i < g->node_size(); ++i) {
    if (!dead[i]) *kept_nodes.add_node() = std::move(*g->mutable_node(i));
  }
  g->mutable_node()->Swap(kept_nodes.mutable_node());
}

namespace {

// The value of a Const node: its weight, else its `value` attr when that
// has at most `max_elements` values; nullopt for anything else.
std::optional<Tensor> ConstValue(const NodeDef& n, const WeightMap& weights,
                                 int64_t max_elements) {
  if (n.op() != "Const") return std::nullopt;
  auto w = weights.find(n.name());
  if (w != weights.end()) return w->second;
  auto v = n.attr().find("value");
  if (v == n.attr().end() || !v->second.has_tensor()) return std::nullopt;
  const auto& proto = v->second.tensor();
  int64_t elements = 1;
  for (const auto& d : proto.tensor_shape().dim()) {
    if (d.size() < 0 || d.size() > max_elements) return std::nullopt;
    elements *= d.size();
    if (elements > max_elements) return std::nullopt;
  }
  absl::StatusOr<Tensor> t = TensorFromProto(proto);
  if (!t.ok()) return std::nullopt;
  return *std::move(t);
}

}  // namespace

std::optional<IntConst> IntConstValue(const NodeDef& n,
                                      const WeightMap& weights,
                                      int64_t max_elements) {
  std::optional<Tensor> found = ConstValue(n, weights, max_elements);
  if (!found.has_value()) return std::nullopt;
  const Tensor& value = *found;
  if ((value.dtype() != DType::kInt32 && value.dtype() != DType::kInt64) ||
      value.num_elements() > max_elements) {
    return std::nullopt;
  }
  IntConst c;
  for (int i = 0; i < value.rank(); ++i) c.dims.push_back(value.dim(i));
  for (int64_t i = 0; i < value.num_elements(); ++i) {
    c.values.push_back(value.dtype() == DType::kInt32
                           ? value.data<int32_t>()[i]
                           : value.data<int64_t>()[i]);
  }
  return c;
}

std::optional<float> FloatScalarConstValue(const NodeDef& n,
                                           const WeightMap& weights) {
  std::optional<Tensor> value = ConstValue(n, weights, /*max_elements=*/1);
  if (!value.has_value() || value->dtype() != DType::kFloat32 ||
      value->rank() != 0) {
    return std::nullopt;
  }
  return value->data<float>()[0];
}

bool IsBiasedConv(const NodeDef& n, bool depthwise_too) {
  if ((n.op() != "_FusedConv2D" &&
       !(depthwise_too && n.op() == "FusedDepthwiseConv2dNative")) ||
      !IsNhwc(n) || NumDataInputs(n) != 3 ||
      !TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT)) {
    return false;
  }
  auto ops = n.attr().find("fused_ops");
  auto args = n.attr().find("num_args");
  return ops != n.attr().end() && ops->second.list().s_size() == 1 &&
         ops->second.list().s(0) == "BiasAdd" && args != n.attr().end() &&
         args->second.i() == 1;
}

}  // namespace passes
}  // namespace graphrt
