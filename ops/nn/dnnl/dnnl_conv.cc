#include "ops/nn/dnnl/dnnl_conv.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "oneapi/dnnl/dnnl.h"
#include "ops/kernel.h"
#include "ops/nn/dnnl/dnnl_util.h"
#include "ops/nn/dnnl/dnnl_winograd.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace nn {

namespace {

using dnnl_util::AlignedBuffer;
using dnnl_util::AllocAligned;
using dnnl_util::Engine;
using dnnl_util::OmpSingleThread;
using dnnl_util::Reorder;
using dnnl_util::ThreadScratchpad;
using dnnl_util::ThreadStream;

std::string Geometry(const XnnConvSpec& s, int64_t n, int64_t h, int64_t w) {
  return absl::StrCat(s.kh, "x", s.kw, s.depthwise ? " depthwise" : "",
                      " convolution on [", n, ",", h, ",", w, ",",
                      s.in_channels, "] -> ", s.out_channels, " channels");
}

constexpr int64_t kMaxDim = int64_t{1} << 30;

}  // namespace

bool DnnlAvailable() {
  static const bool available = [] {
    const char* on = std::getenv("GRAPHRT_DNNL");
    if (on != nullptr && on[0] == '0') return false;
    OmpSingleThread single;
    return Engine() != nullptr;
  }();
  return available;
}

