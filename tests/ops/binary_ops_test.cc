#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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

absl::StatusOr<Tensor> RunBinary(const std::string& op, const Tensor& x,
                                 const Tensor& y) {
  OpTest t(op);
  t.Attr("T", x.dtype());
  auto out = t.Run({x, y});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Add / AddV2 with _fused_activation (passes::FuseAddActivation) give the
// same bits as the Add followed by the Relu / Relu6 kernel, broadcasting
// included; the attr is refused off float32 Adds.
TEST(BinaryOpsTest, FusedAddActivationMatchesAddThenActivation) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x =
      T_<float>({2, 5}, {-1, 2, nan, -0.0f, 5, 3, -inf, inf, 0.5f, -7});
  const Tensor ys[] = {
      T_<float>({2, 5}, {0.5f, 5, 1, -0.0f, 2, -3, 1, 1, -0.5f, 14}),
      T_<float>({5}, {0.25f, -3, 1, 0, 2}), T_<float>({}, {-0.0f})};
  for (const std::string op : {"Add", "AddV2"}) {
    for (const std::string act : {"Relu", "Relu6"}) {
      for (const Tensor& y : ys) {
        SCOPED_TRACE(op + " " + act + " " + y.DebugString());
        OpTest fused(op);
        fused.Attr("T", DType::kFloat32).Attr("_fused_activation", act);
        auto got = fused.Run({x, y});
        ASSERT_TRUE(got.ok()) << got.status();
        auto sum = RunBinary(op, x, y);
        ASSERT_TRUE(sum.ok());
        OpTest a(act);
        a.Attr("T", DType::kFloat32);
        auto want = a.Run({*sum});
        ASSERT_TRUE(want.ok()) << want.status();
        ASSERT_EQ((*got)[0].shape(), (*want)[0].shape());
        const std::vector<float> g = Values<float>((*got)[0]);
        const std::vector<float> w = Values<float>((*want)[0]);
        for (size_t i = 0; i < g.size(); ++i) {
          EXPECT_TRUE(
              (std::isnan(g[i]) && std::isnan(w[i])) ||
              (g[i] == w[i] && std::signbit(g[i]) == std::signbit(w[i])))
              << "element " << i << ": " << g[i] << " vs " << w[i];
        }
      }
    }
  }
  OpTest bad_act("AddV2");
  bad_act.Attr("T", DType::kFloat32).Attr("_fused_activation", "Tanh");
  ExpectError(bad_act.Run({x, x}), "_fused_activation");
  OpTest bad_type("AddV2");
  bad_type.Attr("T", DType::kInt32).Attr("_fused_activation", "Relu");
  ExpectError(bad_type.Run({T_<int32_t>({1}, {1}), T_<int32_t>({1}, {1})}),
              "_fused_activation");
  OpTest bad_op("Mul");
  bad_op.Attr("T", DType::kFloat32).Attr("_fused_activation", "Relu");
  ExpectError(bad_op.Run({x, x}), "_fused_activation");
}

TEST(BinaryOpsTest, SameShape) {
  const Tensor x = T_<float>({2, 2}, {1, 2, 3, 4});
  const Tensor y = T_<float>({2, 2}, {10, 20, 30, 40});
  auto add = RunBinary("AddV2", x, y);
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ(add->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*add), (std::vector<float>{11, 22, 33, 44}));
  auto add1 = RunBinary("Add", x, y);
  ASSERT_TRUE(add1.ok());
  EXPECT_EQ(Values<float>(*add1), (std::vector<float>{11, 22, 33, 44}));
  auto sub = RunBinary("Sub", x, y);
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(Values<float>(*sub), (std::vector<float>{-9, -18, -27, -36}));
  auto mul = RunBinary("Mul", x, y);
  ASSERT_TRUE(mul.ok());
  EXPECT_EQ(Values<float>(*mul), (std::vector<float>{10, 40, 90, 160}));
  auto div = RunBinary("RealDiv", y, x);
  ASSERT_TRUE(div.ok());
  EXPECT_EQ(Values<float>(*div), (std::vector<float>{10, 10, 10, 10}));
}

