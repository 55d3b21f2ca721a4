// Ragged ops on (nested row_splits, flat_values) encodings, as TF:
//
// RaggedRange(starts, limits, deltas) -> rt_nested_splits [nrows+1],
//   rt_dense_values: row i = range(starts[i], limits[i], deltas[i]);
//   scalars broadcast against vectors. Integer row sizes are
//   ceil(|limit-start| / |delta|) (0 when the range points the wrong way);
//   float values accumulate value += delta as TF. delta == 0 is an error.
// RaggedGather(params_nested_splits..., params_dense_values, indices) ->
//   output_nested_splits..., output_dense_values: gathers rows of the
//   outermost ragged dim; an N-D indices adds N-1 uniform outer dims
//   (output ragged rank = indices.rank + PARAMS_RAGGED_RANK - 1).
// RaggedTensorToTensor(shape, values, default_value, row_partition...) ->
//   dense tensor; only ROW_SPLITS partitions are supported (others fail at
//   load). Unknown dims of `shape` (-1, or a scalar -1 / empty shape for
//   all) take the natural size (max row length); rows / elements past a
//   given size are dropped, missing ones filled with default_value
//   (broadcast to the element shape values.shape[1:]).
//
// Row splits are validated fully: 1-D, start at 0, non-decreasing, last
// value == number of rows of the next level (or values.shape[0]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/dynamic/dynamic_ops.h"
#include "ops/dynamic/dynamic_util.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using dynamic::IntAt;

// Reads and validates a row_splits tensor whose last value must be
// `next_rows` (pass -1 to only check last >= 0).
absl::StatusOr<std::vector<int64_t>> ReadSplits(const Tensor& t, int level,
                                                int64_t next_rows) {
  if ((t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) ||
      t.rank() != 1 || t.dim(0) < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "row_splits[", level, "] must be a non-empty int32/int64 vector, got ",
        t.DebugString()));
  }
  std::vector<int64_t> s(static_cast<size_t>(t.dim(0)));
  for (int64_t i = 0; i < t.dim(0); ++i) {
    s[i] = IntAt(t, i);
    if ((i == 0 && s[i] != 0) || (i > 0 && s[i] < s[i - 1])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "row_splits[", level, "] must start at 0 and be non-decreasing, got ",
          s[i], " at ", i));
    }
  }
  if (next_rows >= 0 && s.back() != next_rows) {
    return absl::InvalidArgumentError(absl::StrCat(
        "row_splits[", level, "] ends at ", s.back(), " but the next level has ",
        next_rows, " rows"));
  }
  return s;
}

// Reads all nested splits, innermost last, against `num_values` rows.
absl::StatusOr<std::vector<std::vector<int64_t>>> ReadNestedSplits(
    KernelContext& ctx, int first_input, int count, int64_t num_values) {
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(count));
  int64_t next = num_values;
  for (int k = count - 1; k >= 0; --k) {
    GRAPHRT_ASSIGN_OR_RETURN(out[k],
                             ReadSplits(ctx.input(first_input + k), k, next));
    next = static_cast<int64_t>(out[k].size()) - 1;
  }
  return out;
}

