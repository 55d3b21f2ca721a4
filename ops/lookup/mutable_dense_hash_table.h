// MutableDenseHashTable(V2) resource, with TensorFlow's semantics
// (core/kernels/lookup_table_op.cc, MutableDenseHashTable):
//
//   * open addressing with triangular (quadratic) probing over a
//     power-of-two bucket array (initial_num_buckets >= 4, a power of 2);
//     the array doubles whenever entries would exceed
//     buckets * max_load_factor (0 < max_load_factor < 1);
//   * keys are scalars or vectors (the key shape is empty_key's shape);
//     values have value_shape ([] or [d]);
//   * `empty_key` marks free buckets and `deleted_key` removed ones: they
//     must differ, have the same shape, and may not be used as real keys
//     ("Using the empty_key as a table key is not allowed");
//   * Insert upserts, Remove marks buckets deleted, Find takes a default of
//     value_shape or per-key defaults of the full output shape;
//   * Export returns the raw bucket arrays, keys [buckets, key_dim] and
//     values [buckets, value_dim] (free buckets hold empty_key), like TF;
//     Import takes arrays of that layout (keys [..., key_dim], values
//     [..., value_dim]) and re-inserts every row that is not empty_key or
//     deleted_key. Bucket positions come from graphrt's hash, not TF's, so
//     an export from TF imports correctly but not bucket for bucket.
//
// Concurrency: as MutableHashTable (shared reader lock for Find / Size /
// Export, exclusive for Insert / Remove / Import).
#ifndef GRAPHRT_OPS_LOOKUP_MUTABLE_DENSE_HASH_TABLE_H_
#define GRAPHRT_OPS_LOOKUP_MUTABLE_DENSE_HASH_TABLE_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "ops/lookup/lookup_table.h"

namespace graphrt {

class MutableDenseHashTable : public LookupTable {
 public:
  // Checks every argument with TF's messages.
  static absl::StatusOr<std::shared_ptr<MutableDenseHashTable>> Create(
      DType key_dtype, DType value_dtype, const Tensor& empty_key,
      const Tensor& deleted_key, const Shape& value_shape,
      int64_t initial_num_buckets, float max_load_factor);

  virtual int64_t num_buckets() const = 0;

 protected:
  using LookupTable::LookupTable;
};

}  // namespace graphrt

#endif  // GRAPHRT_OPS_LOOKUP_MUTABLE_DENSE_HASH_TABLE_H_
