#include "loader/tfjs_model.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/util/json_util.h"
#include "loader/json_members.h"
#include "loader/json_scan.h"
#include "loader/mapped_file.h"
#include "loader/proto_json.h"
#include "loader/weights_decoder.h"
#include "nlohmann/json.hpp"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// ordered_json keeps object keys in file order: signature input/output
// order is the order of the keys in model.json.
using Json = nlohmann::ordered_json;
using tfjs_internal::WeightGroup;
using tfjs_internal::WeightSpec;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string ErrnoMessage(int err) {
  return std::error_code(err, std::generic_category()).message();
}

absl::Status ErrnoStatus(int err, absl::string_view what) {
  std::string msg = absl::StrCat(what, ": ", ErrnoMessage(err));
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(msg);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(msg);
  return absl::UnavailableError(msg);
}

std::string JoinPath(absl::string_view dir, absl::string_view name) {
  if (dir.empty()) return std::string(name);
  if (dir.back() == '/') return absl::StrCat(dir, name);
  return absl::StrCat(dir, "/", name);
}

std::string Dirname(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Appends the contents of the file at `path` to `*out`, reading straight
// into the string.
absl::Status AppendFile(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot open ", path));
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot stat ", path));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is a directory"));
  }
  size_t pos = out->size();
  // st_size is a hint (it is 0 for some special files); grow if needed.
  out->resize(pos + (st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0));
  while (true) {
    if (pos == out->size()) {
      out->resize(out->size() + std::max<size_t>(1 << 16, out->size() / 2));
    }
    ssize_t got = ::read(fd, &(*out)[pos], out->size() - pos);
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, absl::StrCat("cannot read ", path));
    }
    if (got == 0) break;
    pos += static_cast<size_t>(got);
  }
  out->resize(pos);
  return absl::OkStatus();
}

// Size of a file for preallocation; 0 when unknown.
size_t FileSizeHint(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || st.st_size < 0) return 0;
  return static_cast<size_t>(st.st_size);
}

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Where-strings for errors: `signature.inputs['x'].tensorShape`.
std::string Key(absl::string_view where, absl::string_view key) {
  return absl::StrCat(where, "['", key, "']");
}

absl::Status Invalid(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// An integer written as a JSON integer, an integral float, or a string
// (proto3 JSON writes int64 as strings).
absl::StatusOr<int64_t> GetInt64(const Json& j, absl::string_view where) {
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(kInt64Max)) {
      return Invalid(where, absl::StrCat(v, " does not fit in int64"));
    }
    return static_cast<int64_t>(v);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_float()) {
    double v = j.get<double>();
    // 2^63 is the first double past int64.
    if (std::isfinite(v) && std::trunc(v) == v && v >= -9223372036854775808.0 &&
        v < 9223372036854775808.0) {
      return static_cast<int64_t>(v);
    }
    return Invalid(where, absl::StrCat("expected an integer, got ", Dump(j)));
  }
  if (j.is_string()) {
    int64_t v;
    if (absl::SimpleAtoi(j.get_ref<const std::string&>(), &v)) return v;
  }
  return Invalid(where, absl::StrCat("expected an integer, got ", Dump(j)));
}

