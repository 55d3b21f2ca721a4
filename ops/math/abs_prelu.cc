// _AbsPrelu (graphrt-internal, made by the FuseAbsPrelu graph pass,
// converter/passes/passes.h): one pass over x for the PReLU that some
// converted models spell with five element-wise ops,
//   y = base(x) + (x - |x|) * alpha,   base = Relu (attr relu) or identity,
// i.e. x for x > 0 and 2 * alpha * x below (plus x with relu = false).
// Inputs: x float32 of rank >= 1, alpha float32 whose dims are all 1 except
// possibly the last (a scalar, [C], [1, 1, C], ...), rank <= rank(x). The
// last dims broadcast as in TensorFlow (equal, or one of them 1). Every
// element goes through the same float operations as the unfused graph
// (Eigen's max / abs / sub / mul / add), so the result is bit for bit the
// same.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using Row = Eigen::Array<float, Eigen::Dynamic, 1>;

// out = base(x) + (x - |x|) * alpha over one stretch. Two statements, not
// one expression: with one, GCC may contract the multiply and add into an
// FMA, which rounds once where the unfused graph's Mul and Add round twice.
template <bool kRelu, typename X, typename A>
void Prelu(const X& x, const A& alpha, Eigen::Map<Row> out) {
  out = (x - x.abs()) * alpha;
  if constexpr (kRelu) {
    out = x.cwiseMax(0.f) + out;
  } else {
    out = x + out;
  }
}

template <bool kRelu>
void RunRows(const float* x, const float* alpha, float* out, int64_t rows,
             int64_t x_cols, int64_t alpha_cols, int64_t cols) {
  const int64_t min_rows =
      cols >= ops::kParallelMinElements ? 1 : ops::kParallelMinElements / cols;
  ops::ParallelFor(rows, min_rows, [=](int64_t begin, int64_t end) {
    if (alpha_cols == 1 && x_cols == cols) {
      // A scalar slope: the rows are contiguous; L1-sized stretches.
      constexpr int64_t kStretch = 4096;
      for (int64_t i = begin * cols; i < end * cols; i += kStretch) {
        const int64_t n = std::min(kStretch, end * cols - i);
        Prelu<kRelu>(Eigen::Map<const Row>(x + i, n), alpha[0],
                     Eigen::Map<Row>(out + i, n));
      }
      return;
    }
    Eigen::Map<const Row> a(alpha, cols);  // alpha_cols == cols here
    for (int64_t r = begin; r < end; ++r) {
      Eigen::Map<Row> o(out + r * cols, cols);
      if (x_cols == cols) {
        Prelu<kRelu>(Eigen::Map<const Row>(x + r * cols, cols), a, o);
      } else {  // x's last dim is 1
        Prelu<kRelu>(Row::Constant(cols, x[r]), a, o);
      }
    }
  });
}

class AbsPreluKernel : public Kernel {
 public:
  explicit AbsPreluKernel(bool relu) : relu_(relu) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    const Tensor& alpha = ctx.input(1);
    if (x.dtype() != DType::kFloat32 || alpha.dtype() != DType::kFloat32) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected float32 x and alpha, got ", x.DebugString(),
                       " and ", alpha.DebugString()));
    }
    if (x.rank() < 1 || alpha.rank() > x.rank() ||
        alpha.num_elements() !=
            (alpha.rank() == 0 ? 1 : alpha.dim(alpha.rank() - 1))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "alpha must be a scalar or have dims 1 but its last, of rank <= "
          "x's: ",
          "x ", x.shape().ToString(), ", alpha ", alpha.shape().ToString()));
    }
    const int64_t x_cols = x.dim(x.rank() - 1);
    const int64_t alpha_cols = alpha.num_elements();
    if (x_cols != alpha_cols && x_cols != 1 && alpha_cols != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("incompatible shapes: x ", x.shape().ToString(),
                       ", alpha ", alpha.shape().ToString()));
    }
    const int64_t cols = x_cols == 1 ? alpha_cols : x_cols;
    ops::DimVector dims(x.shape().dims().begin(), x.shape().dims().end());
    dims.back() = cols;
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make(dims));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, DType::kFloat32, shape));
    const int64_t rows = x_cols == 0 ? 0 : x.num_elements() / x_cols;
    if (rows == 0 || cols == 0) return absl::OkStatus();
    (relu_ ? RunRows<true> : RunRows<false>)(x.data<float>(),
                                             alpha.data<float>(),
                                             out->mutable_data<float>(), rows,
                                             x_cols, alpha_cols, cols);
    return absl::OkStatus();
  }

 private:
  bool relu_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateAbsPrelu(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kFloat32));
  if (t != DType::kFloat32) {
    return attrs.Error("T",
                       absl::StrCat("must be float32, got ", DTypeName(t)));
  }
  GRAPHRT_ASSIGN_OR_RETURN(bool relu, attrs.GetBool("relu", false));
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new AbsPreluKernel(relu));
}

}  // namespace

void RegisterAbsPrelu(OpRegistry& r) {
  r.Register("_AbsPrelu", CreateAbsPrelu);
}

}  // namespace graphrt
