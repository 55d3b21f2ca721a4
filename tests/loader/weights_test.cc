// Weight decoding of LoadTfjsModel: every dtype, quantization, shards and
// groups, and malformed manifests / shards.
#include <unistd.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loader/tfjs_model.h"
#include "loader/tfjs_test_util.h"
#include "loader/weight_arena.h"
#include "nlohmann/json.hpp"

namespace graphrt {
namespace {

using ::graphrt::tfjs_testing::Bytes;
using ::graphrt::tfjs_testing::TempModelDir;
using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

Json Topology() {
  return Json::parse(R"({"node": [{"name": "x", "op": "Placeholder",
      "attr": {"dtype": {"type": "DT_FLOAT"}}}], "versions": {"producer": 1}})");
}

Json Weight(const std::string& name, std::vector<int64_t> shape,
            const std::string& dtype) {
  Json w;
  w["name"] = name;
  w["shape"] = shape;
  w["dtype"] = dtype;
  return w;
}

Json Quantized(Json w, const std::string& qdtype, double min, double scale) {
  w["quantization"] = {{"dtype", qdtype}, {"min", min}, {"scale", scale}};
  return w;
}

Json Group(std::vector<std::string> paths, std::vector<Json> weights) {
  Json g;
  g["paths"] = paths;
  g["weights"] = weights;
  return g;
}

// Writes model.json with `manifest` into `dir`.
void WriteModel(const TempModelDir& dir, const Json& manifest) {
  Json m;
  m["format"] = "graph-model";
  m["modelTopology"] = Topology();
  m["weightsManifest"] = manifest;
  dir.Write("model.json", m.dump());
}

// One group with one shard "w.bin" holding `bytes`.
absl::StatusOr<TfjsModel> LoadOneGroup(const std::vector<Json>& weights,
                                       const std::string& bytes,
                                       const TfjsLoadOptions& options = {}) {
  TempModelDir dir;
  dir.Write("w.bin", bytes);
  WriteModel(dir, Json::array({Group({"w.bin"}, weights)}));
  return LoadTfjsModel(dir.path(), options);
}

uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }

// binary16 -> float32 bits: Eigen's conversion, and for NaNs the sign and
// payload kept as they are (TF.js's tables do; hardware converters set the
// quiet bit).
uint32_t HalfReferenceBits(uint16_t h) {
  if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) {
    return ((h & 0x8000u) << 16) | 0x7f800000u | ((h & 0x3ffu) << 13);
  }
  return Bits(
      static_cast<float>(Eigen::half(Eigen::half_impl::raw_uint16_to_half(h))));
}

