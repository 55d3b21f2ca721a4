// Byte scanners for the JSON readers of model.json (json_members.cc,
// proto_json.cc, tfjs_model.cc's depth check): the loops that walk a
// string's contents, 16 bytes per step with SSE2 (every x86-64 CPU has it),
// one byte at a time elsewhere.
//
// Why: strings (node names, ops, attr keys, weight names) are most of a
// model.json's bytes, and each of those loops used to test every byte
// against two or three characters: splitting, depth-checking and parsing
// blazeface's 77 KB model.json took a third of its load time.
#ifndef GRAPHRT_LOADER_JSON_SCAN_H_
#define GRAPHRT_LOADER_JSON_SCAN_H_

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace graphrt {
namespace json_scan {

// The first byte in [p, end) that is '"' or '\\' (the end of a string's
// plain run), or `end`.
inline const char* FindQuoteOrEscape(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i escape = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int mask = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, escape)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// The first byte in [p, end) that is not printable ASCII or is '"' or
// '\\': a string's end, an escape, a control character (invalid in JSON
// strings) or the first byte of a multi-byte UTF-8 sequence; or `end`.
inline const char* FindNonPlainAscii(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i escape = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed: bytes 0x00-0x1f and 0x80-0xff are both below 0x20.
    const __m128i special = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, escape)),
        _mm_cmplt_epi8(v, space));
    const int mask = _mm_movemask_epi8(special);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
    ++p;
  }
  return p;
}

}  // namespace json_scan
}  // namespace graphrt

#endif  // GRAPHRT_LOADER_JSON_SCAN_H_
