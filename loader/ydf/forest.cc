#include "loader/ydf/forest.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace graphrt::ydf {
namespace {

// One example's features, read through the batch.
class ExampleView {
 public:
  ExampleView(const Forest& f, const FeatureBatch& b, int64_t e)
      : forest_(f), batch_(b), example_(e) {}

  float Numerical(int32_t col) const {
    return batch_.numerical[example_ * forest_.num_numerical + col];
  }
  float Boolean(int32_t col) const {
    return batch_.boolean[example_ * forest_.num_boolean + col];
  }
  // -1 = missing, 0 = out of vocabulary.
  int32_t Categorical(int32_t col) const {
    const int32_t v =
        batch_.categorical[example_ * forest_.num_categorical + col];
    return v < -1 || v >= forest_.categorical_sizes[col] ? 0 : v;
  }
  absl::Span<const int32_t> Set(int32_t col) const {
    const int64_t cell = example_ * forest_.num_categorical_set + col;
    const int64_t begin = batch_.set_splits[cell];
    const int64_t end = batch_.set_splits[cell + 1];
    return batch_.set_values.subspan(begin, end - begin);
  }
  int32_t SetItem(int32_t col, int32_t v) const {
    return v < -1 || v >= forest_.categorical_set_sizes[col] ? 0 : v;
  }

 private:
  const Forest& forest_;
  const FeatureBatch& batch_;
  int64_t example_;
};

bool InBitmap(absl::string_view bitmap, int32_t v) {
  if (v < 0 || static_cast<size_t>(v / 8) >= bitmap.size()) return false;
  return (static_cast<unsigned char>(bitmap[v / 8]) >> (v % 8)) & 1;
}

// Whether the example's value of a categorical (set) feature is missing, and
// whether it (or one item of the set) satisfies `match`.
template <typename Match>
bool EvalContains(const Forest& f, const FlatNode& n, const ExampleView& x,
                  Match match) {
  if (n.group == FeatureGroup::kCategorical) {
    const int32_t v = x.Categorical(n.feature);
    if (v == -1) return n.na_value;
    return match(v);
  }
  const absl::Span<const int32_t> items = x.Set(n.feature);
  if (!items.empty() && x.SetItem(n.feature, items[0]) < 0) return n.na_value;
  for (int32_t item : items) {
    if (match(x.SetItem(n.feature, item))) return true;
  }
  return false;
}

bool IsMissing(const FlatNode& n, const ExampleView& x) {
  switch (n.group) {
    case FeatureGroup::kNumerical:
      return std::isnan(x.Numerical(n.feature));
    case FeatureGroup::kBoolean:
      return std::isnan(x.Boolean(n.feature));
    case FeatureGroup::kCategorical:
      return x.Categorical(n.feature) == -1;
    case FeatureGroup::kCategoricalSet: {
      const absl::Span<const int32_t> items = x.Set(n.feature);
      return !items.empty() && x.SetItem(n.feature, items[0]) < 0;
    }
  }
  return false;
}

bool Eval(const Forest& f, const FlatNode& n, const ExampleView& x) {
  switch (n.type) {
    case ConditionType::kLeaf:
      return false;
    case ConditionType::kIsMissing:
      return IsMissing(n, x);
    case ConditionType::kHigher: {
      const float v = x.Numerical(n.feature);
      return std::isnan(v) ? n.na_value : v >= n.threshold;
    }
    case ConditionType::kTrueValue: {
      const float v = x.Boolean(n.feature);
      return std::isnan(v) ? n.na_value : v >= 0.5f;
    }
    case ConditionType::kContainsVector: {
      const int32_t* first = f.int_pool.data() + n.begin;
      const int32_t* last = f.int_pool.data() + n.end;
      return EvalContains(f, n, x, [first, last](int32_t v) {
        return std::binary_search(first, last, v);
      });
    }
    case ConditionType::kContainsBitmap: {
      const absl::string_view bitmap =
          absl::string_view(f.bitmap_pool).substr(n.begin, n.end - n.begin);
      return EvalContains(f, n, x,
                          [bitmap](int32_t v) { return InBitmap(bitmap, v); });
    }
    case ConditionType::kDiscretizedHigher: {
      const float v = x.Numerical(n.feature);
      if (std::isnan(v)) return n.na_value;
      const float* first = f.weight_pool.data() + n.begin;
      const float* last = f.weight_pool.data() + n.end;
      const int64_t bucket = std::upper_bound(first, last, v) - first;
      return bucket >= n.int_threshold;
    }
    case ConditionType::kOblique: {
      float sum = 0;
      for (uint32_t i = n.begin; i < n.end; ++i) {
        const float v = x.Numerical(f.int_pool[i]);
        if (std::isnan(v)) return n.na_value;
        sum += v * f.weight_pool[n.aux + (i - n.begin)];
      }
      return sum >= n.threshold;
    }
  }
  return false;
}

// Index of the leaf example `x` reaches in the tree rooted at `node`.
// Children always follow their parent (checked at load), so this ends.
int32_t FindLeaf(const Forest& f, int32_t node, const ExampleView& x) {
  while (f.nodes[node].type != ConditionType::kLeaf) {
    const FlatNode& n = f.nodes[node];
    node = Eval(f, n, x) ? n.positive_child : node + 1;
  }
  return node;
}

float Clamp01(double v) {
  return static_cast<float>(std::min(1.0, std::max(0.0, v)));
}

}  // namespace

