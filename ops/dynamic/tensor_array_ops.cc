// TensorArrayV3 and the TensorArray*V3 ops (see tensor_array.h for the
// object and its rules).
//
//   TensorArrayV3(size) -> handle (resource scalar, a NEW array each Run),
//                          flow (float32 scalar 0)
//   TensorArrayWriteV3(handle, index, value, flow_in) -> flow_out
//   TensorArrayReadV3(handle, index, flow_in) -> value
//   TensorArrayGatherV3(handle, indices, flow_in) -> value [n, elem...]
//   TensorArrayScatterV3(handle, indices, value, flow_in) -> flow_out
//   TensorArrayConcatV3(handle, flow_in) -> value, lengths (int64)
//   TensorArraySplitV3(handle, value, lengths, flow_in) -> flow_out
//   TensorArraySizeV3(handle, flow_in) -> int32 scalar
//   TensorArrayCloseV3(handle) -> (nothing)
// flow_out forwards flow_in (it only orders ops in the graph).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "ops/dynamic/dynamic_util.h"
#include "ops/dynamic/tensor_array.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using dynamic::IntAt;

absl::StatusOr<TensorArray*> GetArray(const Tensor& t) {
  if (t.dtype() != DType::kResource || t.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a TensorArray handle (resource scalar), got ",
        t.DebugString()));
  }
  Resource* r = t.data<ResourceHandle>()->resource.get();
  auto* ta = dynamic_cast<TensorArray*>(r);
  if (ta == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a TensorArray handle, got ",
        r == nullptr ? std::string("an empty handle") : r->DebugString()));
  }
  return ta;
}

absl::Status CheckDTypeAttr(const TensorArray& ta, DType want) {
  if (want != DType::kInvalid && ta.dtype() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray dtype is ", DTypeName(ta.dtype()),
                     " but op requested dtype ", DTypeName(want)));
  }
  return absl::OkStatus();
}

// Reads an int32 vector of indices.
absl::StatusOr<std::vector<int64_t>> ReadIndices(const Tensor& t) {
  GRAPHRT_RETURN_IF_ERROR(dynamic::CheckIntVector(t, "indices"));
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) v[i] = IntAt(t, i);
  return v;
}

// Stacks equally shaped tensors into [n, elem...].
absl::StatusOr<Tensor> Stack(DType dtype, const std::vector<Tensor>& parts,
                             const Shape& elem) {
  Shape s = elem;
  s.InsertDim(0, static_cast<int64_t>(parts.size()));
  GRAPHRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype, s));
  const int64_t n = elem.num_elements();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].shape() != elem) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray has inconsistent shapes. Index 0 has shape: ",
          elem.ToString(), " but index ", i,
          " has shape: ", parts[i].shape().ToString()));
    }
    ops::CopyElements(dtype, parts[i].raw_data(), 0, out.raw_data(),
                      static_cast<int64_t>(i) * n, n);
  }
  return out;
}

// --------------------------------------------------------------- TensorArrayV3

