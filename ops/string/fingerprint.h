// The string hashes TensorFlow's hash-bucket ops use, implemented from
// their published algorithms (bit-exact with TF):
//
//   Fingerprint64  farmhash's Fingerprint64 (farmhashna::Hash64), used by
//                  StringToHashBucketFast and tf.fingerprint.
//   SipHash24      SipHash-2-4 with a 128-bit key (k0, k1), TF's
//                  StrongKeyedHash, used by StringToHashBucketStrong.
//   LegacyHash64   TF's core/lib/hash Hash64 (a MurmurHash64A variant) with
//                  seed 0xDECAFCAFFE, used by the legacy StringToHashBucket.
//
// All read bytes as little-endian (as TF on x86/ARM).
#ifndef GRAPHRT_OPS_STRING_FINGERPRINT_H_
#define GRAPHRT_OPS_STRING_FINGERPRINT_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace graphrt {

uint64_t Fingerprint64(absl::string_view s);
uint64_t SipHash24(uint64_t k0, uint64_t k1, absl::string_view s);
uint64_t LegacyHash64(absl::string_view s, uint64_t seed = 0xDECAFCAFFEULL);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_STRING_FINGERPRINT_H_
