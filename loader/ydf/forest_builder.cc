#include "loader/ydf/forest_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "proto/ydf/decision_tree.pb.h"
#include "runtime/status_macros.h"

namespace graphrt::ydf {
namespace {

namespace ds = yggdrasil_decision_forests::dataset::proto;
namespace dt = yggdrasil_decision_forests::model::decision_tree::proto;
namespace gbt =
    yggdrasil_decision_forests::model::gradient_boosted_trees::proto;
namespace mp = yggdrasil_decision_forests::model::proto;

// Upper bound on dictionary sizes and class counts read from a file.
constexpr int64_t kMaxDictionary = int64_t{1} << 30;

struct InputFeature {
  FeatureGroup group;
  int32_t column;                 // in the group's input matrix
  ds::ColumnType type;            // dataspec type
  uint32_t boundaries_begin = 0;  // DISCRETIZED_NUMERICAL, in weight_pool
  uint32_t boundaries_end = 0;
};

class Builder {
 public:
  Builder(const ForestSource& source, const std::string& where)
      : src_(source), where_(where) {}

  absl::StatusOr<Forest> Build() {
    forest_.kind = src_.kind;
    GRAPHRT_RETURN_IF_ERROR(ReadFeatures());
    GRAPHRT_RETURN_IF_ERROR(ReadOutput());
    GRAPHRT_RETURN_IF_ERROR(ReadTrees());
    return std::move(forest_);
  }

 private:
  absl::Status Invalid(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(where_, ": ", what));
  }

  const ds::Column* ColumnOrNull(int64_t idx) const {
    if (idx < 0 || idx >= src_.data_spec.columns_size()) return nullptr;
    return &src_.data_spec.columns(static_cast<int>(idx));
  }

  absl::StatusOr<int32_t> DictionarySize(const ds::Column& c) const {
    const int64_t n = c.categorical().number_of_unique_values();
    if (n < 1 || n > kMaxDictionary) {
      return Invalid(
          absl::StrCat("column '", c.name(), "' has a dictionary size of ", n));
    }
    return static_cast<int32_t>(n);
  }

  absl::Status ReadFeatures() {
    for (int32_t idx : src_.header.input_features()) {
      const ds::Column* c = ColumnOrNull(idx);
      if (c == nullptr) {
        return Invalid(absl::StrCat("input feature ", idx,
                                    " is not a dataspec column (",
                                    src_.data_spec.columns_size(), ")"));
      }
      if (features_.contains(idx)) {
        return Invalid(absl::StrCat("input feature ", idx, " is listed twice"));
      }
      InputFeature f{FeatureGroup::kNumerical, 0, c->type()};
      switch (c->type()) {
        case ds::NUMERICAL:
          f.column = forest_.num_numerical++;
          break;
        case ds::DISCRETIZED_NUMERICAL: {
          f.column = forest_.num_numerical++;
          const auto& b = c->discretized_numerical().boundaries();
          for (int i = 0; i < b.size(); ++i) {
            if (std::isnan(b[i]) || (i > 0 && b[i] < b[i - 1])) {
              return Invalid(absl::StrCat("column '", c->name(),
                                          "': boundaries are not sorted"));
            }
          }
          f.boundaries_begin = forest_.weight_pool.size();
          forest_.weight_pool.insert(forest_.weight_pool.end(), b.begin(),
                                     b.end());
          f.boundaries_end = forest_.weight_pool.size();
          break;
        }
        case ds::BOOLEAN:
          f.group = FeatureGroup::kBoolean;
          f.column = forest_.num_boolean++;
          break;
        case ds::CATEGORICAL: {
          f.group = FeatureGroup::kCategorical;
          f.column = forest_.num_categorical++;
          GRAPHRT_ASSIGN_OR_RETURN(int32_t size, DictionarySize(*c));
          forest_.categorical_sizes.push_back(size);
          break;
        }
        case ds::CATEGORICAL_SET: {
          f.group = FeatureGroup::kCategoricalSet;
          f.column = forest_.num_categorical_set++;
          GRAPHRT_ASSIGN_OR_RETURN(int32_t size, DictionarySize(*c));
          forest_.categorical_set_sizes.push_back(size);
          break;
        }
        default:
          return absl::UnimplementedError(
              absl::StrCat(where_, ": input feature '", c->name(),
                           "' has column type ", ds::ColumnType_Name(c->type()),
                           ", which the TF-DF inference op cannot feed"));
      }
      forest_.feature_names.push_back(c->name());
      features_.emplace(idx, f);
    }
    return absl::OkStatus();
  }

