#include "runtime/dtype.h"

#include "absl/strings/str_cat.h"
#include "runtime/resource.h"
#include "runtime/variant.h"

namespace graphrt {
namespace {

struct DTypeInfo {
  DType dtype;
  absl::string_view name;
  absl::string_view tf_name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kFloat32, "float32", "DT_FLOAT", 4},
    {DType::kFloat64, "float64", "DT_DOUBLE", 8},
    {DType::kInt32, "int32", "DT_INT32", 4},
    {DType::kUInt8, "uint8", "DT_UINT8", 1},
    {DType::kInt16, "int16", "DT_INT16", 2},
    {DType::kInt8, "int8", "DT_INT8", 1},
    {DType::kString, "string", "DT_STRING", sizeof(std::string)},
    {DType::kComplex64, "complex64", "DT_COMPLEX64", 8},
    {DType::kInt64, "int64", "DT_INT64", 8},
    {DType::kBool, "bool", "DT_BOOL", 1},
    {DType::kBFloat16, "bfloat16", "DT_BFLOAT16", 2},
    {DType::kUInt16, "uint16", "DT_UINT16", 2},
    {DType::kComplex128, "complex128", "DT_COMPLEX128", 16},
    {DType::kFloat16, "float16", "DT_HALF", 2},
    {DType::kResource, "resource", "DT_RESOURCE", sizeof(ResourceHandle)},
    {DType::kVariant, "variant", "DT_VARIANT", sizeof(Variant)},
    {DType::kUInt32, "uint32", "DT_UINT32", 4},
    {DType::kUInt64, "uint64", "DT_UINT64", 8},
};

const DTypeInfo* Find(DType dtype) {
  for (const auto& info : kDTypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

}  // namespace

size_t DTypeSize(DType dtype) {
  const DTypeInfo* info = Find(dtype);
  return info ? info->size : 0;
}

bool IsTriviallyCopyable(DType dtype) {
  return dtype != DType::kString && dtype != DType::kResource &&
         dtype != DType::kVariant && dtype != DType::kInvalid;
}

absl::string_view DTypeName(DType dtype) {
  const DTypeInfo* info = Find(dtype);
  return info ? info->name : absl::string_view("invalid");
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (const auto& info : kDTypes) {
    if (info.name == name || info.tf_name == name) return info.dtype;
  }
  if (name == "half") return DType::kFloat16;
  if (name == "float") return DType::kFloat32;
  if (name == "double") return DType::kFloat64;
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype '", name, "'"));
}

absl::StatusOr<DType> DTypeFromProto(int tf_datatype) {
  int base = tf_datatype > 100 ? tf_datatype - 100 : tf_datatype;
  const DTypeInfo* info = Find(static_cast<DType>(base));
  if (info == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported TensorFlow DataType ", tf_datatype));
  }
  return info->dtype;
}

}  // namespace graphrt
