// Compiles a parsed Yggdrasil Decision Forests model (header protos + the
// serialized tree nodes) into a flat `Forest` (forest.h).
//
// Everything read from the files is checked before use: task and loss are
// supported, the label column and every input feature index exist in the
// dataspec, feature types are ones the TF-DF op can feed (NUMERICAL,
// DISCRETIZED_NUMERICAL, BOOLEAN, CATEGORICAL, CATEGORICAL_SET), every
// condition names an input feature of a type it applies to, leaves carry
// the output the model kind needs (class distributions of the label's size,
// votes within range, regression values), trees end before the records do
// and no record is left over. Errors are InvalidArgument / DataLoss /
// Unimplemented naming `where`, the tree and the node. Stateless.
#ifndef GRAPHRT_LOADER_YDF_FOREST_BUILDER_H_
#define GRAPHRT_LOADER_YDF_FOREST_BUILDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loader/ydf/forest.h"
#include "proto/ydf/abstract_model.pb.h"
#include "proto/ydf/data_spec.pb.h"
#include "proto/ydf/gradient_boosted_trees.pb.h"

namespace graphrt::ydf {

struct ForestSource {
  yggdrasil_decision_forests::model::proto::AbstractModel header;
  yggdrasil_decision_forests::dataset::proto::DataSpecification data_spec;
  ForestKind kind = ForestKind::kRandomForest;
  int64_t num_trees = 0;
  bool winner_take_all = true;  // Random Forest
  // Gradient Boosted Trees.
  bool has_loss = false;
  yggdrasil_decision_forests::model::gradient_boosted_trees::proto::Loss loss =
      yggdrasil_decision_forests::model::gradient_boosted_trees::proto::DEFAULT;
  std::vector<float> initial_predictions;
  int num_trees_per_iter = 1;
  // Serialized Node protos of all trees, depth first, tree after tree.
  std::vector<absl::string_view> node_records;
};

absl::StatusOr<Forest> BuildForest(const ForestSource& source,
                                   const std::string& where);

}  // namespace graphrt::ydf

#endif  // GRAPHRT_LOADER_YDF_FOREST_BUILDER_H_
