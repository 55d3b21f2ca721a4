// HashTable(V2), LookupTableImport(V2), InitializeTable(V2),
// LookupTableFind(V2), LookupTableSize(V2): TensorFlow semantics.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ops/lookup/hash_table.h"
#include "ops/registry.h"
#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

// Substring check without gmock (the test links gtest only).
#define EXPECT_HAS_SUBSTR(str, sub)                                  \
  EXPECT_TRUE(absl::StrContains(str, sub))                           \
      << "'" << (str) << "' does not contain '" << (sub) << "'"

// Runs one node against a shared ResourceManager (OpTest has one manager
// per node; tables must be shared by several nodes here).
absl::StatusOr<std::vector<Tensor>> RunNode(const tensorflow::NodeDef& node,
                                            ResourceManager* resources,
                                            const std::vector<Tensor>& inputs) {
  KernelFactory factory = BuiltinOps().Find(node.op());
  if (factory == nullptr) return absl::NotFoundError("unknown op " + node.op());
  KernelInit init{node, static_cast<int>(inputs.size()), nullptr};
  auto kernel = factory(init);
  if (!kernel.ok()) return kernel.status();
  std::vector<const Tensor*> ptrs;
  for (const auto& t : inputs) ptrs.push_back(&t);
  std::vector<Tensor> outputs;
  KernelContext ctx(ptrs, &outputs, resources);
  absl::Status s = (*kernel)->Run(ctx);
  if (!s.ok()) return s;
  return outputs;
}

Tensor Strings(const std::vector<int64_t>& shape,
               const std::vector<std::string>& v) {
  return T_<std::string>(shape, v);
}

Tensor Bools(const std::vector<int64_t>& shape, const std::vector<int>& v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i] != 0;
  return t;
}

HashTable* TableOf(const Tensor& handle) {
  return dynamic_cast<HashTable*>(
      handle.data<ResourceHandle>()->resource.get());
}

class HashTableOpsTest : public ::testing::Test {
 protected:
  // Runs HashTableV2 (or `op`) and returns the handle tensor.
  Tensor NewTable(DType key, DType value, const std::string& shared_name = "",
                  const std::string& node_name = "table",
                  const std::string& op = "HashTableV2") {
    OpTest n(op, node_name);
    n.Attr("key_dtype", key).Attr("value_dtype", value);
    n.Attr("shared_name", shared_name).Attr("container", "");
    n.Attr("use_node_name_sharing", false);
    auto out = RunNode(n.node(), &rm_, {});
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return Tensor();
    return (*out)[0];
  }

  absl::Status Import(const Tensor& handle, const Tensor& keys,
                      const Tensor& values,
                      const std::string& op = "LookupTableImportV2") {
    OpTest n(op, "import");
    auto out = RunNode(n.node(), &rm_, {handle, keys, values});
    return out.status();
  }

  absl::StatusOr<Tensor> Find(const Tensor& handle, const Tensor& keys,
                              const Tensor& dflt,
                              const std::string& op = "LookupTableFindV2") {
    OpTest n(op, "find");
    auto out = RunNode(n.node(), &rm_, {handle, keys, dflt});
    if (!out.ok()) return out.status();
    return (*out)[0];
  }

  absl::StatusOr<int64_t> Size(const Tensor& handle,
                               const std::string& op = "LookupTableSizeV2") {
    OpTest n(op, "size");
    auto out = RunNode(n.node(), &rm_, {handle});
    if (!out.ok()) return out.status();
    const Tensor& t = (*out)[0];
    EXPECT_EQ(t.dtype(), DType::kInt64);
    EXPECT_EQ(t.rank(), 0);
    return *t.data<int64_t>();
  }

  Tensor StringToInt32Table() {
    Tensor h = NewTable(DType::kString, DType::kInt32);
    absl::Status s = Import(h, Strings({3}, {"a", "b", "c"}),
                            T_<int32_t>({3}, {10, 20, 30}));
    EXPECT_TRUE(s.ok()) << s;
    return h;
  }

  ResourceManager rm_;
};

// --- HashTable(V2): handles, names, sharing ------------------------------

