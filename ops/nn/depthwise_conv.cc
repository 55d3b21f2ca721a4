// DepthwiseConv2dNative (alias DepthwiseConv2d), the converter's
// FusedDepthwiseConv2dNative (fused_ops [BiasAdd], [BiasAdd,X] or [NoOp,X],
// see conv_util.h) and Dilation2D (morphological dilation). float32 and
// float64.
//
// Depthwise: filter [kh, kw, in_ch, multiplier], output channel
// c * multiplier + m reads input channel c. float32 runs on oneDNN's or
// XNNPACK's depthwise kernels (ops/nn/fused_conv.h, filter prepacked once
// per node, bias and Relu/Relu6 fused). The portable path (float64, or
// when both decline) is a direct loop: for every output
// pixel, for every in-range filter tap, a vectorisable multiply-add over the
// in_ch * multiplier channel row. Output rows (batch, y) are split over
// oneTBB; each output value is summed in a fixed order.
//
// Dilation2D: out[b,y,x,c] = max over in-range taps (i, j) of
//   in[b, y*sh + i*rh - pad_top, x*sw + j*rw - pad_left, c] + filter[i,j,c]
// (padded taps are skipped, as in TF), NHWC only, padding SAME or VALID.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/nn/conv_util.h"
#include "ops/nn/fused_conv.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/xnnpack/xnn_conv.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using nn::EpilogueArgs;
using nn::FusedEpilogue;
using nn::WindowAttrs;

struct Geometry2D {
  int64_t n, h, w, c, kh, kw, mult, oh, ow, sh, sw, dh, dw, pt, pl;
};

// Rows (batch * out_h) per parallel task, aiming at ~32K multiply-adds.
int64_t MinRows(const Geometry2D& g) {
  const int64_t per_row =
      std::max<int64_t>(1, g.ow * g.kh * g.kw * g.c * g.mult);
  return std::max<int64_t>(2, (int64_t{1} << 15) / per_row);
}

template <typename T>
void DepthwiseForward(const T* in, const T* filter, T* out, const Geometry2D& g,
                      const FusedEpilogue& e, const EpilogueArgs<T>& args) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const int64_t oc = g.c * g.mult;
  ops::ParallelFor(g.n * g.oh, MinRows(g), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / g.oh;
      const int64_t y = r % g.oh;
      T* out_row = out + r * g.ow * oc;
      for (int64_t x = 0; x < g.ow; ++x) {
        T* o = out_row + x * oc;
        std::fill(o, o + oc, T(0));
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t iy = y * g.sh - g.pt + i * g.dh;
          if (iy < 0 || iy >= g.h) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t ix = x * g.sw - g.pl + j * g.dw;
            if (ix < 0 || ix >= g.w) continue;
            const T* px = in + ((b * g.h + iy) * g.w + ix) * g.c;
            const T* f = filter + (i * g.kw + j) * oc;
            if (g.mult == 1) {
              Eigen::Map<Array> ov(o, oc);
              ov += Eigen::Map<const Array>(px, oc) *
                    Eigen::Map<const Array>(f, oc);
            } else {
              for (int64_t c = 0; c < g.c; ++c) {
                const T v = px[c];
                T* oo = o + c * g.mult;
                const T* ff = f + c * g.mult;
                for (int64_t m = 0; m < g.mult; ++m) oo[m] += v * ff[m];
              }
            }
          }
        }
      }
      nn::ApplyEpilogue(e, args, out_row, g.ow, oc);
    }
  });
}

struct DepthwiseConfig {
  std::string op;
  WindowAttrs w;
  DType t = DType::kInvalid;
  FusedEpilogue epilogue;
};

absl::StatusOr<Geometry2D> MakeGeometry(const WindowAttrs& w, const Tensor& x,
                                        const Tensor& filter, int filter_rank) {
  if (x.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected input of rank 4, got ", x.DebugString()));
  }
  if (filter.rank() != filter_rank) {
    return absl::InvalidArgumentError(absl::StrCat("expected filter of rank ",
                                                   filter_rank, ", got ",
                                                   filter.DebugString()));
  }
  Geometry2D g;
  g.n = x.dim(0);
  g.h = x.dim(1);
  g.w = x.dim(2);
  g.c = x.dim(3);
  g.kh = filter.dim(0);
  g.kw = filter.dim(1);
  g.mult = filter_rank == 4 ? filter.dim(3) : 1;
  if (filter.dim(2) != g.c) {
    return absl::InvalidArgumentError(
        absl::StrCat("input depth ", g.c, " does not match filter depth ",
                     filter.dim(2), ": input (channels-last) ", x.DebugString(),
                     ", filter ", filter.DebugString()));
  }
  g.sh = w.strides[0];
  g.sw = w.strides[1];
  g.dh = w.dilations[0];
  g.dw = w.dilations[1];
  GRAPHRT_ASSIGN_OR_RETURN(nn::WindowDim hd,
                           nn::ComputeWindow(g.h, g.kh, g.sh, g.dh, w.padding,
                                             w.pads[0], w.pads[1]));
  GRAPHRT_ASSIGN_OR_RETURN(nn::WindowDim wd,
                           nn::ComputeWindow(g.w, g.kw, g.sw, g.dw, w.padding,
                                             w.pads[2], w.pads[3]));
  g.oh = hd.out;
  g.ow = wd.out;
  g.pt = hd.pad_before;
  g.pl = wd.pad_before;
  return g;
}

