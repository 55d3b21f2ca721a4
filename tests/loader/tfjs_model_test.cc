// LoadTfjsModel: model.json parsing (topology, signatures, initializer,
// metadata), path handling and safety, and the shared TF.js fixtures.
#include "loader/tfjs_model.h"

#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loader/tfjs_test_util.h"
#include "nlohmann/json.hpp"

namespace graphrt {
namespace {

using ::graphrt::tfjs_testing::Bytes;
using ::graphrt::tfjs_testing::SharedTfjsFixturesDir;
using ::graphrt::tfjs_testing::TempModelDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

std::vector<std::string> Keys(const std::vector<SignatureEntry>& entries) {
  std::vector<std::string> keys;
  for (const auto& e : entries) keys.push_back(e.key);
  return keys;
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

constexpr char kTopology[] = R"({
  "node": [
    {"name": "z_in", "op": "Placeholder",
     "attr": {"dtype": {"type": "DT_FLOAT"},
              "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "3"}]}}}},
    {"name": "a_in", "op": "Placeholder",
     "attr": {"dtype": {"type": "DT_INT32"}, "shape": {"shape": {"unknownRank": true}}}},
    {"name": "conv", "op": "_FusedConv2D", "input": ["z_in", "w", "^a_in"],
     "device": "/device:CPU:0",
     "attr": {"padding": {"s": "VkFMSUQ="}, "strides": {"list": {"i": ["1", "2", "2", "1"]}},
              "epsilon": {"f": 0.5}, "alpha": {"f": "NaN"}, "use_cudnn_on_gpu": {"b": true},
              "fused_ops": {"list": {"s": ["Qmlhc0FkZA==", "UmVsdQ=="]}},
              "empty": {"list": {}}, "num_args": {"i": "1"},
              "_grappler_unknown_field_test": {"i": "0"}},
     "experimentalDebugInfo": {"originalNodeNames": ["x"]}},
    {"name": "w", "op": "Const",
     "attr": {"value": {"tensor": {"dtype": "DT_FLOAT",
                                   "tensorShape": {"dim": [{"size": "2"}]}}},
              "dtype": {"type": "DT_FLOAT"}}}
  ],
  "library": {},
  "versions": {"producer": 1240, "minConsumer": 12}
})";

// A model.json with the topology above plus `extra` top-level keys, and a
// one-weight shard.
std::string WriteModel(const TempModelDir& dir, const Json& extra) {
  Json m;
  m["format"] = "graph-model";
  m["generatedBy"] = "2.11.0";
  m["convertedBy"] = nullptr;
  m["modelTopology"] = Json::parse(kTopology);
  for (const auto& [key, value] : extra.items()) m[key] = value;
  if (!m.contains("weightsManifest")) {
    m["weightsManifest"] = Json::parse(R"([{"paths": ["group1-shard1of1.bin"],
        "weights": [{"name": "w", "shape": [2], "dtype": "float32"}]}])");
    dir.Write("group1-shard1of1.bin", Bytes().F32(1).F32(2).str());
  }
  return dir.Write("model.json", m.dump(2));
}

TEST(TfjsModelTest, ParsesTopologyAndMetadata) {
  TempModelDir dir;
  const std::string json_path = WriteModel(dir, Json::object());
  auto model = LoadTfjsModel(dir.path());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->model_dir, dir.path());
  EXPECT_EQ(model->model_json, json_path);
  EXPECT_EQ(model->format, "graph-model");
  EXPECT_EQ(model->generated_by, "2.11.0");
  EXPECT_EQ(model->converted_by, "");
  EXPECT_FALSE(model->signature.has_value());
  EXPECT_FALSE(model->initializer.has_value());
  EXPECT_EQ(model->user_defined_metadata_json, "");

