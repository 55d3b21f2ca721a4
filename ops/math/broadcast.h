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
#include <type_traits>

#include "absl/container/inlined_vector.h"
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
  DimVector dims;
  DimVector x_strides;  // element strides of x (0 = broadcast)
  DimVector y_strides;
};

// Broadcasts `x` against `y` (NumPy rules: align on the right, each dim
// pair equal or one of them 1). Error: "Incompatible shapes: [2,3] vs. [4]".
inline absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(const Shape& x,
                                                       const Shape& y) {
  BroadcastPlan plan;
  const int rank = std::max(x.rank(), y.rank());
  DimVector xd(rank, 1), yd(rank, 1);
  for (int i = 0; i < x.rank(); ++i) xd[rank - x.rank() + i] = x.dim(i);
  for (int i = 0; i < y.rank(); ++i) yd[rank - y.rank() + i] = y.dim(i);
  // Collapsed dims with each operand's "is broadcast" flag.
  DimVector dims;
  absl::InlinedVector<bool, 8> xb, yb;
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
    // Flat: split the one dim itself, on vector-friendly boundaries
    // (ParallelForElements: results independent of the thread count).
    ParallelForElements(inner, min_parallel, [&](int64_t begin, int64_t end) {
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
    DimVector idx(n - 1);
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

// BroadcastApply's tiled path: a repeating operand's period of at most
// kBroadcastMaxPeriod elements, tiled to blocks of at least
// kBroadcastMinBlock.
inline constexpr int64_t kBroadcastMaxPeriod = 64;
inline constexpr int64_t kBroadcastMinBlock = 128;

// out[i] = fn(x[i'], y[i'']) over the broadcast plan (see
// ForEachBroadcastRow), for element-wise kernels whose operand and result
// element types may differ (comparisons produce bool). The inner loops
// are plain contiguous loops the compiler can vectorise.
//
// One operand full and the other repeating along a short last dim
// ([N,H,W,3] - [3]: an image's per-channel mean and scale) would be rows of
// a few elements, each a call and an odometer step: the repeating operand
// is tiled into a stack buffer of whole periods instead, and the data is
// walked in flat blocks of that length (movenet's input normalisation:
// 0.23 -> 0.03 ms per op).
template <typename A, typename B, typename Out, typename Fn>
void BroadcastApply(const BroadcastPlan& plan, const A* x, const B* y, Out* out,
                    int64_t min_parallel, const Fn& fn) {
  if constexpr (std::is_arithmetic_v<A> && std::is_arithmetic_v<B>) {
    if (plan.dims.size() == 2 && plan.dims[0] > 1 && plan.dims[1] > 0 &&
        plan.dims[1] <= kBroadcastMaxPeriod) {
      const int64_t c = plan.dims[1];
      const bool x_full = plan.x_strides[0] == c && plan.x_strides[1] == 1;
      const bool y_full = plan.y_strides[0] == c && plan.y_strides[1] == 1;
      const bool x_periodic = plan.x_strides[0] == 0 && plan.x_strides[1] == 1;
      const bool y_periodic = plan.y_strides[0] == 0 && plan.y_strides[1] == 1;
      if ((x_full && y_periodic) || (x_periodic && y_full)) {
        const int64_t rows = plan.dims[0];
        const int64_t per_block =
            (kBroadcastMinBlock + c - 1) / c;  // rows per block
        const int64_t len = per_block * c;     // < 2 * kBroadcastMinBlock
        const int64_t blocks = (rows + per_block - 1) / per_block;
        ParallelFor(blocks, std::max<int64_t>(1, min_parallel / len),
                    [&](int64_t b0, int64_t b1) {
                      A xt[2 * kBroadcastMinBlock];
                      B yt[2 * kBroadcastMinBlock];
                      for (int64_t i = 0; i < len; ++i) {
                        if (x_periodic) xt[i] = x[i % c];
                        if (y_periodic) yt[i] = y[i % c];
                      }
                      for (int64_t b = b0; b < b1; ++b) {
                        const int64_t off = b * len;
                        const int64_t n =
                            std::min(per_block, rows - b * per_block) * c;
                        Out* __restrict op = out + off;
                        if (y_periodic) {
                          const A* __restrict xp = x + off;
                          for (int64_t i = 0; i < n; ++i)
                            op[i] = fn(xp[i], yt[i]);
                        } else {
                          const B* __restrict yp = y + off;
                          for (int64_t i = 0; i < n; ++i)
                            op[i] = fn(xt[i], yp[i]);
                        }
                      }
                    });
        return;
      }
    }
  }
  ForEachBroadcastRow(plan, min_parallel,
                      [&](int64_t xo, int64_t yo, int64_t oo, int64_t n,
                          int64_t xs, int64_t ys) {
                        const A* __restrict xp = x + xo;
                        const B* __restrict yp = y + yo;
                        Out* __restrict op = out + oo;
                        if (xs != 0 && ys != 0) {
                          for (int64_t i = 0; i < n; ++i)
                            op[i] = fn(xp[i], yp[i]);
                        } else if (xs != 0) {
                          const B b = *yp;
                          for (int64_t i = 0; i < n; ++i) op[i] = fn(xp[i], b);
                        } else if (ys != 0) {
                          const A a = *xp;
                          for (int64_t i = 0; i < n; ++i) op[i] = fn(a, yp[i]);
                        } else {
                          const Out v = fn(*xp, *yp);
                          for (int64_t i = 0; i < n; ++i) op[i] = v;
                        }
                      });
}

// Broadcasting of three operands (Select, SelectV2, ClipByValue), with
// the same collapsing as BroadcastPlan. strides[k] are operand k's element
// strides per collapsed dim (0 = broadcast).
struct Broadcast3Plan {
  Shape out_shape;
  DimVector dims;  // collapsed, outermost first; never empty
  DimVector strides[3];
};

// Error: "Incompatible shapes: [2] vs. [3] vs. [1]".
inline absl::StatusOr<Broadcast3Plan> MakeBroadcast3Plan(const Shape& a,
                                                         const Shape& b,
                                                         const Shape& c) {
  const Shape* s[3] = {&a, &b, &c};
  Broadcast3Plan plan;
  const int rank = std::max({a.rank(), b.rank(), c.rank()});
  DimVector dims;
  absl::InlinedVector<int, 8>
      flags;  // bit k set: operand k broadcast in this dim
  for (int i = 0; i < rank; ++i) {
    int64_t d[3];
    int64_t out = 1;
    for (int k = 0; k < 3; ++k) {
      const int j = i - (rank - s[k]->rank());
      d[k] = j < 0 ? 1 : s[k]->dim(j);
      if (d[k] != 1) {
        if (out != 1 && out != d[k]) {
          return absl::InvalidArgumentError(
              absl::StrCat("Incompatible shapes: ", a.ToString(), " vs. ",
                           b.ToString(), " vs. ", c.ToString()));
        }
        out = d[k];
      }
    }
    plan.out_shape.AddDim(out);
    if (out == 1) continue;
    int f = 0;
    for (int k = 0; k < 3; ++k) f |= (d[k] == 1 ? 1 << k : 0);
    if (!dims.empty() && flags.back() == f) {
      dims.back() *= out;
    } else {
      dims.push_back(out);
      flags.push_back(f);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    flags.push_back(0);
  }
  const int n = static_cast<int>(dims.size());
  for (int k = 0; k < 3; ++k) {
    plan.strides[k].assign(n, 0);
    int64_t st = 1;
    for (int i = n - 1; i >= 0; --i) {
      if (!(flags[i] & (1 << k))) {
        plan.strides[k][i] = st;
        st *= dims[i];
      }
    }
  }
  plan.dims = std::move(dims);
  return plan;
}

// out[i] = fn(a[.], b[.], c[.]) over a Broadcast3Plan; split over oneTBB
// by output rows like ForEachBroadcastRow.
template <typename A, typename B, typename C, typename Out, typename Fn>
void Broadcast3Apply(const Broadcast3Plan& plan, const A* a, const B* b,
                     const C* c, Out* out, int64_t min_parallel, const Fn& fn) {
  for (int64_t d : plan.dims) {
    if (d == 0) return;
  }
  const int n = static_cast<int>(plan.dims.size());
  const int64_t inner = plan.dims[n - 1];
  const int64_t as = plan.strides[0][n - 1];
  const int64_t bs = plan.strides[1][n - 1];
  const int64_t cs = plan.strides[2][n - 1];
  int64_t rows = 1;
  for (int i = 0; i < n - 1; ++i) rows *= plan.dims[i];
  auto row = [&](int64_t ao, int64_t bo, int64_t co, int64_t oo, int64_t len) {
    const A* __restrict ap = a + ao;
    const B* __restrict bp = b + bo;
    const C* __restrict cp = c + co;
    Out* __restrict op = out + oo;
    for (int64_t i = 0; i < len; ++i) {
      op[i] = fn(ap[i * as], bp[i * bs], cp[i * cs]);
    }
  };
  if (n == 1) {
    ParallelForElements(inner, min_parallel, [&](int64_t begin, int64_t end) {
      row(begin * as, begin * bs, begin * cs, begin, end - begin);
    });
    return;
  }
  const int64_t min_rows =
      inner >= min_parallel ? 2 : (min_parallel + inner - 1) / inner;
  ParallelFor(rows, min_rows, [&](int64_t begin, int64_t end) {
    DimVector idx(n - 1);
    int64_t rest = begin;
    int64_t off[3] = {0, 0, 0};
    for (int i = n - 2; i >= 0; --i) {
      idx[i] = rest % plan.dims[i];
      rest /= plan.dims[i];
      for (int k = 0; k < 3; ++k) off[k] += idx[i] * plan.strides[k][i];
    }
    for (int64_t r = begin; r < end; ++r) {
      row(off[0], off[1], off[2], r * inner, inner);
      for (int i = n - 2; i >= 0; --i) {
        for (int k = 0; k < 3; ++k) off[k] += plan.strides[k][i];
        if (++idx[i] < plan.dims[i]) break;
        for (int k = 0; k < 3; ++k) {
          off[k] -= plan.strides[k][i] * plan.dims[i];
        }
        idx[i] = 0;
      }
    }
  });
}

}  // namespace ops
}  // namespace graphrt

#endif  // GRAPHRT_OPS_MATH_BROADCAST_H_
