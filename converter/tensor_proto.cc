#include "converter/tensor_proto.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ops/attrs.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Fills `out` from a repeated field; a shorter non-empty list repeats its
// last value (TF's splat encoding), a longer one is an error.
template <typename T, typename Field, typename Convert>
absl::Status FillFromField(const Field& field, Tensor& out, Convert convert) {
  int64_t n = out.num_elements();
  if (field.size() > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto has ", field.size(), " values for ",
                     out.DebugString()));
  }
  if (field.empty()) return absl::OkStatus();  // zeros
  T* data = out.mutable_data<T>();
  for (int64_t i = 0; i < n; ++i) {
    data[i] = convert(field.Get(i < field.size() ? i : field.size() - 1));
  }
  return absl::OkStatus();
}

template <typename T>
T Same(T v) {
  return v;
}

template <typename To, typename From>
To SafeCast(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
  }
  return static_cast<To>(v);
}

template <typename To, typename From>
void CastLoop(const Tensor& in, Tensor& out) {
  const From* src = in.data<From>();
  To* dst = out.mutable_data<To>();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    if constexpr (std::is_same_v<To, bool>) {
      dst[i] = src[i] != From(0);
    } else {
      dst[i] = SafeCast<To>(src[i]);
    }
  }
}

template <typename To>
absl::Status CastFrom(const Tensor& in, Tensor& out) {
  switch (in.dtype()) {
    case DType::kFloat32: CastLoop<To, float>(in, out); break;
    case DType::kFloat64: CastLoop<To, double>(in, out); break;
    case DType::kInt32: CastLoop<To, int32_t>(in, out); break;
    case DType::kInt64: CastLoop<To, int64_t>(in, out); break;
    case DType::kUInt8: CastLoop<To, uint8_t>(in, out); break;
    case DType::kInt8: CastLoop<To, int8_t>(in, out); break;
    case DType::kInt16: CastLoop<To, int16_t>(in, out); break;
    case DType::kUInt16: CastLoop<To, uint16_t>(in, out); break;
    case DType::kUInt32: CastLoop<To, uint32_t>(in, out); break;
    case DType::kUInt64: CastLoop<To, uint64_t>(in, out); break;
    case DType::kBool: CastLoop<To, bool>(in, out); break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("cannot cast from ", DTypeName(in.dtype())));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> CastTensor(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  GRAPHRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype, t.shape()));
  absl::Status s;
  switch (dtype) {
    case DType::kFloat32: s = CastFrom<float>(t, out); break;
    case DType::kFloat64: s = CastFrom<double>(t, out); break;
    case DType::kInt32: s = CastFrom<int32_t>(t, out); break;
    case DType::kInt64: s = CastFrom<int64_t>(t, out); break;
    case DType::kUInt8: s = CastFrom<uint8_t>(t, out); break;
    case DType::kInt8: s = CastFrom<int8_t>(t, out); break;
    case DType::kInt16: s = CastFrom<int16_t>(t, out); break;
    case DType::kUInt16: s = CastFrom<uint16_t>(t, out); break;
    case DType::kUInt32: s = CastFrom<uint32_t>(t, out); break;
    case DType::kUInt64: s = CastFrom<uint64_t>(t, out); break;
    case DType::kBool: s = CastFrom<bool>(t, out); break;
    default:
      s = absl::InvalidArgumentError(
          absl::StrCat("cannot cast ", t.DebugString(), " to ",
                       DTypeName(dtype)));
  }
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto) {
  GRAPHRT_ASSIGN_OR_RETURN(DType dtype, DTypeFromProto(proto.dtype()));
  PartialShape ps = PartialShapeFromProto(proto.tensor_shape());
  if (ps.unknown_rank()) {
    return absl::InvalidArgumentError("TensorProto has an unknown-rank shape");
  }
  GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make(ps.dims()));
  GRAPHRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype, shape));
  const std::string& content = proto.tensor_content();
  if (!content.empty()) {
    if (!IsTriviallyCopyable(dtype) || content.size() != out.byte_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto tensor_content has ", content.size(), " bytes, ",
          out.DebugString(), " needs ", out.byte_size()));
    }
    std::memcpy(out.raw_data(), content.data(), content.size());
    return out;
  }
  switch (dtype) {
    case DType::kFloat32:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<float>(proto.float_val(), out, Same<float>));
      break;
    case DType::kFloat64:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<double>(proto.double_val(), out, Same<double>));
      break;
    case DType::kInt32:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<int32_t>(proto.int_val(), out, Same<int32_t>));
      break;
    case DType::kInt16:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<int16_t>(
          proto.int_val(), out, [](int32_t v) { return static_cast<int16_t>(v); }));
      break;
    case DType::kInt8:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<int8_t>(
          proto.int_val(), out, [](int32_t v) { return static_cast<int8_t>(v); }));
      break;
    case DType::kUInt8:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<uint8_t>(
          proto.int_val(), out, [](int32_t v) { return static_cast<uint8_t>(v); }));
      break;
    case DType::kUInt16:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<uint16_t>(
          proto.int_val(), out, [](int32_t v) { return static_cast<uint16_t>(v); }));
      break;
    case DType::kInt64:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<int64_t>(proto.int64_val(), out, Same<int64_t>));
      break;
    case DType::kUInt32:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<uint32_t>(proto.uint32_val(), out, Same<uint32_t>));
      break;
    case DType::kUInt64:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<uint64_t>(proto.uint64_val(), out, Same<uint64_t>));
      break;
    case DType::kBool:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<bool>(proto.bool_val(), out, Same<bool>));
      break;
    case DType::kFloat16:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<float16>(
          proto.half_val(), out, [](int32_t v) {
            return Eigen::numext::bit_cast<float16>(static_cast<uint16_t>(v));
          }));
      break;
    case DType::kBFloat16:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<bfloat16>(
          proto.half_val(), out, [](int32_t v) {
            return Eigen::numext::bit_cast<bfloat16>(static_cast<uint16_t>(v));
          }));
      break;
    case DType::kString:
      GRAPHRT_RETURN_IF_ERROR(FillFromField<std::string>(
          proto.string_val(), out, [](const std::string& v) { return v; }));
      break;
    case DType::kComplex64: {
      int64_t n = out.num_elements();
      if (proto.scomplex_val_size() > 2 * n || proto.scomplex_val_size() % 2) {
        return absl::InvalidArgumentError("bad scomplex_val count");
      }
      auto* d = out.mutable_data<complex64>();
      int m = proto.scomplex_val_size() / 2;
      for (int64_t i = 0; i < n && m > 0; ++i) {
        int j = static_cast<int>(i < m ? i : m - 1);
        d[i] = {proto.scomplex_val(2 * j), proto.scomplex_val(2 * j + 1)};
      }
      break;
    }
    case DType::kComplex128: {
      int64_t n = out.num_elements();
      if (proto.dcomplex_val_size() > 2 * n || proto.dcomplex_val_size() % 2) {
        return absl::InvalidArgumentError("bad dcomplex_val count");
      }
      auto* d = out.mutable_data<complex128>();
      int m = proto.dcomplex_val_size() / 2;
      for (int64_t i = 0; i < n && m > 0; ++i) {
        int j = static_cast<int>(i < m ? i : m - 1);
        d[i] = {proto.dcomplex_val(2 * j), proto.dcomplex_val(2 * j + 1)};
      }
      break;
    }
    default:
      return absl::UnimplementedError(absl::StrCat(
          "TensorProto of dtype ", DTypeName(dtype), " is not supported"));
  }
  return out;
}

}  // namespace graphrt
