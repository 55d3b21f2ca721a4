// ImageProjectiveTransformV3(images [b, h, w, c], transforms float32
// [1 or b, 8], output_shape int32 [2], fill_value float32 scalar) and V2
// (no fill_value input: 0). Attrs interpolation NEAREST|BILINEAR,
// fill_mode CONSTANT|REFLECT|WRAP|NEAREST, dtype.
//
// As TF's CPU kernel: output pixel (x, y) reads input point
//   k = t6 * x + t7 * y + 1 (fill value when k == 0),
//   in_x = (t0 * x + t1 * y + t2) / k, in_y = (t3 * x + t4 * y + t5) / k,
// mapped into the image by fill_mode (scipy's reflect/wrap/nearest;
// CONSTANT keeps it), fill value when still outside; NEAREST rounds half
// away from zero, BILINEAR weighs the 4 neighbours (out-of-image
// neighbours read the fill value). Non-finite coordinates give the fill
// value. uint8, int32, int64, float16, float32, float64.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/nn/nn_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

enum class FillMode { kConstant, kReflect, kWrap, kNearest };

// float -> int64 truncation that saturates instead of overflowing
// (callers pass finite values).
int64_t SafeTrunc(float v) {
  if (v >= 9.2e18f) return INT64_MAX;
  if (v <= -9.2e18f) return INT64_MIN;
  return static_cast<int64_t>(v);
}

float MapCoord(float c, int64_t len, FillMode mode) {
  switch (mode) {
    case FillMode::kConstant:
      return c;
    case FillMode::kNearest:
      return std::clamp(c, 0.f, static_cast<float>(len - 1));
    case FillMode::kReflect:
      if (c < 0) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz2 = 2 * len;
          if (c < sz2) {
            c = static_cast<float>(sz2 * SafeTrunc(-c / sz2)) + c;
          }
          c = (c < -len) ? c + sz2 : -c - 1;
        }
      } else if (c > len - 1) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz2 = 2 * len;
          c -= static_cast<float>(sz2 * SafeTrunc(c / sz2));
          if (c >= len) c = sz2 - c - 1;
        }
      }
      return std::clamp(c, 0.f, static_cast<float>(len - 1));
    case FillMode::kWrap:
      if (c < 0) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz = len - 1;
          c += static_cast<float>(len * (SafeTrunc(-c / sz) + 1));
        }
      } else if (c > len - 1) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz = len - 1;
          c -= static_cast<float>(len * SafeTrunc(c / sz));
        }
      }
      return std::clamp(c, 0.f, static_cast<float>(len - 1));
  }
  return c;
}

class ProjectiveKernel : public Kernel {
 public:
  ProjectiveKernel(bool bilinear, FillMode mode, bool v3, DType dtype)
      : bilinear_(bilinear), mode_(mode), v3_(v3), dtype_(dtype) {}

