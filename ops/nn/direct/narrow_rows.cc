#include "ops/nn/direct/narrow_rows.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace graphrt {
namespace nn {
namespace direct_kernel {
namespace {

// The lanes summed as a fixed tree (halves, then halves of those): the
// same value whichever tile a pixel is in, and log2(kLanes) dependent adds
// rather than kLanes (a sequential sum was most of a pixel's time).
typedef float Lanes8 __attribute__((vector_size(8 * sizeof(float))));
typedef float Lanes4 __attribute__((vector_size(4 * sizeof(float))));
template <typename V>
inline float SumLanes(const V& v) {
  constexpr int kN = sizeof(V) / sizeof(float);
  Lanes4 q;
  if constexpr (kN == 16) {
    const Lanes8 h =
        __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
        __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
    q = __builtin_shufflevector(h, h, 0, 1, 2, 3) +
        __builtin_shufflevector(h, h, 4, 5, 6, 7);
  } else if constexpr (kN == 8) {
    q = __builtin_shufflevector(v, v, 0, 1, 2, 3) +
        __builtin_shufflevector(v, v, 4, 5, 6, 7);
  } else {
    static_assert(kN == 4, "4, 8 or 16 lanes");
    q = v;
  }
  return (q[0] + q[2]) + (q[1] + q[3]);
}

// Floats of one kernel row of one output channel in the packed filter: the
// row's kw * c_in values (contiguous in the input too, for stride-1
// undilated windows), rounded up to whole vectors with zeros.
inline int64_t RowFloats(int64_t kw, int64_t c_in) {
  return (kw * c_in + kLanes - 1) / kLanes * kLanes;
}

// R output pixels (x0 .. x0 + R - 1 of row y), every output channel. Where
// the R windows lie inside the input's width and the layer has stride 1
// and no column dilation, each window row is one contiguous run of kw *
// c_in floats, summed kLanes at a time (the last block masked); elsewhere
// tap by tap, c_in at a time. A pixel's path depends on its position
// only, so its value does not depend on how rows are split over threads.
template <int R>
__attribute__((noinline)) void NarrowTile(const Geo& g, const float* in_n,
                                          const float* wp, const float* bias,
                                          int64_t y, int64_t x0,
                                          const float* res_n, float* out_n) {
  const int64_t row_floats = RowFloats(g.kw, g.c_in);
  const int64_t run = g.kw * g.c_in;
  const int64_t ix_first = x0 * g.sw - g.pl;
  const bool rows_whole = g.sw == 1 && g.dw == 1 && ix_first >= 0 &&
                          ix_first + (R - 1) + (g.kw - 1) < g.w;
  for (int64_t co = 0; co < g.c_out; ++co) {
    Vec acc[R];
    for (int r = 0; r < R; ++r) acc[r] = Vec{};
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t iy = y * g.sh - g.pt + i * g.dh;
      if (iy < 0 || iy >= g.h) continue;
      const float* row = in_n + iy * g.w * g.c_in;
      const float* wrow = wp + (co * g.kh + i) * row_floats;
      if (rows_whole) {
        const float* p = row + ix_first * g.c_in;
        int64_t c0 = 0;
        for (; c0 + kLanes <= run; c0 += kLanes) {
          const Vec wv = Load(wrow + c0);
          for (int r = 0; r < R; ++r) {
            acc[r] += wv * Load(p + r * g.c_in + c0);
          }
        }
        if (c0 < run) {
          const Vec wv = Load(wrow + c0);  // zero-padded
          const int lanes = static_cast<int>(run - c0);
          for (int r = 0; r < R; ++r) {
            acc[r] += wv * LoadPartial(p + r * g.c_in + c0, lanes);
          }
        }
        continue;
      }
      for (int64_t j = 0; j < g.kw; ++j) {
        const float* wt = wrow + j * g.c_in;
        const float* src[R];
        for (int r = 0; r < R; ++r) {
          const int64_t ix = ix_first + r * g.sw + j * g.dw;
          src[r] = ix >= 0 && ix < g.w ? row + ix * g.c_in : g.zeros;
        }
        for (int64_t c0 = 0; c0 < g.c_in; c0 += kLanes) {
          const int lanes =
              static_cast<int>(std::min<int64_t>(kLanes, g.c_in - c0));
          // Masked on both sides: the weights past this tap's c_in are the
          // next tap's.
          const Vec wv =
              lanes == kLanes ? Load(wt + c0) : LoadPartial(wt + c0, lanes);
          for (int r = 0; r < R; ++r) {
            acc[r] += wv * (lanes == kLanes ? Load(src[r] + c0)
                                            : LoadPartial(src[r] + c0, lanes));
          }
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      const int64_t off = (y * g.out_w + x0 + r) * g.c_out + co;
      float v = SumLanes(acc[r]);
      if (bias != nullptr) v += bias[co];
      if (res_n != nullptr) v += res_n[off];
      v = v < g.lo ? g.lo : v;
      v = v > g.hi ? g.hi : v;
      out_n[off] = v;
    }
  }
}

#if defined(__AVX512F__)
// Eight-channel layers on AVX-512 (BlazePose's 256x256 3x3 8 -> 1
// segmentation head): a window row of 3 taps is 24 floats, a vector and a
// half, so NarrowTile left a quarter of its lanes empty and summed 16 lanes
// per pixel. Here one vector holds two neighbouring pixels' 8 channels
// (pixels x + j and x + j + 1 at tap j are 16 contiguous floats), so one
// FMA with the tap's 8 weights in both halves serves two output pixels,
// every lane useful. A tile of P pairs keeps P accumulators; the 16
// half-vector sums of 8 pairs come out as one vector through three levels
// of shuffles and adds (SumPairs), with bias, residual and clamp on all
// 16 pixels at once where c_out is 1.
constexpr bool kHasPairTiles = true;
// GCC vector extensions rather than _mm512 intrinsics where they say the
// same: GCC 12's intrinsics warn (-Wmaybe-uninitialized, their undefined
// pass-through operand) once inlined into loops like these.
typedef float V16 __attribute__((vector_size(16 * sizeof(float))));
typedef float V16U
    __attribute__((vector_size(16 * sizeof(float)), aligned(4), __may_alias__));
inline V16 Load16(const float* p) { return *reinterpret_cast<const V16U*>(p); }
// 8 floats in both halves.
inline V16 Broadcast8(const float* p) {
  const Half h = LoadHalf(p);
  return __builtin_shufflevector(h, h, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5,
                                 6, 7);
}
// The high half of a, then the low half of b.
inline V16 Shift8(const V16& a, const V16& b) {
  return __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                 19, 20, 21, 22, 23);
}
inline V16 Join(const Half& lo, const Half& hi) {
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                 12, 13, 14, 15);
}

// The 16 sums of the 8 lanes of each half of acc[0..7], in pixel order
// (pixel 2k in the low half of acc[k], 2k + 1 in the high half). Each
// pixel's 8 lanes l0..l7 are summed as ((l0 + l4) + (l2 + l6)) + ((l1 + l5)
// + (l3 + l7)) whatever the tile.
inline V16 SumPairs(const V16 acc[8]) {
  // Level 1: quarters (0, 2) plus (1, 3) of each pair: 4 pixels with 4
  // partial sums per vector.
  V16 c[4];
  for (int k = 0; k < 4; ++k) {
    const V16 a = acc[2 * k], b = acc[2 * k + 1];
    c[k] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18,
                                   19, 24, 25, 26, 27) +
           __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22,
                                   23, 28, 29, 30, 31);
  }
  // Level 2: quarter L of d[k] holds pixel 8k + L (2 partials) and pixel
  // 8k + 4 + L (2 partials).
  V16 d[2];
  for (int k = 0; k < 2; ++k) {
    const V16 a = c[2 * k], b = c[2 * k + 1];
    d[k] = __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24,
                                   25, 12, 13, 28, 29) +
           __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26,
                                   27, 14, 15, 30, 31);
  }
  // Level 3: lane 4L + m holds pixel 4m + L; then in pixel order.
  const V16 s = __builtin_shufflevector(d[0], d[1], 0, 2, 16, 18, 4, 6, 20, 22,
                                        8, 10, 24, 26, 12, 14, 28, 30) +
                __builtin_shufflevector(d[0], d[1], 1, 3, 17, 19, 5, 7, 21, 23,
                                        9, 11, 25, 27, 13, 15, 29, 31);
  return __builtin_shufflevector(s, s, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14,
                                 3, 7, 11, 15);
}