  const tensorflow::GraphDef& g = model->topology;
  ASSERT_EQ(g.node_size(), 4);
  EXPECT_EQ(g.versions().producer(), 1240);
  EXPECT_EQ(g.versions().min_consumer(), 12);
  const tensorflow::NodeDef& conv = g.node(2);
  EXPECT_EQ(conv.op(), "_FusedConv2D");
  EXPECT_THAT(conv.input(), ElementsAre("z_in", "w", "^a_in"));
  EXPECT_EQ(conv.device(), "/device:CPU:0");
  EXPECT_EQ(conv.attr().at("padding").s(), "VALID");  // base64-decoded
  EXPECT_THAT(conv.attr().at("strides").list().i(), ElementsAre(1, 2, 2, 1));
  EXPECT_THAT(conv.attr().at("fused_ops").list().s(),
              ElementsAre("BiasAdd", "Relu"));
  EXPECT_FLOAT_EQ(conv.attr().at("epsilon").f(), 0.5f);
  EXPECT_TRUE(std::isnan(conv.attr().at("alpha").f()));
  EXPECT_TRUE(conv.attr().at("use_cudnn_on_gpu").b());
  EXPECT_EQ(conv.attr().at("num_args").i(), 1);
  EXPECT_TRUE(conv.attr().at("empty").has_list());
  const auto& shape = g.node(0).attr().at("shape").shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).size(), -1);
  EXPECT_TRUE(g.node(1).attr().at("shape").shape().unknown_rank());
  EXPECT_EQ(g.node(3).attr().at("value").tensor().tensor_shape().dim(0).size(),
            2);

  ASSERT_EQ(model->weights.size(), 1u);
  EXPECT_EQ(model->weights.at("w").data<float>()[1], 2.0f);
}

std::string RealPath(const std::string& p) {
  char* r = ::realpath(p.c_str(), nullptr);
  std::string out = r ? r : p;
  std::free(r);
  return out;
}

// True when `p` lies in a mapping of the file `path` (/proc/self/maps).
bool InFileMapping(const void* p, const std::string& path) {
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) == nullptr) return false;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;  // NOLINT(runtime/int): sscanf's %lx
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2) continue;
    if (lo <= a && a < hi) return line.find(real) != std::string::npos;
  }
  return false;
}

// True when /proc/self/maps lists a mapping of the file `path`.
bool FileIsMapped(const std::string& path) {
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) == nullptr) return false;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(real) != std::string::npos) return true;
  }
  return false;
}

// Unquantized float32 / int32 weights of a one-shard group view the mapped
// shard (TfjsLoadOptions::view_weights); quantized and string weights are
// decoded as before; view_weights = false copies everything. The views
// stay valid after the loader returns. (min_view_bytes = 0: these weights
// are tiny.)
TEST(TfjsModelTest, UnquantizedWeightsViewTheMappedShard) {
  TempModelDir dir;
  Json manifest = Json::parse(R"([{"paths": ["group1-shard1of1.bin"],
      "weights": [
        {"name": "w", "shape": [2], "dtype": "float32"},
        {"name": "k", "shape": [1], "dtype": "int32"},
        {"name": "h", "shape": [2], "dtype": "float32",
         "quantization": {"dtype": "float16"}},
        {"name": "s", "shape": [1], "dtype": "string"},
        {"name": "i", "shape": [3], "dtype": "int32"},
        {"name": "odd", "shape": [1], "dtype": "float32"}]}])");
  // w at offset 0 and k at 8 are viewed; float16 1.0 = 0x3c00, 2.0 =
  // 0x4000; "abc" (4 + 3 bytes) leaves "i" at offset 23 (not 4-aligned:
  // copied); "odd" at 35 is not either.
  dir.Write("group1-shard1of1.bin", Bytes()
                                        .F32(1.5f)
                                        .F32(-2.5f)
                                        .I32(42)
                                        .U16(0x3c00)
                                        .U16(0x4000)
                                        .Str("abc")
                                        .I32(7)
                                        .I32(-8)
                                        .I32(9)
                                        .F32(4.0f)
                                        .str());
  const std::string path = WriteModel(dir, {{"weightsManifest", manifest}});
  const std::string shard = dir.path() + "/group1-shard1of1.bin";
  for (bool view : {true, false}) {
    TfjsLoadOptions options;
    options.view_weights = view;
    options.min_view_bytes = 0;
    auto model = LoadTfjsModel(path, options);
    ASSERT_TRUE(model.ok()) << model.status();
    const Tensor& w = model->weights.at("w");
    EXPECT_EQ(w.data<float>()[0], 1.5f);
    EXPECT_EQ(w.data<float>()[1], -2.5f);
    EXPECT_EQ(InFileMapping(w.data<float>(), shard), view);
    const Tensor& k = model->weights.at("k");
    EXPECT_EQ(k.data<int32_t>()[0], 42);
    EXPECT_EQ(InFileMapping(k.data<int32_t>(), shard), view);
    const Tensor& h = model->weights.at("h");
    EXPECT_EQ(h.data<float>()[1], 2.0f);
    EXPECT_FALSE(InFileMapping(h.data<float>(), shard));
    EXPECT_EQ(model->weights.at("s").data<std::string>()[0], "abc");
    const Tensor& i = model->weights.at("i");
    EXPECT_EQ(i.data<int32_t>()[2], 9);
    EXPECT_FALSE(InFileMapping(i.data<int32_t>(), shard));
    EXPECT_EQ(model->weights.at("odd").data<float>()[0], 4.0f);
  }
}

