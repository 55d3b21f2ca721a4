// ResizeBilinear, ResizeNearestNeighbor (images [b, h, w, c], size int32
// [2]; attrs align_corners, half_pixel_centers) and CropAndResize (image,
// boxes float32 [n, 4] as normalised (y1, x1, y2, x2), box_ind int32 [n],
// crop_size int32 [2]; attrs method bilinear|nearest, extrapolation_value).
//
// Coordinates follow TF's CPU kernels exactly, in float:
//   scale = align_corners && out > 1 ? (in - 1) / (out - 1) : in / out
//   bilinear: src = half_pixel ? (i + 0.5) * scale - 0.5 : i * scale,
//     lower = max(floor(src), 0), upper = min(ceil(src), in - 1),
//     lerp = src - floor(src); top/bottom lerped along x, then along y.
//   nearest: src = half_pixel ? (i + 0.5) * scale : i * scale,
//     idx = min(align_corners ? round(src) : floor(src), in - 1),
//     and max(idx, 0) with half_pixel_centers.
// ResizeBilinear and CropAndResize accept every real dtype and return
// float32; ResizeNearestNeighbor keeps the input dtype.
//
// _ResizeBilinearAdd (images, size, addend; ResizeBilinear's attrs):
// ResizeBilinear(images, size) + addend, which the load-time pass
// FuseResizeAdd builds from an Add / AddV2 of a ResizeBilinear read by
// nothing else (the decoders of BlazePose and friends: upsample, add the
// skip connection). Each output element is the resized value plus the
// addend's, the unfused graph's two roundings; an addend of the output's
// shape that nothing else reads becomes the output (in place), another
// shape broadcasts as Add does.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/residual_add.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Dispatches the real dtypes images may have.
template <typename F>
absl::Status DispatchImage(DType dtype, absl::string_view what, F&& f) {
  return ops::DispatchDType<float, double, int32_t, int64_t, uint8_t, int8_t,
                            int16_t, uint16_t, float16, bfloat16>(
      dtype, what, std::forward<F>(f));
}

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1)
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

// Checks images [b, h, w, c] and size int32 [2]; returns {out_h, out_w}.
absl::StatusOr<std::pair<int64_t, int64_t>> CheckResizeInputs(
    const Tensor& images, const Tensor& size) {
  if (images.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected images of rank 4, got ", images.DebugString()));
  }
  if (size.dtype() != DType::kInt32 || size.rank() != 1 || size.dim(0) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected size of dtype int32 and shape [2], got ",
                     size.DebugString()));
  }
  const int64_t h = size.data<int32_t>()[0];
  const int64_t w = size.data<int32_t>()[1];
  if (h <= 0 || w <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output dimensions must be positive, got [", h, ",", w, "]"));
  }
  if (images.dim(1) <= 0 || images.dim(2) <= 0 || images.dim(1) > INT32_MAX ||
      images.dim(2) > INT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input image must be of non-zero size, got ", images.DebugString()));
  }
  return std::make_pair(h, w);
}

struct Lerp {
  int64_t lower, upper;
  float lerp;
};

absl::StatusOr<ops::ScratchArray<Lerp>> BilinearWeights(int64_t out, int64_t in,
                                                        float scale,
                                                        bool half_pixel) {
  GRAPHRT_ASSIGN_OR_RETURN(auto v, ops::ScratchArray<Lerp>::Make(out));
  for (int64_t i = 0; i < out; ++i) {
    const float src = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                                 : static_cast<float>(i) * scale;
    const float f = std::floor(src);
    v[i].lower = std::min<int64_t>(
        std::max<int64_t>(static_cast<int64_t>(f), 0), in - 1);
    v[i].upper =
        std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in - 1);
    v[i].lerp = src - f;
  }
  return v;
}

