// DirectConv (ops/nn/direct/direct_conv.h) against the naive reference:
// regular and depthwise geometries around its pixel tiles and channel blocks
// (padding on every side, strides, dilations, channel tails), the bias,
// the residual (also in place) and the clamp; the once-only decision of
// Adopt; and the errors for a geometry that does not match the filter.
// The kernels' use of it (and of GRAPHRT_DIRECT_CONV) is covered by
// fused_conv_test.cc and the corpus tests.
#include "ops/nn/direct/direct_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "oneapi/tbb/task_arena.h"
#include "runtime/parallel.h"
#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

using nn::DirectConv;
using nn::XnnConvSpec;

struct Case {
  XnnConvSpec s;
  int64_t n, h, w, oh, ow;
};

Case RandomCase(int iter, std::mt19937* rng) {
  std::uniform_int_distribution<int> small(1, 4);
  Case c;
  XnnConvSpec& s = c.s;
  s.depthwise = iter % 3 == 0;
  s.kh = small(*rng) % 3 * 2 + 1;  // 1, 3, 5
  s.kw = iter % 7 == 0 ? 2 : small(*rng) % 3 * 2 + 1;
  s.stride_h = small(*rng) % 2 + 1;
  s.stride_w = small(*rng) % 2 + 1;
  s.dilation_h = iter % 4 == 0 ? 2 : 1;
  s.dilation_w = iter % 5 == 0 ? 2 : 1;
  s.pad_top = small(*rng) - 1;
  s.pad_bottom = small(*rng) - 1;
  s.pad_left = small(*rng) - 1;
  s.pad_right = small(*rng) - 1;
  // Channel counts on both sides of the 16- and 32-lane blocks.
  static constexpr int kChannels[] = {1,  3,  15, 16, 17, 24,
                                      31, 32, 33, 40, 48, 64};
  s.in_channels = kChannels[iter % 12];
  s.out_channels = s.depthwise ? s.in_channels : kChannels[(iter * 5) % 12];
  if (iter % 4 == 1) s.out_min = 0.0f;
  if (iter % 8 == 1) s.out_max = 0.5f;
  c.n = iter % 5 == 0 ? 2 : 1;
  c.h = small(*rng) + 4;
  c.w = small(*rng) * 5 + 6;  // several 8-pixel tiles and a tail
  c.oh = OutSize(c.h, s.pad_top, s.pad_bottom, s.kh, s.dilation_h, s.stride_h);
  c.ow = OutSize(c.w, s.pad_left, s.pad_right, s.kw, s.dilation_w, s.stride_w);
  return c;
}

TEST(DirectConvTest, RandomGeometriesMatchReference) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 120; ++iter) {
    const Case c = RandomCase(iter, &rng);
    const XnnConvSpec& s = c.s;
    if (c.oh <= 0 || c.ow <= 0) continue;
    SCOPED_TRACE(::testing::Message()
                 << "iter " << iter << ": " << s.kh << "x" << s.kw << " "
                 << s.in_channels << "->" << s.out_channels
                 << (s.depthwise ? " depthwise" : "") << " stride "
                 << s.stride_h << "," << s.stride_w << " input " << c.h << "x"
                 << c.w);
    auto x = Random(c.n * c.h * c.w * s.in_channels, &rng);
    auto f = Random(s.depthwise ? s.kh * s.kw * s.in_channels
                                : s.kh * s.kw * s.in_channels * s.out_channels,
                    &rng);
    auto bias = Random(s.out_channels, &rng);
    const bool with_bias = iter % 2 == 0;
    DirectConv conv;
    ASSERT_TRUE(conv.Pack(s, ConvFilter(s, f)).ok());
    ASSERT_TRUE(conv.ready());
    const int64_t size = c.n * c.oh * c.ow * s.out_channels;
    // One spare element each side: nothing outside the output is written.
    std::vector<float> got(size + 2, -7.0f);
    ASSERT_TRUE(conv.Run(s, with_bias ? bias.data() : nullptr, nullptr,
                         x.data(), c.n, c.h, c.w, c.oh, c.ow, got.data() + 1)
                    .ok());
    EXPECT_EQ(got.front(), -7.0f);
    EXPECT_EQ(got.back(), -7.0f);
    ExpectNear(std::vector<float>(got.begin() + 1, got.end() - 1),
               Reference(s, x, f, with_bias ? &bias : nullptr, c.n, c.h, c.w,
                         c.oh, c.ow));
  }
}

