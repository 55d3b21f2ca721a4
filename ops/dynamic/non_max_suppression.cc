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
// Hard NMS (sigma 0, what converted detectors call) visits candidates best
// first without ordering them all: a histogram of their scores picks the
// few bins holding the best ~2 x max_output_size, only those are sorted,
// and the next bins are taken only if the selection is not full yet
// (handtrack: 12,804 candidates, ~200 visited, 100 selected). Soft-NMS
// keeps a heap, as a decayed candidate goes back into it.
//
// Memory: the kernel's working set (candidate keys or the heap, normalized
// corners and areas, the selection) is one Tensor-backed scratch buffer
// sized by the box count, so under the executor's BufferPool a steady-state
// Run makes no heap call however many boxes come in. (Per-Run std::vectors
// cost handtrack's seven NMS calls on 12,804 boxes ~21 mmap/munmap pairs
// and their page faults per Run once glibc's mmap threshold is fixed.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "absl/base/casts.h"
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

  // Box `i` from corners in any order.
  void Set(int32_t i, float y1, float x1, float y2, float x2) const {
    ymin[i] = std::min(y1, y2);
    ymax[i] = std::max(y1, y2);
    xmin[i] = std::min(x1, x2);
    xmax[i] = std::max(x1, x2);
    area[i] = (ymax[i] - ymin[i]) * (xmax[i] - xmin[i]);
  }

  float Iou(int32_t i, int32_t j) const {
    if (area[i] <= 0 || area[j] <= 0) return 0.0f;
    const float ih =
        std::max(std::min(ymax[i], ymax[j]) - std::max(ymin[i], ymin[j]), 0.0f);
    const float iw =
        std::max(std::min(xmax[i], xmax[j]) - std::max(xmin[i], xmin[j]), 0.0f);
    const float inter = ih * iw;
    return inter / (area[i] + area[j] - inter);
  }

  // The five arrays at byte offsets at[0..4] of one scratch block.
  static NormalizedBoxes At(char* base, const size_t (&at)[5]) {
    return {reinterpret_cast<float*>(base + at[0]),
            reinterpret_cast<float*>(base + at[1]),
            reinterpret_cast<float*>(base + at[2]),
            reinterpret_cast<float*>(base + at[3]),
            reinterpret_cast<float*>(base + at[4])};
  }
};

