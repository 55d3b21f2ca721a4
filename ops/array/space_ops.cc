// Space/depth/batch reshuffles, any dtype:
// * DepthToSpace / SpaceToDepth (input; block_size >= 2, data_format NHWC
//   or NCHW): pure permutations, done as one strided view copy
//   (strided_copy.h) over a 6-D view of the output.
// * SpaceToBatchND (input, block_shape [M], paddings [M,2]) and
//   BatchToSpaceND (input, block_shape [M], crops [M,2]): the output is
//   walked row by row (batch + M spatial dims; the remaining dims form one
//   contiguous block); padding rows stay zero ("" for strings).
//   SpaceToBatchND output batch index = block_offset * batch + b, with
//   block_offset row-major over block_shape, as in TF.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array/array_ops.h"
#include "ops/array/op_util.h"
#include "ops/array/strided_copy.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// ------------------------------------------- DepthToSpace, SpaceToDepth

class DepthSpaceKernel : public Kernel {
 public:
  DepthSpaceKernel(bool to_space, int64_t bs, bool nchw)
      : to_space_(to_space), bs_(bs), nchw_(nchw) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 1));
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected a 4-D input, got ", x.DebugString()));
    }
    const int64_t bs = bs_;
    const int64_t n = x.dim(0);
    const int64_t c = nchw_ ? x.dim(1) : x.dim(3);
    const int64_t h = nchw_ ? x.dim(2) : x.dim(1);
    const int64_t w = nchw_ ? x.dim(3) : x.dim(2);
    std::vector<int64_t> dims, strides;
    Shape out_shape;
    if (to_space_) {
      if (c % (bs * bs) != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("input depth ", c,
                         " should be divisible by block_size * "
                         "block_size = ",
                         bs * bs, " (input ", x.DebugString(), ")"));
      }
      const int64_t oc = c / (bs * bs);
      if (!nchw_) {
        // out[n, hh*bs+bh, ww*bs+bw, k] = in[n, hh, ww, (bh*bs+bw)*oc + k]
        out_shape = Shape({n, h * bs, w * bs, oc});
        dims = {n, h, bs, w, bs, oc};
        strides = {h * w * c, w * c, bs * oc, c, oc, 1};
      } else {
        // out[n, k, hh*bs+bh, ww*bs+bw] = in[n, (bh*bs+bw)*oc + k, hh, ww]
        out_shape = Shape({n, oc, h * bs, w * bs});
        dims = {n, oc, h, bs, w, bs};
        strides = {c * h * w, h * w, w, bs * oc * h * w, 1, oc * h * w};
      }
    } else {
      if (h % bs != 0 || w % bs != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("image height ", h, " and width ", w,
                         " should be divisible by block_size ", bs, " (input ",
                         x.DebugString(), ")"));
      }
      const int64_t oh = h / bs, ow = w / bs;
      if (!nchw_) {
        // out[n, oh, ow, (bh*bs+bw)*c + k] = in[n, oh*bs+bh, ow*bs+bw, k]
        out_shape = Shape({n, oh, ow, c * bs * bs});
        dims = {n, oh, ow, bs, bs, c};
        strides = {h * w * c, bs * w * c, bs * c, w * c, c, 1};
      } else {
        // out[n, (bh*bs+bw)*c + k, oh, ow] = in[n, k, oh*bs+bh, ow*bs+bw]
        out_shape = Shape({n, c * bs * bs, oh, ow});
        dims = {n, bs, bs, c, oh, ow};
        strides = {c * h * w, w, 1, h * w, bs * w, bs};
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), out_shape));
    ops::StridedCopy(x.dtype(), x.raw_data(), 0, dims, strides,
                     out->raw_data());
    return absl::OkStatus();
  }

 private:
  bool to_space_;
  int64_t bs_;
  bool nchw_;
};