class CreateArrayKernel : public Kernel {
 public:
  CreateArrayKernel(DType dtype, PartialShape shape, bool dynamic_size,
                    bool clear_after_read, bool identical, std::string name)
      : dtype_(dtype),
        shape_(std::move(shape)),
        dynamic_size_(dynamic_size),
        clear_after_read_(clear_after_read),
        identical_(identical),
        name_(std::move(name)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& size_t_ = ctx.input(0);
    if (size_t_.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray size must be a scalar, got ", size_t_.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int64_t size,
                             ops::ReadIntScalar(size_t_, "size"));
    if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray size should be >= 0, got ", size));
    }
    GRAPHRT_RETURN_IF_ERROR(dynamic::CheckListLength(size, "TensorArray size"));
    auto ta = std::make_shared<TensorArray>(dtype_, shape_, size,
                                            dynamic_size_, clear_after_read_,
                                            identical_);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * h,
                             ctx.allocate_output(0, DType::kResource, Shape()));
    *h->mutable_data<ResourceHandle>() = ResourceHandle{ta, name_};
    ctx.set_output(1, Tensor::Scalar<float>(0.0f));
    return absl::OkStatus();
  }

 private:
  DType dtype_;
  PartialShape shape_;
  bool dynamic_size_, clear_after_read_, identical_;
  std::string name_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateTensorArray(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType dtype, attrs.RequireType("dtype"));
  PartialShape shape;
  if (attrs.Has("element_shape")) {
    GRAPHRT_ASSIGN_OR_RETURN(shape, attrs.GetShape("element_shape"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(bool dynamic_size,
                           attrs.GetBool("dynamic_size", false));
  GRAPHRT_ASSIGN_OR_RETURN(bool clear, attrs.GetBool("clear_after_read", true));
  GRAPHRT_ASSIGN_OR_RETURN(bool identical,
                           attrs.GetBool("identical_element_shapes", false));
  GRAPHRT_ASSIGN_OR_RETURN(std::string name,
                           attrs.GetString("tensor_array_name", ""));
  if (name.empty()) name = init.node.name();
  return std::unique_ptr<Kernel>(new CreateArrayKernel(
      dtype, std::move(shape), dynamic_size, clear, identical, name));
}

// ---------------------------------------------------------------- other ops

enum class TaOp { kWrite, kRead, kGather, kScatter, kConcat, kSplit, kSize,
                  kClose };

int NumInputs(TaOp op) {
  switch (op) {
    case TaOp::kWrite: return 4;
    case TaOp::kRead: return 3;
    case TaOp::kGather: return 3;
    case TaOp::kScatter: return 4;
    case TaOp::kConcat: return 2;
    case TaOp::kSplit: return 4;
    case TaOp::kSize: return 2;
    case TaOp::kClose: return 1;
  }
  return 0;
}

class ArrayOpKernel : public Kernel {
 public:
  ArrayOpKernel(TaOp op, DType dtype, PartialShape shape)
      : op_(op), dtype_(dtype), shape_(std::move(shape)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, NumInputs(op_)));
    GRAPHRT_ASSIGN_OR_RETURN(TensorArray * ta, GetArray(ctx.input(0)));
    switch (op_) {
      case TaOp::kWrite: {
        if (ctx.input(1).rank() != 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "index must be a scalar, got ", ctx.input(1).DebugString()));
        }
        GRAPHRT_ASSIGN_OR_RETURN(int64_t index,
                                 ops::ReadIntScalar(ctx.input(1), "index"));
        GRAPHRT_RETURN_IF_ERROR(ta->Write(index, ctx.input(2)));
        ctx.set_output(0, ctx.input(3));
        return absl::OkStatus();
      }
      case TaOp::kRead: {
        GRAPHRT_RETURN_IF_ERROR(CheckDTypeAttr(*ta, dtype_));
        if (ctx.input(1).rank() != 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "index must be a scalar, got ", ctx.input(1).DebugString()));
        }
        GRAPHRT_ASSIGN_OR_RETURN(int64_t index,
                                 ops::ReadIntScalar(ctx.input(1), "index"));
        GRAPHRT_ASSIGN_OR_RETURN(Tensor v, ta->Read(index));
        ctx.set_output(0, std::move(v));
        return absl::OkStatus();
      }
      case TaOp::kGather:
        return Gather(ctx, ta);
      case TaOp::kScatter:
        return Scatter(ctx, ta);
      case TaOp::kConcat:
        return Concat(ctx, ta);
      case TaOp::kSplit:
        return Split(ctx, ta);
      case TaOp::kSize: {
        GRAPHRT_ASSIGN_OR_RETURN(int64_t size, ta->Size());
        ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(size)));
        return absl::OkStatus();
      }
      case TaOp::kClose:
        ta->Close();
        return absl::OkStatus();
    }
    return absl::InternalError("unknown TensorArray op");
  }

 private:
  absl::Status Gather(KernelContext& ctx, TensorArray* ta) const {
    GRAPHRT_RETURN_IF_ERROR(CheckDTypeAttr(*ta, dtype_));
    GRAPHRT_ASSIGN_OR_RETURN(std::vector<int64_t> idx,
                             ReadIndices(ctx.input(1)));
    GRAPHRT_ASSIGN_OR_RETURN(PartialShape ta_shape, ta->ElementShape());
    GRAPHRT_ASSIGN_OR_RETURN(PartialShape elem,
                             dynamic::MergeShapes(shape_, ta_shape));
    if (idx.empty()) {
      if (!dynamic::IsFullyDefined(elem)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray gather of zero elements needs a fully defined "
            "element shape, got ",
            elem.ToString()));
      }
      GRAPHRT_ASSIGN_OR_RETURN(
          Tensor out, Stack(ta->dtype(), {}, dynamic::ToShape(elem)));
      ctx.set_output(0, std::move(out));
      return absl::OkStatus();
    }
    GRAPHRT_ASSIGN_OR_RETURN(std::vector<Tensor> parts, ta->ReadMany(idx));
    if (!elem.IsCompatible(parts[0].shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray element shape ", parts[0].shape().ToString(),
          " is incompatible with element_shape ", elem.ToString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor out,
                             Stack(ta->dtype(), parts, parts[0].shape()));
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }

  absl::Status Scatter(KernelContext& ctx, TensorArray* ta) const {
    GRAPHRT_ASSIGN_OR_RETURN(std::vector<int64_t> idx,
                             ReadIndices(ctx.input(1)));
    const Tensor& value = ctx.input(2);
    if (value.dtype() != ta->dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray dtype is ", DTypeName(ta->dtype()),
          " but op is trying to write dtype ", DTypeName(value.dtype())));
    }
    if (value.rank() < 1 ||
        value.dim(0) != static_cast<int64_t>(idx.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected len(indices) == value.shape[0], but saw: ", idx.size(),
          " vs. ", value.DebugString()));
    }
    std::vector<Tensor> rows;
    rows.reserve(idx.size());
    for (size_t i = 0; i < idx.size(); ++i) {
      GRAPHRT_ASSIGN_OR_RETURN(Tensor row,
                               dynamic::SliceRow(value, static_cast<int64_t>(i)));
      rows.push_back(std::move(row));
    }
    GRAPHRT_RETURN_IF_ERROR(ta->WriteMany(idx, rows));
    ctx.set_output(0, ctx.input(3));
    return absl::OkStatus();
  }

  absl::Status Concat(KernelContext& ctx, TensorArray* ta) const {
    GRAPHRT_RETURN_IF_ERROR(CheckDTypeAttr(*ta, dtype_));
    GRAPHRT_ASSIGN_OR_RETURN(int64_t size, ta->Size());
    std::vector<int64_t> all(static_cast<size_t>(size));
    for (int64_t i = 0; i < size; ++i) all[i] = i;
    GRAPHRT_ASSIGN_OR_RETURN(std::vector<Tensor> parts, ta->ReadMany(all));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * lengths,
        ctx.allocate_output(1, DType::kInt64, Shape({size})));
    Shape rest;
    if (parts.empty()) {
      if (!dynamic::IsFullyDefined(shape_)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray has size zero, but element_shape_except0 ",
            shape_.ToString(), " is not fully defined"));
      }
      rest = dynamic::ToShape(shape_);
    } else {
      for (size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].rank() < 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "concat saw a scalar shape at index ", i,
              " but requires at least vectors"));
        }
      }
      rest = dynamic::ShapeExcept0(parts[0].shape());
    }
    int64_t total = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (dynamic::ShapeExcept0(parts[i].shape()) != rest) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray has inconsistent shapes. Index 0 has (excepting "
            "dimension 0) shape: ",
            rest.ToString(), " but index ", i,
            " has (excepting dimension 0) shape: ",
            dynamic::ShapeExcept0(parts[i].shape()).ToString()));
      }
      lengths->mutable_data<int64_t>()[i] = parts[i].dim(0);
      total += parts[i].dim(0);
    }
    Shape out_shape = rest;
    out_shape.InsertDim(0, total);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, ta->dtype(), out_shape));
    int64_t pos = 0;
    for (const Tensor& p : parts) {
      ops::CopyElements(p.dtype(), p.raw_data(), 0, out->raw_data(), pos,
                        p.num_elements());
      pos += p.num_elements();
    }
    return absl::OkStatus();
  }

  absl::Status Split(KernelContext& ctx, TensorArray* ta) const {
    const Tensor& value = ctx.input(1);
    const Tensor& lengths_t = ctx.input(2);
    if (value.dtype() != ta->dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray dtype is ", DTypeName(ta->dtype()),
          " but op is trying to write dtype ", DTypeName(value.dtype())));
    }
    if (value.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected value to be at least a vector, got ", value.DebugString()));
    }
    GRAPHRT_RETURN_IF_ERROR(dynamic::CheckIntVector(lengths_t, "lengths"));
    const int64_t n = lengths_t.num_elements();
    int64_t sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t l = IntAt(lengths_t, i);
      if (l < 0 || l > value.dim(0) - sum) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected sum of lengths to be equal to values.shape[0], but "
            "lengths are invalid at ",
            i, " for value ", value.DebugString()));
      }
      sum += l;
    }
    if (sum != value.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected sum of lengths to be equal to values.shape[0], but sum "
          "of lengths is ",
          sum, " and value's shape is: ", value.shape().ToString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(int64_t size, ta->Size());
    if (!ta->dynamic_size() && size != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray's size is not equal to the size of lengths (", size,
          " vs. ", n, "), and the TensorArray is not marked as dynamically "
          "resizeable"));
    }
    std::vector<int64_t> idx(static_cast<size_t>(n));
    std::vector<Tensor> parts;
    parts.reserve(static_cast<size_t>(n));
    int64_t begin = 0;
    for (int64_t i = 0; i < n; ++i) {
      idx[i] = i;
      const int64_t l = IntAt(lengths_t, i);
      GRAPHRT_ASSIGN_OR_RETURN(Tensor part,
                               dynamic::SliceRows(value, begin, l));
      parts.push_back(std::move(part));
      begin += l;
    }
    GRAPHRT_RETURN_IF_ERROR(ta->WriteMany(idx, parts));
    ctx.set_output(0, ctx.input(3));
    return absl::OkStatus();
  }

  TaOp op_;
  DType dtype_;
  PartialShape shape_;
};