TEST_F(HashTableOpsTest, HashTableV2OutputsScalarResourceHandle) {
  Tensor h = NewTable(DType::kString, DType::kInt32, "vocab");
  ASSERT_TRUE(h.valid());
  EXPECT_EQ(h.dtype(), DType::kResource);
  EXPECT_EQ(h.rank(), 0);
  const ResourceHandle& handle = *h.data<ResourceHandle>();
  EXPECT_EQ(handle.name, "/vocab");
  ASSERT_NE(TableOf(h), nullptr);
  EXPECT_EQ(TableOf(h)->key_dtype(), DType::kString);
  EXPECT_EQ(TableOf(h)->value_dtype(), DType::kInt32);
  EXPECT_EQ(TableOf(h)->DebugString(), "HashTable string->int32 (uninitialized)");
  EXPECT_EQ(rm_.Lookup("/vocab"), handle.resource);
}

TEST_F(HashTableOpsTest, V1HashTableOutputsTheSameKindOfHandle) {
  Tensor h = NewTable(DType::kInt64, DType::kFloat32, "v1", "t", "HashTable");
  ASSERT_TRUE(h.valid());
  EXPECT_EQ(h.dtype(), DType::kResource);
  ASSERT_NE(TableOf(h), nullptr);
  ASSERT_TRUE(Import(h, T_<int64_t>({2}, {1, 2}), T_<float>({2}, {.5f, 1.5f}),
                     "LookupTableImport")
                  .ok());
  auto out = Find(h, T_<int64_t>({3}, {2, 1, 7}), Tensor::Scalar<float>(-1.f),
                  "LookupTableFind");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{1.5f, .5f, -1.f}));
  EXPECT_EQ(*Size(h, "LookupTableSize"), 2);
}

TEST_F(HashTableOpsTest, SharedNameAndContainerGiveOneTable) {
  OpTest a("HashTableV2", "a");
  a.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt64);
  a.Attr("shared_name", "shared").Attr("container", "c1");
  OpTest b("HashTableV2", "b");
  b.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt64);
  b.Attr("shared_name", "shared").Attr("container", "c1");
  OpTest c("HashTableV2", "c");
  c.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt64);
  c.Attr("shared_name", "shared").Attr("container", "c2");
  auto ha = RunNode(a.node(), &rm_, {});
  auto hb = RunNode(b.node(), &rm_, {});
  auto hc = RunNode(c.node(), &rm_, {});
  ASSERT_TRUE(ha.ok() && hb.ok() && hc.ok());
  EXPECT_EQ((*ha)[0].data<ResourceHandle>()->name, "c1/shared");
  EXPECT_EQ((*hc)[0].data<ResourceHandle>()->name, "c2/shared");
  EXPECT_EQ(TableOf((*ha)[0]), TableOf((*hb)[0]));
  EXPECT_NE(TableOf((*ha)[0]), TableOf((*hc)[0]));
  // Running the same node again returns the same table.
  auto ha2 = RunNode(a.node(), &rm_, {});
  ASSERT_TRUE(ha2.ok());
  EXPECT_EQ(TableOf((*ha)[0]), TableOf((*ha2)[0]));
  EXPECT_EQ(rm_.List().size(), 2u);
}

TEST_F(HashTableOpsTest, NodeNameSharing) {
  OpTest a("HashTableV2", "scope/hash_table");
  a.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt32);
  a.Attr("use_node_name_sharing", true);
  auto h1 = RunNode(a.node(), &rm_, {});
  auto h2 = RunNode(a.node(), &rm_, {});  // a second kernel, same node name
  ASSERT_TRUE(h1.ok() && h2.ok());
  EXPECT_EQ((*h1)[0].data<ResourceHandle>()->name, "/scope/hash_table");
  EXPECT_EQ(TableOf((*h1)[0]), TableOf((*h2)[0]));
  // shared_name wins over the node name (the TF.js converter sets both).
  a.Attr("shared_name", "95_load_1_52");
  auto h3 = RunNode(a.node(), &rm_, {});
  ASSERT_TRUE(h3.ok());
  EXPECT_EQ((*h3)[0].data<ResourceHandle>()->name, "/95_load_1_52");
}

