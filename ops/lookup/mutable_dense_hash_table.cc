#include "ops/lookup/mutable_dense_hash_table.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace graphrt {
namespace {

// Max doublings (2^62 buckets would not fit anyway).
constexpr int64_t kMaxBuckets = int64_t{1} << 40;

template <typename K, typename V>
class DenseImpl final : public MutableDenseHashTable {
 public:
  DenseImpl(DType key_dtype, DType value_dtype, const Tensor& empty_key,
            const Tensor& deleted_key, const Shape& value_shape,
            float max_load_factor)
      : MutableDenseHashTable(key_dtype, value_dtype, empty_key.shape(),
                              value_shape),
        key_dim_(empty_key.num_elements()),
        value_dim_(value_shape.num_elements()),
        max_load_factor_(max_load_factor),
        empty_(empty_key.data<K>(), empty_key.data<K>() + key_dim_),
        deleted_(deleted_key.data<K>(), deleted_key.data<K>() + key_dim_) {}

  absl::Status Allocate(int64_t buckets) {
    return AllocateLocked(buckets);
  }
  bool EmptyEqualsDeleted() const { return Equal(empty_.data(), deleted_.data()); }

  absl::Status Find(const Tensor& keys, const Tensor& default_value,
                    Tensor* out) const override {
    absl::Status s = CheckFindArguments(keys, default_value);
    if (!s.ok()) return s;
    s = CheckNotReserved(keys);
    if (!s.ok()) return s;
    absl::StatusOr<Tensor> result =
        Tensor::Allocate(value_dtype(), ValueShapeFor(keys.shape()));
    if (!result.ok()) return result.status();
    const int64_t n = NumKeys(keys);
    const K* k = keys.data<K>();
    V* o = result->template mutable_data<V>();
    const V* dflt = default_value.data<V>();
    const int64_t d = value_dim_;
    const bool per_key = default_value.num_elements() == result->num_elements() &&
                         default_value.num_elements() != d;
    {
      std::shared_lock<std::shared_mutex> lock(mu_);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t b = FindBucket(k + i * key_dim_);
        const V* src = b >= 0 ? &values_[b * d] : (per_key ? dflt + i * d : dflt);
        for (int64_t j = 0; j < d; ++j) o[i * d + j] = src[j];
      }
    }
    *out = std::move(*result);
    return absl::OkStatus();
  }

