// The interface every lookup table resource implements (TF's
// LookupInterface, core/framework/lookup_interface.{h,cc}), with TF's common
// argument checks. Implementations:
//
//   HashTable              (hash_table.h)        static, initialized once,
//                                                lock-free reads
//   MutableHashTable       (mutable_hash_table.h) scalar or vector values
//   MutableDenseHashTable  (mutable_dense_hash_table.h) open addressing
//
// Shapes: a table has a key shape ([] except for dense tables, whose keys
// may be vectors) and a value shape ([] or a vector). For keys of shape
// K = batch + key_shape, values have shape batch + value_shape.
//
// Thread safety: every method may be called from many threads at once.
#ifndef GRAPHRT_OPS_LOOKUP_LOOKUP_TABLE_H_
#define GRAPHRT_OPS_LOOKUP_LOOKUP_TABLE_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/dtype.h"
#include "runtime/resource.h"
#include "runtime/shape.h"
#include "runtime/tensor.h"

namespace graphrt {

class LookupTable : public Resource {
 public:
  ~LookupTable() override = default;

  DType key_dtype() const { return key_dtype_; }
  DType value_dtype() const { return value_dtype_; }
  const Shape& key_shape() const { return key_shape_; }
  const Shape& value_shape() const { return value_shape_; }

  // LookupTableFind(V2): `out` gets the value dtype and shape
  // batch + value_shape. `default_value` has shape value_shape (or, for
  // tables that support per-key defaults, the full output shape).
  virtual absl::Status Find(const Tensor& keys, const Tensor& default_value,
                            Tensor* out) const = 0;
  // LookupTableInsert(V2): upsert. Static tables: Unimplemented.
  virtual absl::Status Insert(const Tensor& keys, const Tensor& values);
  // LookupTableRemoveV2. Static tables: Unimplemented.
  virtual absl::Status Remove(const Tensor& keys);
  // LookupTableImport(V2): static tables initialize; mutable tables clear
  // and insert.
  virtual absl::Status Import(const Tensor& keys, const Tensor& values) = 0;
  // LookupTableExport(V2): {keys, values}.
  virtual absl::StatusOr<std::pair<Tensor, Tensor>> Export() const = 0;
  // Number of entries.
  virtual int64_t size() const = 0;

  // TF's checks, with TF's messages.
  // "Key must be type string but got int32" / "Value must be type ...".
  absl::Status CheckKeyAndValueTypes(DType keys, DType values) const;
  // Keys' shape must end with key_shape().
  absl::Status CheckKeyShape(const Shape& keys) const;
  // Types, key shape, and values.shape == ValueShapeFor(keys.shape).
  absl::Status CheckKeyAndValueTensors(const Tensor& keys,
                                       const Tensor& values) const;
  // Types, key shape, default shape value_shape or ValueShapeFor(keys).
  absl::Status CheckFindArguments(const Tensor& keys,
                                  const Tensor& default_value) const;
  // Types and key shape of keys to remove.
  absl::Status CheckKeysForRemove(const Tensor& keys) const;
  // keys.shape minus the key_shape suffix plus value_shape.
  Shape ValueShapeFor(const Shape& keys) const;
  // Number of keys in a keys tensor (elements / key elements).
  int64_t NumKeys(const Tensor& keys) const;

 protected:
  LookupTable(DType key_dtype, DType value_dtype, Shape key_shape,
              Shape value_shape)
      : key_dtype_(key_dtype),
        value_dtype_(value_dtype),
        key_shape_(std::move(key_shape)),
        value_shape_(std::move(value_shape)) {}

 private:
  const DType key_dtype_;
  const DType value_dtype_;
  const Shape key_shape_;
  const Shape value_shape_;
};

// Key / value dtypes TF registers for its table classes (int32, int64,
// string keys; float32, float64, int32, int64, bool, string values).
bool IsSupportedTableKeyDType(DType dtype);
bool IsSupportedTableValueDType(DType dtype);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_LOOKUP_LOOKUP_TABLE_H_
