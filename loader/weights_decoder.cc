#include "loader/weights_decoder.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loader/weight_arena.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace tfjs_internal {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the TF.js weight decoder assumes a little-endian host");

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

enum class Quant { kNone, kUInt8, kUInt16, kFloat16 };

// How one entry is stored and what it decodes to.
struct Layout {
  DType dtype = DType::kInvalid;  // decoded dtype
  Quant quant = Quant::kNone;
  int64_t stored_size = 0;  // bytes per element; 0 for strings
  std::string stats_key;    // "float32", "float32<-uint8", ...
};

std::string DimsString(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// Mirrors the checks of tfjs-core's decodeWeight, with its wording where
// it has one.
absl::StatusOr<Layout> GetLayout(const WeightSpec& spec) {
  Layout layout;
  if (spec.dtype == "float32") {
    layout.dtype = DType::kFloat32;
    layout.stored_size = 4;
  } else if (spec.dtype == "int32") {
    layout.dtype = DType::kInt32;
    layout.stored_size = 4;
  } else if (spec.dtype == "bool") {
    layout.dtype = DType::kBool;
    layout.stored_size = 1;
  } else if (spec.dtype == "string") {
    layout.dtype = DType::kString;
    layout.stored_size = 0;
  } else if (spec.dtype == "complex64") {
    layout.dtype = DType::kComplex64;
    layout.stored_size = 8;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported dtype '", spec.dtype,
                     "' (supported: float32, int32, bool, string, complex64)"));
  }
  layout.stats_key = spec.dtype;
  if (spec.quantization.empty()) return layout;

  if (spec.quantization == "uint8" || spec.quantization == "uint16") {
    if (!spec.min.has_value() || !spec.scale.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("quantization ", spec.quantization,
                       " needs numeric 'min' and 'scale'"));
    }
    // JSON cannot spell NaN, but 1e999 parses to inf; either would make
    // every value of the weight non-finite.
    if (!std::isfinite(*spec.min) || !std::isfinite(*spec.scale)) {
      return absl::InvalidArgumentError(
          absl::StrCat("quantization ", spec.quantization,
                       " needs finite 'min' and 'scale', got min ", *spec.min,
                       ", scale ", *spec.scale));
    }
    layout.quant =
        spec.quantization == "uint8" ? Quant::kUInt8 : Quant::kUInt16;
    layout.stored_size = spec.quantization == "uint8" ? 1 : 2;
  } else if (spec.quantization == "float16") {
    if (layout.dtype != DType::kFloat32) {
      return absl::InvalidArgumentError(
          absl::StrCat("float16 quantization only supports float32 weights, "
                       "not ",
                       spec.dtype));
    }
    layout.quant = Quant::kFloat16;
    layout.stored_size = 2;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown quantization dtype '", spec.quantization,
                     "' (supported: uint8, uint16, float16)"));
  }
  if (layout.dtype != DType::kFloat32 && layout.dtype != DType::kInt32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantized weights must be float32 or int32, not ", spec.dtype));
  }
  layout.stats_key = absl::StrCat(spec.dtype, "<-", spec.quantization);
  return layout;
}

uint16_t LoadU16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Affine dequantization; `q * scale + min` in double as JavaScript does.
// (loader/BUILD compiles with -ffp-contract=off so this is never an FMA.)
inline double Affine(uint32_t q, double scale, double min) {
  return static_cast<double>(q) * scale + min;
}

template <typename Q>
void DequantizeAffine(const char* src, int64_t n, double scale, double min,
                      Tensor* t) {
  if (t->dtype() == DType::kFloat32) {
    float* out = t->mutable_data<float>();
    for (int64_t i = 0; i < n; ++i) {
      Q q;
      std::memcpy(&q, src + i * sizeof(Q), sizeof(Q));
      out[i] = static_cast<float>(Affine(q, scale, min));
    }
  } else {
    int32_t* out = t->mutable_data<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      Q q;
      std::memcpy(&q, src + i * sizeof(Q), sizeof(Q));
      out[i] = JsRoundToInt32(Affine(q, scale, min));
    }
  }
}

