// One Run of a model on graphrt's oneTBB arena vs on a host's job system
// (runtime/job_system.h; tests/runtime/host_job_pool.h stands in for the
// host's): what lending graphrt the host's threads costs against its own.
//
//   GRAPHRT_BENCH_MODELS=a.json:a_inputs.json,... bazel run --config=opt \
//       //bench:job_system_bench -- --benchmark_repetitions=6 \
//       --benchmark_enable_random_interleaving=true \
//       --benchmark_report_aggregates_only=true
//
// registers, per model, Run/<model>/threads:1 (inline), Run/<model>/arena:2
// (ModelOptions::threads = 2) and Run/<model>/host:2 (a HostJobPool of one
// worker + the caller; the worker polls for 200 us before it sleeps). Inputs as
// in `graphrt run --inputs` (the corpus goldens work). Each benchmark loads its
// model once, outside the timing.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "runtime/model.h"
#include "tests/runtime/host_job_pool.h"
#include "tools/model_inputs.h"

namespace graphrt {
namespace {

enum class Mode { kInline, kArena, kHost };

void RunModel(benchmark::State& state, const std::string& path,
              const std::string& inputs_path, Mode mode) {
  std::unique_ptr<HostJobPool> pool;
  ModelOptions options;
  options.threads = mode == Mode::kInline ? 1 : 2;
  if (mode == Mode::kHost) {
    pool = std::make_unique<HostJobPool>(1, /*spin_us=*/200);
    options.job_system = pool.get();
  }
  auto model = Model::Load(path, options);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  auto inputs = ReadModelInputs(inputs_path, **model);
  if (!inputs.ok()) {
    state.SkipWithError(std::string(inputs.status().message()).c_str());
    return;
  }
  for (int i = 0; i < 2; ++i) {  // first Runs pack filters and plan
    auto out = (*model)->Run(*inputs);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
  }
  for (auto _ : state) {
    auto out = (*model)->Run(*inputs);
    benchmark::DoNotOptimize(out);
  }
}

std::string Stem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind(".json");
  return dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace
}  // namespace graphrt

int main(int argc, char** argv) {
  using graphrt::Mode;
  const char* spec = std::getenv("GRAPHRT_BENCH_MODELS");
  if (spec == nullptr || *spec == '\0') {
    std::cerr << "job_system_bench: set GRAPHRT_BENCH_MODELS="
                 "model.json:inputs.json,...\n";
    return 2;
  }
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(item, ':');
    if (parts.size() != 2) {
      std::cerr << "GRAPHRT_BENCH_MODELS: expected model.json:inputs.json, got "
                << item << "\n";
      return 2;
    }
    const std::string name = graphrt::Stem(parts[0]);
    for (auto [label, mode] : {std::pair{"threads:1", Mode::kInline},
                               std::pair{"arena:2", Mode::kArena},
                               std::pair{"host:2", Mode::kHost}}) {
      benchmark::RegisterBenchmark(
          ("Run/" + name + "/" + label).c_str(),
          [model = parts[0], inputs = parts[1], m = mode](benchmark::State& s) {
            graphrt::RunModel(s, model, inputs, m);
          })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
