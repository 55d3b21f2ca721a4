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

// In-range window taps [lo, hi) of one output position along each
// dimension, and where the window starts in the input.
struct PixelWindow {
  int64_t b = 0;
  int64_t start[3] = {0, 0, 0};
  int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  int64_t count() const {
    int64_t n = 1;
    for (int d = 0; d < 3; ++d) n *= std::max<int64_t>(0, hi[d] - lo[d]);
    return n;
  }
};

// Channels [c0, c0 + kWidth) of one output pixel: the accumulator stays in
// registers (kWidth is a compile-time width) while the window's taps are
// folded in row-major window order. Max keeps std::max(acc, x)'s NaN
// behaviour ((acc < x) ? x : acc); Avg sums, then divides by the number of
// in-range taps.
template <typename T, PoolKind kKind, int kWidth>
inline void PoolChannels(const T* __restrict in, T* __restrict out,
                         const PoolGeometry& g, const PixelWindow& w,
                         int64_t c0) {
  // The channel loops are kept as loops (not unrolled into kWidth scalar
  // statements) so that GCC's loop vectorizer turns them into vector
  // compares / maxes: unrolled first, the Max was left scalar, 2.3x slower.
  T acc[kWidth];
#pragma GCC unroll 1
  for (int i = 0; i < kWidth; ++i) {
    acc[i] = kKind == PoolKind::kMax ? std::numeric_limits<T>::lowest() : T(0);
  }
  for (int64_t kd = w.lo[0]; kd < w.hi[0]; ++kd) {
    for (int64_t kh = w.lo[1]; kh < w.hi[1]; ++kh) {
      const T* row =
          in +
          (((w.b * g.in[0] + w.start[0] + kd) * g.in[1] + w.start[1] + kh) *
               g.in[2] +
           w.start[2]) *
              g.c +
          c0;
      for (int64_t kw = w.lo[2]; kw < w.hi[2]; ++kw) {
        const T* px = row + kw * g.c;
#pragma GCC unroll 1
        for (int i = 0; i < kWidth; ++i) {
          if constexpr (kKind == PoolKind::kMax) {
            acc[i] = acc[i] < px[i] ? px[i] : acc[i];
          } else {
            acc[i] += px[i];
          }
        }
      }
    }
  }
  if constexpr (kKind == PoolKind::kAvg) {
    const int64_t count = w.count();
    if (count > 0) {
      const T n = static_cast<T>(count);
#pragma GCC unroll 1
      for (int i = 0; i < kWidth; ++i) acc[i] /= n;
    }
  }
#pragma GCC unroll 1
  for (int i = 0; i < kWidth; ++i) out[c0 + i] = acc[i];
}

template <typename T, PoolKind kKind>
void PoolForward(const T* in, T* out, const PoolGeometry& g) {
  const int64_t rows = g.n * g.out[0] * g.out[1];
  const int64_t per_row =
      std::max<int64_t>(1, g.out[2] * g.k[0] * g.k[1] * g.k[2] * g.c);
  const int64_t min_rows = std::max<int64_t>(2, (int64_t{1} << 15) / per_row);
  // Channel blocks of 64 and 16 values (4 and 1 AVX-512 registers of
  // float), then 8 and 4 (an AVX2 / SSE register: BlazeFace's 24, 28, 36
  // and 42 channels left 8-10 single-channel window walks per pixel), then
  // single channels.
  constexpr int kWide = 64, kNarrow = 16, kHalf = 8, kQuarter = 4;
  auto window = [&g](int d, int64_t o, PixelWindow* w) {
    w->start[d] = o * g.stride[d] - g.pad[d];
    w->lo[d] = std::max<int64_t>(0, -w->start[d]);
    w->hi[d] = std::min<int64_t>(g.k[d], g.in[d] - w->start[d]);
  };
  ops::ParallelFor(rows, min_rows, [&](int64_t r0, int64_t r1) {
    PixelWindow w;
    for (int64_t r = r0; r < r1; ++r) {
      w.b = r / (g.out[0] * g.out[1]);
      window(0, (r / g.out[1]) % g.out[0], &w);
      window(1, r % g.out[1], &w);
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        window(2, ow, &w);
        T* pixel = out + (r * g.out[2] + ow) * g.c;
        int64_t c0 = 0;
        for (; c0 + kWide <= g.c; c0 += kWide) {
          PoolChannels<T, kKind, kWide>(in, pixel, g, w, c0);
        }
        for (; c0 + kNarrow <= g.c; c0 += kNarrow) {
          PoolChannels<T, kKind, kNarrow>(in, pixel, g, w, c0);
        }
        for (; c0 + kHalf <= g.c; c0 += kHalf) {
          PoolChannels<T, kKind, kHalf>(in, pixel, g, w, c0);
        }
        for (; c0 + kQuarter <= g.c; c0 += kQuarter) {
          PoolChannels<T, kKind, kQuarter>(in, pixel, g, w, c0);
        }
        for (; c0 < g.c; ++c0) PoolChannels<T, kKind, 1>(in, pixel, g, w, c0);
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
      if (kind_ == PoolKind::kMax) {
        PoolForward<T, PoolKind::kMax>(x.data<T>(), out.mutable_data<T>(), g);
      } else {
        PoolForward<T, PoolKind::kAvg>(x.data<T>(), out.mutable_data<T>(), g);
      }
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
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 1));
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
    // Output 1 first: allocating it cannot move output 0.
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * arg,
                             ctx.allocate_output(1, targmax_, shape));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), shape));
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
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 1));
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
