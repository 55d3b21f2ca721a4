#include "loader/proto_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "google/protobuf/descriptor.h"
#include "loader/json_scan.h"
#include "proto/graph.pb.h"

namespace graphrt {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// A JSON scalar as read from the text: a number token (its text), a
// decoded string, or a literal.
struct Scalar {
  enum class Kind { kNumber, kString, kTrue, kFalse } kind;
  absl::string_view number;  // kNumber: the token
  std::string text;          // kString: the decoded string
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// -?[0-9]+ only (what integer fields take without conversion rules).
bool IsPlainInteger(absl::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// Validates UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool ValidUtf8(absl::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    unsigned c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    p += n + 1;
  }
  return true;
}

// Base64 as protobuf's JSON parser takes it: the standard or the web-safe
// alphabet, padding optional, and only the canonical encoding of the bytes
// (protobuf re-encodes and compares, so unused low bits in the last
// character must be zero: "aGk" yes, "aGl" no).
bool DecodeCanonicalBase64(absl::string_view text, std::string* out) {
  absl::string_view unpadded = text;
  while (!unpadded.empty() && unpadded.back() == '=') unpadded.remove_suffix(1);
  std::string again;
  if (absl::Base64Unescape(text, out)) {
    absl::Base64Escape(*out, &again);
  } else if (absl::WebSafeBase64Unescape(text, out)) {
    absl::WebSafeBase64Escape(*out, &again);
  } else {
    return false;
  }
  while (!again.empty() && again.back() == '=') again.pop_back();
  return again == unpadded;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Reader {
 public:
  explicit Reader(absl::string_view text)
      : p_(text.data()), end_(text.data() + text.size()) {}

  bool ParseDocument(Message* message) {
    if (!ParseObject(message, 0)) return false;
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
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  bool ConsumeLiteral(absl::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        absl::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  uint32_t Hex4(bool* ok) {
    if (end_ - p_ < 4) {
      *ok = false;
      return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = p_[i];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        v |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        v |= c - 'A' + 10;
      } else {
        *ok = false;
        return 0;
      }
    }
    p_ += 4;
    return v;
  }

  // At '"' (after space): decodes the string into *out.
  bool ParseString(std::string* out) {
    SkipSpace();
    if (p_ == end_ || *p_ != '"') return false;
    ++p_;
    out->clear();
    while (true) {
      const char* run = p_;
      // Printable ASCII in 16-byte steps; from a multi-byte UTF-8 sequence
      // on, a byte at a time (and the run is validated).
      p_ = json_scan::FindNonPlainAscii(p_, end_);
      const bool ascii = p_ == end_ || static_cast<unsigned char>(*p_) < 0x80;
      while (p_ < end_ && *p_ != '"' && *p_ != '\\' &&
             static_cast<unsigned char>(*p_) >= 0x20) {
        ++p_;
      }
      absl::string_view raw(run, p_ - run);
      if (!ascii && !ValidUtf8(raw)) return false;
      out->append(raw.data(), raw.size());
      if (p_ == end_) return false;
      if (*p_ == '"') {
        ++p_;
        return true;
      }
      if (*p_ != '\\') return false;  // a control character
      if (++p_ == end_) return false;
      char e = *p_++;
      switch (e) {
        case '"':
          out->push_back('"');
          break;
        case '\\':
          out->push_back('\\');
          break;
        case '/':
          out->push_back('/');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          bool ok = true;
          uint32_t cp = Hex4(&ok);
          if (!ok) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!ConsumeLiteral("\\u")) return false;
            uint32_t lo = Hex4(&ok);
            if (!ok || lo < 0xDC00 || lo > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return false;
      }
    }
  }

  // A JSON number token (strict grammar).
  bool ParseNumberToken(absl::string_view* token) {
    SkipSpace();
    const char* start = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && IsDigit(*p_)) ++p_;
    }
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !IsDigit(*p_)) return false;
      while (p_ < end_ && IsDigit(*p_)) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !IsDigit(*p_)) return false;
      while (p_ < end_ && IsDigit(*p_)) ++p_;
    }
    *token = absl::string_view(start, p_ - start);
    return true;
  }

  // Reads a scalar; *is_null set for `null` (nothing else read).
  bool ParseScalar(Scalar* s, bool* is_null) {
    SkipSpace();
    *is_null = false;
    if (p_ == end_) return false;
    switch (*p_) {
      case '"':
        s->kind = Scalar::Kind::kString;
        return ParseString(&s->text);
      case 't':
        s->kind = Scalar::Kind::kTrue;
        return ConsumeLiteral("true");
      case 'f':
        s->kind = Scalar::Kind::kFalse;
        return ConsumeLiteral("false");
      case 'n':
        *is_null = true;
        return ConsumeLiteral("null");
      default:
        s->kind = Scalar::Kind::kNumber;
        return ParseNumberToken(&s->number);
    }
  }

  // Checks and skips any JSON value.
  bool SkipValue(int depth) {
    if (depth > kProtoJsonMaxDepth) return false;
    SkipSpace();
    if (p_ == end_) return false;
    if (*p_ == '{') {
      ++p_;
      if (Consume('}')) return true;
      std::string key;
      do {
        if (!ParseString(&key) || !Consume(':') || !SkipValue(depth + 1)) {
          return false;
        }
      } while (Consume(','));
      return Consume('}');
    }
    if (*p_ == '[') {
      ++p_;
      if (Consume(']')) return true;
      do {
        if (!SkipValue(depth + 1)) return false;
      } while (Consume(','));
      return Consume(']');
    }
    Scalar s;
    bool is_null;
    return ParseScalar(&s, &is_null);
  }

  bool PeekNull() {
    SkipSpace();
    if (end_ - p_ >= 4 && absl::string_view(p_, 4) == "null") {
      p_ += 4;
      return true;
    }
    return false;
  }

  // By JSON name, else by proto name (protobuf's parser accepts both).
  const FieldDescriptor* FindField(const Descriptor* d,
                                   const std::string& key) {
    auto [it, added] = json_names_.try_emplace(d);
    if (added) {
      for (int i = 0; i < d->field_count(); ++i) {
        it->second.emplace(d->field(i)->json_name(), d->field(i));
      }
    }
    auto f = it->second.find(key);
    if (f != it->second.end()) return f->second;
    return d->FindFieldByName(key);
  }

  bool ParseObject(Message* message, int depth) {
    if (depth > kProtoJsonMaxDepth) return false;
    const Descriptor* d = message->GetDescriptor();
    if (d->file()->package() == "google.protobuf") return false;
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    std::string key;
    // Fields seen in this object: a second member for one field (by either
    // of its names) is declined; protobuf's handling differs by kind.
    absl::InlinedVector<const FieldDescriptor*, 8> seen;
    do {
      // protobuf rejects an empty member name, even an unknown one.
      if (!ParseString(&key) || key.empty() || !Consume(':')) return false;
      const FieldDescriptor* f = FindField(d, key);
      if (f == nullptr) {
        if (!SkipValue(depth + 1)) return false;
        continue;
      }
      if (std::find(seen.begin(), seen.end(), f) != seen.end()) return false;
      seen.push_back(f);
      if (PeekNull()) continue;  // null: the field stays unset
      if (!ParseField(message, f, depth + 1)) return false;
    } while (Consume(','));
    return Consume('}');
  }

  bool ParseField(Message* message, const FieldDescriptor* f, int depth) {
    const Reflection* r = message->GetReflection();
    if (f->is_map()) return ParseMap(message, f, depth);
    if (f->is_repeated()) {
      if (!Consume('[')) return false;
      if (Consume(']')) return true;
      do {
        if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
          if (!ParseObject(r->AddMessage(message, f), depth + 1)) return false;
        } else {
          Scalar s;
          bool is_null;
          if (!ParseScalar(&s, &is_null) || is_null) return false;
          if (!SetScalar(message, f, &s)) return false;
        }
      } while (Consume(','));
      return Consume(']');
    }
    // Two members of one oneof: protobuf reports an error.
    if (const auto* oneof = f->real_containing_oneof()) {
      const FieldDescriptor* set = r->GetOneofFieldDescriptor(*message, oneof);
      if (set != nullptr && set != f) return false;
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      return ParseObject(r->MutableMessage(message, f), depth);
    }
    Scalar s;
    bool is_null;
    if (!ParseScalar(&s, &is_null) || is_null) return false;
    return SetScalar(message, f, &s);
  }

  // NodeDef.attr through its generated map: filled by reflection, a map
  // field also keeps every entry as a message of a hidden repeated field,
  // which lives as long as the NodeDef (a second copy of every attr, ~1 MB
  // on a 2,000-node graph, that erasing an attr would not free).
  bool ParseNodeAttrs(
      google::protobuf::Map<std::string, tensorflow::AttrValue>* attrs,
      int depth) {
    if (depth > kProtoJsonMaxDepth) return false;
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    std::string key;
    do {
      if (!ParseString(&key) || !Consume(':')) return false;
      if (attrs->find(key) != attrs->end()) return false;  // a repeat
      if (PeekNull()) return false;  // protobuf rejects null map values
      if (!ParseObject(&(*attrs)[key], depth + 1)) return false;
    } while (Consume(','));
    return Consume('}');
  }

  bool ParseMap(Message* message, const FieldDescriptor* f, int depth) {
    if (depth > kProtoJsonMaxDepth) return false;
    if (f->number() == tensorflow::NodeDef::kAttrFieldNumber) {
      if (auto* node = dynamic_cast<tensorflow::NodeDef*>(message)) {
        return ParseNodeAttrs(node->mutable_attr(), depth);
      }
    }
    const Reflection* r = message->GetReflection();
    const Descriptor* entry_type = f->message_type();
    const FieldDescriptor* key_field = entry_type->map_key();
    const FieldDescriptor* value_field = entry_type->map_value();
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    absl::flat_hash_set<std::string> keys;  // protobuf rejects repeats
    do {
      Scalar key;
      key.kind = Scalar::Kind::kString;
      if (!ParseString(&key.text) || !Consume(':')) return false;
      if (!keys.insert(key.text).second) return false;
      if (PeekNull()) return false;  // protobuf rejects null map values
      Message* entry = r->AddMessage(message, f);
      if (key_field->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) {
        if (key.text != "true" && key.text != "false") return false;
        key.kind =
            key.text == "true" ? Scalar::Kind::kTrue : Scalar::Kind::kFalse;
      } else if (key_field->cpp_type() != FieldDescriptor::CPPTYPE_STRING) {
        if (!IsPlainInteger(key.text)) return false;
      }
      if (!SetScalar(entry, key_field, &key)) return false;
      if (!ParseField(entry, value_field, depth + 1)) return false;
    } while (Consume(','));
    return Consume('}');
  }

  // Integer from a number token or a string holding a plain integer.
  template <typename T>
  static bool ToInteger(const Scalar& s, T* out) {
    absl::string_view text;
    if (s.kind == Scalar::Kind::kNumber) {
      text = s.number;
    } else if (s.kind == Scalar::Kind::kString) {
      text = s.text;
    } else {
      return false;
    }
    if (!IsPlainInteger(text)) return false;
    if constexpr (std::is_unsigned_v<T>) {
      if (text.front() == '-') return false;
    }
    return absl::SimpleAtoi(text, out);
  }

  // Double as protobuf reads it: numbers, numeric strings, NaN/Infinity.
  static bool ToDouble(const Scalar& s, double* out) {
    absl::string_view text;
    if (s.kind == Scalar::Kind::kString) {
      if (s.text == "NaN") {
        *out = std::numeric_limits<double>::quiet_NaN();
        return true;
      }
      if (s.text == "Infinity") {
        *out = std::numeric_limits<double>::infinity();
        return true;
      }
      if (s.text == "-Infinity") {
        *out = -std::numeric_limits<double>::infinity();
        return true;
      }
      text = s.text;
    } else if (s.kind == Scalar::Kind::kNumber) {
      text = s.number;
    } else {
      return false;
    }
    if (IsPlainInteger(text)) {
      // Integers go through int64 in protobuf, which refuses a lossy
      // conversion.
      int64_t v;
      if (!absl::SimpleAtoi(text, &v)) return false;
      double d = static_cast<double>(v);
      if (d >= 9223372036854775808.0 || static_cast<int64_t>(d) != v) {
        return false;
      }
      *out = d;
      return true;
    }
    // Anything but a strict JSON number (e.g. " 1", "0x1") goes to
    // protobuf's parser.
    Reader token_check(text);
    absl::string_view token;
    if (!token_check.ParseNumberToken(&token) || token.size() != text.size()) {
      return false;
    }
    if (!absl::SimpleAtod(text, out)) return false;
    return std::isfinite(*out);
  }

  static bool SetScalar(Message* m, const FieldDescriptor* f, Scalar* s) {
    const Reflection* r = m->GetReflection();
    const bool rep = f->is_repeated();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: {
        int32_t v;
        if (!ToInteger(*s, &v)) return false;
        rep ? r->AddInt32(m, f, v) : r->SetInt32(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_INT64: {
        int64_t v;
        if (!ToInteger(*s, &v)) return false;
        rep ? r->AddInt64(m, f, v) : r->SetInt64(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_UINT32: {
        uint32_t v;
        if (!ToInteger(*s, &v)) return false;
        rep ? r->AddUInt32(m, f, v) : r->SetUInt32(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_UINT64: {
        uint64_t v;
        if (!ToInteger(*s, &v)) return false;
        rep ? r->AddUInt64(m, f, v) : r->SetUInt64(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_DOUBLE: {
        double v;
        if (!ToDouble(*s, &v)) return false;
        rep ? r->AddDouble(m, f, v) : r->SetDouble(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_FLOAT: {
        double v;
        if (!ToDouble(*s, &v)) return false;
        if (std::isfinite(v) &&
            std::fabs(v) > std::numeric_limits<float>::max()) {
          return false;  // protobuf: float out of range
        }
        const float fv = static_cast<float>(v);
        rep ? r->AddFloat(m, f, fv) : r->SetFloat(m, f, fv);
        return true;
      }
      case FieldDescriptor::CPPTYPE_BOOL: {
        if (s->kind != Scalar::Kind::kTrue && s->kind != Scalar::Kind::kFalse) {
          return false;
        }
        const bool v = s->kind == Scalar::Kind::kTrue;
        rep ? r->AddBool(m, f, v) : r->SetBool(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        const EnumValueDescriptor* e = nullptr;
        if (s->kind == Scalar::Kind::kString) {
          e = f->enum_type()->FindValueByName(s->text);
        } else if (s->kind == Scalar::Kind::kNumber) {
          int32_t v;
          if (!ToInteger(*s, &v)) return false;
          e = f->enum_type()->FindValueByNumber(v);
        }
        if (e == nullptr) return false;
        rep ? r->AddEnum(m, f, e) : r->SetEnum(m, f, e);
        return true;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        if (s->kind != Scalar::Kind::kString) return false;
        if (f->type() == FieldDescriptor::TYPE_BYTES) {
          std::string bytes;
          if (!DecodeCanonicalBase64(s->text, &bytes)) return false;
          s->text = std::move(bytes);
        }
        rep ? r->AddString(m, f, std::move(s->text))
            : r->SetString(m, f, std::move(s->text));
        return true;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return false;
    }
    return false;
  }

  const char* p_;
  const char* end_;
  absl::flat_hash_map<const Descriptor*,
                      absl::flat_hash_map<std::string, const FieldDescriptor*>>
      json_names_;
};

}  // namespace

bool ParseProtoJsonFast(absl::string_view json, Message* message) {
  Reader reader(json);
  return reader.ParseDocument(message);
}

}  // namespace graphrt