class DepthwiseKernel : public Kernel {
 public:
  explicit DepthwiseKernel(DepthwiseConfig c) : c_(std::move(c)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2 + c_.epilogue.num_args));
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    GRAPHRT_RETURN_IF_ERROR(nn::CheckFloatInput(input, c_.t, "input"));
    GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(filter, input.dtype(), "filter"));
    if (input.rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of rank 4, got ", input.DebugString()));
    }
    Tensor x = input;
    if (c_.w.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(x, nn::ChannelsLastCopy(input));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Geometry2D g, MakeGeometry(c_.w, x, filter, 4));
    const int64_t oc = g.c * g.mult;
    GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape,
                             Shape::Make({g.n, g.oh, g.ow, oc}));
    return ops::DispatchDType<float, double>(
        x.dtype(), c_.op, [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          EpilogueArgs<T> args;
          GRAPHRT_RETURN_IF_ERROR(
              nn::PrepareEpilogue<T>(c_.epilogue, ctx, oc, &args));
          auto compute = [&](T* dst) -> absl::Status {
            if constexpr (std::is_same_v<T, float>) {
              GRAPHRT_ASSIGN_OR_RETURN(bool done,
                                       RunFast(ctx, g, x, filter, args, dst));
              if (done) return absl::OkStatus();
            }
            GRAPHRT_ASSIGN_OR_RETURN(Tensor readable,
                                     nn::ReadableFilter(fast_.dnnl, filter));
            DepthwiseForward<T>(x.data<T>(), readable.data<T>(), dst, g,
                                c_.epilogue, args);
            return absl::OkStatus();
          };
          if (!c_.w.channels_first) {
            GRAPHRT_ASSIGN_OR_RETURN(
                Tensor * out,
                ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
            return compute(out->mutable_data<T>());
          }
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor tmp, Tensor::AllocateUninitialized(x.dtype(), out_shape));
          GRAPHRT_RETURN_IF_ERROR(compute(tmp.mutable_data<T>()));
          GRAPHRT_ASSIGN_OR_RETURN(Tensor out, nn::ChannelsFirstCopy(tmp));
          ctx.set_output(0, std::move(out));
          return absl::OkStatus();
        });
  }

  // The filter (input 1) when it is a Const: oneDNN packs it and the
  // decoded copy goes (DnnlConv::AdoptFilter).
  bool CanAdoptConstInput(int index, const Tensor& value) const override {
    return index == 1 && nn::CanAdoptFilter(value);
  }
  void AdoptConstInput(int index, Tensor value) override {
    fast_.dnnl.AdoptFilter(std::move(value));
  }

 private:
  // float32 on oneDNN's / XNNPACK's depthwise kernels (prepacked on first
  // use); false when both decline.
  absl::StatusOr<bool> RunFast(const KernelContext& ctx, const Geometry2D& g,
                               const Tensor& x, const Tensor& filter,
                               const EpilogueArgs<float>& args,
                               float* out) const {
    nn::XnnConvSpec spec;
    spec.depthwise = true;
    spec.kh = g.kh;
    spec.kw = g.kw;
    spec.stride_h = g.sh;
    spec.stride_w = g.sw;
    spec.dilation_h = g.dh;
    spec.dilation_w = g.dw;
    spec.pad_top = g.pt;
    spec.pad_left = g.pl;
    spec.pad_bottom = std::max<int64_t>(
        0, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.h - g.pt);
    spec.pad_right = std::max<int64_t>(
        0, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.w - g.pl);
    spec.in_channels = g.c;
    spec.out_channels = g.c * g.mult;
    return nn::RunFastFusedConv(fast_, spec, c_.epilogue, args, ctx, filter,
                                /*residual=*/nullptr, x.data<float>(), g.n, g.h,
                                g.w, g.oh, g.ow, out);
  }

  DepthwiseConfig c_;
  nn::FastConv fast_;
};

