#include "ops/nn/direct/direct_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/nn/direct/depthwise_rows.h"
#include "ops/nn/direct/kernel_util.h"
#include "ops/nn/direct/narrow_rows.h"
#include "runtime/parallel.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace nn {
namespace direct_kernel {
namespace {

constexpr int kMaxBlocks = 2;
// Input values per chunk of a pointwise convolution's pixels (see Run).
constexpr int64_t kPointwiseChunkFloats = 2048;
// Multiply-adds per parallel chunk of a call at least (~5 us at 100
// GFLOP/s): smaller calls run on the calling thread alone.
constexpr int64_t kMinParallelMacs = 256 * 1024;

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

// R output pixels (x0 .. x0+R-1 of row y) x NB blocks of one channel group.
// kChecked: some of the pixels' taps fall left or right of the input; they
// read g.zeros instead (so border pixels still go 8 at a time). The first
// NB - 1 blocks are full; the last holds valid - (NB - 1) * kLanes
// channels (all of them when kFull) and is a Half (256-bit) block when
// kHalf (AVX-512: 24 = 16 + 8 output channels, 8, 5; see
// PointwiseTilesHalf for why).
// Not inlined: inside RegularRow GCC 12 kept the weight vectors on the
// stack (each FMA then read memory); on its own it keeps them in registers.
template <int R, int NB, bool kChecked, bool kFull, bool kHalf>
__attribute__((noinline)) void RegularTile(const Geo& g, const float* in_n,
                                           const float* wg, const float* bias,
                                           int64_t y, int64_t x0,
                                           const float* res_n, float* out_n,
                                           int64_t co0, int64_t valid) {
  using VL = std::conditional_t<kHalf, Half, Vec>;
  using OpsL = BlockOps<VL>;
  constexpr int NF = NB - 1;  // 0 or 1 full blocks before the last
  // Zeroed one by one: `= {}` became a memset of the array, which then
  // lived on the stack.
  Vec accf[R];
  VL accl[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    accf[r] = Vec{};
    accl[r] = VL{};
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
        const Vec w0 = NF > 0 ? Load(wk) : Vec{};
        const VL wl = OpsL::Load(wk + NF * kLanes);
        for (int r = 0; r < R; ++r) {
          const float x = ip[r * px_stride + k];
          if constexpr (NF > 0) accf[r] += w0 * x;
          accl[r] += wl * x;
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
        const Vec w0 = NF > 0 ? Load(wc) : Vec{};
        const VL wl = OpsL::Load(wc + NF * kLanes);
        for (int r = 0; r < R; ++r) {
          const float x = ip[r][c];
          if constexpr (NF > 0) accf[r] += w0 * x;
          accl[r] += wl * x;
        }
      }
    }
  }
  // The epilogue, its constants loaded once per tile (bias: zeros without
  // one, see FinishHoisted).
  const int last = static_cast<int>(valid - NF * kLanes);
  const Vec bvf = bias == nullptr || NF == 0 ? Vec{} : Load(bias);
  const VL bvl = bias == nullptr ? VL{}
                 : kFull         ? OpsL::Load(bias + NF * kLanes)
                                 : OpsL::LoadPartial(bias + NF * kLanes, last);
  const Vec lo = Vec{} + g.lo;
  const Vec hi = Vec{} + g.hi;
  const VL lol = VL{} + g.lo;
  const VL hil = VL{} + g.hi;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const int64_t off = ((y * g.out_w) + x0 + r) * g.c_out + co0;
    if constexpr (NF > 0) {
      FinishHoisted<true>(accf[r], bvf, lo, hi,
                          res_n == nullptr ? nullptr : res_n + off, out_n + off,
                          kLanes);
    }
    FinishHoisted<kFull, VL>(
        accl[r], bvl, lol, hil,
        res_n == nullptr ? nullptr : res_n + off + NF * kLanes,
        out_n + off + NF * kLanes, last);
  }
}

