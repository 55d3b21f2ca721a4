#include "loader/ydf/model_reader.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "loader/ydf/forest_builder.h"
#include "loader/ydf/record_files.h"
#include "proto/ydf/random_forest.pb.h"
#include "runtime/status_macros.h"

namespace graphrt::ydf {
namespace {

namespace fs = std::filesystem;
namespace gbt =
    yggdrasil_decision_forests::model::gradient_boosted_trees::proto;
namespace rf = yggdrasil_decision_forests::model::random_forest::proto;

// Node shards YDF writes are ~200 MB each; more shards than this is a
// corrupt header.
constexpr int kMaxShards = 100000;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  }
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"),
                                          &std::fclose);
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  }
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f.get())) > 0)
    data.append(buf, n);
  if (std::ferror(f.get())) {
    return absl::DataLossError(absl::StrCat(path, ": read error"));
  }
  return data;
}

template <typename Proto>
absl::Status ReadProto(const std::string& path, Proto* proto) {
  GRAPHRT_ASSIGN_OR_RETURN(std::string data, ReadFile(path));
  if (!proto->ParseFromString(data)) {
    return absl::DataLossError(
        absl::StrCat(path, ": not a valid ", proto->GetTypeName()));
  }
  return absl::OkStatus();
}

// The prefix of the folder's single "<prefix>data_spec.pb".
absl::StatusOr<std::string> DetectPrefix(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> prefixes;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (absl::EndsWith(name, "data_spec.pb")) {
      prefixes.push_back(name.substr(0, name.size() - 12));
    }
  }
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": cannot list the model folder: ", ec.message()));
  }
  if (prefixes.size() != 1) {
    return absl::NotFoundError(absl::StrCat(
        dir, ": not a YDF model folder (no header.pb, and ", prefixes.size(),
        " *data_spec.pb files to guess the file prefix from)"));
  }
  return prefixes[0];
}

}  // namespace

absl::StatusOr<Forest> LoadYdfModel(const std::string& dir,
                                    const std::string& file_prefix) {
  std::error_code ec;
  if (absl::EndsWith(dir, ".zip") && fs::is_regular_file(dir, ec)) {
    return absl::UnimplementedError(absl::StrCat(
        dir,
        ": zipped YDF models are not read directly; unzip it and pass "
        "the folder"));
  }
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": the YDF model folder does not exist"));
  }
  std::string prefix = file_prefix;
  if (prefix.empty() && !fs::exists(fs::path(dir) / "header.pb", ec)) {
    GRAPHRT_ASSIGN_OR_RETURN(prefix, DetectPrefix(dir));
  }
  auto path = [&](absl::string_view name) {
    return (fs::path(dir) / absl::StrCat(prefix, name)).string();
  };

  ForestSource src;
  GRAPHRT_RETURN_IF_ERROR(ReadProto(path("header.pb"), &src.header));
  GRAPHRT_RETURN_IF_ERROR(ReadProto(path("data_spec.pb"), &src.data_spec));
  int64_t num_shards = 0;
  std::string node_format;
  if (src.header.name() == "RANDOM_FOREST") {
    rf::Header h;
    GRAPHRT_RETURN_IF_ERROR(ReadProto(path("random_forest_header.pb"), &h));
    src.kind = ForestKind::kRandomForest;
    src.num_trees = h.num_trees();
    src.winner_take_all = h.winner_take_all_inference();
    num_shards = h.num_node_shards();
    node_format = h.node_format();
  } else if (src.header.name() == "GRADIENT_BOOSTED_TREES") {
    gbt::Header h;
    GRAPHRT_RETURN_IF_ERROR(
        ReadProto(path("gradient_boosted_trees_header.pb"), &h));
    src.kind = ForestKind::kGradientBoostedTrees;
    src.num_trees = h.num_trees();
    src.has_loss = h.has_loss();
    src.loss = h.loss();
    src.initial_predictions.assign(h.initial_predictions().begin(),
                                   h.initial_predictions().end());
    src.num_trees_per_iter = h.num_trees_per_iter();
    num_shards = h.num_node_shards();
    node_format = h.node_format();
  } else {
    return absl::UnimplementedError(
        absl::StrCat(path("header.pb"), ": model type '", src.header.name(),
                     "' is not supported (RANDOM_FOREST, "
                     "GRADIENT_BOOSTED_TREES)"));
  }
  if (num_shards < 0 || num_shards > kMaxShards) {
    return absl::DataLossError(absl::StrCat(
        dir, ": the forest header announces ", num_shards, " node shards"));
  }
  if (node_format != "BLOB_SEQUENCE" && node_format != "TFE_RECORDIO") {
    return absl::UnimplementedError(
        absl::StrCat(dir, ": node format '", node_format,
                     "' is not supported (BLOB_SEQUENCE, TFE_RECORDIO)"));
  }
  // The records are views into the shard contents, which live until the
  // forest is built.
  std::vector<std::string> shards(num_shards);
  for (int64_t i = 0; i < num_shards; ++i) {
    const std::string shard =
        path(absl::StrFormat("nodes-%05d-of-%05d", i, num_shards));
    GRAPHRT_ASSIGN_OR_RETURN(shards[i], ReadFile(shard));
    auto records = node_format == "BLOB_SEQUENCE"
                       ? ReadBlobSequence(shards[i], shard)
                       : ReadTfRecords(shards[i], shard);
    if (!records.ok()) return records.status();
    src.node_records.insert(src.node_records.end(), records->begin(),
                            records->end());
  }
  return BuildForest(src, dir);
}

}  // namespace graphrt::ydf
