#include "loader/mapped_file.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "loader/tfjs_test_util.h"

namespace graphrt {
namespace {

using ::graphrt::tfjs_testing::TempModelDir;

TEST(MappedFileTest, MapsTheWholeFile) {
  TempModelDir dir;
  std::string bytes(100000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i);
  const std::string path = dir.Write("w.bin", bytes);
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->size(), bytes.size());
  EXPECT_EQ(file->data(), bytes);
}

TEST(MappedFileTest, EmptyFileIsAnEmptyView) {
  TempModelDir dir;
  auto file = MappedFile::Open(dir.Write("empty.bin", ""));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->data().empty());
}

TEST(MappedFileTest, MoveKeepsTheMapAndEmptiesTheSource) {
  TempModelDir dir;
  auto file = MappedFile::Open(dir.Write("w.bin", "abc"));
  ASSERT_TRUE(file.ok()) << file.status();
  MappedFile moved = std::move(*file);
  EXPECT_EQ(moved.data(), "abc");
  EXPECT_TRUE(file->data().empty());  // NOLINT(bugprone-use-after-move)
  MappedFile other = *MappedFile::Open(dir.Write("x.bin", "xyz"));
  other = std::move(moved);
  EXPECT_EQ(other.data(), "abc");
}

TEST(MappedFileTest, Errors) {
  TempModelDir dir;
  auto missing = MappedFile::Open(dir.path() + "/nope.bin");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nope.bin"), std::string::npos);
  auto folder = MappedFile::Open(dir.path());
  EXPECT_EQ(folder.status().code(), absl::StatusCode::kInvalidArgument);
  auto device = MappedFile::Open("/dev/null");
  EXPECT_EQ(device.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace graphrt
