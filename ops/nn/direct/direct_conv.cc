#include "ops/nn/direct/direct_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "absl/strings/str_cat.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace nn {
namespace {

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
constexpr int kMaxBlocks = 2;
// Input values per chunk of a pointwise convolution's pixels (see Run).
constexpr int64_t kPointwiseChunkFloats = 2048;

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

enum class Mode { kAuto, kOff, kAll };

Mode ModeFromEnv() {
  const char* v = std::getenv("GRAPHRT_DIRECT_CONV");
  if (v == nullptr) return Mode::kAuto;
  const std::string_view s(v);
  if (s == "0") return Mode::kOff;
  if (s == "all") return Mode::kAll;
  return Mode::kAuto;
}

Mode CurrentMode() {
  static const Mode mode = ModeFromEnv();
  return mode;
}

// Per-call geometry, in the kernels' terms.
struct Geo {
  int64_t h, w, c_in, c_out, out_h, out_w;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl;
  float lo, hi;
  const float* zeros;  // >= max(c_in, kLanes) zeros: the taps in the padding
};

// The output pixels [begin, end) of a row whose windows stay inside the
// input's width for every tap.
void InteriorColumns(const Geo& g, int64_t* begin, int64_t* end) {
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
template <bool kFull>
inline __attribute__((always_inline)) void FinishHoisted(
    Vec v, const Vec& bv, const Vec& lo, const Vec& hi, const float* res,
    float* out, int lanes) {
  v += bv;
  if (res != nullptr) v += kFull ? Load(res) : LoadPartial(res, lanes);
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  if constexpr (kFull) {
    *reinterpret_cast<VecU*>(out) = v;
  } else {
    StorePartial(out, v, lanes);
  }
}

// R output pixels (x0 .. x0+R-1 of row y) x NB blocks of one channel group.
// kChecked: some of the pixels' taps fall left or right of the input; they
// read g.zeros instead (so border pixels still go 8 at a time).
// Not inlined: inside RegularRow GCC 12 kept the weight vectors on the
// stack (each FMA then read memory); on its own it keeps them in registers.
template <int R, int NB, bool kChecked, bool kFull>
__attribute__((noinline)) void RegularTile(const Geo& g, const float* in_n,
                                           const float* wg, const float* bias,
                                           int64_t y, int64_t x0,
                                           const float* res_n, float* out_n,
                                           int64_t co0, int64_t valid) {
  // Zeroed one by one: `= {}` became a memset of the array, which then
  // lived on the stack.
  Vec acc[R][NB];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b) acc[r][b] = Vec{};
  }
  const int64_t row_stride = g.w * g.c_in;
  const int64_t px_stride = g.sw * g.c_in;
  const int64_t wstride = g.c_in * NB * kLanes;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t iy = y * g.sh - g.pt + i * g.dh;
    if (iy < 0 || iy >= g.h) continue;
    const float* irow = in_n + iy * row_stride;
    if (!kChecked && g.dw == 1) {
      // Undilated: a window row's taps and channels are one contiguous run
      // of kw * c_in values, in the input as in the packed filter.
      const float* ip = irow + (x0 * g.sw - g.pl) * g.c_in;
      const float* wp = wg + i * g.kw * wstride;
      const int64_t run = g.kw * g.c_in;
      for (int64_t k = 0; k < run; ++k) {
        const float* wk = wp + k * NB * kLanes;
        const Vec w0 = Load(wk);
        const Vec w1 = NB > 1 ? Load(wk + kLanes) : Vec{};
        for (int r = 0; r < R; ++r) {
          const float x = ip[r * px_stride + k];
          acc[r][0] += w0 * x;
          if constexpr (NB > 1) acc[r][1] += w1 * x;
        }
      }
      continue;
    }
    for (int64_t j = 0; j < g.kw; ++j) {
      const float* ip[R];
      for (int r = 0; r < R; ++r) {
        const int64_t ix = (x0 + r) * g.sw - g.pl + j * g.dw;
        ip[r] =
            !kChecked || (ix >= 0 && ix < g.w) ? irow + ix * g.c_in : g.zeros;
      }
      const float* wp = wg + (i * g.kw + j) * wstride;
      for (int64_t c = 0; c < g.c_in; ++c) {
        const float* wc = wp + c * NB * kLanes;
        const Vec w0 = Load(wc);
        const Vec w1 = NB > 1 ? Load(wc + kLanes) : Vec{};
        for (int r = 0; r < R; ++r) {
          const float x = ip[r][c];
          acc[r][0] += w0 * x;
          if constexpr (NB > 1) acc[r][1] += w1 * x;
        }
      }
    }
  }
  if constexpr (!kFull) {
    for (int r = 0; r < R; ++r) {
      const int64_t off = ((y * g.out_w) + x0 + r) * g.c_out + co0;
      for (int b = 0; b < NB; ++b) {
        const int64_t lanes = std::min<int64_t>(kLanes, valid - b * kLanes);
        if (lanes <= 0) break;
        Finish(g, acc[r][b], bias == nullptr ? nullptr : bias + b * kLanes,
               res_n == nullptr ? nullptr : res_n + off + b * kLanes,
               out_n + off + b * kLanes, static_cast<int>(lanes));
      }
    }
    return;
  }
  // Every block full (the common case).
  Vec bv[NB];
  for (int b = 0; b < NB; ++b) {
    bv[b] = bias == nullptr ? Vec{} : Load(bias + b * kLanes);
  }
  const Vec lo = Vec{} + g.lo;
  const Vec hi = Vec{} + g.hi;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const int64_t off = ((y * g.out_w) + x0 + r) * g.c_out + co0;
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b) {
      FinishHoisted<true>(acc[r][b], bv[b], lo, hi,
                          res_n == nullptr ? nullptr : res_n + off + b * kLanes,
                          out_n + off + b * kLanes, kLanes);
    }
  }
}