  // Output kind, dimension and column names.
  absl::Status ReadOutput() {
    const mp::Task task = src_.header.task();
    const ds::Column* label = ColumnOrNull(src_.header.label_col_idx());
    if (label == nullptr) {
      return Invalid(absl::StrCat("label column ", src_.header.label_col_idx(),
                                  " is not a dataspec column"));
    }
    if (task == mp::CLASSIFICATION) {
      GRAPHRT_ASSIGN_OR_RETURN(int32_t size, DictionarySize(*label));
      num_classes_ = size - 1;
      if (num_classes_ < 1) return Invalid("the label has no class");
      // Class names without the out-of-vocabulary class 0, as TF-DF's
      // dense_col_representation.
      std::vector<std::string> names(num_classes_);
      for (int c = 0; c < num_classes_; ++c) names[c] = absl::StrCat(c + 1);
      if (!label->categorical().is_already_integerized()) {
        for (const auto& [key, value] : label->categorical().items()) {
          if (value.index() >= 1 && value.index() <= num_classes_) {
            names[value.index() - 1] = key;
          }
        }
      }
      forest_.col_representation = std::move(names);
    } else if (task == mp::REGRESSION ||
               (task == mp::RANKING &&
                src_.kind == ForestKind::kGradientBoostedTrees)) {
      forest_.col_representation = {""};
    } else {
      return absl::UnimplementedError(absl::StrCat(
          where_, ": task ", mp::Task_Name(task), " is not supported"));
    }
    forest_.output_dim = static_cast<int>(forest_.col_representation.size());

    if (src_.kind == ForestKind::kRandomForest) {
      forest_.output = task == mp::CLASSIFICATION
                           ? OutputKind::kRfClassification
                           : OutputKind::kRfRegression;
      return absl::OkStatus();
    }
    // Gradient Boosted Trees: the loss decides the link function.
    if (!src_.has_loss) {
      return absl::UnimplementedError(
          absl::StrCat(where_,
                       ": the GBT header has no loss this reader "
                       "knows (newer YDF losses are not supported)"));
    }
    size_t accumulators = 1;
    switch (src_.loss) {
      case gbt::BINOMIAL_LOG_LIKELIHOOD:
        if (task != mp::CLASSIFICATION || num_classes_ != 2) {
          return Invalid("BINOMIAL_LOG_LIKELIHOOD needs a 2-class label");
        }
        forest_.output = OutputKind::kGbtBinomial;
        break;
      case gbt::MULTINOMIAL_LOG_LIKELIHOOD:
        if (task != mp::CLASSIFICATION) {
          return Invalid("MULTINOMIAL_LOG_LIKELIHOOD needs classification");
        }
        forest_.output = OutputKind::kGbtMultinomial;
        accumulators = num_classes_;
        break;
      case gbt::SQUARED_ERROR:
      case gbt::LAMBDA_MART_NDCG5:
      case gbt::XE_NDCG_MART:
        if (task == mp::CLASSIFICATION) {
          return Invalid(absl::StrCat(gbt::Loss_Name(src_.loss),
                                      " cannot serve a classification task"));
        }
        forest_.output = OutputKind::kGbtSum;
        break;
      default:
        return absl::UnimplementedError(absl::StrCat(where_, ": GBT loss ",
                                                     gbt::Loss_Name(src_.loss),
                                                     " is not supported"));
    }
    if (src_.num_trees_per_iter != static_cast<int>(accumulators) ||
        src_.initial_predictions.size() != accumulators) {
      return Invalid(absl::StrCat(
          "GBT loss ", gbt::Loss_Name(src_.loss), " needs ", accumulators,
          " trees per iteration and initial predictions, got ",
          src_.num_trees_per_iter, " and ", src_.initial_predictions.size()));
    }
    forest_.num_trees_per_iter = src_.num_trees_per_iter;
    forest_.initial_predictions = src_.initial_predictions;
    return absl::OkStatus();
  }

