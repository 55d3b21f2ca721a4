// Unique, UniqueV2 (axis), UniqueWithCounts(V2) and ListDiff.
//
// Unique(x 1-D) -> y (unique values in first-occurrence order), idx
// (int32/int64 `out_idx`: position in y of every x element). UniqueV2 takes
// an axis tensor ([] -> 1-D like Unique, [a] -> unique slices along a).
// Equality is C++ `==` as TF's hash maps: -0 equals 0, every NaN is
// distinct.
//
// ListDiff(x, y) -> out, idx: the x elements (with duplicates, in order)
// that do not occur in y, and their positions in x.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Hash consistent with `==`: floats hash through double with -0 -> 0.
template <typename T>
size_t HashElem(const T& v) {
  if constexpr (std::is_same_v<T, std::string> || std::is_integral_v<T>) {
    return absl::Hash<T>()(v);
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    return HashElem(static_cast<double>(v.real())) * 31 +
           HashElem(static_cast<double>(v.imag()));
  } else {
    double d = static_cast<double>(v);
    if (d == 0) d = 0;  // -0 -> +0
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    return absl::Hash<uint64_t>()(bits);
  }
}

// Slices of a tensor viewed as [outer, n, inner], keyed by their index j.
template <typename T>
struct SliceView {
  const T* data;
  int64_t outer, n, inner;
  const T& at(int64_t o, int64_t j, int64_t i) const {
    return data[(o * n + j) * inner + i];
  }
};

template <typename T>
bool IsNan(const T& v) {
  if constexpr (std::is_same_v<T, std::string> || std::is_integral_v<T>) {
    return false;
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    return std::isnan(v.real()) || std::isnan(v.imag());
  } else {
    return v != v;  // NOLINT: NaN test that also works for Eigen halves.
  }
}

// A slice holding a NaN equals no other slice (not even itself), so it is
// kept out of the hash map (which needs a reflexive equality).
template <typename T>
bool SliceHasNan(const SliceView<T>& v, int64_t j) {
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      if (IsNan(v.at(o, j, i))) return true;
    }
  }
  return false;
}

template <typename T>
struct SliceHash {
  const SliceView<T>* v;
  size_t operator()(int64_t j) const {
    size_t h = 0;
    for (int64_t o = 0; o < v->outer; ++o) {
      for (int64_t i = 0; i < v->inner; ++i) {
        h = h * 1000003u ^ HashElem(v->at(o, j, i));
      }
    }
    return h;
  }
};

template <typename T>
struct SliceEq {
  const SliceView<T>* v;
  bool operator()(int64_t a, int64_t b) const {
    for (int64_t o = 0; o < v->outer; ++o) {
      for (int64_t i = 0; i < v->inner; ++i) {
        if (!(v->at(o, a, i) == v->at(o, b, i))) return false;
      }
    }
    return true;
  }
};

void SetIndex(Tensor* t, int64_t i, int64_t v) {
  if (t->dtype() == DType::kInt32) {
    t->mutable_data<int32_t>()[i] = static_cast<int32_t>(v);
  } else {
    t->mutable_data<int64_t>()[i] = v;
  }
}

#define GRAPHRT_UNIQUE_TYPES_                                              \
  float, double, int32_t, int64_t, uint8_t, int8_t, int16_t, uint16_t,     \
      uint32_t, uint64_t, float16, bfloat16, bool, std::string, complex64, \
      complex128