// One output row of one channel group: tiles of 8 pixels, then 4, 2, 1
// (one pixel alone is a single dependency chain per block); a tile that
// reaches into the padding takes the checked path.
template <int NB, bool kFull>
void RegularRow(const Geo& g, const float* in_n, const float* wg,
                const float* bias, int64_t y, const float* res_n, float* out_n,
                int64_t co0, int64_t valid) {
  int64_t begin, end;
  InteriorColumns(g, &begin, &end);
  int64_t x = 0;
  auto tile = [&](auto r_tag) {
    constexpr int R = decltype(r_tag)::value;
    if (x >= begin && x + R <= end) {
      RegularTile<R, NB, false, kFull>(g, in_n, wg, bias, y, x, res_n, out_n,
                                       co0, valid);
    } else {
      RegularTile<R, NB, true, kFull>(g, in_n, wg, bias, y, x, res_n, out_n,
                                      co0, valid);
    }
    x += R;
  };
  if constexpr (NB == 1) {
    // One block: twice the pixels, for as many independent accumulators.
    while (x + 2 * kTile <= g.out_w) {
      tile(std::integral_constant<int, 2 * kTile>());
    }
  }
  while (x + kTile <= g.out_w) tile(std::integral_constant<int, kTile>());
  if (x + 4 <= g.out_w) tile(std::integral_constant<int, 4>());
  if (x + 2 <= g.out_w) tile(std::integral_constant<int, 2>());
  if (x < g.out_w) tile(std::integral_constant<int, 1>());
}

// A pointwise convolution's pixels [p0, p1) for one channel group of NB
// blocks (`valid` real channels from co0), in tiles of R pixels: `in`
// [pixels, c_in], `out` and `res` [pixels, c_out]. One call walks the
// whole range (RegularTile, one call per tile, sets up its geometry, a
// zeroed accumulator array and its epilogue constants per tile: with 24
// input channels that was a third of the tile's time). R * NB accumulators
// and NB weight vectors stay in registers for a tile's dot products.
template <int R, int NB, bool kFull>
__attribute__((noinline)) void PointwiseTiles(
    const float* in, int64_t p0, int64_t p1, int64_t c_in, int64_t c_out,
    const float* wg, const float* bias, const float* res, float* out,
    int64_t co0, int64_t valid, float lo_s, float hi_s) {
  Vec bv[NB];
  for (int b = 0; b < NB; ++b) {
    bv[b] = bias == nullptr || !kFull ? Vec{} : Load(bias + b * kLanes);
  }
  const Vec lo = Vec{} + lo_s;
  const Vec hi = Vec{} + hi_s;
  for (int64_t p = p0; p + R <= p1; p += R) {
    Vec acc[R][NB];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (int b = 0; b < NB; ++b) acc[r][b] = Vec{};
    }
    const float* ip = in + p * c_in;
    const float* wk = wg;
    for (int64_t k = 0; k < c_in; ++k, wk += NB * kLanes) {
      Vec wv[NB];
#pragma GCC unroll 4
      for (int b = 0; b < NB; ++b) wv[b] = Load(wk + b * kLanes);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const float x = ip[r * c_in + k];
#pragma GCC unroll 4
        for (int b = 0; b < NB; ++b) acc[r][b] += wv[b] * x;
      }
    }
    const int64_t off = p * c_out + co0;
    if constexpr (kFull) {
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int b = 0; b < NB; ++b) {
          const int64_t at = off + r * c_out + b * kLanes;
          FinishHoisted<true>(acc[r][b], bv[b], lo, hi,
                              res == nullptr ? nullptr : res + at, out + at,
                              kLanes);
        }
      }
    } else {
      for (int r = 0; r < R; ++r) {
        for (int b = 0; b < NB; ++b) {
          const int64_t lanes = std::min<int64_t>(kLanes, valid - b * kLanes);
          if (lanes <= 0) break;
          const int64_t at = off + r * c_out + b * kLanes;
          Vec v = acc[r][b];
          if (bias != nullptr) v += LoadPartial(bias + b * kLanes, lanes);
          if (res != nullptr) v += LoadPartial(res + at, lanes);
          v = v < lo ? lo : v;
          v = v > hi ? hi : v;
          StorePartial(out + at, v, static_cast<int>(lanes));
        }
      }
    }
  }
}

