// Conv1D (TF.js op: attrs stride, dilation scalars, NWC/NCW), Conv2D,
// _FusedConv2D (grappler: Conv2D + [BiasAdd | FusedBatchNorm] + optional
// activation, see conv_util.h) and Conv3D. float32 and float64.
//
// float32 1-d and 2-d convolutions run on oneDNN or XNNPACK (ops/nn/
// fused_conv.h: filter prepacked once per node, bias and Relu/Relu6 fused in
// the kernel's epilogue, other epilogues applied after); measured in
// bench/kernel_bench.cc, see bench/RESULTS.md. Everything else (float64,
// Conv3D, both backends unavailable or declining) runs on the portable
// kernel below.
//
// The portable path runs all three on one channels-last N-d kernel (1-d and 2-d
// convs are 3-d convs with unit leading dims): im2col of a fixed-size block of
// output pixels into a [rows, k_d*k_h*k_w*in_ch] patch matrix, multiplied with
// the filter viewed as [k_d*k_h*k_w*in_ch, out_ch] on Eigen's GEMM. A 1x1
// filter with stride 1 and no padding skips im2col (the input already is
// the patch matrix). Blocks are fixed by the geometry (not the thread
// count) and split over oneTBB, so results do not depend on threads.
// Channels-first inputs are transposed to channels-last and back.
// Grouped convolution (input depth a multiple of the filter depth) is
// rejected.
#include <algorithm>
#include <cstdint>
#include <cstring>
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
#include "ops/nn/residual_add.h"
#include "ops/nn/xnnpack/xnn_conv.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using nn::EpilogueArgs;
using nn::FusedEpilogue;
using nn::Padding;
using nn::WindowAttrs;

// Patch-matrix elements per block (per thread).
constexpr int64_t kPatchBudget = int64_t{1} << 18;

// Geometry padded to 3 spatial dims (d, h, w).
struct ConvGeometry {
  int64_t n = 0, cin = 0, cout = 0;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
};

template <typename T>
void FillPatches(const T* in, const ConvGeometry& g, int64_t r0, int64_t r1,
                 T* patches) {
  const int64_t out_pixels = g.out[0] * g.out[1] * g.out[2];
  const int64_t cin = g.cin;
  T* dst = patches;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / out_pixels;
    int64_t p = r % out_pixels;
    const int64_t ow = p % g.out[2];
    p /= g.out[2];
    const int64_t oh = p % g.out[1];
    const int64_t od = p / g.out[1];
    const int64_t bd = od * g.stride[0] - g.pad[0];
    const int64_t bh = oh * g.stride[1] - g.pad[1];
    const int64_t bw = ow * g.stride[2] - g.pad[2];
    const T* batch_in = in + b * g.in[0] * g.in[1] * g.in[2] * cin;
    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
      const int64_t id = bd + kd * g.dil[0];
      const bool vd = id >= 0 && id < g.in[0];
      for (int64_t kh = 0; kh < g.k[1]; ++kh) {
        const int64_t ih = bh + kh * g.dil[1];
        const bool vh = vd && ih >= 0 && ih < g.in[1];
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          const int64_t iw = bw + kw * g.dil[2];
          if (vh && iw >= 0 && iw < g.in[2]) {
            std::memcpy(dst,
                        batch_in + ((id * g.in[1] + ih) * g.in[2] + iw) * cin,
                        static_cast<size_t>(cin) * sizeof(T));
          } else {
            std::fill(dst, dst + cin, T(0));
          }
          dst += cin;
        }
      }
    }
  }
}

