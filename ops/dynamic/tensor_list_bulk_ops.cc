// TensorList ops that convert between lists and dense tensors (see
// tensor_list.h for value semantics and unset items):
//
//   TensorListFromTensor(tensor, element_shape) -> list of tensor's rows
//   TensorListStack(list, element_shape) -> [n, elem...]
//       (num_elements attr, when != -1, must equal the list length)
//   TensorListGather(list, indices, element_shape) -> [len(indices), elem...]
//   TensorListScatter(tensor, indices, element_shape) -> list of length
//       max(indices)+1 with item indices[i] = tensor[i], others unset
//   TensorListScatterV2(..., num_elements) -> same, length num_elements
//       (-1: max(indices)+1)
//   TensorListSplit(tensor, element_shape, lengths) -> list of row blocks
//   TensorListConcat(list) (element_shape attr) and
//   TensorListConcatV2(list, element_shape, leading_dims) -> tensor
//       (items joined on dim 0), lengths int64. Unset items become zeros
//       of [leading_dims[i] (V2) or element_shape[0] (V1), rest...] when
//       that shape is known.
#include <algorithm>
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
using dynamic::IntAt;

// Stacks items `indices` of `list` (unset -> zeros) using the element
// shape merged from the list, `shape_input` and the set items.
absl::Status StackItems(KernelContext& ctx, const TensorList& list,
                        const std::vector<int64_t>& indices,
                        const Tensor& shape_input) {
  GRAPHRT_ASSIGN_OR_RETURN(PartialShape shape,
                           tl::MergedElementShape(list, shape_input));
  if (!dynamic::IsFullyDefined(shape)) {
    if (list.tensors.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tried to stack elements of an empty list with non-fully-defined "
          "element_shape: ",
          shape.ToString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(shape, tl::MergeWithItems(list, shape));
  }
  if (!dynamic::IsFullyDefined(shape)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tried to stack a list which only contains uninitialized items and "
        "has a non-fully-defined element_shape: ",
        shape.ToString()));
  }
  const Shape elem = dynamic::ToShape(shape);
  Shape out_shape = elem;
  out_shape.InsertDim(0, static_cast<int64_t>(indices.size()));
  // Zero-filled only when an item is unset (it stacks as zeros); otherwise
  // every element is copied below.
  const bool all_set =
      std::all_of(indices.begin(), indices.end(),
                  [&](int64_t i) { return list.tensors[i].valid(); });
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out,
      all_set
          ? ctx.allocate_output_uninitialized(0, list.element_dtype, out_shape)
          : ctx.allocate_output(0, list.element_dtype, out_shape));
  const int64_t n = elem.num_elements();
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor& t = list.tensors[indices[i]];
    if (!t.valid()) continue;  // zeros already
    if (t.shape() != elem) {
      return absl::InvalidArgumentError(absl::StrCat(
          "list item ", indices[i], " has shape ", t.shape().ToString(),
          " but the stacked element shape is ", elem.ToString()));
    }
    ops::CopyElements(t.dtype(), t.raw_data(), 0, out->raw_data(),
                      static_cast<int64_t>(i) * n, n);
  }
  return absl::OkStatus();
}

enum class BulkOp { kFromTensor, kStack, kGather, kScatter, kScatterV2,
                    kSplit, kConcat, kConcatV2 };

class BulkKernel : public Kernel {
 public:
  BulkKernel(BulkOp op, DType dtype, int64_t num_elements,
             PartialShape attr_shape)
      : op_(op),
        dtype_(dtype),
        num_elements_(num_elements),
        attr_shape_(std::move(attr_shape)) {}

