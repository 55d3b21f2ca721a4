#include "ops/nn/direct/depthwise_rows.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace graphrt {
namespace nn {
namespace direct_kernel {
namespace {

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
    const float* irow = InputRow(g, in_n, iy) + c0;
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

// V: Vec, or Half for a channel tail of at most kHalfLanes (kHasHalfBlocks).
template <typename V, int R, int KW, int S, bool kFull, bool kPadded>
inline __attribute__((always_inline)) void DepthwiseTileFixedBody(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n, int64_t c0,
    int lanes, const PaddedColumns<R, KW, S>* cols) {
  using Ops = BlockOps<V>;
  constexpr int kCols = (R - 1) * S + KW;
  constexpr bool kMasked = kPadded && kHasColumnMask;
  V acc[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r] = V{};
  const int64_t cpad = (g.c_in + kLanes - 1) / kLanes * kLanes;
  const int64_t ix0 = x0 * S - g.pl;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t iy = y * g.sh - g.pt + i * g.dh;
    if (iy < 0 || iy >= g.h) continue;
    const float* row = InputRow(g, in_n, iy) + c0;
    const float* p = row + ix0 * g.c_in;
    int64_t step = g.c_in;
    // Without masked loads a padded window row is first copied to a small
    // buffer with zeros for the padding columns.
    V buf[kPadded && !kMasked ? kCols : 1];
    if constexpr (kPadded && !kMasked) {
      for (int t = 0; t < kCols; ++t) {
        buf[t] = !cols->inside[t] ? V{}
                 : kFull          ? Ops::Load(row + cols->offset[t])
                         : Ops::LoadPartial(row + cols->offset[t], lanes);
      }
      p = reinterpret_cast<const float*>(buf);
      step = Ops::kN;
    }
    V w[KW];
#pragma GCC unroll 8
    for (int j = 0; j < KW; ++j)
      w[j] = Ops::Load(wp + (i * KW + j) * cpad + c0);
#pragma GCC unroll 32
    for (int t = 0; t < kCols; ++t) {
      V v;
      if constexpr (kMasked) {
        v = Ops::MaskedLoad(row + cols->offset[t],
                            kFull ? cols->full[t] : cols->tail[t]);
      } else {
        v = kFull || kPadded ? Ops::Load(p) : Ops::LoadPartial(p, lanes);
        p += step;
      }
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const int j = t - r * S;
        if (j >= 0 && j < KW) acc[r] += w[j] * v;
      }
    }
  }
  const V bv = bias == nullptr ? V{}
               : kFull         ? Ops::Load(bias + c0)
                               : Ops::LoadPartial(bias + c0, lanes);
  const V lo = V{} + g.lo;
  const V hi = V{} + g.hi;
  // Offsets from locals (see DepthwisePairTileBody).
  const int64_t c_out = g.c_out;
  const int64_t off = (y * g.out_w + x0) * c_out + c0;
  float* o0 = out_n + off;
  const float* r0 = res_n == nullptr ? nullptr : res_n + off;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const int64_t at = r * c_out;
    FinishHoisted<kFull, V>(acc[r], bv, lo, hi,
                            r0 == nullptr ? nullptr : r0 + at, o0 + at, lanes);
  }
}