// out [n, out_d, out_h, out_w, cout] = conv(in, filter), then epilogue.
template <typename T>
void ConvForward(const T* in, const T* filter, T* out, const ConvGeometry& g,
                 const FusedEpilogue& e, const EpilogueArgs<T>& args) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t kpix = g.k[0] * g.k[1] * g.k[2];
  const int64_t depth = kpix * g.cin;
  const int64_t rows = g.n * g.out[0] * g.out[1] * g.out[2];
  if (rows == 0 || g.cout == 0) return;
  bool direct = kpix == 1;
  for (int i = 0; i < 3; ++i) {
    direct = direct && g.stride[i] == 1 && g.pad[i] == 0 && g.out[i] == g.in[i];
  }
  const int64_t block = std::min<int64_t>(
      rows, std::max<int64_t>(16, kPatchBudget / std::max<int64_t>(depth, 1)));
  const int64_t num_blocks = (rows + block - 1) / block;
  const double work = static_cast<double>(rows) * depth * g.cout;
  const int64_t min_parallel = work >= (1 << 18) ? 2 : num_blocks + 1;
  Eigen::Map<const Mat> filt(filter, depth, g.cout);
  ops::ParallelFor(num_blocks, min_parallel, [&](int64_t b0, int64_t b1) {
    std::vector<T> patches(direct ? 0 : static_cast<size_t>(block * depth));
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t r0 = blk * block;
      const int64_t r1 = std::min(rows, r0 + block);
      Eigen::Map<Mat> c(out + r0 * g.cout, r1 - r0, g.cout);
      if (depth == 0) {
        c.setZero();
      } else if (direct) {
        Eigen::Map<const Mat> a(in + r0 * g.cin, r1 - r0, depth);
        c.noalias() = a * filt;
      } else {
        FillPatches(in, g, r0, r1, patches.data());
        Eigen::Map<const Mat> a(patches.data(), r1 - r0, depth);
        c.noalias() = a * filt;
      }
      nn::ApplyEpilogue(e, args, out + r0 * g.cout, r1 - r0, g.cout);
    }
  });
}

struct ConvConfig {
  std::string op;
  WindowAttrs w;
  DType t = DType::kInvalid;
  FusedEpilogue epilogue;  // kind kNone, no act for plain convs
};

