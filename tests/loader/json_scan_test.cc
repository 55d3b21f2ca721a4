// The SSE2 string scanners (loader/json_scan.h) against byte-at-a-time
// references, at every offset and length around their 16-byte steps, and
// SplitTopLevelMembers (which skips strings with them) on escaped quotes
// at every position.
#include "loader/json_scan.h"

#include <gtest/gtest.h>

#include <string>

#include "loader/json_members.h"

namespace graphrt {
namespace {

const char* RefQuoteOrEscape(const char* p, const char* end) {
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

const char* RefNonPlainAscii(const char* p, const char* end) {
  while (p < end) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
    ++p;
  }
  return p;
}

TEST(JsonScanTest, MatchesTheByteLoopsAtEveryOffset) {
  // One special byte at position `at` of a run of 'a's, the run starting at
  // offset `start` of the buffer (unaligned loads).
  const char specials[] = {'"',    '\\',   '\x01', '\x1f', '\x7f',
                           '\x80', '\xc3', '\xff', ' ',    '~'};
  for (int start = 0; start < 16; ++start) {
    for (int len = 0; len <= 40; ++len) {
      for (int at = -1; at < len; ++at) {
        for (char special : specials) {
          std::string buf(start + len + 16, 'a');
          if (at >= 0) buf[start + at] = special;
          const char* p = buf.data() + start;
          const char* end = p + len;
          EXPECT_EQ(json_scan::FindQuoteOrEscape(p, end),
                    RefQuoteOrEscape(p, end))
              << start << " " << len << " " << at << " " << int(special);
          EXPECT_EQ(json_scan::FindNonPlainAscii(p, end),
                    RefNonPlainAscii(p, end))
              << start << " " << len << " " << at << " " << int(special);
          if (at < 0) break;  // no special byte: once is enough
        }
      }
    }
  }
}

TEST(JsonScanTest, SplitTopLevelMembersSkipsEscapesAnywhere) {
  for (int n = 0; n < 40; ++n) {
    const std::string name =
        std::string(n, 'x') + "\\\"}" + std::string(n, 'y');
    const std::string text =
        "{\"a\": \"" + name + "\", \"b\": [\"" + name + "\\\\\", {\"c\": 1}]}";
    auto members = SplitTopLevelMembers(text);
    ASSERT_TRUE(members.has_value()) << text;
    ASSERT_EQ(members->size(), 2u) << text;
    EXPECT_EQ((*members)[0].key, "a");
    EXPECT_EQ((*members)[0].value, "\"" + name + "\"");
    EXPECT_EQ((*members)[1].key, "b");
    // An unterminated string (its last quote escaped) never closes.
    EXPECT_FALSE(
        SplitTopLevelMembers("{\"a\": \"" + std::string(n, 'x') + "\\\"}")
            .has_value());
  }
}

}  // namespace
}  // namespace graphrt
