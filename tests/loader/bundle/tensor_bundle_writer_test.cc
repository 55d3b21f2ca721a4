// TensorBundleWriter / MergeTensorBundles / SaveTensorBundle: round trips,
// TensorFlow's byte layout, slices, errors and crash safety.
#include "loader/bundle/tensor_bundle_writer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "loader/bundle/tensor_bundle_reader.h"
#include "tests/loader/bundle/bundle_test_util.h"

namespace graphrt {
namespace {

using bundle_testing::FixturePrefixes;
using bundle_testing::FreshDir;
using bundle_testing::ReadFileOrDie;
using bundle_testing::SavedModelFixtures;

template <typename T>
Tensor Make(std::vector<T> values, Shape shape) {
  Tensor t = *Tensor::Allocate(DTypeOf<T>::value, shape);
  for (size_t i = 0; i < values.size(); ++i) t.mutable_data<T>()[i] = values[i];
  return t;
}

std::vector<std::pair<std::string, Tensor>> EveryDtype() {
  std::vector<std::pair<std::string, Tensor>> out;
  out.emplace_back(
      "f32", Make<float>({1.5f, -2.f, 3.25f, 0.f, -0.f, 1e30f}, Shape({2, 3})));
  out.emplace_back("f64",
                   Make<double>({3.141592653589793, -1e300}, Shape({2})));
  out.emplace_back("i32",
                   Make<int32_t>({INT32_MIN, -1, 0, INT32_MAX}, Shape({4})));
  out.emplace_back("u8", Make<uint8_t>({0, 7, 255}, Shape({3})));
  out.emplace_back("i16", Make<int16_t>({-32768, 32767}, Shape({2})));
  out.emplace_back("i8", Make<int8_t>({-128, 127, 0}, Shape({3})));
  out.emplace_back("i64", Make<int64_t>({INT64_MIN, INT64_MAX}, Shape({2})));
  out.emplace_back("bool", Make<bool>({true, false, true}, Shape({3})));
  out.emplace_back(
      "bf16", Make<bfloat16>({bfloat16(1.5f), bfloat16(-3.f)}, Shape({2})));
  out.emplace_back("u16", Make<uint16_t>({0, 65535}, Shape({2})));
  out.emplace_back("c64", Make<complex64>({{1.f, -2.f}}, Shape({1})));
  out.emplace_back("c128", Make<complex128>({{3.0, 4.0}, {-1, 0}}, Shape({2})));
  out.emplace_back("f16",
                   Make<float16>({float16(0.5f), float16(-8.f)}, Shape({2})));
  out.emplace_back("u32", Make<uint32_t>({0, UINT32_MAX}, Shape({2})));
  out.emplace_back("u64", Make<uint64_t>({0, UINT64_MAX}, Shape({2})));
  out.emplace_back(
      "str", Make<std::string>(
                 {"", "hello", std::string("a\0b", 3), std::string(300, 'x')},
                 Shape({2, 2})));
  out.emplace_back("scalar", Tensor::Scalar<float>(7.f));
  out.emplace_back("empty", *Tensor::Allocate(DType::kFloat32, Shape({0, 5})));
  out.emplace_back("empty_str", *Tensor::Allocate(DType::kString, Shape({0})));
  out.emplace_back("dir/nested/name", Tensor::Scalar<std::string>("x"));
  return out;
}

void ExpectBundleHolds(
    const std::string& prefix,
    const std::vector<std::pair<std::string, Tensor>>& want) {
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->keys().size(), want.size());
  for (const auto& [key, tensor] : want) {
    auto got = (*reader)->Read(key);
    ASSERT_TRUE(got.ok()) << key << ": " << got.status();
    EXPECT_TRUE(got->IdenticalTo(tensor)) << key << ": " << got->DebugString();
  }
}

TEST(TensorBundleWriter, RoundTripsEveryDtype) {
  for (int shards : {1, 3, 7}) {
    const std::string prefix = FreshDir("roundtrip") + "/ckpt";
    const auto tensors = EveryDtype();
    ASSERT_TRUE(SaveTensorBundle(prefix, tensors, shards).ok());
    ExpectBundleHolds(prefix, tensors);
    auto reader = *TensorBundleReader::Open(prefix);
    EXPECT_EQ(reader->num_shards(), shards);
    // No temporary files are left behind.
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(
             std::filesystem::path(prefix).parent_path())) {
      EXPECT_EQ(e.path().string().find("temp"), std::string::npos) << e.path();
      ++files;
    }
    EXPECT_EQ(files, shards + 1);
  }
}

TEST(TensorBundleWriter, OverwriteWithAnotherShardCountRemovesOldShards) {
  const std::string dir = FreshDir("overwrite");
  const std::string prefix = dir + "/ckpt";
  ASSERT_TRUE(SaveTensorBundle(prefix, EveryDtype(), 4).ok());
  std::vector<std::pair<std::string, Tensor>> small = {
      {"only", Tensor::Scalar<int32_t>(5)}};
  ASSERT_TRUE(SaveTensorBundle(prefix, small, 1).ok());
  ExpectBundleHolds(prefix, small);
  EXPECT_FALSE(std::filesystem::exists(prefix + ".data-00000-of-00004"));
  EXPECT_TRUE(std::filesystem::exists(prefix + ".data-00000-of-00001"));
}

