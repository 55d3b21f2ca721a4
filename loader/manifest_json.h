// TF.js model.json's weightsManifest: its entries as written, and a direct
// reader of the manifest's JSON text.
//
// Why: model.json's graphs go to the fast proto reader (proto_json.h) and
// everything else through nlohmann::json's DOM; the manifest (one object per
// weight) was most of that DOM, 10-18% of a small model's load (age,
// blazeface). ParseManifestFast reads the manifest's fixed structure in one
// pass, straight into WeightGroups.
//
// Contract: it returns exactly what tfjs_model.cc's nlohmann-based
// ParseManifest returns for the same text, or declines (nullopt) and the
// caller takes that path, which words the errors. It declines anything
// outside the common shape rather than interpret it: escapes or non-ASCII
// in strings, nested values in members it does not read, a member given
// twice, numbers that are not plain JSON numbers (or, for shape, not
// integers), a missing name / dtype / shape / quantization.dtype, and a
// weight name used twice.
//
// This is an internal header of //loader:tfjs; LoadTfjsModel is the API.
#ifndef GRAPHRT_LOADER_MANIFEST_JSON_H_
#define GRAPHRT_LOADER_MANIFEST_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphrt {
namespace tfjs_internal {

// One weightsManifest entry, as written (validated by DecodeWeightGroup).
struct WeightSpec {
  std::string name;
  std::vector<int64_t> dims;
  std::string dtype;  // manifest dtype: "float32", "int32", ...
  // quantization.dtype ("uint8", "uint16", "float16"); empty if none.
  std::string quantization;
  std::optional<double> min;    // quantization.min when numeric
  std::optional<double> scale;  // quantization.scale when numeric

  bool operator==(const WeightSpec&) const = default;
};

// One weightsManifest group: its shard files and their entries, in order.
struct WeightGroup {
  std::vector<std::string> paths;
  std::vector<WeightSpec> weights;

  bool operator==(const WeightGroup&) const = default;
};

// `json`: the manifest's value (an array of groups). See the contract above.
std::optional<std::vector<WeightGroup>> ParseManifestFast(
    absl::string_view json);

// The nlohmann-based reading of the same text that LoadTfjsModel falls back
// to (tfjs_model.cc), with its errors; for tests of the contract above.
absl::StatusOr<std::vector<WeightGroup>> ParseManifestSlow(
    absl::string_view json);

}  // namespace tfjs_internal
}  // namespace graphrt

#endif  // GRAPHRT_LOADER_MANIFEST_JSON_H_
