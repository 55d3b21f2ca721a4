// MutableHashTable(V2), MutableHashTableOfTensors(V2),
// MutableDenseHashTable(V2), LookupTableInsert(V2), LookupTableRemoveV2,
// LookupTableExport(V2), and Find/Import/Size on mutable tables: TF
// semantics, plus concurrent insert + lookup (run under --config=tsan).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ops/lookup/lookup_table.h"
#include "ops/lookup/mutable_dense_hash_table.h"
#include "ops/registry.h"
#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

#define EXPECT_HAS_SUBSTR(str, sub)                  \
  EXPECT_TRUE(absl::StrContains(str, sub))           \
      << "'" << (str) << "' does not contain '" << (sub) << "'"

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

LookupTable* TableOf(const Tensor& handle) {
  return dynamic_cast<LookupTable*>(handle.data<ResourceHandle>()->resource.get());
}

class MutableTableTest : public ::testing::Test {
 protected:
  Tensor NewMutable(DType key, DType value, const std::string& op = "MutableHashTableV2",
                    const std::vector<int64_t>* value_shape = nullptr,
                    const std::string& shared_name = "") {
    OpTest n(op, "table");
    n.Attr("key_dtype", key).Attr("value_dtype", value);
    n.Attr("shared_name", shared_name);
    if (value_shape != nullptr) n.AttrShape("value_shape", *value_shape);
    auto out = RunNode(n.node(), &rm_, {});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? (*out)[0] : Tensor();
  }

  absl::StatusOr<Tensor> NewDense(DType key, DType value, const Tensor& empty,
                                  const Tensor& deleted,
                                  std::vector<int64_t> value_shape = {},
                                  int64_t buckets = 8, float load = 0.8f) {
    OpTest n("MutableDenseHashTableV2", "dense");
    n.Attr("key_dtype", key).Attr("value_dtype", value);
    n.AttrShape("value_shape", value_shape);
    n.Attr("initial_num_buckets", buckets).Attr("max_load_factor", load);
    auto out = RunNode(n.node(), &rm_, {empty, deleted});
    if (!out.ok()) return out.status();
    return (*out)[0];
  }

  absl::Status Run2(const std::string& op, const std::vector<Tensor>& in) {
    OpTest n(op, "op");
    return RunNode(n.node(), &rm_, in).status();
  }

  absl::StatusOr<Tensor> Find(const Tensor& h, const Tensor& keys,
                              const Tensor& dflt) {
    OpTest n("LookupTableFindV2", "find");
    auto out = RunNode(n.node(), &rm_, {h, keys, dflt});
    if (!out.ok()) return out.status();
    return (*out)[0];
  }

  int64_t Size(const Tensor& h) {
    OpTest n("LookupTableSizeV2", "size");
    auto out = RunNode(n.node(), &rm_, {h});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *(*out)[0].data<int64_t>() : -1;
  }

  absl::StatusOr<std::vector<Tensor>> Export(const Tensor& h) {
    OpTest n("LookupTableExportV2", "export");
    return RunNode(n.node(), &rm_, {h});
  }

  ResourceManager rm_;
};

TEST_F(MutableTableTest, InsertFindRemoveSize) {
  Tensor h = NewMutable(DType::kString, DType::kInt64);
  EXPECT_EQ(Size(h), 0);
  // Find on an empty mutable table is fine (no "not initialized").
  auto out = Find(h, Strings({2}, {"a", "b"}), Tensor::Scalar<int64_t>(-1));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>(*out), (std::vector<int64_t>{-1, -1}));

  ASSERT_TRUE(Run2("LookupTableInsertV2",
                   {h, Strings({3}, {"a", "b", "a"}), T_<int64_t>({3}, {1, 2, 3})})
                  .ok());
  EXPECT_EQ(Size(h), 2);
  out = Find(h, Strings({2, 2}, {"a", "b", "c", "a"}), Tensor::Scalar<int64_t>(-1));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->shape(), Shape({2, 2}));  // TF keeps the keys' shape
  EXPECT_EQ(Values<int64_t>(*out), (std::vector<int64_t>{3, 2, -1, 3}));

  ASSERT_TRUE(Run2("LookupTableRemoveV2", {h, Strings({2}, {"a", "zz"})}).ok());
  EXPECT_EQ(Size(h), 1);
  out = Find(h, Strings({2}, {"a", "b"}), Tensor::Scalar<int64_t>(0));
  EXPECT_EQ(Values<int64_t>(*out), (std::vector<int64_t>{0, 2}));
}

