// The direct convolution kernel (ops/nn/direct/direct_conv.h) against
// oneDNN (ops/nn/dnnl/dnnl_conv.h) on small layers of the corpus models
// (blazeface, liveness, gender, iris shapes), one thread, GFLOP/s:
//
//   bazel run --config=opt //bench:direct_conv_bench
//
// BM_SmallConv/i/0 runs layer i on the direct kernel, BM_SmallConv/i/1 on
// oneDNN (bias and Relu fused in both); BM_SmallConv/i/k/1 does so "cold",
// each call on input and output buffers not touched since > 64 MB of
// others were. Times are thread CPU time.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/nn/direct/direct_conv.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "runtime/parallel.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace {

struct SmallLayer {
  int64_t hw, cin, cout, k, stride;
  bool depthwise;
};

// Shapes as they occur in the corpus's small models.
constexpr SmallLayer kLayers[] = {
    {32, 16, 16, 3, 1, false},   {32, 16, 32, 3, 1, false},
    {16, 32, 32, 3, 1, false},   {16, 64, 64, 3, 1, false},
    {64, 24, 24, 1, 1, false},   {8, 64, 128, 1, 1, false},
    {128, 3, 24, 5, 2, false},   {32, 3, 16, 3, 1, false},
    {64, 24, 24, 3, 1, true},    {32, 48, 48, 5, 1, true},
    {16, 96, 96, 3, 1, true},    {32, 64, 64, 3, 2, true},
    {14, 128, 256, 1, 1, false}, {28, 64, 128, 1, 1, false},
    {14, 256, 128, 1, 1, false},
    // MobileNetV2-224 x1.4 (nsfwjs mobilenet_v2_mid) depthwise layers,
    // larger than the direct kernel's default bound (Prefers).
    {112, 48, 48, 3, 1, true},   {112, 144, 144, 3, 2, true},
    {56, 192, 192, 3, 1, true},  {28, 288, 288, 3, 1, true},
    // EfficientNet-lite4 at 368x368 (efficientpose) depthwise layers.
    {184, 32, 32, 3, 1, true},   {184, 144, 144, 3, 2, true},
    {92, 192, 192, 3, 1, true},  {46, 336, 336, 5, 1, true},
    // The hand skeleton model's and BlazePose's 5x5 depthwise layers.
    {64, 64, 64, 5, 1, true},    {128, 32, 32, 5, 1, true},
    {128, 24, 24, 3, 1, true},
    // Depthwise layers above the default bound in the median models
    // (handlandmark-lite, selfie, mobilefacenet).
    {56, 96, 96, 5, 2, true},    {112, 64, 64, 3, 2, true},
    {112, 24, 24, 3, 1, true},   {56, 96, 96, 3, 1, true},
    {128, 16, 16, 3, 1, true},   {128, 16, 16, 3, 2, true},
    {64, 72, 72, 3, 2, true},    {56, 128, 128, 3, 2, true},
    {28, 256, 256, 3, 2, true},  {56, 64, 64, 3, 1, true},
    // BlazeBlocks of blazeface (128x128x24), handdetect (128x128x32,
    // 64x64x64): the 1x1 projections and the depthwise layer.
    {128, 24, 24, 1, 1, false},  {128, 32, 32, 1, 1, false},
    {64, 64, 64, 1, 1, false},   {128, 32, 32, 3, 1, true},
    // Larger 1x1 layers: handdetect's 16x16 256 -> 256, MobileNetV2's
    // 56x56 144 -> 24 projection and 112x112 16 -> 96 expansion,
    // handlandmark's 112x112 16 -> 64, a 28x28 192 -> 64.
    {16, 256, 256, 1, 1, false}, {56, 144, 24, 1, 1, false},
    {112, 16, 96, 1, 1, false},  {112, 16, 64, 1, 1, false},
    {28, 192, 64, 1, 1, false},
    // Stem convolutions of 256x256 RGB inputs: handdetect / handskeleton
    // (3x3 /2 -> 32), blazeface (5x5 /2 -> 24).
    {256, 3, 32, 3, 2, false},   {256, 3, 24, 5, 2, false},
    // handlandmark-lite's stem (224x224 RGB, 3x3 /2 -> 24) and its first
    // projection (112x112 24 -> 16).
    {224, 3, 24, 3, 2, false},   {112, 24, 16, 1, 1, false},
    // BlazePose's segmentation head (256x256 3x3 8 -> 1) and a 32 -> 1 one.
    {256, 8, 1, 3, 1, false},    {128, 32, 1, 3, 1, false},
};
constexpr int kNumLayers = sizeof(kLayers) / sizeof(kLayers[0]);

