// The C API over graphrt::Model (see graphrt_c.h for the contract).
//
// Every entry point catches all C++ exceptions (std::bad_alloc from the
// STL) and turns them into a status, so none crosses the C ABI.
#include "c_api/graphrt_c.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "runtime/model.h"
#include "runtime/status_macros.h"

struct GraphrtStatus {
  GraphrtCode code;
  std::string message;
};

namespace {

// A host's C job system (graphrt_options_set_job_system) as a
// graphrt::JobSystem: each job calls back into the FunctionRef graphrt gave.
class CJobSystem : public graphrt::JobSystem {
 public:
  CJobSystem(int concurrency, GraphrtParallelForFn parallel_for,
             void* host_data)
      : concurrency_(concurrency),
        parallel_for_(parallel_for),
        host_data_(host_data) {}

  int concurrency() const override { return concurrency_; }

  void ParallelFor(int64_t count,
                   absl::FunctionRef<void(int64_t)> job) override {
    parallel_for_(host_data_, count, &CallJob, &job);
  }

 private:
  static void CallJob(void* job, int64_t index) {
    (*static_cast<absl::FunctionRef<void(int64_t)>*>(job))(index);
  }

  int concurrency_;
  GraphrtParallelForFn parallel_for_;
  void* host_data_;
};

}  // namespace

struct GraphrtOptions {
  graphrt::ModelOptions options;
  // graphrt_options_set_job_system's arguments (parallel_for null: none).
  int job_concurrency = 1;
  GraphrtParallelForFn job_parallel_for = nullptr;
  void* job_host_data = nullptr;
};

struct GraphrtTensor {
  graphrt::Tensor tensor;
  bool is_view = false;
};

struct GraphrtModel {
  struct Io {
    std::string name;
    GraphrtDType dtype = GRAPHRT_DTYPE_INVALID;
    int rank = -1;
    std::vector<int64_t> dims;
    graphrt::IoSpec spec;
  };
  // The host's job system the model runs on (declared before `model`, so
  // destroyed after it); null for graphrt's own pool.
  std::unique_ptr<graphrt::JobSystem> job_system;
  std::unique_ptr<graphrt::Model> model;
  std::vector<Io> inputs;
  std::vector<Io> outputs;
  // Declared inputs/outputs by signature key, tensor name and node name, so
  // that resolving names in graphrt_model_run allocates nothing.
  absl::flat_hash_map<std::string, size_t> input_index;
  absl::flat_hash_map<std::string, size_t> output_index;
  std::vector<graphrt::Endpoint> default_fetches;
};

namespace {

using graphrt::DType;
using graphrt::Tensor;

// Returned when even a status cannot be allocated; never freed.
GraphrtStatus out_of_memory_status{GRAPHRT_RESOURCE_EXHAUSTED, std::string()};

GraphrtStatus* MakeStatus(GraphrtCode code, absl::string_view message) {
  try {
    return new GraphrtStatus{code, std::string(message)};
  } catch (...) {
    return &out_of_memory_status;
  }
}

GraphrtStatus* FromStatus(const absl::Status& status) {
  if (status.ok()) return nullptr;
  return MakeStatus(static_cast<GraphrtCode>(status.code()), status.message());
}

GraphrtStatus* InvalidArgument(absl::string_view message) {
  return MakeStatus(GRAPHRT_INVALID_ARGUMENT, message);
}

// Runs `body` (returning GraphrtStatus*), turning exceptions into statuses.
template <typename Body>
GraphrtStatus* Guarded(const char* where, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return &out_of_memory_status;
  } catch (const std::exception& e) {
    return MakeStatus(GRAPHRT_INTERNAL, absl::StrCat(where, ": ", e.what()));
  } catch (...) {
    return MakeStatus(GRAPHRT_INTERNAL,
                      absl::StrCat(where, ": unknown exception"));
  }
}