// By default only weights of at least min_view_bytes (16 KiB) are views;
// smaller ones are copied, and a shard with no views is unmapped.
TEST(TfjsModelTest, SmallWeightsAreCopiedByDefault) {
  TempModelDir dir;
  Json manifest = Json::parse(R"([{"paths": ["group1-shard1of1.bin"],
      "weights": [
        {"name": "small", "shape": [3], "dtype": "float32"},
        {"name": "big", "shape": [4096], "dtype": "float32"}]}])");
  Bytes bytes;
  bytes.F32(1).F32(2).F32(3);
  for (int i = 0; i < 4096; ++i) bytes.F32(static_cast<float>(i));
  dir.Write("group1-shard1of1.bin", bytes.str());
  const std::string path = WriteModel(dir, {{"weightsManifest", manifest}});
  const std::string shard = dir.path() + "/group1-shard1of1.bin";
  auto model = LoadTfjsModel(path);
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& small = model->weights.at("small");
  EXPECT_EQ(small.data<float>()[2], 3.0f);
  EXPECT_FALSE(InFileMapping(small.data<float>(), shard));
  const Tensor& big = model->weights.at("big");
  EXPECT_EQ(big.data<float>()[4095], 4095.0f);
  EXPECT_TRUE(InFileMapping(big.data<float>(), shard));

  // The last view gone, the shard is unmapped; without views it is never
  // kept.
  model->weights.erase("big");
  EXPECT_FALSE(FileIsMapped(shard));
  TfjsLoadOptions options;
  options.min_view_bytes = int64_t{1} << 20;
  auto copied = LoadTfjsModel(path, options);
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(copied->weights.at("big").data<float>()[7], 7.0f);
  EXPECT_FALSE(FileIsMapped(shard));
}

TEST(TfjsModelTest, PathMayBeFileOrFolder) {
  TempModelDir dir;
  const std::string json_path = WriteModel(dir, Json::object());
  auto by_file = LoadTfjsModel(json_path);
  ASSERT_TRUE(by_file.ok()) << by_file.status();
  const std::string real_dir = RealPath(dir.path());
  EXPECT_EQ(by_file->model_dir, real_dir);
  EXPECT_EQ(by_file->weights.size(), 1u);
  auto by_dir = LoadTfjsModel(dir.path() + "/");
  ASSERT_TRUE(by_dir.ok()) << by_dir.status();
  EXPECT_EQ(by_dir->model_json, dir.path() + "/model.json");
  // A renamed json file beside its shards.
  TempModelDir dir2;
  WriteModel(dir2, Json::object());
  ASSERT_EQ(::rename((dir2.path() + "/model.json").c_str(),
                     (dir2.path() + "/my_model.json").c_str()),
            0);
  EXPECT_TRUE(LoadTfjsModel(dir2.path() + "/my_model.json").ok());
  // Relative paths work too.
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  auto relative = LoadTfjsModel("model.json");
  auto dot = LoadTfjsModel(".");
  ASSERT_EQ(::chdir(cwd), 0);
  ASSERT_TRUE(relative.ok()) << relative.status();
  EXPECT_EQ(relative->model_dir, real_dir);
  EXPECT_TRUE(dot.ok()) << dot.status();
}

