#include "loader/tfjs_test_util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace graphrt {
namespace tfjs_testing {
namespace {

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void MakeDirs(const std::string& path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos == path.size() || path[pos] == '/') {
      std::string prefix = path.substr(0, pos);
      if (!IsDir(prefix) && ::mkdir(prefix.c_str(), 0755) != 0) {
        std::fprintf(stderr, "mkdir %s: %s\n", prefix.c_str(),
                     std::strerror(errno));
        std::abort();
      }
    }
  }
}

template <typename T>
void AppendLe(std::string* out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));  // hosts are little-endian
  out->append(buf, sizeof(T));
}

}  // namespace

TempModelDir::TempModelDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr && *base ? base : "/tmp", "/tfjs_XXXXXX");
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    std::fprintf(stderr, "mkdtemp %s: %s\n", pattern.c_str(),
                 std::strerror(errno));
    std::abort();
  }
  path_ = buf.data();
}

std::string TempModelDir::Write(absl::string_view relative,
                                absl::string_view bytes) const {
  std::string full = absl::StrCat(path_, "/", relative);
  size_t slash = full.find_last_of('/');
  MakeDirs(full.substr(0, slash));
  std::FILE* f = std::fopen(full.c_str(), "wb");
  if (f == nullptr ||
      std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "cannot write %s\n", full.c_str());
    std::abort();
  }
  return full;
}

Bytes& Bytes::F32(float v) {
  AppendLe(&data_, v);
  return *this;
}
Bytes& Bytes::I32(int32_t v) {
  AppendLe(&data_, v);
  return *this;
}
Bytes& Bytes::U8(uint8_t v) {
  AppendLe(&data_, v);
  return *this;
}
Bytes& Bytes::U16(uint16_t v) {
  AppendLe(&data_, v);
  return *this;
}
Bytes& Bytes::U32(uint32_t v) {
  AppendLe(&data_, v);
  return *this;
}
Bytes& Bytes::Str(absl::string_view s) {
  U32(static_cast<uint32_t>(s.size()));
  return Raw(s);
}
Bytes& Bytes::Raw(absl::string_view s) {
  data_.append(s.data(), s.size());
  return *this;
}

std::string SharedTfjsFixturesDir() {
  const char* env = std::getenv("GRAPHRT_SHARED");
  if (env != nullptr && *env) {
    std::string dir = absl::StrCat(env, "/fixtures/tfjs");
    if (IsDir(dir)) return dir;
  }
  if (IsDir("/work/shared/fixtures/tfjs")) return "/work/shared/fixtures/tfjs";
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof(cwd)) == nullptr) return "";
  std::string dir = cwd;
  while (!dir.empty()) {
    std::string candidate = absl::StrCat(dir, "/shared/fixtures/tfjs");
    if (IsDir(candidate)) return candidate;
    size_t slash = dir.find_last_of('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
  }
  return "";
}

void FindModelJsons(const std::string& dir, std::vector<std::string>* out,
                    int depth) {
  if (depth > 6) return;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      FindModelJsons(path, out, depth + 1);
    } else if (absl::EndsWith(name, ".json")) {
      out->push_back(path);
    }
  }
  closedir(d);
}

}  // namespace tfjs_testing
}  // namespace graphrt
