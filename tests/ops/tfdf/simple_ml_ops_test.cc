// SimpleMLCreateModelResource / SimpleMLLoadModelFromPathWithHandle /
// SimpleMLInferenceOpWithHandle on hand-built YDF models with hand-computed
// predictions: Random Forest (averaged distributions and winner-take-all
// votes, regression), Gradient Boosted Trees (binomial, multinomial,
// squared error), every condition type, missing and out-of-vocabulary
// values, and the op's shape / state errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/registry.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/tfdf/ydf_test_model.h"

namespace graphrt::testing {
namespace {

using namespace ydf_test;  // NOLINT: test-only builders

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The op inputs for a batch: numerical [num, disc, num2], boolean [flag],
// categorical [color], categorical set [tags] (one set per example).
struct Batch {
  std::vector<float> numerical;
  std::vector<float> boolean;
  std::vector<int32_t> categorical;
  std::vector<std::vector<int32_t>> tags;

  std::vector<Tensor> Inputs() const {
    const int64_t n = static_cast<int64_t>(tags.size());
    std::vector<int32_t> values;
    std::vector<int64_t> dim1 = {0};
    std::vector<int64_t> dim2;
    for (int64_t e = 0; e <= n; ++e) dim2.push_back(e);
    for (const auto& set : tags) {
      values.insert(values.end(), set.begin(), set.end());
      dim1.push_back(static_cast<int64_t>(values.size()));
    }
    return {T_<float>({n, 3}, numerical),
            T_<float>({n, 1}, boolean),
            T_<int32_t>({n, 1}, categorical),
            T_<int32_t>({static_cast<int64_t>(values.size())}, values),
            T_<int64_t>({static_cast<int64_t>(dim1.size())}, dim1),
            T_<int64_t>({n + 1}, dim2)};
  }
};

// The examples the tree tests walk through (see the expected values).
Batch FiveExamples() {
  Batch b;
  b.numerical = {1, 0, 0, kNaN, kNaN, kNaN, 0, 2, 5, 2, 1.5f, 1, 0.4f, 5, 0};
  b.boolean = {1, kNaN, 0, 1, 1};
  b.categorical = {1, -1, 7, 3, 2};
  b.tags = {{4}, {-1}, {}, {1, 3}, {9}};
  return b;
}

// Creates a handle, loads `dir` into it, returns the handle.
absl::StatusOr<Tensor> LoadHandle(const std::string& dir,
                                  const std::string& prefix = "") {
  OpTest create("SimpleMLCreateModelResource");
  create.Attr("container", "").Attr("shared_name", "model");
  auto handle = create.Run({});
  if (!handle.ok()) return handle.status();
  OpTest load("SimpleMLLoadModelFromPathWithHandle");
  load.Attr("file_prefix", prefix);
  auto loaded = load.Run({(*handle)[0], T_<std::string>({}, {dir})});
  if (!loaded.ok()) return loaded.status();
  return (*handle)[0];
}

absl::StatusOr<std::vector<Tensor>> Infer(const Tensor& handle,
                                          std::vector<Tensor> inputs,
                                          int64_t dense_output_dim) {
  OpTest infer("SimpleMLInferenceOpWithHandle");
  infer.Attr("dense_output_dim", dense_output_dim);
  inputs.push_back(handle);
  return infer.Run(inputs);
}

void ExpectRows(const Tensor& t, const std::vector<std::vector<float>>& rows) {
  ASSERT_EQ(t.rank(), 2);
  ASSERT_EQ(t.dim(0), static_cast<int64_t>(rows.size()));
  for (size_t r = 0; r < rows.size(); ++r) {
    ASSERT_EQ(t.dim(1), static_cast<int64_t>(rows[r].size()));
    for (size_t c = 0; c < rows[r].size(); ++c) {
      EXPECT_NEAR(t.data<float>()[r * rows[r].size() + c], rows[r][c], 1e-6)
          << "row " << r << " column " << c;
    }
  }
}

// Two trees over every feature group:
//   tree 0: num >= 0.5 (NA -> true) ? (color in bitmap {red, blue} ? C : B)
//                                   : A
//   tree 1: flag (NA -> false) ? (tags contains {2, 4} (NA -> true) ? G : F)
//                              : (num2 is missing ? E : D)
TestModel RandomForest(bool winner_take_all) {
  TestModel m;
  m.header = Header("RANDOM_FOREST", mp::CLASSIFICATION, 5);
  m.data_spec = SharedDataSpec();
  m.rf_header.emplace();
  m.rf_header->set_num_trees(2);
  m.rf_header->set_num_node_shards(1);
  m.rf_header->set_winner_take_all_inference(winner_take_all);
  m.rf_header->set_node_format("BLOB_SEQUENCE");
  m.nodes = {
      Higher(0, 0.5f, true),
      ClassLeaf({0, 3, 1}, 1),  // A [.75, .25]
      ContainsBitmap(2, std::string(1, 0x0A), false),
      ClassLeaf({0, 1, 1}, 1),  // B [.5, .5]
      ClassLeaf({0, 0, 2}, 2),  // C [0, 1]
      TrueValue(1, false),
      IsMissing(7),
      ClassLeaf({0, 2, 0}, 1),  // D [1, 0]
      ClassLeaf({0, 1, 3}, 2),  // E [.25, .75]
      Contains(3, {4, 2}, true),
      ClassLeaf({0, 1, 1}, 1),  // F [.5, .5]
      ClassLeaf({0, 0, 1}, 2),  // G [0, 1]
  };
  return m;
}

// RandomForest(false) on FiveExamples(): e0: C, G. e1 (all missing): B, E.
// e2 (color 7 = OOV, empty set): A, D. e3: C, F. e4 (tag 9 = OOV): A, F.
const std::vector<std::vector<float>> kAveragedRows = {{0, 1},
                                                       {0.375f, 0.625f},
                                                       {0.875f, 0.125f},
                                                       {0.25f, 0.75f},
                                                       {0.625f, 0.375f}};

TEST(SimpleMlOpsTest, RandomForestAveragesDistributions) {
  const std::string dir =
      WriteModel(RandomForest(false), TempDir("rf_average"));
  auto handle = LoadHandle(dir);
  ASSERT_TRUE(handle.ok()) << handle.status();
  auto out = Infer(*handle, FiveExamples().Inputs(), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectRows((*out)[0], kAveragedRows);
  EXPECT_EQ(Values<std::string>((*out)[1]),
            (std::vector<std::string>{"no", "yes"}));
}

TEST(SimpleMlOpsTest, RandomForestWinnerTakeAllVotes) {
  const std::string dir = WriteModel(RandomForest(true), TempDir("rf_votes"));
  auto handle = LoadHandle(dir);
  ASSERT_TRUE(handle.ok()) << handle.status();
  auto out = Infer(*handle, FiveExamples().Inputs(), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectRows((*out)[0], {{0, 1}, {0.5f, 0.5f}, {1, 0}, {0.5f, 0.5f}, {1, 0}});
}

TEST(SimpleMlOpsTest, TfRecordShardsAndFilePrefix) {
  TestModel m = RandomForest(false);
  m.rf_header->set_node_format("TFE_RECORDIO");
  m.rf_header->set_num_node_shards(3);
  m.num_shards = 3;
  m.file_prefix = "a1b2_";
  const std::string dir = WriteModel(m, TempDir("rf_tfrecord"));
  for (const std::string& prefix : {std::string("a1b2_"), std::string()}) {
    // An empty prefix is detected from the single *data_spec.pb.
    auto handle = LoadHandle(dir, prefix);
    ASSERT_TRUE(handle.ok()) << handle.status();
    auto out = Infer(*handle, FiveExamples().Inputs(), 2);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectRows((*out)[0], kAveragedRows);
  }
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TEST(SimpleMlOpsTest, GbtBinomialDiscretizedAndOblique) {
  TestModel m;
  m.header = Header("GRADIENT_BOOSTED_TREES", mp::CLASSIFICATION, 5);
  m.data_spec = SharedDataSpec();
  m.gbt_header.emplace();
  m.gbt_header->set_num_trees(2);
  m.gbt_header->set_num_node_shards(1);
  m.gbt_header->set_loss(gbt::BINOMIAL_LOG_LIKELIHOOD);
  m.gbt_header->add_initial_predictions(0.5f);
  m.gbt_header->set_node_format("BLOB_SEQUENCE");
  m.nodes = {
      // bucket(disc) = number of boundaries {1, 2, 3} <= disc.
      DiscretizedHigher(4, 2, false),
      ValueLeaf(-1),
      ValueLeaf(2),
      // num - 2 * num2 >= 0.5, missing -> true.
      Oblique({0, 7}, {1, -2}, 0.5f, true),
      ValueLeaf(-0.5f),
      ValueLeaf(0.25f),
  };
  const std::string dir = WriteModel(m, TempDir("gbt_binomial"));
  auto handle = LoadHandle(dir);
  ASSERT_TRUE(handle.ok()) << handle.status();
  auto out = Infer(*handle, FiveExamples().Inputs(), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  // e0: disc 0 -> -1; 1 - 0 >= .5 -> .25. e1: NaN -> -1, NaN -> .25.
  // e2: disc 2 -> bucket 2 -> 2; 0 - 10 -> -.5. e3: disc 1.5 -> bucket 1
  // -> -1; 2 - 2 = 0 -> -.5. e4: disc 5 -> 2; .4 -> -.5.
  const std::vector<float> logits = {-0.25f, -0.25f, 2.0f, -1.0f, 2.0f};
  std::vector<std::vector<float>> rows;
  for (float l : logits) rows.push_back({1 - Sigmoid(l), Sigmoid(l)});
  ExpectRows((*out)[0], rows);
}

TEST(SimpleMlOpsTest, GbtMultinomialSoftmax) {
  TestModel m;
  m.header = Header("GRADIENT_BOOSTED_TREES", mp::CLASSIFICATION, 8);
  m.data_spec = SharedDataSpec();
  m.gbt_header.emplace();
  m.gbt_header->set_num_trees(6);
  m.gbt_header->set_num_node_shards(1);
  m.gbt_header->set_loss(gbt::MULTINOMIAL_LOG_LIKELIHOOD);
  m.gbt_header->set_num_trees_per_iter(3);
  for (float v : {0.0f, 0.5f, -0.5f}) m.gbt_header->add_initial_predictions(v);
  m.gbt_header->set_node_format("BLOB_SEQUENCE");
  // Iteration 1: class k gets (num >= 1 ? k : 0); iteration 2: +1 class 0.
  for (int k = 0; k < 3; ++k) {
    m.nodes.push_back(Higher(0, 1.0f, false));
    m.nodes.push_back(ValueLeaf(0));
    m.nodes.push_back(ValueLeaf(static_cast<float>(k)));
  }
  for (float v : {1.0f, 0.0f, 0.0f}) m.nodes.push_back(ValueLeaf(v));
  const std::string dir = WriteModel(m, TempDir("gbt_multinomial"));
  auto handle = LoadHandle(dir);
  ASSERT_TRUE(handle.ok()) << handle.status();
  Batch b;
  b.numerical = {0, 0, 0, 2, 0, 0};
  b.boolean = {0, 0};
  b.categorical = {0, 0};
  b.tags = {{}, {}};
  auto out = Infer(*handle, b.Inputs(), 3);
  ASSERT_TRUE(out.ok()) << out.status();
  auto softmax = [](std::vector<float> x) {
    float total = 0;
    for (float& v : x) total += (v = std::exp(v));
    for (float& v : x) v /= total;
    return x;
  };
  ExpectRows((*out)[0], {softmax({1, 0.5f, -0.5f}), softmax({1, 1.5f, 1.5f})});
  EXPECT_EQ(Values<std::string>((*out)[1]),
            (std::vector<std::string>{"1", "2", "3"}));
}

TEST(SimpleMlOpsTest, RegressionForests) {
  TestModel gbt_model;
  gbt_model.header = Header("GRADIENT_BOOSTED_TREES", mp::REGRESSION, 6);
  gbt_model.data_spec = SharedDataSpec();
  gbt_model.gbt_header.emplace();
  gbt_model.gbt_header->set_num_trees(1);
  gbt_model.gbt_header->set_num_node_shards(1);
  gbt_model.gbt_header->set_loss(gbt::SQUARED_ERROR);
  gbt_model.gbt_header->add_initial_predictions(100);
  gbt_model.gbt_header->set_node_format("BLOB_SEQUENCE");
  gbt_model.nodes = {Higher(0, 1, false), ValueLeaf(10), ValueLeaf(20)};

  TestModel rf_model;
  rf_model.header = Header("RANDOM_FOREST", mp::REGRESSION, 6);
  rf_model.data_spec = SharedDataSpec();
  rf_model.rf_header.emplace();
  rf_model.rf_header->set_num_trees(2);
  rf_model.rf_header->set_num_node_shards(1);
  rf_model.rf_header->set_node_format("BLOB_SEQUENCE");
  rf_model.nodes = {Higher(0, 1, false), ValueLeaf(10), ValueLeaf(20),
                    ValueLeaf(4)};

  Batch b;
  b.numerical = {0, 0, 0, 3, 0, 0};
  b.boolean = {0, 0};
  b.categorical = {0, 0};
  b.tags = {{}, {}};
  auto gbt_handle = LoadHandle(WriteModel(gbt_model, TempDir("gbt_reg")));
  ASSERT_TRUE(gbt_handle.ok()) << gbt_handle.status();
  auto out = Infer(*gbt_handle, b.Inputs(), 1);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectRows((*out)[0], {{110}, {120}});
  EXPECT_EQ(Values<std::string>((*out)[1]), (std::vector<std::string>{""}));

  auto rf_handle = LoadHandle(WriteModel(rf_model, TempDir("rf_reg")));
  ASSERT_TRUE(rf_handle.ok()) << rf_handle.status();
  out = Infer(*rf_handle, b.Inputs(), 1);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectRows((*out)[0], {{7}, {12}});
}

TEST(SimpleMlOpsTest, UnusedFeatureGroupsMayBeEmpty) {
  TestModel m;
  m.header = Header("GRADIENT_BOOSTED_TREES", mp::REGRESSION, 6);
  m.header.clear_input_features();
  m.header.add_input_features(0);
  m.data_spec = SharedDataSpec();
  m.gbt_header.emplace();
  m.gbt_header->set_num_trees(1);
  m.gbt_header->set_num_node_shards(1);
  m.gbt_header->set_loss(gbt::SQUARED_ERROR);
  m.gbt_header->add_initial_predictions(0);
  m.gbt_header->set_node_format("BLOB_SEQUENCE");
  m.nodes = {Higher(0, 1, false), ValueLeaf(-1), ValueLeaf(1)};
  auto handle = LoadHandle(WriteModel(m, TempDir("only_numerical")));
  ASSERT_TRUE(handle.ok()) << handle.status();
  // What TF-DF's Python wrapper feeds for unused groups: empty tensors.
  auto out = Infer(*handle,
                   {T_<float>({3, 1}, {0, 1, 2}), T_<float>({0, 0}, {}),
                    T_<int32_t>({0, 0}, {}), T_<int32_t>({0}, {}),
                    T_<int64_t>({1}, {0}), T_<int64_t>({1}, {0})},
                   1);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectRows((*out)[0], {{-1}, {1}, {1}});
}

TEST(SimpleMlOpsTest, SharedNameSharesTheModel) {
  const std::string dir = WriteModel(RandomForest(false), TempDir("shared"));
  ResourceManager resources;
  auto run =
      [&resources](
          const std::string& op, tensorflow::NodeDef node,
          std::vector<Tensor> inputs) -> absl::StatusOr<std::vector<Tensor>> {
    node.set_op(op);
    KernelInit init{node, static_cast<int>(inputs.size())};
    auto kernel = BuiltinOps().Find(op)(init);
    if (!kernel.ok()) return kernel.status();
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : inputs) ptrs.push_back(&t);
    std::vector<Tensor> outputs;
    KernelContext ctx(ptrs, &outputs, &resources);
    absl::Status s = (*kernel)->Run(ctx);
    if (!s.ok()) return s;
    return outputs;
  };
  tensorflow::NodeDef create;
  create.set_name("create");
  (*create.mutable_attr())["shared_name"].set_s("forest");
  auto a = run("SimpleMLCreateModelResource", create, {});
  create.set_name("create_again");
  auto b = run("SimpleMLCreateModelResource", create, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)[0].data<ResourceHandle>()->resource,
            (*b)[0].data<ResourceHandle>()->resource);
  EXPECT_EQ((*a)[0].data<ResourceHandle>()->name, "/forest");
  tensorflow::NodeDef load;
  load.set_name("load");
  ASSERT_TRUE(run("SimpleMLLoadModelFromPathWithHandle", load,
                  {(*a)[0], T_<std::string>({}, {dir})})
                  .ok());
  // Loaded through one handle, visible through the other.
  auto out = Infer((*b)[0], FiveExamples().Inputs(), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(resources.Lookup("/forest")->DebugString().find("2 trees"),
            std::string::npos);
}

class SimpleMlOpsErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto h = LoadHandle(WriteModel(RandomForest(false), TempDir("errors")));
    ASSERT_TRUE(h.ok()) << h.status();
    handle_ = *h;
  }
  Tensor handle_;
};

TEST_F(SimpleMlOpsErrorTest, WrongDenseOutputDim) {
  auto out = Infer(handle_, FiveExamples().Inputs(), 3);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("dense_output_dim\"=3"),
            std::string::npos)
      << out.status();
}

TEST_F(SimpleMlOpsErrorTest, InconsistentBatch) {
  std::vector<Tensor> in = FiveExamples().Inputs();
  in[1] = T_<float>({4, 1}, {0, 0, 0, 0});
  auto out = Infer(handle_, in, 2);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("inconsistent"), std::string::npos)
      << out.status();
}

TEST_F(SimpleMlOpsErrorTest, WrongColumnCountDtypeAndRank) {
  std::vector<Tensor> in = FiveExamples().Inputs();
  in[0] = T_<float>({5, 2}, std::vector<float>(10, 0));
  EXPECT_FALSE(Infer(handle_, in, 2).ok());
  in = FiveExamples().Inputs();
  in[2] = T_<int64_t>({5, 1}, {0, 0, 0, 0, 0});
  EXPECT_FALSE(Infer(handle_, in, 2).ok());
  in = FiveExamples().Inputs();
  in[0] = T_<float>({15}, std::vector<float>(15, 0));
  EXPECT_FALSE(Infer(handle_, in, 2).ok());
}

TEST_F(SimpleMlOpsErrorTest, BadRowSplits) {
  std::vector<Tensor> in = FiveExamples().Inputs();
  in[4] = T_<int64_t>({6}, {0, 1, 2, 100, 101, 102});  // past the values
  EXPECT_FALSE(Infer(handle_, in, 2).ok());
  in[4] = T_<int64_t>({6}, {0, 2, 1, 3, 4, 5});  // decreasing
  EXPECT_FALSE(Infer(handle_, in, 2).ok());
  in[4] = T_<int64_t>({3}, {0, 1, 2});  // too short
  EXPECT_FALSE(Infer(handle_, in, 2).ok());
  in = FiveExamples().Inputs();
  in[5] = T_<int64_t>({6}, {0, 2, 2, 3, 4, 5});  // not uniform
  EXPECT_FALSE(Infer(handle_, in, 2).ok());
}

TEST(SimpleMlOpsStateTest, InferenceBeforeLoadAndBadHandles) {
  OpTest create("SimpleMLCreateModelResource");
  create.Attr("shared_name", "empty");
  auto handle = create.Run({});
  ASSERT_TRUE(handle.ok());
  auto out = Infer((*handle)[0], FiveExamples().Inputs(), 2);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);

