// Kernel throughput on MobileNetV2-224 shapes (GFLOP/s, 2 FLOPs per
// multiply-add), through the registered kernels exactly as the executor
// runs them (KernelContext, output allocation, epilogue).
//
//   bazel run --config=opt //bench:kernel_bench -- --benchmark_repetitions=3
//   GRAPHRT_XNNPACK=0 bazel-bin/bench/kernel_bench   # portable path
//
// BM_Layer/i: one layer of MobileNetV2 (width 1.0, 224x224 input): the stem
// 3x3/2 conv, every inverted-residual block's 1x1 expand, 3x3 depthwise and
// 1x1 project, the 1x1 head conv, and the 1280x1000 classifier MatMul.
// BM_MobileNetV2Stack: all layers back to back = the convolution part of
// one MobileNetV2 inference (no residual adds / pooling: < 1% of its time).
// BM_Pool/i: pooling on the age model's shapes (below).
// BM_Activation/i: Prelu / LeakyRelu / Relu / Sigmoid / Tanh on
// random-signed floats.
// BM_ResizeBilinear/i: 2x bilinear upsampling (BlazePose's decoder shapes).
// BM_NonMaxSuppression: NonMaxSuppressionV5 on handtrack's shape (below).
// BM_DecodeHalves: the loader's float16 -> float32 weight decoding
// (loader/weights_decoder.h), GB/s of float16 input.
// Times are thread CPU time (Google Benchmark's default), so a loaded
// machine inflates them less than wall time; compare GFLOP/s with
// //bench:peak_flops.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loader/weights_decoder.h"
#include "ops/kernel.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace {

enum class Kind { kConv, kDepthwise, kMatMul };

struct Layer {
  Kind kind;
  int64_t in_hw, cin, cout, k, stride;
  const char* act;  // "Relu6" or "" (linear bottleneck)
};

std::vector<Layer> MobileNetV2Layers() {
  std::vector<Layer> layers;
  layers.push_back({Kind::kConv, 224, 3, 32, 3, 2, "Relu6"});
  int64_t hw = 112, c = 32;
  // (expansion t, channels, repeats n, first stride s) per stage.
  const int stages[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2},
                            {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2},
                            {6, 320, 1, 1}};
  for (const auto& st : stages) {
    for (int r = 0; r < st[2]; ++r) {
      const int64_t stride = r == 0 ? st[3] : 1;
      const int64_t hidden = c * st[0];
      if (st[0] != 1)
        layers.push_back({Kind::kConv, hw, c, hidden, 1, 1, "Relu6"});
      layers.push_back(
          {Kind::kDepthwise, hw, hidden, hidden, 3, stride, "Relu6"});
      hw = (hw + stride - 1) / stride;
      layers.push_back({Kind::kConv, hw, hidden, st[1], 1, 1, ""});
      c = st[1];
    }
  }
  layers.push_back({Kind::kConv, hw, c, 1280, 1, 1, "Relu6"});
  layers.push_back({Kind::kMatMul, 1, 1280, 1000, 1, 1, ""});
  return layers;
}

double LayerFlops(const Layer& l) {
  const double out_hw =
      static_cast<double>((l.in_hw + l.stride - 1) / l.stride);
  if (l.kind == Kind::kMatMul) return 2.0 * l.cin * l.cout;
  if (l.kind == Kind::kDepthwise)
    return 2.0 * out_hw * out_hw * l.cout * l.k * l.k;
  return 2.0 * out_hw * out_hw * l.cin * l.cout * l.k * l.k;
}

Tensor RandomTensor(const Shape& shape, std::mt19937* rng) {
  Tensor t = *Tensor::Allocate(DType::kFloat32, shape);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : t.mutable_span<float>()) v = dist(*rng);
  return t;
}

// A created kernel with its (constant) inputs.
struct PreparedLayer {
  tensorflow::NodeDef node;
  std::unique_ptr<Kernel> kernel;
  std::vector<Tensor> inputs;
};

