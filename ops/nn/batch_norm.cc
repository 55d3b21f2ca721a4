// FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and LRN. float32.
//
// FusedBatchNorm*(x, scale, offset, mean, variance), attrs epsilon
// (0.0001), data_format NHWC|NCHW (V3 also NDHWC|NCDHW), is_training
// (default true), exponential_avg_factor (1). Channels are the last dim
// (channels-last) or dim 1.
//   is_training = false: y = x * s + (offset - mean * s) with
//     s = scale / sqrt(variance + epsilon) (TF's CPU folding); outputs
//     batch_mean = mean, batch_variance = variance, reserve_space_1 = mean,
//     reserve_space_2 = variance.
//   is_training = true: batch statistics over all non-channel dims; y uses
//     the biased variance; batch_variance is the unbiased (n / (n - 1))
//     variance; with exponential_avg_factor f != 1 the outputs are
//     (1 - f) * running + f * batch. reserve_space_1/2 = batch mean and
//     biased variance.
//   V3's reserve_space_3 is an empty float32 [0] tensor.
//
// LRN(x [b, h, w, c]), attrs depth_radius (5), bias (1), alpha (1),
// beta (0.5): y = x / (bias + alpha * sum_{|c'-c| <= r} x[c']^2) ^ beta.
#include <algorithm>
#include <cmath>
#include <cstdint>
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

struct BatchNormConfig {
  float epsilon = 1e-4f;
  float avg_factor = 1.f;
  bool channels_first = false;
  bool is_training = true;
  bool v3 = false;
};

class FusedBatchNormKernel : public Kernel {
 public:
  explicit FusedBatchNormKernel(BatchNormConfig c) : c_(c) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 5));
    const Tensor& input = ctx.input(0);
    GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(input, DType::kFloat32, "x"));
    if (input.rank() != 4 && !(c_.v3 && input.rank() == 5)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected x of rank 4", c_.v3 ? " or 5" : "", ", got ",
          input.DebugString()));
    }
    Tensor x = input;
    if (c_.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(x, nn::ChannelsLastCopy(input));
    }
    const int64_t ch = x.dim(x.rank() - 1);
    const int64_t rows = ch == 0 ? 0 : x.num_elements() / ch;
    static const char* kNames[4] = {"scale", "offset", "mean", "variance"};
    // In training mode with factor 1, mean and variance may be empty.
    const int checked = (c_.is_training && c_.avg_factor == 1.f) ? 2 : 4;
    for (int i = 0; i < 4; ++i) {
      const Tensor& t = ctx.input(1 + i);
      const bool ok = t.dtype() == DType::kFloat32 && t.rank() == 1 &&
                      (t.dim(0) == ch || (i >= checked && t.dim(0) == 0));
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected ", kNames[i], " of dtype float32 and shape [", ch,
            "] (the channels of x), got ", t.DebugString()));
      }
    }
    const float* scale = ctx.input(1).data<float>();
    const float* offset = ctx.input(2).data<float>();
    const float* run_mean = ctx.input(3).data<float>();
    const float* run_var = ctx.input(4).data<float>();
    std::vector<float> mean(ch), var(ch);
    const float* xd = x.data<float>();
    if (c_.is_training) {
      std::vector<double> sum(ch, 0.0), sq(ch, 0.0);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < ch; ++c) sum[c] += xd[r * ch + c];
      }
      for (int64_t c = 0; c < ch; ++c) {
        mean[c] = rows > 0 ? static_cast<float>(sum[c] / rows) : 0.f;
      }
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < ch; ++c) {
          const double d = xd[r * ch + c] - mean[c];
          sq[c] += d * d;
        }
      }
      for (int64_t c = 0; c < ch; ++c) {
        var[c] = rows > 0 ? static_cast<float>(sq[c] / rows) : 0.f;
      }
    } else {
      mean.assign(run_mean, run_mean + ch);
      var.assign(run_var, run_var + ch);
    }
    std::vector<float> mul(ch), add(ch);
    for (int64_t c = 0; c < ch; ++c) {
      mul[c] = scale[c] / std::sqrt(var[c] + c_.epsilon);
      add[c] = offset[c] - mean[c] * mul[c];
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor y,
                             Tensor::Allocate(DType::kFloat32, x.shape()));
    float* yd = y.mutable_data<float>();
    ops::ParallelFor(rows, std::max<int64_t>(2, ops::kParallelMinElements /
                                                    std::max<int64_t>(ch, 1)),
                     [&](int64_t r0, int64_t r1) {
                       for (int64_t r = r0; r < r1; ++r) {
                         for (int64_t c = 0; c < ch; ++c) {
                           yd[r * ch + c] = xd[r * ch + c] * mul[c] + add[c];
                         }
                       }
                     });
    if (c_.channels_first) {
      GRAPHRT_ASSIGN_OR_RETURN(y, nn::ChannelsFirstCopy(y));
    }
    ctx.set_output(0, std::move(y));
    // Statistics outputs.
    std::vector<float> out_mean = mean, out_var = var;
    if (c_.is_training) {
      const float f = c_.avg_factor;
      for (int64_t c = 0; c < ch; ++c) {
        const float unbiased =
            rows > 1 ? var[c] * static_cast<float>(rows) /
                           static_cast<float>(rows - 1)
                     : var[c];
        out_var[c] = unbiased;
        if (f != 1.f) {
          out_mean[c] = (1.f - f) * run_mean[c] + f * mean[c];
          out_var[c] = (1.f - f) * run_var[c] + f * unbiased;
        }
      }
    }
    const std::vector<float>* outs[4] = {&out_mean, &out_var, &mean, &var};
    for (int i = 0; i < 4; ++i) {
      GRAPHRT_ASSIGN_OR_RETURN(
          Tensor * t, ctx.allocate_output(1 + i, DType::kFloat32, Shape({ch})));
      std::copy(outs[i]->begin(), outs[i]->end(), t->mutable_data<float>());
    }
    if (c_.v3) {
      GRAPHRT_RETURN_IF_ERROR(
          ctx.allocate_output(5, DType::kFloat32, Shape({0})).status());
    }
    return absl::OkStatus();
  }

 private:
  BatchNormConfig c_;
};