// A candidate's sort key: larger keys go first. The high 32 bits order as
// the score does (-0 as +0; NaN scores never become candidates), the low
// 32 bits are the inverted box index, so equal scores put the lower index
// first.
inline uint64_t CandidateKey(float score, int64_t index) {
  const uint32_t bits = absl::bit_cast<uint32_t>(score + 0.0f);
  const uint32_t ordered = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  return (uint64_t{ordered} << 32) | ~static_cast<uint32_t>(index);
}

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

    const T* score_data = scores.data<T>();
    const T* box_data = boxes.data<T>();
    Tensor scratch;
    int32_t* selected = nullptr;  // box indices, best first
    T* selected_scores = nullptr;
    int64_t num_selected = 0;
    if (sigma > T(0.0f)) {
      GRAPHRT_RETURN_IF_ERROR(SelectSoft<T>(
          score_data, box_data, n, output_size, score_threshold, sigma,
          &scratch, &selected, &selected_scores, &num_selected));
    } else {
      GRAPHRT_RETURN_IF_ERROR(SelectHard<T>(
          score_data, box_data, n, output_size, iou_threshold, score_threshold,
          &scratch, &selected, &selected_scores, &num_selected));
    }

    const int32_t num_valid = static_cast<int32_t>(num_selected);
    // Padding allocates through Tensor (fails cleanly for huge sizes);
    // padded entries stay zero.
    const int64_t out_n =
        pad_ && version_ >= 4 ? output_size : int64_t{num_valid};
    GRAPHRT_ASSIGN_OR_RETURN(
        Tensor * idx, ctx.allocate_output(0, DType::kInt32, Shape({out_n})));
    int32_t* idx_data = idx->mutable_data<int32_t>();
    std::copy(selected, selected + num_selected, idx_data);
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

  // Hard NMS: candidates are visited once each, best first (score, then
  // lower index), which is the order the heap of SelectSoft pops them in,
  // without heapifying all of them: handtrack's NMS calls see 12,804
  // candidates and visit ~200 before 100 are selected. Each candidate's key
  // is its score's order-preserving bits over its inverted index; a
  // histogram of the keys' top 12 bits gives the bins holding the best
  // `batch` candidates, only those are gathered and sorted, and a further
  // batch (the next bins down, from the same histogram) is gathered only
  // if the selection is not full yet. A candidate is normalized when it is
  // visited, in the slot after the selected boxes, and kept by advancing
  // num_selected.
  template <typename T>
  static absl::Status SelectHard(const T* score_data, const T* box_data,
                                 int64_t n, int64_t output_size,
                                 T iou_threshold, T score_threshold,
                                 Tensor* scratch, int32_t** selected_out,
                                 T** selected_scores_out,
                                 int64_t* num_selected_out) {
    constexpr int kBinBits = 12;
    constexpr int kBins = 1 << kBinBits;
    constexpr int kBinShift = 64 - kBinBits;
    const int64_t capacity = std::min(output_size, n) + 1;
    ScratchLayout layout;
    const size_t at_keys = layout.Add(n, sizeof(uint64_t));
    const size_t at_batch = layout.Add(n, sizeof(uint64_t));
    const size_t at_bins = layout.Add(kBins, sizeof(uint32_t));
    size_t at_box[5];
    for (size_t& at : at_box) at = layout.Add(capacity, sizeof(float));
    const size_t at_selected = layout.Add(capacity, sizeof(int32_t));
    const size_t at_selected_scores = layout.Add(capacity, sizeof(T));
    GRAPHRT_ASSIGN_OR_RETURN(
        *scratch,
        Tensor::AllocateUninitialized(
            DType::kUInt8, Shape({static_cast<int64_t>(layout.size())})));
    char* base = static_cast<char*>(scratch->raw_data());
    uint64_t* keys = reinterpret_cast<uint64_t*>(base + at_keys);
    uint64_t* batch = reinterpret_cast<uint64_t*>(base + at_batch);
    uint32_t* bins = reinterpret_cast<uint32_t*>(base + at_bins);
    const NormalizedBoxes box = NormalizedBoxes::At(base, at_box);
    int32_t* selected = reinterpret_cast<int32_t*>(base + at_selected);
    T* selected_scores = reinterpret_cast<T*>(base + at_selected_scores);
    *selected_out = selected;
    *selected_scores_out = selected_scores;

    // Branch-free: every box writes a key, only candidates advance m.
    std::fill(bins, bins + kBins, 0u);
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool candidate = score_data[i] > score_threshold;
      const uint64_t key = CandidateKey(static_cast<float>(score_data[i]), i);
      keys[m] = key;
      bins[key >> kBinShift] += candidate;
      m += candidate;
    }
    const int64_t batch_target =
        std::min(m, std::max<int64_t>(2 * output_size, 64));
    int64_t num_selected = 0;
    int hi = kBins;  // the next batch takes bins [lo, hi)
    while (num_selected < output_size && hi > 0) {
      int lo = hi;
      int64_t count = 0;
      while (lo > 0 && count < batch_target) count += bins[--lo];
      if (count == 0) break;
      int64_t b = 0;
      for (int64_t k = 0; k < m; ++k) {
        const uint64_t bin = keys[k] >> kBinShift;
        batch[b] = keys[k];
        b +=
            bin >= static_cast<uint64_t>(lo) && bin < static_cast<uint64_t>(hi);
      }
      std::sort(batch, batch + b, std::greater<uint64_t>());
      for (int64_t k = 0; k < b && num_selected < output_size; ++k) {
        const int32_t index = ~static_cast<uint32_t>(batch[k]);
        // IoU is computed in float, as TF does.
        const T* p = box_data + 4 * static_cast<int64_t>(index);
        const float y1 = static_cast<float>(p[0]),
                    x1 = static_cast<float>(p[1]);
        const float y2 = static_cast<float>(p[2]),
                    x2 = static_cast<float>(p[3]);
        const int32_t slot = static_cast<int32_t>(num_selected);
        box.Set(slot, y1, x1, y2, x2);
        bool suppressed = false;
        for (int32_t j = slot - 1; j >= 0; --j) {
          if (static_cast<T>(box.Iou(slot, j)) > iou_threshold) {
            suppressed = true;
            break;
          }
        }
        if (suppressed) continue;
        selected[num_selected] = index;
        selected_scores[num_selected] = score_data[index];
        ++num_selected;
      }
      hi = lo;
    }
    *num_selected_out = num_selected;
    return absl::OkStatus();
  }

  // Soft-NMS (sigma > 0): a max-heap of candidates whose scores decay as
  // boxes are selected; a decayed candidate goes back in the heap.
  template <typename T>
  static absl::Status SelectSoft(const T* score_data, const T* box_data,
                                 int64_t n, int64_t output_size,
                                 T score_threshold, T sigma, Tensor* scratch,
                                 int32_t** selected_out,
                                 T** selected_scores_out,
                                 int64_t* num_selected_out) {
    // Candidates in index order: their slots order as their indices do,
    // so ties broken by the lower slot are broken by the lower index.
    // Candidates in index order: their slots order as their indices do,
    // so ties broken by the lower slot are broken by the lower index.
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
        *scratch,
        Tensor::AllocateUninitialized(
            DType::kUInt8, Shape({static_cast<int64_t>(layout.size())})));
    char* base = static_cast<char*>(scratch->raw_data());
    int32_t* cand_index = reinterpret_cast<int32_t*>(base + at_index);
    const NormalizedBoxes norm = NormalizedBoxes::At(base, at_norm);
    Candidate* heap = reinterpret_cast<Candidate*>(base + at_heap);
    int32_t* selected = reinterpret_cast<int32_t*>(base + at_selected);
    T* selected_scores = reinterpret_cast<T*>(base + at_selected_scores);
    *selected_out = selected;
    *selected_scores_out = selected_scores;

    int32_t slot = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!(score_data[i] > score_threshold)) continue;
      // IoU is computed in float, as TF does.
      const T* p = box_data + 4 * i;
      const float y1 = static_cast<float>(p[0]), x1 = static_cast<float>(p[1]);
      const float y2 = static_cast<float>(p[2]), x2 = static_cast<float>(p[3]);
      cand_index[slot] = static_cast<int32_t>(i);
      norm.Set(slot, y1, x1, y2, x2);
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
    const float scale = -0.5f / static_cast<float>(sigma);
    while (num_selected < output_size && heap_size > 0) {
      std::pop_heap(heap, heap + heap_size, lower_priority);
      Candidate c = heap[--heap_size];
      const T original = c.score;
      for (int64_t j = num_selected - 1; j >= c.suppress_begin; --j) {
        const float sim = norm.Iou(c.slot, selected[j]);
        const T s = static_cast<T>(sim);
        c.score = c.score * static_cast<T>(
                                std::exp(static_cast<float>(T(scale) * s * s)));
        if (c.score <= score_threshold) break;
      }
      c.suppress_begin = static_cast<int32_t>(num_selected);
      if (c.score == original) {
        selected[num_selected] = c.slot;
        selected_scores[num_selected] = c.score;
        ++num_selected;
      } else if (c.score > score_threshold) {
        heap[heap_size++] = c;
        std::push_heap(heap, heap + heap_size, lower_priority);
      }
    }

    // Slots to box indices, in place.
    for (int64_t k = 0; k < num_selected; ++k) {
      selected[k] = cand_index[selected[k]];
    }
    *num_selected_out = num_selected;
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