bool DnnlHasAvx512() {
  if (!DnnlAvailable()) return false;
  const int isa = static_cast<int>(dnnl_get_effective_cpu_isa());
  return (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
}

namespace {

// The filter's descriptor in TF's layout ([kh, kw, in, out]; depthwise
// [kh, kw, in, multiplier]), or with `format_any` the same dims with the
// layout left to the implementation.
dnnl_status_t FilterMd(const XnnConvSpec& s, bool transposed, bool format_any,
                       dnnl_memory_desc_t* md) {
  if (transposed) {
    // A deconvolution's weights are {OC = conv's in, IC = conv's out, kh,
    // kw}; TF's [kh, kw, in, out] is that with these strides.
    dnnl_dims_t wd = {s.in_channels, s.out_channels, s.kh, s.kw};
    if (format_any) {
      return dnnl_memory_desc_init_by_tag(md, 4, wd, dnnl_f32,
                                          dnnl_format_tag_any);
    }
    dnnl_dims_t strides = {s.out_channels, 1,
                           s.kw * s.in_channels * s.out_channels,
                           s.in_channels * s.out_channels};
    return dnnl_memory_desc_init_by_strides(md, 4, wd, dnnl_f32, strides);
  }
  if (s.depthwise) {
    const int64_t mult = s.out_channels / s.in_channels;
    dnnl_dims_t wd = {s.in_channels, mult, 1, s.kh, s.kw};
    return dnnl_memory_desc_init_by_tag(
        md, 5, wd, dnnl_f32, format_any ? dnnl_format_tag_any : dnnl_hwigo);
  }
  dnnl_dims_t wd = {s.out_channels, s.in_channels, s.kh, s.kw};
  return dnnl_memory_desc_init_by_tag(
      md, 4, wd, dnnl_f32, format_any ? dnnl_format_tag_any : dnnl_hwio);
}

}  // namespace

struct DnnlConv::ExecContext {
  // scratch: the thread's (ThreadScratchpad). Winograd entries' src and
  // dst are blocked copies in it.
  dnnl_memory_t src = nullptr, weights = nullptr, bias = nullptr, dst = nullptr,
                scratch = nullptr;
  ~ExecContext() {
    for (dnnl_memory_t m : {src, weights, bias, dst, scratch}) {
      if (m != nullptr) dnnl_memory_destroy(m);
    }
  }
};

struct DnnlConv::Entry {
  XnnConvSpec spec;
  int64_t n = 0, h = 0, w = 0;
  Tensor filter;  // keeps the keyed buffers alive (not for adopted filters)
  Tensor bias;
  bool adopted = false;  // packs the DnnlConv's adopted filter
  bool has_bias = false;
  // When the bias is a binary post-op's src1 rather than the primitive's
  // bias argument (Build): that argument's id; else 0.
  int bias_post_op_arg = 0;
  bool has_residual = false;
  bool transposed = false;  // RunBackpropInput: src dy, dst dx
  bool usable = false;      // false: oneDNN declined this key
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t primitive = nullptr;
  AlignedBuffer packed_weights;
  // The memory descriptors (~0.7 KB each) are the primitive's own (Md) or
  // remade (FilterMd): an Entry kept six, 0.6 MB on facemesh-attention's
  // 146 entries.
  size_t scratch_bytes = 0;
  // Idle execution contexts (null: empty slot). On their own cache line:
  // every Run writes it, while the fields above are only read.
  static constexpr int kIdleSlots = 4;
  struct alignas(64) IdleSlots {
    std::atomic<ExecContext*> slot[kIdleSlots] = {};
  };
  mutable IdleSlots idle;

  // Set when the primitive is oneDNN's Winograd convolution (Build, when
  // DnnlWinogradPays): it runs on the blocked layout nChw16c, so Run copies
  // the NHWC input in (and a residual into dst) and the output back out
  // (ToBlocked16 / FromBlocked16, no oneDNN reorder: those allocate per
  // call), through the thread's scratchpad: [primitive scratch | src | dst].
  struct Winograd {
    size_t src_bytes = 0, dst_bytes = 0;
    // The clamp oneDNN's Winograd kernels cannot fuse (all but Relu),
    // applied to the NHWC output; infinite when none.
    float out_min = -std::numeric_limits<float>::infinity();
    float out_max = std::numeric_limits<float>::infinity();
  };
  std::unique_ptr<Winograd> winograd;

  // The primitive's descriptor of `what` (src, weights, dst, scratchpad;
  // weights index 1: the bias), or null.
  const dnnl_memory_desc_t* Md(dnnl_query_t what, int index = 0) const {
    const_dnnl_primitive_desc_t own = nullptr;
    if (primitive == nullptr ||
        dnnl_primitive_get_primitive_desc(primitive, &own) != dnnl_success) {
      return nullptr;
    }
    return dnnl_primitive_desc_query_md(own, what, index);
  }

  ~Entry() {
    for (auto& s : idle.slot) delete s.load(std::memory_order_acquire);
    if (primitive != nullptr) dnnl_primitive_destroy(primitive);
    if (pd != nullptr) dnnl_primitive_desc_destroy(pd);
  }

  bool Matches(const XnnConvSpec& s, const Tensor& f, bool f_adopted,
               const Tensor* b, bool residual, bool t, int64_t nn, int64_t hh,
               int64_t ww) const {
    if (!(spec == s) || n != nn || h != hh || w != ww ||
        residual != has_residual || t != transposed || f_adopted != adopted ||
        (!adopted && (f.buffer() != filter.buffer() ||
                      f.raw_data() != filter.raw_data())) ||
        (b != nullptr) != has_bias) {
      return false;
    }
    return b == nullptr ||
           (b->buffer() == bias.buffer() && b->raw_data() == bias.raw_data());
  }

  // Creates the primitive and the packed weights, reordered from
  // `weights` (in layout `weights_layout`, or TF's layout when null): the
  // Winograd kernels when `allow_winograd` and DnnlWinogradPays, else the
  // direct ones. Ok with usable == false when oneDNN has no JIT
  // implementation for this geometry.
  absl::Status Build(bool allow_winograd, int64_t out_h, int64_t out_w,
                     const void* weights,
                     const dnnl_memory_desc_t* weights_layout);
  absl::StatusOr<std::unique_ptr<ExecContext>> NewContext() const;
  // Sets `winograd` up for `pd` (a Winograd primitive descriptor) when
  // its src and dst are plain nChw16c (what ToBlocked16 writes); else
  // leaves it null.
  void SetUpWinograd(int64_t out_h, int64_t out_w);

  // An idle context, or null when every slot is empty.
  std::unique_ptr<ExecContext> TakeIdle() const {
    for (auto& s : idle.slot) {
      if (s.load(std::memory_order_relaxed) == nullptr) continue;
      if (ExecContext* c = s.exchange(nullptr, std::memory_order_acq_rel)) {
        return std::unique_ptr<ExecContext>(c);
      }
    }
    return nullptr;
  }
  // Parks `c` in an empty slot (destroys it when all are taken: more
  // concurrent callers than slots).
  void PutIdle(std::unique_ptr<ExecContext> c) const {
    for (auto& s : idle.slot) {
      ExecContext* expected = nullptr;
      if (s.compare_exchange_strong(expected, c.get(),
                                    std::memory_order_acq_rel)) {
        c.release();
        return;
      }
    }
  }
};

absl::Status DnnlConv::Entry::Build(bool allow_winograd, int64_t out_h,
                                    int64_t out_w, const void* weights,
                                    const dnnl_memory_desc_t* weights_layout) {
  const XnnConvSpec& s = spec;
  const std::string where = Geometry(s, n, h, w);
  auto fail = [&](const char* call, dnnl_status_t st) {
    return absl::InternalError(
        absl::StrCat(call, " failed (status ", st, ") for a ", where));
  };
  dnnl_dims_t src_dims = {n, s.in_channels, h, w};
  dnnl_dims_t dst_dims = {n, s.out_channels, out_h, out_w};
  if (transposed) {  // dy [n, out, oh, ow] -> dx [n, in, h, w]
    std::swap(src_dims, dst_dims);
  }
  dnnl_dims_t bias_dims = {s.out_channels};
  dnnl_memory_desc_t src_md, dst_md, bias_md, user_md, any_weights_md;
  dnnl_status_t st = FilterMd(s, transposed, /*format_any=*/false, &user_md);
  if (st == dnnl_success) {
    st = FilterMd(s, transposed, /*format_any=*/true, &any_weights_md);
  }
  if (st == dnnl_success) {
    st =
        dnnl_memory_desc_init_by_tag(&src_md, 4, src_dims, dnnl_f32, dnnl_nhwc);
  }
  if (st == dnnl_success) {
    st =
        dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_dims, dnnl_f32, dnnl_nhwc);
  }
  if (st == dnnl_success) {
    st = dnnl_memory_desc_init_by_tag(&bias_md, 1, bias_dims, dnnl_f32, dnnl_x);
  }
  if (st != dnnl_success) return fail("dnnl_memory_desc_init_by_tag", st);

  // The bias as a binary post-op's src1: one value per output channel.
  dnnl_dims_t bias_post_dims = {1, s.out_channels, 1, 1};
  dnnl_memory_desc_t bias_post_md;
  st = dnnl_memory_desc_init_by_tag(&bias_post_md, 4, bias_post_dims, dnnl_f32,
                                    dnnl_nhwc);
  if (st != dnnl_success) return fail("dnnl_memory_desc_init_by_tag", st);

  dnnl_dims_t strides = {s.stride_h, s.stride_w};
  dnnl_dims_t dilates = {s.dilation_h - 1, s.dilation_w - 1};
  dnnl_dims_t pad_l = {s.pad_top, s.pad_left};
  dnnl_dims_t pad_r = {s.pad_bottom, s.pad_right};
  const bool lo = std::isfinite(s.out_min), hi = std::isfinite(s.out_max);
  const bool relu = lo && !hi && s.out_min == 0.0f;
  // Layout left to the implementation (Winograd's blocked one).
  dnnl_memory_desc_t src_any_md, dst_any_md;
  st = dnnl_memory_desc_init_by_tag(&src_any_md, 4, src_dims, dnnl_f32,
                                    dnnl_format_tag_any);
  if (st == dnnl_success) {
    st = dnnl_memory_desc_init_by_tag(&dst_any_md, 4, dst_dims, dnnl_f32,
                                      dnnl_format_tag_any);
  }
  if (st != dnnl_success) return fail("dnnl_memory_desc_init_by_tag", st);
  // Makes `pd` (null when oneDNN has no implementation); the bias goes to
  // the primitive's bias argument, or to a binary-add post-op after the
  // residual sum and before the clamp when `bias_post_op`. With `wino`,
  // oneDNN's Winograd algorithm on the layouts it picks, fusing only a Relu
  // clamp (the only one its kernels take; Run applies others).
  auto create_pd = [&](bool bias_post_op, bool wino) -> dnnl_status_t {
    dnnl_convolution_desc_t conv_desc;
    dnnl_deconvolution_desc_t deconv_desc;
    dnnl_status_t st;
    if (wino) {
      st = dnnl_dilated_convolution_forward_desc_init(
          &conv_desc, dnnl_forward_inference, dnnl_convolution_winograd,
          &src_any_md, &any_weights_md, has_bias ? &bias_md : nullptr,
          &dst_any_md, strides, dilates, pad_l, pad_r);
    } else if (transposed) {
      st = dnnl_dilated_deconvolution_forward_desc_init(
          &deconv_desc, dnnl_forward_inference, dnnl_deconvolution_direct,
          &src_md, &any_weights_md, nullptr, &dst_md, strides, dilates, pad_l,
          pad_r);
    } else {
      st = dnnl_dilated_convolution_forward_desc_init(
          &conv_desc, dnnl_forward_inference, dnnl_convolution_direct, &src_md,
          &any_weights_md, has_bias && !bias_post_op ? &bias_md : nullptr,
          &dst_md, strides, dilates, pad_l, pad_r);
    }
    if (st != dnnl_success) return dnnl_success;  // geometry not taken
    const_dnnl_op_desc_t desc =
        transposed ? static_cast<const_dnnl_op_desc_t>(&deconv_desc)
                   : static_cast<const_dnnl_op_desc_t>(&conv_desc);
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_post_ops_t post_ops = nullptr;
    if ((st = dnnl_primitive_attr_create(&attr)) != dnnl_success) return st;
    st = dnnl_primitive_attr_set_scratchpad_mode(attr,
                                                 dnnl_scratchpad_mode_user);
    const bool clamp = wino ? relu : lo || hi;
    if (st == dnnl_success && (clamp || has_residual || bias_post_op)) {
      st = dnnl_post_ops_create(&post_ops);
      // + dst's previous contents (the residual, copied there before the
      // call unless it already is dst), + the bias when it is a post-op,
      // then the clamp. The sum goes first: oneDNN's AVX2 kernels take it
      // only there. (conv + residual) + bias and (conv + bias) + residual
      // differ by one rounding at most.
      if (st == dnnl_success && has_residual) {
        st = dnnl_post_ops_append_sum(post_ops, 1.0f);
      }
      if (st == dnnl_success && bias_post_op) {
        st = dnnl_post_ops_append_binary(post_ops, dnnl_binary_add,
                                         &bias_post_md);
      }
      if (st == dnnl_success && clamp) {
        if (relu) {
          st = dnnl_post_ops_append_eltwise(post_ops, 1.0f, dnnl_eltwise_relu,
                                            0.0f, 0.0f);
        } else {
          st = dnnl_post_ops_append_eltwise(
              post_ops, 1.0f, dnnl_eltwise_clip,
              lo ? s.out_min : -std::numeric_limits<float>::max(),
              hi ? s.out_max : std::numeric_limits<float>::max());
        }
      }
      if (st == dnnl_success)
        st = dnnl_primitive_attr_set_post_ops(attr, post_ops);
    }
    if (st == dnnl_success) {
      const dnnl_status_t pd_st =
          dnnl_primitive_desc_create(&pd, desc, attr, Engine(), nullptr);
      if (pd_st != dnnl_success) pd = nullptr;
    }
    if (post_ops != nullptr) dnnl_post_ops_destroy(post_ops);
    dnnl_primitive_attr_destroy(attr);
    return st;
  };
  auto impl_name = [&]() -> absl::string_view {
    const char* impl = nullptr;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    return impl == nullptr ? absl::string_view() : absl::string_view(impl);
  };
  if (allow_winograd && !transposed && DnnlWinogradPays(s, n, out_h, out_w)) {
    if ((st = create_pd(false, /*wino=*/true)) != dnnl_success) {
      return fail("dnnl primitive attributes", st);
    }
    // On other layouts than nChw16c (not expected), the direct path.
    if (pd != nullptr && absl::StrContains(impl_name(), "wino")) {
      SetUpWinograd(out_h, out_w);
    }
    if (winograd != nullptr && !relu) {
      winograd->out_min = s.out_min;
      winograd->out_max = s.out_max;
    }
    if (pd != nullptr && winograd == nullptr) {
      dnnl_primitive_desc_destroy(pd);
      pd = nullptr;
    }
  }
  if (winograd == nullptr &&
      (st = create_pd(false, /*wino=*/false)) != dnnl_success) {
    return fail("dnnl primitive attributes", st);
  }
  if (pd == nullptr) return absl::OkStatus();  // no implementation
  // Only brgemm kernels add the bias argument after the whole dot product;
  // the other JIT kernels of a regular convolution (jit_1x1:avx2, jit:avx2
  // on AVX2 machines) start their accumulators at the bias, which rounds
  // every partial sum at a large folded bias's magnitude (fused_conv.h).
  // There the bias becomes a post-op, applied after the dot product.
  // Depthwise sums are short enough not to matter.
  if (has_bias && !transposed && !s.depthwise && winograd == nullptr &&
      !absl::StartsWith(impl_name(), "brg")) {
    dnnl_primitive_desc_destroy(pd);
    pd = nullptr;
    if ((st = create_pd(true, /*wino=*/false)) != dnnl_success) {
      return fail("dnnl primitive attributes", st);
    }
    if (pd == nullptr) return absl::OkStatus();  // no implementation
    bias_post_op_arg =
        DNNL_ARG_ATTR_MULTIPLE_POST_OP(has_residual ? 1 : 0) | DNNL_ARG_SRC_1;
  }
  const absl::string_view impl = impl_name();
  // Only the JIT kernels are worth taking over XNNPACK: brgconv*
  // (brgemm), brdgmm_dw (batch-reduce depthwise), jit:*. Not ref:* (plain
  // loops) nor gemm:* (im2col + sgemm).
  if (!(absl::StartsWith(impl, "brg") || absl::StartsWith(impl, "brdgmm") ||
        absl::StartsWith(impl, "jit"))) {
    return absl::OkStatus();
  }
  scratch_bytes = dnnl_memory_desc_get_size(
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
  if ((st = dnnl_primitive_create(&primitive, pd)) != dnnl_success) {
    primitive = nullptr;
    return fail("dnnl_primitive_create", st);
  }
  // The primitive keeps its own copy of the descriptor.
  dnnl_primitive_desc_destroy(pd);
  pd = nullptr;

  // Reorder the filter (TF layout) into the kernel's blocked layout once.
  const dnnl_memory_desc_t* weights_md = Md(dnnl_query_weights_md);
  if (weights_md == nullptr) {
    return absl::InternalError(
        absl::StrCat("oneDNN gave no weights descriptor for a ", where));
  }
  const size_t packed_bytes = dnnl_memory_desc_get_size(weights_md);
  packed_weights = AllocAligned(packed_bytes);
  if (packed_weights == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", packed_bytes,
                     " bytes of packed weights for a ", where));
  }
  // oneDNN's Winograd weights reorder starts from a plain layout only: a
  // blocked source (another entry's packed copy) goes through TF's first.
  AlignedBuffer plain;
  if (winograd != nullptr && weights_layout != nullptr) {
    plain = AllocAligned(dnnl_memory_desc_get_size(&user_md));
    if (plain == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate the filter of a ", where));
    }
    st = Reorder(*weights_layout, weights, user_md, plain.get());
    if (st != dnnl_success) return fail("oneDNN weight reorder", st);
    weights = plain.get();
    weights_layout = nullptr;
  }
  st = Reorder(weights_layout != nullptr ? *weights_layout : user_md, weights,
               *weights_md, packed_weights.get());
  if (st != dnnl_success) return fail("oneDNN weight reorder", st);
  usable = true;
  return absl::OkStatus();
}