// Pixels [p0, p1) of a pointwise convolution, one channel group: tiles of
// kTile pixels (2 * kTile for a one-block group, then one of kTile), then
// 4, 2, 1.
template <int NB, bool kFull>
void PointwiseGroup(const float* in, int64_t p0, int64_t p1, int64_t c_in,
                    int64_t c_out, const float* wg, const float* bias,
                    const float* res, float* out, int64_t co0, int64_t valid,
                    float lo, float hi) {
  constexpr int R = NB == 1 ? 2 * kTile : kTile;
  int64_t p = p0;
  auto tiles = [&](auto r_tag, int64_t end) {
    constexpr int kR = decltype(r_tag)::value;
    PointwiseTiles<kR, NB, kFull>(in, p, end, c_in, c_out, wg, bias, res, out,
                                  co0, valid, lo, hi);
    p = end;
  };
  if (p1 - p0 >= R)
    tiles(std::integral_constant<int, R>(), p0 + (p1 - p0) / R * R);
  if (R > kTile && p + kTile <= p1) {
    tiles(std::integral_constant<int, kTile>(), p + kTile);
  }
  if (p + 4 <= p1) tiles(std::integral_constant<int, 4>(), p + 4);
  if (p + 2 <= p1) tiles(std::integral_constant<int, 2>(), p + 2);
  if (p < p1) tiles(std::integral_constant<int, 1>(), p + 1);
}

// PointwiseGroup for a group of `valid` channels.
void PointwiseGroupAny(const float* in, int64_t p0, int64_t p1, int64_t c_in,
                       int64_t c_out, const float* wg, const float* bias,
                       const float* res, float* out, int64_t co0, int64_t valid,
                       float lo, float hi) {
  if (valid == 2 * kLanes) {
    PointwiseGroup<2, true>(in, p0, p1, c_in, c_out, wg, bias, res, out, co0,
                            valid, lo, hi);
  } else if (valid > kLanes) {
    PointwiseGroup<2, false>(in, p0, p1, c_in, c_out, wg, bias, res, out, co0,
                             valid, lo, hi);
  } else if (valid == kLanes) {
    PointwiseGroup<1, true>(in, p0, p1, c_in, c_out, wg, bias, res, out, co0,
                            valid, lo, hi);
  } else {
    PointwiseGroup<1, false>(in, p0, p1, c_in, c_out, wg, bias, res, out, co0,
                             valid, lo, hi);
  }
}

// R output pixels of row y, one block of kLanes channels starting at c0
// (`lanes` of them real). Depthwise: channel c reads input channel c.
template <int R, bool kChecked, bool kFull>
__attribute__((noinline)) void DepthwiseTile(const Geo& g, const float* in_n,
                                             const float* wp, const float* bias,
                                             int64_t y, int64_t x0,
                                             const float* res_n, float* out_n,
                                             int64_t c0, int lanes) {
  Vec acc[R] = {};
  const int64_t cpad = (g.c_in + kLanes - 1) / kLanes * kLanes;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t iy = y * g.sh - g.pt + i * g.dh;
    if (iy < 0 || iy >= g.h) continue;
    const float* irow = in_n + iy * g.w * g.c_in + c0;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t ix = x0 * g.sw - g.pl + j * g.dw;
      const Vec wv = Load(wp + (i * g.kw + j) * cpad + c0);
      for (int r = 0; r < R; ++r) {
        const int64_t ixr = ix + r * g.sw;
        const float* ip = !kChecked || (ixr >= 0 && ixr < g.w)
                              ? irow + ixr * g.c_in
                              : g.zeros;
        acc[r] += wv * (kFull ? Load(ip) : LoadPartial(ip, lanes));
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    const int64_t off = ((y * g.out_w) + x0 + r) * g.c_out + c0;
    Finish(g, acc[r], bias == nullptr ? nullptr : bias + c0,
           res_n == nullptr ? nullptr : res_n + off, out_n + off, lanes);
  }
}

