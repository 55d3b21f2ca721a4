// Item-level TensorList ops (see tensor_list.h for value semantics):
//
//   EmptyTensorList(element_shape, max_num_elements) -> list
//   TensorListReserve(element_shape, num_elements) -> list of unset items
//   TensorListGetItem(list, index, element_shape) -> item (zeros if unset
//       and the element shape is known)
//   TensorListSetItem(list, index, item) -> new list
//       (resize_if_index_out_of_bounds grows the list)
//   TensorListPushBack(list, tensor) -> new list
//   TensorListPopBack(list, element_shape) -> new list, item
//   TensorListLength(list) -> int32
//   TensorListResize(list, size) -> new list (truncated / unset-padded)
//   TensorListElementShape(list) -> shape (shape_type; -1 = unknown rank)
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "ops/dynamic/dynamic_util.h"
#include "ops/dynamic/tensor_list.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

namespace tl = tensor_list;

enum class ListOp { kEmpty, kReserve, kGetItem, kSetItem, kPushBack,
                    kPopBack, kLength, kResize, kElementShape };

struct ListOpInfo {
  const char* name;
  ListOp op;
  int inputs;
  bool needs_dtype;
};

constexpr ListOpInfo kOps[] = {
    {"EmptyTensorList", ListOp::kEmpty, 2, true},
    {"TensorListReserve", ListOp::kReserve, 2, true},
    {"TensorListGetItem", ListOp::kGetItem, 3, true},
    {"TensorListSetItem", ListOp::kSetItem, 3, true},
    {"TensorListPushBack", ListOp::kPushBack, 2, true},
    {"TensorListPopBack", ListOp::kPopBack, 2, true},
    {"TensorListLength", ListOp::kLength, 1, false},
    {"TensorListResize", ListOp::kResize, 2, false},
    {"TensorListElementShape", ListOp::kElementShape, 1, false},
};

class ListKernel : public Kernel {
 public:
  ListKernel(ListOp op, DType dtype, DType shape_type, bool resize)
      : op_(op), dtype_(dtype), shape_type_(shape_type), resize_(resize) {}

  absl::Status Run(KernelContext& ctx) const override {
    switch (op_) {
      case ListOp::kEmpty:
      case ListOp::kReserve:
        return Create(ctx);
      case ListOp::kGetItem:
        return GetItem(ctx);
      case ListOp::kSetItem:
        return SetItem(ctx);
      case ListOp::kPushBack:
        return PushBack(ctx);
      case ListOp::kPopBack:
        return PopBack(ctx);
      case ListOp::kLength: {
        GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
        ctx.set_output(0, Tensor::Scalar<int32_t>(
                              static_cast<int32_t>(list->tensors.size())));
        return absl::OkStatus();
      }
      case ListOp::kResize:
        return Resize(ctx);
      case ListOp::kElementShape:
        return ElementShape(ctx);
    }
    return absl::InternalError("unknown TensorList op");
  }