bool IsKnownDType(GraphrtDType dtype) {
  switch (dtype) {
    case GRAPHRT_FLOAT32:
    case GRAPHRT_FLOAT64:
    case GRAPHRT_INT32:
    case GRAPHRT_UINT8:
    case GRAPHRT_INT16:
    case GRAPHRT_INT8:
    case GRAPHRT_STRING:
    case GRAPHRT_COMPLEX64:
    case GRAPHRT_INT64:
    case GRAPHRT_BOOL:
    case GRAPHRT_BFLOAT16:
    case GRAPHRT_UINT16:
    case GRAPHRT_COMPLEX128:
    case GRAPHRT_FLOAT16:
    case GRAPHRT_UINT32:
    case GRAPHRT_UINT64:
      return true;
    default:
      return false;
  }
}

GraphrtDType ToC(DType dtype) {
  auto c = static_cast<GraphrtDType>(static_cast<int>(dtype));
  return IsKnownDType(c) ? c : GRAPHRT_DTYPE_INVALID;
}

GraphrtModel::Io MakeIo(const graphrt::IoSpec& spec) {
  GraphrtModel::Io io;
  io.name = spec.key;
  io.dtype = ToC(spec.dtype);
  if (!spec.shape.unknown_rank()) {
    io.dims = spec.shape.dims();
    io.rank = static_cast<int>(io.dims.size());
  }
  io.spec = spec;
  return io;
}

// Loads `path` with `options` (null: defaults), giving the model a
// CJobSystem when the options name a host's job system.
absl::StatusOr<std::unique_ptr<graphrt::Model>> LoadWithOptions(
    const std::string& path, const GraphrtOptions* options,
    std::unique_ptr<graphrt::JobSystem>* job_system) {
  graphrt::ModelOptions model_options =
      options != nullptr ? options->options : graphrt::ModelOptions();
  if (options != nullptr && options->job_parallel_for != nullptr) {
    *job_system = std::make_unique<CJobSystem>(options->job_concurrency,
                                               options->job_parallel_for,
                                               options->job_host_data);
    model_options.job_system = job_system->get();
  }
  return graphrt::Model::Load(path, model_options);
}

// Builds the handle's name tables after a successful load.
GraphrtModel* Wrap(std::unique_ptr<graphrt::Model> model,
                   std::unique_ptr<graphrt::JobSystem> job_system) {
  auto handle = std::make_unique<GraphrtModel>();
  handle->job_system = std::move(job_system);
  const graphrt::Graph& graph = *model->imported().graph;
  for (const graphrt::IoSpec& spec : model->inputs()) {
    const size_t i = handle->inputs.size();
    handle->inputs.push_back(MakeIo(spec));
    // Signature keys win over tensor and node names of other inputs.
    handle->input_index.emplace(graph.node(spec.endpoint.node).name(), i);
    handle->input_index.emplace(spec.tensor_name, i);
  }
  for (size_t i = 0; i < handle->inputs.size(); ++i) {
    handle->input_index[handle->inputs[i].spec.key] = i;
  }
  for (const graphrt::IoSpec& spec : model->outputs()) {
    const size_t i = handle->outputs.size();
    handle->outputs.push_back(MakeIo(spec));
    handle->output_index.emplace(graph.node(spec.endpoint.node).name(), i);
    handle->output_index.emplace(spec.tensor_name, i);
    handle->default_fetches.push_back(spec.endpoint);
  }
  for (size_t i = 0; i < handle->outputs.size(); ++i) {
    handle->output_index[handle->outputs[i].spec.key] = i;
  }
  handle->model = std::move(model);
  return handle.release();
}

absl::StatusOr<graphrt::Shape> MakeShape(const int64_t* dims, int rank) {
  if (rank < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank must be >= 0, got ", rank));
  }
  if (rank > 0 && dims == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("dims is NULL for rank ", rank));
  }
  return graphrt::Shape::Make(absl::MakeConstSpan(dims, rank));
}

