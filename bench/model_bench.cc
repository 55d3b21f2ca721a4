// Google Benchmark: end-to-end Model::Run and Model::Load.
//   bazel run --config=opt //bench:model_bench
//   GRAPHRT_BENCH_LOAD=a.json,b.json bazel run --config=opt //bench:model_bench
//       -- --benchmark_filter=Load/     (one command)
// Each bundled model (models/*/model.json) is run on its sample_input.json
// with 1 thread and with all cores, and loaded (parse + weights + graph
// passes + kernels + initializer) with 1 thread. GRAPHRT_BENCH_LOAD adds
// Load/ benchmarks of other model.json files (e.g. the corpus), in-process
// and warm: what a host that loads many models pays per model. For
// side-by-side numbers against TF.js use bench/compare_tfjs.sh.
//   GRAPHRT_BENCH_CONCURRENT=a.json:a_inputs.json,... bazel run --config=opt
//       //bench:model_bench -- --benchmark_filter=Concurrent/
// adds Concurrent/<model>/threads:N: N host threads call Run on one loaded
// model (threads=1: each Run single-threaded) as fast as they can;
// items_per_second is the total Run throughput, so threads:2 / threads:1
// is the scaling of concurrent callers. The inputs file is a
// sample_input.json or a corpus golden ("inputs" records, converted to the
// declared dtypes: tools/model_inputs.h). On a shared VM whose speed drifts
// from minute to minute, compare threads:1 and threads:2 measured in turn:
// --benchmark_repetitions=6 --benchmark_enable_random_interleaving=true.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "runtime/model.h"
#include "runtime/mutex.h"
#include "tools/model_inputs.h"

namespace graphrt {
namespace {

void RunModel(benchmark::State& state, const std::string& dir, int threads) {
  ModelOptions options;
  options.threads = threads;
  auto model = Model::Load(dir, options);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  auto inputs = ReadModelInputs(dir + "/sample_input.json", **model);
  if (!inputs.ok()) {
    state.SkipWithError(std::string(inputs.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    auto out = (*model)->Run(*inputs);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->data());
  }
}

void LoadModel(benchmark::State& state, const std::string& path) {
  ModelOptions options;
  options.threads = 1;
  for (auto _ : state) {
    auto model = Model::Load(path, options);
    if (!model.ok()) {
      state.SkipWithError(std::string(model.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(model->get());
  }
}

// One model shared by every thread of a Concurrent/ benchmark, loaded on
// first use (Google Benchmark runs the threads of a benchmark together).
struct SharedModel {
  std::unique_ptr<Model> model;
  std::vector<NamedTensor> inputs;
  std::string error;
};

SharedModel& GetShared(const std::string& path, const std::string& inputs) {
  static Mutex mu;
  static auto* cache = new std::map<std::string, std::unique_ptr<SharedModel>>;
  MutexLock lock(&mu);
  auto& slot = (*cache)[path];
  if (slot) return *slot;
  slot = std::make_unique<SharedModel>();
  ModelOptions options;
  options.threads = 1;
  auto model = Model::Load(path, options);
  if (!model.ok()) {
    slot->error = std::string(model.status().message());
    return *slot;
  }
  slot->model = std::move(*model);
  auto read = ReadModelInputs(inputs, *slot->model);
  if (!read.ok()) {
    slot->error = std::string(read.status().message());
    return *slot;
  }
  slot->inputs = *std::move(read);
  return *slot;
}

void RunConcurrent(benchmark::State& state, const std::string& path,
                   const std::string& inputs) {
  SharedModel& shared = GetShared(path, inputs);
  if (!shared.error.empty()) {
    state.SkipWithError(shared.error.c_str());
    return;
  }
  for (auto _ : state) {
    auto out = shared.model->Run(shared.inputs);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->data());
  }
  state.SetItemsProcessed(state.iterations());
}

void RegisterLoad(const std::string& name, const std::string& path) {
  benchmark::RegisterBenchmark(
      ("Load/" + name).c_str(),
      [path](benchmark::State& s) { LoadModel(s, path); })
      ->Unit(benchmark::kMillisecond);
}

void RegisterAll() {
  if (const char* extra = std::getenv("GRAPHRT_BENCH_LOAD")) {
    for (absl::string_view p : absl::StrSplit(extra, ',', absl::SkipEmpty())) {
      RegisterLoad(std::filesystem::path(std::string(p)).stem().string(),
                   std::string(p));
    }
  }
  if (const char* spec = std::getenv("GRAPHRT_BENCH_CONCURRENT")) {
    for (absl::string_view item :
         absl::StrSplit(spec, ',', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(item, ':');
      if (parts.size() != 2) {
        std::cerr
            << "GRAPHRT_BENCH_CONCURRENT: expected model.json:inputs.json, "
               "got '"
            << item << "'\n";
        continue;
      }
      const std::string name = std::filesystem::path(parts[0]).stem().string();
      benchmark::RegisterBenchmark(
          ("Concurrent/" + name).c_str(),
          [model = parts[0], inputs = parts[1]](benchmark::State& s) {
            RunConcurrent(s, model, inputs);
          })
          ->Threads(1)
          ->Threads(2)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  namespace fs = std::filesystem;
  if (!fs::exists("models")) return;
  for (const auto& entry : fs::directory_iterator("models")) {
    if (!fs::exists(entry.path() / "model.json") ||
        !fs::exists(entry.path() / "sample_input.json")) {
      continue;
    }
    std::string dir = entry.path().string();
    std::string name = entry.path().filename().string();
    RegisterLoad(name, dir);
    for (int threads : {1, 0}) {
      benchmark::RegisterBenchmark(
          ("Run/" + name + (threads == 1 ? "/threads:1" : "/threads:all"))
              .c_str(),
          [dir, threads](benchmark::State& s) { RunModel(s, dir, threads); })
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace
}  // namespace graphrt

int main(int argc, char** argv) {
  graphrt::RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