class ConvKernel : public Kernel {
 public:
  explicit ConvKernel(ConvConfig c) : c_(std::move(c)) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2 + c_.epilogue.num_args));
    const int s = c_.w.num_spatial;
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    GRAPHRT_RETURN_IF_ERROR(nn::CheckFloatInput(input, c_.t, "input"));
    GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(filter, input.dtype(), "filter"));
    if (input.rank() != s + 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected input of rank ", s + 2, ", got ", input.DebugString()));
    }
    if (filter.rank() != s + 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected filter of rank ", s + 2, ", got ", filter.DebugString()));
    }
    Tensor x = input;
    if (c_.w.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(x, nn::ChannelsLastCopy(input));
    }
    ConvGeometry g;
    g.n = x.dim(0);
    g.cin = x.dim(s + 1);
    g.cout = filter.dim(s + 1);
    const int64_t fin = filter.dim(s);
    if (fin != g.cin) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input depth ", g.cin, " does not match filter depth ", fin,
          (fin > 0 && g.cin % fin == 0) ? " (grouped convolution is not "
                                          "supported)"
                                        : "",
          ": input ", input.DebugString(), ", filter ", filter.DebugString()));
    }
    ops::DimVector out_dims = {g.n};
    for (int i = 0; i < s; ++i) {
      const int d = 3 - s + i;
      g.in[d] = x.dim(1 + i);
      g.k[d] = filter.dim(i);
      g.stride[d] = c_.w.strides[i];
      g.dil[d] = c_.w.dilations[i];
      GRAPHRT_ASSIGN_OR_RETURN(
          nn::WindowDim wd,
          nn::ComputeWindow(g.in[d], g.k[d], g.stride[d], g.dil[d],
                            c_.w.padding, c_.w.pads[2 * i],
                            c_.w.pads[2 * i + 1]));
      g.out[d] = wd.out;
      g.pad[d] = wd.pad_before;
      out_dims.push_back(wd.out);
    }
    out_dims.push_back(g.cout);
    GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape, Shape::Make(out_dims));
    return ops::DispatchDType<float, double>(
        x.dtype(), c_.op, [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          EpilogueArgs<T> args;
          GRAPHRT_RETURN_IF_ERROR(
              nn::PrepareEpilogue<T>(c_.epilogue, ctx, g.cout, &args));
          // [BiasAdd, Add(, act)]: the addend (input 3) is added in the
          // epilogue when it has exactly the output's shape (channels
          // last); otherwise after the convolution, with broadcasting.
          const FusedEpilogue& e = c_.epilogue;
          const Tensor* residual = e.residual ? &ctx.input(3) : nullptr;
          const bool fuse_residual =
              residual != nullptr && !c_.w.channels_first &&
              residual->dtype() == x.dtype() && residual->shape() == out_shape;
          FusedEpilogue conv_e = e;  // what the convolution itself applies
          if (e.residual) {
            conv_e.residual = false;
            conv_e.act = ops::Activation::kNone;
            conv_e.prelu = false;
          }
          auto compute = [&](T* dst) -> absl::Status {
            const T* res = fuse_residual ? residual->data<T>() : nullptr;
            if constexpr (std::is_same_v<T, float>) {
              GRAPHRT_ASSIGN_OR_RETURN(
                  bool done,
                  RunFast(ctx, g, x, filter, fuse_residual ? e : conv_e, args,
                          res, dst));
              if (done) return absl::OkStatus();
            }
            GRAPHRT_ASSIGN_OR_RETURN(Tensor readable,
                                     nn::ReadableFilter(fast_.dnnl, filter));
            ConvForward<T>(x.data<T>(), readable.data<T>(), dst, g, conv_e,
                           args);
            if (res != nullptr) {
              nn::AddResidualActivate(res, dst, out_shape.num_elements(),
                                      e.act);
              if (e.prelu) {
                return nn::ApplyPrelu(args, dst, out_shape.num_elements(),
                                      g.cout, g.cout);
              }
            }
            return absl::OkStatus();
          };
          if constexpr (std::is_same_v<T, float>) {
            // The addend's storage becomes the output when nothing else
            // reads it: oneDNN then accumulates onto it in place (no copy).
            // Only oneDNN reads the addend before writing each element.
            Tensor* out =
                fuse_residual && nn::DnnlAvailable()
                    ? ctx.forward_input_to_output(3, 0, x.dtype(), out_shape)
                    : nullptr;
            if (out != nullptr) {
              GRAPHRT_ASSIGN_OR_RETURN(
                  bool done,
                  RunFast(ctx, g, x, filter, e, args, out->data<float>(),
                          out->mutable_data<float>(),
                          /*dnnl_only=*/true));
              if (done) return absl::OkStatus();
            }
          }
          if (!c_.w.channels_first && (residual == nullptr || fuse_residual)) {
            GRAPHRT_ASSIGN_OR_RETURN(
                Tensor * out,
                ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
            return compute(out->mutable_data<T>());
          }
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor tmp, Tensor::AllocateUninitialized(x.dtype(), out_shape));
          GRAPHRT_RETURN_IF_ERROR(compute(tmp.mutable_data<T>()));
          Tensor out = tmp;
          if (c_.w.channels_first) {
            GRAPHRT_ASSIGN_OR_RETURN(out, nn::ChannelsFirstCopy(tmp));
          }
          if (residual != nullptr) {
            GRAPHRT_ASSIGN_OR_RETURN(
                out, nn::BroadcastAddActivate<T>(out, *residual, e.act));
            if (e.prelu) {
              GRAPHRT_RETURN_IF_ERROR(nn::ApplyPrelu(
                  args, out.mutable_data<T>(), out.num_elements(), g.cout,
                  out.rank() == 0 ? 1 : out.dim(out.rank() - 1)));
            }
          }
          ctx.set_output(0, std::move(out));
          return absl::OkStatus();
        });
  }

  // The filter (input 1) when it is a Const: oneDNN packs it and the
  // decoded copy goes (DnnlConv::AdoptFilter).
  bool CanAdoptConstInput(int index, const Tensor& value) const override {
    return index == 1 && c_.w.num_spatial == 2 && nn::CanAdoptFilter(value);
  }
  void AdoptConstInput(int index, Tensor value) override {
    fast_.dnnl.AdoptFilter(std::move(value));
  }

 private:
  // 1-d and 2-d float32 convolutions on oneDNN / XNNPACK (prepacked on
  // first use); false when both decline.
  absl::StatusOr<bool> RunFast(const KernelContext& ctx, const ConvGeometry& g,
                               const Tensor& x, const Tensor& filter,
                               const FusedEpilogue& e,
                               const EpilogueArgs<float>& args,
                               const float* residual, float* out,
                               bool dnnl_only = false) const {
    if (c_.w.num_spatial > 2) return false;
    nn::XnnConvSpec spec;
    spec.kh = g.k[1];
    spec.kw = g.k[2];
    spec.stride_h = g.stride[1];
    spec.stride_w = g.stride[2];
    spec.dilation_h = g.dil[1];
    spec.dilation_w = g.dil[2];
    spec.pad_top = g.pad[1];
    spec.pad_left = g.pad[2];
    spec.pad_bottom = PadAfter(g, 1);
    spec.pad_right = PadAfter(g, 2);
    spec.in_channels = g.cin;
    spec.out_channels = g.cout;
    return nn::RunFastFusedConv(fast_, spec, e, args, ctx, filter, residual,
                                x.data<float>(), g.n, g.in[1], g.in[2],
                                g.out[1], g.out[2], out, dnnl_only);
  }

  // Trailing padding that makes the floor-formula output size g.out[d].
  static int64_t PadAfter(const ConvGeometry& g, int d) {
    const int64_t effective = (g.k[d] - 1) * g.dil[d] + 1;
    return std::max<int64_t>(
        0, (g.out[d] - 1) * g.stride[d] + effective - g.in[d] - g.pad[d]);
  }

  ConvConfig c_;
  nn::FastConv fast_;
};