class UniqueKernel : public Kernel {
 public:
  UniqueKernel(bool has_axis, bool with_counts, DType out_idx)
      : has_axis_(has_axis), with_counts_(with_counts), out_idx_(out_idx) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, has_axis_ ? 2 : 1));
    const Tensor& x = ctx.input(0);
    int axis = -1;
    if (has_axis_) {
      const Tensor& a = ctx.input(1);
      if (a.rank() != 1 || a.num_elements() > 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("axis must be a vector with at most 1 element, got ",
                         a.DebugString()));
      }
      GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector av,
                               ops::ReadIntVector(a, "axis"));
      if (!av.empty()) {
        GRAPHRT_ASSIGN_OR_RETURN(axis,
                                 ops::NormalizeAxis(av[0], x.rank(), "axis"));
      }
    }
    if (axis < 0) {
      if (x.rank() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("unique expects a 1-D vector, got ", x.DebugString()));
      }
      axis = 0;
    }
    const Shape& s = x.shape();
    const int64_t n = s.dim(axis);
    if (out_idx_ == DType::kInt32 && n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError("too many elements for int32 idx");
    }
    return ops::DispatchDType<GRAPHRT_UNIQUE_TYPES_>(
        x.dtype(), "Unique", [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          SliceView<T> view{x.data<T>(), ops::DimProduct(s, 0, axis), n,
                            ops::DimProduct(s, axis + 1, s.rank())};
          absl::flat_hash_map<int64_t, int64_t, SliceHash<T>, SliceEq<T>> ids(
              16, SliceHash<T>{&view}, SliceEq<T>{&view});
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor * idx, ctx.allocate_output(1, out_idx_, Shape({n})));
          std::vector<int64_t> firsts;
          std::vector<int64_t> counts;
          for (int64_t j = 0; j < n; ++j) {
            int64_t id = static_cast<int64_t>(firsts.size());
            bool is_new = true;
            if (!SliceHasNan(view, j)) {
              auto [it, inserted] = ids.emplace(j, id);
              is_new = inserted;
              id = it->second;
            }
            if (is_new) {
              firsts.push_back(j);
              counts.push_back(0);
            }
            ++counts[id];
            SetIndex(idx, j, id);
          }
          const int64_t u = static_cast<int64_t>(firsts.size());
          Shape ys = s;
          ys.set_dim(axis, u);
          GRAPHRT_ASSIGN_OR_RETURN(Tensor * y,
                                   ctx.allocate_output(0, x.dtype(), ys));
          T* yd = y->mutable_data<T>();
          for (int64_t o = 0; o < view.outer; ++o) {
            for (int64_t k = 0; k < u; ++k) {
              for (int64_t i = 0; i < view.inner; ++i) {
                yd[(o * u + k) * view.inner + i] = view.at(o, firsts[k], i);
              }
            }
          }
          if (with_counts_) {
            GRAPHRT_ASSIGN_OR_RETURN(
                Tensor * c, ctx.allocate_output(2, out_idx_, Shape({u})));
            for (int64_t k = 0; k < u; ++k) SetIndex(c, k, counts[k]);
          }
          return absl::OkStatus();
        });
  }

 private:
  bool has_axis_;
  bool with_counts_;
  DType out_idx_;
};

class ListDiffKernel : public Kernel {
 public:
  explicit ListDiffKernel(DType out_idx) : out_idx_(out_idx) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.rank() != 1 || y.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("x and y must be 1-D, got ", x.DebugString(), " and ",
                       y.DebugString()));
    }
    if (x.dtype() != y.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("x and y must have the same dtype, got ",
                       x.DebugString(), " and ", y.DebugString()));
    }
    return ops::DispatchDType<GRAPHRT_UNIQUE_TYPES_>(
        x.dtype(), "ListDiff", [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          struct H {
            size_t operator()(const T& v) const { return HashElem(v); }
          };
          // NaN equals nothing: leave it out of the set (which needs a
          // reflexive equality); an x NaN is then always kept.
          absl::flat_hash_set<T, H> ys;
          for (int64_t i = 0; i < y.num_elements(); ++i) {
            if (!IsNan(y.data<T>()[i])) ys.insert(y.data<T>()[i]);
          }
          std::vector<int64_t> keep;
          for (int64_t i = 0; i < x.num_elements(); ++i) {
            const T& v = x.data<T>()[i];
            if (IsNan(v) || !ys.contains(v)) keep.push_back(i);
          }
          const int64_t m = static_cast<int64_t>(keep.size());
          if (out_idx_ == DType::kInt32 &&
              x.num_elements() > std::numeric_limits<int32_t>::max()) {
            return absl::InvalidArgumentError("too many elements for int32");
          }
          // Output 1 first: allocating it cannot move output 0.
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor * idx, ctx.allocate_output(1, out_idx_, Shape({m})));
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor * out, ctx.allocate_output(0, x.dtype(), Shape({m})));
          for (int64_t k = 0; k < m; ++k) {
            out->mutable_data<T>()[k] = x.data<T>()[keep[k]];
            SetIndex(idx, k, keep[k]);
          }
          return absl::OkStatus();
        });
  }

 private:
  DType out_idx_;
};

absl::StatusOr<DType> ReadOutIdx(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("out_idx", DType::kInt32));
  if (t != DType::kInt32 && t != DType::kInt64) {
    return attrs.Error(
        "out_idx", absl::StrCat("must be int32 or int64, got ", DTypeName(t)));
  }
  return t;
}

template <bool kAxis, bool kCounts>
absl::StatusOr<std::unique_ptr<Kernel>> CreateUnique(const KernelInit& init) {
  GRAPHRT_ASSIGN_OR_RETURN(DType t, ReadOutIdx(init));
  return std::unique_ptr<Kernel>(new UniqueKernel(kAxis, kCounts, t));
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateListDiff(const KernelInit& init) {
  GRAPHRT_ASSIGN_OR_RETURN(DType t, ReadOutIdx(init));
  return std::unique_ptr<Kernel>(new ListDiffKernel(t));
}

}  // namespace

void RegisterUnique(OpRegistry& r) {
  r.Register("Unique", CreateUnique<false, false>);
  r.Register("UniqueV2", CreateUnique<true, false>);
  r.Register("UniqueWithCounts", CreateUnique<false, true>);
  r.Register("UniqueWithCountsV2", CreateUnique<true, true>);
  r.Register("ListDiff", CreateListDiff);
}

}  // namespace graphrt
