// Shape-only and pass-through ops: ExpandDims, Squeeze, EnsureShape, Rank,
// Size, ShapeN, Snapshot, Print. Reshaping ops share the input buffer
// (kernels never mutate inputs, so sharing is safe).
//
// Print passes input 0 through and logs `message` plus up to `summarize`
// values of each data input to stderr, the first `first_n` times (all
// times if first_n < 0), like TF's CPU kernel.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

absl::StatusOr<DType> ReadIndexType(const AttrReader& attrs,
                                    const std::string& name) {
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType(name, DType::kInt32));
  if (t != DType::kInt32 && t != DType::kInt64) {
    return attrs.Error(name, absl::StrCat("must be int32 or int64, got ",
                                          DTypeName(t)));
  }
  return t;
}

// Writes `v` to element i of an int32/int64 output, failing if it does not
// fit in int32.
absl::Status PutIndex(Tensor* t, int64_t i, int64_t v, absl::string_view what) {
  if (t->dtype() == DType::kInt32) {
    if (v > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " ", v, " does not fit in int32; use out_type int64"));
    }
    t->mutable_data<int32_t>()[i] = static_cast<int32_t>(v);
  } else {
    t->mutable_data<int64_t>()[i] = v;
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------- ExpandDims

absl::Status ExpandDimsRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t axis_value,
                           ops::ReadIntScalar(ctx.input(1), "axis"));
  GRAPHRT_ASSIGN_OR_RETURN(
      const int axis, ops::NormalizeAxis(axis_value, x.rank() + 1, "axis"));
  Shape shape = x.shape();
  shape.InsertDim(axis, 1);
  GRAPHRT_ASSIGN_OR_RETURN(Tensor out, x.Reshaped(shape));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// ------------------------------------------------------------- Squeeze

class SqueezeKernel : public Kernel {
 public:
  explicit SqueezeKernel(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    std::vector<bool> drop(x.rank(), false);
    if (dims_.empty()) {
      for (int i = 0; i < x.rank(); ++i) drop[i] = x.dim(i) == 1;
    } else {
      for (int64_t d : dims_) {
        GRAPHRT_ASSIGN_OR_RETURN(const int axis,
                                 ops::NormalizeAxis(d, x.rank(), "squeeze_dims"));
        if (x.dim(axis) != 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "can not squeeze dim[", axis, "], expected a dimension of 1, got ",
              x.dim(axis), " (input ", x.DebugString(), ")"));
        }
        drop[axis] = true;
      }
    }
    Shape shape;
    for (int i = 0; i < x.rank(); ++i) {
      if (!drop[i]) shape.AddDim(x.dim(i));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor out, x.Reshaped(shape));
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> dims_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateSqueeze(const KernelInit& init) {
  AttrReader attrs(init.node);
  const std::string name = attrs.Has("squeeze_dims") ? "squeeze_dims" : "axis";
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                           attrs.GetIntList(name, {}));
  return std::unique_ptr<Kernel>(new SqueezeKernel(std::move(dims)));
}

// --------------------------------------------------------- EnsureShape

class EnsureShapeKernel : public Kernel {
 public:
  explicit EnsureShapeKernel(PartialShape shape) : shape_(std::move(shape)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    if (!shape_.unknown_rank() && !shape_.IsCompatible(x.shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape of tensor ", x.DebugString(),
                       " is not compatible with expected shape ",
                       shape_.ToString()));
    }
    ctx.set_output(0, x);
    return absl::OkStatus();
  }

 private:
  PartialShape shape_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateEnsureShape(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  if (!attrs.Has("shape")) return attrs.Error("shape", "is required");
  GRAPHRT_ASSIGN_OR_RETURN(PartialShape shape, attrs.GetShape("shape"));
  return std::unique_ptr<Kernel>(new EnsureShapeKernel(std::move(shape)));
}

// ------------------------------------------------ Rank, Size, ShapeN

absl::Status RankRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                           ctx.allocate_output(0, DType::kInt32, Shape()));
  *out->mutable_data<int32_t>() = ctx.input(0).rank();
  return absl::OkStatus();
}

class SizeKernel : public Kernel {
 public:
  explicit SizeKernel(DType out_type) : out_type_(out_type) {}
  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, out_type_, Shape()));
    return PutIndex(out, 0, ctx.input(0).num_elements(), "size");
  }

 private:
  DType out_type_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateSize(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, ReadIndexType(attrs, "out_type"));
  return std::unique_ptr<Kernel>(new SizeKernel(t));
}

