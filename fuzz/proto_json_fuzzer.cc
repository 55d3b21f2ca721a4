// Differential fuzzing of the fast proto3-JSON reader (loader/proto_json.h)
// against protobuf's JsonStringToMessage: whenever the fast reader accepts
// an input, protobuf must accept it too and both must give the same
// message (deterministic serialization compared byte for byte).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "google/protobuf/util/json_util.h"
#include "loader/chunked/chunked_proto_writer.h"
#include "loader/proto_json.h"
#include "proto/graph.pb.h"

namespace {

std::string Deterministic(const google::protobuf::Message& m) {
  std::string out;
  if (!graphrt::SerializeDeterministic(m, &out).ok()) std::abort();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tensorflow::GraphDef fast;
  if (!graphrt::ParseProtoJsonFast(text, &fast)) return 0;
  tensorflow::GraphDef reference;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(text.data(), text.size()), &reference,
      options);
  if (!status.ok()) {
    std::fprintf(stderr, "fast reader accepted what protobuf rejects: %s\n",
                 status.ToString().c_str());
    std::abort();
  }
  if (Deterministic(fast) != Deterministic(reference)) {
    std::fprintf(stderr, "fast reader and protobuf disagree\n");
    std::abort();
  }
  return 0;
}