// 1x1 / stride 1 / unpadded runs as one matrix product over every pixel
// of the batch (tiles cross image rows and images), in chunks of pixels
// (8 KB of input each: 24 pixels of 200 channels, 84 of 24): odd sizes,
// two images, channel counts off the 16-lane blocks, bias, residual and
// clamp.
TEST(DirectConvTest, PointwiseTilesCrossRowsAndImages) {
  std::mt19937 rng(5);
  for (const int64_t cin : {1, 7, 24, 64, 200}) {
    for (const int64_t cout : {5, 8, 16, 20, 24, 40, 56}) {
      for (const int64_t h : {3, 19}) {
        XnnConvSpec s;
        s.in_channels = cin;
        s.out_channels = cout;
        s.out_max = 0.75f;
        const int64_t n = 2, w = 5;
        auto x = Random(n * h * w * cin, &rng);
        auto f = Random(cin * cout, &rng);
        auto bias = Random(cout, &rng);
        auto residual = Random(n * h * w * cout, &rng);
        XnnConvSpec unclamped = s;
        unclamped.out_max = 1e30f;
        std::vector<float> want =
            Reference(unclamped, x, f, &bias, n, h, w, h, w);
        for (size_t i = 0; i < want.size(); ++i) {
          want[i] = std::min(want[i] + residual[i], 0.75f);
        }
        DirectConv conv;
        ASSERT_TRUE(conv.Pack(s, ConvFilter(s, f)).ok());
        std::vector<float> got(want.size() + 1, -7.0f);
        ASSERT_TRUE(conv.Run(s, bias.data(), residual.data(), x.data(), n, h, w,
                             h, w, got.data())
                        .ok());
        EXPECT_EQ(got.back(), -7.0f);
        got.pop_back();
        SCOPED_TRACE(::testing::Message() << cin << " -> " << cout << ", "
                                          << n * h * w << " pixels");
        ExpectNear(got, want);
      }
    }
  }
}

TEST(DirectConvTest, ResidualIsAddedBeforeTheClampAlsoInPlace) {
  XnnConvSpec s;
  s.kh = s.kw = 3;
  s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
  s.in_channels = 5;
  s.out_channels = 20;
  s.out_min = 0.0f;
  s.out_max = 6.0f;
  const int64_t h = 6, w = 11;
  std::mt19937 rng(3);
  auto x = Random(h * w * 5, &rng);
  auto f = Random(9 * 5 * 20, &rng);
  auto bias = Random(20, &rng);
  auto residual = Random(h * w * 20, &rng);
  for (float& r : residual) r *= 4.0f;
  XnnConvSpec unclamped = s;
  unclamped.out_min = -1e30f;
  unclamped.out_max = 1e30f;
  std::vector<float> want = Reference(unclamped, x, f, &bias, 1, h, w, h, w);
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = std::clamp(want[i] + residual[i], 0.0f, 6.0f);
  }
  DirectConv conv;
  ASSERT_TRUE(conv.Pack(s, ConvFilter(s, f)).ok());
  std::vector<float> out(want.size());
  ASSERT_TRUE(conv.Run(s, bias.data(), residual.data(), x.data(), 1, h, w, h, w,
                       out.data())
                  .ok());
  ExpectNear(out, want);
  // The addend's storage as the output (the executor forwards it).
  std::vector<float> in_place = residual;
  ASSERT_TRUE(conv.Run(s, bias.data(), in_place.data(), x.data(), 1, h, w, h, w,
                       in_place.data())
                  .ok());
  EXPECT_EQ(in_place, out);
}