// One input row lerped along x into dst (xs.size() pixels of c channels):
// d = l + (r - l) * lerp per channel, the same expression TF uses. C: the
// channel count when it is one of the small fixed ones (the inner loop
// then compiles to a vector or two per pixel), else 0 (read from c).
template <int C, typename T>
void LerpRow(const T* __restrict src, const Lerp* xs, int64_t ow, int64_t c,
             float* __restrict dst) {
  const int64_t n = C > 0 ? C : c;
  for (int64_t x = 0; x < ow; ++x) {
    const T* __restrict l = src + xs[x].lower * n;
    const T* __restrict r = src + xs[x].upper * n;
    const float w = xs[x].lerp;
    float* __restrict d = dst + x * n;
    for (int64_t ch = 0; ch < n; ++ch) {
      const float lv = static_cast<float>(l[ch]);
      const float rv = static_cast<float>(r[ch]);
      d[ch] = lv + (rv - lv) * w;
    }
  }
}

template <typename T>
void LerpRowAny(const T* src, const Lerp* xs, int64_t ow, int64_t c,
                float* dst) {
  switch (c) {
    case 4:
      return LerpRow<4>(src, xs, ow, c, dst);
    case 8:
      return LerpRow<8>(src, xs, ow, c, dst);
    case 16:
      return LerpRow<16>(src, xs, ow, c, dst);
    case 32:
      return LerpRow<32>(src, xs, ow, c, dst);
    default:
      return LerpRow<0>(src, xs, ow, c, dst);
  }
}

struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel = false;
};

absl::StatusOr<ResizeAttrs> ReadResizeAttrs(const KernelInit& init,
                                            int num_inputs) {
  AttrReader attrs(init.node);
  ResizeAttrs a;
  GRAPHRT_ASSIGN_OR_RETURN(a.align_corners,
                           attrs.GetBool("align_corners", false));
  GRAPHRT_ASSIGN_OR_RETURN(a.half_pixel,
                           attrs.GetBool("half_pixel_centers", false));
  if (a.align_corners && a.half_pixel) {
    return attrs.Error("half_pixel_centers",
                       "is true, so align_corners must be false");
  }
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, num_inputs));
  return a;
}