// Every channel block of the tile at x0 (full blocks, then the tail: on
// 256-bit registers when it holds at most kHalfLanes channels, e.g. the
// last 8 of 24, where a masked zmm block would spend a full 512-bit FMA
// per 8 lanes).
template <int R, int KW, int S, bool kPadded>
inline __attribute__((always_inline)) void DepthwiseAllBlocks(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n,
    const PaddedColumns<R, KW, S>* cols) {
  const int64_t full_end = g.c_in / kLanes * kLanes;
  for (int64_t c0 = 0; c0 < full_end; c0 += kLanes) {
    DepthwiseTileFixedBody<Vec, R, KW, S, true, kPadded>(
        g, in_n, wp, bias, y, x0, res_n, out_n, c0, kLanes, cols);
  }
  const int tail = static_cast<int>(g.c_in - full_end);
  if (tail == 0) return;
  if constexpr (kHasHalfBlocks) {
    if (tail == kHalfLanes) {
      return DepthwiseTileFixedBody<Half, R, KW, S, true, kPadded>(
          g, in_n, wp, bias, y, x0, res_n, out_n, full_end, tail, cols);
    }
    if (tail < kHalfLanes) {
      return DepthwiseTileFixedBody<Half, R, KW, S, false, kPadded>(
          g, in_n, wp, bias, y, x0, res_n, out_n, full_end, tail, cols);
    }
  }
  DepthwiseTileFixedBody<Vec, R, KW, S, false, kPadded>(
      g, in_n, wp, bias, y, x0, res_n, out_n, full_end, tail, cols);
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

// The columns of one output row (or row pair) in tiles: runs of interior
// tiles of kSpan pixels as one span(x0, x1) call (x1 - x0 a multiple of
// kSpan), other tiles of kTile pixels from the left, then 4, 2, 1, each as
// tile(r_tag, x, interior) (interior: the windows stay inside the input's
// width; otherwise the tile takes the padded path).
template <int kTile, int kSpan, typename Tile, typename Span>
inline void WalkRowTiles(const Geo& g, Tile tile, Span span) {
  int64_t begin, end;
  InteriorColumns(g, &begin, &end);
  int64_t x = 0;
  auto one = [&](auto r_tag) {
    constexpr int R = decltype(r_tag)::value;
    tile(r_tag, x, x >= begin && x + R <= end);
    x += R;
  };
  while (x + kTile <= g.out_w) {
    const int64_t run = x >= begin ? (end - x) / kSpan * kSpan : 0;
    if (run > 0) {
      span(x, x + run);
      x += run;
      continue;
    }
    one(std::integral_constant<int, kTile>());
  }
  if (x + 4 <= g.out_w) one(std::integral_constant<int, 4>());
  if (x + 2 <= g.out_w) one(std::integral_constant<int, 2>());
  if (x < g.out_w) one(std::integral_constant<int, 1>());
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
  // Interior runs of 3x3 layers go in tiles of 12 pixels: 12 independent
  // accumulators hide more of the FMA latency (4 cycles on Zen 3) and still
  // fit 16 vector registers with the 3 weights and the input column
  // (direct_conv_bench on the AVX2 VM, min of 6 interleaved runs: 64x64x24
  // 42 -> 38 us, 32x32x64 /2 9.7 -> 8.5, 112x112x144 /2 319 -> 298). 5x5
  // runs stay at 8 (12 accumulators and 5 weights would spill).
  constexpr int kDwTile = 8;
  constexpr int kSpanTile = KW == 3 ? 12 : kDwTile;
  WalkRowTiles<kDwTile, kSpanTile>(
      g,
      [&](auto r_tag, int64_t x, bool interior) {
        constexpr int R = decltype(r_tag)::value;
        if (interior) {
          DepthwiseTileFixed<R, KW, S, false>(g, in_n, wp, bias, y, x, res_n,
                                              out_n);
        } else {
          DepthwiseTileFixed<R, KW, S, true>(g, in_n, wp, bias, y, x, res_n,
                                             out_n);
        }
      },
      [&](int64_t x0, int64_t x1) {
        DepthwiseSpanFixed<kSpanTile, KW, S>(g, in_n, wp, bias, y, x0, x1,
                                             res_n, out_n);
      });
}

// Two output rows at once (stride 1, KH = KW, both rows' windows inside
// the input's height): rows y and y + 1 share KW - 1 of their KW + 1 input
// rows, so each input column is loaded once for both rows' windows (R * 2
// accumulators, two kernel rows of weights live). Each output's sum is the
// same FMAs in the same order as DepthwiseTileFixedBody's (kernel rows top
// to bottom, columns left to right), so pairing rows changes no bits.
// direct_conv_bench on the Zen 4 VM (peak 116 GFLOP/s): 128x128x16 3x3
// 65.8 -> 77.5 GFLOP/s, 56x56x192 56.5 -> 71.8 against one-row tiles.
// kPadded: the tile reaches into the left or right padding (masked loads,
// so only where kHasColumnMask).
template <typename V, int R, int KW, bool kFull, bool kPadded>
inline __attribute__((always_inline)) void DepthwisePairTileBody(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n, int64_t c0,
    int lanes, const PaddedColumns<R, KW, 1>* cols) {
  using Ops = BlockOps<V>;
  constexpr int kCols = R - 1 + KW;
  V a0[R], a1[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) a0[r] = a1[r] = V{};
  const int64_t cpad = (g.c_in + kLanes - 1) / kLanes * kLanes;
  const int64_t ix0 = x0 - g.pl;
#pragma GCC unroll 8
  for (int ii = 0; ii <= KW; ++ii) {
    const float* row = InputRow(g, in_n, y - g.pt + ii) + c0;
    const float* p = row + ix0 * g.c_in;
    V w0[KW], w1[KW];  // kernel row ii for row y, ii - 1 for row y + 1
#pragma GCC unroll 8
    for (int j = 0; j < KW; ++j) {
      if (ii < KW) w0[j] = Ops::Load(wp + (ii * KW + j) * cpad + c0);
      if (ii >= 1) w1[j] = Ops::Load(wp + ((ii - 1) * KW + j) * cpad + c0);
    }
#pragma GCC unroll 32
    for (int t = 0; t < kCols; ++t) {
      V v;
      if constexpr (kPadded) {
        v = Ops::MaskedLoad(row + cols->offset[t],
                            kFull ? cols->full[t] : cols->tail[t]);
      } else {
        v = kFull ? Ops::Load(p) : Ops::LoadPartial(p, lanes);
        p += g.c_in;
      }
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const int j = t - r;
        if (j >= 0 && j < KW) {
          if (ii < KW) a0[r] += w0[j] * v;
          if (ii >= 1) a1[r] += w1[j] * v;
        }
      }
    }
  }
  const V bv = bias == nullptr ? V{}
               : kFull         ? Ops::Load(bias + c0)
                               : Ops::LoadPartial(bias + c0, lanes);
  const V lo = V{} + g.lo;
  const V hi = V{} + g.hi;
  // Output offsets from locals: the vector stores may alias anything, so
  // GCC reloaded g's fields and redid the multiplies after each one
  // (direct_conv_bench, max of 8 alternating runs: 3x3 layers +2-7%).
  const int64_t c_out = g.c_out;
  const int64_t off = (y * g.out_w + x0) * c_out + c0;
  const int64_t row_step = g.out_w * c_out;
  float* o0 = out_n + off;
  const float* r0 = res_n == nullptr ? nullptr : res_n + off;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const int64_t at = r * c_out;
    FinishHoisted<kFull, V>(a0[r], bv, lo, hi,
                            r0 == nullptr ? nullptr : r0 + at, o0 + at, lanes);
    FinishHoisted<kFull, V>(a1[r], bv, lo, hi,
                            r0 == nullptr ? nullptr : r0 + at + row_step,
                            o0 + at + row_step, lanes);
  }
}

