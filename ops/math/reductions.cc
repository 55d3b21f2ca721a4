// Axis reductions (input 1 = reduction_indices, attr keep_dims; axis
// handling in ops/math/reduce_util.h):
//   Sum, Prod      numeric and complex dtypes; over nothing: 0 / 1.
//                  float32 accumulates in double; ints wrap (as TF).
//   Max, Min       real numeric; NaN propagates; over nothing: -inf / +inf
//                  for floats, lowest / max for ints (TF's identities).
//   All, Any       bool; over nothing: true / false.
//   Mean           numeric; floats average in double (NaN over nothing);
//                  ints sum in 64 bits (wrapping) and divide with
//                  truncation (0 over nothing), as TF.
//   EuclideanNorm  sqrt(sum(x^2)); float32/float64 (double accumulator),
//                  int32/int64 (sqrt truncated), complex (sqrt(sum |x|^2)).
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/cwise_fns.h"
#include "ops/math/math_ops.h"
#include "ops/math/reduce_util.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using ops::kIsComplex;
using ops::kIsInt;

enum class Red { kSum, kProd, kMax, kMin, kAll, kAny, kMean, kEuclideanNorm };

// Accumulator for Sum / Prod / Mean / EuclideanNorm.
template <typename T>
using WideAcc =
    std::conditional_t<std::is_same_v<T, float>, double,
                       std::conditional_t<kIsInt<T>, ops::Wrap<T>, T>>;

template <typename T>
struct SumR {
  using Acc = WideAcc<T>;
  Acc Init() const { return Acc(0); }
  void Add(Acc& a, T v) const { a += static_cast<Acc>(v); }
  T Finish(const Acc& a, int64_t) const { return static_cast<T>(a); }
};

template <typename T>
struct ProdR {
  using Acc = WideAcc<T>;
  Acc Init() const { return Acc(1); }
  void Add(Acc& a, T v) const { a = static_cast<Acc>(a * static_cast<Acc>(v)); }
  T Finish(const Acc& a, int64_t) const { return static_cast<T>(a); }
};

template <typename T>
struct MaxR {
  using Acc = T;
  Acc Init() const {
    if constexpr (std::is_floating_point_v<T>) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  void Add(Acc& a, T v) const { a = ops::NanMax(a, v); }
  T Finish(const Acc& a, int64_t) const { return a; }
};

template <typename T>
struct MinR {
  using Acc = T;
  Acc Init() const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  void Add(Acc& a, T v) const { a = ops::NanMin(a, v); }
  T Finish(const Acc& a, int64_t) const { return a; }
};

struct AllR {
  using Acc = bool;
  bool Init() const { return true; }
  void Add(bool& a, bool v) const { a = a && v; }
  bool Finish(bool a, int64_t) const { return a; }
};

struct AnyR {
  using Acc = bool;
  bool Init() const { return false; }
  void Add(bool& a, bool v) const { a = a || v; }
  bool Finish(bool a, int64_t) const { return a; }
};

// Mean: as TF, integer sums are 64-bit (wrapping) and divided with
// truncation; floats divide in the accumulator type.
template <typename T>
struct MeanR {
  using Acc = std::conditional_t<
      kIsInt<T>, uint64_t,
      std::conditional_t<std::is_same_v<T, float>, double, T>>;
  Acc Init() const { return Acc(0); }
  void Add(Acc& a, T v) const {
    if constexpr (kIsInt<T>) {
      a += static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      a += static_cast<Acc>(v);
    }
  }
  T Finish(const Acc& a, int64_t count) const {
    if constexpr (kIsInt<T> && std::is_signed_v<T>) {
      return count == 0 ? T(0)
                        : static_cast<T>(static_cast<int64_t>(a) / count);
    } else if constexpr (kIsInt<T>) {
      return count == 0 ? T(0)
                        : static_cast<T>(a / static_cast<uint64_t>(count));
    } else {
      using R = decltype(std::abs(a));
      return static_cast<T>(a / static_cast<R>(count));
    }
  }
};

template <typename T>
struct NormR {
  using Acc = std::conditional_t<kIsComplex<T>, T, double>;
  Acc Init() const { return Acc(0); }
  void Add(Acc& a, T v) const {
    if constexpr (kIsComplex<T>) {
      a += T(std::norm(v));
    } else {
      const double d = static_cast<double>(v);
      a += d * d;
    }
  }
  T Finish(const Acc& a, int64_t) const {
    if constexpr (kIsComplex<T>) {
      return T(std::sqrt(a.real()));
    } else {
      return static_cast<T>(std::sqrt(a));
    }
  }
};

const char* RedName(Red op) {
  switch (op) {
    case Red::kSum:
      return "Sum";
    case Red::kProd:
      return "Prod";
    case Red::kMax:
      return "Max";
    case Red::kMin:
      return "Min";
    case Red::kAll:
      return "All";
    case Red::kAny:
      return "Any";
    case Red::kMean:
      return "Mean";
    case Red::kEuclideanNorm:
      return "EuclideanNorm";
  }
  return "?";
}

bool Supports(Red op, DType d) {
  const bool real =
      ops::IsOneOf<float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                   uint16_t, uint32_t, uint64_t>(d);
  const bool cplx = d == DType::kComplex64 || d == DType::kComplex128;
  switch (op) {
    case Red::kSum:
    case Red::kProd:
    case Red::kMean:
      return real || cplx;
    case Red::kMax:
    case Red::kMin:
      return real;
    case Red::kAll:
    case Red::kAny:
      return d == DType::kBool;
    case Red::kEuclideanNorm:
      return cplx || ops::IsOneOf<float, double, int32_t, int64_t>(d);
  }
  return false;
}

template <typename T>
void RunTyped(Red op, const T* in, const ops::Reduction& r, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == Red::kAll) ops::Reduce(in, r, AllR(), out);
    if (op == Red::kAny) ops::Reduce(in, r, AnyR(), out);
  } else {
    switch (op) {
      case Red::kSum:
        return ops::Reduce(in, r, SumR<T>(), out);
      case Red::kProd:
        return ops::Reduce(in, r, ProdR<T>(), out);
      case Red::kMean:
        return ops::Reduce(in, r, MeanR<T>(), out);
      default:
        break;
    }
    if constexpr (!kIsComplex<T>) {
      if (op == Red::kMax) return ops::Reduce(in, r, MaxR<T>(), out);
      if (op == Red::kMin) return ops::Reduce(in, r, MinR<T>(), out);
    }
    if constexpr (kIsComplex<T> || std::is_floating_point_v<T> ||
                  std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      if (op == Red::kEuclideanNorm) {
        return ops::Reduce(in, r, NormR<T>(), out);
      }
    }
  }
}