// Regression: Bazel runfiles (and users) symlink model.json and its shards
// one by one into another folder; the shards then resolve beside the real
// model.json and must be accepted (they were rejected as "outside").
TEST(TfjsModelTest, SymlinkedFilesResolveBesideRealModelJson) {
  TempModelDir real;
  WriteModel(real, Json::object());
  TempModelDir links;
  for (const char* f : {"model.json", "group1-shard1of1.bin"}) {
    ASSERT_EQ(::symlink((real.path() + "/" + f).c_str(),
                        (links.path() + "/" + f).c_str()),
              0);
  }
  auto model = LoadTfjsModel(links.path());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->model_dir, RealPath(real.path()));
}

TEST(TfjsModelTest, SignatureKeepsJsonKeyOrder) {
  TempModelDir dir;
  WriteModel(dir, Json::parse(R"({"signature": {
    "inputs": {
      "z_in": {"name": "z_in:0", "dtype": "DT_FLOAT",
               "tensorShape": {"dim": [{"size": "-1"}, {"size": "3"}]}},
      "a_in": {"name": "a_in:0", "dtype": "DT_INT32", "tensorShape": {"unknownRank": true}},
      "m_in": {"name": "m_in", "dtype": "DT_STRING", "tensorShape": {}},
      "res": {"name": "res:0", "dtype": "DT_RESOURCE", "tensorShape": {}, "resourceId": 66},
      "odd": {"name": "odd:0", "dtype": "DT_SOMETHING_NEW"},
      "dimless": {"name": "d:0", "dtype": 1, "tensorShape": {"dim": [{}, {"size": 4}]}}
    },
    "outputs": {"y": {"name": "conv:0"}, "b": {"name": "w:0"}},
    "methodName": "tensorflow/serving/predict"}})"));
  auto model = LoadTfjsModel(dir.path());
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->signature.has_value());
  const Signature& sig = *model->signature;
  EXPECT_THAT(Keys(sig.inputs),
              ElementsAre("z_in", "a_in", "m_in", "res", "odd", "dimless"));
  EXPECT_THAT(Keys(sig.outputs), ElementsAre("y", "b"));
  EXPECT_EQ(sig.method_name, "tensorflow/serving/predict");

  const SignatureEntry& z = sig.inputs[0];
  EXPECT_EQ(z.tensor_name, "z_in:0");
  EXPECT_EQ(z.dtype, DType::kFloat32);
  EXPECT_FALSE(z.shape.unknown_rank());
  EXPECT_THAT(z.shape.dims(), ElementsAre(-1, 3));
  EXPECT_FALSE(z.resource_id.has_value());
  EXPECT_EQ(sig.inputs[1].dtype, DType::kInt32);
  EXPECT_TRUE(sig.inputs[1].shape.unknown_rank());
  EXPECT_EQ(sig.inputs[2].tensor_name, "m_in");
  EXPECT_EQ(sig.inputs[2].dtype, DType::kString);
  EXPECT_FALSE(sig.inputs[2].shape.unknown_rank());  // {} = scalar
  EXPECT_TRUE(sig.inputs[2].shape.dims().empty());
  EXPECT_EQ(sig.inputs[3].dtype, DType::kResource);
  EXPECT_EQ(sig.inputs[3].resource_id, 66);
  EXPECT_EQ(sig.inputs[4].dtype, DType::kInvalid);  // unknown name
  EXPECT_TRUE(sig.inputs[4].shape.unknown_rank());  // absent
  EXPECT_EQ(sig.inputs[5].dtype, DType::kFloat32);  // enum number
  EXPECT_THAT(sig.inputs[5].shape.dims(), ElementsAre(0, 4));
  EXPECT_EQ(sig.outputs[0].dtype, DType::kInvalid);
}

