#include "ops/nn/conv_util.h"

#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace nn {

absl::StatusOr<WindowDim> ComputeWindow(int64_t in, int64_t k, int64_t stride,
                                        int64_t dilation, Padding padding,
                                        int64_t pad_before, int64_t pad_after) {
  if (stride <= 0 || dilation <= 0 || k <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected positive window size, stride and dilation, got ",
                     k, ", ", stride, ", ", dilation));
  }
  if (in < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a non-negative input size, got ", in));
  }
  // Guard overflow of (k - 1) * dilation + 1 with huge attrs.
  if (k > (int64_t{1} << 31) || dilation > (int64_t{1} << 31)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window size ", k, " or dilation ", dilation, " is too large"));
  }
  const int64_t eff = (k - 1) * dilation + 1;
  WindowDim d;
  switch (padding) {
    case Padding::kValid:
      d.out = (in - eff + stride) / stride;
      d.pad_before = 0;
      break;
    case Padding::kSame: {
      d.out = (in + stride - 1) / stride;
      const int64_t needed =
          std::max<int64_t>(0, (d.out - 1) * stride + eff - in);
      d.pad_before = needed / 2;
      break;
    }
    case Padding::kExplicit:
      d.out = (in + pad_before + pad_after - eff + stride) / stride;
      d.pad_before = pad_before;
      break;
  }
  if (d.out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computed output size would be negative: ", d.out, " (input size ", in,
        ", effective window size ", eff, ", stride ", stride, ")"));
  }
  return d;
}

absl::StatusOr<Padding> ParsePadding(const AttrReader& attrs,
                                     bool allow_explicit) {
  GRAPHRT_ASSIGN_OR_RETURN(std::string p, attrs.GetString("padding", ""));
  if (p == "VALID") return Padding::kValid;
  if (p == "SAME") return Padding::kSame;
  if (p == "EXPLICIT" && allow_explicit) return Padding::kExplicit;
  return attrs.Error(
      "padding",
      absl::StrCat("must be SAME or VALID",
                   allow_explicit ? " or EXPLICIT" : "", ", got '", p, "'"));
}

