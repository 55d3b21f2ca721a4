// Concurrency stress: 8 caller threads x N Runs on one Model (table models
// and a float model with v2 control flow), every output identical to the
// single-threaded result; and concurrent inserts + lookups through a
// MutableHashTable model.
//
// N is GRAPHRT_STRESS_ITERS when set (never below 100), else 1000, also
// under ThreadSanitizer (~15 s there). The test command runs it under
// --config=tsan to check for data races.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/model.h"
#include "runtime/mutex.h"
#include "tests/hardening/corrupt_model.h"
#include "tools/model_inputs.h"

namespace graphrt {
namespace hardening {
namespace {

constexpr int kThreads = 8;

int Iterations() {
  if (const char* env = std::getenv("GRAPHRT_STRESS_ITERS")) {
    const int n = std::atoi(env);
    if (n >= 100) return n;
  }
  return 1000;
}

// The model's sample inputs, converted to the declared dtypes.
std::vector<NamedTensor> SampleInputs(const Model& model,
                                      const std::string& dir) {
  auto inputs = ReadModelInputs(dir + "/sample_input.json", model);
  EXPECT_TRUE(inputs.ok()) << inputs.status();
  if (!inputs.ok()) return {};
  return *std::move(inputs);
}

// Runs `model` from kThreads threads, Iterations() times each, and checks
// every result against `expected`.
void RunConcurrently(const Model& model, const std::vector<NamedTensor>& inputs,
                     const std::vector<Tensor>& expected) {
  const int iterations = Iterations();
  std::atomic<int> failures{0};
  Mutex mu;
  std::string first_failure;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < iterations; ++i) {
        auto out = model.Run(inputs);
        std::string why;
        if (!out.ok()) {
          why = out.status().ToString();
        } else if (out->size() != expected.size()) {
          why = "wrong number of outputs";
        } else {
          for (size_t k = 0; k < expected.size(); ++k) {
            if (!(*out)[k].IdenticalTo(expected[k])) {
              why = absl::StrCat("output ", k,
                                 " differs: ", (*out)[k].DebugString());
            }
          }
        }
        if (!why.empty()) {
          if (failures.fetch_add(1) == 0) {
            MutexLock lock(&mu);
            first_failure = why;
          }
          return;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  MutexLock lock(&mu);
  EXPECT_EQ(failures.load(), 0) << first_failure;
}

class BundledModelStress : public ::testing::TestWithParam<const char*> {};

TEST_P(BundledModelStress, ConcurrentRunsMatchSingleThreaded) {
  const std::string dir = absl::StrCat("models/", GetParam());
  // Reference: a model with no thread pool at all.
  ModelOptions sequential;
  sequential.threads = 1;
  auto reference_model = Model::Load(dir, sequential);
  ASSERT_TRUE(reference_model.ok()) << reference_model.status();
  const std::vector<NamedTensor> inputs = SampleInputs(**reference_model, dir);
  auto expected = (*reference_model)->Run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();

  for (int pool_threads : {1, 4}) {
    SCOPED_TRACE(absl::StrCat("model threads = ", pool_threads));
    ModelOptions options;
    options.threads = pool_threads;
    auto model = Model::Load(dir, options);
    ASSERT_TRUE(model.ok()) << model.status();
    RunConcurrently(**model, inputs, *expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, BundledModelStress,
                         ::testing::Values("text_classifier", "wide_deep",
                                           "control_flow_v2"));

// A MutableHashTableV2 string -> int64 with an insert path (fetch "size",
// which runs after the insert) and a lookup path (fetch "found").
constexpr char kMutableTableModel[] = R"({
 "format": "graph-model",
 "modelTopology": {"node": [
  {"name": "keys", "op": "Placeholder",
   "attr": {"dtype": {"type": "DT_STRING"}, "shape": {"shape": {"dim": [{"size": "-1"}]}}}},
  {"name": "values", "op": "Placeholder",
   "attr": {"dtype": {"type": "DT_INT64"}, "shape": {"shape": {"dim": [{"size": "-1"}]}}}},
  {"name": "query", "op": "Placeholder",
   "attr": {"dtype": {"type": "DT_STRING"}, "shape": {"shape": {"dim": [{"size": "-1"}]}}}},
  {"name": "default", "op": "Const", "attr": {"dtype": {"type": "DT_INT64"},
   "value": {"tensor": {"dtype": "DT_INT64", "tensorShape": {}, "int64Val": ["-1"]}}}},
  {"name": "table", "op": "MutableHashTableV2",
   "attr": {"key_dtype": {"type": "DT_STRING"}, "value_dtype": {"type": "DT_INT64"},
            "shared_name": {"s": "c3RyZXNz"}, "container": {"s": ""},
            "use_node_name_sharing": {"b": false}}},
  {"name": "insert", "op": "LookupTableInsertV2", "input": ["table", "keys", "values"],
   "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_INT64"}}},
  {"name": "size", "op": "LookupTableSizeV2", "input": ["table", "^insert"]},
  {"name": "found", "op": "LookupTableFindV2", "input": ["table", "query", "default"],
   "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_INT64"}}}
 ], "versions": {}}
})";

