#include "ops/lookup/hash_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/huge_pages.h"
#include "runtime/parallel.h"

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

// Looks keys[0, kFindBlock) up in `map` (an absl::flat_hash_map), storing
// the values or `dflt` to out[0, kFindBlock). `as_key` turns a stored key
// into the map's lookup key (a stateless lambda). Kept out of line with a
// compile-time trip count and few live values: inlined into a loop with a
// runtime bound, GCC spilled the map, bound and default to the stack and
// laid the miss path out with an extra taken jump, which made all-miss int64
// batches ~25% slower than the raw flat_hash_map loop (bench/lookup_bench.cc,
// Find/ vs RawFind/). `out` is __restrict so the int64 stores cannot alias
// the map's fields.
constexpr int64_t kFindBlock = 64;

// Initialization inserts keys in tensor order into a table far larger than
// the caches (a 300k vocabulary takes ~12 MB): each insert's probe is a
// cache miss. Prefetching the slot group of the key this many inserts ahead
// overlaps those misses.
constexpr int64_t kInitPrefetchAhead = 16;

template <int64_t kCount, typename Map, typename K, typename AsKey, typename V>
__attribute__((noinline)) void FindBlock(const Map& map, const K* keys,
                                         AsKey as_key, const V dflt,
                                         V* __restrict out) {
  for (int64_t i = 0; i < kCount; ++i) {
    auto it = map.find(as_key(keys[i]));
    out[i] = it == map.end() ? dflt : it->second;
  }
}

// Looks keys[begin, end) up, kFindBlock at a time.
template <typename Map, typename K, typename AsKey, typename V>
void FindRange(const Map& map, const K* keys, AsKey as_key, const V dflt,
               int64_t begin, int64_t end, V* out) {
  int64_t i = begin;
  for (; i + kFindBlock <= end; i += kFindBlock) {
    FindBlock<kFindBlock>(map, keys + i, as_key, dflt, out + i);
  }
  for (; i < end; ++i) {
    auto it = map.find(as_key(keys[i]));
    out[i] = it == map.end() ? dflt : it->second;
  }
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
    Map map;
    map.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (i + kInitPrefetchAhead < n) map.prefetch(k[i + kInitPrefetchAhead]);
      auto [it, inserted] = map.try_emplace(k[i], v[i]);
      if (!inserted && it->second != v[i]) {
        return absl::FailedPreconditionError(
            absl::StrCat("HashTable has different value for same key. Key ",
                         Format(k[i]), " has ", Format(it->second),
                         " and trying to add value ", Format(v[i])));
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
    // Locals by value: stores to o[] cannot alias them, so the loop keeps
    // them in registers and independent misses overlap.
    const V dflt = default_value.data<V>()[0];
    const auto* map_ptr = &map_;
    auto lookup = [map_ptr, k, o, &dflt](int64_t begin, int64_t end) {
      FindRange(
          *map_ptr, k, [](const K& key) -> const K& { return key; }, dflt,
          begin, end, o);
    };
    if (n >= kParallelThreshold) {
      ParallelFor(0, n, kParallelGrain, lookup);
    } else {
      lookup(0, n);
    }
  }

  int64_t DoSize() const override { return static_cast<int64_t>(map_.size()); }

  void DoExport(Tensor* keys, Tensor* values) const override {
    K* k = keys->mutable_data<K>();
    V* v = values->mutable_data<V>();
    int64_t i = 0;
    for (const auto& [key, value] : map_) {
      k[i] = key;
      v[i] = value;
      ++i;
    }
  }

 private:
  // Slots of a large table are advised for huge pages (runtime/huge_pages.h).
  using Map = absl::flat_hash_map<K, V, absl::Hash<K>, std::equal_to<K>,
                                  HugePageAllocator<std::pair<const K, V>>>;
  // Written once by DoInitialize (under the base class's init mutex, before
  // initialized_ is set); immutable afterwards.
  Map map_;
};

// A string key: up to kInlineBytes bytes are stored in the ref itself (no
// arena access when probing short keys, as std::string's SSO); longer keys
// live in the arena at a 64-bit offset kept in bytes[4..12).
struct ArenaRef {
  static constexpr uint32_t kInlineBytes = 12;
  uint32_t length;
  char bytes[kInlineBytes];
  uint64_t offset() const {
    uint64_t o;
    std::memcpy(&o, bytes + 4, sizeof(o));
    return o;
  }
};
static_assert(sizeof(ArenaRef) == 16);

