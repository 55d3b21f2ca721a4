// MatMul (attrs transpose_a, transpose_b; float32, float64, int32, int64)
// and grappler's _FusedMatMul (float32, float64): MatMul followed by the
// ops listed in attr fused_ops, with num_args extra inputs:
//   ["BiasAdd"]                      bias [n]           num_args 1
//   ["BiasAdd", Relu|Relu6|Elu|LeakyRelu|Sigmoid|Tanh]  num_args 1
//   ["BiasAdd", "Prelu"]             bias [n], alpha [n] or scalar, num_args 2
// LeakyRelu reads attr leakyrelu_alpha (default 0.2), _HardSwish attr
// hardswish_scale (default 1/6); epsilon is ignored.
// Products run on Eigen's GEMM (single-threaded).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/activation_fns.h"
#include "ops/math/math_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using ops::Activation;

struct MatMulConfig {
  bool transpose_a = false;
  bool transpose_b = false;
  DType t = DType::kInvalid;  // kInvalid: no T attr
  bool fused = false;         // _FusedMatMul: bias (+ activation)
  Activation act = Activation::kNone;
  bool prelu = false;
  float alpha = 0.2f;  // LeakyRelu slope
  int num_args = 0;
};

template <typename T>
void Gemm(const Tensor& a, const Tensor& b, const MatMulConfig& c,
          Tensor* out) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Mat> A(a.data<T>(), a.dim(0), a.dim(1));
  Eigen::Map<const Mat> B(b.data<T>(), b.dim(0), b.dim(1));
  Eigen::Map<Mat> C(out->mutable_data<T>(), out->dim(0), out->dim(1));
  if (!c.transpose_a && !c.transpose_b) {
    C.noalias() = A * B;
  } else if (c.transpose_a && !c.transpose_b) {
    C.noalias() = A.transpose() * B;
  } else if (!c.transpose_a && c.transpose_b) {
    C.noalias() = A * B.transpose();
  } else {
    C.noalias() = A.transpose() * B.transpose();
  }
}

// Adds `bias` to every row of out [m, n], then applies the activation.
template <typename T>
void BiasAndActivation(const MatMulConfig& c, const T* bias,
                       const Tensor* prelu_alpha, Tensor* out) {
  const int64_t m = out->dim(0);
  const int64_t n = out->dim(1);
  T* data = out->mutable_data<T>();
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<const Array> b(bias, n);
  for (int64_t r = 0; r < m; ++r) {
    Eigen::Map<Array> row(data + r * n, n);
    row += b;
    if (c.prelu) {
      const T* alpha = prelu_alpha->data<T>();
      if (prelu_alpha->num_elements() == 1) {
        row = (row < T(0)).select(row * alpha[0], row);
      } else {
        Eigen::Map<const Array> al(alpha, n);
        row = (row < T(0)).select(row * al, row);
      }
    } else {
      ops::ApplyActivation<T>(c.act, c.alpha, row.data(), row.data(), n);
    }
  }
}

class MatMulKernel : public Kernel {
 public:
  explicit MatMulKernel(MatMulConfig config) : c_(config) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2 + c_.num_args));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected inputs of the same dtype, got ",
                       a.DebugString(), " and ", b.DebugString()));
    }
    if (c_.t != DType::kInvalid && a.dtype() != c_.t) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected inputs of dtype ", DTypeName(c_.t),
                       " (attr T), got ", a.DebugString()));
    }
    if (a.rank() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[0] is not a matrix: expected rank 2, got ", a.DebugString()));
    }
    if (b.rank() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[1] is not a matrix: expected rank 2, got ", b.DebugString()));
    }
    const int64_t m = c_.transpose_a ? a.dim(1) : a.dim(0);
    const int64_t k = c_.transpose_a ? a.dim(0) : a.dim(1);
    const int64_t k2 = c_.transpose_b ? b.dim(1) : b.dim(0);
    const int64_t n = c_.transpose_b ? b.dim(0) : b.dim(1);
    if (k != k2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Matrix size-incompatible: In[0]: ", a.shape().ToString(),
          ", In[1]: ", b.shape().ToString(), " (transpose_a=", c_.transpose_a,
          ", transpose_b=", c_.transpose_b, ")"));
    }
    const Tensor* bias = nullptr;
    const Tensor* alpha = nullptr;
    if (c_.fused) {
      bias = &ctx.input(2);
      if (bias->dtype() != a.dtype() || bias->rank() != 1 ||
          bias->dim(0) != n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected bias of dtype ", DTypeName(a.dtype()), " and shape [", n,
            "] (the output's last dimension), got ", bias->DebugString()));
      }
      if (c_.prelu) {
        alpha = &ctx.input(3);
        const bool ok_shape =
            alpha->num_elements() == 1 ||
            (alpha->num_elements() == n && alpha->rank() >= 1 &&
             alpha->dim(alpha->rank() - 1) == n);
        if (alpha->dtype() != a.dtype() || !ok_shape) {
          return absl::InvalidArgumentError(absl::StrCat(
              "expected Prelu alpha of dtype ", DTypeName(a.dtype()),
              " with 1 or ", n, " elements along the last axis, got ",
              alpha->DebugString()));
        }
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, a.dtype(), Shape({m, n})));
    if (m == 0 || n == 0) return absl::OkStatus();
    if (c_.fused) {
      return ops::DispatchDType<float, double>(
          a.dtype(), "_FusedMatMul", [&](auto tag) {
            using T = typename decltype(tag)::type;
            if (k > 0) Gemm<T>(a, b, c_, out);
            BiasAndActivation<T>(c_, bias->data<T>(), alpha, out);
            return absl::OkStatus();
          });
    }
    return ops::DispatchDType<float, double, int32_t, int64_t>(
        a.dtype(), "MatMul", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if (k > 0) Gemm<T>(a, b, c_, out);
          return absl::OkStatus();
        });
  }

 private:
  MatMulConfig c_;
};