TEST(TfjsWeightsTest, Float32AndInt32) {
  Bytes b;
  b.F32(1.5f).F32(-2.25f).F32(3e-40f).F32(1e30f);  // includes a subnormal
  b.I32(7).I32(-1).I32(std::numeric_limits<int32_t>::min());
  auto model = LoadOneGroup(
      {Weight("f", {2, 2}, "float32"), Weight("i", {3}, "int32")}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& f = model->weights.at("f");
  EXPECT_EQ(f.dtype(), DType::kFloat32);
  EXPECT_EQ(f.shape(), Shape({2, 2}));
  EXPECT_EQ(f.data<float>()[0], 1.5f);
  EXPECT_EQ(f.data<float>()[1], -2.25f);
  EXPECT_EQ(f.data<float>()[2], 3e-40f);
  EXPECT_EQ(f.data<float>()[3], 1e30f);
  const Tensor& i = model->weights.at("i");
  EXPECT_EQ(i.dtype(), DType::kInt32);
  EXPECT_THAT(
      std::vector<int32_t>(i.span<int32_t>().begin(), i.span<int32_t>().end()),
      ::testing::ElementsAre(7, -1, std::numeric_limits<int32_t>::min()));
  EXPECT_EQ(model->weight_stats.by_dtype.at("float32").count, 1);
  EXPECT_EQ(model->weight_stats.by_dtype.at("float32").bytes_stored, 16);
  EXPECT_EQ(model->weight_stats.by_dtype.at("int32").bytes_stored, 12);
  EXPECT_EQ(model->weight_stats.total_bytes, 28);
}

TEST(TfjsWeightsTest, ScalarAndZeroElementTensors) {
  Bytes b;
  b.F32(4.0f);
  auto model = LoadOneGroup(
      {Weight("empty", {0, 3}, "float32"), Weight("scalar", {}, "float32"),
       Weight("empty2", {2, 0}, "int32")},
      b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->weights.at("empty").num_elements(), 0);
  EXPECT_EQ(model->weights.at("empty").shape(), Shape({0, 3}));
  EXPECT_EQ(model->weights.at("scalar").rank(), 0);
  EXPECT_EQ(model->weights.at("scalar").data<float>()[0], 4.0f);
  EXPECT_EQ(model->weights.at("empty2").shape(), Shape({2, 0}));
}

TEST(TfjsWeightsTest, BoolIsOneBytePerElementAndUnaligned) {
  Bytes b;
  b.U8(1).U8(0).U8(2);  // any non-zero byte is true
  b.F32(0.5f);          // unaligned after 3 bool bytes
  auto model = LoadOneGroup(
      {Weight("b", {3}, "bool"), Weight("f", {1}, "float32")}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& t = model->weights.at("b");
  EXPECT_EQ(t.dtype(), DType::kBool);
  EXPECT_TRUE(t.data<bool>()[0]);
  EXPECT_FALSE(t.data<bool>()[1]);
  EXPECT_TRUE(t.data<bool>()[2]);
  EXPECT_EQ(model->weights.at("f").data<float>()[0], 0.5f);
}

TEST(TfjsWeightsTest, Strings) {
  Bytes b;
  b.Str("hello").Str("").Str(std::string("a\0b\xff", 4));  // [3]
  // "none" has zero elements: it takes no bytes at all.
  b.Str("x");  // scalar
  b.I32(42);
  auto model = LoadOneGroup(
      {Weight("s", {3}, "string"), Weight("none", {0}, "string"),
       Weight("none2", {2, 0}, "string"), Weight("scalar", {}, "string"),
       Weight("after", {}, "int32")},
      b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& s = model->weights.at("s");
  EXPECT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.data<std::string>()[0], "hello");
  EXPECT_EQ(s.data<std::string>()[1], "");
  EXPECT_EQ(s.data<std::string>()[2], std::string("a\0b\xff", 4));
  EXPECT_EQ(model->weights.at("none").num_elements(), 0);
  EXPECT_EQ(model->weights.at("none2").num_elements(), 0);
  EXPECT_EQ(model->weights.at("scalar").data<std::string>()[0], "x");
  EXPECT_EQ(model->weights.at("after").data<int32_t>()[0], 42);
  EXPECT_EQ(model->weight_stats.by_dtype.at("string").count, 4);
  EXPECT_EQ(model->weight_stats.by_dtype.at("string").bytes_stored,
            9 + 4 + 8 + 5);
}

TEST(TfjsWeightsTest, Complex64IsInterleaved) {
  Bytes b;
  b.F32(1).F32(2).F32(-3).F32(0.5f);
  auto model = LoadOneGroup({Weight("c", {2}, "complex64")}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& c = model->weights.at("c");
  EXPECT_EQ(c.dtype(), DType::kComplex64);
  EXPECT_EQ(c.data<complex64>()[0], complex64(1, 2));
  EXPECT_EQ(c.data<complex64>()[1], complex64(-3, 0.5f));
  EXPECT_EQ(model->weight_stats.by_dtype.at("complex64").bytes_stored, 16);
}

TEST(TfjsWeightsTest, Uint8ToFloat32ComputesInDouble) {
  const double min = -0.30000000000000004, scale = 0.1;
  Bytes b;
  b.U8(0).U8(1).U8(3).U8(255);
  auto model = LoadOneGroup(
      {Quantized(Weight("q", {4}, "float32"), "uint8", min, scale)}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& q = model->weights.at("q");
  EXPECT_EQ(q.dtype(), DType::kFloat32);
  const uint8_t raw[] = {0, 1, 3, 255};
  for (int i = 0; i < 4; ++i) {
    volatile double product = raw[i] * scale;  // no FMA in the expectation
    float expected = static_cast<float>(product + min);
    EXPECT_EQ(Bits(q.data<float>()[i]), Bits(expected)) << i;
  }
  EXPECT_EQ(model->weight_stats.by_dtype.at("float32<-uint8").count, 1);
  EXPECT_EQ(model->weight_stats.by_dtype.at("float32<-uint8").bytes_stored, 4);
}

TEST(TfjsWeightsTest, Uint8ToInt32RoundsHalfUp) {
  Bytes b;
  // q * 0.5 - 2: -2, -1.5, -0.5, 0.5, 1.5, 2.5, 125.5
  b.U8(0).U8(1).U8(3).U8(5).U8(7).U8(9).U8(255);
  auto model = LoadOneGroup(
      {Quantized(Weight("q", {7}, "int32"), "uint8", -2.0, 0.5)}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& q = model->weights.at("q");
  EXPECT_EQ(q.dtype(), DType::kInt32);
  std::vector<int32_t> got(q.span<int32_t>().begin(), q.span<int32_t>().end());
  // Math.round: ties toward +inf (numpy's half-to-even would give -2, 0, 2).
  EXPECT_THAT(got, ::testing::ElementsAre(-2, -1, 0, 1, 2, 3, 126));
  EXPECT_EQ(model->weight_stats.by_dtype.at("int32<-uint8").count, 1);
}

TEST(TfjsWeightsTest, Uint16ToFloat32AndInt32) {
  Bytes b;
  b.U16(0).U16(1).U16(65535);  // float32
  b.U16(2).U16(40000);         // int32
  auto model = LoadOneGroup(
      {Quantized(Weight("f", {3}, "float32"), "uint16", -1.0, 1.0 / 65535),
       Quantized(Weight("i", {2}, "int32"), "uint16", 10.0, 0.25)},
      b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& f = model->weights.at("f");
  EXPECT_EQ(f.data<float>()[0], -1.0f);
  EXPECT_EQ(f.data<float>()[1], static_cast<float>(1.0 * (1.0 / 65535) + -1.0));
  EXPECT_EQ(f.data<float>()[2],
            static_cast<float>(65535 * (1.0 / 65535) - 1.0));
  const Tensor& i = model->weights.at("i");
  EXPECT_EQ(i.data<int32_t>()[0], 11);  // 10.5 -> 11
  EXPECT_EQ(i.data<int32_t>()[1], 10010);
  EXPECT_EQ(model->weight_stats.by_dtype.at("float32<-uint16").bytes_stored, 6);
  EXPECT_EQ(model->weight_stats.by_dtype.at("int32<-uint16").bytes_stored, 4);
}

TEST(TfjsWeightsTest, Float16DecodedExactly) {
  const std::vector<uint16_t> halves = {
      0x3c00,  // 1
      0xc000,  // -2
      0x7bff,  // 65504 (max)
      0x0001,  // 2^-24 (smallest subnormal)
      0x03ff,  // 1023 * 2^-24 (largest subnormal)
      0x0400,  // 2^-14 (smallest normal)
      0x8000,  // -0
      0x7c00,  // +inf
      0xfc00,  // -inf
      0x7e00,  // quiet NaN
      0x7d01,  // signalling NaN with payload
      0x3555,  // 0.333251953125
  };
  Bytes b;
  for (uint16_t h : halves) b.U16(h);
  Json w = Weight("h", {static_cast<int64_t>(halves.size())}, "float32");
  w["quantization"] = {{"dtype", "float16"}};
  auto model = LoadOneGroup({w}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const float* v = model->weights.at("h").data<float>();
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.0f);
  EXPECT_EQ(v[2], 65504.0f);
  EXPECT_EQ(v[3], std::ldexp(1.0f, -24));
  EXPECT_EQ(v[4], std::ldexp(1023.0f, -24));
  EXPECT_EQ(v[5], std::ldexp(1.0f, -14));
  EXPECT_EQ(Bits(v[6]), 0x80000000u);
  EXPECT_EQ(v[7], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[8], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(Bits(v[9]), 0x7fc00000u);
  EXPECT_EQ(Bits(v[10]), 0x7fa02000u);  // payload kept, as TF.js's tables do
  EXPECT_EQ(v[11], 0.333251953125f);
  EXPECT_EQ(model->weight_stats.by_dtype.at("float32<-float16").bytes_stored,
            static_cast<int64_t>(2 * halves.size()));
}

TEST(TfjsWeightsTest, Float16MatchesEigenForAllFiniteValues) {
  Bytes b;
  for (uint32_t h = 0; h < 0x10000; ++h) b.U16(static_cast<uint16_t>(h));
  Json w = Weight("h", {0x10000}, "float32");
  w["quantization"] = {{"dtype", "float16"}};
  auto model = LoadOneGroup({w}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const float* v = model->weights.at("h").data<float>();
  int mismatches = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (Bits(v[h]) != HalfReferenceBits(static_cast<uint16_t>(h))) {
      ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// The float16 decoder is vectorized: an odd byte offset and a length that
// is not a multiple of the vector width decode like the scalar reference.
TEST(TfjsWeightsTest, Float16AtOddOffsetWithTail) {
  Bytes b;
  b.U8(1);  // a bool first: the halves start at byte 1
  std::vector<uint16_t> halves;
  for (int i = 0; i < 37; ++i) {
    halves.push_back(static_cast<uint16_t>(i * 1777 + 3));
  }
  for (uint16_t h : halves) b.U16(h);
  Json w = Weight("h", {37}, "float32");
  w["quantization"] = {{"dtype", "float16"}};
  auto model = LoadOneGroup({Weight("t", {1}, "bool"), w}, b.str());
  ASSERT_TRUE(model.ok()) << model.status();
  const float* v = model->weights.at("h").data<float>();
  for (int i = 0; i < 37; ++i) {
    EXPECT_EQ(Bits(v[i]), HalfReferenceBits(halves[i])) << i;
  }
}

TEST(TfjsWeightsTest, MultipleShardsAndGroups) {
  // Group 1: a [3] float32 tensor straddling the shard boundary (6 + 6 +
  // 4 bytes), then an int32. Group 2: its own shard.
  Bytes g1;
  g1.F32(1).F32(2).F32(3).I32(9);
  const std::string bytes = g1.str();
  TempModelDir dir;
  dir.Write("group1-shard1of3.bin", bytes.substr(0, 6));
  dir.Write("group1-shard2of3.bin", bytes.substr(6, 6));
  dir.Write("sub/group1-shard3of3.bin", bytes.substr(12));
  Bytes g2;
  g2.Str("z").U8(1);
  dir.Write("group2-shard1of1.bin", g2.str());
  WriteModel(
      dir,
      Json::array(
          {Group({"group1-shard1of3.bin", "group1-shard2of3.bin",
                  "sub/group1-shard3of3.bin"},
                 {Weight("a", {3}, "float32"), Weight("b", {}, "int32")}),
           Group({"./group2-shard1of1.bin"},
                 {Weight("s", {1}, "string"), Weight("t", {1}, "bool")})}));
  auto model = LoadTfjsModel(dir.path());
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& a = model->weights.at("a");
  EXPECT_EQ(a.data<float>()[0], 1.0f);
  EXPECT_EQ(a.data<float>()[1], 2.0f);
  EXPECT_EQ(a.data<float>()[2], 3.0f);
  EXPECT_EQ(model->weights.at("b").data<int32_t>()[0], 9);
  EXPECT_EQ(model->weights.at("s").data<std::string>()[0], "z");
  EXPECT_TRUE(model->weights.at("t").data<bool>()[0]);
  EXPECT_THAT(model->weight_names, ::testing::ElementsAre("a", "b", "s", "t"));
  EXPECT_EQ(model->weight_stats.total_bytes, 16 + 6);
}

TEST(TfjsWeightsTest, NoManifestOrEmptyGroup) {
  TempModelDir dir;
  Json m;
  m["modelTopology"] = Topology();
  dir.Write("model.json", m.dump());
  auto model = LoadTfjsModel(dir.path());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(model->weights.empty());

  TempModelDir dir2;
  WriteModel(dir2, Json::array({Group({}, {})}));
  model = LoadTfjsModel(dir2.path());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(model->weights.empty());
}

// ---- errors ----

void ExpectError(const absl::StatusOr<TfjsModel>& model,
                 std::vector<std::string> substrings) {
  ASSERT_FALSE(model.ok());
  for (const std::string& s : substrings) {
    EXPECT_THAT(std::string(model.status().message()), HasSubstr(s));
  }
}

TEST(TfjsWeightsErrorTest, TruncatedShardNamesFirstWeightThatDoesNotFit) {
  Bytes b;
  b.F32(1).F32(2).F32(3);  // 12 bytes; the weights need 4 + 12
  auto model = LoadOneGroup(
      {Weight("fits", {1}, "float32"), Weight("too_long", {3}, "float32"),
       Weight("later", {1}, "float32")},
      b.str());
  ExpectError(model, {"model.json", "w.bin", "weight 'too_long'",
                      "needs 12 bytes at offset 4", "only 12 bytes"});
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TfjsWeightsErrorTest, OversizedShard) {
  Bytes b;
  b.F32(1).F32(2).U8(0).U8(0).U8(0);
  auto model = LoadOneGroup({Weight("w", {2}, "float32")}, b.str());
  ExpectError(model, {"model.json", "3 extra bytes after the last weight 'w'"});
}

TEST(TfjsWeightsErrorTest, StringLengthPastEnd) {
  Bytes b;
  b.Str("ok").U32(100).Raw("short");
  auto model = LoadOneGroup({Weight("s", {2}, "string")}, b.str());
  ExpectError(model,
              {"weight 's'", "element 1 of length 100", "runs past the end"});
  // A length prefix cut in half.
  Bytes c;
  c.Str("ok").U8(1).U8(0);
  model = LoadOneGroup({Weight("s", {2}, "string")}, c.str());
  ExpectError(model, {"weight 's'", "length of element 1"});
  // Empty string tensor with a huge shape must not allocate.
  model = LoadOneGroup({Weight("s", {1000000000, 1000000}, "string")}, "");
  ExpectError(model, {"weight 's'"});
}

TEST(TfjsWeightsErrorTest, NegativeDim) {
  auto model = LoadOneGroup({Weight("neg", {2, -1}, "float32")}, "");
  ExpectError(model, {"model.json", "weight 'neg'", "negative dimension"});
}

TEST(TfjsWeightsErrorTest, HugeDimsOverflow) {
  auto model = LoadOneGroup(
      {Weight("huge", {int64_t{1} << 40, int64_t{1} << 40}, "float32")}, "");
  ExpectError(model, {"weight 'huge'", "too many elements"});
  // Fits in int64 elements but not in bytes.
  model = LoadOneGroup({Weight("huge2", {int64_t{1} << 62}, "complex64")}, "");
  ExpectError(model, {"weight 'huge2'"});
  // Shape entries beyond int64 or non-integral.
  TempModelDir dir;
  dir.Write("model.json",
            R"({"modelTopology": {}, "weightsManifest": [{"paths": [],
                "weights": [{"name": "big", "dtype": "float32",
                             "shape": [18446744073709551615]}]}]})");
  ExpectError(LoadTfjsModel(dir.path()), {"weight 'big'", "shape[0]"});
  dir.Write("model.json",
            R"({"modelTopology": {}, "weightsManifest": [{"paths": [],
                "weights": [{"name": "frac", "dtype": "float32",
                             "shape": [1.5]}]}]})");
  ExpectError(LoadTfjsModel(dir.path()), {"weight 'frac'", "integer"});
}

TEST(TfjsWeightsErrorTest, MaxTensorBytes) {
  Bytes b;
  for (int i = 0; i < 8; ++i) b.F32(1);
  TfjsLoadOptions options;
  options.max_tensor_bytes = 16;
  auto model = LoadOneGroup({Weight("big", {8}, "float32")}, b.str(), options);
  ExpectError(model, {"weight 'big'", "max_tensor_bytes"});
  EXPECT_EQ(model.status().code(), absl::StatusCode::kResourceExhausted);
  options.max_tensor_bytes = 32;
  EXPECT_TRUE(
      LoadOneGroup({Weight("big", {8}, "float32")}, b.str(), options).ok());
}

TEST(TfjsWeightsErrorTest, QuantizationWithoutScaleOrMin) {
  Json w = Weight("q", {1}, "float32");
  w["quantization"] = {{"dtype", "uint8"}, {"min", 0.0}};
  ExpectError(LoadOneGroup({w}, std::string(1, '\0')),
              {"weight 'q'", "uint8 needs numeric 'min' and 'scale'"});
  w["quantization"] = {{"dtype", "uint16"}, {"scale", 1.0}};
  ExpectError(LoadOneGroup({w}, std::string(2, '\0')),
              {"weight 'q'", "uint16 needs numeric 'min' and 'scale'"});
  w["quantization"] = {{"dtype", "uint8"}, {"min", "0"}, {"scale", 1.0}};
  ExpectError(LoadOneGroup({w}, std::string(1, '\0')),
              {"weight 'q'", "numeric"});
}

TEST(TfjsWeightsErrorTest, BadDtypesAndQuantizations) {
  ExpectError(LoadOneGroup({Weight("u", {1}, "uint8")}, std::string(1, '\0')),
              {"weight 'u'", "unsupported dtype 'uint8'"});
  ExpectError(LoadOneGroup({Weight("d", {1}, "float64")}, std::string(8, '\0')),
              {"weight 'd'", "unsupported dtype 'float64'"});
  Json w = Weight("h", {1}, "int32");
  w["quantization"] = {{"dtype", "float16"}};
  ExpectError(LoadOneGroup({w}, std::string(2, '\0')),
              {"weight 'h'", "float16 quantization only supports float32"});
  ExpectError(LoadOneGroup({Quantized(Weight("b", {1}, "bool"), "uint8", 0, 1)},
                           std::string(1, '\0')),
              {"weight 'b'", "float32 or int32"});
  ExpectError(
      LoadOneGroup({Quantized(Weight("x", {1}, "float32"), "int8", 0, 1)},
                   std::string(1, '\0')),
      {"weight 'x'", "unknown quantization dtype 'int8'"});
}

TEST(TfjsWeightsErrorTest, DuplicateNames) {
  ExpectError(
      LoadOneGroup({Weight("w", {1}, "float32"), Weight("w", {1}, "float32")},
                   std::string(8, '\0')),
      {"model.json", "weightsManifest[0].weights[1]",
       "duplicate weight name 'w'"});
}

TEST(TfjsWeightsErrorTest, MalformedEntries) {
  Json no_name;
  no_name["shape"] = Json::array();
  no_name["dtype"] = "float32";
  ExpectError(LoadOneGroup({no_name}, ""),
              {"weightsManifest[0].weights[0]", "'name'"});
  Json no_shape;
  no_shape["name"] = "n";
  no_shape["dtype"] = "float32";
  ExpectError(LoadOneGroup({no_shape}, ""), {"weight 'n'", "'shape'"});
  TempModelDir dir;
  dir.Write("model.json", R"({"modelTopology": {}, "weightsManifest": {}})");
  ExpectError(LoadTfjsModel(dir.path()), {"weightsManifest", "array"});
  dir.Write("model.json",
            R"({"modelTopology": {}, "weightsManifest": [{"paths": [1]}]})");
  ExpectError(LoadTfjsModel(dir.path()), {"weightsManifest[0].paths[0]"});
}

TEST(TfjsWeightsErrorTest, MissingShard) {
  TempModelDir dir;
  WriteModel(dir,
             Json::array({Group({"nope.bin"}, {Weight("w", {1}, "float32")})}));
  auto model = LoadTfjsModel(dir.path());
  ExpectError(model, {"model.json", "nope.bin"});
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace graphrt

namespace graphrt {
namespace {

TEST(WeightArenaTest, PiecesAreAlignedAndBounded) {
  auto arena = WeightArena::Create(3 * 1024 * 1024);
  ASSERT_NE(arena, nullptr);
  void* a = arena->Take(1);
  void* b = arena->Take(100);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % WeightArena::kAlignment, 0u);
  EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 64);
  std::memset(b, 7, 100);
  EXPECT_EQ(arena->Take(3 * 1024 * 1024), nullptr);             // past the end
  EXPECT_NE(arena->Take(3 * 1024 * 1024 - 64 - 128), nullptr);  // exactly full
  EXPECT_EQ(arena->Take(1), nullptr);
  EXPECT_EQ(WeightArena::Create(0), nullptr);
}

// A weight's keep-alive gives its whole pages back when the last tensor
// viewing it goes (an anonymous mapping then reads zeros there), and leaves
// the partly covered pages it shares with its neighbours alone.
TEST(WeightArenaTest, DroppedPiecesGiveTheirPagesBack) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  auto arena = WeightArena::Create(4 * 1024 * 1024);
  ASSERT_NE(arena, nullptr);
  char* before = static_cast<char*>(arena->Take(100));
  const size_t bytes = kMinReleasableBytes + 3 * page;
  char* piece = static_cast<char*>(arena->Take(bytes));
  char* after = static_cast<char*>(arena->Take(100));
  ASSERT_NE(after, nullptr);
  std::memset(before, 1, 100);
  std::memset(piece, 2, bytes);
  std::memset(after, 3, 100);
  Tensor t = Tensor::View(DType::kUInt8, Shape({static_cast<int64_t>(bytes)}),
                          piece, PageReleasingOwner(arena, piece, bytes));
  Tensor copy = t;
  t = Tensor();
  EXPECT_EQ(piece[page + 1], 2);  // still viewed by `copy`
  copy = Tensor();
  // The piece starts 128 bytes into the arena's first page: that page and
  // the last partly covered one keep their bytes, the ones between are zero.
  EXPECT_EQ(piece[0], 2);
  EXPECT_EQ(before[99], 1);
  EXPECT_EQ(after[0], 3);
  const uintptr_t first =
      (reinterpret_cast<uintptr_t>(piece) + page - 1) / page * page;
  EXPECT_EQ(*reinterpret_cast<char*>(first), 0);
  EXPECT_EQ(*reinterpret_cast<char*>(first + 2 * page), 0);
  // Small weights are not worth a syscall: they get the owner itself.
  std::shared_ptr<const void> owner = arena;
  EXPECT_EQ(PageReleasingOwner(owner, before, 100), owner);
  // A 16 KB filter, typical of a small model, gives its pages back on its
  // own: a whole shard of them would otherwise stay until the last went.
  char* filter = static_cast<char*>(arena->Take(16 << 10));
  ASSERT_NE(filter, nullptr);
  EXPECT_NE(PageReleasingOwner(owner, filter, 16 << 10), owner);
}

// A group above WeightArena::kMinBytes decodes into one arena: every dtype
// still decodes exactly, the tensors outlive the model that made them, and
// entries stay 64-byte aligned.
Json HalfWeight(const std::string& name, int64_t n) {
  Json w = Weight(name, {n}, "float32");
  w["quantization"] = {{"dtype", "float16"}};
  return w;
}

TEST(TfjsWeightsTest, LargeGroupDecodesThroughTheArena) {
  const int64_t halves = 600 * 1024;  // 2.4 MB of float32 once decoded
  Bytes b;
  for (int64_t i = 0; i < halves; ++i) b.U16(static_cast<uint16_t>(i * 7));
  b.U8(1).U8(0).U8(2);  // bool[3]
  b.I32(-5).I32(9);     // int32[2]
  b.U32(2).Raw("hi");   // string[1]
  b.F32(0.25f);         // float32[1]
  Tensor kept;
  {
    auto model =
        LoadOneGroup({HalfWeight("h", halves), Weight("b", {3}, "bool"),
                      Weight("i", {2}, "int32"), Weight("s", {1}, "string"),
                      Weight("f", {1}, "float32")},
                     b.str());
    ASSERT_TRUE(model.ok()) << model.status();
    const Tensor& h = model->weights.at("h");
    for (int64_t i = 0; i < halves; i += 997) {
      ASSERT_EQ(Bits(h.data<float>()[i]),
                HalfReferenceBits(static_cast<uint16_t>(i * 7)))
          << i;
    }
    const Tensor& bools = model->weights.at("b");
    EXPECT_TRUE(bools.data<bool>()[0]);
    EXPECT_FALSE(bools.data<bool>()[1]);
    EXPECT_TRUE(bools.data<bool>()[2]);
    EXPECT_EQ(model->weights.at("i").data<int32_t>()[1], 9);
    EXPECT_EQ(model->weights.at("s").data<std::string>()[0], "hi");
    for (const char* name : {"h", "b", "i", "f"}) {
      EXPECT_EQ(
          reinterpret_cast<uintptr_t>(model->weights.at(name).raw_data()) % 64,
          0u)
          << name;
    }
    kept = model->weights.at("f");
  }
  EXPECT_EQ(kept.data<float>()[0], 0.25f);  // the arena outlived the model
}

}  // namespace
}  // namespace graphrt