class ResizeBilinearKernel : public Kernel {
 public:
  // `add`: _ResizeBilinearAdd (a third input, the addend).
  ResizeBilinearKernel(ResizeAttrs a, bool add) : a_(a), add_(add) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, add_ ? 3 : 2));
    const Tensor& images = ctx.input(0);
    GRAPHRT_ASSIGN_OR_RETURN(auto size,
                             CheckResizeInputs(images, ctx.input(1)));
    const int64_t n = images.dim(0), c = images.dim(3), oh = size.first,
                  ow = size.second;
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make({n, oh, ow, c}));
    if (!add_) {
      GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                                 0, DType::kFloat32, shape));
      return Resize(images, size, out->mutable_data<float>(), nullptr);
    }
    const Tensor& addend = ctx.input(2);
    if (addend.dtype() != DType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a float32 addend, got ", addend.DebugString()));
    }
    if (!(addend.shape() == shape)) {
      // Broadcasting: the resized tensor, then Add's sum.
      GRAPHRT_ASSIGN_OR_RETURN(Tensor resized, Tensor::AllocateUninitialized(
                                                   DType::kFloat32, shape));
      GRAPHRT_RETURN_IF_ERROR(
          Resize(images, size, resized.mutable_data<float>(), nullptr));
      GRAPHRT_ASSIGN_OR_RETURN(
          Tensor sum, nn::BroadcastAddActivate<float>(resized, addend,
                                                      ops::Activation::kNone));
      ctx.set_output(0, std::move(sum));
      return absl::OkStatus();
    }
    Tensor* out = ctx.forward_input_to_output(2, 0, DType::kFloat32, shape);
    if (out == nullptr) {
      GRAPHRT_ASSIGN_OR_RETURN(
          out, ctx.allocate_output_uninitialized(0, DType::kFloat32, shape));
    }
    // Forwarded, out is the addend's storage: each element is read just
    // before it is written.
    return Resize(images, size, out->mutable_data<float>(),
                  addend.data<float>());
  }

 private:
  // out = resize(images) (+ add, of out's shape; may be out itself).
  absl::Status Resize(const Tensor& images, std::pair<int64_t, int64_t> size,
                      float* o, const float* add) const {
    const int64_t n = images.dim(0), h = images.dim(1), w = images.dim(2),
                  c = images.dim(3), oh = size.first, ow = size.second;
    GRAPHRT_ASSIGN_OR_RETURN(
        const auto ys,
        BilinearWeights(oh, h, ResizeScale(h, oh, a_.align_corners),
                        a_.half_pixel));
    GRAPHRT_ASSIGN_OR_RETURN(
        const auto xs,
        BilinearWeights(ow, w, ResizeScale(w, ow, a_.align_corners),
                        a_.half_pixel));
    return DispatchImage(images.dtype(), "ResizeBilinear", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = images.data<T>();
      const int64_t min_rows = std::max<int64_t>(
          2, (int64_t{1} << 15) / std::max<int64_t>(1, ow * c));
      std::atomic<bool> out_of_memory{false};
      ops::ParallelFor(n * oh, min_rows, [&](int64_t r0, int64_t r1) {
        // Horizontally interpolated input rows, two cached (keyed by
        // b * h + input row): upsampling reads each input row for several
        // output rows. Same expressions as a per-pixel loop, so the same
        // values.
        const int64_t row_len = ow * c;
        auto rows_or = ops::ScratchArray<float>::Make(2 * row_len);
        if (!rows_or.ok()) {
          out_of_memory.store(true, std::memory_order_relaxed);
          return;
        }
        ops::ScratchArray<float>& rows = *rows_or;
        int64_t key[2] = {-1, -1};
        int next = 0;
        auto horizontal = [&](int64_t k) -> const float* {
          for (int i = 0; i < 2; ++i) {
            if (key[i] == k) return rows.data() + i * row_len;
          }
          const int slot = next;
          next ^= 1;
          key[slot] = k;
          float* dst = rows.data() + slot * row_len;
          LerpRowAny(in + k * w * c, xs.data(), ow, c, dst);
          return dst;
        };
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t b = r / oh;
          const Lerp& yl = ys[r % oh];
          const int64_t top_key = b * h + yl.lower;
          const int64_t bot_key = b * h + yl.upper;
          // Keep the row the previous output row used in its slot.
          const float* t = horizontal(top_key);
          if (key[next] == top_key) next ^= 1;
          const float* bo = horizontal(bot_key);
          float* orow = o + r * row_len;
          const float* __restrict top = t;
          const float* __restrict bottom = bo;
          const float lerp = yl.lerp;
          if (add == nullptr) {
            float* __restrict dst = orow;
            for (int64_t i = 0; i < row_len; ++i) {
              dst[i] = top[i] + (bottom[i] - top[i]) * lerp;
            }
          } else {
            // `arow` may be `orow` (in place): no __restrict on either.
            const float* arow = add + r * row_len;
            for (int64_t i = 0; i < row_len; ++i) {
              const float v = top[i] + (bottom[i] - top[i]) * lerp;
              orow[i] = v + arow[i];
            }
          }
        }
      });
      if (out_of_memory.load(std::memory_order_relaxed)) {
        return absl::ResourceExhaustedError(
            absl::StrCat("ResizeBilinear: out of memory for the row cache of ",
                         ow, " x ", c, " values"));
      }
      return absl::OkStatus();
    });
  }

  ResizeAttrs a_;
  bool add_;
};

absl::StatusOr<ops::ScratchArray<int64_t>> NearestIndices(
    int64_t out, int64_t in, float scale, const ResizeAttrs& a) {
  GRAPHRT_ASSIGN_OR_RETURN(auto v, ops::ScratchArray<int64_t>::Make(out));
  for (int64_t i = 0; i < out; ++i) {
    const float src = a.half_pixel ? (static_cast<float>(i) + 0.5f) * scale
                                   : static_cast<float>(i) * scale;
    int64_t idx = a.align_corners ? static_cast<int64_t>(std::round(src))
                                  : static_cast<int64_t>(std::floor(src));
    idx = std::min(idx, in - 1);
    if (a.half_pixel) idx = std::max<int64_t>(idx, 0);
    v[i] = idx;
  }
  return v;
}