// Depthwise tiles of the common undilated shapes (KW = 3 or 5, stride S =
// 1 or 2), the tile body: R output pixels of row y, one block of kLanes
// channels at c0 (`lanes` real). Each input column of a window row is loaded
// once and used by every pixel whose window covers it ((R - 1) * S + KW
// loads for R * KW FMAs, instead of one load per FMA). kPadded: the tile
// reaches into the left or right padding; `cols` (below) says which of its
// columns are inside the input.
//
// Inlined into its callers, with the epilogue's bias and clamp vectors
// loaded once per tile: as a noinline function of its own GCC zeroed the
// accumulators with a memset call and stored them to the stack for Finish,
// and Finish's per-pixel branches and broadcasts cost as much as a third of
// the FMAs (direct_conv_bench, 64x64x24 3x3: 70 -> 46 us).
template <int R, int KW, int S>
struct PaddedColumns {
  static constexpr int kCols = (R - 1) * S + KW;
  // Masked loads (AVX2, AVX-512): per column, its offset in a row (clamped
  // into the row, so the address stays inside the input) and a mask that is
  // empty outside the input, for full blocks and for the channel tail.
  ColumnMask full[kHasColumnMask ? kCols : 1];
  ColumnMask tail[kHasColumnMask ? kCols : 1];
  int64_t offset[kCols];
  bool inside[kCols];

  PaddedColumns(const Geo& g, int64_t ix0, int tail_lanes) {
    for (int t = 0; t < kCols; ++t) {
      const int64_t ix = ix0 + t;
      inside[t] = ix >= 0 && ix < g.w;
      offset[t] = std::clamp<int64_t>(ix, 0, g.w - 1) * g.c_in;
      if constexpr (kHasColumnMask) {
        full[t] = MakeColumnMask(inside[t], kLanes);
        tail[t] = MakeColumnMask(inside[t], tail_lanes);
      }
    }
  }
};

template <int R, int KW, int S, bool kFull, bool kPadded>
inline __attribute__((always_inline)) void DepthwiseTileFixedBody(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n, int64_t c0,
    int lanes, const PaddedColumns<R, KW, S>* cols) {
  constexpr int kCols = (R - 1) * S + KW;
  constexpr bool kMasked = kPadded && kHasColumnMask;
  Vec acc[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r] = Vec{};
  const int64_t cpad = (g.c_in + kLanes - 1) / kLanes * kLanes;
  const int64_t ix0 = x0 * S - g.pl;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t iy = y * g.sh - g.pt + i * g.dh;
    if (iy < 0 || iy >= g.h) continue;
    const float* row = in_n + iy * g.w * g.c_in + c0;
    const float* p = row + ix0 * g.c_in;
    int64_t step = g.c_in;
    // Without masked loads a padded window row is first copied to a small
    // buffer with zeros for the padding columns.
    Vec buf[kPadded && !kMasked ? kCols : 1];
    if constexpr (kPadded && !kMasked) {
      for (int t = 0; t < kCols; ++t) {
        buf[t] = !cols->inside[t] ? Vec{}
                 : kFull          ? Load(row + cols->offset[t])
                                  : LoadPartial(row + cols->offset[t], lanes);
      }
      p = reinterpret_cast<const float*>(buf);
      step = kLanes;
    }
    Vec w[KW];
#pragma GCC unroll 8
    for (int j = 0; j < KW; ++j) w[j] = Load(wp + (i * KW + j) * cpad + c0);
#pragma GCC unroll 32
    for (int t = 0; t < kCols; ++t) {
      Vec v;
      if constexpr (kMasked) {
        v = MaskedLoad(row + cols->offset[t],
                       kFull ? cols->full[t] : cols->tail[t]);
      } else {
        v = kFull || kPadded ? Load(p) : LoadPartial(p, lanes);
        p += step;
      }
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const int j = t - r * S;
        if (j >= 0 && j < KW) acc[r] += w[j] * v;
      }
    }
  }
  const Vec bv = bias == nullptr ? Vec{}
                 : kFull         ? Load(bias + c0)
                                 : LoadPartial(bias + c0, lanes);
  const Vec lo = Vec{} + g.lo;
  const Vec hi = Vec{} + g.hi;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const int64_t off = ((y * g.out_w) + x0 + r) * g.c_out + c0;
    FinishHoisted<kFull>(acc[r], bv, lo, hi,
                         res_n == nullptr ? nullptr : res_n + off, out_n + off,
                         lanes);
  }
}