TEST_F(MutableTableTest, PerKeyDefaults) {
  Tensor h = NewMutable(DType::kInt64, DType::kFloat32);
  ASSERT_TRUE(Run2("LookupTableInsertV2",
                   {h, T_<int64_t>({1}, {5}), T_<float>({1}, {0.5f})})
                  .ok());
  auto out = Find(h, T_<int64_t>({3}, {1, 5, 2}), T_<float>({3}, {7, 8, 9}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{7, 0.5f, 9}));
  out = Find(h, T_<int64_t>({3}, {1, 5, 2}), T_<float>({2}, {7, 8}));
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()),
                    "Expected shape [] or [3] for default value, got [2]");
}

TEST_F(MutableTableTest, ImportClearsAndExportRoundTrips) {
  Tensor h = NewMutable(DType::kInt32, DType::kString);
  ASSERT_TRUE(Run2("LookupTableInsertV2",
                   {h, T_<int32_t>({1}, {9}), Strings({1}, {"nine"})})
                  .ok());
  ASSERT_TRUE(Run2("LookupTableImportV2", {h, T_<int32_t>({2}, {1, 2}),
                                           Strings({2}, {"one", "two"})})
                  .ok());
  EXPECT_EQ(Size(h), 2);
  auto ex = Export(h);
  ASSERT_TRUE(ex.ok()) << ex.status();
  ASSERT_EQ(ex->size(), 2u);
  std::map<int32_t, std::string> got;
  for (int i = 0; i < 2; ++i) {
    got[(*ex)[0].data<int32_t>()[i]] = (*ex)[1].data<std::string>()[i];
  }
  EXPECT_EQ(got, (std::map<int32_t, std::string>{{1, "one"}, {2, "two"}}));
}

TEST_F(MutableTableTest, ErrorsUseTfMessages) {
  Tensor h = NewMutable(DType::kString, DType::kInt64);
  absl::Status s = Run2("LookupTableInsertV2",
                        {h, T_<int64_t>({1}, {1}), T_<int64_t>({1}, {1})});
  EXPECT_EQ(s.message(), "Key must be type string but got int64");
  s = Run2("LookupTableInsertV2",
           {h, Strings({2}, {"a", "b"}), T_<int64_t>({3}, {1, 2, 3})});
  EXPECT_HAS_SUBSTR(std::string(s.message()), "Expected shape [2] for value, got [3]");
  s = Run2("LookupTableRemoveV2", {h, T_<int32_t>({1}, {1})});
  EXPECT_FALSE(s.ok());
  // Static tables do not support Insert / Remove.
  OpTest st("HashTableV2", "static");
  st.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt64);
  Tensor sh = (*RunNode(st.node(), &rm_, {}))[0];
  s = Run2("LookupTableInsertV2", {sh, Strings({1}, {"a"}), T_<int64_t>({1}, {1})});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  // ... and InitializeTable needs a static table.
  s = Run2("InitializeTableV2", {h, Strings({1}, {"a"}), T_<int64_t>({1}, {1})});
  EXPECT_FALSE(s.ok());
}

TEST_F(MutableTableTest, StaticTableExport) {
  OpTest st("HashTableV2", "static");
  st.Attr("key_dtype", DType::kString).Attr("value_dtype", DType::kInt64);
  Tensor sh = (*RunNode(st.node(), &rm_, {}))[0];
  auto ex = Export(sh);
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.status().message(), "HashTable is not initialized.");
  ASSERT_TRUE(Run2("LookupTableImportV2",
                   {sh, Strings({3}, {"x", "yy", "a much longer key than sso"}),
                    T_<int64_t>({3}, {1, 2, 3})})
                  .ok());
  ex = Export(sh);
  ASSERT_TRUE(ex.ok());
  std::map<std::string, int64_t> got;
  for (int i = 0; i < 3; ++i) {
    got[(*ex)[0].data<std::string>()[i]] = (*ex)[1].data<int64_t>()[i];
  }
  EXPECT_EQ(got, (std::map<std::string, int64_t>{
                     {"x", 1}, {"yy", 2}, {"a much longer key than sso", 3}}));
}

