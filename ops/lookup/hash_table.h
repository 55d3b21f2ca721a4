// The static hash table resource behind HashTable / HashTableV2, with
// TensorFlow's semantics (core/kernels/lookup_table_op.{h,cc},
// initializable_lookup_table.cc, framework/lookup_interface.cc):
//
//   * scalar keys of type string, int32 or int64 and scalar values of type
//     float32, float64, int32, int64, bool or string;
//   * initialized once (LookupTableImport / InitializeTable), read-only after:
//     a duplicate key with a different value is a FailedPrecondition,
//     re-initializing is a no-op when the new data has as many entries as the
//     table and an error otherwise;
//   * Find keeps the keys' shape and uses the first element of the default;
//     "Table not initialized." before initialization; Size is 0 until then;
//   * Export gives {keys[size], values[size]} ("HashTable is not
//     initialized." before); Insert/Remove are Unimplemented.
//
// Storage: numeric keys live in an absl::flat_hash_map<K, V>. String keys
// live in a flat_hash_map<ArenaRef, V>: a 16-byte ArenaRef holds keys of up
// to 12 bytes inline (probing a short key touches no other memory, like
// std::string's SSO) and otherwise the length and a 64-bit offset into one
// contiguous arena that holds all long keys back to back. Hash and equality
// go through absl::string_view (transparent lookup: a Find never copies or
// allocates). A string->int64 table costs 16 + 8 + 1 bytes per slot plus
// the long keys' bytes: at most ~52 B/slot-per-entry at the map's lowest
// load factor, instead of ~80 B plus heap blocks with std::string keys.
//
// Concurrency: initialization is serialized by a mutex and builds the map
// off to the side; it is published with a release store of `initialized_`.
// Find/Size only do an acquire load and then read the immutable map, so
// lookups from many threads never take a lock.
#ifndef GRAPHRT_OPS_LOOKUP_HASH_TABLE_H_
#define GRAPHRT_OPS_LOOKUP_HASH_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/lookup/lookup_table.h"
#include "runtime/dtype.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {

class HashTable : public LookupTable {
 public:
  // Key dtypes: kString, kInt32, kInt64. Value dtypes: kFloat32, kFloat64,
  // kInt32, kInt64, kBool, kString. Other combinations -> InvalidArgument.
  static absl::StatusOr<std::shared_ptr<HashTable>> Create(DType key_dtype,
                                                           DType value_dtype);
  static bool IsSupportedKeyDType(DType dtype);
  static bool IsSupportedValueDType(DType dtype);

  ~HashTable() override = default;

  // LookupTableImport(V2) / InitializeTable(V2): keys and values of the
  // table's dtypes and the same shape (any rank; flattened).
  absl::Status Initialize(const Tensor& keys, const Tensor& values);

  // LookupTableFind(V2): `out` gets the value dtype and the keys' shape;
  // `default_value` must be a scalar or have the keys' shape (its first
  // element is used for every missing key, as TF's HashTable does).
  absl::Status Find(const Tensor& keys, const Tensor& default_value,
                    Tensor* out) const override;
  // = Initialize.
  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    return Initialize(keys, values);
  }
  absl::StatusOr<std::pair<Tensor, Tensor>> Export() const override;

  bool is_initialized() const {
    return initialized_.load(std::memory_order_acquire);
  }
  // Number of entries; 0 until initialized.
  int64_t size() const override;

  // "HashTable string->int32 (3)".
  std::string DebugString() const override;

  // Batches at least this large are looked up with tbb::parallel_for.
  static constexpr int64_t kParallelThreshold = 16384;

 protected:
  HashTable(DType key_dtype, DType value_dtype)
      : LookupTable(key_dtype, value_dtype, Shape(), Shape()) {}

  // Implemented per (key, value) type pair in hash_table.cc.
  // DoInitialize: build the map from flat keys/values (same element count)
  // and publish it; called once, under init_mu_.
  virtual absl::Status DoInitialize(const Tensor& keys,
                                    const Tensor& values) = 0;
  // DoFind: reads the published map; `out` is allocated by the caller.
  virtual void DoFind(const Tensor& keys, const Tensor& default_value,
                      Tensor* out) const = 0;
  virtual int64_t DoSize() const = 0;
  // DoExport: fills keys/values, allocated by the caller with DoSize()
  // elements each.
  virtual void DoExport(Tensor* keys, Tensor* values) const = 0;

  std::atomic<bool> initialized_{false};

 private:
  std::mutex init_mu_;
};

}  // namespace graphrt

#endif  // GRAPHRT_OPS_LOOKUP_HASH_TABLE_H_
