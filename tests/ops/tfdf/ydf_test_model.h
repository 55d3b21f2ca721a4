// Hand-built Yggdrasil Decision Forests models for the TF-DF op tests:
// protos assembled in code and written as a YDF model folder (header.pb,
// data_spec.pb, the forest header, node shards), exactly the files YDF
// writes, so the reader is tested on the real layout.
#ifndef GRAPHRT_TESTS_OPS_TFDF_YDF_TEST_MODEL_H_
#define GRAPHRT_TESTS_OPS_TFDF_YDF_TEST_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "proto/ydf/abstract_model.pb.h"
#include "proto/ydf/data_spec.pb.h"
#include "proto/ydf/decision_tree.pb.h"
#include "proto/ydf/gradient_boosted_trees.pb.h"
#include "proto/ydf/random_forest.pb.h"

namespace graphrt::testing::ydf_test {

namespace ds = yggdrasil_decision_forests::dataset::proto;
namespace dt = yggdrasil_decision_forests::model::decision_tree::proto;
namespace gbt =
    yggdrasil_decision_forests::model::gradient_boosted_trees::proto;
namespace mp = yggdrasil_decision_forests::model::proto;
namespace rf = yggdrasil_decision_forests::model::random_forest::proto;

struct TestModel {
  mp::AbstractModel header;
  ds::DataSpecification data_spec;
  std::optional<rf::Header> rf_header;
  std::optional<gbt::Header> gbt_header;
  std::vector<dt::Node> nodes;  // all trees, depth first
  std::string file_prefix;
  int num_shards = 1;  // nodes are split evenly over the shards
};

// Writes the model into `dir` (created) and returns `dir`. The forest
// header's num_node_shards and node_format are kept as set (the caller
// chooses the format); node shards use that format.
std::string WriteModel(const TestModel& model, const std::string& dir);

// A fresh folder under TEST_TMPDIR.
std::string TempDir(const std::string& name);

// Node builders.
dt::Node ClassLeaf(const std::vector<double>& counts, int top_value);
dt::Node ValueLeaf(float value);
dt::Node Higher(int attribute, float threshold, bool na_value);
dt::Node TrueValue(int attribute, bool na_value);
dt::Node IsMissing(int attribute);
dt::Node Contains(int attribute, const std::vector<int>& elements,
                  bool na_value);
dt::Node ContainsBitmap(int attribute, const std::string& bitmap,
                        bool na_value);
dt::Node DiscretizedHigher(int attribute, int threshold, bool na_value);
dt::Node Oblique(const std::vector<int>& attributes,
                 const std::vector<float>& weights, float threshold,
                 bool na_value);

// The dataspec every test model shares:
//   0 num NUMERICAL, 1 flag BOOLEAN, 2 color CATEGORICAL {red 1, green 2,
//   blue 3}, 3 tags CATEGORICAL_SET (integerized, 5 values), 4 disc
//   DISCRETIZED_NUMERICAL boundaries {1, 2, 3}, 5 label CATEGORICAL {no 1,
//   yes 2}, 6 target NUMERICAL, 7 num2 NUMERICAL, 8 label3 CATEGORICAL
//   (integerized, classes 1..3), 9 text STRING.
// Input features 0, 1, 2, 3, 4, 7: numerical inputs are [num, disc, num2].
ds::DataSpecification SharedDataSpec();
mp::AbstractModel Header(const std::string& name, mp::Task task, int label);

}  // namespace graphrt::testing::ydf_test

#endif  // GRAPHRT_TESTS_OPS_TFDF_YDF_TEST_MODEL_H_