TEST_F(MutableTableTest, OfTensorsVectorValues) {
  std::vector<int64_t> vs = {2};
  Tensor h = NewMutable(DType::kString, DType::kFloat32,
                        "MutableHashTableOfTensorsV2", &vs);
  ASSERT_EQ(TableOf(h)->value_shape(), Shape({2}));
  ASSERT_TRUE(Run2("LookupTableInsertV2", {h, Strings({2}, {"a", "b"}),
                                           T_<float>({2, 2}, {1, 2, 3, 4})})
                  .ok());
  // default of value_shape
  auto out = Find(h, Strings({3}, {"b", "x", "a"}), T_<float>({2}, {-1, -2}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{3, 4, -1, -2, 1, 2}));
  // per-key default of the full shape
  out = Find(h, Strings({2}, {"x", "y"}), T_<float>({2, 2}, {5, 6, 7, 8}));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{5, 6, 7, 8}));
  out = Find(h, Strings({2}, {"x", "y"}), Tensor::Scalar<float>(0));
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()),
                    "Expected shape [2] or [2,2] for default value, got []");
  auto ex = Export(h);
  ASSERT_TRUE(ex.ok());
  EXPECT_EQ((*ex)[1].shape(), Shape({2, 2}));
  absl::Status s = Run2("LookupTableInsertV2",
                        {h, Strings({1}, {"a"}), T_<float>({1}, {1})});
  EXPECT_HAS_SUBSTR(std::string(s.message()), "Expected shape [1,2] for value, got [1]");
}

TEST_F(MutableTableTest, DenseTableBasics) {
  auto h = NewDense(DType::kInt64, DType::kInt64, Tensor::Scalar<int64_t>(-1),
                    Tensor::Scalar<int64_t>(-2), {}, 4, 0.5f);
  ASSERT_TRUE(h.ok()) << h.status();
  std::vector<int64_t> keys, vals;
  for (int64_t i = 0; i < 100; ++i) {
    keys.push_back(i * 7);
    vals.push_back(i);
  }
  ASSERT_TRUE(Run2("LookupTableInsertV2", {*h, T_<int64_t>({100}, keys),
                                           T_<int64_t>({100}, vals)})
                  .ok());
  EXPECT_EQ(Size(*h), 100);
  auto* dense = dynamic_cast<MutableDenseHashTable*>(TableOf(*h));
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(dense->num_buckets(), 256);  // grew past 100 / 0.5
  auto out = Find(*h, T_<int64_t>({3}, {14, 15, 693}), Tensor::Scalar<int64_t>(-9));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<int64_t>(*out), (std::vector<int64_t>{2, -9, 99}));
  ASSERT_TRUE(Run2("LookupTableRemoveV2", {*h, T_<int64_t>({2}, {14, 1000})}).ok());
  EXPECT_EQ(Size(*h), 99);
  out = Find(*h, T_<int64_t>({2}, {14, 21}), Tensor::Scalar<int64_t>(-9));
  EXPECT_EQ(Values<int64_t>(*out), (std::vector<int64_t>{-9, 3}));
  // Reinsert into a deleted bucket, then upsert.
  ASSERT_TRUE(Run2("LookupTableInsertV2", {*h, T_<int64_t>({2}, {14, 21}),
                                           T_<int64_t>({2}, {100, 200})})
                  .ok());
  EXPECT_EQ(Size(*h), 100);
  out = Find(*h, T_<int64_t>({2}, {14, 21}), Tensor::Scalar<int64_t>(-9));
  EXPECT_EQ(Values<int64_t>(*out), (std::vector<int64_t>{100, 200}));
  // Reserved keys.
  absl::Status s = Find(*h, T_<int64_t>({1}, {-1}), Tensor::Scalar<int64_t>(0)).status();
  EXPECT_EQ(s.message(), "Using the empty_key as a table key is not allowed");
  s = Run2("LookupTableInsertV2", {*h, T_<int64_t>({1}, {-2}), T_<int64_t>({1}, {0})});
  EXPECT_EQ(s.message(), "Using the deleted_key as a table key is not allowed");
  // Export gives raw buckets [buckets, 1]; Import of that restores the table.
  auto ex = Export(*h);
  ASSERT_TRUE(ex.ok()) << ex.status();
  EXPECT_EQ((*ex)[0].shape(), Shape({256, 1}));
  EXPECT_EQ((*ex)[1].shape(), Shape({256, 1}));
  auto h2 = NewDense(DType::kInt64, DType::kInt64, Tensor::Scalar<int64_t>(-1),
                     Tensor::Scalar<int64_t>(-2));
  ASSERT_TRUE(h2.ok());
  // NewDense with the same node name returns the same table: use a new rm.
  ResourceManager rm2;
  OpTest n("MutableDenseHashTableV2", "dense2");
  n.Attr("key_dtype", DType::kInt64).Attr("value_dtype", DType::kInt64);
  n.Attr("initial_num_buckets", int64_t{4});
  Tensor h3 = (*RunNode(n.node(), &rm2,
                        {Tensor::Scalar<int64_t>(-1), Tensor::Scalar<int64_t>(-2)}))[0];
  OpTest imp("LookupTableImportV2", "imp");
  ASSERT_TRUE(RunNode(imp.node(), &rm2, {h3, (*ex)[0], (*ex)[1]}).ok());
  EXPECT_EQ(TableOf(h3)->size(), 100);
  Tensor got;
  ASSERT_TRUE(TableOf(h3)->Find(T_<int64_t>({2}, {14, 693}),
                                Tensor::Scalar<int64_t>(0), &got).ok());
  EXPECT_EQ(Values<int64_t>(got), (std::vector<int64_t>{100, 99}));
}