template <bool kToSpace>
absl::StatusOr<std::unique_ptr<Kernel>> CreateDepthSpace(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t bs, attrs.GetInt("block_size", 0));
  if (bs < 2 || bs > (1 << 16)) {
    return attrs.Error("block_size",
                       absl::StrCat("must be in [2, 65536], got ", bs));
  }
  GRAPHRT_ASSIGN_OR_RETURN(std::string fmt,
                           attrs.GetString("data_format", "NHWC"));
  if (fmt != "NHWC" && fmt != "NCHW") {
    return attrs.Error("data_format",
                       absl::StrCat("must be NHWC or NCHW, got '", fmt, "'"));
  }
  return std::unique_ptr<Kernel>(
      new DepthSpaceKernel(kToSpace, bs, fmt == "NCHW"));
}

// -------------------------------------- SpaceToBatchND, BatchToSpaceND

struct BlockSpec {
  ops::DimVector block;
  std::vector<std::pair<int64_t, int64_t>> pads;  // paddings or crops
};

absl::StatusOr<BlockSpec> ReadBlockSpec(const Tensor& x, const Tensor& bt,
                                        const Tensor& pt,
                                        absl::string_view pad_name) {
  if (bt.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected block_shape to be a vector, got ", bt.DebugString()));
  }
  const int64_t m = bt.num_elements();
  if (pt.rank() != 2 || pt.dim(0) != m || pt.dim(1) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", pad_name, " of shape [", m, ",2], got ",
                     pt.DebugString()));
  }
  if (m < 1 || x.rank() < m + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input rank should be >= ", m + 1, " (1 + block_shape size ", m,
        " >= 1), got ", x.DebugString()));
  }
  BlockSpec spec;
  GRAPHRT_ASSIGN_OR_RETURN(spec.block, ops::ReadIntVector(bt, "block_shape"));
  GRAPHRT_ASSIGN_OR_RETURN(Tensor flat, pt.Reshaped(Shape({2 * m})));
  GRAPHRT_ASSIGN_OR_RETURN(ops::DimVector p,
                           ops::ReadIntVector(flat, pad_name));
  for (int64_t i = 0; i < m; ++i) {
    if (spec.block[i] < 1 || spec.block[i] > (int64_t{1} << 31)) {
      return absl::InvalidArgumentError(
          absl::StrCat("block_shape must be positive, got [",
                       absl::StrJoin(spec.block, ","), "]"));
    }
    if (p[2 * i] < 0 || p[2 * i + 1] < 0 || p[2 * i] > (int64_t{1} << 40) ||
        p[2 * i + 1] > (int64_t{1} << 40)) {
      return absl::InvalidArgumentError(
          absl::StrCat(pad_name, " must be non-negative, got [",
                       absl::StrJoin(p, ","), "]"));
    }
    spec.pads.push_back({p[2 * i], p[2 * i + 1]});
  }
  return spec;
}

