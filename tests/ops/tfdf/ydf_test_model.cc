#include "tests/ops/tfdf/ydf_test_model.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_format.h"
#include "loader/ydf/record_files.h"

namespace graphrt::testing::ydf_test {
namespace {

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

dt::Node Branch(int attribute, bool na_value) {
  dt::Node n;
  n.mutable_condition()->set_attribute(attribute);
  n.mutable_condition()->set_na_value(na_value);
  return n;
}

}  // namespace

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(base != nullptr ? base : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string WriteModel(const TestModel& model, const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string p = dir + "/" + model.file_prefix;
  WriteFile(p + "header.pb", model.header.SerializeAsString());
  WriteFile(p + "data_spec.pb", model.data_spec.SerializeAsString());
  std::string format;
  if (model.rf_header) {
    WriteFile(p + "random_forest_header.pb",
              model.rf_header->SerializeAsString());
    format = model.rf_header->node_format();
  } else {
    WriteFile(p + "gradient_boosted_trees_header.pb",
              model.gbt_header->SerializeAsString());
    format = model.gbt_header->node_format();
  }
  const size_t per_shard =
      (model.nodes.size() + model.num_shards - 1) / model.num_shards;
  for (int s = 0; s < model.num_shards; ++s) {
    std::vector<std::string> records;
    for (size_t i = s * per_shard;
         i < std::min(model.nodes.size(), (s + 1) * per_shard); ++i) {
      records.push_back(model.nodes[i].SerializeAsString());
    }
    WriteFile(p + absl::StrFormat("nodes-%05d-of-%05d", s, model.num_shards),
              format == "TFE_RECORDIO" ? ydf::WriteTfRecords(records)
                                       : ydf::WriteBlobSequence(records));
  }
  WriteFile(p + "done", "");
  return dir;
}

dt::Node ClassLeaf(const std::vector<double>& counts, int top_value) {
  dt::Node n;
  auto* c = n.mutable_classifier();
  c->set_top_value(top_value);
  double sum = 0;
  for (double v : counts) {
    c->mutable_distribution()->add_counts(v);
    sum += v;
  }
  c->mutable_distribution()->set_sum(sum);
  return n;
}

dt::Node ValueLeaf(float value) {
  dt::Node n;
  n.mutable_regressor()->set_top_value(value);
  return n;
}

dt::Node Higher(int attribute, float threshold, bool na_value) {
  dt::Node n = Branch(attribute, na_value);
  n.mutable_condition()
      ->mutable_condition()
      ->mutable_higher_condition()
      ->set_threshold(threshold);
  return n;
}

dt::Node TrueValue(int attribute, bool na_value) {
  dt::Node n = Branch(attribute, na_value);
  n.mutable_condition()->mutable_condition()->mutable_true_value_condition();
  return n;
}

dt::Node IsMissing(int attribute) {
  dt::Node n = Branch(attribute, false);
  n.mutable_condition()->mutable_condition()->mutable_na_condition();
  return n;
}

dt::Node Contains(int attribute, const std::vector<int>& elements,
                  bool na_value) {
  dt::Node n = Branch(attribute, na_value);
  auto* c =
      n.mutable_condition()->mutable_condition()->mutable_contains_condition();
  for (int e : elements) c->add_elements(e);
  return n;
}

dt::Node ContainsBitmap(int attribute, const std::string& bitmap,
                        bool na_value) {
  dt::Node n = Branch(attribute, na_value);
  n.mutable_condition()
      ->mutable_condition()
      ->mutable_contains_bitmap_condition()
      ->set_elements_bitmap(bitmap);
  return n;
}

dt::Node DiscretizedHigher(int attribute, int threshold, bool na_value) {
  dt::Node n = Branch(attribute, na_value);
  n.mutable_condition()
      ->mutable_condition()
      ->mutable_discretized_higher_condition()
      ->set_threshold(threshold);
  return n;
}

dt::Node Oblique(const std::vector<int>& attributes,
                 const std::vector<float>& weights, float threshold,
                 bool na_value) {
  dt::Node n = Branch(attributes.empty() ? 0 : attributes[0], na_value);
  auto* o =
      n.mutable_condition()->mutable_condition()->mutable_oblique_condition();
  for (int a : attributes) o->add_attributes(a);
  for (float w : weights) o->add_weights(w);
  o->set_threshold(threshold);
  return n;
}

ds::DataSpecification SharedDataSpec() {
  ds::DataSpecification spec;
  auto add = [&spec](const std::string& name, ds::ColumnType type) {
    ds::Column* c = spec.add_columns();
    c->set_name(name);
    c->set_type(type);
    return c;
  };
  add("num", ds::NUMERICAL);
  add("flag", ds::BOOLEAN);
  ds::Column* color = add("color", ds::CATEGORICAL);
  color->mutable_categorical()->set_number_of_unique_values(4);
  const char* colors[] = {"<OOD>", "red", "green", "blue"};
  for (int i = 0; i < 4; ++i) {
    (*color->mutable_categorical()->mutable_items())[colors[i]].set_index(i);
  }
  ds::Column* tags = add("tags", ds::CATEGORICAL_SET);
  tags->mutable_categorical()->set_number_of_unique_values(5);
  tags->mutable_categorical()->set_is_already_integerized(true);
  ds::Column* disc = add("disc", ds::DISCRETIZED_NUMERICAL);
  for (float b : {1.0f, 2.0f, 3.0f}) {
    disc->mutable_discretized_numerical()->add_boundaries(b);
  }
  ds::Column* label = add("label", ds::CATEGORICAL);
  label->mutable_categorical()->set_number_of_unique_values(3);
  const char* labels[] = {"<OOD>", "no", "yes"};
  for (int i = 0; i < 3; ++i) {
    (*label->mutable_categorical()->mutable_items())[labels[i]].set_index(i);
  }
  add("target", ds::NUMERICAL);
  add("num2", ds::NUMERICAL);
  ds::Column* label3 = add("label3", ds::CATEGORICAL);
  label3->mutable_categorical()->set_number_of_unique_values(4);
  label3->mutable_categorical()->set_is_already_integerized(true);
  add("text", ds::STRING);
  return spec;
}

mp::AbstractModel Header(const std::string& name, mp::Task task, int label) {
  mp::AbstractModel h;
  h.set_name(name);
  h.set_task(task);
  h.set_label_col_idx(label);
  for (int f : {0, 1, 2, 3, 4, 7}) h.add_input_features(f);
  return h;
}

}  // namespace graphrt::testing::ydf_test
