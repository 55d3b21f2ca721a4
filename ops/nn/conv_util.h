// Helpers shared by the convolution, pooling and fused-conv kernels in
// ops/nn/:
//
// * Window geometry (TF's GetWindowedOutputSizeVerbose): output size and
//   leading padding of one spatial dimension for VALID / SAME / EXPLICIT.
// * WindowAttrs: reads strides / dilations / padding / explicit_paddings /
//   data_format of an N-d conv or pool op at load time, checking that the
//   batch and channel entries are 1 (strides, dilations) or 0 (paddings).
//   Entries are taken from the positions data_format says (TF semantics;
//   TF.js always reads positions 1 and 2, which is wrong for NCHW).
// * Layout transposes channels-first <-> channels-last. Kernels compute in
//   channels-last and transpose NCHW inputs/outputs around that.
// * FusedEpilogue: the "bias / batch-norm, then activation" tail of
//   _FusedConv2D / FusedDepthwiseConv2dNative, applied to [rows, channels]
//   blocks of channels-last output.
#ifndef GRAPHRT_OPS_NN_CONV_UTIL_H_
#define GRAPHRT_OPS_NN_CONV_UTIL_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/kernel.h"
#include "ops/math/activation_fns.h"
#include "runtime/status_macros.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace nn {

enum class Padding { kValid, kSame, kExplicit };

// Output size and leading padding of one windowed dimension.
struct WindowDim {
  int64_t out = 0;
  int64_t pad_before = 0;
};

// TF's windowed output size. `pad_before` / `pad_after` are used for
// kExplicit only. Fails on non-positive stride/dilation/size or a negative
// output size.
absl::StatusOr<WindowDim> ComputeWindow(int64_t in, int64_t k, int64_t stride,
                                        int64_t dilation, Padding padding,
                                        int64_t pad_before, int64_t pad_after);

// Load-time attrs of an N-d windowed op (num_spatial = 1, 2 or 3).
struct WindowAttrs {
  int num_spatial = 2;
  bool channels_first = false;  // NCHW / NCW / NCDHW
  Padding padding = Padding::kValid;
  std::vector<int64_t> strides;    // per spatial dim
  std::vector<int64_t> dilations;  // per spatial dim (1 when absent)
  std::vector<int64_t> ksize;      // per spatial dim (pools only)
  std::vector<int64_t> pads;       // 2 per spatial dim (kExplicit only)
};

struct WindowAttrOptions {
  int num_spatial = 2;
  bool allow_explicit = true;  // padding "EXPLICIT" accepted
  bool has_dilations = true;   // read attr "dilations"
  bool has_ksize = false;      // read attr "ksize" (pools)
  bool allow_channels_first = true;
};

// Reads data_format, strides, dilations, ksize, padding, explicit_paddings.
absl::StatusOr<WindowAttrs> ReadWindowAttrs(const AttrReader& attrs,
                                            const WindowAttrOptions& opts);

// Parses a padding string ("SAME", "VALID", "EXPLICIT").
absl::StatusOr<Padding> ParsePadding(const AttrReader& attrs,
                                     bool allow_explicit);

// Fails unless `t` is float32 or float64 or matches attr T (when set).
absl::Status CheckFloatInput(const Tensor& t, DType attr_t,
                             absl::string_view what);

// Channels-first [n, c, s] -> channels-last [n, s, c] and back.
template <typename T>
void ToChannelsLast(const T* in, T* out, int64_t n, int64_t c, int64_t s) {
  for (int64_t b = 0; b < n; ++b) {
    const T* src = in + b * c * s;
    T* dst = out + b * c * s;
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t i = 0; i < s; ++i) dst[i * c + ch] = src[ch * s + i];
    }
  }
}
template <typename T>
void ToChannelsFirst(const T* in, T* out, int64_t n, int64_t c, int64_t s) {
  for (int64_t b = 0; b < n; ++b) {
    const T* src = in + b * c * s;
    T* dst = out + b * c * s;
    for (int64_t i = 0; i < s; ++i) {
      for (int64_t ch = 0; ch < c; ++ch) dst[ch * s + i] = src[i * c + ch];
    }
  }
}

// Returns a channels-last copy of a channels-first tensor [n, c, spatial...]
// (shape [n, spatial..., c]).
absl::StatusOr<Tensor> ChannelsLastCopy(const Tensor& t);
// Converts a channels-last tensor [n, spatial..., c] into a new
// channels-first tensor [n, c, spatial...].
absl::StatusOr<Tensor> ChannelsFirstCopy(const Tensor& t);

