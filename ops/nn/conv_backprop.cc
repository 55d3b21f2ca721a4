// Conv2DBackpropInput (the gradient of Conv2D w.r.t. its input, i.e. the
// "transposed convolution"): inputs input_sizes (int32/int64, 4 entries in
// data_format order, or 2 entries [h, w]), filter [kh, kw, in_ch, out_ch],
// out_backprop [n, oh, ow, out_ch] (NHWC) or [n, out_ch, oh, ow] (NCHW).
// Attrs strides, padding SAME/VALID/EXPLICIT (explicit_paddings),
// dilations, data_format. float32 and float64.
//
// out_backprop's spatial size must equal the Conv2D output size for
// input_sizes. Computed per batch image as GEMM + col2im: a block of
// out_backprop rows [rows, out_ch] times filter^T [out_ch, kh*kw*in_ch]
// gives per-tap contributions that are scattered (added) into the input
// gradient in a fixed order. Batch images are split over oneTBB. float32
// runs on oneDNN's transposed convolution first (ops/nn/dnnl/dnnl_conv.h,
// filter prepacked once per node) when it takes the geometry.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/nn/conv_util.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "ops/nn/fused_conv.h"
#include "ops/nn/nn_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using nn::WindowAttrs;

constexpr int64_t kColsBudget = int64_t{1} << 18;

struct BackpropGeometry {
  int64_t n, h, w, cin, cout, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl;
};

// Windows that tile the input exactly (kernel == stride, undilated, no
// padding, input = out_backprop x stride) with few input channels: each
// dx pixel is one dot product, dy pixel . filter[i, j, o, :], with no
// overlapping taps to sum. oneDNN's transposed convolution runs these at
// 5-11 GFLOP/s (selfie's 2x2/2 16 -> 1 channel layer: 0.33 ms for 2
// MFLOP; meet's 16 -> 2); wider ones (handdetect's 256 -> 128) stay on
// oneDNN, which reaches 50+ GFLOP/s there.
constexpr int64_t kPixelShuffleMaxChannels = 8;
bool IsPixelShuffle(const BackpropGeometry& g) {
  return g.kh == g.sh && g.kw == g.sw && g.dh == 1 && g.dw == 1 && g.pt == 0 &&
         g.pl == 0 && g.h == g.oh * g.sh && g.w == g.ow * g.sw &&
         g.cin <= kPixelShuffleMaxChannels;
}

// dx row y * kh + i = dy row y [ow, cout] x filter[i]^T [cout, kw * cin]:
// the product's row x holds the kw * cin values of dx pixels x * kw + j,
// which are contiguous in dx. (One GEMM per block of 8 dy rows into a
// scratch block, then copied out, was slower: 0.35 ms on selfie's layer,
// Eigen's kernels being built for wider products.) Rows split over
// oneTBB; each is computed the same way whatever the split.
void PixelShuffleBackprop(const float* dy, const float* filter, float* dx,
                          const BackpropGeometry& g) {
  using Mat =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t row = g.kw * g.cin;
  const double work = static_cast<double>(g.n) * g.oh * g.ow * g.kh * row *
                      static_cast<double>(g.cout);
  ops::ParallelFor(
      g.n * g.oh, work >= (1 << 20) ? 8 : g.n * g.oh + 1,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          Eigen::Map<const Mat> dyrow(dy + r * g.ow * g.cout, g.ow, g.cout);
          for (int64_t i = 0; i < g.kh; ++i) {
            Eigen::Map<const Mat> fi(filter + i * row * g.cout, row, g.cout);
            Eigen::Map<Mat> out(dx + (r * g.kh + i) * g.w * g.cin, g.ow, row);
            out.noalias() = dyrow * fi.transpose();
          }
        }
      });
}