TEST_F(HashTableOpsTest, NoSharingGivesEachKernelItsOwnTable) {
  OpTest a("HashTableV2", "t");
  a.Attr("key_dtype", DType::kInt32).Attr("value_dtype", DType::kInt32);
  auto f = BuiltinOps().Find("HashTableV2");
  KernelInit init{a.node(), 0, nullptr};
  auto k1 = f(init);
  auto k2 = f(init);
  ASSERT_TRUE(k1.ok() && k2.ok());
  auto run = [&](const Kernel& k) {
    std::vector<Tensor> outs;
    KernelContext ctx({}, &outs, &rm_);
    EXPECT_TRUE(k.Run(ctx).ok());
    return outs[0];
  };
  Tensor a1 = run(**k1), a2 = run(**k1), b1 = run(**k2);
  EXPECT_EQ(TableOf(a1), TableOf(a2));  // one kernel: one table
  EXPECT_NE(TableOf(a1), TableOf(b1));  // private per kernel
  EXPECT_HAS_SUBSTR(a1.data<ResourceHandle>()->name, ("_t"));
  EXPECT_NE(a1.data<ResourceHandle>()->name, b1.data<ResourceHandle>()->name);
}

TEST_F(HashTableOpsTest, ConflictingDTypesForSharedName) {
  NewTable(DType::kString, DType::kInt32, "x");
  OpTest b("HashTableV2", "b");
  b.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kFloat32);
  b.Attr("shared_name", "x");
  auto out = RunNode(b.node(), &rm_, {});
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()),
              ("Conflicting key/value dtypes string->float32 with "
                        "string-int32 for table /x"));
}

TEST_F(HashTableOpsTest, CreateChecksAttrsAndArity) {
  OpTest missing("HashTableV2");
  missing.Attr("key_dtype", DType::kString);
  EXPECT_FALSE(missing.Create(0).ok());  // no value_dtype

  OpTest bad_key("HashTableV2");
  bad_key.Attr("key_dtype", DType::kFloat32).Attr("value_dtype", DType::kInt32);
  absl::Status s = bad_key.Create(0);
  ASSERT_FALSE(s.ok());
  EXPECT_HAS_SUBSTR(std::string(s.message()), ("unsupported key dtype float32"));

  OpTest bad_value("HashTableV2");
  bad_value.Attr("key_dtype", DType::kInt64).Attr("value_dtype", DType::kUInt8);
  EXPECT_FALSE(bad_value.Create(0).ok());

  OpTest ok("HashTableV2");
  ok.Attr("key_dtype", DType::kInt64).Attr("value_dtype", DType::kString);
  EXPECT_TRUE(ok.Create(0).ok());
  EXPECT_FALSE(ok.Create(1).ok());

  EXPECT_FALSE(OpTest("LookupTableFindV2").Create(2).ok());
  EXPECT_FALSE(OpTest("LookupTableImportV2").Create(2).ok());
  EXPECT_FALSE(OpTest("InitializeTableV2").Create(4).ok());
  EXPECT_FALSE(OpTest("LookupTableSizeV2").Create(2).ok());
  EXPECT_TRUE(OpTest("LookupTableSizeV2").Create(1).ok());
}

TEST_F(HashTableOpsTest, NoResourceManagerIsAnError) {
  OpTest a("HashTableV2");
  a.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt32);
  auto out = RunNode(a.node(), nullptr, {});
  EXPECT_FALSE(out.ok());
}

// --- Import / Find / Size -------------------------------------------------

TEST_F(HashTableOpsTest, ImportFindSizeStringToInt32) {
  Tensor h = NewTable(DType::kString, DType::kInt32);
  EXPECT_EQ(*Size(h), 0);  // 0 until initialized
  ASSERT_TRUE(Import(h, Strings({3}, {"a", "b", "c"}),
                     T_<int32_t>({3}, {10, 20, 30}))
                  .ok());
  EXPECT_EQ(*Size(h), 3);
  EXPECT_EQ(TableOf(h)->DebugString(), "HashTable string->int32 (3)");
  auto out = Find(h, Strings({5}, {"c", "a", "zz", "", "b"}),
                  Tensor::Scalar<int32_t>(-1));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->dtype(), DType::kInt32);
  EXPECT_EQ(out->shape(), Shape({5}));
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{30, 10, -1, -1, 20}));
}