// A temporary folder holding an in-memory model's files while it loads;
// removes everything it created when destroyed.
class ScratchModelDir {
 public:
  ~ScratchModelDir() {
    for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
      ::unlink(it->c_str());
    }
    for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
      ::rmdir(it->c_str());
    }
  }

  absl::Status Create() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp", "/graphrt-XXXXXX");
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
      return absl::UnavailableError(
          absl::StrCat("cannot create a temporary folder ", pattern, ": ",
                       std::strerror(errno)));
    }
    root_ = buf.data();
    dirs_.push_back(root_);
    return absl::OkStatus();
  }

  const std::string& root() const { return root_; }

  // Writes `relative` (checked: relative, no "." or ".." components).
  absl::Status Write(absl::string_view relative, const void* data,
                     size_t size) {
    std::vector<std::string> parts = absl::StrSplit(relative, '/');
    for (const std::string& part : parts) {
      if (part.empty() || part == "." || part == "..") {
        return absl::InvalidArgumentError(
            absl::StrCat("file path '", relative,
                         "' must be relative, without '.', '..' or empty "
                         "components"));
      }
    }
    std::string path = root_;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      absl::StrAppend(&path, "/", parts[i]);
      if (::mkdir(path.c_str(), 0700) == 0) {
        dirs_.push_back(path);
      } else if (errno != EEXIST) {
        return absl::UnavailableError(
            absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
      }
    }
    absl::StrAppend(&path, "/", parts.back());
    std::FILE* f = std::fopen(path.c_str(), "wbx");
    if (f == nullptr) {
      return errno == EEXIST
                 ? absl::InvalidArgumentError(
                       absl::StrCat("file '", relative, "' given twice"))
                 : absl::UnavailableError(absl::StrCat(
                       "cannot write ", path, ": ", std::strerror(errno)));
    }
    files_.push_back(path);
    bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) {
      return absl::UnavailableError(absl::StrCat("cannot write ", path));
    }
    return absl::OkStatus();
  }

 private:
  std::string root_;
  std::vector<std::string> dirs_;
  std::vector<std::string> files_;
};

// Looks a run input up: declared inputs without allocating, else any
// tensor of the graph.
absl::StatusOr<const graphrt::IoSpec*> FindInput(const GraphrtModel& m,
                                                 const char* name,
                                                 graphrt::IoSpec* scratch) {
  auto it = m.input_index.find(absl::string_view(name));
  if (it != m.input_index.end()) return &m.inputs[it->second].spec;
  auto spec = m.model->ResolveInput(name);
  if (!spec.ok()) return spec.status();
  *scratch = std::move(*spec);
  return scratch;
}

absl::StatusOr<graphrt::Endpoint> FindOutput(const GraphrtModel& m,
                                             const char* name) {
  auto it = m.output_index.find(absl::string_view(name));
  if (it != m.output_index.end()) return m.outputs[it->second].spec.endpoint;
  auto spec = m.model->ResolveOutput(name);
  if (!spec.ok()) return spec.status();
  return spec->endpoint;
}

// Copies `from` into `to` (same dtype and shape; `to` owns its elements).
void CopyElements(const Tensor& from, Tensor& to) {
  if (from.dtype() == DType::kString) {
    const std::string* src = from.data<std::string>();
    std::string* dst = to.mutable_data<std::string>();
    for (int64_t i = 0; i < from.num_elements(); ++i) dst[i] = src[i];
  } else if (from.byte_size() > 0 && from.raw_data() != to.raw_data()) {
    // memmove: a caller may pass overlapping views as input and output.
    std::memmove(to.raw_data(), from.raw_data(), from.byte_size());
  }
}