absl::StatusOr<MatMulConfig> ReadCommon(const AttrReader& attrs) {
  MatMulConfig c;
  GRAPHRT_ASSIGN_OR_RETURN(c.transpose_a, attrs.GetBool("transpose_a", false));
  GRAPHRT_ASSIGN_OR_RETURN(c.transpose_b, attrs.GetBool("transpose_b", false));
  GRAPHRT_ASSIGN_OR_RETURN(c.t, attrs.GetType("T", DType::kInvalid));
  return c;
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateMatMul(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(MatMulConfig c, ReadCommon(attrs));
  if (c.t != DType::kInvalid &&
      !ops::IsOneOf<float, double, int32_t, int64_t>(c.t)) {
    return attrs.Error("T",
                       absl::StrCat("has unsupported dtype ", DTypeName(c.t)));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(absl::StrCat("MatMul '", init.node.name(),
                                                   "' needs 2 inputs, has ",
                                                   init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new MatMulKernel(c));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateFusedMatMul(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(MatMulConfig c, ReadCommon(attrs));
  c.fused = true;
  if (c.t != DType::kInvalid && !ops::IsOneOf<float, double>(c.t)) {
    return attrs.Error(
        "T", absl::StrCat("must be float32 or float64, got ", DTypeName(c.t)));
  }
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<std::string> fused_ops,
                           attrs.GetStringList("fused_ops", {}));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t num_args, attrs.GetInt("num_args", 1));
  GRAPHRT_ASSIGN_OR_RETURN(c.alpha, attrs.GetFloat("leakyrelu_alpha", 0.2f));
  const std::string listed =
      absl::StrCat("[", absl::StrJoin(fused_ops, ","), "]");
  bool ok =
      !fused_ops.empty() && fused_ops.size() <= 2 && fused_ops[0] == "BiasAdd";
  if (ok && fused_ops.size() == 2) {
    if (fused_ops[1] == "Prelu") {
      c.prelu = true;
    } else if (auto act = ops::ActivationFromName(fused_ops[1])) {
      c.act = *act;
      if (c.act == ops::Activation::kHardSwish) {
        GRAPHRT_ASSIGN_OR_RETURN(
            c.alpha, attrs.GetFloat("hardswish_scale", ops::kHardSwishScale));
      }
    } else {
      ok = false;
    }
  }
  if (!ok) {
    return attrs.Error(
        "fused_ops",
        absl::StrCat("is ", listed,
                     "; supported: [BiasAdd] or [BiasAdd,X] with X one of "
                     "Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, Prelu"));
  }
  const int64_t want_args = c.prelu ? 2 : 1;
  if (num_args != want_args) {
    return attrs.Error("num_args",
                       absl::StrCat("must be ", want_args, " for fused_ops ",
                                    listed, ", got ", num_args));
  }
  c.num_args = static_cast<int>(num_args);
  if (init.num_inputs != 2 + c.num_args) {
    return absl::InvalidArgumentError(
        absl::StrCat("_FusedMatMul '", init.node.name(), "' needs ",
                     2 + c.num_args, " inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new MatMulKernel(c));
}

}  // namespace

void RegisterMatMul(OpRegistry& r) {
  r.Register("MatMul", CreateMatMul);
  r.Register("_FusedMatMul", CreateFusedMatMul);
}

}  // namespace graphrt