// Decodes a fixed-size entry (everything but strings).
// Entries stored exactly as they are decoded (no quantization, same
// element bytes), so a tensor can view them in place.
bool Viewable(const Layout& layout) {
  return layout.quant == Quant::kNone &&
         (layout.dtype == DType::kFloat32 || layout.dtype == DType::kInt32);
}

void DecodeFixed(const Layout& layout, const WeightSpec& spec, const char* src,
                 int64_t n, Tensor* t) {
  switch (layout.quant) {
    case Quant::kUInt8:
      DequantizeAffine<uint8_t>(src, n, *spec.scale, *spec.min, t);
      return;
    case Quant::kUInt16:
      DequantizeAffine<uint16_t>(src, n, *spec.scale, *spec.min, t);
      return;
    case Quant::kFloat16:
      DecodeHalves(src, n, t->mutable_data<float>());
      return;
    case Quant::kNone:
      break;
  }
  if (layout.dtype == DType::kBool) {
    bool* out = t->mutable_data<bool>();
    for (int64_t i = 0; i < n; ++i) out[i] = src[i] != 0;
    return;
  }
  // float32, int32, complex64 (re, im interleaved = std::complex<float>).
  if (n > 0) {
    std::memcpy(t->raw_data(), src,
                static_cast<size_t>(n * layout.stored_size));
  }
}

absl::Status DoesNotFit(const WeightSpec& spec, int64_t needed, int64_t offset,
                        size_t total) {
  return absl::InvalidArgumentError(absl::StrCat(
      "weight '", spec.name, "' (", spec.dtype, " ", DimsString(spec.dims),
      ") needs ", needed, " bytes at offset ", offset,
      " but the shards hold only ", total, " bytes in total"));
}

// Fixed-size dtypes are decoded over every element, so their storage is not
// zero-filled first (Tensor::AllocateUninitialized).
absl::Status Allocate(DType dtype, const Shape& shape, absl::string_view where,
                      Tensor* tensor) {
  auto t = Tensor::AllocateUninitialized(dtype, shape);
  if (!t.ok()) return WithContext(t.status(), where);
  *tensor = std::move(*t);
  return absl::OkStatus();
}

}  // namespace