void DnnlConv::Entry::SetUpWinograd(int64_t out_h, int64_t out_w) {
  auto blocked = [](int64_t n, int64_t c, int64_t h, int64_t w,
                    const dnnl_memory_desc_t* got) {
    dnnl_dims_t dims = {n, c, h, w};
    dnnl_memory_desc_t want;
    return got != nullptr &&
           dnnl_memory_desc_init_by_tag(&want, 4, dims, dnnl_f32,
                                        dnnl_nChw16c) == dnnl_success &&
           dnnl_memory_desc_equal(&want, got) == 1;
  };
  const dnnl_memory_desc_t* src_md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t* dst_md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  if (!blocked(n, spec.in_channels, h, w, src_md) ||
      !blocked(n, spec.out_channels, out_h, out_w, dst_md)) {
    return;
  }
  winograd = std::make_unique<Winograd>();
  winograd->src_bytes = dnnl_memory_desc_get_size(src_md);
  winograd->dst_bytes = dnnl_memory_desc_get_size(dst_md);
}

absl::StatusOr<std::unique_ptr<DnnlConv::ExecContext>>
DnnlConv::Entry::NewContext() const {
  auto c = std::make_unique<ExecContext>();
  const dnnl_memory_desc_t* src_md = Md(dnnl_query_src_md);
  const dnnl_memory_desc_t* dst_md = Md(dnnl_query_dst_md);
  const dnnl_memory_desc_t* weights_md = Md(dnnl_query_weights_md);
  const dnnl_memory_desc_t* scratch_md = Md(dnnl_query_scratchpad_md);
  dnnl_status_t st = src_md != nullptr && dst_md != nullptr &&
                             weights_md != nullptr && scratch_md != nullptr
                         ? dnnl_success
                         : dnnl_runtime_error;
  if (st == dnnl_success) {
    st = dnnl_memory_create(&c->src, src_md, Engine(), DNNL_MEMORY_NONE);
  }
  if (st == dnnl_success) {
    st = dnnl_memory_create(&c->dst, dst_md, Engine(), DNNL_MEMORY_NONE);
  }
  if (st == dnnl_success) {
    st = dnnl_memory_create(&c->weights, weights_md, Engine(),
                            packed_weights.get());
  }
  if (st == dnnl_success && has_bias) {
    const dnnl_memory_desc_t* bias_md =
        bias_post_op_arg != 0 ? Md(dnnl_query_exec_arg_md, bias_post_op_arg)
                              : Md(dnnl_query_weights_md, 1);
    st = bias_md == nullptr
             ? dnnl_runtime_error
             : dnnl_memory_create(&c->bias, bias_md, Engine(),
                                  const_cast<void*>(bias.raw_data()));
  }
  if (st == dnnl_success && scratch_bytes > 0) {
    st =
        dnnl_memory_create(&c->scratch, scratch_md, Engine(), DNNL_MEMORY_NONE);
  }
  if (st != dnnl_success) {
    return absl::InternalError(
        absl::StrCat("dnnl_memory_create failed (status ", st, ") for a ",
                     Geometry(spec, n, h, w)));
  }
  return c;
}