// Informational string fields: null/absent -> "", other JSON -> its text.
std::string GetInfoString(const Json& root, const char* key) {
  auto it = root.find(key);
  if (it == root.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return Dump(*it);
}

bool Has(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && !it->is_null();
}

// TensorShapeProto in proto3 JSON: {dim:[{size:"-1"}]}, {unknownRank:true},
// {} (scalar). A dim without size has size 0.
absl::StatusOr<PartialShape> ParseTensorShape(const Json& j,
                                              const std::string& where) {
  if (!j.is_object()) return Invalid(where, "expected an object");
  auto unknown = j.find("unknownRank");
  if (unknown != j.end() && unknown->is_boolean() && unknown->get<bool>()) {
    return PartialShape::UnknownRank();
  }
  std::vector<int64_t> dims;
  auto dim = j.find("dim");
  if (dim != j.end() && !dim->is_null()) {
    if (!dim->is_array()) return Invalid(where + ".dim", "expected an array");
    for (size_t i = 0; i < dim->size(); ++i) {
      const Json& d = (*dim)[i];
      std::string dwhere = absl::StrCat(where, ".dim[", i, "]");
      if (!d.is_object()) return Invalid(dwhere, "expected an object");
      int64_t size = 0;
      if (Has(d, "size")) {
        GRAPHRT_ASSIGN_OR_RETURN(size, GetInt64(d["size"], dwhere + ".size"));
      }
      dims.push_back(size);
    }
  }
  return PartialShape(std::move(dims));
}

// TensorInfo plus the converter's resourceId. Signature dtypes are
// informational in TF.js: a name graphrt does not know gives kInvalid.
absl::StatusOr<SignatureEntry> ParseTensorInfo(const std::string& key,
                                               const Json& j,
                                               const std::string& where) {
  if (!j.is_object()) return Invalid(where, "expected an object");
  SignatureEntry entry;
  entry.key = key;
  if (Has(j, "name")) {
    if (!j["name"].is_string())
      return Invalid(where + ".name", "expected a string");
    entry.tensor_name = j["name"].get<std::string>();
  }
  if (Has(j, "dtype")) {
    const Json& d = j["dtype"];
    if (d.is_string()) {
      auto dtype = ParseDType(d.get_ref<const std::string&>());
      if (dtype.ok()) entry.dtype = *dtype;
    } else if (d.is_number_integer()) {
      auto dtype = DTypeFromProto(d.get<int>());
      if (dtype.ok()) entry.dtype = *dtype;
    } else {
      return Invalid(where + ".dtype", "expected a dtype name");
    }
  }
  if (Has(j, "tensorShape")) {
    GRAPHRT_ASSIGN_OR_RETURN(
        entry.shape,
        ParseTensorShape(j["tensorShape"], where + ".tensorShape"));
  }
  if (Has(j, "resourceId")) {
    GRAPHRT_ASSIGN_OR_RETURN(entry.resource_id,
                             GetInt64(j["resourceId"], where + ".resourceId"));
  }
  return entry;
}

absl::StatusOr<std::vector<SignatureEntry>> ParseTensorInfoMap(
    const Json& j, const std::string& where) {
  if (!j.is_object()) return Invalid(where, "expected an object");
  std::vector<SignatureEntry> entries;
  for (const auto& [key, value] : j.items()) {
    GRAPHRT_ASSIGN_OR_RETURN(SignatureEntry entry,
                             ParseTensorInfo(key, value, Key(where, key)));
    entries.push_back(std::move(entry));
  }
  return entries;
}

absl::StatusOr<Signature> ParseSignature(const Json& j,
                                         const std::string& where) {
  if (!j.is_object()) return Invalid(where, "expected an object");
  Signature sig;
  if (Has(j, "inputs")) {
    GRAPHRT_ASSIGN_OR_RETURN(
        sig.inputs, ParseTensorInfoMap(j["inputs"], where + ".inputs"));
  }
  if (Has(j, "outputs")) {
    GRAPHRT_ASSIGN_OR_RETURN(
        sig.outputs, ParseTensorInfoMap(j["outputs"], where + ".outputs"));
  }
  if (Has(j, "methodName")) {
    if (!j["methodName"].is_string()) {
      return Invalid(where + ".methodName", "expected a string");
    }
    sig.method_name = j["methodName"].get<std::string>();
  }
  return sig;
}

absl::StatusOr<tensorflow::GraphDef> ParseGraph(const Json& j,
                                                const std::string& where) {
  if (!j.is_object()) return Invalid(where, "expected a GraphDef object");
  auto graph = ParseGraphDefJson(Dump(j));
  if (!graph.ok()) return WithContext(graph.status(), where);
  return graph;
}

absl::StatusOr<WeightSpec> ParseWeightSpec(const Json& j,
                                           const std::string& where) {
  if (!j.is_object()) return Invalid(where, "expected an object");
  WeightSpec spec;
  if (!Has(j, "name") || !j["name"].is_string()) {
    return Invalid(where, "missing string 'name'");
  }
  spec.name = j["name"].get<std::string>();
  const std::string named = absl::StrCat(where, " (weight '", spec.name, "')");
  if (!Has(j, "dtype") || !j["dtype"].is_string()) {
    return Invalid(named, "missing string 'dtype'");
  }
  spec.dtype = j["dtype"].get<std::string>();
  if (!Has(j, "shape") || !j["shape"].is_array()) {
    return Invalid(named, "missing array 'shape'");
  }
  const Json& shape = j["shape"];
  for (size_t i = 0; i < shape.size(); ++i) {
    GRAPHRT_ASSIGN_OR_RETURN(
        int64_t d, GetInt64(shape[i], absl::StrCat(named, ".shape[", i, "]")));
    spec.dims.push_back(d);
  }
  if (Has(j, "quantization")) {
    const Json& q = j["quantization"];
    if (!q.is_object())
      return Invalid(named + ".quantization", "expected an object");
    if (!Has(q, "dtype") || !q["dtype"].is_string()) {
      return Invalid(named + ".quantization", "missing string 'dtype'");
    }
    spec.quantization = q["dtype"].get<std::string>();
    if (Has(q, "min") && q["min"].is_number())
      spec.min = q["min"].get<double>();
    if (Has(q, "scale") && q["scale"].is_number()) {
      spec.scale = q["scale"].get<double>();
    }
  }
  return spec;
}

absl::StatusOr<std::vector<WeightGroup>> ParseManifest(const Json& j) {
  const std::string where = "weightsManifest";
  if (!j.is_array()) return Invalid(where, "expected an array of groups");
  std::vector<WeightGroup> groups;
  absl::flat_hash_set<std::string> names;
  for (size_t g = 0; g < j.size(); ++g) {
    const Json& group = j[g];
    const std::string gwhere = absl::StrCat(where, "[", g, "]");
    if (!group.is_object()) return Invalid(gwhere, "expected an object");
    WeightGroup out;
    if (Has(group, "paths")) {
      const Json& paths = group["paths"];
      if (!paths.is_array())
        return Invalid(gwhere + ".paths", "expected an array");
      for (size_t i = 0; i < paths.size(); ++i) {
        if (!paths[i].is_string()) {
          return Invalid(absl::StrCat(gwhere, ".paths[", i, "]"),
                         "expected a string");
        }
        out.paths.push_back(paths[i].get<std::string>());
      }
    }
    if (Has(group, "weights")) {
      const Json& weights = group["weights"];
      if (!weights.is_array()) {
        return Invalid(gwhere + ".weights", "expected an array");
      }
      for (size_t i = 0; i < weights.size(); ++i) {
        GRAPHRT_ASSIGN_OR_RETURN(
            WeightSpec spec,
            ParseWeightSpec(weights[i],
                            absl::StrCat(gwhere, ".weights[", i, "]")));
        if (!names.insert(spec.name).second) {
          return Invalid(
              absl::StrCat(gwhere, ".weights[", i, "]"),
              absl::StrCat("duplicate weight name '", spec.name, "'"));
        }
        out.weights.push_back(std::move(spec));
      }
    }
    groups.push_back(std::move(out));
  }
  return groups;
}

// Reads a group's shards (in order) and decodes its weights into `model`.
absl::Status LoadGroup(const WeightGroup& group, const TfjsLoadOptions& options,
                       TfjsModel* model) {
  std::vector<std::string> files;
  size_t total = 0;
  for (const std::string& relative : group.paths) {
    GRAPHRT_ASSIGN_OR_RETURN(std::string file,
                             ResolveInside(model->model_dir, relative));
    total += FileSizeHint(file);
    files.push_back(std::move(file));
  }
  // One shard (what the converter writes up to 4 MB, and what every corpus
  // model has) is decoded straight from a map of the file; several are
  // concatenated first, since a weight may straddle two shards.
  std::shared_ptr<const MappedFile> mapped;
  std::string concatenated;
  absl::string_view data;
  if (files.size() == 1) {
    auto file = MappedFile::Open(files[0]);
    if (!file.ok()) return file.status();
    mapped = std::make_shared<const MappedFile>(std::move(*file));
    data = mapped->data();
  } else {
    concatenated.reserve(total);  // one allocation for all shards
    for (const std::string& file : files) {
      GRAPHRT_RETURN_IF_ERROR(AppendFile(file, &concatenated));
    }
    data = concatenated;
  }
  std::vector<std::pair<std::string, Tensor>> decoded;
  std::vector<std::pair<int64_t, int64_t>> viewed;
  const bool view = options.view_weights && mapped != nullptr;
  GRAPHRT_RETURN_IF_ERROR(tfjs_internal::DecodeWeightGroup(
      data, group.weights, options.max_tensor_bytes, &decoded,
      &model->weight_stats, view ? mapped : nullptr, &viewed,
      options.min_view_bytes));
  // The map outlives this call only through the views: give back the pages
  // between them (decoded, quantized or string bytes), which stay resident
  // from the decode otherwise. Only gaps of at least kMinReleaseBytes:
  // each madvise is a syscall and a TLB shoot-down (dear on VMs; a model
  // with small viewed tensors between float16 ones spent 14% of its load
  // in them), for little memory.
  if (!viewed.empty()) {
    constexpr int64_t kMinReleaseBytes = 256 * 1024;
    auto release = [&mapped](int64_t from, int64_t to) {
      if (to - from >= kMinReleaseBytes) {
        mapped->Release(static_cast<size_t>(from), static_cast<size_t>(to));
      }
    };
    int64_t from = 0;
    for (const auto& [begin, end] : viewed) {
      release(from, begin);
      from = end;
    }
    release(from, static_cast<int64_t>(mapped->size()));
  }
  for (auto& [name, tensor] : decoded) {
    model->weight_names.push_back(name);
    model->weights.emplace(std::move(name), std::move(tensor));
  }
  return absl::OkStatus();
}

// Deepest array/object nesting model.json may have. nlohmann parses
// iteratively, but dump() (used on informational fields and to hand the
// graphs to protobuf) recurses once per level: 200000 '[' would overflow
// the stack. Real models nest fewer than 20 levels.
constexpr int kMaxJsonDepth = 1000;

// The nesting depth of JSON `text`, brackets inside strings excluded; stops
// counting past `limit`.
int JsonDepth(absl::string_view text, int limit) {
  int depth = 0, deepest = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end && deepest <= limit) {
    const char c = *p++;
    if (c == '"') {
      // Past the string's contents (an escape skips the next character).
      while (true) {
        p = json_scan::FindQuoteOrEscape(p, end);
        if (p >= end) return deepest;
        if (*p == '"') break;
        p += 2;
      }
      ++p;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// Parses `text` or explains where it is malformed.
absl::StatusOr<Json> ParseJsonText(absl::string_view text) {
  if (JsonDepth(text, kMaxJsonDepth) > kMaxJsonDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON nested deeper than ", kMaxJsonDepth, " levels"));
  }
  Json root = Json::parse(text.begin(), text.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (!root.is_discarded()) return root;
  // Parse again only to get nlohmann's description of the error.
  std::string why = "syntax error";
  try {
    Json unused = Json::parse(text.begin(), text.end());
    (void)unused;
  } catch (const std::exception& e) {
    why = e.what();
  }
  return absl::InvalidArgumentError(absl::StrCat("malformed JSON: ", why));
}

// model.json split by SplitTopLevelMembers: the graphs parsed by protobuf
// from their raw text, everything else parsed by nlohmann.
struct FastSplit {
  std::optional<tensorflow::GraphDef> topology;
  std::optional<tensorflow::GraphDef> initializer;
  std::optional<std::vector<WeightGroup>> manifest;  // manifest_json.h
  Json rest;
};

// True when `text` split cleanly and every part parsed; false sends the
// caller to the full parse (errors are reported from there).
bool TrySplitModelJson(absl::string_view text, FastSplit* out) {
  if (JsonDepth(text, kMaxJsonDepth) > kMaxJsonDepth) return false;
  std::optional<std::vector<JsonMember>> members = SplitTopLevelMembers(text);
  if (!members.has_value()) return false;
  absl::string_view topology, initializer, manifest;
  std::string rest = "{";
  for (const JsonMember& m : *members) {
    // A later duplicate key wins, as in nlohmann's parse.
    const bool object = !m.value.empty() && m.value.front() == '{';
    const bool array = !m.value.empty() && m.value.front() == '[';
    if (m.key == "modelTopology" && object) {
      topology = m.value;
    } else if (m.key == "modelInitializer" && object) {
      initializer = m.value;
    } else if (m.key == "weightsManifest" && array) {
      manifest = m.value;
    } else {
      if (rest.size() > 1) rest += ',';
      absl::StrAppend(&rest, "\"", m.key, "\":", m.value);
    }
  }
  rest += '}';
  out->rest = Json::parse(rest, nullptr, /*allow_exceptions=*/false);
  if (out->rest.is_discarded()) return false;
  if (!topology.empty()) {
    auto graph = ParseGraphDefJson(topology);
    if (!graph.ok()) return false;
    out->topology = std::move(*graph);
  }
  if (!initializer.empty()) {
    auto graph = ParseGraphDefJson(initializer);
    if (!graph.ok()) return false;
    out->initializer = std::move(*graph);
  }
  if (!manifest.empty()) {
    out->manifest = tfjs_internal::ParseManifestFast(manifest);
    if (!out->manifest.has_value()) return false;
  }
  return true;
}

absl::StatusOr<TfjsModel> LoadImpl(const std::string& path,
                                   const TfjsLoadOptions& options) {
  if (path.empty()) return absl::InvalidArgumentError("empty model path");
  TfjsModel model;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot open model ", path));
  }
  if (S_ISDIR(st.st_mode)) {
    model.model_dir = path;
    model.model_json = JoinPath(path, "model.json");
  } else {
    model.model_dir = Dirname(path);
    model.model_json = path;
  }
  // Weight paths are resolved inside the folder where model.json really
  // lives (a symlinked model.json, as in Bazel runfiles, brings its folder).
  {
    std::unique_ptr<char, decltype(&std::free)> real_json(
        ::realpath(model.model_json.c_str(), nullptr), &std::free);
    if (real_json == nullptr) {
      return ErrnoStatus(errno,
                         absl::StrCat("cannot open model ", model.model_json));
    }
    model.model_dir = Dirname(real_json.get());
  }
  const std::string& file = model.model_json;

  // A map of the file, read in one MAP_POPULATE call, spares the zeroed
  // buffer, the copy and its page faults; special files are read instead.
  std::optional<MappedFile> mapped_text;
  std::string read_text;
  absl::string_view text;
  if (auto mapped = MappedFile::Open(file); mapped.ok() && mapped->size() > 0) {
    mapped_text = std::move(*mapped);
    text = mapped_text->data();
  } else {
    GRAPHRT_RETURN_IF_ERROR(AppendFile(file, &read_text));
    text = read_text;
  }
  // The graphs go straight to protobuf when the file splits cleanly
  // (json_members.h); anything unusual takes the full parse below, which
  // also gives malformed files their error messages.
  FastSplit fast;
  absl::StatusOr<Json> root_or = TrySplitModelJson(text, &fast)
                                     ? std::move(fast.rest)
                                     : ParseJsonText(text);
  if (!root_or.ok()) return WithContext(root_or.status(), file);
  mapped_text.reset();
  read_text = std::string();
  const Json& root = *root_or;
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": the top level is not a JSON object"));
  }

  model.format = GetInfoString(root, "format");
  model.generated_by = GetInfoString(root, "generatedBy");
  model.converted_by = GetInfoString(root, "convertedBy");

  if (fast.topology.has_value()) {
    model.topology = std::move(*fast.topology);
  } else {
    if (!Has(root, "modelTopology")) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ": missing 'modelTopology'"));
    }
    auto topology = ParseGraph(root["modelTopology"], "modelTopology");
    if (!topology.ok()) return WithContext(topology.status(), file);
    model.topology = std::move(*topology);
  }

  if (fast.initializer.has_value()) {
    model.initializer = std::move(*fast.initializer);
  } else if (Has(root, "modelInitializer")) {
    auto init = ParseGraph(root["modelInitializer"], "modelInitializer");
    if (!init.ok()) return WithContext(init.status(), file);
    model.initializer = std::move(*init);
  }

  if (Has(root, "signature")) {
    auto sig = ParseSignature(root["signature"], "signature");
    if (!sig.ok()) return WithContext(sig.status(), file);
    model.signature = std::move(*sig);
  }
  if (Has(root, "initializerSignature")) {
    auto sig =
        ParseSignature(root["initializerSignature"], "initializerSignature");
    if (!sig.ok()) return WithContext(sig.status(), file);
    model.initializer_signature = std::move(*sig);
  }
  if (Has(root, "userDefinedMetadata")) {
    const Json& meta = root["userDefinedMetadata"];
    model.user_defined_metadata_json = Dump(meta);
    if (meta.is_object() && Has(meta, "signature")) {
      auto sig =
          ParseSignature(meta["signature"], "userDefinedMetadata.signature");
      if (!sig.ok()) return WithContext(sig.status(), file);
      model.signature = std::move(*sig);  // replaces the top-level one
    }
    if (meta.is_object() && Has(meta, "structuredOutputKeys")) {
      const Json& keys = meta["structuredOutputKeys"];
      const std::string kwhere = "userDefinedMetadata.structuredOutputKeys";
      if (!keys.is_array()) {
        return WithContext(Invalid(kwhere, "expected an array"), file);
      }
      for (size_t i = 0; i < keys.size(); ++i) {
        if (!keys[i].is_string()) {
          return WithContext(
              Invalid(absl::StrCat(kwhere, "[", i, "]"), "expected a string"),
              file);
        }
        model.structured_output_keys.push_back(keys[i].get<std::string>());
      }
    }
  }

  if (fast.manifest.has_value() || Has(root, "weightsManifest")) {
    absl::StatusOr<std::vector<WeightGroup>> groups =
        fast.manifest.has_value() ? absl::StatusOr<std::vector<WeightGroup>>(
                                        std::move(*fast.manifest))
                                  : ParseManifest(root["weightsManifest"]);
    if (!groups.ok()) return WithContext(groups.status(), file);
    for (size_t g = 0; g < groups->size(); ++g) {
      const WeightGroup& group = (*groups)[g];
      absl::Status status = LoadGroup(group, options, &model);
      if (!status.ok()) {
        return WithContext(
            status, absl::StrCat(file, ": weightsManifest[", g, "] (paths ",
                                 absl::StrJoin(group.paths, ", "), ")"));
      }
    }
  }
  return model;
}

}  // namespace