class ResizeNearestKernel : public Kernel {
 public:
  explicit ResizeNearestKernel(ResizeAttrs a) : a_(a) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 2));
    const Tensor& images = ctx.input(0);
    GRAPHRT_ASSIGN_OR_RETURN(auto size,
                             CheckResizeInputs(images, ctx.input(1)));
    const int64_t n = images.dim(0), h = images.dim(1), w = images.dim(2),
                  c = images.dim(3), oh = size.first, ow = size.second;
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make({n, oh, ow, c}));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, images.dtype(), shape));
    GRAPHRT_ASSIGN_OR_RETURN(
        const auto ys,
        NearestIndices(oh, h, ResizeScale(h, oh, a_.align_corners), a_));
    GRAPHRT_ASSIGN_OR_RETURN(
        const auto xs,
        NearestIndices(ow, w, ResizeScale(w, ow, a_.align_corners), a_));
    return DispatchImage(
        images.dtype(), "ResizeNearestNeighbor", [&](auto tag) {
          using T = typename decltype(tag)::type;
          const T* in = images.data<T>();
          T* o = out->mutable_data<T>();
          const int64_t min_rows = std::max<int64_t>(
              2, (int64_t{1} << 15) / std::max<int64_t>(1, ow * c));
          ops::ParallelFor(n * oh, min_rows, [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
              const T* src = in + ((r / oh) * h + ys[r % oh]) * w * c;
              T* orow = o + r * ow * c;
              for (int64_t x = 0; x < ow; ++x) {
                std::copy(src + xs[x] * c, src + xs[x] * c + c, orow + x * c);
              }
            }
          });
          return absl::OkStatus();
        });
  }

 private:
  ResizeAttrs a_;
};

template <bool kNearest, bool kAdd = false>
absl::StatusOr<std::unique_ptr<Kernel>> CreateResize(const KernelInit& init) {
  GRAPHRT_ASSIGN_OR_RETURN(ResizeAttrs a, ReadResizeAttrs(init, kAdd ? 3 : 2));
  if (kNearest) return std::unique_ptr<Kernel>(new ResizeNearestKernel(a));
  return std::unique_ptr<Kernel>(new ResizeBilinearKernel(a, kAdd));
}

// ---- CropAndResize ----

