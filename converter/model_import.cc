#include "converter/model_import.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "converter/asset_paths.h"
#include "converter/passes/passes.h"
#include "ops/attrs.h"
#include "runtime/function_library.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

std::string TensorName(const Graph& g, Endpoint e) {
  return absl::StrCat(g.node(e.node).name(), ":", e.index);
}

// Fills dtype/shape from the Placeholder's attrs, else from the signature.
absl::Status DescribeInput(const Graph& g, IoSpec& spec) {
  const Node& node = g.node(spec.endpoint.node);
  if (node.op() == "Placeholder" || node.op() == "PlaceholderWithDefault") {
    AttrReader attrs(*node.def);
    GRAPHRT_ASSIGN_OR_RETURN(DType dtype, attrs.GetType("dtype", spec.dtype));
    spec.dtype = dtype;
    if (attrs.Has("shape")) {
      GRAPHRT_ASSIGN_OR_RETURN(spec.shape, attrs.GetShape("shape"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<IoSpec> ResolveEntry(const Graph& g, const SignatureEntry& e,
                                    absl::string_view what) {
  IoSpec spec;
  spec.key = e.key;
  auto ep = g.ResolveTensor(e.tensor_name.empty() ? e.key : e.tensor_name);
  if (!ep.ok()) {
    return WithContext(ep.status(),
                       absl::StrCat("signature ", what, " '", e.key, "'"));
  }
  spec.endpoint = *ep;
  spec.tensor_name = TensorName(g, *ep);
  spec.dtype = e.dtype;
  spec.shape = e.shape;
  spec.resource_id = e.resource_id;
  return spec;
}

}  // namespace

absl::StatusOr<ImportedModel> ImportTfjsModel(TfjsModel model,
                                              const OpRegistry& registry) {
  ImportedModel out;
  out.source = model.model_json;
  out.weight_stats = model.weight_stats;
  // Vocabulary files are model assets: resolve them inside the folder.
  GRAPHRT_RETURN_IF_ERROR(
      ResolveTextFileAssets(model.model_dir, &model.topology, &model.weights));
  if (model.initializer.has_value()) {
    GRAPHRT_RETURN_IF_ERROR(ResolveTextFileAssets(
        model.model_dir, &*model.initializer, &model.weights));
  }
  // Const values a GraphDef or SavedModel carries in `value` attrs join the
  // weights (decoded once; the attr's bytes go), so that the passes, which
  // read constants from the weights, treat them as TF.js weights. A value
  // that does not decode stays where it is, for Graph::Build to report. The
  // weights are one namespace for the initializer and the function bodies
  // too, which read a weight of a Const's name first: names that also name
  // a node there keep their attr (those name sets are built only when there
  // is such a Const: TF.js models have none).
  std::vector<tensorflow::NodeDef*> valued;
  for (tensorflow::NodeDef& node : *model.topology.mutable_node()) {
    if (node.op() == "Const" && !model.weights.contains(node.name()) &&
        node.attr().contains("value")) {
      valued.push_back(&node);
    }
  }
  if (!valued.empty()) {
    absl::flat_hash_set<std::string> elsewhere;
    if (model.initializer.has_value()) {
      for (const auto& n : model.initializer->node()) {
        elsewhere.insert(n.name());
      }
    }
    for (const auto& f : model.topology.library().function()) {
      for (const auto& n : f.node_def()) elsewhere.insert(n.name());
    }
    for (tensorflow::NodeDef* node : valued) {
      if (elsewhere.contains(node->name())) continue;
      auto value = ConstValue(*node, model.weights);
      if (!value.ok()) continue;
      model.weights.emplace(node->name(), *std::move(value));
      node->mutable_attr()->erase("value");
    }
  }
  {
    // Load-time rewrites (converter/passes/passes.h); signature names stay.
    passes::KeepSet keep;
    if (model.signature.has_value()) {
      for (const auto* entries :
           {&model.signature->inputs, &model.signature->outputs}) {
        for (const SignatureEntry& e : *entries) {
          keep.insert(passes::NodeNameOf(e.tensor_name));
        }
      }
    }
    out.graph_rewrites = passes::OptimizeInferenceGraph(
                             &model.topology, &model.weights, keep, &registry)
                             .Rewrites();
    // A Const the signature names keeps its value (fetchable): Graph::Build
    // does not let its consumers adopt it (graph.cc, kKeepValueAttr).
    for (tensorflow::NodeDef& node : *model.topology.mutable_node()) {
      if (node.op() == "Const" && keep.contains(node.name())) {
        (*node.mutable_attr())[kKeepValueAttr].set_b(true);
      }
    }
  }
  ModelFunctionLibrary functions(model.topology.library(), &model.weights,
                                 &registry);
  auto graph =
      Graph::Build(std::move(model.topology), model.weights, registry,
                   "inference graph", functions.empty() ? nullptr : &functions);
  // Graph errors name the node; the file is added here.
  if (!graph.ok()) return WithContext(graph.status(), model.model_json);
  out.graph = std::move(*graph);
  const Graph& g = *out.graph;

  std::vector<IoSpec> resource_inputs;
  if (model.signature.has_value()) {
    out.has_signature = true;
    for (const auto& e : model.signature->inputs) {
      GRAPHRT_ASSIGN_OR_RETURN(IoSpec spec, ResolveEntry(g, e, "input"));
      if (spec.resource_id.has_value() || spec.dtype == DType::kResource) {
        resource_inputs.push_back(std::move(spec));
        continue;
      }
      GRAPHRT_RETURN_IF_ERROR(DescribeInput(g, spec));
      if (spec.dtype == DType::kResource) {
        resource_inputs.push_back(std::move(spec));
      } else {
        out.inputs.push_back(std::move(spec));
      }
    }
    for (const auto& e : model.signature->outputs) {
      GRAPHRT_ASSIGN_OR_RETURN(IoSpec spec, ResolveEntry(g, e, "output"));
      out.outputs.push_back(std::move(spec));
    }
  }
  // A signature may list only outputs (faceboxes does): then the inputs are
  // the Placeholder nodes, as without a signature; likewise for outputs.
  bool signature_inputs =
      model.signature.has_value() && !model.signature->inputs.empty();
  bool signature_outputs =
      model.signature.has_value() && !model.signature->outputs.empty();
  if (!signature_inputs) {
    for (int id = 0; id < g.num_nodes(); ++id) {
      const Node& node = g.node(id);
      if (node.op() != "Placeholder" && node.op() != "PlaceholderWithDefault")
        continue;
      IoSpec spec;
      spec.key = node.name();
      spec.endpoint = {id, 0};
      spec.tensor_name = TensorName(g, spec.endpoint);
      GRAPHRT_RETURN_IF_ERROR(DescribeInput(g, spec));
      if (spec.dtype == DType::kResource) {
        resource_inputs.push_back(std::move(spec));
      } else {
        out.inputs.push_back(std::move(spec));
      }
    }
  }
  if (!signature_outputs) {
    for (int id : g.Sinks()) {
      const Node& node = g.node(id);
      if (node.op() == "Const") continue;  // a dangling weight
      IoSpec spec;
      spec.key = node.name();
      spec.endpoint = {id, 0};
      spec.tensor_name = TensorName(g, spec.endpoint);
      out.outputs.push_back(std::move(spec));
    }
  }

  if (model.initializer.has_value() && model.initializer->node_size() > 0) {
    ModelFunctionLibrary init_functions(model.initializer->library(),
                                        &model.weights, &registry);
    auto init_graph =
        Graph::Build(std::move(*model.initializer), model.weights, registry,
                     "initializer graph",
                     init_functions.empty() ? nullptr : &init_functions);
    if (!init_graph.ok()) {
      return WithContext(init_graph.status(), model.model_json);
    }
    out.initializer = std::move(*init_graph);
    const Graph& init = *out.initializer;
    std::vector<std::pair<int64_t, Endpoint>> by_id;
    if (model.initializer_signature.has_value()) {
      for (const auto& e : model.initializer_signature->outputs) {
        GRAPHRT_ASSIGN_OR_RETURN(IoSpec spec,
                                 ResolveEntry(init, e, "initializer output"));
        out.initializer_fetches.push_back(spec.endpoint);
        if (spec.resource_id.has_value()) {
          by_id.emplace_back(*spec.resource_id, spec.endpoint);
        }
      }
    } else {
      for (int id = 0; id < init.num_nodes(); ++id) {
        if (init.node(id).consumers.empty()) {
          out.initializer_fetches.push_back({id, 0});
        }
      }
    }
    for (const IoSpec& in : resource_inputs) {
      if (!in.resource_id.has_value()) continue;
      bool found = false;
      for (const auto& [id, ep] : by_id) {
        if (id == *in.resource_id) {
          out.bindings.push_back({id, ep, in.endpoint, in.key});
          found = true;
          break;
        }
      }
      if (!found) {
        return absl::InvalidArgumentError(
            absl::StrCat(model.model_json, ": resource input '", in.key,
                         "' has resourceId ", *in.resource_id,
                         " but no initializer output carries that resourceId"));
      }
    }
  } else {
    for (const IoSpec& in : resource_inputs) {
      if (in.resource_id.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            model.model_json, ": resource input '", in.key, "' has resourceId ",
            *in.resource_id, " but the model has no modelInitializer"));
      }
    }
  }
  return out;
}

}  // namespace graphrt
