// InitializeTableFromTextFile(V2) (table_handle, filename): fills a static
// HashTable from a text file, with TensorFlow's semantics
// (core/kernels/lookup_util.cc, TextFileLineIterator):
//
//   attrs key_index, value_index (>= -2): -2 = the whole line, -1 = the
//   0-based line number + offset (needs an int64 key/value), >= 0 = that
//   column after splitting the line on `delimiter` (one char, default tab);
//   vocab_size (-1 = every line; else the file is cut after vocab_size lines
//   and must have at least that many); offset (added to line numbers and,
//   as in TF, to int32 fields).
//
//   Lines end with "\n" (a trailing "\r" is dropped). Errors, as TF words
//   them: empty lines, too few columns, fields that do not parse as the
//   table's int32 / int64 / float / double, a vocab_size larger than the
//   file, duplicate keys with different values. A table that is already
//   initialized is left alone (TF accepts re-initialization from a file).
//
// `filename` is a scalar string tensor, opened as given: absolute paths
// as they are, relative ones against the working directory (TF). The model
// loader is expected to feed asset paths already resolved inside the model
// folder.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/attrs.h"
#include "ops/lookup/hash_table.h"
#include "ops/lookup/lookup_op_util.h"
#include "ops/lookup/lookup_ops.h"

namespace graphrt {
namespace {

constexpr int64_t kLineNumber = -1;
constexpr int64_t kWholeLine = -2;

struct TextFileOptions {
  int64_t key_index = 0;
  int64_t value_index = 0;
  int64_t vocab_size = -1;
  char delimiter = '\t';
  int64_t offset = 0;
};

absl::StatusOr<std::string> ReadFile(const std::string& filename) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(filename.c_str(), "rb"),
                                          &std::fclose);
  if (f == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(filename, ": cannot open the table initializer file"));
  }
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f.get())) > 0) data.append(buf, n);
  if (std::ferror(f.get())) {
    return absl::DataLossError(absl::StrCat(filename, ": read error"));
  }
  return data;
}

// Writes one parsed field into element `i` of `t`.
absl::Status SetField(absl::string_view line,
                      const std::vector<absl::string_view>& tokens,
                      int64_t index, int64_t line_id, int64_t offset,
                      Tensor* t, int64_t i) {
  if (index == kLineNumber) {
    t->mutable_data<int64_t>()[i] = line_id + offset;
    return absl::OkStatus();
  }
  const absl::string_view token = index == kWholeLine ? line : tokens[index];
  switch (t->dtype()) {
    case DType::kInt32: {
      int32_t v;
      if (!absl::SimpleAtoi(token, &v)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Field ", token, " in line ", line_id, " is not a valid int32."));
      }
      // TF adds the offset to int32 fields too (wrapping, never UB).
      t->mutable_data<int32_t>()[i] = static_cast<int32_t>(
          static_cast<uint32_t>(v) + static_cast<uint32_t>(offset));
      return absl::OkStatus();
    }
    case DType::kInt64: {
      int64_t v;
      if (!absl::SimpleAtoi(token, &v)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Field ", token, " is not a valid int64."));
      }
      t->mutable_data<int64_t>()[i] = v;
      return absl::OkStatus();
    }
    case DType::kFloat32: {
      float v;
      if (!absl::SimpleAtof(token, &v)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Field ", token, " is not a valid float."));
      }
      t->mutable_data<float>()[i] = v;
      return absl::OkStatus();
    }
    case DType::kFloat64: {
      double v;
      if (!absl::SimpleAtod(token, &v)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Field ", token, " is not a valid double."));
      }
      t->mutable_data<double>()[i] = v;
      return absl::OkStatus();
    }
    case DType::kString:
      t->mutable_data<std::string>()[i].assign(token.data(), token.size());
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("Data type ", DTypeName(t->dtype()), " not supported."));
  }
}

// Parses `data` (the file's bytes) into key and value vectors.
absl::Status ParseTextFile(const std::string& filename, absl::string_view data,
                           const TextFileOptions& o, DType key_dtype,
                           DType value_dtype, Tensor* keys, Tensor* values) {
  // Count lines first so the tensors are allocated once.
  int64_t lines = 0;
  for (size_t pos = 0; pos < data.size();) {
    size_t nl = data.find('\n', pos);
    ++lines;
    if (nl == absl::string_view::npos) break;
    pos = nl + 1;
  }
  const int64_t n = o.vocab_size == -1 ? lines : std::min(lines, o.vocab_size);
  if (o.vocab_size != -1 && lines < o.vocab_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid vocab_size in ", filename, ": expected ", o.vocab_size,
        " but got ", lines));
  }
  auto k = Tensor::Allocate(key_dtype, Shape({n}));
  if (!k.ok()) return k.status();
  auto v = Tensor::Allocate(value_dtype, Shape({n}));
  if (!v.ok()) return v.status();
  const int64_t max_index = std::max(o.key_index, o.value_index);
  std::vector<absl::string_view> tokens;
  size_t pos = 0;
  for (int64_t id = 0; id < n; ++id) {
    size_t nl = data.find('\n', pos);
    if (nl == absl::string_view::npos) nl = data.size();
    absl::string_view line = data.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid content in ", filename,
                       ": empty line found at position ", pos, "."));
    }
    tokens.clear();
    if (max_index >= 0) {
      size_t start = 0;
      while (true) {
        size_t d = line.find(o.delimiter, start);
        if (d == absl::string_view::npos) {
          tokens.push_back(line.substr(start));
          break;
        }
        tokens.push_back(line.substr(start, d - start));
        start = d + 1;
      }
      if (static_cast<int64_t>(tokens.size()) < max_index + 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid number of columns in ", filename, " line ", id, " (",
            line, ") : expected ", max_index, " got ", tokens.size()));
      }
    }
    absl::Status s =
        SetField(line, tokens, o.key_index, id, o.offset, &*k, id);
    if (!s.ok()) return s;
    s = SetField(line, tokens, o.value_index, id, o.offset, &*v, id);
    if (!s.ok()) return s;
    pos = nl + 1;
  }
  *keys = std::move(*k);
  *values = std::move(*v);
  return absl::OkStatus();
}

