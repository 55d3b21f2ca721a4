// DnnlConv: float32 NHWC 2-D convolution (regular and depthwise) on
// oneDNN's (libdnnl, Debian's 2.6) AVX-512 JIT kernels, for Conv2D /
// _FusedConv2D / DepthwiseConv2dNative / FusedDepthwiseConv2dNative.
//
// Why next to XnnConv: measured side by side on this machine (one thread,
// the shapes of the corpus models; bench/RESULTS.md "oneDNN vs XNNPACK"),
// oneDNN's brgemm convolutions take 0.79-0.93x XNNPACK's time for 1x1 and
// 3x3 convolutions and 0.44-0.89x for depthwise ones (5x5 depthwise: 0.44x).
// The bias is added after the whole dot product (XNNPACK starts the
// accumulator at the bias, see ops/nn/fused_conv.h), so regular
// convolutions get their bias and Relu / Relu6 fused too: the brgemm
// kernels' epilogue does so with the bias argument; oneDNN's other JIT
// kernels (jit_1x1:avx2, jit:avx2: what an AVX2 machine gets) start at the
// bias too, so there the bias is given as a binary-add post-op instead
// (after the residual sum, before the clamp). The fused-conv
// runner (ops/nn/fused_conv.h) tries DnnlConv first, then XnnConv, then the
// portable Eigen path.
//
// Lifecycle / ownership: one DnnlConv per kernel (created at load, empty;
// it may adopt the node's Const filter, see AdoptFilter).
// The first Run with a given (filter buffer, bias buffer, spec, input
// shape, residual or not) creates the primitive (oneDNN JIT-compiles its
// kernel) and reorders the filter once into the blocked layout the kernel
// wants; later Runs reuse both. Like XnnConv it holds references to the filter
// and bias tensors (the identity key) and declines (Run returns false) after
// kMaxDistinctKeys distinct keys, or when oneDNN offers only its reference
// (non-JIT) implementation for a geometry.
//
// Threading: every oneDNN call runs on the calling thread only: oneDNN is
// built on OpenMP here, so calls are bracketed by a guard that sets the
// calling thread's OpenMP thread count to 1 and restores it afterwards (no
// OpenMP team is ever started, nothing spins). Results therefore do not
// depend on graphrt's thread count. Run is thread-safe and, once a key's
// primitive exists, takes no lock: the entry table is append-only (an
// entry is published with a release store and never changes after), and
// each concurrent Run takes its own execution context (the oneDNN memory
// objects it points at the caller's buffers) from the entry's few atomic
// idle slots. The scratchpad is one buffer per thread (the largest any
// primitive on that thread needs). Only building a new key's primitive
// takes the mutex, so a second caller of the same model never waits on
// the first (bench/RESULTS.md, "Concurrent Run calls").
//
// Errors: a failed oneDNN call is an Internal status naming the call and
// the geometry. oneDNN's C API is used throughout: nothing throws.
//
// Switch: GRAPHRT_DNNL=0 turns oneDNN off (XNNPACK or the portable path
// then run every convolution).
#ifndef GRAPHRT_OPS_NN_DNNL_DNNL_CONV_H_
#define GRAPHRT_OPS_NN_DNNL_DNNL_CONV_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/nn/dnnl/dnnl_winograd.h"
#include "ops/nn/xnnpack/xnn_conv.h"
#include "runtime/mutex.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace nn {

// True unless GRAPHRT_DNNL=0 or oneDNN's CPU engine cannot be created.
// Thread-safe.
bool DnnlAvailable();

// True when oneDNN runs AVX-512 (avx512_core or later) kernels here: then
// brgemm takes every undilated regular convolution and depthwise
// multipliers above 1. On AVX2 machines oneDNN's JIT kernels cover fewer
// geometries (the rest are declined: XNNPACK runs them). Thread-safe.
bool DnnlHasAvx512();

class DnnlConv {
 public:
  static constexpr int kMaxDistinctKeys = 8;

