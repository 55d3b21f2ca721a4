// A Yggdrasil Decision Forests model compiled for inference: every tree's
// nodes in one flat array, and the batch prediction TF-Decision-Forests'
// SimpleMLInferenceOp(WithHandle) computes.
//
// Layout: nodes are stored depth first, as YDF writes them; the negative
// (condition false) child of node i is node i + 1, the positive child is
// `positive_child`. Leaves index `leaf_values`.
//
// Inputs (the op's, TF-DF's FeatureIndex): the model's input features, in
// header order, split by type into four groups — numerical (NUMERICAL and
// DISCRETIZED_NUMERICAL columns; float, NaN = missing), boolean (float,
// NaN = missing, >= 0.5 = true), categorical (int32, -1 = missing, values
// < -1 or >= the column's dictionary size become 0 = out of vocabulary),
// categorical set (ragged int32 values, a set whose first item is < 0 is
// missing). Column j of a group's matrix is the j-th feature of that group.
//
// Conditions (YDF's generic engine semantics): a missing value takes the
// condition's `na_value`, except the NA condition which is true exactly
// for missing values. Higher: x >= threshold. TrueValue: boolean true.
// Contains (vector or bitmap): the value, or any item of the set, is in
// the set. DiscretizedHigher: the bucket index of x (number of boundaries
// <= x) >= threshold. Oblique: sum_i w_i * x_i >= threshold, missing if any
// x_i is.
//
// Outputs ([batch, output_dim] float32):
//   Random Forest, classification: the leaf class distributions (without
//     the out-of-vocabulary class 0) averaged over trees; with
//     winner_take_all_inference each tree votes 1 for its leaf's top class.
//   Random Forest, regression: the mean of the leaf values.
//   GBT, BINOMIAL_LOG_LIKELIHOOD: p = sigmoid(initial + sum of leaves),
//     output [1 - p, p]. MULTINOMIAL_LOG_LIKELIHOOD: softmax over classes,
//     tree t adding to class t % num_trees_per_iter. SQUARED_ERROR and the
//     ranking losses: initial + sum of leaves.
//   Probabilities are clamped to [0, 1] as TF-DF does.
//
// Immutable after construction (model_reader.h builds it); Predict is const
// and thread-safe.
#ifndef GRAPHRT_LOADER_YDF_FOREST_H_
#define GRAPHRT_LOADER_YDF_FOREST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace graphrt::ydf {

enum class FeatureGroup : uint8_t {
  kNumerical,
  kBoolean,
  kCategorical,
  kCategoricalSet
};

enum class ConditionType : uint8_t {
  kLeaf,
  kIsMissing,
  kHigher,
  kTrueValue,
  kContainsVector,
  kContainsBitmap,
  kDiscretizedHigher,
  kOblique,
};

struct FlatNode {
  ConditionType type = ConditionType::kLeaf;
  bool na_value = false;
  FeatureGroup group = FeatureGroup::kNumerical;
  int32_t feature = 0;         // column in its group's input matrix
  int32_t positive_child = 0;  // node index (negative child = this + 1)
  float threshold = 0;         // kHigher, kOblique
  int32_t int_threshold = 0;   // kDiscretizedHigher
  // kContainsVector: sorted items in int_pool[begin, end); kContainsBitmap:
  // bytes of bitmap_pool[begin, end); kOblique: numerical feature columns
  // in int_pool[begin, end), their weights from weight_pool[aux];
  // kDiscretizedHigher: boundaries in weight_pool[begin, end); leaves:
  // leaf_values[begin, ...).
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t aux = 0;
};

enum class ForestKind { kRandomForest, kGradientBoostedTrees };
enum class OutputKind {
  kRfClassification,  // averaged distributions / votes
  kRfRegression,      // mean
  kGbtBinomial,       // sigmoid, [1-p, p]
  kGbtMultinomial,    // softmax
  kGbtSum,            // initial + sum (regression, ranking)
};

// The op's feature tensors (views; the caller keeps them alive).
struct FeatureBatch {
  int64_t batch_size = 0;
  const float* numerical = nullptr;      // [batch, num_numerical]
  const float* boolean = nullptr;        // [batch, num_boolean]
  const int32_t* categorical = nullptr;  // [batch, num_categorical]
  // Ragged [batch, num_categorical_set, items]: items of example e, feature
  // f are set_values[set_splits[e * num_set + f] .. next).
  absl::Span<const int32_t> set_values;
  absl::Span<const int64_t> set_splits;
};

struct Forest {
  ForestKind kind = ForestKind::kRandomForest;
  OutputKind output = OutputKind::kRfRegression;
  int output_dim = 1;
  int num_trees = 0;
  int num_trees_per_iter = 1;              // GBT
  std::vector<float> initial_predictions;  // GBT, one per accumulator
  // Names of the output columns (label classes; "" for regression).
  std::vector<std::string> col_representation;

  // Per group: the number of input columns, and for categorical groups each
  // column's dictionary size (values >= it are out of vocabulary).
  int num_numerical = 0;
  int num_boolean = 0;
  int num_categorical = 0;
  int num_categorical_set = 0;
  std::vector<int32_t> categorical_sizes;
  std::vector<int32_t> categorical_set_sizes;
  std::vector<std::string> feature_names;  // for messages and `info`

  std::vector<int32_t> roots;  // first node of each tree
  std::vector<FlatNode> nodes;
  std::vector<float> leaf_values;
  std::vector<int32_t> int_pool;
  std::vector<float> weight_pool;
  std::string bitmap_pool;

  // Checks the batch against the feature counts (shapes are the caller's
  // job) and the set splits' bounds, then writes [batch, output_dim]
  // predictions to `out`. On error nothing meaningful is in `out`.
  absl::Status Predict(const FeatureBatch& batch, float* out) const;

  std::string DebugString() const;
};

}  // namespace graphrt::ydf

#endif  // GRAPHRT_LOADER_YDF_FOREST_H_
