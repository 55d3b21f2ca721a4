// Decoding of one TF.js weight group: the bytes of its shards concatenated
// in order, walked entry by entry (no alignment, no padding).
//
// Encodings (little-endian; see /work/shared/notes/tfjs.md 1.4):
//   float32 / int32: 4 bytes per element; complex64: 8 (re, im float32);
//   bool: 1 byte (non-zero -> true); string: per element a uint32 byte
//   length then the bytes (a zero-element tensor takes no bytes).
//   Quantized entries (float32 or int32 targets only):
//     uint8 / uint16: value = q * scale + min, computed in double; stored
//       to float32 by rounding, or for int32 with JavaScript's
//       Math.round (half toward +inf) and ToInt32 (wrap modulo 2^32),
//       which is exactly what tfjs-core's decodeWeights does.
//     float16: IEEE binary16 decoded exactly (subnormals, inf, NaN
//       payloads preserved), float32 targets only.
//
// This is an internal header of //loader:tfjs; LoadTfjsModel is the API.
#ifndef GRAPHRT_LOADER_WEIGHTS_DECODER_H_
#define GRAPHRT_LOADER_WEIGHTS_DECODER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "loader/manifest_json.h"
#include "loader/tfjs_model.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace tfjs_internal {

// Decodes every entry of `specs` from `data` and appends (name, tensor) to
// `out` in manifest order; adds each entry to `stats`. Checks dtypes,
// quantization metadata, shapes (negative dims, element-count overflow),
// `max_tensor_bytes` (decoded size), that every entry fits in `data`, and
// that no bytes are left over; affine min/scale must be finite. Errors name
// the weight but not the file (the caller adds that); on error `out` and
// `stats` are left as they were.
//
// Zero-copy: when `view_owner` is set (it keeps `data` alive and unchanged
// for as long as any tensor may live), unquantized float32 and int32
// entries whose bytes are 4-byte aligned in memory become read-only
// Tensor::Views into `data` holding `view_owner`, instead of copies; their
// [begin, end) byte ranges in `data` are appended to `viewed` (if given).
// Entries smaller than `min_view_bytes` are copied all the same: a view
// pins its pages of `data`, and copying a few bytes is cheaper than
// keeping (or giving back) a page for them.
// Everything else is decoded into fresh memory as without it.
absl::Status DecodeWeightGroup(
    absl::string_view data, absl::Span<const WeightSpec> specs,
    int64_t max_tensor_bytes, std::vector<std::pair<std::string, Tensor>>* out,
    WeightStats* stats, std::shared_ptr<const void> view_owner = nullptr,
    std::vector<std::pair<int64_t, int64_t>>* viewed = nullptr,
    int64_t min_view_bytes = 0);

// IEEE binary16 bits -> float32, exact (same bits as TF.js's table decoder).
float HalfBitsToFloat(uint16_t bits);

// Decodes `n` little-endian binary16 values at `src` (any alignment) into
// `out`, bit for bit as HalfBitsToFloat; vectorized (it is most of the load
// time of a float16-quantized model).
void DecodeHalves(const char* src, int64_t n, float* out);

// JavaScript `Int32Array` store of `Math.round(x)`: round half toward +inf,
// then wrap modulo 2^32 (NaN and +-inf give 0).
int32_t JsRoundToInt32(double x);

}  // namespace tfjs_internal
}  // namespace graphrt

#endif  // GRAPHRT_LOADER_WEIGHTS_DECODER_H_