// Pair tile at x0, every channel block (full blocks, then the tail as in
// DepthwiseAllBlocks).
template <int R, int KW, bool kPadded>
inline __attribute__((always_inline)) void DepthwisePairAllBlocks(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n) {
  std::optional<PaddedColumns<R, KW, 1>> cols;
  if constexpr (kPadded) {
    cols.emplace(g, x0 - g.pl,
                 static_cast<int>(g.c_in - g.c_in / kLanes * kLanes));
  }
  const PaddedColumns<R, KW, 1>* c = kPadded ? &*cols : nullptr;
  const int64_t full_end = g.c_in / kLanes * kLanes;
  const int tail = static_cast<int>(g.c_in - full_end);
  for (int64_t c0 = 0; c0 < full_end; c0 += kLanes) {
    DepthwisePairTileBody<Vec, R, KW, true, kPadded>(
        g, in_n, wp, bias, y, x0, res_n, out_n, c0, kLanes, c);
  }
  if (tail == 0) return;
  if constexpr (kHasHalfBlocks) {
    if (tail == kHalfLanes) {
      return DepthwisePairTileBody<Half, R, KW, true, kPadded>(
          g, in_n, wp, bias, y, x0, res_n, out_n, full_end, tail, c);
    }
    if (tail < kHalfLanes) {
      return DepthwisePairTileBody<Half, R, KW, false, kPadded>(
          g, in_n, wp, bias, y, x0, res_n, out_n, full_end, tail, c);
    }
  }
  DepthwisePairTileBody<Vec, R, KW, false, kPadded>(
      g, in_n, wp, bias, y, x0, res_n, out_n, full_end, tail, c);
}

