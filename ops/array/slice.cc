// Slice (x, begin, size) and StridedSlice (x, begin, end, strides) with
// TF's semantics, any dtype (strings included), int32/int64 index inputs.
//
// StridedSlice follows TF's ValidateStridedSliceOp: the sparse spec
// (begin/end/strides of length N < 32 plus the five masks) becomes a dense
// per-input-dim spec: the one ellipsis (implicit at the end when absent)
// expands to full ranges, new_axis entries add size-1 output dims, shrink
// entries index one element (begin only; must be in range, stride > 0)
// and drop the dim. Non-shrink begin/end are made non-negative and
// clamped to the valid range for the stride's sign; masks select the full
// range. The result is one strided view copy (strided_copy.h).
#include <cstdint>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

absl::Status CheckIndexVector(const Tensor& t, absl::string_view what) {
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", what, " to be a vector, got ", t.DebugString()));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- Slice

// A slice that takes every element of x in order: x's buffer under
// out_shape (as Reshape does), not a copy.
bool TakesWholeInput(const Tensor& x, const Shape& out_shape, int64_t offset) {
  return offset == 0 && out_shape.num_elements() > 0 &&
         out_shape.num_elements() == x.num_elements();
}
absl::Status OutputWholeInput(KernelContext& ctx, const Tensor& x,
                              const Shape& out_shape) {
  GRAPHRT_ASSIGN_OR_RETURN(Tensor whole, x.Reshaped(out_shape));
  ctx.set_output(0, std::move(whole));
  return absl::OkStatus();
}

absl::Status SliceRun(KernelContext& ctx) {
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
  const Tensor& x = ctx.input(0);
  GRAPHRT_RETURN_IF_ERROR(CheckIndexVector(ctx.input(1), "begin"));
  GRAPHRT_RETURN_IF_ERROR(CheckIndexVector(ctx.input(2), "size"));
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector begin,
                           ops::ReadIntVector(ctx.input(1), "begin"));
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector size,
                           ops::ReadIntVector(ctx.input(2), "size"));
  const int rank = x.rank();
  if (static_cast<int>(begin.size()) != rank ||
      static_cast<int>(size.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected begin and size to have ", rank, " elements (the rank of ",
        x.DebugString(), "), got begin [", absl::StrJoin(begin, ","),
        "] and size [", absl::StrJoin(size, ","), "]"));
  }
  const ops::DimVector in_strides = ops::RowMajorStrides(x.shape());
  Shape out_shape;
  int64_t offset = 0;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = x.dim(i);
    if (begin[i] < 0 || begin[i] > d) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected begin[", i, "] in [0, ", d, "] for input ",
                       x.DebugString(), ", got ", begin[i]));
    }
    int64_t s = size[i];
    if (s == -1) s = d - begin[i];
    if (s < 0 || s > d - begin[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected size[", i, "] in [0, ", d - begin[i],
                       "] (or -1) for begin[", i, "] = ", begin[i],
                       " and input ", x.DebugString(), ", got ", size[i]));
    }
    out_shape.AddDim(s);
    if (s > 0) offset += begin[i] * in_strides[i];
  }
  if (TakesWholeInput(x, out_shape, offset)) {
    return OutputWholeInput(ctx, x, out_shape);
  }
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
  ops::StridedCopy(x.dtype(), x.raw_data(), offset, out_shape.dims(),
                   in_strides, out->raw_data());
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateSlice(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType index, attrs.GetType("Index", DType::kInt32));
  if (index != DType::kInt32 && index != DType::kInt64) {
    return attrs.Error("Index", absl::StrCat("must be int32 or int64, got ",
                                             DTypeName(index)));
  }
  return MakeFunctionKernel(SliceRun);
}

// --------------------------------------------------------- StridedSlice

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

constexpr int kNewAxis = -1;
constexpr int kShrinkAxis = -2;

