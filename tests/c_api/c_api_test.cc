// Tests of every C API entry point, including its error paths.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "c_api/graphrt_c.h"
#include "runtime/model.h"

namespace {

constexpr char kTextModel[] = "models/text_classifier";
constexpr char kDenseModel[] = "tests/c_api/testdata/dense_model";

const char* const kTokens[16] = {
    "the",   "movie", "was",   "great",    "zzz-not-a-word", "<pad>",
    "<pad>", "<pad>", "w0123", "terrible", "acting",         "but",
    "good",  "music", "w9999", "Good"};

// Owns a status and reports it as a gtest failure message.
struct StatusGuard {
  GraphrtStatus* s;
  explicit StatusGuard(GraphrtStatus* status) : s(status) {}
  ~StatusGuard() { graphrt_status_free(s); }
  GraphrtCode code() const { return graphrt_status_code(s); }
  std::string message() const { return graphrt_status_message(s); }
};

#define EXPECT_C_OK(expr)                                     \
  do {                                                        \
    StatusGuard guard_(expr);                                 \
    EXPECT_EQ(guard_.code(), GRAPHRT_OK) << guard_.message(); \
  } while (0)
#define ASSERT_C_OK(expr)                                     \
  do {                                                        \
    StatusGuard guard_(expr);                                 \
    ASSERT_EQ(guard_.code(), GRAPHRT_OK) << guard_.message(); \
  } while (0)

GraphrtModel* LoadOrDie(const char* path, int threads = 1) {
  GraphrtOptions* options = graphrt_options_create();
  graphrt_options_set_threads(options, threads);
  GraphrtModel* model = nullptr;
  StatusGuard s(graphrt_model_load(path, options, &model));
  graphrt_options_free(options);
  EXPECT_EQ(s.code(), GRAPHRT_OK) << s.message();
  return model;
}

GraphrtTensor* MakeTokens(int batch) {
  const int64_t dims[2] = {batch, 8};
  GraphrtTensor* t = nullptr;
  StatusGuard s(graphrt_tensor_create(GRAPHRT_STRING, dims, 2, &t));
  EXPECT_EQ(s.code(), GRAPHRT_OK) << s.message();
  for (int i = 0; i < batch * 8; ++i) {
    const char* word = kTokens[i % 16];
    StatusGuard set(graphrt_tensor_set_string(t, i, word, std::strlen(word)));
    EXPECT_EQ(set.code(), GRAPHRT_OK) << set.message();
  }
  return t;
}

// The C++ API's answer for the same tokens.
std::vector<float> ReferenceProbabilities(int batch) {
  auto model = graphrt::Model::Load(kTextModel);
  EXPECT_TRUE(model.ok()) << model.status();
  auto tokens = *graphrt::Tensor::Allocate(graphrt::DType::kString,
                                           graphrt::Shape({batch, 8}));
  for (int i = 0; i < batch * 8; ++i) {
    tokens.mutable_data<std::string>()[i] = kTokens[i % 16];
  }
  auto out = (*model)->Run({{"tokens", tokens}});
  EXPECT_TRUE(out.ok()) << out.status();
  auto span = (*out)[0].span<float>();
  return std::vector<float>(span.begin(), span.end());
}

TEST(CApiTest, Version) {
  EXPECT_STREQ(graphrt_version(), GRAPHRT_VERSION_STRING);
  EXPECT_EQ(graphrt_c_api_version(), GRAPHRT_C_API_VERSION);
}

TEST(CApiTest, NullStatusIsOk) {
  EXPECT_EQ(graphrt_status_code(nullptr), GRAPHRT_OK);
  EXPECT_STREQ(graphrt_status_message(nullptr), "");
  graphrt_status_free(nullptr);
}

TEST(CApiTest, DTypes) {
  EXPECT_STREQ(graphrt_dtype_name(GRAPHRT_FLOAT32), "float32");
  EXPECT_STREQ(graphrt_dtype_name(GRAPHRT_STRING), "string");
  EXPECT_STREQ(graphrt_dtype_name(static_cast<GraphrtDType>(99)), "invalid");
  EXPECT_EQ(graphrt_dtype_size(GRAPHRT_FLOAT32), 4u);
  EXPECT_EQ(graphrt_dtype_size(GRAPHRT_BOOL), 1u);
  EXPECT_EQ(graphrt_dtype_size(GRAPHRT_INT64), 8u);
  EXPECT_EQ(graphrt_dtype_size(GRAPHRT_STRING), 0u);
  EXPECT_EQ(graphrt_dtype_size(GRAPHRT_DTYPE_INVALID), 0u);
}

TEST(CApiTest, OptionsAcceptNull) {
  graphrt_options_set_threads(nullptr, 2);
  graphrt_options_set_max_memory_bytes(nullptr, 2);
  graphrt_options_set_flush_denormals(nullptr, 0);
  graphrt_options_free(nullptr);
}

TEST(CApiTest, LoadErrors) {
  GraphrtModel* model = nullptr;
  StatusGuard missing(graphrt_model_load("no/such/model", nullptr, &model));
  EXPECT_EQ(missing.code(), GRAPHRT_NOT_FOUND) << missing.message();
  EXPECT_NE(missing.message().find("no/such/model"), std::string::npos)
      << missing.message();
  EXPECT_EQ(model, nullptr);
  StatusGuard null_path(graphrt_model_load(nullptr, nullptr, &model));
  EXPECT_EQ(null_path.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_out(graphrt_model_load(kTextModel, nullptr, nullptr));
  EXPECT_EQ(null_out.code(), GRAPHRT_INVALID_ARGUMENT);
  GraphrtOptions* options = graphrt_options_create();
  graphrt_options_set_threads(options, -1);
  StatusGuard bad_threads(graphrt_model_load(kTextModel, options, &model));
  EXPECT_EQ(bad_threads.code(), GRAPHRT_INVALID_ARGUMENT);
  graphrt_options_free(options);
  EXPECT_EQ(model, nullptr);
}

TEST(CApiTest, Introspection) {
  GraphrtModel* model = LoadOrDie(kTextModel);
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(graphrt_model_num_inputs(model), 1u);
  EXPECT_STREQ(graphrt_model_input_name(model, 0), "tokens");
  EXPECT_EQ(graphrt_model_input_dtype(model, 0), GRAPHRT_STRING);
  ASSERT_EQ(graphrt_model_input_rank(model, 0), 2);
  EXPECT_EQ(graphrt_model_input_dims(model, 0)[0], -1);
  EXPECT_EQ(graphrt_model_input_dims(model, 0)[1], 8);
  ASSERT_EQ(graphrt_model_num_outputs(model), 1u);
  EXPECT_STREQ(graphrt_model_output_name(model, 0), "probabilities");
  EXPECT_EQ(graphrt_model_output_dtype(model, 0), GRAPHRT_FLOAT32);
  ASSERT_EQ(graphrt_model_output_rank(model, 0), 2);
  EXPECT_EQ(graphrt_model_output_dims(model, 0)[0], -1);
  EXPECT_EQ(graphrt_model_output_dims(model, 0)[1], 4);
  // Out of range and NULL.
  EXPECT_EQ(graphrt_model_input_name(model, 1), nullptr);
  EXPECT_EQ(graphrt_model_input_dtype(model, 1), GRAPHRT_DTYPE_INVALID);
  EXPECT_EQ(graphrt_model_input_rank(model, 1), -1);
  EXPECT_EQ(graphrt_model_input_dims(model, 1), nullptr);
  EXPECT_EQ(graphrt_model_output_name(model, 5), nullptr);
  EXPECT_EQ(graphrt_model_output_dtype(model, 5), GRAPHRT_DTYPE_INVALID);
  EXPECT_EQ(graphrt_model_output_rank(model, 5), -1);
  EXPECT_EQ(graphrt_model_output_dims(model, 5), nullptr);
  EXPECT_EQ(graphrt_model_num_inputs(nullptr), 0u);
  EXPECT_EQ(graphrt_model_num_outputs(nullptr), 0u);
  EXPECT_EQ(graphrt_model_input_name(nullptr, 0), nullptr);
  graphrt_model_free(model);
  graphrt_model_free(nullptr);
}

TEST(CApiTest, TensorCreateAndRead) {
  const int64_t dims[2] = {2, 3};
  GraphrtTensor* t = nullptr;
  ASSERT_C_OK(graphrt_tensor_create(GRAPHRT_FLOAT32, dims, 2, &t));
  EXPECT_EQ(graphrt_tensor_dtype(t), GRAPHRT_FLOAT32);
  ASSERT_EQ(graphrt_tensor_rank(t), 2);
  EXPECT_EQ(graphrt_tensor_dims(t)[0], 2);
  EXPECT_EQ(graphrt_tensor_dims(t)[1], 3);
  EXPECT_EQ(graphrt_tensor_num_elements(t), 6);
  EXPECT_EQ(graphrt_tensor_byte_size(t), 24u);
  float* data = static_cast<float*>(graphrt_tensor_data(t));
  ASSERT_NE(data, nullptr);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(data[i], 0.f);  // zero-filled
  data[5] = 7.f;
  EXPECT_EQ(static_cast<const float*>(graphrt_tensor_data_const(t))[5], 7.f);
  graphrt_tensor_free(t);

  GraphrtTensor* scalar = nullptr;
  ASSERT_C_OK(graphrt_tensor_create(GRAPHRT_INT64, nullptr, 0, &scalar));
  EXPECT_EQ(graphrt_tensor_rank(scalar), 0);
  EXPECT_EQ(graphrt_tensor_num_elements(scalar), 1);
  graphrt_tensor_free(scalar);
  graphrt_tensor_free(nullptr);

  EXPECT_EQ(graphrt_tensor_dtype(nullptr), GRAPHRT_DTYPE_INVALID);
  EXPECT_EQ(graphrt_tensor_rank(nullptr), -1);
  EXPECT_EQ(graphrt_tensor_dims(nullptr), nullptr);
  EXPECT_EQ(graphrt_tensor_num_elements(nullptr), 0);
  EXPECT_EQ(graphrt_tensor_byte_size(nullptr), 0u);
  EXPECT_EQ(graphrt_tensor_data(nullptr), nullptr);
  EXPECT_EQ(graphrt_tensor_data_const(nullptr), nullptr);
}

TEST(CApiTest, TensorCreateErrors) {
  const int64_t dims[2] = {2, -3};
  GraphrtTensor* t = nullptr;
  StatusGuard negative(graphrt_tensor_create(GRAPHRT_FLOAT32, dims, 2, &t));
  EXPECT_EQ(negative.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard bad_rank(graphrt_tensor_create(GRAPHRT_FLOAT32, dims, -1, &t));
  EXPECT_EQ(bad_rank.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_dims(graphrt_tensor_create(GRAPHRT_FLOAT32, nullptr, 2, &t));
  EXPECT_EQ(null_dims.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard bad_dtype(
      graphrt_tensor_create(static_cast<GraphrtDType>(20), nullptr, 0, &t));
  EXPECT_EQ(bad_dtype.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_out(
      graphrt_tensor_create(GRAPHRT_FLOAT32, nullptr, 0, nullptr));
  EXPECT_EQ(null_out.code(), GRAPHRT_INVALID_ARGUMENT);
  const int64_t huge[3] = {int64_t{1} << 40, int64_t{1} << 40, 1 << 20};
  StatusGuard too_big(graphrt_tensor_create(GRAPHRT_FLOAT32, huge, 3, &t));
  EXPECT_NE(too_big.code(), GRAPHRT_OK);
  EXPECT_EQ(t, nullptr);
}

TEST(CApiTest, TensorView) {
  alignas(64) float values[4] = {1, 2, 3, 4};
  const int64_t dims[1] = {4};
  GraphrtTensor* t = nullptr;
  ASSERT_C_OK(graphrt_tensor_create_view(GRAPHRT_FLOAT32, dims, 1, values,
                                         sizeof(values), &t));
  EXPECT_EQ(graphrt_tensor_data(t), values);  // no copy
  graphrt_tensor_free(t);
  EXPECT_EQ(values[3], 4.f);  // the caller's memory is untouched

  GraphrtTensor* bad = nullptr;
  StatusGuard wrong_size(graphrt_tensor_create_view(
      GRAPHRT_FLOAT32, dims, 1, values, sizeof(values) - 1, &bad));
  EXPECT_EQ(wrong_size.code(), GRAPHRT_INVALID_ARGUMENT);
  EXPECT_NE(wrong_size.message().find("float32[4]"), std::string::npos)
      << wrong_size.message();
  StatusGuard string_view(graphrt_tensor_create_view(
      GRAPHRT_STRING, dims, 1, values, sizeof(values), &bad));
  EXPECT_EQ(string_view.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_data(graphrt_tensor_create_view(
      GRAPHRT_FLOAT32, dims, 1, nullptr, sizeof(values), &bad));
  EXPECT_EQ(null_data.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_out(graphrt_tensor_create_view(
      GRAPHRT_FLOAT32, dims, 1, values, sizeof(values), nullptr));
  EXPECT_EQ(null_out.code(), GRAPHRT_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
}

TEST(CApiTest, Strings) {
  const int64_t dims[1] = {2};
  GraphrtTensor* t = nullptr;
  ASSERT_C_OK(graphrt_tensor_create(GRAPHRT_STRING, dims, 1, &t));
  EXPECT_EQ(graphrt_tensor_data(t), nullptr);
  EXPECT_EQ(graphrt_tensor_byte_size(t), 0u);
  const char bytes[3] = {'a', '\0', 'b'};
  ASSERT_C_OK(graphrt_tensor_set_string(t, 1, bytes, 3));
  const char* data = nullptr;
  size_t size = 99;
  ASSERT_C_OK(graphrt_tensor_get_string(t, 0, &data, &size));
  EXPECT_EQ(size, 0u);
  ASSERT_C_OK(graphrt_tensor_get_string(t, 1, &data, &size));
  ASSERT_EQ(size, 3u);
  EXPECT_EQ(std::memcmp(data, bytes, 3), 0);

  StatusGuard range(graphrt_tensor_set_string(t, 2, "x", 1));
  EXPECT_EQ(range.code(), GRAPHRT_OUT_OF_RANGE);
  StatusGuard range2(graphrt_tensor_get_string(t, -1, &data, &size));
  EXPECT_EQ(range2.code(), GRAPHRT_OUT_OF_RANGE);
  StatusGuard null_data(graphrt_tensor_set_string(t, 0, nullptr, 1));
  EXPECT_EQ(null_data.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_out(graphrt_tensor_get_string(t, 0, nullptr, &size));
  EXPECT_EQ(null_out.code(), GRAPHRT_INVALID_ARGUMENT);
  graphrt_tensor_free(t);

  GraphrtTensor* f = nullptr;
  ASSERT_C_OK(graphrt_tensor_create(GRAPHRT_FLOAT32, dims, 1, &f));
  StatusGuard not_string(graphrt_tensor_set_string(f, 0, "x", 1));
  EXPECT_EQ(not_string.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard not_string2(graphrt_tensor_get_string(f, 0, &data, &size));
  EXPECT_EQ(not_string2.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_tensor(graphrt_tensor_set_string(nullptr, 0, "x", 1));
  EXPECT_EQ(null_tensor.code(), GRAPHRT_INVALID_ARGUMENT);
  graphrt_tensor_free(f);
}

class RunTest : public ::testing::TestWithParam<int> {};

TEST_P(RunTest, MatchesCppApiAndReusesOutputs) {
  GraphrtModel* model = LoadOrDie(kTextModel, GetParam());
  ASSERT_NE(model, nullptr);
  const std::vector<float> expected = ReferenceProbabilities(2);
  GraphrtTensor* tokens = MakeTokens(2);
  const char* names[1] = {"tokens"};
  const GraphrtTensor* inputs[1] = {tokens};
  GraphrtTensor* outputs[1] = {nullptr};
  ASSERT_C_OK(graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  ASSERT_NE(outputs[0], nullptr);
  GraphrtTensor* first = outputs[0];
  ASSERT_EQ(graphrt_tensor_dtype(first), GRAPHRT_FLOAT32);
  ASSERT_EQ(graphrt_tensor_rank(first), 2);
  EXPECT_EQ(graphrt_tensor_dims(first)[0], 2);
  EXPECT_EQ(graphrt_tensor_dims(first)[1], 4);
  const void* buffer = graphrt_tensor_data(first);
  std::vector<float> got(static_cast<const float*>(buffer),
                         static_cast<const float*>(buffer) + 8);
  EXPECT_EQ(got, expected);

  // Same shapes: the same tensor and buffer are reused.
  for (int i = 0; i < 3; ++i) {
    ASSERT_C_OK(
        graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
    EXPECT_EQ(outputs[0], first);
    EXPECT_EQ(graphrt_tensor_data(outputs[0]), buffer);
    EXPECT_EQ(std::memcmp(buffer, expected.data(), 8 * sizeof(float)), 0);
  }
  // By output name (signature key, tensor name and node name).
  for (const char* name : {"probabilities", "Identity:0", "Identity"}) {
    const char* out_names[1] = {name};
    ASSERT_C_OK(
        graphrt_model_run(model, names, inputs, 1, out_names, outputs, 1));
    EXPECT_EQ(std::memcmp(graphrt_tensor_data(outputs[0]), expected.data(),
                          8 * sizeof(float)),
              0)
        << name;
  }
  // A new batch size: the owned output is resized.
  GraphrtTensor* one = MakeTokens(1);
  inputs[0] = one;
  ASSERT_C_OK(graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  EXPECT_EQ(outputs[0], first);
  EXPECT_EQ(graphrt_tensor_dims(outputs[0])[0], 1);
  EXPECT_EQ(std::memcmp(graphrt_tensor_data(outputs[0]), expected.data(),
                        4 * sizeof(float)),
            0);
  graphrt_tensor_free(one);
  graphrt_tensor_free(outputs[0]);
  graphrt_tensor_free(tokens);
  graphrt_model_free(model);
}

INSTANTIATE_TEST_SUITE_P(Threads, RunTest, ::testing::Values(1, 2));

TEST(CApiTest, RunIntoCallerMemory) {
  GraphrtModel* model = LoadOrDie(kTextModel);
  ASSERT_NE(model, nullptr);
  const std::vector<float> expected = ReferenceProbabilities(2);
  GraphrtTensor* tokens = MakeTokens(2);
  alignas(64) float probs[8] = {};
  const int64_t dims[2] = {2, 4};
  GraphrtTensor* view = nullptr;
  ASSERT_C_OK(graphrt_tensor_create_view(GRAPHRT_FLOAT32, dims, 2, probs,
                                         sizeof(probs), &view));
  const char* names[1] = {"tokens"};
  const GraphrtTensor* inputs[1] = {tokens};
  GraphrtTensor* outputs[1] = {view};
  ASSERT_C_OK(graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  EXPECT_EQ(std::memcmp(probs, expected.data(), sizeof(probs)), 0);

  // A view of the wrong shape is an error, and stays untouched.
  alignas(64) float small[4] = {9, 9, 9, 9};
  const int64_t small_dims[2] = {1, 4};
  GraphrtTensor* small_view = nullptr;
  ASSERT_C_OK(graphrt_tensor_create_view(GRAPHRT_FLOAT32, small_dims, 2, small,
                                         sizeof(small), &small_view));
  outputs[0] = small_view;
  StatusGuard s(
      graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  EXPECT_EQ(s.code(), GRAPHRT_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("float32[2,4]"), std::string::npos) << s.message();
  EXPECT_EQ(small[0], 9.f);
  EXPECT_EQ(outputs[0], small_view);
  graphrt_tensor_free(small_view);
  graphrt_tensor_free(view);
  graphrt_tensor_free(tokens);
  graphrt_model_free(model);
}

TEST(CApiTest, FloatModelWithViews) {
  GraphrtModel* model = LoadOrDie(kDenseModel);
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(graphrt_model_num_inputs(model), 1u);
  ASSERT_EQ(graphrt_model_input_dtype(model, 0), GRAPHRT_FLOAT32);
  // Golden from TF.js (golden.json): f(0x3f2087eb) = 0x3ebfb324.
  uint32_t in_bits = 0x3f2087ebu, want_bits = 0x3ebfb324u;
  float x, want, y = 0;
  std::memcpy(&x, &in_bits, 4);
  std::memcpy(&want, &want_bits, 4);
  const int64_t dims[2] = {1, 1};
  GraphrtTensor* in = nullptr;
  GraphrtTensor* out = nullptr;
  ASSERT_C_OK(
      graphrt_tensor_create_view(GRAPHRT_FLOAT32, dims, 2, &x, sizeof(x), &in));
  ASSERT_C_OK(graphrt_tensor_create_view(GRAPHRT_FLOAT32, dims, 2, &y,
                                         sizeof(y), &out));
  const char* names[1] = {graphrt_model_input_name(model, 0)};
  const GraphrtTensor* inputs[1] = {in};
  GraphrtTensor* outputs[1] = {out};
  ASSERT_C_OK(graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  EXPECT_NEAR(y, want, 1e-6f);
  graphrt_tensor_free(in);
  graphrt_tensor_free(out);
  graphrt_model_free(model);
}

TEST(CApiTest, RunErrors) {
  GraphrtModel* model = LoadOrDie(kTextModel);
  ASSERT_NE(model, nullptr);
  GraphrtTensor* tokens = MakeTokens(1);
  const char* names[1] = {"tokens"};
  const GraphrtTensor* inputs[1] = {tokens};
  GraphrtTensor* outputs[1] = {nullptr};
  auto run_code = [&](const GraphrtModel* m, const char* const* in_names,
                      const GraphrtTensor* const* ins, size_t n_in,
                      const char* const* out_names, GraphrtTensor** outs,
                      size_t n_out, std::string* message) {
    StatusGuard s(
        graphrt_model_run(m, in_names, ins, n_in, out_names, outs, n_out));
    *message = s.message();
    return s.code();
  };
  std::string msg;
  EXPECT_EQ(run_code(nullptr, names, inputs, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  EXPECT_EQ(run_code(model, nullptr, inputs, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  EXPECT_EQ(run_code(model, names, nullptr, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  EXPECT_EQ(run_code(model, names, inputs, 1, nullptr, nullptr, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  // Default outputs need num_outputs == 1.
  EXPECT_EQ(run_code(model, names, inputs, 1, nullptr, outputs, 2, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  // NULL name, NULL tensor.
  const char* null_name[1] = {nullptr};
  EXPECT_EQ(run_code(model, null_name, inputs, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  const GraphrtTensor* null_tensor[1] = {nullptr};
  EXPECT_EQ(run_code(model, names, null_tensor, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  // Unknown input and output names.
  const char* bogus[1] = {"bogus"};
  EXPECT_EQ(run_code(model, bogus, inputs, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_NOT_FOUND);
  EXPECT_NE(msg.find("bogus"), std::string::npos) << msg;
  EXPECT_EQ(run_code(model, names, inputs, 1, bogus, outputs, 1, &msg),
            GRAPHRT_NOT_FOUND);
  // Missing input.
  EXPECT_EQ(run_code(model, nullptr, nullptr, 0, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("tokens"), std::string::npos) << msg;
  // Wrong dtype.
  const int64_t dims[2] = {1, 8};
  GraphrtTensor* floats = nullptr;
  ASSERT_C_OK(graphrt_tensor_create(GRAPHRT_FLOAT32, dims, 2, &floats));
  inputs[0] = floats;
  EXPECT_EQ(run_code(model, names, inputs, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("must be string"), std::string::npos) << msg;
  // Wrong shape.
  const int64_t bad_dims[2] = {1, 7};
  GraphrtTensor* short_tokens = nullptr;
  ASSERT_C_OK(
      graphrt_tensor_create(GRAPHRT_STRING, bad_dims, 2, &short_tokens));
  inputs[0] = short_tokens;
  EXPECT_EQ(run_code(model, names, inputs, 1, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("[1,7]"), std::string::npos) << msg;
  // Fed twice.
  const char* twice[2] = {"tokens", "tokens:0"};
  const GraphrtTensor* two[2] = {tokens, tokens};
  EXPECT_EQ(run_code(model, twice, two, 2, nullptr, outputs, 1, &msg),
            GRAPHRT_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("fed twice"), std::string::npos) << msg;
  // No failure created or changed an output.
  EXPECT_EQ(outputs[0], nullptr);
  graphrt_tensor_free(short_tokens);
  graphrt_tensor_free(floats);
  graphrt_tensor_free(tokens);
  graphrt_model_free(model);
}

TEST(CApiTest, MemoryLimit) {
  GraphrtOptions* options = graphrt_options_create();
  graphrt_options_set_threads(options, 1);
  graphrt_options_set_max_memory_bytes(options, 64);
  GraphrtModel* model = nullptr;
  ASSERT_C_OK(graphrt_model_load(kTextModel, options, &model));
  GraphrtTensor* tokens = MakeTokens(2);
  const char* names[1] = {"tokens"};
  const GraphrtTensor* inputs[1] = {tokens};
  GraphrtTensor* outputs[1] = {nullptr};
  StatusGuard s(
      graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  EXPECT_EQ(s.code(), GRAPHRT_RESOURCE_EXHAUSTED) << s.message();
  // Names the node whose outputs crossed the limit.
  EXPECT_NE(s.message().find("StatefulPartitionedCall/text_classifier"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("limit of 64 bytes"), std::string::npos)
      << s.message();
  EXPECT_EQ(outputs[0], nullptr);
  graphrt_model_free(model);

  // A generous limit runs.
  graphrt_options_set_max_memory_bytes(options, 1 << 20);
  ASSERT_C_OK(graphrt_model_load(kTextModel, options, &model));
  EXPECT_C_OK(graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  graphrt_tensor_free(outputs[0]);
  graphrt_model_free(model);

  graphrt_options_set_max_memory_bytes(options, -1);
  StatusGuard negative(graphrt_model_load(kTextModel, options, &model));
  EXPECT_EQ(negative.code(), GRAPHRT_INVALID_ARGUMENT);
  graphrt_options_free(options);
  graphrt_tensor_free(tokens);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CApiTest, LoadFromMemory) {
  const std::string json = ReadFile(std::string(kTextModel) + "/model.json");
  const std::string shard =
      ReadFile(std::string(kTextModel) + "/group1-shard1of1.bin");
  ASSERT_FALSE(json.empty());
  GraphrtFile files[1] = {{"group1-shard1of1.bin", shard.data(), shard.size()}};
  GraphrtModel* model = nullptr;
  ASSERT_C_OK(graphrt_model_load_from_memory(json.data(), json.size(), files, 1,
                                             nullptr, &model));
  const std::vector<float> expected = ReferenceProbabilities(2);
  GraphrtTensor* tokens = MakeTokens(2);
  const char* names[1] = {"tokens"};
  const GraphrtTensor* inputs[1] = {tokens};
  GraphrtTensor* outputs[1] = {nullptr};
  ASSERT_C_OK(graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  EXPECT_EQ(std::memcmp(graphrt_tensor_data(outputs[0]), expected.data(),
                        8 * sizeof(float)),
            0);
  graphrt_tensor_free(outputs[0]);
  graphrt_tensor_free(tokens);
  graphrt_model_free(model);

  GraphrtModel* bad = nullptr;
  // A missing shard names the file.
  StatusGuard missing(graphrt_model_load_from_memory(
      json.data(), json.size(), nullptr, 0, nullptr, &bad));
  EXPECT_NE(missing.code(), GRAPHRT_OK);
  EXPECT_NE(missing.message().find("group1-shard1of1.bin"), std::string::npos)
      << missing.message();
  // A truncated shard.
  GraphrtFile truncated[1] = {
      {"group1-shard1of1.bin", shard.data(), shard.size() - 1}};
  StatusGuard short_shard(graphrt_model_load_from_memory(
      json.data(), json.size(), truncated, 1, nullptr, &bad));
  EXPECT_NE(short_shard.code(), GRAPHRT_OK);
  // Paths that would leave the folder.
  for (const char* path : {"../x.bin", "/etc/x.bin", "a//b", "./x"}) {
    GraphrtFile escape[1] = {{path, shard.data(), shard.size()}};
    StatusGuard s(graphrt_model_load_from_memory(json.data(), json.size(),
                                                 escape, 1, nullptr, &bad));
    EXPECT_EQ(s.code(), GRAPHRT_INVALID_ARGUMENT) << path;
  }
  // Duplicate names, NULLs, and bad JSON.
  GraphrtFile twice[2] = {files[0], files[0]};
  StatusGuard dup(graphrt_model_load_from_memory(json.data(), json.size(),
                                                 twice, 2, nullptr, &bad));
  EXPECT_EQ(dup.code(), GRAPHRT_INVALID_ARGUMENT) << dup.message();
  StatusGuard null_json(
      graphrt_model_load_from_memory(nullptr, 0, files, 1, nullptr, &bad));
  EXPECT_EQ(null_json.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_files(graphrt_model_load_from_memory(
      json.data(), json.size(), nullptr, 1, nullptr, &bad));
  EXPECT_EQ(null_files.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard garbage(
      graphrt_model_load_from_memory("{not json", 9, files, 1, nullptr, &bad));
  EXPECT_NE(garbage.code(), GRAPHRT_OK);
  EXPECT_EQ(bad, nullptr);
}

// A C host's job system: runs the jobs on a thread of its own and on the
// caller, last index first, and counts the calls and the jobs.
struct CountingJobs {
  std::atomic<int> calls{0};
  std::atomic<int64_t> jobs{0};
};

void HostParallelFor(void* host_data, int64_t count, GraphrtJobFn job,
                     void* job_data) {
  auto* host = static_cast<CountingJobs*>(host_data);
  host->calls.fetch_add(1);
  host->jobs.fetch_add(count);
  const int64_t half = count / 2;
  std::thread other([&] {
    for (int64_t i = count - 1; i >= half; --i) job(job_data, i);
  });
  for (int64_t i = half - 1; i >= 0; --i) job(job_data, i);
  other.join();
}

TEST(CApiTest, HostJobSystem) {
  // Sigmoid over 1M floats: an element-wise loop graphrt splits.
  const std::string json =
      R"({"format": "graph-model", "modelTopology": {"node": [
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
      "shape": {"shape": {"dim": [{"size": "-1"}]}}}},
    {"name": "y", "op": "Sigmoid", "input": ["x"], "attr": {"T": {"type": "DT_FLOAT"}}}
  ]}, "weightsManifest": []})";
  CountingJobs host;
  GraphrtOptions* options = graphrt_options_create();
  graphrt_options_set_threads(options, 7);  // ignored with a job system
  graphrt_options_set_job_system(options, 2, &HostParallelFor, &host);
  GraphrtModel* on_host = nullptr;
  ASSERT_C_OK(graphrt_model_load_from_memory(json.data(), json.size(), nullptr,
                                             0, options, &on_host));
  // parallel_for = NULL: back to graphrt's own threads (here: one).
  graphrt_options_set_job_system(options, 2, nullptr, nullptr);
  graphrt_options_set_threads(options, 1);
  GraphrtModel* inline_model = nullptr;
  ASSERT_C_OK(graphrt_model_load_from_memory(json.data(), json.size(), nullptr,
                                             0, options, &inline_model));
  graphrt_options_free(options);  // the models keep what they need

  const int64_t n = 1 << 20;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 2001 - 1000) / 97;
  GraphrtTensor* in = nullptr;
  ASSERT_C_OK(graphrt_tensor_create_view(GRAPHRT_FLOAT32, &n, 1, x.data(),
                                         n * sizeof(float), &in));
  const char* names[1] = {"x"};
  const GraphrtTensor* inputs[1] = {in};
  GraphrtTensor* a[1] = {nullptr};
  GraphrtTensor* b[1] = {nullptr};
  ASSERT_C_OK(graphrt_model_run(on_host, names, inputs, 1, nullptr, a, 1));
  ASSERT_C_OK(graphrt_model_run(inline_model, names, inputs, 1, nullptr, b, 1));
  EXPECT_GT(host.calls.load(), 0);
  EXPECT_GT(host.jobs.load(), host.calls.load());  // the loop was split
  EXPECT_EQ(std::memcmp(graphrt_tensor_data_const(a[0]),
                        graphrt_tensor_data_const(b[0]), n * sizeof(float)),
            0);
  graphrt_tensor_free(a[0]);
  graphrt_tensor_free(b[0]);
  graphrt_tensor_free(in);
  graphrt_model_free(on_host);
  graphrt_model_free(inline_model);
  graphrt_options_set_job_system(nullptr, 1, nullptr, nullptr);  // no-op
}

TEST(CApiTest, SaveAndRestoreState) {
  GraphrtModel* model = LoadOrDie(kTextModel);
  ASSERT_NE(model, nullptr);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string prefix = std::string(tmp ? tmp : "/tmp") + "/c_api_state";
  EXPECT_C_OK(graphrt_model_save_state(model, prefix.c_str()));
  EXPECT_C_OK(graphrt_model_restore_state(model, prefix.c_str()));
  StatusGuard missing(
      graphrt_model_restore_state(model, (prefix + "-does-not-exist").c_str()));
  EXPECT_NE(missing.code(), GRAPHRT_OK);
  StatusGuard null_prefix(graphrt_model_save_state(model, nullptr));
  EXPECT_EQ(null_prefix.code(), GRAPHRT_INVALID_ARGUMENT);
  StatusGuard null_model(graphrt_model_restore_state(nullptr, "x"));
  EXPECT_EQ(null_model.code(), GRAPHRT_INVALID_ARGUMENT);
  // The model still runs after a restore.
  GraphrtTensor* tokens = MakeTokens(1);
  const char* names[1] = {"tokens"};
  const GraphrtTensor* inputs[1] = {tokens};
  GraphrtTensor* outputs[1] = {nullptr};
  EXPECT_C_OK(graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1));
  graphrt_tensor_free(outputs[0]);
  graphrt_tensor_free(tokens);
  graphrt_model_free(model);
}

TEST(CApiTest, ConcurrentRuns) {
  GraphrtModel* model = LoadOrDie(kTextModel, 2);
  ASSERT_NE(model, nullptr);
  const std::vector<float> expected = ReferenceProbabilities(2);
  GraphrtTensor* tokens = MakeTokens(2);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      const char* names[1] = {"tokens"};
      const GraphrtTensor* inputs[1] = {tokens};
      GraphrtTensor* outputs[1] = {nullptr};
      for (int i = 0; i < 50; ++i) {
        GraphrtStatus* s =
            graphrt_model_run(model, names, inputs, 1, nullptr, outputs, 1);
        if (s != nullptr ||
            std::memcmp(graphrt_tensor_data(outputs[0]), expected.data(),
                        8 * sizeof(float)) != 0) {
          ++mismatches;
        }
        graphrt_status_free(s);
      }
      graphrt_tensor_free(outputs[0]);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  graphrt_tensor_free(tokens);
  graphrt_model_free(model);
}

}  // namespace
