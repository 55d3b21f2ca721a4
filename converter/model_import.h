// Model import: turns a loaded TF.js model (loader/tfjs_model.h) into
// graphrt's ImportedModel — the inference Graph, the separate initializer
// Graph, the signature resolved to graph endpoints, and the resource
// bindings from initializer outputs to the inference graph's DT_RESOURCE
// inputs (matched by the TF.js converter's `resourceId`).
//
// Signature rules follow TF.js: declared input dtype/shape come from the
// Placeholder node (the signature is informational), inputs/outputs keep
// model.json order; without a signature the inputs are the Placeholder
// nodes in graph order (keyed by node name) and the outputs the graph's
// sinks (keyed by node name).
#ifndef GRAPHRT_CONVERTER_MODEL_IMPORT_H_
#define GRAPHRT_CONVERTER_MODEL_IMPORT_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "converter/graph.h"
#include "loader/tfjs_model.h"
#include "ops/registry.h"

namespace graphrt {

struct IoSpec {
  std::string key;          // signature key (or node name)
  std::string tensor_name;  // "node:index"
  Endpoint endpoint;
  DType dtype = DType::kInvalid;  // kInvalid: not declared
  PartialShape shape;
  std::optional<int64_t> resource_id;
};

struct ResourceBinding {
  int64_t resource_id;
  Endpoint initializer_output;  // in the initializer graph
  Endpoint inference_input;     // in the inference graph
  std::string input_key;
};

struct ImportedModel {
  std::string source;  // path it came from
  std::unique_ptr<Graph> graph;
  std::unique_ptr<Graph> initializer;  // null when the model has none
  std::vector<IoSpec> inputs;          // non-resource inputs
  std::vector<IoSpec> outputs;
  std::vector<ResourceBinding> bindings;
  // Initializer fetches: its signature outputs, else its sinks.
  std::vector<Endpoint> initializer_fetches;
  bool has_signature = false;
  WeightStats weight_stats;
  // What the load-time graph passes rewrote, by pass (nonzero counts only;
  // passes::PassStats::Rewrites).
  std::vector<std::pair<std::string, int>> graph_rewrites;
};

absl::StatusOr<ImportedModel> ImportTfjsModel(TfjsModel model,
                                              const OpRegistry& registry);

}  // namespace graphrt

#endif  // GRAPHRT_CONVERTER_MODEL_IMPORT_H_