template <TaOp kOp>
absl::StatusOr<std::unique_ptr<Kernel>> CreateArrayOp(const KernelInit& init) {
  AttrReader attrs(init.node);
  DType dtype = DType::kInvalid;
  if (attrs.Has("dtype")) {
    GRAPHRT_ASSIGN_OR_RETURN(dtype, attrs.RequireType("dtype"));
  }
  PartialShape shape;
  const char* shape_attr =
      kOp == TaOp::kConcat ? "element_shape_except0" : "element_shape";
  if ((kOp == TaOp::kGather || kOp == TaOp::kConcat) &&
      attrs.Has(shape_attr)) {
    GRAPHRT_ASSIGN_OR_RETURN(shape, attrs.GetShape(shape_attr));
  }
  if (init.num_inputs != NumInputs(kOp)) {
    return absl::InvalidArgumentError(absl::StrCat(
        init.node.op(), " '", init.node.name(), "' needs ", NumInputs(kOp),
        " inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new ArrayOpKernel(kOp, dtype, shape));
}

}  // namespace

void RegisterTensorArray(OpRegistry& r) {
  r.Register("TensorArrayV3", CreateTensorArray);
  r.Register("TensorArrayWriteV3", CreateArrayOp<TaOp::kWrite>);
  r.Register("TensorArrayReadV3", CreateArrayOp<TaOp::kRead>);
  r.Register("TensorArrayGatherV3", CreateArrayOp<TaOp::kGather>);
  r.Register("TensorArrayScatterV3", CreateArrayOp<TaOp::kScatter>);
  r.Register("TensorArrayConcatV3", CreateArrayOp<TaOp::kConcat>);
  r.Register("TensorArraySplitV3", CreateArrayOp<TaOp::kSplit>);
  r.Register("TensorArraySizeV3", CreateArrayOp<TaOp::kSize>);
  r.Register("TensorArrayCloseV3", CreateArrayOp<TaOp::kClose>);
}

}  // namespace graphrt