DnnlConv::DnnlConv(bool allow_winograd) : allow_winograd_(allow_winograd) {}
DnnlConv::~DnnlConv() {
  for (auto& e : entries_) delete e.load(std::memory_order_acquire);
}

const DnnlConv::Entry* DnnlConv::FindEntry(const XnnConvSpec& spec,
                                           const Tensor& filter, bool adopted,
                                           const Tensor* bias, bool residual,
                                           bool transposed, int64_t n,
                                           int64_t h, int64_t w) const {
  const int count = num_entries_.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    const Entry* e = entries_[i].load(std::memory_order_acquire);
    if (e->Matches(spec, filter, adopted, bias, residual, transposed, n, h,
                   w)) {
      return e;
    }
  }
  return nullptr;
}

const DnnlConv::Entry* DnnlConv::PackedAdoptedEntry() const {
  const Entry* packed = nullptr;
  const int count = num_entries_.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    const Entry* e = entries_[i].load(std::memory_order_acquire);
    // Winograd weights have no reorder back to another layout.
    if (e->adopted && e->usable && e->winograd == nullptr) packed = e;
  }
  return packed;
}

void DnnlConv::AdoptFilter(Tensor filter) {
  MutexLock lock(&mu_);
  adopted_ = true;
  adopted_filter_ = std::move(filter);
  adopted_shape_ = adopted_filter_.shape();
}