bool IsInteger(DType d) { return d == DType::kInt32 || d == DType::kInt64; }

absl::Status CheckIndexDTypes(const TextFileOptions& o, const HashTable& t) {
  if (o.key_index == kLineNumber && t.key_dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Key index for line number requires table key dtype of int64, got ",
        DTypeName(t.key_dtype())));
  }
  if (o.key_index == kWholeLine && !IsInteger(t.key_dtype()) &&
      t.key_dtype() != DType::kString) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Key index for whole line requires string or integer table key, got ",
        DTypeName(t.key_dtype())));
  }
  if (o.value_index == kLineNumber && t.value_dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Value index for line number requires table value dtype of int64, "
        "got ", DTypeName(t.value_dtype())));
  }
  if (o.value_index == kWholeLine && !IsInteger(t.value_dtype()) &&
      t.value_dtype() != DType::kString) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Value index for whole line requires string table value, got ",
        DTypeName(t.value_dtype())));
  }
  return absl::OkStatus();
}

class TextFileInitOp : public Kernel {
 public:
  explicit TextFileInitOp(TextFileOptions o) : o_(o) {}

  absl::Status Run(KernelContext& ctx) const override {
    auto table = lookup::GetTable(ctx, 0);
    if (!table.ok()) return table.status();
    auto* hash_table = dynamic_cast<HashTable*>(*table);
    if (hash_table == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "InitializeTableFromTextFile needs an initializable table "
          "(HashTable), got ", (*table)->DebugString()));
    }
    const Tensor& filename = ctx.input(1);
    if (filename.dtype() != DType::kString || filename.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "filename should be a single string, but got ",
          filename.DebugString()));
    }
    absl::Status s = CheckIndexDTypes(o_, *hash_table);
    if (!s.ok()) return s;
    if (hash_table->is_initialized()) return absl::OkStatus();
    const std::string& path = *filename.data<std::string>();
    if (path.empty()) {
      return absl::InvalidArgumentError("filename is empty");
    }
    auto data = ReadFile(path);
    if (!data.ok()) return data.status();
    Tensor keys, values;
    s = ParseTextFile(path, *data, o_, hash_table->key_dtype(),
                      hash_table->value_dtype(), &keys, &values);
    if (!s.ok()) return s;
    data->clear();
    data->shrink_to_fit();
    s = hash_table->Initialize(keys, values);
    // A concurrent initialization may have won; TF accepts that.
    if (!s.ok() && hash_table->is_initialized() &&
        s.code() == absl::StatusCode::kFailedPrecondition &&
        absl::string_view(s.message()) ==
            "Table was already initialized with different data.") {
      return absl::OkStatus();
    }
    return s;
  }

 private:
  const TextFileOptions o_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateTextFileInit(
    const KernelInit& init) {
  if (init.num_inputs != 2) return lookup::ArityError(init, 2);
  AttrReader attrs(init.node);
  TextFileOptions o;
  if (!attrs.Has("key_index")) return attrs.Error("key_index", "is required");
  if (!attrs.Has("value_index")) {
    return attrs.Error("value_index", "is required");
  }
  auto key_index = attrs.GetInt("key_index", 0);
  if (!key_index.ok()) return key_index.status();
  auto value_index = attrs.GetInt("value_index", 0);
  if (!value_index.ok()) return value_index.status();
  auto vocab_size = attrs.GetInt("vocab_size", -1);
  if (!vocab_size.ok()) return vocab_size.status();
  auto delimiter = attrs.GetString("delimiter", "\t");
  if (!delimiter.ok()) return delimiter.status();
  auto offset = attrs.GetInt("offset", 0);
  if (!offset.ok()) return offset.status();
  if (*key_index < -2) {
    return attrs.Error("key_index", absl::StrCat("must be >= -2, got ", *key_index));
  }
  if (*value_index < -2) {
    return attrs.Error("value_index",
                       absl::StrCat("must be >= -2, got ", *value_index));
  }
  if (*vocab_size < -1) {
    return attrs.Error("vocab_size", absl::StrCat("must be -1 (all lines) or "
                                                  ">= 0, got ",
                                                  *vocab_size));
  }
  if (delimiter->size() != 1) {
    return attrs.Error("delimiter", "delimiter should be only 1 char");
  }
  o.key_index = *key_index;
  o.value_index = *value_index;
  o.vocab_size = *vocab_size;
  o.delimiter = (*delimiter)[0];
  o.offset = *offset;
  return std::make_unique<TextFileInitOp>(o);
}

}  // namespace

void RegisterTextFileInitOps(OpRegistry& r) {
  r.Register("InitializeTableFromTextFile", CreateTextFileInit);
  r.Register("InitializeTableFromTextFileV2", CreateTextFileInit);
}

}  // namespace graphrt