// The 8 channels of pixels a and a + 1 of an input row (pixel 0 at `row`).
// kEdge: a tile that reaches into the padding: the pixels outside [0, w)
// are masked off (zeros; a masked-off lane is never read).
template <bool kEdge>
inline V16 PairAt(const float* row, int64_t a, int64_t w) {
  if constexpr (kEdge) {
    const __mmask16 m =
        static_cast<__mmask16>((a >= 0 && a < w ? 0x00FF : 0) |
                               (a + 1 >= 0 && a + 1 < w ? 0xFF00 : 0));
    return reinterpret_cast<V16>(_mm512_maskz_loadu_ps(m, row + a * 8));
  } else {
    return Load16(row + a * 8);
  }
}

// v[t] = PairAt(row, a + t), t = 0 .. 2P: what P pairs of 3-wide windows
// read. A 64-byte vector at a 32-byte offset straddles two cache lines (a
// split load costs two), and every other pixel is at one: inside the row
// the pairs at the 64-byte boundaries are loaded, the others taken from
// two neighbours with a lane shuffle.
template <int P, bool kEdge>
inline void LoadPixelPairs(const float* row, int64_t a, int64_t w, V16* v) {
  const float* p = row + a * 8;
  const uintptr_t offset = reinterpret_cast<uintptr_t>(p) & 63;
  if (!kEdge && offset == 0) {
    for (int m = 0; m <= P; ++m) v[2 * m] = Load16(p + 16 * m);
    for (int m = 0; m < P; ++m) v[2 * m + 1] = Shift8(v[2 * m], v[2 * m + 2]);
  } else if (!kEdge && offset == 32) {
    for (int m = 0; m < P; ++m) v[2 * m + 1] = Load16(p + 8 + 16 * m);
    for (int m = 1; m < P; ++m) v[2 * m] = Shift8(v[2 * m - 1], v[2 * m + 1]);
    const V16 first = v[1];
    const V16 last = v[2 * P - 1];
    v[0] = Join(LoadHalf(p),
                __builtin_shufflevector(first, first, 0, 1, 2, 3, 4, 5, 6, 7));
    v[2 * P] =
        Join(__builtin_shufflevector(last, last, 8, 9, 10, 11, 12, 13, 14, 15),
             LoadHalf(p + (2 * P + 1) * 8));
  } else {
    for (int t = 0; t <= 2 * P; ++t) v[t] = PairAt<kEdge>(row, a + t, w);
  }
}

