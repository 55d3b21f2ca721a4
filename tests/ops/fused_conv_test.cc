// The Conv2D / depthwise kernels' fast path (ops/nn/fused_conv.h) against
// their portable float64 kernels: fused epilogues and the bias's place in
// the sum. Built twice: fused_conv_test (oneDNN first, the default) and
// fused_conv_xnnpack_test (GRAPHRT_DNNL=0: XNNPACK).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ops/array/op_util.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "ops/nn/xnnpack/xnn_conv.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/test_helpers.h"

namespace graphrt::testing {
namespace {

bool FastPathOn() { return nn::DnnlAvailable() || nn::XnnpackAvailable(); }

// float32 runs on oneDNN / XNNPACK, float64 on the portable kernels: the fused
// epilogues (bias, folded batch norm, clamps, other activations, Prelu)
// must agree.
TEST(FusedConvTest, FusedEpiloguesMatchPortableKernels) {
  // Compares the fast path with the portable one: meaningless without it.
  if (!FastPathOn()) GTEST_SKIP() << "oneDNN and XNNPACK off";
  std::mt19937 rng(11);
  struct Case {
    std::string op;
    std::vector<std::string> fused;
    int num_args;
  };
  const std::vector<Case> cases = {
      {"_FusedConv2D", {"BiasAdd"}, 1},
      {"_FusedConv2D", {"BiasAdd", "Relu"}, 1},
      {"_FusedConv2D", {"BiasAdd", "Relu6"}, 1},
      {"_FusedConv2D", {"BiasAdd", "Elu"}, 1},
      {"_FusedConv2D", {"BiasAdd", "LeakyRelu"}, 1},
      {"_FusedConv2D", {"BiasAdd", "Prelu"}, 2},
      {"_FusedConv2D", {"FusedBatchNorm"}, 4},
      {"_FusedConv2D", {"FusedBatchNorm", "Relu6"}, 4},
      {"FusedDepthwiseConv2dNative", {"BiasAdd", "Relu6"}, 1},
      {"FusedDepthwiseConv2dNative", {"NoOp", "Relu"}, 0},
      {"FusedDepthwiseConv2dNative", {"BiasAdd", "Sigmoid"}, 1},
  };
  for (const Case& c : cases) {
    const bool dw = c.op != "_FusedConv2D";
    const int64_t ci = 6, co = dw ? 6 : 10;
    auto x = Random(1 * 7 * 7 * ci, &rng);
    for (auto& v : x) v -= 0.5f;
    auto f = Random(3 * 3 * ci * (dw ? 1 : co), &rng);
    for (auto& v : f) v -= 0.5f;
    std::vector<std::vector<float>> args;
    for (int a = 0; a < c.num_args; ++a) {
      auto v = Random(co, &rng);
      if (c.fused[0] == "FusedBatchNorm" && a == 3) {
        for (auto& e : v) e = std::fabs(e) + 0.5f;  // variance > 0
      } else {
        for (auto& e : v) e -= 0.3f;
      }
      args.push_back(v);
    }
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      auto conv = [](const std::vector<float>& v) {
        return std::vector<T>(v.begin(), v.end());
      };
      OpTest t(c.op);
      t.Attr("T", DTypeOf<T>::value)
          .Attr("strides", std::vector<int64_t>{1, 2, 1, 1})
          .Attr("padding", "SAME")
          .Attr("fused_ops", c.fused)
          .Attr("num_args", int64_t{c.num_args});
      std::vector<Tensor> in = {T_<T>({1, 7, 7, ci}, conv(x)),
                                T_<T>({3, 3, ci, dw ? 1 : co}, conv(f))};
      for (auto& a : args) in.push_back(T_<T>({co}, conv(a)));
      auto out = t.Run(in);
      EXPECT_TRUE(out.ok()) << c.op << ": " << out.status();
      std::vector<float> r;
      if (out.ok()) {
        for (T v : Values<T>((*out)[0])) r.push_back(static_cast<float>(v));
      }
      return r;
    };
    auto f32 = run(ops::TypeTag<float>{});
    auto f64 = run(ops::TypeTag<double>{});
    ASSERT_EQ(f32.size(), 4u * 7 * co) << c.op << " " << c.fused[0];
    ExpectNear(f32, f64);
  }
}

// A regular convolution's bias is added after the dot product, not used as
// its starting value (fused_conv.h): with a large, batch-norm-folded
// bias XNNPACK's accumulator would round every partial sum at the bias's
// magnitude. Regression: posenet missed TF.js's goldens by 1.5x the
// tolerance before. Seeded, 1x1 convolution over 1024 channels, bias 20:
// the mean error against float64 must stay near a plain float dot
// product's (~4e-6 here), not the ~1.3e-5 of a bias-first sum.
TEST(FusedConvTest, LargeBiasIsAddedAfterTheDotProduct) {
  if (!FastPathOn()) GTEST_SKIP() << "oneDNN and XNNPACK off";
  std::mt19937 rng(5);
  const int64_t ci = 1024, co = 64, hw = 16;
  auto x = Random(hw * hw * ci, &rng);
  auto f = Random(ci * co, &rng);
  const std::vector<float> bias(co, 20.0f);
  OpTest t("_FusedConv2D");
  t.Attr("T", DTypeOf<float>::value)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "VALID")
      .Attr("fused_ops", std::vector<std::string>{"BiasAdd"})
      .Attr("num_args", int64_t{1});
  auto out = t.Run({T_<float>({1, hw, hw, ci}, x), T_<float>({1, 1, ci, co}, f),
                    T_<float>({co}, bias)});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> got = Values<float>((*out)[0]);
  double total_error = 0;
  for (int64_t p = 0; p < hw * hw; ++p) {
    for (int64_t o = 0; o < co; ++o) {
      double want = bias[o];
      for (int64_t i = 0; i < ci; ++i) {
        want += double{x[p * ci + i]} * f[i * co + o];
      }
      total_error += std::fabs(got[p * co + o] - want);
    }
  }
  EXPECT_LT(total_error / (hw * hw * co), 7e-6);
}

}  // namespace
}  // namespace graphrt::testing