TEST_F(HashTableOpsTest, FindKeepsTheKeysShape) {
  Tensor h = StringToInt32Table();
  // [2,2] keys -> [2,2] values (TF.js would flatten to [4]).
  auto out = Find(h, Strings({2, 2}, {"a", "x", "b", "c"}),
                  Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{10, 0, 20, 30}));
  // Scalar key -> scalar value (TF.js: [1]).
  out = Find(h, Tensor::Scalar<std::string>("b"), Tensor::Scalar<int32_t>(0));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->rank(), 0);
  EXPECT_EQ(*out->data<int32_t>(), 20);
  // Rank 3 and empty keys.
  out = Find(h, Strings({1, 2, 1}, {"c", "q"}), Tensor::Scalar<int32_t>(7));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->shape(), Shape({1, 2, 1}));
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{30, 7}));
  out = Find(h, *Tensor::Allocate(DType::kString, Shape({0, 3})),
             Tensor::Scalar<int32_t>(7));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({0, 3}));
}

TEST_F(HashTableOpsTest, DefaultValueScalarOrKeysShapedFirstElementUsed) {
  Tensor h = StringToInt32Table();
  // A keys-shaped default is accepted; TF's HashTable uses its first element.
  auto out = Find(h, Strings({3}, {"x", "a", "y"}), T_<int32_t>({3}, {5, 6, 7}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{5, 10, 5}));
  out = Find(h, Strings({3}, {"x", "a", "y"}), T_<int32_t>({2}, {5, 6}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(out.status().message()),
              ("Expected shape [] or [3] for default value, got [2]"));
}

TEST_F(HashTableOpsTest, FindBeforeInitialization) {
  Tensor h = NewTable(DType::kString, DType::kInt32);
  auto out = Find(h, Strings({1}, {"a"}), Tensor::Scalar<int32_t>(0));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(out.status().message(), "Table not initialized.");
}

TEST_F(HashTableOpsTest, ImportDTypeAndShapeErrors) {
  Tensor h = NewTable(DType::kString, DType::kInt32);
  absl::Status s = Import(h, T_<int32_t>({2}, {1, 2}), T_<int32_t>({2}, {1, 2}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Key must be type string but got int32");
  s = Import(h, Strings({2}, {"a", "b"}), T_<float>({2}, {1, 2}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "Value must be type int32 but got float32");
  s = Import(h, Strings({2}, {"a", "b"}), T_<int32_t>({3}, {1, 2, 3}));
  ASSERT_FALSE(s.ok());
  EXPECT_HAS_SUBSTR(std::string(s.message()), ("Expected shape [2] for value, got [3]"));
  EXPECT_FALSE(TableOf(h)->is_initialized());
  // LookupTableImport takes any shape as long as keys and values agree.
  ASSERT_TRUE(Import(h, Strings({2, 2}, {"a", "b", "c", "d"}),
                     T_<int32_t>({2, 2}, {1, 2, 3, 4}))
                  .ok());
  EXPECT_EQ(*Size(h), 4);
  auto out = Find(h, Strings({1}, {"d"}), Tensor::Scalar<int32_t>(0));
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{4}));
}

TEST_F(HashTableOpsTest, FindDTypeErrors) {
  Tensor h = StringToInt32Table();
  auto out = Find(h, T_<int64_t>({1}, {1}), Tensor::Scalar<int32_t>(0));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "Key must be type string but got int64");
  out = Find(h, Strings({1}, {"a"}), Tensor::Scalar<int64_t>(0));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "Value must be type int32 but got int64");
}

