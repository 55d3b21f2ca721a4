#include "converter/asset_paths.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "loader/tfjs_model.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// "name:0" / "^name" / "name" -> "name".
absl::string_view InputNode(absl::string_view input) {
  if (absl::StartsWith(input, "^")) input.remove_prefix(1);
  size_t colon = input.find(':');
  return colon == absl::string_view::npos ? input : input.substr(0, colon);
}

absl::StatusOr<std::string> ResolveName(const std::string& model_dir,
                                        const std::string& node,
                                        const std::string& path) {
  if (path.empty() || path[0] == '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "node '", node, "': table initializer file '", path,
        "' must be a path relative to the model folder ", model_dir));
  }
  auto resolved = ResolveInside(model_dir, path);
  if (!resolved.ok()) {
    return WithContext(resolved.status(),
                       absl::StrCat("node '", node,
                                    "': table initializer file"));
  }
  return *resolved;
}

absl::Status ResolveInNodes(
    const std::string& model_dir,
    google::protobuf::RepeatedPtrField<tensorflow::NodeDef>* nodes,
    absl::flat_hash_map<std::string, Tensor>* weights,
    absl::string_view weight_prefix) {
  // Filled on the first text-file initializer: most graphs have none.
  absl::flat_hash_map<absl::string_view, tensorflow::NodeDef*> by_name;
  absl::flat_hash_set<std::string> done;
  for (const tensorflow::NodeDef& n : *nodes) {
    if (n.op() != "InitializeTableFromTextFile" &&
        n.op() != "InitializeTableFromTextFileV2") {
      continue;
    }
    if (n.input_size() < 2) continue;  // the kernel reports the arity
    if (by_name.empty()) {
      for (tensorflow::NodeDef& m : *nodes) by_name[m.name()] = &m;
    }
    // Follow Identity chains to the producer (bounded: no cycles).
    std::string name(InputNode(n.input(1)));
    tensorflow::NodeDef* producer = nullptr;
    for (int hops = 0; hops <= nodes->size(); ++hops) {
      auto it = by_name.find(name);
      if (it == by_name.end()) break;
      tensorflow::NodeDef* p = it->second;
      if (p->op() == "Identity" && p->input_size() >= 1) {
        name = std::string(InputNode(p->input(0)));
        continue;
      }
      producer = p;
      break;
    }
    if (producer == nullptr || producer->op() != "Const") continue;
    if (!done.insert(producer->name()).second) continue;
    const std::string key = absl::StrCat(weight_prefix, producer->name());
    auto w = weights->find(key);
    if (w != weights->end()) {
      const Tensor& t = w->second;
      if (t.dtype() != DType::kString || t.num_elements() != 1) continue;
      GRAPHRT_ASSIGN_OR_RETURN(
          std::string path,
          ResolveName(model_dir, n.name(), *t.data<std::string>()));
      GRAPHRT_ASSIGN_OR_RETURN(Tensor fresh,
                               Tensor::Allocate(DType::kString, t.shape()));
      *fresh.mutable_data<std::string>() = std::move(path);
      w->second = std::move(fresh);
      continue;
    }
    auto attr = producer->mutable_attr()->find("value");
    if (attr == producer->mutable_attr()->end() ||
        !attr->second.has_tensor()) {
      continue;
    }
    tensorflow::TensorProto* tp = attr->second.mutable_tensor();
    if (tp->dtype() != tensorflow::DT_STRING || tp->string_val_size() != 1) {
      continue;
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        std::string path, ResolveName(model_dir, n.name(), tp->string_val(0)));
    tp->set_string_val(0, path);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ResolveTextFileAssets(
    const std::string& model_dir, tensorflow::GraphDef* graph,
    absl::flat_hash_map<std::string, Tensor>* weights) {
  GRAPHRT_RETURN_IF_ERROR(
      ResolveInNodes(model_dir, graph->mutable_node(), weights, ""));
  for (tensorflow::FunctionDef& f :
       *graph->mutable_library()->mutable_function()) {
    GRAPHRT_RETURN_IF_ERROR(ResolveInNodes(
        model_dir, f.mutable_node_def(), weights,
        absl::StrCat(f.signature().name(), "/")));
  }
  return absl::OkStatus();
}

}  // namespace graphrt
