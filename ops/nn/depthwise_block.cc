#include "ops/nn/depthwise_block.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/kernel.h"
#include "ops/nn/conv_util.h"
#include "ops/nn/direct/direct_conv.h"
#include "runtime/mutex.h"
#include "runtime/parallel.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using nn::DirectConv;
using nn::XnnConvSpec;

enum Stage { kExpand = 0, kDepthwise = 1, kProject = 2 };

// Floats of the ring of expanded rows a band may use (512 KB, half an L2
// of the Zen 4 VM and of the Xeons). At 256 KB efficientpose's 184-pixel
// rows of 144 channels made bands of one output row, whose pointwise calls
// (one row of pixels each) spent 6% of the model in tail tiles of 4 and 2
// pixels; 512 KB: bands of two, efficientpose 3% faster; 1 MB: no faster.
constexpr int64_t kRingFloats = 128 * 1024;
// Output rows per band at most (the depthwise band buffer stays small).
constexpr int64_t kMaxBandRows = 8;
// An image whose expanded tensor has at most this many values (512 KB, an
// L2) runs as one band: each stage over the whole image, the intermediate
// tensors in scratch. Bands of such images cost more than they save: each
// stripe recomputes the expanded rows its windows share with the stripe
// above (2 of 7 rows per stripe at 28x28), and the calls per band add up
// (bench/RESULTS.md, "Small blocks in one band").
constexpr int64_t kWholeImageFloats = 128 * 1024;
// The same bound for a block without expand stage, on its input (2.5 MB):
// bands save it only the round trip of the depthwise output, which pays
// when that no longer fits the caches (CenterNet's 128x128x128 heads,
// MoveNet-Thunder's 128x128x56: banded 0.73-0.86x the two layers); below,
// the bands' per-call overhead made PoseNet's 49x49x192 block 1.09x and the
// small blocks up to 1.5x (bench/RESULTS.md, "Depthwise blocks without
// expand stage").
constexpr int64_t kWholeImageFloatsNoExpand = 640 * 1024;

struct BlockConfig {
  bool expand = false;
  bool depthwise_bias = true;
  bool project_bias = false;
  bool residual = false;
  // Clamp per stage ([lo, hi]: none, Relu or Relu6; open for Prelu).
  std::array<float, 3> lo{}, hi{};
  // Input index of each stage's Prelu slopes (-1: no Prelu).
  std::array<int, 3> alpha_input{};
  nn::WindowAttrs w;
  // Input index per stage's filter (-1: no expand), its bias (-1: none),
  // the residual's (-1: none).
  std::array<int, 3> filter_input{}, bias_input{};
  int residual_input = -1;
  int num_inputs = 0;
};

absl::Status ReadClamp(const AttrReader& attrs, const std::string& name,
                       float* lo, float* hi, bool* prelu) {
  GRAPHRT_ASSIGN_OR_RETURN(std::string act, attrs.GetString(name, ""));
  *lo = -std::numeric_limits<float>::infinity();
  *hi = std::numeric_limits<float>::infinity();
  if (act == "Relu" || act == "Relu6") *lo = 0.0f;
  if (act == "Relu6") *hi = 6.0f;
  *prelu = act == "Prelu";
  if (!act.empty() && act != "Relu" && act != "Relu6" && act != "Prelu") {
    return attrs.Error(
        name, absl::StrCat("must be \"\", Relu, Relu6 or Prelu, got ", act));
  }
  return absl::OkStatus();
}

// Prelu over `rows` rows of `channels` values: one slope per channel, or
// one for all (`scalar`).
void PreluInPlace(const float* alpha, bool scalar, float* data, int64_t rows,
                  int64_t channels) {
  if (scalar) {
    nn::internal::PreluRows<float, true>(alpha, data, 1, rows * channels);
  } else {
    nn::internal::PreluRows<float, false>(alpha, data, rows, channels);
  }
}

// The direct kernel's spec of a stage with filter dims `f` (TF layout).
XnnConvSpec StageSpec(Stage stage, const Shape& f) {
  XnnConvSpec s;
  s.depthwise = stage == kDepthwise;
  s.kh = f.dim(0);
  s.kw = f.dim(1);
  s.in_channels = f.dim(2);
  s.out_channels = stage == kDepthwise ? f.dim(2) : f.dim(3);
  return s;
}

