// Element types. The numeric values are TensorFlow's DataType enum values
// (proto/graph.proto), so conversion from protos is a cast plus a check.
#ifndef GRAPHRT_RUNTIME_DTYPE_H_
#define GRAPHRT_RUNTIME_DTYPE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "Eigen/Core"

namespace graphrt {

enum class DType : int {
  kInvalid = 0,
  kFloat32 = 1,
  kFloat64 = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,
  kComplex64 = 8,
  kInt64 = 9,
  kBool = 10,
  kBFloat16 = 14,
  kUInt16 = 17,
  kComplex128 = 18,
  kFloat16 = 19,
  kResource = 20,
  kVariant = 21,
  kUInt32 = 22,
  kUInt64 = 23,
};

// Bytes per element in a tensor buffer. For kString / kResource / kVariant
// the buffer holds C++ objects (std::string, ResourceHandle, Variant) and
// this returns sizeof of that object.
size_t DTypeSize(DType dtype);

// True for dtypes whose elements are plain bytes (memcpy-able).
bool IsTriviallyCopyable(DType dtype);

// Short lower-case names as TF.js and numpy write them: "float32", "int32",
// "bool", "string", "complex64", "float16", "resource", ...
absl::string_view DTypeName(DType dtype);

// Parses a short name ("float32") or a TF enum name ("DT_FLOAT").
absl::StatusOr<DType> ParseDType(absl::string_view name);

// Converts a TF DataType enum value; *_REF types map to their base type.
absl::StatusOr<DType> DTypeFromProto(int tf_datatype);

// C++ element type for a dtype, and back.
using bfloat16 = Eigen::bfloat16;
using float16 = Eigen::half;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

template <typename T>
struct DTypeOf;
#define GRAPHRT_DTYPE_OF_(T, D) \
  template <>                   \
  struct DTypeOf<T> {           \
    static constexpr DType value = D; \
  }
GRAPHRT_DTYPE_OF_(float, DType::kFloat32);
GRAPHRT_DTYPE_OF_(double, DType::kFloat64);
GRAPHRT_DTYPE_OF_(int32_t, DType::kInt32);
GRAPHRT_DTYPE_OF_(uint8_t, DType::kUInt8);
GRAPHRT_DTYPE_OF_(int16_t, DType::kInt16);
GRAPHRT_DTYPE_OF_(int8_t, DType::kInt8);
GRAPHRT_DTYPE_OF_(std::string, DType::kString);
GRAPHRT_DTYPE_OF_(complex64, DType::kComplex64);
GRAPHRT_DTYPE_OF_(int64_t, DType::kInt64);
GRAPHRT_DTYPE_OF_(bool, DType::kBool);
GRAPHRT_DTYPE_OF_(bfloat16, DType::kBFloat16);
GRAPHRT_DTYPE_OF_(uint16_t, DType::kUInt16);
GRAPHRT_DTYPE_OF_(complex128, DType::kComplex128);
GRAPHRT_DTYPE_OF_(float16, DType::kFloat16);
GRAPHRT_DTYPE_OF_(uint32_t, DType::kUInt32);
GRAPHRT_DTYPE_OF_(uint64_t, DType::kUInt64);
#undef GRAPHRT_DTYPE_OF_

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DTYPE_H_