GraphrtStatus* RunImpl(const GraphrtModel* model,
                       const char* const* input_names,
                       const GraphrtTensor* const* inputs, size_t num_inputs,
                       const char* const* output_names, GraphrtTensor** outputs,
                       size_t num_outputs) {
  if (model == nullptr)
    return InvalidArgument("graphrt_model_run: model is NULL");
  if (num_inputs > 0 && (input_names == nullptr || inputs == nullptr)) {
    return InvalidArgument(
        "graphrt_model_run: input_names or inputs is NULL but num_inputs > 0");
  }
  if (num_outputs > 0 && outputs == nullptr) {
    return InvalidArgument(
        "graphrt_model_run: outputs is NULL but num_outputs > 0");
  }
  if (output_names == nullptr && num_outputs != model->outputs.size()) {
    return InvalidArgument(absl::StrCat(
        "graphrt_model_run: output_names is NULL (default outputs) so "
        "num_outputs must be ",
        model->outputs.size(), ", got ", num_outputs));
  }
  absl::InlinedVector<graphrt::Feed, 8> feeds;
  graphrt::IoSpec scratch;
  for (size_t i = 0; i < num_inputs; ++i) {
    const char* name = input_names[i];
    if (name == nullptr) {
      return InvalidArgument(
          absl::StrCat("graphrt_model_run: input name ", i, " is NULL"));
    }
    if (inputs[i] == nullptr || !inputs[i]->tensor.valid()) {
      return InvalidArgument(absl::StrCat("graphrt_model_run: input '", name,
                                          "' is a NULL tensor"));
    }
    auto spec = FindInput(*model, name, &scratch);
    if (!spec.ok()) return FromStatus(spec.status());
    const Tensor& value = inputs[i]->tensor;
    if ((*spec)->dtype != DType::kInvalid && (*spec)->dtype != value.dtype()) {
      return InvalidArgument(absl::StrCat("input '", name, "' must be ",
                                          graphrt::DTypeName((*spec)->dtype),
                                          ", got ", value.DebugString()));
    }
    if (!(*spec)->shape.IsCompatible(value.shape())) {
      return InvalidArgument(absl::StrCat(
          "input '", name, "' must have shape ", (*spec)->shape.ToString(),
          " (-1 = any size), got ", value.shape().ToString()));
    }
    for (const graphrt::Feed& f : feeds) {
      if (f.endpoint == (*spec)->endpoint) {
        return InvalidArgument(absl::StrCat("input '", name, "' is fed twice"));
      }
    }
    feeds.push_back({(*spec)->endpoint, value});
  }
  absl::InlinedVector<graphrt::Endpoint, 8> fetches;
  if (output_names == nullptr) {
    fetches.assign(model->default_fetches.begin(),
                   model->default_fetches.end());
  } else {
    for (size_t i = 0; i < num_outputs; ++i) {
      if (output_names[i] == nullptr) {
        return InvalidArgument(
            absl::StrCat("graphrt_model_run: output name ", i, " is NULL"));
      }
      auto ep = FindOutput(*model, output_names[i]);
      if (!ep.ok()) return FromStatus(ep.status());
      fetches.push_back(*ep);
    }
  }
  absl::InlinedVector<Tensor, 8> results(num_outputs);
  GraphrtStatus* status = FromStatus(
      model->model->RunResolved(feeds, fetches, absl::MakeSpan(results)));
  if (status != nullptr) return status;

  // Prepare every output that needs new storage before changing any.
  absl::InlinedVector<Tensor, 8> fresh(num_outputs);
  absl::InlinedVector<std::unique_ptr<GraphrtTensor>, 8> created(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) {
    const Tensor& r = results[i];
    if (!graphrt::IsTriviallyCopyable(r.dtype()) &&
        r.dtype() != DType::kString) {
      return MakeStatus(GRAPHRT_UNIMPLEMENTED,
                        absl::StrCat("output ", i, " is ", r.DebugString(),
                                     ": the C API returns numeric and string "
                                     "tensors only"));
    }
    GraphrtTensor* out = outputs[i];
    if (out != nullptr && out->tensor.dtype() == r.dtype() &&
        out->tensor.shape() == r.shape()) {
      continue;  // reused in place
    }
    if (out != nullptr && out->is_view) {
      return InvalidArgument(absl::StrCat(
          "output ", i, " is a view of ", out->tensor.DebugString(),
          " but the result is ", r.DebugString()));
    }
    auto t = Tensor::Allocate(r.dtype(), r.shape());
    if (!t.ok()) return FromStatus(t.status());
    fresh[i] = std::move(*t);
    if (out == nullptr) created[i] = std::make_unique<GraphrtTensor>();
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    if (created[i] != nullptr) outputs[i] = created[i].release();
    GraphrtTensor* out = outputs[i];
    if (fresh[i].valid()) out->tensor = std::move(fresh[i]);
    CopyElements(results[i], out->tensor);
  }
  return nullptr;
}

