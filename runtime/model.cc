#include "runtime/model.h"

#include <filesystem>
#include <system_error>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "converter/graphdef_import.h"
#include "converter/saved_model_import.h"
#include "loader/graphdef.h"
#include "loader/saved_model.h"
#include "loader/tfjs_model.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"
#include "runtime/dataflow_executor.h"
#include "runtime/status_macros.h"

namespace graphrt {

struct Model::Arena {
  explicit Arena(int threads) : arena(threads) {}
  oneapi::tbb::task_arena arena;
};

namespace {

// The SavedModel directory `path` names ("" if none): a directory holding
// saved_model.{cpb,pb,pbtxt} (or numbered versions of one), or such a file.
std::string SavedModelDirFor(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return IsSavedModelDir(path) ? path : "";
  }
  const std::filesystem::path file(path);
  const std::string name = file.filename().string();
  if (name == "saved_model.pb" || name == "saved_model.pbtxt" ||
      name == "saved_model.cpb") {
    std::string dir = file.parent_path().string();
    return dir.empty() ? "." : dir;
  }
  return "";
}

bool IsGraphDefFile(const std::string& path) {
  return absl::EndsWith(path, ".pb") || absl::EndsWith(path, ".pbtxt") ||
         absl::EndsWith(path, ".cpb");
}

}  // namespace

Model::~Model() {
  // Executors and graphs go before the resources they reference.
  executor_.reset();
  bound_feeds_.clear();
}

void Model::InitRuntime() {
  // Debian's libabsl is built without NDEBUG, which turns on absl::Mutex's
  // deadlock detection: every Lock and Unlock then updates one global lock
  // graph under one global spin lock, so concurrent Runs (each taking the
  // buffer pool's and the kernels' own, otherwise uncontended locks)
  // serialize on it. Two callers of the age model got 1.1-1.2x the
  // throughput of one; release builds of absl default to kIgnore too.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  BuiltinOps();
  // Builds the descriptors of graph.proto and its imports (the JSON
  // reader works through reflection).
  tensorflow::GraphDef::descriptor();
}

