#include "loader/manifest_json.h"

#include <cmath>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "loader/json_scan.h"

namespace graphrt {
namespace tfjs_internal {
namespace {

class ManifestReader {
 public:
  explicit ManifestReader(absl::string_view text)
      : p_(text.data()), end_(text.data() + text.size()) {}

  bool Read(std::vector<WeightGroup>* groups) {
    if (!Consume('[')) return false;
    if (!Consume(']')) {
      do {
        groups->emplace_back();
        if (!ReadGroup(&groups->back())) return false;
      } while (Consume(','));
      if (!Consume(']')) return false;
    }
    SkipSpace();
    return p_ == end_;
  }

 private:
  void SkipSpace() {
    while (p_ < end_ &&
           (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
      ++p_;
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }

  // A string of printable ASCII without escapes (anything else declines).
  bool String(absl::string_view* out) {
    if (!Consume('"')) return false;
    const char* begin = p_;
    p_ = json_scan::FindNonPlainAscii(p_, end_);
    if (p_ == end_ || *p_ != '"') return false;
    *out = absl::string_view(begin, p_ - begin);
    ++p_;
    return true;
  }

  bool String(std::string* out) {
    absl::string_view s;
    if (!String(&s)) return false;
    out->assign(s.data(), s.size());
    return true;
  }

  // A JSON number token: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  // `integral` is set when it has neither fraction nor exponent.
  bool NumberToken(absl::string_view* token, bool* integral) {
    SkipSpace();
    const char* begin = p_;
    auto digits = [this] {
      const char* start = p_;
      while (p_ < end_ && absl::ascii_isdigit(*p_)) ++p_;
      return p_ - start;
    };
    if (p_ < end_ && *p_ == '-') ++p_;
    const char* int_start = p_;
    const auto int_digits = digits();
    if (int_digits == 0 || (int_digits > 1 && *int_start == '0')) return false;
    *integral = true;
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (digits() == 0) return false;
      *integral = false;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (digits() == 0) return false;
      *integral = false;
    }
    *token = absl::string_view(begin, p_ - begin);
    return true;
  }

  // A number that fits a double: nlohmann refuses an overflowing literal
  // (1e999) where SimpleAtod gives inf, so that declines.
  bool Double(double* out) {
    absl::string_view token;
    bool integral;
    return NumberToken(&token, &integral) && absl::SimpleAtod(token, out) &&
           std::isfinite(*out);
  }

  bool Int64(int64_t* out) {
    absl::string_view token;
    bool integral;
    return NumberToken(&token, &integral) && integral &&
           absl::SimpleAtoi(token, out);
  }

  // A member nobody reads: a string, number, true, false or null.
  bool SkipScalar() {
    SkipSpace();
    if (p_ == end_) return false;
    if (*p_ == '"') {
      absl::string_view s;
      return String(&s);
    }
    for (absl::string_view word : {"true", "false", "null"}) {
      if (absl::string_view(p_, end_ - p_).substr(0, word.size()) == word) {
        p_ += word.size();
        return true;
      }
    }
    double unused;
    return Double(&unused);
  }

  // Calls `member(key)` for each member of an object; a key given twice
  // declines.
  template <typename Member>
  bool Object(Member member) {
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    absl::flat_hash_set<absl::string_view> keys;
    do {
      absl::string_view key;
      if (!String(&key) || !keys.insert(key).second || !Consume(':') ||
          !member(key)) {
        return false;
      }
    } while (Consume(','));
    return Consume('}');
  }

  template <typename Element>
  bool Array(Element element) {
    if (!Consume('[')) return false;
    if (Consume(']')) return true;
    do {
      if (!element()) return false;
    } while (Consume(','));
    return Consume(']');
  }

  bool ReadGroup(WeightGroup* group) {
    return Object([&](absl::string_view key) {
      if (key == "paths") {
        return Array([&] {
          group->paths.emplace_back();
          return String(&group->paths.back());
        });
      }
      if (key == "weights") {
        return Array([&] {
          group->weights.emplace_back();
          return ReadWeight(&group->weights.back());
        });
      }
      return SkipScalar();
    });
  }

  bool ReadWeight(WeightSpec* spec) {
    bool name = false, dtype = false, shape = false;
    const bool ok = Object([&](absl::string_view key) {
      if (key == "name") return name = String(&spec->name);
      if (key == "dtype") return dtype = String(&spec->dtype);
      if (key == "shape") {
        return shape = Array([&] {
                 spec->dims.emplace_back();
                 return Int64(&spec->dims.back());
               });
      }
      if (key == "quantization") return ReadQuantization(spec);
      return SkipScalar();
    });
    return ok && name && dtype && shape;
  }

  bool ReadQuantization(WeightSpec* spec) {
    bool dtype = false;
    const bool ok = Object([&](absl::string_view key) {
      if (key == "dtype") return dtype = String(&spec->quantization);
      if (key == "min" || key == "scale") {
        double v;
        if (!Double(&v)) return false;
        (key == "min" ? spec->min : spec->scale) = v;
        return true;
      }
      return SkipScalar();
    });
    return ok && dtype;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<std::vector<WeightGroup>> ParseManifestFast(
    absl::string_view json) {
  std::vector<WeightGroup> groups;
  if (!ManifestReader(json).Read(&groups)) return std::nullopt;
  absl::flat_hash_set<absl::string_view> names;
  for (const WeightGroup& group : groups) {
    for (const WeightSpec& spec : group.weights) {
      if (!names.insert(spec.name).second) return std::nullopt;
    }
  }
  return groups;
}

}  // namespace tfjs_internal
}  // namespace graphrt