// Every channel block of the tile at x0 (full blocks, then the tail).
template <int R, int KW, int S, bool kPadded>
inline __attribute__((always_inline)) void DepthwiseAllBlocks(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n,
    const PaddedColumns<R, KW, S>* cols) {
  const int64_t full_end = g.c_in / kLanes * kLanes;
  for (int64_t c0 = 0; c0 < full_end; c0 += kLanes) {
    DepthwiseTileFixedBody<R, KW, S, true, kPadded>(
        g, in_n, wp, bias, y, x0, res_n, out_n, c0, kLanes, cols);
  }
  if (full_end < g.c_in) {
    DepthwiseTileFixedBody<R, KW, S, false, kPadded>(
        g, in_n, wp, bias, y, x0, res_n, out_n, full_end,
        static_cast<int>(g.c_in - full_end), cols);
  }
}

// One tile position, every channel block: the per-tile work (the call,
// the padded columns' masks) is shared by all blocks, and a tile reads
// `kCols` whole pixels of each window row (contiguous channels) rather than
// one block's slice of them per pass.
template <int R, int KW, int S, bool kPadded>
__attribute__((noinline)) void DepthwiseTileFixed(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n) {
  std::optional<PaddedColumns<R, KW, S>> cols;
  if constexpr (kPadded) {
    cols.emplace(g, x0 * S - g.pl,
                 static_cast<int>(g.c_in - g.c_in / kLanes * kLanes));
  }
  DepthwiseAllBlocks<R, KW, S, kPadded>(g, in_n, wp, bias, y, x0, res_n, out_n,
                                        kPadded ? &*cols : nullptr);
}

// The interior tiles [x0, x1) of a row (x1 - x0 a multiple of R), every
// channel block, one call.
template <int R, int KW, int S>
__attribute__((noinline)) void DepthwiseSpanFixed(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, int64_t x1, const float* res_n, float* out_n) {
  for (int64_t x = x0; x < x1; x += R) {
    DepthwiseAllBlocks<R, KW, S, false>(g, in_n, wp, bias, y, x, res_n, out_n,
                                        nullptr);
  }
}

// Output row y of a fixed-shape layer: tiles of 8 pixels from the left (one
// that reaches into the padding takes the padded path), runs of interior
// ones in one call, then 4, 2, 1.
template <int KW, int S>
void DepthwiseRowFixed(const Geo& g, const float* in_n, const float* wp,
                       const float* bias, int64_t y, const float* res_n,
                       float* out_n) {
  constexpr int kDwTile = 8;
  int64_t begin, end;
  InteriorColumns(g, &begin, &end);
  int64_t x = 0;
  auto tile = [&](auto r_tag) {
    constexpr int R = decltype(r_tag)::value;
    if (x >= begin && x + R <= end) {
      DepthwiseTileFixed<R, KW, S, false>(g, in_n, wp, bias, y, x, res_n,
                                          out_n);
    } else {
      DepthwiseTileFixed<R, KW, S, true>(g, in_n, wp, bias, y, x, res_n, out_n);
    }
    x += R;
  };
  // Interior runs of 3x3 layers go in tiles of 12 pixels: 12 independent
  // accumulators hide more of the FMA latency (4 cycles on Zen 3) and still
  // fit 16 vector registers with the 3 weights and the input column
  // (direct_conv_bench on the AVX2 VM, min of 6 interleaved runs: 64x64x24
  // 42 -> 38 us, 32x32x64 /2 9.7 -> 8.5, 112x112x144 /2 319 -> 298). 5x5
  // runs stay at 8 (12 accumulators and 5 weights would spill).
  constexpr int kSpanTile = KW == 3 ? 12 : kDwTile;
  while (x + kDwTile <= g.out_w) {
    const int64_t run = x >= begin ? (end - x) / kSpanTile * kSpanTile : 0;
    if (run > 0) {
      DepthwiseSpanFixed<kSpanTile, KW, S>(g, in_n, wp, bias, y, x, x + run,
                                           res_n, out_n);
      x += run;
      continue;
    }
    tile(std::integral_constant<int, kDwTile>());
  }
  if (x + 4 <= g.out_w) tile(std::integral_constant<int, 4>());
  if (x + 2 <= g.out_w) tile(std::integral_constant<int, 2>());
  if (x < g.out_w) tile(std::integral_constant<int, 1>());
}

