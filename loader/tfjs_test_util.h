// Test-only helpers for the TF.js loader tests: scratch model folders,
// little-endian byte builders and the location of the shared fixtures.
#ifndef GRAPHRT_LOADER_TFJS_TEST_UTIL_H_
#define GRAPHRT_LOADER_TFJS_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace graphrt {
namespace tfjs_testing {

// A fresh, empty directory under $TEST_TMPDIR (or /tmp). Files are left
// behind for Bazel to clean up. Aborts on failure (tests only).
class TempModelDir {
 public:
  TempModelDir();
  const std::string& path() const { return path_; }
  // Writes `bytes` to path()/relative (creating parent folders) and returns
  // the full path.
  std::string Write(absl::string_view relative, absl::string_view bytes) const;

 private:
  std::string path_;
};

// Little-endian byte stream builder for weight shards.
class Bytes {
 public:
  Bytes& F32(float v);
  Bytes& I32(int32_t v);
  Bytes& U8(uint8_t v);
  Bytes& U16(uint16_t v);
  Bytes& U32(uint32_t v);
  // uint32 length + bytes, as TF.js encodes a string element.
  Bytes& Str(absl::string_view s);
  Bytes& Raw(absl::string_view s);
  const std::string& str() const { return data_; }
  size_t size() const { return data_.size(); }

 private:
  std::string data_;
};

// The folder of the shared TF.js fixtures (".../shared/fixtures/tfjs"):
// $GRAPHRT_SHARED/fixtures/tfjs, /work/shared/fixtures/tfjs, or the first
// "shared/fixtures/tfjs" found walking up from the working directory.
// Returns "" when none exists (tests then GTEST_SKIP).
std::string SharedTfjsFixturesDir();

// Appends the path of every "*.json" file under `dir` (folders followed
// up to 6 levels deep) to `out`, in readdir order. A missing `dir` adds
// nothing.
void FindModelJsons(const std::string& dir, std::vector<std::string>* out,
                    int depth = 0);

}  // namespace tfjs_testing
}  // namespace graphrt

#endif  // GRAPHRT_LOADER_TFJS_TEST_UTIL_H_
