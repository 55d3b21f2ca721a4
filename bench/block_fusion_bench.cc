// Would fusing a block's convolutions per band of rows pay on this
// machine? Two blocks, one thread, each run three ways:
//
//   bazel run --config=opt //bench:block_fusion_bench
//
// BM_Block/hw/c/mode/band/k: a BlazeBlock (BlazeFace, BlazePose, hand
// detector): x [hw, hw, c] -> depthwise k x k -> 1x1 c -> c + bias + x ->
// Relu. BM_Inverted/hw/c/e/stride/mode/band: a MobileNetV2 inverted
// residual: x [hw, hw, c] -> 1x1 c -> e + bias, Relu6 -> depthwise 3x3
// stride + bias, Relu6 -> 1x1 e -> c + bias.
//   mode 0: oneDNN, one call per convolution (what graphrt runs for large
//           layers today);
//   mode 1: graphrt's direct kernel, one call per convolution;
//   mode 2: the direct kernel per band of `band` output rows: the
//           intermediate rows live in a band buffer (L1/L2), never in a
//           whole tensor; an inverted residual's expanded rows are each
//           computed once (the rows the next band's windows share move to
//           the top of the buffer);
//   mode 3 (BM_Inverted): as 2 but the projection runs afterwards on
//           oneDNN over the whole depthwise output.
// Modes 1-3 pack their filters with DirectConv::Pack, so they run on the
// direct kernel whatever its Prefers() bounds say. Each iteration takes the
// next of kSets buffer sets, so that it does not find the previous iteration's
// tensors in L2. Results: bench/RESULTS.md, "Block fusion, measured (session
// 23)".
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ops/nn/direct/direct_conv.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "runtime/parallel.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace {

constexpr int kSets = 4;

// A float32 tensor of `shape` with values uniform in [-scale, scale).
Tensor RandomTensor(const Shape& shape, float scale, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t = *Tensor::Allocate(DType::kFloat32, shape);
  for (float& v : t.mutable_span<float>()) v = dist(*rng) * scale;
  return t;
}