  OpTest load("SimpleMLLoadModelFromPathWithHandle");
  auto s = load.Run({T_<float>({}, {0}), T_<std::string>({}, {"/x"})});
  EXPECT_FALSE(s.ok());
  OpTest load2("SimpleMLLoadModelFromPathWithHandle");
  s = load2.Run({(*handle)[0], T_<std::string>({2}, {"/a", "/b"})});
  EXPECT_FALSE(s.ok());
  OpTest load3("SimpleMLLoadModelFromPathWithHandle");
  load3.Attr("output_types", std::vector<std::string>{"PROBABILITIES"});
  EXPECT_FALSE(load3.Create(2).ok());
  OpTest infer("SimpleMLInferenceOpWithHandle");
  infer.Attr("dense_output_dim", int64_t{0});
  EXPECT_FALSE(infer.Create(7).ok());
}

TEST(SimpleMlOpsStateTest, FailedLoadKeepsThePreviousModel) {
  const std::string dir = WriteModel(RandomForest(false), TempDir("keep"));
  auto handle = LoadHandle(dir);
  ASSERT_TRUE(handle.ok()) << handle.status();
  OpTest load("SimpleMLLoadModelFromPathWithHandle");
  EXPECT_FALSE(
      load.Run({*handle, T_<std::string>({}, {dir + "/missing"})}).ok());
  EXPECT_TRUE(Infer(*handle, FiveExamples().Inputs(), 2).ok());
}

}  // namespace
}  // namespace graphrt::testing