TEST(BinaryOpsTest, ScalarBroadcastBothSides) {
  const Tensor x = T_<double>({2, 2}, {1, 2, 3, 4});
  auto a = RunBinary("Sub", x, Tensor::Scalar<double>(1));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{0, 1, 2, 3}));
  auto b = RunBinary("Sub", Tensor::Scalar<double>(1), x);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<double>(*b), (std::vector<double>{0, -1, -2, -3}));
  // [1] + [1,1] -> [1,1].
  auto c = RunBinary("Add", T_<double>({1}, {1}), T_<double>({1, 1}, {2}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->shape(), Shape({1, 1}));
  EXPECT_EQ(Values<double>(*c), (std::vector<double>{3}));
}

TEST(BinaryOpsTest, RowAndColumnBroadcast) {
  auto row = RunBinary("AddV2", T_<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                       T_<int32_t>({3}, {10, 20, 30}));
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(Values<int32_t>(*row),
            (std::vector<int32_t>{11, 22, 33, 14, 25, 36}));
  // Outer product: [2,1] * [1,3].
  auto outer = RunBinary("Mul", T_<int64_t>({2, 1}, {2, 3}),
                         T_<int64_t>({1, 3}, {1, 10, 100}));
  ASSERT_TRUE(outer.ok()) << outer.status();
  EXPECT_EQ(outer->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<int64_t>(*outer),
            (std::vector<int64_t>{2, 20, 200, 3, 30, 300}));
}

TEST(BinaryOpsTest, ThreeDimBroadcast) {
  // [2,1,3] - [4,1] -> [2,4,3]: out[i,j,k] = x[i,0,k] - y[j,0].
  std::vector<float> xv = {1, 2, 3, 4, 5, 6};
  std::vector<float> yv = {0, 10, 20, 30};
  auto out = RunBinary("Sub", T_<float>({2, 1, 3}, xv), T_<float>({4, 1}, yv));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->shape(), Shape({2, 4, 3}));
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) want.push_back(xv[i * 3 + k] - yv[j]);
  EXPECT_EQ(Values<float>(*out), want);
  EXPECT_EQ(want[3], 1 - 10);  // spot check: [0,1,0]
}

