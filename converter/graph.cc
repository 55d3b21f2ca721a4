#include "converter/graph.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "converter/tensor_proto.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Splits "name:3" into ("name", 3); "name" -> ("name", 0).
bool SplitTensorName(absl::string_view s, absl::string_view* node, int* index) {
  size_t colon = s.rfind(':');
  if (colon != absl::string_view::npos) {
    int i;
    if (absl::SimpleAtoi(s.substr(colon + 1), &i) && i >= 0) {
      *node = s.substr(0, colon);
      *index = i;
      return true;
    }
  }
  *node = s;
  *index = 0;
  return !s.empty();
}

// Largest Const value decoded from a `value` attr: protobuf messages are
// limited to 2 GiB, so only a splat (one value repeated over a huge shape)
// could ask for more.
constexpr int64_t kMaxConstValueBytes = int64_t{1} << 31;

// The element count the TensorProto's shape declares (0 for an unknown
// rank or dtype, which TensorFromProto reports); errors for shapes that are
// negative, overflow, or exceed kMaxConstValueBytes.
absl::StatusOr<int64_t> DeclaredElements(const tensorflow::TensorProto& proto) {
  if (proto.tensor_shape().unknown_rank()) return 0;
  std::vector<int64_t> dims;
  for (const auto& d : proto.tensor_shape().dim()) dims.push_back(d.size());
  GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make(dims));
  auto dtype = DTypeFromProto(proto.dtype());
  if (!dtype.ok()) return 0;
  const int64_t element_bytes = static_cast<int64_t>(DTypeSize(*dtype));
  if (element_bytes > 0 &&
      shape.num_elements() > kMaxConstValueBytes / element_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("Const value ", DTypeName(*dtype), shape.ToString(),
                     " would take more than ", kMaxConstValueBytes, " bytes"));
  }
  return shape.num_elements();
}

}  // namespace

absl::StatusOr<Tensor> ConstValue(const tensorflow::NodeDef& def,
                                  const WeightMap& weights) {
  AttrReader attrs(def);
  GRAPHRT_ASSIGN_OR_RETURN(DType declared,
                           attrs.GetType("dtype", DType::kInvalid));
  auto it = weights.find(def.name());
  if (it != weights.end()) {
    const Tensor& w = it->second;
    if (declared != DType::kInvalid && declared != w.dtype()) {
      if (IsTriviallyCopyable(declared) && IsTriviallyCopyable(w.dtype())) {
        return CastTensor(w, declared);
      }
      // E.g. a float32 weight for a DT_STRING Const: kernels downstream
      // would be handed a dtype the graph never declared.
      return absl::InvalidArgumentError(
          absl::StrCat("weight '", def.name(), "' is ", DTypeName(w.dtype()),
                       " ", w.shape().ToString(),
                       " but the Const declares dtype ", DTypeName(declared)));
    }
    return w;
  }
  auto v = def.attr().find("value");
  if (v != def.attr().end() && v->second.has_tensor()) {
    const auto& proto = v->second.tensor();
    bool has_payload = !proto.tensor_content().empty() ||
                       proto.float_val_size() || proto.double_val_size() ||
                       proto.int_val_size() || proto.int64_val_size() ||
                       proto.string_val_size() || proto.bool_val_size() ||
                       proto.half_val_size() || proto.scomplex_val_size() ||
                       proto.dcomplex_val_size() || proto.uint32_val_size() ||
                       proto.uint64_val_size();
    // Size the value before TensorFromProto allocates it: a few bytes of
    // JSON can declare any shape.
    absl::StatusOr<int64_t> elements = DeclaredElements(proto);
    // TF.js strips payloads; an empty payload with a non-empty shape means
    // the weight is missing, not zeros (also when that shape is too big to
    // allocate: the missing weight is the error to report).
    const bool too_big =
        elements.status().code() == absl::StatusCode::kResourceExhausted;
    if (!has_payload && (too_big || (elements.ok() && *elements != 0))) {
      return absl::NotFoundError("Const has no value: no weight of that name");
    }
    GRAPHRT_RETURN_IF_ERROR(elements.status());
    GRAPHRT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto));
    if (has_payload || t.num_elements() == 0) return t;
  }
  return absl::NotFoundError("Const has no value: no weight of that name");
}

bool KeepsNodeDef(absl::string_view op) {
  return op == "Placeholder" || op == "PlaceholderWithDefault" ||
         op == "Enter" || op == "RefEnter" || op == "ParseExample" ||
         op == "ParseExampleV2" || op == "ParseSingleExample";
}

std::string NodeContext(const Node& node) {
  return absl::StrCat("node '", node.name(), "' (op ", node.op(), ")");
}