class SpaceBatchKernel : public Kernel {
 public:
  explicit SpaceBatchKernel(bool to_batch) : to_batch_(to_batch) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
    const Tensor& x = ctx.input(0);
    GRAPHRT_ASSIGN_OR_RETURN(BlockSpec spec,
                             ReadBlockSpec(x, ctx.input(1), ctx.input(2),
                                           to_batch_ ? "paddings" : "crops"));
    const int m = static_cast<int>(spec.block.size());
    const int rank = x.rank();
    int64_t prod = 1;
    for (int64_t b : spec.block) {
      if (prod > INT64_MAX / b) {
        return absl::InvalidArgumentError("block_shape product overflows");
      }
      prod *= b;
    }
    std::vector<int64_t> out_dims(x.shape().dims().begin(),
                                  x.shape().dims().end());
    const int64_t in_batch = x.dim(0);
    int64_t out_batch;
    if (to_batch_) {
      if (in_batch > 0 && prod > INT64_MAX / in_batch) {
        return absl::InvalidArgumentError("output batch overflows");
      }
      out_batch = in_batch * prod;
      for (int i = 0; i < m; ++i) {
        const int64_t padded =
            x.dim(i + 1) + spec.pads[i].first + spec.pads[i].second;
        if (padded % spec.block[i] != 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "padded spatial dim ", i, " (", padded,
              ") must be divisible by block_shape[", i, "] = ", spec.block[i],
              " (input ", x.DebugString(), ")"));
        }
        out_dims[i + 1] = padded / spec.block[i];
      }
    } else {
      if (in_batch % prod != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("input batch dimension ", in_batch,
                         " must be divisible by the product of block_shape (",
                         prod, "), input ", x.DebugString()));
      }
      out_batch = in_batch / prod;
      for (int i = 0; i < m; ++i) {
        const int64_t d = x.dim(i + 1);
        if (d > 0 && spec.block[i] > INT64_MAX / 4 / d) {
          return absl::InvalidArgumentError("spatial size overflows");
        }
        const int64_t full = d * spec.block[i];
        const int64_t cropped = full - spec.pads[i].first - spec.pads[i].second;
        if (cropped < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "crops [", spec.pads[i].first, ", ", spec.pads[i].second,
              "] for spatial dim ", i, " exceed its size ", full));
        }
        out_dims[i + 1] = cropped;
      }
    }
    out_dims[0] = out_batch;
    GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape, Shape::Make(out_dims));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, x.dtype(), out_shape));
    if (out->num_elements() == 0 || x.num_elements() == 0) {
      return absl::OkStatus();
    }
    const int64_t inner = ops::DimProduct(x.shape(), m + 1, rank);
    const ops::DimVector in_strides = ops::RowMajorStrides(x.shape());
    // Rows of the output: [batch, spatial...]; each maps to one input row.
    const int64_t rows = out->num_elements() / inner;
    const DType dtype = x.dtype();
    const int64_t min_rows =
        std::max<int64_t>(1, ops::kParallelMinElements / inner);
    ops::ParallelFor(rows, min_rows, [&](int64_t b, int64_t e) {
      ops::DimVector pos(m);
      for (int64_t r = b; r < e; ++r) {
        // Output multi-index over [batch, spatial...].
        int64_t rem = r;
        for (int i = m - 1; i >= 0; --i) {
          pos[i] = rem % out_dims[i + 1];
          rem /= out_dims[i + 1];
        }
        const int64_t ob = rem;
        int64_t src = 0;
        bool pad = false;
        if (to_batch_) {
          // ob = block_offset * in_batch + ib.
          const int64_t ib = ob % in_batch;
          int64_t off = ob / in_batch;
          src = ib * in_strides[0];
          for (int i = m - 1; i >= 0; --i) {
            const int64_t bi = off % spec.block[i];
            off /= spec.block[i];
            const int64_t s = pos[i] * spec.block[i] + bi - spec.pads[i].first;
            if (s < 0 || s >= x.dim(i + 1)) {
              pad = true;
              break;
            }
            src += s * in_strides[i + 1];
          }
        } else {
          int64_t off = 0;
          for (int i = 0; i < m; ++i) {
            const int64_t y = pos[i] + spec.pads[i].first;
            off = off * spec.block[i] + y % spec.block[i];
            src += (y / spec.block[i]) * in_strides[i + 1];
          }
          src += (off * out_batch + ob) * in_strides[0];
        }
        if (!pad) {
          ops::CopyElements(dtype, x.raw_data(), src, out->raw_data(),
                            r * inner, inner);
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  bool to_batch_;
};

template <bool kToBatch>
absl::StatusOr<std::unique_ptr<Kernel>> CreateSpaceBatch(const KernelInit&) {
  return std::unique_ptr<Kernel>(new SpaceBatchKernel(kToBatch));
}

}  // namespace

void RegisterSpaceOps(OpRegistry& r) {
  r.Register("DepthToSpace", CreateDepthSpace<true>);
  r.Register("SpaceToDepth", CreateDepthSpace<false>);
  r.Register("SpaceToBatchND", CreateSpaceBatch<true>);
  r.Register("BatchToSpaceND", CreateSpaceBatch<false>);
}

}  // namespace graphrt
