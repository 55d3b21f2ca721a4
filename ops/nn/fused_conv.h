// Runs a float32 NHWC convolution with a fused epilogue (conv_util.h) on
// the fast backends, shared by conv.cc and depthwise_conv.cc: graphrt's
// direct kernel for small layers whose filter the kernel adopted
// (ops/nn/direct/direct_conv.h: no JIT code, no indirection buffers), then
// oneDNN (ops/nn/dnnl/dnnl_conv.h), then XNNPACK (ops/nn/xnnpack/
// xnn_conv.h). Returns false (nothing written) when all decline, so the
// caller falls back to its portable kernel. A node that runs on the direct
// kernel once runs there on every later Run.
//
// The direct kernel and oneDNN add the bias after the whole dot product,
// so a plain bias, a residual addend ([BiasAdd, Add(, act)]) and a final
// Relu / Relu6 are fused into their kernels for every convolution.
//
// XNNPACK: depthwise convolutions get the bias and a Relu / Relu6 clamp
// inside the micro-kernel epilogue. Regular convolutions get no bias from
// XNNPACK; it is added afterwards, because XNNPACK starts each accumulator
// at the bias: with a large (batch-norm folded) bias every partial sum is
// rounded at the bias's magnitude, which made dot products of 1k-2k terms
// 3-6x less accurate than summing the products first (measured against a
// float64 reference; posenet then missed TF.js's goldens). A 9- or 25-tap
// depthwise sum loses nothing measurable, so there the fused bias stays.
//
// Whatever else the epilogue asks for (folded batch norm, Elu, LeakyRelu,
// Sigmoid, Tanh, Prelu, and a clamp after any of them) is applied
// afterwards by ApplyEpilogue on the output rows.
#ifndef GRAPHRT_OPS_NN_FUSED_CONV_H_
#define GRAPHRT_OPS_NN_FUSED_CONV_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "ops/kernel.h"
#include "ops/nn/conv_util.h"
#include "ops/nn/direct/direct_conv.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "ops/nn/residual_add.h"
#include "ops/nn/xnnpack/xnn_conv.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace nn {

// The fast backends of one convolution node (each caches its prepacked
// operators).
struct FastConv {
  DirectConv direct;
  DnnlConv dnnl;
  XnnConv xnn;
};

// Whether this call runs on fast.direct: decided on the node's first Run
// (DirectConv::Adopt), which then packs the filter oneDNN adopted. A filter
// fed in place of the adopted Const is an ordinary tensor and never runs
// here (the packed copy is the Const's).
inline absl::StatusOr<bool> UseDirectConv(const FastConv& fast,
                                          const XnnConvSpec& spec,
                                          const Tensor& filter, int64_t n,
                                          int64_t out_h, int64_t out_w) {
  if (!IsReleasedConst(filter)) return false;
  if (fast.direct.ready()) return true;
  // oneDNN's Winograd kernels beat the direct kernel's 3x3 tiles wherever
  // they take a layer (bench/RESULTS.md, "Winograd").
  return fast.direct.Adopt(
      spec,
      DirectConv::Prefers(spec, n, out_h, out_w) &&
          !DnnlWinogradPays(spec, n, out_h, out_w),
      [&fast] { return fast.dnnl.ReleaseAdoptedFilter(); });
}

// Whether a convolution kernel takes over its Const filter `value`
// (Kernel::CanAdoptConstInput): float32 2-D filters, when oneDNN runs (it
// keeps the packed copy; DnnlConv::AdoptFilter).
inline bool CanAdoptFilter(const Tensor& value) {
  return value.dtype() == DType::kFloat32 && value.rank() == 4 &&
         DnnlAvailable();
}

// `filter` itself, or, for the placeholder of a filter the kernel adopted
// (IsReleasedConst), that filter in TF's layout (rebuilt from oneDNN's
// packed copy once, then kept): for the paths that read the filter.
inline absl::StatusOr<Tensor> ReadableFilter(const DnnlConv& dnnl,
                                             const Tensor& filter) {
  if (!IsReleasedConst(filter)) return filter;
  return dnnl.AdoptedFilter();
}