class ReduceKernel : public Kernel {
 public:
  ReduceKernel(Red op, bool keep_dims, DType t)
      : op_(op), keep_dims_(keep_dims), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& in = ctx.input(0);
    if (t_ != DType::kInvalid && in.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", in.DebugString()));
    }
    if (!Supports(op_, in.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          RedName(op_), " does not support dtype ", DTypeName(in.dtype())));
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        ops::Reduction r,
        ops::MakeReduction(in.shape(), ctx.input(1), keep_dims_));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, in.dtype(), r.out_shape));
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t, bool,
                              complex64, complex128>(
        in.dtype(), RedName(op_), [&](auto tag) {
          using T = typename decltype(tag)::type;
          RunTyped<T>(op_, in.data<T>(), r, out->mutable_data<T>());
          return absl::OkStatus();
        });
  }

 private:
  Red op_;
  bool keep_dims_;
  DType t_;
};

template <Red kOp>
absl::StatusOr<std::unique_ptr<Kernel>> CreateReduce(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(bool keep_dims, attrs.GetBool("keep_dims", false));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && !Supports(kOp, t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ", DTypeName(t),
                                         " for ", init.node.op()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType tidx, attrs.GetType("Tidx", DType::kInt32));
  if (tidx != DType::kInt32 && tidx != DType::kInt64) {
    return attrs.Error(
        "Tidx", absl::StrCat("must be int32 or int64, got ", DTypeName(tidx)));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new ReduceKernel(kOp, keep_dims, t));
}

}  // namespace

void RegisterReductions(OpRegistry& r) {
  r.Register("Sum", CreateReduce<Red::kSum>);
  r.Register("Prod", CreateReduce<Red::kProd>);
  r.Register("Max", CreateReduce<Red::kMax>);
  r.Register("Min", CreateReduce<Red::kMin>);
  r.Register("All", CreateReduce<Red::kAll>);
  r.Register("Any", CreateReduce<Red::kAny>);
  r.Register("Mean", CreateReduce<Red::kMean>);
  r.Register("EuclideanNorm", CreateReduce<Red::kEuclideanNorm>);
}

}  // namespace graphrt