Tensor Strings(const std::vector<std::string>& values) {
  Tensor t = *Tensor::Allocate(DType::kString,
                               Shape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    t.mutable_data<std::string>()[i] = values[i];
  }
  return t;
}

TEST(MutableTableStress, ConcurrentInsertsAndLookups) {
  ModelFiles files;
  files.model = Json::parse(kMutableTableModel);
  ModelOptions options;
  options.threads = 4;
  auto model = Model::Load(WriteModelDir(files, "mutable_stress"), options);
  ASSERT_TRUE(model.ok()) << model.status();
  const int iterations = Iterations();
  constexpr int kKeysPerRun = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  // Half the threads write keys "t<thread>_<n>" -> n; the other half read
  // random keys of every writer: each answer is -1 (not yet written) or n.
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const bool writer = t % 2 == 0;
      for (int i = 0; i < iterations; ++i) {
        std::vector<std::string> keys;
        std::vector<int64_t> values;
        for (int k = 0; k < kKeysPerRun; ++k) {
          const int n = i * kKeysPerRun + k;
          const int owner = writer ? t : (2 * ((t + k) % (kThreads / 2)));
          keys.push_back(absl::StrCat("t", owner, "_", n));
          values.push_back(n);
        }
        if (writer) {
          auto out =
              (*model)->Run({{"keys", Strings(keys)},
                             {"values", Tensor::FromVector<int64_t>(values)}},
                            {"size"});
          if (!out.ok()) failures++;
        } else {
          auto out = (*model)->Run({{"query", Strings(keys)}}, {"found"});
          if (!out.ok()) {
            failures++;
            continue;
          }
          absl::Span<const int64_t> found = (*out)[0].span<int64_t>();
          for (int k = 0; k < kKeysPerRun; ++k) {
            if (found[k] != -1 && found[k] != values[k]) failures++;
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);

  // Every written key is there with its value.
  std::vector<std::string> all;
  for (int t = 0; t < kThreads; t += 2) {
    for (int n = 0; n < iterations * kKeysPerRun; n += 97) {
      all.push_back(absl::StrCat("t", t, "_", n));
    }
  }
  auto out = (*model)->Run({{"query", Strings(all)}}, {"found"});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Span<const int64_t> found = (*out)[0].span<int64_t>();
  size_t i = 0;
  for (int t = 0; t < kThreads; t += 2) {
    for (int n = 0; n < iterations * kKeysPerRun; n += 97, ++i) {
      EXPECT_EQ(found[i], n) << all[i];
    }
  }
  auto size = (*model)->Run(
      {{"keys", Strings({})}, {"values", Tensor::FromVector<int64_t>({})}},
      {"size"});
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(size->at(0).data<int64_t>()[0],
            int64_t{kThreads / 2} * iterations * kKeysPerRun);
}

}  // namespace
}  // namespace hardening
}  // namespace graphrt