class StridedSliceKernel : public Kernel {
 public:
  explicit StridedSliceKernel(Masks m) : m_(m) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 4));
    const Tensor& x = ctx.input(0);
    const Tensor& bt = ctx.input(1);
    const Tensor& et = ctx.input(2);
    const Tensor& st = ctx.input(3);
    if (bt.rank() != 1 || et.rank() != 1 || st.rank() != 1 ||
        bt.num_elements() != st.num_elements() ||
        et.num_elements() != st.num_elements() || bt.num_elements() >= 32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected begin, end, and strides to be 1-D equal size tensors "
          "(fewer than 32 elements), got ",
          bt.DebugString(), ", ", et.DebugString(), " and ", st.DebugString()));
    }
    if (bt.dtype() != st.dtype() || et.dtype() != st.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected begin, end and strides of one dtype, got ",
          bt.DebugString(), ", ", et.DebugString(), " and ", st.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector sb,
                             ops::ReadIntVector(bt, "begin"));
    GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector se, ops::ReadIntVector(et, "end"));
    GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector ss,
                             ops::ReadIntVector(st, "strides"));
    int sparse_dims = static_cast<int>(ss.size());
    int64_t ellipsis = m_.ellipsis;
    // Step 1: new axes after the ellipsis; implicit trailing ellipsis.
    bool ellipsis_seen = false;
    int new_axis_after_ellipsis = 0;
    for (int i = 0; i < sparse_dims; ++i) {
      if (ellipsis_seen && (m_.new_axis >> i & 1)) ++new_axis_after_ellipsis;
      if (ellipsis >> i & 1) ellipsis_seen = true;
    }
    if (!ellipsis_seen) {
      ellipsis |= int64_t{1} << sparse_dims;
      ++sparse_dims;
    }
    // Step 2: dense spec over the input dims.
    const int rank = x.rank();
    ops::DimVector begin(rank, 0), end(rank, 0), stride(rank, 1);
    absl::InlinedVector<bool, 8> bmask(rank, false), emask(rank, false),
        shrink(rank, false);
    absl::InlinedVector<int, 8>
        gather;  // final shape: dense dim, kNewAxis, kShrinkAxis
    int full = 0;
    for (int i = 0; i < sparse_dims; ++i) {
      if (ellipsis >> i & 1) {
        const int next = std::min(
            rank - (sparse_dims - i) + 1 + new_axis_after_ellipsis, rank);
        for (; full < next; ++full) {
          begin[full] = end[full] = 0;
          stride[full] = 1;
          bmask[full] = emask[full] = true;
          gather.push_back(full);
        }
      } else if (m_.new_axis >> i & 1) {
        gather.push_back(kNewAxis);
      } else {
        if (full == rank) {
          return absl::InvalidArgumentError(absl::StrCat(
              "index out of range using input dim ", full, "; input ",
              x.DebugString(), " has only ", rank, " dims"));
        }
        begin[full] = sb[i];
        end[full] = se[i];
        stride[full] = ss[i];
        bmask[full] = m_.begin >> i & 1;
        emask[full] = m_.end >> i & 1;
        if (m_.shrink >> i & 1) {
          shrink[full] = true;
          gather.push_back(kShrinkAxis);
        } else {
          gather.push_back(full);
        }
        ++full;
      }
    }
    // Step 3: canonical begin/end and processing sizes.
    ops::DimVector sizes(rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t s = stride[i];
      const int64_t d = x.dim(i);
      if (s == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("strides[", i, "] must be non-zero"));
      }
      if (shrink[i]) {
        if (s < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "only stride 1 allowed on non-range indexing (shrink axis ", i,
              " has stride ", s, ")"));
        }
        const int64_t b = begin[i] < 0 ? d + begin[i] : begin[i];
        if (b < 0 || b >= d) {
          return absl::InvalidArgumentError(
              absl::StrCat("slice index ", begin[i], " of dimension ", i,
                           " out of bounds for input ", x.DebugString()));
        }
        begin[i] = b;
        sizes[i] = 1;
        continue;
      }
      const int64_t lo = s > 0 ? 0 : -1;
      const int64_t hi = s > 0 ? d : d - 1;
      auto canonical = [&](int64_t v, bool masked, bool is_end) {
        if (masked) return (s > 0) != is_end ? lo : hi;
        const int64_t fwd = v < 0 ? d + v : v;
        return fwd < lo ? lo : (fwd > hi ? hi : fwd);
      };
      begin[i] = canonical(begin[i], bmask[i], false);
      end[i] = canonical(end[i], emask[i], true);
      const int64_t len = end[i] - begin[i];
      if (len == 0 || (len < 0) != (s < 0)) {
        sizes[i] = 0;
      } else {
        sizes[i] = len / s + (len % s != 0 ? 1 : 0);
      }
    }
    // Step 4: final shape.
    Shape out_shape;
    for (int g : gather) {
      if (g >= 0) {
        out_shape.AddDim(sizes[g]);
      } else if (g == kNewAxis) {
        out_shape.AddDim(1);
      }
    }
    const ops::DimVector in_strides = ops::RowMajorStrides(x.shape());
    ops::DimVector view_strides(rank);
    int64_t offset = 0;
    bool in_order = true;  // every element, in order (steps of 1)
    for (int i = 0; i < rank; ++i) {
      offset += begin[i] * in_strides[i];
      // |stride| <= dim whenever a second element is taken, so this cannot
      // overflow; with one element the stride is irrelevant.
      view_strides[i] = sizes[i] > 1 ? stride[i] * in_strides[i] : 0;
      if (sizes[i] > 1 && stride[i] != 1) in_order = false;
    }
    // E.g. x[0] of a batch of one image.
    if (in_order && TakesWholeInput(x, out_shape, offset)) {
      return OutputWholeInput(ctx, x, out_shape);
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, x.dtype(), out_shape));
    if (out->num_elements() == 0) return absl::OkStatus();
    ops::StridedCopy(x.dtype(), x.raw_data(), offset, sizes, view_strides,
                     out->raw_data());
    return absl::OkStatus();
  }

 private:
  Masks m_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateStridedSlice(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  Masks m;
  GRAPHRT_ASSIGN_OR_RETURN(m.begin, attrs.GetInt("begin_mask", 0));
  GRAPHRT_ASSIGN_OR_RETURN(m.end, attrs.GetInt("end_mask", 0));
  GRAPHRT_ASSIGN_OR_RETURN(m.ellipsis, attrs.GetInt("ellipsis_mask", 0));
  GRAPHRT_ASSIGN_OR_RETURN(m.new_axis, attrs.GetInt("new_axis_mask", 0));
  GRAPHRT_ASSIGN_OR_RETURN(m.shrink, attrs.GetInt("shrink_axis_mask", 0));
  // Masks are int32 attrs; keep their 32 bits.
  for (int64_t* v : {&m.begin, &m.end, &m.ellipsis, &m.new_axis, &m.shrink}) {
    *v &= 0xffffffffLL;
  }
  if (m.ellipsis & (m.ellipsis - 1)) {
    return attrs.Error("ellipsis_mask",
                       "has more than one bit set: multiple ellipses in "
                       "slice spec not allowed");
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType index, attrs.GetType("Index", DType::kInt32));
  if (index != DType::kInt32 && index != DType::kInt64) {
    return attrs.Error("Index", absl::StrCat("must be int32 or int64, got ",
                                             DTypeName(index)));
  }
  return std::unique_ptr<Kernel>(new StridedSliceKernel(m));
}

}  // namespace

void RegisterSlice(OpRegistry& r) {
  r.Register("Slice", CreateSlice);
  r.Register("StridedSlice", CreateStridedSlice);
}

}  // namespace graphrt
