#include "loader/json_members.h"

#include <cstddef>

#include "loader/json_scan.h"

namespace graphrt {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void SkipSpace(absl::string_view text, size_t* i) {
  while (*i < text.size() && IsSpace(text[*i])) ++*i;
}

// Past the string starting at text[*i] == '"'; false if it never closes.
bool SkipString(absl::string_view text, size_t* i) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* p = begin + *i + 1;
  while (true) {
    p = json_scan::FindQuoteOrEscape(p, end);
    if (p >= end) {
      *i = text.size();
      return false;
    }
    if (*p == '"') {
      *i = static_cast<size_t>(p - begin) + 1;
      return true;
    }
    p += 2;  // the backslash and the character it escapes
  }
}

// Past one value starting at text[*i]: a string, a bracketed value
// (strings inside skipped), or a scalar up to the next ',' / '}' / space.
bool SkipValue(absl::string_view text, size_t* i) {
  if (*i >= text.size()) return false;
  const char c = text[*i];
  if (c == '"') return SkipString(text, i);
  if (c == '{' || c == '[') {
    int depth = 0;
    while (*i < text.size()) {
      const char d = text[*i];
      if (d == '"') {
        if (!SkipString(text, i)) return false;
        continue;
      }
      if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) {
          ++*i;
          return true;
        }
      }
      ++*i;
    }
    return false;
  }
  const size_t start = *i;
  while (*i < text.size() && text[*i] != ',' && text[*i] != '}' &&
         !IsSpace(text[*i])) {
    ++*i;
  }
  return *i > start;
}

}  // namespace

std::optional<std::vector<JsonMember>> SplitTopLevelMembers(
    absl::string_view text) {
  std::vector<JsonMember> members;
  size_t i = 0;
  SkipSpace(text, &i);
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  ++i;
  SkipSpace(text, &i);
  if (i < text.size() && text[i] == '}') {
    ++i;
  } else {
    while (true) {
      SkipSpace(text, &i);
      if (i >= text.size() || text[i] != '"') return std::nullopt;
      const size_t key_start = i + 1;
      if (!SkipString(text, &i)) return std::nullopt;
      const absl::string_view key = text.substr(key_start, i - 1 - key_start);
      if (key.find('\\') != absl::string_view::npos) return std::nullopt;
      SkipSpace(text, &i);
      if (i >= text.size() || text[i] != ':') return std::nullopt;
      ++i;
      SkipSpace(text, &i);
      const size_t value_start = i;
      if (!SkipValue(text, &i)) return std::nullopt;
      members.push_back({key, text.substr(value_start, i - value_start)});
      SkipSpace(text, &i);
      if (i >= text.size()) return std::nullopt;
      if (text[i] == ',') {
        ++i;
        continue;
      }
      if (text[i] != '}') return std::nullopt;
      ++i;
      break;
    }
  }
  SkipSpace(text, &i);
  if (i != text.size()) return std::nullopt;
  return members;
}

}  // namespace graphrt
