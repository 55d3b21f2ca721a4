// Inputs for a loaded model from a tensor-records JSON file (the "inputs"
// array of a golden, or `graphrt run --inputs`), each converted to the dtype
// the model declares for it: TF.js goldens store image inputs as int32
// records, and a model that takes uint8 (handtrack) gets them range-checked
// into uint8 (ConvertInput). One implementation for the CLI, the benchmarks
// and the tests that feed real models.
#ifndef GRAPHRT_TOOLS_MODEL_INPUTS_H_
#define GRAPHRT_TOOLS_MODEL_INPUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/model.h"

namespace graphrt {

// The declared input `name` refers to: its signature key, its tensor name
// ("node:0") or its node name; null when none matches.
const IoSpec* FindInput(const Model& model, absl::string_view name);

// Reads the "inputs" records of `path` and converts each to the declared
// dtype of the input it names; records naming no declared input are kept as
// they are (Run resolves any tensor of the graph). Errors name the file and
// the input.
absl::StatusOr<std::vector<NamedTensor>> ReadModelInputs(
    const std::string& path, const Model& model);

}  // namespace graphrt

#endif  // GRAPHRT_TOOLS_MODEL_INPUTS_H_
