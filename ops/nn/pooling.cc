// MaxPool, AvgPool (2-d; NHWC or NCHW), MaxPool3D, AvgPool3D (NDHWC or
// NCDHW) and MaxPoolWithArgmax (NHWC). Attrs ksize / strides are full
// (rank)-vectors read at data_format's positions; batch and channel entries
// must be 1. MaxPool also takes padding EXPLICIT with explicit_paddings.
//
// * Max: the largest in-range input of the window (padding never wins);
//   dtypes float32/64 and the 8-64 bit integers.
// * Avg: the mean over the in-range cells only (TF divides by the number
//   of non-padded cells); float32/64.
// * MaxPoolWithArgmax: also returns the flat index of the max (first one
//   in row-major window order on ties) into [y, x, c], or into
//   [b, y, x, c] with include_batch_in_index; Targmax int64 (default) or
//   int32.
// One channels-last kernel for 1..3 spatial dims; output rows are split
// over oneTBB, every value is computed by one thread in a fixed order.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/nn/conv_util.h"
#include "ops/nn/nn_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using nn::WindowAttrs;

enum class PoolKind { kMax, kAvg };

struct PoolGeometry {
  int64_t n = 0, c = 0;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
};

// One window tap folded into an output pixel's channel row: the Max
// keeps std::max(acc, x)'s NaN behaviour ((acc < x) ? x : acc), Avg sums.
template <typename T>
inline void PoolTap(PoolKind kind, const T* __restrict px, T* __restrict acc,
                    int64_t c) {
  if (kind == PoolKind::kMax) {
    for (int64_t i = 0; i < c; ++i) acc[i] = acc[i] < px[i] ? px[i] : acc[i];
  } else {
    for (int64_t i = 0; i < c; ++i) acc[i] += px[i];
  }
}

template <typename T>
void PoolForward(PoolKind kind, const T* in, T* out, const PoolGeometry& g) {
  const int64_t rows = g.n * g.out[0] * g.out[1];
  const int64_t per_row =
      std::max<int64_t>(1, g.out[2] * g.k[0] * g.k[1] * g.k[2] * g.c);
  const int64_t min_rows = std::max<int64_t>(2, (int64_t{1} << 15) / per_row);
  const T init =
      kind == PoolKind::kMax ? std::numeric_limits<T>::lowest() : T(0);
  // In-range taps [lo, hi) of output position o along dimension d.
  auto taps = [&g](int d, int64_t o, int64_t* lo, int64_t* hi) {
    const int64_t start = o * g.stride[d] - g.pad[d];
    *lo = std::max<int64_t>(0, -start);
    *hi = std::min<int64_t>(g.k[d], g.in[d] - start);
    return start;
  };
  ops::ParallelFor(rows, min_rows, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / (g.out[0] * g.out[1]);
      const int64_t od = (r / g.out[1]) % g.out[0];
      const int64_t oh = r % g.out[1];
      int64_t d_lo, d_hi, h_lo, h_hi;
      const int64_t d0 = taps(0, od, &d_lo, &d_hi);
      const int64_t h0 = taps(1, oh, &h_lo, &h_hi);
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        T* acc = out + (r * g.out[2] + ow) * g.c;
        std::fill(acc, acc + g.c, init);
        int64_t w_lo, w_hi;
        const int64_t w0 = taps(2, ow, &w_lo, &w_hi);
        // Same tap order as a row-major walk of the window.
        for (int64_t kd = d_lo; kd < d_hi; ++kd) {
          for (int64_t kh = h_lo; kh < h_hi; ++kh) {
            const T* row =
                in +
                (((b * g.in[0] + d0 + kd) * g.in[1] + h0 + kh) * g.in[2] + w0) *
                    g.c;
            for (int64_t kw = w_lo; kw < w_hi; ++kw) {
              PoolTap(kind, row + kw * g.c, acc, g.c);
            }
          }
        }
        const int64_t count = std::max<int64_t>(0, d_hi - d_lo) *
                              std::max<int64_t>(0, h_hi - h_lo) *
                              std::max<int64_t>(0, w_hi - w_lo);
        if (kind == PoolKind::kAvg && count > 0) {
          const T n = static_cast<T>(count);
          for (int64_t i = 0; i < g.c; ++i) acc[i] /= n;
        }
      }
    }
  });
}