absl::StatusOr<Tensor> DnnlConv::AdoptedFilter() const {
  MutexLock lock(&mu_);
  if (!adopted_) {
    return absl::InternalError("oneDNN convolution has no adopted filter");
  }
  if (adopted_filter_.valid()) return adopted_filter_;
  const Entry* packed = PackedAdoptedEntry();
  if (packed == nullptr) {
    return absl::InternalError("oneDNN convolution lost its adopted filter");
  }
  GRAPHRT_ASSIGN_OR_RETURN(Tensor filter, Tensor::AllocateUninitialized(
                                              DType::kFloat32, adopted_shape_));
  const dnnl_memory_desc_t* packed_md = packed->Md(dnnl_query_weights_md);
  dnnl_memory_desc_t user_md;
  if (packed_md == nullptr ||
      FilterMd(packed->spec, packed->transposed, /*format_any=*/false,
               &user_md) != dnnl_success) {
    return absl::InternalError(
        "oneDNN convolution lost its adopted filter's layout");
  }
  OmpSingleThread single;
  const dnnl_status_t st = Reorder(*packed_md, packed->packed_weights.get(),
                                   user_md, filter.raw_data());
  if (st != dnnl_success) {
    return absl::InternalError(absl::StrCat(
        "oneDNN weight reorder back to TF's layout failed (status ", st,
        ") for a ", Geometry(packed->spec, packed->n, packed->h, packed->w)));
  }
  adopted_filter_ = filter;
  return filter;
}

