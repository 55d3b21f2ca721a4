// Model-level tests on a small TF.js-layout model with a hash table built
// by the initializer graph and bound by resourceId.
#include "runtime/model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace graphrt {
namespace {

// Keys "a","bb","ccc" (string) -> values 10,20,30 stored as int32 weights for
// DT_INT64 Consts (as the TF.js converter writes them); default -1.
constexpr char kModelJson[] = R"({
 "format": "graph-model",
 "modelTopology": {"node": [
  {"name": "words", "op": "Placeholder",
   "attr": {"dtype": {"type": "DT_STRING"}, "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "-1"}]}}}},
  {"name": "table", "op": "Placeholder", "attr": {"dtype": {"type": "DT_RESOURCE"}, "shape": {"shape": {}}}},
  {"name": "default", "op": "Const", "attr": {"dtype": {"type": "DT_INT64"}, "value": {"tensor": {"dtype": "DT_INT64", "tensorShape": {}}}}},
  {"name": "find", "op": "LookupTableFindV2", "input": ["table", "words", "default"],
   "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_INT64"}}},
  {"name": "size", "op": "LookupTableSizeV2", "input": ["table"]},
  {"name": "ids", "op": "Identity", "input": ["find"], "attr": {"T": {"type": "DT_INT64"}}}
 ], "versions": {}},
 "signature": {
  "inputs": {
   "words": {"name": "words:0", "dtype": "DT_STRING", "tensorShape": {"dim": [{"size": "-1"}, {"size": "-1"}]}},
   "table:0": {"name": "table:0", "dtype": "DT_RESOURCE", "tensorShape": {}, "resourceId": RID}
  },
  "outputs": {"ids": {"name": "ids:0", "dtype": "DT_INT64"}}
 },
 "modelInitializer": {"node": [
  {"name": "keys", "op": "Const", "attr": {"dtype": {"type": "DT_STRING"}, "value": {"tensor": {"dtype": "DT_STRING", "tensorShape": {"dim": [{"size": "3"}]}}}}},
  {"name": "values", "op": "Const", "attr": {"dtype": {"type": "DT_INT64"}, "value": {"tensor": {"dtype": "DT_INT64", "tensorShape": {"dim": [{"size": "3"}]}}}}},
  {"name": "hash_table", "op": "HashTableV2",
   "attr": {"key_dtype": {"type": "DT_STRING"}, "value_dtype": {"type": "DT_INT64"}, "shared_name": {"s": "dGFibGVfMQ=="}, "container": {"s": ""}, "use_node_name_sharing": {"b": false}}},
  {"name": "import", "op": "LookupTableImportV2", "input": ["hash_table", "keys", "values"],
   "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_INT64"}}},
  {"name": "Identity", "op": "Identity", "input": ["hash_table", "^import"], "attr": {"T": {"type": "DT_RESOURCE"}}}
 ]},
 "initializerSignature": {"outputs": {"Identity:0": {"name": "Identity:0", "dtype": "DT_RESOURCE", "tensorShape": {}, "resourceId": 7}}},
 "weightsManifest": [{"paths": ["w.bin"], "weights": [
  {"name": "default", "shape": [], "dtype": "int32"},
  {"name": "keys", "shape": [3], "dtype": "string"},
  {"name": "values", "shape": [3], "dtype": "int32"}
 ]}]
})";

std::string WriteModel(const std::string& name, int resource_id) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::string cmd = "mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ofstream(dir + "/model.json")
      << absl::StrReplaceAll(kModelJson, {{"RID", absl::StrCat(resource_id)}});
  std::string bin;
  auto put32 = [&](int32_t v) { bin.append(reinterpret_cast<char*>(&v), 4); };
  put32(-1);
  for (std::string k : {"a", "bb", "ccc"}) {
    put32(static_cast<int32_t>(k.size()));
    bin += k;
  }
  for (int v : {10, 20, 30}) put32(v);
  std::ofstream(dir + "/w.bin", std::ios::binary) << bin;
  return dir;
}

Tensor Words(std::vector<std::string> words, Shape shape) {
  Tensor t = *Tensor::Allocate(DType::kString, shape);
  for (size_t i = 0; i < words.size(); ++i)
    t.mutable_data<std::string>()[i] = words[i];
  return t;
}