 private:
  absl::Status Create(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(
        PartialShape shape,
        dynamic::PartialShapeFromTensor(ctx.input(0), "element_shape"));
    const bool empty = op_ == ListOp::kEmpty;
    GRAPHRT_ASSIGN_OR_RETURN(
        int64_t n, tl::ReadScalarInput(
                       ctx, 1, empty ? "max_num_elements" : "num_elements"));
    auto list = std::make_shared<TensorList>();
    list->element_dtype = dtype_;
    list->element_shape = std::move(shape);
    if (empty) {
      if (n < -1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "max_num_elements must be >= -1, got ", n));
      }
      list->max_num_elements = n;
    } else {
      if (n < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the num_elements to reserve must be a non-negative number, got ",
            n));
      }
      GRAPHRT_RETURN_IF_ERROR(dynamic::CheckListLength(n, "num_elements"));
      list->tensors.resize(static_cast<size_t>(n));
    }
    return tl::SetList(ctx, 0, std::move(list));
  }

  absl::Status GetItem(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
    GRAPHRT_ASSIGN_OR_RETURN(int64_t index,
                             tl::ReadScalarInput(ctx, 1, "index"));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    if (index < 0 || index >= size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trying to access element ", index, " in a list with ", size,
          " elements"));
    }
    const Tensor& item = list->tensors[index];
    GRAPHRT_ASSIGN_OR_RETURN(PartialShape shape,
                             tl::MergedElementShape(*list, ctx.input(2)));
    if (item.valid()) {
      ctx.set_output(0, item);
      return absl::OkStatus();
    }
    if (!dynamic::IsFullyDefined(shape)) {
      GRAPHRT_ASSIGN_OR_RETURN(shape, tl::MergeWithItems(*list, shape));
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor zeros,
        tl::Zeros(dtype_, shape,
                  "trying to read an uninitialized list item but no element "
                  "shape is known"));
    ctx.set_output(0, std::move(zeros));
    return absl::OkStatus();
  }

  absl::Status SetItem(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
    GRAPHRT_ASSIGN_OR_RETURN(int64_t index,
                             tl::ReadScalarInput(ctx, 1, "index"));
    const Tensor& item = ctx.input(2);
    GRAPHRT_RETURN_IF_ERROR(tl::CheckItem(*list, item, "TensorListSetItem"));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    if (index < 0 || (index >= size && !resize_)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trying to modify element ", index, " in a list with ", size,
          " elements"));
    }
    if (index >= size) {
      GRAPHRT_RETURN_IF_ERROR(
          dynamic::CheckListLength(index + 1, "list length after SetItem"));
    }
    auto out = tl::Copy(*list);
    if (index >= size) out->tensors.resize(static_cast<size_t>(index) + 1);
    out->tensors[index] = item;
    return tl::SetList(ctx, 0, std::move(out));
  }

  absl::Status PushBack(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
    const Tensor& item = ctx.input(1);
    GRAPHRT_RETURN_IF_ERROR(tl::CheckItem(*list, item, "TensorListPushBack"));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    if (list->max_num_elements != -1 && size >= list->max_num_elements) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tried to push item into a full list; list size: ", size,
          ", max_num_elements: ", list->max_num_elements));
    }
    GRAPHRT_RETURN_IF_ERROR(
        dynamic::CheckListLength(size + 1, "list length after PushBack"));
    auto out = tl::Copy(*list);
    out->tensors.push_back(item);
    return tl::SetList(ctx, 0, std::move(out));
  }

  absl::Status PopBack(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
    if (list->tensors.empty()) {
      return absl::InvalidArgumentError("trying to pop from an empty list");
    }
    GRAPHRT_ASSIGN_OR_RETURN(PartialShape shape,
                             tl::MergedElementShape(*list, ctx.input(1)));
    Tensor item = list->tensors.back();
    if (!item.valid()) {
      GRAPHRT_ASSIGN_OR_RETURN(
          item, tl::Zeros(dtype_, shape,
                          "trying to pop an uninitialized list item"));
    }
    auto out = tl::Copy(*list);
    out->tensors.pop_back();
    GRAPHRT_RETURN_IF_ERROR(tl::SetList(ctx, 0, std::move(out)));
    ctx.set_output(1, std::move(item));
    return absl::OkStatus();
  }

  absl::Status Resize(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
    GRAPHRT_ASSIGN_OR_RETURN(int64_t size, tl::ReadScalarInput(ctx, 1, "size"));
    if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorListResize expects size to be non-negative, got ",
                       size));
    }
    GRAPHRT_RETURN_IF_ERROR(dynamic::CheckListLength(size, "size"));
    auto out = tl::Copy(*list);
    out->tensors.resize(static_cast<size_t>(size));
    return tl::SetList(ctx, 0, std::move(out));
  }

  absl::Status ElementShape(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, DType::kInvalid));
    const PartialShape& s = list->element_shape;
    Shape out_shape;
    if (!s.unknown_rank()) {
      out_shape.AddDim(static_cast<int64_t>(s.dims().size()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, shape_type_, out_shape));
    std::vector<int64_t> dims =
        s.unknown_rank() ? std::vector<int64_t>{-1} : s.dims();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (shape_type_ == DType::kInt32) {
        out->mutable_data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
      } else {
        out->mutable_data<int64_t>()[i] = dims[i];
      }
    }
    return absl::OkStatus();
  }

  ListOp op_;
  DType dtype_;
  DType shape_type_;
  bool resize_;
};

template <int kIndex>
absl::StatusOr<std::unique_ptr<Kernel>> CreateListOp(const KernelInit& init) {
  const ListOpInfo& info = kOps[kIndex];
  AttrReader attrs(init.node);
  GRAPHRT_RETURN_IF_ERROR(tl::CheckInputCount(init, info.inputs));
  DType dtype = DType::kInvalid;
  if (info.needs_dtype || attrs.Has("element_dtype")) {
    GRAPHRT_ASSIGN_OR_RETURN(dtype, tl::ElementDType(init));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType shape_type,
                           attrs.GetType("shape_type", DType::kInt32));
  if (info.op == ListOp::kElementShape && shape_type != DType::kInt32 &&
      shape_type != DType::kInt64) {
    return attrs.Error("shape_type", absl::StrCat("must be int32 or int64, got ",
                                                  DTypeName(shape_type)));
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      bool resize, attrs.GetBool("resize_if_index_out_of_bounds", false));
  return std::unique_ptr<Kernel>(
      new ListKernel(info.op, dtype, shape_type, resize));
}

template <int... kIs>
void RegisterAll(OpRegistry& r, std::integer_sequence<int, kIs...>) {
  (r.Register(kOps[kIs].name, CreateListOp<kIs>), ...);
}

}  // namespace

void RegisterTensorListOps(OpRegistry& r) {
  RegisterAll(r, std::make_integer_sequence<int, std::size(kOps)>());
}

}  // namespace graphrt
