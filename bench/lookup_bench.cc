// Google Benchmark: hash-table lookups, imports, model load and RSS.
//
//   bazel run --config=opt //bench:lookup_bench
//
// * Find/<key>/<table size>/<hit %>: batched LookupTableFindV2 (the kernel,
//   through a KernelContext) on a static HashTable, 4096 keys per call,
//   against RawFind/...: an absl::flat_hash_map<K, int64_t> find loop over
//   the same keys writing into the same kind of output buffer.
// * ImportV2/1M: LookupTableImportV2 of 1M string->int64 entries into a
//   fresh table.
// * Memory/1M_strings: RSS growth of building a 1M-string->int64 table,
//   reported as bytes per entry over the key+value bytes.
// * ModelLoad/text_classifier_1M and ModelRun/text_classifier_1M: load +
//   initializer of the 1M-vocab text classifier, and one Run on its sample
//   input. The model is generated on first use into
//   $GRAPHRT_CACHE/lookup_bench (default ~/.cache/graphrt/lookup_bench) with
//   models/text_classifier/generate.py (python3; found through
//   $BUILD_WORKSPACE_DIRECTORY under `bazel run`, else the working dir).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ops/lookup/hash_table.h"
#include "ops/registry.h"
#include "runtime/model.h"
#include "tools/tensor_json.h"

