// StringSplit and StringSplitV2, with TensorFlow's semantics: a 1-D string
// tensor in, a SparseTensor out as three tensors
//   indices int64 [n, 2] (row, position), values string [n],
//   shape int64 [2] = [batch, max tokens in a row].
//
//   StringSplit (input, delimiter; attr skip_empty = true): every byte of
//     `delimiter` is a separator (absl::ByAnyChar); an empty delimiter
//     splits into single bytes; skip_empty drops empty tokens.
//   StringSplitV2 (input, sep; attr maxsplit = -1): Python str.split: an
//     empty sep splits on runs of ASCII whitespace (no empty tokens, edges
//     stripped); otherwise on the exact `sep` string, keeping empty tokens.
//     At most maxsplit splits (-1 = no limit); the rest is the last token.
//     An empty input string gives no tokens.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/string/string_ops.h"

namespace graphrt {
namespace {

using Tokens = std::vector<absl::string_view>;

void SplitV1(absl::string_view s, const std::string& delim, bool skip_empty,
             Tokens* out) {
  if (delim.empty()) {
    for (size_t i = 0; i < s.size(); ++i) out->push_back(s.substr(i, 1));
    return;
  }
  if (skip_empty) {
    for (absl::string_view t :
         absl::StrSplit(s, absl::ByAnyChar(delim), absl::SkipEmpty())) {
      out->push_back(t);
    }
  } else {
    for (absl::string_view t : absl::StrSplit(s, absl::ByAnyChar(delim))) {
      out->push_back(t);
    }
  }
}

void SplitV2(absl::string_view text, const std::string& sep, int64_t maxsplit,
             Tokens* out) {
  if (text.empty()) return;
  int64_t splits = 0;
  if (sep.empty()) {
    while (true) {
      text = absl::StripLeadingAsciiWhitespace(text);
      if (text.empty()) return;
      if (maxsplit >= 0 && splits == maxsplit) {
        out->push_back(text);
        return;
      }
      size_t end = 0;
      while (end < text.size() && !absl::ascii_isspace(
                                      static_cast<unsigned char>(text[end]))) {
        ++end;
      }
      out->push_back(text.substr(0, end));
      ++splits;
      text.remove_prefix(end);
    }
  }
  while (maxsplit < 0 || splits < maxsplit) {
    const size_t p = text.find(sep);
    if (p == absl::string_view::npos) break;
    out->push_back(text.substr(0, p));
    text.remove_prefix(p + sep.size());
    ++splits;
  }
  out->push_back(text);
}

class StringSplitOp : public Kernel {
 public:
  StringSplitOp(bool v2, bool skip_empty, int64_t maxsplit)
      : v2_(v2), skip_empty_(skip_empty), maxsplit_(maxsplit) {}

  absl::Status Run(KernelContext& ctx) const override {
    absl::Status s = ops::CheckNumInputs(ctx, 2);
    if (!s.ok()) return s;
    const Tensor& input = ctx.input(0);
    const Tensor& delim = ctx.input(1);
    if (input.dtype() != DType::kString || input.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be a vector of strings, got ", input.DebugString()));
    }
    if (delim.dtype() != DType::kString || delim.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(v2_ ? "sep" : "delimiter",
                       " must be a scalar string, got ", delim.DebugString()));
    }
    const std::string& d = *delim.data<std::string>();
    const int64_t batch = input.num_elements();
    const std::string* in = input.data<std::string>();
    Tokens tokens;
    std::vector<int64_t> counts(static_cast<size_t>(batch));
    int64_t max_tokens = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const size_t before = tokens.size();
      if (v2_) {
        SplitV2(in[i], d, maxsplit_, &tokens);
      } else {
        SplitV1(in[i], d, skip_empty_, &tokens);
      }
      counts[i] = static_cast<int64_t>(tokens.size() - before);
      max_tokens = std::max(max_tokens, counts[i]);
    }
    const int64_t n = static_cast<int64_t>(tokens.size());
    auto indices = ctx.allocate_output(0, DType::kInt64, Shape({n, 2}));
    if (!indices.ok()) return indices.status();
    int64_t* idx = (*indices)->mutable_data<int64_t>();
    auto values = ctx.allocate_output(1, DType::kString, Shape({n}));
    if (!values.ok()) return values.status();
    std::string* val = (*values)->mutable_data<std::string>();
    auto shape = ctx.allocate_output(2, DType::kInt64, Shape({2}));
    if (!shape.ok()) return shape.status();
    int64_t* shp = (*shape)->mutable_data<int64_t>();
    shp[0] = batch;
    shp[1] = max_tokens;
    int64_t t = 0;
    for (int64_t i = 0; i < batch; ++i) {
      for (int64_t j = 0; j < counts[i]; ++j, ++t) {
        idx[2 * t] = i;
        idx[2 * t + 1] = j;
        val[t].assign(tokens[t].data(), tokens[t].size());
      }
    }
    return absl::OkStatus();
  }

 private:
  const bool v2_;
  const bool skip_empty_;
  const int64_t maxsplit_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateSplit(const KernelInit& init) {
  AttrReader attrs(init.node);
  auto skip_empty = attrs.GetBool("skip_empty", true);
  if (!skip_empty.ok()) return skip_empty.status();
  return std::make_unique<StringSplitOp>(false, *skip_empty, -1);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateSplitV2(const KernelInit& init) {
  AttrReader attrs(init.node);
  auto maxsplit = attrs.GetInt("maxsplit", -1);
  if (!maxsplit.ok()) return maxsplit.status();
  return std::make_unique<StringSplitOp>(true, false,
                                         *maxsplit < 0 ? -1 : *maxsplit);
}

}  // namespace

void RegisterStringSplitOps(OpRegistry& r) {
  r.Register("StringSplit", CreateSplit);
  r.Register("StringSplitV2", CreateSplitV2);
}

}  // namespace graphrt