void BM_Block(benchmark::State& state) {
  const int64_t hw = state.range(0), c = state.range(1);
  const int mode = static_cast<int>(state.range(2));
  const int64_t band = state.range(3);
  const int64_t k = state.range(4);
  nn::XnnConvSpec dw;
  dw.depthwise = true;
  dw.kh = dw.kw = k;
  dw.pad_top = dw.pad_left = dw.pad_bottom = dw.pad_right = k / 2;
  dw.in_channels = dw.out_channels = c;
  nn::XnnConvSpec pw;
  pw.in_channels = pw.out_channels = c;
  pw.out_min = 0.0f;
  std::mt19937 rng(1);
  auto random = [&](const Shape& shape) {
    return RandomTensor(shape, 1.0f, &rng);
  };
  const Tensor fdw = random(Shape({k, k, c, 1}));
  const Tensor fpw = random(Shape({1, 1, c, c}));
  const Tensor bias = random(Shape({c}));
  std::vector<Tensor> xs;
  std::vector<std::vector<float>> ys, ds;
  for (int i = 0; i < kSets; ++i) {
    xs.push_back(random(Shape({1, hw, hw, c})));
    ys.emplace_back(hw * hw * c);
    ds.emplace_back(hw * hw * c);
  }
  std::vector<float> bandbuf(band * hw * c);
  nn::DirectConv ddw, dpw;
  nn::DnnlConv ndw, npw;
  if (!ddw.Pack(dw, fdw).ok() || !dpw.Pack(pw, fpw).ok()) {
    state.SkipWithError("pack");
    return;
  }
  int set = 0;
  // One thread: the direct kernel splits large calls over the oneTBB
  // arena (DirectConv::Run), oneDNN's calls are single-threaded.
  const ScopedSequential one_thread;
  for (auto _ : state) {
    const float* x = xs[set].data<float>();
    float* y = ys[set].data();
    float* d = ds[set].data();
    set = (set + 1) % kSets;
    if (mode == 0) {
      (void)ndw.Run(dw, fdw, nullptr, nullptr, x, 1, hw, hw, hw, hw, d);
      (void)npw.Run(pw, fpw, &bias, x, d, 1, hw, hw, hw, hw, y);
    } else if (mode == 1) {
      (void)ddw.Run(dw, nullptr, nullptr, x, 1, hw, hw, hw, hw, d);
      (void)dpw.Run(pw, bias.data<float>(), x, d, 1, hw, hw, hw, hw, y);
    } else {
      for (int64_t y0 = 0; y0 < hw; y0 += band) {
        const int64_t y1 = std::min(hw, y0 + band);
        const int64_t top = y0 - dw.pad_top;
        const int64_t r0 = std::max<int64_t>(0, top);
        const int64_t r1 = std::min(hw, (y1 - 1) - dw.pad_top + k);
        nn::XnnConvSpec s = dw;
        s.pad_top = r0 - top;
        (void)ddw.Run(s, nullptr, nullptr, x + r0 * hw * c, 1, r1 - r0, hw,
                      y1 - y0, hw, bandbuf.data());
        (void)dpw.Run(pw, bias.data<float>(), x + y0 * hw * c, bandbuf.data(),
                      1, y1 - y0, hw, y1 - y0, hw, y + y0 * hw * c);
      }
    }
    benchmark::DoNotOptimize(y);
  }
  const double flops = 2.0 * hw * hw * c * (k * k + c);
  state.counters["GFLOP"] = benchmark::Counter(flops * state.iterations() / 1e9,
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Block)
    ->Args({128, 24, 0, 0, 3})
    ->Args({128, 24, 1, 0, 3})
    ->Args({128, 24, 2, 4, 3})
    ->Args({128, 24, 2, 8, 3})
    ->Args({128, 24, 2, 16, 3})
    ->Args({64, 24, 0, 0, 3})
    ->Args({64, 24, 1, 0, 3})
    ->Args({64, 24, 2, 8, 3})
    ->Args({64, 32, 0, 0, 5})
    ->Args({64, 32, 1, 0, 5})
    ->Args({64, 32, 2, 8, 5})
    ->Args({64, 64, 0, 0, 5})
    ->Args({64, 64, 1, 0, 5})
    ->Args({64, 64, 2, 8, 5})
    ->Args({32, 96, 0, 0, 5})
    ->Args({32, 96, 1, 0, 5})
    ->Args({32, 96, 2, 8, 5});

// MobileNetV2 inverted residual: x [hw, hw, c] -> 1x1 c -> e (+bias,
// relu6) -> depthwise 3x3 stride s (+bias, relu6) -> 1x1 e -> c (+bias).
// mode 0: oneDNN, three calls; mode 1: direct kernel, three calls; mode 2:
// direct kernel per band of `band` output rows, the expanded rows in a
// buffer whose last kh - s rows move to the top for the next band (each
// expanded row computed once).
void BM_Inverted(benchmark::State& state) {
  const int64_t hw = state.range(0), c = state.range(1), e = state.range(2);
  const int64_t st = state.range(3);
  const int mode = static_cast<int>(state.range(4));
  const int64_t band = state.range(5);
  const int64_t k = 3;
  const int64_t ohw = (hw + st - 1) / st;
  const int64_t pad = std::max<int64_t>(0, (ohw - 1) * st + k - hw);
  nn::XnnConvSpec ex;
  ex.in_channels = c;
  ex.out_channels = e;
  ex.out_min = 0.0f;
  ex.out_max = 6.0f;
  nn::XnnConvSpec dw;
  dw.depthwise = true;
  dw.kh = dw.kw = k;
  dw.stride_h = dw.stride_w = st;
  dw.pad_top = dw.pad_left = pad / 2;
  dw.pad_bottom = dw.pad_right = pad - pad / 2;
  dw.in_channels = dw.out_channels = e;
  dw.out_min = 0.0f;
  dw.out_max = 6.0f;
  nn::XnnConvSpec pj;
  pj.in_channels = e;
  pj.out_channels = c;
  std::mt19937 rng(1);
  auto random = [&](const Shape& shape) {
    return RandomTensor(shape, 0.2f, &rng);
  };
  const Tensor fex = random(Shape({1, 1, c, e}));
  const Tensor fdw = random(Shape({k, k, e, 1}));
  const Tensor fpj = random(Shape({1, 1, e, c}));
  const Tensor bex = random(Shape({e}));
  const Tensor bdw = random(Shape({e}));
  const Tensor bpj = random(Shape({c}));
  std::vector<Tensor> xs;
  std::vector<std::vector<float>> ys, es, ds;
  for (int i = 0; i < kSets; ++i) {
    xs.push_back(random(Shape({1, hw, hw, c})));
    ys.emplace_back(ohw * ohw * c);
    es.emplace_back(hw * hw * e);
    ds.emplace_back(ohw * ohw * e);
  }
  const int64_t ring_rows = (band - 1) * st + k;
  std::vector<float> ring(ring_rows * hw * e), dband(band * ohw * e);
  nn::DirectConv dex, ddw, dpj;
  nn::DnnlConv nex, ndw, npj;
  if (!dex.Pack(ex, fex).ok() || !ddw.Pack(dw, fdw).ok() ||
      !dpj.Pack(pj, fpj).ok()) {
    state.SkipWithError("pack");
    return;
  }
  int set = 0;
  // One thread: the direct kernel splits large calls over the oneTBB
  // arena (DirectConv::Run), oneDNN's calls are single-threaded.
  const ScopedSequential one_thread;
  for (auto _ : state) {
    const float* x = xs[set].data<float>();
    float* y = ys[set].data();
    float* ebuf = es[set].data();
    float* d = ds[set].data();
    set = (set + 1) % kSets;
    if (mode == 0) {
      (void)nex.Run(ex, fex, &bex, nullptr, x, 1, hw, hw, hw, hw, ebuf);
      (void)ndw.Run(dw, fdw, &bdw, nullptr, ebuf, 1, hw, hw, ohw, ohw, d);
      (void)npj.Run(pj, fpj, &bpj, nullptr, d, 1, ohw, ohw, ohw, ohw, y);
    } else if (mode == 1) {
      (void)dex.Run(ex, bex.data<float>(), nullptr, x, 1, hw, hw, hw, hw, ebuf);
      (void)ddw.Run(dw, bdw.data<float>(), nullptr, ebuf, 1, hw, hw, ohw, ohw,
                    d);
      (void)dpj.Run(pj, bpj.data<float>(), nullptr, d, 1, ohw, ohw, ohw, ohw,
                    y);
    } else {
      // Rows of the expanded tensor held in `ring`: [have0, have1).
      int64_t have0 = 0, have1 = 0;
      for (int64_t y0 = 0; y0 < ohw; y0 += band) {
        const int64_t y1 = std::min(ohw, y0 + band);
        const int64_t top = y0 * st - dw.pad_top;
        const int64_t r0 = std::max<int64_t>(0, top);
        const int64_t r1 = std::min(hw, (y1 - 1) * st - dw.pad_top + k);
        // Keep rows [r0, have1) already expanded: move them to the top.
        int64_t keep = 0;
        if (r0 < have1 && r0 >= have0) {
          keep = have1 - r0;
          std::memmove(ring.data(), ring.data() + (r0 - have0) * hw * e,
                       sizeof(float) * keep * hw * e);
        }
        const int64_t from = r0 + keep;
        if (r1 > from) {
          (void)dex.Run(ex, bex.data<float>(), nullptr, x + from * hw * c, 1,
                        r1 - from, hw, r1 - from, hw,
                        ring.data() + keep * hw * e);
        }
        have0 = r0;
        have1 = r1;
        nn::XnnConvSpec s = dw;
        s.pad_top = r0 - top;
        (void)ddw.Run(s, bdw.data<float>(), nullptr, ring.data(), 1, r1 - r0,
                      hw, y1 - y0, ohw, dband.data());
        if (mode == 2) {
          (void)dpj.Run(pj, bpj.data<float>(), nullptr, dband.data(), 1,
                        y1 - y0, ohw, y1 - y0, ohw, y + y0 * ohw * c);
        } else {
          std::memcpy(d + y0 * ohw * e, dband.data(),
                      sizeof(float) * (y1 - y0) * ohw * e);
        }
      }
      if (mode == 3) {
        (void)npj.Run(pj, fpj, &bpj, nullptr, d, 1, ohw, ohw, ohw, ohw, y);
      }
    }
    benchmark::DoNotOptimize(y);
  }
  const double flops = 2.0 * (hw * hw * c * e + ohw * ohw * e * (k * k + c));
  state.counters["GFLOP"] = benchmark::Counter(flops * state.iterations() / 1e9,
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Inverted)
    ->Args({112, 16, 96, 2, 0, 0})
    ->Args({112, 16, 96, 2, 1, 0})
    ->Args({112, 16, 96, 2, 2, 4})
    ->Args({112, 16, 96, 2, 2, 8})
    ->Args({112, 16, 96, 2, 3, 4})
    ->Args({56, 24, 144, 1, 3, 4})
    ->Args({56, 24, 144, 2, 3, 4})
    ->Args({28, 32, 192, 1, 3, 4})
    ->Args({56, 24, 144, 1, 0, 0})
    ->Args({56, 24, 144, 1, 1, 0})
    ->Args({56, 24, 144, 1, 2, 4})
    ->Args({56, 24, 144, 1, 2, 8})
    ->Args({56, 24, 144, 2, 0, 0})
    ->Args({56, 24, 144, 2, 1, 0})
    ->Args({56, 24, 144, 2, 2, 4})
    ->Args({28, 32, 192, 1, 0, 0})
    ->Args({28, 32, 192, 1, 1, 0})
    ->Args({28, 32, 192, 1, 2, 4});

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
