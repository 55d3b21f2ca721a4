// A fast reader of proto3 JSON into a protobuf message, for model.json's
// graphs (modelTopology / modelInitializer are GraphDefs in proto3 JSON).
//
// Why: protobuf's JsonStringToMessage goes through a TypeResolver and an
// object-writer pipeline (JSON -> type-resolved events -> binary -> parse);
// on the corpus it was most of graphrt's load time for small models (age:
// 5 of 9 ms). This reader walks the JSON text once and sets fields through
// protobuf's reflection, with no intermediate DOM or binary buffer.
//
// Contract: ParseProtoJsonFast either fills `message` with exactly what
// JsonStringToMessage(json, message, {ignore_unknown_fields = true}) would
// give (same serialized bytes; tests/loader/proto_json_test.cc checks every
// bundled and corpus graph), or returns false and leaves `message` in an
// unspecified state. It returns false for anything it does not handle
// exactly: malformed JSON, well-known types (google.protobuf.*), numbers in
// forms other than plain integers for integer fields, values out of range,
// enum names the descriptor lacks, two members of one oneof, nesting deeper
// than kMaxDepth. Callers then clear the message and use protobuf's parser,
// which also produces the error message for bad input.
//
// Accepted, as protobuf does: field keys by JSON name or proto name;
// unknown keys skipped (their values still checked for JSON syntax); null
// for "unset"; int64 / uint64 as JSON numbers or strings; float / double
// as numbers, numeric strings, "NaN", "Infinity", "-Infinity"; bytes in
// standard or web-safe base64, padded or not; enums by name or number;
// maps as JSON objects.
#ifndef GRAPHRT_LOADER_PROTO_JSON_H_
#define GRAPHRT_LOADER_PROTO_JSON_H_

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace graphrt {

// Nesting limit (objects and arrays) of the fast reader.
inline constexpr int kProtoJsonMaxDepth = 100;

// See above. `message` should be empty on entry.
bool ParseProtoJsonFast(absl::string_view json,
                        google::protobuf::Message* message);

}  // namespace graphrt

#endif  // GRAPHRT_LOADER_PROTO_JSON_H_