TEST_F(HashTableOpsTest, OpTypeAttrsCheckedAgainstTable) {
  Tensor h = StringToInt32Table();
  OpTest find("LookupTableFindV2");
  find.Attr("Tin", DType::kString).Attr("Tout", DType::kInt64);
  auto out = RunNode(find.node(), &rm_,
                     {h, Strings({1}, {"a"}), Tensor::Scalar<int32_t>(0)});
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()),
              ("op is typed string->int64 but the table is string->int32"));
  OpTest find_ok("LookupTableFindV2");
  find_ok.Attr("Tin", DType::kString).Attr("Tout", DType::kInt32);
  EXPECT_TRUE(RunNode(find_ok.node(), &rm_,
                      {h, Strings({1}, {"a"}), Tensor::Scalar<int32_t>(0)})
                  .ok());

  Tensor h2 = NewTable(DType::kInt64, DType::kString, "h2");
  OpTest init("InitializeTableV2");
  init.Attr("Tkey", DType::kInt32).Attr("Tval", DType::kString);
  out = RunNode(init.node(), &rm_,
                {h2, T_<int64_t>({1}, {1}), Strings({1}, {"x"})});
  ASSERT_FALSE(out.ok());
  OpTest imp("LookupTableImportV2");
  imp.Attr("Tin", DType::kInt64).Attr("Tout", DType::kString);
  EXPECT_TRUE(RunNode(imp.node(), &rm_,
                      {h2, T_<int64_t>({1}, {1}), Strings({1}, {"x"})})
                  .ok());
}

TEST_F(HashTableOpsTest, HandleInputMustBeATable) {
  auto out = Find(T_<int32_t>({1}, {0}), Strings({1}, {"a"}),
                  Tensor::Scalar<int32_t>(0));
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()), ("table handle"));
  Tensor empty = *Tensor::Allocate(DType::kResource, Shape());
  EXPECT_FALSE(Size(empty).ok());
}

// --- InitializeTable(V2) ----------------------------------------------------

TEST_F(HashTableOpsTest, InitializeTableRequiresVectorsOfEqualLength) {
  for (const char* op : {"InitializeTableV2", "InitializeTable"}) {
    Tensor h = NewTable(DType::kString, DType::kInt64, op);
    absl::Status s = Import(h, Strings({2, 1}, {"a", "b"}),
                            T_<int64_t>({2, 1}, {1, 2}), op);
    ASSERT_FALSE(s.ok());
    EXPECT_HAS_SUBSTR(std::string(s.message()),
                ("Keys must be a vector, but received shape [2,1]"));
    s = Import(h, Strings({2}, {"a", "b"}), T_<int64_t>({2, 1}, {1, 2}), op);
    ASSERT_FALSE(s.ok());
    EXPECT_HAS_SUBSTR(std::string(s.message()), ("Values must be a vector"));
    s = Import(h, Strings({2}, {"a", "b"}), T_<int64_t>({3}, {1, 2, 3}), op);
    ASSERT_FALSE(s.ok());
    EXPECT_HAS_SUBSTR(std::string(s.message()),
                ("Keys and values must have the same size 2 vs 3"));
    s = Import(h, T_<int32_t>({2}, {1, 2}), T_<int64_t>({2}, {1, 2}), op);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.message(), "Key must be type string but got int32");
    s = Import(h, Strings({2}, {"a", "b"}), T_<int64_t>({2}, {1, 2}), op);
    ASSERT_TRUE(s.ok()) << s;
    auto out = Find(h, Strings({2}, {"b", "q"}), Tensor::Scalar<int64_t>(-9));
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(Values<int64_t>(*out), (std::vector<int64_t>{2, -9}));
  }
}

// --- duplicates and re-initialization ----------------------------------------

TEST_F(HashTableOpsTest, DuplicateKeySameValueIsAccepted) {
  Tensor h = NewTable(DType::kString, DType::kInt32);
  ASSERT_TRUE(Import(h, Strings({4}, {"a", "b", "a", "a"}),
                     T_<int32_t>({4}, {1, 2, 1, 1}))
                  .ok());
  EXPECT_EQ(*Size(h), 2);
}