template <bool kV3>
absl::StatusOr<std::unique_ptr<Kernel>> CreateFusedBatchNorm(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  BatchNormConfig c;
  c.v3 = kV3;
  GRAPHRT_ASSIGN_OR_RETURN(c.epsilon, attrs.GetFloat("epsilon", 1e-4f));
  GRAPHRT_ASSIGN_OR_RETURN(c.avg_factor,
                           attrs.GetFloat("exponential_avg_factor", 1.f));
  GRAPHRT_ASSIGN_OR_RETURN(c.is_training, attrs.GetBool("is_training", true));
  GRAPHRT_ASSIGN_OR_RETURN(std::string fmt,
                           attrs.GetString("data_format", "NHWC"));
  if (fmt == "NHWC" || (kV3 && fmt == "NDHWC")) {
    c.channels_first = false;
  } else if (fmt == "NCHW" || (kV3 && fmt == "NCDHW")) {
    c.channels_first = true;
  } else {
    return attrs.Error("data_format",
                       absl::StrCat("must be NHWC or NCHW", kV3 ? " (or NDHWC, "
                                                                  "NCDHW)"
                                                                : "",
                                    ", got '", fmt, "'"));
  }
  for (const char* name : {"T", "U"}) {
    GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType(name, DType::kFloat32));
    if (t != DType::kFloat32) {
      return attrs.Error(name, absl::StrCat("must be float32, got ",
                                            DTypeName(t)));
    }
  }
  if (init.num_inputs != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 5 inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new FusedBatchNormKernel(c));
}

// ---- LRN ----

class LrnKernel : public Kernel {
 public:
  LrnKernel(int64_t radius, float bias, float alpha, float beta)
      : radius_(radius), bias_(bias), alpha_(alpha), beta_(beta) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    GRAPHRT_RETURN_IF_ERROR(ops::CheckDType(x, DType::kFloat32, "input"));
    if (x.rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected input of rank 4, got ", x.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t ch = x.dim(3);
    const int64_t rows = ch == 0 ? 0 : x.num_elements() / ch;
    const float* in = x.data<float>();
    float* o = out->mutable_data<float>();
    ops::ParallelFor(
        rows, std::max<int64_t>(2, ops::kParallelMinElements /
                                       std::max<int64_t>(1, ch * (2 * radius_ + 1))),
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const float* px = in + r * ch;
            for (int64_t c = 0; c < ch; ++c) {
              const int64_t lo = std::max<int64_t>(0, c - radius_);
              const int64_t hi = std::min<int64_t>(ch - 1, c + radius_);
              float sum = 0.f;
              for (int64_t k = lo; k <= hi; ++k) sum += px[k] * px[k];
              o[r * ch + c] = px[c] / std::pow(bias_ + alpha_ * sum, beta_);
            }
          }
        });
    return absl::OkStatus();
  }

 private:
  int64_t radius_;
  float bias_, alpha_, beta_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateLrn(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t radius, attrs.GetInt("depth_radius", 5));
  GRAPHRT_ASSIGN_OR_RETURN(float bias, attrs.GetFloat("bias", 1.f));
  GRAPHRT_ASSIGN_OR_RETURN(float alpha, attrs.GetFloat("alpha", 1.f));
  GRAPHRT_ASSIGN_OR_RETURN(float beta, attrs.GetFloat("beta", 0.5f));
  if (radius < 0 || radius > (int64_t{1} << 30)) {
    return attrs.Error("depth_radius", absl::StrCat("must be in [0, 2^30], "
                                                    "got ", radius));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kFloat32));
  if (t != DType::kFloat32) {
    return attrs.Error("T", absl::StrCat("must be float32, got ",
                                         DTypeName(t)));
  }
  if (init.num_inputs != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LRN '", init.node.name(), "' needs 1 input, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new LrnKernel(radius, bias, alpha, beta));
}

}  // namespace

void RegisterBatchNorm(OpRegistry& r) {
  r.Register("FusedBatchNorm", CreateFusedBatchNorm<false>);
  r.Register("FusedBatchNormV2", CreateFusedBatchNorm<false>);
  r.Register("FusedBatchNormV3", CreateFusedBatchNorm<true>);
  r.Register("LRN", CreateLrn);
}

}  // namespace graphrt
