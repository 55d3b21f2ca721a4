// Splits the top level of a JSON object into its members' raw text, without
// building a DOM. The TF.js loader uses it to hand model.json's graphs
// ("modelTopology", "modelInitializer": most of the file) straight to
// protobuf's JSON parser, and to parse only the small rest with nlohmann:
// one pass over the big part instead of three (nlohmann parse, dump,
// protobuf parse).
//
// The scan checks only structure (balanced brackets outside strings, a
// string key, ':' and ',' between members); the values are validated by
// whoever parses them. Keys with escape sequences are not decoded: such a
// key makes SplitTopLevelMembers fail, and the caller falls back to a full
// parse (which also produces the error message for malformed input).
#ifndef GRAPHRT_LOADER_JSON_MEMBERS_H_
#define GRAPHRT_LOADER_JSON_MEMBERS_H_

#include <optional>
#include <vector>

#include "absl/strings/string_view.h"

namespace graphrt {

struct JsonMember {
  absl::string_view key;    // without quotes, undecoded
  absl::string_view value;  // raw value text, surrounding space trimmed
};

// The members of the object `text` in file order, or nullopt when `text`
// is not a well-formed object at the top level or has an escaped key.
std::optional<std::vector<JsonMember>> SplitTopLevelMembers(
    absl::string_view text);

}  // namespace graphrt

#endif  // GRAPHRT_LOADER_JSON_MEMBERS_H_
