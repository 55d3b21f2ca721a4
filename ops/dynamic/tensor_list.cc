#include "ops/dynamic/tensor_list.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_util.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace tensor_list {

absl::StatusOr<std::shared_ptr<const TensorList>> GetList(
    const KernelContext& ctx, int i, DType element_dtype) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kVariant || t.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a TensorList (variant scalar) at input ", i, ", got ",
        t.DebugString()));
  }
  const std::shared_ptr<const VariantValue>& v = t.data<Variant>()->value;
  auto list = std::dynamic_pointer_cast<const TensorList>(v);
  if (list == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a TensorList at input ", i, ", got ",
        v == nullptr ? std::string("an empty variant") : v->TypeName()));
  }
  if (element_dtype != DType::kInvalid &&
      list->element_dtype != element_dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid data types; op elements ", DTypeName(element_dtype),
        " but list elements ", DTypeName(list->element_dtype)));
  }
  return list;
}

absl::Status SetList(KernelContext& ctx, int i,
                     std::shared_ptr<const TensorList> list) {
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * t,
                           ctx.allocate_output(i, DType::kVariant, Shape()));
  t->mutable_data<Variant>()->value = std::move(list);
  return absl::OkStatus();
}

std::shared_ptr<TensorList> Copy(const TensorList& list) {
  return std::make_shared<TensorList>(list);
}

absl::StatusOr<PartialShape> MergedElementShape(const TensorList& list,
                                                const Tensor& shape_input) {
  GRAPHRT_ASSIGN_OR_RETURN(
      PartialShape in,
      dynamic::PartialShapeFromTensor(shape_input, "element_shape"));
  auto merged = dynamic::MergeShapes(list.element_shape, in);
  if (!merged.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "element_shape input ", in.ToString(),
        " is incompatible with the list's element shape ",
        list.element_shape.ToString()));
  }
  return merged;
}

absl::StatusOr<PartialShape> MergeWithItems(const TensorList& list,
                                            PartialShape shape) {
  for (size_t i = 0; i < list.tensors.size(); ++i) {
    const Tensor& t = list.tensors[i];
    if (!t.valid()) continue;
    auto merged = dynamic::MergeShapes(shape, dynamic::ToPartial(t.shape()));
    if (!merged.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "list item ", i, " has shape ", t.shape().ToString(),
          " incompatible with element shape ", shape.ToString()));
    }
    shape = *std::move(merged);
  }
  return shape;
}

absl::StatusOr<Tensor> Zeros(DType dtype, const PartialShape& shape,
                             absl::string_view what) {
  if (!dynamic::IsFullyDefined(shape)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": element_shape is not fully defined: ", shape.ToString()));
  }
  return Tensor::Allocate(dtype, dynamic::ToShape(shape));
}

absl::Status CheckItem(const TensorList& list, const Tensor& t,
                       absl::string_view what) {
  if (t.dtype() != list.element_dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": invalid data types; item ", t.DebugString(),
        " but list elements ", DTypeName(list.element_dtype)));
  }
  if (!list.element_shape.IsCompatible(t.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": item shape ", t.shape().ToString(),
        " is incompatible with the list's element shape ",
        list.element_shape.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadScalarInput(const KernelContext& ctx, int i,
                                        absl::string_view what) {
  const Tensor& t = ctx.input(i);
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a scalar, got ", t.DebugString()));
  }
  return ops::ReadIntScalar(t, what);
}

absl::StatusOr<DType> ElementDType(const KernelInit& init) {
  AttrReader attrs(init.node);
  return attrs.RequireType("element_dtype");
}

absl::Status CheckInputCount(const KernelInit& init, int n) {
  if (init.num_inputs != n) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(), "' needs ", n,
                     " inputs, has ", init.num_inputs));
  }
  return absl::OkStatus();
}

}  // namespace tensor_list
}  // namespace graphrt
