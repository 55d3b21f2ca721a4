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
//
// Memory: the kernel's working set (the candidates' normalized corners and
// areas, the heap, the selection) is one Tensor-backed scratch buffer sized
// by the candidate count, so under the executor's BufferPool a steady-state
// Run makes no heap call however many boxes come in. (Per-Run std::vectors
// cost handtrack's seven NMS calls on 12,804 boxes ~21 mmap/munmap pairs
// and their page faults per Run once glibc's mmap threshold is fixed.) Only
// boxes above score_threshold are normalized.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Where one Run's scratch regions start inside a single byte buffer, each
// on its own 64-byte boundary.
class ScratchLayout {
 public:
  // Reserves `count` elements of `bytes_each`; returns the region's offset.
  size_t Add(size_t count, size_t bytes_each) {
    const size_t at = size_;
    size_ += (count * bytes_each + 63) / 64 * 64;
    return at;
  }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0;
};

// The candidates' boxes with sorted corners and their areas, by candidate
// slot, computed once per Run (TF's IoU re-derives them for every pair; the
// values are the same).
struct NormalizedBoxes {
  float* ymin;
  float* xmin;
  float* ymax;
  float* xmax;
  float* area;

  float Iou(int32_t i, int32_t j) const {
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

    // Candidates in index order: their slots order as their indices do,
    // so ties broken by the lower slot are broken by the lower index.
    const T* score_data = scores.data<T>();
    const T* box_data = boxes.data<T>();
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i) m += score_data[i] > score_threshold;
    struct Candidate {
      int32_t slot;
      int32_t suppress_begin;  // selected entries already compared with
      T score;
    };
    const int64_t max_selected = std::min(output_size, m);
    ScratchLayout layout;
    const size_t at_index = layout.Add(m, sizeof(int32_t));
    size_t at_norm[5];
    for (size_t& at : at_norm) at = layout.Add(m, sizeof(float));
    const size_t at_heap = layout.Add(m, sizeof(Candidate));
    const size_t at_selected = layout.Add(max_selected, sizeof(int32_t));
    const size_t at_selected_scores = layout.Add(max_selected, sizeof(T));
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor scratch,
        Tensor::AllocateUninitialized(
            DType::kUInt8, Shape({static_cast<int64_t>(layout.size())})));
    char* base = static_cast<char*>(scratch.raw_data());
    int32_t* cand_index = reinterpret_cast<int32_t*>(base + at_index);
    const NormalizedBoxes norm{reinterpret_cast<float*>(base + at_norm[0]),
                               reinterpret_cast<float*>(base + at_norm[1]),
                               reinterpret_cast<float*>(base + at_norm[2]),
                               reinterpret_cast<float*>(base + at_norm[3]),
                               reinterpret_cast<float*>(base + at_norm[4])};
    Candidate* heap = reinterpret_cast<Candidate*>(base + at_heap);
    int32_t* selected = reinterpret_cast<int32_t*>(base + at_selected);
    T* selected_scores = reinterpret_cast<T*>(base + at_selected_scores);

    int32_t slot = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!(score_data[i] > score_threshold)) continue;
      // IoU is computed in float, as TF does.
      const T* p = box_data + 4 * i;
      const float y1 = static_cast<float>(p[0]), x1 = static_cast<float>(p[1]);
      const float y2 = static_cast<float>(p[2]), x2 = static_cast<float>(p[3]);
      cand_index[slot] = static_cast<int32_t>(i);
      norm.ymin[slot] = std::min(y1, y2);
      norm.ymax[slot] = std::max(y1, y2);
      norm.xmin[slot] = std::min(x1, x2);
      norm.xmax[slot] = std::max(x1, x2);
      norm.area[slot] = (norm.ymax[slot] - norm.ymin[slot]) *
                        (norm.xmax[slot] - norm.xmin[slot]);
      heap[slot] = {slot, 0, score_data[i]};
      ++slot;
    }
    auto lower_priority = [](const Candidate& a, const Candidate& b) {
      return a.score < b.score || (a.score == b.score && a.slot > b.slot);
    };
    // The candidates heapified at once (O(m)) rather than pushed one by one;
    // a soft-NMS candidate goes back only after one was popped, so the heap
    // never outgrows its m slots.
    int64_t heap_size = m;
    std::make_heap(heap, heap + heap_size, lower_priority);
    int64_t num_selected = 0;
    const bool soft = sigma > T(0.0f);
    const float scale = soft ? -0.5f / static_cast<float>(sigma) : 0.0f;
    while (num_selected < output_size && heap_size > 0) {
      std::pop_heap(heap, heap + heap_size, lower_priority);
      Candidate c = heap[--heap_size];
      const T original = c.score;
      bool hard_suppressed = false;
      for (int64_t j = num_selected - 1; j >= c.suppress_begin; --j) {
        const float sim = norm.Iou(c.slot, selected[j]);
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
      c.suppress_begin = static_cast<int32_t>(num_selected);
      if (hard_suppressed) continue;
      if (c.score == original) {
        selected[num_selected] = c.slot;
        selected_scores[num_selected] = c.score;
        ++num_selected;
      } else if (c.score > score_threshold) {
        heap[heap_size++] = c;
        std::push_heap(heap, heap + heap_size, lower_priority);
      }
    }

    const int32_t num_valid = static_cast<int32_t>(num_selected);
    // Padding allocates through Tensor (fails cleanly for huge sizes);
    // padded entries stay zero.
    const int64_t out_n =
        pad_ && version_ >= 4 ? output_size : int64_t{num_valid};
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * idx, ctx.allocate_output(0, DType::kInt32, Shape({out_n})));
    int32_t* idx_data = idx->mutable_data<int32_t>();
    for (int64_t k = 0; k < num_selected; ++k) {
      idx_data[k] = cand_index[selected[k]];
    }
    int valid_output = -1;
    if (version_ == 4) valid_output = 1;
    if (version_ == 5) {
      GRAPHRT_ASSIGN_OR_RETURN(Tensor * sc,
                               ctx.allocate_output(1, dt, Shape({out_n})));
      std::copy(selected_scores, selected_scores + num_selected,
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
