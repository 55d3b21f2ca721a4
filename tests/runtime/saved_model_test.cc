// Model::Load on SavedModels and GraphDefs: small models the test writes
// itself (always run) and the real TensorFlow SavedModels under
// $GRAPHRT_SHARED/fixtures/savedmodel (skipped when absent).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "proto/saved_model.pb.h"
#include "runtime/model.h"
#include "runtime/variable.h"
#include "tests/ops/tfdf/ydf_test_model.h"

namespace graphrt {
namespace {

namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(tmp ? tmp : "/tmp") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

tensorflow::NodeDef* AddNode(tensorflow::GraphDef* g, const std::string& name,
                             const std::string& op,
                             std::vector<std::string> inputs = {}) {
  tensorflow::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& in : inputs) n->add_input(in);
  return n;
}

void SetType(tensorflow::NodeDef* n, const std::string& attr,
             tensorflow::DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}

// A scalar Const of `dtype`; the caller adds its value to the returned
// TensorProto.
tensorflow::TensorProto* AddScalarConst(tensorflow::GraphDef* g,
                                        const std::string& name,
                                        tensorflow::DataType dtype) {
  tensorflow::NodeDef* n = AddNode(g, name, "Const");
  SetType(n, "dtype", dtype);
  auto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(dtype);
  t->mutable_tensor_shape();
  return t;
}

void AddFloatConst(tensorflow::GraphDef* g, const std::string& name, float v) {
  AddScalarConst(g, name, tensorflow::DT_FLOAT)->add_float_val(v);
}

void AddStringConst(tensorflow::GraphDef* g, const std::string& name,
                    const std::string& v) {
  AddScalarConst(g, name, tensorflow::DT_STRING)->add_string_val(v);
}

float RunScalar(const Model& model, const std::string& input, float x,
                const std::vector<std::string>& outputs = {}) {
  std::vector<NamedTensor> in;
  if (!input.empty()) in.push_back({input, Tensor::Scalar<float>(x)});
  auto out = model.Run(in, outputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return -1;
  return *(*out)[0].data<float>();
}

// TF2 shape: a resource variable set by the init op, read inside a library
// function that receives the VarHandleOp's handle as a captured input.
tensorflow::SavedModel Tf2StyleModel() {
  tensorflow::SavedModel sm;
  tensorflow::MetaGraphDef* mg = sm.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  tensorflow::GraphDef* g = mg->mutable_graph_def();
  SetType(AddNode(g, "x", "Placeholder"), "dtype", tensorflow::DT_FLOAT);
  tensorflow::NodeDef* v = AddNode(g, "v", "VarHandleOp");
  SetType(v, "dtype", tensorflow::DT_FLOAT);
  (*v->mutable_attr())["shape"].mutable_shape();
  (*v->mutable_attr())["shared_name"].set_s("v");
  AddFloatConst(g, "three", 3.0f);
  SetType(AddNode(g, "assign", "AssignVariableOp", {"v", "three"}), "dtype",
          tensorflow::DT_FLOAT);
  AddNode(g, "init", "NoOp", {"^assign"});
  tensorflow::NodeDef* call =
      AddNode(g, "call", "StatefulPartitionedCall", {"x", "v"});
  (*call->mutable_attr())["f"].mutable_func()->set_name("mul_fn");
  // Nodes no signature needs (a save path) must not need kernels.
  AddNode(g, "unused_save", "SaveV2", {"x"});

  tensorflow::FunctionDef* fn = g->mutable_library()->add_function();
  fn->mutable_signature()->set_name("mul_fn");
  auto* a0 = fn->mutable_signature()->add_input_arg();
  a0->set_name("x");
  a0->set_type(tensorflow::DT_FLOAT);
  auto* a1 = fn->mutable_signature()->add_input_arg();
  a1->set_name("r");
  a1->set_type(tensorflow::DT_RESOURCE);
  fn->mutable_signature()->add_output_arg()->set_name("y");
  tensorflow::NodeDef* read = fn->add_node_def();
  read->set_name("read");
  read->set_op("ReadVariableOp");
  read->add_input("r");
  SetType(read, "dtype", tensorflow::DT_FLOAT);
  tensorflow::NodeDef* mul = fn->add_node_def();
  mul->set_name("mul");
  mul->set_op("Mul");
  mul->add_input("x");
  mul->add_input("read:value:0");
  SetType(mul, "T", tensorflow::DT_FLOAT);
  (*fn->mutable_ret())["y"] = "mul:z:0";

  auto& sig = (*mg->mutable_signature_def())["serving_default"];
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_inputs())["x"].set_dtype(tensorflow::DT_FLOAT);
  (*sig.mutable_outputs())["y"].set_name("call:0");
  (*(*mg->mutable_signature_def())["__saved_model_init_op"]
        .mutable_outputs())["__saved_model_init_op"]
      .set_name("init");
  return sm;
}

TEST(SavedModelLoad, Tf2StyleInitOpAndCapturedVariable) {
  std::string dir = TempDir("tf2_style");
  WriteFile(fs::path(dir) / "saved_model.pb",
            Tf2StyleModel().SerializeAsString());
  for (int threads : {1, 2}) {
    ModelOptions options;
    options.threads = threads;
    auto model = Model::Load(dir, options);
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ((*model)->source_info().format, "saved_model");
    EXPECT_EQ((*model)->source_info().signature, "serving_default");
    EXPECT_EQ(RunScalar(**model, "x", 2.0f), 6.0f);
    EXPECT_NE((*model)->resources().Lookup("variable:/v"), nullptr);
  }
}

// TF1 shape: a ref variable set by `saved_model_main_op`, a stateful
// signature (AssignAdd) and an asset fed to a Const the init op stores.
TEST(SavedModelLoad, Tf1StyleRefVariableMainOpAndAsset) {
  tensorflow::SavedModel sm;
  tensorflow::MetaGraphDef* mg = sm.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  tensorflow::GraphDef* g = mg->mutable_graph_def();
  tensorflow::NodeDef* c = AddNode(g, "counter", "VariableV2");
  SetType(c, "dtype", tensorflow::DT_FLOAT);
  (*c->mutable_attr())["shape"].mutable_shape();
  AddFloatConst(g, "zero", 0.0f);
  AddFloatConst(g, "one", 1.0f);
  AddNode(g, "counter/Assign", "Assign", {"counter", "zero"});
  AddNode(g, "incr", "AssignAdd", {"counter", "one"});
  AddStringConst(g, "asset_path", "/writer/machine/assets/vocab.txt");
  tensorflow::NodeDef* s = AddNode(g, "path_var", "VariableV2");
  SetType(s, "dtype", tensorflow::DT_STRING);
  (*s->mutable_attr())["shape"].mutable_shape();
  AddNode(g, "path_var/Assign", "Assign", {"path_var", "asset_path"});
  AddNode(g, "main_op", "NoOp", {"^counter/Assign", "^path_var/Assign"});
  (*mg->mutable_collection_def())["saved_model_main_op"]
      .mutable_node_list()
      ->add_value("main_op");
  auto* asset = mg->add_asset_file_def();
  asset->mutable_tensor_info()->set_name("asset_path:0");
  asset->set_filename("vocab.txt");
  auto& sig = (*mg->mutable_signature_def())["incr_counter"];
  (*sig.mutable_outputs())["output"].set_name("incr:0");
  (*sig.mutable_outputs())["output"].set_dtype(tensorflow::DT_FLOAT_REF);
  std::string dir = TempDir("tf1_style");
  WriteFile(fs::path(dir) / "saved_model.pb", sm.SerializeAsString());
  WriteFile(fs::path(dir) / "assets" / "vocab.txt", "a\n");

  ModelOptions options;
  options.threads = 1;
  auto model = Model::Load(dir, options);  // the only signature is chosen
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->source_info().signature, "incr_counter");
  EXPECT_EQ(RunScalar(**model, "", 0), 1.0f);
  EXPECT_EQ(RunScalar(**model, "", 0), 2.0f);
  // The asset path was fed, not the writer's constant.
  auto var = (*model)->resources().Lookup("variable:/path_var");
  ASSERT_NE(var, nullptr);
  auto value = static_cast<Variable*>(var.get())->Read();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(fs::path(*value->data<std::string>()),
            fs::canonical(fs::path(dir) / "assets" / "vocab.txt"));
}