// The fused tail of _FusedConv2D / FusedDepthwiseConv2dNative.
struct FusedEpilogue {
  enum class Kind { kNone, kBias, kBatchNorm };
  Kind kind = Kind::kNone;
  ops::Activation act = ops::Activation::kNone;
  bool prelu = false;
  // [BiasAdd, Add(, Relu|Relu6|Prelu)] (graphrt's load-time passes
  // FuseConvAdd and FuseConvPrelu, _FusedConv2D only): input 3 is added
  // after the bias, before `act` / the PReLU (whose slope is input 4).
  bool residual = false;
  // The activation's parameter: LeakyRelu's slope (attr leakyrelu_alpha,
  // default 0.2) or _HardSwish's scale (attr hardswish_scale, default 1/6).
  float act_alpha = 0.2f;
  float epsilon = 1e-4f;
  int num_args = 0;  // extra inputs after (input, filter)
};

// Parses attrs fused_ops / num_args / leakyrelu_alpha / hardswish_scale /
// epsilon.
// `allow_batch_norm`: accept [FusedBatchNorm(, act)] (4 args) and the
// residual form [BiasAdd, Add(, Relu|Relu6)] (2 args: bias, addend) or
// [BiasAdd, Add, Prelu] (3: bias, addend, slope; the _FusedConv2D kernel);
// `allow_noop`: accept [NoOp, act] (no bias,
// FusedDepthwiseConv2dNative).
absl::StatusOr<FusedEpilogue> ReadFusedEpilogue(const AttrReader& attrs,
                                                bool allow_batch_norm,
                                                bool allow_noop);

// Per-run values of the epilogue: per-channel multiplier/addend (bias or
// folded batch norm) and the Prelu alpha. The bias is read in place from
// its input; a folded batch norm lives in `folded`, whose storage comes from
// the Run's BufferPool (no heap call in steady state).
template <typename T>
struct EpilogueArgs {
  const T* mul = nullptr;  // `channels` values; null: no multiply
  const T* add = nullptr;  // `channels` values; null: no add
  const T* alpha = nullptr;
  bool alpha_scalar = false;
  Tensor folded;  // [2, channels]: mul then add, for a batch norm
};

// Checks the extra inputs (from input 2 on) against `channels` and fills
// `args`. Works for T = float or double.
template <typename T>
absl::Status PrepareEpilogue(const FusedEpilogue& e, const KernelContext& ctx,
                             int64_t channels, EpilogueArgs<T>* args) {
  const DType dt = DTypeOf<T>::value;
  auto check_vec = [&](int i, absl::string_view what) -> absl::Status {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != dt || t.rank() != 1 || t.dim(0) != channels) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected ", what, " of dtype ", DTypeName(dt), " and shape [",
          channels, "] (the output channels), got ", t.DebugString()));
    }
    return absl::OkStatus();
  };
  if (e.kind == FusedEpilogue::Kind::kBias) {
    GRAPHRT_RETURN_IF_ERROR(check_vec(2, "bias"));
    args->add = ctx.input(2).data<T>();
  } else if (e.kind == FusedEpilogue::Kind::kBatchNorm) {
    static const char* kNames[4] = {"scale", "offset", "mean", "variance"};
    for (int i = 0; i < 4; ++i) {
      GRAPHRT_RETURN_IF_ERROR(check_vec(2 + i, kNames[i]));
    }
    const T* scale = ctx.input(2).data<T>();
    const T* offset = ctx.input(3).data<T>();
    const T* mean = ctx.input(4).data<T>();
    const T* var = ctx.input(5).data<T>();
    GRAPHRT_ASSIGN_OR_RETURN(
        args->folded, Tensor::AllocateUninitialized(dt, Shape({2, channels})));
    T* mul = args->folded.template mutable_data<T>();
    T* add = mul + channels;
    for (int64_t c = 0; c < channels; ++c) {
      const T m = scale[c] / std::sqrt(var[c] + static_cast<T>(e.epsilon));
      mul[c] = m;
      add[c] = offset[c] - mean[c] * m;
    }
    args->mul = mul;
    args->add = add;
  }
  if (e.prelu) {
    const Tensor& a = ctx.input(ctx.num_inputs() - 1);
    const bool ok_shape = a.num_elements() == 1 ||
                          (a.num_elements() == channels && a.rank() >= 1 &&
                           a.dim(a.rank() - 1) == channels);
    if (a.dtype() != dt || !ok_shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected Prelu alpha of dtype ", DTypeName(dt), " with 1 or ",
          channels, " elements along the last axis, got ", a.DebugString()));
    }
    args->alpha = a.data<T>();
    args->alpha_scalar = a.num_elements() == 1;
  }
  return absl::OkStatus();
}