// `spec` carries the geometry (its clamp is set here). `args` are the
// epilogue's per-run values from PrepareEpilogue (validated inputs).
// `residual` (e.residual: the addend of [BiasAdd, Add(, act)], with the
// output's shape and layout; else null) is added after the bias and before
// e.act: by oneDNN inside its kernel, after XNNPACK in one pass.
// `residual` may be `out` itself (the addend's storage forwarded as the
// output) only with `dnnl_only`: the XNNPACK path would overwrite it first.
inline absl::StatusOr<bool> RunFastFusedConv(
    const FastConv& fast, XnnConvSpec spec, const FusedEpilogue& e,
    const EpilogueArgs<float>& args, const KernelContext& ctx,
    const Tensor& filter, const float* residual, const float* in, int64_t n,
    int64_t h, int64_t w, int64_t out_h, int64_t out_w, float* out,
    bool dnnl_only = false) {
  GRAPHRT_ASSIGN_OR_RETURN(const bool direct,
                           UseDirectConv(fast, spec, filter, n, out_h, out_w));
  enum class Backend { kDirect, kDnnl, kXnnpack };
  for (const Backend backend :
       {Backend::kDirect, Backend::kDnnl, Backend::kXnnpack}) {
    if (backend == Backend::kDirect && !direct) continue;
    if (backend == Backend::kDnnl && !DnnlAvailable()) continue;
    if (backend == Backend::kXnnpack && dnnl_only) break;
    // Bias and residual inside the kernel, after the whole dot product.
    const bool in_kernel = backend != Backend::kXnnpack;
    FusedEpilogue rest = e;
    rest.residual = false;
    EpilogueArgs<float> rest_args;
    const Tensor* bias = nullptr;
    if (e.kind == FusedEpilogue::Kind::kBias && (in_kernel || spec.depthwise)) {
      bias = &ctx.input(2);
      rest.kind = FusedEpilogue::Kind::kNone;
    } else if (e.kind != FusedEpilogue::Kind::kNone) {
      rest_args.mul = args.mul;
      rest_args.add = args.add;
    }
    rest_args.alpha = args.alpha;
    rest_args.alpha_scalar = args.alpha_scalar;
    // A residual the kernel does not add comes after `rest` (then e.act).
    const bool residual_after = residual != nullptr && !in_kernel;
    if (residual_after) {
      rest.act = ops::Activation::kNone;
      rest.prelu = false;
    }
    // The clamp can be fused only when it is the last step.
    XnnConvSpec s = spec;
    const bool clamp_last =
        rest.kind == FusedEpilogue::Kind::kNone && !e.prelu && !residual_after;
    if (clamp_last && e.act == ops::Activation::kRelu) {
      s.out_min = 0.0f;
      rest.act = ops::Activation::kNone;
    } else if (clamp_last && e.act == ops::Activation::kRelu6) {
      s.out_min = 0.0f;
      s.out_max = 6.0f;
      rest.act = ops::Activation::kNone;
    }
    bool done = false;
    if (backend == Backend::kDirect) {
      GRAPHRT_RETURN_IF_ERROR(
          fast.direct.Run(s, bias == nullptr ? nullptr : bias->data<float>(),
                          residual, in, n, h, w, out_h, out_w, out));
      done = true;
    } else if (in_kernel) {
      GRAPHRT_ASSIGN_OR_RETURN(
          done, fast.dnnl.Run(s, filter, bias, residual, in, n, h, w, out_h,
                              out_w, out));
    } else {
      GRAPHRT_ASSIGN_OR_RETURN(Tensor readable,
                               ReadableFilter(fast.dnnl, filter));
      GRAPHRT_ASSIGN_OR_RETURN(done, fast.xnn.Run(s, readable, bias, in, n, h,
                                                  w, out_h, out_w, out));
    }
    if (!done) continue;
    const int64_t rows = n * out_h * out_w;
    ApplyEpilogue(rest, rest_args, out, rows, spec.out_channels);
    if (residual_after) {
      AddResidualActivate(residual, out, rows * spec.out_channels, e.act);
      if (e.prelu) {
        GRAPHRT_RETURN_IF_ERROR(ApplyPrelu(args, out, rows * spec.out_channels,
                                           spec.out_channels,
                                           spec.out_channels));
      }
    }
    return true;
  }
  return false;
}

}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_FUSED_CONV_H_