absl::StatusOr<Tensor> DnnlConv::ReleaseAdoptedFilter() const {
  GRAPHRT_ASSIGN_OR_RETURN(Tensor filter, AdoptedFilter());
  MutexLock lock(&mu_);
  adopted_filter_ = Tensor();
  return filter;
}

absl::StatusOr<bool> DnnlConv::Run(const XnnConvSpec& spec,
                                   const Tensor& filter, const Tensor* bias,
                                   const float* residual, const float* in,
                                   int64_t n, int64_t h, int64_t w,
                                   int64_t out_h, int64_t out_w,
                                   float* out) const {
  return RunImpl(/*transposed=*/false, spec, filter, bias, residual, in, n, h,
                 w, out_h, out_w, out);
}

absl::StatusOr<bool> DnnlConv::RunBackpropInput(
    const XnnConvSpec& spec, const Tensor& filter, const float* dy, int64_t n,
    int64_t h, int64_t w, int64_t out_h, int64_t out_w, float* dx) const {
  if (spec.depthwise || std::isfinite(spec.out_min) ||
      std::isfinite(spec.out_max)) {
    return false;
  }
  return RunImpl(/*transposed=*/true, spec, filter, nullptr, nullptr, dy, n, h,
                 w, out_h, out_w, dx);
}