absl::Status CheckT(const AttrReader& attrs, DType t) {
  if (t != DType::kInvalid && t != DType::kFloat32 && t != DType::kFloat64) {
    return attrs.Error(
        "T", absl::StrCat("must be float32 or float64, got ", DTypeName(t)));
  }
  return absl::OkStatus();
}

absl::Status CheckInputs(const KernelInit& init, int want) {
  if (init.num_inputs != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(), "' needs ", want,
                     " inputs, has ", init.num_inputs));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateConvNd(const KernelInit& init,
                                                     int num_spatial,
                                                     bool fused) {
  AttrReader attrs(init.node);
  ConvConfig c;
  c.op = init.node.op();
  nn::WindowAttrOptions opts;
  opts.num_spatial = num_spatial;
  opts.allow_explicit = num_spatial == 2;
  GRAPHRT_ASSIGN_OR_RETURN(c.w, nn::ReadWindowAttrs(attrs, opts));
  GRAPHRT_ASSIGN_OR_RETURN(c.t, attrs.GetType("T", DType::kInvalid));
  GRAPHRT_RETURN_IF_ERROR(CheckT(attrs, c.t));
  if (fused) {
    GRAPHRT_ASSIGN_OR_RETURN(c.epilogue,
                             nn::ReadFusedEpilogue(attrs, true, false));
  }
  GRAPHRT_RETURN_IF_ERROR(CheckInputs(init, 2 + c.epilogue.num_args));
  return std::unique_ptr<Kernel>(new ConvKernel(std::move(c)));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateConv2D(const KernelInit& init) {
  return CreateConvNd(init, 2, false);
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateFusedConv2D(
    const KernelInit& init) {
  return CreateConvNd(init, 2, true);
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateConv3D(const KernelInit& init) {
  return CreateConvNd(init, 3, false);
}

// TF.js's Conv1D: scalar attrs stride / dilation, data_format NWC or NCW,
// padding SAME or VALID; filter [w, in, out].
absl::StatusOr<std::unique_ptr<Kernel>> CreateConv1D(const KernelInit& init) {
  AttrReader attrs(init.node);
  ConvConfig c;
  c.op = init.node.op();
  c.w.num_spatial = 1;
  GRAPHRT_ASSIGN_OR_RETURN(std::string fmt,
                           attrs.GetString("data_format", "NWC"));
  if (fmt == "NWC" || fmt == "NHWC") {
    c.w.channels_first = false;
  } else if (fmt == "NCW" || fmt == "NCHW") {
    c.w.channels_first = true;
  } else {
    return attrs.Error("data_format",
                       absl::StrCat("must be NWC or NCW, got '", fmt, "'"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(int64_t stride, attrs.GetInt("stride", 1));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t dilation, attrs.GetInt("dilation", 1));
  if (stride <= 0) return attrs.Error("stride", "must be positive");
  if (dilation <= 0) return attrs.Error("dilation", "must be positive");
  c.w.strides = {stride};
  c.w.dilations = {dilation};
  c.w.pads = {0, 0};
  GRAPHRT_ASSIGN_OR_RETURN(c.w.padding, nn::ParsePadding(attrs, false));
  GRAPHRT_ASSIGN_OR_RETURN(c.t, attrs.GetType("T", DType::kInvalid));
  GRAPHRT_RETURN_IF_ERROR(CheckT(attrs, c.t));
  GRAPHRT_RETURN_IF_ERROR(CheckInputs(init, 2));
  return std::unique_ptr<Kernel>(new ConvKernel(std::move(c)));
}

}  // namespace

void RegisterConv(OpRegistry& r) {
  r.Register("Conv1D", CreateConv1D);
  r.Register("Conv2D", CreateConv2D);
  r.Register("_FusedConv2D", CreateFusedConv2D);
  r.Register("Conv3D", CreateConv3D);
}

}  // namespace graphrt
