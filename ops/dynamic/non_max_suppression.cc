// NonMaxSuppressionV2/V3/V4/V5: greedy box selection as TF's CPU kernel.
//
//   boxes [N,4] (y1,x1,y2,x2, corners in any order), scores [N],
//   max_output_size int32 scalar, iou_threshold scalar in [0,1],
//   score_threshold scalar (V3+; V2 uses the lowest float),
//   soft_nms_sigma scalar >= 0 (V5).
//
// Candidates with score > score_threshold enter a priority queue ordered by
// score, ties broken by the lower box index. A candidate is hard-suppressed
// when its IoU with an already selected box is > iou_threshold (not with
// soft-NMS); with soft-NMS (sigma > 0) its score is scaled by
// exp(-0.5 * iou^2 / sigma) per selected box and it goes back in the queue
// while still above score_threshold. Outputs: V2/V3 selected int32 indices;
// V4 + valid_outputs (pad_to_max_output_size pads indices with 0); V5
// indices, selected_scores, valid_outputs. T is float32 or float16 (scores
// compared in T, IoU in float, as TF).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Boxes with sorted corners and their areas, computed once per Run (TF's
// IoU re-derives them for every pair; the values are the same).
struct NormalizedBoxes {
  std::vector<float> ymin, xmin, ymax, xmax, area;

  explicit NormalizedBoxes(const std::vector<float>& b) {
    const size_t n = b.size() / 4;
    ymin.resize(n);
    xmin.resize(n);
    ymax.resize(n);
    xmax.resize(n);
    area.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const float* p = &b[4 * i];
      ymin[i] = std::min(p[0], p[2]);
      ymax[i] = std::max(p[0], p[2]);
      xmin[i] = std::min(p[1], p[3]);
      xmax[i] = std::max(p[1], p[3]);
      area[i] = (ymax[i] - ymin[i]) * (xmax[i] - xmin[i]);
    }
  }

  float Iou(int64_t i, int64_t j) const {
    if (area[i] <= 0 || area[j] <= 0) return 0.0f;
    const float ih =
        std::max(std::min(ymax[i], ymax[j]) - std::max(ymin[i], ymin[j]), 0.0f);
    const float iw =
        std::max(std::min(xmax[i], xmax[j]) - std::max(xmin[i], xmin[j]), 0.0f);
    const float inter = ih * iw;
    return inter / (area[i] + area[j] - inter);
  }
};

// Reads a float32/float16 scalar as T.
template <typename T>
absl::StatusOr<T> ReadScalar(const Tensor& t, DType want,
                             absl::string_view what) {
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be 0-D, got shape ", t.shape().ToString()));
  }
  if (t.dtype() == DType::kFloat32) return static_cast<T>(*t.data<float>());
  if (t.dtype() == DType::kFloat16) return static_cast<T>(*t.data<float16>());
  return absl::InvalidArgumentError(absl::StrCat("expected ", what,
                                                 " of dtype ", DTypeName(want),
                                                 ", got ", t.DebugString()));
}

class NmsKernel : public Kernel {
 public:
  NmsKernel(int version, bool pad) : version_(version), pad_(pad) {}

