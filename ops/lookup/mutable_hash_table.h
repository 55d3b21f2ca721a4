// MutableHashTable(V2) and MutableHashTableOfTensors(V2) resources, with
// TensorFlow's semantics (core/kernels/lookup_table_op.cc):
//
//   * scalar keys (string, int32, int64); values of value_shape: [] for
//     MutableHashTable, a vector [d] (or []) for MutableHashTableOfTensors;
//   * Insert upserts (a later value for the same key wins, also within one
//     batch), Remove erases (absent keys are ignored), Import clears and
//     inserts, Export returns {keys[size], values[size, value_shape...]}
//     in map order;
//   * Find accepts a default of shape value_shape (used for every missing
//     key) or of the full output shape (per-key defaults).
//
// Concurrency: one std::shared_mutex per table. Find, Size and Export take
// it in shared (reader) mode, so readers never block each other (they do
// wait while a writer holds it); Insert, Remove and Import take it
// exclusively. Lookups are not parallelized inside the
// lock (a oneTBB wait under the lock could pick up a task that wants the
// writer lock on the same thread).
#ifndef GRAPHRT_OPS_LOOKUP_MUTABLE_HASH_TABLE_H_
#define GRAPHRT_OPS_LOOKUP_MUTABLE_HASH_TABLE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "ops/lookup/lookup_table.h"

namespace graphrt {

// Base class of both mutable hash table kinds (for op-level kind checks).
class MutableHashTable : public LookupTable {
 public:
  // value_shape: [] (MutableHashTable) or [d] (MutableHashTableOfTensors).
  // Unsupported dtypes or a value_shape of rank > 1 -> InvalidArgument.
  static absl::StatusOr<std::shared_ptr<MutableHashTable>> Create(
      DType key_dtype, DType value_dtype, const Shape& value_shape);

 protected:
  using LookupTable::LookupTable;
};

}  // namespace graphrt

#endif  // GRAPHRT_OPS_LOOKUP_MUTABLE_HASH_TABLE_H_