// A k x k convolution (depthwise: in == out channels) on rows 75 pixels
// wide, with border tiles on both sides, the residual and the clamp,
// against the reference.
void CheckWideRows(bool depthwise, int k, int stride, int in_channels,
                   int out_channels, std::mt19937* rng, int64_t h = 7,
                   int64_t w = 75) {
  XnnConvSpec s;
  s.depthwise = depthwise;
  s.kh = s.kw = k;
  s.stride_h = s.stride_w = stride;
  s.pad_top = s.pad_left = k / 2;
  s.pad_bottom = s.pad_right = k / 2;
  s.in_channels = in_channels;
  s.out_channels = out_channels;
  s.out_min = -0.75f;
  s.out_max = 2.0f;
  const int64_t oh = OutSize(h, s.pad_top, s.pad_bottom, k, 1, stride);
  const int64_t ow = OutSize(w, s.pad_left, s.pad_right, k, 1, stride);
  SCOPED_TRACE(::testing::Message()
               << k << "x" << k << (depthwise ? " depthwise" : "") << " stride "
               << stride << " channels " << in_channels << "->" << out_channels
               << " image " << h << "x" << w);
  auto x = Random(h * w * in_channels, rng);
  auto f = Random(k * k * in_channels * (depthwise ? 1 : out_channels), rng);
  auto bias = Random(out_channels, rng);
  auto residual = Random(oh * ow * out_channels, rng);
  XnnConvSpec unclamped = s;
  unclamped.out_min = -1e30f;
  unclamped.out_max = 1e30f;
  std::vector<float> want = Reference(unclamped, x, f, &bias, 1, h, w, oh, ow);
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = std::clamp(want[i] + residual[i], -0.75f, 2.0f);
  }
  DirectConv conv;
  ASSERT_TRUE(conv.Pack(s, ConvFilter(s, f)).ok());
  std::vector<float> out(want.size() + 1, -7.0f);
  ASSERT_TRUE(conv.Run(s, bias.data(), residual.data(), x.data(), 1, h, w, oh,
                       ow, out.data())
                  .ok());
  EXPECT_EQ(out.back(), -7.0f);
  out.pop_back();
  ExpectNear(out, want);
}

// Depthwise rows wide enough for runs of interior 8-pixel tiles (one call
// per run), for each shape with a fixed kernel (3x3 / 5x5, stride 1 / 2).
// On AVX-512 the tails of 8, 24, 40 (all 8 lanes) and 5, 20 (fewer) run on
// 256-bit registers, 13's on a masked 512-bit block.
TEST(DirectConvTest, DepthwiseRunsOfInteriorTiles) {
  std::mt19937 rng(5);
  for (int k : {3, 5}) {
    for (int stride : {1, 2}) {
      for (int channels : {5, 8, 13, 20, 24, 40}) {
        CheckWideRows(/*depthwise=*/true, k, stride, channels, channels, &rng);
      }
    }
  }
}

// Stride-1 depthwise rows in pairs (AVX-512: two output rows per tile where
// both rows' windows stay inside the input): even and odd heights (a last
// row alone), widths with pair tiles of 8, 4, 2 and 1 pixels and padded
// ones at both edges, channel tails on half and masked blocks.
TEST(DirectConvTest, DepthwiseRowPairs) {
  std::mt19937 rng(8);
  for (int k : {3, 5}) {
    for (int64_t h : {6, 9}) {
      for (int64_t w : {3, 15, 31}) {
        for (int channels : {8, 13, 24, 40}) {
          CheckWideRows(/*depthwise=*/true, k, /*stride=*/1, channels, channels,
                        &rng, h, w);
        }
      }
    }
  }
}

// Regular layers (RGB stems and others) whose last channel group ends in a
// half block on AVX-512 (5, 8, 20, 24, 40), in 12-pixel tiles when a full
// block comes first, and ones that do not (13, 32).
TEST(DirectConvTest, RegularRowsEndingInHalfBlocks) {
  std::mt19937 rng(6);
  for (int k : {3, 5}) {
    for (int stride : {1, 2}) {
      for (int in_channels : {3, 16}) {
        for (int out_channels : {5, 8, 13, 20, 24, 32, 40}) {
          CheckWideRows(/*depthwise=*/false, k, stride, in_channels,
                        out_channels, &rng);
        }
      }
    }
  }
}

