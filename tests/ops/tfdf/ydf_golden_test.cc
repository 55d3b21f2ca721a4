// graphrt's SimpleMLInferenceOpWithHandle against Yggdrasil Decision
// Forests itself: models trained and saved by YDF (the ydf-training npm
// package, WebAssembly build of YDF) with YDF's predictions on a test CSV,
// made by tools/tfdf/make_ydf_goldens.sh into
// $GRAPHRT_CACHE/tfdf-ydf/goldens (default ~/.cache/graphrt). Skips when
// the goldens are absent. Predictions must match within 1e-5.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/ydf/abstract_model.pb.h"
#include "proto/ydf/data_spec.pb.h"
#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

namespace fs = std::filesystem;
namespace ds = yggdrasil_decision_forests::dataset::proto;
namespace mp = yggdrasil_decision_forests::model::proto;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path GoldenDir() {
  const char* cache = std::getenv("GRAPHRT_CACHE");
  const char* home = std::getenv("HOME");
  fs::path base =
      cache != nullptr && *cache != '\0'
          ? fs::path(cache)
          : fs::path(home != nullptr ? home : "/") / ".cache" / "graphrt";
  return base / "tfdf-ydf" / "goldens";
}

// The op's feature inputs for the CSV rows, as TF-DF's Python wrapper
// builds them: the model's input features in header order, split by type;
// categorical strings through the dataspec dictionary ("" = missing, an
// unknown string = 0, out of vocabulary).
std::vector<Tensor> FeatureInputs(const mp::AbstractModel& header,
                                  const ds::DataSpecification& spec,
                                  const std::string& csv, int64_t* rows_out) {
  std::vector<std::string> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
  std::vector<std::string> names = absl::StrSplit(lines[0], ',');
  const int64_t rows = static_cast<int64_t>(lines.size()) - 1;
  std::vector<std::vector<std::string>> cells;
  for (int64_t r = 0; r < rows; ++r) {
    cells.push_back(absl::StrSplit(lines[r + 1], ','));
  }
  std::vector<float> numerical;
  std::vector<int32_t> categorical;
  int num_numerical = 0;
  int num_categorical = 0;
  std::vector<std::pair<int, const ds::Column*>> num_cols, cat_cols;
  for (int f : header.input_features()) {
    const ds::Column& c = spec.columns(f);
    const int csv_col = static_cast<int>(
        std::find(names.begin(), names.end(), c.name()) - names.begin());
    EXPECT_LT(csv_col, static_cast<int>(names.size())) << c.name();
    if (c.type() == ds::NUMERICAL) {
      num_cols.push_back({csv_col, &c});
    } else {
      EXPECT_EQ(c.type(), ds::CATEGORICAL) << c.name();
      cat_cols.push_back({csv_col, &c});
    }
  }
  num_numerical = static_cast<int>(num_cols.size());
  num_categorical = static_cast<int>(cat_cols.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (const auto& [col, c] : num_cols) {
      float v = std::numeric_limits<float>::quiet_NaN();
      if (!cells[r][col].empty()) {
        EXPECT_TRUE(absl::SimpleAtof(cells[r][col], &v));
      }
      numerical.push_back(v);
    }
    for (const auto& [col, c] : cat_cols) {
      const std::string& s = cells[r][col];
      int32_t v = -1;
      if (!s.empty()) {
        auto it = c->categorical().items().find(s);
        v = it == c->categorical().items().end()
                ? 0
                : static_cast<int32_t>(it->second.index());
      }
      categorical.push_back(v);
    }
  }
  *rows_out = rows;
  return {T_<float>({rows, num_numerical}, numerical),
          T_<float>({0, 0}, {}),
          T_<int32_t>({rows, num_categorical}, categorical),
          T_<int32_t>({0}, {}),
          T_<int64_t>({1}, {0}),
          T_<int64_t>({1}, {0})};
}

TEST(YdfGoldenTest, MatchesYdfPredictions) {
  const fs::path goldens = GoldenDir();
  if (!fs::is_directory(goldens)) {
    GTEST_SKIP() << goldens
                 << " is absent; make it with "
                    "`bash tools/tfdf/make_ydf_goldens.sh`";
  }
  int models = 0;
  for (const auto& entry : fs::directory_iterator(goldens)) {
    if (!entry.is_directory()) continue;  // .key
    const fs::path dir = entry.path();
    SCOPED_TRACE(dir.filename().string());
    mp::AbstractModel header;
    ds::DataSpecification spec;
    ASSERT_TRUE(header.ParseFromString(ReadAll(dir / "model" / "header.pb")));
    ASSERT_TRUE(spec.ParseFromString(ReadAll(dir / "model" / "data_spec.pb")));
    const nlohmann::json golden =
        nlohmann::json::parse(ReadAll(dir / "predictions.json"));
    const std::vector<double> expected = golden["predictions"];

    OpTest create("SimpleMLCreateModelResource");
    create.Attr("shared_name", dir.filename().string());
    auto handle = create.Run({});
    ASSERT_TRUE(handle.ok()) << handle.status();
    OpTest load("SimpleMLLoadModelFromPathWithHandle");
    auto loaded = load.Run(
        {(*handle)[0], T_<std::string>({}, {(dir / "model").string()})});
    ASSERT_TRUE(loaded.ok()) << loaded.status();

    int64_t rows = 0;
    std::vector<Tensor> inputs =
        FeatureInputs(header, spec, ReadAll(dir / "test.csv"), &rows);
    inputs.push_back((*handle)[0]);
    int64_t dim = 1;
    if (header.task() == mp::CLASSIFICATION) {
      dim = spec.columns(header.label_col_idx())
                .categorical()
                .number_of_unique_values() -
            1;
    }
    OpTest infer("SimpleMLInferenceOpWithHandle");
    infer.Attr("dense_output_dim", dim);
    auto out = infer.Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    const float* got = (*out)[0].data<float>();
    ASSERT_EQ((*out)[0].num_elements(), rows * dim);
    if (dim == 2 && static_cast<int64_t>(expected.size()) == rows) {
      // Binary classification: YDF returns P(positive).
      for (int64_t r = 0; r < rows; ++r) {
        EXPECT_NEAR(got[2 * r + 1], expected[r], 1e-5) << "row " << r;
        EXPECT_NEAR(got[2 * r], 1 - expected[r], 1e-5) << "row " << r;
      }
    } else {
      ASSERT_EQ(static_cast<int64_t>(expected.size()), rows * dim);
      for (int64_t i = 0; i < rows * dim; ++i) {
        EXPECT_NEAR(got[i], expected[i],
                    1e-5 * std::max(1.0, std::abs(expected[i])))
            << "element " << i;
      }
    }
    ++models;
  }
  EXPECT_GE(models, 6);
}

}  // namespace
}  // namespace graphrt::testing
