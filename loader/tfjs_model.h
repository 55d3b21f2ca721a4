// Reader for TF.js graph models: model.json + weight shards.
//
// LoadTfjsModel(path) parses model.json (path to the file or to its
// folder), decodes every weight of every manifest group (shards
// concatenated in order; float32/int32/bool/string/complex64; uint8/uint16
// affine and float16 quantization dequantized to the manifest dtype), and
// returns the graphs and signatures as protos. It does not build kernels:
// that is the converter's job.
//
// Safety: weight paths must stay inside the model folder (no "..", no
// absolute paths, no symlinks leading out); every size is checked (a shard
// shorter or longer than its manifest says is an error naming the weight).
// Errors are absl::Status naming the file and the weight/key at fault.
//
// JSON handling: model.json is read with nlohmann::ordered_json, so
// signature inputs/outputs keep the order of their keys in the file;
// modelTopology / modelInitializer go through protobuf's JSON parser
// (proto3 JSON rules, unknown fields ignored). Signature dtypes and shapes
// are informational (TF.js checks Placeholder attrs): an unknown dtype name
// gives DType::kInvalid rather than an error.
#ifndef GRAPHRT_LOADER_TFJS_MODEL_H_
#define GRAPHRT_LOADER_TFJS_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/graph.pb.h"
#include "runtime/dtype.h"
#include "runtime/shape.h"
#include "runtime/tensor.h"

namespace graphrt {

// One entry of a signature's inputs or outputs, in model.json order.
struct SignatureEntry {
  std::string key;                     // signature key, e.g. "input_1"
  std::string tensor_name;             // e.g. "input_1:0" (as written)
  DType dtype = DType::kInvalid;       // kInvalid when absent
  PartialShape shape;                  // unknown rank when absent
  std::optional<int64_t> resource_id;  // TF.js converter's resourceId
};

struct Signature {
  std::vector<SignatureEntry> inputs;
  std::vector<SignatureEntry> outputs;
  std::string method_name;
};

// Per-dtype weight statistics for `graphrt info`.
struct WeightStats {
  struct Entry {
    int64_t count = 0;
    int64_t bytes_stored = 0;  // bytes in the shards
  };
  // Keyed by "float32", "float32<-float16", "float32<-uint8", ...
  std::map<std::string, Entry> by_dtype;
  int64_t total_bytes = 0;
};

struct TfjsModel {
  std::string model_dir;   // folder where model.json really lives (symlinks
                           // resolved); weight paths must stay inside it
  std::string model_json;  // path of model.json
  std::string format;
  std::string generated_by;
  std::string converted_by;

  tensorflow::GraphDef topology;                    // modelTopology
  std::optional<tensorflow::GraphDef> initializer;  // modelInitializer
  // `userDefinedMetadata.signature` when present, else `signature`.
  std::optional<Signature> signature;
  std::optional<Signature> initializer_signature;
  std::string user_defined_metadata_json;  // raw JSON text, "" if absent
  // userDefinedMetadata.structuredOutputKeys (predict() returns a map keyed
  // by these, in output order); empty if absent.
  std::vector<std::string> structured_output_keys;

  // Decoded weights by name (Const node names; function consts are
  // "<function>/<const>").
  absl::flat_hash_map<std::string, Tensor> weights;
  // The same names in manifest order (groups in order, entries in order).
  std::vector<std::string> weight_names;
  WeightStats weight_stats;
};

struct TfjsLoadOptions {
  // Refuse weights whose decoded size exceeds this many bytes.
  int64_t max_tensor_bytes = int64_t{1} << 34;
  // Zero-copy weights (default on): unquantized float32/int32 weights of a
  // one-shard group are read-only views into the mapped shard, which then
  // stays mapped while any of them lives (the rest of its pages are given
  // back). Saves the copy and its fresh pages: a float32 model loads ~30%
  // faster on VMs where page faults are dear. The cost is TFLite's: the
  // shard file must not be modified in place while the model is loaded
  // (replace it by rename instead). false: every weight is copied.
  bool view_weights = true;
  // Weights smaller than this are copied even when view_weights is on:
  // below a few pages a copy costs less than pinning the shard's pages
  // (default 16 KiB; 0 views every eligible weight).
  int64_t min_view_bytes = 16 * 1024;
};

absl::StatusOr<TfjsModel> LoadTfjsModel(const std::string& path,
                                        const TfjsLoadOptions& options = {});

// Exposed for tests and for other loaders.
//
// Parses a protobuf-JSON GraphDef (modelTopology) text.
absl::StatusOr<tensorflow::GraphDef> ParseGraphDefJson(absl::string_view json);

// Resolves `relative` inside `dir`: rejects absolute paths, "..", and
// paths (after following symlinks) that leave `dir`. The file must exist
// (NotFound otherwise); returns its canonical (realpath) path.
absl::StatusOr<std::string> ResolveInside(const std::string& dir,
                                          const std::string& relative);

}  // namespace graphrt

#endif  // GRAPHRT_LOADER_TFJS_MODEL_H_
