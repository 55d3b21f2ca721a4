// TensorFlow Decision Forests inference ops (tensorflow_decision_forests/
// tensorflow/ops/inference), what TF-DF SavedModels and their TF.js
// conversions (run by @tensorflow/tfjs-tfdf) contain:
//
//   SimpleMLCreateModelResource() -> model_handle (scalar resource)
//     attrs container, shared_name: the handle names the ResourceManager
//     entry container + "/" + shared_name, so ops with the same names share
//     one model. An empty shared_name gives a model private to the node.
//   SimpleMLLoadModelFromPathWithHandle(model_handle, path: string)
//     attrs file_prefix (default ""), output_types (list; only "LEAVES"
//     is a known keyword), allow_slow_inference (ignored). Loads the YDF
//     model folder `path` (exactly one string) with `file_prefix` into the
//     handle's resource, replacing any model there. The path is opened as
//     given; model loaders resolve asset paths before kernels run.
//   SimpleMLInferenceOpWithHandle(numerical_features float [batch, n_num],
//       boolean_features float [batch, n_bool],
//       categorical_int_features int32 [batch, n_cat],
//       categorical_set_int_features_values int32 [v],
//       ..._row_splits_dim_1 int64 [batch * n_set + 1],
//       ..._row_splits_dim_2 int64 [batch + 1], model_handle)
//     -> dense_predictions float [batch, dense_output_dim],
//        dense_col_representation string [dense_output_dim]
//     attr dense_output_dim >= 1, which must equal the model's output
//     dimension (number of classes, or 1). The batch size is the first
//     dimension of the non-empty feature inputs (dim_2's size - 1), which
//     must agree ("The batch size of the input features are
//     inconsistent"); a feature group the model does not use may be empty.
//     Prediction semantics (feature grouping, missing values, out of
//     vocabulary, link functions): loader/ydf/forest.h. The column
//     representation holds the label's class names for classification,
//     "" otherwise.
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loader/ydf/model_reader.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/tfdf/tfdf_ops.h"
#include "ops/tfdf/ydf_model_resource.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// The model resource behind input `i`.
absl::StatusOr<YdfModelResource*> GetModel(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kResource || t.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", i, " must be a scalar model handle (resource), got ",
        t.DebugString()));
  }
  const ResourceHandle& handle = *t.data<ResourceHandle>();
  auto* model = dynamic_cast<YdfModelResource*>(handle.resource.get());
  if (model == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resource '", handle.name, "' is not a YDF model (",
        handle.resource == nullptr ? "empty handle"
                                   : handle.resource->DebugString(),
        ")"));
  }
  return model;
}

class CreateModelResourceKernel : public Kernel {
 public:
  explicit CreateModelResourceKernel(std::string name)
      : name_(std::move(name)) {}

  absl::Status Run(KernelContext& ctx) const override {
    if (ctx.resources() == nullptr) {
      return absl::FailedPreconditionError(
          "no resource manager to hold the model");
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        std::shared_ptr<Resource> resource,
        ctx.resources()->LookupOrCreate(
            name_, []() -> absl::StatusOr<std::shared_ptr<Resource>> {
              return std::make_shared<YdfModelResource>();
            }));
    if (dynamic_cast<YdfModelResource*>(resource.get()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("resource '", name_, "' exists and is not a YDF model (",
                       resource->DebugString(), ")"));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, DType::kResource, Shape()));
    ResourceHandle& handle = *out->mutable_data<ResourceHandle>();
    handle.resource = std::move(resource);
    handle.name = name_;
    return absl::OkStatus();
  }

 private:
  std::string name_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateCreateModelResource(
    const KernelInit& init) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 0));
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::string container,
                           attrs.GetString("container", ""));
  GRAPHRT_ASSIGN_OR_RETURN(std::string shared_name,
                           attrs.GetString("shared_name", ""));
  if (shared_name.empty()) {
    static std::atomic<int64_t> next_id{0};
    shared_name =
        absl::StrCat("_", next_id.fetch_add(1), "_", init.node.name());
  }
  return std::make_unique<CreateModelResourceKernel>(
      absl::StrCat(container, "/", shared_name));
}

