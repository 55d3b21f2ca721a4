#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                 const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

// a = [[1,2,3],[4,5,6]], b = [[7,8],[9,10],[11,12]]; a*b = [[58,64],[139,154]].
const std::vector<float> kA = {1, 2, 3, 4, 5, 6};
const std::vector<float> kAt = {1, 4, 2, 5, 3, 6};
const std::vector<float> kB = {7, 8, 9, 10, 11, 12};
const std::vector<float> kBt = {7, 9, 11, 8, 10, 12};
const std::vector<float> kAB = {58, 64, 139, 154};

TEST(MatMulTest, AllTransposes) {
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      OpTest t("MatMul");
      t.Attr("T", DType::kFloat32)
          .Attr("transpose_a", ta == 1)
          .Attr("transpose_b", tb == 1);
      Tensor a = ta ? T_<float>({3, 2}, kAt) : T_<float>({2, 3}, kA);
      Tensor b = tb ? T_<float>({2, 3}, kBt) : T_<float>({3, 2}, kB);
      auto out = t.Run({a, b});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
      EXPECT_EQ(Values<float>((*out)[0]), kAB) << ta << tb;
    }
  }
}

TEST(MatMulTest, IntAndDouble) {
  OpTest t("MatMul");
  auto out = t.Run({T_<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                    T_<int32_t>({3, 2}, {7, 8, 9, 10, 11, 12})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]),
            (std::vector<int32_t>{58, 64, 139, 154}));
  OpTest t2("MatMul");
  auto out2 =
      t2.Run({T_<double>({1, 2}, {0.5, 0.25}), T_<double>({2, 1}, {2, 4})});
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_EQ(Values<double>((*out2)[0]), (std::vector<double>{2.0}));
}

TEST(MatMulTest, LargerAgainstNaive) {
  const int m = 37, k = 53, n = 29;
  std::vector<float> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = (i % 7) - 3;
  for (int i = 0; i < k * n; ++i) b[i] = (i % 5) * 0.5f;
  OpTest t("MatMul");
  auto out = t.Run({T_<float>({m, k}, a), T_<float>({k, n}, b)});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* o = (*out)[0].data<float>();
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      ASSERT_NEAR(o[i * n + j], s, 1e-3f);
    }
  }
}

TEST(MatMulTest, EmptyInnerDimGivesZeros) {
  OpTest t("MatMul");
  auto out = t.Run({T_<float>({2, 0}, {}), T_<float>({0, 3}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>((*out)[0]), std::vector<float>(6, 0.f));
}

TEST(MatMulTest, Errors) {
  {
    OpTest t("MatMul");
    ExpectError(t.Run({T_<float>({2, 3}, kA), T_<float>({2, 3}, kB)}),
                "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]");
  }
  {
    OpTest t("MatMul");
    ExpectError(t.Run({T_<float>({6}, kA), T_<float>({3, 2}, kB)}),
                "In[0] is not a matrix");
  }
  {
    OpTest t("MatMul");
    ExpectError(t.Run({T_<float>({2, 3}, kA), T_<double>({3, 1}, {1, 2, 3})}),
                "same dtype");
  }
  {
    OpTest t("MatMul");
    t.Attr("T", DType::kString);
    EXPECT_FALSE(t.Create(2).ok());
  }
}

absl::StatusOr<std::vector<float>> RunFused(
    const std::vector<std::string>& fused_ops, std::vector<Tensor> extra,
    float leaky_alpha = -1.f) {
  OpTest t("_FusedMatMul");
  t.Attr("T", DType::kFloat32)
      .Attr("fused_ops", fused_ops)
      .Attr("num_args", static_cast<int64_t>(extra.size()))
      .Attr("epsilon", 0.f);
  if (leaky_alpha >= 0) t.Attr("leakyrelu_alpha", leaky_alpha);
  std::vector<Tensor> inputs = {T_<float>({2, 3}, kA), T_<float>({3, 2}, kB)};
  for (auto& e : extra) inputs.push_back(e);
  auto out = t.Run(inputs);
  if (!out.ok()) return out.status();
  return Values<float>((*out)[0]);
}

TEST(FusedMatMulTest, BiasAndActivations) {
  const Tensor bias = T_<float>({2}, {1, -200});
  // a*b + bias = [[59,-136],[140,-46]].
  auto plain = RunFused({"BiasAdd"}, {bias});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(*plain, (std::vector<float>{59, -136, 140, -46}));
  auto relu = RunFused({"BiasAdd", "Relu"}, {bias});
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_EQ(*relu, (std::vector<float>{59, 0, 140, 0}));
  auto relu6 = RunFused({"BiasAdd", "Relu6"}, {bias});
  ASSERT_TRUE(relu6.ok());
  EXPECT_EQ(*relu6, (std::vector<float>{6, 0, 6, 0}));
  auto leaky = RunFused({"BiasAdd", "LeakyRelu"}, {bias}, 0.1f);
  ASSERT_TRUE(leaky.ok());
  ExpectNear(*leaky, {59, -13.6f, 140, -4.6f});
  auto leaky_default = RunFused({"BiasAdd", "LeakyRelu"}, {bias});
  ASSERT_TRUE(leaky_default.ok());
  ExpectNear(*leaky_default, {59, -27.2f, 140, -9.2f});
  auto elu = RunFused({"BiasAdd", "Elu"}, {bias});
  ASSERT_TRUE(elu.ok());
  ExpectNear(*elu, {59, -1, 140, -1});
  auto sig = RunFused({"BiasAdd", "Sigmoid"}, {T_<float>({2}, {-58, -64})});
  ASSERT_TRUE(sig.ok());
  ExpectNear(*sig, {0.5f, 0.5f, 1.f, 1.f});  // sigmoid([[0,0],[81,90]])
  auto tanh = RunFused({"BiasAdd", "Tanh"}, {T_<float>({2}, {-58, -64})});
  ASSERT_TRUE(tanh.ok());
  ExpectNear(*tanh, {0.f, 0.f, 1.f, 1.f});
  auto prelu =
      RunFused({"BiasAdd", "Prelu"}, {bias, T_<float>({2}, {0.5f, 0.25f})});
  ASSERT_TRUE(prelu.ok()) << prelu.status();
  ExpectNear(*prelu, {59, -34, 140, -11.5f});
}

TEST(FusedMatMulTest, Errors) {
  {
    OpTest t("_FusedMatMul");
    t.Attr("fused_ops", std::vector<std::string>{"BiasAdd", "Add"})
        .Attr("num_args", int64_t{2});
    absl::Status s = t.Create(4);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(std::string(s.message()).find("fused_ops"), std::string::npos)
        << s;
    EXPECT_NE(std::string(s.message()).find("[BiasAdd,Add]"), std::string::npos)
        << s;
  }
  {
    OpTest t("_FusedMatMul");
    t.Attr("fused_ops", std::vector<std::string>{"Relu"})
        .Attr("num_args", int64_t{0});
    EXPECT_FALSE(t.Create(2).ok());
  }
  {
    OpTest t("_FusedMatMul");
    t.Attr("fused_ops", std::vector<std::string>{"BiasAdd"})
        .Attr("num_args", int64_t{2});
    absl::Status s = t.Create(4);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(std::string(s.message()).find("num_args"), std::string::npos)
        << s;
  }
  {
    auto r = RunFused({"BiasAdd"}, {T_<float>({3}, {1, 2, 3})});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(std::string(r.status().message()).find("bias"), std::string::npos)
        << r.status();
  }
}

}  // namespace
}  // namespace graphrt::testing
