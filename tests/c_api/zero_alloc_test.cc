// Steady-state runs allocate nothing: after a warm-up run with the same
// names and shapes, graphrt_model_run with reused outputs makes no call to
// operator new (on any thread) and no malloc through the BufferPool.
//
// This binary links the counting operator new (tests/counting_new.h);
// counting is switched on only around the measured runs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "c_api/graphrt_c.h"
#include "tests/counting_new.h"

namespace {

const char* const kWords[8] = {"the",   "movie", "was",   "great",
                               "w0123", "<pad>", "<pad>", "w9999"};

// Counts operator new calls during `runs` runs after `warmup` runs.
int64_t NewsDuringSteadyState(GraphrtModel* model, const char* input_name,
                              const GraphrtTensor* input, int warmup,
                              int runs) {
  const char* names[1] = {input_name};
  const GraphrtTensor* inputs[1] = {input};
  GraphrtTensor* outputs[1] = {nullptr};
  for (int i = 0; i < warmup; ++i) {
    GraphrtStatus* s =
        graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1);
    EXPECT_EQ(s, nullptr) << graphrt_status_message(s);
    graphrt_status_free(s);
  }
  graphrt::testing::NewCounter counter;
  int failures = 0;
  for (int i = 0; i < runs; ++i) {
    GraphrtStatus* s =
        graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1);
    if (s != nullptr) ++failures;
    graphrt_status_free(s);
  }
  const int64_t news = counter.Stop();
  EXPECT_EQ(failures, 0);
  graphrt_tensor_free(outputs[0]);
  return news;
}

GraphrtModel* Load(const char* path, int threads) {
  GraphrtOptions* options = graphrt_options_create();
  graphrt_options_set_threads(options, threads);
  GraphrtModel* model = nullptr;
  GraphrtStatus* s = graphrt_model_load(path, options, &model);
  EXPECT_EQ(s, nullptr) << graphrt_status_message(s);
  graphrt_status_free(s);
  graphrt_options_free(options);
  return model;
}

class ZeroAllocTest : public ::testing::TestWithParam<int> {};

TEST_P(ZeroAllocTest, TextClassifier) {
  GraphrtModel* model = Load("models/text_classifier", GetParam());
  ASSERT_NE(model, nullptr);
  const int64_t dims[2] = {4, 8};
  GraphrtTensor* tokens = nullptr;
  ASSERT_EQ(graphrt_tensor_create(GRAPHRT_STRING, dims, 2, &tokens), nullptr);
  for (int i = 0; i < 32; ++i) {
    const char* w = kWords[i % 8];
    ASSERT_EQ(graphrt_tensor_set_string(tokens, i, w, std::strlen(w)), nullptr);
  }
  EXPECT_EQ(NewsDuringSteadyState(model, "tokens", tokens, 2, 50), 0);
  graphrt_tensor_free(tokens);
  graphrt_model_free(model);
}

TEST_P(ZeroAllocTest, DenseFloatModel) {
  GraphrtModel* model = Load("tests/c_api/testdata/dense_model", GetParam());
  ASSERT_NE(model, nullptr);
  alignas(64) float x[16] = {0.5f};
  const int64_t dims[2] = {16, 1};
  GraphrtTensor* in = nullptr;
  ASSERT_EQ(
      graphrt_tensor_create_view(GRAPHRT_FLOAT32, dims, 2, x, sizeof(x), &in),
      nullptr);
  EXPECT_EQ(NewsDuringSteadyState(model, graphrt_model_input_name(model, 0), in,
                                  2, 50),
            0);
  graphrt_tensor_free(in);
  graphrt_model_free(model);
}

// The counter sees allocations (so a 0 above means something).
TEST(ZeroAllocSelfTest, CounterSeesAllocations) {
  graphrt::testing::NewCounter counter;
  std::string* s = new std::string("counted");
  const int64_t news = counter.Stop();
  delete s;
  EXPECT_GE(news, 1);
}

INSTANTIATE_TEST_SUITE_P(Threads, ZeroAllocTest, ::testing::Values(1, 2));

}  // namespace