TEST_F(HashTableOpsTest, DuplicateKeyDifferentValueFails) {
  Tensor h = NewTable(DType::kString, DType::kInt32);
  absl::Status s = Import(h, Strings({3}, {"k", "b", "k"}),
                          T_<int32_t>({3}, {1, 2, 3}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "HashTable has different value for same key. Key k has 1 and "
            "trying to add value 3");
  // The failed import left the table uninitialized; a good one still works.
  EXPECT_FALSE(TableOf(h)->is_initialized());
  EXPECT_EQ(*Size(h), 0);
  ASSERT_TRUE(Import(h, Strings({1}, {"k"}), T_<int32_t>({1}, {1})).ok());
  EXPECT_EQ(*Size(h), 1);

  Tensor h2 = NewTable(DType::kInt64, DType::kFloat32, "f");
  s = Import(h2, T_<int64_t>({2}, {5, 5}), T_<float>({2}, {0.5f, 0.25f}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "HashTable has different value for same key. Key 5 has 0.5 and "
            "trying to add value 0.25");
}

TEST_F(HashTableOpsTest, ReinitializeSameCountIsNoOpElseError) {
  Tensor h = StringToInt32Table();
  // Same number of entries: accepted, table unchanged (TF only compares
  // sizes).
  ASSERT_TRUE(Import(h, Strings({3}, {"x", "y", "z"}),
                     T_<int32_t>({3}, {1, 2, 3}))
                  .ok());
  auto out = Find(h, Strings({2}, {"a", "x"}), Tensor::Scalar<int32_t>(-1));
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{10, -1}));
  absl::Status s = Import(h, Strings({2}, {"a", "b"}), T_<int32_t>({2}, {1, 2}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "Table was already initialized with different data.");
  s = Import(h, Strings({3}, {"a", "b", "c"}), T_<int32_t>({3}, {10, 20, 30}),
             "InitializeTableV2");
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(*Size(h), 3);
}

// --- key and value dtypes -----------------------------------------------------

template <typename V>
std::vector<V> SampleValues();
template <>
std::vector<float> SampleValues() { return {1.5f, -2.25f, 3e10f}; }
template <>
std::vector<double> SampleValues() { return {1.0 / 3, -2.5, 1e300}; }
template <>
std::vector<int32_t> SampleValues() { return {7, -8, 2147483647}; }
template <>
std::vector<int64_t> SampleValues() { return {int64_t{1} << 40, -1, 0}; }
template <>
std::vector<std::string> SampleValues() {
  return {"alpha", "", std::string(100, 'z')};
}

template <typename K>
Tensor SampleKeys(const std::vector<int64_t>& shape, const std::vector<int>& idx);
template <>
Tensor SampleKeys<std::string>(const std::vector<int64_t>& shape,
                               const std::vector<int>& idx) {
  const std::vector<std::string> keys = {"one", "two", "a-much-longer-key-3",
                                         "missing"};
  std::vector<std::string> v;
  for (int i : idx) v.push_back(keys[i]);
  return Strings(shape, v);
}
template <>
Tensor SampleKeys<int32_t>(const std::vector<int64_t>& shape,
                           const std::vector<int>& idx) {
  const std::vector<int32_t> keys = {-5, 0, 2147483647, 42};
  std::vector<int32_t> v;
  for (int i : idx) v.push_back(keys[i]);
  return T_<int32_t>(shape, v);
}
template <>
Tensor SampleKeys<int64_t>(const std::vector<int64_t>& shape,
                           const std::vector<int>& idx) {
  const std::vector<int64_t> keys = {int64_t{1} << 40, -3, 0, 99};
  std::vector<int64_t> v;
  for (int i : idx) v.push_back(keys[i]);
  return T_<int64_t>(shape, v);
}

template <typename K, typename V>
void CheckKeyValueTypes() {
  ResourceManager rm;
  OpTest ht("HashTableV2", "t");
  ht.Attr("key_dtype", DTypeOf<K>::value).Attr("value_dtype", DTypeOf<V>::value);
  auto h = RunNode(ht.node(), &rm, {});
  ASSERT_TRUE(h.ok()) << h.status();
  const std::vector<V> values = SampleValues<V>();
  OpTest imp("LookupTableImportV2");
  auto s = RunNode(imp.node(), &rm,
                   {(*h)[0], SampleKeys<K>({3}, {0, 1, 2}), T_<V>({3}, values)});
  ASSERT_TRUE(s.ok()) << s.status();
  OpTest find("LookupTableFindV2");
  V dflt = SampleValues<V>()[1];
  auto out = RunNode(find.node(), &rm,
                     {(*h)[0], SampleKeys<K>({2, 2}, {2, 3, 0, 1}),
                      Tensor::Scalar<V>(dflt)});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& t = (*out)[0];
  EXPECT_EQ(t.dtype(), DTypeOf<V>::value);
  EXPECT_EQ(t.shape(), Shape({2, 2}));
  EXPECT_EQ(Values<V>(t), (std::vector<V>{values[2], dflt, values[0], values[1]}));
}

template <typename K>
void CheckBoolValues() {
  ResourceManager rm;
  OpTest ht("HashTableV2", "t");
  ht.Attr("key_dtype", DTypeOf<K>::value).Attr("value_dtype", DType::kBool);
  auto h = RunNode(ht.node(), &rm, {});
  ASSERT_TRUE(h.ok()) << h.status();
  OpTest imp("LookupTableImportV2");
  ASSERT_TRUE(RunNode(imp.node(), &rm,
                      {(*h)[0], SampleKeys<K>({3}, {0, 1, 2}),
                       Bools({3}, {1, 0, 1})})
                  .ok());
  OpTest find("LookupTableFindV2");
  Tensor dflt = *Tensor::Allocate(DType::kBool, Shape());
  auto out = RunNode(find.node(), &rm,
                     {(*h)[0], SampleKeys<K>({4}, {2, 3, 0, 1}), dflt});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& t = (*out)[0];
  EXPECT_EQ(t.dtype(), DType::kBool);
  const bool* b = t.data<bool>();
  EXPECT_EQ(std::vector<bool>(b, b + 4),
            (std::vector<bool>{true, false, true, false}));
}

template <typename K>
void CheckAllValueTypes() {
  CheckKeyValueTypes<K, float>();
  CheckKeyValueTypes<K, double>();
  CheckKeyValueTypes<K, int32_t>();
  CheckKeyValueTypes<K, int64_t>();
  CheckKeyValueTypes<K, std::string>();
  CheckBoolValues<K>();
}

TEST(HashTableDTypesTest, StringKeys) { CheckAllValueTypes<std::string>(); }
TEST(HashTableDTypesTest, Int64Keys) { CheckAllValueTypes<int64_t>(); }
TEST(HashTableDTypesTest, Int32Keys) { CheckAllValueTypes<int32_t>(); }

// --- big batches and concurrency ----------------------------------------------

constexpr int kVocab = 5000;

std::string Word(int i) { return absl::StrCat("w", i); }

Tensor BigVocabTable(ResourceManager* rm) {
  OpTest ht("HashTableV2", "vocab");
  ht.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt64);
  auto h = RunNode(ht.node(), rm, {});
  EXPECT_TRUE(h.ok());
  std::vector<std::string> keys;
  std::vector<int64_t> values;
  for (int i = 0; i < kVocab; ++i) {
    keys.push_back(Word(i));
    values.push_back(i * 3);
  }
  OpTest imp("LookupTableImportV2");
  EXPECT_TRUE(RunNode(imp.node(), rm,
                      {(*h)[0], Strings({kVocab}, keys),
                       T_<int64_t>({kVocab}, values)})
                  .ok());
  return (*h)[0];
}