  absl::Status Run(KernelContext& ctx) const override {
    switch (op_) {
      case BulkOp::kFromTensor:
        return FromTensor(ctx);
      case BulkOp::kStack: {
        GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
        const int64_t size = static_cast<int64_t>(list->tensors.size());
        if (num_elements_ != -1 && num_elements_ != size) {
          return absl::InvalidArgumentError(absl::StrCat(
              "operation expected a list with ", num_elements_,
              " elements but got a list with ", size, " elements"));
        }
        std::vector<int64_t> all(static_cast<size_t>(size));
        for (int64_t i = 0; i < size; ++i) all[i] = i;
        return StackItems(ctx, *list, all, ctx.input(1));
      }
      case BulkOp::kGather: {
        GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
        GRAPHRT_RETURN_IF_ERROR(
            dynamic::CheckIntVector(ctx.input(1), "indices"));
        const int64_t size = static_cast<int64_t>(list->tensors.size());
        std::vector<int64_t> idx(
            static_cast<size_t>(ctx.input(1).num_elements()));
        for (size_t i = 0; i < idx.size(); ++i) {
          idx[i] = IntAt(ctx.input(1), static_cast<int64_t>(i));
          if (idx[i] < 0 || idx[i] >= size) {
            return absl::InvalidArgumentError(absl::StrCat(
                "trying to gather element ", idx[i], " in a list with ", size,
                " elements"));
          }
        }
        return StackItems(ctx, *list, idx, ctx.input(2));
      }
      case BulkOp::kScatter:
      case BulkOp::kScatterV2:
        return Scatter(ctx);
      case BulkOp::kSplit:
        return Split(ctx);
      case BulkOp::kConcat:
      case BulkOp::kConcatV2:
        return Concat(ctx);
    }
    return absl::InternalError("unknown TensorList op");
  }