// A TF1 table initializer reading an asset through a Const that holds the
// writer's absolute path, loaded by a path relative to the working folder.
// Regression: the asset Const was left alone (an absolute export path was
// compared with a relative one), so the asset check rejected the model.
TEST(SavedModelLoad, Tf1AssetTableFromARelativeExportPath) {
  tensorflow::SavedModel sm;
  tensorflow::MetaGraphDef* mg = sm.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  tensorflow::GraphDef* g = mg->mutable_graph_def();
  tensorflow::NodeDef* table = AddNode(g, "table", "HashTableV2");
  SetType(table, "key_dtype", tensorflow::DT_STRING);
  SetType(table, "value_dtype", tensorflow::DT_INT64);
  (*table->mutable_attr())["shared_name"].set_s("vocab_table");
  AddStringConst(g, "asset_path", "/writer/machine/assets/vocab.txt");
  tensorflow::NodeDef* init =
      AddNode(g, "table_init", "InitializeTableFromTextFileV2",
              {"table", "asset_path"});
  (*init->mutable_attr())["key_index"].set_i(-2);
  (*init->mutable_attr())["value_index"].set_i(-1);
  (*init->mutable_attr())["vocab_size"].set_i(-1);
  (*init->mutable_attr())["delimiter"].set_s("\t");
  SetType(AddNode(g, "words", "Placeholder"), "dtype", tensorflow::DT_STRING);
  tensorflow::NodeDef* missing = AddNode(g, "missing", "Const");
  SetType(missing, "dtype", tensorflow::DT_INT64);
  auto* mv = (*missing->mutable_attr())["value"].mutable_tensor();
  mv->set_dtype(tensorflow::DT_INT64);
  mv->mutable_tensor_shape();
  mv->add_int64_val(-1);
  tensorflow::NodeDef* find =
      AddNode(g, "ids", "LookupTableFindV2", {"table", "words", "missing"});
  SetType(find, "Tin", tensorflow::DT_STRING);
  SetType(find, "Tout", tensorflow::DT_INT64);
  (*mg->mutable_collection_def())["table_initializer"]
      .mutable_node_list()
      ->add_value("table_init");
  auto* asset = mg->add_asset_file_def();
  asset->mutable_tensor_info()->set_name("asset_path:0");
  asset->set_filename("vocab.txt");
  auto& sig = (*mg->mutable_signature_def())["serving_default"];
  (*sig.mutable_inputs())["words"].set_name("words:0");
  (*sig.mutable_inputs())["words"].set_dtype(tensorflow::DT_STRING);
  (*sig.mutable_outputs())["ids"].set_name("ids:0");
  (*sig.mutable_outputs())["ids"].set_dtype(tensorflow::DT_INT64);
  const fs::path dir = TempDir("tf1_asset_table");
  WriteFile(dir / "saved_model.pb", sm.SerializeAsString());
  WriteFile(dir / "assets" / "vocab.txt", "zero\none\ntwo\n");

  const fs::path previous = fs::current_path();
  fs::current_path(dir.parent_path());
  auto model = Model::Load(dir.filename().string(), {.threads = 1});
  fs::current_path(previous);
  ASSERT_TRUE(model.ok()) << model.status();
  auto out = (*model)->Run(
      {{"words",
        Tensor::FromVector<std::string>({"two", "nine", "zero"}, Shape({3}))}},
      {"ids"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(std::vector<int64_t>((*out)[0].data<int64_t>(),
                                 (*out)[0].data<int64_t>() + 3),
            (std::vector<int64_t>{2, -1, 0}));
}

// A Const of `dtype` and `shape` holding no elements, or (int64) the given
// values.
tensorflow::NodeDef* AddConst(tensorflow::GraphDef* g, const std::string& name,
                              tensorflow::DataType dtype,
                              const std::vector<int64_t>& shape,
                              const std::vector<int64_t>& int64_values = {}) {
  tensorflow::NodeDef* n = AddNode(g, name, "Const");
  SetType(n, "dtype", dtype);
  auto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(dtype);
  for (int64_t d : shape) t->mutable_tensor_shape()->add_dim()->set_size(d);
  for (int64_t v : int64_values) t->add_int64_val(v);
  return n;
}

// A TF-Decision-Forests SavedModel: the init op creates the model resource
// and loads the YDF model folder shipped in assets/ (its path comes from
// an asset tensor, fed with the folder's real location); serving runs
// SimpleMLInferenceOpWithHandle on the shared handle. The forest is one
// regression tree: num >= 1 ? 1 : -1.
TEST(SavedModelLoad, TfdfForestFromAnAssetFolder) {
  const std::string dir = TempDir("tfdf_asset");
  namespace ydf = testing::ydf_test;  // YDF model folder builders
  ydf::TestModel forest;
  forest.header = ydf::Header("GRADIENT_BOOSTED_TREES", ydf::mp::REGRESSION, 6);
  forest.header.clear_input_features();
  forest.header.add_input_features(0);
  forest.data_spec = ydf::SharedDataSpec();
  forest.gbt_header.emplace();
  forest.gbt_header->set_num_trees(1);
  forest.gbt_header->set_num_node_shards(1);
  forest.gbt_header->set_loss(ydf::gbt::SQUARED_ERROR);
  forest.gbt_header->add_initial_predictions(0);
  forest.gbt_header->set_node_format("BLOB_SEQUENCE");
  forest.nodes = {ydf::Higher(0, 1, false), ydf::ValueLeaf(-1),
                  ydf::ValueLeaf(1)};
  forest.file_prefix = "d41d8_";
  fs::create_directories(fs::path(dir) / "assets");
  ydf::WriteModel(forest, (fs::path(dir) / "assets" / "ydf_model").string());

  tensorflow::SavedModel sm;
  tensorflow::MetaGraphDef* mg = sm.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  tensorflow::GraphDef* g = mg->mutable_graph_def();
  tensorflow::NodeDef* handle =
      AddNode(g, "model_handle", "SimpleMLCreateModelResource");
  (*handle->mutable_attr())["container"].set_s("");
  (*handle->mutable_attr())["shared_name"].set_s("forest");
  AddStringConst(g, "model_path", "/writer/machine/assets/ydf_model");
  tensorflow::NodeDef* load =
      AddNode(g, "load", "SimpleMLLoadModelFromPathWithHandle",
              {"model_handle", "model_path"});
  (*load->mutable_attr())["file_prefix"].set_s("d41d8_");
  AddNode(g, "init", "NoOp", {"^load"});
  (*(*mg->mutable_signature_def())["__saved_model_init_op"]
        .mutable_outputs())["__saved_model_init_op"]
      .set_name("init");
  auto* asset = mg->add_asset_file_def();
  asset->mutable_tensor_info()->set_name("model_path:0");
  asset->set_filename("ydf_model");

  SetType(AddNode(g, "x", "Placeholder"), "dtype", tensorflow::DT_FLOAT);
  AddConst(g, "no_boolean", tensorflow::DT_FLOAT, {0, 0});
  AddConst(g, "no_categorical", tensorflow::DT_INT32, {0, 0});
  AddConst(g, "no_set_values", tensorflow::DT_INT32, {0});
  AddConst(g, "no_splits", tensorflow::DT_INT64, {1}, {0});
  tensorflow::NodeDef* infer =
      AddNode(g, "infer", "SimpleMLInferenceOpWithHandle",
              {"x", "no_boolean", "no_categorical", "no_set_values",
               "no_splits", "no_splits", "model_handle"});
  (*infer->mutable_attr())["dense_output_dim"].set_i(1);
  auto& sig = (*mg->mutable_signature_def())["serving_default"];
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_inputs())["x"].set_dtype(tensorflow::DT_FLOAT);
  (*sig.mutable_outputs())["y"].set_name("infer:0");
  WriteFile(fs::path(dir) / "saved_model.pb", sm.SerializeAsString());

  ModelOptions options;
  options.threads = 1;
  auto model = Model::Load(dir, options);
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<NamedTensor> in = {
      {"x", Tensor::FromVector<float>({0.f, 1.f, 2.f}, Shape({3, 1}))}};
  auto out = (*model)->Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  ASSERT_EQ((*out)[0].shape(), Shape({3, 1}));
  const float* y = (*out)[0].data<float>();
  EXPECT_EQ(y[0], -1.f);
  EXPECT_EQ(y[1], 1.f);
  EXPECT_EQ(y[2], 1.f);
}

TEST(SavedModelLoad, BadTagsAndSignatureAreClearErrors) {
  std::string dir = TempDir("errors");
  WriteFile(fs::path(dir) / "saved_model.pb",
            Tf2StyleModel().SerializeAsString());
  ModelOptions options;
  options.tags = {"serve", "gpu"};
  auto model = Model::Load(dir, options);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("{gpu,serve}"), std::string::npos)
      << model.status();
  options.tags = {"serve"};
  options.signature = "missing";
  model = Model::Load(dir, options);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("no signature 'missing'"),
            std::string::npos)
      << model.status();
}

