// Pad (x, paddings), PadV2 (x, paddings, constant_values) and MirrorPad
// (x, paddings; mode REFLECT | SYMMETRIC). paddings is int32/int64
// [rank, 2], non-negative; any dtype for Pad/PadV2 (strings pad with "" /
// the constant), MirrorPad any dtype too.
//
// Both walk the output row by row (all dims but the last). Each dim has a
// map from output index to source index (-1 = padding); a row whose outer
// indices hit padding is all constant, else the last dim is filled from
// the source row through its map (Pad: constant, one contiguous copy,
// constant). REFLECT: pads <= dim - 1 and the edge is not repeated;
// SYMMETRIC: pads <= dim and the edge is repeated.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

enum class Mode { kConstant, kReflect, kSymmetric };

using Paddings = absl::InlinedVector<std::pair<int64_t, int64_t>, 8>;

absl::StatusOr<Paddings> ReadPaddings(const Tensor& x, const Tensor& p) {
  if (p.rank() != 2 || p.dim(0) != x.rank() || p.dim(1) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected paddings of shape [", x.rank(), ",2] for input ",
                     x.DebugString(), ", got ", p.DebugString()));
  }
  GRAPHRT_ASSIGN_OR_RETURN(Tensor flat, p.Reshaped(Shape({p.num_elements()})));
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector v,
                           ops::ReadIntVector(flat, "paddings"));
  Paddings out(x.rank());
  for (int i = 0; i < x.rank(); ++i) {
    out[i] = {v[2 * i], v[2 * i + 1]};
    if (out[i].first < 0 || out[i].second < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("paddings must be non-negative, got [", out[i].first,
                       ", ", out[i].second, "] for dim ", i));
    }
  }
  return out;
}

// Source index of output index j in a dim of size d with `before` padding.
int64_t MapIndex(int64_t j, int64_t before, int64_t d, Mode mode) {
  int64_t s = j - before;
  if (s >= 0 && s < d) return s;
  if (mode == Mode::kConstant) return -1;
  if (s < 0) return mode == Mode::kReflect ? -s : -s - 1;
  return mode == Mode::kReflect ? 2 * (d - 1) - s : 2 * d - 1 - s;
}

absl::Status PadImpl(KernelContext& ctx, const Tensor& x,
                     absl::Span<const std::pair<int64_t, int64_t>> pads,
                     Mode mode, const Tensor* constant) {
  const int rank = x.rank();
  ops::DimVector out_dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int64_t d = x.dim(i);
    const auto [a, b] = pads[i];
    if (mode == Mode::kReflect && (a > d - 1 || b > d - 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "REFLECT paddings must be no greater than dim size - 1 (", d - 1,
          ") in dim ", i, ", got [", a, ", ", b, "]"));
    }
    if (mode == Mode::kSymmetric && (a > d || b > d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("SYMMETRIC paddings must be no greater than dim size (",
                       d, ") in dim ", i, ", got [", a, ", ", b, "]"));
    }
    if (a > INT64_MAX / 4 || b > INT64_MAX / 4 || d > INT64_MAX / 2) {
      return absl::InvalidArgumentError("paddings too large");
    }
    out_dims[i] = d + a + b;
  }
  GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape, Shape::Make(out_dims));
  // Every element is written below (numeric and bool fills / copies; other
  // storage types are default-constructed by the allocation).
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * out, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
  const int64_t n = out->num_elements();
  if (n == 0) return absl::OkStatus();
  // Trailing dims without padding are copied as blocks of `block` elements
  // (NHWC images padded in H and W: whole [W, C] rows, not C-element rows);
  // `r` dims remain, the last of them walked per block.
  int r = rank;
  int64_t block = 1;
  while (r > 0 && pads[r - 1].first == 0 && pads[r - 1].second == 0) {
    block *= x.dim(r - 1);
    --r;
  }
  if (r == 0) {
    ops::CopyElements(x.dtype(), x.raw_data(), 0, out->raw_data(), 0, n);
    return absl::OkStatus();
  }
  // Per-dim output -> source maps, in one scratch tensor from the Run's
  // pool (no heap call in steady state).
  int64_t map_size = 0;
  for (int i = 0; i < r; ++i) map_size += out_dims[i];
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor map_storage,
      Tensor::AllocateUninitialized(DType::kInt64, Shape({map_size})));
  absl::InlinedVector<const int64_t*, 8> maps(r);
  int64_t* next_map = map_storage.mutable_data<int64_t>();
  for (int i = 0; i < r; ++i) {
    for (int64_t j = 0; j < out_dims[i]; ++j) {
      next_map[j] = MapIndex(j, pads[i].first, x.dim(i), mode);
    }
    maps[i] = next_map;
    next_map += out_dims[i];
  }
  const ops::DimVector in_strides = ops::RowMajorStrides(x.shape());
  const int64_t inner = out_dims[r - 1] * block;  // elements per output row
  const int64_t rows = n / inner;
  const int64_t in_inner = x.dim(r - 1) * block;
  const int64_t before = pads[r - 1].first * block;
  bool outer_unpadded = true;
  for (int i = 0; i + 1 < r; ++i) {
    if (pads[i].first != 0 || pads[i].second != 0) outer_unpadded = false;
  }
  ops::DispatchStorage(x.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S* src = x.data<S>();
    S* dst = out->mutable_data<S>();
    const S c = constant != nullptr ? *constant->data<S>() : S{};
    const int64_t min_rows =
        std::max<int64_t>(1, ops::kParallelMinElements / inner);
    if (outer_unpadded && mode == Mode::kConstant) {
      // Only the last walked dim is padded (BlazeFace's channel padding
      // before a residual add): output row k reads input row k, with no
      // per-row index arithmetic (three 64-bit divisions per 24-float row
      // cost more than the copy).
      ops::ParallelFor(rows, min_rows, [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          S* d = dst + row * inner;
          const S* srow = src + row * in_inner;
          std::fill(d, d + before, c);
          std::copy(srow, srow + in_inner, d + before);
          std::fill(d + before + in_inner, d + inner, c);
        }
      });
      return;
    }
    ops::ParallelFor(rows, min_rows, [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        S* d = dst + row * inner;
        int64_t rem = row, off = 0;
        bool pad_row = false;
        for (int i = r - 2; i >= 0; --i) {
          const int64_t s = maps[i][rem % out_dims[i]];
          rem /= out_dims[i];
          if (s < 0) {
            pad_row = true;
            break;
          }
          off += s * in_strides[i];
        }
        if (pad_row) {
          std::fill(d, d + inner, c);
          continue;
        }
        const S* srow = src + off;
        if (mode == Mode::kConstant) {
          std::fill(d, d + before, c);
          std::copy(srow, srow + in_inner, d + before);
          std::fill(d + before + in_inner, d + inner, c);
        } else {
          const int64_t* m = maps[r - 1];
          for (int64_t j = 0; j < out_dims[r - 1]; ++j) {
            std::copy(srow + m[j] * block, srow + (m[j] + 1) * block,
                      d + j * block);
          }
        }
      }
    });
  });
  return absl::OkStatus();
}

