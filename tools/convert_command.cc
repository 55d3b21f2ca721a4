#include "tools/convert_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "converter/tensor_proto.h"
#include "loader/chunked/chunked_proto_reader.h"
#include "loader/chunked/compression.h"
#include "loader/graphdef.h"
#include "loader/saved_model.h"
#include "loader/tfjs_model.h"
#include "nlohmann/json.hpp"
#include "proto/graph.pb.h"
#include "proto/saved_model.pb.h"
#include "runtime/status_macros.h"
#include "tools/convert/atomic_files.h"
#include "tools/convert/graph_util.h"
#include "tools/convert/model_json_writer.h"
#include "tools/convert/saved_model_freezer.h"

namespace graphrt {
namespace {

namespace fs = std::filesystem;
using Json = convert::Json;
using convert::AtomicFiles;
using convert::IsTableInitOp;
using convert::IsTableOp;
using convert::NodeIndex;
using convert::NodeNameOf;
using convert::RenameInput;
using convert::TensorToProto;
using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;

// A model between reading and writing (see the header).
struct ConvertibleModel {
  GraphDef graph;
  std::optional<tensorflow::SavedModel> saved_model;  // SavedModel sources
  Json signature;              // model.json source: its signature, else null
  Json user_defined_metadata;  // model.json source, else null
};

void Progress(const ConvertOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// Puts weights[prefix + node name] into each Const node's value.
absl::Status FoldWeights(
    const absl::flat_hash_map<std::string, Tensor>& weights,
    const std::string& prefix,
    google::protobuf::RepeatedPtrField<NodeDef>* nodes) {
  for (NodeDef& node : *nodes) {
    if (node.op() != "Const") continue;
    auto it = weights.find(prefix + node.name());
    if (it == weights.end()) continue;
    tensorflow::TensorProto* value =
        (*node.mutable_attr())["value"].mutable_tensor();
    absl::Status status = TensorToProto(it->second, value);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("weight ", prefix, node.name(), ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ConvertibleModel> ReadTfjs(const std::string& src) {
  GRAPHRT_ASSIGN_OR_RETURN(TfjsModel model, LoadTfjsModel(src));
  ConvertibleModel out;
  {
    std::ifstream in(model.model_json);
    Json raw = Json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (raw.is_object()) {
      if (raw.contains("signature")) out.signature = raw["signature"];
      if (raw.contains("userDefinedMetadata")) {
        out.user_defined_metadata = raw["userDefinedMetadata"];
        if (out.user_defined_metadata.contains("signature")) {
          out.signature = out.user_defined_metadata["signature"];
        }
      }
    }
  }
  GraphDef& graph = out.graph;
  graph = std::move(model.topology);
  GRAPHRT_RETURN_IF_ERROR(FoldWeights(model.weights, "", graph.mutable_node()));
  for (tensorflow::FunctionDef& function :
       *graph.mutable_library()->mutable_function()) {
    GRAPHRT_RETURN_IF_ERROR(FoldWeights(model.weights,
                                        function.signature().name() + "/",
                                        function.mutable_node_def()));
  }
  if (!model.initializer.has_value()) return out;

  // Merge the initializer's tables and the ops that fill them.
  GraphDef& init = *model.initializer;
  GRAPHRT_RETURN_IF_ERROR(FoldWeights(model.weights, "", init.mutable_node()));
  const NodeIndex init_index(init);
  std::vector<std::string> roots;
  for (const NodeDef& node : init.node()) {
    if (IsTableOp(node.op()) || IsTableInitOp(node.op())) {
      roots.push_back(node.name());
    }
  }
  const absl::flat_hash_set<std::string> keep =
      init_index.Ancestors(roots, [](const NodeDef&) { return false; });
  NodeIndex graph_index(graph);
  absl::flat_hash_map<std::string, std::string> renamed;
  for (const NodeDef& node : init.node()) {
    if (!keep.contains(node.name())) continue;
    const NodeDef* existing = graph_index.Find(node.name());
    if (existing != nullptr && existing->op() == node.op() &&
        IsTableOp(node.op())) {
      renamed[node.name()] = node.name();  // shared by name (TF1 style)
      continue;
    }
    std::string name = node.name();
    while (graph_index.Contains(name) ||
           (keep.contains(name) && name != node.name())) {
      name += "/initializer";
    }
    renamed[node.name()] = name;
  }
  for (const NodeDef& node : init.node()) {
    if (!keep.contains(node.name()) || (renamed[node.name()] == node.name() &&
                                        graph_index.Contains(node.name()))) {
      continue;
    }
    NodeDef* copy = graph.add_node();
    *copy = node;
    copy->set_name(renamed[node.name()]);
    for (std::string& input : *copy->mutable_input()) {
      auto it = renamed.find(NodeNameOf(input));
      if (it != renamed.end()) input = RenameInput(input, it->second);
    }
  }
  // Resource inputs -> the table nodes they are bound to by resourceId.
  absl::flat_hash_map<int64_t, std::string> table_by_id;
  if (model.initializer_signature.has_value()) {
    for (const SignatureEntry& entry : model.initializer_signature->outputs) {
      if (!entry.resource_id.has_value()) continue;
      const NodeDef* table =
          init_index.SkipIdentities(NodeNameOf(entry.tensor_name));
      if (table == nullptr || !IsTableOp(table->op())) {
        return absl::UnimplementedError(absl::StrCat(
            model.model_json, ": initializer output ", entry.tensor_name,
            " is not a hash table; only table resources can be converted"));
      }
      table_by_id[*entry.resource_id] = renamed[table->name()];
    }
  }
  absl::flat_hash_map<std::string, std::string> placeholder_to_table;
  if (model.signature.has_value()) {
    for (const SignatureEntry& entry : model.signature->inputs) {
      if (!entry.resource_id.has_value()) continue;
      auto it = table_by_id.find(*entry.resource_id);
      if (it == table_by_id.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            model.model_json, ": resource input ", entry.tensor_name,
            " has resourceId ", *entry.resource_id,
            " that no initializer output has"));
      }
      placeholder_to_table[NodeNameOf(entry.tensor_name)] = it->second;
    }
  }
  auto* nodes = graph.mutable_node();
  nodes->erase(
      std::remove_if(nodes->begin(), nodes->end(),
                     [&](const NodeDef& node) {
                       return placeholder_to_table.contains(node.name());
                     }),
      nodes->end());
  for (NodeDef& node : *nodes) {
    for (std::string& input : *node.mutable_input()) {
      auto it = placeholder_to_table.find(NodeNameOf(input));
      if (it != placeholder_to_table.end()) {
        input = RenameInput(input, it->second);
      }
    }
  }
  // The merged graph has no resource inputs: drop them from the signature.
  if (out.signature.is_object() && out.signature.contains("inputs")) {
    Json inputs = Json::object();
    for (auto& [key, value] : out.signature["inputs"].items()) {
      if (!value.contains("resourceId")) inputs[key] = value;
    }
    out.signature["inputs"] = inputs;
  }
  return out;
}

bool IsSavedModelProtoPath(const std::string& path) {
  const std::string file = fs::path(path).filename().string();
  return file == "saved_model.pb" || file == "saved_model.pbtxt" ||
         file == "saved_model.cpb";
}

absl::Status ReadProto(const std::string& path,
                       google::protobuf::Message* out) {
  if (absl::EndsWith(path, ".cpb")) return ReadChunkedProto(path, out);
  return ReadProtoFile(path, ProtoFormatForPath(path), out);
}

// The SavedModel folder `src` names (the folder, or its saved_model.*
// file), if it is one.
std::optional<std::string> SavedModelDirOf(const std::string& src) {
  std::error_code error;
  if (fs::is_directory(src, error)) {
    if (fs::exists(fs::path(src) / "model.json", error)) return std::nullopt;
    if (IsSavedModelDir(src)) return src;
    return std::nullopt;
  }
  if (IsSavedModelProtoPath(src) && fs::exists(src, error)) {
    const std::string dir = fs::path(src).parent_path().string();
    return dir.empty() ? "." : dir;
  }
  return std::nullopt;
}

absl::StatusOr<ConvertibleModel> ReadSource(const std::string& src) {
  std::error_code error;
  std::string proto_path = src;
  if (fs::is_directory(src, error)) {
    if (fs::exists(fs::path(src) / "model.json")) return ReadTfjs(src);
    proto_path.clear();
    for (const char* name :
         {"saved_model.cpb", "saved_model.pb", "saved_model.pbtxt"}) {
      if (fs::exists(fs::path(src) / name)) {
        proto_path = (fs::path(src) / name).string();
        break;
      }
    }
    if (proto_path.empty()) {
      return absl::NotFoundError(absl::StrCat(
          src, ": no model.json or saved_model.{cpb,pb,pbtxt} in the folder"));
    }
  }
  if (absl::EndsWith(proto_path, ".json")) return ReadTfjs(proto_path);
  ConvertibleModel out;
  if (IsSavedModelProtoPath(proto_path)) {
    tensorflow::SavedModel saved_model;
    GRAPHRT_RETURN_IF_ERROR(ReadProto(proto_path, &saved_model));
    out.saved_model = std::move(saved_model);
    return out;
  }
  GRAPHRT_RETURN_IF_ERROR(ReadProto(proto_path, &out.graph));
  return out;
}

absl::Status WriteBinary(const ConvertibleModel& model,
                         const std::string& dst) {
  const google::protobuf::Message& message =
      model.saved_model.has_value()
          ? static_cast<const google::protobuf::Message&>(*model.saved_model)
          : model.graph;
  std::string bytes;
  if (absl::Status s = SerializeDeterministic(message, &bytes); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(dst, ": ", s.message(), " (write a .cpb instead)"));
  }
  AtomicFiles files;
  GRAPHRT_RETURN_IF_ERROR(files.Write(dst, bytes));
  return files.Commit();
}

}  // namespace

absl::Status ConvertModel(const std::string& src, const std::string& dst,
                          const ConvertOptions& options) {
  const bool to_model_json = fs::path(dst).filename() == "model.json";
  const bool to_cpb = absl::EndsWith(dst, ".cpb");
  const bool to_pb = absl::EndsWith(dst, ".pb");
  if (!to_model_json && !to_cpb && !to_pb) {
    return absl::InvalidArgumentError(absl::StrCat(
        "destination ", dst, " must end in .pb, .cpb or /model.json"));
  }
  Progress(options, absl::StrCat("reading ", src));
  convert::ModelJsonOptions json_options;
  json_options.shard_bytes = options.shard_bytes;
  json_options.progress = options.progress;
  if (to_model_json) {
    if (std::optional<std::string> dir = SavedModelDirOf(src)) {
      convert::FreezeOptions freeze;
      freeze.tags = options.tags;
      freeze.signature = options.signature;
      freeze.progress = options.progress;
      GRAPHRT_ASSIGN_OR_RETURN(convert::FrozenSavedModel frozen,
                               convert::FreezeSavedModel(*dir, freeze));
      Progress(options, absl::StrCat("froze ", frozen.frozen_variables,
                                     " variables and ", frozen.frozen_tables,
                                     " tables; writing ", dst));
      convert::ModelJsonSource source;
      source.graph = std::move(frozen.graph);
      source.signature = std::move(frozen.signature);
      return convert::WriteModelJson(std::move(source), dst, json_options);
    }
  }
  GRAPHRT_ASSIGN_OR_RETURN(ConvertibleModel model, ReadSource(src));
  Progress(options, absl::StrCat("writing ", dst));
  if (to_model_json) {
    convert::ModelJsonSource source;
    source.graph = std::move(model.graph);
    source.signature = std::move(model.signature);
    source.user_defined_metadata = std::move(model.user_defined_metadata);
    return convert::WriteModelJson(std::move(source), dst, json_options);
  }
  if (to_pb) return WriteBinary(model, dst);
  ChunkedWriteStats stats;
  const google::protobuf::Message& message =
      model.saved_model.has_value()
          ? static_cast<const google::protobuf::Message&>(*model.saved_model)
          : model.graph;
  GRAPHRT_RETURN_IF_ERROR(
      WriteChunkedProto(message, dst, options.chunked, &stats));
  Progress(options, absl::StrCat("wrote ", stats.chunks, " chunks, ",
                                 stats.file_bytes, " bytes"));
  return absl::OkStatus();
}

int RunConvertCommand(int argc, char** argv) {
  std::vector<std::string> positional;
  ConvertOptions options;
  bool quiet = false;
  absl::Status status;
  for (int i = 2; i < argc && status.ok(); ++i) {
    std::string arg = argv[i];
    if (!absl::StartsWith(arg, "--")) {
      positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (name != "quiet" && i + 1 < argc) {
      value = argv[++i];
    }
    if (name == "quiet") {
      quiet = true;
    } else if (name == "compression") {
      absl::StatusOr<riegeli::CompressionType> type =
          riegeli::ParseCompressionType(value);
      if (type.ok()) {
        options.chunked.compression = *type;
      } else {
        status = type.status();
      }
    } else if (name == "signature") {
      options.signature = value;
    } else if (name == "tags") {
      options.tags = absl::StrSplit(value, ',', absl::SkipEmpty());
    } else if (name == "split_limit") {
      if (!absl::SimpleAtoi(value, &options.chunked.max_size) ||
          options.chunked.max_size == 0) {
        status = absl::InvalidArgumentError(
            "--split_limit must be a positive byte count");
      }
    } else {
      status =
          absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
  }
  if (status.ok() && positional.size() != 2) {
    status = absl::InvalidArgumentError(
        "usage: graphrt convert SRC DST [--compression none|brotli|zstd|"
        "snappy] [--split_limit BYTES] [--signature KEY] [--tags a,b] "
        "[--quiet]");
  }
  if (!quiet) {
    options.progress = [](const std::string& line) {
      std::cerr << "graphrt convert: " << line << "\n";
    };
  }
  if (status.ok()) status = ConvertModel(positional[0], positional[1], options);
  if (!status.ok()) {
    std::string message(status.message());
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::cerr << "graphrt: error: " << message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace graphrt
