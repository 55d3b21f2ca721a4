// NumPy-style broadcasting of two operands, reduced to a compact loop
// nest for element-wise kernels.
//
// BroadcastPlan collapses the broadcast output shape: dims of size 1 are
// dropped and adjacent dims in which both operands behave alike (both
// present, or the same one broadcast) are merged. Same-shape operands and
// scalar operands therefore become one flat dim, and e.g. [N,H,W,C] + [C]
// becomes [N*H*W, C] with the second operand's outer stride 0. The last
// (innermost) collapsed dim is walked contiguously by the kernel: each
// operand's stride there is 1 or 0.
#ifndef GRAPHRT_OPS_MATH_BROADCAST_H_
#define GRAPHRT_OPS_MATH_BROADCAST_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "runtime/shape.h"

namespace graphrt {
namespace ops {

struct BroadcastPlan {
  Shape out_shape;  // the full broadcast shape
  // Collapsed loop nest, outermost first (empty when out has one element:
  // then treat it as a single dim of size 1).
  std::vector<int64_t> dims;
  std::vector<int64_t> x_strides;  // element strides of x (0 = broadcast)
  std::vector<int64_t> y_strides;
};

// Broadcasts `x` against `y` (NumPy rules: align on the right, each dim
// pair equal or one of them 1). Error: "Incompatible shapes: [2,3] vs. [4]".
inline absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(const Shape& x,
                                                       const Shape& y) {
  BroadcastPlan plan;
  const int rank = std::max(x.rank(), y.rank());
  std::vector<int64_t> xd(rank, 1), yd(rank, 1);
  for (int i = 0; i < x.rank(); ++i) xd[rank - x.rank() + i] = x.dim(i);
  for (int i = 0; i < y.rank(); ++i) yd[rank - y.rank() + i] = y.dim(i);
  // Collapsed dims with each operand's "is broadcast" flag.
  std::vector<int64_t> dims;
  std::vector<bool> xb, yb;
  for (int i = 0; i < rank; ++i) {
    int64_t d;
    if (xd[i] == yd[i] || yd[i] == 1) {
      d = xd[i];
    } else if (xd[i] == 1) {
      d = yd[i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "Incompatible shapes: ", x.ToString(), " vs. ", y.ToString()));
    }
    plan.out_shape.AddDim(d);
    if (d == 1) continue;
    const bool x_bcast = xd[i] == 1;
    const bool y_bcast = yd[i] == 1;
    if (!dims.empty() && xb.back() == x_bcast && yb.back() == y_bcast) {
      dims.back() *= d;  // cannot overflow: out_shape is checked on use
    } else {
      dims.push_back(d);
      xb.push_back(x_bcast);
      yb.push_back(y_bcast);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    xb.push_back(false);
    yb.push_back(false);
  }
  const int n = static_cast<int>(dims.size());
  plan.x_strides.assign(n, 0);
  plan.y_strides.assign(n, 0);
  int64_t xs = 1, ys = 1;
  for (int i = n - 1; i >= 0; --i) {
    if (!xb[i]) {
      plan.x_strides[i] = xs;
      xs *= dims[i];
    }
    if (!yb[i]) {
      plan.y_strides[i] = ys;
      ys *= dims[i];
    }
  }
  plan.dims = std::move(dims);
  return plan;
}

// Calls row(x_offset, y_offset, out_offset, length, x_step, y_step) for
// every contiguous stretch of the output, where x_step / y_step (0 or 1)
// are the operands' strides along it. Work is split over oneTBB when the
// output has at least `min_parallel` elements; each call writes only its
// own output stretch, so the result does not depend on thread count.
template <typename RowFn>
void ForEachBroadcastRow(const BroadcastPlan& plan, int64_t min_parallel,
                         const RowFn& row) {
  for (int64_t d : plan.dims) {
    if (d == 0) return;  // empty output
  }
  const int n = static_cast<int>(plan.dims.size());
  const int64_t inner = plan.dims[n - 1];
  const int64_t xi = plan.x_strides[n - 1];
  const int64_t yi = plan.y_strides[n - 1];
  if (n == 1) {
    // Flat: split the one dim itself.
    ParallelFor(inner, min_parallel, [&](int64_t begin, int64_t end) {
      row(begin * xi, begin * yi, begin, end - begin, xi, yi);
    });
    return;
  }
  int64_t rows = 1;
  for (int i = 0; i < n - 1; ++i) rows *= plan.dims[i];
  const int64_t min_rows =
      inner >= min_parallel ? 2 : (min_parallel + inner - 1) / inner;
  ParallelFor(rows, min_rows, [&](int64_t begin, int64_t end) {
    // Odometer over the outer dims, started at row `begin`.
    std::vector<int64_t> idx(n - 1);
    int64_t rest = begin, xo = 0, yo = 0;
    for (int i = n - 2; i >= 0; --i) {
      idx[i] = rest % plan.dims[i];
      rest /= plan.dims[i];
      xo += idx[i] * plan.x_strides[i];
      yo += idx[i] * plan.y_strides[i];
    }
    for (int64_t r = begin; r < end; ++r) {
      row(xo, yo, r * inner, inner, xi, yi);
      for (int i = n - 2; i >= 0; --i) {
        xo += plan.x_strides[i];
        yo += plan.y_strides[i];
        if (++idx[i] < plan.dims[i]) break;
        xo -= plan.x_strides[i] * plan.dims[i];
        yo -= plan.y_strides[i] * plan.dims[i];
        idx[i] = 0;
      }
    }
  });
}

}  // namespace ops
}  // namespace graphrt

#endif  // GRAPHRT_OPS_MATH_BROADCAST_H_