absl::Status PadRun(KernelContext& ctx) {
  if (ctx.num_inputs() != 2 && ctx.num_inputs() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected 2 or 3 inputs, got ", ctx.num_inputs()));
  }
  const Tensor& x = ctx.input(0);
  GRAPHRT_ASSIGN_OR_RETURN(auto pads, ReadPaddings(x, ctx.input(1)));
  const Tensor* constant = nullptr;
  if (ctx.num_inputs() == 3) {
    constant = &ctx.input(2);
    if (constant->num_elements() != 1 || constant->rank() > 1 ||
        constant->dtype() != x.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected constant_values to be a scalar of the input's dtype ",
          DTypeName(x.dtype()), ", got ", constant->DebugString()));
    }
  }
  return PadImpl(ctx, x, pads, Mode::kConstant, constant);
}

class MirrorPadKernel : public Kernel {
 public:
  explicit MirrorPadKernel(Mode mode) : mode_(mode) {}
  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    GRAPHRT_ASSIGN_OR_RETURN(auto pads, ReadPaddings(x, ctx.input(1)));
    return PadImpl(ctx, x, pads, mode_, nullptr);
  }

 private:
  Mode mode_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreatePad(const KernelInit& init) {
  if (init.num_inputs != 2 && init.num_inputs != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(),
                     "' needs 2 or 3 inputs, has ", init.num_inputs));
  }
  return MakeFunctionKernel(PadRun);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateMirrorPad(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::string mode, attrs.GetString("mode", ""));
  if (mode == "REFLECT" || mode == "reflect") {
    return std::unique_ptr<Kernel>(new MirrorPadKernel(Mode::kReflect));
  }
  if (mode == "SYMMETRIC" || mode == "symmetric") {
    return std::unique_ptr<Kernel>(new MirrorPadKernel(Mode::kSymmetric));
  }
  return attrs.Error(
      "mode", absl::StrCat("must be REFLECT or SYMMETRIC, got '", mode, "'"));
}

}  // namespace

void RegisterPad(OpRegistry& r) {
  r.Register("Pad", CreatePad);
  r.Register("PadV2", CreatePad);
  r.Register("MirrorPad", CreateMirrorPad);
}

}  // namespace graphrt
