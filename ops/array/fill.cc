// Creation ops: Fill (dims, value), ZerosLike, OnesLike, LinSpace
// (start, stop, num), Range (start, limit, delta) and OneHot (indices,
// depth, on_value, off_value; axis).
//
// * ZerosLike takes any dtype but variant ("" for strings, false for
//   bool); OnesLike numeric and bool.
// * Range follows TF's size rule: integers (|limit - start| + |delta| - 1)
//   / |delta| (computed without overflow), floats ceil(|(limit - start) /
//   delta|); value i is start + i * delta for integers and the running sum
//   start + delta + ... for floats, as TF's CPU kernel does.
// * LinSpace: value i = start + i * (stop - start) / (num - 1), the last
//   one exactly stop.
// * OneHot: indices outside [0, depth) give an all-off row.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Fills n elements of storage type S at dst with `v`, in parallel.
template <typename S>
void FillWith(S* dst, int64_t n, const S& v) {
  ops::ParallelFor(n, ops::kParallelMinElements, [&](int64_t b, int64_t e) {
    std::fill(dst + b, dst + e, v);
  });
}

// Reads a shape vector (int32/int64, non-negative dims) into a Shape.
absl::StatusOr<Shape> ReadShape(const Tensor& t, absl::string_view what) {
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be a vector, got ", t.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector dims, ops::ReadIntVector(t, what));
  auto shape = Shape::Make(dims);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid ", what, " [", absl::StrJoin(dims, ","),
                     "]: ", shape.status().message()));
  }
  return *shape;
}

// Output 0 = `shape` filled with element 0 of `value` (any dtype).
absl::Status FillFrom(KernelContext& ctx, const Shape& shape,
                      const Tensor& value) {
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                           ctx.allocate_output(0, value.dtype(), shape));
  const int64_t n = out->num_elements();
  ops::DispatchStorage(value.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    FillWith(out->mutable_data<S>(), n, *value.data<S>());
  });
  return absl::OkStatus();
}

// ----------------------------------------------------------------- Fill

absl::Status FillRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
  GRAPHRT_ASSIGN_OR_RETURN(Shape shape, ReadShape(ctx.input(0), "dims"));
  const Tensor& value = ctx.input(1);
  if (value.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected value to be a scalar, got ", value.DebugString()));
  }
  return FillFrom(ctx, shape, value);
}

// ---------------------------------------------------- ZerosLike, OnesLike

absl::Status ZerosLikeRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  if (x.dtype() == DType::kVariant || x.dtype() == DType::kResource) {
    return absl::InvalidArgumentError(
        absl::StrCat("ZerosLike: unsupported dtype ", DTypeName(x.dtype())));
  }
  // Fresh buffers are zero-filled / default-constructed.
  return ctx.allocate_output(0, x.dtype(), x.shape()).status();
}

absl::Status OnesLikeRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                           ctx.allocate_output(0, x.dtype(), x.shape()));
  const int64_t n = out->num_elements();
  return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                            int16_t, uint16_t, uint32_t, uint64_t, bool,
                            float16, bfloat16, complex64, complex128>(
      x.dtype(), "OnesLike", [&](auto tag) {
        using T = typename decltype(tag)::type;
        FillWith(out->mutable_data<T>(), n, T(1));
        return absl::OkStatus();
      });
}

// ------------------------------------------------------------- LinSpace

absl::Status LinSpaceRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  const Tensor& start = ctx.input(0);
  const Tensor& stop = ctx.input(1);
  if (start.rank() != 0 || stop.rank() != 0 || start.dtype() != stop.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected start and stop to be scalars of one dtype, got ",
                     start.DebugString(), " and ", stop.DebugString()));
  }
  if (ctx.input(2).rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected num to be a scalar, got ", ctx.input(2).DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(int64_t num,
                           ops::ReadIntScalar(ctx.input(2), "num"));
  if (num <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("requires num > 0, got ", num));
  }
  return ops::DispatchDType<float, double>(
      start.dtype(), "LinSpace", [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        GRAPHRT_ASSIGN_OR_RETURN(
            Tensor * out, ctx.allocate_output(0, start.dtype(), Shape({num})));
        T* o = out->mutable_data<T>();
        const T a = *start.data<T>();
        const T b = *stop.data<T>();
        if (num == 1) {
          o[0] = a;
          return absl::OkStatus();
        }
        const T step = (b - a) / static_cast<T>(num - 1);
        for (int64_t i = 0; i < num - 1; ++i)
          o[i] = a + step * static_cast<T>(i);
        o[num - 1] = b;
        return absl::OkStatus();
      });
}

