#include "runtime/model.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loader/tfjs_model.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/registry.h"
#include "runtime/status_macros.h"

namespace graphrt {

struct Model::Arena {
  explicit Arena(int threads) : arena(threads) {}
  oneapi::tbb::task_arena arena;
};

Model::~Model() {
  // Executors and graphs go before the resources they reference.
  executor_.reset();
  bound_feeds_.clear();
}

absl::StatusOr<std::unique_ptr<Model>> Model::Load(
    const std::string& path, const ModelOptions& options) {
  TfjsLoadOptions load_options;
  load_options.max_tensor_bytes = options.max_tensor_bytes;
  GRAPHRT_ASSIGN_OR_RETURN(TfjsModel tfjs, LoadTfjsModel(path, load_options));
  std::unique_ptr<Model> model(new Model());
  GRAPHRT_ASSIGN_OR_RETURN(model->imported_,
                           ImportTfjsModel(std::move(tfjs), BuiltinOps()));
  int threads = options.threads;
  if (threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads must be >= 0, got ", threads));
  }
  if (threads == 0) {
    threads = std::max(1u, std::thread::hardware_concurrency());
  }
  model->threads_ = threads;
  oneapi::tbb::task_arena* arena = nullptr;
  if (threads > 1) {
    model->arena_ = std::make_unique<Arena>(threads);
    arena = &model->arena_->arena;
  }
  ImportedModel& im = model->imported_;
  // Run the initializer exactly once and keep the resources it made.
  if (im.initializer != nullptr) {
    Executor init_exec(im.initializer.get(), &model->resources_, arena);
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
            return absl::InvalidArgumentError(absl::StrCat(
                im.source, ": initializer output for resourceId ",
                b.resource_id, " is ", handle.DebugString(),
                ", not a resource handle"));
          }
          model->bound_feeds_.push_back({b.inference_input, handle});
          break;
        }
      }
    }
  }
  model->executor_ =
      std::make_unique<Executor>(im.graph.get(), &model->resources_, arena);
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
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", in.name, "' must be ", DTypeName(spec.dtype), ", got ",
          DTypeName(in.tensor.dtype()), " (shape ",
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
  return executor_->Run(feeds, fetches);
}

}  // namespace graphrt