  absl::Status Run(KernelContext& ctx) const override {
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, v3_ ? 4 : 3));
    const Tensor& images = ctx.input(0);
    const Tensor& transforms = ctx.input(1);
    const Tensor& shape_t = ctx.input(2);
    if (images.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected images of rank 4, got ", images.DebugString()));
    }
    if (dtype_ != DType::kInvalid && images.dtype() != dtype_) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected images of dtype ", DTypeName(dtype_),
                       " (attr dtype), got ", images.DebugString()));
    }
    const int64_t b = images.dim(0), h = images.dim(1), w = images.dim(2),
                  c = images.dim(3);
    if (transforms.dtype() != DType::kFloat32 || transforms.rank() != 2 ||
        transforms.dim(1) != 8 ||
        (transforms.dim(0) != 1 && transforms.dim(0) != b)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected transforms of dtype float32 and shape [1, 8] or [", b,
          ", 8], got ", transforms.DebugString()));
    }
    if (shape_t.dtype() != DType::kInt32 || shape_t.rank() != 1 ||
        shape_t.dim(0) != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected output_shape of dtype int32 and shape [2], got ",
          shape_t.DebugString()));
    }
    const int64_t oh = shape_t.data<int32_t>()[0];
    const int64_t ow = shape_t.data<int32_t>()[1];
    if (oh <= 0 || ow <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output_shape must be positive, got [", oh, ",", ow, "]"));
    }
    float fill = 0.f;
    if (v3_) {
      const Tensor& f = ctx.input(3);
      if (f.dtype() != DType::kFloat32 || f.num_elements() != 1 ||
          f.rank() > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected fill_value to be a float32 scalar, got ",
            f.DebugString()));
      }
      fill = *f.data<float>();
    }
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make({b, oh, ow, c}));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, images.dtype(), shape));
    return ops::DispatchDType<uint8_t, int32_t, int64_t, float16, float,
                              double>(
        images.dtype(), "ImageProjectiveTransform", [&](auto tag) {
          using T = typename decltype(tag)::type;
          Transform<T>(images.data<T>(), transforms, b, h, w, c, oh, ow,
                       fill, out->mutable_data<T>());
          return absl::OkStatus();
        });
  }

 private:
  template <typename T>
  static T CastFill(float v) {
    if constexpr (std::is_integral_v<T>) {
      // Saturating float -> int (TF casts; we avoid UB on out-of-range).
      if (!(v == v)) return T(0);
      const double d = std::trunc(static_cast<double>(v));
      if (d <= static_cast<double>(std::numeric_limits<T>::lowest())) {
        return std::numeric_limits<T>::lowest();
      }
      if (d >= static_cast<double>(std::numeric_limits<T>::max())) {
        return std::numeric_limits<T>::max();
      }
      return static_cast<T>(d);
    } else {
      return static_cast<T>(v);
    }
  }

  template <typename T>
  void Transform(const T* in, const Tensor& transforms, int64_t b, int64_t h,
                 int64_t w, int64_t c, int64_t oh, int64_t ow, float fill_f,
                 T* out) const {
    const T fill = CastFill<T>(fill_f);
    const float fill_as_float = static_cast<float>(fill);
    const float* tr = transforms.data<float>();
    const bool shared = transforms.dim(0) == 1;
    if (h == 0 || w == 0) {  // every point is outside an empty image
      std::fill(out, out + b * oh * ow * c, fill);
      return;
    }
    ops::ParallelFor(b * oh, std::max<int64_t>(2, 4096 / std::max<int64_t>(
                                                      1, ow * c)),
                     [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t bi = r / oh;
        const float y = static_cast<float>(r % oh);
        const float* t = shared ? tr : tr + bi * 8;
        const T* img = in + bi * h * w * c;
        auto read = [&](int64_t yy, int64_t xx, int64_t ch) -> float {
          return (yy >= 0 && yy < h && xx >= 0 && xx < w)
                     ? static_cast<float>(img[(yy * w + xx) * c + ch])
                     : fill_as_float;
        };
        for (int64_t xi = 0; xi < ow; ++xi) {
          T* o = out + (r * ow + xi) * c;
          const float x = static_cast<float>(xi);
          const float k = t[6] * x + t[7] * y + 1.f;
          float in_x = 0, in_y = 0;
          bool outside = k == 0;
          if (!outside) {
            in_x = (t[0] * x + t[1] * y + t[2]) / k;
            in_y = (t[3] * x + t[4] * y + t[5]) / k;
            outside = !std::isfinite(in_x) || !std::isfinite(in_y);
          }
          if (!outside) {
            in_x = MapCoord(in_x, w, mode_);
            in_y = MapCoord(in_y, h, mode_);
            outside = !(in_x >= 0 && in_x <= w - 1 && in_y >= 0 &&
                        in_y <= h - 1);
          }
          if (outside) {
            std::fill(o, o + c, fill);
            continue;
          }
          if (!bilinear_) {
            const int64_t yy = static_cast<int64_t>(std::round(in_y));
            const int64_t xx = static_cast<int64_t>(std::round(in_x));
            for (int64_t ch = 0; ch < c; ++ch) {
              o[ch] = (yy >= 0 && yy < h && xx >= 0 && xx < w)
                          ? img[(yy * w + xx) * c + ch]
                          : fill;
            }
            continue;
          }
          const float yf = std::floor(in_y), xf = std::floor(in_x);
          const float yc = yf + 1, xc = xf + 1;
          const int64_t y0 = static_cast<int64_t>(yf);
          const int64_t x0 = static_cast<int64_t>(xf);
          for (int64_t ch = 0; ch < c; ++ch) {
            const float vf = (xc - in_x) * read(y0, x0, ch) +
                             (in_x - xf) * read(y0, x0 + 1, ch);
            const float vc = (xc - in_x) * read(y0 + 1, x0, ch) +
                             (in_x - xf) * read(y0 + 1, x0 + 1, ch);
            o[ch] = CastFill<T>((yc - in_y) * vf + (in_y - yf) * vc);
          }
        }
      }
    });
  }

  bool bilinear_;
  FillMode mode_;
  bool v3_;
  DType dtype_;
};

template <bool kV3>
absl::StatusOr<std::unique_ptr<Kernel>> CreateProjective(
    const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::string interp,
                           attrs.GetString("interpolation", ""));
  if (interp != "NEAREST" && interp != "BILINEAR") {
    return attrs.Error("interpolation", absl::StrCat("must be NEAREST or "
                                                     "BILINEAR, got '",
                                                     interp, "'"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(std::string fm,
                           attrs.GetString("fill_mode", "CONSTANT"));
  FillMode mode;
  if (fm == "CONSTANT") {
    mode = FillMode::kConstant;
  } else if (fm == "REFLECT") {
    mode = FillMode::kReflect;
  } else if (fm == "WRAP") {
    mode = FillMode::kWrap;
  } else if (fm == "NEAREST") {
    mode = FillMode::kNearest;
  } else {
    return attrs.Error("fill_mode", absl::StrCat("must be CONSTANT, REFLECT, "
                                                 "WRAP or NEAREST, got '",
                                                 fm, "'"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(DType dtype, attrs.GetType("dtype", DType::kInvalid));
  if (dtype != DType::kInvalid &&
      !ops::IsOneOf<uint8_t, int32_t, int64_t, float16, float, double>(dtype)) {
    return attrs.Error("dtype", absl::StrCat("has unsupported dtype ",
                                             DTypeName(dtype)));
  }
  const int want = kV3 ? 4 : 3;
  if (init.num_inputs != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(init.node.op(), " '", init.node.name(), "' needs ", want,
                     " inputs, has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(
      new ProjectiveKernel(interp == "BILINEAR", mode, kV3, dtype));
}

}  // namespace

void RegisterImageTransform(OpRegistry& r) {
  r.Register("ImageProjectiveTransformV2", CreateProjective<false>);
  r.Register("ImageProjectiveTransformV3", CreateProjective<true>);
}

}  // namespace graphrt