template <typename T>
void BackpropInput(const T* dy, const T* filter, T* dx,
                   const BackpropGeometry& g) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t depth = g.kh * g.kw * g.cin;
  const int64_t pixels = g.oh * g.ow;
  if (depth == 0 || pixels == 0 || g.cout == 0) return;  // dx stays zero
  const int64_t block =
      std::min<int64_t>(pixels, std::max<int64_t>(16, kColsBudget / depth));
  Eigen::Map<const Mat> filt(filter, depth, g.cout);
  const double work = static_cast<double>(g.n) * pixels * depth * g.cout;
  ops::ParallelFor(g.n, work >= (1 << 18) ? 2 : g.n + 1,
                   [&](int64_t b0, int64_t b1) {
                     std::vector<T> cols(static_cast<size_t>(block * depth));
                     for (int64_t b = b0; b < b1; ++b) {
                       T* dxb = dx + b * g.h * g.w * g.cin;
                       for (int64_t r0 = 0; r0 < pixels; r0 += block) {
                         const int64_t r1 = std::min(pixels, r0 + block);
                         Eigen::Map<const Mat> a(
                             dy + (b * pixels + r0) * g.cout, r1 - r0, g.cout);
                         Eigen::Map<Mat> c(cols.data(), r1 - r0, depth);
                         c.noalias() = a * filt.transpose();
                         const T* src = cols.data();
                         for (int64_t r = r0; r < r1; ++r) {
                           const int64_t y = r / g.ow, x = r % g.ow;
                           for (int64_t i = 0; i < g.kh; ++i) {
                             const int64_t iy = y * g.sh - g.pt + i * g.dh;
                             for (int64_t j = 0; j < g.kw; ++j, src += g.cin) {
                               const int64_t ix = x * g.sw - g.pl + j * g.dw;
                               if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
                                 continue;
                               T* d = dxb + (iy * g.w + ix) * g.cin;
                               for (int64_t ch = 0; ch < g.cin; ++ch)
                                 d[ch] += src[ch];
                             }
                           }
                         }
                       }
                     }
                   });
}