std::unique_ptr<PreparedLayer> Prepare(const Layer& l) {
  auto p = std::make_unique<PreparedLayer>();
  std::mt19937 rng(1);
  auto& attr = *p->node.mutable_attr();
  attr["T"].set_type(tensorflow::DT_FLOAT);
  if (l.kind == Kind::kMatMul) {
    p->node.set_op("_FusedMatMul");
    attr["fused_ops"].mutable_list()->add_s("BiasAdd");
    attr["num_args"].set_i(1);
    p->inputs = {RandomTensor(Shape({1, l.cin}), &rng),
                 RandomTensor(Shape({l.cin, l.cout}), &rng),
                 RandomTensor(Shape({l.cout}), &rng)};
  } else {
    const bool dw = l.kind == Kind::kDepthwise;
    p->node.set_op(dw ? "FusedDepthwiseConv2dNative" : "_FusedConv2D");
    for (int64_t s : {int64_t{1}, l.stride, l.stride, int64_t{1}}) {
      attr["strides"].mutable_list()->add_i(s);
    }
    attr["padding"].set_s("SAME");
    attr["fused_ops"].mutable_list()->add_s("BiasAdd");
    if (l.act[0] != '\0') attr["fused_ops"].mutable_list()->add_s(l.act);
    attr["num_args"].set_i(1);
    p->inputs = {RandomTensor(Shape({1, l.in_hw, l.in_hw, l.cin}), &rng),
                 RandomTensor(dw ? Shape({l.k, l.k, l.cin, 1})
                                 : Shape({l.k, l.k, l.cin, l.cout}),
                              &rng),
                 RandomTensor(Shape({l.cout}), &rng)};
  }
  p->node.set_name("layer");
  KernelInit init{p->node, static_cast<int>(p->inputs.size())};
  auto kernel = BuiltinOps().Find(p->node.op())(init);
  if (!kernel.ok()) return nullptr;
  p->kernel = std::move(*kernel);
  return p;
}

bool RunOnce(const PreparedLayer& p, ResourceManager* resources) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : p.inputs) ptrs.push_back(&t);
  std::vector<Tensor> outputs;
  KernelContext ctx(ptrs, &outputs, resources);
  return p.kernel->Run(ctx).ok();
}

// Makes p->kernel from p->node for p->inputs and runs it once; on failure
// marks the benchmark skipped and returns false.
bool MakeKernel(PreparedLayer* p, ResourceManager* resources,
                benchmark::State& state) {
  KernelFactory factory = BuiltinOps().Find(p->node.op());
  if (factory != nullptr) {
    auto kernel =
        factory(KernelInit{p->node, static_cast<int>(p->inputs.size())});
    if (kernel.ok()) p->kernel = std::move(*kernel);
  }
  if (p->kernel == nullptr || !RunOnce(*p, resources)) {
    state.SkipWithError("kernel creation or run failed");
    return false;
  }
  return true;
}

