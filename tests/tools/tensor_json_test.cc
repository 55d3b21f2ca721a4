#include "tools/tensor_json.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

TEST(TensorJsonTest, RoundTrip) {
  auto recs = ParseTensorRecords(
      R"({"inputs":[{"name":"a","dtype":"float32","shape":[2],"data_b64":"AACAPwAAAEA="},
                    {"name":"s","dtype":"string","shape":[2],"strings":["x",""]},
                    {"name":"b","dtype":"bool","shape":[3],"data_b64":"AQAB"}]})",
      "inputs");
  ASSERT_TRUE(recs.ok()) << recs.status();
  ASSERT_EQ(recs->size(), 3u);
  EXPECT_EQ((*recs)[0].value.data<float>()[1], 2.f);
  EXPECT_EQ((*recs)[1].value.data<std::string>()[0], "x");
  EXPECT_TRUE((*recs)[2].value.data<bool>()[2]);
  auto j = TensorToJson((*recs)[0]);
  EXPECT_EQ(j["data_b64"], "AACAPwAAAEA=");
}

TEST(TensorJsonTest, Errors) {
  const char* bad[] = {
      "{", R"({"inputs":{}})",
      R"({"inputs":[{"name":"a","dtype":"float32","shape":[3],"data_b64":"AACAPw=="}]})",
      R"({"inputs":[{"name":"a","dtype":"float99","shape":[1],"data_b64":""}]})",
      R"({"inputs":[{"name":"a","dtype":"float32","shape":[-1],"data_b64":""}]})",
      R"({"inputs":[{"name":"a","dtype":"string","shape":[2],"strings":["x"]}]})",
      R"({"inputs":[{"name":"a","dtype":"int32","shape":[1],"data_b64":"!!!"}]})",
  };
  for (const char* text : bad) {
    EXPECT_FALSE(ParseTensorRecords(text, "inputs").ok()) << text;
  }
}

TEST(TensorJsonTest, ConvertInputRangeChecks) {
  Tensor v = Tensor::FromVector<int32_t>({0, 255});
  auto u8 = ConvertInput("img", v, DType::kUInt8);
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(u8->data<uint8_t>()[1], 255);
  auto bad = ConvertInput("img", Tensor::FromVector<int32_t>({256}), DType::kUInt8);
  EXPECT_FALSE(bad.ok());
  auto i64 = ConvertInput("ids", Tensor::FromVector<int32_t>({-5}), DType::kInt64);
  ASSERT_TRUE(i64.ok());
  EXPECT_EQ(i64->data<int64_t>()[0], -5);
  EXPECT_FALSE(ConvertInput("s", v, DType::kString).ok());
}

TEST(TensorJsonTest, CompareTolerances) {
  Tensor a = Tensor::FromVector<float>({1.0f, 100.0f});
  Tensor b = Tensor::FromVector<float>({1.00005f, 100.09f});
  EXPECT_EQ(CompareTensors(a, b), "");
  Tensor c = Tensor::FromVector<float>({1.0f, 100.2f});
  EXPECT_NE(CompareTensors(a, c), "");
  EXPECT_NE(CompareTensors(Tensor::FromVector<int32_t>({1}),
                           Tensor::FromVector<int32_t>({2})), "");
  EXPECT_EQ(CompareTensors(Tensor::FromVector<int64_t>({7}),
                           Tensor::FromVector<int32_t>({7})), "");
}

}  // namespace
}  // namespace graphrt