// ---------------------------------------------------------------- Range

template <typename T>
absl::Status RangeTyped(KernelContext& ctx, const Tensor& ts, const Tensor& tl,
                        const Tensor& td) {
  const T start = *ts.data<T>();
  const T limit = *tl.data<T>();
  const T delta = *td.data<T>();
  if (delta == T(0)) {
    return absl::InvalidArgumentError("requires delta != 0");
  }
  if (delta > T(0) ? start > limit : start < limit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "requires start ", delta > T(0) ? "<=" : ">=", " limit when delta ",
        delta > T(0) ? "> 0" : "< 0", ": start ", start, ", limit ", limit,
        ", delta ", delta));
  }
  int64_t size;
  if constexpr (std::is_integral_v<T>) {
    // |limit - start| and |delta| as unsigned: exact for int32 and int64.
    const uint64_t span =
        delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                  : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    const uint64_t step = delta > 0 ? static_cast<uint64_t>(delta)
                                    : 0 - static_cast<uint64_t>(delta);
    const uint64_t count = span / step + (span % step != 0 ? 1 : 0);
    if (count > static_cast<uint64_t>(INT64_MAX)) {
      return absl::InvalidArgumentError("range size overflows int64");
    }
    size = static_cast<int64_t>(count);
  } else {
    const double s = std::ceil(
        std::abs((static_cast<double>(limit) - static_cast<double>(start)) /
                 static_cast<double>(delta)));
    if (!(s >= 0 && s < 9.0e18)) {
      return absl::InvalidArgumentError(absl::StrCat("invalid range: start ",
                                                     start, ", limit ", limit,
                                                     ", delta ", delta));
    }
    size = static_cast<int64_t>(s);
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out, ctx.allocate_output(0, DTypeOf<T>::value, Shape({size})));
  T* o = out->mutable_data<T>();
  if constexpr (std::is_integral_v<T>) {
    // Every value lies in [start, limit), so the wrapped unsigned sum is
    // the exact value.
    for (int64_t i = 0; i < size; ++i) {
      o[i] = static_cast<T>(static_cast<uint64_t>(start) +
                            static_cast<uint64_t>(i) *
                                static_cast<uint64_t>(delta));
    }
  } else {
    T v = start;
    for (int64_t i = 0; i < size; ++i) {
      o[i] = v;
      v += delta;
    }
  }
  return absl::OkStatus();
}

absl::Status RangeRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  const Tensor& ts = ctx.input(0);
  const Tensor& tl = ctx.input(1);
  const Tensor& td = ctx.input(2);
  for (const Tensor* t : {&ts, &tl, &td}) {
    if (t->num_elements() != 1 || t->rank() > 1 || t->dtype() != ts.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected start, limit and delta to be scalars of one dtype, got ",
          ts.DebugString(), ", ", tl.DebugString(), " and ", td.DebugString()));
    }
  }
  return ops::DispatchDType<float, double, int32_t, int64_t>(
      ts.dtype(), "Range", [&](auto tag) {
        using T = typename decltype(tag)::type;
        return RangeTyped<T>(ctx, ts, tl, td);
      });
}

// --------------------------------------------------------------- OneHot

