// ParseManifestFast (loader/manifest_json.h): the same WeightGroups as the
// nlohmann path (ParseManifestSlow) on every manifest it reads, including
// every corpus and fixture model.json, and a decline on what it does not
// read exactly.
#include "loader/manifest_json.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "loader/json_members.h"
#include "loader/tfjs_test_util.h"

namespace graphrt::tfjs_internal {
namespace {

using ::graphrt::tfjs_testing::FindModelJsons;

void ExpectSameAsSlow(const std::string& json) {
  auto fast = ParseManifestFast(json);
  ASSERT_TRUE(fast.has_value()) << "declined: " << json;
  auto slow = ParseManifestSlow(json);
  ASSERT_TRUE(slow.ok()) << slow.status() << " for " << json;
  EXPECT_TRUE(*fast == *slow) << json;
}

TEST(ManifestJsonTest, ReadsWhatTheSlowPathReads) {
  ExpectSameAsSlow("[]");
  ExpectSameAsSlow("[{}]");
  ExpectSameAsSlow(R"([{"paths": ["a.bin", "b.bin"], "weights": [
      {"name": "w", "shape": [3, 1, 0], "dtype": "float32"},
      {"name": "s", "shape": [], "dtype": "int32", "extra": null},
      {"name": "q", "shape": [2], "dtype": "float32", "quantization":
        {"dtype": "uint8", "min": -0.5, "scale": 0.00392156862745098}},
      {"name": "h", "shape": [-1], "dtype": "float32",
        "quantization": {"dtype": "float16", "original_dtype": "float32"}},
      {"name": "e", "shape": [1], "dtype": "float32", "quantization":
        {"dtype": "uint16", "min": 1e-3, "scale": -2.5E+2}}]},
    {"paths": ["c.bin"], "weights": [], "group": "x", "n": 1, "t": true}])");
}

TEST(ManifestJsonTest, DeclinesWhatItDoesNotReadExactly) {
  for (const char* json : {
           R"({"paths": []})",                       // not an array
           R"([{"paths": ["a"], "paths": ["b"]}])",  // duplicate key
           R"([{"weights": [{"shape": [], "dtype": "float32"}]}])",  // name
           R"([{"weights": [{"name": "a", "dtype": "float32"}]}])",  // shape
           R"([{"weights": [{"name": "a", "shape": []}]}])",         // dtype
           R"([{"weights": [{"name": "a\u0062", "shape": [], "dtype": "x"}]}])",
           R"([{"weights": [{"name": "a", "shape": [1.0], "dtype": "x"}]}])",
           R"([{"weights": [{"name": "a", "shape": ["1"], "dtype": "x"}]}])",
           R"([{"weights": [{"name": "a", "shape": [01], "dtype": "x"}]}])",
           R"([{"weights": [{"name": "a", "shape": [], "dtype": "x",
                 "quantization": {"min": 1}}]}])",  // quantization dtype
           R"([{"weights": [{"name": "a", "shape": [], "dtype": "x",
                 "quantization": {"dtype": "uint8", "min": "1"}}]}])",
           R"([{"weights": [{"name": "a", "shape": [], "dtype": "x",
                 "meta": {"k": 1}}]}])",  // a nested unread member
           R"([{"weights": [{"name": "a", "shape": [], "dtype": "x"},
                            {"name": "a", "shape": [], "dtype": "x"}]}])",
           // An overflowing literal: nlohmann refuses it (an error there).
           R"([{"weights": [{"name": "a", "shape": [], "dtype": "x",
                 "quantization": {"dtype": "uint8", "scale": 1e999}}]}])",
           R"([{"weights": []}] x)",
           R"([{"weights": [}])",
       }) {
    EXPECT_FALSE(ParseManifestFast(json).has_value()) << json;
  }
}

// Every model.json under the corpus and fixture folders (when set): the
// fast reading equals the slow one (or the fast one declines).
TEST(ManifestJsonTest, CorpusAndFixturesMatchTheSlowPath) {
  std::vector<std::string> files;
  for (const char* var : {"GRAPHRT_CORPUS_DIR", "GRAPHRT_SHARED"}) {
    if (const char* dir = std::getenv(var)) FindModelJsons(dir, &files);
  }
  int compared = 0;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();  // the members are views into it
    auto members = SplitTopLevelMembers(text);
    if (!members.has_value()) continue;
    for (const JsonMember& m : *members) {
      if (m.key != "weightsManifest") continue;
      auto fast = ParseManifestFast(m.value);
      auto slow = ParseManifestSlow(m.value);
      if (!fast.has_value()) continue;
      ASSERT_TRUE(slow.ok()) << file << ": " << slow.status();
      EXPECT_TRUE(*fast == *slow) << file;
      ++compared;
    }
  }
  std::cout << "[ manifests ] " << compared << " compared\n";
}

}  // namespace
}  // namespace graphrt::tfjs_internal
