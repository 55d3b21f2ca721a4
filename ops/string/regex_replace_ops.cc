// StaticRegexReplace (input; attrs pattern, rewrite, replace_global = true)
// with std::regex (ECMAScript grammar) standing in for TF's RE2.
//
// Translation from RE2 syntax: a leading "(?i)" becomes the icase flag; the
// rewrite's \0..\9 become $& / $1..$9, a literal "$" is escaped and "\\"
// becomes "\". Limitations (errors at load if std::regex rejects the
// pattern, otherwise possibly different matches): RE2-only syntax such as
// (?P<name>...), \C, \pL classes, [[:word:]] and inline flags other than a
// leading (?i) are not supported; ECMAScript backtracking can be slow on
// pathological patterns (RE2 is linear), and very long inputs may exhaust
// std::regex's recursion (reported as an error, never a crash of the
// process from an exception).
#include <memory>
#include <regex>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/string/string_ops.h"

namespace graphrt {
namespace {

std::string TranslateRewrite(const std::string& rewrite) {
  std::string out;
  for (size_t i = 0; i < rewrite.size(); ++i) {
    const char c = rewrite[i];
    if (c == '\\' && i + 1 < rewrite.size()) {
      const char n = rewrite[i + 1];
      if (n >= '0' && n <= '9') {
        out += n == '0' ? std::string("$&") : std::string("$") + n;
        ++i;
        continue;
      }
      if (n == '\\') {
        out += '\\';
        ++i;
        continue;
      }
    }
    if (c == '$') {
      out += "$$";
      continue;
    }
    out += c;
  }
  return out;
}

class RegexReplaceOp : public Kernel {
 public:
  RegexReplaceOp(std::regex re, std::string rewrite, bool global)
      : re_(std::move(re)), rewrite_(std::move(rewrite)), global_(global) {}

  absl::Status Run(KernelContext& ctx) const override {
    absl::Status s = ops::CheckNumInputs(ctx, 1);
    if (!s.ok()) return s;
    const Tensor& in = ctx.input(0);
    s = ops::CheckDType(in, DType::kString, "input");
    if (!s.ok()) return s;
    auto out = ctx.allocate_output(0, DType::kString, in.shape());
    if (!out.ok()) return out.status();
    const std::string* src = in.data<std::string>();
    std::string* dst = (*out)->mutable_data<std::string>();
    const auto flags = global_ ? std::regex_constants::format_default
                               : std::regex_constants::format_first_only;
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      try {
        dst[i] = std::regex_replace(src[i], re_, rewrite_, flags);
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(absl::StrCat(
            "StaticRegexReplace failed on element ", i, ": ", e.what()));
      }
    }
    return absl::OkStatus();
  }

 private:
  const std::regex re_;
  const std::string rewrite_;
  const bool global_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateRegexReplace(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  if (!attrs.Has("pattern")) return attrs.Error("pattern", "is required");
  auto pattern = attrs.GetString("pattern", "");
  if (!pattern.ok()) return pattern.status();
  auto rewrite = attrs.GetString("rewrite", "");
  if (!rewrite.ok()) return rewrite.status();
  auto global = attrs.GetBool("replace_global", true);
  if (!global.ok()) return global.status();
  std::string p = *pattern;
  auto flags = std::regex_constants::ECMAScript;
  if (absl::StartsWith(p, "(?i)")) {
    p = p.substr(4);
    flags |= std::regex_constants::icase;
  }
  try {
    std::regex re(p, flags);
    return std::make_unique<RegexReplaceOp>(std::move(re),
                                            TranslateRewrite(*rewrite), *global);
  } catch (const std::exception& e) {
    return attrs.Error("pattern", absl::StrCat("invalid regular expression \"",
                                               *pattern, "\": ", e.what()));
  }
}

}  // namespace

void RegisterRegexReplaceOps(OpRegistry& r) {
  r.Register("StaticRegexReplace", CreateRegexReplace);
}

}  // namespace graphrt