float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN, payload kept
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // 127 - 15 = 112
  } else if (mant == 0) {
    bits = sign;  // +-0
  } else {
    // Subnormal: value = mant * 2^-24; normalize.
    int e = 113;  // exponent of 2^-14 in float32 bias (127 - 14)
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x3ffu;
    bits = sign | (static_cast<uint32_t>(e) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

namespace {

// HalfBitsToFloat on 8 lanes at once, without branches: every lane
// computes the three cases and selects with masks (GCC vector extensions).
// 8 x 32 bits is one AVX2 register: with 16-lane (512-bit) vectors on an
// AVX2 target, and with `?:` selects, GCC 12 fell back to a compare and
// branch per lane (2.5 ns per weight: blazepose-heavy's 13M float16
// weights took 30 ms to decode).
using U16x8 = uint16_t __attribute__((vector_size(16)));
using U32x8 = uint32_t __attribute__((vector_size(32)));
using I32x8 = int32_t __attribute__((vector_size(32)));
using F32x8 = float __attribute__((vector_size(32)));

inline void DecodeHalfBlock(const char* src, float* out) {
  U16x8 halves;
  std::memcpy(&halves, src, sizeof(halves));
  const U32x8 h = __builtin_convertvector(halves, U32x8);
  const U32x8 sign = (h & 0x8000u) << 16;
  const U32x8 magnitude = h & 0x7fffu;  // exponent and mantissa
  const U32x8 exp = magnitude >> 10;
  // Normal: rebias the exponent by 127 - 15 = 112.
  const U32x8 normal = (magnitude << 13) + (112u << 23);
  // Inf / NaN: all-ones exponent, mantissa (payload) kept.
  const U32x8 special = (magnitude << 13) | 0x7f800000u;
  // Zero / subnormal: mantissa * 2^-24, exact in float32.
  const F32x8 tiny_f =
      __builtin_convertvector(std::bit_cast<I32x8>(magnitude), F32x8) *
      0x1p-24f;
  const U32x8 tiny = std::bit_cast<U32x8>(tiny_f);
  const U32x8 is_tiny = std::bit_cast<U32x8>(exp == 0);
  const U32x8 is_special = std::bit_cast<U32x8>(exp == 0x1f);
  const U32x8 bits = (is_tiny & tiny) | (is_special & special) |
                     (~(is_tiny | is_special) & normal);
  const U32x8 result = bits | sign;
  std::memcpy(out, &result, sizeof(result));
}

}  // namespace

void DecodeHalves(const char* src, int64_t n, float* out) {
  constexpr int64_t kLanes = 8;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    DecodeHalfBlock(src + 2 * i, out + i);
  }
  for (; i < n; ++i) out[i] = HalfBitsToFloat(LoadU16(src + 2 * i));
}

int32_t JsRoundToInt32(double x) {
  if (!std::isfinite(x)) return 0;
  // Math.round: the closest integer, ties toward +inf. x - floor(x) is
  // exact, unlike floor(x + 0.5) for 0.49999999999999994.
  double r = std::floor(x);
  if (x - r >= 0.5) r += 1.0;
  // ToInt32: wrap modulo 2^32 into [-2^31, 2^31).
  constexpr double k2to32 = 4294967296.0;
  double m = std::fmod(r, k2to32);
  if (m < 0) m += k2to32;
  if (m >= 2147483648.0) m -= k2to32;
  return static_cast<int32_t>(m);
}

absl::Status DecodeWeightGroup(
    absl::string_view data, absl::Span<const WeightSpec> specs,
    int64_t max_tensor_bytes, std::vector<std::pair<std::string, Tensor>>* out,
    WeightStats* stats, std::shared_ptr<const void> view_owner,
    std::vector<std::pair<int64_t, int64_t>>* viewed, int64_t min_view_bytes) {
  const int64_t total = static_cast<int64_t>(data.size());
  int64_t offset = 0;
  // Filled here and handed to `out` / `stats` only when the whole group
  // decoded: a bad entry leaves the caller's containers untouched.
  std::vector<std::pair<std::string, Tensor>> decoded;
  std::vector<std::pair<int64_t, int64_t>> viewed_here;
  WeightStats added;
  // Fixed-size weights go to one arena when they add up to enough
  // (weight_arena.h); entries the loop below rejects are not counted.
  // Layouts and shapes are worked out once for both passes.
  std::vector<absl::StatusOr<Layout>> layouts;
  std::vector<absl::StatusOr<Shape>> shapes;
  layouts.reserve(specs.size());
  shapes.reserve(specs.size());
  for (const WeightSpec& spec : specs) {
    layouts.push_back(GetLayout(spec));
    shapes.push_back(Shape::Make(spec.dims));
  }
  std::shared_ptr<WeightArena> arena;
  {
    size_t arena_bytes = 0;
    for (size_t i = 0; i < specs.size(); ++i) {
      const absl::StatusOr<Layout>& layout = layouts[i];
      const absl::StatusOr<Shape>& shape = shapes[i];
      if (!layout.ok() || !shape.ok() || layout->dtype == DType::kString) {
        continue;  // strings are not fixed-size
      }
      const int64_t size = static_cast<int64_t>(DTypeSize(layout->dtype));
      const int64_t n = shape->num_elements();
      if (n > max_tensor_bytes / size || n > total) continue;
      if (view_owner != nullptr && Viewable(*layout) &&
          n * size >= min_view_bytes) {
        continue;  // views need no memory
      }
      arena_bytes += WeightArena::PieceSize(static_cast<size_t>(n * size));
    }
    if (arena_bytes >= WeightArena::kMinBytes) {
      arena = WeightArena::Create(arena_bytes);
    }
  }
  for (size_t spec_index = 0; spec_index < specs.size(); ++spec_index) {
    const WeightSpec& spec = specs[spec_index];
    const std::string where = absl::StrCat("weight '", spec.name, "'");
    const absl::StatusOr<Layout>& layout_or = layouts[spec_index];
    if (!layout_or.ok()) return WithContext(layout_or.status(), where);
    const Layout& layout = *layout_or;
    const absl::StatusOr<Shape>& shape_or = shapes[spec_index];
    if (!shape_or.ok()) return WithContext(shape_or.status(), where);
    const Shape& shape = *shape_or;
    const int64_t n = shape.num_elements();
    const int64_t remaining = total - offset;

    // Decoded size limit (string contents are bounded by the shard size).
    const int64_t elem_size = static_cast<int64_t>(DTypeSize(layout.dtype));
    if (n > max_tensor_bytes / elem_size) {
      return absl::ResourceExhaustedError(
          absl::StrCat(where, " (", spec.dtype, " ", shape.ToString(),
                       ") would take more "
                       "than max_tensor_bytes = ",
                       max_tensor_bytes, " bytes"));
    }

    int64_t stored = 0;
    Tensor tensor;
    if (layout.dtype == DType::kString) {
      // Each element takes at least its 4-byte length: reject absurd
      // shapes before allocating.
      if (n > remaining / 4) {
        return DoesNotFit(spec, n * 4, offset, data.size());
      }
      GRAPHRT_RETURN_IF_ERROR(Allocate(layout.dtype, shape, where, &tensor));
      std::string* strings = tensor.mutable_data<std::string>();
      int64_t pos = offset;
      for (int64_t i = 0; i < n; ++i) {
        if (total - pos < 4) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, " (string ", shape.ToString(), "): the length of element ",
              i, " at offset ", pos, " runs past the end of the shards (",
              total, " bytes)"));
        }
        const int64_t len = LoadU32(data.data() + pos);
        pos += 4;
        if (len > total - pos) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, " (string ", shape.ToString(), "): element ", i,
              " of length ", len, " at offset ", pos,
              " runs past the end of the shards (", total, " bytes)"));
        }
        strings[i].assign(data.data() + pos, static_cast<size_t>(len));
        pos += len;
      }
      stored = pos - offset;
    } else {
      if (n > kInt64Max / layout.stored_size) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": shape ", shape.ToString(), " is too large"));
      }
      stored = n * layout.stored_size;
      if (stored > remaining) {
        return DoesNotFit(spec, stored, offset, data.size());
      }
      const char* src = data.data() + offset;
      if (view_owner != nullptr && n > 0 && Viewable(layout) &&
          stored >= min_view_bytes &&
          reinterpret_cast<uintptr_t>(src) % alignof(float) == 0) {
        // Read-only by contract (the executor never forwards a Const's
        // buffer: the Const kernel holds a reference too).
        tensor =
            Tensor::View(layout.dtype, shape, const_cast<char*>(src),
                         PageReleasingOwner(view_owner, const_cast<char*>(src),
                                            static_cast<size_t>(stored)));
        viewed_here.emplace_back(offset, offset + stored);
      } else {
        void* piece = arena != nullptr && n > 0
                          ? arena->Take(static_cast<size_t>(n * elem_size))
                          : nullptr;
        if (piece != nullptr) {
          tensor = Tensor::View(
              layout.dtype, shape, piece,
              PageReleasingOwner(arena, piece,
                                 static_cast<size_t>(n * elem_size)));
        } else {
          GRAPHRT_RETURN_IF_ERROR(
              Allocate(layout.dtype, shape, where, &tensor));
        }
        DecodeFixed(layout, spec, src, n, &tensor);
      }
    }
    offset += stored;
    WeightStats::Entry& entry = added.by_dtype[layout.stats_key];
    entry.count += 1;
    entry.bytes_stored += stored;
    added.total_bytes += stored;
    decoded.emplace_back(spec.name, std::move(tensor));
  }
  if (offset < total) {
    if (specs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the shards hold ", total, " bytes but the group has no weights"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("the shards hold ", total - offset,
                     " extra bytes after the last weight '", specs.back().name,
                     "' (the weights take ", offset, " of ", total, " bytes)"));
  }
  for (auto& named : decoded) out->push_back(std::move(named));
  if (viewed != nullptr) {
    viewed->insert(viewed->end(), viewed_here.begin(), viewed_here.end());
  }
  for (const auto& [key, entry] : added.by_dtype) {
    WeightStats::Entry& sum = stats->by_dtype[key];
    sum.count += entry.count;
    sum.bytes_stored += entry.bytes_stored;
  }
  stats->total_bytes += added.total_bytes;
  return absl::OkStatus();
}

}  // namespace tfjs_internal
}  // namespace graphrt
