#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {


[[maybe_unused]] void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                        const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

// Runs `t` and returns output 0 (fails the test on error).
[[maybe_unused]] Tensor RunOne(OpTest& t, const std::vector<Tensor>& inputs) {
  auto r = t.Run(inputs);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || r->empty()) return Tensor();
  return (*r)[0];
}

// 0, 1, 2, ... as a tensor of `shape`.
template <typename T>
[[maybe_unused]] Tensor Iota(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(i);
  return T_<T>(shape, v);
}

[[maybe_unused]] Tensor I32(const std::vector<int32_t>& v) {
  return T_<int32_t>({static_cast<int64_t>(v.size())}, v);
}
[[maybe_unused]] Tensor I64(const std::vector<int64_t>& v) {
  return T_<int64_t>({static_cast<int64_t>(v.size())}, v);
}
[[maybe_unused]] Tensor Strs(const std::vector<int64_t>& shape,
                   const std::vector<std::string>& v) {
  return T_<std::string>(shape, v);
}

[[maybe_unused]] Tensor Bools(const std::vector<int64_t>& shape, const std::vector<int>& v) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i] != 0;
  return t;
}


TEST(FillTest, Dtypes) {
  OpTest t("Fill");
  Tensor o = RunOne(t, {I32({2, 3}), Tensor::Scalar<float>(1.5f)});
  EXPECT_EQ(o.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(o), std::vector<float>(6, 1.5f));
  OpTest t2("Fill");
  Tensor o2 = RunOne(t2, {I64({2}), Tensor::Scalar<std::string>("z")});
  EXPECT_EQ(Values<std::string>(o2), (std::vector<std::string>{"z", "z"}));
  OpTest t3("Fill");
  Tensor o3 = RunOne(t3, {I32({}), Tensor::Scalar<bool>(true)});
  EXPECT_EQ(o3.shape(), Shape({}));
  EXPECT_TRUE(o3.data<bool>()[0]);
  OpTest t4("Fill");
  Tensor o4 = RunOne(t4, {I32({0, 5}), Tensor::Scalar<int32_t>(1)});
  EXPECT_EQ(o4.shape(), Shape({0, 5}));
  OpTest t5("Fill");
  Tensor big = RunOne(t5, {I32({300, 300}), Tensor::Scalar<int64_t>(7)});
  EXPECT_EQ(big.data<int64_t>()[89999], 7);
}

TEST(FillTest, Errors) {
  OpTest t("Fill");
  ExpectError(t.Run({I32({-1, 2}), Tensor::Scalar<float>(1)}), "invalid dims");
  OpTest t2("Fill");
  ExpectError(t2.Run({I32({2}), T_<float>({1}, {1})}), "scalar");
  OpTest t3("Fill");
  ExpectError(t3.Run({T_<float>({1}, {2}), Tensor::Scalar<float>(1)}),
              "int32 or int64");
}

TEST(ZerosOnesLikeTest, Dtypes) {
  OpTest z("ZerosLike");
  EXPECT_EQ(Values<float>(RunOne(z, {T_<float>({2}, {3, 4})})),
            (std::vector<float>{0, 0}));
  OpTest zs("ZerosLike");
  EXPECT_EQ(Values<std::string>(RunOne(zs, {Strs({2}, {"a", "b"})})),
            (std::vector<std::string>{"", ""}));
  OpTest zb("ZerosLike");
  EXPECT_EQ(Values<bool>(RunOne(zb, {Bools({1}, {1})})),
            (std::vector<bool>{false}));
  OpTest o("OnesLike");
  EXPECT_EQ(Values<int64_t>(RunOne(o, {T_<int64_t>({2}, {3, 4})})),
            (std::vector<int64_t>{1, 1}));
  OpTest ob("OnesLike");
  EXPECT_EQ(Values<bool>(RunOne(ob, {Bools({2}, {0, 1})})),
            (std::vector<bool>{true, true}));
  OpTest os("OnesLike");
  ExpectError(os.Run({Strs({1}, {"a"})}), "unsupported dtype");
}

TEST(LinSpaceTest, Values) {
  OpTest t("LinSpace");
  Tensor o = RunOne(t, {Tensor::Scalar<float>(10), Tensor::Scalar<float>(12),
                        Tensor::Scalar<int32_t>(3)});
  EXPECT_EQ(Values<float>(o), (std::vector<float>{10, 11, 12}));
  OpTest t1("LinSpace");
  Tensor o1 = RunOne(t1, {Tensor::Scalar<double>(5), Tensor::Scalar<double>(9),
                          Tensor::Scalar<int64_t>(1)});
  EXPECT_EQ(Values<double>(o1), (std::vector<double>{5}));
  OpTest t2("LinSpace");
  Tensor o2 = RunOne(t2, {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
                          Tensor::Scalar<int32_t>(7)});
  EXPECT_EQ(o2.data<float>()[6], 1.0f);
  OpTest bad("LinSpace");
  ExpectError(bad.Run({Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
                       Tensor::Scalar<int32_t>(0)}),
              "num > 0");
}

