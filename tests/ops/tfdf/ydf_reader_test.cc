// The YDF model reader (loader/ydf/) on hand-built and corrupted model
// folders: record containers, missing files, structural checks, and every
// truncation / byte flip of a node shard giving a clean error.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/ydf/model_reader.h"
#include "loader/ydf/record_files.h"
#include "tests/ops/tfdf/ydf_test_model.h"

namespace graphrt::testing {
namespace {

using namespace ydf_test;  // NOLINT: test-only builders

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

TestModel SmallGbt() {
  TestModel m;
  m.header = Header("GRADIENT_BOOSTED_TREES", mp::REGRESSION, 6);
  m.data_spec = SharedDataSpec();
  m.gbt_header.emplace();
  m.gbt_header->set_num_trees(2);
  m.gbt_header->set_num_node_shards(1);
  m.gbt_header->set_loss(gbt::SQUARED_ERROR);
  m.gbt_header->add_initial_predictions(1);
  m.gbt_header->set_node_format("BLOB_SEQUENCE");
  m.nodes = {Higher(0, 1, false), ValueLeaf(10), Contains(2, {1}, false),
             ValueLeaf(20),       ValueLeaf(30), ValueLeaf(5)};
  return m;
}

TEST(YdfRecordFilesTest, BlobSequenceRoundTripAndCorruption) {
  const std::string data = ydf::WriteBlobSequence({"ab", "", "cde"});
  auto records = ydf::ReadBlobSequence(data, "f");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(*records, (std::vector<absl::string_view>{"ab", "", "cde"}));
  EXPECT_EQ(ydf::ReadBlobSequence("XS\0\0\0\0\0\0", "f").status().code(),
            absl::StatusCode::kDataLoss);
  std::string v1 = data;
  v1[2] = 1;
  EXPECT_EQ(ydf::ReadBlobSequence(v1, "f").status().code(),
            absl::StatusCode::kUnimplemented);
  std::string huge = data;
  huge[8] = '\xff';  // first record length 255 > what is left
  auto bad = ydf::ReadBlobSequence(huge, "shard");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(bad.status().message().find("shard: corrupt record at byte 8"),
            std::string::npos)
      << bad.status();
  for (size_t n = 9; n < data.size(); ++n) {
    if (n == 14 || n == 18) continue;  // record boundaries
    EXPECT_FALSE(ydf::ReadBlobSequence(data.substr(0, n), "f").ok()) << n;
  }
}

TEST(YdfRecordFilesTest, TfRecordRoundTripAndChecksums) {
  const std::string data = ydf::WriteTfRecords({"hello", "x"});
  auto records = ydf::ReadTfRecords(data, "f");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(*records, (std::vector<absl::string_view>{"hello", "x"}));
  for (size_t i = 0; i < data.size(); ++i) {
    std::string flipped = data;
    flipped[i] ^= 0x20;
    EXPECT_FALSE(ydf::ReadTfRecords(flipped, "f").ok()) << "byte " << i;
  }
  EXPECT_FALSE(ydf::ReadTfRecords(data.substr(0, data.size() - 1), "f").ok());
}

TEST(YdfModelReaderTest, ReadsTheForest) {
  const std::string dir = WriteModel(SmallGbt(), TempDir("reader_ok"));
  auto forest = ydf::LoadYdfModel(dir);
  ASSERT_TRUE(forest.ok()) << forest.status();
  EXPECT_EQ(forest->num_trees, 2);
  EXPECT_EQ(forest->nodes.size(), 6u);
  EXPECT_EQ(forest->roots, (std::vector<int32_t>{0, 5}));
  EXPECT_EQ(forest->nodes[0].positive_child, 2);
  EXPECT_EQ(forest->nodes[2].positive_child, 4);
  EXPECT_EQ(forest->num_numerical, 3);
  EXPECT_EQ(forest->num_categorical_set, 1);
}

TEST(YdfModelReaderTest, MissingFilesAndFolders) {
  EXPECT_EQ(ydf::LoadYdfModel("/nonexistent/model").status().code(),
            absl::StatusCode::kNotFound);
  const std::string dir = WriteModel(SmallGbt(), TempDir("reader_missing"));
  std::filesystem::remove(dir + "/nodes-00000-of-00001");
  auto s = ydf::LoadYdfModel(dir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("nodes-00000-of-00001"), std::string::npos) << s;
  const std::string empty = TempDir("reader_empty");
  EXPECT_EQ(ydf::LoadYdfModel(empty).status().code(),
            absl::StatusCode::kNotFound);
  WriteAll(empty + "/assets.zip", "PK");
  EXPECT_EQ(ydf::LoadYdfModel(empty + "/assets.zip").status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(YdfModelReaderTest, StructuralErrors) {
  struct Case {
    const char* name;
    void (*mutate)(TestModel*);
  };
  const Case cases[] = {
      {"more trees than records",
       [](TestModel* m) { m->gbt_header->set_num_trees(7); }},
      {"records left over",
       [](TestModel* m) { m->gbt_header->set_num_trees(1); }},
      {"tree cut short",
       [](TestModel* m) {
         m->nodes.pop_back();
         m->nodes.pop_back();
       }},
      {"condition on a non-input column",
       [](TestModel* m) { m->nodes[0] = Higher(6, 1, false); }},
      {"condition on a column that does not exist",
       [](TestModel* m) { m->nodes[0] = Higher(99, 1, false); }},
      {"Higher on a categorical feature",
       [](TestModel* m) { m->nodes[0] = Higher(2, 1, false); }},
      {"Contains on a numerical feature",
       [](TestModel* m) { m->nodes[2] = Contains(0, {1}, false); }},
      {"DiscretizedHigher on a plain numerical feature",
       [](TestModel* m) { m->nodes[0] = DiscretizedHigher(0, 1, false); }},
      {"oblique weights mismatch",
       [](TestModel* m) {
         m->nodes[0] = Oblique({0, 7}, {1}, 0, false);
       }},
      {"condition without a type",
       [](TestModel* m) {
         m->nodes[0].mutable_condition()->clear_condition();
       }},
      {"leaf without output",
       [](TestModel* m) { m->nodes[1].clear_regressor(); }},
      {"unsupported input type",
       [](TestModel* m) { m->header.add_input_features(9); }},
      {"input feature out of range",
       [](TestModel* m) { m->header.add_input_features(-1); }},
      {"label out of range",
       [](TestModel* m) { m->header.set_label_col_idx(50); }},
      {"negative shard count",
       [](TestModel* m) { m->gbt_header->set_num_node_shards(-1); }},
      {"unknown node format",
       [](TestModel* m) { m->gbt_header->set_node_format("SSTABLE"); }},
      {"unknown model",
       [](TestModel* m) { m->header.set_name("ISOLATION_FOREST"); }},
      {"binomial loss on regression",
       [](TestModel* m) {
         m->gbt_header->set_loss(gbt::BINOMIAL_LOG_LIKELIHOOD);
       }},
      {"missing initial prediction",
       [](TestModel* m) { m->gbt_header->clear_initial_predictions(); }},
      {"no loss", [](TestModel* m) { m->gbt_header->clear_loss(); }},
  };
  for (const Case& c : cases) {
    TestModel m = SmallGbt();
    c.mutate(&m);
    const std::string dir = TempDir("reader_structural");
    if (m.gbt_header->num_node_shards() < 0) m.num_shards = 1;
    WriteModel(m, dir);
    auto forest = ydf::LoadYdfModel(dir);
    EXPECT_FALSE(forest.ok()) << c.name;
  }
}

TEST(YdfModelReaderTest, ClassificationLeafChecks) {
  TestModel m;
  m.header = Header("RANDOM_FOREST", mp::CLASSIFICATION, 5);
  m.data_spec = SharedDataSpec();
  m.rf_header.emplace();
  m.rf_header->set_num_trees(1);
  m.rf_header->set_num_node_shards(1);
  m.rf_header->set_node_format("BLOB_SEQUENCE");
  m.rf_header->set_winner_take_all_inference(true);
  m.nodes = {ClassLeaf({0, 1, 1}, 3)};  // class 3 of 2
  EXPECT_FALSE(ydf::LoadYdfModel(WriteModel(m, TempDir("leaf_a"))).ok());
  m.rf_header->set_winner_take_all_inference(false);
  m.nodes = {ClassLeaf({0, 1}, 1)};  // distribution of the wrong size
  EXPECT_FALSE(ydf::LoadYdfModel(WriteModel(m, TempDir("leaf_b"))).ok());
  m.nodes = {ValueLeaf(1)};  // regression leaf in a classifier
  EXPECT_FALSE(ydf::LoadYdfModel(WriteModel(m, TempDir("leaf_c"))).ok());
}

TEST(YdfModelReaderTest, CorruptFilesNeverCrash) {
  const std::string dir = WriteModel(SmallGbt(), TempDir("reader_fuzz"));
  const std::string shard = dir + "/nodes-00000-of-00001";
  const std::string good = ReadAll(shard);
  for (size_t n = 0; n < good.size(); ++n) {
    WriteAll(shard, good.substr(0, n));
    EXPECT_FALSE(ydf::LoadYdfModel(dir).ok()) << "truncated to " << n;
  }
  for (size_t i = 0; i < good.size(); ++i) {
    for (unsigned char bit : {0x01, 0x80}) {
      std::string flipped = good;
      flipped[i] ^= static_cast<char>(bit);
      WriteAll(shard, flipped);
      (void)ydf::LoadYdfModel(dir);  // any status, no crash
    }
  }
  WriteAll(shard, good);
  for (const char* file :
       {"header.pb", "data_spec.pb", "gradient_boosted_trees_header.pb"}) {
    const std::string path = dir + "/" + file;
    const std::string saved = ReadAll(path);
    WriteAll(path, "\xff\xff\xff");
    EXPECT_FALSE(ydf::LoadYdfModel(dir).ok()) << file;
    WriteAll(path, saved);
  }
  EXPECT_TRUE(ydf::LoadYdfModel(dir).ok());
}

}  // namespace
}  // namespace graphrt::testing