TEST_F(MutableTableTest, DenseTableVectorKeysAndValues) {
  auto h = NewDense(DType::kString, DType::kFloat32, Strings({2}, {"", ""}),
                    Strings({2}, {"", "-"}), {3});
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_TRUE(Run2("LookupTableInsertV2",
                   {*h, Strings({2, 2}, {"a", "b", "b", "a"}),
                    T_<float>({2, 3}, {1, 2, 3, 4, 5, 6})})
                  .ok());
  auto out = Find(*h, Strings({3, 2}, {"b", "a", "a", "a", "a", "b"}),
                  T_<float>({3}, {0, 0, 0}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({3, 3}));
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{4, 5, 6, 0, 0, 0, 1, 2, 3}));
  out = Find(*h, Strings({3}, {"a", "b", "c"}), T_<float>({3}, {0, 0, 0}));
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()),
                    "Input key shape [3] must end with the table's key shape [2]");
}

TEST_F(MutableTableTest, DenseTableCreationErrors) {
  auto h = NewDense(DType::kInt64, DType::kInt64, Tensor::Scalar<int64_t>(-1),
                    Tensor::Scalar<int64_t>(-1));
  EXPECT_EQ(h.status().message(), "Empty and deleted keys cannot be equal");
  h = NewDense(DType::kInt64, DType::kInt64, Tensor::Scalar<int64_t>(-1),
               T_<int64_t>({1}, {-2}));
  EXPECT_HAS_SUBSTR(std::string(h.status().message()),
                    "Empty and deleted keys must have same shape");
  h = NewDense(DType::kInt64, DType::kInt64, Tensor::Scalar<int64_t>(-1),
               Tensor::Scalar<int64_t>(-2), {}, 6);
  EXPECT_HAS_SUBSTR(std::string(h.status().message()),
                    "Number of buckets must be at least 4 and a power of 2, got: 6");
  h = NewDense(DType::kInt64, DType::kInt64, Tensor::Scalar<int64_t>(-1),
               Tensor::Scalar<int64_t>(-2), {}, 8, 1.0f);
  EXPECT_HAS_SUBSTR(std::string(h.status().message()), "max_load_factor");
}

// Writers insert and remove while readers look up: readers must always see
// either the absent default or the one value ever written for a key.
TEST_F(MutableTableTest, ConcurrentInsertAndLookup) {
  for (const char* op : {"MutableHashTableV2", "MutableDenseHashTableV2"}) {
    Tensor h;
    if (std::string(op) == "MutableHashTableV2") {
      h = NewMutable(DType::kInt64, DType::kInt64);
    } else {
      auto d = NewDense(DType::kInt64, DType::kInt64, Tensor::Scalar<int64_t>(-1),
                        Tensor::Scalar<int64_t>(-2));
      ASSERT_TRUE(d.ok());
      h = *d;
    }
    LookupTable* table = TableOf(h);
    constexpr int kWriters = 2, kReaders = 3, kKeys = 2000;
    std::atomic<bool> bad{false};
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        for (int64_t i = w; i < kKeys; i += kWriters) {
          if (!table->Insert(T_<int64_t>({1}, {i}), T_<int64_t>({1}, {i * 3}))
                   .ok()) {
            bad = true;
          }
          if (i % 10 == 0 && !table->Remove(T_<int64_t>({1}, {i})).ok()) bad = true;
        }
      });
    }
    for (int r = 0; r < kReaders; ++r) {
      threads.emplace_back([&] {
        std::vector<int64_t> keys(64);
        for (int iter = 0; iter < 200; ++iter) {
          for (int j = 0; j < 64; ++j) keys[j] = (iter * 64 + j * 31) % kKeys;
          Tensor out;
          if (!table->Find(T_<int64_t>({64}, keys), Tensor::Scalar<int64_t>(-7),
                           &out)
                   .ok()) {
            bad = true;
            continue;
          }
          for (int j = 0; j < 64; ++j) {
            const int64_t v = out.data<int64_t>()[j];
            if (v != -7 && v != keys[j] * 3) bad = true;
          }
          (void)table->size();
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_FALSE(bad) << op;
    EXPECT_EQ(table->size(), kKeys - kKeys / 10) << op;
  }
}

}  // namespace
}  // namespace graphrt::testing