TEST(TfjsModelTest, UserDefinedMetadataSignatureReplacesTopLevel) {
  TempModelDir dir;
  WriteModel(dir, Json::parse(R"({
    "signature": {"inputs": {"top": {"name": "z_in:0"}}, "outputs": {}},
    "userDefinedMetadata": {
      "author": "me",
      "signature": {"inputs": {"meta_b": {"name": "a_in:0"}, "meta_a": {"name": "z_in:0"}},
                    "outputs": {"out": {"name": "conv:0"}}},
      "structuredOutputKeys": ["k1", "k0"]}})"));
  auto model = LoadTfjsModel(dir.path());
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->signature.has_value());
  EXPECT_THAT(Keys(model->signature->inputs), ElementsAre("meta_b", "meta_a"));
  EXPECT_THAT(Keys(model->signature->outputs), ElementsAre("out"));
  EXPECT_THAT(model->structured_output_keys, ElementsAre("k1", "k0"));
  EXPECT_THAT(model->user_defined_metadata_json, HasSubstr("\"author\""));
  auto reparsed = Json::parse(model->user_defined_metadata_json);
  EXPECT_EQ(reparsed["author"], "me");
}

TEST(TfjsModelTest, UserDefinedMetadataWithoutSignatureKeepsTopLevel) {
  TempModelDir dir;
  WriteModel(dir, Json::parse(R"({
    "signature": {"inputs": {"top": {"name": "z_in:0"}}},
    "userDefinedMetadata": {"note": 1}})"));
  auto model = LoadTfjsModel(dir.path());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(Keys(model->signature->inputs), ElementsAre("top"));
  EXPECT_TRUE(model->signature->outputs.empty());
}

TEST(TfjsModelTest, InitializerAndInitializerSignature) {
  TempModelDir dir;
  WriteModel(dir, Json::parse(R"({
    "modelInitializer": {
      "node": [{"name": "table", "op": "HashTableV2",
                "attr": {"shared_name": {"s": "OTVfbG9hZF8xXzUy"},
                         "key_dtype": {"type": "DT_STRING"}}},
               {"name": "Identity", "op": "Identity", "input": ["table"]}],
      "versions": {"producer": 1240}},
    "initializerSignature": {"outputs": {
      "Identity:0": {"name": "Identity:0", "dtype": "DT_RESOURCE",
                     "tensorShape": {}, "resourceId": "66"}}}})"));
  auto model = LoadTfjsModel(dir.path());
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->initializer.has_value());
  ASSERT_EQ(model->initializer->node_size(), 2);
  EXPECT_EQ(model->initializer->node(0).attr().at("shared_name").s(),
            "95_load_1_52");
  ASSERT_TRUE(model->initializer_signature.has_value());
  EXPECT_TRUE(model->initializer_signature->inputs.empty());
  ASSERT_EQ(model->initializer_signature->outputs.size(), 1u);
  const SignatureEntry& out = model->initializer_signature->outputs[0];
  EXPECT_EQ(out.key, "Identity:0");
  EXPECT_EQ(out.dtype, DType::kResource);
  EXPECT_EQ(out.resource_id, 66);  // int64 written as a string
}

TEST(TfjsModelTest, ParseGraphDefJsonDirectly) {
  auto g = ParseGraphDefJson(R"({"node": [{"name": "a", "op": "NoOp"}],
                                 "someFutureField": [1, 2]})");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(0).name(), "a");
  EXPECT_FALSE(ParseGraphDefJson(R"({"node": 5})").ok());
  EXPECT_FALSE(ParseGraphDefJson("not json").ok());
}

// ---- errors in model.json ----

TEST(TfjsModelErrorTest, MissingFile) {
  TempModelDir dir;
  auto model = LoadTfjsModel(dir.path());  // folder without model.json
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(model.status()), HasSubstr(dir.path() + "/model.json"));
  model = LoadTfjsModel(dir.path() + "/nothing_here.json");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(model.status()), HasSubstr("nothing_here.json"));
  EXPECT_FALSE(LoadTfjsModel("").ok());
}

TEST(TfjsModelErrorTest, ModelJsonIsAFolderOrDanglingLink) {
  TempModelDir dir;
  dir.Write("model.json/inner", "");
  auto model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr(dir.path() + "/model.json"));
  EXPECT_THAT(Message(model.status()), HasSubstr("is a directory"));
  TempModelDir dir2;
  ASSERT_EQ(::symlink("gone.json", (dir2.path() + "/model.json").c_str()), 0);
  model = LoadTfjsModel(dir2.path());
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
}

