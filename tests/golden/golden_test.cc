// Golden tests: graphrt's outputs against TF.js 4.22's on the same inputs.
//
// * Bundled models (models/): goldens are made at test set-up by
//   tools/golden/make_goldens.sh into $GRAPHRT_GOLDEN_DIR/<model>.json.
//   When GRAPHRT_GOLDEN_DIR is set, a missing golden is a failure; when it
//   is unset (a plain `bazel test`), these cases are skipped with a note.
// * ../shared/fixtures/tfjs (when $GRAPHRT_SHARED is set): each fixture's
//   golden.json, which also holds its inputs.
//
// Floats compare with rtol 1e-3 / atol 1e-4, ints and strings exactly.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "runtime/model.h"
#include "tools/model_inputs.h"
#include "tools/tensor_json.h"

namespace graphrt {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Loads `model_dir`, feeds the golden's inputs (converted to the declared
// dtypes), and compares every golden output.
void CheckGolden(const std::string& model_dir, const std::string& golden,
                 int threads) {
  SCOPED_TRACE(model_dir + " vs " + golden +
               " threads=" + std::to_string(threads));
  ModelOptions options;
  options.threads = threads;
  auto model = Model::Load(model_dir, options);
  ASSERT_TRUE(model.ok()) << model.status();
  auto feeds = ReadModelInputs(golden, **model);
  ASSERT_TRUE(feeds.ok()) << feeds.status();
  auto expected = ReadTensorRecords(golden, "outputs");
  ASSERT_TRUE(expected.ok()) << expected.status();
  std::vector<std::string> names;
  for (const auto& e : *expected) names.push_back(e.name);
  auto outputs = (*model)->Run(*feeds, names);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), expected->size());
  for (size_t i = 0; i < expected->size(); ++i) {
    std::string diff = CompareTensors((*outputs)[i], (*expected)[i].value);
    EXPECT_EQ(diff, "") << "output '" << (*expected)[i].name << "'";
  }
}

TEST(GoldenTest, BundledModels) {
  std::string dir = Env("GRAPHRT_GOLDEN_DIR");
  if (dir.empty())
    GTEST_SKIP() << "GRAPHRT_GOLDEN_DIR unset: run tools/setup.sh test";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator("models")) {
    if (!fs::exists(entry.path() / "model.json")) continue;
    std::string name = entry.path().filename().string();
    std::string golden = dir + "/" + name + ".json";
    ASSERT_TRUE(fs::exists(golden))
        << "no golden for models/" << name << " at " << golden;
    for (int threads : {1, 2})
      CheckGolden(entry.path().string(), golden, threads);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

class SharedFixtureTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedFixtureTest, MatchesTfjs) {
  std::string shared = Env("GRAPHRT_SHARED");
  if (shared.empty() || !fs::exists(shared + "/fixtures/tfjs")) {
    GTEST_SKIP() << "../shared is absent";
  }
  std::string dir = shared + "/fixtures/tfjs/" + GetParam();
  for (int threads : {1, 2}) CheckGolden(dir, dir + "/golden.json", threads);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SharedFixtureTest,
                         ::testing::Values("dense_model", "rn_graph_model",
                                           "load_predict_graph_model",
                                           "hash_table_v2"));

}  // namespace
}  // namespace graphrt