GraphrtStatus* CreateTensor(GraphrtDType dtype, const int64_t* dims, int rank,
                            GraphrtTensor** tensor) {
  if (tensor == nullptr)
    return InvalidArgument("graphrt_tensor_create: tensor is NULL");
  if (!IsKnownDType(dtype)) {
    return InvalidArgument(
        absl::StrCat("graphrt_tensor_create: unknown dtype ", dtype));
  }
  auto shape = MakeShape(dims, rank);
  if (!shape.ok()) return FromStatus(shape.status());
  auto t = Tensor::Allocate(static_cast<DType>(dtype), *shape);
  if (!t.ok()) return FromStatus(t.status());
  auto handle = std::make_unique<GraphrtTensor>();
  handle->tensor = std::move(*t);
  *tensor = handle.release();
  return nullptr;
}

GraphrtStatus* CreateView(GraphrtDType dtype, const int64_t* dims, int rank,
                          void* data, size_t byte_size,
                          GraphrtTensor** tensor) {
  if (tensor == nullptr) {
    return InvalidArgument("graphrt_tensor_create_view: tensor is NULL");
  }
  if (!IsKnownDType(dtype) || dtype == GRAPHRT_STRING) {
    return InvalidArgument(absl::StrCat(
        "graphrt_tensor_create_view: dtype ", graphrt_dtype_name(dtype), " (",
        dtype, ") cannot be viewed; use a numeric dtype"));
  }
  auto shape = MakeShape(dims, rank);
  if (!shape.ok()) return FromStatus(shape.status());
  const DType d = static_cast<DType>(dtype);
  const uint64_t elements = static_cast<uint64_t>(shape->num_elements());
  const size_t elem = graphrt::DTypeSize(d);
  if (elements > SIZE_MAX / elem || elements * elem != byte_size) {
    return InvalidArgument(
        absl::StrCat("graphrt_tensor_create_view: ", graphrt::DTypeName(d),
                     shape->ToString(), " needs ", elements, " * ", elem,
                     " bytes, got byte_size ", byte_size));
  }
  if (data == nullptr && byte_size > 0) {
    return InvalidArgument("graphrt_tensor_create_view: data is NULL");
  }
  auto handle = std::make_unique<GraphrtTensor>();
  handle->tensor = Tensor::View(d, *shape, data, nullptr);
  handle->is_view = true;
  *tensor = handle.release();
  return nullptr;
}