class BackpropInputKernel : public Kernel {
 public:
  BackpropInputKernel(WindowAttrs w, DType t) : w_(std::move(w)), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
    GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector sizes,
                             ops::ReadIntVector(ctx.input(0), "input_sizes"));
    const Tensor& filter = ctx.input(1);
    const Tensor& dy_in = ctx.input(2);
    GRAPHRT_RETURN_IF_ERROR(nn::CheckFloatInput(dy_in, t_, "out_backprop"));
    GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(filter, dy_in.dtype(), "filter"));
    if (filter.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected filter of rank 4, got ", filter.DebugString()));
    }
    if (dy_in.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected out_backprop of rank 4, got ", dy_in.DebugString()));
    }
    Tensor dy = dy_in;
    if (w_.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(dy, nn::ChannelsLastCopy(dy_in));
    }
    BackpropGeometry g;
    g.n = dy.dim(0);
    g.kh = filter.dim(0);
    g.kw = filter.dim(1);
    g.cin = filter.dim(2);
    g.cout = filter.dim(3);
    if (sizes.size() == 4) {
      const int c = w_.channels_first ? 1 : 3;
      const int hp = w_.channels_first ? 2 : 1;
      if (sizes[0] != g.n || sizes[c] != g.cin) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_sizes batch and depth must match out_backprop batch ", g.n,
            " and filter input depth ", g.cin, ", got input_sizes [", sizes[0],
            ",", sizes[1], ",", sizes[2], ",", sizes[3], "]"));
      }
      g.h = sizes[hp];
      g.w = sizes[hp + 1];
    } else if (sizes.size() == 2) {
      g.h = sizes[0];
      g.w = sizes[1];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input_sizes with 4 or 2 entries, got ",
                       ctx.input(0).DebugString()));
    }
    if (g.h < 0 || g.w < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_sizes must be non-negative, got height ", g.h,
                       ", width ", g.w));
    }
    if (dy.dim(3) != g.cout) {
      return absl::InvalidArgumentError(
          absl::StrCat("out_backprop depth ", dy.dim(3),
                       " does not match filter output depth ", g.cout));
    }
    g.sh = w_.strides[0];
    g.sw = w_.strides[1];
    g.dh = w_.dilations[0];
    g.dw = w_.dilations[1];
    GRAPHRT_ASSIGN_OR_RETURN(
        nn::WindowDim hd, nn::ComputeWindow(g.h, g.kh, g.sh, g.dh, w_.padding,
                                            w_.pads[0], w_.pads[1]));
    GRAPHRT_ASSIGN_OR_RETURN(
        nn::WindowDim wd, nn::ComputeWindow(g.w, g.kw, g.sw, g.dw, w_.padding,
                                            w_.pads[2], w_.pads[3]));
    if (hd.out != dy.dim(1) || wd.out != dy.dim(2)) {
      return absl::InvalidArgumentError(
          absl::StrCat("out_backprop spatial size [", dy.dim(1), ",", dy.dim(2),
                       "] does not match the convolution output size [", hd.out,
                       ",", wd.out, "] for input size [", g.h, ",", g.w, "]"));
    }
    g.oh = hd.out;
    g.ow = wd.out;
    g.pt = hd.pad_before;
    g.pl = wd.pad_before;
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make({g.n, g.h, g.w, g.cin}));
    Tensor dx;
    if (dy.dtype() == DType::kFloat32 && IsPixelShuffle(g)) {
      GRAPHRT_ASSIGN_OR_RETURN(
          dx, Tensor::AllocateUninitialized(dy.dtype(), shape));
      GRAPHRT_ASSIGN_OR_RETURN(Tensor readable,
                               nn::ReadableFilter(dnnl_, filter));
      PixelShuffleBackprop(dy.data<float>(), readable.data<float>(),
                           dx.mutable_data<float>(), g);
      return Finish(ctx, std::move(dx));
    }
    if (dy.dtype() == DType::kFloat32) {
      // oneDNN's transposed convolution writes every element of dx.
      GRAPHRT_ASSIGN_OR_RETURN(
          dx, Tensor::AllocateUninitialized(dy.dtype(), shape));
      GRAPHRT_ASSIGN_OR_RETURN(bool done, RunDnnl(g, filter, dy, &dx));
      if (done) return Finish(ctx, std::move(dx));
    }
    GRAPHRT_ASSIGN_OR_RETURN(dx, Tensor::Allocate(dy.dtype(), shape));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor readable,
                             nn::ReadableFilter(dnnl_, filter));
    GRAPHRT_RETURN_IF_ERROR((ops::DispatchDType<float, double>(
        dy.dtype(), "Conv2DBackpropInput", [&](auto tag) {
          using T = typename decltype(tag)::type;
          BackpropInput<T>(dy.data<T>(), readable.data<T>(),
                           dx.mutable_data<T>(), g);
          return absl::OkStatus();
        })));
    return Finish(ctx, std::move(dx));
  }

  // The filter (input 1) when it is a Const: oneDNN packs it and the
  // decoded copy goes (DnnlConv::AdoptFilter).
  bool CanAdoptConstInput(int index, const Tensor& value) const override {
    return index == 1 && nn::CanAdoptFilter(value);
  }
  void AdoptConstInput(int index, Tensor value) override {
    dnnl_.AdoptFilter(std::move(value));
  }

 private:
  absl::Status Finish(KernelContext& ctx, Tensor dx) const {
    if (w_.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(dx, nn::ChannelsFirstCopy(dx));
    }
    ctx.set_output(0, std::move(dx));
    return absl::OkStatus();
  }

  // float32 on oneDNN (filter prepacked on first use); false when it
  // declines.
  absl::StatusOr<bool> RunDnnl(const BackpropGeometry& g, const Tensor& filter,
                               const Tensor& dy, Tensor* dx) const {
    nn::XnnConvSpec spec;
    spec.kh = g.kh;
    spec.kw = g.kw;
    spec.stride_h = g.sh;
    spec.stride_w = g.sw;
    spec.dilation_h = g.dh;
    spec.dilation_w = g.dw;
    spec.pad_top = g.pt;
    spec.pad_left = g.pl;
    // Trailing padding that makes the floor-formula output size g.oh / g.ow
    // (negative when TF leaves trailing input rows outside every window).
    spec.pad_bottom = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.h - g.pt;
    spec.pad_right = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.w - g.pl;
    if (spec.pad_bottom < 0 || spec.pad_right < 0) return false;
    spec.in_channels = g.cin;
    spec.out_channels = g.cout;
    return dnnl_.RunBackpropInput(spec, filter, dy.data<float>(), g.n, g.h, g.w,
                                  g.oh, g.ow, dx->mutable_data<float>());
  }

  WindowAttrs w_;
  DType t_;
  nn::DnnlConv dnnl_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateBackpropInput(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(WindowAttrs w, nn::ReadWindowAttrs(attrs, {}));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid && t != DType::kFloat32 && t != DType::kFloat64) {
    return attrs.Error(
        "T", absl::StrCat("must be float32 or float64, got ", DTypeName(t)));
  }
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 3));
  return std::unique_ptr<Kernel>(new BackpropInputKernel(std::move(w), t));
}

}  // namespace

void RegisterConvBackprop(OpRegistry& r) {
  r.Register("Conv2DBackpropInput", CreateBackpropInput);
}

}  // namespace graphrt