TEST(TensorBundleWriter, SlicesAreAssembled) {
  const std::string prefix = FreshDir("slices") + "/ckpt";
  auto writer = *TensorBundleWriter::Create(prefix);
  // A [4,3] float tensor as rows 0-1 and rows 2-3; a [2] string tensor as
  // its two elements, added out of order.
  ASSERT_TRUE(writer
                  ->AddSlice("m", Shape({4, 3}), {{2, 2}, {0, -1}},
                             Make<float>({6, 7, 8, 9, 10, 11}, Shape({2, 3})))
                  .ok());
  ASSERT_TRUE(writer
                  ->AddSlice("m", Shape({4, 3}), {{0, 2}, {0, -1}},
                             Make<float>({0, 1, 2, 3, 4, 5}, Shape({2, 3})))
                  .ok());
  ASSERT_TRUE(writer
                  ->AddSlice("s", Shape({2}), {{1, 1}},
                             Make<std::string>({"b"}, Shape({1})))
                  .ok());
  ASSERT_TRUE(writer
                  ->AddSlice("s", Shape({2}), {{0, 1}},
                             Make<std::string>({"a"}, Shape({1})))
                  .ok());
  ASSERT_TRUE(writer
                  ->AddSlice("half", Shape({2}), {{0, 1}},
                             Make<int32_t>({1}, Shape({1})))
                  .ok());
  EXPECT_FALSE(writer->Add("m", Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(writer->Finish().ok());
  auto reader = *TensorBundleReader::Open(prefix);
  EXPECT_EQ(reader->keys(), (std::vector<std::string>{"half", "m", "s"}));
  auto m = reader->Read("m");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->IdenticalTo(
      Make<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Shape({4, 3}))));
  auto s = reader->Read("s");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->IdenticalTo(Make<std::string>({"a", "b"}, Shape({2}))));
  EXPECT_EQ(reader->Info("m")->slices.size(), 2u);
  // Slices that do not cover the tensor are an error, not zeros.
  auto half = reader->Read("half");
  EXPECT_EQ(half.status().code(), absl::StatusCode::kDataLoss);
}

TEST(TensorBundleWriter, RejectsBadInput) {
  const std::string prefix = FreshDir("bad") + "/ckpt";
  auto writer = *TensorBundleWriter::Create(prefix);
  EXPECT_FALSE(writer->Add("", Tensor::Scalar<float>(1)).ok());
  EXPECT_TRUE(writer->Add("a", Tensor::Scalar<float>(1)).ok());
  EXPECT_FALSE(writer->Add("a", Tensor::Scalar<float>(2)).ok());
  EXPECT_FALSE(
      writer->Add("r", *Tensor::Allocate(DType::kResource, Shape())).ok());
  EXPECT_FALSE(
      writer
          ->AddSlice("x", Shape({4}), {{3, 2}}, Make<float>({1, 2}, Shape({2})))
          .ok());
  EXPECT_FALSE(SaveTensorBundle(prefix, {{"k", Tensor::Scalar<float>(1)},
                                         {"k", Tensor::Scalar<float>(1)}})
                   .ok());
  EXPECT_FALSE(SaveTensorBundle(prefix, {}, 0).ok());
  // Nothing was published.
  EXPECT_FALSE(std::filesystem::exists(prefix + ".index"));
}

// Re-writes every TF-written fixture bundle with the same tensors in the
// same data order: the index and data files must be byte-identical.
TEST(TensorBundleWriter, ByteIdenticalToTensorFlow) {
  if (SavedModelFixtures().empty()) GTEST_SKIP() << "shared fixtures absent";
  int indexes_compared = 0;
  for (const std::string& original : FixturePrefixes()) {
    auto reader = *TensorBundleReader::Open(original);
    // Per shard, keys in data-file order.
    std::vector<std::vector<std::pair<int64_t, std::string>>> order(
        reader->num_shards());
    for (const std::string& key : reader->keys()) {
      const BundleEntryInfo info = *reader->Info(key);
      order[info.shard_id].emplace_back(info.offset, key);
    }
    const std::string dir = FreshDir("bytes");
    const std::string prefix = dir + "/variables";
    std::vector<std::string> parts;
    for (int s = 0; s < reader->num_shards(); ++s) {
      std::sort(order[s].begin(), order[s].end());
      const std::string part = reader->num_shards() == 1
                                   ? prefix
                                   : dir + "/part" + std::to_string(s);
      auto writer = *TensorBundleWriter::Create(part);
      for (const auto& [offset, key] : order[s]) {
        ASSERT_TRUE(writer->Add(key, *reader->Read(key)).ok());
      }
      ASSERT_TRUE(writer->Finish().ok());
      parts.push_back(part);
    }
    if (reader->num_shards() > 1) {
      ASSERT_TRUE(MergeTensorBundles(parts, prefix).ok());
    }
    for (int s = 0; s < reader->num_shards(); ++s) {
      EXPECT_EQ(
          ReadFileOrDie(BundleDataPath(prefix, s, reader->num_shards())),
          ReadFileOrDie(BundleDataPath(original, s, reader->num_shards())))
          << original << " shard " << s;
    }
    // TF's own writer never compresses; these two fixtures were written by
    // builds that snappy-compress index blocks.
    if (original.find("half_plus_two_cpu") != std::string::npos ||
        original.find("tf2_cpu") != std::string::npos) {
      continue;
    }
    EXPECT_EQ(ReadFileOrDie(prefix + ".index"),
              ReadFileOrDie(original + ".index"))
        << original;
    ++indexes_compared;
  }
  EXPECT_GE(indexes_compared, 10);
}

