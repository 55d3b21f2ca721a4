// BatchMatMul, BatchMatMulV2 and MatrixBandPart.
//
// BatchMatMul(V2): x [..., r_x, c_x] times y [..., r_y, c_y], attrs adj_x /
// adj_y (adjoint = conjugate transpose; plain transpose for real types).
// BatchMatMul needs equal batch dims; V2 broadcasts them NumPy-style.
// float32/64, int32/64, complex64/128. One Eigen GEMM per output matrix;
// matrices are split over oneTBB when the work is large.
//
// MatrixBandPart(input [..., m, n], num_lower, num_upper): keeps element
// (i, j) when (num_lower < 0 || i - j <= num_lower) and
// (num_upper < 0 || j - i <= num_upper), zero elsewhere. Any dtype.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/nn/nn_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

template <typename T>
void MatMulOne(const T* a, const T* b, T* c, int64_t ar, int64_t ac, int64_t br,
               int64_t bc, bool adj_a, bool adj_b) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Mat> A(a, ar, ac);
  Eigen::Map<const Mat> B(b, br, bc);
  const int64_t m = adj_a ? ac : ar;
  const int64_t n = adj_b ? br : bc;
  Eigen::Map<Mat> C(c, m, n);
  if ((adj_a ? ar : ac) == 0) {
    C.setZero();
    return;
  }
  if (!adj_a && !adj_b) {
    C.noalias() = A * B;
  } else if (adj_a && !adj_b) {
    C.noalias() = A.adjoint() * B;
  } else if (!adj_a && adj_b) {
    C.noalias() = A * B.adjoint();
  } else {
    C.noalias() = A.adjoint() * B.adjoint();
  }
}

class BatchMatMulKernel : public Kernel {
 public:
  BatchMatMulKernel(bool adj_x, bool adj_y, bool broadcast, DType t)
      : adj_x_(adj_x), adj_y_(adj_y), broadcast_(broadcast), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.dtype() != y.dtype() || (t_ != DType::kInvalid && x.dtype() != t_)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected x and y of the same dtype",
          t_ != DType::kInvalid ? absl::StrCat(" ", DTypeName(t_)) : "",
          ", got ", x.DebugString(), " and ", y.DebugString()));
    }
    if (x.rank() < 2 || y.rank() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected x and y of rank >= 2, got ", x.DebugString(),
                       " and ", y.DebugString()));
    }
    const int xr = x.rank(), yr = y.rank();
    const int64_t xrows = x.dim(xr - 2), xcols = x.dim(xr - 1);
    const int64_t yrows = y.dim(yr - 2), ycols = y.dim(yr - 1);
    const int64_t k1 = adj_x_ ? xrows : xcols;
    const int64_t k2 = adj_y_ ? ycols : yrows;
    if (k1 != k2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Matrix size-incompatible: In[0]: ", x.shape().ToString(),
          ", In[1]: ", y.shape().ToString(), " (adj_x=", adj_x_,
          ", adj_y=", adj_y_, ")"));
    }
    // Batch shape (broadcast for V2).
    const int br = std::max(xr, yr) - 2;
    ops::DimVector out_batch(br), xdim(br, 1), ydim(br, 1);
    for (int i = 0; i < br; ++i) {
      const int xi = i - (br - (xr - 2));
      const int yi = i - (br - (yr - 2));
      if (xi >= 0) xdim[i] = x.dim(xi);
      if (yi >= 0) ydim[i] = y.dim(yi);
      if (!broadcast_ && (xr != yr || xdim[i] != ydim[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat("BatchMatMul needs equal batch dimensions, got ",
                         x.shape().ToString(), " and ", y.shape().ToString()));
      }
      if (xdim[i] != ydim[i] && xdim[i] != 1 && ydim[i] != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "batch dimensions are not broadcastable: ", x.shape().ToString(),
            " and ", y.shape().ToString()));
      }
      out_batch[i] = xdim[i] == 1 ? ydim[i] : xdim[i];
    }
    const int64_t m = adj_x_ ? xcols : xrows;
    const int64_t n = adj_y_ ? yrows : ycols;
    ops::DimVector out_dims = out_batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make(out_dims));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), shape));
    int64_t batches = 1;
    for (int64_t d : out_batch) batches *= d;
    if (batches == 0 || m == 0 || n == 0) return absl::OkStatus();
    // Offsets (in matrices) into x and y of output batch b.
    auto batch_offsets = [&](int64_t b, int64_t* xo, int64_t* yo) {
      int64_t rem = b, xs = 1, ys = 1;
      *xo = *yo = 0;
      for (int i = br - 1; i >= 0; --i) {
        const int64_t idx = rem % out_batch[i];
        rem /= out_batch[i];
        if (xdim[i] != 1) *xo += idx * xs;
        if (ydim[i] != 1) *yo += idx * ys;
        xs *= xdim[i];
        ys *= ydim[i];
      }
    };
    const double work = static_cast<double>(batches) * m * n * k1;
    return ops::DispatchDType<float, double, int32_t, int64_t, complex64,
                              complex128>(
        x.dtype(), "BatchMatMul", [&](auto tag) {
          using T = typename decltype(tag)::type;
          const T* xd = x.data<T>();
          const T* yd = y.data<T>();
          T* od = out->mutable_data<T>();
          const int64_t xsz = xrows * xcols, ysz = yrows * ycols;
          ops::ParallelFor(batches, work >= (1 << 18) ? 2 : batches + 1,
                           [&](int64_t b0, int64_t b1) {
                             for (int64_t b = b0; b < b1; ++b) {
                               int64_t xo, yo;
                               batch_offsets(b, &xo, &yo);
                               MatMulOne<T>(xd + xo * xsz, yd + yo * ysz,
                                            od + b * m * n, xrows, xcols, yrows,
                                            ycols, adj_x_, adj_y_);
                             }
                           });
          return absl::OkStatus();
        });
  }

 private:
  bool adj_x_, adj_y_, broadcast_;
  DType t_;
};