absl::Status Forest::Predict(const FeatureBatch& batch, float* out) const {
  if (num_categorical_set > 0) {
    const int64_t cells = batch.batch_size * num_categorical_set;
    if (static_cast<int64_t>(batch.set_splits.size()) != cells + 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "categorical set row splits have ", batch.set_splits.size(),
          " entries, expected batch * features + 1 = ", cells + 1));
    }
    int64_t previous = 0;
    for (int64_t s : batch.set_splits) {
      if (s < previous || s > static_cast<int64_t>(batch.set_values.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "categorical set row splits are not increasing within [0, ",
            batch.set_values.size(), "]: ", s));
      }
      previous = s;
    }
  }
  const int accumulators = output == OutputKind::kRfClassification ||
                                   output == OutputKind::kGbtMultinomial
                               ? output_dim
                               : 1;
  std::vector<double> acc(accumulators);
  for (int64_t e = 0; e < batch.batch_size; ++e) {
    const ExampleView x(*this, batch, e);
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int t = 0; t < num_trees; ++t) {
      const FlatNode& leaf = nodes[FindLeaf(*this, roots[t], x)];
      switch (output) {
        case OutputKind::kRfClassification:
          for (int c = 0; c < output_dim; ++c) {
            acc[c] += leaf_values[leaf.begin + c];
          }
          break;
        case OutputKind::kGbtMultinomial:
          acc[t % num_trees_per_iter] += leaf_values[leaf.begin];
          break;
        default:
          acc[0] += leaf_values[leaf.begin];
      }
    }
    float* row = out + e * output_dim;
    const double trees = num_trees > 0 ? num_trees : 1;
    switch (output) {
      case OutputKind::kRfClassification:
        for (int c = 0; c < output_dim; ++c) row[c] = Clamp01(acc[c] / trees);
        break;
      case OutputKind::kRfRegression:
        row[0] = static_cast<float>(acc[0] / trees);
        break;
      case OutputKind::kGbtBinomial: {
        const double logit = acc[0] + initial_predictions[0];
        const double p = 1.0 / (1.0 + std::exp(-logit));
        row[0] = Clamp01(1.0 - p);
        row[1] = Clamp01(p);
        break;
      }
      case OutputKind::kGbtMultinomial: {
        double max_logit = -INFINITY;
        for (int c = 0; c < output_dim; ++c) {
          acc[c] += initial_predictions[c];
          max_logit = std::max(max_logit, acc[c]);
        }
        double total = 0;
        for (int c = 0; c < output_dim; ++c) {
          acc[c] = std::exp(acc[c] - max_logit);
          total += acc[c];
        }
        for (int c = 0; c < output_dim; ++c) row[c] = Clamp01(acc[c] / total);
        break;
      }
      case OutputKind::kGbtSum:
        row[0] = static_cast<float>(acc[0] + initial_predictions[0]);
        break;
    }
  }
  return absl::OkStatus();
}

std::string Forest::DebugString() const {
  return absl::StrCat(
      kind == ForestKind::kRandomForest ? "YDF RandomForest"
                                        : "YDF GradientBoostedTrees",
      " (", num_trees, " trees, ", nodes.size(), " nodes, output dim ",
      output_dim, ", features: ", num_numerical, " numerical, ", num_boolean,
      " boolean, ", num_categorical, " categorical, ", num_categorical_set,
      " categorical-set)");
}

}  // namespace graphrt::ydf