 private:
  absl::Status CheckTensor(const Tensor& t) const {
    if (t.dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid data types; op elements ", DTypeName(dtype_),
          " but tensor is ", t.DebugString()));
    }
    if (t.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor must be at least a vector, got ", t.DebugString()));
    }
    return absl::OkStatus();
  }

  std::shared_ptr<TensorList> NewList(PartialShape shape) const {
    auto list = std::make_shared<TensorList>();
    list->element_dtype = dtype_;
    list->element_shape = std::move(shape);
    return list;
  }

  absl::Status FromTensor(KernelContext& ctx) const {
    const Tensor& t = ctx.input(0);
    GRAPHRT_RETURN_IF_ERROR(CheckTensor(t));
    GRAPHRT_ASSIGN_OR_RETURN(
        PartialShape shape,
        dynamic::PartialShapeFromTensor(ctx.input(1), "element_shape"));
    const Shape elem = dynamic::ShapeExcept0(t.shape());
    if (!shape.IsCompatible(elem)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "specified a list with element shape ", shape.ToString(),
          " from a tensor with shape ", t.shape().ToString()));
    }
    auto list = NewList(std::move(shape));
    list->tensors.reserve(static_cast<size_t>(t.dim(0)));
    for (int64_t i = 0; i < t.dim(0); ++i) {
      GRAPHRT_ASSIGN_OR_RETURN(Tensor row, dynamic::SliceRow(t, i));
      list->tensors.push_back(std::move(row));
    }
    return tl::SetList(ctx, 0, std::move(list));
  }

  absl::Status Scatter(KernelContext& ctx) const {
    const Tensor& t = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    GRAPHRT_RETURN_IF_ERROR(CheckTensor(t));
    GRAPHRT_RETURN_IF_ERROR(dynamic::CheckIntVector(indices, "indices"));
    GRAPHRT_ASSIGN_OR_RETURN(
        PartialShape shape,
        dynamic::PartialShapeFromTensor(ctx.input(2), "element_shape"));
    if (t.dim(0) != indices.num_elements()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid number of rows in input tensor; expected: ",
          indices.num_elements(), ", actual: ", t.DebugString()));
    }
    const Shape elem = dynamic::ShapeExcept0(t.shape());
    if (!shape.IsCompatible(elem)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "element_shape ", shape.ToString(),
          " is incompatible with the tensor rows ", elem.ToString()));
    }
    int64_t max_index = -1;
    for (int64_t i = 0; i < indices.num_elements(); ++i) {
      const int64_t v = IntAt(indices, i);
      if (v < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "indices in TensorListScatter must all be non-negative, got ", v,
            " at ", i));
      }
      max_index = std::max(max_index, v);
    }
    int64_t size = max_index + 1;
    if (op_ == BulkOp::kScatterV2) {
      GRAPHRT_ASSIGN_OR_RETURN(int64_t n,
                               tl::ReadScalarInput(ctx, 3, "num_elements"));
      if (n < -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("num_elements must be >= -1, got ", n));
      }
      if (n != -1) {
        if (max_index >= n) {
          return absl::InvalidArgumentError(absl::StrCat(
              "TensorListScatter: trying to scatter at index ", max_index,
              " in list with size ", n));
        }
        size = n;
      }
    }
    GRAPHRT_RETURN_IF_ERROR(dynamic::CheckListLength(size, "list size"));
    auto list = NewList(std::move(shape));
    list->tensors.resize(static_cast<size_t>(size));
    for (int64_t i = 0; i < indices.num_elements(); ++i) {
      GRAPHRT_ASSIGN_OR_RETURN(list->tensors[IntAt(indices, i)],
                               dynamic::SliceRow(t, i));
    }
    return tl::SetList(ctx, 0, std::move(list));
  }

  absl::Status Split(KernelContext& ctx) const {
    const Tensor& t = ctx.input(0);
    GRAPHRT_RETURN_IF_ERROR(CheckTensor(t));
    GRAPHRT_ASSIGN_OR_RETURN(
        PartialShape shape,
        dynamic::PartialShapeFromTensor(ctx.input(1), "element_shape"));
    if (!shape.unknown_rank() && shape.dims().empty()) {
      return absl::InvalidArgumentError(
          "TensorListSplit requires element_shape to be at least of rank 1, "
          "got []");
    }
    const Tensor& lengths = ctx.input(2);
    GRAPHRT_RETURN_IF_ERROR(dynamic::CheckIntVector(lengths, "lengths"));
    auto list = NewList(shape);
    int64_t begin = 0;
    for (int64_t i = 0; i < lengths.num_elements(); ++i) {
      const int64_t l = IntAt(lengths, i);
      if (l < 0 || l > t.dim(0) - begin) {
        return absl::InvalidArgumentError(absl::StrCat(
            "invalid lengths[", i, "] = ", l, " for a tensor with ", t.dim(0),
            " rows (", begin, " already used)"));
      }
      GRAPHRT_ASSIGN_OR_RETURN(Tensor part, dynamic::SliceRows(t, begin, l));
      if (!shape.IsCompatible(part.shape())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "element_shape ", shape.ToString(), " is incompatible with item ",
            i, " of shape ", part.shape().ToString()));
      }
      list->tensors.push_back(std::move(part));
      begin += l;
    }
    if (begin != t.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unused values in tensor; length of tensor: ", t.dim(0),
          ", values used: ", begin));
    }
    return tl::SetList(ctx, 0, std::move(list));
  }

  absl::Status Concat(KernelContext& ctx) const {
    GRAPHRT_ASSIGN_OR_RETURN(auto list, tl::GetList(ctx, 0, dtype_));
    PartialShape shape;
    const bool v2 = op_ == BulkOp::kConcatV2;
    if (v2) {
      GRAPHRT_ASSIGN_OR_RETURN(shape,
                               tl::MergedElementShape(*list, ctx.input(1)));
    } else {
      auto merged = dynamic::MergeShapes(list->element_shape, attr_shape_);
      if (!merged.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "element_shape attr ", attr_shape_.ToString(),
            " is incompatible with the list's element shape ",
            list->element_shape.ToString()));
      }
      shape = *std::move(merged);
    }
    if (!shape.unknown_rank() && shape.dims().empty()) {
      return absl::InvalidArgumentError(
          "concat requires elements to be at least vectors, found scalars");
    }
    PartialShape rest;
    if (!shape.unknown_rank()) {
      rest = PartialShape(
          std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end()));
    }
    const int64_t n = static_cast<int64_t>(list->tensors.size());
    bool has_unset = false;
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = list->tensors[i];
      if (!t.valid()) {
        has_unset = true;
        continue;
      }
      if (t.rank() < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "concat saw a scalar shape at index ", i,
            " but requires at least vectors"));
      }
      auto merged = dynamic::MergeShapes(
          rest, dynamic::ToPartial(dynamic::ShapeExcept0(t.shape())));
      if (!merged.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tried to concat tensors with unequal shapes: ", rest.ToString(),
            " vs. ", t.shape().ToString(), " at index ", i));
      }
      rest = *std::move(merged);
    }
    if ((n == 0 || has_unset) && !dynamic::IsFullyDefined(rest)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "all except the first dimension must be fully defined when "
          "concatenating an empty list or one with uninitialized items; "
          "element_shape: ",
          shape.ToString()));
    }
    std::vector<int64_t> lens(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = list->tensors[i];
      if (t.valid()) {
        lens[i] = t.dim(0);
      } else if (v2) {
        const Tensor& ld = ctx.input(2);
        GRAPHRT_RETURN_IF_ERROR(dynamic::CheckIntVector(ld, "leading_dims"));
        if (ld.num_elements() != n) {
          return absl::InvalidArgumentError(absl::StrCat(
              "leading_dims must have one entry per list item (", n,
              ") when the list has uninitialized items, got ",
              ld.DebugString()));
        }
        lens[i] = IntAt(ld, i);
        if (lens[i] < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("leading_dims[", i, "] = ", lens[i], " < 0"));
        }
      } else if (!shape.unknown_rank() && shape.dims()[0] >= 0) {
        lens[i] = shape.dims()[0];
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "list item ", i,
            " is uninitialized and its leading dim is unknown"));
      }
    }
    Shape rest_shape = n == 0 || has_unset
                           ? dynamic::ToShape(rest)
                           : dynamic::ShapeExcept0(list->tensors[0].shape());
    const int64_t row = rest_shape.num_elements();
    int64_t total = 0;
    for (int64_t l : lens) total += l;
    Shape out_shape = rest_shape;
    out_shape.InsertDim(0, total);
    // Output 1 first: allocating it cannot move output 0.
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * lengths,
                             ctx.allocate_output(1, DType::kInt64, Shape({n})));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * out, ctx.allocate_output(0, dtype_, out_shape));
    int64_t pos = 0;
    for (int64_t i = 0; i < n; ++i) {
      lengths->mutable_data<int64_t>()[i] = lens[i];
      const Tensor& t = list->tensors[i];
      if (t.valid()) {
        ops::CopyElements(dtype_, t.raw_data(), 0, out->raw_data(), pos,
                          t.num_elements());
      }
      pos += lens[i] * row;
    }
    return absl::OkStatus();
  }

  BulkOp op_;
  DType dtype_;
  int64_t num_elements_;
  PartialShape attr_shape_;
};