absl::StatusOr<std::unique_ptr<Model>> Model::Load(
    const std::string& path, const ModelOptions& options) {
  static const bool runtime_ready = (InitRuntime(), true);
  (void)runtime_ready;
  std::unique_ptr<Model> model(new Model());
  // SavedModel bring-up steps (restore, init op), run below.
  std::vector<BringUpStep> bring_up;
  if (std::string dir = SavedModelDirFor(path); !dir.empty()) {
    SavedModelReadOptions read_options;
    read_options.tags = options.tags;
    read_options.signature = options.signature;
    GRAPHRT_ASSIGN_OR_RETURN(SavedModelDef def,
                             ReadSavedModel(dir, read_options));
    GRAPHRT_ASSIGN_OR_RETURN(SavedModelImport saved,
                             ImportSavedModel(def, BuiltinOps()));
    model->imported_ = std::move(saved.model);
    bring_up = std::move(saved.bring_up);
    model->source_info_ = {"saved_model", def.tags, def.signature_key,
                           def.signature_keys};
  } else if (IsGraphDefFile(path)) {
    GRAPHRT_ASSIGN_OR_RETURN(tensorflow::GraphDef graph, ReadGraphDef(path));
    GRAPHRT_ASSIGN_OR_RETURN(
        model->imported_, ImportGraphDef(std::move(graph), path, BuiltinOps()));
    model->source_info_.format = "graph_def";
  } else {
    TfjsLoadOptions load_options;
    load_options.max_tensor_bytes = options.max_tensor_bytes;
    load_options.view_weights = options.view_weights;
    GRAPHRT_ASSIGN_OR_RETURN(TfjsModel tfjs, LoadTfjsModel(path, load_options));
    GRAPHRT_ASSIGN_OR_RETURN(model->imported_,
                             ImportTfjsModel(std::move(tfjs), BuiltinOps()));
    model->source_info_.format = "tfjs";
  }
  if (options.max_graph_nodes < 0 || options.max_loop_iterations < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_graph_nodes and max_loop_iterations must be >= 0, got ",
        options.max_graph_nodes, " and ", options.max_loop_iterations));
  }
  if (options.max_graph_nodes > 0) {
    const ImportedModel& graphs = model->imported_;
    const int64_t nodes =
        int64_t{graphs.graph->num_nodes()} +
        (graphs.initializer ? graphs.initializer->num_nodes() : 0);
    if (nodes > options.max_graph_nodes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(graphs.source, ": the model has ", nodes,
                       " nodes (inference graph + initializer), more than "
                       "max_graph_nodes = ",
                       options.max_graph_nodes));
    }
  }
  if (options.max_loop_iterations > 0) {
    GRAPHRT_RETURN_IF_ERROR(
        SetMaxLoopIterations(model->resources_, options.max_loop_iterations));
  }
  int threads = options.threads;
  if (threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads must be >= 0, got ", threads));
  }
  if (options.max_memory_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_memory_bytes must be >= 0, got ", options.max_memory_bytes));
  }
  if (threads == 0) {
    threads = std::max(1u, std::thread::hardware_concurrency());
  }
  if (options.job_system != nullptr) {
    threads = std::max(1, options.job_system->concurrency());
  }
  model->threads_ = threads;
  oneapi::tbb::task_arena* arena = nullptr;
  if (threads > 1 && options.job_system == nullptr) {
    model->arena_ = std::make_unique<Arena>(threads);
    arena = &model->arena_->arena;
  }
  ImportedModel& im = model->imported_;
  // Run the initializer exactly once and keep the resources it made.
  if (im.initializer != nullptr) {
    ExecutorOptions init_options;
    init_options.denormals =
        options.flush_denormals ? Denormals::kFlushToZero : Denormals::kIeee;
    init_options.job_system = options.job_system;
    Executor init_exec(im.initializer.get(), &model->resources_, arena,
                       init_options);
    auto outs = init_exec.Run({}, im.initializer_fetches);
    if (!outs.ok()) {
      return WithContext(outs.status(),
                         absl::StrCat(im.source, ": running the initializer"));
    }
    for (const ResourceBinding& b : im.bindings) {
      for (size_t i = 0; i < im.initializer_fetches.size(); ++i) {
        if (im.initializer_fetches[i] == b.initializer_output) {
          const Tensor& handle = (*outs)[i];
          if (handle.dtype() != DType::kResource) {
            return absl::InvalidArgumentError(
                absl::StrCat(im.source, ": initializer output for resourceId ",
                             b.resource_id, " is ", handle.DebugString(),
                             ", not a resource handle"));
          }
          model->bound_feeds_.push_back({b.inference_input, handle});
          break;
        }
      }
    }
  }
  if (!bring_up.empty()) {
    GRAPHRT_RETURN_IF_ERROR(
        RunSavedModelBringUp(im, bring_up, &model->resources_, arena));
  }
  ExecutorOptions executor_options;
  executor_options.max_live_bytes = options.max_memory_bytes;
  executor_options.profiler = options.profiler;
  executor_options.denormals =
      options.flush_denormals ? Denormals::kFlushToZero : Denormals::kIeee;
  executor_options.job_system = options.job_system;
  model->executor_ = std::make_unique<Executor>(
      im.graph.get(), &model->resources_, arena, executor_options);
  return model;
}

absl::StatusOr<IoSpec> Model::ResolveInput(const std::string& name) const {
  for (const IoSpec& spec : imported_.inputs) {
    if (spec.key == name || spec.tensor_name == name ||
        imported_.graph->node(spec.endpoint.node).name() == name) {
      return spec;
    }
  }
  auto ep = imported_.graph->ResolveTensor(name);
  if (ep.ok() && imported_.graph->node(ep->node).consumers.size() + 1 > 0) {
    // Feeding an arbitrary tensor of the graph (as TF allows).
    IoSpec spec;
    spec.key = name;
    spec.endpoint = *ep;
    spec.tensor_name =
        absl::StrCat(imported_.graph->node(ep->node).name(), ":", ep->index);
    return spec;
  }
  std::vector<std::string> keys;
  for (const IoSpec& spec : imported_.inputs) keys.push_back(spec.key);
  return absl::NotFoundError(absl::StrCat("unknown input '", name,
                                          "'; the model's inputs are [",
                                          absl::StrJoin(keys, ", "), "]"));
}