  absl::Status Insert(const Tensor& keys, const Tensor& values) override {
    absl::Status s = CheckKeyAndValueTensors(keys, values);
    if (!s.ok()) return s;
    s = CheckNotReserved(keys);
    if (!s.ok()) return s;
    std::unique_lock<std::shared_mutex> lock(mu_);
    return InsertLocked(keys.data<K>(), values.data<V>(), NumKeys(keys));
  }

  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    absl::Status s = CheckKeyAndValueTypes(keys.dtype(), values.dtype());
    if (!s.ok()) return s;
    // Bucket layout: keys [..., key_dim], values [..., value_dim].
    if (keys.rank() < 1 || keys.dim(keys.rank() - 1) != key_dim_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected keys of shape [n, ", key_dim_, "] (the exported bucket "
          "layout), got ", keys.shape().ToString()));
    }
    Shape expected;
    for (int i = 0; i + 1 < keys.rank(); ++i) expected.AddDim(keys.dim(i));
    expected.AddDim(value_dim_);
    if (values.shape() != expected) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected shape ", expected.ToString(),
                       " for value, got ", values.shape().ToString()));
    }
    const int64_t rows = keys.num_elements() / (key_dim_ == 0 ? 1 : key_dim_);
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    int64_t buckets = 4;
    while (buckets < rows && buckets < kMaxBuckets) buckets *= 2;
    std::unique_lock<std::shared_mutex> lock(mu_);
    s = AllocateLocked(buckets);
    if (!s.ok()) return s;
    for (int64_t i = 0; i < rows; ++i) {
      const K* key = k + i * key_dim_;
      if (Equal(key, empty_.data()) || Equal(key, deleted_.data())) continue;
      s = InsertLocked(key, v + i * value_dim_, 1);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Remove(const Tensor& keys) override {
    absl::Status s = CheckKeysForRemove(keys);
    if (!s.ok()) return s;
    s = CheckNotReserved(keys);
    if (!s.ok()) return s;
    const int64_t n = NumKeys(keys);
    const K* k = keys.data<K>();
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = FindBucket(k + i * key_dim_);
      if (b < 0) continue;
      for (int64_t j = 0; j < key_dim_; ++j) keys_[b * key_dim_ + j] = deleted_[j];
      --num_entries_;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::pair<Tensor, Tensor>> Export() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    absl::StatusOr<Tensor> keys =
        Tensor::Allocate(key_dtype(), Shape({num_buckets_, key_dim_}));
    if (!keys.ok()) return keys.status();
    absl::StatusOr<Tensor> values =
        Tensor::Allocate(value_dtype(), Shape({num_buckets_, value_dim_}));
    if (!values.ok()) return values.status();
    K* k = keys->template mutable_data<K>();
    V* v = values->template mutable_data<V>();
    for (int64_t i = 0; i < num_buckets_ * key_dim_; ++i) k[i] = keys_[i];
    for (int64_t i = 0; i < num_buckets_ * value_dim_; ++i) v[i] = values_[i];
    return std::make_pair(std::move(*keys), std::move(*values));
  }

  int64_t size() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return num_entries_;
  }

  int64_t num_buckets() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return num_buckets_;
  }

  std::string DebugString() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return absl::StrCat("MutableDenseHashTable ", DTypeName(key_dtype()),
                        key_shape().ToString(), "->", DTypeName(value_dtype()),
                        value_shape().ToString(), " (", num_entries_, " in ",
                        num_buckets_, " buckets)");
  }

 private:
  static size_t HashElem(const K& k) {
    if constexpr (std::is_same_v<K, std::string>) {
      return absl::Hash<absl::string_view>()(absl::string_view(k));
    } else {
      return absl::Hash<K>()(k);
    }
  }
  uint64_t Hash(const K* key) const {
    uint64_t h = 0;
    for (int64_t j = 0; j < key_dim_; ++j) {
      h = (h ^ HashElem(key[j])) * 0x9E3779B97F4A7C15ULL;
      h ^= h >> 29;
    }
    return h;
  }
  bool Equal(const K* a, const K* b) const {
    for (int64_t j = 0; j < key_dim_; ++j) {
      if (!(a[j] == b[j])) return false;
    }
    return true;
  }

  absl::Status CheckNotReserved(const Tensor& keys) const {
    const int64_t n = NumKeys(keys);
    const K* k = keys.data<K>();
    for (int64_t i = 0; i < n; ++i) {
      if (Equal(k + i * key_dim_, empty_.data())) {
        return absl::InvalidArgumentError(
            "Using the empty_key as a table key is not allowed");
      }
      if (Equal(k + i * key_dim_, deleted_.data())) {
        return absl::InvalidArgumentError(
            "Using the deleted_key as a table key is not allowed");
      }
    }
    return absl::OkStatus();
  }

  absl::Status AllocateLocked(int64_t buckets) {
    if (buckets > kMaxBuckets) {
      return absl::ResourceExhaustedError(
          absl::StrCat("MutableDenseHashTable: ", buckets, " buckets is too many"));
    }
    std::unique_ptr<K[]> keys(new (std::nothrow) K[buckets * key_dim_]);
    std::unique_ptr<V[]> values(new (std::nothrow) V[buckets * value_dim_]());
    if ((keys == nullptr && buckets * key_dim_ > 0) ||
        (values == nullptr && buckets * value_dim_ > 0)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "MutableDenseHashTable: out of memory for ", buckets, " buckets"));
    }
    for (int64_t b = 0; b < buckets; ++b) {
      for (int64_t j = 0; j < key_dim_; ++j) keys[b * key_dim_ + j] = empty_[j];
    }
    keys_ = std::move(keys);
    values_ = std::move(values);
    num_buckets_ = buckets;
    num_entries_ = 0;
    return absl::OkStatus();
  }

  // Bucket holding `key`, or -1.
  int64_t FindBucket(const K* key) const {
    const uint64_t mask = static_cast<uint64_t>(num_buckets_ - 1);
    uint64_t b = Hash(key) & mask;
    for (int64_t p = 1; p <= num_buckets_; ++p) {
      const K* bk = &keys_[b * key_dim_];
      if (Equal(bk, key)) return static_cast<int64_t>(b);
      if (Equal(bk, empty_.data())) return -1;
      b = (b + p) & mask;
    }
    return -1;
  }

  // Grows so that n more entries fit, then upserts them.
  absl::Status InsertLocked(const K* k, const V* v, int64_t n) {
    int64_t buckets = num_buckets_;
    while (static_cast<double>(num_entries_ + n) >
           static_cast<double>(buckets) * max_load_factor_) {
      buckets *= 2;
      if (buckets > kMaxBuckets) break;
    }
    if (buckets != num_buckets_) {
      absl::Status s = Rebucket(buckets);
      if (!s.ok()) return s;
    }
    for (int64_t i = 0; i < n; ++i) InsertOne(k + i * key_dim_, v + i * value_dim_);
    return absl::OkStatus();
  }

  void InsertOne(const K* key, const V* value) {
    const uint64_t mask = static_cast<uint64_t>(num_buckets_ - 1);
    uint64_t b = Hash(key) & mask;
    int64_t target = -1;
    bool existing = false;
    for (int64_t p = 1; p <= num_buckets_; ++p) {
      const K* bk = &keys_[b * key_dim_];
      if (Equal(bk, key)) {
        target = static_cast<int64_t>(b);
        existing = true;
        break;
      }
      if (Equal(bk, empty_.data())) {
        if (target < 0) target = static_cast<int64_t>(b);
        break;
      }
      if (target < 0 && Equal(bk, deleted_.data())) target = static_cast<int64_t>(b);
      b = (b + p) & mask;
    }
    if (target < 0) return;  // unreachable: load factor < 1 keeps free buckets
    if (!existing) {
      for (int64_t j = 0; j < key_dim_; ++j) keys_[target * key_dim_ + j] = key[j];
      ++num_entries_;
    }
    for (int64_t j = 0; j < value_dim_; ++j) values_[target * value_dim_ + j] = value[j];
  }

  absl::Status Rebucket(int64_t buckets) {
    std::unique_ptr<K[]> old_keys = std::move(keys_);
    std::unique_ptr<V[]> old_values = std::move(values_);
    const int64_t old_buckets = num_buckets_;
    absl::Status s = AllocateLocked(buckets);
    if (!s.ok()) {
      keys_ = std::move(old_keys);
      values_ = std::move(old_values);
      num_buckets_ = old_buckets;
      return s;
    }
    for (int64_t b = 0; b < old_buckets; ++b) {
      const K* key = &old_keys[b * key_dim_];
      if (Equal(key, empty_.data()) || Equal(key, deleted_.data())) continue;
      InsertOne(key, &old_values[b * value_dim_]);
    }
    return absl::OkStatus();
  }

  const int64_t key_dim_;
  const int64_t value_dim_;
  const float max_load_factor_;
  const std::vector<K> empty_;
  const std::vector<K> deleted_;
  // std::shared_mutex (pthread rwlock): readers share it; TSan sees it
  // (Debian's prebuilt absl::Mutex is not TSan-instrumented).
  mutable std::shared_mutex mu_;
  std::unique_ptr<K[]> keys_;
  std::unique_ptr<V[]> values_;
  int64_t num_buckets_ = 0;
  int64_t num_entries_ = 0;
};