// Output pixels x0 .. x0 + 2P - 1 of row y (stride 1, no column
// dilation, c_in == 8). KW: the window width if 3 (taps unrolled: a pair's
// vector at tap j + 2 is the next pair's at tap j, loaded once), else 0.
// kEdge: some window of the tile reaches into the left or right padding.
template <int P, int KW, bool kEdge>
__attribute__((noinline)) void NarrowPairTile(const Geo& g, const float* in_n,
                                              const float* wp,
                                              const float* bias, int64_t y,
                                              int64_t x0, const float* res_n,
                                              float* out_n) {
  const int64_t row_floats = RowFloats(g.kw, g.c_in);
  const int64_t ix0 = x0 - g.pl;
  for (int64_t co = 0; co < g.c_out; ++co) {
    V16 acc[8];
    for (int k = 0; k < 8; ++k) acc[k] = V16{};
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t iy = y * g.sh - g.pt + i * g.dh;
      if (iy < 0 || iy >= g.h) continue;
      const float* row = in_n + iy * g.w * 8;
      const float* wrow = wp + (co * g.kh + i) * row_floats;
      if constexpr (KW == 3) {
        V16 v[2 * P + 1];
        LoadPixelPairs<P, kEdge>(row, ix0, g.w, v);
        const V16 w0 = Broadcast8(wrow);
        const V16 w1 = Broadcast8(wrow + 8);
        const V16 w2 = Broadcast8(wrow + 16);
        for (int k = 0; k < P; ++k) {
          acc[k] += w0 * v[2 * k];
          acc[k] += w1 * v[2 * k + 1];
          acc[k] += w2 * v[2 * k + 2];
        }
      } else {
        for (int64_t j = 0; j < g.kw; ++j) {
          const V16 wv = Broadcast8(wrow + j * 8);
          for (int k = 0; k < P; ++k) {
            acc[k] += wv * PairAt<kEdge>(row, ix0 + 2 * k + j, g.w);
          }
        }
      }
    }
    V16 v = SumPairs(acc);
    if (bias != nullptr) v += bias[co];
    const int64_t off = (y * g.out_w + x0) * g.c_out + co;
    constexpr __mmask16 kMask = static_cast<__mmask16>((1u << (2 * P)) - 1);
    if (g.c_out == 1) {
      if (res_n != nullptr) {
        v += reinterpret_cast<V16>(_mm512_maskz_loadu_ps(kMask, res_n + off));
      }
      v = v < g.lo ? g.lo : v;
      v = v > g.hi ? g.hi : v;
      _mm512_mask_storeu_ps(out_n + off, kMask, reinterpret_cast<__m512>(v));
      continue;
    }
    for (int r = 0; r < 2 * P; ++r) {
      float s = v[r];
      if (res_n != nullptr) s += res_n[off + r * g.c_out];
      s = s < g.lo ? g.lo : s;
      s = s > g.hi ? g.hi : s;
      out_n[off + r * g.c_out] = s;
    }
  }
}