TEST(TfjsModelErrorTest, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  TempModelDir dir;
  const std::string path = WriteModel(dir, Json::object());
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  auto model = LoadTfjsModel(path);
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr(path));
}

TEST(TfjsModelErrorTest, MalformedJson) {
  TempModelDir dir;
  const std::string path = dir.Write("model.json", "{\"modelTopology\": {,}");
  auto model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(model.status()), HasSubstr(path));
  EXPECT_THAT(Message(model.status()), HasSubstr("malformed JSON"));
  EXPECT_THAT(Message(model.status()), HasSubstr("line 1"));
  dir.Write("model.json", "");
  EXPECT_FALSE(LoadTfjsModel(dir.path()).ok());
  dir.Write("model.json", "[1, 2]");
  model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr("not a JSON object"));
  dir.Write("model.json", std::string("{\"a\": \"\xff\xfe\"}"));  // bad UTF-8
  EXPECT_FALSE(LoadTfjsModel(dir.path()).ok());
}

TEST(TfjsModelErrorTest, MissingOrBadTopology) {
  TempModelDir dir;
  const std::string path =
      dir.Write("model.json", R"({"format": "graph-model"})");
  auto model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr(path));
  EXPECT_THAT(Message(model.status()), HasSubstr("missing 'modelTopology'"));
  dir.Write("model.json", R"({"modelTopology": {"node": [{"name": 3}]}})");
  model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr("modelTopology"));
  EXPECT_THAT(Message(model.status()), HasSubstr(path));
  dir.Write("model.json", R"({"modelTopology": []})");
  EXPECT_FALSE(LoadTfjsModel(dir.path()).ok());
  dir.Write("model.json", R"({"modelTopology": {}, "modelInitializer": 5})");
  model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr("modelInitializer"));
}

TEST(TfjsModelErrorTest, BadSignatures) {
  TempModelDir dir;
  WriteModel(
      dir,
      Json::parse(
          R"({"signature": {"inputs": {"x": {"tensorShape": {"dim": [{"size": "abc"}]}}}}})"));
  auto model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()),
              HasSubstr("signature.inputs['x'].tensorShape.dim[0].size"));
  WriteModel(dir, Json::parse(R"({"signature": {"inputs": []}})"));
  model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr("signature.inputs"));
  WriteModel(
      dir,
      Json::parse(
          R"({"initializerSignature": {"outputs": {"h": {"resourceId": "x"}}}})"));
  model = LoadTfjsModel(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()),
              HasSubstr("initializerSignature.outputs['h'].resourceId"));
}

// ---- weight path safety ----

absl::StatusOr<TfjsModel> LoadWithShardPath(const TempModelDir& dir,
                                            const std::string& shard) {
  Json manifest = Json::array();
  manifest.push_back({{"paths", {shard}},
                      {"weights", Json::parse(R"([{"name": "w", "shape": [2],
                                                   "dtype": "float32"}])")}});
  WriteModel(dir, {{"weightsManifest", manifest}});
  return LoadTfjsModel(dir.path());
}

TEST(TfjsModelPathTest, RejectsParentTraversal) {
  TempModelDir parent;
  parent.Write("x.bin", Bytes().F32(1).F32(2).str());
  TempModelDir dir;
  for (const std::string& bad :
       {std::string("../x.bin"), std::string("a/../../x.bin"),
        std::string("sub/..")}) {
    auto model = LoadWithShardPath(dir, bad);
    ASSERT_FALSE(model.ok()) << bad;
    EXPECT_THAT(Message(model.status()), HasSubstr("'..' is not allowed"));
    EXPECT_THAT(Message(model.status()), HasSubstr(bad));
    EXPECT_THAT(Message(model.status()), HasSubstr("model.json"));
  }
  // Even when the target exists (the model folder inside `parent`).
  auto model = LoadWithShardPath(
      TempModelDir(),
      "../" + parent.path().substr(parent.path().rfind('/') + 1) + "/x.bin");
  EXPECT_FALSE(model.ok());
}

TEST(TfjsModelPathTest, RejectsAbsolutePath) {
  TempModelDir outside;
  const std::string abs = outside.Write("x.bin", Bytes().F32(1).F32(2).str());
  TempModelDir dir;
  auto model = LoadWithShardPath(dir, abs);
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr("absolute"));
  EXPECT_THAT(Message(model.status()), HasSubstr(abs));
}