// Hash and equality of ArenaRefs through the arena, transparent to
// absl::string_view so lookups need no ArenaRef.
// Long string keys back to back (huge-page advised when large).
using KeyArena =
    std::basic_string<char, std::char_traits<char>, HugePageAllocator<char>>;

struct ArenaView {
  const KeyArena* arena;
  absl::string_view View(const ArenaRef& r) const {
    return r.length <= ArenaRef::kInlineBytes
               ? absl::string_view(r.bytes, r.length)
               : absl::string_view(arena->data() + r.offset(), r.length);
  }
  absl::string_view View(absl::string_view s) const { return s; }
};

struct ArenaHash : ArenaView {
  using is_transparent = void;
  // flatten: GCC otherwise calls absl's string hash out of line here (it
  // inlines it for flat_hash_map<std::string, V>), ~1 ns per lookup.
  template <typename A>
  __attribute__((flatten)) size_t operator()(const A& a) const {
    return absl::Hash<absl::string_view>()(View(a));
  }
};

// Equality of short strings without a memcmp call: two (possibly
// overlapping) fixed-size loads from each end cover lengths 4..16.
inline bool ShortEqual(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    uint64_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&a1, a + n - 8, 8);
    std::memcpy(&b1, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4) {
    uint32_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 4);
    std::memcpy(&b0, b, 4);
    std::memcpy(&a1, a + n - 4, 4);
    std::memcpy(&b1, b + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

struct ArenaEq : ArenaView {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    const absl::string_view x = View(a);
    const absl::string_view y = View(b);
    if (x.size() != y.size()) return false;
    if (x.size() <= 16) return ShortEqual(x.data(), y.data(), x.size());
    return std::memcmp(x.data(), y.data(), x.size()) == 0;
  }
};

template <typename V>
class StringHashTableImpl final : public HashTable {
 public:
  StringHashTableImpl(DType key_dtype, DType value_dtype)
      : HashTable(key_dtype, value_dtype),
        map_(0, ArenaHash{{&arena_}}, ArenaEq{{&arena_}}) {}

 protected:
  absl::Status DoInitialize(const Tensor& keys, const Tensor& values) override {
    const int64_t n = keys.num_elements();
    const std::string* k = keys.data<std::string>();
    const V* v = values.data<V>();
    uint64_t bytes = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (k[i].size() > UINT32_MAX) {
        return absl::InvalidArgumentError(
            absl::StrCat("HashTable: key ", i, " is longer than 4 GiB"));
      }
      if (k[i].size() > ArenaRef::kInlineBytes) bytes += k[i].size();
    }
    arena_.clear();
    arena_.reserve(static_cast<size_t>(bytes));
    map_.clear();
    map_.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (i + kInitPrefetchAhead < n) {
        map_.prefetch(absl::string_view(k[i + kInitPrefetchAhead]));
      }
      // One probe per key: the slot is built only when the key is new.
      bool inserted = false;
      auto it = map_.lazy_emplace(
          absl::string_view(k[i]), [&](const auto& construct) {
            inserted = true;
            ArenaRef ref{};
            ref.length = static_cast<uint32_t>(k[i].size());
            if (ref.length <= ArenaRef::kInlineBytes) {
              std::memcpy(ref.bytes, k[i].data(), ref.length);
            } else {
              const uint64_t offset = arena_.size();
              std::memcpy(ref.bytes + 4, &offset, sizeof(offset));
              arena_.append(k[i]);
            }
            construct(ref, v[i]);
          });
      if (!inserted && it->second != v[i]) {
        absl::Status s = absl::FailedPreconditionError(absl::StrCat(
            "HashTable has different value for same key. Key ", k[i], " has ",
            Format(it->second), " and trying to add value ", Format(v[i])));
        map_.clear();
        arena_.clear();
        return s;
      }
    }
    // Publishes map_ and arena_ (see HashTableImpl::DoInitialize).
    initialized_.store(true, std::memory_order_release);
    return absl::OkStatus();
  }

  void DoFind(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const override {
    const int64_t n = keys.num_elements();
    const std::string* k = keys.data<std::string>();
    V* o = out->mutable_data<V>();
    // Locals by value: stores to o[] cannot alias them, so the loop keeps
    // them in registers and independent misses overlap.
    const V dflt = default_value.data<V>()[0];
    const auto* map_ptr = &map_;
    auto lookup = [map_ptr, k, o, &dflt](int64_t begin, int64_t end) {
      FindRange(
          *map_ptr, k,
          [](const std::string& key) { return absl::string_view(key); }, dflt,
          begin, end, o);
    };
    if (n >= kParallelThreshold) {
      ParallelFor(0, n, kParallelGrain, lookup);
    } else {
      lookup(0, n);
    }
  }

  int64_t DoSize() const override { return static_cast<int64_t>(map_.size()); }

  void DoExport(Tensor* keys, Tensor* values) const override {
    std::string* k = keys->mutable_data<std::string>();
    V* v = values->mutable_data<V>();
    int64_t i = 0;
    for (const auto& [ref, value] : map_) {
      const absl::string_view key = ArenaView{&arena_}.View(ref);
      k[i].assign(key.data(), key.size());
      v[i] = value;
      ++i;
    }
  }

 private:
  // Both written once by DoInitialize, immutable afterwards. map_'s hasher
  // and comparator point at arena_ (this object never moves: it is held by
  // shared_ptr).
  KeyArena arena_;
  absl::flat_hash_map<ArenaRef, V, ArenaHash, ArenaEq,
                      HugePageAllocator<std::pair<const ArenaRef, V>>>
      map_;
};