template <int P, int KW>
void PairTileOf(bool edge, const Geo& g, const float* in_n, const float* wp,
                const float* bias, int64_t y, int64_t x0, const float* res_n,
                float* out_n) {
  if (edge) {
    NarrowPairTile<P, KW, true>(g, in_n, wp, bias, y, x0, res_n, out_n);
  } else {
    NarrowPairTile<P, KW, false>(g, in_n, wp, bias, y, x0, res_n, out_n);
  }
}

template <int KW>
int64_t NarrowPairsOf(const Geo& g, const float* in_n, const float* wp,
                      const float* bias, int64_t y, const float* res_n,
                      float* out_n) {
  int64_t begin, end;
  InteriorColumns(g, &begin, &end);
  int64_t x = 0;
  while (x + 2 <= g.out_w) {
    const int64_t left = g.out_w - x;
    const int pairs = left >= 16 ? 8 : left >= 8 ? 4 : left >= 4 ? 2 : 1;
    const bool edge = x < begin || x + 2 * pairs > end;
    switch (pairs) {
      case 8:
        PairTileOf<8, KW>(edge, g, in_n, wp, bias, y, x, res_n, out_n);
        break;
      case 4:
        PairTileOf<4, KW>(edge, g, in_n, wp, bias, y, x, res_n, out_n);
        break;
      case 2:
        PairTileOf<2, KW>(edge, g, in_n, wp, bias, y, x, res_n, out_n);
        break;
      default:
        PairTileOf<1, KW>(edge, g, in_n, wp, bias, y, x, res_n, out_n);
    }
    x += 2 * pairs;
  }
  return x;
}

// Row y in tiles of 8, 4, 2 and 1 pairs; returns where the last odd pixel
// (if any) starts.
int64_t NarrowPairs(const Geo& g, const float* in_n, const float* wp,
                    const float* bias, int64_t y, const float* res_n,
                    float* out_n) {
  return g.kw == 3 ? NarrowPairsOf<3>(g, in_n, wp, bias, y, res_n, out_n)
                   : NarrowPairsOf<0>(g, in_n, wp, bias, y, res_n, out_n);
}
#else
constexpr bool kHasPairTiles = false;
int64_t NarrowPairs(const Geo&, const float*, const float*, const float*,
                    int64_t, const float*, float*) {
  return 0;
}
#endif

}  // namespace

bool UsesNarrowLayout(int64_t c_in, int64_t c_out) {
  return c_out <= kNarrowMaxOut && c_in >= kNarrowMinIn;
}

std::vector<float> PackNarrow(const float* filter, int64_t kh, int64_t kw,
                              int64_t c_in, int64_t c_out) {
  const int64_t row_floats = RowFloats(kw, c_in);
  std::vector<float> w(c_out * kh * row_floats, 0.0f);
  for (int64_t co = 0; co < c_out; ++co) {
    for (int64_t i = 0; i < kh; ++i) {
      for (int64_t k = 0; k < kw * c_in; ++k) {
        w[(co * kh + i) * row_floats + k] =
            filter[(i * kw * c_in + k) * c_out + co];
      }
    }
  }
  return w;
}

void NarrowRow(const Geo& g, const float* in_n, const float* wp,
               const float* bias, int64_t y, const float* res_n, float* out_n) {
  constexpr int kNarrowTile = 4;
  int64_t x = 0;
  if (kHasPairTiles && g.c_in == 8 && g.sw == 1 && g.dw == 1) {
    x = NarrowPairs(g, in_n, wp, bias, y, res_n, out_n);
  }
  for (; x + kNarrowTile <= g.out_w; x += kNarrowTile) {
    NarrowTile<kNarrowTile>(g, in_n, wp, bias, y, x, res_n, out_n);
  }
  for (; x < g.out_w; ++x) {
    NarrowTile<1>(g, in_n, wp, bias, y, x, res_n, out_n);
  }
}

}  // namespace direct_kernel
}  // namespace nn
}  // namespace graphrt
