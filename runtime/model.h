// graphrt's public entry point: a loaded, initialized, runnable model.
//
// Lifecycle:
//   1. Model::Load(path, options) reads the model (a TF.js model.json or its
//      folder; a SavedModel directory, see converter/saved_model_import.h;
//      a GraphDef .pb/.pbtxt/.cpb file), builds the inference and
//      initializer graphs (every kernel created, every attr checked), runs
//      the initializer graph (SavedModel: restore + init op) exactly once
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
#include "runtime/job_system.h"
#include "runtime/model_state.h"
#include "runtime/mutex.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {

struct ModelOptions {
  // Worker threads for inter-op parallelism. 0 (default) = all cores;
  // 1 = run every node on the caller's thread, no pool at all.
  int threads = 0;
  // A host's own job system (runtime/job_system.h) instead of graphrt's
  // oneTBB arena: `threads` is then ignored, each Run executes its nodes in
  // order on the calling thread and hands the kernels' parallel loops to
  // the job system (no inter-op parallelism; the same results). Null
  // (default) = the arena. Not owned; must outlive the Model.
  JobSystem* job_system = nullptr;
  // Largest single weight the loader accepts, in bytes.
  int64_t max_tensor_bytes = int64_t{1} << 34;
  // TF.js models: unquantized float32/int32 weights are zero-copy views
  // into the mapped weight shard (TfjsLoadOptions::view_weights; loads
  // ~25% faster for float32 models). The shard file must then not be
  // modified in place while the model is loaded; false copies every weight.
  bool view_weights = true;
  // SavedModel: the MetaGraphDef's tag set (exact match, as TF) and the
  // SignatureDef key; "serving_default" falls back to the only signature.
  std::vector<std::string> tags = {"serve"};
  std::string signature = "serving_default";
  // Per-Run cap on the bytes of live intermediate tensors; a Run that would
  // exceed it fails with ResourceExhausted naming the node. 0 = unlimited.
  int64_t max_memory_bytes = 0;
  // Largest graph Load accepts: nodes of the inference graph plus the
  // initializer graph. More -> ResourceExhausted at load. 0 = unlimited.
  int64_t max_graph_nodes = int64_t{1} << 24;
  // Most times one loop body may run within one Run (v1 loops and v2
  // While/StatelessWhile, initializer included); more -> ResourceExhausted
  // naming the loop node. 0 (default) = unlimited, as in TensorFlow.
  int64_t max_loop_iterations = 0;
  // Per-node timing of the inference graph's Runs (runtime/profiler.h;
  // `graphrt bench --profile`). Null (default) = none. Not owned; must
  // outlive the Model.
  Profiler* profiler = nullptr;
  // Runs compute with denormal floats flushed to zero (FTZ + DAZ on x86),
  // as TensorFlow does: values below 1.2e-38 become 0, and models whose
  // activations decay towards zero avoid the CPU's slow denormal path (up
  // to 2x faster). false = IEEE denormals. Applies to the initializer and
  // function bodies too; constant folding at load computes with IEEE
  // denormals.
  bool flush_denormals = true;
};

// What Model::Load read, for `graphrt info`.
struct ModelSourceInfo {
  std::string format;                   // "tfjs", "saved_model", "graph_def"
  std::vector<std::string> tags;        // SavedModel: chosen tag set
  std::string signature;                // SavedModel: chosen signature key
  std::vector<std::string> signatures;  // SavedModel: all signature keys
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

class Model {
 public:
  static absl::StatusOr<std::unique_ptr<Model>> Load(
      const std::string& path, const ModelOptions& options = {});
  // Process-wide set-up the first Load would otherwise do on its way: the
  // op registry (every kernel factory) and protobuf's descriptors of the
  // graph protos (~1 ms). Optional, idempotent and thread-safe; a host that
  // wants its first Load as fast as later ones calls it at start-up.
  // `graphrt bench` calls it before timing the load and reports it as
  // init_ms, as TF.js's bench times loadGraphModel after tf.ready().
  // Process-wide side effect: it turns off absl::Mutex deadlock detection
  // (on by default in Debian's libabsl, built without NDEBUG), whose one
  // global lock serialized concurrent Runs; a host that wants it can turn
  // it back on after the first Load (absl::SetMutexDeadlockDetectionMode).
  static void InitRuntime();
  ~Model();

  // Declared inputs (resource inputs excluded) and default outputs.
  const std::vector<IoSpec>& inputs() const { return imported_.inputs; }
  const std::vector<IoSpec>& outputs() const { return imported_.outputs; }

  // Runs inference; returns tensors in `output_names` order (default: the
  // model's outputs).
  absl::StatusOr<std::vector<Tensor>> Run(
      const std::vector<NamedTensor>& inputs,
      const std::vector<std::string>& output_names = {}) const;

  // Low-level Run for callers that resolved names once (the C API):
  // `feeds` are the caller's inputs (resource inputs are added here; dtype
  // and shape checks are the caller's), `results` gets one tensor per fetch
  // and is written only on success. Once the same feeds, fetches and shapes
  // have run, this makes no heap allocation of its own.
  absl::Status RunResolved(absl::Span<const Feed> feeds,
                           absl::Span<const Endpoint> fetches,
                           absl::Span<Tensor> results) const;

  // Resolves an output name to its spec (key, tensor name, endpoint).
  absl::StatusOr<IoSpec> ResolveOutput(const std::string& name) const;
  // Resolves an input name (declared input, or any tensor of the graph).
  absl::StatusOr<IoSpec> ResolveInput(const std::string& name) const;

  const ImportedModel& imported() const { return imported_; }
  const ResourceManager& resources() const { return resources_; }
  const ModelSourceInfo& source_info() const { return source_info_; }
  // Threads a Run may use: ModelOptions::threads resolved (0 = the cores),
  // or the job system's concurrency.
  int threads() const { return threads_; }

  // Bytes of tensor storage the inference executor's pool holds (free and in
  // use): after Runs, about the largest set of simultaneously live
  // intermediate tensors of one Run per concurrent caller, each rounded up
  // to its power-of-two size class (so up to 2x the live bytes).
  int64_t activation_pool_bytes() const;

  // Saves the model's stateful resources (mutable tables, variables; static
  // tables on request) as a TF tensor-bundle checkpoint at `prefix`, and
  // restores them (keys: runtime/model_state.h). Safe while Run calls are
  // in flight: SaveState waits for the Runs in flight to finish, holds new
  // ones back while it copies the state out (a table export, a variable
  // read: microseconds to milliseconds), then writes the files while Runs
  // go on, so the checkpoint is one consistent instant of every resource.
  // RestoreState checks everything before changing anything and holds Runs
  // back while it changes the state.
  absl::Status SaveState(const std::string& prefix,
                         const SaveStateOptions& options = {}) const;
  absl::Status RestoreState(const std::string& prefix);

 private:
  Model() = default;

  ImportedModel imported_;
  ResourceManager resources_;
  int threads_ = 1;
  ModelSourceInfo source_info_;
  struct Arena;
  std::unique_ptr<Arena> arena_;
  std::unique_ptr<Executor> executor_;
  // Initializer outputs fed to the inference graph's resource inputs.
  std::vector<Feed> bound_feeds_;
  // Run calls hold it shared (readers never block each other); SaveState's
  // snapshot and RestoreState hold it exclusively.
  mutable Mutex state_mu_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_MODEL_H_