template <typename K, typename V>
std::shared_ptr<HashTable> MakeTable(DType key_dtype, DType value_dtype) {
  if constexpr (std::is_same_v<K, std::string>) {
    return std::make_shared<StringHashTableImpl<V>>(key_dtype, value_dtype);
  } else {
    return std::make_shared<HashTableImpl<K, V>>(key_dtype, value_dtype);
  }
}

template <typename K>
absl::StatusOr<std::shared_ptr<HashTable>> CreateWithKey(DType key_dtype,
                                                         DType value_dtype) {
  switch (value_dtype) {
    case DType::kFloat32:
      return MakeTable<K, float>(key_dtype, value_dtype);
    case DType::kFloat64:
      return MakeTable<K, double>(key_dtype, value_dtype);
    case DType::kInt32:
      return MakeTable<K, int32_t>(key_dtype, value_dtype);
    case DType::kInt64:
      return MakeTable<K, int64_t>(key_dtype, value_dtype);
    case DType::kBool:
      return MakeTable<K, bool>(key_dtype, value_dtype);
    case DType::kString:
      return MakeTable<K, std::string>(key_dtype, value_dtype);
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "HashTable: unsupported value dtype ", DTypeName(value_dtype),
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

absl::Status HashTable::Initialize(const Tensor& keys, const Tensor& values) {
  absl::Status s = CheckKeyAndValueTypes(keys.dtype(), values.dtype());
  if (!s.ok()) return s;
  // Scalar keys and values: the values' shape must be the keys' shape.
  if (values.shape() != keys.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected shape ", keys.shape().ToString(),
                     " for value, got ", values.shape().ToString()));
  }
  std::lock_guard<std::mutex> lock(init_mu_);
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
  // DoFind writes every element.
  absl::StatusOr<Tensor> result =
      Tensor::AllocateUninitialized(value_dtype(), keys.shape());
  if (!result.ok()) return result.status();
  if (keys.num_elements() > 0) DoFind(keys, default_value, &*result);
  *out = std::move(*result);
  return absl::OkStatus();
}

absl::StatusOr<std::pair<Tensor, Tensor>> HashTable::Export() const {
  if (!is_initialized()) {
    return absl::FailedPreconditionError("HashTable is not initialized.");
  }
  const int64_t n = DoSize();
  absl::StatusOr<Tensor> keys = Tensor::Allocate(key_dtype(), Shape({n}));
  if (!keys.ok()) return keys.status();
  absl::StatusOr<Tensor> values = Tensor::Allocate(value_dtype(), Shape({n}));
  if (!values.ok()) return values.status();
  DoExport(&*keys, &*values);
  return std::make_pair(std::move(*keys), std::move(*values));
}

int64_t HashTable::size() const { return is_initialized() ? DoSize() : 0; }

std::string HashTable::DebugString() const {
  return absl::StrCat(
      "HashTable ", DTypeName(key_dtype()), "->", DTypeName(value_dtype()),
      " (",
      is_initialized() ? absl::StrCat(DoSize()) : std::string("uninitialized"),
      ")");
}

}  // namespace graphrt