namespace tfjs_internal {

absl::StatusOr<std::vector<WeightGroup>> ParseManifestSlow(
    absl::string_view json) {
  GRAPHRT_ASSIGN_OR_RETURN(Json j, ParseJsonText(json));
  return ParseManifest(j);
}

}  // namespace tfjs_internal

absl::StatusOr<tensorflow::GraphDef> ParseGraphDefJson(absl::string_view json) {
  tensorflow::GraphDef graph;
  // The fast reader (proto_json.h) takes what it can read exactly;
  // protobuf's parser takes the rest and words the errors.
  if (ParseProtoJsonFast(json, &graph)) return graph;
  graph.Clear();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &graph, options);
  if (!status.ok()) {
    auto message = status.message();
    return absl::InvalidArgumentError(
        absl::StrCat("invalid GraphDef JSON: ",
                     absl::string_view(message.data(), message.size())));
  }
  return graph;
}

absl::StatusOr<std::string> ResolveInside(const std::string& dir,
                                          const std::string& relative) {
  const std::string where = absl::StrCat("weight path '", relative, "'");
  if (relative.empty()) return Invalid(where, "empty path");
  if (relative.front() == '/') {
    return Invalid(where,
                   "absolute paths are not allowed; weight paths are "
                   "relative to the model folder");
  }
  for (absl::string_view part : absl::StrSplit(relative, '/')) {
    if (part == "..") {
      return Invalid(where, "'..' is not allowed in weight paths");
    }
  }
  if (relative.find('\0') != std::string::npos) {
    return Invalid(where, "NUL byte in path");
  }
  std::unique_ptr<char, decltype(&std::free)> real_dir(
      ::realpath(dir.c_str(), nullptr), &std::free);
  if (real_dir == nullptr) {
    return ErrnoStatus(errno,
                       absl::StrCat("cannot resolve model folder ", dir));
  }
  const std::string joined = JoinPath(dir, relative);
  std::unique_ptr<char, decltype(&std::free)> real_file(
      ::realpath(joined.c_str(), nullptr), &std::free);
  if (real_file == nullptr) {
    return ErrnoStatus(errno, absl::StrCat("cannot open ", joined));
  }
  std::string prefix = real_dir.get();
  if (prefix.back() != '/') prefix += '/';
  const std::string resolved = real_file.get();
  if (resolved.size() <= prefix.size() ||
      resolved.compare(0, prefix.size(), prefix) != 0) {
    return Invalid(where,
                   absl::StrCat("resolves to ", resolved,
                                ", outside the model folder ", real_dir.get()));
  }
  return resolved;
}

absl::StatusOr<TfjsModel> LoadTfjsModel(const std::string& path,
                                        const TfjsLoadOptions& options) {
  // nlohmann and protobuf are used without exceptions where they allow
  // it; this only keeps anything unforeseen (e.g. bad_alloc) from escaping.
  try {
    return LoadImpl(path, options);
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat(path, ": unexpected error while loading: ", e.what()));
  }
}

}  // namespace graphrt