TEST(TfjsModelPathTest, RejectsSymlinkLeadingOutside) {
  TempModelDir outside;
  const std::string target =
      outside.Write("x.bin", Bytes().F32(1).F32(2).str());
  TempModelDir dir;
  ASSERT_EQ(::symlink(target.c_str(), (dir.path() + "/evil.bin").c_str()), 0);
  auto model = LoadWithShardPath(dir, "evil.bin");
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr("outside the model folder"));
  EXPECT_THAT(Message(model.status()), HasSubstr("evil.bin"));
  // A symlinked folder leading outside, too.
  ASSERT_EQ(::symlink(outside.path().c_str(), (dir.path() + "/sub").c_str()),
            0);
  model = LoadWithShardPath(dir, "sub/x.bin");
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()), HasSubstr("outside the model folder"));
}

TEST(TfjsModelPathTest, AllowsSymlinkInsideAndSymlinkedModelFolder) {
  TempModelDir dir;
  dir.Write("real/x.bin", Bytes().F32(1).F32(2).str());
  ASSERT_EQ(::symlink("real/x.bin", (dir.path() + "/link.bin").c_str()), 0);
  auto model = LoadWithShardPath(dir, "link.bin");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->weights.at("w").data<float>()[1], 2.0f);
  // The model folder itself reached through a symlink.
  TempModelDir other;
  const std::string alias = other.path() + "/alias";
  ASSERT_EQ(::symlink(dir.path().c_str(), alias.c_str()), 0);
  model = LoadTfjsModel(alias);
  ASSERT_TRUE(model.ok()) << model.status();
}

TEST(TfjsModelPathTest, ResolveInsideDirectly) {
  TempModelDir dir;
  dir.Write("a/b.bin", "x");
  auto ok = ResolveInside(dir.path(), "a/b.bin");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_THAT(*ok, HasSubstr("/a/b.bin"));
  EXPECT_TRUE(ResolveInside(dir.path(), "./a//b.bin").ok());
  EXPECT_FALSE(ResolveInside(dir.path(), "").ok());
  EXPECT_FALSE(ResolveInside(dir.path(), "/etc/passwd").ok());
  EXPECT_FALSE(ResolveInside(dir.path(), "..").ok());
  EXPECT_FALSE(ResolveInside(dir.path(), "a/../../x").ok());
  EXPECT_FALSE(ResolveInside(dir.path(), ".").ok());  // the folder itself
  auto missing = ResolveInside(dir.path(), "missing.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

// ---- shared fixtures ----

class TfjsFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = SharedTfjsFixturesDir();
    if (dir_.empty()) GTEST_SKIP() << "shared TF.js fixtures not found";
  }
  absl::StatusOr<TfjsModel> Load(const std::string& name) {
    return LoadTfjsModel(dir_ + "/" + name);
  }
  std::string dir_;
};

TEST_F(TfjsFixtureTest, DenseModel) {
  auto model = Load("dense_model");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->format, "graph-model");
  EXPECT_EQ(model->converted_by, "TensorFlow.js Converter v2.4.0");
  EXPECT_EQ(model->topology.node_size(), 5);
  const std::string kernel =
      "StatefulPartitionedCall/sequential_1/dense_Dense1/MatMul/ReadVariableOp";
  const std::string bias =
      "StatefulPartitionedCall/sequential_1/dense_Dense1/BiasAdd/"
      "ReadVariableOp";
  EXPECT_THAT(model->weight_names, ElementsAre(kernel, bias));
  EXPECT_EQ(model->weights.at(kernel).shape(), Shape({1, 1}));
  EXPECT_EQ(model->weights.at(bias).shape(), Shape({1}));
  EXPECT_EQ(model->weights.at(kernel).dtype(), DType::kFloat32);
  EXPECT_NEAR(model->weights.at(kernel).data<float>()[0], 1.9514, 1e-3);
  ASSERT_TRUE(model->signature.has_value());
  ASSERT_EQ(model->signature->inputs.size(), 1u);
  EXPECT_EQ(model->signature->inputs[0].key, "dense_dense1_input:0");
  EXPECT_THAT(model->signature->inputs[0].shape.dims(), ElementsAre(-1, 1));
  EXPECT_EQ(model->signature->outputs[0].tensor_name, "Identity:0");
  EXPECT_EQ(model->weight_stats.total_bytes, 8);
  EXPECT_EQ(model->weight_stats.by_dtype.at("float32").count, 2);
}

