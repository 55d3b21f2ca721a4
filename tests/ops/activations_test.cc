#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

absl::StatusOr<Tensor> RunAct(OpTest& t, const Tensor& x) {
  auto out = t.Run({x});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                float tol = 1e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

TEST(ActivationsTest, Relu) {
  OpTest t("Relu");
  t.Attr("T", DType::kFloat32);
  auto out = RunAct(t, T_<float>({2, 2}, {-1, 0, 2, -0.5f}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{0, 0, 2, 0}));
  OpTest ti("Relu");
  auto iout = RunAct(ti, T_<int32_t>({3}, {-5, 0, 5}));
  ASSERT_TRUE(iout.ok()) << iout.status();
  EXPECT_EQ(Values<int32_t>(*iout), (std::vector<int32_t>{0, 0, 5}));
}

TEST(ActivationsTest, Relu6) {
  OpTest t("Relu6");
  auto out = RunAct(t, T_<float>({4}, {-1, 3, 6, 7}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>(*out), (std::vector<float>{0, 3, 6, 6}));
}

TEST(ActivationsTest, Elu) {
  OpTest t("Elu");
  auto out = RunAct(t, T_<float>({3}, {-1, 0, 2}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>(*out), {-0.63212056f, 0, 2});
}

TEST(ActivationsTest, LeakyRelu) {
  OpTest t("LeakyRelu");  // default alpha 0.2
  auto out = RunAct(t, T_<float>({3}, {-1, 0, 2}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>(*out), {-0.2f, 0, 2});
  OpTest t2("LeakyRelu");
  t2.Attr("alpha", 0.1f);
  auto out2 = RunAct(t2, T_<double>({2}, {-3, 4}));
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_NEAR(out2->data<double>()[0], -0.3, 1e-7);
  EXPECT_EQ(out2->data<double>()[1], 4.0);
}

TEST(ActivationsTest, Sigmoid) {
  OpTest t("Sigmoid");
  auto out = RunAct(t, T_<float>({5}, {0, 2, -2, 100, -100}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>(*out), {0.5f, 0.8807971f, 0.1192029f, 1.f, 0.f});
  for (float v : Values<float>(*out)) EXPECT_FALSE(std::isnan(v));
}

TEST(ActivationsTest, Tanh) {
  OpTest t("Tanh");
  auto out = RunAct(t, T_<float>({4}, {0, 1, -1, 50}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>(*out), {0.f, 0.7615942f, -0.7615942f, 1.f});
}

TEST(ActivationsTest, LargeParallel) {
  const int n = 100000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i % 200 - 100) * 0.05f;
  OpTest t("Sigmoid");
  auto out = RunAct(t, T_<float>({n}, x));
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < n; i += 997) {
    ASSERT_NEAR(out->data<float>()[i], 1.f / (1.f + std::exp(-x[i])), 1e-6f);
  }
  OpTest r("Relu");
  auto rout = RunAct(r, T_<float>({n}, x));
  ASSERT_TRUE(rout.ok());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(rout->data<float>()[i], x[i] > 0 ? x[i] : 0.f);
  }
}

TEST(ActivationsTest, Errors) {
  OpTest t("Sigmoid");
  t.Attr("T", DType::kInt32);
  EXPECT_FALSE(t.Create(1).ok());
  OpTest t2("Tanh");
  auto out = t2.Run({T_<int32_t>({1}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("int32"),
            std::string::npos)
      << out.status();
  OpTest t3("Relu");
  t3.Attr("T", DType::kFloat32);
  EXPECT_FALSE(t3.Run({T_<double>({1}, {1})}).ok());
}

}  // namespace
}  // namespace graphrt::testing
