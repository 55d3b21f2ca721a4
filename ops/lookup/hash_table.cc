#include "ops/lookup/hash_table.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace graphrt {
namespace {

// Grain of the parallel lookup: enough keys per task to amortize the
// scheduling (a lookup is tens of nanoseconds).
constexpr int64_t kParallelGrain = 4096;

// Values in error messages, as TF prints them (floats round-trip).
template <typename T>
std::string Format(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    constexpr int kMaxDigits = std::is_same_v<T, float> ? 9 : 17;
    char buf[64];
    for (int digits = 6; digits <= kMaxDigits; ++digits) {
      std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
      if (std::isnan(v) || static_cast<T>(std::strtod(buf, nullptr)) == v) {
        break;
      }
    }
    return buf;
  } else {
    return absl::StrCat(v);
  }
}

// string keys are looked up through absl::string_view (flat_hash_map's
// string hash is transparent), so a lookup never copies the key.
template <typename K>
inline const K& LookupKey(const K& k) {
  return k;
}
inline absl::string_view LookupKey(const std::string& k) {
  return absl::string_view(k);
}

template <typename K, typename V>
class HashTableImpl final : public HashTable {
 public:
  HashTableImpl(DType key_dtype, DType value_dtype)
      : HashTable(key_dtype, value_dtype) {}

 protected:
  absl::Status DoInitialize(const Tensor& keys, const Tensor& values) override {
    const int64_t n = keys.num_elements();
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    absl::flat_hash_map<K, V> map;
    map.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = map.try_emplace(k[i], v[i]);
      if (!inserted && it->second != v[i]) {
        return absl::FailedPreconditionError(absl::StrCat(
            "HashTable has different value for same key. Key ", Format(k[i]),
            " has ", Format(it->second), " and trying to add value ",
            Format(v[i])));
      }
    }
    map_ = std::move(map);
    // Publishes map_: readers acquire-load initialized_ before touching it.
    initialized_.store(true, std::memory_order_release);
    return absl::OkStatus();
  }

  void DoFind(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const override {
    const int64_t n = keys.num_elements();
    const K* k = keys.data<K>();
    V* o = out->mutable_data<V>();
    const V& dflt = default_value.data<V>()[0];
    const auto& map = map_;
    auto lookup = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        auto it = map.find(LookupKey(k[i]));
        o[i] = it == map.end() ? dflt : it->second;
      }
    };
    if (n >= kParallelThreshold) {
      tbb::parallel_for(
          tbb::blocked_range<int64_t>(0, n, kParallelGrain),
          [&](const tbb::blocked_range<int64_t>& r) {
            lookup(r.begin(), r.end());
          });
    } else {
      lookup(0, n);
    }
  }

  int64_t DoSize() const override { return static_cast<int64_t>(map_.size()); }

 private:
  // Written once by DoInitialize (under the base class's init mutex, before
  // initialized_ is set); immutable afterwards.
  absl::flat_hash_map<K, V> map_;
};

template <typename K>
absl::StatusOr<std::shared_ptr<HashTable>> CreateWithKey(DType key_dtype,
                                                         DType value_dtype) {
  switch (value_dtype) {
    case DType::kFloat32:
      return std::make_shared<HashTableImpl<K, float>>(key_dtype, value_dtype);
    case DType::kFloat64:
      return std::make_shared<HashTableImpl<K, double>>(key_dtype, value_dtype);
    case DType::kInt32:
      return std::make_shared<HashTableImpl<K, int32_t>>(key_dtype,
                                                         value_dtype);
    case DType::kInt64:
      return std::make_shared<HashTableImpl<K, int64_t>>(key_dtype,
                                                         value_dtype);
    case DType::kBool:
      return std::make_shared<HashTableImpl<K, bool>>(key_dtype, value_dtype);
    case DType::kString:
      return std::make_shared<HashTableImpl<K, std::string>>(key_dtype,
                                                             value_dtype);
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("HashTable: unsupported value dtype ",
                   DTypeName(value_dtype),
                   " (supported: float32, float64, int32, int64, bool, "
                   "string)"));
}

}  // namespace

bool HashTable::IsSupportedKeyDType(DType dtype) {
  return dtype == DType::kString || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

bool HashTable::IsSupportedValueDType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kBool:
    case DType::kString:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<std::shared_ptr<HashTable>> HashTable::Create(
    DType key_dtype, DType value_dtype) {
  switch (key_dtype) {
    case DType::kString:
      return CreateWithKey<std::string>(key_dtype, value_dtype);
    case DType::kInt32:
      return CreateWithKey<int32_t>(key_dtype, value_dtype);
    case DType::kInt64:
      return CreateWithKey<int64_t>(key_dtype, value_dtype);
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("HashTable: unsupported key dtype ", DTypeName(key_dtype),
                   " (supported: string, int32, int64)"));
}

absl::Status HashTable::CheckKeyAndValueTypes(DType keys, DType values) const {
  if (keys != key_dtype_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Key must be type ", DTypeName(key_dtype_), " but got ",
        DTypeName(keys)));
  }
  if (values != value_dtype_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Value must be type ", DTypeName(value_dtype_), " but got ",
        DTypeName(values)));
  }
  return absl::OkStatus();
}

absl::Status HashTable::Initialize(const Tensor& keys, const Tensor& values) {
  absl::Status s = CheckKeyAndValueTypes(keys.dtype(), values.dtype());
  if (!s.ok()) return s;
  // Scalar keys and values: the values' shape must be the keys' shape.
  if (values.shape() != keys.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected shape ", keys.shape().ToString(),
                     " for value, got ", values.shape().ToString()));
  }
  absl::MutexLock lock(&init_mu_);
  if (is_initialized()) {
    // TF (InitializableLookupTable::AreEntriesSame) only compares sizes.
    if (keys.num_elements() == DoSize()) return absl::OkStatus();
    return absl::FailedPreconditionError(
        "Table was already initialized with different data.");
  }
  return DoInitialize(keys, values);
}

absl::Status HashTable::Find(const Tensor& keys, const Tensor& default_value,
                             Tensor* out) const {
  if (!is_initialized()) {
    return absl::FailedPreconditionError("Table not initialized.");
  }
  absl::Status s = CheckKeyAndValueTypes(keys.dtype(), default_value.dtype());
  if (!s.ok()) return s;
  if (default_value.rank() != 0 && default_value.shape() != keys.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected shape [] or ", keys.shape().ToString(),
        " for default value, got ", default_value.shape().ToString()));
  }
  absl::StatusOr<Tensor> result = Tensor::Allocate(value_dtype_, keys.shape());
  if (!result.ok()) return result.status();
  if (keys.num_elements() > 0) DoFind(keys, default_value, &*result);
  *out = std::move(*result);
  return absl::OkStatus();
}

int64_t HashTable::size() const { return is_initialized() ? DoSize() : 0; }

std::string HashTable::DebugString() const {
  return absl::StrCat("HashTable ", DTypeName(key_dtype_), "->",
                      DTypeName(value_dtype_), " (",
                      is_initialized() ? absl::StrCat(DoSize())
                                       : std::string("uninitialized"),
                      ")");
}

}  // namespace graphrt
