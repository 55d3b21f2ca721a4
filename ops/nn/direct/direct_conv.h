// DirectConv: graphrt's own float32 NHWC 2-D convolution (regular, and
// depthwise with channel multiplier 1) for small layers, next to oneDNN
// (ops/nn/dnnl/dnnl_conv.h) and XNNPACK (ops/nn/xnnpack/xnn_conv.h).
//
// Why: oneDNN JIT-compiles a set of brgemm kernels for every convolution
// primitive; each costs ~90 KB of heap and ~1 ms at the first Run. For a
// model of 1 MB (age, gender, liveness: weights + activations 0.8-1.6 MB)
// that is the largest item of its memory (gender: 1.06 MB of oneDNN heap
// for 12 convolutions next to 1.2 MB of weights and activations), while
// each of its layers runs in microseconds either way. XNNPACK is no way
// out: its convolutions keep an indirection buffer of one pointer per
// output pixel and filter tap (0.8 MB on gender). This kernel keeps only
// its packed filter: no code generation, no indirection, no scratch.
//
// What it computes: out[n, y, x, o] = clamp(sum over (i, j, c) of
// in[n, y*sh - pt + i*dh, x*sw - pl + j*dw, c] * filter[i, j, c, o]
// + bias[o] + residual[n, y, x, o]); taps outside the input are 0. The bias
// is added after the whole dot product (as oneDNN does; see
// ops/nn/fused_conv.h for why). `residual` may be `out` itself: each
// element is read before it is written.
//
// How: the filter is packed once into blocks of kBlockLanes output
// channels, one vector register of the ISA the build targets (16 on
// AVX-512, 8 on AVX2, 4 below; GCC vector extensions): regular filters as
// [group][kh][kw][in][kBlockLanes * blocks] with up to 2 blocks per group,
// depthwise ones as [kh][kw][c rounded up to kBlockLanes]. Regular
// convolutions keep a tile of output pixels (8 on AVX-512, 6 with 16
// vector registers) x 2 blocks of accumulators in registers (a group of
// one block: twice the pixels) and walk the input directly (a window row
// of an undilated convolution is one contiguous run of kw * in values);
// taps in the padding read a row of zeros, so border pixels also go a tile
// at a time. Depthwise 3x3 / 5x5 (stride 1 or 2) load each input column of
// a window row once for all the pixels that use it, run every channel
// block of a tile in one call, and read border windows through masked
// loads (AVX2 / AVX-512; without them, from a zero-padded copy). On
// AVX-512 (with VL) a group's last block of at most 8 channels (24 = 16 +
// 8, 40 = 32 + 8, 5) runs on 256-bit registers in all three kinds: Zen 4
// executes a 512-bit FMA as two 256-bit halves, so a half-empty zmm block
// wastes half its FMAs.
//
// Threads: a call splits its output rows (depthwise, regular: per channel
// group) or its pixel chunks (pointwise) over the oneTBB arena
// (runtime/parallel.h ParallelFor), in pieces of at least 256k
// multiply-adds; smaller calls, and calls inside a ScopedSequential
// (threads = 1, a fused block's stripe), run on the calling thread. Each
// row or chunk is computed the same way wherever it runs, so results do
// not depend on the thread count.
//
// When (Prefers): a pointwise layer (1x1, stride 1, unpadded) of at most
// kMaxPointwiseInChannels input channels, whatever its size on AVX2 and
// below (a matrix product over chunks of pixels that fit L1: at least as
// fast as oneDNN's on the corpus's shapes), on AVX-512 within the
// small-layer pixel bound (oneDNN's is 0-16% faster beyond it) unless its
// channels end in a half block (out_channels % 32 in 1..8 or 17..24: that
// block runs on 256-bit registers, 23-34% faster than oneDNN); on AVX-512
// a depthwise layer of stride 1 at any size (10-37% faster than oneDNN on
// the corpus's large ones) and an RGB stem (at most 4 input channels)
// whose channels end in a half block; any other layer of at most
// kMaxOutputPixels output pixels whose filter has at most kMaxFilterFloats
// values (a depthwise layer with multiplier 1: whose input has at most
// 128k values; beyond, stride 2 is as fast or faster on oneDNN). The filter
// bound is where oneDNN's fixed ~90 KB per primitive stays under half of the
// filter's own bytes (the 1.5x memory budget); the pixel bound keeps
// the large layers of large models, where oneDNN's brgemm kernels are fastest,
// on oneDNN. bench/RESULTS.md ("Direct convolutions for small layers") has the
// per-model times and memory both ways, //bench:direct_conv_bench the
// per-layer speed of both.
//
// Lifecycle: one DirectConv per kernel, empty at load. The first Run that
// Prefers it packs the adopted filter (Adopt); every later Run of that
// node runs here, whatever its input shape (a node does not switch
// backends). Thread-safe: Adopt takes a mutex once; Run takes no lock.
//
// Switch: GRAPHRT_DIRECT_CONV=0 turns it off (oneDNN then runs every
// layer it takes), GRAPHRT_DIRECT_CONV=all sends every eligible layer here
// (for tests and benchmarks).
#ifndef GRAPHRT_OPS_NN_DIRECT_DIRECT_CONV_H_
#define GRAPHRT_OPS_NN_DIRECT_DIRECT_CONV_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/nn/xnnpack/xnn_conv.h"
#include "runtime/mutex.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace nn {