void BM_Layer(benchmark::State& state) {
  const auto layers = MobileNetV2Layers();
  const Layer& l = layers[state.range(0)];
  auto p = Prepare(l);
  ResourceManager resources;
  if (p == nullptr || !RunOnce(*p, &resources)) {
    state.SkipWithError("kernel creation or run failed");
    return;
  }
  for (auto _ : state) RunOnce(*p, &resources);
  state.counters["GFLOP/s"] = benchmark::Counter(
      LayerFlops(l) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  const char* kind = l.kind == Kind::kConv        ? "conv"
                     : l.kind == Kind::kDepthwise ? "dw"
                                                  : "matmul";
  state.SetLabel(absl::StrCat(kind, " ", l.k, "x", l.k, "/", l.stride, " ",
                              l.in_hw, "x", l.in_hw, "x", l.cin, "->", l.cout));
}
BENCHMARK(BM_Layer)->DenseRange(0, 52);

void BM_MobileNetV2Stack(benchmark::State& state) {
  std::vector<std::unique_ptr<PreparedLayer>> prepared;
  double flops = 0;
  ResourceManager resources;
  for (const Layer& l : MobileNetV2Layers()) {
    prepared.push_back(Prepare(l));
    flops += LayerFlops(l);
    if (prepared.back() == nullptr || !RunOnce(*prepared.back(), &resources)) {
      state.SkipWithError("kernel creation or run failed");
      return;
    }
  }
  for (auto _ : state) {
    for (const auto& p : prepared) RunOnce(*p, &resources);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(
      absl::StrCat(prepared.size(), " layers, ", flops / 1e9, " GFLOP"));
}
BENCHMARK(BM_MobileNetV2Stack)->Unit(benchmark::kMillisecond);

// BM_Pool/i: MaxPool / AvgPool (VALID, window = stride) on the shapes of
// the corpus's age model (SSR-Net: 32 and 16 channels), antispoof's first
// MaxPool (126x126x64) and BlazeFace's (128x128x24), in GB/s of input.
struct PoolShape {
  const char* op;
  int64_t hw, c, k;
};
constexpr PoolShape kPoolShapes[] = {
    {"MaxPool", 62, 32, 2}, {"AvgPool", 62, 16, 2},  {"MaxPool", 14, 32, 4},
    {"AvgPool", 8, 16, 8},  {"MaxPool", 126, 64, 2}, {"MaxPool", 128, 24, 2}};

void BM_Pool(benchmark::State& state) {
  const PoolShape& shape = kPoolShapes[state.range(0)];
  PreparedLayer p;
  p.node.set_op(shape.op);
  p.node.set_name("pool");
  auto& attr = *p.node.mutable_attr();
  attr["T"].set_type(tensorflow::DT_FLOAT);
  attr["padding"].set_s("VALID");
  for (int64_t s : {int64_t{1}, shape.k, shape.k, int64_t{1}}) {
    attr["ksize"].mutable_list()->add_i(s);
    attr["strides"].mutable_list()->add_i(s);
  }
  std::mt19937 rng(1);
  p.inputs = {RandomTensor(Shape({1, shape.hw, shape.hw, shape.c}), &rng)};
  ResourceManager resources;
  if (!MakeKernel(&p, &resources, state)) return;
  for (auto _ : state) RunOnce(p, &resources);
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(p.inputs[0].num_elements()) *
                             sizeof(float) * state.iterations() / 1e9,
                         benchmark::Counter::kIsRate);
  state.SetLabel(absl::StrCat(shape.op, " ", shape.k, "x", shape.k, " ",
                              shape.hw, "x", shape.hw, "x", shape.c));
}
BENCHMARK(BM_Pool)->DenseRange(0, 5);

// BM_ResizeBilinear/i: 2x upsampling with half-pixel centers, as Keras's
// UpSampling2D(interpolation="bilinear") exports it (BlazePose's decoder:
// 128x128x8 -> 256x256x8 is its largest), in GB/s of output.
struct ResizeShape {
  int64_t hw, c;
};
constexpr ResizeShape kResizeShapes[] = {{128, 8}, {64, 8}, {32, 16}, {16, 32}};

void BM_ResizeBilinear(benchmark::State& state) {
  const ResizeShape& shape = kResizeShapes[state.range(0)];
  PreparedLayer p;
  p.node.set_op("ResizeBilinear");
  p.node.set_name("resize");
  auto& attr = *p.node.mutable_attr();
  attr["T"].set_type(tensorflow::DT_FLOAT);
  attr["half_pixel_centers"].set_b(true);
  std::mt19937 rng(1);
  const int32_t out_hw = static_cast<int32_t>(2 * shape.hw);
  p.inputs = {RandomTensor(Shape({1, shape.hw, shape.hw, shape.c}), &rng),
              Tensor::FromVector<int32_t>({out_hw, out_hw}, Shape({2}))};
  ResourceManager resources;
  if (!MakeKernel(&p, &resources, state)) return;
  for (auto _ : state) RunOnce(p, &resources);
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(4 * p.inputs[0].num_elements()) *
                             sizeof(float) * state.iterations() / 1e9,
                         benchmark::Counter::kIsRate);
  state.SetLabel(absl::StrCat(shape.hw, "x", shape.hw, "x", shape.c, " -> ",
                              out_hw, "x", out_hw));
}
BENCHMARK(BM_ResizeBilinear)->DenseRange(0, 3);