// Keys: word (i * stride) % (kVocab + 1000): some hits, some misses.
void CheckBatch(const Tensor& handle, ResourceManager* rm, int64_t n,
                int stride) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (int64_t i = 0; i < n; ++i) keys.push_back(Word((i * stride) % (kVocab + 1000)));
  OpTest find("LookupTableFindV2");
  auto out = RunNode(find.node(), rm,
                     {handle, Strings({n / 4, 4}, keys),
                      Tensor::Scalar<int64_t>(-1)});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& t = (*out)[0];
  ASSERT_EQ(t.shape(), Shape({n / 4, 4}));
  const int64_t* v = t.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t w = (i * stride) % (kVocab + 1000);
    ASSERT_EQ(v[i], w < kVocab ? w * 3 : -1) << "at " << i;
  }
}

TEST(HashTableParallelTest, BigBatchUsesParallelPathCorrectly) {
  ResourceManager rm;
  Tensor h = BigVocabTable(&rm);
  CheckBatch(h, &rm, 4 * HashTable::kParallelThreshold, 7);
  CheckBatch(h, &rm, HashTable::kParallelThreshold + 4, 3);
  CheckBatch(h, &rm, 64, 1);
}

// The serial lookup goes 64 keys at a time plus a tail (FindBlock in
// ops/lookup/hash_table.cc): every batch size around the block edges must
// see every key, hits and misses alike.
TEST(HashTableFindTest, Int64BatchesAcrossBlockEdges) {
  ResourceManager rm;
  OpTest ht("HashTableV2", "ids");
  ht.Attr("key_dtype", DType::kInt64).Attr("value_dtype", DType::kInt64);
  auto h = RunNode(ht.node(), &rm, {});
  ASSERT_TRUE(h.ok()) << h.status();
  constexpr int64_t kSize = 1000;
  std::vector<int64_t> keys(kSize), values(kSize);
  for (int64_t i = 0; i < kSize; ++i) {
    keys[i] = i * 7;
    values[i] = i + 100;
  }
  OpTest imp("LookupTableImportV2");
  ASSERT_TRUE(RunNode(imp.node(), &rm,
                      {(*h)[0], T_<int64_t>({kSize}, keys),
                       T_<int64_t>({kSize}, values)})
                  .ok());
  for (int64_t n : {1, 63, 64, 65, 127, 128, 129, 200, 1000}) {
    std::vector<int64_t> batch(n);
    for (int64_t i = 0; i < n; ++i) batch[i] = (i * 5) % (kSize * 8);
    OpTest find("LookupTableFindV2");
    auto out = RunNode(find.node(), &rm,
                       {(*h)[0], T_<int64_t>({n}, batch),
                        Tensor::Scalar<int64_t>(-1)});
    ASSERT_TRUE(out.ok()) << out.status();
    const int64_t* v = (*out)[0].data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = batch[i];
      const int64_t want = (k % 7 == 0 && k / 7 < kSize) ? k / 7 + 100 : -1;
      ASSERT_EQ(v[i], want) << "batch " << n << " at " << i;
    }
  }
}