absl::StatusOr<PoolGeometry> MakePoolGeometry(const WindowAttrs& w,
                                              const Tensor& x) {
  const int s = w.num_spatial;
  PoolGeometry g;
  g.n = x.dim(0);
  g.c = x.dim(s + 1);
  for (int i = 0; i < s; ++i) {
    const int d = 3 - s + i;
    g.in[d] = x.dim(1 + i);
    g.k[d] = w.ksize[i];
    g.stride[d] = w.strides[i];
    GRAPHRT_ASSIGN_OR_RETURN(
        nn::WindowDim wd,
        nn::ComputeWindow(g.in[d], g.k[d], g.stride[d], 1, w.padding,
                          w.pads[2 * i], w.pads[2 * i + 1]));
    if (w.padding == nn::Padding::kExplicit &&
        (w.pads[2 * i] >= g.k[d] || w.pads[2 * i + 1] >= g.k[d])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "explicit paddings must be smaller than the window size ", g.k[d],
          ", got ", w.pads[2 * i], " and ", w.pads[2 * i + 1]));
    }
    g.out[d] = wd.out;
    g.pad[d] = wd.pad_before;
  }
  return g;
}

Shape OutShape(const PoolGeometry& g, int s) {
  Shape shape({g.n});
  for (int i = 0; i < s; ++i) shape.AddDim(g.out[3 - s + i]);
  shape.AddDim(g.c);
  return shape;
}

class PoolKernel : public Kernel {
 public:
  PoolKernel(std::string op, PoolKind kind, WindowAttrs w, DType t)
      : op_(std::move(op)), kind_(kind), w_(std::move(w)), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& input = ctx.input(0);
    const int s = w_.num_spatial;
    if (t_ != DType::kInvalid && input.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", input.DebugString()));
    }
    if (input.rank() != s + 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected input of rank ", s + 2, ", got ", input.DebugString()));
    }
    Tensor x = input;
    if (w_.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(x, nn::ChannelsLastCopy(input));
    }
    GRAPHRT_ASSIGN_OR_RETURN(PoolGeometry g, MakePoolGeometry(w_, x));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor out, Tensor::AllocateUninitialized(x.dtype(), OutShape(g, s)));
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      PoolForward<T>(kind_, x.data<T>(), out.mutable_data<T>(), g);
      return absl::OkStatus();
    };
    if (kind_ == PoolKind::kAvg) {
      GRAPHRT_RETURN_IF_ERROR(
          (ops::DispatchDType<float, double>(x.dtype(), op_, run)));
    } else {
      GRAPHRT_RETURN_IF_ERROR(
          (ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t>(x.dtype(), op_, run)));
    }
    if (w_.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(out, nn::ChannelsFirstCopy(out));
    }
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  std::string op_;
  PoolKind kind_;
  WindowAttrs w_;
  DType t_;
};

absl::Status CheckOneInput(const KernelInit& init) {
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 1 input, has ", init.num_inputs));
  }
  return absl::OkStatus();
}

template <PoolKind kKind, int kSpatial>
absl::StatusOr<std::unique_ptr<Kernel>> CreatePool(const KernelInit& init) {
  AttrReader attrs(init.node);
  nn::WindowAttrOptions opts;
  opts.num_spatial = kSpatial;
  opts.has_ksize = true;
  opts.has_dilations = false;
  opts.allow_explicit = kKind == PoolKind::kMax && kSpatial == 2;
  GRAPHRT_ASSIGN_OR_RETURN(WindowAttrs w, nn::ReadWindowAttrs(attrs, opts));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  const bool ok_t = t == DType::kInvalid ||
                    (kKind == PoolKind::kAvg
                         ? ops::IsOneOf<float, double>(t)
                         : ops::IsOneOf<float, double, int32_t, int64_t,
                                        uint8_t, int8_t, int16_t, uint16_t>(t));
  if (!ok_t) {
    return attrs.Error("T",
                       absl::StrCat("has unsupported dtype ", DTypeName(t)));
  }
  GRAPHRT_RETURN_IF_ERROR(CheckOneInput(init));
  return std::unique_ptr<Kernel>(
      new PoolKernel(init.node.op(), kKind, std::move(w), t));
}

// ---- MaxPoolWithArgmax ----