namespace {

// A kernel factory's error in the graph's context: "what: node 'x' (op
// Y): message". Errors of AttrReader (ops/attrs.h) already start with the
// node; only `what` is added to those.
absl::Status KernelCreateError(const absl::Status& status,
                               absl::string_view what, const Node& node) {
  const std::string node_context = NodeContext(node);
  if (absl::StartsWith(status.message(), node_context)) {
    return WithContext(status, what);
  }
  return WithContext(status, absl::StrCat(what, ": ", node_context));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Graph>> Graph::Build(
    tensorflow::GraphDef def, const WeightMap& weights,
    const OpRegistry& registry, const std::string& what,
    const FunctionLibrary* functions) {
  auto graph = std::make_unique<Graph>();
  graph->what_ = what;
  graph->library_.Swap(def.mutable_library());
  graph->nodes_.resize(def.node_size());
  for (int i = 0; i < def.node_size(); ++i) {
    const auto& nd = def.node(i);
    if (nd.name().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": node #", i, " (op ", nd.op(), ") has no name"));
    }
    Node& node = graph->nodes_[i];
    node.id = i;
    node.node_name = nd.name();
    node.op_name = nd.op();
    if (!graph->by_name_.emplace(node.node_name, i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": duplicate node name '", nd.name(), "'"));
    }
  }
  for (Node& node : graph->nodes_) {
    for (const std::string& in : def.node(node.id).input()) {
      bool control = !in.empty() && in[0] == '^';
      absl::string_view ref = control ? absl::string_view(in).substr(1) : in;
      absl::string_view src_name;
      int index = 0;
      if (control) {
        src_name = ref;
      } else if (!SplitTensorName(ref, &src_name, &index)) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": ", NodeContext(node), " has an empty input name"));
      }
      auto src = graph->FindNode(src_name);
      if (!src) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": ", NodeContext(node), " has input '", in,
                         "' but there is no node '", src_name, "'"));
      }
      if (control) {
        node.control_inputs.push_back(*src);
      } else {
        node.inputs.push_back({*src, index});
      }
      auto& consumers = graph->nodes_[*src].consumers;
      if (std::find(consumers.begin(), consumers.end(), node.id) ==
          consumers.end()) {
        consumers.push_back(node.id);
      }
    }
  }
  for (Node& node : graph->nodes_) {
    std::string context = absl::StrCat(what, ": ", NodeContext(node));
    const tensorflow::NodeDef& node_def = def.node(node.id);
    if (node.op() == "Const") {
      auto value = ConstValue(node_def, weights);
      if (!value.ok()) return WithContext(value.status(), context);
      node.constant = std::move(*value);
    }
    KernelFactory factory = registry.Find(node.op());
    if (factory == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat(context, ": unknown op '", node.op(),
                       "' (graphrt has no kernel for it)"));
    }
    KernelInit init{node_def, static_cast<int>(node.inputs.size()),
                    node.op() == "Const" ? &node.constant : nullptr, functions};
    auto kernel = factory(init);
    if (!kernel.ok()) return KernelCreateError(kernel.status(), what, node);
    node.kernel = std::move(*kernel);
  }
  GRAPHRT_RETURN_IF_ERROR(graph->AdoptConstInputs(registry, def.node()));
  // The kernels are made: the NodeDefs go (with them a Const's TensorProto,
  // the whole weight for a GraphDef that embeds it), but where KeepsNodeDef
  // says their attrs are read later.
  for (Node& node : graph->nodes_) {
    if (!KeepsNodeDef(node.op())) continue;
    auto kept = std::make_unique<tensorflow::NodeDef>();
    kept->Swap(def.mutable_node(node.id));
    node.def = std::move(kept);
  }
  return graph;
}

absl::Status Graph::AdoptConstInputs(
    const OpRegistry& registry,
    const google::protobuf::RepeatedPtrField<tensorflow::NodeDef>& defs) {
  KernelFactory const_factory = registry.Find("Const");
  if (const_factory == nullptr) return absl::OkStatus();
  // (consumer node, input index) pairs reading one Const.
  std::vector<std::pair<int, int>> uses;
  for (Node& node : nodes_) {
    if (node.op() != "Const" || node.consumers.empty() ||
        defs.Get(node.id).attr().contains(kKeepValueAttr) ||
        !node.constant.valid() || node.constant.num_elements() == 0 ||
        !IsTriviallyCopyable(node.constant.dtype())) {
      continue;
    }
    uses.clear();
    bool all = true;
    for (int c : node.consumers) {
      const Node& consumer = nodes_[c];
      for (int i = 0; all && i < static_cast<int>(consumer.inputs.size());
           ++i) {
        const Endpoint& in = consumer.inputs[i];
        if (in.node != node.id) continue;
        if (in.index != 0 ||
            !consumer.kernel->CanAdoptConstInput(i, node.constant)) {
          all = false;
        }
        uses.emplace_back(c, i);
      }
      if (!all) break;
    }
    if (!all || uses.empty()) continue;
    for (const auto& [c, i] : uses) {
      nodes_[c].kernel->AdoptConstInput(i, node.constant);
    }
    node.constant = ReleasedConst(node.constant);
    KernelInit init{defs.Get(node.id), static_cast<int>(node.inputs.size()),
                    &node.constant, nullptr};
    auto kernel = const_factory(init);
    if (!kernel.ok()) return KernelCreateError(kernel.status(), what_, node);
    node.kernel = std::move(*kernel);
  }
  return absl::OkStatus();
}

std::optional<int> Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<Endpoint> Graph::ResolveTensor(
    absl::string_view tensor_name) const {
  absl::string_view node_name;
  int index = 0;
  if (auto whole = FindNode(tensor_name)) return Endpoint{*whole, 0};
  if (!SplitTensorName(tensor_name, &node_name, &index)) {
    return absl::InvalidArgumentError("empty tensor name");
  }
  auto id = FindNode(node_name);
  if (!id) {
    return absl::NotFoundError(absl::StrCat("no tensor '", tensor_name,
                                            "' in the ", what_, " (no node '",
                                            node_name, "')"));
  }
  return Endpoint{*id, index};
}

std::vector<int> Graph::Sinks() const {
  std::vector<int> sinks;
  for (const Node& n : nodes_) {
    if (n.consumers.empty() && n.op() != "NoOp") sinks.push_back(n.id);
  }
  return sinks;
}

}  // namespace graphrt