// One output row of one channel group: tiles of 8 pixels, then 4, 2, 1
// (one pixel alone is a single dependency chain per block); a tile that
// reaches into the padding takes the checked path. One block: tiles of 16
// first, for as many independent accumulators; a full block and a half
// one: tiles of 12 (12 zmm + 12 ymm accumulators).
template <int NB, bool kFull, bool kHalf>
void RegularRow(const Geo& g, const float* in_n, const float* wg,
                const float* bias, int64_t y, const float* res_n, float* out_n,
                int64_t co0, int64_t valid) {
  int64_t begin, end;
  InteriorColumns(g, &begin, &end);
  int64_t x = 0;
  auto tile = [&](auto r_tag) {
    constexpr int R = decltype(r_tag)::value;
    if (x >= begin && x + R <= end) {
      RegularTile<R, NB, false, kFull, kHalf>(g, in_n, wg, bias, y, x, res_n,
                                              out_n, co0, valid);
    } else {
      RegularTile<R, NB, true, kFull, kHalf>(g, in_n, wg, bias, y, x, res_n,
                                             out_n, co0, valid);
    }
    x += R;
  };
  constexpr int kBig = NB == 1 ? 2 * kTile : kHalf ? 12 : kTile;
  while (x + kBig <= g.out_w) tile(std::integral_constant<int, kBig>());
  if constexpr (kBig > kTile) {
    if (x + kTile <= g.out_w) tile(std::integral_constant<int, kTile>());
  }
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

// Pixels [p0, p1) in tiles: as many of R pixels as fit, then one each of
// kTile (when R is larger), 4, 2 and 1 where they fit. run(r_tag, p, end)
// does the tiles of r_tag's size from p to end.
template <int R, typename RunTiles>
inline void WalkPixelTiles(int64_t p0, int64_t p1, RunTiles run) {
  int64_t p = p0;
  auto tiles = [&](auto r_tag, int64_t end) {
    run(r_tag, p, end);
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

// Pixels [p0, p1) of a pointwise convolution, one channel group: tiles of
// kTile pixels (2 * kTile for a one-block group).
template <int NB, bool kFull>
void PointwiseGroup(const float* in, int64_t p0, int64_t p1, int64_t c_in,
                    int64_t c_out, const float* wg, const float* bias,
                    const float* res, float* out, int64_t co0, int64_t valid,
                    float lo, float hi) {
  WalkPixelTiles<NB == 1 ? 2 * kTile : kTile>(
      p0, p1, [&](auto r_tag, int64_t p, int64_t end) {
        constexpr int kR = decltype(r_tag)::value;
        PointwiseTiles<kR, NB, kFull>(in, p, end, c_in, c_out, wg, bias, res,
                                      out, co0, valid, lo, hi);
      });
}

// Whether a channel group of `valid` channels ends in a block of at most
// half a vector, which PointwiseGroupHalf runs on 256-bit registers
// (AVX-512 with VL only).
inline bool EndsInHalfBlock(int64_t valid) {
  return kHasHalfBlocks && (valid <= kHalfLanes ||
                            (valid > kLanes && valid <= kLanes + kHalfLanes));
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
// AVX-512: a group whose last block holds at most 8 channels (24 = 16 + 8,
// 40 = 32 + 8, 5) runs that block on 256-bit registers. Zen 4 executes a
// 512-bit FMA as two 256-bit halves, so the half-empty zmm block wasted a
// quarter of a 24-channel layer's FMAs; elsewhere a ymm FMA costs no more.
// NF (0 or 1) full blocks, then the 8-lane half block of `half` channels
// (kHalfFull: all 8). The packed row per input channel stays (NF + 1) *
// kLanes floats wide; the half block reads the first 8 of its 16.
template <int R, int NF, bool kHalfFull>
__attribute__((noinline)) void PointwiseTilesHalf(
    const float* in, int64_t p0, int64_t p1, int64_t c_in, int64_t c_out,
    const float* wg, const float* bias, const float* res, float* out,
    int64_t co0, int half, float lo_s, float hi_s) {
  using HalfOps = BlockOps<Half>;
  constexpr int kRow = (NF + 1) * kLanes;
  Vec bf = {};
  Half bh = {};
  if (bias != nullptr) {
    if constexpr (NF == 1) bf = Load(bias);
    bh = kHalfFull ? HalfOps::Load(bias + NF * kLanes)
                   : HalfOps::LoadPartial(bias + NF * kLanes, half);
  }
  const Vec lo = Vec{} + lo_s, hi = Vec{} + hi_s;
  const Half lo8 = Half{} + lo_s, hi8 = Half{} + hi_s;
  for (int64_t p = p0; p + R <= p1; p += R) {
    Vec accf[R];
    Half acch[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      accf[r] = Vec{};
      acch[r] = Half{};
    }
    const float* ip = in + p * c_in;
    const float* wk = wg;
    for (int64_t k = 0; k < c_in; ++k, wk += kRow) {
      Vec wf = {};
      if constexpr (NF == 1) wf = Load(wk);
      const Half wh = LoadHalf(wk + NF * kLanes);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const float x = ip[r * c_in + k];
        if constexpr (NF == 1) accf[r] += wf * x;
        acch[r] += wh * x;
      }
    }
    const int64_t off = p * c_out + co0;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const int64_t at = off + r * c_out;
      if constexpr (NF == 1) {
        FinishHoisted<true>(accf[r], bf, lo, hi,
                            res == nullptr ? nullptr : res + at, out + at,
                            kLanes);
      }
      const int64_t ah = at + NF * kLanes;
      FinishHoisted<kHalfFull, Half>(acch[r], bh, lo8, hi8,
                                     res == nullptr ? nullptr : res + ah,
                                     out + ah, half);
    }
  }
}

// Pixels [p0, p1) of one such group: tiles of 16 ymm accumulators, or 12
// zmm + 12 ymm.
template <int NF, bool kHalfFull>
void PointwiseGroupHalf(const float* in, int64_t p0, int64_t p1, int64_t c_in,
                        int64_t c_out, const float* wg, const float* bias,
                        const float* res, float* out, int64_t co0, int half,
                        float lo, float hi) {
  WalkPixelTiles<NF == 0 ? 16 : 12>(
      p0, p1, [&](auto r_tag, int64_t p, int64_t end) {
        constexpr int kR = decltype(r_tag)::value;
        PointwiseTilesHalf<kR, NF, kHalfFull>(in, p, end, c_in, c_out, wg, bias,
                                              res, out, co0, half, lo, hi);
      });
}
#endif  // __AVX512F__ && __AVX512VL__

// PointwiseGroup for a group of `valid` channels.
void PointwiseGroupAny(const float* in, int64_t p0, int64_t p1, int64_t c_in,
                       int64_t c_out, const float* wg, const float* bias,
                       const float* res, float* out, int64_t co0, int64_t valid,
                       float lo, float hi) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
  if (EndsInHalfBlock(valid)) {
    const int nf = valid > kLanes ? 1 : 0;
    const int half = static_cast<int>(valid) - nf * kLanes;
    if (nf == 1 && half == 8) {
      PointwiseGroupHalf<1, true>(in, p0, p1, c_in, c_out, wg, bias, res, out,
                                  co0, half, lo, hi);
    } else if (nf == 1) {
      PointwiseGroupHalf<1, false>(in, p0, p1, c_in, c_out, wg, bias, res, out,
                                   co0, half, lo, hi);
    } else if (half == 8) {
      PointwiseGroupHalf<0, true>(in, p0, p1, c_in, c_out, wg, bias, res, out,
                                  co0, half, lo, hi);
    } else {
      PointwiseGroupHalf<0, false>(in, p0, p1, c_in, c_out, wg, bias, res, out,
                                   co0, half, lo, hi);
    }
    return;
  }
#endif
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

// RegularRow for a group of `valid` channels.
void RegularRowAny(const Geo& g, const float* in_n, const float* wg,
                   const float* bias, int64_t y, const float* res_n,
                   float* out_n, int64_t co0, int64_t valid) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
  {
    if (EndsInHalfBlock(valid)) {
      const bool full = valid % kLanes == kHalfLanes;
      if (valid > kLanes && full) {
        RegularRow<2, true, true>(g, in_n, wg, bias, y, res_n, out_n, co0,
                                  valid);
      } else if (valid > kLanes) {
        RegularRow<2, false, true>(g, in_n, wg, bias, y, res_n, out_n, co0,
                                   valid);
      } else if (full) {
        RegularRow<1, true, true>(g, in_n, wg, bias, y, res_n, out_n, co0,
                                  valid);
      } else {
        RegularRow<1, false, true>(g, in_n, wg, bias, y, res_n, out_n, co0,
                                   valid);
      }
      return;
    }
  }
#endif
  if (valid == 2 * kLanes) {
    RegularRow<2, true, false>(g, in_n, wg, bias, y, res_n, out_n, co0, valid);
  } else if (valid > kLanes) {
    RegularRow<2, false, false>(g, in_n, wg, bias, y, res_n, out_n, co0, valid);
  } else if (valid == kLanes) {
    RegularRow<1, true, false>(g, in_n, wg, bias, y, res_n, out_n, co0, valid);
  } else {
    RegularRow<1, false, false>(g, in_n, wg, bias, y, res_n, out_n, co0, valid);
  }
}

}  // namespace
}  // namespace direct_kernel

