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
//     "Table not initialized." before initialization; Size is 0 until then.
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
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/dtype.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {

class HashTable : public Resource {
 public:
  // Key dtypes: kString, kInt32, kInt64. Value dtypes: kFloat32, kFloat64,
  // kInt32, kInt64, kBool, kString. Other combinations -> InvalidArgument.
  static absl::StatusOr<std::shared_ptr<HashTable>> Create(DType key_dtype,
                                                           DType value_dtype);
  static bool IsSupportedKeyDType(DType dtype);
  static bool IsSupportedValueDType(DType dtype);

  ~HashTable() override = default;

  DType key_dtype() const { return key_dtype_; }
  DType value_dtype() const { return value_dtype_; }

  // "Key must be type string but got int32" / "Value must be type ...".
  absl::Status CheckKeyAndValueTypes(DType keys, DType values) const;

  // LookupTableImport(V2) / InitializeTable(V2): keys and values of the
  // table's dtypes and the same shape (any rank; flattened).
  absl::Status Initialize(const Tensor& keys, const Tensor& values);

  // LookupTableFind(V2): `out` gets the value dtype and the keys' shape;
  // `default_value` must be a scalar or have the keys' shape (its first
  // element is used for every missing key, as TF's HashTable does).
  absl::Status Find(const Tensor& keys, const Tensor& default_value,
                    Tensor* out) const;

  bool is_initialized() const {
    return initialized_.load(std::memory_order_acquire);
  }
  // Number of entries; 0 until initialized.
  int64_t size() const;

  // "HashTable string->int32 (3)".
  std::string DebugString() const override;

  // Batches at least this large are looked up with tbb::parallel_for.
  static constexpr int64_t kParallelThreshold = 16384;

 protected:
  HashTable(DType key_dtype, DType value_dtype)
      : key_dtype_(key_dtype), value_dtype_(value_dtype) {}

  // Implemented per (key, value) type pair in hash_table.cc.
  // DoInitialize: build the map from flat keys/values (same element count)
  // and publish it; called once, under init_mu_.
  virtual absl::Status DoInitialize(const Tensor& keys,
                                    const Tensor& values) = 0;
  // DoFind: reads the published map; `out` is allocated by the caller.
  virtual void DoFind(const Tensor& keys, const Tensor& default_value,
                      Tensor* out) const = 0;
  virtual int64_t DoSize() const = 0;

  std::atomic<bool> initialized_{false};

 private:
  const DType key_dtype_;
  const DType value_dtype_;
  absl::Mutex init_mu_;
};

}  // namespace graphrt

#endif  // GRAPHRT_OPS_LOOKUP_HASH_TABLE_H_
