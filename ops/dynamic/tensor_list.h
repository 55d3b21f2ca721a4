// TensorList: TF's immutable list value behind the TensorList* ops.
//
// A list travels as a DT_VARIANT scalar whose Variant points to a
// `const TensorList`. Lists have value semantics: an op that "modifies" a
// list (SetItem, PushBack, PopBack, Resize, ...) builds a NEW TensorList
// (copying the vector of Tensor handles, which share buffers) and never
// touches its input, so other consumers of the input list still see the
// old contents.
//
// Items may be unset (a default-constructed, invalid Tensor), e.g. after
// TensorListReserve. Reading an unset item (GetItem, Stack, Gather, PopBack,
// Concat) makes zeros from the element shape when that shape (the list's
// merged with the op's element_shape input, and with the shapes of set
// items where TF does so) is fully defined, else fails, as TF.
#ifndef GRAPHRT_OPS_DYNAMIC_TENSOR_LIST_H_
#define GRAPHRT_OPS_DYNAMIC_TENSOR_LIST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/kernel.h"
#include "runtime/shape.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"

namespace graphrt {

class TensorList : public VariantValue {
 public:
  std::string TypeName() const override { return "tensorflow::TensorList"; }

  DType element_dtype = DType::kInvalid;
  PartialShape element_shape;     // may be partially known
  int64_t max_num_elements = -1;  // -1: unbounded (EmptyTensorList cap)
  std::vector<Tensor> tensors;    // invalid Tensor = unset item
};

namespace tensor_list {

// The list held by input `i` (a variant scalar), checked against the op's
// element_dtype attr (kInvalid: no check).
absl::StatusOr<std::shared_ptr<const TensorList>> GetList(
    const KernelContext& ctx, int i, DType element_dtype);

// Sets output `i` to a variant scalar holding `list`.
absl::Status SetList(KernelContext& ctx, int i,
                     std::shared_ptr<const TensorList> list);

// A copy of `list` (shares item buffers) to modify before SetList.
std::shared_ptr<TensorList> Copy(const TensorList& list);

// The list's element shape merged with the element_shape input tensor.
absl::StatusOr<PartialShape> MergedElementShape(const TensorList& list,
                                                const Tensor& shape_input);

// `shape` further merged with the shape of every set item.
absl::StatusOr<PartialShape> MergeWithItems(const TensorList& list,
                                            PartialShape shape);

// Zeros of `shape` (must be fully defined; `what` explains the failure).
absl::StatusOr<Tensor> Zeros(DType dtype, const PartialShape& shape,
                             absl::string_view what);

// Fails unless `t` has the list's dtype and a compatible shape.
absl::Status CheckItem(const TensorList& list, const Tensor& t,
                       absl::string_view what);

// Reads an int32 scalar input (index, num_elements, size).
absl::StatusOr<int64_t> ReadScalarInput(const KernelContext& ctx, int i,
                                        absl::string_view what);

// Reads the element_dtype attr (required) at load time.
absl::StatusOr<DType> ElementDType(const KernelInit& init);

// Fails at load time unless the node has `n` inputs.
absl::Status CheckInputCount(const KernelInit& init, int n);

}  // namespace tensor_list
}  // namespace graphrt

#endif  // GRAPHRT_OPS_DYNAMIC_TENSOR_LIST_H_