// Any other depthwise shape (dilated columns, other kernel widths or
// strides): DepthwiseTile per block of channels.
template <bool kFull>
void DepthwiseBlock(const Geo& g, const float* in_n, const float* wp,
                    const float* bias, int64_t y, const float* res_n,
                    float* out_n, int64_t c0, int lanes) {
  constexpr int kDwTile = 8;
  int64_t begin, end;
  InteriorColumns(g, &begin, &end);
  int64_t x = 0;
  auto tile = [&](auto r_tag) {
    constexpr int R = decltype(r_tag)::value;
    if (x >= begin && x + R <= end) {
      DepthwiseTile<R, false, kFull>(g, in_n, wp, bias, y, x, res_n, out_n, c0,
                                     lanes);
    } else {
      DepthwiseTile<R, true, kFull>(g, in_n, wp, bias, y, x, res_n, out_n, c0,
                                    lanes);
    }
    x += R;
  };
  while (x + kDwTile <= g.out_w) tile(std::integral_constant<int, kDwTile>());
  if (x + 4 <= g.out_w) tile(std::integral_constant<int, 4>());
  if (x + 2 <= g.out_w) tile(std::integral_constant<int, 2>());
  if (x < g.out_w) tile(std::integral_constant<int, 1>());
}

void DepthwiseRow(const Geo& g, const float* in_n, const float* wp,
                  const float* bias, int64_t y, const float* res_n,
                  float* out_n) {
  if (g.dw == 1) {
    if (g.kw == 3 && g.sw == 1) {
      return DepthwiseRowFixed<3, 1>(g, in_n, wp, bias, y, res_n, out_n);
    }
    if (g.kw == 3 && g.sw == 2) {
      return DepthwiseRowFixed<3, 2>(g, in_n, wp, bias, y, res_n, out_n);
    }
    if (g.kw == 5 && g.sw == 1) {
      return DepthwiseRowFixed<5, 1>(g, in_n, wp, bias, y, res_n, out_n);
    }
    if (g.kw == 5 && g.sw == 2) {
      return DepthwiseRowFixed<5, 2>(g, in_n, wp, bias, y, res_n, out_n);
    }
  }
  for (int64_t c0 = 0; c0 < g.c_in; c0 += kLanes) {
    const int lanes = static_cast<int>(std::min<int64_t>(kLanes, g.c_in - c0));
    if (lanes == kLanes) {
      DepthwiseBlock<true>(g, in_n, wp, bias, y, res_n, out_n, c0, lanes);
    } else {
      DepthwiseBlock<false>(g, in_n, wp, bias, y, res_n, out_n, c0, lanes);
    }
  }
}

}  // namespace

// The packed filter. Regular: channel groups of up to kMaxBlocks blocks,
// group k at weights + group_offset[k], laid out [kh][kw][in][blocks *
// kLanes]. Depthwise: [kh][kw][c rounded up to kLanes]. Padded lanes are 0.
struct DirectConv::Packed {
  bool depthwise = false;
  int64_t kh = 0, kw = 0, c_in = 0, c_out = 0;
  std::vector<float> weights;
  std::vector<int64_t> group_offset;
  std::vector<float> zeros;  // what a tap in the padding reads

  int64_t padded_out() const { return (c_out + kLanes - 1) / kLanes * kLanes; }
};

DirectConv::DirectConv() = default;
DirectConv::~DirectConv() = default;

bool DirectConv::Supports(const XnnConvSpec& spec) {
  if (spec.kh <= 0 || spec.kw <= 0 || spec.in_channels <= 0 ||
      spec.out_channels <= 0 || spec.stride_h <= 0 || spec.stride_w <= 0 ||
      spec.dilation_h <= 0 || spec.dilation_w <= 0) {
    return false;
  }
  return !spec.depthwise || spec.out_channels == spec.in_channels;
}