template <bool kBroadcast>
absl::StatusOr<std::unique_ptr<Kernel>> CreateBatchMatMul(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(bool adj_x, attrs.GetBool("adj_x", false));
  GRAPHRT_ASSIGN_OR_RETURN(bool adj_y, attrs.GetBool("adj_y", false));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid &&
      !ops::IsOneOf<float, double, int32_t, int64_t, complex64, complex128>(
          t)) {
    return attrs.Error("T",
                       absl::StrCat("has unsupported dtype ", DTypeName(t)));
  }
  if (init.num_inputs != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(
      new BatchMatMulKernel(adj_x, adj_y, kBroadcast, t));
}

// ---- MatrixBandPart ----

absl::Status MatrixBandPart(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected input of rank >= 2, got ", x.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(int64_t lower,
                           ops::ReadIntScalar(ctx.input(1), "num_lower"));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t upper,
                           ops::ReadIntScalar(ctx.input(2), "num_upper"));
  const int64_t m = x.dim(x.rank() - 2), n = x.dim(x.rank() - 1);
  if (lower > m) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_lower must be negative or less or equal to number of rows (", m,
        "), got ", lower));
  }
  if (upper > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_upper must be negative or less or equal to number of columns (", n,
        "), got ", upper));
  }
  if (!IsTriviallyCopyable(x.dtype()) && x.dtype() != DType::kString) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MatrixBandPart: unsupported dtype ", DTypeName(x.dtype())));
  }
  GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                           ctx.allocate_output(0, x.dtype(), x.shape()));
  const int64_t rows = m == 0 ? 0 : x.num_elements() / std::max<int64_t>(n, 1);
  if (n == 0) return absl::OkStatus();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % m;
    const int64_t begin = lower < 0 ? 0 : std::max<int64_t>(0, i - lower);
    const int64_t end = upper < 0 ? n : std::min<int64_t>(n, i + upper + 1);
    if (end > begin) {
      ops::CopyElements(x.dtype(), x.raw_data(), r * n + begin, out->raw_data(),
                        r * n + begin, end - begin);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateMatrixBandPart(
    const KernelInit& init) {
  if (init.num_inputs != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("MatrixBandPart '", init.node.name(),
                     "' needs 3 inputs, has ", init.num_inputs));
  }
  return MakeFunctionKernel(MatrixBandPart);
}

}  // namespace

void RegisterBatchMatMul(OpRegistry& r) {
  r.Register("BatchMatMul", CreateBatchMatMul<false>);
  r.Register("BatchMatMulV2", CreateBatchMatMul<true>);
  r.Register("MatrixBandPart", CreateMatrixBandPart);
}

}  // namespace graphrt
