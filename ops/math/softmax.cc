// Softmax and LogSoftmax over the last axis (float32, float64),
// numerically stable per row:
//   Softmax    exp(x - max(x)) / sum(exp(x - max(x)))
//   LogSoftmax (x - max(x)) - log(sum(exp(x - max(x))))
// Inputs need rank >= 1.
#include <cmath>
#include <cstdint>
#include <memory>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

template <typename T>
void SoftmaxRows(const T* in, T* out, int64_t rows, int64_t depth, bool log) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const int64_t min_rows = depth >= ops::kParallelMinElements / 4
                               ? 2
                               : ops::kParallelMinElements / 4 / depth;
  ops::ParallelFor(rows, min_rows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      Eigen::Map<const Array> x(in + r * depth, depth);
      Eigen::Map<Array> y(out + r * depth, depth);
      const T max = x.maxCoeff();
      if (log) {
        y = x - max;
        const T lse = std::log(y.exp().sum());
        y -= lse;
      } else {
        y = (x - max).exp();
        y *= T(1) / y.sum();
      }
    }
  });
}

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(DType t, bool log) : t_(t), log_(log) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    if (t_ != DType::kInvalid && x.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected logits of dtype ", DTypeName(t_),
                       " (attr T), got ", x.DebugString()));
    }
    if (x.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logits must have at least 1 dimension, got ", x.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t depth = x.dim(x.rank() - 1);
    if (x.num_elements() == 0) return absl::OkStatus();
    const int64_t rows = x.num_elements() / depth;
    return ops::DispatchDType<float, double>(
        x.dtype(), log_ ? "LogSoftmax" : "Softmax", [&](auto tag) {
          using T = typename decltype(tag)::type;
          SoftmaxRows<T>(x.data<T>(), out->mutable_data<T>(), rows, depth,
                         log_);
          return absl::OkStatus();
        });
  }

 private:
  DType t_;
  bool log_;
};

template <bool kLog>
absl::StatusOr<std::unique_ptr<Kernel>> CreateSoftmax(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && t != DType::kFloat32 && t != DType::kFloat64) {
    return attrs.Error(
        "T", absl::StrCat("must be float32 or float64, got ", DTypeName(t)));
  }
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 1 input, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new SoftmaxKernel(t, kLog));
}

}  // namespace

void RegisterSoftmax(OpRegistry& r) {
  r.Register("Softmax", CreateSoftmax<false>);
  r.Register("LogSoftmax", CreateSoftmax<true>);
}

}  // namespace graphrt