bool FilterFits(Stage stage, const Tensor& f) {
  if (f.dtype() != DType::kFloat32 || f.rank() != 4) return false;
  if (stage == kDepthwise) {
    return f.dim(3) == 1 && (f.dim(0) == 3 || f.dim(0) == 5) &&
           f.dim(1) == f.dim(0);
  }
  return f.dim(0) == 1 && f.dim(1) == 1;
}

class DepthwiseBlockKernel : public Kernel {
 public:
  explicit DepthwiseBlockKernel(BlockConfig c) : c_(std::move(c)) {}

  bool CanAdoptConstInput(int index, const Tensor& value) const override {
    const int stage = StageOfFilter(index);
    return stage >= 0 && FilterFits(static_cast<Stage>(stage), value);
  }
  void AdoptConstInput(int index, Tensor value) override {
    const int stage = StageOfFilter(index);
    if (stage < 0) return;
    // Packed on the node's first Run, as the convolution kernels pack
    // theirs: loading stays reading the weights (packing 90 filters at load
    // made handskeleton's load 3.6 -> 8.0 ms).
    adopted_data_[stage] = value.raw_data();
    adopted_[stage] = std::move(value);
  }

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, c_.num_inputs));
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::kFloat32 || x.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a float32 NHWC input of rank 4, got ", x.DebugString()));
    }
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    // The packed filter of each stage: the adopted one, or the fed tensor
    // packed for this Run.
    std::array<const DirectConv*, 3> conv{};
    std::array<std::unique_ptr<DirectConv>, 3> fed;
    std::array<XnnConvSpec, 3> spec;
    for (int s = 0; s < 3; ++s) {
      if (c_.filter_input[s] < 0) continue;
      const Tensor& f = ctx.input(c_.filter_input[s]);
      if (!FilterFits(static_cast<Stage>(s), f)) {
        return absl::InvalidArgumentError(
            absl::StrCat("filter input ", c_.filter_input[s],
                         " does not fit its stage: ", f.DebugString()));
      }
      spec[s] = StageSpec(static_cast<Stage>(s), f.shape());
      const bool own = adopted_data_[s] != nullptr &&
                       (IsReleasedConst(f) || f.raw_data() == adopted_data_[s]);
      if (own) {
        if (!packed_[s].ready()) {
          // Once, under the DirectConv's mutex; the decoded copy goes.
          GRAPHRT_RETURN_IF_ERROR(
              packed_[s]
                  .Adopt(spec[s], /*prefer=*/true,
                         [this, s]() -> absl::StatusOr<Tensor> {
                           return std::move(adopted_[s]);
                         })
                  .status());
        }
        conv[s] = &packed_[s];
      } else {
        if (IsReleasedConst(f)) {
          return absl::InternalError("filter released but not packed");
        }
        fed[s] = std::make_unique<DirectConv>();
        GRAPHRT_RETURN_IF_ERROR(fed[s]->Pack(spec[s], f));
        conv[s] = fed[s].get();
      }
      spec[s].out_min = c_.lo[s];
      spec[s].out_max = c_.hi[s];
    }
    const int64_t e = spec[kDepthwise].in_channels;
    const int64_t co = spec[kProject].out_channels;
    const int64_t k = spec[kDepthwise].kh;
    if ((c_.expand ? spec[kExpand].in_channels : e) != c ||
        (c_.expand && spec[kExpand].out_channels != e) ||
        spec[kProject].in_channels != e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "channels do not chain: input ", x.DebugString(), ", filters ",
          c_.expand ? ctx.input(c_.filter_input[kExpand]).DebugString() : "",
          c_.expand ? " " : "",
          ctx.input(c_.filter_input[kDepthwise]).DebugString(), " ",
          ctx.input(c_.filter_input[kProject]).DebugString()));
    }
    std::array<const float*, 3> bias{};
    for (int s = 0; s < 3; ++s) {
      if (c_.bias_input[s] < 0) continue;
      const Tensor& b = ctx.input(c_.bias_input[s]);
      const int64_t want = spec[s].out_channels;
      if (b.dtype() != DType::kFloat32 || b.rank() != 1 || b.dim(0) != want) {
        return absl::InvalidArgumentError(
            absl::StrCat("bias input ", c_.bias_input[s], " must be float32[",
                         want, "], got ", b.DebugString()));
      }
      bias[s] = b.data<float>();
    }
    // Prelu slopes: 1, or one per output channel of the stage.
    std::array<const float*, 3> alpha{};
    std::array<bool, 3> alpha_scalar{};
    for (int s = 0; s < 3; ++s) {
      if (c_.alpha_input[s] < 0) continue;
      const Tensor& a = ctx.input(c_.alpha_input[s]);
      const int64_t want = spec[s].out_channels;
      if (a.dtype() != DType::kFloat32 ||
          !(a.num_elements() == 1 ||
            (a.num_elements() == want && a.rank() >= 1 &&
             a.dim(a.rank() - 1) == want))) {
        return absl::InvalidArgumentError(
            absl::StrCat("Prelu slopes input ", c_.alpha_input[s],
                         " must be float32 with 1 or ", want,
                         " values along the last axis, got ", a.DebugString()));
      }
      alpha[s] = a.data<float>();
      alpha_scalar[s] = a.num_elements() == 1;
    }
    const int64_t sh = c_.w.strides[0], sw = c_.w.strides[1];
    GRAPHRT_ASSIGN_OR_RETURN(
        nn::WindowDim hd,
        nn::ComputeWindow(h, k, sh, 1, c_.w.padding,
                          c_.w.pads.empty() ? 0 : c_.w.pads[0],
                          c_.w.pads.empty() ? 0 : c_.w.pads[1]));
    GRAPHRT_ASSIGN_OR_RETURN(
        nn::WindowDim wd,
        nn::ComputeWindow(w, k, sw, 1, c_.w.padding,
                          c_.w.pads.empty() ? 0 : c_.w.pads[2],
                          c_.w.pads.empty() ? 0 : c_.w.pads[3]));
    const int64_t oh = hd.out, ow = wd.out;
    XnnConvSpec& dws = spec[kDepthwise];
    dws.stride_h = sh;
    dws.stride_w = sw;
    dws.pad_left = wd.pad_before;
    GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape, Shape::Make({n, oh, ow, co}));
    const float* residual = nullptr;
    if (c_.residual) {
      const Tensor& r = ctx.input(c_.residual_input);
      if (r.dtype() != DType::kFloat32 || !(r.shape() == out_shape)) {
        return absl::InvalidArgumentError(
            absl::StrCat("residual input must be float32", out_shape.ToString(),
                         ", got ", r.DebugString()));
      }
      residual = r.data<float>();
    }

    // Band height: the ring of expanded rows ((band - 1) * sh + k rows)
    // within kRingFloats.
    int64_t band = kMaxBandRows;
    if (c_.expand) {
      const int64_t rows =
          std::max<int64_t>(k, kRingFloats / std::max<int64_t>(1, w * e));
      band = std::clamp<int64_t>((rows - k) / sh + 1, 1, kMaxBandRows);
    }
    band = std::min(band, oh);
    // A small image in one band: no rows computed twice (stripe halos).
    if (h * w * e <=
        (c_.expand ? kWholeImageFloats : kWholeImageFloatsNoExpand)) {
      band = oh;
    }
    // The output takes the residual addend's storage when nothing else
    // reads it: the project stage reads each addend element just before
    // writing it. An addend that is the block's input too (f(x) + x) only
    // in one band: the first stage has read all of x before the project
    // stage writes (bands would overwrite rows the next band reads).
    Tensor* out = nullptr;
    if (c_.residual) {
      out = ctx.forward_input_to_output(c_.residual_input, 0, DType::kFloat32,
                                        out_shape);
      if (out == nullptr && band == oh) {
        out = ctx.forward_shared_input_to_output(c_.residual_input, 0,
                                                 DType::kFloat32, out_shape);
      }
    }
    if (out == nullptr) {
      GRAPHRT_ASSIGN_OR_RETURN(out, ctx.allocate_output_uninitialized(
                                        0, DType::kFloat32, out_shape));
    }
    if (out->num_elements() == 0) return absl::OkStatus();
    float* y = out->mutable_data<float>();
    const float* xd = x.data<float>();
    const int64_t ring_rows = (band - 1) * sh + k;
    // About four stripes per image (whole bands), for the thread pool; one
    // on one thread: a stripe recomputes the expanded rows its first band
    // shares with the stripe above (k - sh rows per boundary, ~3% of a 3x3
    // stride-1 block). Values do not depend on the split.
    const int64_t bands_per_image = (oh + band - 1) / band;
    const int64_t stripes_wanted = RunsSequentially() ? 1 : 4;
    const int64_t stripe =
        band * ((bands_per_image + stripes_wanted - 1) / stripes_wanted);
    const int64_t stripes_per_image = (oh + stripe - 1) / stripe;
    absl::Status status;
    Mutex status_mu;
    // The stripes are this node's parallelism: the direct kernel's calls
    // per band run on their stripe's thread (they would split rows of a
    // band). A node of one stripe (a small image in one band) lets its
    // stages' calls split their rows instead.
    const bool one_stripe = n * stripes_per_image == 1;
    auto run_stripes = [&](int64_t s0, int64_t s1) {
      std::optional<ScopedSequential> sequential;
      if (!one_stripe) sequential.emplace();
      auto ring =
          ops::ScratchArray<float>::Make(c_.expand ? ring_rows * w * e : 0);
      auto dband = ops::ScratchArray<float>::Make(band * ow * e);
      auto dw_rows =
          ops::ScratchArray<const float*>::Make(c_.expand ? ring_rows : 0);
      absl::Status st = !ring.ok()    ? ring.status()
                        : !dband.ok() ? dband.status()
                                      : dw_rows.status();
      // Expanded row r lives in ring slot r % ring_rows: a band computes
      // only the rows its windows do not share with the band above, and
      // no row moves (the depthwise stage reads the band's rows through
      // pointers, RunDepthwiseRows). Moving the shared rows to the top of
      // the ring was 5% of efficientpose, whose 184-pixel rows of 144
      // channels make a band one output row: 2 of every 3 rows moved.
      auto slot = [&](int64_t r) {
        return ring->data() + (r % ring_rows) * w * e;
      };
      for (int64_t si = s0; si < s1 && st.ok(); ++si) {
        // Rows [have0, have1) of the expanded tensor, in ring. Each stripe
        // starts empty, so that its rows are computed in the same groups
        // whichever thread runs it after whichever stripe.
        int64_t have0 = 0, have1 = 0;
        const int64_t b = si / stripes_per_image;
        const int64_t ys = (si % stripes_per_image) * stripe;
        const int64_t ye = std::min(oh, ys + stripe);
        const float* xb = xd + b * h * w * c;
        for (int64_t y0 = ys; y0 < ye && st.ok(); y0 += band) {
          const int64_t y1 = std::min(ye, y0 + band);
          const int64_t top = y0 * sh - hd.pad_before;
          const int64_t r0 = std::max<int64_t>(0, top);
          const int64_t r1 = std::min(h, (y1 - 1) * sh - hd.pad_before + k);
          const float* dw_in = xb + r0 * w * c;
          if (c_.expand && r1 > r0) {
            // Rows not in the ring yet, in runs that do not wrap around
            // its end (one expand call each).
            int64_t from = r0 >= have0 && r0 < have1 ? have1 : r0;
            while (from < r1 && st.ok()) {
              const int64_t count =
                  std::min(r1 - from, ring_rows - from % ring_rows);
              float* rows = slot(from);
              st = conv[kExpand]->Run(spec[kExpand], bias[kExpand], nullptr,
                                      xb + from * w * c, 1, count, w, count, w,
                                      rows);
              if (st.ok() && alpha[kExpand] != nullptr) {
                PreluInPlace(alpha[kExpand], alpha_scalar[kExpand], rows,
                             count * w, e);
              }
              from += count;
            }
            if (!st.ok()) break;
            have0 = r0;
            have1 = r1;
            for (int64_t r = r0; r < r1; ++r) (*dw_rows)[r - r0] = slot(r);
          }
          XnnConvSpec s = dws;
          s.pad_top = r0 - top;
          const int64_t in_rows = std::max<int64_t>(r1 - r0, 0);
          st = c_.expand ? conv[kDepthwise]->RunDepthwiseRows(
                               s, bias[kDepthwise], dw_rows->data(), in_rows, w,
                               y1 - y0, ow, dband->data())
                         : conv[kDepthwise]->Run(s, bias[kDepthwise], nullptr,
                                                 dw_in, 1, in_rows, w, y1 - y0,
                                                 ow, dband->data());
          if (!st.ok()) break;
          if (alpha[kDepthwise] != nullptr) {
            PreluInPlace(alpha[kDepthwise], alpha_scalar[kDepthwise],
                         dband->data(), (y1 - y0) * ow, e);
          }
          const int64_t at = (b * oh + y0) * ow * co;
          st = conv[kProject]->Run(
              spec[kProject], bias[kProject],
              residual == nullptr ? nullptr : residual + at, dband->data(), 1,
              y1 - y0, ow, y1 - y0, ow, y + at);
          if (st.ok() && alpha[kProject] != nullptr) {
            PreluInPlace(alpha[kProject], alpha_scalar[kProject], y + at,
                         (y1 - y0) * ow, co);
          }
        }
      }
      if (!st.ok()) {
        MutexLock lock(&status_mu);
        if (status.ok()) status = st;
      }
    };
    ParallelFor(0, n * stripes_per_image, 1, run_stripes);
    return status;
  }

 private:
  int StageOfFilter(int index) const {
    for (int s = 0; s < 3; ++s) {
      if (c_.filter_input[s] == index) return s;
    }
    return -1;
  }

  BlockConfig c_;
  std::array<DirectConv, 3> packed_;
  std::array<const void*, 3> adopted_data_{};
  // The adopted filters until the first Run packs them (moved out under
  // packed_[s]'s mutex, DirectConv::Adopt).
  mutable std::array<Tensor, 3> adopted_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateDepthwiseBlock(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  BlockConfig c;
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kFloat32));
  if (t != DType::kFloat32) {
    return attrs.Error("T",
                       absl::StrCat("must be float32, got ", DTypeName(t)));
  }
  nn::WindowAttrOptions opts;
  opts.allow_channels_first = false;
  GRAPHRT_ASSIGN_OR_RETURN(c.w, nn::ReadWindowAttrs(attrs, opts));
  if (c.w.dilations[0] != 1 || c.w.dilations[1] != 1) {
    return attrs.Error("dilations", "must be 1");
  }
  GRAPHRT_ASSIGN_OR_RETURN(c.expand, attrs.GetBool("expand", false));
  GRAPHRT_ASSIGN_OR_RETURN(c.depthwise_bias,
                           attrs.GetBool("depthwise_bias", true));
  GRAPHRT_ASSIGN_OR_RETURN(c.project_bias, attrs.GetBool("project_bias", true));
  GRAPHRT_ASSIGN_OR_RETURN(c.residual,
                           attrs.GetBool("project_residual", false));
  std::array<bool, 3> prelu{};
  GRAPHRT_RETURN_IF_ERROR(ReadClamp(attrs, "expand_activation", &c.lo[kExpand],
                                    &c.hi[kExpand], &prelu[kExpand]));
  GRAPHRT_RETURN_IF_ERROR(ReadClamp(attrs, "depthwise_activation",
                                    &c.lo[kDepthwise], &c.hi[kDepthwise],
                                    &prelu[kDepthwise]));
  GRAPHRT_RETURN_IF_ERROR(ReadClamp(attrs, "project_activation",
                                    &c.lo[kProject], &c.hi[kProject],
                                    &prelu[kProject]));
  if (prelu[kExpand] && !c.expand) {
    return attrs.Error("expand_activation", "is Prelu without an expand stage");
  }
  int next = 1;
  c.filter_input = {-1, -1, -1};
  c.bias_input = {-1, -1, -1};
  if (c.expand) {
    c.filter_input[kExpand] = next++;
    c.bias_input[kExpand] = next++;
  }
  c.filter_input[kDepthwise] = next++;
  if (c.depthwise_bias) c.bias_input[kDepthwise] = next++;
  c.filter_input[kProject] = next++;
  if (c.project_bias) c.bias_input[kProject] = next++;
  if (c.residual) c.residual_input = next++;
  c.alpha_input = {-1, -1, -1};
  for (int s = 0; s < 3; ++s) {
    if (prelu[s]) c.alpha_input[s] = next++;
  }
  c.num_inputs = next;
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, c.num_inputs));
  return std::unique_ptr<Kernel>(new DepthwiseBlockKernel(std::move(c)));
}

}  // namespace

void RegisterDepthwiseBlock(OpRegistry& r) {
  r.Register("_FusedDepthwiseBlock", CreateDepthwiseBlock);
}

}  // namespace graphrt