using direct_kernel::CurrentMode;
using direct_kernel::DepthwiseRows;
using direct_kernel::EndsInHalfBlock;
using direct_kernel::Geo;
using direct_kernel::kLanes;
using direct_kernel::kMaxBlocks;
using direct_kernel::kMinParallelMacs;
using direct_kernel::kPointwiseChunkFloats;
using direct_kernel::kTile;
using direct_kernel::Mode;
using direct_kernel::NarrowRow;
using direct_kernel::PointwiseGroupAny;
using direct_kernel::RegularRowAny;

// The packed filter. Regular: channel groups of up to kMaxBlocks blocks,
// group k at weights + group_offset[k], laid out [kh][kw][in][blocks *
// kLanes]. Depthwise: [kh][kw][c rounded up to kLanes]. Padded lanes are 0.
struct DirectConv::Packed {
  bool depthwise = false;
  bool narrow = false;  // weights in narrow_rows.h's layout
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
    // Pointwise on AVX2: at least as fast as oneDNN's at any size up to 256
    // input channels (8 KB chunks of pixels; //bench:direct_conv_bench
    // layers 36-44: 128x128 24 -> 24 0.30 vs 0.30-0.36 ms, 112x112 16 ->
    // 96 0.55 vs 0.76-0.86). On AVX-512 (a Zen 4 VM) oneDNN's is 0-16%
    // faster beyond the small-layer bound (112x112 16 -> 64 0.29 vs 0.25
    // ms) unless the last channel group ends in a half block, which runs on
    // 256-bit registers (PointwiseTilesHalf: 128x128 24 -> 24 0.20 vs
    // 0.26, 56x56 144 -> 24 0.20 vs 0.30).
    const int64_t tail = spec.out_channels % (kMaxBlocks * kLanes);
    const bool half_tail = tail > 0 && EndsInHalfBlock(tail);
    if (kBlockLanes < 16 || n * out_h * out_w <= kMaxOutputPixels ||
        half_tail) {
      return spec.in_channels <= kMaxPointwiseInChannels &&
             spec.in_channels * spec.out_channels <= kMaxPointwiseFilterFloats;
    }
    return false;
  }
  if (spec.depthwise) {
    // AVX-512: depthwise layers of stride 1 at any size. A tile runs every
    // channel block of its pixels (DepthwiseAllBlocks), so the input
    // streams once, and the direct kernel is 20-37% faster than oneDNN's on
    // the larger corpus layers of a Zen 4 VM (//bench:direct_conv_bench
    // layers 15-33: 112x112x48 73 vs 61 GFLOP/s, 92x92x192 49 vs 36,
    // 128x128x24 63 vs 50, 64x64x64 5x5 94 vs 76; 128x128x16 41 vs 43 the
    // one loss). Stride 2 reads four input pixels per output pixel: beyond
    // the small-layer bound oneDNN's is as fast or faster (112x112x144 /2
    // 43 vs 44, 128x128x16 /2 32 vs 43), so those stay there. An AVX2 build
    // (8 lanes) lost to oneDNN on most of these layers on the same VM
    // (oneDNN there still used AVX-512), so it keeps the bounds below.
    if (kBlockLanes == 16 && spec.stride_h == 1 && spec.stride_w == 1) {
      return true;
    }
    if (n * out_h * out_w > kMaxOutputPixels) return false;
    constexpr int64_t kMaxDepthwiseInputFloats = 128 * 1024;
    return n * out_h * spec.stride_h * out_w * spec.stride_w *
               spec.in_channels <=
           kMaxDepthwiseInputFloats;
  }
  const bool small_filter =
      spec.kh * spec.kw * spec.in_channels * spec.out_channels <=
      kMaxFilterFloats;
  // Few output channels at any size: the narrow rows fill their lanes with
  // input channels (BlazePose's 128x128 3x3 32 -> 1 segmentation head: 1.42
  // ms at 6.7 GFLOP/s on oneDNN).
  if (direct_kernel::UsesNarrowLayout(spec.in_channels, spec.out_channels)) {
    return small_filter;
  }
  // AVX-512: stems (RGB inputs) of any size whose output channels end in a
  // half block, which RegularTile runs on 256-bit registers (5x5 /2 3 ->
  // 24 at 128x128: 91 GFLOP/s vs oneDNN's 81 on the Zen 4 VM; 3 -> 32
  // stays on oneDNN, 96 vs 79).
  const int64_t tail = spec.out_channels % (kMaxBlocks * kLanes);
  if (spec.in_channels <= 4 && tail > 0 && EndsInHalfBlock(tail)) {
    return small_filter;
  }
  if (n * out_h * out_w > kMaxOutputPixels) return false;
  return small_filter;
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
  } else if (direct_kernel::UsesNarrowLayout(spec.in_channels,
                                             spec.out_channels)) {
    p->narrow = true;
    p->weights = direct_kernel::PackNarrow(f, spec.kh, spec.kw,
                                           spec.in_channels, spec.out_channels);
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
  return RunWith(spec, bias, residual, in, nullptr, n, h, w, out_h, out_w, out);
}