bool DirectConv::Prefers(const XnnConvSpec& spec, int64_t n, int64_t out_h,
                         int64_t out_w) {
  const Mode mode = CurrentMode();
  if (mode == Mode::kOff || !Supports(spec)) return false;
  if (mode == Mode::kAll) return true;
  if (!spec.depthwise && spec.kh == 1 && spec.kw == 1 && spec.stride_h == 1 &&
      spec.stride_w == 1 && spec.pad_top == 0 && spec.pad_left == 0 &&
      spec.pad_bottom == 0 && spec.pad_right == 0) {
    // Pointwise: at least as fast as oneDNN's at any size up to 256 input
    // channels (8 KB chunks of pixels; //bench:direct_conv_bench layers
    // 36-44: 128x128 24 -> 24 0.30 vs 0.30-0.36 ms, 112x112 16 -> 96
    // 0.55 vs 0.76-0.86).
    return spec.in_channels <= kMaxPointwiseInChannels &&
           spec.in_channels * spec.out_channels <= kMaxPointwiseFilterFloats;
  }
  if (n * out_h * out_w > kMaxOutputPixels) return false;
  if (spec.depthwise) {
    // Depthwise layers sweep the input once per group of kLanes channels; an
    // input beyond ~512 KB then streams from L3 for every group (MobileNet
    // V2's 56x56x144 layer: 5 GFLOP/s here, 16-28 on oneDNN).
    constexpr int64_t kMaxDepthwiseInputFloats = 128 * 1024;
    return n * out_h * spec.stride_h * out_w * spec.stride_w *
               spec.in_channels <=
           kMaxDepthwiseInputFloats;
  }
  return spec.kh * spec.kw * spec.in_channels * spec.out_channels <=
         kMaxFilterFloats;
}

absl::Status DirectConv::Pack(const XnnConvSpec& spec, const Tensor& filter) {
  MutexLock lock(&mu_);
  if (decided_) return absl::OkStatus();
  return PackLocked(spec, filter);
}

absl::StatusOr<bool> DirectConv::Adopt(
    const XnnConvSpec& spec, bool prefer,
    const std::function<absl::StatusOr<Tensor>()>& take_filter) const {
  MutexLock lock(&mu_);
  if (decided_) return owned_ != nullptr;
  if (!prefer) {
    decided_ = true;
    return false;
  }
  GRAPHRT_ASSIGN_OR_RETURN(Tensor filter, take_filter());
  GRAPHRT_RETURN_IF_ERROR(PackLocked(spec, filter));
  return true;
}

absl::Status DirectConv::PackLocked(const XnnConvSpec& spec,
                                    const Tensor& filter) const {
  if (!Supports(spec)) {
    return absl::InvalidArgumentError(
        "direct convolution: unsupported geometry (depthwise multiplier must "
        "be 1; sizes, strides and dilations positive)");
  }
  const int64_t rows = spec.kh * spec.kw * spec.in_channels;
  const int64_t want = rows * (spec.depthwise ? 1 : spec.out_channels);
  if (filter.dtype() != DType::kFloat32 || filter.num_elements() != want ||
      filter.raw_data() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "direct convolution: filter must be float32 with ", want,
        " values for a ", spec.kh, "x", spec.kw, " convolution of ",
        spec.in_channels, " -> ", spec.out_channels, " channels, got ",
        DTypeName(filter.dtype()), " ", filter.shape().ToString()));
  }
  auto p = std::make_unique<Packed>();
  p->depthwise = spec.depthwise;
  p->kh = spec.kh;
  p->kw = spec.kw;
  p->c_in = spec.in_channels;
  p->c_out = spec.out_channels;
  const float* f = filter.data<float>();
  if (spec.depthwise) {
    const int64_t cpad = p->padded_out();
    p->weights.assign(spec.kh * spec.kw * cpad, 0.0f);
    for (int64_t t = 0; t < spec.kh * spec.kw; ++t) {
      std::memcpy(&p->weights[t * cpad], f + t * spec.in_channels,
                  sizeof(float) * spec.in_channels);
    }
  } else {
    p->weights.assign(rows * p->padded_out(), 0.0f);
    int64_t offset = 0;
    for (int64_t co0 = 0; co0 < spec.out_channels; co0 += kMaxBlocks * kLanes) {
      const int64_t left = spec.out_channels - co0;
      const int64_t width = left > kLanes ? kMaxBlocks * kLanes : kLanes;
      p->group_offset.push_back(offset);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t o = 0; o < std::min(width, left); ++o) {
          p->weights[offset + r * width + o] =
              f[r * spec.out_channels + co0 + o];
        }
      }
      offset += rows * width;
    }
    p->weights.resize(offset);
  }
  p->zeros.assign(p->padded_out() + spec.in_channels + kLanes, 0.0f);
  owned_ = std::move(p);
  decided_ = true;
  packed_.store(owned_.get(), std::memory_order_release);
  return absl::OkStatus();
}

