#include "ops/lookup/lookup_table.h"

#include "absl/strings/str_cat.h"

namespace graphrt {

absl::Status LookupTable::Insert(const Tensor&, const Tensor&) {
  return absl::UnimplementedError(
      absl::StrCat("Insert not supported by ", DebugString()));
}

absl::Status LookupTable::Remove(const Tensor&) {
  return absl::UnimplementedError(
      absl::StrCat("Remove not supported by ", DebugString()));
}

absl::Status LookupTable::CheckKeyAndValueTypes(DType keys,
                                                DType values) const {
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

absl::Status LookupTable::CheckKeyShape(const Shape& keys) const {
  const int kr = key_shape_.rank();
  bool ok = keys.rank() >= kr;
  for (int i = 0; ok && i < kr; ++i) {
    ok = keys.dim(keys.rank() - kr + i) == key_shape_.dim(i);
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input key shape ", keys.ToString(),
                     " must end with the table's key shape ",
                     key_shape_.ToString()));
  }
  return absl::OkStatus();
}

Shape LookupTable::ValueShapeFor(const Shape& keys) const {
  Shape s;
  for (int i = 0; i < keys.rank() - key_shape_.rank(); ++i) s.AddDim(keys.dim(i));
  for (int64_t d : value_shape_.dims()) s.AddDim(d);
  return s;
}

int64_t LookupTable::NumKeys(const Tensor& keys) const {
  const int64_t k = key_shape_.num_elements();
  return k == 0 ? 0 : keys.num_elements() / k;
}

absl::Status LookupTable::CheckKeyAndValueTensors(const Tensor& keys,
                                                  const Tensor& values) const {
  absl::Status s = CheckKeyAndValueTypes(keys.dtype(), values.dtype());
  if (!s.ok()) return s;
  s = CheckKeyShape(keys.shape());
  if (!s.ok()) return s;
  const Shape expected = ValueShapeFor(keys.shape());
  if (values.shape() != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected shape ", expected.ToString(), " for value, got ",
                     values.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::CheckFindArguments(
    const Tensor& keys, const Tensor& default_value) const {
  absl::Status s = CheckKeyAndValueTypes(keys.dtype(), default_value.dtype());
  if (!s.ok()) return s;
  s = CheckKeyShape(keys.shape());
  if (!s.ok()) return s;
  const Shape full = ValueShapeFor(keys.shape());
  if (default_value.shape() != value_shape_ && default_value.shape() != full) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected shape ", value_shape_.ToString(), " or ", full.ToString(),
        " for default value, got ", default_value.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::CheckKeysForRemove(const Tensor& keys) const {
  if (keys.dtype() != key_dtype_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Key must be type ", DTypeName(key_dtype_), " but got ",
        DTypeName(keys.dtype())));
  }
  return CheckKeyShape(keys.shape());
}

bool IsSupportedTableKeyDType(DType dtype) {
  return dtype == DType::kString || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

bool IsSupportedTableValueDType(DType dtype) {
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

}  // namespace graphrt