absl::Status WriteSplits(KernelContext& ctx, int output, DType dtype,
                         const std::vector<int64_t>& s) {
  GRAPHRT_ASSIGN_OR_RETURN(
      Tensor * t, ctx.allocate_output(output, dtype,
                                      Shape({static_cast<int64_t>(s.size())})));
  for (size_t i = 0; i < s.size(); ++i) {
    if (dtype == DType::kInt32) {
      if (s[i] > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError(
            "output row_splits do not fit int32 (Tsplits)");
      }
      t->mutable_data<int32_t>()[i] = static_cast<int32_t>(s[i]);
    } else {
      t->mutable_data<int64_t>()[i] = s[i];
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- RaggedRange

class RaggedRangeKernel : public Kernel {
 public:
  explicit RaggedRangeKernel(DType tsplits) : tsplits_(tsplits) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3));
    const Tensor& starts = ctx.input(0);
    const Tensor& limits = ctx.input(1);
    const Tensor& deltas = ctx.input(2);
    int64_t nrows = 1;
    bool any_vector = false;
    for (const Tensor* t : {&starts, &limits, &deltas}) {
      if (t->rank() > 1 || t->dtype() != starts.dtype()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "starts, limits and deltas must be scalars or vectors of one "
            "dtype, got ",
            starts.DebugString(), ", ", limits.DebugString(), ", ",
            deltas.DebugString()));
      }
      if (t->rank() == 1) {
        if (any_vector && t->dim(0) != nrows) {
          return absl::InvalidArgumentError(absl::StrCat(
              "starts, limits, and deltas must have the same shape, got ",
              starts.DebugString(), ", ", limits.DebugString(), ", ",
              deltas.DebugString()));
        }
        nrows = t->dim(0);
        any_vector = true;
      }
    }
    return ops::DispatchDType<float, double, int32_t, int64_t, bfloat16>(
        starts.dtype(), "RaggedRange", [&](auto tag) -> absl::Status {
          using T = typename decltype(tag)::type;
          auto at = [](const Tensor& t, int64_t i) {
            return t.data<T>()[t.rank() == 0 ? 0 : i];
          };
          std::vector<int64_t> splits(static_cast<size_t>(nrows + 1), 0);
          for (int64_t r = 0; r < nrows; ++r) {
            const T start = at(starts, r), limit = at(limits, r),
                    delta = at(deltas, r);
            if (delta == T(0)) {
              return absl::InvalidArgumentError(
                  absl::StrCat("requires delta != 0 (row ", r, ")"));
            }
            int64_t size = 0;
            if (!((delta > T(0) && limit < start) ||
                  (delta < T(0) && limit > start))) {
              if constexpr (std::is_integral_v<T>) {
                const __int128 diff =
                    static_cast<__int128>(limit) - static_cast<__int128>(start);
                const __int128 ad = delta < 0 ? -static_cast<__int128>(delta)
                                              : static_cast<__int128>(delta);
                const __int128 adiff = diff < 0 ? -diff : diff;
                size = static_cast<int64_t>((adiff + ad - 1) / ad);
              } else {
                const double s = std::ceil(std::abs(
                    static_cast<double>(limit - start) /
                    static_cast<double>(delta)));
                if (!(s <= 1e15)) {
                  return absl::InvalidArgumentError(absl::StrCat(
                      "range size of row ", r, " is too large or not finite"));
                }
                size = static_cast<int64_t>(s);
              }
            }
            if (size > (int64_t{1} << 40) - splits[r]) {
              return absl::InvalidArgumentError(
                  "RaggedRange output is too large");
            }
            splits[r + 1] = splits[r] + size;
          }
          GRAPHRT_RETURN_IF_ERROR(WriteSplits(ctx, 0, tsplits_, splits));
          GRAPHRT_ASSIGN_OR_RETURN(
              Tensor * values,
              ctx.allocate_output(1, starts.dtype(), Shape({splits.back()})));
          T* v = values->mutable_data<T>();
          for (int64_t r = 0; r < nrows; ++r) {
            const T start = at(starts, r), delta = at(deltas, r);
            const int64_t n = splits[r + 1] - splits[r];
            T* out = v + splits[r];
            if constexpr (std::is_integral_v<T>) {
              // start + i*delta stays inside [start, limit): no overflow.
              for (int64_t i = 0; i < n; ++i) {
                out[i] = static_cast<T>(static_cast<__int128>(start) +
                                        static_cast<__int128>(i) * delta);
              }
            } else {
              T value = start;
              for (int64_t i = 0; i < n; ++i) {
                out[i] = value;
                value = static_cast<T>(value + delta);
              }
            }
          }
          return absl::OkStatus();
        });
  }

 private:
  DType tsplits_;
};

absl::StatusOr<DType> ReadSplitsType(const AttrReader& attrs,
                                     const std::string& name) {
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType(name, DType::kInt64));
  if (t != DType::kInt32 && t != DType::kInt64) {
    return attrs.Error(name, absl::StrCat("must be int32 or int64, got ",
                                          DTypeName(t)));
  }
  return t;
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateRaggedRange(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(DType tsplits, ReadSplitsType(attrs, "Tsplits"));
  return std::unique_ptr<Kernel>(new RaggedRangeKernel(tsplits));
}

// --------------------------------------------------------------- RaggedGather