class LoadModelKernel : public Kernel {
 public:
  explicit LoadModelKernel(std::string file_prefix)
      : file_prefix_(std::move(file_prefix)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_ASSIGN_OR_RETURN(YdfModelResource * model, GetModel(ctx, 0));
    const Tensor& path = ctx.input(1);
    if (path.dtype() != DType::kString || path.num_elements() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The \"path\" attribute is expected to contains exactly one "
          "entry, got ",
          path.DebugString()));
    }
    const std::string& dir = *path.data<std::string>();
    GRAPHRT_ASSIGN_OR_RETURN(ydf::Forest forest,
                             ydf::LoadYdfModel(dir, file_prefix_));
    model->Set(std::make_shared<const ydf::Forest>(std::move(forest)), dir);
    return absl::OkStatus();
  }

 private:
  std::string file_prefix_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateLoadModel(
    const KernelInit& init) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 2));
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::string file_prefix,
                           attrs.GetString("file_prefix", ""));
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<std::string> types,
                           attrs.GetStringList("output_types", {}));
  for (const std::string& type : types) {
    if (type != "LEAVES") {
      return attrs.Error("output_types",
                         absl::StrCat("Unknown output types: ", type));
    }
  }
  return std::make_unique<LoadModelKernel>(std::move(file_prefix));
}

enum Input {
  kNumerical = 0,
  kBoolean = 1,
  kCategorical = 2,
  kSetValues = 3,
  kSetSplitsDim1 = 4,
  kSetSplitsDim2 = 5,
  kHandle = 6,
};

class InferenceKernel : public Kernel {
 public:
  explicit InferenceKernel(int64_t dense_output_dim)
      : dense_output_dim_(dense_output_dim) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_ASSIGN_OR_RETURN(YdfModelResource * resource,
                             GetModel(ctx, kHandle));
    const std::shared_ptr<const ydf::Forest> forest = resource->Get();
    if (forest == nullptr) {
      return absl::FailedPreconditionError(
          "the YDF model is not loaded (SimpleMLLoadModelFromPathWithHandle "
          "has not run on this handle)");
    }
    GRAPHRT_RETURN_IF_ERROR(CheckInput(ctx, kNumerical, DType::kFloat32, 2));
    GRAPHRT_RETURN_IF_ERROR(CheckInput(ctx, kBoolean, DType::kFloat32, 2));
    GRAPHRT_RETURN_IF_ERROR(CheckInput(ctx, kCategorical, DType::kInt32, 2));
    GRAPHRT_RETURN_IF_ERROR(CheckInput(ctx, kSetValues, DType::kInt32, 1));
    GRAPHRT_RETURN_IF_ERROR(CheckInput(ctx, kSetSplitsDim1, DType::kInt64, 1));
    GRAPHRT_RETURN_IF_ERROR(CheckInput(ctx, kSetSplitsDim2, DType::kInt64, 1));
    if (forest->output_dim != dense_output_dim_) {
      return absl::InvalidArgumentError(
          absl::StrCat("The \"dense_output_dim\"=", dense_output_dim_,
                       " attribute does not match the model output dimension=",
                       forest->output_dim));
    }