  absl::StatusOr<InputFeature> Feature(const dt::NodeCondition& c,
                                       absl::string_view where) const {
    auto it = features_.find(c.attribute());
    if (it == features_.end()) {
      return Invalid(absl::StrCat(where, ": condition on attribute ",
                                  c.attribute(),
                                  ", which is not an input feature"));
    }
    return it->second;
  }

  absl::Status Expect(bool ok, absl::string_view where,
                      absl::string_view condition,
                      const InputFeature& f) const {
    if (ok) return absl::OkStatus();
    return Invalid(absl::StrCat(where, ": ", condition, " condition on a ",
                                ds::ColumnType_Name(f.type), " feature"));
  }

  absl::Status SetCondition(const dt::NodeCondition& c,
                            const std::string& where, FlatNode* n) {
    GRAPHRT_ASSIGN_OR_RETURN(const InputFeature f, Feature(c, where));
    n->na_value = c.na_value();
    n->group = f.group;
    n->feature = f.column;
    const bool categorical = f.group == FeatureGroup::kCategorical ||
                             f.group == FeatureGroup::kCategoricalSet;
    const dt::Condition& cond = c.condition();
    switch (cond.type_case()) {
      case dt::Condition::kNaCondition:
        n->type = ConditionType::kIsMissing;
        return absl::OkStatus();
      case dt::Condition::kHigherCondition:
        n->type = ConditionType::kHigher;
        n->threshold = cond.higher_condition().threshold();
        return Expect(f.group == FeatureGroup::kNumerical, where, "Higher", f);
      case dt::Condition::kTrueValueCondition:
        n->type = ConditionType::kTrueValue;
        return Expect(f.group == FeatureGroup::kBoolean, where, "TrueValue", f);
      case dt::Condition::kContainsCondition: {
        n->type = ConditionType::kContainsVector;
        const auto& e = cond.contains_condition().elements();
        n->begin = forest_.int_pool.size();
        forest_.int_pool.insert(forest_.int_pool.end(), e.begin(), e.end());
        n->end = forest_.int_pool.size();
        std::sort(forest_.int_pool.begin() + n->begin, forest_.int_pool.end());
        return Expect(categorical, where, "Contains", f);
      }
      case dt::Condition::kContainsBitmapCondition: {
        n->type = ConditionType::kContainsBitmap;
        n->begin = forest_.bitmap_pool.size();
        forest_.bitmap_pool +=
            cond.contains_bitmap_condition().elements_bitmap();
        n->end = forest_.bitmap_pool.size();
        return Expect(categorical, where, "ContainsBitmap", f);
      }
      case dt::Condition::kDiscretizedHigherCondition:
        n->type = ConditionType::kDiscretizedHigher;
        n->int_threshold = cond.discretized_higher_condition().threshold();
        n->begin = f.boundaries_begin;
        n->end = f.boundaries_end;
        return Expect(f.type == ds::DISCRETIZED_NUMERICAL, where,
                      "DiscretizedHigher", f);
      case dt::Condition::kObliqueCondition: {
        const auto& o = cond.oblique_condition();
        if (o.attributes_size() != o.weights_size()) {
          return Invalid(absl::StrCat(where, ": oblique condition has ",
                                      o.attributes_size(), " attributes and ",
                                      o.weights_size(), " weights"));
        }
        n->type = ConditionType::kOblique;
        n->threshold = o.threshold();
        n->begin = forest_.int_pool.size();
        n->aux = forest_.weight_pool.size();
        for (int i = 0; i < o.attributes_size(); ++i) {
          auto it = features_.find(o.attributes(i));
          if (it == features_.end() ||
              it->second.group != FeatureGroup::kNumerical) {
            return Invalid(absl::StrCat(where, ": oblique attribute ",
                                        o.attributes(i),
                                        " is not a numerical input feature"));
          }
          forest_.int_pool.push_back(it->second.column);
          forest_.weight_pool.push_back(o.weights(i));
        }
        n->end = forest_.int_pool.size();
        return absl::OkStatus();
      }
      case dt::Condition::TYPE_NOT_SET:
        break;
    }
    return Invalid(absl::StrCat(where, ": condition of unknown type"));
  }