// Regular layers with at most 4 output channels (segmentation heads) run
// on the narrow rows, vectorized over input channels: tails of input
// channels, 1x1 to 5x5 windows, strides 1 and 2, padding, bias, residual
// and clamp.
TEST(DirectConvTest, NarrowOutputLayers) {
  std::mt19937 rng(10);
  for (int k : {1, 3, 5}) {
    for (int stride : {1, 2}) {
      for (int in_channels : {8, 20, 32, 33}) {
        for (int out_channels : {1, 2, 4}) {
          // Widths whose interior (8 channels, AVX-512: pixel pairs) ends
          // in tiles of 8, 4, 2 and 1 pairs and an odd pixel.
          for (int w : {23, 40, 3}) {
            CheckWideRows(/*depthwise=*/false, k, stride, in_channels,
                          out_channels, &rng, /*h=*/6, w);
          }
        }
      }
    }
  }
}

// Eight-channel 3x3 layers on AVX-512 read pixel pairs from the 64-byte
// boundaries and shift the others into place (narrow_rows.cc,
// LoadPixelPairs): the input at every 4-byte offset from a 64-byte
// boundary, so that rows start on, between and off the boundaries.
TEST(DirectConvTest, NarrowPairTilesAtEveryInputAlignment) {
  std::mt19937 rng(12);
  const int64_t h = 5, w = 37;
  const auto x = Random(h * w * 8, &rng);
  // Rows strided or dilated (the pairs run along a row only).
  for (int tall : {1, 2}) {
    for (int out_channels : {1, 2}) {
      XnnConvSpec s;
      s.kh = s.kw = 3;
      s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
      s.stride_h = s.dilation_h = tall;
      s.in_channels = 8;
      s.out_channels = out_channels;
      const int64_t oh = OutSize(h, 1, 1, 3, tall, tall);
      const auto f = Random(9 * 8 * out_channels, &rng);
      const auto bias = Random(out_channels, &rng);
      const std::vector<float> want = Reference(s, x, f, &bias, 1, h, w, oh, w);
      DirectConv conv;
      ASSERT_TRUE(conv.Pack(s, ConvFilter(s, f)).ok());
      std::vector<float> storage(x.size() + 32);
      float* base = reinterpret_cast<float*>(
          (reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~uintptr_t{63});
      for (int shift = 0; shift < 16; ++shift) {
        SCOPED_TRACE(::testing::Message()
                     << "8 -> " << out_channels << ", row stride and dilation "
                     << tall << ", input at +" << shift * 4 << " bytes");
        std::copy(x.begin(), x.end(), base + shift);
        std::vector<float> out(want.size());
        ASSERT_TRUE(conv.Run(s, bias.data(), nullptr, base + shift, 1, h, w, oh,
                             w, out.data())
                        .ok());
        ExpectNear(out, want);
      }
    }
  }
}

// Calls large enough to be split over threads (rows of a depthwise or
// regular layer, pixel chunks of a pointwise one) give the single-threaded
// call's bits, with the residual added in place (depthwise: the pieces
// pair their rows differently from the whole call).
TEST(DirectConvTest, SplitsLargeCallsOverThreadsWithTheSameBits) {
  std::mt19937 rng(9);
  struct Layer {
    bool depthwise;
    int k, in_c, out_c;
  };
  for (const Layer& l : {Layer{true, 3, 40, 40}, Layer{true, 5, 24, 24},
                         Layer{false, 3, 16, 40}, Layer{false, 1, 64, 72}}) {
    XnnConvSpec s;
    s.depthwise = l.depthwise;
    s.kh = s.kw = l.k;
    s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = l.k / 2;
    s.in_channels = l.in_c;
    s.out_channels = l.out_c;
    s.out_min = 0.0f;
    const int64_t n = 2, h = 61, w = 67;
    SCOPED_TRACE(::testing::Message()
                 << l.k << "x" << l.k << " " << l.in_c << "->" << l.out_c);
    auto x = Random(n * h * w * l.in_c, &rng);
    auto f = Random(l.k * l.k * l.in_c * (l.depthwise ? 1 : l.out_c), &rng);
    auto bias = Random(l.out_c, &rng);
    const auto residual = Random(n * h * w * l.out_c, &rng);
    DirectConv conv;
    ASSERT_TRUE(conv.Pack(s, ConvFilter(s, f)).ok());
    std::vector<float> one = residual;
    {
      ScopedSequential sequential;
      ASSERT_TRUE(conv.Run(s, bias.data(), one.data(), x.data(), n, h, w, h, w,
                           one.data())
                      .ok());
    }
    std::vector<float> four = residual;
    oneapi::tbb::task_arena arena(4);
    absl::Status st;
    ExecuteInArena(arena, [&] {
      st = conv.Run(s, bias.data(), four.data(), x.data(), n, h, w, h, w,
                    four.data());
    });
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(four, one);
    EXPECT_NE(one, residual);
  }
}

TEST(DirectConvTest, AdoptDecidesOnceAndTakesTheFilterOnce) {
  XnnConvSpec s;
  s.in_channels = 2;
  s.out_channels = 3;
  const std::vector<float> f = {1, 2, 3, 4, 5, 6};
  int taken = 0;
  auto take = [&]() -> absl::StatusOr<Tensor> {
    ++taken;
    return ConvFilter(s, f);
  };
  DirectConv declined;
  EXPECT_FALSE(*declined.Adopt(s, /*prefer=*/false, take));
  // The first decision stands, even if a later call would prefer it.
  EXPECT_FALSE(*declined.Adopt(s, /*prefer=*/true, take));
  EXPECT_FALSE(declined.ready());
  EXPECT_EQ(taken, 0);

  DirectConv chosen;
  std::vector<std::thread> callers;
  std::vector<int> results(4, -1);
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      auto r = chosen.Adopt(s, /*prefer=*/true, take);
      results[t] = r.ok() ? *r : -2;
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(results, std::vector<int>(4, 1));
  EXPECT_EQ(taken, 1);
  EXPECT_EQ(chosen.packed_bytes(),
            DirectConv::kBlockLanes * 2 * 4);  // one block
  const std::vector<float> x = {1, -1};
  std::vector<float> out(3);
  ASSERT_TRUE(
      chosen.Run(s, nullptr, nullptr, x.data(), 1, 1, 1, 1, 1, out.data())
          .ok());
  EXPECT_EQ(out, std::vector<float>({1 - 4, 2 - 5, 3 - 6}));
}

TEST(DirectConvTest, AdoptReportsAFilterThatCannotBeTaken) {
  XnnConvSpec s;
  s.in_channels = s.out_channels = 2;
  DirectConv conv;
  auto r = conv.Adopt(s, true, []() -> absl::StatusOr<Tensor> {
    return absl::InternalError("lost");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(conv.ready());
}

TEST(DirectConvTest, RejectsMismatchedGeometryAndBadFilters) {
  XnnConvSpec s;
  s.kh = s.kw = 3;
  s.in_channels = 4;
  s.out_channels = 8;
  DirectConv conv;
  std::vector<float> out(8, -7.0f);
  const std::vector<float> x(9 * 4, 1.0f);
  EXPECT_FALSE(
      conv.Run(s, nullptr, nullptr, x.data(), 1, 3, 3, 1, 1, out.data()).ok());
  // Wrong number of values, wrong dtype.
  EXPECT_FALSE(
      conv.Pack(s, T_<float>({3, 3, 4, 7}, std::vector<float>(252, 0.0f)))
          .ok());
  EXPECT_FALSE(
      conv.Pack(s, T_<int32_t>({3, 3, 4, 8}, std::vector<int32_t>(288, 0)))
          .ok());
  XnnConvSpec multiplier2 = s;
  multiplier2.depthwise = true;
  multiplier2.out_channels = 8;
  EXPECT_FALSE(DirectConv::Supports(multiplier2));
  EXPECT_FALSE(conv.Pack(multiplier2,
                         T_<float>({3, 3, 4, 2}, std::vector<float>(72, 0.0f)))
                   .ok());
  ASSERT_TRUE(
      conv.Pack(s, T_<float>({3, 3, 4, 8}, std::vector<float>(288, 0.5f)))
          .ok());
  XnnConvSpec other = s;
  other.in_channels = 5;
  auto st =
      conv.Run(other, nullptr, nullptr, x.data(), 1, 3, 3, 1, 1, out.data());
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_EQ(out, std::vector<float>(8, -7.0f));
  ASSERT_TRUE(
      conv.Run(s, nullptr, nullptr, x.data(), 1, 3, 3, 1, 1, out.data()).ok());
  EXPECT_EQ(out, std::vector<float>(8, 0.5f * 36));
}

TEST(DirectConvTest, PrefersSmallLayersAndPointwiseOnes) {
  XnnConvSpec s;
  s.kh = s.kw = 3;
  s.in_channels = 32;
  s.out_channels = 32;  // 9 * 32 * 32 = 9216 filter values
  EXPECT_TRUE(DirectConv::Prefers(s, 1, 32, 32));
  EXPECT_FALSE(DirectConv::Prefers(s, 1, 128, 128));  // many pixels
  s.out_channels = 160;  // 46k values: oneDNN's fixed cost is > half of it
  EXPECT_TRUE(DirectConv::Prefers(s, 1, 8, 8));
  s.out_channels = 192;  // 55k values
  EXPECT_FALSE(DirectConv::Prefers(s, 1, 8, 8));
  // Pointwise layers of up to 256 input channels: whatever their size on
  // AVX2 and below; on AVX-512 (16 lanes) beyond the small-layer pixel
  // bound only if their channels end in a half block (256-bit registers).
  XnnConvSpec pw;
  pw.in_channels = 24;
  pw.out_channels = 96;
  EXPECT_EQ(DirectConv::Prefers(pw, 1, 128, 128), DirectConv::kBlockLanes < 16);
  EXPECT_TRUE(DirectConv::Prefers(pw, 1, 64, 64));
  for (const int64_t half_tail : {24, 40, 56, 5}) {
    pw.out_channels = half_tail;
    EXPECT_TRUE(DirectConv::Prefers(pw, 1, 128, 128)) << half_tail;
  }
  pw.out_channels = 28;  // 16 + 12: a 12-lane tail needs a zmm block
  EXPECT_EQ(DirectConv::Prefers(pw, 1, 128, 128), DirectConv::kBlockLanes < 16);
  pw.in_channels = pw.out_channels = 256;
  EXPECT_TRUE(DirectConv::Prefers(pw, 1, 64, 64));
  pw.in_channels = 320;
  EXPECT_FALSE(DirectConv::Prefers(pw, 1, 64, 64));
  pw.in_channels = 24;
  pw.pad_top = 1;  // padded: a regular convolution again
  EXPECT_FALSE(DirectConv::Prefers(pw, 1, 128, 128));
  XnnConvSpec dw;
  dw.depthwise = true;
  dw.kh = dw.kw = 5;
  dw.in_channels = dw.out_channels = 512;
  EXPECT_TRUE(DirectConv::Prefers(dw, 1, 16, 16));
  dw.out_channels = 1024;  // multiplier 2
  EXPECT_FALSE(DirectConv::Prefers(dw, 1, 16, 16));
  // Large depthwise layers: stride 1 runs here on AVX-512 builds only;
  // stride 2 beyond the small-layer bound stays on oneDNN everywhere.
  dw.kh = dw.kw = 3;
  dw.in_channels = dw.out_channels = 24;
  EXPECT_EQ(DirectConv::Prefers(dw, 1, 128, 128),
            DirectConv::kBlockLanes == 16);
  dw.stride_h = dw.stride_w = 2;
  EXPECT_FALSE(DirectConv::Prefers(dw, 1, 128, 128));
  // Large RGB stems: here on AVX-512 when their channels end in a half
  // block (24 = 16 + 8), else on oneDNN (32).
  XnnConvSpec stem;
  stem.kh = stem.kw = 5;
  stem.stride_h = stem.stride_w = 2;
  stem.in_channels = 3;
  stem.out_channels = 24;
  EXPECT_EQ(DirectConv::Prefers(stem, 1, 128, 128),
            DirectConv::kBlockLanes == 16);
  stem.out_channels = 32;
  EXPECT_FALSE(DirectConv::Prefers(stem, 1, 128, 128));
}

}  // namespace
}  // namespace graphrt::testing