TEST(RangeTest, IntsAndFloats) {
  auto range = [](const Tensor& a, const Tensor& b, const Tensor& c) {
    OpTest t("Range");
    return t.Run({a, b, c});
  };
  auto r = range(Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(18),
                 Tensor::Scalar<int32_t>(3));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{3, 6, 9, 12, 15}));
  auto r2 = range(Tensor::Scalar<int64_t>(3), Tensor::Scalar<int64_t>(1),
                  Tensor::Scalar<int64_t>(-1));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(Values<int64_t>((*r2)[0]), (std::vector<int64_t>{3, 2}));
  auto r3 = range(Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
                  Tensor::Scalar<float>(0.3f));
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ((*r3)[0].num_elements(), 4);
  auto r4 = range(Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5),
                  Tensor::Scalar<int32_t>(1));
  ASSERT_TRUE(r4.ok());
  EXPECT_EQ((*r4)[0].shape(), Shape({0}));
  // Extreme int32 bounds: no overflow.
  auto r5 = range(Tensor::Scalar<int32_t>(INT32_MIN),
                  Tensor::Scalar<int32_t>(INT32_MAX),
                  Tensor::Scalar<int32_t>(INT32_MAX));
  ASSERT_TRUE(r5.ok()) << r5.status();
  EXPECT_EQ(Values<int32_t>((*r5)[0]),
            (std::vector<int32_t>{INT32_MIN, -1, INT32_MAX - 1}));
  auto r6 = range(Tensor::Scalar<double>(1), Tensor::Scalar<double>(2),
                  Tensor::Scalar<double>(0.5));
  ASSERT_TRUE(r6.ok());
  EXPECT_EQ(Values<double>((*r6)[0]), (std::vector<double>{1, 1.5}));
}

TEST(RangeTest, Errors) {
  auto range = [](const Tensor& a, const Tensor& b, const Tensor& c) {
    OpTest t("Range");
    return t.Run({a, b, c});
  };
  ExpectError(range(Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(5),
                    Tensor::Scalar<int32_t>(0)),
              "delta != 0");
  ExpectError(range(Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(0),
                    Tensor::Scalar<int32_t>(1)),
              "start <= limit");
  ExpectError(range(Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(5),
                    Tensor::Scalar<int32_t>(-1)),
              "start >= limit");
  ExpectError(range(Tensor::Scalar<float>(0), Tensor::Scalar<float>(INFINITY),
                    Tensor::Scalar<float>(1)),
              "invalid range");
  ExpectError(range(Tensor::Scalar<int32_t>(0), Tensor::Scalar<int64_t>(5),
                    Tensor::Scalar<int32_t>(1)),
              "one dtype");
}

TEST(OneHotTest, AxesAndValues) {
  auto onehot = [](const Tensor& idx, int depth, const Tensor& on,
                   const Tensor& off, int64_t axis) {
    OpTest t("OneHot");
    t.Attr("axis", axis);
    return t.Run({idx, Tensor::Scalar<int32_t>(depth), on, off});
  };
  auto r = onehot(I32({0, 2, -1, 1}), 3, Tensor::Scalar<float>(5),
                  Tensor::Scalar<float>(0), -1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape(), Shape({4, 3}));
  EXPECT_EQ(Values<float>((*r)[0]),
            (std::vector<float>{5, 0, 0, 0, 0, 5, 0, 0, 0, 0, 5, 0}));
  auto r0 = onehot(I64({0, 2}), 3, Tensor::Scalar<int32_t>(1),
                   Tensor::Scalar<int32_t>(-1), 0);
  ASSERT_TRUE(r0.ok()) << r0.status();
  EXPECT_EQ((*r0)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values<int32_t>((*r0)[0]),
            (std::vector<int32_t>{1, -1, -1, -1, -1, 1}));
  auto rs = onehot(T_<uint8_t>({1}, {1}), 2, Tensor::Scalar<std::string>("y"),
                   Tensor::Scalar<std::string>("n"), -1);
  ASSERT_TRUE(rs.ok()) << rs.status();
  EXPECT_EQ(Values<std::string>((*rs)[0]), (std::vector<std::string>{"n", "y"}));
  ExpectError(onehot(I32({0}), -1, Tensor::Scalar<float>(1),
                     Tensor::Scalar<float>(0), -1),
              "depth must be non-negative");
  ExpectError(onehot(I32({0}), 2, Tensor::Scalar<float>(1),
                     Tensor::Scalar<float>(0), 2),
              "axis");
  ExpectError(onehot(I32({0}), 2, Tensor::Scalar<float>(1),
                     Tensor::Scalar<int32_t>(0), -1),
              "one dtype");
}

// Ones / Zeros are TF.js op-list names (not TF ops): shape input, dtype T.
TEST(OnesZerosTest, FillsShapeWithDtype) {
  OpTest ones("Ones");
  ones.Attr("T", DType::kInt32);
  auto out = ones.Run({T_<int32_t>({2}, {2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt32);
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Values<int32_t>((*out)[0]), std::vector<int32_t>(6, 1));
  OpTest zeros("Zeros");
  auto z = zeros.Run({T_<int32_t>({1}, {4})});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dtype(), DType::kFloat32);
  EXPECT_EQ(Values<float>((*z)[0]), std::vector<float>(4, 0.f));
  OpTest bad("Zeros");
  EXPECT_FALSE(bad.Run({T_<int32_t>({1}, {-1})}).ok());
}

}  // namespace
}  // namespace graphrt::testing