template <typename T, typename I>
void MaxPoolArgmax(const T* in, T* out, I* arg, const PoolGeometry& g,
                   bool include_batch) {
  const int64_t rows = g.n * g.out[1];
  const int64_t per_row =
      std::max<int64_t>(1, g.out[2] * g.k[1] * g.k[2] * g.c);
  const int64_t min_rows = std::max<int64_t>(2, (int64_t{1} << 15) / per_row);
  ops::ParallelFor(rows, min_rows, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / g.out[1];
      const int64_t oh = r % g.out[1];
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        T* o = out + (r * g.out[2] + ow) * g.c;
        I* a = arg + (r * g.out[2] + ow) * g.c;
        std::fill(o, o + g.c, std::numeric_limits<T>::lowest());
        std::fill(a, a + g.c, I(-1));
        for (int64_t kh = 0; kh < g.k[1]; ++kh) {
          const int64_t ih = oh * g.stride[1] - g.pad[1] + kh;
          if (ih < 0 || ih >= g.in[1]) continue;
          for (int64_t kw = 0; kw < g.k[2]; ++kw) {
            const int64_t iw = ow * g.stride[2] - g.pad[2] + kw;
            if (iw < 0 || iw >= g.in[2]) continue;
            const int64_t base = (ih * g.in[2] + iw) * g.c;
            const int64_t batch_base = b * g.in[1] * g.in[2] * g.c;
            const T* px = in + batch_base + base;
            for (int64_t c = 0; c < g.c; ++c) {
              if (px[c] > o[c]) {
                o[c] = px[c];
                a[c] =
                    static_cast<I>((include_batch ? batch_base : 0) + base + c);
              }
            }
          }
        }
      }
    }
  });
}

class MaxPoolArgmaxKernel : public Kernel {
 public:
  MaxPoolArgmaxKernel(WindowAttrs w, DType t, DType targmax, bool include)
      : w_(std::move(w)), t_(t), targmax_(targmax), include_batch_(include) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    if (t_ != DType::kInvalid && x.dtype() != t_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of dtype ", DTypeName(t_),
                       " (attr T), got ", x.DebugString()));
    }
    if (x.rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of rank 4, got ", x.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(PoolGeometry g, MakePoolGeometry(w_, x));
    const int64_t limit = include_batch_
                              ? x.num_elements()
                              : x.num_elements() / std::max<int64_t>(1, g.n);
    if (targmax_ == DType::kInt32 && limit > INT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input too large for int32 argmax indices: ", x.DebugString()));
    }
    const Shape shape = OutShape(g, 2);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), shape));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * arg,
                             ctx.allocate_output(1, targmax_, shape));
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t>(
        x.dtype(), "MaxPoolWithArgmax", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if (targmax_ == DType::kInt32) {
            MaxPoolArgmax<T, int32_t>(x.data<T>(), out->mutable_data<T>(),
                                      arg->mutable_data<int32_t>(), g,
                                      include_batch_);
          } else {
            MaxPoolArgmax<T, int64_t>(x.data<T>(), out->mutable_data<T>(),
                                      arg->mutable_data<int64_t>(), g,
                                      include_batch_);
          }
          return absl::OkStatus();
        });
  }

 private:
  WindowAttrs w_;
  DType t_;
  DType targmax_;
  bool include_batch_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateMaxPoolWithArgmax(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  nn::WindowAttrOptions opts;
  opts.has_ksize = true;
  opts.has_dilations = false;
  opts.allow_explicit = false;
  opts.allow_channels_first = false;
  GRAPHRT_ASSIGN_OR_RETURN(WindowAttrs w, nn::ReadWindowAttrs(attrs, opts));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  GRAPHRT_ASSIGN_OR_RETURN(DType targmax,
                           attrs.GetType("Targmax", DType::kInt64));
  if (targmax != DType::kInt32 && targmax != DType::kInt64) {
    return attrs.Error("Targmax", absl::StrCat("must be int32 or int64, got ",
                                               DTypeName(targmax)));
  }
  GRAPHRT_ASSIGN_OR_RETURN(bool include,
                           attrs.GetBool("include_batch_in_index", false));
  GRAPHRT_RETURN_IF_ERROR(CheckOneInput(init));
  return std::unique_ptr<Kernel>(
      new MaxPoolArgmaxKernel(std::move(w), t, targmax, include));
}

}  // namespace

void RegisterPooling(OpRegistry& r) {
  r.Register("MaxPool", CreatePool<PoolKind::kMax, 2>);
  r.Register("AvgPool", CreatePool<PoolKind::kAvg, 2>);
  r.Register("MaxPool3D", CreatePool<PoolKind::kMax, 3>);
  r.Register("AvgPool3D", CreatePool<PoolKind::kAvg, 3>);
  r.Register("MaxPoolWithArgmax", CreateMaxPoolWithArgmax);
}

}  // namespace graphrt