absl::Status CheckFloatT(const AttrReader& attrs, DType t) {
  if (t != DType::kInvalid && t != DType::kFloat32 && t != DType::kFloat64) {
    return attrs.Error(
        "T", absl::StrCat("must be float32 or float64, got ", DTypeName(t)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateDepthwise(const KernelInit& init,
                                                        bool fused) {
  AttrReader attrs(init.node);
  DepthwiseConfig c;
  c.op = init.node.op();
  GRAPHRT_ASSIGN_OR_RETURN(c.w, nn::ReadWindowAttrs(attrs, {}));
  GRAPHRT_ASSIGN_OR_RETURN(c.t, attrs.GetType("T", DType::kInvalid));
  GRAPHRT_RETURN_IF_ERROR(CheckFloatT(attrs, c.t));
  if (fused) {
    GRAPHRT_ASSIGN_OR_RETURN(c.epilogue,
                             nn::ReadFusedEpilogue(attrs, false, true));
  }
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 2 + c.epilogue.num_args));
  return std::unique_ptr<Kernel>(new DepthwiseKernel(std::move(c)));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateDepthwisePlain(
    const KernelInit& init) {
  return CreateDepthwise(init, false);
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateDepthwiseFused(
    const KernelInit& init) {
  return CreateDepthwise(init, true);
}

// ---- Dilation2D ----

template <typename T>
void Dilation2DForward(const T* in, const T* filter, T* out,
                       const Geometry2D& g) {
  ops::ParallelFor(g.n * g.oh, MinRows(g), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / g.oh;
      const int64_t y = r % g.oh;
      for (int64_t x = 0; x < g.ow; ++x) {
        T* o = out + (r * g.ow + x) * g.c;
        for (int64_t c = 0; c < g.c; ++c) {
          T cur = std::numeric_limits<T>::lowest();
          for (int64_t i = 0; i < g.kh; ++i) {
            const int64_t iy = y * g.sh - g.pt + i * g.dh;
            if (iy < 0 || iy >= g.h) continue;
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t ix = x * g.sw - g.pl + j * g.dw;
              if (ix < 0 || ix >= g.w) continue;
              const T v = in[((b * g.h + iy) * g.w + ix) * g.c + c] +
                          filter[(i * g.kw + j) * g.c + c];
              if (v > cur) cur = v;
            }
          }
          o[c] = cur;
        }
      }
    }
  });
}

class Dilation2DKernel : public Kernel {
 public:
  Dilation2DKernel(WindowAttrs w, DType t) : w_(std::move(w)), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    GRAPHRT_RETURN_IF_ERROR(nn::CheckFloatInput(x, t_, "input"));
    GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(filter, x.dtype(), "filter"));
    GRAPHRT_ASSIGN_OR_RETURN(Geometry2D g, MakeGeometry(w_, x, filter, 3));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * out,
        ctx.allocate_output(0, x.dtype(), Shape({g.n, g.oh, g.ow, g.c})));
    return ops::DispatchDType<float, double>(
        x.dtype(), "Dilation2D", [&](auto tag) {
          using T = typename decltype(tag)::type;
          Dilation2DForward<T>(x.data<T>(), filter.data<T>(),
                               out->mutable_data<T>(), g);
          return absl::OkStatus();
        });
  }

 private:
  WindowAttrs w_;
  DType t_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateDilation2D(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  // Dilation2D names its dilations "rates"; read them through a copy of
  // the node with "rates" renamed.
  tensorflow::NodeDef node = init.node;
  if (node.attr().count("rates")) {
    (*node.mutable_attr())["dilations"] = node.attr().at("rates");
  }
  AttrReader renamed(node);
  nn::WindowAttrOptions opts;
  opts.allow_explicit = false;
  opts.allow_channels_first = false;
  GRAPHRT_ASSIGN_OR_RETURN(WindowAttrs w, nn::ReadWindowAttrs(renamed, opts));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  GRAPHRT_RETURN_IF_ERROR(CheckFloatT(attrs, t));
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 2));
  return std::unique_ptr<Kernel>(new Dilation2DKernel(std::move(w), t));
}

}  // namespace

void RegisterDepthwiseConv(OpRegistry& r) {
  r.Register("DepthwiseConv2dNative", CreateDepthwisePlain);
  r.Register("DepthwiseConv2d", CreateDepthwisePlain);
  r.Register("FusedDepthwiseConv2dNative", CreateDepthwiseFused);
  r.Register("Dilation2D", CreateDilation2D);
}

}  // namespace graphrt