namespace {

// Spatial positions of an (S+2)-vector for the layout.
int SpatialPos(const WindowAttrs& w, int i) {
  return w.channels_first ? 2 + i : 1 + i;
}
int ChannelPos(const WindowAttrs& w) {
  return w.channels_first ? 1 : w.num_spatial + 1;
}

absl::StatusOr<std::vector<int64_t>> ReadPerDim(const AttrReader& attrs,
                                                const std::string& name,
                                                const WindowAttrs& w,
                                                bool required) {
  const int n = w.num_spatial + 2;
  if (!attrs.Has(name)) {
    if (required) return attrs.Error(name, "is required");
    return std::vector<int64_t>(w.num_spatial, 1);
  }
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<int64_t> v, attrs.GetIntList(name, {}));
  if (static_cast<int>(v.size()) != n) {
    return attrs.Error(name, absl::StrCat("must have ", n, " entries, got [",
                                          absl::StrJoin(v, ","), "]"));
  }
  if (v[0] != 1 || v[ChannelPos(w)] != 1) {
    return attrs.Error(
        name, absl::StrCat("must be 1 in the batch and channel dimensions, "
                           "got [",
                           absl::StrJoin(v, ","), "]"));
  }
  std::vector<int64_t> out(w.num_spatial);
  for (int i = 0; i < w.num_spatial; ++i) {
    out[i] = v[SpatialPos(w, i)];
    if (out[i] <= 0) {
      return attrs.Error(name, absl::StrCat("must be positive, got [",
                                            absl::StrJoin(v, ","), "]"));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<WindowAttrs> ReadWindowAttrs(const AttrReader& attrs,
                                            const WindowAttrOptions& opts) {
  WindowAttrs w;
  w.num_spatial = opts.num_spatial;
  static const char* kLast[4] = {"", "NWC", "NHWC", "NDHWC"};
  static const char* kFirst[4] = {"", "NCW", "NCHW", "NCDHW"};
  GRAPHRT_ASSIGN_OR_RETURN(
      std::string fmt, attrs.GetString("data_format", kLast[opts.num_spatial]));
  if (fmt == kLast[opts.num_spatial]) {
    w.channels_first = false;
  } else if (fmt == kFirst[opts.num_spatial] && opts.allow_channels_first) {
    w.channels_first = true;
  } else {
    return attrs.Error(
        "data_format",
        absl::StrCat("must be ", kLast[opts.num_spatial],
                     opts.allow_channels_first
                         ? absl::StrCat(" or ", kFirst[opts.num_spatial])
                         : "",
                     ", got '", fmt, "'"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(w.strides, ReadPerDim(attrs, "strides", w, true));
  if (opts.has_dilations) {
    GRAPHRT_ASSIGN_OR_RETURN(w.dilations,
                             ReadPerDim(attrs, "dilations", w, false));
  } else {
    w.dilations.assign(w.num_spatial, 1);
  }
  if (opts.has_ksize) {
    GRAPHRT_ASSIGN_OR_RETURN(w.ksize, ReadPerDim(attrs, "ksize", w, true));
  }
  GRAPHRT_ASSIGN_OR_RETURN(w.padding, ParsePadding(attrs, opts.allow_explicit));
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<int64_t> ep,
                           attrs.GetIntList("explicit_paddings", {}));
  if (w.padding == Padding::kExplicit) {
    const int n = w.num_spatial + 2;
    if (static_cast<int>(ep.size()) != 2 * n) {
      return attrs.Error("explicit_paddings",
                         absl::StrCat("must have ", 2 * n,
                                      " entries with padding EXPLICIT, "
                                      "got [",
                                      absl::StrJoin(ep, ","), "]"));
    }
    const int c = ChannelPos(w);
    if (ep[0] != 0 || ep[1] != 0 || ep[2 * c] != 0 || ep[2 * c + 1] != 0) {
      return attrs.Error("explicit_paddings",
                         absl::StrCat("must be 0 in the batch and channel "
                                      "dimensions, got [",
                                      absl::StrJoin(ep, ","), "]"));
    }
    for (int i = 0; i < w.num_spatial; ++i) {
      const int p = SpatialPos(w, i);
      if (ep[2 * p] < 0 || ep[2 * p + 1] < 0 || ep[2 * p] > (1 << 30) ||
          ep[2 * p + 1] > (1 << 30)) {
        return attrs.Error("explicit_paddings",
                           absl::StrCat("must be non-negative, got [",
                                        absl::StrJoin(ep, ","), "]"));
      }
      w.pads.push_back(ep[2 * p]);
      w.pads.push_back(ep[2 * p + 1]);
    }
  } else {
    if (!ep.empty()) {
      return attrs.Error("explicit_paddings",
                         "must be empty unless padding is EXPLICIT");
    }
    w.pads.assign(2 * w.num_spatial, 0);
  }
  return w;
}

absl::Status CheckFloatInput(const Tensor& t, DType attr_t,
                             absl::string_view what) {
  if (t.dtype() != DType::kFloat32 && t.dtype() != DType::kFloat64) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", what, " of dtype float32 or float64, got ",
                     t.DebugString()));
  }
  if (attr_t != DType::kInvalid && t.dtype() != attr_t) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", what, " of dtype ", DTypeName(attr_t),
                     " (attr T), got ", t.DebugString()));
  }
  return absl::OkStatus();
}

namespace {

absl::StatusOr<Tensor> Relayout(const Tensor& t, bool to_last) {
  if (t.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected rank >= 2, got ", t.DebugString()));
  }
  const int r = t.rank();
  Shape shape;
  int64_t n = t.dim(0), c, s;
  if (to_last) {
    c = t.dim(1);
    s = ops::DimProduct(t.shape(), 2, r);
    shape.AddDim(n);
    for (int i = 2; i < r; ++i) shape.AddDim(t.dim(i));
    shape.AddDim(c);
  } else {
    c = t.dim(r - 1);
    s = ops::DimProduct(t.shape(), 1, r - 1);
    shape.AddDim(n);
    shape.AddDim(c);
    for (int i = 1; i < r - 1; ++i) shape.AddDim(t.dim(i));
  }
  GRAPHRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), shape));
  if (!IsTriviallyCopyable(t.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported dtype ", DTypeName(t.dtype())));
  }
  const size_t size = DTypeSize(t.dtype());
  auto run = [&](auto tag) {
    using U = typename decltype(tag)::type;
    if (to_last) {
      ToChannelsLast(t.data<U>(), out.mutable_data<U>(), n, c, s);
    } else {
      ToChannelsFirst(t.data<U>(), out.mutable_data<U>(), n, c, s);
    }
  };
  switch (size) {
    case 1:
      run(ops::TypeTag<uint8_t>{});
      break;
    case 2:
      run(ops::TypeTag<uint16_t>{});
      break;
    case 4:
      run(ops::TypeTag<uint32_t>{});
      break;
    case 8:
      run(ops::TypeTag<uint64_t>{});
      break;
    case 16:
      run(ops::TypeTag<std::complex<double>>{});
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unsupported dtype ", DTypeName(t.dtype())));
  }
  return out;
}

}  // namespace