  absl::Status Run(KernelContext& ctx) const override {
    const int want_inputs = version_ == 2 ? 4 : version_ == 5 ? 6 : 5;
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, want_inputs));
    const Tensor& boxes = ctx.input(0);
    if (boxes.dtype() == DType::kFloat32) return RunT<float>(ctx);
    if (boxes.dtype() == DType::kFloat16) return RunT<float16>(ctx);
    return absl::InvalidArgumentError(
        absl::StrCat("expected boxes of dtype float32 or float16, got ",
                     boxes.DebugString()));
  }

 private:
  template <typename T>
  absl::Status RunT(KernelContext& ctx) const {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    const Tensor& max_out = ctx.input(2);
    const DType dt = DTypeOf<T>::value;
    if (boxes.rank() != 2 || boxes.dim(1) != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("boxes must be 2-D with 4 columns [num_boxes, 4], got ",
                       boxes.DebugString()));
    }
    const int64_t n = boxes.dim(0);
    if (n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError("too many boxes for int32 indices");
    }
    if (scores.dtype() != dt || scores.rank() != 1 || scores.dim(0) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scores must be ", DTypeName(dt), "[", n, "] to match boxes ",
          boxes.DebugString(), ", got ", scores.DebugString()));
    }
    if (max_out.dtype() != DType::kInt32 || max_out.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_output_size must be an int32 scalar, got ",
                       max_out.DebugString()));
    }
    const int64_t output_size = *max_out.data<int32_t>();
    if (output_size < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "max_output_size must be non-negative, got ", output_size));
    }
    GRAPHRT_ASSIGN_OR_RETURN(const T iou_threshold,
                             ReadScalar<T>(ctx.input(3), dt, "iou_threshold"));
    if (!(iou_threshold >= T(0.0f) && iou_threshold <= T(1.0f))) {
      return absl::InvalidArgumentError(
          absl::StrCat("iou_threshold must be in [0, 1], got ",
                       static_cast<float>(iou_threshold)));
    }
    T score_threshold = std::numeric_limits<T>::lowest();
    if (version_ >= 3) {
      GRAPHRT_ASSIGN_OR_RETURN(
          score_threshold, ReadScalar<T>(ctx.input(4), dt, "score_threshold"));
    }
    T sigma = T(0.0f);
    if (version_ == 5) {
      GRAPHRT_ASSIGN_OR_RETURN(
          sigma, ReadScalar<T>(ctx.input(5), dt, "soft_nms_sigma"));
      if (!(sigma >= T(0.0f))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "soft_nms_sigma must be >= 0, got ", static_cast<float>(sigma)));
      }
    }

    // IoU is computed in float, as TF does.
    std::vector<float> box_f(static_cast<size_t>(4 * n));
    for (int64_t i = 0; i < 4 * n; ++i) {
      box_f[i] = static_cast<float>(boxes.data<T>()[i]);
    }
    const T* score_data = scores.data<T>();

    struct Candidate {
      int64_t index;
      T score;
      int64_t suppress_begin;
    };
    auto lower_priority = [](const Candidate& a, const Candidate& b) {
      return a.score < b.score || (a.score == b.score && a.index > b.index);
    };
    const NormalizedBoxes norm(box_f);
    // The candidates heapified at once (O(n)) rather than pushed one by one.
    std::vector<Candidate> initial;
    for (int64_t i = 0; i < n; ++i) {
      if (score_data[i] > score_threshold) {
        initial.push_back({i, score_data[i], 0});
      }
    }
    const bool soft = sigma > T(0.0f);
    std::vector<int32_t> selected;
    std::vector<T> selected_scores;
    std::priority_queue<Candidate, std::vector<Candidate>,
                        decltype(lower_priority)>
        queue(lower_priority, std::move(initial));
    const float scale = soft ? -0.5f / static_cast<float>(sigma) : 0.0f;
    while (static_cast<int64_t>(selected.size()) < output_size &&
           !queue.empty()) {
      Candidate c = queue.top();
      queue.pop();
      const T original = c.score;
      bool hard_suppressed = false;
      for (int64_t j = static_cast<int64_t>(selected.size()) - 1;
           j >= c.suppress_begin; --j) {
        const float sim = norm.Iou(c.index, selected[j]);
        if (soft) {
          const T s = static_cast<T>(sim);
          c.score =
              c.score *
              static_cast<T>(std::exp(static_cast<float>(T(scale) * s * s)));
        } else if (static_cast<T>(sim) > iou_threshold) {
          hard_suppressed = true;
          break;
        }
        if (c.score <= score_threshold) break;
      }
      c.suppress_begin = static_cast<int64_t>(selected.size());
      if (hard_suppressed) continue;
      if (c.score == original) {
        selected.push_back(static_cast<int32_t>(c.index));
        selected_scores.push_back(c.score);
      } else if (c.score > score_threshold) {
        queue.push(c);
      }
    }

    const int32_t num_valid = static_cast<int32_t>(selected.size());
    // Padding allocates through Tensor (fails cleanly for huge sizes);
    // padded entries stay zero.
    const int64_t out_n =
        pad_ && version_ >= 4 ? output_size : int64_t{num_valid};
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * idx, ctx.allocate_output(0, DType::kInt32, Shape({out_n})));
    std::copy(selected.begin(), selected.end(), idx->mutable_data<int32_t>());
    int valid_output = -1;
    if (version_ == 4) valid_output = 1;
    if (version_ == 5) {
      GRAPHRT_ASSIGN_OR_RETURN(Tensor * sc,
                               ctx.allocate_output(1, dt, Shape({out_n})));
      std::copy(selected_scores.begin(), selected_scores.end(),
                sc->mutable_data<T>());
      valid_output = 2;
    }
    if (valid_output >= 0) {
      ctx.set_output(valid_output, Tensor::Scalar<int32_t>(num_valid));
    }
    return absl::OkStatus();
  }

  int version_;
  bool pad_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateNms(const KernelInit& init,
                                                  int version) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(bool pad,
                           attrs.GetBool("pad_to_max_output_size", false));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kFloat32));
  if (t != DType::kFloat32 && t != DType::kFloat16) {
    return attrs.Error(
        "T", absl::StrCat("must be float32 or float16, got ", DTypeName(t)));
  }
  return std::unique_ptr<Kernel>(new NmsKernel(version, pad));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateNmsV2(const KernelInit& init) {
  return CreateNms(init, 2);
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateNmsV3(const KernelInit& init) {
  return CreateNms(init, 3);
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateNmsV4(const KernelInit& init) {
  return CreateNms(init, 4);
}
absl::StatusOr<std::unique_ptr<Kernel>> CreateNmsV5(const KernelInit& init) {
  return CreateNms(init, 5);
}

}  // namespace

void RegisterNonMaxSuppression(OpRegistry& r) {
  r.Register("NonMaxSuppressionV2", CreateNmsV2);
  r.Register("NonMaxSuppressionV3", CreateNmsV3);
  r.Register("NonMaxSuppressionV4", CreateNmsV4);
  r.Register("NonMaxSuppressionV5", CreateNmsV5);
}

}  // namespace graphrt
