// graphrt's public entry point: a loaded, initialized, runnable model.
//
// Lifecycle:
//   1. Model::Load(path, options) reads the model (a TF.js model.json or its
//      folder), builds the inference and initializer graphs (every kernel
//      created, every attr checked), runs the initializer graph exactly once
//      (it creates and fills hash tables), and binds the resources it made
//      to the inference graph's DT_RESOURCE inputs by resourceId.
//   2. Model::Run(inputs, output_names) runs inference. It is thread-safe:
//      any number of threads may call Run on one Model at once; resources
//      are shared, everything else is per call.
//   3. Destroying the Model releases the graphs, the thread arena and the
//      resources (tables live exactly as long as the Model).
//
// Names. Inputs and outputs are addressed by signature key, by tensor name
// ("x:0") or by node name ("x"). Without output names, Run returns the
// signature's outputs (else the graph's sinks) in model order.
//
// Errors: absl::Status, never an exception or abort. A missing input, an
// unknown name, a wrong dtype or an incompatible shape names the input and
// what was expected.
#ifndef GRAPHRT_RUNTIME_MODEL_H_
#define GRAPHRT_RUNTIME_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "converter/model_import.h"
#include "runtime/executor.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {

struct ModelOptions {
  // Worker threads for inter-op parallelism. 0 (default) = all cores;
  // 1 = run every node on the caller's thread, no pool at all.
  int threads = 0;
  // Largest single weight the loader accepts, in bytes.
  int64_t max_tensor_bytes = int64_t{1} << 34;
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

class Model {
 public:
  static absl::StatusOr<std::unique_ptr<Model>> Load(
      const std::string& path, const ModelOptions& options = {});
  ~Model();

  // Declared inputs (resource inputs excluded) and default outputs.
  const std::vector<IoSpec>& inputs() const { return imported_.inputs; }
  const std::vector<IoSpec>& outputs() const { return imported_.outputs; }

  // Runs inference; returns tensors in `output_names` order (default: the
  // model's outputs).
  absl::StatusOr<std::vector<Tensor>> Run(
      const std::vector<NamedTensor>& inputs,
      const std::vector<std::string>& output_names = {}) const;

  // Resolves an output name to its spec (key, tensor name, endpoint).
  absl::StatusOr<IoSpec> ResolveOutput(const std::string& name) const;

  const ImportedModel& imported() const { return imported_; }
  const ResourceManager& resources() const { return resources_; }
  int threads() const { return threads_; }

 private:
  Model() = default;
  absl::StatusOr<IoSpec> ResolveInput(const std::string& name) const;

  ImportedModel imported_;
  ResourceManager resources_;
  int threads_ = 1;
  struct Arena;
  std::unique_ptr<Arena> arena_;
  std::unique_ptr<Executor> executor_;
  // Initializer outputs fed to the inference graph's resource inputs.
  std::vector<Feed> bound_feeds_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_MODEL_H_