namespace internal {

// data[r][c] = clamp(data[r][c] (+ add[c]), 0, hi) for the flags set. The
// flags are template parameters and the clamp is written as `0 > v ? 0 : v`
// / `v > hi ? hi : v` (NaN stays NaN) so that the inner loop compiles to
// plain vaddps / masked move / vminps: with run-time flags GCC merged the
// two selects through general-purpose registers (kmov / andn per vector),
// and this pass is 5-10% of BlazeFace / BlazePose Runs.
template <typename T, bool kAdd, bool kClamp>
void BiasClampRows(const T* __restrict add, T hi, T* data, int64_t rows,
                   int64_t channels) {
  for (int64_t r = 0; r < rows; ++r) {
    T* __restrict row = data + r * channels;
    for (int64_t c = 0; c < channels; ++c) {
      T v = row[c];
      if constexpr (kAdd) v = v + add[c];
      if constexpr (kClamp) {
        v = T(0) > v ? T(0) : v;
        v = v > hi ? hi : v;
      }
      row[c] = v;
    }
  }
}

// data[r][c] = data[r][c] < 0 ? data[r][c] * alpha[c] : data[r][c] (alpha[0]
// for every channel with kScalar): the PReLU of a [BiasAdd, Prelu]
// epilogue in one flat pass (per-row Eigen selects cost more than the
// arithmetic on 16-64 channel rows). The values of TF's Prelu: one multiply.
template <typename T, bool kScalar>
void PreluRows(const T* __restrict alpha, T* data, int64_t rows,
               int64_t channels) {
  for (int64_t r = 0; r < rows; ++r) {
    T* __restrict row = data + r * channels;
    for (int64_t c = 0; c < channels; ++c) {
      const T v = row[c];
      const T a = kScalar ? alpha[0] : alpha[c];
      row[c] = v < T(0) ? v * a : v;
    }
  }
}

// PreluRows with `args`'s slope: one for all, or one per channel.
template <typename T>
void PreluArgs(const EpilogueArgs<T>& args, T* data, int64_t rows,
               int64_t channels) {
  if (args.alpha_scalar) {
    PreluRows<T, true>(args.alpha, data, 1, rows * channels);
  } else {
    PreluRows<T, false>(args.alpha, data, rows, channels);
  }
}

}  // namespace internal

// The PReLU of `args` (PrepareEpilogue: one slope, or one per channel) over
// `n` values at `data`, rows of `channels` (the tail of a [BiasAdd, Add,
// Prelu] epilogue after the residual add). Errors when a per-channel slope
// does not divide the data into rows (an addend that broadcast the output
// to another last dimension: TF's Prelu would reject that graph as well).
template <typename T>
absl::Status ApplyPrelu(const EpilogueArgs<T>& args, T* data, int64_t n,
                        int64_t channels, int64_t last_dim) {
  if (!args.alpha_scalar && last_dim != channels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Prelu with ", channels,
        " slopes after a residual add whose output's last dimension is ",
        last_dim));
  }
  // One slope: any n (a broadcast addend may have changed the last dim).
  if (args.alpha_scalar) channels = n;
  internal::PreluArgs(args, data, n / channels, channels);
  return absl::OkStatus();
}

// Applies the epilogue to `rows` rows of `channels` values at `data`.
template <typename T>
void ApplyEpilogue(const FusedEpilogue& e, const EpilogueArgs<T>& args, T* data,
                   int64_t rows, int64_t channels) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const bool has_mul = args.mul != nullptr;
  const bool has_add = args.add != nullptr;
  if (!has_mul && !has_add && !e.prelu && e.act == ops::Activation::kNone) {
    return;
  }
  if (!has_mul && !e.prelu &&
      (e.act == ops::Activation::kNone || e.act == ops::Activation::kRelu ||
       e.act == ops::Activation::kRelu6)) {
    // The common epilogue (bias, then Relu / Relu6 or nothing) in one flat
    // pass: rows are often only 8-64 channels long, where per-row Eigen
    // expressions cost more than the arithmetic. NaN stays NaN.
    const T hi = e.act == ops::Activation::kRelu6
                     ? T(6)
                     : std::numeric_limits<T>::infinity();
    const T* add = args.add;
    if (e.act == ops::Activation::kNone) {
      internal::BiasClampRows<T, true, false>(add, hi, data, rows, channels);
    } else if (has_add) {
      internal::BiasClampRows<T, true, true>(add, hi, data, rows, channels);
    } else {
      internal::BiasClampRows<T, false, true>(add, hi, data, 1,
                                              rows * channels);
    }
    return;
  }
  if (!has_mul && !has_add && e.prelu) {
    // [BiasAdd, Prelu] after a backend added the bias.
    internal::PreluArgs(args, data, rows, channels);
    return;
  }
  Eigen::Map<const Array> mul(args.mul, has_mul ? channels : 0);
  Eigen::Map<const Array> add(args.add, has_add ? channels : 0);
  for (int64_t r = 0; r < rows; ++r) {
    Eigen::Map<Array> row(data + r * channels, channels);
    if (has_mul) row *= mul;
    if (has_add) row += add;
    if (e.prelu) {
      if (args.alpha_scalar) {
        row = (row < T(0)).select(row * args.alpha[0], row);
      } else {
        Eigen::Map<const Array> al(args.alpha, channels);
        row = (row < T(0)).select(row * al, row);
      }
    } else {
      ops::ApplyActivation<T>(e.act, e.act_alpha, row.data(), row.data(),
                              channels);
    }
  }
}

}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_CONV_UTIL_H_
