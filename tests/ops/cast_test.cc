#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

absl::StatusOr<Tensor> RunCast(const Tensor& in, DType dst) {
  OpTest t("Cast");
  t.Attr("SrcT", in.dtype()).Attr("DstT", dst).Attr("Truncate", false);
  auto out = t.Run({in});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(CastTest, FloatToIntTruncatesTowardZero) {
  auto out = RunCast(T_<float>({4}, {1.9f, -1.9f, 0.5f, -0.5f}), DType::kInt32);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{1, -1, 0, 0}));
}

TEST(CastTest, FloatToIntSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto out =
      RunCast(T_<float>({5}, {nan, 1e10f, -1e10f, inf, -inf}), DType::kInt32);
  ASSERT_TRUE(out.ok()) << out.status();
  const int32_t mx = std::numeric_limits<int32_t>::max();
  const int32_t mn = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Values<int32_t>(*out), (std::vector<int32_t>{0, mx, mn, mx, mn}));

  auto u8 =
      RunCast(T_<float>({4}, {300.f, -5.f, 255.5f, -0.5f}), DType::kUInt8);
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_EQ(Values<uint8_t>(*u8), (std::vector<uint8_t>{255, 0, 255, 0}));

  auto i64 = RunCast(T_<double>({3}, {1e300, -1e300, -3.99}), DType::kInt64);
  ASSERT_TRUE(i64.ok()) << i64.status();
  EXPECT_EQ(Values<int64_t>(*i64),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(), -3}));
}

TEST(CastTest, IntNarrowingWraps) {
  auto out = RunCast(T_<int32_t>({3}, {256, 257, -1}), DType::kUInt8);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint8_t>(*out), (std::vector<uint8_t>{0, 1, 255}));
  auto i8 = RunCast(T_<int64_t>({2}, {128, -129}), DType::kInt8);
  ASSERT_TRUE(i8.ok()) << i8.status();
  EXPECT_EQ(Values<int8_t>(*i8), (std::vector<int8_t>{-128, 127}));
}

TEST(CastTest, Bool) {
  auto b = RunCast(T_<int32_t>({3}, {0, 2, -1}), DType::kBool);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->dtype(), DType::kBool);
  EXPECT_FALSE(b->data<bool>()[0]);
  EXPECT_TRUE(b->data<bool>()[1]);
  EXPECT_TRUE(b->data<bool>()[2]);

  auto fb = RunCast(
      T_<float>({3}, {0.f, -0.f, std::numeric_limits<float>::quiet_NaN()}),
      DType::kBool);
  ASSERT_TRUE(fb.ok()) << fb.status();
  EXPECT_FALSE(fb->data<bool>()[0]);
  EXPECT_FALSE(fb->data<bool>()[1]);
  EXPECT_TRUE(fb->data<bool>()[2]);

  auto f = RunCast(*b, DType::kFloat32);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(Values<float>(*f), (std::vector<float>{0.f, 1.f, 1.f}));
}

TEST(CastTest, FloatConversions) {
  auto d = RunCast(T_<float>({2}, {0.5f, -2.25f}), DType::kFloat64);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(Values<double>(*d), (std::vector<double>{0.5, -2.25}));

  auto i = RunCast(T_<int64_t>({2}, {-3, 1LL << 40}), DType::kFloat32);
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(Values<float>(*i), (std::vector<float>{-3.f, 1099511627776.f}));

  auto h = RunCast(T_<float>({2}, {1.5f, 65504.f}), DType::kFloat16);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->dtype(), DType::kFloat16);
  auto back = RunCast(*h, DType::kInt32);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Values<int32_t>(*back), (std::vector<int32_t>{1, 65504}));
}

TEST(CastTest, SameTypeForwards) {
  Tensor in = T_<float>({2}, {1.f, 2.f});
  auto out = RunCast(in, DType::kFloat32);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->raw_data(), in.raw_data());
}

TEST(CastTest, Errors) {
  {
    OpTest t("Cast");
    t.Attr("SrcT", DType::kInt32).Attr("DstT", DType::kFloat32);
    auto out = t.Run({T_<float>({1}, {1.f})});
    ASSERT_FALSE(out.ok());
    EXPECT_NE(std::string(out.status().message()).find("SrcT"),
              std::string::npos)
        << out.status();
  }
  {
    OpTest t("Cast");
    t.Attr("SrcT", DType::kFloat32).Attr("DstT", DType::kString);
    EXPECT_FALSE(t.Create(1).ok());
  }
  {
    OpTest t("Cast");
    absl::Status s = t.Create(1);  // no DstT
    ASSERT_FALSE(s.ok());
    EXPECT_NE(std::string(s.message()).find("DstT"), std::string::npos) << s;
  }
  {
    OpTest t("Cast");
    t.Attr("DstT", DType::kFloat32);
    auto out = t.Run({T_<std::string>({1}, {"x"})});
    EXPECT_FALSE(out.ok());
  }
}

}  // namespace
}  // namespace graphrt::testing
