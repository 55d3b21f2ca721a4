// The direct convolution kernels' shared pieces (ops/nn/direct/
// direct_conv.h is the interface): the vector type of the ISA the build
// targets, partial and masked loads, the per-call geometry and the
// epilogue. Private to //ops/nn/direct.
#ifndef GRAPHRT_OPS_NN_DIRECT_KERNEL_UTIL_H_
#define GRAPHRT_OPS_NN_DIRECT_KERNEL_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "ops/nn/direct/direct_conv.h"

namespace graphrt {
namespace nn {
namespace direct_kernel {

// One block of kLanes output channels: one vector register of the widest
// ISA the build targets (-march=native). The output-pixel tile is sized to
// that ISA's register file: RegularTile<kTile, 2> keeps kTile * 2
// accumulators, 2 weight vectors and a broadcast in registers (AVX-512: 16 +
// 2 + 1 of 32 zmm; AVX2 and SSE: 12 + 2 + 1 of 16 ymm / xmm). A 16-lane
// vector on an AVX2 machine would be two ymm registers, and the AVX-512
// tile's 32 accumulators then spill on every FMA (bench/RESULTS.md,
// "Direct convolutions on AVX2").
constexpr int kLanes = DirectConv::kBlockLanes;
constexpr int kTile = kLanes == 16 ? 8 : 6;
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

// Unaligned, aliasing view of one vector (a plain load, unlike memcpy into
// a local, which GCC kept on the stack).
typedef float VecU __attribute__((vector_size(kLanes * sizeof(float)),
                                  aligned(4), __may_alias__));
inline Vec Load(const float* p) { return *reinterpret_cast<const VecU*>(p); }
// The first `lanes` (< kLanes) channels: masked moves where the ISA has
// them (a variable-length memcpy per pixel cost more than the pixel's dot
// product), else a copy through the stack.
#if defined(__AVX512F__)
inline __mmask16 LaneMask(int lanes) {
  return static_cast<__mmask16>((1u << lanes) - 1);
}
inline Vec LoadPartial(const float* p, int lanes) {
  return reinterpret_cast<Vec>(_mm512_maskz_loadu_ps(LaneMask(lanes), p));
}
inline void StorePartial(float* p, const Vec& v, int lanes) {
  _mm512_mask_storeu_ps(p, LaneMask(lanes), reinterpret_cast<__m512>(v));
}
#elif defined(__AVX2__)
inline __m256i LaneMask(int lanes) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline Vec LoadPartial(const float* p, int lanes) {
  return reinterpret_cast<Vec>(_mm256_maskload_ps(p, LaneMask(lanes)));
}
inline void StorePartial(float* p, const Vec& v, int lanes) {
  _mm256_maskstore_ps(p, LaneMask(lanes), reinterpret_cast<__m256>(v));
}
#else
inline Vec LoadPartial(const float* p, int lanes) {
  Vec v = {};
  std::memcpy(&v, p, sizeof(float) * lanes);
  return v;
}
inline void StorePartial(float* p, const Vec& v, int lanes) {
  std::memcpy(p, &v, sizeof(float) * lanes);
}
#endif

// A load of `lanes` channels that reads nothing when `valid` is false
// (zeros then): the depthwise kernel's columns in the padding.
#if defined(__AVX512F__)
constexpr bool kHasColumnMask = true;
typedef __mmask16 ColumnMask;
inline ColumnMask MakeColumnMask(bool valid, int lanes) {
  return valid ? LaneMask(lanes) : static_cast<__mmask16>(0);
}
inline Vec MaskedLoad(const float* p, ColumnMask m) {
  return reinterpret_cast<Vec>(_mm512_maskz_loadu_ps(m, p));
}
#elif defined(__AVX2__)
constexpr bool kHasColumnMask = true;
typedef __m256i ColumnMask;
inline ColumnMask MakeColumnMask(bool valid, int lanes) {
  return valid ? LaneMask(lanes) : _mm256_setzero_si256();
}
inline Vec MaskedLoad(const float* p, ColumnMask m) {
  return reinterpret_cast<Vec>(_mm256_maskload_ps(p, m));
}
#else
constexpr bool kHasColumnMask = false;
typedef int ColumnMask;
inline ColumnMask MakeColumnMask(bool, int) { return 0; }
inline Vec MaskedLoad(const float*, ColumnMask) { return Vec{}; }
#endif

// Half blocks (AVX-512 with VL): a block of at most 8 channels run on
// 256-bit registers. Zen 4 executes a 512-bit FMA as two 256-bit halves, so
// a zmm block with 8 real lanes wastes half its FMAs; a ymm FMA costs no
// more than a zmm one elsewhere. The pointwise groups and regular tiles
// (direct_conv.cc) and the depthwise tiles (depthwise_rows.cc) end in one
// when their channel tail allows.
#if defined(__AVX512F__) && defined(__AVX512VL__)
constexpr bool kHasHalfBlocks = true;
#else
constexpr bool kHasHalfBlocks = false;
#endif
constexpr int kHalfLanes = kLanes / 2;
typedef float Half __attribute__((vector_size(8 * sizeof(float))));
typedef float HalfU
    __attribute__((vector_size(8 * sizeof(float)), aligned(4), __may_alias__));
// A template only so that builds without AVX, which never call it, do not
// emit it (GCC warns, -Wpsabi, on a function returning a 256-bit vector
// there).
template <typename = void>
inline Half LoadHalf(const float* p) {
  return *reinterpret_cast<const HalfU*>(p);
}

// The loads and stores of one block, by its vector type V (Vec, or Half
// where kHasHalfBlocks): for code written once for both widths.
template <typename V>
struct BlockOps;
template <>
struct BlockOps<Vec> {
  static constexpr int kN = kLanes;
  static Vec Load(const float* p) { return direct_kernel::Load(p); }
  static Vec LoadPartial(const float* p, int lanes) {
    return direct_kernel::LoadPartial(p, lanes);
  }
  static void Store(float* p, const Vec& v) { *reinterpret_cast<VecU*>(p) = v; }
  static void StorePartial(float* p, const Vec& v, int lanes) {
    direct_kernel::StorePartial(p, v, lanes);
  }
  static Vec MaskedLoad(const float* p, ColumnMask m) {
    return direct_kernel::MaskedLoad(p, m);
  }
};
#if defined(__AVX512F__) && defined(__AVX512VL__)
template <>
struct BlockOps<Half> {
  static constexpr int kN = 8;
  static __mmask8 Mask(int lanes) {
    return static_cast<__mmask8>((1u << lanes) - 1);
  }
  static Half Load(const float* p) { return LoadHalf(p); }
  static Half LoadPartial(const float* p, int lanes) {
    return reinterpret_cast<Half>(_mm256_maskz_loadu_ps(Mask(lanes), p));
  }
  static void Store(float* p, const Half& v) {
    *reinterpret_cast<HalfU*>(p) = v;
  }
  static void StorePartial(float* p, const Half& v, int lanes) {
    _mm256_mask_storeu_ps(p, Mask(lanes), reinterpret_cast<__m256>(v));
  }
  // A column mask of the 16-lane kind, cut to its low 8 lanes.
  static Half MaskedLoad(const float* p, __mmask16 m) {
    return reinterpret_cast<Half>(
        _mm256_maskz_loadu_ps(static_cast<__mmask8>(m), p));
  }
};
#endif

// Per-call geometry, in the kernels' terms.
struct Geo {
  int64_t h, w, c_in, c_out, out_h, out_w;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl;
  float lo, hi;
  const float* zeros;  // >= max(c_in, kLanes) zeros: the taps in the padding
  // Depthwise only: input row iy at rows[iy] instead of in_n + iy * w *
  // c_in (DirectConv::RunDepthwiseRows), or null.
  const float* const* rows = nullptr;
};

// Input row iy of a depthwise call (see Geo::rows).
inline const float* InputRow(const Geo& g, const float* in_n, int64_t iy) {
  return g.rows != nullptr ? g.rows[iy] : in_n + iy * g.w * g.c_in;
}

// The output pixels [begin, end) of a row whose windows stay inside the
// input's width for every tap.
inline void InteriorColumns(const Geo& g, int64_t* begin, int64_t* end) {
  *begin = std::min(g.out_w, (g.pl + g.sw - 1) / g.sw);
  const int64_t last_ok = g.w - 1 - (g.kw - 1) * g.dw + g.pl;
  *end = last_ok < 0 ? 0 : std::min(g.out_w, last_ok / g.sw + 1);
  if (*end < *begin) *end = *begin;
}

// Adds bias (+ residual), clamps and stores `lanes` channels.
inline void Finish(const Geo& g, Vec v, const float* bias, const float* res,
                   float* out, int lanes) {
  if (bias != nullptr) {
    v += lanes == kLanes ? Load(bias) : LoadPartial(bias, lanes);
  }
  if (res != nullptr) {
    v += lanes == kLanes ? Load(res) : LoadPartial(res, lanes);
  }
  v = v < g.lo ? g.lo : v;
  v = v > g.hi ? g.hi : v;
  if (lanes == kLanes) {
    *reinterpret_cast<VecU*>(out) = v;
  } else {
    StorePartial(out, v, lanes);
  }
}

// Finish with its constants hoisted by the caller, once per tile: `bv` the
// block's bias (zeros without one: a sum that started at +0 is never -0,
// so adding +0 changes nothing), `lo` / `hi` the clamp broadcast. Per
// element those loads and branches were a third of a 1x1 tile's
// instructions. kFull: all kLanes channels, else the first `lanes`.
template <bool kFull, typename V = Vec>
inline __attribute__((always_inline)) void FinishHoisted(
    V v, const V& bv, const V& lo, const V& hi, const float* res, float* out,
    int lanes) {
  using Ops = BlockOps<V>;
  v += bv;
  if (res != nullptr)
    v += kFull ? Ops::Load(res) : Ops::LoadPartial(res, lanes);
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  if constexpr (kFull) {
    Ops::Store(out, v);
  } else {
    Ops::StorePartial(out, v, lanes);
  }
}

}  // namespace direct_kernel
}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DIRECT_KERNEL_UTIL_H_