absl::StatusOr<IoSpec> Model::ResolveOutput(const std::string& name) const {
  for (const IoSpec& spec : imported_.outputs) {
    if (spec.key == name || spec.tensor_name == name ||
        imported_.graph->node(spec.endpoint.node).name() == name) {
      return spec;
    }
  }
  auto ep = imported_.graph->ResolveTensor(name);
  if (!ep.ok()) {
    std::vector<std::string> keys;
    for (const IoSpec& spec : imported_.outputs) keys.push_back(spec.key);
    return absl::NotFoundError(absl::StrCat("unknown output '", name,
                                            "'; the model's outputs are [",
                                            absl::StrJoin(keys, ", "), "]"));
  }
  IoSpec spec;
  spec.key = name;
  spec.endpoint = *ep;
  spec.tensor_name =
      absl::StrCat(imported_.graph->node(ep->node).name(), ":", ep->index);
  return spec;
}

absl::StatusOr<std::vector<Tensor>> Model::Run(
    const std::vector<NamedTensor>& inputs,
    const std::vector<std::string>& output_names) const {
  std::vector<Feed> feeds = bound_feeds_;
  feeds.reserve(feeds.size() + inputs.size());
  for (const NamedTensor& in : inputs) {
    GRAPHRT_ASSIGN_OR_RETURN(IoSpec spec, ResolveInput(in.name));
    if (!in.tensor.valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", in.name, "' is an empty tensor"));
    }
    if (spec.dtype != DType::kInvalid && spec.dtype != in.tensor.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", in.name, "' must be ", DTypeName(spec.dtype),
                       ", got ", DTypeName(in.tensor.dtype()), " (shape ",
                       in.tensor.shape().ToString(), ")"));
    }
    if (!spec.shape.IsCompatible(in.tensor.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", in.name, "' must have shape ", spec.shape.ToString(),
          " (-1 = any size), got ", in.tensor.shape().ToString()));
    }
    for (const Feed& f : feeds) {
      if (f.endpoint == spec.endpoint) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", in.name, "' (", spec.tensor_name, ") is fed twice"));
      }
    }
    feeds.push_back({spec.endpoint, in.tensor});
  }
  std::vector<Endpoint> fetches;
  if (output_names.empty()) {
    for (const IoSpec& spec : imported_.outputs) {
      fetches.push_back(spec.endpoint);
    }
  } else {
    for (const std::string& name : output_names) {
      GRAPHRT_ASSIGN_OR_RETURN(IoSpec spec, ResolveOutput(name));
      fetches.push_back(spec.endpoint);
    }
  }
  ReaderMutexLock state_lock(&state_mu_);
  return executor_->Run(feeds, fetches);
}

int64_t Model::activation_pool_bytes() const {
  return executor_ == nullptr ? 0 : executor_->buffer_pool().held_bytes();
}

absl::Status Model::RunResolved(absl::Span<const Feed> feeds,
                                absl::Span<const Endpoint> fetches,
                                absl::Span<Tensor> results) const {
  absl::InlinedVector<Feed, 8> all(bound_feeds_.begin(), bound_feeds_.end());
  all.insert(all.end(), feeds.begin(), feeds.end());
  ReaderMutexLock state_lock(&state_mu_);
  return executor_->RunInto(all, fetches, results);
}

absl::Status Model::SaveState(const std::string& prefix,
                              const SaveStateOptions& options) const {
  std::vector<std::pair<std::string, Tensor>> snapshot;
  {
    WriterMutexLock state_lock(&state_mu_);
    GRAPHRT_ASSIGN_OR_RETURN(snapshot,
                             SnapshotResourceState(resources_, options));
  }
  return WriteStateSnapshot(prefix, snapshot, options);
}

absl::Status Model::RestoreState(const std::string& prefix) {
  WriterMutexLock state_lock(&state_mu_);
  return RestoreResourceState(resources_, prefix);
}

}  // namespace graphrt