class RaggedGatherKernel : public Kernel {
 public:
  RaggedGatherKernel(int params_ragged_rank, int output_ragged_rank)
      : p_(params_ragged_rank), out_rank_(output_ragged_rank) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, p_ + 2));
    const Tensor& values = ctx.input(p_);
    const Tensor& indices = ctx.input(p_ + 1);
    if (values.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "params_dense_values must be at least 1-D, got ",
          values.DebugString()));
    }
    if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices must be int32 or int64, got ", indices.DebugString()));
    }
    if (indices.rank() + p_ - 1 != out_rank_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "OUTPUT_RAGGED_RANK ", out_rank_, " must be indices.rank (",
          indices.rank(), ") + PARAMS_RAGGED_RANK (", p_, ") - 1"));
    }
    const DType split_dtype = ctx.input(0).dtype();
    GRAPHRT_ASSIGN_OR_RETURN(auto splits,
                             ReadNestedSplits(ctx, 0, p_, values.dim(0)));
    const int64_t num_params = static_cast<int64_t>(splits[0].size()) - 1;
    const int ind_rank = indices.rank();
    std::vector<std::vector<int64_t>> out(static_cast<size_t>(out_rank_),
                                          std::vector<int64_t>{0});
    // Uniform splits from the outer dims of a multi-dim `indices`.
    int64_t nrows = 1;
    for (int d = 0; d + 1 < ind_rank; ++d) {
      nrows *= indices.dim(d);
      const int64_t row_len = indices.dim(d + 1);
      for (int64_t i = 1; i <= nrows; ++i) out[d].push_back(i * row_len);
    }
    std::vector<std::pair<int64_t, int64_t>> slices;
    for (int64_t i = 0; i < indices.num_elements(); ++i) {
      int64_t start = IntAt(indices, i);
      if (start < 0 || start >= num_params) {
        return absl::InvalidArgumentError(absl::StrCat(
            "indices[", i, "] = ", start, " is not in [0, ", num_params, ")"));
      }
      int64_t limit = start + 1;
      for (int d = 0; d < p_; ++d) {
        const std::vector<int64_t>& s = splits[d];
        const int out_dim = d + ind_rank - 1;
        if (out_dim >= 0) {
          const int64_t delta = out[out_dim].back() - s[start];
          for (int64_t j = start; j < limit; ++j) {
            out[out_dim].push_back(s[j + 1] + delta);
          }
        }
        start = s[start];
        limit = s[limit];
      }
      if (limit != start) slices.emplace_back(start, limit);
    }
    for (int d = 0; d < out_rank_; ++d) {
      GRAPHRT_RETURN_IF_ERROR(WriteSplits(ctx, d, split_dtype, out[d]));
    }
    int64_t total = 0;
    for (const auto& [b, e] : slices) total += e - b;
    Shape vs = values.shape();
    vs.set_dim(0, total);
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * ov,
                             ctx.allocate_output(out_rank_, values.dtype(), vs));
    const int64_t row = ops::DimProduct(values.shape(), 1, values.rank());
    int64_t pos = 0;
    for (const auto& [b, e] : slices) {
      ops::CopyElements(values.dtype(), values.raw_data(), b * row,
                        ov->raw_data(), pos * row, (e - b) * row);
      pos += e - b;
    }
    return absl::OkStatus();
  }

 private:
  int p_;
  int out_rank_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateRaggedGather(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(int64_t p,
                           attrs.GetInt("PARAMS_RAGGED_RANK",
                                        init.num_inputs - 2));
  if (p < 1 || p + 2 != init.num_inputs) {
    return attrs.Error("PARAMS_RAGGED_RANK",
                       absl::StrCat("must be >= 1 and match the ",
                                    init.num_inputs, " inputs, got ", p));
  }
  GRAPHRT_ASSIGN_OR_RETURN(int64_t out, attrs.GetInt("OUTPUT_RAGGED_RANK", p));
  if (out < 0 || out > 64) {
    return attrs.Error("OUTPUT_RAGGED_RANK", absl::StrCat("is invalid: ", out));
  }
  return std::unique_ptr<Kernel>(
      new RaggedGatherKernel(static_cast<int>(p), static_cast<int>(out)));
}

// ------------------------------------------------------- RaggedTensorToTensor