absl::Status DirectConv::Run(const XnnConvSpec& spec, const float* bias,
                             const float* residual, const float* in, int64_t n,
                             int64_t h, int64_t w, int64_t out_h, int64_t out_w,
                             float* out) const {
  const Packed* p = packed_.load(std::memory_order_acquire);
  if (p == nullptr) {
    return absl::InternalError("direct convolution run before its filter");
  }
  if (spec.depthwise != p->depthwise || spec.kh != p->kh || spec.kw != p->kw ||
      spec.in_channels != p->c_in || spec.out_channels != p->c_out ||
      !Supports(spec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "direct convolution: a ", spec.kh, "x", spec.kw, " ", spec.in_channels,
        " -> ", spec.out_channels, " call does not match the packed ", p->kh,
        "x", p->kw, " ", p->c_in, " -> ", p->c_out, " filter"));
  }
  const Geo g{h,
              w,
              spec.in_channels,
              spec.out_channels,
              out_h,
              out_w,
              spec.kh,
              spec.kw,
              spec.stride_h,
              spec.stride_w,
              spec.dilation_h,
              spec.dilation_w,
              spec.pad_top,
              spec.pad_left,
              spec.out_min,
              spec.out_max,
              p->zeros.data()};
  const int64_t in_image = h * w * g.c_in;
  const int64_t out_image = out_h * out_w * g.c_out;
  if (p->depthwise) {
    for (int64_t b = 0; b < n; ++b) {
      const float* res_n =
          residual == nullptr ? nullptr : residual + b * out_image;
      for (int64_t y = 0; y < out_h; ++y) {
        DepthwiseRow(g, in + b * in_image, p->weights.data(), bias, y, res_n,
                     out + b * out_image);
      }
    }
    return absl::OkStatus();
  }
  // A pointwise convolution (1x1, stride 1, no padding) is a matrix
  // product over all pixels of the batch, [n * h * w, c_in] x [c_in,
  // c_out], in chunks of about kPointwiseChunkFloats input values (8 KB),
  // every channel group per chunk: the chunk stays in L1 for all groups
  // (chunks of 96 pixels: 128x128 24 -> 24 0.30 ms, 8 KB: 0.26 ms).
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 &&
                         g.pt == 0 && g.pl == 0 && out_h == h && out_w == w;
  if (pointwise) {
    const int64_t chunk = std::max<int64_t>(
        4 * kTile, kPointwiseChunkFloats / g.c_in / (2 * kTile) * (2 * kTile));
    const int64_t pixels = n * h * w;
    for (int64_t p0 = 0; p0 < pixels; p0 += chunk) {
      const int64_t p1 = std::min(pixels, p0 + chunk);
      for (size_t k = 0; k < p->group_offset.size(); ++k) {
        const int64_t co0 = static_cast<int64_t>(k) * kMaxBlocks * kLanes;
        const int64_t valid =
            std::min<int64_t>(kMaxBlocks * kLanes, g.c_out - co0);
        const float* wg = p->weights.data() + p->group_offset[k];
        const float* bg = bias == nullptr ? nullptr : bias + co0;
        PointwiseGroupAny(in, p0, p1, g.c_in, g.c_out, wg, bg, residual, out,
                          co0, valid, g.lo, g.hi);
      }
    }
    return absl::OkStatus();
  }
  const Geo& flat = g;
  const int64_t images = n;
  // Channel groups outermost: a group's packed weights stay in cache
  // while every pixel of the image passes by.
  for (size_t k = 0; k < p->group_offset.size(); ++k) {
    const int64_t co0 = static_cast<int64_t>(k) * kMaxBlocks * kLanes;
    const int64_t valid = std::min<int64_t>(kMaxBlocks * kLanes, g.c_out - co0);
    const float* wg = p->weights.data() + p->group_offset[k];
    const float* bg = bias == nullptr ? nullptr : bias + co0;
    for (int64_t b = 0; b < images; ++b) {
      const float* in_n = in + b * in_image;
      float* out_n = out + b * out_image;
      const float* res_n =
          residual == nullptr ? nullptr : residual + b * out_image;
      for (int64_t y = 0; y < flat.out_h; ++y) {
        if (valid == 2 * kLanes) {
          RegularRow<2, true>(flat, in_n, wg, bg, y, res_n, out_n, co0, valid);
        } else if (valid > kLanes) {
          RegularRow<2, false>(flat, in_n, wg, bg, y, res_n, out_n, co0, valid);
        } else if (valid == kLanes) {
          RegularRow<1, true>(flat, in_n, wg, bg, y, res_n, out_n, co0, valid);
        } else {
          RegularRow<1, false>(flat, in_n, wg, bg, y, res_n, out_n, co0, valid);
        }
      }
    }
  }
  return absl::OkStatus();
}

int64_t DirectConv::packed_bytes() const {
  const Packed* p = packed_.load(std::memory_order_acquire);
  return p == nullptr ? 0
                      : static_cast<int64_t>(p->weights.size() * sizeof(float));
}

}  // namespace nn
}  // namespace graphrt
