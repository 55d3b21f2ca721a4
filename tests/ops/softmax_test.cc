#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                float tol = 1e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

TEST(SoftmaxTest, Rows) {
  OpTest t("Softmax");
  t.Attr("T", DType::kFloat32);
  auto out = t.Run({T_<float>({2, 3}, {1, 2, 3, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  ExpectNear(Values<float>((*out)[0]), {0.09003057f, 0.24472847f, 0.66524096f,
                                        1 / 3.f, 1 / 3.f, 1 / 3.f});
}

TEST(SoftmaxTest, StableForLargeLogits) {
  OpTest t("Softmax");
  auto out = t.Run({T_<float>({2, 2}, {1000, 1000, -1000, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>((*out)[0]), {0.5f, 0.5f, 0.f, 1.f});
}

TEST(SoftmaxTest, OneDimAndDouble) {
  OpTest t("Softmax");
  auto out = t.Run({T_<double>({2}, {0, std::log(3.0)})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NEAR((*out)[0].data<double>()[0], 0.25, 1e-12);
  EXPECT_NEAR((*out)[0].data<double>()[1], 0.75, 1e-12);
}

TEST(SoftmaxTest, ManyRowsSumToOne) {
  const int rows = 3000, depth = 17;
  std::vector<float> x(rows * depth);
  for (int i = 0; i < rows * depth; ++i) x[i] = (i % 13) * 0.7f - 3.f;
  OpTest t("Softmax");
  auto out = t.Run({T_<float>({rows, depth}, x)});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* o = (*out)[0].data<float>();
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int j = 0; j < depth; ++j) sum += o[r * depth + j];
    ASSERT_NEAR(sum, 1.0, 1e-5) << r;
  }
}

TEST(SoftmaxTest, Errors) {
  OpTest t("Softmax");
  auto s = t.Run({Tensor::Scalar<float>(1)});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.status().message()).find("at least 1 dimension"),
            std::string::npos)
      << s.status();
  OpTest t2("Softmax");
  EXPECT_FALSE(t2.Run({T_<int32_t>({2}, {1, 2})}).ok());
  OpTest t3("Softmax");
  t3.Attr("T", DType::kInt32);
  EXPECT_FALSE(t3.Create(1).ok());
  OpTest t4("Softmax");
  auto e = t4.Run({T_<float>({0, 3}, {})});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)[0].shape(), Shape({0, 3}));
}

TEST(SoftmaxTest, LogSoftmaxStable) {
  OpTest t("LogSoftmax");
  t.Attr("T", DType::kFloat32);
  auto out = t.Run({T_<float>({2, 3}, {1, 2, 3, 1000, 1000, 1000})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  const float lse = std::log(std::exp(1.f) + std::exp(2.f) + std::exp(3.f));
  ExpectNear(Values<float>((*out)[0]),
             {1 - lse, 2 - lse, 3 - lse, -std::log(3.f), -std::log(3.f),
              -std::log(3.f)},
             1e-5f);
  OpTest t2("LogSoftmax");
  EXPECT_FALSE(t2.Run({Tensor::Scalar<float>(1)}).ok());
  OpTest t3("LogSoftmax");
  auto d = t3.Run({T_<double>({1, 2}, {0, 0})});
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(Values<double>((*d)[0])[0], -std::log(2.0), 1e-12);
}

}  // namespace
}  // namespace graphrt::testing