GraphrtStatus* LoadFromMemory(const char* model_json, size_t model_json_size,
                              const GraphrtFile* files, size_t num_files,
                              const GraphrtOptions* options,
                              GraphrtModel** model) {
  if (model == nullptr) {
    return InvalidArgument("graphrt_model_load_from_memory: model is NULL");
  }
  if (model_json == nullptr) {
    return InvalidArgument(
        "graphrt_model_load_from_memory: model_json is NULL");
  }
  if (num_files > 0 && files == nullptr) {
    return InvalidArgument(
        "graphrt_model_load_from_memory: files is NULL but num_files > 0");
  }
  ScratchModelDir dir;
  absl::Status s = dir.Create();
  if (s.ok()) s = dir.Write("model.json", model_json, model_json_size);
  for (size_t i = 0; s.ok() && i < num_files; ++i) {
    if (files[i].path == nullptr ||
        (files[i].data == nullptr && files[i].size > 0)) {
      return InvalidArgument(
          absl::StrCat("graphrt_model_load_from_memory: file ", i,
                       " has a NULL path or NULL data"));
    }
    if (absl::string_view(files[i].path) == "model.json") {
      return InvalidArgument(
          "graphrt_model_load_from_memory: a file is named model.json; pass "
          "the model text as model_json");
    }
    s = dir.Write(files[i].path, files[i].data, files[i].size);
  }
  if (!s.ok()) {
    return FromStatus(
        graphrt::WithContext(s, "graphrt_model_load_from_memory"));
  }
  std::unique_ptr<graphrt::JobSystem> job_system;
  auto loaded = LoadWithOptions(dir.root(), options, &job_system);
  if (!loaded.ok()) {
    return FromStatus(graphrt::WithContext(loaded.status(),
                                           "graphrt_model_load_from_memory"));
  }
  *model = Wrap(std::move(*loaded), std::move(job_system));
  return nullptr;
}

const GraphrtModel::Io* IoAt(const std::vector<GraphrtModel::Io>* list,
                             size_t i) {
  return list != nullptr && i < list->size() ? &(*list)[i] : nullptr;
}

}  // namespace

extern "C" {

const char* graphrt_version(void) { return GRAPHRT_VERSION_STRING; }
int graphrt_c_api_version(void) { return GRAPHRT_C_API_VERSION; }

GraphrtCode graphrt_status_code(const GraphrtStatus* status) {
  return status == nullptr ? GRAPHRT_OK : status->code;
}

const char* graphrt_status_message(const GraphrtStatus* status) {
  if (status == nullptr) return "";
  if (status == &out_of_memory_status) return "out of memory";
  return status->message.c_str();
}

void graphrt_status_free(GraphrtStatus* status) {
  if (status != &out_of_memory_status) delete status;
}

const char* graphrt_dtype_name(GraphrtDType dtype) {
  if (!IsKnownDType(dtype)) return "invalid";
  // DTypeName returns views of string literals, so data() is terminated.
  return graphrt::DTypeName(static_cast<DType>(dtype)).data();
}

size_t graphrt_dtype_size(GraphrtDType dtype) {
  if (!IsKnownDType(dtype) || dtype == GRAPHRT_STRING) return 0;
  return graphrt::DTypeSize(static_cast<DType>(dtype));
}

GraphrtOptions* graphrt_options_create(void) {
  return new (std::nothrow) GraphrtOptions();
}

void graphrt_options_free(GraphrtOptions* options) { delete options; }

void graphrt_options_set_threads(GraphrtOptions* options, int threads) {
  if (options != nullptr) options->options.threads = threads;
}

void graphrt_options_set_job_system(GraphrtOptions* options, int concurrency,
                                    GraphrtParallelForFn parallel_for,
                                    void* host_data) {
  if (options == nullptr) return;
  options->job_concurrency = concurrency;
  options->job_parallel_for = parallel_for;
  options->job_host_data = host_data;
}

void graphrt_options_set_max_memory_bytes(GraphrtOptions* options,
                                          int64_t bytes) {
  if (options != nullptr) options->options.max_memory_bytes = bytes;
}

void graphrt_options_set_flush_denormals(GraphrtOptions* options, int flush) {
  if (options != nullptr) options->options.flush_denormals = flush != 0;
}

GraphrtStatus* graphrt_model_load(const char* path,
                                  const GraphrtOptions* options,
                                  GraphrtModel** model) {
  return Guarded("graphrt_model_load", [&]() -> GraphrtStatus* {
    if (path == nullptr)
      return InvalidArgument("graphrt_model_load: path is NULL");
    if (model == nullptr)
      return InvalidArgument("graphrt_model_load: model is NULL");
    std::unique_ptr<graphrt::JobSystem> job_system;
    auto loaded = LoadWithOptions(path, options, &job_system);
    if (!loaded.ok()) return FromStatus(loaded.status());
    *model = Wrap(std::move(*loaded), std::move(job_system));
    return nullptr;
  });
}

GraphrtStatus* graphrt_model_load_from_memory(
    const char* model_json, size_t model_json_size, const GraphrtFile* files,
    size_t num_files, const GraphrtOptions* options, GraphrtModel** model) {
  return Guarded("graphrt_model_load_from_memory", [&] {
    return LoadFromMemory(model_json, model_json_size, files, num_files,
                          options, model);
  });
}

void graphrt_model_free(GraphrtModel* model) { delete model; }

size_t graphrt_model_num_inputs(const GraphrtModel* model) {
  return model == nullptr ? 0 : model->inputs.size();
}

const char* graphrt_model_input_name(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->inputs : nullptr, i);
  return io ? io->name.c_str() : nullptr;
}