// A saving child process is SIGKILLed at random moments; whatever the
// moment, the prefix must then hold exactly the previous or the new
// checkpoint, never an error or a mix.
TEST(TensorBundleWriter, KilledSaveLeavesPreviousOrNewCheckpoint) {
  const std::string prefix = FreshDir("kill") + "/ckpt";
  auto version = [](int v, int shards) {
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (int i = 0; i < 6; ++i) {
      Tensor t = *Tensor::Allocate(DType::kInt32, Shape({4096 * (i + 1)}));
      for (auto& x : t.mutable_span<int32_t>()) x = v * 100 + i;
      tensors.emplace_back("t" + std::to_string(i), t);
    }
    tensors.emplace_back("version",
                         Tensor::Scalar<std::string>(std::to_string(v)));
    tensors.emplace_back("shards", Tensor::Scalar<int32_t>(shards));
    return tensors;
  };
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(SaveTensorBundle(prefix, version(0, 1 + i), 1 + i).ok());
  }
  ASSERT_TRUE(SaveTensorBundle(prefix, version(0, 1), 1).ok());
  // Kill delays span 0 .. 1.5 x the time a whole forked save takes here,
  // fork included: forking a sanitizer build can cost more than the save
  // itself (on one VM an in-process calibration never let a child finish).
  // The calibration children save under another folder.
  const std::string scratch = FreshDir("kill_calibration") + "/ckpt";
  int save_us = 0;
  for (int i = 0; i < 3; ++i) {
    const auto tensors = version(0, 1 + i);
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      _exit(SaveTensorBundle(scratch, tensors, 1 + i).ok() ? 0 : 1);
    }
    int wstatus = 0;
    waitpid(child, &wstatus, 0);
    ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    save_us = std::max<int>(
        save_us, std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  int current = 0, kept_old = 0, got_new = 0;
  std::mt19937 rng(1234);
  for (int round = 0; round < 100; ++round) {
    const int next = current + 1;
    const int shards = 1 + static_cast<int>(rng() % 4);
    const auto tensors = version(next, shards);
    const int delay_us = static_cast<int>(rng() % (save_us * 3 / 2 + 1));
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      absl::Status s = SaveTensorBundle(prefix, tensors, shards);
      _exit(s.ok() ? 0 : 1);
    }
    usleep(delay_us);
    kill(child, SIGKILL);
    int wstatus = 0;
    waitpid(child, &wstatus, 0);
    if (WIFEXITED(wstatus)) {
      ASSERT_EQ(WEXITSTATUS(wstatus), 0);
    }
    auto reader = TensorBundleReader::Open(prefix);
    ASSERT_TRUE(reader.ok()) << "round " << round << ": " << reader.status();
    auto v = (*reader)->Read("version");
    ASSERT_TRUE(v.ok()) << v.status();
    const int seen = std::stoi(*v->data<std::string>());
    ASSERT_TRUE(seen == current || seen == next) << seen;
    auto shards_seen = *(*reader)->Read("shards");
    auto expected = version(seen, *shards_seen.data<int32_t>());
    ExpectBundleHolds(prefix, expected);
    EXPECT_EQ((*reader)->num_shards(), *shards_seen.data<int32_t>());
    (seen == current ? kept_old : got_new)++;
    current = seen;
  }
  // The next save removes what the killed ones left behind: only the
  // checkpoint's own files remain.
  ASSERT_TRUE(SaveTensorBundle(prefix, version(current + 1, 2), 2).ok());
  const std::string dir = prefix.substr(0, prefix.rfind('/'));
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    left.push_back(entry.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"ckpt.data-00000-of-00002",
                                            "ckpt.data-00001-of-00002",
                                            "ckpt.index"}));
  // Both outcomes happen with these delays.
  EXPECT_GT(kept_old, 0);
  EXPECT_GT(got_new, 0);
  std::cout << "save " << save_us << " us; kept previous: " << kept_old
            << ", got new: " << got_new << "\n";
}

}  // namespace
}  // namespace graphrt