struct BulkInfo {
  const char* name;
  BulkOp op;
  int inputs;
};

constexpr BulkInfo kBulk[] = {
    {"TensorListFromTensor", BulkOp::kFromTensor, 2},
    {"TensorListStack", BulkOp::kStack, 2},
    {"TensorListGather", BulkOp::kGather, 3},
    {"TensorListScatter", BulkOp::kScatter, 3},
    {"TensorListScatterV2", BulkOp::kScatterV2, 4},
    {"TensorListSplit", BulkOp::kSplit, 3},
    {"TensorListConcat", BulkOp::kConcat, 1},
    {"TensorListConcatV2", BulkOp::kConcatV2, 3},
};

template <int kIndex>
absl::StatusOr<std::unique_ptr<Kernel>> CreateBulk(const KernelInit& init) {
  const BulkInfo& info = kBulk[kIndex];
  AttrReader attrs(init.node);
  GRAPHRT_RETURN_IF_ERROR(tl::CheckInputCount(init, info.inputs));
  GRAPHRT_ASSIGN_OR_RETURN(DType dtype, tl::ElementDType(init));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t num_elements,
                           attrs.GetInt("num_elements", -1));
  PartialShape shape;
  if (info.op == BulkOp::kConcat && attrs.Has("element_shape")) {
    GRAPHRT_ASSIGN_OR_RETURN(shape, attrs.GetShape("element_shape"));
  }
  return std::unique_ptr<Kernel>(
      new BulkKernel(info.op, dtype, num_elements, std::move(shape)));
}

template <int... kIs>
void RegisterAll(OpRegistry& r, std::integer_sequence<int, kIs...>) {
  (r.Register(kBulk[kIs].name, CreateBulk<kIs>), ...);
}

}  // namespace

void RegisterTensorListBulkOps(OpRegistry& r) {
  RegisterAll(r, std::make_integer_sequence<int, std::size(kBulk)>());
}

}  // namespace graphrt