absl::Status DirectConv::RunDepthwiseRows(const XnnConvSpec& spec,
                                          const float* bias,
                                          const float* const* rows, int64_t h,
                                          int64_t w, int64_t out_h,
                                          int64_t out_w, float* out) const {
  if (!spec.depthwise) {
    return absl::InvalidArgumentError(
        "direct convolution: input rows by pointer need a depthwise filter");
  }
  return RunWith(spec, bias, nullptr, nullptr, rows, 1, h, w, out_h, out_w,
                 out);
}

absl::Status DirectConv::RunWith(const XnnConvSpec& spec, const float* bias,
                                 const float* residual, const float* in,
                                 const float* const* rows, int64_t n, int64_t h,
                                 int64_t w, int64_t out_h, int64_t out_w,
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
              p->zeros.data(),
              rows};
  const int64_t in_image = h * w * g.c_in;
  const int64_t out_image = out_h * out_w * g.c_out;
  // Rows, pixel chunks: each is computed the same way whichever thread runs
  // it and however the range is split, so outputs are identical for any
  // thread count. A chunk of work gets at least kMinParallelMacs
  // multiply-adds (inside a ScopedSequential, e.g. threads = 1 or a fused
  // block's stripe, ParallelFor runs the whole range inline).
  auto grain = [](int64_t macs_per_item) {
    return std::max<int64_t>(
        1, kMinParallelMacs / std::max<int64_t>(1, macs_per_item));
  };
  // ParallelFor, but a range of one piece runs here without entering
  // oneTBB (most calls of the small models).
  auto parallel_for = [](int64_t count, int64_t piece, const auto& fn) {
    if (count <= piece) {
      fn(int64_t{0}, count);
    } else {
      ParallelFor(0, count, piece, fn);
    }
  };
  // Regular layers: row_fn(in_n, y, res_n, out_n) for every output row of
  // every image, rows split over the arena by `macs_per_row`.
  auto each_output_row = [&](int64_t macs_per_row, const auto& row_fn) {
    parallel_for(n * out_h, grain(macs_per_row), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / out_h;
        row_fn(in + b * in_image, r % out_h,
               residual == nullptr ? nullptr : residual + b * out_image,
               out + b * out_image);
      }
    });
  };
  if (p->depthwise) {
    parallel_for(
        n * out_h, grain(out_w * g.c_in * g.kh * g.kw),
        [&](int64_t r0, int64_t r1) {
          // The range's rows image by image.
          for (int64_t r = r0; r < r1;) {
            const int64_t b = r / out_h;
            const int64_t y1 = std::min(r1 - b * out_h, out_h);
            const float* res_n =
                residual == nullptr ? nullptr : residual + b * out_image;
            const float* in_n = in == nullptr ? nullptr : in + b * in_image;
            DepthwiseRows(g, in_n, p->weights.data(), bias, r % out_h, y1,
                          res_n, out + b * out_image);
            r = b * out_h + y1;
          }
        });
    return absl::OkStatus();
  }
  // Few output channels (narrow_rows.h), 1x1 or not.
  if (p->narrow) {
    each_output_row(
        out_w * g.c_out * g.kh * g.kw * g.c_in,
        [&](const float* in_n, int64_t y, const float* res_n, float* out_n) {
          NarrowRow(g, in_n, p->weights.data(), bias, y, res_n, out_n);
        });
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
    const int64_t chunks = (pixels + chunk - 1) / chunk;
    parallel_for(
        chunks, grain(chunk * g.c_in * g.c_out), [&](int64_t c0, int64_t c1) {
          for (int64_t ci = c0; ci < c1; ++ci) {
            const int64_t p0 = ci * chunk;
            const int64_t p1 = std::min(pixels, p0 + chunk);
            for (size_t k = 0; k < p->group_offset.size(); ++k) {
              const int64_t co0 = static_cast<int64_t>(k) * kMaxBlocks * kLanes;
              const int64_t valid =
                  std::min<int64_t>(kMaxBlocks * kLanes, g.c_out - co0);
              const float* wg = p->weights.data() + p->group_offset[k];
              const float* bg = bias == nullptr ? nullptr : bias + co0;
              PointwiseGroupAny(in, p0, p1, g.c_in, g.c_out, wg, bg, residual,
                                out, co0, valid, g.lo, g.hi);
            }
          }
        });
    return absl::OkStatus();
  }
  // Channel groups outermost: a group's packed weights stay in cache
  // while every pixel of the image passes by (the rows of a group are
  // what runs in parallel).
  for (size_t k = 0; k < p->group_offset.size(); ++k) {
    const int64_t co0 = static_cast<int64_t>(k) * kMaxBlocks * kLanes;
    const int64_t valid = std::min<int64_t>(kMaxBlocks * kLanes, g.c_out - co0);
    const float* wg = p->weights.data() + p->group_offset[k];
    const float* bg = bias == nullptr ? nullptr : bias + co0;
    each_output_row(
        out_w * valid * g.kh * g.kw * g.c_in,
        [&](const float* in_n, int64_t y, const float* res_n, float* out_n) {
          RegularRowAny(g, in_n, wg, bg, y, res_n, out_n, co0, valid);
        });
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