TEST(GraphDefLoad, BinaryAndTextGraphDefs) {
  std::string dir = TempDir("graphdef");
  tensorflow::GraphDef g;
  SetType(AddNode(&g, "x", "Placeholder"), "dtype", tensorflow::DT_FLOAT);
  AddFloatConst(&g, "half", 0.5f);
  SetType(AddNode(&g, "y", "Mul", {"x", "half"}), "T", tensorflow::DT_FLOAT);
  WriteFile(fs::path(dir) / "g.pb", g.SerializeAsString());
  WriteFile(fs::path(dir) / "g.pbtxt", g.DebugString());
  for (const char* file : {"g.pb", "g.pbtxt"}) {
    auto model = Model::Load((fs::path(dir) / file).string());
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ((*model)->source_info().format, "graph_def");
    EXPECT_EQ(RunScalar(**model, "x", 4.0f), 2.0f);
  }
}

// ---- Real SavedModels -------------------------------------------------

std::string Fixture(const std::string& name) {
  const char* shared = std::getenv("GRAPHRT_SHARED");
  std::string root = shared && *shared ? shared : "/work/shared";
  fs::path dir = fs::path(root) / "fixtures" / "savedmodel" / name;
  return fs::exists(dir) ? dir.string() : "";
}

// Loads a fixture; skips (with the reason) when the shared folder is absent
// or an op another area has not implemented yet is missing.
std::unique_ptr<Model> LoadFixture(const std::string& name,
                                   const std::string& signature = "") {
  std::string dir = Fixture(name);
  if (dir.empty()) return nullptr;
  ModelOptions options;
  options.threads = 2;
  if (!signature.empty()) options.signature = signature;
  auto model = Model::Load(dir, options);
  EXPECT_TRUE(model.ok()) << name << ": " << model.status();
  return model.ok() ? std::move(*model) : nullptr;
}