class DirectConv {
 public:
  // Output channels per packed block: one vector register of the ISA the
  // build targets (-march=native).
#if defined(__AVX512F__)
  static constexpr int kBlockLanes = 16;
#elif defined(__AVX2__)
  static constexpr int kBlockLanes = 8;
#else
  static constexpr int kBlockLanes = 4;
#endif
  // Filters of at most this many values (regular convolutions).
  static constexpr int64_t kMaxFilterFloats = 48 * 1024;
  // Calls of at most this many output pixels (n * out_h * out_w).
  static constexpr int64_t kMaxOutputPixels = 64 * 64;
  // Pointwise convolutions (1x1, stride 1, unpadded) of any pixel count
  // with at most this many input channels and filter values.
  static constexpr int64_t kMaxPointwiseInChannels = 256;
  static constexpr int64_t kMaxPointwiseFilterFloats = 256 * 256;

  DirectConv();
  ~DirectConv();
  DirectConv(const DirectConv&) = delete;
  DirectConv& operator=(const DirectConv&) = delete;

  // Whether the geometry can run here at all (depthwise: multiplier 1).
  static bool Supports(const XnnConvSpec& spec);
  // Whether this layer should run here rather than on oneDNN (see the
  // header comment), honouring GRAPHRT_DIRECT_CONV.
  static bool Prefers(const XnnConvSpec& spec, int64_t n, int64_t out_h,
                      int64_t out_w);

  // True once a filter is packed: every Run of the node then comes here.
  bool ready() const {
    return packed_.load(std::memory_order_acquire) != nullptr;
  }

  // Decides once, on the node's first Run: when `prefer` and no decision
  // was made yet, packs the filter `take_filter` returns (TF layout [kh,
  // kw, in, out], or [kh, kw, c, 1] for depthwise) for `spec`. Returns
  // whether the node runs here. Later calls return the first decision.
  absl::StatusOr<bool> Adopt(
      const XnnConvSpec& spec, bool prefer,
      const std::function<absl::StatusOr<Tensor>()>& take_filter) const;

  // Packs `filter` directly (tests, benchmarks); same as a preferred Adopt.
  absl::Status Pack(const XnnConvSpec& spec, const Tensor& filter);

  // Runs the packed convolution (ready() must hold). `spec` must have the
  // packed filter's kh, kw, channels and kind; strides, dilations, padding
  // and the clamp may differ per call. `bias` ([out_channels]) and
  // `residual` ([n, out_h, out_w, out_channels]) may be null. Fails
  // (nothing written) on a geometry that does not match the filter.
  absl::Status Run(const XnnConvSpec& spec, const float* bias,
                   const float* residual, const float* in, int64_t n, int64_t h,
                   int64_t w, int64_t out_h, int64_t out_w, float* out) const;

  // Run for one image of a depthwise filter whose input rows need not be
  // contiguous: row iy (0 <= iy < h) of w * channels values at rows[iy]
  // (_FusedDepthwiseBlock's ring of expanded rows, whose rows wrap around
  // its end). No residual. Fails like Run, and on a regular filter.
  absl::Status RunDepthwiseRows(const XnnConvSpec& spec, const float* bias,
                                const float* const* rows, int64_t h, int64_t w,
                                int64_t out_h, int64_t out_w, float* out) const;

  // Bytes of the packed filter (0 before Pack).
  int64_t packed_bytes() const;

 private:
  struct Packed;
  // Run; a depthwise call reads its input rows through `rows` when given
  // (then n is 1 and `in` unused).
  absl::Status RunWith(const XnnConvSpec& spec, const float* bias,
                       const float* residual, const float* in,
                       const float* const* rows, int64_t n, int64_t h,
                       int64_t w, int64_t out_h, int64_t out_w,
                       float* out) const;
  absl::Status PackLocked(const XnnConvSpec& spec, const Tensor& filter) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Adopt runs inside the const Run path, like DnnlConv's entry building.
  mutable Mutex mu_;  // serialises Adopt / Pack
  mutable bool decided_ ABSL_GUARDED_BY(mu_) = false;
  mutable std::unique_ptr<Packed> owned_ ABSL_GUARDED_BY(mu_);
  mutable std::atomic<const Packed*> packed_{nullptr};  // published once
};

}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DIRECT_DIRECT_CONV_H_