class CropAndResizeKernel : public Kernel {
 public:
  CropAndResizeKernel(bool nearest, float extrapolation)
      : nearest_(nearest), extrapolation_(extrapolation) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, 4));
    const Tensor& image = ctx.input(0);
    const Tensor& boxes = ctx.input(1);
    const Tensor& box_ind = ctx.input(2);
    const Tensor& crop = ctx.input(3);
    if (image.rank() != 4 || image.dim(1) <= 0 || image.dim(2) <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected image of rank 4 with non-zero height and width, got ",
          image.DebugString()));
    }
    if (boxes.dtype() != DType::kFloat32 || boxes.rank() != 2 ||
        boxes.dim(1) != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected boxes of dtype float32 and shape [n, 4], got ",
                       boxes.DebugString()));
    }
    const int64_t nb = boxes.dim(0);
    if (box_ind.dtype() != DType::kInt32 || box_ind.rank() != 1 ||
        box_ind.dim(0) != nb) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected box_ind of dtype int32 and shape [", nb,
                       "], got ", box_ind.DebugString()));
    }
    if (crop.dtype() != DType::kInt32 || crop.rank() != 1 || crop.dim(0) != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected crop_size of dtype int32 and shape [2], got ",
                       crop.DebugString()));
    }
    const int64_t ch = crop.data<int32_t>()[0], cw = crop.data<int32_t>()[1];
    if (ch <= 0 || cw <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "crop dimensions must be positive, got [", ch, ",", cw, "]"));
    }
    const int64_t batch = image.dim(0), h = image.dim(1), w = image.dim(2),
                  c = image.dim(3);
    for (int64_t i = 0; i < nb; ++i) {
      const int32_t b = box_ind.data<int32_t>()[i];
      if (b < 0 || b >= batch) {
        return absl::InvalidArgumentError(
            absl::StrCat("box_ind has values outside [0, ", batch,
                         "): box_ind[", i, "] = ", b));
      }
    }
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make({nb, ch, cw, c}));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(
                                               0, DType::kFloat32, shape));
    float* o = out->mutable_data<float>();
    const float* bx = boxes.data<float>();
    return DispatchImage(image.dtype(), "CropAndResize", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = image.data<T>();
      ops::ParallelFor(nb * ch, 64, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t i = r / ch, y = r % ch;
          const float y1 = bx[i * 4], x1 = bx[i * 4 + 1], y2 = bx[i * 4 + 2],
                      x2 = bx[i * 4 + 3];
          const int64_t b = box_ind.data<int32_t>()[i];
          const float hs = ch > 1 ? (y2 - y1) * static_cast<float>(h - 1) /
                                        static_cast<float>(ch - 1)
                                  : 0.f;
          const float ws = cw > 1 ? (x2 - x1) * static_cast<float>(w - 1) /
                                        static_cast<float>(cw - 1)
                                  : 0.f;
          float* orow = o + r * cw * c;
          const float in_y =
              ch > 1
                  ? y1 * static_cast<float>(h - 1) + static_cast<float>(y) * hs
                  : 0.5f * (y1 + y2) * static_cast<float>(h - 1);
          if (!(in_y >= 0 && in_y <= static_cast<float>(h - 1))) {
            std::fill(orow, orow + cw * c, extrapolation_);
            continue;
          }
          const int64_t top = static_cast<int64_t>(std::floor(in_y));
          const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
          const float y_lerp = in_y - static_cast<float>(top);
          const int64_t near_y = static_cast<int64_t>(std::round(in_y));
          for (int64_t x = 0; x < cw; ++x) {
            float* op = orow + x * c;
            const float in_x =
                cw > 1 ? x1 * static_cast<float>(w - 1) +
                             static_cast<float>(x) * ws
                       : 0.5f * (x1 + x2) * static_cast<float>(w - 1);
            if (!(in_x >= 0 && in_x <= static_cast<float>(w - 1))) {
              std::fill(op, op + c, extrapolation_);
              continue;
            }
            if (nearest_) {
              const int64_t near_x = static_cast<int64_t>(std::round(in_x));
              const T* px = in + ((b * h + near_y) * w + near_x) * c;
              for (int64_t d = 0; d < c; ++d) op[d] = static_cast<float>(px[d]);
              continue;
            }
            const int64_t left = static_cast<int64_t>(std::floor(in_x));
            const int64_t right = static_cast<int64_t>(std::ceil(in_x));
            const float x_lerp = in_x - static_cast<float>(left);
            const T* tl = in + ((b * h + top) * w + left) * c;
            const T* tr = in + ((b * h + top) * w + right) * c;
            const T* bl = in + ((b * h + bottom) * w + left) * c;
            const T* br = in + ((b * h + bottom) * w + right) * c;
            for (int64_t d = 0; d < c; ++d) {
              const float t =
                  static_cast<float>(tl[d]) +
                  (static_cast<float>(tr[d]) - static_cast<float>(tl[d])) *
                      x_lerp;
              const float bo =
                  static_cast<float>(bl[d]) +
                  (static_cast<float>(br[d]) - static_cast<float>(bl[d])) *
                      x_lerp;
              op[d] = t + (bo - t) * y_lerp;
            }
          }
        }
      });
      return absl::OkStatus();
    });
  }

 private:
  bool nearest_;
  float extrapolation_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateCropAndResize(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::string method,
                           attrs.GetString("method", "bilinear"));
  if (method != "bilinear" && method != "nearest") {
    return attrs.Error("method", absl::StrCat("must be bilinear or nearest, "
                                              "got '",
                                              method, "'"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(float extrapolation,
                           attrs.GetFloat("extrapolation_value", 0.f));
  GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(init, 4));
  return std::unique_ptr<Kernel>(
      new CropAndResizeKernel(method == "nearest", extrapolation));
}

}  // namespace

void RegisterResize(OpRegistry& r) {
  r.Register("ResizeBilinear", CreateResize<false>);
  r.Register("_ResizeBilinearAdd", CreateResize<false, true>);
  r.Register("ResizeNearestNeighbor", CreateResize<true>);
  r.Register("CropAndResize", CreateCropAndResize);
}

}  // namespace graphrt
