// oneDNN's Winograd convolutions (DnnlWinogradPays, ops/nn/dnnl/
// dnnl_winograd.h) against its direct (brgemm) ones on the corpus's 3x3
// stride-1 layers, one thread, each with its bias and Relu fused and the
// Winograd path's copies to and from NHWC included:
//
//   bazel run --config=opt //bench:winograd_bench
//
// BM_Winograd/i/0 runs layer i on the direct kernels, BM_Winograd/i/1 on
// the Winograd ones. GFLOP/s counts the direct convolution's FLOPs (so the
// Winograd rate is "effective": it may pass the machine's FP32 peak). The
// last layers sit below DnnlWinogradPays's bounds and run on the direct
// kernels either way; GRAPHRT_WINOGRAD=all shows why.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace {

struct Layer {
  int64_t h, w, cin, cout;
  bool same;  // SAME padding, else VALID
};

constexpr Layer kLayers[] = {
    // Within DnnlWinogradPays's bounds: gear's (198x198 RGB input, VALID),
    // rvm's decoder, ResNet-style and nanodet's 52x52 layers.
    {196, 196, 32, 64, false},
    {97, 97, 64, 96, false},
    {46, 46, 96, 128, false},
    {64, 64, 35, 16, true},
    {32, 32, 59, 32, true},
    {56, 56, 64, 64, true},
    {52, 52, 128, 128, true},
    // Below them: gear's 21x21 and nanodet's 26x26 and 13x13 layers (the
    // packed weights outgrow the activations), emotion's, age's and
    // liveness' small layers (oneDNN's fixed cost per call), a narrow head
    // and an RGB stem (part-empty channel blocks).
    {21, 21, 128, 160, false},
    {26, 26, 128, 128, true},
    {13, 13, 256, 128, true},
    {31, 31, 32, 64, false},
    {31, 31, 32, 32, false},
    {32, 32, 16, 16, true},
    {64, 64, 64, 8, true},
    {128, 128, 3, 32, true},
};
constexpr int kNumLayers = sizeof(kLayers) / sizeof(kLayers[0]);

void BM_Winograd(benchmark::State& state) {
  const Layer& l = kLayers[state.range(0)];
  const bool winograd = state.range(1) == 1;
  if (!nn::DnnlAvailable()) {
    state.SkipWithError("oneDNN off");
    return;
  }
  nn::XnnConvSpec s;
  s.kh = s.kw = 3;
  if (l.same) s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
  s.in_channels = l.cin;
  s.out_channels = l.cout;
  s.out_min = 0.0f;
  const int64_t oh = l.same ? l.h : l.h - 2, ow = l.same ? l.w : l.w - 2;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto random = [&](const Shape& shape) {
    Tensor t = *Tensor::Allocate(DType::kFloat32, shape);
    for (float& v : t.mutable_span<float>()) v = dist(rng);
    return t;
  };
  const Tensor filter = random(Shape({3, 3, l.cin, l.cout}));
  const Tensor bias = random(Shape({l.cout}));
  const Tensor x = random(Shape({1, l.h, l.w, l.cin}));
  std::vector<float> y(oh * ow * l.cout);
  nn::DnnlConv conv(/*allow_winograd=*/winograd);
  for (auto _ : state) {
    auto done = conv.Run(s, filter, &bias, nullptr, x.data<float>(), 1, l.h,
                         l.w, oh, ow, y.data());
    if (!done.ok() || !*done) {
      state.SkipWithError("oneDNN declined");
      return;
    }
    benchmark::DoNotOptimize(y.data());
  }
  const double flops = 2.0 * oh * ow * l.cout * 9 * l.cin;
  state.counters["GFLOP"] = benchmark::Counter(flops * state.iterations() / 1e9,
                                               benchmark::Counter::kIsRate);
  if (state.error_occurred()) return;
  state.SetLabel(absl::StrCat(winograd ? "winograd" : "direct", " ", l.h, "x",
                              l.w, " ", l.cin, "->", l.cout,
                              winograd && !nn::DnnlWinogradPays(s, 1, oh, ow)
                                  ? " (below bounds)"
                                  : ""));
}
BENCHMARK(BM_Winograd)
    ->ArgsProduct({benchmark::CreateDenseRange(0, kNumLayers - 1, 1), {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