GraphrtDType graphrt_model_input_dtype(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->inputs : nullptr, i);
  return io ? io->dtype : GRAPHRT_DTYPE_INVALID;
}

int graphrt_model_input_rank(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->inputs : nullptr, i);
  return io ? io->rank : -1;
}

const int64_t* graphrt_model_input_dims(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->inputs : nullptr, i);
  return io ? io->dims.data() : nullptr;
}

size_t graphrt_model_num_outputs(const GraphrtModel* model) {
  return model == nullptr ? 0 : model->outputs.size();
}

const char* graphrt_model_output_name(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->outputs : nullptr, i);
  return io ? io->name.c_str() : nullptr;
}

GraphrtDType graphrt_model_output_dtype(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->outputs : nullptr, i);
  return io ? io->dtype : GRAPHRT_DTYPE_INVALID;
}

int graphrt_model_output_rank(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->outputs : nullptr, i);
  return io ? io->rank : -1;
}

const int64_t* graphrt_model_output_dims(const GraphrtModel* model, size_t i) {
  const auto* io = IoAt(model ? &model->outputs : nullptr, i);
  return io ? io->dims.data() : nullptr;
}

GraphrtStatus* graphrt_tensor_create(GraphrtDType dtype, const int64_t* dims,
                                     int rank, GraphrtTensor** tensor) {
  return Guarded("graphrt_tensor_create",
                 [&] { return CreateTensor(dtype, dims, rank, tensor); });
}

GraphrtStatus* graphrt_tensor_create_view(GraphrtDType dtype,
                                          const int64_t* dims, int rank,
                                          void* data, size_t byte_size,
                                          GraphrtTensor** tensor) {
  return Guarded("graphrt_tensor_create_view", [&] {
    return CreateView(dtype, dims, rank, data, byte_size, tensor);
  });
}

void graphrt_tensor_free(GraphrtTensor* tensor) { delete tensor; }

GraphrtDType graphrt_tensor_dtype(const GraphrtTensor* tensor) {
  return tensor == nullptr ? GRAPHRT_DTYPE_INVALID
                           : ToC(tensor->tensor.dtype());
}

int graphrt_tensor_rank(const GraphrtTensor* tensor) {
  return tensor == nullptr ? -1 : tensor->tensor.rank();
}

const int64_t* graphrt_tensor_dims(const GraphrtTensor* tensor) {
  return tensor == nullptr ? nullptr : tensor->tensor.shape().dims().data();
}

int64_t graphrt_tensor_num_elements(const GraphrtTensor* tensor) {
  return tensor == nullptr ? 0 : tensor->tensor.num_elements();
}

size_t graphrt_tensor_byte_size(const GraphrtTensor* tensor) {
  if (tensor == nullptr || tensor->tensor.dtype() == DType::kString) return 0;
  return tensor->tensor.byte_size();
}

