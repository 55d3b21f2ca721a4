// InitializeTableFromTextFile(V2): TF semantics for key/value indices
// (-2 whole line, -1 line number, columns), delimiter, vocab_size, offset,
// and the error cases.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ops/lookup/hash_table.h"
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

std::string TempFile(const std::string& name, const std::string& content) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(dir ? dir : "/tmp", "/", name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

class TextFileInitTest : public ::testing::Test {
 protected:
  Tensor NewTable(DType key, DType value) {
    OpTest n("HashTableV2", "table");
    n.Attr("key_dtype", key).Attr("value_dtype", value);
    return (*RunNode(n.node(), &rm_, {}))[0];
  }

  absl::Status Init(const Tensor& h, const std::string& path, int64_t key_index,
                    int64_t value_index, int64_t vocab_size = -1,
                    const std::string& delimiter = "\t", int64_t offset = 0,
                    const std::string& op = "InitializeTableFromTextFileV2") {
    OpTest n(op, "init");
    n.Attr("key_index", key_index).Attr("value_index", value_index);
    n.Attr("vocab_size", vocab_size).Attr("delimiter", delimiter);
    n.Attr("offset", offset);
    return RunNode(n.node(), &rm_, {h, Tensor::Scalar<std::string>(path)})
        .status();
  }

  template <typename K, typename V>
  std::vector<V> Find(const Tensor& h, const std::vector<K>& keys, V dflt) {
    Tensor out;
    auto* t = dynamic_cast<HashTable*>(h.data<ResourceHandle>()->resource.get());
    absl::Status s = t->Find(
        T_<K>({static_cast<int64_t>(keys.size())}, keys), Tensor::Scalar<V>(dflt), &out);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? Values<V>(out) : std::vector<V>{};
  }

  ResourceManager rm_;
};

TEST_F(TextFileInitTest, VocabFileWholeLineToLineNumber) {
  const std::string path = TempFile("vocab.txt", "the\nmovie\r\ngood\n");
  Tensor h = NewTable(DType::kString, DType::kInt64);
  ASSERT_TRUE(Init(h, path, -2, -1).ok());
  EXPECT_EQ((Find<std::string, int64_t>(h, {"good", "the", "movie", "x"}, -1)),
            (std::vector<int64_t>{2, 0, 1, -1}));
  // Re-initializing from a file is accepted (no-op).
  EXPECT_TRUE(Init(h, path, -2, -1).ok());
}

TEST_F(TextFileInitTest, OffsetAndV1Op) {
  const std::string path = TempFile("vocab_off.txt", "a\nb\n");
  Tensor h = NewTable(DType::kString, DType::kInt64);
  ASSERT_TRUE(Init(h, path, -2, -1, -1, "\t", 10, "InitializeTableFromTextFile").ok());
  EXPECT_EQ((Find<std::string, int64_t>(h, {"a", "b"}, -1)),
            (std::vector<int64_t>{10, 11}));
}

TEST_F(TextFileInitTest, ColumnsWithDelimiter) {
  const std::string path = TempFile("cols.csv", "1,one,1.5\n2,two,2.5\n3,three,-1\n");
  Tensor h = NewTable(DType::kInt64, DType::kString);
  ASSERT_TRUE(Init(h, path, 0, 1, -1, ",").ok());
  EXPECT_EQ((Find<int64_t, std::string>(h, {3, 1, 7}, "?")),
            (std::vector<std::string>{"three", "one", "?"}));
  Tensor f = NewTable(DType::kString, DType::kFloat32);
  ASSERT_TRUE(Init(f, path, 1, 2, -1, ",").ok());
  EXPECT_EQ((Find<std::string, float>(f, {"two", "three"}, 0)),
            (std::vector<float>{2.5f, -1.f}));
  // int32 values get the offset too (as TF).
  Tensor i = NewTable(DType::kString, DType::kInt32);
  ASSERT_TRUE(Init(i, path, 1, 0, -1, ",", 100).ok());
  EXPECT_EQ((Find<std::string, int32_t>(i, {"one", "three"}, 0)),
            (std::vector<int32_t>{101, 103}));
}

TEST_F(TextFileInitTest, VocabSizeTruncatesOrFails) {
  const std::string path = TempFile("v3.txt", "a\nb\nc\n");
  Tensor h = NewTable(DType::kString, DType::kInt64);
  ASSERT_TRUE(Init(h, path, -2, -1, 2).ok());
  EXPECT_EQ((Find<std::string, int64_t>(h, {"a", "b", "c"}, -1)),
            (std::vector<int64_t>{0, 1, -1}));
  Tensor h2 = NewTable(DType::kString, DType::kInt64);
  absl::Status s = Init(h2, path, -2, -1, 5);
  ASSERT_FALSE(s.ok());
  EXPECT_HAS_SUBSTR(std::string(s.message()),
                    absl::StrCat("Invalid vocab_size in ", path, ": expected 5 but got 3"));
}

TEST_F(TextFileInitTest, Errors) {
  Tensor h = NewTable(DType::kString, DType::kInt64);
  absl::Status s = Init(h, "/nonexistent/dir/vocab.txt", -2, -1);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_HAS_SUBSTR(std::string(s.message()), "/nonexistent/dir/vocab.txt");

  const std::string empty_line = TempFile("empty_line.txt", "a\n\nb\n");
  s = Init(h, empty_line, -2, -1);
  EXPECT_HAS_SUBSTR(std::string(s.message()), "empty line found");

  const std::string cols = TempFile("few_cols.txt", "a\t1\nb\n");
  s = Init(h, cols, 0, 1);
  EXPECT_HAS_SUBSTR(std::string(s.message()), "Invalid number of columns in");
  EXPECT_HAS_SUBSTR(std::string(s.message()), "line 1 (b) : expected 1 got 1");

  const std::string bad = TempFile("bad_int.txt", "a\tx1\n");
  s = Init(h, bad, 0, 1);
  EXPECT_HAS_SUBSTR(std::string(s.message()), "Field x1 is not a valid int64.");

  const std::string dup = TempFile("dup.txt", "a\t1\na\t2\n");
  s = Init(h, dup, 0, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);

  // Line numbers need int64.
  Tensor h32 = NewTable(DType::kString, DType::kInt32);
  s = Init(h32, empty_line, -2, -1);
  EXPECT_HAS_SUBSTR(std::string(s.message()),
                    "Value index for line number requires table value dtype of int64");
  // Filename must be a scalar string.
  OpTest n("InitializeTableFromTextFileV2", "init");
  n.Attr("key_index", int64_t{-2}).Attr("value_index", int64_t{-1});
  s = RunNode(n.node(), &rm_, {h, T_<std::string>({1}, {"x"})}).status();
  EXPECT_HAS_SUBSTR(std::string(s.message()), "filename should be a single string");
  // Attr errors at create time.
  OpTest d("InitializeTableFromTextFileV2", "init");
  d.Attr("key_index", int64_t{-2}).Attr("value_index", int64_t{-1});
  d.Attr("delimiter", ",,");
  EXPECT_FALSE(d.Create(2).ok());
  OpTest k("InitializeTableFromTextFileV2", "init");
  k.Attr("key_index", int64_t{-3}).Attr("value_index", int64_t{-1});
  EXPECT_FALSE(k.Create(2).ok());
}

}  // namespace
}  // namespace graphrt::testing