TEST(BinaryOpsTest, LargeParallelMatchesSerial) {
  // [64,32,32] + [32,1] (exercises the row loop split over threads), and a
  // flat same-shape case.
  const int n = 64 * 32 * 32;
  std::vector<float> xv(n), yv(32);
  for (int i = 0; i < n; ++i) xv[i] = static_cast<float>(i % 977);
  for (int i = 0; i < 32; ++i) yv[i] = 1000.f * i;
  auto out =
      RunBinary("Add", T_<float>({64, 32, 32}, xv), T_<float>({32, 1}, yv));
  ASSERT_TRUE(out.ok()) << out.status();
  const float* o = out->data<float>();
  for (int i = 0; i < n; ++i) {
    const int j = (i / 32) % 32;
    ASSERT_EQ(o[i], xv[i] + yv[j]) << i;
  }
  auto flat = RunBinary("Mul", T_<float>({n}, xv), T_<float>({n}, xv));
  ASSERT_TRUE(flat.ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(flat->data<float>()[i], xv[i] * xv[i]);
}

// One operand repeating along a short last dim ([N,H,W,C] op [C], either
// side; BroadcastApply's tiled path) against an element-wise reference,
// for periods 1-5, 17 and 64, a row count that leaves a partial block, and
// a comparison (bool output).
TEST(BinaryOpsTest, ShortRepeatingOperandMatchesReference) {
  for (int64_t c : {1, 2, 3, 4, 5, 17, 64}) {
    const int64_t rows = 2 * 9 * 13;
    std::vector<float> xv(rows * c), yv(c);
    for (int64_t i = 0; i < rows * c; ++i) xv[i] = 0.25f * (i % 37) - 3;
    for (int64_t k = 0; k < c; ++k) yv[k] = 1.5f * k - 2;
    const Tensor x = T_<float>({2, 9, 13, c}, xv);
    const Tensor y = T_<float>({1, 1, 1, c}, yv);
    auto sub = RunBinary("Sub", x, y);
    auto rsub = RunBinary("Sub", T_<float>({c}, yv), x);
    auto less = RunBinary("Less", x, y);
    ASSERT_TRUE(sub.ok() && rsub.ok() && less.ok()) << c;
    ASSERT_EQ(sub->shape(), x.shape());
    for (int64_t i = 0; i < rows * c; ++i) {
      ASSERT_EQ(sub->data<float>()[i], xv[i] - yv[i % c]) << c << " " << i;
      ASSERT_EQ(rsub->data<float>()[i], yv[i % c] - xv[i]) << c << " " << i;
      ASSERT_EQ(less->data<bool>()[i], xv[i] < yv[i % c]) << c << " " << i;
    }
  }
}

TEST(BinaryOpsTest, EmptyOutput) {
  auto out = RunBinary("Add", T_<float>({0, 3}, {}), T_<float>({3}, {1, 2, 3}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({0, 3}));
}

TEST(BinaryOpsTest, IntegerDivision) {
  auto q = RunBinary("RealDiv", T_<int32_t>({4}, {7, -7, 7, -7}),
                     T_<int32_t>({4}, {2, 2, -2, -2}));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(Values<int32_t>(*q), (std::vector<int32_t>{3, -3, -3, 3}));
  const int32_t mn = std::numeric_limits<int32_t>::min();
  auto w =
      RunBinary("RealDiv", T_<int32_t>({1}, {mn}), Tensor::Scalar<int32_t>(-1));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(Values<int32_t>(*w), (std::vector<int32_t>{mn}));
  OpTest t("RealDiv");
  ExpectError(t.Run({T_<int32_t>({2}, {1, 2}), T_<int32_t>({2}, {1, 0})}),
              "Integer division by zero");
}

TEST(BinaryOpsTest, FloatDivisionByZeroIsInf) {
  auto q =
      RunBinary("RealDiv", T_<float>({2}, {1, -1}), Tensor::Scalar<float>(0));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->data<float>()[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(q->data<float>()[1], -std::numeric_limits<float>::infinity());
}

TEST(BinaryOpsTest, IntegerOverflowWraps) {
  const int32_t mx = std::numeric_limits<int32_t>::max();
  auto a = RunBinary("Add", T_<int32_t>({1}, {mx}), T_<int32_t>({1}, {1}));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Values<int32_t>(*a),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  auto m =
      RunBinary("Mul", T_<uint8_t>({2}, {200, 3}), T_<uint8_t>({2}, {2, 5}));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Values<uint8_t>(*m), (std::vector<uint8_t>{144, 15}));
  auto s = RunBinary("Sub", T_<int8_t>({1}, {-128}), T_<int8_t>({1}, {1}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Values<int8_t>(*s), (std::vector<int8_t>{127}));
}

TEST(BinaryOpsTest, StringAdd) {
  auto out = RunBinary("Add", T_<std::string>({2}, {"a", "b"}),
                       Tensor::Scalar<std::string>("x"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>(*out), (std::vector<std::string>{"ax", "bx"}));
  OpTest t("Sub");
  ExpectError(t.Run({T_<std::string>({1}, {"a"}), T_<std::string>({1}, {"b"})}),
              "string");
  OpTest t2("Mul");
  t2.Attr("T", DType::kString);
  EXPECT_FALSE(t2.Create(2).ok());
}

TEST(BinaryOpsTest, Errors) {
  {
    OpTest t("AddV2");
    ExpectError(t.Run({T_<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                       T_<float>({4}, {1, 2, 3, 4})}),
                "Incompatible shapes: [2,3] vs. [4]");
  }
  {
    OpTest t("Mul");
    ExpectError(t.Run({T_<float>({1}, {1}), T_<int32_t>({1}, {1})}),
                "same dtype");
  }
  {
    OpTest t("Mul");
    t.Attr("T", DType::kInt32);
    ExpectError(t.Run({T_<float>({1}, {1}), T_<float>({1}, {1})}), "attr T");
  }
  {
    OpTest t("Add");
    EXPECT_FALSE(t.Create(3).ok());
  }
}

}  // namespace
}  // namespace graphrt::testing