absl::StatusOr<Tensor> ChannelsLastCopy(const Tensor& t) {
  return Relayout(t, true);
}

absl::StatusOr<Tensor> ChannelsFirstCopy(const Tensor& t) {
  return Relayout(t, false);
}

absl::StatusOr<FusedEpilogue> ReadFusedEpilogue(const AttrReader& attrs,
                                                bool allow_batch_norm,
                                                bool allow_noop) {
  FusedEpilogue e;
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<std::string> fused_ops,
                           attrs.GetStringList("fused_ops", {}));
  GRAPHRT_ASSIGN_OR_RETURN(int64_t num_args, attrs.GetInt("num_args", 0));
  GRAPHRT_ASSIGN_OR_RETURN(e.act_alpha,
                           attrs.GetFloat("leakyrelu_alpha", 0.2f));
  GRAPHRT_ASSIGN_OR_RETURN(
      const float hardswish_scale,
      attrs.GetFloat("hardswish_scale", ops::kHardSwishScale));
  GRAPHRT_ASSIGN_OR_RETURN(e.epsilon, attrs.GetFloat("epsilon", 1e-4f));
  const std::string listed =
      absl::StrCat("[", absl::StrJoin(fused_ops, ","), "]");
  // [BiasAdd, Add(, act)]: the residual form (see conv_util.h).
  if (allow_batch_norm && fused_ops.size() >= 2 && fused_ops.size() <= 3 &&
      fused_ops[0] == "BiasAdd" && fused_ops[1] == "Add") {
    e.kind = FusedEpilogue::Kind::kBias;
    e.residual = true;
    if (fused_ops.size() == 3 && fused_ops[2] == "Prelu") {
      e.prelu = true;
    } else if (fused_ops.size() == 3) {
      auto act = ops::ActivationFromName(fused_ops[2]);
      if (!act.has_value() ||
          (*act != ops::Activation::kRelu && *act != ops::Activation::kRelu6)) {
        return attrs.Error("fused_ops",
                           absl::StrCat("is ", listed,
                                        "; after [BiasAdd,Add] only Relu, "
                                        "Relu6 or Prelu is supported"));
      }
      e.act = *act;
    }
    const int64_t want = e.prelu ? 3 : 2;
    if (num_args != want) {
      return attrs.Error(
          "num_args", absl::StrCat("must be ", want, " for fused_ops ", listed,
                                   ", got ", num_args));
    }
    e.num_args = static_cast<int>(want);
    return e;
  }
  bool ok = !fused_ops.empty() && fused_ops.size() <= 2;
  if (ok) {
    if (fused_ops[0] == "BiasAdd") {
      e.kind = FusedEpilogue::Kind::kBias;
    } else if (fused_ops[0] == "FusedBatchNorm" && allow_batch_norm) {
      e.kind = FusedEpilogue::Kind::kBatchNorm;
    } else if (fused_ops[0] == "NoOp" && allow_noop && fused_ops.size() == 2) {
      e.kind = FusedEpilogue::Kind::kNone;
    } else {
      ok = false;
    }
  }
  if (ok && fused_ops.size() == 2) {
    if (fused_ops[1] == "Prelu") {
      e.prelu = true;
    } else if (auto act = ops::ActivationFromName(fused_ops[1])) {
      e.act = *act;
      if (e.act == ops::Activation::kHardSwish) e.act_alpha = hardswish_scale;
    } else {
      ok = false;
    }
  }
  if (!ok) {
    return attrs.Error(
        "fused_ops",
        absl::StrCat(
            "is ", listed, "; supported: [BiasAdd] or [BiasAdd,X]",
            allow_batch_norm ? ", [FusedBatchNorm] or "
                               "[FusedBatchNorm,X]"
                             : "",
            allow_noop ? ", [NoOp,X]" : "",
            allow_batch_norm ? ", [BiasAdd,Add] or [BiasAdd,Add,Y]" : "",
            " with X one of Relu, Relu6, Elu, LeakyRelu, Sigmoid, "
            "Tanh, _HardSwish, Prelu",
            allow_batch_norm ? "; Y Relu, Relu6 or Prelu" : ""));
  }
  int64_t want = e.kind == FusedEpilogue::Kind::kBias        ? 1
                 : e.kind == FusedEpilogue::Kind::kBatchNorm ? 4
                                                             : 0;
  if (e.prelu) ++want;
  if (num_args != want) {
    return attrs.Error("num_args",
                       absl::StrCat("must be ", want, " for fused_ops ", listed,
                                    ", got ", num_args));
  }
  e.num_args = static_cast<int>(num_args);
  return e;
}

}  // namespace nn
}  // namespace graphrt