class RaggedToTensorKernel : public Kernel {
 public:
  explicit RaggedToTensorKernel(int ragged_rank) : rr_(ragged_rank) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 3 + rr_));
    const Tensor& shape_t = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& def = ctx.input(2);
    if (values.rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("values must be at least 1-D, got ",
                       values.DebugString()));
    }
    if (def.dtype() != values.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "default_value ", def.DebugString(), " must have the dtype of values ",
          values.DebugString()));
    }
    GRAPHRT_ASSIGN_OR_RETURN(auto splits,
                             ReadNestedSplits(ctx, 3, rr_, values.dim(0)));
    const int out_rank = rr_ + values.rank();
    // Natural shape.
    std::vector<int64_t> dims(static_cast<size_t>(out_rank));
    dims[0] = static_cast<int64_t>(splits[0].size()) - 1;
    for (int k = 0; k < rr_; ++k) {
      int64_t m = 0;
      for (size_t i = 0; i + 1 < splits[k].size(); ++i) {
        m = std::max(m, splits[k][i + 1] - splits[k][i]);
      }
      dims[k + 1] = m;
    }
    for (int i = 1; i < values.rank(); ++i) dims[rr_ + i] = values.dim(i);
    // Requested shape.
    GRAPHRT_ASSIGN_OR_RETURN(PartialShape want,
                             dynamic::PartialShapeFromTensor(shape_t, "shape"));
    if (!want.unknown_rank() && !want.dims().empty()) {
      if (static_cast<int>(want.dims().size()) != out_rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "shape ", want.ToString(), " must have rank ", out_rank,
            " (ragged rank ", rr_, " + values rank ", values.rank(), ")"));
      }
      for (int i = 0; i < out_rank; ++i) {
        const int64_t w = want.dims()[i];
        if (w < 0) continue;
        if (i > rr_ && w != dims[i]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "shape ", want.ToString(), " is incompatible with values ",
              values.DebugString(), " at dim ", i));
        }
        dims[i] = w;
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(Shape out_shape,
                             Shape::Make(absl::MakeConstSpan(dims)));
    // Element shape values.shape[1:] and the broadcast default row.
    const Shape elem = dynamic::ShapeExcept0(values.shape());
    if (def.rank() > elem.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "default_value ", def.DebugString(),
          " has a higher rank than the element shape ", elem.ToString()));
    }
    const int off = elem.rank() - def.rank();
    for (int i = 0; i < def.rank(); ++i) {
      if (def.dim(i) != 1 && def.dim(i) != elem.dim(off + i)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "default_value ", def.DebugString(),
            " does not broadcast to the element shape ", elem.ToString()));
      }
    }
    const int64_t inner = elem.num_elements();
    GRAPHRT_ASSIGN_OR_RETURN(Tensor def_row,
                             Tensor::Allocate(values.dtype(), elem));
    for (int64_t e = 0; e < inner; ++e) {
      // Map element e of elem to its default_value element.
      int64_t rem = e, src = 0, stride = 1;
      for (int i = elem.rank() - 1; i >= 0; --i) {
        const int64_t c = rem % elem.dim(i);
        rem /= elem.dim(i);
        if (i >= off) {
          const int64_t dd = def.dim(i - off);
          src += (dd == 1 ? 0 : c) * stride;
          stride *= dd;
        }
      }
      ops::CopyElements(values.dtype(), def.raw_data(), src,
                        def_row.raw_data(), e, 1);
    }
    // Output row (over the first rr_+1 dims) of every value row, or -1.
    const int64_t nrows = static_cast<int64_t>(splits[0].size()) - 1;
    std::vector<int64_t> parent(static_cast<size_t>(nrows));
    for (int64_t r = 0; r < nrows; ++r) parent[r] = r < dims[0] ? r : -1;
    for (int k = 0; k < rr_; ++k) {
      const std::vector<int64_t>& s = splits[k];
      const int64_t width = dims[k + 1];
      std::vector<int64_t> child(static_cast<size_t>(s.back()));
      for (size_t p = 0; p + 1 < s.size(); ++p) {
        for (int64_t j = s[p]; j < s[p + 1]; ++j) {
          const int64_t pos = j - s[p];
          child[j] = (parent[p] >= 0 && pos < width) ? parent[p] * width + pos
                                                     : -1;
        }
      }
      parent = std::move(child);
    }
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, values.dtype(), out_shape));
    const int64_t out_rows = inner == 0 ? 0 : out->num_elements() / inner;
    for (int64_t r = 0; r < out_rows; ++r) {
      ops::CopyElements(values.dtype(), def_row.raw_data(), 0, out->raw_data(),
                        r * inner, inner);
    }
    for (int64_t v = 0; v < values.dim(0) && inner > 0; ++v) {
      if (parent[v] < 0) continue;
      ops::CopyElements(values.dtype(), values.raw_data(), v * inner,
                        out->raw_data(), parent[v] * inner, inner);
    }
    return absl::OkStatus();
  }

 private:
  int rr_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateRaggedToTensor(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<std::string> types,
                           attrs.GetStringList("row_partition_types", {}));
  if (types.empty()) {
    return attrs.Error("row_partition_types", "must not be empty");
  }
  for (const std::string& t : types) {
    if (t != "ROW_SPLITS") {
      return attrs.Error(
          "row_partition_types",
          absl::StrCat("contains '", t,
                       "': graphrt supports only ROW_SPLITS partitions"));
    }
  }
  const int rr = static_cast<int>(types.size());
  if (init.num_inputs != 3 + rr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RaggedTensorToTensor '", init.node.name(), "' needs ", 3 + rr,
        " inputs for ", rr, " row partitions, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(new RaggedToTensorKernel(rr));
}

}  // namespace

void RegisterRaggedOps(OpRegistry& r) {
  r.Register("RaggedRange", CreateRaggedRange);
  r.Register("RaggedGather", CreateRaggedGather);
  r.Register("RaggedTensorToTensor", CreateRaggedToTensor);
}

}  // namespace graphrt