TEST(HashTableParallelTest, ConcurrentFindsFromManyThreads) {
  ResourceManager rm;
  Tensor h = BigVocabTable(&rm);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int iter = 0; iter < 20; ++iter) {
        CheckBatch(h, &rm, (iter % 5 == 0) ? 2 * HashTable::kParallelThreshold
                                           : 256 + 4 * t,
                   1 + t + iter);
      }
    });
  }
  for (auto& th : threads) th.join();
}

TEST(HashTableParallelTest, ConcurrentInitializeAndFind) {
  // Several threads race to initialize one table (same data) while others
  // look up: every initialize succeeds (first one fills, the rest are
  // same-size no-ops) and every find sees either "not initialized" or the
  // complete table.
  ResourceManager rm;
  OpTest ht("HashTableV2", "t");
  ht.Attr("key_dtype", DType::kInt32).Attr("value_dtype", DType::kInt32);
  ht.Attr("shared_name", "race");
  auto h = RunNode(ht.node(), &rm, {});
  ASSERT_TRUE(h.ok());
  std::vector<int32_t> keys(1000), values(1000);
  for (int i = 0; i < 1000; ++i) {
    keys[i] = i;
    values[i] = -i;
  }
  Tensor kt = T_<int32_t>({1000}, keys), vt = T_<int32_t>({1000}, values);
  std::vector<std::thread> threads;
  std::atomic<int> init_ok{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      if (t % 2 == 0) {
        OpTest imp("LookupTableImportV2");
        if (RunNode(imp.node(), &rm, {(*h)[0], kt, vt}).ok()) ++init_ok;
        return;
      }
      OpTest find("LookupTableFindV2");
      for (int iter = 0; iter < 200; ++iter) {
        auto out = RunNode(find.node(), &rm,
                           {(*h)[0], kt, Tensor::Scalar<int32_t>(1)});
        if (!out.ok()) {
          ASSERT_EQ(out.status().message(), "Table not initialized.");
          continue;
        }
        ASSERT_EQ(Values<int32_t>((*out)[0]), values);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(init_ok.load(), 4);
  EXPECT_EQ(TableOf((*h)[0])->size(), 1000);
}

}  // namespace
}  // namespace graphrt::testing
