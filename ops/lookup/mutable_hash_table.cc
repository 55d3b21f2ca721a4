#include "ops/lookup/mutable_hash_table.h"

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace graphrt {
namespace {

template <typename K>
inline const K& LookupKey(const K& k) {
  return k;
}
inline absl::string_view LookupKey(const std::string& k) {
  return absl::string_view(k);
}

// kScalar: one V per key (MutableHashTable); else a std::vector<V> of
// value_dim elements in an InlinedVector (MutableHashTableOfTensors).
template <typename K, typename V, bool kScalar>
class MutableHashTableImpl final : public MutableHashTable {
 public:
  using Stored = std::conditional_t<kScalar, V, absl::InlinedVector<V, 2>>;

  MutableHashTableImpl(DType key_dtype, DType value_dtype, Shape value_shape)
      : MutableHashTable(key_dtype, value_dtype, Shape(), value_shape),
        value_dim_(value_shape.num_elements()) {}

  absl::Status Find(const Tensor& keys, const Tensor& default_value,
                    Tensor* out) const override {
    absl::Status s = CheckFindArguments(keys, default_value);
    if (!s.ok()) return s;
    absl::StatusOr<Tensor> result =
        Tensor::Allocate(value_dtype(), ValueShapeFor(keys.shape()));
    if (!result.ok()) return result.status();
    const int64_t n = keys.num_elements();
    const K* k = keys.data<K>();
    V* o = result->template mutable_data<V>();
    const V* dflt = default_value.data<V>();
    const int64_t d = value_dim_;
    // Per-key defaults when the default has the full output shape.
    const bool per_key = default_value.num_elements() == result->num_elements() &&
                         default_value.num_elements() != d;
    {
      std::shared_lock<std::shared_mutex> lock(mu_);
      for (int64_t i = 0; i < n; ++i) {
        auto it = map_.find(LookupKey(k[i]));
        const V* src;
        if (it == map_.end()) {
          src = per_key ? dflt + i * d : dflt;
        } else if constexpr (kScalar) {
          src = &it->second;
        } else {
          src = it->second.data();
        }
        for (int64_t j = 0; j < d; ++j) o[i * d + j] = src[j];
      }
    }
    *out = std::move(*result);
    return absl::OkStatus();
  }

  absl::Status Insert(const Tensor& keys, const Tensor& values) override {
    absl::Status s = CheckKeyAndValueTensors(keys, values);
    if (!s.ok()) return s;
    std::unique_lock<std::shared_mutex> lock(mu_);
    InsertLocked(keys, values);
    return absl::OkStatus();
  }

  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    absl::Status s = CheckKeyAndValueTensors(keys, values);
    if (!s.ok()) return s;
    std::unique_lock<std::shared_mutex> lock(mu_);
    map_.clear();
    InsertLocked(keys, values);
    return absl::OkStatus();
  }

  absl::Status Remove(const Tensor& keys) override {
    absl::Status s = CheckKeysForRemove(keys);
    if (!s.ok()) return s;
    const int64_t n = keys.num_elements();
    const K* k = keys.data<K>();
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (int64_t i = 0; i < n; ++i) {
      auto it = map_.find(LookupKey(k[i]));
      if (it != map_.end()) map_.erase(it);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::pair<Tensor, Tensor>> Export() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    const int64_t n = static_cast<int64_t>(map_.size());
    absl::StatusOr<Tensor> keys = Tensor::Allocate(key_dtype(), Shape({n}));
    if (!keys.ok()) return keys.status();
    Shape vshape({n});
    for (int64_t dim : value_shape().dims()) vshape.AddDim(dim);
    absl::StatusOr<Tensor> values = Tensor::Allocate(value_dtype(), vshape);
    if (!values.ok()) return values.status();
    K* k = keys->template mutable_data<K>();
    V* v = values->template mutable_data<V>();
    int64_t i = 0;
    for (const auto& [key, value] : map_) {
      k[i] = key;
      if constexpr (kScalar) {
        v[i] = value;
      } else {
        for (int64_t j = 0; j < value_dim_; ++j) v[i * value_dim_ + j] = value[j];
      }
      ++i;
    }
    return std::make_pair(std::move(*keys), std::move(*values));
  }

  int64_t size() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return static_cast<int64_t>(map_.size());
  }

  std::string DebugString() const override {
    return absl::StrCat(kScalar ? "MutableHashTable " : "MutableHashTableOfTensors ",
                        DTypeName(key_dtype()), "->", DTypeName(value_dtype()),
                        value_shape().ToString(), " (", size(), ")");
  }

 private:
  void InsertLocked(const Tensor& keys, const Tensor& values) {
    const int64_t n = keys.num_elements();
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (kScalar) {
        map_.insert_or_assign(k[i], v[i]);
      } else {
        map_.insert_or_assign(
            k[i], absl::InlinedVector<V, 2>(v + i * value_dim_,
                                            v + (i + 1) * value_dim_));
      }
    }
  }

  const int64_t value_dim_;
  // std::shared_mutex (pthread rwlock): readers share it; TSan sees it
  // (Debian's prebuilt absl::Mutex is not TSan-instrumented).
  mutable std::shared_mutex mu_;
  absl::flat_hash_map<K, Stored> map_;
};

template <typename K, typename V>
std::shared_ptr<MutableHashTable> Make(DType key_dtype, DType value_dtype,
                                       const Shape& value_shape) {
  if (value_shape.rank() == 0) {
    return std::make_shared<MutableHashTableImpl<K, V, true>>(
        key_dtype, value_dtype, value_shape);
  }
  return std::make_shared<MutableHashTableImpl<K, V, false>>(
      key_dtype, value_dtype, value_shape);
}

template <typename K>
absl::StatusOr<std::shared_ptr<MutableHashTable>> CreateWithKey(
    DType key_dtype, DType value_dtype, const Shape& value_shape) {
  switch (value_dtype) {
    case DType::kFloat32:
      return Make<K, float>(key_dtype, value_dtype, value_shape);
    case DType::kFloat64:
      return Make<K, double>(key_dtype, value_dtype, value_shape);
    case DType::kInt32:
      return Make<K, int32_t>(key_dtype, value_dtype, value_shape);
    case DType::kInt64:
      return Make<K, int64_t>(key_dtype, value_dtype, value_shape);
    case DType::kBool:
      return Make<K, bool>(key_dtype, value_dtype, value_shape);
    case DType::kString:
      return Make<K, std::string>(key_dtype, value_dtype, value_shape);
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "MutableHashTable: unsupported value dtype ", DTypeName(value_dtype),
      " (supported: float32, float64, int32, int64, bool, string)"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<MutableHashTable>> MutableHashTable::Create(
    DType key_dtype, DType value_dtype, const Shape& value_shape) {
  if (value_shape.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Default value must be a vector, got shape ", value_shape.ToString()));
  }
  switch (key_dtype) {
    case DType::kString:
      return CreateWithKey<std::string>(key_dtype, value_dtype, value_shape);
    case DType::kInt32:
      return CreateWithKey<int32_t>(key_dtype, value_dtype, value_shape);
    case DType::kInt64:
      return CreateWithKey<int64_t>(key_dtype, value_dtype, value_shape);
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("MutableHashTable: unsupported key dtype ",
                   DTypeName(key_dtype), " (supported: string, int32, int64)"));
}

}  // namespace graphrt
