// SparseSegmentSum / SparseSegmentMean / SparseSegmentSqrtN and their
// *WithNumSegments variants:
//
//   output[s] = reduce_{k : segment_ids[k] == s} data[indices[k]]
//
// data [d0, ...], indices [K] and segment_ids [K] (int32/int64 each),
// num_segments scalar (variants). segment_ids must be sorted
// (non-decreasing) and >= 0; indices must be in [0, d0). Output dim 0 is
// num_segments, or the last segment id + 1 (0 when K == 0). Segments with
// no entries are 0. Mean divides by the count, SqrtN by sqrt(count).
// Rows are accumulated in index order, so results do not depend on threads.
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

enum class Reduce { kSum, kMean, kSqrtN };

// a + b with wrap-around for integers (no signed-overflow UB).
template <typename T>
T AddWrap(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}

int64_t IdxAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt32 ? int64_t{t.data<int32_t>()[i]}
                                    : t.data<int64_t>()[i];
}

class SparseSegmentKernel : public Kernel {
 public:
  SparseSegmentKernel(Reduce reduce, bool has_num_segments)
      : reduce_(reduce), has_num_segments_(has_num_segments) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(
        ops::CheckNumInputs(ctx, has_num_segments_ ? 4 : 3));
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& seg = ctx.input(2);
    for (const Tensor* t : {&indices, &seg}) {
      if ((t->dtype() != DType::kInt32 && t->dtype() != DType::kInt64) ||
          t->rank() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected indices and segment_ids to be int32/int64 vectors, "
            "got ",
            indices.DebugString(), " and ", seg.DebugString()));
      }
    }
    if (indices.dim(0) != seg.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "segment_ids and indices should have same size, got ",
          seg.DebugString(), " and ", indices.DebugString()));
    }
    if (data.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "data must be at least 1-D, got ", data.DebugString()));
    }
    const int64_t k = indices.dim(0);
    const int64_t d0 = data.dim(0);
    int64_t num_segments = k == 0 ? 0 : IdxAt(seg, k - 1) + 1;
    if (has_num_segments_) {
      GRAPHRT_ASSIGN_OR_RETURN(num_segments,
                               ops::ReadIntScalar(ctx.input(3),
                                                  "num_segments"));
      if (num_segments < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "num_segments must be >= 0, got ", num_segments));
      }
    }
    int64_t prev = 0;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t s = IdxAt(seg, i);
      if (s < prev) {
        return absl::InvalidArgumentError(absl::StrCat(
            "segment ids are not increasing (segment_ids[", i, "] = ", s,
            " after ", prev, ") or negative"));
      }
      if (s >= num_segments) {
        return absl::InvalidArgumentError(absl::StrCat(
            "segment_ids[", i, "] = ", s, " is out of range [0, ",
            num_segments, ")"));
      }
      prev = s;
      const int64_t idx = IdxAt(indices, i);
      if (idx < 0 || idx >= d0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "indices[", i, "] = ", idx, " is not in [0, ", d0, ")"));
      }
    }
    Shape out_shape = data.shape();
    out_shape.set_dim(0, num_segments);
    const int64_t inner = ops::DimProduct(data.shape(), 1, data.rank());
    auto body = [&](auto tag) -> absl::Status {
      using T = typename decltype(tag)::type;
      GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                               ctx.allocate_output(0, data.dtype(), out_shape));
      T* o = out->mutable_data<T>();
      const T* in = data.data<T>();
      int64_t i = 0;
      while (i < k) {
        const int64_t s = IdxAt(seg, i);
        int64_t j = i;
        T* row = o + s * inner;
        for (; j < k && IdxAt(seg, j) == s; ++j) {
          const T* src = in + IdxAt(indices, j) * inner;
          for (int64_t e = 0; e < inner; ++e) row[e] = AddWrap(row[e], src[e]);
        }
        const int64_t count = j - i;
        if (reduce_ != Reduce::kSum) {
          const T div = reduce_ == Reduce::kMean
                            ? static_cast<T>(count)
                            : static_cast<T>(std::sqrt(
                                  static_cast<double>(count)));
          for (int64_t e = 0; e < inner; ++e) row[e] /= div;
        }
        i = j;
      }
      return absl::OkStatus();
    };
    if (reduce_ == Reduce::kSum) {
      return ops::DispatchDType<float, double, int32_t, int64_t, int16_t,
                                int8_t, uint8_t, uint16_t, float16, bfloat16>(
          data.dtype(), "SparseSegmentSum", body);
    }
    return ops::DispatchDType<float, double, float16, bfloat16>(
        data.dtype(), "SparseSegmentMean/SqrtN", body);
  }

 private:
  Reduce reduce_;
  bool has_num_segments_;
};

template <Reduce kReduce, bool kNum>
absl::StatusOr<std::unique_ptr<Kernel>> Create(const KernelInit&) {
  return std::unique_ptr<Kernel>(new SparseSegmentKernel(kReduce, kNum));
}

}  // namespace

void RegisterSparseSegment(OpRegistry& r) {
  r.Register("SparseSegmentSum", Create<Reduce::kSum, false>);
  r.Register("SparseSegmentSumWithNumSegments", Create<Reduce::kSum, true>);
  r.Register("SparseSegmentMean", Create<Reduce::kMean, false>);
  r.Register("SparseSegmentMeanWithNumSegments", Create<Reduce::kMean, true>);
  r.Register("SparseSegmentSqrtN", Create<Reduce::kSqrtN, false>);
  r.Register("SparseSegmentSqrtNWithNumSegments",
             Create<Reduce::kSqrtN, true>);
}

}  // namespace graphrt