absl::StatusOr<bool> DnnlConv::RunImpl(bool transposed, const XnnConvSpec& spec,
                                       const Tensor& filter, const Tensor* bias,
                                       const float* residual, const float* in,
                                       int64_t n, int64_t h, int64_t w,
                                       int64_t out_h, int64_t out_w,
                                       float* out) const {
  if (!DnnlAvailable() || n <= 0 || h <= 0 || w <= 0 || out_h <= 0 ||
      out_w <= 0 || h > kMaxDim || w > kMaxDim || n > kMaxDim ||
      spec.in_channels <= 0 || spec.out_channels <= 0 || spec.dilation_h <= 0 ||
      spec.dilation_w <= 0 ||
      (spec.depthwise && spec.out_channels % spec.in_channels != 0)) {
    return false;
  }
  const bool adopted = IsReleasedConst(filter);
  if (adopted && !adopted_) {
    return absl::InternalError(
        "oneDNN convolution got a released Const filter it never adopted");
  }
  OmpSingleThread single;
  const bool has_residual = residual != nullptr;
  const Entry* entry =
      FindEntry(spec, filter, adopted, bias, has_residual, transposed, n, h, w);
  if (entry == nullptr) {
    // Built under the lock: a concurrent first Run waits for the one
    // primitive instead of compiling its own.
    MutexLock lock(&mu_);
    entry = FindEntry(spec, filter, adopted, bias, has_residual, transposed, n,
                      h, w);
    if (entry == nullptr) {
      const int count = num_entries_.load(std::memory_order_relaxed);
      if (count >= kMaxDistinctKeys) return false;
      auto e = std::make_unique<Entry>();
      e->spec = spec;
      e->n = n;
      e->h = h;
      e->w = w;
      e->has_bias = bias != nullptr;
      e->has_residual = has_residual;
      e->transposed = transposed;
      e->adopted = adopted;
      if (bias != nullptr) e->bias = *bias;
      // The weights to pack: the caller's filter, the adopted one while
      // DnnlConv still holds it in TF layout, else another entry's packed
      // copy.
      const void* weights = filter.raw_data();
      const dnnl_memory_desc_t* weights_layout = nullptr;
      if (!adopted) {
        e->filter = filter;
      } else if (adopted_filter_.valid()) {
        weights = adopted_filter_.raw_data();
      } else {
        const Entry* packed = PackedAdoptedEntry();
        if (packed == nullptr) {
          return absl::InternalError(
              "oneDNN convolution lost its adopted filter");
        }
        weights = packed->packed_weights.get();
        weights_layout = packed->Md(dnnl_query_weights_md);
      }
      absl::Status built =
          e->Build(allow_winograd_, out_h, out_w, weights, weights_layout);
      if (!built.ok()) e->usable = false;
      // Packed: the TF-layout copy can go (AdoptedFilter rebuilds it), but
      // not from Winograd weights, which have no reorder back.
      if (e->usable && adopted && e->winograd == nullptr) {
        adopted_filter_ = Tensor();
      }
      entry = e.get();
      entries_[count].store(e.release(), std::memory_order_release);
      num_entries_.store(count + 1, std::memory_order_release);
      if (!built.ok()) return built;
    }
  }
  if (!entry->usable) return false;
  std::unique_ptr<ExecContext> ctx = entry->TakeIdle();
  if (ctx == nullptr) {
    auto made = entry->NewContext();
    if (!made.ok()) return made.status();
    ctx = std::move(*made);
  }
  const Entry::Winograd* wino = entry->winograd.get();
  // The thread's scratchpad: the primitive's, then (Winograd) the blocked
  // src and dst.
  const size_t prim_scratch = dnnl_util::RoundUp64(entry->scratch_bytes);
  const size_t blocked_src_at = prim_scratch;
  const size_t blocked_dst_at =
      wino == nullptr ? 0
                      : prim_scratch + dnnl_util::RoundUp64(wino->src_bytes);
  const size_t scratch_total =
      wino == nullptr ? entry->scratch_bytes : blocked_dst_at + wino->dst_bytes;
  char* scratch = nullptr;
  if (scratch_total > 0) {
    scratch = static_cast<char*>(ThreadScratchpad(scratch_total));
    if (scratch == nullptr) {
      entry->PutIdle(std::move(ctx));
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", scratch_total,
          " bytes of oneDNN scratchpad for a ", Geometry(spec, n, h, w)));
    }
  }
  auto set = [](dnnl_memory_t m, const void* data) {
    return dnnl_memory_set_data_handle_v2(m, const_cast<void*>(data),
                                          ThreadStream());
  };
  dnnl_status_t st = dnnl_success;
  float* blocked_dst = nullptr;
  if (wino != nullptr) {
    float* blocked_src = reinterpret_cast<float*>(scratch + blocked_src_at);
    blocked_dst = reinterpret_cast<float*>(scratch + blocked_dst_at);
    st = set(ctx->src, blocked_src);
    if (st == dnnl_success) st = set(ctx->dst, blocked_dst);
    ToBlocked16(in, n, h * w, spec.in_channels, blocked_src);
    if (residual != nullptr) {
      ToBlocked16(residual, n, out_h * out_w, spec.out_channels, blocked_dst);
    }
  } else {
    st = set(ctx->src, in);
    if (st == dnnl_success) st = set(ctx->dst, out);
    if (st == dnnl_success && residual != nullptr && residual != out) {
      std::memcpy(out, residual,
                  dnnl_memory_desc_get_size(entry->Md(dnnl_query_dst_md)));
    }
  }
  if (st == dnnl_success && ctx->scratch != nullptr) {
    st = set(ctx->scratch, scratch);
  }
  if (st == dnnl_success) {
    dnnl_exec_arg_t args[6];
    int nargs = 0;
    args[nargs++] = {DNNL_ARG_SRC, ctx->src};
    args[nargs++] = {DNNL_ARG_WEIGHTS, ctx->weights};
    args[nargs++] = {DNNL_ARG_DST, ctx->dst};
    if (ctx->bias != nullptr) {
      args[nargs++] = {entry->bias_post_op_arg != 0 ? entry->bias_post_op_arg
                                                    : DNNL_ARG_BIAS,
                       ctx->bias};
    }
    if (ctx->scratch != nullptr) {
      args[nargs++] = {DNNL_ARG_SCRATCHPAD, ctx->scratch};
    }

    st = dnnl_primitive_execute(entry->primitive, ThreadStream(), nargs, args);
  }
  if (st == dnnl_success && wino != nullptr) {
    FromBlocked16(blocked_dst, n, out_h * out_w, spec.out_channels,
                  wino->out_min, wino->out_max, out);
  }
  entry->PutIdle(std::move(ctx));
  if (st != dnnl_success) {
    return absl::InternalError(
        absl::StrCat("oneDNN convolution failed (status ", st, ") for a ",
                     Geometry(spec, n, h, w)));
  }
  return true;
}

}  // namespace nn
}  // namespace graphrt