class OneHotKernel : public Kernel {
 public:
  explicit OneHotKernel(int64_t axis) : axis_(axis) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 4));
    const Tensor& indices = ctx.input(0);
    const Tensor& on = ctx.input(2);
    const Tensor& off = ctx.input(3);
    if (!ops::IsOneOf<uint8_t, int32_t, int64_t>(indices.dtype())) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected indices of dtype uint8, int32 or int64, got ",
                       indices.DebugString()));
    }
    if (ctx.input(1).rank() != 0 || ctx.input(1).dtype() != DType::kInt32) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected depth to be an int32 scalar, got ",
                       ctx.input(1).DebugString()));
    }
    const int64_t depth = *ctx.input(1).data<int32_t>();
    if (depth < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("depth must be non-negative, got ", depth));
    }
    if (on.rank() != 0 || off.rank() != 0 || on.dtype() != off.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected on_value and off_value to be scalars of one dtype, got ",
          on.DebugString(), " and ", off.DebugString()));
    }
    const int rank = indices.rank();
    if (axis_ < -1 || axis_ > rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected axis to be -1 or in [0, ", rank, "], got ", axis_));
    }
    const int axis = axis_ == -1 ? rank : static_cast<int>(axis_);
    Shape out_shape = indices.shape();
    out_shape.InsertDim(axis, depth);
    GRAPHRT_ASSIGN_OR_RETURN(Shape checked, Shape::Make(out_shape.dims()));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, on.dtype(), checked));
    if (out->num_elements() == 0) return absl::OkStatus();
    const int64_t outer = ops::DimProduct(indices.shape(), 0, axis);
    const int64_t inner = ops::DimProduct(indices.shape(), axis, rank);
    auto index_at = [&](int64_t i) -> int64_t {
      switch (indices.dtype()) {
        case DType::kUInt8:
          return indices.data<uint8_t>()[i];
        case DType::kInt32:
          return indices.data<int32_t>()[i];
        default:
          return indices.data<int64_t>()[i];
      }
    };
    ops::DispatchStorage(on.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      const S on_v = *on.data<S>();
      const S off_v = *off.data<S>();
      S* o = out->mutable_data<S>();
      const int64_t rows = outer * depth;
      const int64_t min_rows =
          std::max<int64_t>(1, ops::kParallelMinElements / inner);
      ops::ParallelFor(rows, min_rows, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const int64_t p = r / depth;
          const int64_t d = r % depth;
          for (int64_t i = 0; i < inner; ++i) {
            o[r * inner + i] = index_at(p * inner + i) == d ? on_v : off_v;
          }
        }
      });
    });
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

// TF.js's op-list names Ones(shape) / Zeros(shape) with dtype attr T (not
// TensorFlow ops): a tensor of that shape filled with 1 / 0.
class ConstantFillKernel : public Kernel {
 public:
  ConstantFillKernel(DType dtype, bool ones) : dtype_(dtype), ones_(ones) {}
  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, ReadShape(ctx.input(0), "shape"));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor one, CastScalar(ones_ ? 1.0 : 0.0, dtype_));
    return FillFrom(ctx, shape, one);
  }

 private:
  static absl::StatusOr<Tensor> CastScalar(double v, DType dtype) {
    GRAPHRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, Shape()));
    switch (dtype) {
      case DType::kFloat32:
        *t.mutable_data<float>() = static_cast<float>(v);
        break;
      case DType::kFloat64:
        *t.mutable_data<double>() = v;
        break;
      case DType::kInt32:
        *t.mutable_data<int32_t>() = static_cast<int32_t>(v);
        break;
      case DType::kInt64:
        *t.mutable_data<int64_t>() = static_cast<int64_t>(v);
        break;
      case DType::kBool:
        *t.mutable_data<bool>() = v != 0;
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("Ones/Zeros do not support ", DTypeName(dtype)));
    }
    return t;
  }
  DType dtype_;
  bool ones_;
};

template <bool kOnes>
absl::StatusOr<std::unique_ptr<Kernel>> CreateConstantFill(
    const KernelInit& init) {
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError("needs exactly 1 input (shape)");
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType dtype,
                           AttrReader(init.node).GetType("T", DType::kFloat32));
  return std::make_unique<ConstantFillKernel>(dtype, kOnes);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateOneHot(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t axis, attrs.GetInt("axis", -1));
  if (axis < -1) {
    return attrs.Error("axis", absl::StrCat("must be >= -1, got ", axis));
  }
  return std::unique_ptr<Kernel>(new OneHotKernel(axis));
}

template <KernelFn fn>
absl::StatusOr<std::unique_ptr<Kernel>> Create(const KernelInit&) {
  return MakeFunctionKernel(fn);
}

}  // namespace

void RegisterFill(OpRegistry& r) {
  r.Register("Fill", Create<FillRun>);
  r.Register("ZerosLike", Create<ZerosLikeRun>);
  r.Register("OnesLike", Create<OnesLikeRun>);
  r.Register("LinSpace", Create<LinSpaceRun>);
  r.Register("Range", Create<RangeRun>);
  r.Register("OneHot", CreateOneHot);
  r.Register("Ones", CreateConstantFill<true>);
  r.Register("Zeros", CreateConstantFill<false>);
}

}  // namespace graphrt
