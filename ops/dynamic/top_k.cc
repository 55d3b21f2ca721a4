// TopKV2 (input [..., n], k scalar) -> values [..., k], indices [..., k]
// (int32 by default, `index_type` int16/int32/int64 as newer TF).
//
// Ordering as TF's CPU kernel: larger values first, equal values by lower
// index first. NaN has no place in that order in TF (the result is
// implementation-defined); graphrt ranks NaN above +inf so the sort is a
// strict weak order. `sorted` = false allows any order in TF; graphrt always
// returns the sorted order (one valid answer).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

template <typename T>
bool IsNan(const T& v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return v != v;  // NOLINT: NaN check that also works for Eigen halves.
  }
}

class TopKKernel : public Kernel {
 public:
  explicit TopKKernel(DType index_type) : index_type_(index_type) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    const Tensor& k_t = ctx.input(1);
    if (k_t.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("k must be 0-D, got ", k_t.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(const int64_t k, ops::ReadIntScalar(k_t, "k"));
    if (k < 0) {
      return absl::InvalidArgumentError(absl::StrCat("need k >= 0, got ", k));
    }
    if (x.rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be at least 1-D, got ", x.DebugString()));
    }
    const int64_t n = x.dim(x.rank() - 1);
    if (n < k) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must have at least k = ", k, " columns, got ",
                       x.DebugString()));
    }
    if (index_type_ != DType::kInt64 &&
        n - 1 > (index_type_ == DType::kInt32
                     ? int64_t{std::numeric_limits<int32_t>::max()}
                     : int64_t{std::numeric_limits<int16_t>::max()})) {
      return absl::InvalidArgumentError(absl::StrCat(
          "last dim ", n, " does not fit index_type ", DTypeName(index_type_)));
    }
    Shape out_shape = x.shape();
    out_shape.set_dim(x.rank() - 1, k);
    return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                              int16_t, uint16_t, uint32_t, uint64_t, float16,
                              bfloat16>(
        x.dtype(), "TopKV2", [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          // Output 1 first: allocating it cannot move output 0.
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor * indices, ctx.allocate_output(1, index_type_, out_shape));
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor * values, ctx.allocate_output(0, x.dtype(), out_shape));
          const int64_t rows = n == 0 ? 0 : x.num_elements() / n;
          if (k == 0 || rows == 0) return absl::OkStatus();
          const T* in = x.data<T>();
          T* vout = values->mutable_data<T>();
          const DType it = index_type_;
          void* iout = indices->raw_data();
          auto run_rows = [&](int64_t begin, int64_t end) {
            std::vector<int64_t> order;
            for (int64_t r = begin; r < end; ++r) {
              const T* row = in + r * n;
              auto before = [row](int64_t a, int64_t b) {
                const bool na = IsNan(row[a]), nb = IsNan(row[b]);
                if (na || nb) return na && (!nb || a < b);
                if (row[b] < row[a]) return true;
                if (row[a] < row[b]) return false;
                return a < b;
              };
              if (k <= n / 4) {
                // Few of many (CenterNet: 100 of 1.3M scores): one scan
                // keeping the k best seen in a heap whose front is the
                // worst of them, instead of partial_sort over an index
                // array of all n (a 10 MB iota per Run there). `before`
                // is a strict total order, so the k best and their sorted
                // order are the same as partial_sort's.
                order.clear();
                int64_t i = 0;
                for (; i < k; ++i) {
                  order.push_back(i);
                  std::push_heap(order.begin(), order.end(), before);
                }
                // Once the heap is full, element i (whose index is above
                // every kept one) displaces the worst kept only when it is
                // `before` it: a larger value, or a NaN while the worst is
                // not; an equal value loses on its index. With the worst
                // not NaN that is !(v <= worst), so the scan compares
                // values only, 16 at a time (a count of comparisons, which
                // vectorizes), until one qualifies.
                while (i < n) {
                  const T worst = row[order.front()];
                  if (IsNan(worst)) break;  // nothing later ranks above
                  for (; i + 16 <= n; i += 16) {
                    int below = 0;
                    for (int j = 0; j < 16; ++j) below += row[i + j] <= worst;
                    if (below != 16) break;
                  }
                  while (i < n && row[i] <= worst) ++i;
                  if (i == n) break;
                  std::pop_heap(order.begin(), order.end(), before);
                  order.back() = i++;
                  std::push_heap(order.begin(), order.end(), before);
                }
                std::sort_heap(order.begin(), order.end(), before);
              } else {
                order.resize(static_cast<size_t>(n));
                std::iota(order.begin(), order.end(), int64_t{0});
                if (k == 1) {
                  order[0] =
                      *std::min_element(order.begin(), order.end(), before);
                } else {
                  std::partial_sort(order.begin(), order.begin() + k,
                                    order.end(), before);
                }
              }
              for (int64_t j = 0; j < k; ++j) {
                const int64_t src = order[j];
                vout[r * k + j] = row[src];
                if (it == DType::kInt32) {
                  static_cast<int32_t*>(iout)[r * k + j] =
                      static_cast<int32_t>(src);
                } else if (it == DType::kInt64) {
                  static_cast<int64_t*>(iout)[r * k + j] = src;
                } else {
                  static_cast<int16_t*>(iout)[r * k + j] =
                      static_cast<int16_t>(src);
                }
              }
            }
          };
          const int64_t min_rows = std::max<int64_t>(
              2, ops::kParallelMinElements / std::max<int64_t>(n, 1));
          ops::ParallelFor(rows, min_rows, run_rows);
          return absl::OkStatus();
        });
  }

 private:
  DType index_type_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateTopK(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(bool sorted, attrs.GetBool("sorted", true));
  (void)sorted;
  GRAPHRT_ASSIGN_OR_RETURN(DType index_type,
                           attrs.GetType("index_type", DType::kInt32));
  if (index_type != DType::kInt32 && index_type != DType::kInt64 &&
      index_type != DType::kInt16) {
    return attrs.Error("index_type",
                       absl::StrCat("must be int16, int32 or int64, got ",
                                    DTypeName(index_type)));
  }
  return std::unique_ptr<Kernel>(new TopKKernel(index_type));
}

}  // namespace

void RegisterTopK(OpRegistry& r) { r.Register("TopKV2", CreateTopK); }

}  // namespace graphrt