TEST(ModelTest, InitializerBuildsTableLookupKeepsKeyShape) {
  auto model = Model::Load(WriteModel("ok", 7));
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ((*model)->inputs().size(), 1u);  // the resource input is bound
  EXPECT_EQ((*model)->inputs()[0].key, "words");
  // TF semantics: keys [2,2] -> values [2,2]. (TF.js flattens this to [4].)
  auto out = (*model)->Run(
      {{"words", Words({"a", "zz", "ccc", "bb"}, Shape({2, 2}))}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  const Tensor& ids = (*out)[0];
  EXPECT_EQ(ids.dtype(), DType::kInt64);
  EXPECT_EQ(ids.shape(), Shape({2, 2}));
  EXPECT_EQ(std::vector<int64_t>(ids.data<int64_t>(), ids.data<int64_t>() + 4),
            (std::vector<int64_t>{10, -1, 30, 20}));
  // Intermediate outputs by node name; size is int64 as in TF (TF.js: int32).
  auto size = (*model)->Run({}, {"size"});
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ((*size)[0].dtype(), DType::kInt64);
  EXPECT_EQ((*size)[0].data<int64_t>()[0], 3);
}

TEST(ModelTest, InitRuntimeIsIdempotentAndThreadSafe) {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([] { Model::InitRuntime(); });
  for (auto& t : threads) t.join();
  Model::InitRuntime();
  auto model = Model::Load(WriteModel("init", 7));
  ASSERT_TRUE(model.ok()) << model.status();
}

TEST(ModelTest, InputNamesByKeyTensorOrNode) {
  auto model = Model::Load(WriteModel("names", 7));
  ASSERT_TRUE(model.ok()) << model.status();
  for (const char* name : {"words", "words:0"}) {
    auto out = (*model)->Run({{name, Words({"bb"}, Shape({1, 1}))}}, {"ids:0"});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    EXPECT_EQ((*out)[0].data<int64_t>()[0], 20);
  }
}

TEST(ModelTest, BadInputsAreClearErrors) {
  auto model = Model::Load(WriteModel("bad", 7));
  ASSERT_TRUE(model.ok()) << model.status();
  struct Case {
    std::vector<NamedTensor> inputs;
    std::vector<std::string> outputs;
    const char* expect;
  };
  std::vector<Case> cases = {
      {{{"words", Tensor::FromVector<float>({1.f}, Shape({1, 1}))}},
       {},
       "input 'words' must be string, got float32"},
      {{{"words", Words({"a"}, Shape({1}))}}, {}, "must have shape [-1,-1]"},
      {{}, {}, "missing input 'words'"},
      {{{"nope", Words({"a"}, Shape({1, 1}))}}, {}, "unknown input 'nope'"},
      {{{"words", Words({"a"}, Shape({1, 1}))}},
       {"nope"},
       "unknown output 'nope'"},
      {{{"words", Words({"a"}, Shape({1, 1}))},
        {"words:0", Words({"a"}, Shape({1, 1}))}},
       {},
       "fed twice"},
  };
  for (const auto& c : cases) {
    auto out = (*model)->Run(c.inputs, c.outputs);
    ASSERT_FALSE(out.ok()) << c.expect;
    EXPECT_NE(out.status().message().find(c.expect), std::string::npos)
        << "want '" << c.expect << "', got: " << out.status();
  }
}

TEST(ModelTest, UnboundResourceIdIsLoadError) {
  auto model = Model::Load(WriteModel("unbound", 99));
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("resourceId 99"), std::string::npos)
      << model.status();
}

TEST(ModelTest, ConcurrentRunsMatchSingleThreaded) {
  std::string dir = WriteModel("concurrent", 7);
  ModelOptions one;
  one.threads = 1;
  auto reference = Model::Load(dir, one);
  auto model = Model::Load(dir);
  ASSERT_TRUE(reference.ok() && model.ok());
  std::vector<std::string> vocab = {"a", "bb", "ccc", "x", "", "bbb"};
  auto input_for = [&](int i) {
    std::vector<std::string> w;
    for (int j = 0; j < 6; ++j) w.push_back(vocab[(i + j) % vocab.size()]);
    return Words(w, Shape({2, 3}));
  };
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        Tensor in = input_for(t + i);
        auto a = (*model)->Run({{"words", in}});
        auto b = (*reference)->Run({{"words", in}});
        if (!a.ok() || !b.ok() || !(*a)[0].IdenticalTo((*b)[0])) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// Regression (faceboxes): a signature with outputs only; the inputs are then
// the Placeholders, with their declared dtype (uint8 here).
TEST(ModelTest, SignatureWithOutputsOnly) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/outputs_only");
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  std::ofstream(dir + "/model.json") << R"({
    "modelTopology": {"node": [
      {"name": "image", "op": "Placeholder", "attr": {"dtype": {"type": "DT_UINT8"},
        "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "3"}]}}}},
      {"name": "f", "op": "Cast", "input": ["image"],
       "attr": {"SrcT": {"type": "DT_UINT8"}, "DstT": {"type": "DT_FLOAT"}}},
      {"name": "out", "op": "Identity", "input": ["f"]}]},
    "signature": {"outputs": {"scores": {"name": "out"}}},
    "weightsManifest": []})";
  auto model = Model::Load(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ((*model)->inputs().size(), 1u);
  EXPECT_EQ((*model)->inputs()[0].key, "image");
  EXPECT_EQ((*model)->inputs()[0].dtype, DType::kUInt8);
  ASSERT_EQ((*model)->outputs().size(), 1u);
  EXPECT_EQ((*model)->outputs()[0].key, "scores");
  Tensor img = *Tensor::Allocate(DType::kUInt8, Shape({1, 3}));
  img.mutable_data<uint8_t>()[2] = 200;
  auto out = (*model)->Run({{"image", img}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<float>()[2], 200.f);
}

}  // namespace
}  // namespace graphrt
