// Element-wise string ops, TensorFlow semantics:
//
//   StringLower / StringUpper (input; attr encoding "" or "utf-8"): ASCII
//     case mapping. Limitation: TF maps non-ASCII letters too when
//     encoding is "utf-8" (ICU); graphrt leaves non-ASCII bytes unchanged.
//   StringJoin (N inputs; attr separator): element-wise concatenation;
//     every input is a scalar or has the one common non-scalar shape
//     (scalars broadcast), output has that shape.
//   Substr (input, pos, len; attr unit "BYTE" | "UTF8_CHAR"): pos and len
//     have the same shape, broadcast (NumPy rules) against input. Negative
//     pos counts from the end; |pos| beyond the string is an error; len is
//     clamped to the string's end (negative len = to the end).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/math/broadcast.h"
#include "ops/string/string_ops.h"

namespace graphrt {
namespace {

// --- StringLower / StringUpper ----------------------------------------------

template <bool kUpper>
absl::Status RunCase(KernelContext& ctx) {
  absl::Status s = ops::CheckNumInputs(ctx, 1);
  if (!s.ok()) return s;
  const Tensor& in = ctx.input(0);
  s = ops::CheckDType(in, DType::kString, "input");
  if (!s.ok()) return s;
  auto out = ctx.allocate_output(0, DType::kString, in.shape());
  if (!out.ok()) return out.status();
  const std::string* src = in.data<std::string>();
  std::string* dst = (*out)->mutable_data<std::string>();
  ops::ParallelFor(in.num_elements(), 8192, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      dst[i] = kUpper ? absl::AsciiStrToUpper(src[i])
                      : absl::AsciiStrToLower(src[i]);
    }
  });
  return absl::OkStatus();
}

template <bool kUpper>
absl::StatusOr<std::unique_ptr<Kernel>> CreateCase(const KernelInit& init) {
  AttrReader attrs(init.node);
  auto encoding = attrs.GetString("encoding", "");
  if (!encoding.ok()) return encoding.status();
  if (!encoding->empty() && *encoding != "utf-8") {
    return attrs.Error("encoding", absl::StrCat("expected \"\" or \"utf-8\", got \"",
                                                *encoding, "\""));
  }
  return MakeFunctionKernel(RunCase<kUpper>);
}

// --- StringJoin ---------------------------------------------------------------

class StringJoinOp : public Kernel {
 public:
  explicit StringJoinOp(std::string separator)
      : separator_(std::move(separator)) {}

  absl::Status Run(KernelContext& ctx) const override {
    if (ctx.num_inputs() < 1) {
      return absl::InvalidArgumentError("StringJoin needs at least 1 input");
    }
    const Tensor* shaped = nullptr;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != DType::kString) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", i, " must be a string tensor, got ", t.DebugString()));
      }
      if (t.rank() == 0) continue;
      if (shaped == nullptr) {
        shaped = &t;
      } else if (t.shape() != shaped->shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input shapes do not match: ", shaped->shape().ToString(), " vs. ",
            t.shape().ToString()));
      }
    }
    const Shape shape = shaped == nullptr ? Shape() : shaped->shape();
    auto out = ctx.allocate_output(0, DType::kString, shape);
    if (!out.ok()) return out.status();
    std::string* dst = (*out)->mutable_data<std::string>();
    const int64_t n = shape.num_elements();
    const int k = ctx.num_inputs();
    for (int64_t e = 0; e < n; ++e) {
      std::string& r = dst[e];
      for (int i = 0; i < k; ++i) {
        const Tensor& t = ctx.input(i);
        if (i > 0) r.append(separator_);
        r.append(t.data<std::string>()[t.rank() == 0 ? 0 : e]);
      }
    }
    return absl::OkStatus();
  }

 private:
  const std::string separator_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateJoin(const KernelInit& init) {
  AttrReader attrs(init.node);
  auto sep = attrs.GetString("separator", "");
  if (!sep.ok()) return sep.status();
  return std::make_unique<StringJoinOp>(*sep);
}

// --- Substr -------------------------------------------------------------------