template <typename K, typename V>
absl::StatusOr<std::shared_ptr<MutableDenseHashTable>> Make(
    DType key_dtype, DType value_dtype, const Tensor& empty_key,
    const Tensor& deleted_key, const Shape& value_shape, int64_t buckets,
    float max_load_factor) {
  auto table = std::make_shared<DenseImpl<K, V>>(
      key_dtype, value_dtype, empty_key, deleted_key, value_shape,
      max_load_factor);
  if (table->EmptyEqualsDeleted()) {
    return absl::InvalidArgumentError("Empty and deleted keys cannot be equal");
  }
  absl::Status s = table->Allocate(buckets);
  if (!s.ok()) return s;
  return std::shared_ptr<MutableDenseHashTable>(std::move(table));
}

template <typename K>
absl::StatusOr<std::shared_ptr<MutableDenseHashTable>> CreateWithKey(
    DType key_dtype, DType value_dtype, const Tensor& empty_key,
    const Tensor& deleted_key, const Shape& value_shape, int64_t buckets,
    float f) {
  switch (value_dtype) {
#define GRAPHRT_DENSE_CASE(DT, T) \
  case DT:                        \
    return Make<K, T>(key_dtype, value_dtype, empty_key, deleted_key, value_shape, buckets, f);
    GRAPHRT_DENSE_CASE(DType::kFloat32, float)
    GRAPHRT_DENSE_CASE(DType::kFloat64, double)
    GRAPHRT_DENSE_CASE(DType::kInt32, int32_t)
    GRAPHRT_DENSE_CASE(DType::kInt64, int64_t)
    GRAPHRT_DENSE_CASE(DType::kBool, bool)
    GRAPHRT_DENSE_CASE(DType::kString, std::string)
#undef GRAPHRT_DENSE_CASE
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "MutableDenseHashTable: unsupported value dtype ", DTypeName(value_dtype),
      " (supported: float32, float64, int32, int64, bool, string)"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<MutableDenseHashTable>>
MutableDenseHashTable::Create(DType key_dtype, DType value_dtype,
                              const Tensor& empty_key,
                              const Tensor& deleted_key,
                              const Shape& value_shape,
                              int64_t initial_num_buckets,
                              float max_load_factor) {
  if (!(max_load_factor > 0 && max_load_factor < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_load_factor must be between 0 and 1, got: ", max_load_factor));
  }
  if (value_shape.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Empty value must be a scalar or a vector, got shape ",
                     value_shape.ToString()));
  }
  if (empty_key.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Empty key must be a scalar or a vector, got shape ",
                     empty_key.shape().ToString()));
  }
  if (empty_key.num_elements() == 0) {
    return absl::InvalidArgumentError("Empty key must have at least one element");
  }
  if (empty_key.dtype() != key_dtype || deleted_key.dtype() != key_dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "empty_key and deleted_key must be ", DTypeName(key_dtype), ", got ",
        empty_key.DebugString(), " and ", deleted_key.DebugString()));
  }
  if (empty_key.shape() != deleted_key.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Empty and deleted keys must have same shape, got shapes: ",
        empty_key.shape().ToString(), " and ", deleted_key.shape().ToString()));
  }
  if (initial_num_buckets < 4 ||
      (initial_num_buckets & (initial_num_buckets - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Number of buckets must be at least 4 and a power of 2, got: ",
        initial_num_buckets));
  }
  const Tensor& e = empty_key;
  const Tensor& d = deleted_key;
  switch (key_dtype) {
    case DType::kString:
      return CreateWithKey<std::string>(key_dtype, value_dtype, e, d,
                                        value_shape, initial_num_buckets,
                                        max_load_factor);
    case DType::kInt32:
      return CreateWithKey<int32_t>(key_dtype, value_dtype, e, d, value_shape,
                                    initial_num_buckets, max_load_factor);
    case DType::kInt64:
      return CreateWithKey<int64_t>(key_dtype, value_dtype, e, d, value_shape,
                                    initial_num_buckets, max_load_factor);
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "MutableDenseHashTable: unsupported key dtype ", DTypeName(key_dtype),
      " (supported: string, int32, int64)"));
}

}  // namespace graphrt