class ShapeNKernel : public Kernel {
 public:
  ShapeNKernel(int n, DType out_type) : n_(n), out_type_(out_type) {}
  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, n_));
    for (int i = 0; i < n_; ++i) {
      const Shape& s = ctx.input(i).shape();
      GRAPHRT_ASSIGN_OR_RETURN(
          Tensor * out, ctx.allocate_output(i, out_type_, Shape({s.rank()})));
      for (int d = 0; d < s.rank(); ++d) {
        GRAPHRT_RETURN_IF_ERROR(PutIndex(out, d, s.dim(d), "dimension"));
      }
    }
    return absl::OkStatus();
  }

 private:
  int n_;
  DType out_type_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateShapeN(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, ReadIndexType(attrs, "out_type"));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t n, attrs.GetInt("N", init.num_inputs));
  if (n < 1 || n != init.num_inputs) {
    return attrs.Error("N", absl::StrCat("must be >= 1 and equal the number "
                                         "of inputs (",
                                         init.num_inputs, "), got ", n));
  }
  return std::unique_ptr<Kernel>(new ShapeNKernel(static_cast<int>(n), t));
}

// ----------------------------------------------------- Snapshot, Print

absl::Status SnapshotRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

// Up to `n` values of `t` as text ("[1 2 3...]").
std::string Summarize(const Tensor& t, int64_t n) {
  std::ostringstream os;
  os << "[";
  const int64_t count = std::min<int64_t>(n, t.num_elements());
  for (int64_t i = 0; i < count; ++i) {
    if (i > 0) os << " ";
    absl::Status s = ops::DispatchDType<float, double, int32_t, int64_t,
                                        uint8_t, int8_t, int16_t, uint16_t,
                                        uint32_t, uint64_t, bool, std::string>(
        t.dtype(), "Print", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_same_v<T, int8_t> ||
                        std::is_same_v<T, uint8_t>) {
            os << static_cast<int>(t.data<T>()[i]);
          } else {
            os << t.data<T>()[i];
          }
          return absl::OkStatus();
        });
    if (!s.ok()) {
      os << "<" << DTypeName(t.dtype()) << ">";
      break;
    }
  }
  if (count < t.num_elements()) os << "...";
  os << "]";
  return os.str();
}

class PrintKernel : public Kernel {
 public:
  PrintKernel(std::string message, int64_t first_n, int64_t summarize)
      : message_(std::move(message)), first_n_(first_n), summarize_(summarize) {}

  absl::Status Run(KernelContext& ctx) const override {
    if (ctx.num_inputs() < 1) {
      return absl::InvalidArgumentError("Print needs at least 1 input");
    }
    if (first_n_ < 0 || count_.fetch_add(1) < first_n_) {
      std::string line = message_;
      for (int i = 1; i < ctx.num_inputs(); ++i) {
        absl::StrAppend(&line, Summarize(ctx.input(i), summarize_));
      }
      std::cerr << line << std::endl;
    }
    ctx.set_output(0, ctx.input(0));
    return absl::OkStatus();
  }

 private:
  std::string message_;
  int64_t first_n_;
  int64_t summarize_;
  mutable std::atomic<int64_t> count_{0};
};

absl::StatusOr<std::unique_ptr<Kernel>> CreatePrint(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::string message, attrs.GetString("message", ""));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t first_n, attrs.GetInt("first_n", -1));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t summarize, attrs.GetInt("summarize", 3));
  return std::unique_ptr<Kernel>(
      new PrintKernel(std::move(message), first_n, summarize));
}

template <KernelFn fn>
absl::StatusOr<std::unique_ptr<Kernel>> Create(const KernelInit&) {
  return MakeFunctionKernel(fn);
}

}  // namespace

void RegisterShapeOps(OpRegistry& r) {
  r.Register("ExpandDims", Create<ExpandDimsRun>);
  r.Register("Squeeze", CreateSqueeze);
  r.Register("EnsureShape", CreateEnsureShape);
  r.Register("Rank", Create<RankRun>);
  r.Register("Size", CreateSize);
  r.Register("ShapeN", CreateShapeN);
  r.Register("Snapshot", Create<SnapshotRun>);
  r.Register("Print", CreatePrint);
}

}  // namespace graphrt