void BM_SmallConv(benchmark::State& state) {
  const SmallLayer& l = kLayers[state.range(0)];
  const bool onednn = state.range(1) == 1;
  nn::XnnConvSpec s;
  s.depthwise = l.depthwise;
  s.kh = s.kw = l.k;
  s.stride_h = s.stride_w = l.stride;
  const int64_t out = (l.hw + l.stride - 1) / l.stride;  // SAME
  const int64_t pad = std::max<int64_t>(0, (out - 1) * l.stride + l.k - l.hw);
  s.pad_top = s.pad_left = pad / 2;
  s.pad_bottom = s.pad_right = pad - pad / 2;
  s.in_channels = l.cin;
  s.out_channels = l.depthwise ? l.cin : l.cout;
  s.out_min = 0.0f;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto random = [&](const Shape& shape) {
    Tensor t = *Tensor::Allocate(DType::kFloat32, shape);
    for (float& v : t.mutable_span<float>()) v = dist(rng);
    return t;
  };
  const Tensor filter = random(l.depthwise ? Shape({l.k, l.k, l.cin, 1})
                                           : Shape({l.k, l.k, l.cin, l.cout}));
  const Tensor bias = random(Shape({s.out_channels}));
  // Cold runs rotate through buffer sets of > 64 MB in all, so each call
  // finds its input and output out of cache, as a layer in a model may.
  const int64_t set_bytes =
      (l.hw * l.hw * l.cin + out * out * s.out_channels) * 4;
  const int sets =
      state.range(2) ? static_cast<int>(64 * 1024 * 1024 / set_bytes + 1) : 1;
  std::vector<Tensor> xs;
  std::vector<std::vector<float>> ys;
  for (int i = 0; i < sets; ++i) {
    xs.push_back(random(Shape({1, l.hw, l.hw, l.cin})));
    ys.emplace_back(out * out * s.out_channels);
  }
  int set = 0;
  nn::DirectConv direct;
  nn::DnnlConv dnnl;
  if (onednn && !nn::DnnlAvailable()) {
    state.SkipWithError("oneDNN off");
    return;
  }
  if (!onednn && !direct.Pack(s, filter).ok()) {
    state.SkipWithError("direct: pack failed");
    return;
  }
  // One thread: the direct kernel splits large calls over the oneTBB
  // arena (DirectConv::Run), oneDNN's calls are single-threaded.
  const ScopedSequential one_thread;
  for (auto _ : state) {
    const float* x = xs[set].data<float>();
    float* y = ys[set].data();
    set = (set + 1) % sets;
    if (onednn) {
      auto done = dnnl.Run(s, filter, &bias, nullptr, x, 1, l.hw, l.hw, out, out,
                           y);
      if (!done.ok() || !*done) {
        state.SkipWithError("oneDNN declined");
        return;
      }
    } else {
      if (!direct
               .Run(s, bias.data<float>(), nullptr, x, 1, l.hw, l.hw, out, out,
                    y)
               .ok()) {
        state.SkipWithError("direct: run failed");
        return;
      }
    }
    benchmark::DoNotOptimize(y);
  }
  const double flops =
      2.0 * out * out * s.out_channels * l.k * l.k * (l.depthwise ? 1 : l.cin);
  state.counters["GFLOP"] = benchmark::Counter(flops * state.iterations() / 1e9,
                                               benchmark::Counter::kIsRate);
  state.SetLabel(absl::StrCat(onednn ? "oneDNN" : "direct",
                              state.range(2) ? " cold" : ""));
}
BENCHMARK(BM_SmallConv)
    ->ArgsProduct(
        {benchmark::CreateDenseRange(0, kNumLayers - 1, 1), {0, 1}, {0, 1}});

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