template <int R, int KW, bool kPadded>
__attribute__((noinline)) void DepthwisePairTile(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, const float* res_n, float* out_n) {
  DepthwisePairAllBlocks<R, KW, kPadded>(g, in_n, wp, bias, y, x0, res_n,
                                         out_n);
}

// The interior tiles [x0, x1) of rows y and y + 1 (x1 - x0 a multiple of
// R), one call.
template <int R, int KW>
__attribute__((noinline)) void DepthwisePairSpan(
    const Geo& g, const float* in_n, const float* wp, const float* bias,
    int64_t y, int64_t x0, int64_t x1, const float* res_n, float* out_n) {
  for (int64_t x = x0; x < x1; x += R) {
    DepthwisePairAllBlocks<R, KW, false>(g, in_n, wp, bias, y, x, res_n, out_n);
  }
}

// Rows y and y + 1 of a stride-1 layer whose windows for both rows stay
// inside the input's height, in pair tiles of 8 from the left (a tile that
// reaches into the padding takes the masked path), runs of interior ones
// in one call, then 4, 2, 1.
template <int KW>
void DepthwisePairFixed(const Geo& g, const float* in_n, const float* wp,
                        const float* bias, int64_t y, const float* res_n,
                        float* out_n) {
  constexpr int kPairTile = 8;
  WalkRowTiles<kPairTile, kPairTile>(
      g,
      [&](auto r_tag, int64_t x, bool interior) {
        constexpr int R = decltype(r_tag)::value;
        if (interior) {
          DepthwisePairTile<R, KW, false>(g, in_n, wp, bias, y, x, res_n,
                                          out_n);
        } else {
          DepthwisePairTile<R, KW, true>(g, in_n, wp, bias, y, x, res_n, out_n);
        }
      },
      [&](int64_t x0, int64_t x1) {
        DepthwisePairSpan<kPairTile, KW>(g, in_n, wp, bias, y, x0, x1, res_n,
                                         out_n);
      });
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

}  // namespace

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

void DepthwiseRows(const Geo& g, const float* in_n, const float* wp,
                   const float* bias, int64_t y0, int64_t y1,
                   const float* res_n, float* out_n) {
  // Pair tiles hold 2 x 8 accumulators and two kernel rows of weights: 32
  // vector registers (AVX-512) fit them, 16 (AVX2) do not.
  const bool pairs = kLanes == 16 && kHasColumnMask && g.sh == 1 && g.sw == 1 &&
                     g.dh == 1 && g.dw == 1 && g.kh == g.kw &&
                     (g.kw == 3 || g.kw == 5);
  int64_t y = y0;
  while (y < y1) {
    if (pairs && y + 1 < y1 && y - g.pt >= 0 && y + g.kh - g.pt < g.h) {
      if (g.kw == 3) {
        DepthwisePairFixed<3>(g, in_n, wp, bias, y, res_n, out_n);
      } else {
        DepthwisePairFixed<5>(g, in_n, wp, bias, y, res_n, out_n);
      }
      y += 2;
    } else {
      DepthwiseRow(g, in_n, wp, bias, y, res_n, out_n);
      ++y;
    }
  }
}

}  // namespace direct_kernel
}  // namespace nn
}  // namespace graphrt
