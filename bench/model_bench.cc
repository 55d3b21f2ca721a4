// Google Benchmark: end-to-end Model::Run on the bundled models.
//   bazel run --config=opt //bench:model_bench
// Each bundled model (models/*/model.json) is run on its sample_input.json
// with 1 thread and with all cores. For side-by-side numbers against TF.js
// use `graphrt bench` and tools/golden (same inputs).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <iostream>

#include "runtime/model.h"
#include "tools/tensor_json.h"

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
  std::vector<NamedTensor> inputs;
  auto records = ReadTensorRecords(dir + "/sample_input.json", "inputs");
  if (!records.ok()) {
    state.SkipWithError(std::string(records.status().message()).c_str());
    return;
  }
  for (auto& r : *records) inputs.push_back({r.name, r.value});
  for (auto _ : state) {
    auto out = (*model)->Run(inputs);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->data());
  }
}

void RegisterAll() {
  namespace fs = std::filesystem;
  if (!fs::exists("models")) return;
  for (const auto& entry : fs::directory_iterator("models")) {
    if (!fs::exists(entry.path() / "model.json") ||
        !fs::exists(entry.path() / "sample_input.json")) {
      continue;
    }
    std::string dir = entry.path().string();
    std::string name = entry.path().filename().string();
    for (int threads : {1, 0}) {
      benchmark::RegisterBenchmark(
          ("Run/" + name + (threads == 1 ? "/threads:1" : "/threads:all")).c_str(),
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