namespace graphrt {
namespace {

constexpr int64_t kBatch = 4096;

std::string Word(int64_t i) {
  // Vocabulary-like keys of 6..12 bytes.
  std::string s = "w" + std::to_string(i * 2654435761ULL % 1000000007ULL);
  return s;
}

template <typename K>
K MakeKey(int64_t i) {
  if constexpr (std::is_same_v<K, std::string>) {
    return Word(i);
  } else {
    return static_cast<K>(i * 0x9E3779B1LL + 17);
  }
}

template <typename K>
struct Fixture {
  Tensor handle;
  std::shared_ptr<HashTable> table;
  absl::flat_hash_map<K, int64_t> raw;
  Tensor keys;
  Tensor dflt;
};

template <typename K>
Fixture<K>& GetFixture(int64_t size, int hit_pct) {
  static std::map<std::pair<int64_t, int>, std::unique_ptr<Fixture<K>>> cache;
  auto& f = cache[{size, hit_pct}];
  if (f) return *f;
  f = std::make_unique<Fixture<K>>();
  const DType kd = DTypeOf<K>::value;
  f->table = *HashTable::Create(kd, DType::kInt64);
  Tensor keys = *Tensor::Allocate(kd, Shape({size}));
  Tensor values = *Tensor::Allocate(DType::kInt64, Shape({size}));
  f->raw.reserve(size);
  for (int64_t i = 0; i < size; ++i) {
    keys.mutable_data<K>()[i] = MakeKey<K>(i);
    values.mutable_data<int64_t>()[i] = i;
    f->raw.emplace(MakeKey<K>(i), i);
  }
  if (!f->table->Initialize(keys, values).ok()) std::abort();
  f->handle = *Tensor::Allocate(DType::kResource, Shape());
  f->handle.template mutable_data<ResourceHandle>()->resource = f->table;
  std::mt19937_64 rng(42);
  f->keys = *Tensor::Allocate(kd, Shape({kBatch}));
  for (int64_t i = 0; i < kBatch; ++i) {
    const bool hit = static_cast<int>(rng() % 100) < hit_pct;
    const int64_t r = static_cast<int64_t>(rng() % size);
    f->keys.template mutable_data<K>()[i] = MakeKey<K>(hit ? r : size + r);
  }
  f->dflt = Tensor::Scalar<int64_t>(-1);
  return *f;
}

template <typename K>
void BM_Find(benchmark::State& state) {
  auto& f = GetFixture<K>(state.range(0), static_cast<int>(state.range(1)));
  tensorflow::NodeDef node;
  node.set_name("find");
  node.set_op("LookupTableFindV2");
  KernelInit init{node, 3, nullptr};
  auto kernel = BuiltinOps().Find("LookupTableFindV2")(init);
  if (!kernel.ok()) std::abort();
  const Tensor* inputs[] = {&f.handle, &f.keys, &f.dflt};
  for (auto _ : state) {
    std::vector<Tensor> outputs;
    KernelContext ctx(inputs, &outputs, nullptr);
    if (!(*kernel)->Run(ctx).ok()) std::abort();
    benchmark::DoNotOptimize(outputs[0].raw_data());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

template <typename K>
void BM_RawFind(benchmark::State& state) {
  auto& f = GetFixture<K>(state.range(0), static_cast<int>(state.range(1)));
  const K* keys = f.keys.template data<K>();
  for (auto _ : state) {
    // Same work as the kernel's output: a fresh int64 buffer per batch.
    Tensor out = *Tensor::Allocate(DType::kInt64, Shape({kBatch}));
    int64_t* o = out.mutable_data<int64_t>();
    for (int64_t i = 0; i < kBatch; ++i) {
      auto it = f.raw.find(keys[i]);
      o[i] = it == f.raw.end() ? -1 : it->second;
    }
    benchmark::DoNotOptimize(o);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void FindArgs(benchmark::internal::Benchmark* b) {
  for (int64_t size : {10000, 1000000}) {
    for (int hit : {100, 50, 0}) b->Args({size, hit});
  }
}

BENCHMARK_TEMPLATE(BM_Find, int64_t)->Apply(FindArgs)->Name("Find/int64");
BENCHMARK_TEMPLATE(BM_RawFind, int64_t)->Apply(FindArgs)->Name("RawFind/int64");
BENCHMARK_TEMPLATE(BM_Find, std::string)->Apply(FindArgs)->Name("Find/string");
BENCHMARK_TEMPLATE(BM_RawFind, std::string)->Apply(FindArgs)->Name("RawFind/string");

std::pair<Tensor, Tensor> StringVocab(int64_t n) {
  Tensor keys = *Tensor::Allocate(DType::kString, Shape({n}));
  Tensor values = *Tensor::Allocate(DType::kInt64, Shape({n}));
  for (int64_t i = 0; i < n; ++i) {
    keys.mutable_data<std::string>()[i] = Word(i);
    values.mutable_data<int64_t>()[i] = i;
  }
  return {keys, values};
}

void BM_ImportV2(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto [keys, values] = StringVocab(n);
  tensorflow::NodeDef node;
  node.set_name("import");
  node.set_op("LookupTableImportV2");
  KernelInit init{node, 3, nullptr};
  auto kernel = BuiltinOps().Find("LookupTableImportV2")(init);
  if (!kernel.ok()) std::abort();
  for (auto _ : state) {
    state.PauseTiming();
    Tensor handle = *Tensor::Allocate(DType::kResource, Shape());
    handle.mutable_data<ResourceHandle>()->resource =
        *HashTable::Create(DType::kString, DType::kInt64);
    state.ResumeTiming();
    const Tensor* inputs[] = {&handle, &keys, &values};
    std::vector<Tensor> outputs;
    KernelContext ctx(inputs, &outputs, nullptr);
    if (!(*kernel)->Run(ctx).ok()) std::abort();
    state.PauseTiming();
    handle = Tensor();  // frees the table outside the timing
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ImportV2)->Arg(1000000)->Name("ImportV2/string_to_int64")
    ->Unit(benchmark::kMillisecond)->Iterations(5);

int64_t RssBytes() {
  std::ifstream f("/proc/self/statm");
  int64_t pages = 0, rss = 0;
  f >> pages >> rss;
  return rss * sysconf(_SC_PAGESIZE);
}

void BM_Memory(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    auto [keys, values] = StringVocab(n);
    int64_t key_bytes = 0;
    for (int64_t i = 0; i < n; ++i) key_bytes += keys.data<std::string>()[i].size();
    auto table = *HashTable::Create(DType::kString, DType::kInt64);
    const int64_t before = RssBytes();
    if (!table->Initialize(keys, values).ok()) std::abort();
    const int64_t after = RssBytes();
    const double per_entry = static_cast<double>(after - before) / n;
    const double payload = static_cast<double>(key_bytes + 8 * n) / n;
    state.counters["rss_B_per_entry"] = per_entry;
    state.counters["key_value_B_per_entry"] = payload;
    state.counters["overhead_B_per_entry"] = per_entry - payload;
  }
}
BENCHMARK(BM_Memory)->Arg(1000000)->Name("Memory/string_table")->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// --- models -----------------------------------------------------------------

std::string CacheDir() {
  const char* c = std::getenv("GRAPHRT_CACHE");
  const char* home = std::getenv("HOME");
  std::string base = c != nullptr ? c : std::string(home ? home : "/tmp") + "/.cache/graphrt";
  return base + "/lookup_bench";
}

// Generates (once) the text classifier with `vocab` words; returns its dir.
std::string EnsureTextClassifier(int64_t vocab) {
  const std::string dir = CacheDir() + "/text_classifier_" + std::to_string(vocab);
  if (std::filesystem::exists(dir + "/model.json")) return dir;
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string root = ws != nullptr ? ws : ".";
  std::filesystem::create_directories(dir);
  const std::string cmd = "python3 '" + root +
                          "/models/text_classifier/generate.py' --vocab-size " +
                          std::to_string(vocab) + " --out-dir '" + dir + "'";
  std::fprintf(stderr, "generating: %s\n", cmd.c_str());
  if (std::system(cmd.c_str()) != 0) return "";
  return dir;
}

void BM_ModelLoad(benchmark::State& state) {
  const std::string dir = EnsureTextClassifier(state.range(0));
  if (dir.empty()) {
    state.SkipWithError("could not generate the model");
    return;
  }
  for (auto _ : state) {
    auto model = Model::Load(dir, ModelOptions());
    if (!model.ok()) {
      state.SkipWithError(std::string(model.status().message()).c_str());
      return;
    }
    state.PauseTiming();
    model->reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_ModelLoad)->Arg(1000000)->Arg(300000)->Name("ModelLoad/text_classifier")
    ->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ModelRun(benchmark::State& state) {
  const std::string dir = EnsureTextClassifier(state.range(0));
  auto model = Model::Load(dir, ModelOptions());
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  auto records = ReadTensorRecords(dir + "/sample_input.json", "inputs");
  if (!records.ok()) {
    state.SkipWithError(std::string(records.status().message()).c_str());
    return;
  }
  std::vector<NamedTensor> inputs;
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
BENCHMARK(BM_ModelRun)->Arg(1000000)->Name("ModelRun/text_classifier")
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