  // `allow_winograd` false: never the Winograd kernels, even where
  // DnnlWinogradPays (benchmarks and tests compare the two).
  explicit DnnlConv(bool allow_winograd = true);
  ~DnnlConv();
  DnnlConv(const DnnlConv&) = delete;
  DnnlConv& operator=(const DnnlConv&) = delete;

  // Same contract as XnnConv::Run: out [n, out_h, out_w, out_channels] =
  // clamp(conv(in, filter) + bias + residual) with `spec`'s clamp (Relu /
  // Relu6 / none). `residual` (may be null) has the output's shape; it is
  // added in the kernel's epilogue (oneDNN's sum post-op, which
  // accumulates onto `out`: the residual is copied there first unless it
  // already is `out`), after the bias and before the clamp. Returns false,
  // without writing `out`, when oneDNN cannot take this call.
  absl::StatusOr<bool> Run(const XnnConvSpec& spec, const Tensor& filter,
                           const Tensor* bias, const float* residual,
                           const float* in, int64_t n, int64_t h, int64_t w,
                           int64_t out_h, int64_t out_w, float* out) const;

  // Filter adoption (Kernel::AdoptConstInputs, load time, before any Run):
  // takes over the node's Const filter (TF layout, float32). Runs then pass
  // its placeholder (IsReleasedConst) as `filter`. The first usable
  // primitive packs the filter and DnnlConv drops its TF-layout reference,
  // so the decoded weights are freed; primitives for other input shapes
  // are packed from the existing packed copy. AdoptedFilter() rebuilds the
  // TF layout (for the XNNPACK and portable paths when oneDNN declines a
  // geometry) and keeps it from then on.
  void AdoptFilter(Tensor filter);
  // The adopted filter in TF layout. Thread-safe.
  absl::StatusOr<Tensor> AdoptedFilter() const;
  // The same, handed over: DnnlConv keeps no TF-layout reference (for a
  // node that another backend runs from now on: ops/nn/direct/
  // direct_conv.h). Later Runs on oneDNN still work from a packed copy, if
  // one exists. Thread-safe.
  absl::StatusOr<Tensor> ReleaseAdoptedFilter() const;

  // Conv2DBackpropInput (the transposed convolution): dx [n, h, w,
  // in_channels] from dy [n, out_h, out_w, out_channels] and `filter` in
  // TF's [kh, kw, in, out] layout, for the forward convolution `spec`
  // (regular, no clamp) whose input is [n, h, w, in_channels]. Values
  // outside every window are 0. Returns false (nothing written) when oneDNN
  // declines.
  absl::StatusOr<bool> RunBackpropInput(const XnnConvSpec& spec,
                                        const Tensor& filter, const float* dy,
                                        int64_t n, int64_t h, int64_t w,
                                        int64_t out_h, int64_t out_w,
                                        float* dx) const;

 private:
  struct Entry;
  absl::StatusOr<bool> RunImpl(bool transposed, const XnnConvSpec& spec,
                               const Tensor& filter, const Tensor* bias,
                               const float* residual, const float* in,
                               int64_t n, int64_t h, int64_t w, int64_t out_h,
                               int64_t out_w, float* out) const;
  struct ExecContext;
  // The published entry for this key, or null. Lock-free.
  const Entry* FindEntry(const XnnConvSpec& spec, const Tensor& filter,
                         bool adopted, const Tensor* bias, bool residual,
                         bool transposed, int64_t n, int64_t h,
                         int64_t w) const;
  // A usable entry that packed the adopted filter, or null.
  const Entry* PackedAdoptedEntry() const;

  // Entries [0, num_entries_) are published and immutable (but for their
  // atomic idle slots); entries_[i] is written once, under mu_.
  mutable Mutex mu_;  // serialises building entries
  mutable std::atomic<Entry*> entries_[kMaxDistinctKeys] = {};
  mutable std::atomic<int> num_entries_{0};
  const bool allow_winograd_;
  bool adopted_ = false;  // set once, before any Run
  // The adopted filter in TF layout while no entry holds it packed.
  mutable Tensor adopted_filter_ ABSL_GUARDED_BY(mu_);
  Shape adopted_shape_;
};

}  // namespace nn
}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_DNNL_DNNL_CONV_H_