#define LOAD_OR_SKIP(var, ...)                                   \
  auto var = LoadFixture(__VA_ARGS__);                           \
  if (Fixture(std::vector<std::string>{__VA_ARGS__}[0]).empty()) \
    GTEST_SKIP() << "shared fixtures are absent";                \
  ASSERT_NE(var, nullptr)

template <typename T>
std::vector<T> RunVector(const Model& model, std::vector<NamedTensor> inputs,
                         int output) {
  auto out = model.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  const Tensor& t = (*out)[output];
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

TEST(SavedModelFixtures, TfjsTimesThreeFloat) {
  LOAD_OR_SKIP(m, "tfjs-node-times_three_float");
  EXPECT_EQ(RunScalar(*m, "x", 2.0f), 6.0f);
}

TEST(SavedModelFixtures, TfjsTimesTwoInt) {
  LOAD_OR_SKIP(m, "tfjs-node-times_two_int");
  EXPECT_EQ(RunVector<int32_t>(*m, {{"x", Tensor::Scalar<int32_t>(7)}}, 0),
            std::vector<int32_t>{14});
}

TEST(SavedModelFixtures, TfjsUint8Multiply) {
  LOAD_OR_SKIP(m, "tfjs-node-uint8_multiply");
  uint8_t three = 3;
  EXPECT_EQ(
      RunVector<int32_t>(
          *m, {{"x", Tensor::FromVector<uint8_t>({three}, Shape({1}))}}, 0),
      std::vector<int32_t>{18});
}

TEST(SavedModelFixtures, TfjsInt64Multiply) {
  LOAD_OR_SKIP(m, "tfjs-node-int64_multiply");
  std::vector<int64_t> x = {3, 4};
  EXPECT_EQ(RunVector<int64_t>(*m, {{"x", Tensor::FromVector<int64_t>(x)}}, 0),
            (std::vector<int64_t>{18, 24}));
}

TEST(SavedModelFixtures, TfjsMultipleSignatures) {
  {
    LOAD_OR_SKIP(m, "tfjs-node-module_with_multiple_signatures");
    EXPECT_EQ(RunScalar(*m, "x", 2.0f), 6.0f);
  }
  LOAD_OR_SKIP(m, "tfjs-node-module_with_multiple_signatures", "timestwo");
  EXPECT_EQ(RunScalar(*m, "x", 2.0f), 4.0f);
}

TEST(SavedModelFixtures, TfjsMultiOutput) {
  {
    LOAD_OR_SKIP(m, "tfjs-node-model_single_input_multi_output");
    std::vector<int32_t> x = {1, 2, 3};
    auto in = Tensor::FromVector<int32_t>(x);
    auto out = m->Run({{"x", in}});
    if (!out.ok() && absl::IsInvalidArgument(out.status())) {
      // The signature declares a scalar; TF.js fed [3]. Feed scalars.
      EXPECT_EQ(RunVector<int32_t>(*m, {{"x", Tensor::Scalar<int32_t>(2)}}, 0),
                std::vector<int32_t>{4});
      EXPECT_EQ(RunVector<int32_t>(*m, {{"x", Tensor::Scalar<int32_t>(2)}}, 1),
                std::vector<int32_t>{2});
    } else {
      ASSERT_TRUE(out.ok()) << out.status();
    }
  }
  LOAD_OR_SKIP(m, "tfjs-node-model_multi_output");
  std::vector<NamedTensor> in = {{"x", Tensor::Scalar<int32_t>(3)},
                                 {"y", Tensor::Scalar<int32_t>(3)}};
  EXPECT_EQ(RunVector<int32_t>(*m, in, 0), std::vector<int32_t>{6});
  EXPECT_EQ(RunVector<int32_t>(*m, in, 1), std::vector<int32_t>{3});
}

std::vector<float> HalfPlus(const Model& m, const std::string& input,
                            std::vector<float> x, Shape shape) {
  return RunVector<float>(m, {{input, Tensor::FromVector<float>(x, shape)}}, 0);
}

TEST(SavedModelFixtures, ServingHalfPlusTwoTf1) {
  for (const char* name : {"serving-saved_model_half_plus_two_cpu",
                           "serving-saved_model_half_plus_two_mkl"}) {
    LOAD_OR_SKIP(m, name);
    EXPECT_EQ(HalfPlus(*m, "x", {1, 2, 3}, Shape({3, 1})),
              (std::vector<float>{2.5, 3, 3.5}))
        << name;
  }
}

TEST(SavedModelFixtures, ServingHalfPlusThree) {
  LOAD_OR_SKIP(m, "serving-saved_model_half_plus_three");
  EXPECT_EQ(HalfPlus(*m, "x", {1, 2}, Shape({2})),
            (std::vector<float>{3.5, 4}));
}

TEST(SavedModelFixtures, ServingHalfPlusTwoTf2) {
  LOAD_OR_SKIP(m, "serving-saved_model_half_plus_two_tf2_cpu");
  EXPECT_EQ(HalfPlus(*m, "x", {4}, Shape({1})), std::vector<float>{4});
}

TEST(SavedModelFixtures, ServingMatrixHalfPlusTwo) {
  LOAD_OR_SKIP(m, "serving-matrix_half_plus_two");
  std::vector<float> x(9), y(9);
  for (int i = 0; i < 9; ++i) {
    x[i] = i;
    y[i] = 0.5f * i + 2;
  }
  EXPECT_EQ(HalfPlus(*m, "x", x, Shape({1, 3, 3})), y);
}

TEST(SavedModelFixtures, ServingCounterIsStateful) {
  LOAD_OR_SKIP(m, "serving-saved_model_counter", "incr_counter");
  EXPECT_EQ(RunScalar(*m, "", 0), 1.0f);
  EXPECT_EQ(RunScalar(*m, "", 0), 2.0f);
  EXPECT_EQ(RunScalar(*m, "", 0, {"counter:0"}), 2.0f);
}

}  // namespace
}  // namespace graphrt