    // Batch size: TF-DF's ComputeBatchSize.
    const Tensor& dim2 = ctx.input(kSetSplitsDim2);
    int64_t batch = 0;
    for (int64_t size :
         {ctx.input(kNumerical).dim(0), ctx.input(kBoolean).dim(0),
          ctx.input(kCategorical).dim(0), dim2.dim(0) - 1}) {
      if (size <= 0) continue;
      if (batch != 0 && batch != size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The batch size of the input features are inconsistent: ", batch,
            " vs ", size, "."));
      }
      batch = size;
    }
    GRAPHRT_RETURN_IF_ERROR(
        CheckColumns(ctx, kNumerical, batch, forest->num_numerical));
    GRAPHRT_RETURN_IF_ERROR(
        CheckColumns(ctx, kBoolean, batch, forest->num_boolean));
    GRAPHRT_RETURN_IF_ERROR(
        CheckColumns(ctx, kCategorical, batch, forest->num_categorical));
    if (forest->num_categorical_set > 0) {
      // dim_2 splits the examples into their features: uniform.
      const int64_t* d2 = dim2.data<int64_t>();
      if (dim2.dim(0) != batch + 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "categorical_set_int_features_row_splits_dim_2 has ", dim2.dim(0),
            " entries, expected batch + 1 = ", batch + 1));
      }
      for (int64_t e = 0; e <= batch; ++e) {
        if (d2[e] != e * forest->num_categorical_set) {
          return absl::InvalidArgumentError(
              "Unexpected features_row_splits_dim_2 size.");
        }
      }
    }

    ydf::FeatureBatch features;
    features.batch_size = batch;
    features.numerical = ctx.input(kNumerical).data<float>();
    features.boolean = ctx.input(kBoolean).data<float>();
    features.categorical = ctx.input(kCategorical).data<int32_t>();
    if (forest->num_categorical_set > 0) {
      features.set_values = ctx.input(kSetValues).span<int32_t>();
      features.set_splits = ctx.input(kSetSplitsDim1).span<int64_t>();
    }

    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * predictions,
        ctx.allocate_output(0, DType::kFloat32,
                            Shape({batch, dense_output_dim_})));
    GRAPHRT_RETURN_IF_ERROR(
        forest->Predict(features, predictions->mutable_data<float>()));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * names,
        ctx.allocate_output(1, DType::kString, Shape({dense_output_dim_})));
    for (int64_t i = 0; i < dense_output_dim_; ++i) {
      names->mutable_data<std::string>()[i] = forest->col_representation[i];
    }
    return absl::OkStatus();
  }

 private:
  static constexpr const char* kInputNames[] = {
      "numerical_features",
      "boolean_features",
      "categorical_int_features",
      "categorical_set_int_features_values",
      "categorical_set_int_features_row_splits_dim_1",
      "categorical_set_int_features_row_splits_dim_2",
  };

  static absl::Status CheckInput(const KernelContext& ctx, int i, DType dtype,
                                 int rank) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != dtype || t.rank() != rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          kInputNames[i], " (input ", i, ") must be a rank-", rank, " ",
          DTypeName(dtype), " tensor, got ", t.DebugString()));
    }
    return absl::OkStatus();
  }

  // A feature group the model reads must be exactly [batch, columns].
  static absl::Status CheckColumns(const KernelContext& ctx, int i,
                                   int64_t batch, int columns) {
    if (columns == 0 || batch == 0) return absl::OkStatus();
    const Tensor& t = ctx.input(i);
    if (t.dim(0) != batch || t.dim(1) != columns) {
      return absl::InvalidArgumentError(
          absl::StrCat(kInputNames[i], " must be [", batch, ", ", columns,
                       "] (batch, the model's features of that type), got ",
                       t.shape().ToString()));
    }
    return absl::OkStatus();
  }

  int64_t dense_output_dim_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateInference(
    const KernelInit& init) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 7));
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t dim, attrs.GetInt("dense_output_dim", 0));
  if (dim < 1 || dim > (int64_t{1} << 30)) {
    return attrs.Error("dense_output_dim",
                       absl::StrCat("must be >= 1, got ", dim));
  }
  return std::make_unique<InferenceKernel>(dim);
}

}  // namespace

void RegisterSimpleMlOps(OpRegistry& r) {
  r.Register("SimpleMLCreateModelResource", CreateCreateModelResource);
  r.Register("SimpleMLLoadModelFromPathWithHandle", CreateLoadModel);
  r.Register("SimpleMLInferenceOpWithHandle", CreateInference);
}

}  // namespace graphrt
