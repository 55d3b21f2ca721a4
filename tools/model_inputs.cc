#include "tools/model_inputs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/status_macros.h"
#include "tools/tensor_json.h"

namespace graphrt {

const IoSpec* FindInput(const Model& model, absl::string_view name) {
  for (const IoSpec& spec : model.inputs()) {
    if (spec.key == name || spec.tensor_name == name ||
        spec.tensor_name == absl::StrCat(name, ":0")) {
      return &spec;
    }
  }
  return nullptr;
}

absl::StatusOr<std::vector<NamedTensor>> ReadModelInputs(
    const std::string& path, const Model& model) {
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<TensorRecord> records,
                           ReadTensorRecords(path, "inputs"));
  std::vector<NamedTensor> inputs;
  inputs.reserve(records.size());
  for (TensorRecord& r : records) {
    Tensor value = std::move(r.value);
    if (const IoSpec* spec = FindInput(model, r.name); spec != nullptr) {
      absl::StatusOr<Tensor> converted =
          ConvertInput(r.name, value, spec->dtype);
      if (!converted.ok()) {
        return absl::Status(
            converted.status().code(),
            absl::StrCat(path, ": ", converted.status().message()));
      }
      value = *std::move(converted);
    }
    inputs.push_back({r.name, std::move(value)});
  }
  return inputs;
}

}  // namespace graphrt