// Byte offset of code point `cp` in `s` (UTF-8), or s.size() past the end.
size_t Utf8Offset(absl::string_view s, int64_t cp) {
  size_t i = 0;
  while (cp > 0 && i < s.size()) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    --cp;
  }
  return i;
}

int64_t Utf8Length(absl::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class SubstrOp : public Kernel {
 public:
  explicit SubstrOp(bool utf8) : utf8_(utf8) {}

  absl::Status Run(KernelContext& ctx) const override {
    absl::Status s = ops::CheckNumInputs(ctx, 3);
    if (!s.ok()) return s;
    const Tensor& in = ctx.input(0);
    const Tensor& pos = ctx.input(1);
    const Tensor& len = ctx.input(2);
    s = ops::CheckDType(in, DType::kString, "input");
    if (!s.ok()) return s;
    if ((pos.dtype() != DType::kInt32 && pos.dtype() != DType::kInt64) ||
        len.dtype() != pos.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pos and len must both be int32 or int64, got ", pos.DebugString(),
          " and ", len.DebugString()));
    }
    if (pos.shape() != len.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pos and len should have the same shape, got: ",
          pos.shape().ToString(), " vs. ", len.shape().ToString()));
    }
    auto plan = ops::MakeBroadcastPlan(in.shape(), pos.shape());
    if (!plan.ok()) return plan.status();
    const Shape& out_shape = plan->out_shape;
    auto out = ctx.allocate_output(0, DType::kString, out_shape);
    if (!out.ok()) return out.status();
    std::string* dst = (*out)->mutable_data<std::string>();
    const int64_t n = out_shape.num_elements();
    const int rank = out_shape.rank();
    // Element strides of input / pos aligned to the output (0 = broadcast).
    std::vector<int64_t> in_stride(rank, 0), pos_stride(rank, 0);
    int64_t si = 1, sp = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int di = d - (rank - in.rank());
      const int dp = d - (rank - pos.rank());
      if (di >= 0) {
        in_stride[d] = in.dim(di) == 1 ? 0 : si;
        si *= in.dim(di);
      }
      if (dp >= 0) {
        pos_stride[d] = pos.dim(dp) == 1 ? 0 : sp;
        sp *= pos.dim(dp);
      }
    }
    auto read = [](const Tensor& t, int64_t i) -> int64_t {
      return t.dtype() == DType::kInt32 ? int64_t{t.data<int32_t>()[i]}
                                        : t.data<int64_t>()[i];
    };
    std::vector<int64_t> index(rank, 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t ii = 0, pi = 0;
      for (int d = 0; d < rank; ++d) {
        ii += index[d] * in_stride[d];
        pi += index[d] * pos_stride[d];
      }
      const std::string& str = in.data<std::string>()[ii];
      int64_t p = read(pos, pi);
      const int64_t l = read(len, pi);
      const int64_t size = utf8_ ? Utf8Length(str) : static_cast<int64_t>(str.size());
      if (p > size || p < -size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pos ", p, " out of range for string b'", str, "' at index ", e));
      }
      if (p < 0) p += size;
      const int64_t count = l < 0 ? size - p : std::min(l, size - p);
      if (utf8_) {
        const size_t b = Utf8Offset(str, p);
        const size_t end = b + Utf8Offset(absl::string_view(str).substr(b), count);
        dst[e] = str.substr(b, end - b);
      } else {
        dst[e] = str.substr(static_cast<size_t>(p), static_cast<size_t>(count));
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < out_shape.dim(d)) break;
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  const bool utf8_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateSubstr(const KernelInit& init) {
  AttrReader attrs(init.node);
  auto unit = attrs.GetString("unit", "BYTE");
  if (!unit.ok()) return unit.status();
  if (*unit != "BYTE" && *unit != "UTF8_CHAR") {
    return attrs.Error("unit", absl::StrCat("expected BYTE or UTF8_CHAR, got ",
                                            *unit));
  }
  return std::make_unique<SubstrOp>(*unit == "UTF8_CHAR");
}

}  // namespace

void RegisterStringBasicOps(OpRegistry& r) {
  r.Register("StringLower", CreateCase<false>);
  r.Register("StringUpper", CreateCase<true>);
  r.Register("StringJoin", CreateJoin);
  r.Register("Substr", CreateSubstr);
}

}  // namespace graphrt