  absl::Status SetLeaf(const dt::Node& node, const std::string& where,
                       FlatNode* n) {
    n->type = ConditionType::kLeaf;
    n->begin = forest_.leaf_values.size();
    if (forest_.output != OutputKind::kRfClassification) {
      if (!node.has_regressor()) {
        return Invalid(absl::StrCat(where, ": leaf has no regressor output"));
      }
      forest_.leaf_values.push_back(node.regressor().top_value());
      return absl::OkStatus();
    }
    if (!node.has_classifier()) {
      return Invalid(absl::StrCat(where, ": leaf has no classifier output"));
    }
    const dt::NodeClassifierOutput& out = node.classifier();
    std::vector<float> values(num_classes_, 0.0f);
    if (src_.winner_take_all) {
      if (out.top_value() < 1 || out.top_value() > num_classes_) {
        return Invalid(absl::StrCat(where, ": leaf class ", out.top_value(),
                                    " is not in [1, ", num_classes_, "]"));
      }
      values[out.top_value() - 1] = 1.0f;
    } else {
      const auto& counts = out.distribution().counts();
      if (counts.size() != num_classes_ + 1) {
        return Invalid(absl::StrCat(where, ": leaf distribution has ",
                                    counts.size(), " entries, expected ",
                                    num_classes_ + 1));
      }
      const double sum = out.distribution().sum();
      if (sum > 0) {
        for (int c = 0; c < num_classes_; ++c) {
          values[c] = static_cast<float>(counts[c + 1] / sum);
        }
      }
    }
    forest_.leaf_values.insert(forest_.leaf_values.end(), values.begin(),
                               values.end());
    return absl::OkStatus();
  }

  absl::Status ReadTrees() {
    const size_t records = src_.node_records.size();
    if (src_.num_trees < 0 || static_cast<size_t>(src_.num_trees) > records) {
      return absl::DataLossError(
          absl::StrCat(where_, ": the header announces ", src_.num_trees,
                       " trees but ", records, " node records were read"));
    }
    forest_.num_trees = static_cast<int>(src_.num_trees);
    forest_.nodes.reserve(records);
    size_t next = 0;
    dt::Node node;
    // Nodes whose positive child is not placed yet (their negative subtree
    // is being read).
    std::vector<int32_t> open;
    for (int t = 0; t < forest_.num_trees; ++t) {
      forest_.roots.push_back(static_cast<int32_t>(forest_.nodes.size()));
      do {
        const std::string where = absl::StrCat("tree ", t, " node ", next);
        if (next >= records) {
          return absl::DataLossError(absl::StrCat(
              where_, ": ", where, ": the node records end inside the tree"));
        }
        if (!node.ParseFromArray(
                src_.node_records[next].data(),
                static_cast<int>(src_.node_records[next].size()))) {
          return absl::DataLossError(
              absl::StrCat(where_, ": ", where, ": not a Node proto"));
        }
        ++next;
        FlatNode flat;
        if (node.has_condition()) {
          GRAPHRT_RETURN_IF_ERROR(SetCondition(node.condition(), where, &flat));
          open.push_back(static_cast<int32_t>(forest_.nodes.size()));
          forest_.nodes.push_back(flat);
          continue;
        }
        GRAPHRT_RETURN_IF_ERROR(SetLeaf(node, where, &flat));
        forest_.nodes.push_back(flat);
        if (!open.empty()) {
          forest_.nodes[open.back()].positive_child =
              static_cast<int32_t>(forest_.nodes.size());
          open.pop_back();
        } else {
          break;  // the tree is complete
        }
      } while (true);
    }
    if (next != records) {
      return absl::DataLossError(
          absl::StrCat(where_, ": ", records - next,
                       " node records are left after the last tree"));
    }
    if (forest_.int_pool.size() > std::numeric_limits<uint32_t>::max() ||
        forest_.weight_pool.size() > std::numeric_limits<uint32_t>::max() ||
        forest_.bitmap_pool.size() > std::numeric_limits<uint32_t>::max() ||
        forest_.leaf_values.size() > std::numeric_limits<uint32_t>::max() ||
        forest_.nodes.size() > std::numeric_limits<int32_t>::max()) {
      return Invalid("the model is too large");
    }
    return absl::OkStatus();
  }

  const ForestSource& src_;
  const std::string& where_;
  Forest forest_;
  int num_classes_ = 0;
  absl::flat_hash_map<int32_t, InputFeature> features_;
};

}  // namespace

absl::StatusOr<Forest> BuildForest(const ForestSource& source,
                                   const std::string& where) {
  return Builder(source, where).Build();
}

}  // namespace graphrt::ydf
