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