// BM_Activation/i: element-wise activations with a condition on facemesh's
// first shape (96x96x16, values in [-1, 1): signs at random, as after a
// convolution), in GB/s of input. Prelu's alpha is per channel [1, 1, 16].
constexpr const char* kActivationOps[] = {"Prelu", "LeakyRelu", "Relu",
                                          "Sigmoid", "Tanh"};

void BM_Activation(benchmark::State& state) {
  const char* op = kActivationOps[state.range(0)];
  PreparedLayer p;
  p.node.set_op(op);
  p.node.set_name("act");
  (*p.node.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  std::mt19937 rng(1);
  p.inputs = {RandomTensor(Shape({1, 96, 96, 16}), &rng)};
  if (std::string(op) == "Prelu") {
    p.inputs.push_back(RandomTensor(Shape({1, 1, 16}), &rng));
  }
  ResourceManager resources;
  if (!MakeKernel(&p, &resources, state)) return;
  for (auto _ : state) RunOnce(p, &resources);
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(p.inputs[0].num_elements()) *
                             sizeof(float) * state.iterations() / 1e9,
                         benchmark::Counter::kIsRate);
  state.SetLabel(absl::StrCat(op, " 96x96x16"));
}
BENCHMARK(BM_Activation)->DenseRange(0, 4);

// BM_NonMaxSuppression: NonMaxSuppressionV5 as handtrack's SSD post-processor
// calls it seven times per Run: 12,804 boxes, every score above the
// threshold (1e-8, sigmoid outputs), max_output_size 100, IoU 0.6, hard NMS.
// Boxes are random (centers uniform, sides 0.05-0.3), scores sigmoids of
// N(-4, 2); in Runs per second, as a time per call.
void BM_NonMaxSuppression(benchmark::State& state) {
  constexpr int64_t kBoxes = 12804;
  PreparedLayer p;
  p.node.set_op("NonMaxSuppressionV5");
  p.node.set_name("nms");
  (*p.node.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*p.node.mutable_attr())["pad_to_max_output_size"].set_b(false);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> logit(-4.0f, 2.0f);
  Tensor boxes = *Tensor::Allocate(DType::kFloat32, Shape({kBoxes, 4}));
  Tensor scores = *Tensor::Allocate(DType::kFloat32, Shape({kBoxes}));
  float* b = boxes.mutable_data<float>();
  for (int64_t i = 0; i < kBoxes; ++i) {
    const float cy = unit(rng), cx = unit(rng);
    const float h = 0.05f + 0.25f * unit(rng), w = 0.05f + 0.25f * unit(rng);
    b[4 * i + 0] = cy - h / 2;
    b[4 * i + 1] = cx - w / 2;
    b[4 * i + 2] = cy + h / 2;
    b[4 * i + 3] = cx + w / 2;
    scores.mutable_data<float>()[i] = 1.0f / (1.0f + std::exp(-logit(rng)));
  }
  auto scalar = [](auto v) {
    Tensor t = *Tensor::Allocate(DTypeOf<decltype(v)>::value, Shape({}));
    *t.template mutable_data<decltype(v)>() = v;
    return t;
  };
  p.inputs = {std::move(boxes), std::move(scores), scalar(int32_t{100}),
              scalar(0.6f),     scalar(1e-8f),     scalar(0.0f)};
  ResourceManager resources;
  if (!MakeKernel(&p, &resources, state)) return;
  for (auto _ : state) RunOnce(p, &resources);
  state.SetLabel("12804 boxes -> 100");
}
BENCHMARK(BM_NonMaxSuppression);

// 1M float16 values of every kind (random bits: normals, subnormals, zeros,
// infinities, NaNs), decoded into a buffer that stays resident.
void BM_DecodeHalves(benchmark::State& state) {
  constexpr int64_t kCount = 1 << 20;
  std::mt19937 rng(1);
  std::vector<uint16_t> halves(kCount);
  for (uint16_t& h : halves) h = static_cast<uint16_t>(rng());
  std::vector<float> out(kCount);
  for (auto _ : state) {
    tfjs_internal::DecodeHalves(reinterpret_cast<const char*>(halves.data()),
                                kCount, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["GB/s"] = benchmark::Counter(
      static_cast<double>(kCount) * sizeof(uint16_t) * state.iterations() / 1e9,
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DecodeHalves);

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