void* graphrt_tensor_data(GraphrtTensor* tensor) {
  if (tensor == nullptr || tensor->tensor.dtype() == DType::kString) {
    return nullptr;
  }
  return tensor->tensor.raw_data();
}

const void* graphrt_tensor_data_const(const GraphrtTensor* tensor) {
  if (tensor == nullptr || tensor->tensor.dtype() == DType::kString) {
    return nullptr;
  }
  return tensor->tensor.raw_data();
}

GraphrtStatus* graphrt_tensor_set_string(GraphrtTensor* tensor, int64_t index,
                                         const char* data, size_t size) {
  return Guarded("graphrt_tensor_set_string", [&]() -> GraphrtStatus* {
    if (tensor == nullptr)
      return InvalidArgument("graphrt_tensor_set_string: tensor is NULL");
    if (tensor->tensor.dtype() != DType::kString) {
      return InvalidArgument(
          absl::StrCat("graphrt_tensor_set_string: tensor is ",
                       tensor->tensor.DebugString(), ", not string"));
    }
    if (index < 0 || index >= tensor->tensor.num_elements()) {
      return MakeStatus(
          GRAPHRT_OUT_OF_RANGE,
          absl::StrCat("graphrt_tensor_set_string: index ", index,
                       " out of range for ", tensor->tensor.DebugString()));
    }
    if (data == nullptr && size > 0) {
      return InvalidArgument("graphrt_tensor_set_string: data is NULL");
    }
    tensor->tensor.mutable_data<std::string>()[index].assign(
        data == nullptr ? "" : data, size);
    return nullptr;
  });
}

GraphrtStatus* graphrt_tensor_get_string(const GraphrtTensor* tensor,
                                         int64_t index, const char** data,
                                         size_t* size) {
  return Guarded("graphrt_tensor_get_string", [&]() -> GraphrtStatus* {
    if (tensor == nullptr || data == nullptr || size == nullptr) {
      return InvalidArgument(
          "graphrt_tensor_get_string: tensor, data or size is NULL");
    }
    if (tensor->tensor.dtype() != DType::kString) {
      return InvalidArgument(
          absl::StrCat("graphrt_tensor_get_string: tensor is ",
                       tensor->tensor.DebugString(), ", not string"));
    }
    if (index < 0 || index >= tensor->tensor.num_elements()) {
      return MakeStatus(
          GRAPHRT_OUT_OF_RANGE,
          absl::StrCat("graphrt_tensor_get_string: index ", index,
                       " out of range for ", tensor->tensor.DebugString()));
    }
    const std::string& s = tensor->tensor.data<std::string>()[index];
    *data = s.data();
    *size = s.size();
    return nullptr;
  });
}

GraphrtStatus* graphrt_model_run(const GraphrtModel* model,
                                 const char* const* input_names,
                                 const GraphrtTensor* const* inputs,
                                 size_t num_inputs,
                                 const char* const* output_names,
                                 GraphrtTensor** outputs, size_t num_outputs) {
  return Guarded("graphrt_model_run", [&] {
    return RunImpl(model, input_names, inputs, num_inputs, output_names,
                   outputs, num_outputs);
  });
}

GraphrtStatus* graphrt_model_save_state(const GraphrtModel* model,
                                        const char* prefix) {
  return Guarded("graphrt_model_save_state", [&]() -> GraphrtStatus* {
    if (model == nullptr || prefix == nullptr) {
      return InvalidArgument(
          "graphrt_model_save_state: model or prefix is NULL");
    }
    return FromStatus(model->model->SaveState(prefix));
  });
}

GraphrtStatus* graphrt_model_restore_state(GraphrtModel* model,
                                           const char* prefix) {
  return Guarded("graphrt_model_restore_state", [&]() -> GraphrtStatus* {
    if (model == nullptr || prefix == nullptr) {
      return InvalidArgument(
          "graphrt_model_restore_state: model or prefix is NULL");
    }
    return FromStatus(model->model->RestoreState(prefix));
  });
}

}  // extern "C"