TEST_F(TfjsFixtureTest, RnGraphModel) {
  auto model = Load("rn_graph_model/model.json");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_FALSE(model->signature.has_value());
  EXPECT_EQ(model->topology.node_size(), 6);
  EXPECT_EQ(model->topology.versions().min_consumer(), 12);
  EXPECT_EQ(model->weights.size(), 2u);
  EXPECT_EQ(model->weights
                .at("StatefulPartitionedCall/sequential/dense_Dense2/MatMul/"
                    "ReadVariableOp")
                .shape(),
            Shape({10, 1}));
  EXPECT_EQ(model->weights
                .at("StatefulPartitionedCall/sequential/dense_Dense2/BiasAdd/"
                    "ReadVariableOp")
                .shape(),
            Shape({1}));
  EXPECT_EQ(model->weight_stats.total_bytes, 44);
}

TEST_F(TfjsFixtureTest, LoadPredictGraphModelUsesMetadataSignature) {
  auto model = Load("load_predict_graph_model");
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->signature.has_value());
  ASSERT_EQ(model->signature->inputs.size(), 1u);
  EXPECT_EQ(model->signature->inputs[0].tensor_name, "Placeholder:0");
  EXPECT_THAT(model->signature->inputs[0].shape.dims(), ElementsAre(2, 2));
  EXPECT_EQ(model->signature->outputs[0].key, "MatMul:0");
  EXPECT_FALSE(model->user_defined_metadata_json.empty());
  EXPECT_EQ(model->weights.at("w").shape(), Shape({2, 2}));
}

TEST_F(TfjsFixtureTest, HashTableV2) {
  auto model = Load("hash_table_v2");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(model->weight_names, ElementsAre("unknown_0", "114", "116"));
  EXPECT_EQ(model->weights.at("unknown_0").shape(), Shape());
  EXPECT_EQ(model->weights.at("unknown_0").data<int32_t>()[0], -1);
  const Tensor& keys = model->weights.at("114");
  EXPECT_EQ(keys.dtype(), DType::kString);
  EXPECT_EQ(keys.data<std::string>()[0], "a");
  EXPECT_EQ(keys.data<std::string>()[1], "b");
  const Tensor& values = model->weights.at("116");
  EXPECT_EQ(values.data<int32_t>()[0], 0);
  EXPECT_EQ(values.data<int32_t>()[1], 1);

  ASSERT_TRUE(model->signature.has_value());
  EXPECT_THAT(Keys(model->signature->inputs),
              ElementsAre("input", "unknown:0"));
  EXPECT_EQ(model->signature->inputs[0].dtype, DType::kString);
  EXPECT_EQ(model->signature->inputs[1].resource_id, 66);
  EXPECT_EQ(model->signature->inputs[1].dtype, DType::kResource);
  EXPECT_EQ(model->signature->outputs[0].tensor_name, "Identity:0");

  ASSERT_TRUE(model->initializer.has_value());
  EXPECT_EQ(model->initializer->node_size(), 26);
  bool found_table = false;
  for (const auto& node : model->initializer->node()) {
    if (node.op() == "HashTableV2") {
      found_table = true;
      EXPECT_EQ(node.attr().at("shared_name").s(), "95_load_1_52");
    }
  }
  EXPECT_TRUE(found_table);
  ASSERT_TRUE(model->initializer_signature.has_value());
  ASSERT_EQ(model->initializer_signature->outputs.size(), 1u);
  EXPECT_EQ(model->initializer_signature->outputs[0].resource_id, 66);
  EXPECT_EQ(model->weight_stats.by_dtype.at("string").bytes_stored, 10);
}

}  // namespace
}  // namespace graphrt
